/* What the PNG reader, writer and row reader of the CLI share (private to
 * cli/image_io_png*.c): libpng's error handlers and the set-up that decides
 * the samples, so the in-memory and row-by-row routes read identical pixels
 * and write identical files. */
#ifndef CLI_IMAGE_IO_PNG_SHARED_H
#define CLI_IMAGE_IO_PNG_SHARED_H

#include "image_io.h"
#include <png.h>

typedef struct {
    char msg[256];
} cli_png_err_state;

/* libpng's handlers: the error copies its message into the cli_png_err_state
 * given to png_create_*_struct and longjmps; warnings stay quiet. */
void cli_png_on_error(png_structp png, png_const_charp msg);
void cli_png_on_warning(png_structp png, png_const_charp msg);

/* Read the header of f and set the transforms (palette, low-bit gray and
 * tRNS expanded, 16-bit samples in host order): hdr gets the checked
 * geometry (hdr->img without data), *interlaced (when not NULL) whether the
 * file is Adam7. Call after setjmp (libpng errors longjmp); -1 with a
 * message when the header is refused. */
int cli_png_read_setup(png_structp png, png_infop info, FILE *f, const char *path, cli_image *hdr,
                       int *interlaced, char *err, size_t errlen);

/* The writer's settings for geom's geometry (compression level and
 * strategy, filter, IHDR, 16-bit swap), through png_write_info. Call after
 * setjmp. */
void cli_png_write_setup(png_structp png, png_infop info, FILE *f, const rb_image *geom, int level);
/* The deflate level a PNG of `format` is written with for `codec` (NULL: the default). */
int cli_png_level(const cli_codec *codec, rb_format format);

#endif /* CLI_IMAGE_IO_PNG_SHARED_H */
