/* Format dispatch, checked allocation and the write-to-temp-then-rename rule
 * shared by every codec. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "image_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

cli_file_type cli_file_type_from_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return CLI_FILE_UNKNOWN;
    if (!strcasecmp(dot, ".png"))
        return CLI_FILE_PNG;
    if (!strcasecmp(dot, ".tif") || !strcasecmp(dot, ".tiff"))
        return CLI_FILE_TIFF;
    if (!strcasecmp(dot, ".pfm"))
        return CLI_FILE_PFM;
    return CLI_FILE_UNKNOWN;
}

cli_file_type cli_file_type_from_magic(const unsigned char *h, size_t n)
{
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && !memcmp(h, png_sig, 8))
        return CLI_FILE_PNG;
    if (n >= 4 && ((h[0] == 'I' && h[1] == 'I' && (h[2] == 42 || h[2] == 43) && h[3] == 0) ||
                   (h[0] == 'M' && h[1] == 'M' && h[2] == 0 && (h[3] == 42 || h[3] == 43))))
        return CLI_FILE_TIFF;
    if (n >= 3 && h[0] == 'P' && (h[1] == 'F' || h[1] == 'f') &&
        (h[2] == '\n' || h[2] == '\r' || h[2] == ' ' || h[2] == '\t'))
        return CLI_FILE_PFM;
    return CLI_FILE_UNKNOWN;
}

const char *cli_file_type_name(cli_file_type type)
{
    switch (type) {
    case CLI_FILE_PNG: return "PNG";
    case CLI_FILE_TIFF: return "TIFF";
    case CLI_FILE_PFM: return "PFM";
    default: return "unknown";
    }
}

const char *cli_format_name(rb_format format)
{
    switch (format) {
    case RB_U8: return "8-bit";
    case RB_U16: return "16-bit";
    case RB_F32: return "32-bit float";
    case RB_F64: return "64-bit float";
    }
    return "?";
}

size_t cli_sample_size(rb_format format)
{
    switch (format) {
    case RB_U8: return 1;
    case RB_U16: return 2;
    case RB_F32: return 4;
    case RB_F64: return 8;
    }
    return 0;
}

int cli_have_tiff(void)
{
#ifdef RB_HAVE_TIFF
    return 1;
#else
    return 0;
#endif
}

int cli_file_can_store(cli_file_type type, rb_format format, int channels, const char **why)
{
    switch (type) {
    case CLI_FILE_PNG:
        if (format != RB_U8 && format != RB_U16) {
            *why = "PNG stores 8- and 16-bit integer samples only";
            return 0;
        }
        return 1;
    case CLI_FILE_PFM:
        if (format != RB_F32) {
            *why = "PFM stores 32-bit float samples only";
            return 0;
        }
        if (channels != 1 && channels != 3) {
            *why = "PFM stores gray or RGB only (no alpha); write PNG or TIFF to keep alpha";
            return 0;
        }
        return 1;
    case CLI_FILE_TIFF:
        if (!cli_have_tiff()) {
            *why = "this recblur was built without libtiff (install libtiff-dev and rebuild)";
            return 0;
        }
        if (format == RB_F64) {
            *why = "TIFF output is written as 8-bit, 16-bit or 32-bit float";
            return 0;
        }
        return 1;
    default:
        *why = "unsupported format (use .png, .tif, .tiff or .pfm)";
        return 0;
    }
}

/* Large images in 2 MiB-aligned memory marked for transparent huge pages:
 * a 4096^2 RGB image is 12 288 page faults on first touch in 4 KiB pages,
 * which cost as much as reading the file; with huge pages, 24. */
static void *alloc_pixels(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (bytes >= 4 * huge) {
        void *p = NULL;
        if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge) == 0) {
            (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure only costs speed */
            return p;
        }
    }
#endif
    return malloc(bytes);
}

int cli_image_alloc(rb_image *img, int width, int height, int channels, rb_format format,
                    char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (width <= 0 || height <= 0 || width > RB_MAX_SIDE || height > RB_MAX_SIDE ||
        (uint64_t)width * (uint64_t)height > RB_MAX_PIXELS) {
        snprintf(err, errlen, "image size %dx%d is out of range (1..%d per side, at most %llu pixels)",
                 width, height, RB_MAX_SIDE, (unsigned long long)RB_MAX_PIXELS);
        return -1;
    }
    if (channels < 1 || channels > 4) {
        snprintf(err, errlen, "%d channels is not supported (1 to 4)", channels);
        return -1;
    }
    /* width, height <= 2^20 and channels * sample <= 32: the product fits in 64 bits */
    uint64_t stride = (uint64_t)width * (uint64_t)channels * cli_sample_size(format);
    uint64_t total = stride * (uint64_t)height;
    if (total > (uint64_t)SIZE_MAX) {
        snprintf(err, errlen, "image of %dx%d does not fit in memory", width, height);
        return -1;
    }
    img->data = alloc_pixels((size_t)total);
    if (!img->data) {
        snprintf(err, errlen, "out of memory for a %dx%d image (%.1f MiB)", width, height,
                 (double)total / 1048576.0);
        return -1;
    }
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->stride = (size_t)stride;
    img->format = format;
    img->memory = RB_MEMORY_HOST;
    return 0;
}

void cli_image_free(cli_image *im)
{
    if (im) {
        free(im->img.data);
        im->img.data = NULL;
    }
}

long long cli_file_size(FILE *f)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return (long long)st.st_size;
}

int cli_image_read(const char *path, cli_image *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err, errlen, "%s is a directory, not an image", path);
        return -1;
    }
    unsigned char head[8];
    size_t n = fread(head, 1, sizeof head, f);
    cli_file_type type = cli_file_type_from_magic(head, n);
    if (n == 0) {
        fclose(f);
        snprintf(err, errlen, "%s is empty", path);
        return -1;
    }
    rewind(f);
    int rc;
    switch (type) {
    case CLI_FILE_PNG:
        rc = cli_png_read(f, path, out, err, errlen);
        fclose(f);
        break;
    case CLI_FILE_PFM:
        rc = cli_pfm_read(f, path, out, err, errlen);
        fclose(f);
        break;
    case CLI_FILE_TIFF:
        fclose(f);
        if (!cli_have_tiff()) {
            snprintf(err, errlen, "%s is a TIFF file, but this recblur was built without libtiff "
                     "(install libtiff-dev and rebuild)", path);
            return -1;
        }
        rc = cli_tiff_read(path, out, err, errlen);
        break;
    default:
        fclose(f);
        snprintf(err, errlen, "%s: not a PNG, TIFF or PFM file", path);
        return -1;
    }
    if (rc == 0)
        out->type = type;
    else
        cli_image_free(out);
    return rc;
}

/* mkstemp makes 0600 files; give the result the mode a plain fopen would. */
static void set_default_mode(int fd)
{
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
}

cli_codec cli_codec_default(cli_file_type type, rb_format format)
{
    cli_codec c = {CLI_COMPRESS_NONE, 0, 0};
    (void)format;
    if (type == CLI_FILE_PNG) {
        c.method = CLI_COMPRESS_DEFLATE;
        c.level = CLI_DEFLATE_FAST_LEVEL;
    }
    return c;
}

/* Temporary beside the target, so rename() stays on one file system; *fd open. */
static char *temp_beside(const char *path, int *fd, char *err, size_t errlen)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 32);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    memcpy(tmp, path, dirlen);
    snprintf(tmp + dirlen, len + 32 - dirlen, ".%s.recblur-XXXXXX", path + dirlen);
    *fd = mkstemp(tmp);
    if (*fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return NULL;
    }
    set_default_mode(*fd);
    return tmp;
}

char *cli_temp_beside(const char *path, char *err, size_t errlen)
{
    int fd = -1;
    char *tmp = temp_beside(path, &fd, err, errlen);
    if (tmp)
        close(fd);
    return tmp;
}

int cli_image_write(const char *path, cli_file_type type, const rb_image *img,
                    const cli_codec *codec, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!cli_file_can_store(type, img->format, img->channels, &why)) {
        snprintf(err, errlen, "cannot write %s: %s", path, why);
        return -1;
    }
    int fd = -1;
    char *tmp = temp_beside(path, &fd, err, errlen);
    if (!tmp)
        return -1;
    int rc;
    if (type == CLI_FILE_TIFF) {
        close(fd);
        rc = cli_tiff_write(tmp, path, img, codec, err, errlen);
    } else {
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            close(fd);
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            rc = -1;
        } else {
            rc = type == CLI_FILE_PNG ? cli_png_write(f, path, img, codec, err, errlen)
                                      : cli_pfm_write(f, path, img, err, errlen);
            if (fflush(f) != 0 && rc == 0) {
                snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
                rc = -1;
            }
            if (fclose(f) != 0 && rc == 0) {
                snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
                rc = -1;
            }
        }
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}
