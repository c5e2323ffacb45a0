/* ImageMagick pixels <-> the engine's interleaved rb_image, for IM6 (PixelPacket,
 * opacity) and IM7 (Quantum channels, alpha). No filtering here. */
#ifndef RB_MAGICK_PIXELS_H
#define RB_MAGICK_PIXELS_H

#include "rb_magick_host.h"

typedef enum {
    RB_MAGICK_GRAY = 0,   /* 1 channel */
    RB_MAGICK_GRAY_ALPHA, /* 2: gray, alpha */
    RB_MAGICK_RGB,        /* 3 */
    RB_MAGICK_RGB_ALPHA,  /* 4: r, g, b, alpha */
    RB_MAGICK_CMYK        /* 4: c, m, y, k (no alpha) */
} rb_magick_layout;

typedef struct {
    rb_magick_layout layout;
    int width, height, channels;
    int srgb;             /* colour channels sRGB-encoded (for linear=yes) */
    rb_magick_sample *data;   /* width*height*channels, owned (rb_magick_buffer_free) */
} rb_magick_buffer;

/* Decide the layout of `image` without touching pixels. Non-zero + message in err
 * for images the engine cannot take (CMYK with alpha: 5 channels). */
int rb_magick_buffer_plan(const Image *image, rb_magick_buffer *buf, char *err, size_t err_len);

/* Allocate buf->data and copy the image's pixels into it. MagickFalse on failure
 * (exception set by ImageMagick, or a message in err). */
MagickBooleanType rb_magick_buffer_read(Image *image, rb_magick_buffer *buf,
                                        ExceptionInfo *exception, char *err, size_t err_len);

/* Write the channels selected by `mask` (RB_MAGICK_CH_*; IM7 also honours the
 * image's channel traits, i.e. -channel) back into the image. */
MagickBooleanType rb_magick_buffer_write(Image *image, const rb_magick_buffer *buf, int mask,
                                         ExceptionInfo *exception);

void rb_magick_buffer_free(rb_magick_buffer *buf);

/* The engine's view of the buffer. */
rb_image rb_magick_buffer_image(const rb_magick_buffer *buf);

#endif /* RB_MAGICK_PIXELS_H */
