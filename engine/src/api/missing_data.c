/* Missing data: NaN samples filtered as unknown by normalised convolution
 * (Knutsson and Westin, "Normalized and differential convolution", CVPR 1993):
 *
 *     out = F(w x) / F(w),   w = 1 for a number, 0 for NaN (x set to 0 there),
 *
 * per channel, with F the very filter and boundary the user asked for, run
 * through the ordinary route (rb_execute, rb_box_filter), so both back ends
 * get it unchanged. F is linear, so the boundary conventions follow from
 * what lies beyond the edge (docs/RELIABILITY.md, "Missing data"):
 *   clamp, mirror, periodic: the extension is made of image samples, so
 *     extending w x and w by the same index map is extending the product;
 *   zero, constant=c: beyond the edge is data (0 or c) with weight 1. The
 *     plan's own boundary cannot say "c for the data, 1 for the weights,
 *     per channel", so by linearity F_c(v) = F_0(v) + c G with
 *     G = F_1(0), the filter's response to the extension alone;
 *   none: nothing lies beyond the edge: data and weight 0 there.
 * Where F(w) is below RB_MISSING_MIN_WEIGHT of the DC gain no valid data is
 * within reach: the output is NaN and counted. */
#include "missing_data.h"

#include "parallel.h"
#include "pixel_convert.h"
#include "plan_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RB_MISSING_SCAN_TASKS 64 /* threads the NaN count spreads over, at most */

typedef struct {
    const rb_image *img;
    int ntasks;
    uint64_t count[RB_MISSING_SCAN_TASKS];
} nan_scan;

static void count_nan_rows(void *user, int task)
{
    nan_scan *sc = user;
    const rb_image *img = sc->img;
    const size_t stride = rb_image_stride(img), row_len = (size_t)img->width * img->channels;
    const int y0 = (int)((long)img->height * task / sc->ntasks);
    const int y1 = (int)((long)img->height * (task + 1) / sc->ntasks);
    uint64_t n = 0;
    for (int y = y0; y < y1; y++) {
        const float *row = (const float *)((const char *)img->data + (size_t)y * stride);
        unsigned count = 0; /* a branch-free count the compiler vectorises */
        for (size_t i = 0; i < row_len; i++)
            count += row[i] != row[i];
        n += count;
    }
    sc->count[task] = n;
}

uint64_t rb_missing_count(const rb_context *ctx, const rb_image *img)
{
    if (!ctx || ctx->nan_mode != RB_NAN_MISSING || !img || !img->data || img->format != RB_F32 ||
        img->memory != RB_MEMORY_HOST || img->height < 1)
        return 0;
    /* one task per thread for images worth the threads' start (4 MB and up) */
    const size_t samples = (size_t)img->width * img->channels * img->height;
    const int threads = samples < ((size_t)1 << 20) ? 1 : rb_context_thread_count(ctx);
    nan_scan sc = {.img = img};
    sc.ntasks = threads < RB_MISSING_SCAN_TASKS ? threads : RB_MISSING_SCAN_TASKS;
    if (sc.ntasks > img->height)
        sc.ntasks = img->height;
    rb_parallel_for(threads, sc.ntasks, count_nan_rows, &sc);
    uint64_t n = 0;
    for (int t = 0; t < sc.ntasks; t++)
        n += sc.count[t];
    return n;
}

rb_status rb_missing_refuse(rb_context *ctx, const char *what, uint64_t n_missing)
{
    return rb_error(ctx, RB_ERR_UNSUPPORTED,
                    "%llu NaN samples in the input cannot be filtered as missing data by a filter "
                    "with negative lobes (%s); use --nan propagate (nan=propagate) for IEEE NaN "
                    "behaviour",
                    (unsigned long long)n_missing, what);
}

static rb_image work_image(const rb_image *like, int channels, float *data)
{
    rb_image im = {like->width, like->height, channels, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE,
                   0, data};
    return im;
}

rb_status rb_missing_filter_image(rb_context *ctx, const rb_missing_filter *f, const rb_image *in,
                                  rb_image *out, uint64_t n_missing)
{
    const int ch = in->channels;
    const size_t n = (size_t)in->width * in->height, total = n * ch;
    const rb_boundary_mode mode = f->boundary.mode;
    const int extension_is_data = mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT;
    float *num = malloc(sizeof(float) * total);
    float *wgt = malloc(sizeof(float) * total);
    float *ext = extension_is_data ? calloc(n, sizeof(float)) : NULL;
    if (!num || !wgt || (extension_is_data && !ext)) {
        free(num);
        free(wgt);
        free(ext);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for missing-data filtering (%zu samples)",
                        total);
    }
    /* the working values the ordinary path would filter (sRGB decoded,
     * straight alpha premultiplied: a NaN alpha leaves its colour unknown) */
    rb_pixels_load(in, num, f->linear_light);
    size_t valid[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < total; i++) {
        const int known = num[i] == num[i];
        wgt[i] = known ? 1.0f : 0.0f;
        if (!known)
            num[i] = 0.0f;
        valid[i % ch] += (size_t)known;
    }
    rb_image num_img = work_image(in, ch, num), wgt_img = work_image(in, ch, wgt);
    rb_status s;
    float c_work[4] = {0, 0, 0, 0};
    if (extension_is_data) {
        const rb_boundary zero = {RB_BOUNDARY_ZERO, 0.0f}, one = {RB_BOUNDARY_CONSTANT, 1.0f};
        rb_image ext_img = work_image(in, 1, ext);
        s = f->run(f->user, zero, &num_img);
        if (s == RB_OK)
            s = f->run(f->user, zero, &wgt_img);
        if (s == RB_OK)
            s = f->run(f->user, one, &ext_img); /* G: zeros inside, 1 beyond the edges */
        if (mode == RB_BOUNDARY_CONSTANT) /* c in working units, as the ordinary path takes it */
            rb_pixel_constant(f->boundary.value, ch, in->alpha, f->linear_light && in->srgb,
                              c_work);
    } else {
        s = f->run(f->user, f->boundary, &num_img);
        if (s == RB_OK)
            s = f->run(f->user, f->boundary, &wgt_img);
    }
    if (s != RB_OK) {
        free(num);
        free(wgt);
        free(ext);
        return s;
    }
    const float min_weight = (float)(RB_MISSING_MIN_WEIGHT * fabs(f->dc_gain));
    uint64_t unreached = 0;
    for (size_t i = 0; i < total; i++) {
        const int c = (int)(i % ch);
        float a = num[i], b = wgt[i];
        if (ext) {
            const float g = ext[i / ch];
            a += c_work[c] * g;
            b += g;
        }
        /* a channel with no valid sample stays unknown whatever the boundary */
        if (valid[c] > 0 && b > min_weight) {
            num[i] = a / b;
        } else {
            num[i] = NAN;
            unreached++;
        }
    }
    rb_pixels_store(num, out, f->linear_light);
    free(num);
    free(wgt);
    free(ext);
    if (unreached == total)
        rb_log(ctx, "recblur: every sample is missing (NaN): the output is all NaN");
    else
        rb_log(ctx,
               "recblur: %llu of %zu samples missing (NaN), filtered as missing data; %llu outputs "
               "had no valid data in reach (NaN)",
               (unsigned long long)n_missing, total, (unsigned long long)unreached);
    return RB_OK;
}

/* ------------------------------------------------------- separable filters */

int rb_axis_is_positive(const rb_axis *ax)
{
    if (!ax->active)
        return 1;
    /* long enough for the slowest pole to fall below 1e-12 (capped: a wider
     * filter is cut where its tail is far below the tolerance anyway) */
    double pc = 0.0, pa = 0.0;
    rb_feedback_is_stable(ax->dc, ax->causal_order, &pc);
    rb_feedback_is_stable(ax->da, ax->anticausal_order, &pa);
    const double p = pc > pa ? pc : pa;
    const int reach = ax->fir ? (ax->fir_hi > -ax->fir_lo ? ax->fir_hi : -ax->fir_lo) : 0;
    double decay = p > 0.0 ? ceil(log(1e-12) / log(p)) : 0.0;
    long R = reach + 16 + (long)(decay < (double)(1L << 21) ? decay : (double)(1L << 21));
    const long N = 2 * R + 1;
    double *z = calloc((size_t)N, sizeof(double));
    if (!z)
        return 1; /* cannot tell: let the filtering run (its result is still defined) */
    /* u = FIR of a unit impulse at R: u[i] = fir[(R - i) - fir_lo] */
    if (ax->fir)
        for (int k = ax->fir_lo; k <= ax->fir_hi; k++)
            z[R - k] = ax->fir[k - ax->fir_lo];
    else
        z[R] = 1.0;
    for (long i = 0; i < N; i++) /* causal: y_i = u_i - sum dc_k y_{i-k} */
        for (int k = 1; k <= ax->causal_order && k <= i; k++)
            z[i] -= ax->dc[k - 1] * z[i - k];
    for (long i = N - 1; i >= 0; i--) /* anticausal: z_i = y_i - sum da_k z_{i+k} */
        for (int k = 1; k <= ax->anticausal_order && i + k < N; k++)
            z[i] -= ax->da[k - 1] * z[i + k];
    double peak = 0.0, low = 0.0;
    for (long i = 0; i < N; i++) {
        peak = z[i] > peak ? z[i] : peak;
        low = z[i] < low ? z[i] : low;
    }
    free(z);
    return peak > 0.0 && low >= -RB_MISSING_NEGATIVE_LOBE * peak;
}

static rb_status run_plan(void *user, rb_boundary b, rb_image *img)
{
    rb_plan *plan = user;
    const int same_boundary = b.mode == plan->boundary.mode &&
                              (b.mode != RB_BOUNDARY_CONSTANT || b.value == plan->boundary.value);
    if (same_boundary && img->channels == plan->channels)
        return rb_execute(plan, img, img);
    /* a sibling plan of the same filter (the zero / constant-1 runs) */
    rb_plan *p = NULL;
    rb_status s = rb_plan_build(plan->ctx, &plan->filter, b, img->width, img->height, img->channels,
                                RB_WORK_FILTER_2D, RB_MEMORY_HOST, &p);
    if (s == RB_OK)
        s = rb_execute(p, img, img);
    rb_plan_destroy(p);
    return s;
}

rb_status rb_missing_execute(rb_plan *plan, const rb_image *in, rb_image *out, uint64_t n_missing)
{
    double gain = 1.0;
    for (int a = 0; a < 2; a++) {
        const rb_axis *ax = &plan->filter.axis[a];
        if (!rb_axis_is_positive(ax))
            return rb_missing_refuse(plan->ctx, plan->filter.description, n_missing);
        if (ax->active)
            gain *= ax->dc_gain;
    }
    const rb_missing_filter f = {run_plan, plan, plan->boundary, gain, plan->linear_light};
    return rb_missing_filter_image(plan->ctx, &f, in, out, n_missing);
}

/* -------------------------------------------------------------------- box */

typedef struct {
    rb_context *ctx;
    int size_x, size_y;
} box_user;

static rb_status run_box(void *user, rb_boundary b, rb_image *img)
{
    const box_user *u = user;
    return rb_box_filter(u->ctx, u->size_x, u->size_y, b, img, img);
}

rb_status rb_missing_box(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                         const rb_image *in, rb_image *out, uint64_t n_missing)
{
    box_user u = {ctx, size_x, size_y};
    const rb_missing_filter f = {run_box, &u, boundary, 1.0, 0};
    return rb_missing_filter_image(ctx, &f, in, out, n_missing);
}
