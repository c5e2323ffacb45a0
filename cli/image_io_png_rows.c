/* A non-interlaced PNG read a band of rows at a time (the strip route of
 * cli/op_filter_stream.c), with the in-memory reader's transforms
 * (cli_png_read_setup), so the samples are the same. PNG cannot seek: a
 * read that starts above the rows already decoded (pass 2 after pass 1)
 * decodes the file again from its start: 3.3 s for a 16384^2 RGB 8-bit
 * file, where a temporary file of the decoded rows would cost about 1.6 s
 * (written, read back) and the image's raw size on disk (bench/RESULTS.md,
 * "pngstream"). Written, a PNG goes row after row with the in-memory
 * writer's settings (cli_png_write_setup). */
#include "image_io_png_shared.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct cli_png_rows {
    FILE *f;
    const char *path;
    png_structp png;
    png_infop info;
    cli_png_err_state st;
    uint32_t next;     /* the next row libpng decodes */
    uint32_t height;
    size_t row_bytes;
    int decodes;       /* how many times the file was opened to decode */
};

static void rows_end(cli_png_rows *s)
{
    if (s->png)
        png_destroy_read_struct(&s->png, &s->info, NULL);
    s->png = NULL;
    s->info = NULL;
    if (s->f)
        fclose(s->f);
    s->f = NULL;
}

static void rows_error(cli_png_rows *s, char *err, size_t errlen)
{
    if (s->f && feof(s->f))
        snprintf(err, errlen, "%s: truncated PNG (the file ends before the image does)", s->path);
    else
        snprintf(err, errlen, "%s: bad PNG: %s", s->path, s->st.msg[0] ? s->st.msg : "read error");
}

/* Open s->path and read its header with the shared set-up: the decoder at
 * row 0. hdr and *interlaced as cli_png_read_setup says. */
static int rows_begin(cli_png_rows *s, cli_image *hdr, int *interlaced, char *err, size_t errlen)
{
    s->st.msg[0] = 0;
    if (!(s->f = fopen(s->path, "rb"))) {
        snprintf(err, errlen, "cannot read %s", s->path);
        return -1;
    }
    s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s->st, cli_png_on_error, cli_png_on_warning);
    s->info = s->png ? png_create_info_struct(s->png) : NULL;
    if (!s->png || !s->info) {
        rows_end(s);
        snprintf(err, errlen, "%s: out of memory starting the PNG reader", s->path);
        return -1;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        rows_error(s, err, errlen);
        rows_end(s);
        return -1;
    }
    if (cli_png_read_setup(s->png, s->info, s->f, s->path, hdr, interlaced, err, errlen)) {
        rows_end(s);
        return -1;
    }
    s->next = 0;
    s->decodes++;
    return 0;
}

cli_png_rows *cli_png_rows_open(const char *path, cli_image *hdr, char *err, size_t errlen)
{
    cli_png_rows *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->path = path;
    int interlaced = 0;
    if (rows_begin(s, hdr, &interlaced, err, errlen)) {
        free(s);
        return NULL;
    }
    if (interlaced) {
        /* Adam7 spreads every row over seven passes: no row is whole before the last */
        snprintf(err, errlen, "%s is an interlaced PNG, not read in rows", path);
        cli_png_rows_close(s);
        return NULL;
    }
    s->height = (uint32_t)hdr->img.height;
    s->row_bytes = hdr->img.stride;
    return s;
}

int cli_png_rows_read(cli_png_rows *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                      size_t errlen)
{
    if (rows == 0)
        return 0;
    if (y0 > s->height || rows > s->height - y0) {
        snprintf(err, errlen, "%s: rows %u..%u are outside the image", s->path, (unsigned)y0,
                 (unsigned)(y0 + rows));
        return -1;
    }
    if (!s->png || y0 < s->next) {
        /* the rows above are gone: decode again from the top */
        cli_image hdr;
        rows_end(s);
        if (rows_begin(s, &hdr, NULL, err, errlen))
            return -1;
        if ((uint32_t)hdr.img.height != s->height || hdr.img.stride != s->row_bytes) {
            snprintf(err, errlen, "%s changed while it was read", s->path);
            rows_end(s);
            return -1;
        }
    }
    if (setjmp(png_jmpbuf(s->png))) {
        rows_error(s, err, errlen);
        rows_end(s); /* libpng's state is unusable after its error */
        return -1;
    }
    unsigned char *d = dst;
    /* rows skipped (not asked for) are decoded into the first row of dst */
    for (; s->next < y0; s->next++)
        png_read_row(s->png, d, NULL);
    for (uint32_t r = 0; r < rows; r++, s->next++)
        png_read_row(s->png, d + (size_t)r * s->row_bytes, NULL);
    return 0;
}

int cli_png_rows_decodes(const cli_png_rows *s)
{
    return s ? s->decodes : 0;
}

void cli_png_rows_close(cli_png_rows *s)
{
    if (!s)
        return;
    rows_end(s);
    free(s);
}

/* ------------------------------------------------------------- rows out */

struct cli_png_rows_out {
    FILE *f;
    const char *path;
    png_structp png;
    png_infop info;
    cli_png_err_state st;
    uint32_t next, height;
    size_t row_bytes;
};

static void out_end(cli_png_rows_out *s)
{
    if (s->png)
        png_destroy_write_struct(&s->png, &s->info);
    s->png = NULL;
    s->info = NULL;
    if (s->f)
        fclose(s->f);
    s->f = NULL;
}

static void out_error(cli_png_rows_out *s, char *err, size_t errlen)
{
    snprintf(err, errlen, "cannot write %s: %s", s->path, s->st.msg[0] ? s->st.msg : strerror(errno));
}

/* Open tmp_path and write the header with the in-memory writer's settings
 * (level, strategy, filter, 16-bit swap). */
static int out_begin(cli_png_rows_out *s, const char *tmp_path, const rb_image *geom,
                     const cli_codec *codec, char *err, size_t errlen)
{
    if (!(s->f = fopen(tmp_path, "wb"))) {
        snprintf(err, errlen, "cannot write %s: %s", s->path, strerror(errno));
        return -1;
    }
    s->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s->st, cli_png_on_error, cli_png_on_warning);
    s->info = s->png ? png_create_info_struct(s->png) : NULL;
    if (!s->png || !s->info) {
        out_end(s);
        snprintf(err, errlen, "cannot write %s: out of memory starting the PNG writer", s->path);
        return -1;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        out_error(s, err, errlen);
        out_end(s);
        return -1;
    }
    cli_png_write_setup(s->png, s->info, s->f, geom, cli_png_level(codec, geom->format));
    return 0;
}

cli_png_rows_out *cli_png_rows_create(const char *tmp_path, const char *path, const rb_image *geom,
                                      const cli_codec *codec, char *err, size_t errlen)
{
    cli_png_rows_out *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->path = path;
    s->height = (uint32_t)geom->height;
    s->row_bytes = (size_t)geom->width * geom->channels * cli_sample_size(geom->format);
    if (out_begin(s, tmp_path, geom, codec, err, errlen)) {
        free(s);
        return NULL;
    }
    return s;
}

int cli_png_rows_write(cli_png_rows_out *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                       size_t errlen)
{
    if (!s->png || y0 != s->next || rows > s->height - y0) {
        /* PNG is written from the top down, each row once */
        snprintf(err, errlen, "cannot write %s: rows %u..%u out of order", s->path, (unsigned)y0,
                 (unsigned)(y0 + rows));
        return -1;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        out_error(s, err, errlen);
        out_end(s);
        return -1;
    }
    const unsigned char *p = src;
    for (uint32_t r = 0; r < rows; r++, s->next++)
        png_write_row(s->png, (png_const_bytep)(p + (size_t)r * s->row_bytes));
    return 0;
}

int cli_png_rows_finish(cli_png_rows_out *s, int flush, char *err, size_t errlen)
{
    if (!s)
        return 0;
    volatile int rc = 0; /* volatile: read after libpng's longjmp */
    if (flush) {
        if (!s->png || s->next != s->height) {
            snprintf(err, errlen, "cannot write %s: %u of %u rows written", s->path, (unsigned)s->next,
                     (unsigned)s->height);
            rc = -1;
        } else if (setjmp(png_jmpbuf(s->png))) {
            out_error(s, err, errlen);
            rc = -1;
        } else {
            png_write_end(s->png, NULL);
            if (fflush(s->f) != 0) {
                snprintf(err, errlen, "cannot write %s: %s", s->path, strerror(errno));
                rc = -1;
            }
        }
    }
    if (s->png)
        png_destroy_write_struct(&s->png, &s->info);
    if (s->f && fclose(s->f) != 0 && flush && rc == 0) {
        snprintf(err, errlen, "cannot write %s: %s", s->path, strerror(errno));
        rc = -1;
    }
    free(s);
    return rc;
}
