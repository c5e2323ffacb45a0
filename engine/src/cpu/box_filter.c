/* Box (area) filters through running sums: O(1) per pixel at any size.
 * A window of size s covers offsets -(s/2) .. s-1-s/2 (centred; an even size
 * has its extra sample on the left/top). Columns first, then rows. */
#include "pixel_convert.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BOX_LANES 64

static long floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* F(j) = sum of the extended line over [0, j) (negative j: minus the sum over
 * [j, 0)), from the prefix sums P[0..len] of one period (or of the line). */
static double window_prefix(const double *P, long n, long j, rb_boundary_mode mode, double c0,
                            double c1, size_t L)
{
    switch (mode) {
    case RB_BOUNDARY_PERIODIC:
    case RB_BOUNDARY_MIRROR: {
        long per = mode == RB_BOUNDARY_MIRROR ? 2 * n : n;
        long q = floor_div(j, per), rm = j - q * per;
        return (double)q * P[(size_t)per * L] + P[(size_t)rm * L];
    }
    default:
        if (j < 0)
            return (double)j * c0;
        if (j > n)
            return P[(size_t)n * L] + (double)(j - n) * c1;
        return P[(size_t)j * L];
    }
}

/* Filter `lines` lines of length n; sample i of line k at base + k*ls + i*es. */
static rb_status box_pass(rb_context *ctx, float *img, size_t lines, long n, size_t ls, size_t es,
                          int s, rb_boundary b, const float *cch, int ch)
{
    if (s <= 1)
        return RB_OK;
    long lo = -(s / 2), hi = s - 1 - s / 2;
    long per = b.mode == RB_BOUNDARY_MIRROR ? 2 * n : n;
    size_t L = lines < BOX_LANES ? lines : BOX_LANES;
    double *P = malloc(sizeof(double) * (size_t)(per + 1) * L);
    if (!P)
        return rb_error(ctx, RB_ERR_NOMEM, "box filter: out of memory for running sums");
    for (size_t k0 = 0; k0 < lines; k0 += L) {
        size_t nl = lines - k0 < L ? lines - k0 : L;
        for (size_t k = 0; k < nl; k++) {
            float *line = img + (k0 + k) * ls;
            double acc = 0.0;
            P[k] = 0.0;
            for (long i = 0; i < per; i++) {
                const long j = rb_extend_index(i, n, b.mode); /* mirror: the reflected half */
                acc += line[(size_t)j * es];
                P[(size_t)(i + 1) * L + k] = acc;
            }
        }
        for (size_t k = 0; k < nl; k++) {
            float *line = img + (k0 + k) * ls;
            double c0 = 0.0, c1 = 0.0;
            if (b.mode == RB_BOUNDARY_CLAMP) {
                c0 = line[0];
                c1 = line[(size_t)(n - 1) * es];
            } else if (b.mode == RB_BOUNDARY_CONSTANT)
                c0 = c1 = cch[(k0 + k) % (size_t)ch];
            for (long i = 0; i < n; i++) {
                double sum = window_prefix(P + k, n, i + hi + 1, b.mode, c0, c1, L) -
                             window_prefix(P + k, n, i + lo, b.mode, c0, c1, L);
                line[(size_t)i * es] = (float)(sum / s);
            }
        }
    }
    free(P);
    return RB_OK;
}

rb_status rb_box_filter(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                        const rb_image *in, rb_image *out)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (!in || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_box_filter: NULL image");
    if (size_x < 1 || size_y < 1 || size_x > 2 * RB_MAX_SIDE + 1 || size_y > 2 * RB_MAX_SIDE + 1)
        return rb_error(ctx, RB_ERR_ARGUMENT, "box size %dx%d out of range (1..%d)", size_x, size_y,
                        2 * RB_MAX_SIDE + 1);
    if ((unsigned)boundary.mode > RB_BOUNDARY_NONE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown boundary mode %d", (int)boundary.mode);
    if (boundary.mode == RB_BOUNDARY_CONSTANT && !isfinite(boundary.value))
        return rb_error(ctx, RB_ERR_NAN, "boundary constant is not a finite number");
    int w = in->width, h = in->height, ch = in->channels;
    if (w <= 0 || h <= 0 || w > RB_MAX_SIDE || h > RB_MAX_SIDE ||
        (uint64_t)w * (uint64_t)h > RB_MAX_PIXELS)
        return rb_error(ctx, RB_ERR_SIZE, "box filter: image size %dx%d out of range", w, h);
    if (ch < 1 || ch > 4)
        return rb_error(ctx, RB_ERR_ARGUMENT, "box filter: %d channels: must be 1 to 4", ch);
    rb_status s = rb_image_check(ctx, in, w, h, ch, "input");
    if (s == RB_OK)
        s = rb_image_check(ctx, out, w, h, ch, "output");
    if (s != RB_OK)
        return s;
    if (in->memory != RB_MEMORY_HOST || out->memory != RB_MEMORY_HOST)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "box filter: only host memory is supported");
    if (in->format == RB_F64 || out->format == RB_F64)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "box filter: F64 images are not supported");
    size_t count = (size_t)w * (size_t)h * (size_t)ch;
    float *img = malloc(count * sizeof(float));
    if (!img)
        return rb_error(ctx, RB_ERR_NOMEM, "box filter: out of memory for a %dx%d working image", w, h);
    rb_pixels_load(in, img, 0);
    float cch[4] = {0, 0, 0, 0};
    if (boundary.mode == RB_BOUNDARY_CONSTANT)
        rb_pixel_constant(boundary.value, ch, in->alpha, 0, cch);
    /* columns: line k = x*ch + c, stride between samples w*ch */
    s = box_pass(ctx, img, (size_t)w * ch, h, 1, (size_t)w * ch, size_y, boundary, cch, ch);
    /* rows: lines are (y, c); handled per row */
    for (int y = 0; s == RB_OK && y < h; y++)
        s = box_pass(ctx, img + (size_t)y * w * ch, (size_t)ch, w, 1, (size_t)ch, size_x, boundary,
                     cch, ch);
    if (s == RB_OK)
        rb_pixels_store(img, out, 0);
    free(img);
    return s;
}
