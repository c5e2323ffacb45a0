/* Summed-area tables (rb_sat): double accumulation, rounded once, on the
 * back end route.c picks (under auto: the CPU for host images, CUDA for
 * device memory). */
#include "pixel_convert.h"
#include "plan_build.h"

#include <stdlib.h>
#include <string.h>

static double sample(const unsigned char *row, rb_format f, size_t i)
{
    switch (f) {
    case RB_U8: return row[i];
    case RB_U16: return ((const uint16_t *)row)[i];
    case RB_F32: return ((const float *)row)[i];
    case RB_F64: return ((const double *)row)[i];
    }
    return 0.0;
}

rb_status rb_sat_cpu(rb_context *ctx, const rb_image *in, rb_image *out)
{
    const size_t w = (size_t)in->width, h = (size_t)in->height, ch = (size_t)in->channels;
    const size_t n = w * ch;
    double *col = calloc(n, sizeof(double));
    double *rowv = malloc(n * sizeof(double));
    if (!col || !rowv) {
        free(col);
        free(rowv);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a summed-area table row");
    }
    const size_t sin = rb_image_stride(in), sout = rb_image_stride(out);
    for (size_t y = 0; y < h; y++) {
        const unsigned char *ri = (const unsigned char *)in->data + y * sin;
        for (size_t i = 0; i < n; i++)
            rowv[i] = sample(ri, in->format, i); /* read the row before writing it (in place) */
        unsigned char *ro = (unsigned char *)out->data + y * sout;
        for (size_t c = 0; c < ch; c++) {
            double run = 0.0;
            for (size_t x = 0; x < w; x++) {
                run += rowv[x * ch + c];
                col[x * ch + c] += run;
            }
        }
        if (out->format == RB_F64)
            memcpy(ro, col, n * sizeof(double));
        else
            for (size_t i = 0; i < n; i++)
                ((float *)ro)[i] = (float)col[i];
    }
    free(col);
    free(rowv);
    return RB_OK;
}

rb_status rb_sat(rb_context *ctx, const rb_image *in, rb_image *out)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (!in || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_sat: NULL image");
    if (in->width <= 0 || in->height <= 0 || in->width > RB_MAX_SIDE || in->height > RB_MAX_SIDE ||
        (uint64_t)in->width * (uint64_t)in->height > RB_MAX_PIXELS)
        return rb_error(ctx, RB_ERR_SIZE, "rb_sat: image size %dx%d out of range", in->width,
                        in->height);
    if (in->channels < 1 || in->channels > 4)
        return rb_error(ctx, RB_ERR_ARGUMENT, "rb_sat: %d channels: must be 1 to 4", in->channels);
    rb_status s = rb_image_check(ctx, in, in->width, in->height, in->channels, "sat input");
    if (s == RB_OK)
        s = rb_image_check(ctx, out, in->width, in->height, in->channels, "sat output");
    if (s != RB_OK)
        return s;
    if (out->format != RB_F32 && out->format != RB_F64)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "rb_sat: output must be F32 or F64");
    if (in->data != out->data || rb_format_size(in->format) != rb_format_size(out->format) ||
        rb_image_stride(in) != rb_image_stride(out)) {
        const char *a = in->data, *b = out->data;
        size_t la = rb_image_stride(in) * (size_t)in->height, lb = rb_image_stride(out) * (size_t)out->height;
        if (in->memory == RB_MEMORY_HOST && out->memory == RB_MEMORY_HOST && a < b + lb && b < a + la)
            return rb_error(ctx, RB_ERR_ARGUMENT,
                            "rb_sat: input and output overlap with different layouts");
    }
    const rb_route_request req = {RB_WORK_SAT, NULL, in, out, in->memory,
                                  in->width, in->height, in->channels};
    const rb_backend_ops *ops = NULL;
    if ((s = rb_route_choose(ctx, &req, &ops)) != RB_OK)
        return s;
    return ops->sat(ctx, in, out);
}
