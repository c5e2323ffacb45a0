/* PFM (Portable Float Map): "PF" (RGB) or "Pf" (gray), width, height and a
 * scale whose sign gives the byte order (negative: little endian), each
 * separated by white space, one white-space byte, then raw float32 rows
 * stored bottom to top. The scale's magnitude is informational only, as in
 * most readers; samples are kept exactly as stored. */
#include "image_io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

static void swap32(unsigned char *p, size_t count)
{
    for (size_t i = 0; i < count; i++, p += 4) {
        unsigned char t = p[0]; p[0] = p[3]; p[3] = t;
        t = p[1]; p[1] = p[2]; p[2] = t;
    }
}

/* Reads one white-space separated header token of at most cap-1 bytes. */
static int read_token(FILE *f, char *tok, size_t cap)
{
    int c;
    do {
        c = fgetc(f);
        if (c == '#') { /* tolerate comment lines, as some writers emit them */
            while (c != EOF && c != '\n')
                c = fgetc(f);
        }
    } while (c != EOF && isspace(c));
    size_t n = 0;
    while (c != EOF && !isspace(c)) {
        if (n + 1 >= cap)
            return -1;
        tok[n++] = (char)c;
        c = fgetc(f);
    }
    tok[n] = 0;
    /* c is the single white-space byte that ends the token (or EOF) */
    return n > 0 && c != EOF ? 0 : -1;
}

static int parse_dim(const char *tok, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (errno || *end || end == tok || v <= 0 || v > RB_MAX_SIDE)
        return -1;
    *out = (int)v;
    return 0;
}

int cli_pfm_read(FILE *f, const char *path, cli_image *out, char *err, size_t errlen)
{
    char tok[64];
    if (read_token(f, tok, sizeof tok) || (strcmp(tok, "PF") && strcmp(tok, "Pf"))) {
        snprintf(err, errlen, "%s: not a PFM file (expected \"PF\" or \"Pf\")", path);
        return -1;
    }
    int channels = tok[1] == 'F' ? 3 : 1;
    int w, h;
    if (read_token(f, tok, sizeof tok) || parse_dim(tok, &w)) {
        snprintf(err, errlen, "%s: bad PFM width", path);
        return -1;
    }
    if (read_token(f, tok, sizeof tok) || parse_dim(tok, &h)) {
        snprintf(err, errlen, "%s: bad PFM height", path);
        return -1;
    }
    char *end;
    if (read_token(f, tok, sizeof tok)) {
        snprintf(err, errlen, "%s: bad PFM scale", path);
        return -1;
    }
    double scale = strtod(tok, &end);
    if (*end || end == tok || !isfinite(scale) || scale == 0.0) {
        snprintf(err, errlen, "%s: bad PFM scale \"%s\" (a non-zero number; its sign gives the byte order)",
                 path, tok);
        return -1;
    }
    int file_le = scale < 0.0;
    long pos = ftell(f);
    long long size = cli_file_size(f);
    uint64_t need = (uint64_t)w * (uint64_t)h * (uint64_t)channels * 4u;
    if (pos >= 0 && size >= 0 && (uint64_t)(size - pos) < need) {
        snprintf(err, errlen, "%s: truncated PFM (header says %dx%d, %llu bytes of pixels; the file has %lld)",
                 path, w, h, (unsigned long long)need, size - pos);
        return -1;
    }
    if (cli_image_alloc(&out->img, w, h, channels, RB_F32, err, errlen)) {
        char tmp[CLI_ERR_LEN];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
        return -1;
    }
    size_t row_bytes = out->img.stride;
    for (int y = h - 1; y >= 0; y--) {   /* rows are stored bottom to top */
        unsigned char *row = (unsigned char *)out->img.data + (size_t)y * row_bytes;
        if (fread(row, 1, row_bytes, f) != row_bytes) {
            snprintf(err, errlen, "%s: truncated PFM (pixel data ends early)", path);
            return -1;
        }
        if (file_le != host_is_little_endian())
            swap32(row, (size_t)w * (size_t)channels);
    }
    return 0;
}

int cli_pfm_write(FILE *f, const char *path, const rb_image *img, char *err, size_t errlen)
{
    int le = host_is_little_endian();
    if (fprintf(f, "%s\n%d %d\n%s\n", img->channels == 3 ? "PF" : "Pf", img->width, img->height,
                le ? "-1.0" : "1.0") < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    size_t row_bytes = (size_t)img->width * (size_t)img->channels * 4u;
    size_t stride = img->stride ? img->stride : row_bytes;
    for (int y = img->height - 1; y >= 0; y--) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * stride;
        if (fwrite(row, 1, row_bytes, f) != row_bytes) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}
