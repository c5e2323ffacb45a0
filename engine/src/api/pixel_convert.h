/* Image samples <-> the float32 working buffer (packed, interleaved). */
#ifndef RB_PIXEL_CONVERT_H
#define RB_PIXEL_CONVERT_H

#include "rb_internal.h"

/* Whether channel c of an image with `channels` channels and this alpha mode
 * is the alpha channel. */
int rb_is_alpha_channel(int c, int channels, rb_alpha alpha);

/* img (host memory) -> work[(y*w + x)*ch + c]: U8/U16 scaled to [0,1], sRGB
 * decoded when linear_light && img->srgb (colour channels only), straight
 * alpha premultiplied. */
void rb_pixels_load(const rb_image *img, float *work, int linear_light);
/* work -> img: un-premultiply straight alpha (colour 0 where alpha <=
 * RB_ALPHA_FLOOR), sRGB
 * encode when linear_light && img->srgb, round and clamp for U8/U16. */
void rb_pixels_store(const float *work, rb_image *img, int linear_light);
/* The same on `threads` threads (bands of rows), for whole-image copies. */
void rb_pixels_load_threads(const rb_image *img, float *work, int linear_light, int threads);
void rb_pixels_store_threads(const float *work, rb_image *img, int linear_light, int threads);
/* The same for rows y0 .. y0+rows-1 only (work holds just those rows), so a
 * band of the image can be converted without a whole-image working copy. */
void rb_pixels_load_rows(const rb_image *img, int y0, int rows, float *work, int linear_light);
void rb_pixels_store_rows(const float *work, rb_image *img, int y0, int rows, int linear_light);
/* The working-buffer value of a pixel whose every channel is v in img's units
 * (constant boundary): same decode/premultiply as rb_pixels_load. */
void rb_pixel_constant(float v, int channels, rb_alpha alpha, int srgb_linear, float *out);

float rb_srgb_decode(float v);
float rb_srgb_encode(float v);

#endif
