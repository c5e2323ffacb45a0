/* Image files for the recblur CLI: PNG (libpng), TIFF (libtiff, optional)
 * and PFM (written here: a text header and raw floats).
 *
 * Images are held as host rb_images, tightly packed, in the file's own
 * sample format (U8, U16 or F32), so a float PFM goes through the engine
 * with no quantisation. Every reader validates headers before allocating
 * and reports truncated or lying files as errors; every writer goes to a
 * temporary file beside the target and renames it into place only when the
 * whole file was written (cli_image_write), so OUT is never left partial. */
#ifndef CLI_IMAGE_IO_H
#define CLI_IMAGE_IO_H

#include "recblur.h"
#include <stdint.h>
#include <stdio.h>

typedef enum { CLI_FILE_UNKNOWN = 0, CLI_FILE_PNG, CLI_FILE_TIFF, CLI_FILE_PFM } cli_file_type;

/* Room for one error line; messages name the file and the problem. */
#define CLI_ERR_LEN 512

/* How a file's pixels are compressed. TIFF names them all; PNG is always
 * deflate (NONE: zlib's stored blocks, level 0); PFM is always NONE. */
typedef enum {
    CLI_COMPRESS_NONE = 0,
    CLI_COMPRESS_DEFLATE,
    CLI_COMPRESS_LZW,
    CLI_COMPRESS_PACKBITS,
    CLI_COMPRESS_ZSTD,
    CLI_COMPRESS_LZMA,
    CLI_COMPRESS_OTHER     /* read only (JPEG, WebP, ...): not written back */
} cli_compression;

/* The deflate level recblur picks when asked only for "deflate" (and for
 * PNG): zlib's and libdeflate's fastest level with real compression. */
#define CLI_DEFLATE_FAST_LEVEL 1

typedef struct {
    cli_compression method;
    int level;               /* the method's level (deflate 1..9, zstd 1..22, lzma 0..9); 0 where none */
    int predictor;           /* TIFF: difference neighbours before compressing (the horizontal
                                predictor, or the floating-point one for float samples) */
} cli_codec;

typedef struct {
    rb_image img;          /* host memory, stride = width * channels * sample size */
    cli_file_type type;    /* the file it came from */
    cli_codec codec;       /* how that file was compressed (level: unknown, 0) */
} cli_image;

/* File type from the name's extension (.png .tif .tiff .pfm, any case). */
cli_file_type cli_file_type_from_name(const char *path);
/* File type from the first bytes of the file; UNKNOWN when not recognised. */
cli_file_type cli_file_type_from_magic(const unsigned char *head, size_t n);
const char *cli_file_type_name(cli_file_type type);
const char *cli_format_name(rb_format format);
size_t cli_sample_size(rb_format format);
/* Whether this build can read/write TIFF. */
int cli_have_tiff(void);
/* Whether `type` can store samples of `format` with `channels` channels; if not,
 * *why says so (e.g. "PNG stores 8- and 16-bit integers"). */
int cli_file_can_store(cli_file_type type, rb_format format, int channels, const char **why);

/* Allocate img->data for the given geometry, overflow-checked against RB_MAX_SIDE
 * and RB_MAX_PIXELS. Returns 0 on success, else fills err. */
int cli_image_alloc(rb_image *img, int width, int height, int channels, rb_format format,
                    char *err, size_t errlen);
void cli_image_free(cli_image *im);

/* Read any supported file (type detected from its content). 0 on success. */
int cli_image_read(const char *path, cli_image *out, char *err, size_t errlen);
/* Write img as `type` to `path` with `codec` (NULL: the type's fast default)
 * through a temporary file in the same directory and rename(); on failure the
 * temporary is removed and `path` is untouched. */
int cli_image_write(const char *path, cli_file_type type, const rb_image *img,
                    const cli_codec *codec, char *err, size_t errlen);
/* The codec a file type is written with when nothing else says: PNG deflate
 * at a fast level, TIFF uncompressed, PFM raw. */
cli_codec cli_codec_default(cli_file_type type, rb_format format);
/* Whether this build's libtiff can write `method` (zstd, lzma are optional in libtiff). */
int cli_tiff_can_compress(cli_compression method);

/* Per-format codecs: read from an open file positioned at the start; write to an
 * open file (PNG, PFM) or a path (TIFF, which needs to seek). 0 on success. */
int cli_png_read(FILE *f, const char *path, cli_image *out, char *err, size_t errlen);
int cli_png_write(FILE *f, const char *path, const rb_image *img, const cli_codec *codec, char *err,
                  size_t errlen);
int cli_pfm_read(FILE *f, const char *path, cli_image *out, char *err, size_t errlen);
int cli_pfm_write(FILE *f, const char *path, const rb_image *img, char *err, size_t errlen);
int cli_tiff_read(const char *path, cli_image *out, char *err, size_t errlen);
int cli_tiff_write(const char *tmp_path, const char *path, const rb_image *img,
                   const cli_codec *codec, char *err, size_t errlen);
/* Whether a TIFF of geom's geometry (width, height, channels, format) is
 * written as BigTIFF: when its uncompressed samples would not leave room
 * below classic TIFF's 4 GiB. */
int cli_tiff_needs_bigtiff(const rb_image *geom);

/* A TIFF read or written a band of rows at a time (the strip route of
 * cli/op_filter_stream.c). Read: strips or tiles, samples interleaved or in
 * separate planes; written: interleaved strips. Bands start on the file's
 * strips or rows of tiles (a multiple of *rps rows) and hold whole ones (or
 * run to the last row). */
typedef struct cli_tiff_rows cli_tiff_rows;
/* Open IN: hdr gets the checked header (hdr->img without data), *rps the
 * file's rows per strip or its tiles' height; NULL with a message when it is
 * not such a TIFF. */
cli_tiff_rows *cli_tiff_rows_open(const char *path, cli_image *hdr, uint32_t *rps, char *err,
                                  size_t errlen);
/* The reader's own buffer in bytes (one tile, or one plane's strip; 0 for
 * interleaved strips, decoded straight into the band) and, into buf, a
 * phrase for --verbose saying how IN is read ("" for interleaved strips). */
size_t cli_tiff_rows_layout(const cli_tiff_rows *s, char *buf, size_t len);
int cli_tiff_rows_read(cli_tiff_rows *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                       size_t errlen);
/* Create tmp_path (named for `path` in messages) for geom's geometry in strips of rps rows. */
cli_tiff_rows *cli_tiff_rows_create(const char *tmp_path, const char *path, const rb_image *geom,
                                    const cli_codec *codec, uint32_t rps, char *err, size_t errlen);
int cli_tiff_rows_write(cli_tiff_rows *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                        size_t errlen);
/* Close (flush: finish a file being written first); 0 or -1 with a message. */
int cli_tiff_rows_close(cli_tiff_rows *s, int flush, char *err, size_t errlen);
/* A non-interlaced PNG read a band of rows at a time, bands of any height,
 * with the samples of cli_png_read. A band above the rows already read
 * decodes the file again from its start (PNG cannot seek). */
typedef struct cli_png_rows cli_png_rows;
/* Open IN: hdr gets the checked header (hdr->img without data); NULL with a
 * message when it is not such a PNG ("... not read in rows" when interlaced). */
cli_png_rows *cli_png_rows_open(const char *path, cli_image *hdr, char *err, size_t errlen);
int cli_png_rows_read(cli_png_rows *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                      size_t errlen);
/* How many times the file was decoded (from its start) so far. */
int cli_png_rows_decodes(const cli_png_rows *s);
void cli_png_rows_close(cli_png_rows *s);

/* A PNG written a band of rows at a time, from the top down, with
 * cli_png_write's settings (compression level and strategy, filter, 16-bit
 * order). Create tmp_path (named for `path` in messages) for geom's geometry. */
typedef struct cli_png_rows_out cli_png_rows_out;
cli_png_rows_out *cli_png_rows_create(const char *tmp_path, const char *path, const rb_image *geom,
                                      const cli_codec *codec, char *err, size_t errlen);
int cli_png_rows_write(cli_png_rows_out *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                       size_t errlen);
/* Close (flush: finish the file first, every row written); 0 or -1 with a message. */
int cli_png_rows_finish(cli_png_rows_out *s, int flush, char *err, size_t errlen);

/* The strip route's output (cli/rows_sink.c): a TIFF in strips of `rps` rows
 * (bands hold whole strips) or a PNG (bands of any height, in order). */
typedef struct cli_rows_sink cli_rows_sink;
cli_rows_sink *cli_rows_sink_create(cli_file_type type, const char *tmp_path, const char *path,
                                    const rb_image *geom, const cli_codec *codec, uint32_t rps,
                                    char *err, size_t errlen);
int cli_rows_sink_write(cli_rows_sink *s, uint32_t y0, uint32_t rows, const void *src, char *err,
                        size_t errlen);
/* Close (flush: finish the file first); 0 or -1 with a message. */
int cli_rows_sink_close(cli_rows_sink *s, int flush, char *err, size_t errlen);

/* The strip route's input (cli/rows_source.c): a TIFF in strips or tiles, or
 * a PNG in rows. *align: the rows a band must start on and hold whole (the
 * TIFF's rows per strip or tile height; 1 for PNG). */
typedef struct cli_rows_source cli_rows_source;
cli_rows_source *cli_rows_source_open(const char *path, cli_image *hdr, uint32_t *align, char *err,
                                      size_t errlen);
cli_file_type cli_rows_source_type(const cli_rows_source *s);
int cli_rows_source_read(cli_rows_source *s, uint32_t y0, uint32_t rows, void *dst, char *err,
                         size_t errlen);
/* How many times a PNG was decoded from its start (0 for TIFF). */
int cli_rows_source_decodes(const cli_rows_source *s);
/* The reader's own buffer in bytes beside the bands, and into buf a phrase
 * for --verbose on how IN is read ("" when there is nothing to say). */
size_t cli_rows_source_layout(const cli_rows_source *s, char *buf, size_t len);
void cli_rows_source_close(cli_rows_source *s);

/* A new empty file beside `path` (same directory, so rename() stays on one
 * file system), mode as a new file's: its name (free it), or NULL with a
 * message. */
char *cli_temp_beside(const char *path, char *err, size_t errlen);

/* Size of an open file in bytes, -1 when unknown (used to reject lying headers). */
long long cli_file_size(FILE *f);

#endif /* CLI_IMAGE_IO_H */
