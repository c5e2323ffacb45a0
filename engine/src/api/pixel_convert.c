/* Sample formats, strides, alpha and sRGB between images and the float32
 * working buffer; also the small image helpers of rb_internal.h. */
#include "pixel_convert.h"
#include "parallel.h"
#include "srgb_tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

size_t rb_image_stride(const rb_image *img)
{
    if (img->stride)
        return img->stride;
    return (size_t)img->width * (size_t)img->channels * rb_format_size(img->format);
}

rb_status rb_host_images_check(rb_context *ctx, const rb_image *in, const rb_image *out, int width, int height,
                               int channels, const char *op)
{
    char what[64];
    snprintf(what, sizeof what, "%s input", op);
    rb_status s = rb_image_check(ctx, in, width, height, channels, what);
    if (s != RB_OK)
        return s;
    snprintf(what, sizeof what, "%s output", op);
    s = rb_image_check(ctx, out, width, height, channels, what);
    if (s != RB_OK)
        return s;
    if (in->memory != RB_MEMORY_HOST || out->memory != RB_MEMORY_HOST)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s: images must be in host memory", op);
    if (in->format == RB_F64 || out->format == RB_F64)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s: F64 images are not supported (U8, U16, F32)", op);
    return RB_OK;
}

rb_status rb_image_check(rb_context *ctx, const rb_image *img, int width, int height, int channels,
                         const char *what)
{
    if (!img)
        return rb_error(ctx, RB_ERR_NULL, "%s image is NULL", what);
    if (!img->data)
        return rb_error(ctx, RB_ERR_NULL, "%s image has NULL data", what);
    if (img->width != width || img->height != height)
        return rb_error(ctx, RB_ERR_SIZE, "%s image is %dx%d, expected %dx%d", what, img->width,
                        img->height, width, height);
    if (img->channels != channels)
        return rb_error(ctx, RB_ERR_SIZE, "%s image has %d channels, expected %d", what,
                        img->channels, channels);
    if ((unsigned)img->format > RB_F64)
        return rb_error(ctx, RB_ERR_ARGUMENT, "%s image: unknown sample format %d", what,
                        (int)img->format);
    if ((unsigned)img->memory > RB_MEMORY_DEVICE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "%s image: unknown memory kind %d", what,
                        (int)img->memory);
    if ((unsigned)img->alpha > RB_ALPHA_PREMULTIPLIED)
        return rb_error(ctx, RB_ERR_ARGUMENT, "%s image: unknown alpha mode %d", what,
                        (int)img->alpha);
    if (img->alpha != RB_ALPHA_NONE && channels < 2)
        return rb_error(ctx, RB_ERR_ARGUMENT, "%s image: alpha needs at least 2 channels, has %d",
                        what, channels);
    size_t row = (size_t)width * (size_t)channels * rb_format_size(img->format);
    if (img->stride && img->stride < row)
        return rb_error(ctx, RB_ERR_SIZE, "%s image: stride %zu bytes is less than a row (%zu bytes)",
                        what, img->stride, row);
    /* the last row's end must be addressable: stride * (height - 1) + row must not wrap */
    if (height > 1 && rb_image_stride(img) > ((size_t)PTRDIFF_MAX - row) / (size_t)(height - 1))
        return rb_error(ctx, RB_ERR_SIZE, "%s image: stride %zu bytes times %d rows is beyond the "
                        "address space", what, rb_image_stride(img), height);
    return RB_OK;
}

int rb_is_alpha_channel(int c, int channels, rb_alpha alpha)
{
    return alpha != RB_ALPHA_NONE && c == channels - 1;
}

float rb_srgb_decode(float v)
{
    float a = fabsf(v);
    float r = a <= 0.04045f ? a / 12.92f : powf((a + 0.055f) / 1.055f, 2.4f);
    return v < 0 ? -r : r;
}

float rb_srgb_encode(float v)
{
    float a = fabsf(v);
    float r = a <= 0.0031308f ? a * 12.92f : 1.055f * powf(a, 1.0f / 2.4f) - 0.055f;
    return v < 0 ? -r : r;
}

void rb_pixel_constant(float v, int channels, rb_alpha alpha, int srgb_linear, float *out)
{
    for (int c = 0; c < channels; c++) {
        int is_a = rb_is_alpha_channel(c, channels, alpha);
        float s = v;
        if (srgb_linear && !is_a)
            s = rb_srgb_decode(s);
        if (alpha == RB_ALPHA_STRAIGHT && !is_a)
            s *= v;
        out[c] = s;
    }
}

void rb_plan_constants(const rb_plan *plan, const rb_image *in, float col[4], float row[4])
{
    for (int c = 0; c < 4; c++)
        col[c] = row[c] = 0.0f;
    if (plan->boundary.mode != RB_BOUNDARY_CONSTANT)
        return;
    rb_pixel_constant(plan->boundary.value, plan->channels, in->alpha,
                      plan->linear_light && in->srgb, col);
    const float g = plan->cols.ax.active ? (float)plan->cols.ax.dc_gain : 1.0f;
    for (int c = 0; c < plan->channels; c++)
        row[c] = col[c] * g;
}

void rb_pixels_load(const rb_image *img, float *work, int linear_light)
{
    rb_pixels_load_rows(img, 0, img->height, work, linear_light);
}

/* A whole-image conversion cut in bands of rows, one task each. */
typedef struct {
    const rb_image *in;
    rb_image *out;
    float *work;
    int linear_light, bands, store;
} convert_job;

static void convert_band(void *user, int task)
{
    const convert_job *j = user;
    const rb_image *img = j->store ? j->out : j->in;
    const int y0 = (int)((long)img->height * task / j->bands);
    const int y1 = (int)((long)img->height * (task + 1) / j->bands);
    float *work = j->work + (size_t)y0 * img->width * img->channels;
    if (j->store)
        rb_pixels_store_rows(work, j->out, y0, y1 - y0, j->linear_light);
    else
        rb_pixels_load_rows(j->in, y0, y1 - y0, work, j->linear_light);
}

/* bands for `threads` threads: one each, none on images too small to pay for a thread's start */
static int convert_bands(const rb_image *img, int threads)
{
    const size_t samples = (size_t)img->width * img->height * img->channels;
    int bands = samples < ((size_t)1 << 18) ? 1 : threads;
    return bands > img->height ? img->height : bands < 1 ? 1 : bands;
}

void rb_pixels_load_threads(const rb_image *img, float *work, int linear_light, int threads)
{
    convert_job j = {img, NULL, work, linear_light, convert_bands(img, threads), 0};
    rb_parallel_for(threads, j.bands, convert_band, &j);
}

void rb_pixels_store_threads(const float *work, rb_image *img, int linear_light, int threads)
{
    convert_job j = {NULL, img, (float *)work, linear_light, convert_bands(img, threads), 1};
    rb_parallel_for(threads, j.bands, convert_band, &j);
}

void rb_pixels_load_rows(const rb_image *img, int y0, int rows, float *work, int linear_light)
{
    const int w = img->width, ch = img->channels;
    const size_t stride = rb_image_stride(img);
    const int lin = linear_light && img->srgb;
    for (int y = y0; y < y0 + rows; y++) {
        const unsigned char *row = (const unsigned char *)img->data + (size_t)y * stride;
        float *o = work + (size_t)(y - y0) * w * ch;
        size_t cnt = (size_t)w * ch;
        switch (img->format) {
        case RB_U8:
            for (size_t i = 0; i < cnt; i++)
                o[i] = (float)row[i] / 255.0f;
            break;
        case RB_U16: {
            const uint16_t *s = (const uint16_t *)row;
            for (size_t i = 0; i < cnt; i++)
                o[i] = (float)s[i] / 65535.0f;
            break;
        }
        case RB_F32:
            memcpy(o, row, sizeof(float) * cnt);
            break;
        case RB_F64: {
            const double *s = (const double *)row;
            for (size_t i = 0; i < cnt; i++)
                o[i] = (float)s[i];
            break;
        }
        }
        /* 8- and 16-bit codes decode by table (the formula's bits), float by the formula */
        const int u8 = img->format == RB_U8, by_table = lin && (u8 || img->format == RB_U16);
        if (by_table) {
            const float *t = u8 ? rb_srgb_decode_table_u8() : rb_srgb_decode_table_u16();
            const uint16_t *s = (const uint16_t *)row;
            for (int c = 0; c < ch; c++)
                if (!rb_is_alpha_channel(c, ch, img->alpha))
                    for (int x = 0; x < w; x++)
                        o[x * ch + c] = t[u8 ? row[x * ch + c] : s[x * ch + c]];
        } else if (lin)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++)
                    if (!rb_is_alpha_channel(c, ch, img->alpha))
                        o[x * ch + c] = rb_srgb_decode(o[x * ch + c]);
        if (img->alpha == RB_ALPHA_STRAIGHT)
            for (int x = 0; x < w; x++) {
                float a = o[x * ch + ch - 1];
                for (int c = 0; c < ch - 1; c++)
                    o[x * ch + c] *= a;
            }
    }
}

void rb_pixels_store(const float *work, rb_image *img, int linear_light)
{
    rb_pixels_store_rows(work, img, 0, img->height, linear_light);
}

void rb_pixels_store_rows(const float *work, rb_image *img, int y0, int rows, int linear_light)
{
    const int w = img->width, ch = img->channels;
    const size_t stride = rb_image_stride(img);
    const int lin = linear_light && img->srgb;
    float tmp[4 * 1024];
    for (int y = y0; y < y0 + rows; y++) {
        unsigned char *row = (unsigned char *)img->data + (size_t)y * stride;
        const float *src = work + (size_t)(y - y0) * w * ch;
        for (int x0 = 0; x0 < w; x0 += 1024) {
            int nx = w - x0 < 1024 ? w - x0 : 1024;
            size_t cnt = (size_t)nx * ch;
            memcpy(tmp, src + (size_t)x0 * ch, sizeof(float) * cnt);
            if (img->alpha == RB_ALPHA_STRAIGHT)
                for (int x = 0; x < nx; x++) {
                    float a = tmp[x * ch + ch - 1];
                    float inv = a > RB_ALPHA_FLOOR ? 1.0f / a : 0.0f;
                    for (int c = 0; c < ch - 1; c++)
                        tmp[x * ch + c] *= inv;
                }
            /* 8- and 16-bit codes come from the tables (colour channels),
             * float output from the formula */
            const int by_table = lin && (img->format == RB_U8 || img->format == RB_U16);
            if (lin && !by_table)
                for (int x = 0; x < nx; x++)
                    for (int c = 0; c < ch; c++)
                        if (!rb_is_alpha_channel(c, ch, img->alpha))
                            tmp[x * ch + c] = rb_srgb_encode(tmp[x * ch + c]);
            size_t off = (size_t)x0 * ch;
            switch (img->format) {
            case RB_U8:
                for (size_t i = 0; i < cnt; i++) {
                    float v = tmp[i] * 255.0f + 0.5f;
                    v = v > 0.0f ? (v < 255.0f ? v : 255.0f) : 0.0f; /* NaN -> 0 */
                    row[off + i] = (unsigned char)v;
                }
                if (by_table)
                    for (int c = 0; c < ch; c++)
                        if (!rb_is_alpha_channel(c, ch, img->alpha))
                            rb_srgb_encode_u8(tmp + c, row + off + c, (size_t)nx, (size_t)ch);
                break;
            case RB_U16: {
                uint16_t *d = (uint16_t *)row + off;
                for (size_t i = 0; i < cnt; i++) {
                    float v = tmp[i] * 65535.0f + 0.5f;
                    v = v > 0.0f ? (v < 65535.0f ? v : 65535.0f) : 0.0f;
                    d[i] = (uint16_t)v;
                }
                if (by_table)
                    for (int c = 0; c < ch; c++)
                        if (!rb_is_alpha_channel(c, ch, img->alpha))
                            rb_srgb_encode_u16(tmp + c, d + c, (size_t)nx, (size_t)ch);
                break;
            }
            case RB_F32:
                memcpy((float *)row + off, tmp, sizeof(float) * cnt);
                break;
            case RB_F64: {
                double *d = (double *)row + off;
                for (size_t i = 0; i < cnt; i++)
                    d[i] = tmp[i];
                break;
            }
            }
        }
    }
}
