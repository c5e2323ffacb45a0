/* TIFF through libtiff: 8/16-bit unsigned and 32-bit float samples, 1 to 4
 * channels (gray, gray+alpha, RGB, RGBA), strips or tiles, contiguous or
 * separate planes. Associated (premultiplied) alpha is kept as such.
 * Without libtiff (RB_HAVE_TIFF undefined) these say so instead. */
#include "image_io.h"

#include <stdint.h>
#include <string.h>

/* Classic TIFF addresses its file with 32-bit offsets, so a file past 4 GiB
 * must be BigTIFF (libtiff's "w8"; libtiff 4, ImageMagick, libvips and GIMP
 * read it). The compressed size is not known before the pixels are written,
 * so the choice follows the uncompressed size, with headroom for the tags
 * and the strip tables (libvips and GDAL decide the same way). */
/* The largest tile buffer the reader makes for an image smaller than it:
 * 1024 x 1024 RGBA float is 16 MiB; libtiff's own writers default to 256. */
#define CLI_TIFF_MAX_TILE_BYTES ((uint64_t)64 << 20)

#define CLI_TIFF_CLASSIC_MAX_BYTES (((uint64_t)4 << 30) - ((uint64_t)64 << 20))

int cli_tiff_needs_bigtiff(const rb_image *geom)
{
    const uint64_t bytes = (uint64_t)geom->width * (uint64_t)geom->height *
                           (uint64_t)geom->channels * cli_sample_size(geom->format);
    return bytes > CLI_TIFF_CLASSIC_MAX_BYTES;
}

#ifndef RB_HAVE_TIFF

int cli_tiff_read(const char *path, cli_image *out, char *err, size_t errlen)
{
    (void)out;
    snprintf(err, errlen, "%s: TIFF support was not built (install libtiff-dev and rebuild)", path);
    return -1;
}

int cli_tiff_write(const char *tmp_path, const char *path, const rb_image *img,
                   const cli_codec *codec, char *err, size_t errlen)
{
    (void)tmp_path;
    (void)img;
    (void)codec;
    snprintf(err, errlen, "cannot write %s: TIFF support was not built (install libtiff-dev and rebuild)",
             path);
    return -1;
}

int cli_tiff_can_compress(cli_compression method)
{
    (void)method;
    return 0;
}

cli_tiff_rows *cli_tiff_rows_open(const char *path, cli_image *hdr, uint32_t *rps, char *err,
                                  size_t errlen)
{
    (void)hdr;
    (void)rps;
    snprintf(err, errlen, "%s: TIFF support was not built (install libtiff-dev and rebuild)", path);
    return NULL;
}

size_t cli_tiff_rows_layout(const cli_tiff_rows *s, char *buf, size_t len)
{
    (void)s;
    if (len)
        buf[0] = 0;
    return 0;
}

int cli_tiff_rows_read(cli_tiff_rows *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                       size_t errlen)
{
    (void)s, (void)y0, (void)rows, (void)dst;
    snprintf(err, errlen, "TIFF support was not built");
    return -1;
}

cli_tiff_rows *cli_tiff_rows_create(const char *tmp_path, const char *path, const rb_image *geom,
                                    const cli_codec *codec, uint32_t rps, char *err, size_t errlen)
{
    (void)tmp_path, (void)geom, (void)codec, (void)rps;
    snprintf(err, errlen, "cannot write %s: TIFF support was not built", path);
    return NULL;
}

int cli_tiff_rows_write(cli_tiff_rows *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                        size_t errlen)
{
    (void)s, (void)y0, (void)rows, (void)src;
    snprintf(err, errlen, "TIFF support was not built");
    return -1;
}

int cli_tiff_rows_close(cli_tiff_rows *s, int flush, char *err, size_t errlen)
{
    (void)s, (void)flush, (void)err, (void)errlen;
    return 0;
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

static cli_compression codec_of_tag(uint16_t compression)
{
    switch (compression) {
    case COMPRESSION_NONE: return CLI_COMPRESS_NONE;
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return CLI_COMPRESS_DEFLATE;
    case COMPRESSION_LZW: return CLI_COMPRESS_LZW;
    case COMPRESSION_PACKBITS: return CLI_COMPRESS_PACKBITS;
    case COMPRESSION_ZSTD: return CLI_COMPRESS_ZSTD;
    case COMPRESSION_LZMA: return CLI_COMPRESS_LZMA;
    default: return CLI_COMPRESS_OTHER;
    }
}

static uint16_t tag_of_codec(cli_compression method)
{
    switch (method) {
    case CLI_COMPRESS_DEFLATE: return COMPRESSION_ADOBE_DEFLATE;
    case CLI_COMPRESS_LZW: return COMPRESSION_LZW;
    case CLI_COMPRESS_PACKBITS: return COMPRESSION_PACKBITS;
    case CLI_COMPRESS_ZSTD: return COMPRESSION_ZSTD;
    case CLI_COMPRESS_LZMA: return COMPRESSION_LZMA;
    default: return COMPRESSION_NONE;
    }
}

int cli_tiff_can_compress(cli_compression method)
{
    if (method == CLI_COMPRESS_OTHER)
        return 0;
    return TIFFIsCODECConfigured(tag_of_codec(method));
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

/* The header of an open TIFF, checked (sample format, channels, photometric,
 * size, a header that lies about its pixels): out->img's geometry, format,
 * alpha and srgb, out->codec, and whether the planes are separate. 0, or -1
 * with a message (t stays open). */
static int read_header(TIFF *t, const char *path, cli_image *out, int *separate, char *err,
                       size_t errlen)
{
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
        snprintf(err, errlen, "%s: unsupported TIFF: %s", path, bad);
        return -1;
    }
    if (w > (uint32_t)RB_MAX_SIDE || h > (uint32_t)RB_MAX_SIDE) {
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
        snprintf(err, errlen, "%s: bad TIFF: header says %lux%lu (%llu bytes of pixels), far more than a "
                 "%lld-byte file can hold", path, (unsigned long)w, (unsigned long)h,
                 (unsigned long long)raw, (long long)st.st_size);
        return -1;
    }
    out->img.width = (int)w;
    out->img.height = (int)h;
    out->img.channels = spp;
    out->img.format = format;
    out->img.stride = (size_t)w * spp * cli_sample_size(format);
    out->img.memory = RB_MEMORY_HOST;
    out->type = CLI_FILE_TIFF;
    /* The last sample is alpha when it is an extra sample (gray+alpha, RGBA). */
    int colour = photo == PHOTOMETRIC_RGB ? 3 : 1;
    out->img.alpha = RB_ALPHA_NONE;
    if (spp > colour && n_extra >= 1)
        out->img.alpha = extra[n_extra - 1] == EXTRASAMPLE_ASSOCALPHA ? RB_ALPHA_PREMULTIPLIED
                                                                     : RB_ALPHA_STRAIGHT;
    else if (spp == colour + 1)
        out->img.alpha = RB_ALPHA_STRAIGHT;
    out->img.srgb = format != RB_F32;
    uint16_t predictor = PREDICTOR_NONE;
    if (compression != COMPRESSION_NONE && !TIFFGetField(t, TIFFTAG_PREDICTOR, &predictor))
        predictor = PREDICTOR_NONE;
    out->codec.method = codec_of_tag(compression);
    out->codec.level = 0; /* a TIFF does not record its compressor's level */
    out->codec.predictor = predictor == PREDICTOR_HORIZONTAL || predictor == PREDICTOR_FLOATINGPOINT;
    *separate = planar == PLANARCONFIG_SEPARATE;
    return 0;
}

int cli_tiff_read(const char *path, cli_image *out, char *err, size_t errlen)
{
    quiet_libtiff();
    /* "m": no memory map. Then an uncompressed strip is one read() straight
     * into the image (libtiff's shortcut in TIFFReadEncodedStrip) instead of
     * page faults on the map and a copy out of it; compressed strips cost
     * one small read each. */
    TIFF *t = TIFFOpen(path, "rm");
    if (!t) {
        snprintf(err, errlen, "%s: bad TIFF: %s", path, tiff_why());
        return -1;
    }
    int separate = 0;
    if (read_header(t, path, out, &separate, err, errlen)) {
        TIFFClose(t);
        return -1;
    }
    rb_image geom = out->img;
    if (cli_image_alloc(&out->img, geom.width, geom.height, geom.channels, geom.format, err, errlen)) {
        char tmp[CLI_ERR_LEN];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
        TIFFClose(t);
        return -1;
    }
    out->img.alpha = geom.alpha;
    out->img.srgb = geom.srgb;
    const uint32_t w = (uint32_t)geom.width, h = (uint32_t)geom.height;
    const int spp = geom.channels;
    const rb_format format = geom.format;
    int planes = separate ? spp : 1;
    int rc = 0;
    size_t ss = cli_sample_size(format);
    if (TIFFIsTiled(t)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        tmsize_t tsize = TIFFTileSize(t);
        size_t tile_stride = (size_t)tw * (separate ? 1 : spp) * ss;
        unsigned char *buf = NULL;
        /* A tile larger than the whole image and than any tile a writer
         * makes is a lying header, not a picture: a 300-byte file asked for
         * a 22 GB tile buffer (found by the fuzzer). Refused before the
         * allocation; real tiles (16 to 1024 on a side) stay far below. */
        const uint64_t image_bytes = (uint64_t)w * h * spp * ss;
        const int too_big = tsize > 0 && (uint64_t)tsize > CLI_TIFF_MAX_TILE_BYTES &&
                            (uint64_t)tsize > image_bytes;
        if (too_big)
            snprintf(tiff_last_error, sizeof tiff_last_error,
                     "tiles of %ux%u (%llu bytes each) for a %ux%u image", (unsigned)tw,
                     (unsigned)th, (unsigned long long)tsize, (unsigned)w, (unsigned)h);
        else if (tw && th && tsize > 0)
            buf = _TIFFmalloc(tsize);
        if (!buf || (uint64_t)tile_stride * th > (uint64_t)tsize) {
            rc = -1;
            if (!too_big)
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
        /* Whole strips through TIFFReadEncodedStrip: one decoder call per
         * strip (libtiff hands a whole deflate strip to libdeflate), straight
         * into the image when the samples are interleaved as ours are. */
        uint32_t rps = 0;
        if (!TIFFGetField(t, TIFFTAG_ROWSPERSTRIP, &rps) || rps == 0 || rps > h)
            rps = h;
        size_t row_bytes = (size_t)w * (separate ? 1 : spp) * ss;
        tmsize_t ssize = TIFFStripSize(t);
        uint32_t per_plane = (h + rps - 1) / rps;
        unsigned char *buf = NULL;
        if (ssize <= 0 || (uint64_t)ssize < (uint64_t)row_bytes * rps ||
            TIFFNumberOfStrips(t) < per_plane * (uint32_t)planes) {
            rc = -1;
            snprintf(tiff_last_error, sizeof tiff_last_error, "bad strip layout");
        } else if (separate && !(buf = _TIFFmalloc(ssize))) {
            rc = -1;
            snprintf(tiff_last_error, sizeof tiff_last_error, "out of memory for a strip");
        }
        for (int p = 0; p < planes && !rc; p++)
            for (uint32_t s = 0; s < per_plane && !rc; s++) {
                uint32_t y0 = s * rps, rows = h - y0 < rps ? h - y0 : rps;
                tmsize_t want = (tmsize_t)(row_bytes * rows);
                unsigned char *dst = separate ? buf : (unsigned char *)out->img.data + (size_t)y0 * out->img.stride;
                if (TIFFReadEncodedStrip(t, (uint32_t)p * per_plane + s, dst, want) != want)
                    rc = -1;
                else if (separate)
                    put_block(&out->img, buf, 0, y0, w, rows, row_bytes, p, separate);
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

/* Rows per strip: strips of about this many bytes stay in the cache while the
 * predictor and the compressor pass over them, and each is one large write. */
#define CLI_TIFF_STRIP_BYTES (256u * 1024u)

/* Rows per strip for an image of this geometry (about CLI_TIFF_STRIP_BYTES). */
static uint32_t rows_per_strip(const rb_image *img)
{
    size_t row_bytes = (size_t)img->width * (size_t)img->channels * cli_sample_size(img->format);
    uint32_t rps = (uint32_t)(CLI_TIFF_STRIP_BYTES / row_bytes);
    if (rps < 1)
        rps = 1;
    if (rps > (uint32_t)img->height)
        rps = (uint32_t)img->height;
    return rps;
}

/* tmp_path opened for writing img's geometry (not its pixels) in strips of
 * rps rows with codec (NULL: the default); NULL with a message. */
static TIFF *open_for_write(const char *tmp_path, const char *path, const rb_image *img,
                            const cli_codec *codec, uint32_t rps, char *err, size_t errlen)
{
    quiet_libtiff();
    cli_codec cd = codec ? *codec : cli_codec_default(CLI_FILE_TIFF, img->format);
    if (!cli_tiff_can_compress(cd.method)) {
        snprintf(err, errlen, "cannot write %s: this libtiff cannot write that compression", path);
        return NULL;
    }
    TIFF *t = TIFFOpen(tmp_path, cli_tiff_needs_bigtiff(img) ? "w8" : "w");
    if (!t) {
        snprintf(err, errlen, "cannot write %s: %s", path, tiff_why());
        return NULL;
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
    TIFFSetField(t, TIFFTAG_COMPRESSION, tag_of_codec(cd.method));
    if (cd.method == CLI_COMPRESS_DEFLATE || cd.method == CLI_COMPRESS_LZW ||
        cd.method == CLI_COMPRESS_ZSTD || cd.method == CLI_COMPRESS_LZMA) {
        /* a float image differences its bytes with the floating-point
         * predictor; integer samples take the horizontal one */
        uint16_t pred = !cd.predictor               ? PREDICTOR_NONE
                        : img->format == RB_F32 ? PREDICTOR_FLOATINGPOINT
                                                : PREDICTOR_HORIZONTAL;
        TIFFSetField(t, TIFFTAG_PREDICTOR, pred);
    }
    if (cd.method == CLI_COMPRESS_DEFLATE && cd.level > 0)
        TIFFSetField(t, TIFFTAG_ZIPQUALITY, cd.level);
    else if (cd.method == CLI_COMPRESS_ZSTD && cd.level > 0)
        TIFFSetField(t, TIFFTAG_ZSTD_LEVEL, cd.level);
    else if (cd.method == CLI_COMPRESS_LZMA)
        TIFFSetField(t, TIFFTAG_LZMAPRESET, cd.level);
    if (c > colour) {
        uint16_t extra = img->alpha == RB_ALPHA_PREMULTIPLIED ? EXTRASAMPLE_ASSOCALPHA
                                                              : EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rps);
    return t;
}

int cli_tiff_write(const char *tmp_path, const char *path, const rb_image *img,
                   const cli_codec *codec, char *err, size_t errlen)
{
    const uint32_t rps = rows_per_strip(img);
    TIFF *t = open_for_write(tmp_path, path, img, codec, rps, err, errlen);
    if (!t)
        return -1;
    size_t row_bytes = (size_t)img->width * (size_t)img->channels * cli_sample_size(img->format);
    size_t stride = img->stride ? img->stride : row_bytes;
    /* Whole strips through TIFFWriteEncodedStrip, as libtiff's authors advise
     * for speed: one encoder call per strip (libtiff gives a whole deflate
     * strip to libdeflate) and one write. libtiff runs the predictor on a
     * working copy, so a tightly packed image goes straight from its rows;
     * a padded one is packed into a strip buffer first. */
    unsigned char *packed = stride == row_bytes ? NULL : malloc(row_bytes * rps);
    int rc = stride != row_bytes && !packed ? -1 : 0;
    uint32_t n_strips = ((uint32_t)img->height + rps - 1) / rps;
    for (uint32_t s = 0; s < n_strips && !rc; s++) {
        uint32_t y0 = s * rps;
        uint32_t rows = (uint32_t)img->height - y0 < rps ? (uint32_t)img->height - y0 : rps;
        const unsigned char *src = (const unsigned char *)img->data + (size_t)y0 * stride;
        if (packed) {
            for (uint32_t y = 0; y < rows; y++)
                memcpy(packed + (size_t)y * row_bytes, src + (size_t)y * stride, row_bytes);
            src = packed;
        }
        /* libtiff's prototype takes a non-const buffer; it only reads it */
        if (TIFFWriteEncodedStrip(t, s, (void *)src, (tmsize_t)(row_bytes * rows)) < 0)
            rc = -1;
    }
    free(packed);
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

/* ------------------------------------------------------ rows in, rows out */

/* Read in rows: interleaved strips are decoded straight into the band;
 * tiles and separate planes go through `block` (one tile, or one plane's
 * strip), copied into place and clipped at the right and bottom edges. A
 * band is then whole rows of tiles: the band buffer is the row of tiles the
 * reader keeps, and pass 2 decodes each row of tiles again. */
struct cli_tiff_rows {
    TIFF *t;
    const char *path;
    uint32_t rps, height; /* rps: rows per strip, or the tiles' height */
    size_t row_bytes;
    int tiled, separate;
    uint32_t tw;            /* the tiles' width */
    rb_image geom;          /* the image's geometry, for put_block */
    unsigned char *block;   /* one decoded tile or plane strip */
    tmsize_t block_bytes;
};

/* The tiles' layout checked (a header that lies about them is refused
 * before the tile buffer is made, as cli_tiff_read does): 0, or -1 with the
 * reason in tiff_last_error. */
static int check_tiles(TIFF *t, const rb_image *g, int separate, uint32_t *tw, uint32_t *th,
                       tmsize_t *tsize)
{
    const uint64_t ss = cli_sample_size(g->format), w = (uint32_t)g->width, h = (uint32_t)g->height;
    const uint64_t image_bytes = w * h * (uint64_t)g->channels * ss;
    *tw = *th = 0;
    TIFFGetField(t, TIFFTAG_TILEWIDTH, tw);
    TIFFGetField(t, TIFFTAG_TILELENGTH, th);
    *tsize = TIFFTileSize(t);
    const uint64_t across = *tw ? (w + *tw - 1) / *tw : 0, down = *th ? (h + *th - 1) / *th : 0;
    if (!*tw || !*th || *tsize <= 0 ||
        (uint64_t)*tw * (separate ? 1 : g->channels) * ss * *th > (uint64_t)*tsize) {
        snprintf(tiff_last_error, sizeof tiff_last_error, "bad tile layout");
        return -1;
    }
    if ((uint64_t)*tsize > CLI_TIFF_MAX_TILE_BYTES && (uint64_t)*tsize > image_bytes) {
        snprintf(tiff_last_error, sizeof tiff_last_error,
                 "tiles of %ux%u (%llu bytes each) for a %ux%u image", (unsigned)*tw, (unsigned)*th,
                 (unsigned long long)*tsize, (unsigned)w, (unsigned)h);
        return -1;
    }
    if ((uint64_t)TIFFNumberOfTiles(t) < across * down * (separate ? g->channels : 1)) {
        snprintf(tiff_last_error, sizeof tiff_last_error, "%lu tiles where a %ux%u image in %ux%u "
                 "tiles has %llu", (unsigned long)TIFFNumberOfTiles(t), (unsigned)w, (unsigned)h,
                 (unsigned)*tw, (unsigned)*th,
                 (unsigned long long)(across * down * (separate ? g->channels : 1)));
        return -1;
    }
    return 0;
}

cli_tiff_rows *cli_tiff_rows_open(const char *path, cli_image *hdr, uint32_t *rps, char *err,
                                  size_t errlen)
{
    quiet_libtiff();
    memset(hdr, 0, sizeof *hdr);
    TIFF *t = TIFFOpen(path, "rm");
    if (!t) {
        snprintf(err, errlen, "%s: bad TIFF: %s", path, tiff_why());
        return NULL;
    }
    int separate = 0;
    uint32_t r = 0, tw = 0;
    if (read_header(t, path, hdr, &separate, err, errlen)) {
        TIFFClose(t);
        return NULL;
    }
    const int tiled = TIFFIsTiled(t);
    const uint32_t h = (uint32_t)hdr->img.height;
    const size_t row_bytes = hdr->img.stride;
    /* one plane's row of samples when the planes are separate */
    const size_t plane_row = separate ? row_bytes / (size_t)hdr->img.channels : row_bytes;
    tmsize_t block = 0;
    if (tiled) {
        if (check_tiles(t, &hdr->img, separate, &tw, &r, &block)) {
            snprintf(err, errlen, "%s: bad TIFF: %s", path, tiff_why());
            TIFFClose(t);
            return NULL;
        }
    } else {
        if (!TIFFGetField(t, TIFFTAG_ROWSPERSTRIP, &r) || r == 0 || r > h)
            r = h;
        const tmsize_t ssize = TIFFStripSize(t);
        const uint32_t planes = separate ? (uint32_t)hdr->img.channels : 1;
        if (ssize <= 0 || (uint64_t)ssize < (uint64_t)plane_row * r ||
            TIFFNumberOfStrips(t) < (h + r - 1) / r * planes) {
            snprintf(err, errlen, "%s: bad TIFF: bad strip layout", path);
            TIFFClose(t);
            return NULL;
        }
        if (separate)
            block = (tmsize_t)(plane_row * r);
    }
    cli_tiff_rows *s = calloc(1, sizeof *s);
    unsigned char *buf = block && s ? _TIFFmalloc(block) : NULL;
    if (!s || (block && !buf)) {
        snprintf(err, errlen, "out of memory for a %s of %lld bytes", tiled ? "tile" : "strip",
                 (long long)block);
        free(s);
        TIFFClose(t);
        return NULL;
    }
    *s = (cli_tiff_rows){.t = t, .path = path, .rps = r, .height = h, .row_bytes = row_bytes,
                         .tiled = tiled, .separate = separate, .tw = tw, .geom = hdr->img,
                         .block = buf, .block_bytes = block};
    *rps = r;
    return s;
}

size_t cli_tiff_rows_layout(const cli_tiff_rows *s, char *buf, size_t len)
{
    if (s->tiled)
        snprintf(buf, len, "IN in %ux%u tiles%s, read a row of tiles at a time into the band "
                 "(a %.0f KiB tile buffer)", (unsigned)s->tw, (unsigned)s->rps,
                 s->separate ? " of separate planes" : "", s->block_bytes / 1024.0);
    else if (s->separate)
        snprintf(buf, len, "IN in strips of separate planes, interleaved into the band (a %.0f KiB "
                 "strip buffer)", s->block_bytes / 1024.0);
    else if (len)
        buf[0] = 0;
    return (size_t)s->block_bytes;
}

/* Rows [y, y + n) of IN (one row of tiles, or one strip, clipped at the
 * bottom) into `band`'s rows 0..n, from tiles or separate planes. */
static int read_blocks(cli_tiff_rows *s, uint32_t y, uint32_t n, rb_image *band, char *err,
                       size_t errlen)
{
    const int planes = s->separate ? s->geom.channels : 1;
    const size_t ss = cli_sample_size(s->geom.format);
    const uint32_t w = (uint32_t)s->geom.width;
    band->height = (int)n;
    for (int p = 0; p < planes; p++) {
        if (!s->tiled) {
            const size_t plane_row = (size_t)w * ss;
            const tmsize_t want = (tmsize_t)(plane_row * n);
            const uint32_t strip = TIFFComputeStrip(s->t, y, (uint16_t)p);
            if (TIFFReadEncodedStrip(s->t, strip, s->block, want) != want) {
                snprintf(err, errlen, "%s: bad TIFF: strip %u (rows %u-%u, plane %d): %s", s->path,
                         (unsigned)strip, (unsigned)y, (unsigned)(y + n - 1), p, tiff_why());
                return -1;
            }
            put_block(band, s->block, 0, 0, w, n, plane_row, p, 1);
            continue;
        }
        const size_t tile_row = (size_t)s->tw * (s->separate ? 1 : (size_t)s->geom.channels) * ss;
        for (uint32_t x = 0; x < w; x += s->tw) {
            const uint32_t tile = TIFFComputeTile(s->t, x, y, 0, (uint16_t)p);
            /* size -1, as TIFFReadTile asks: given a size, libtiff reads an
             * uncompressed tile straight from its offset without checking its
             * byte count (a tile missing from the tables read the header) */
            if (TIFFReadEncodedTile(s->t, tile, s->block, (tmsize_t)-1) != s->block_bytes) {
                snprintf(err, errlen, "%s: bad TIFF: tile %u (x %u, y %u%s): %s", s->path,
                         (unsigned)tile, (unsigned)x, (unsigned)y, s->separate ? ", a plane" : "",
                         tiff_why());
                return -1;
            }
            /* the tile's rows below the image and columns past it are dropped */
            put_block(band, s->block, x, 0, s->tw, s->rps, tile_row, p, s->separate);
        }
    }
    return 0;
}

int cli_tiff_rows_read(cli_tiff_rows *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                       size_t errlen)
{
    for (uint32_t y = y0; y < y0 + rows; y += s->rps) {
        const uint32_t n = s->height - y < s->rps ? s->height - y : s->rps;
        unsigned char *at = (unsigned char *)dst + (size_t)(y - y0) * s->row_bytes;
        if (y % s->rps) {
            snprintf(err, errlen, "%s: a band at row %u is not on the file's %u-row %s", s->path,
                     (unsigned)y, (unsigned)s->rps, s->tiled ? "tiles" : "strips");
            return -1;
        }
        if (s->tiled || s->separate) {
            rb_image band = s->geom;
            band.data = at;
            band.stride = s->row_bytes;
            if (read_blocks(s, y, n, &band, err, errlen))
                return -1;
            continue;
        }
        const tmsize_t want = (tmsize_t)(s->row_bytes * n);
        if (TIFFReadEncodedStrip(s->t, y / s->rps, at, want) != want) {
            snprintf(err, errlen, "%s: bad TIFF: %s", s->path, tiff_why());
            return -1;
        }
    }
    return 0;
}

cli_tiff_rows *cli_tiff_rows_create(const char *tmp_path, const char *path, const rb_image *geom,
                                    const cli_codec *codec, uint32_t rps, char *err, size_t errlen)
{
    TIFF *t = open_for_write(tmp_path, path, geom, codec, rps, err, errlen);
    if (!t)
        return NULL;
    cli_tiff_rows *s = calloc(1, sizeof *s);
    if (!s) {
        TIFFClose(t);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *s = (cli_tiff_rows){.t = t, .path = path, .rps = rps, .height = (uint32_t)geom->height,
                         .row_bytes = (size_t)geom->width * geom->channels *
                                      cli_sample_size(geom->format)};
    return s;
}

int cli_tiff_rows_write(cli_tiff_rows *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                        size_t errlen)
{
    for (uint32_t y = y0; y < y0 + rows; y += s->rps) {
        const uint32_t n = s->height - y < s->rps ? s->height - y : s->rps;
        /* libtiff's prototype takes a non-const buffer; it only reads it */
        if (y % s->rps ||
            TIFFWriteEncodedStrip(s->t, y / s->rps,
                                  (void *)((const unsigned char *)src + (size_t)(y - y0) * s->row_bytes),
                                  (tmsize_t)(s->row_bytes * n)) < 0) {
            snprintf(err, errlen, "cannot write %s: %s", s->path,
                     tiff_last_error[0] ? tiff_last_error : "out of memory");
            return -1;
        }
    }
    return 0;
}

int cli_tiff_rows_close(cli_tiff_rows *s, int flush, char *err, size_t errlen)
{
    if (!s)
        return 0;
    int rc = 0;
    if (flush && !TIFFFlush(s->t)) {
        snprintf(err, errlen, "cannot write %s: %s", s->path,
                 tiff_last_error[0] ? tiff_last_error : "out of memory");
        rc = -1;
    }
    TIFFClose(s->t);
    if (s->block)
        _TIFFfree(s->block);
    free(s);
    return rc;
}

#endif /* RB_HAVE_TIFF */
