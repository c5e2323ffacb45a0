/* The file the strip route reads, a band of rows at a time: a TIFF in strips
 * or tiles (bands on its strips or rows of tiles) or a non-interlaced PNG
 * (bands of any height), so cli/op_filter_stream.c does not care which. */
#include "image_io.h"

#include <stdlib.h>
#include <string.h>

struct cli_rows_source {
    cli_file_type type;
    cli_tiff_rows *tiff;
    cli_png_rows *png;
};

cli_rows_source *cli_rows_source_open(const char *path, cli_image *hdr, uint32_t *align, char *err,
                                      size_t errlen)
{
    unsigned char head[16];
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    cli_rows_source *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->type = cli_file_type_from_magic(head, n);
    if (s->type == CLI_FILE_PNG) {
        s->png = cli_png_rows_open(path, hdr, err, errlen);
        *align = 1;
    } else {
        /* TIFF, or what the TIFF reader refuses with its own message */
        s->type = CLI_FILE_TIFF;
        s->tiff = cli_tiff_rows_open(path, hdr, align, err, errlen);
    }
    if (!s->png && !s->tiff) {
        free(s);
        return NULL;
    }
    return s;
}

cli_file_type cli_rows_source_type(const cli_rows_source *s)
{
    return s->type;
}

int cli_rows_source_read(cli_rows_source *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                         size_t errlen)
{
    return s->png ? cli_png_rows_read(s->png, y0, rows, dst, err, errlen)
                  : cli_tiff_rows_read(s->tiff, y0, rows, dst, err, errlen);
}

int cli_rows_source_decodes(const cli_rows_source *s)
{
    return s->png ? cli_png_rows_decodes(s->png) : 0;
}

size_t cli_rows_source_layout(const cli_rows_source *s, char *buf, size_t len)
{
    if (s->tiff)
        return cli_tiff_rows_layout(s->tiff, buf, len);
    if (len)
        buf[0] = 0;
    return 0;
}

void cli_rows_source_close(cli_rows_source *s)
{
    if (!s)
        return;
    if (s->png)
        cli_png_rows_close(s->png);
    else
        cli_tiff_rows_close(s->tiff, 0, NULL, 0);
    free(s);
}
