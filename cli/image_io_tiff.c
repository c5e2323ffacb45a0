/* TIFF through libtiff: 8/16-bit unsigned and 32-bit float samples, 1 to 4
 * channels (gray, gray+alpha, RGB, RGBA), strips or tiles, contiguous or
 * separate planes. Associated (premultiplied) alpha is kept as such.
 * Without libtiff (RB_HAVE_TIFF undefined) these say so instead. */
#include "image_io.h"

#include <string.h>

#ifndef RB_HAVE_TIFF

int cli_tiff_read(const char *path, cli_image *out, char *err, size_t errlen)
{
    (void)out;
    snprintf(err, errlen, "%s: TIFF support was not built (install libtiff-dev and rebuild)", path);
    return -1;
}

int cli_tiff_write(const char *tmp_path, const char *path, const rb_image *img, char *err,
                   size_t errlen)
{
    (void)tmp_path;
    (void)img;
    snprintf(err, errlen, "cannot write %s: TIFF support was not built (install libtiff-dev and rebuild)",
             path);
    return -1;
}

#else

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <tiffio.h>

/* libtiff prints to stderr by default; keep its last error for our one line. */
static char tiff_last_error[256];

static void on_tiff_error(const char *module, const char *fmt, va_list ap)
{
    (void)module;
    vsnprintf(tiff_last_error, sizeof tiff_last_error, fmt, ap);
}

static void on_tiff_warning(const char *module, const char *fmt, va_list ap)
{
    (void)module;
    (void)fmt;
    (void)ap; /* warnings (unknown tags, ...) do not stop us and stay quiet */
}

static void quiet_libtiff(void)
{
    tiff_last_error[0] = 0;
    TIFFSetErrorHandler(on_tiff_error);
    TIFFSetWarningHandler(on_tiff_warning);
}

/* Most bytes of pixels one byte of the file can decode to, per compression:
 * a header claiming more than that is lying, and is refused before we
 * allocate for it (a 300-byte file must not cost gigabytes). Generous bounds:
 * PackBits 128:2, zlib about 1032:1, LZW codes of 9..12 bits for strings of
 * at most 4096 bytes; anything else (ZSTD, LZMA, JPEG, ...) 65536:1. */
static uint64_t max_ratio(uint16_t compression)
{
    switch (compression) {
    case COMPRESSION_NONE: return 1;
    case COMPRESSION_PACKBITS: return 64;
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return 1100;
    case COMPRESSION_LZW: return 4096;
    default: return 65536;
    }
}

static const char *tiff_why(void)
{
    return tiff_last_error[0] ? tiff_last_error : "read error";
}

/* Copies one decoded block (row of a strip or a tile part) of a single plane
 * (sample `s` of `spp_block` samples per pixel in the block) into the image. */
static void put_block(rb_image *img, const unsigned char *src, uint32_t x0, uint32_t y0,
                      uint32_t bw, uint32_t bh, size_t src_stride, int plane, int separate)
{
    size_t ss = cli_sample_size(img->format);
    int c = img->channels;
    for (uint32_t y = 0; y < bh && y0 + y < (uint32_t)img->height; y++) {
        unsigned char *dst = (unsigned char *)img->data + (size_t)(y0 + y) * img->stride;
        const unsigned char *s = src + (size_t)y * src_stride;
        uint32_t n = bw;
        if (x0 + n > (uint32_t)img->width)
            n = (uint32_t)img->width - x0;
        if (!separate) {
            memcpy(dst + (size_t)x0 * c * ss, s, (size_t)n * c * ss);
        } else {
            for (uint32_t x = 0; x < n; x++)
                memcpy(dst + ((size_t)(x0 + x) * c + plane) * ss, s + (size_t)x * ss, ss);
        }
    }
}

int cli_tiff_read(const char *path, cli_image *out, char *err, size_t errlen)
{
    quiet_libtiff();
    TIFF *t = TIFFOpen(path, "r");
    if (!t) {
        snprintf(err, errlen, "%s: bad TIFF: %s", path, tiff_why());
        return -1;
    }
    uint32_t w = 0, h = 0;
    uint16_t bps = 0, spp = 0, fmt = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photo = 0;
    uint16_t n_extra = 0, *extra = NULL;
    int ok = TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w) && TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &fmt);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &n_extra, &extra);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photo))
        photo = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    const char *bad = NULL;
    rb_format format = RB_U8;
    if (!ok)
        bad = "no image size";
    else if (bps == 8 && fmt == SAMPLEFORMAT_UINT)
        format = RB_U8;
    else if (bps == 16 && fmt == SAMPLEFORMAT_UINT)
        format = RB_U16;
    else if (bps == 32 && fmt == SAMPLEFORMAT_IEEEFP)
        format = RB_F32;
    else
        bad = "samples must be 8- or 16-bit unsigned integers or 32-bit floats";
    if (!bad && (spp < 1 || spp > 4))
        bad = "1 to 4 samples per pixel are supported";
    if (!bad && photo != PHOTOMETRIC_MINISBLACK && photo != PHOTOMETRIC_RGB)
        bad = "only gray (min-is-black) and RGB photometric interpretations are supported";
    if (!bad && photo == PHOTOMETRIC_RGB && spp < 3)
        bad = "RGB with fewer than 3 samples per pixel";
    if (bad) {
        TIFFClose(t);
        snprintf(err, errlen, "%s: unsupported TIFF: %s", path, bad);
        return -1;
    }
    if (w > (uint32_t)RB_MAX_SIDE || h > (uint32_t)RB_MAX_SIDE) {
        TIFFClose(t);
        snprintf(err, errlen, "%s: TIFF of %lux%lu is larger than recblur accepts (%d per side)", path,
                 (unsigned long)w, (unsigned long)h, RB_MAX_SIDE);
        return -1;
    }
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
    struct stat st;
    /* w, h <= 2^20, spp <= 4, 4-byte samples: fits in 64 bits */
    uint64_t raw = (uint64_t)w * h * spp * cli_sample_size(format);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        raw / max_ratio(compression) > (uint64_t)st.st_size) {
        TIFFClose(t);
        snprintf(err, errlen, "%s: bad TIFF: header says %lux%lu (%llu bytes of pixels), far more than a "
                 "%lld-byte file can hold", path, (unsigned long)w, (unsigned long)h,
                 (unsigned long long)raw, (long long)st.st_size);
        return -1;
    }
    if (cli_image_alloc(&out->img, (int)w, (int)h, spp, format, err, errlen)) {
        char tmp[CLI_ERR_LEN];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
        TIFFClose(t);
        return -1;
    }
    /* The last sample is alpha when it is an extra sample (gray+alpha, RGBA). */
    int colour = photo == PHOTOMETRIC_RGB ? 3 : 1;
    out->img.alpha = RB_ALPHA_NONE;
    if (spp > colour && n_extra >= 1)
        out->img.alpha = extra[n_extra - 1] == EXTRASAMPLE_ASSOCALPHA ? RB_ALPHA_PREMULTIPLIED
                                                                     : RB_ALPHA_STRAIGHT;
    else if (spp == colour + 1)
        out->img.alpha = RB_ALPHA_STRAIGHT;
    out->img.srgb = format != RB_F32;

    int separate = planar == PLANARCONFIG_SEPARATE;
    int planes = separate ? spp : 1;
    int rc = 0;
    size_t ss = cli_sample_size(format);
    if (TIFFIsTiled(t)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        tmsize_t tsize = TIFFTileSize(t);
        size_t tile_stride = (size_t)tw * (separate ? 1 : spp) * ss;
        unsigned char *buf = tw && th && tsize > 0 ? _TIFFmalloc(tsize) : NULL;
        if (!buf || (uint64_t)tile_stride * th > (uint64_t)tsize) {
            rc = -1;
            snprintf(tiff_last_error, sizeof tiff_last_error, "bad tile layout");
        }
        for (int p = 0; p < planes && !rc; p++)
            for (uint32_t y = 0; y < h && !rc; y += th)
                for (uint32_t x = 0; x < w && !rc; x += tw) {
                    if (TIFFReadTile(t, buf, x, y, 0, (uint16_t)p) < 0)
                        rc = -1;
                    else
                        put_block(&out->img, buf, x, y, tw, th, tile_stride, p, separate);
                }
        if (buf)
            _TIFFfree(buf);
    } else {
        tmsize_t lsize = TIFFScanlineSize(t);
        size_t need = (size_t)w * (separate ? 1 : spp) * ss;
        unsigned char *buf = lsize > 0 && (size_t)lsize >= need ? _TIFFmalloc(lsize) : NULL;
        if (!buf) {
            rc = -1;
            snprintf(tiff_last_error, sizeof tiff_last_error, "bad scanline size");
        }
        for (int p = 0; p < planes && !rc; p++)
            for (uint32_t y = 0; y < h && !rc; y++) {
                if (TIFFReadScanline(t, buf, y, (uint16_t)p) < 0)
                    rc = -1;
                else
                    put_block(&out->img, buf, 0, y, w, 1, need, p, separate);
            }
        if (buf)
            _TIFFfree(buf);
    }
    TIFFClose(t);
    if (rc) {
        snprintf(err, errlen, "%s: bad TIFF: %s", path, tiff_why());
        return -1;
    }
    return 0;
}

int cli_tiff_write(const char *tmp_path, const char *path, const rb_image *img, char *err,
                   size_t errlen)
{
    quiet_libtiff();
    TIFF *t = TIFFOpen(tmp_path, "w");
    if (!t) {
        snprintf(err, errlen, "cannot write %s: %s", path, tiff_why());
        return -1;
    }
    int c = img->channels;
    int colour = c >= 3 ? 3 : 1;
    uint16_t bps = img->format == RB_U8 ? 8 : img->format == RB_U16 ? 16 : 32;
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)c);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bps);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, img->format == RB_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, colour == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(t, TIFFTAG_PREDICTOR, img->format == RB_F32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    if (c > colour) {
        uint16_t extra = img->alpha == RB_ALPHA_PREMULTIPLIED ? EXTRASAMPLE_ASSOCALPHA
                                                              : EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
    size_t row_bytes = (size_t)img->width * (size_t)c * cli_sample_size(img->format);
    size_t stride = img->stride ? img->stride : row_bytes;
    /* TIFFWriteScanline may modify the buffer (predictor), so write a copy. */
    unsigned char *row = malloc(row_bytes);
    int rc = row ? 0 : -1;
    for (int y = 0; y < img->height && !rc; y++) {
        memcpy(row, (const unsigned char *)img->data + (size_t)y * stride, row_bytes);
        if (TIFFWriteScanline(t, row, (uint32_t)y, 0) < 0)
            rc = -1;
    }
    free(row);
    if (!rc && !TIFFFlush(t))
        rc = -1;
    TIFFClose(t);
    if (rc) {
        snprintf(err, errlen, "cannot write %s: %s", path,
                 tiff_last_error[0] ? tiff_last_error : "out of memory");
        return -1;
    }
    return 0;
}

#endif /* RB_HAVE_TIFF */
