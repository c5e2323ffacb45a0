/* The file the strip route writes, a band of rows at a time: a TIFF in
 * strips or a PNG row after row, so cli/op_filter_stream.c does not care
 * which. */
#include "image_io.h"

#include <stdlib.h>

struct cli_rows_sink {
    cli_tiff_rows *tiff;
    cli_png_rows_out *png;
};

cli_rows_sink *cli_rows_sink_create(cli_file_type type, const char *tmp_path, const char *path,
                                    const rb_image *geom, const cli_codec *codec, uint32_t rps,
                                    char *err, size_t errlen)
{
    cli_rows_sink *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (type == CLI_FILE_PNG)
        s->png = cli_png_rows_create(tmp_path, path, geom, codec, err, errlen);
    else if (type == CLI_FILE_TIFF)
        s->tiff = cli_tiff_rows_create(tmp_path, path, geom, codec, rps, err, errlen);
    else
        snprintf(err, errlen, "cannot write %s in rows: %s is written whole", path,
                 cli_file_type_name(type));
    if (!s->png && !s->tiff) {
        free(s);
        return NULL;
    }
    return s;
}

int cli_rows_sink_write(cli_rows_sink *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                        size_t errlen)
{
    return s->png ? cli_png_rows_write(s->png, y0, rows, src, err, errlen)
                  : cli_tiff_rows_write(s->tiff, y0, rows, src, err, errlen);
}

int cli_rows_sink_close(cli_rows_sink *s, int flush, char *err, size_t errlen)
{
    if (!s)
        return 0;
    const int rc = s->png ? cli_png_rows_finish(s->png, flush, err, errlen)
                          : cli_tiff_rows_close(s->tiff, flush, err, errlen);
    free(s);
    return rc;
}
