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
#include <stdio.h>
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

rb_status rb_weights_check(rb_context *ctx, const rb_weights *weights, const rb_image *in)
{
    switch (weights->source) {
    case RB_WEIGHTS_ALPHA:
        if (in->alpha == RB_ALPHA_NONE || in->channels < 2)
            return rb_error(ctx, RB_ERR_ARGUMENT,
                            "alpha as weights: the input has no alpha channel (%d channel%s, no "
                            "alpha)",
                            in->channels, in->channels == 1 ? "" : "s");
        return RB_OK;
    case RB_WEIGHTS_IMAGE: {
        const rb_image *m = weights->image;
        if (!m)
            return rb_error(ctx, RB_ERR_NULL, "weights: NULL weight image");
        rb_status s = rb_image_check(ctx, m, in->width, in->height, 1, "weight");
        if (s != RB_OK)
            return s;
        if (m->memory != RB_MEMORY_HOST || m->format == RB_F64)
            return rb_error(ctx, RB_ERR_UNSUPPORTED,
                            "weight image: U8, U16 or F32 samples in host memory");
        if (m->format != RB_F32)
            return RB_OK; /* v/255, v/65535 lie in [0,1] */
        const size_t stride = rb_image_stride(m);
        for (int y = 0; y < m->height; y++) {
            const float *row = (const float *)((const char *)m->data + (size_t)y * stride);
            for (int x = 0; x < m->width; x++)
                if (!(row[x] >= 0.0f && row[x] <= 1.0f)) /* NaN fails too */
                    return rb_error(ctx, RB_ERR_ARGUMENT,
                                    "weight image: sample %g at (%d,%d) is outside [0, 1] "
                                    "(0 = unknown, 1 = fully valid)",
                                    (double)row[x], x, y);
        }
        return RB_OK;
    }
    default:
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown weights source %d (alpha or image)",
                        (int)weights->source);
    }
}

/* The per-pixel weights of an RB_WEIGHTS_IMAGE mask in [0,1] (NULL when out
 * of memory). */
static float *load_mask(const rb_image *m)
{
    float *w = malloc(sizeof(float) * (size_t)m->width * m->height);
    if (w) {
        rb_image plain = *m;
        plain.alpha = RB_ALPHA_NONE;
        plain.srgb = 0; /* weights are numbers, not colours */
        rb_pixels_load(&plain, w, 0);
    }
    return w;
}

rb_status rb_missing_filter_image(rb_context *ctx, const rb_missing_filter *f, const rb_image *in,
                                  const rb_weights *weights, rb_image *out, uint64_t n_missing)
{
    const int ch = in->channels;
    const size_t n = (size_t)in->width * in->height, total = n * ch;
    const rb_boundary_mode mode = f->boundary.mode;
    const int extension_is_data = mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT;
    const int from_alpha = weights && weights->source == RB_WEIGHTS_ALPHA;
    const int from_image = weights && weights->source == RB_WEIGHTS_IMAGE;
    const int alpha_ch = from_alpha ? ch - 1 : -1; /* rb_weights_check: the last channel */
    const int nan_is_missing = ctx->nan_mode == RB_NAN_MISSING;
    const int own_ext = extension_is_data && !f->extension;
    float *num = malloc(sizeof(float) * total);
    float *wgt = malloc(sizeof(float) * total);
    float *ext = own_ext ? calloc(n, sizeof(float)) : NULL;
    float *mask = from_image ? load_mask(weights->image) : NULL;
    if (!num || !wgt || (own_ext && !ext) || (from_image && !mask)) {
        free(num);
        free(wgt);
        free(ext);
        free(mask);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for missing-data filtering (%zu samples)",
                        total);
    }
    /* the working values the ordinary path would filter (sRGB decoded,
     * straight alpha premultiplied: a NaN alpha leaves its colour unknown) */
    rb_pixels_load(in, num, f->linear_light);
    size_t valid[4] = {0, 0, 0, 0}, zero_weight = 0, partial = 0;
    for (size_t p = 0; p < n; p++) {
        float pw = 1.0f; /* the pixel's weight */
        if (mask)
            pw = mask[p];
        if (from_alpha) {
            /* the working value of alpha is alpha itself (never premultiplied);
             * a colour loaded from straight alpha is already alpha times the
             * colour, premultiplied input holds it: w x with w = alpha */
            const float a = num[p * ch + alpha_ch];
            pw = a == a ? a : 0.0f;
        }
        zero_weight += pw <= 0.0f;
        partial += pw > 0.0f && pw < 1.0f;
        for (int c = 0; c < ch; c++) {
            const size_t i = p * ch + c;
            const float x = num[i];
            float wi = pw;
            if (nan_is_missing && x != x)
                wi = 0.0f;
            if (wi <= 0.0f) { /* weight 0: contributes nothing, whatever its value */
                num[i] = 0.0f;
                wgt[i] = 0.0f;
                continue;
            }
            /* alpha as weights: the alpha channel carries data 1 of weight
             * alpha, F(alpha)/F(alpha): 1 wherever weight lies in reach */
            num[i] = from_alpha ? (c == alpha_ch ? wi : x) : wi * x;
            wgt[i] = wi;
            valid[c]++;
        }
    }
    free(mask);
    rb_image num_img = work_image(in, ch, num), wgt_img = work_image(in, ch, wgt);
    rb_status s;
    float c_work[4] = {0, 0, 0, 0};
    if (extension_is_data) {
        const rb_boundary zero = {RB_BOUNDARY_ZERO, 0.0f}, one = {RB_BOUNDARY_CONSTANT, 1.0f};
        s = f->run(f->user, zero, &num_img);
        if (s == RB_OK)
            s = f->run(f->user, zero, &wgt_img);
        if (s == RB_OK && own_ext) {
            rb_image ext_img = work_image(in, 1, ext);
            s = f->run(f->user, one, &ext_img); /* G: zeros inside, 1 beyond the edges */
        }
        /* c in working units, as the ordinary path takes it; alpha as
         * weights: beyond the edge lies opaque c (colour c, weight 1) */
        if (mode == RB_BOUNDARY_CONSTANT)
            rb_pixel_constant(f->boundary.value, ch, from_alpha ? RB_ALPHA_NONE : in->alpha,
                              f->linear_light && in->srgb, c_work);
        if (from_alpha)
            c_work[alpha_ch] = 1.0f;
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
    const float *g_ext = own_ext ? ext : f->extension;
    const float min_weight = (float)(RB_MISSING_MIN_WEIGHT * fabs(f->dc_gain));
    uint64_t unreached = 0;
    for (size_t i = 0; i < total; i++) {
        const int c = (int)(i % ch);
        float a = num[i], b = wgt[i];
        if (extension_is_data) {
            const float g = g_ext[i / ch];
            a += c_work[c] * g;
            b += g;
        }
        /* a channel with no valid sample stays unknown whatever the boundary */
        if (valid[c] > 0 && b > min_weight) {
            num[i] = c == alpha_ch ? 1.0f : a / b;
        } else {
            num[i] = c == alpha_ch ? 0.0f : NAN;
            unreached++;
        }
    }
    rb_image stored = *out;
    if (from_alpha && stored.alpha == RB_ALPHA_NONE)
        stored.alpha = RB_ALPHA_STRAIGHT; /* colour as computed: alpha is 0 or 1 */
    rb_pixels_store(num, &stored, f->linear_light);
    free(num);
    free(wgt);
    free(ext);
    char weights_note[160] = "";
    if (weights)
        snprintf(weights_note, sizeof weights_note,
                 "; weights from %s: %zu of %zu pixels of weight 0, %zu partial",
                 from_alpha ? "the alpha channel" : "the weight image", zero_weight, n, partial);
    if (unreached == total)
        rb_log(ctx, "recblur: every sample is missing (NaN%s): the output is all %s",
               weights ? " or weight 0" : "", from_alpha ? "transparent" : "NaN");
    else
        rb_log(ctx,
               "recblur: %llu of %zu samples missing (NaN), filtered as missing data%s; %llu "
               "outputs had no valid data in reach (NaN)",
               (unsigned long long)n_missing, total, weights_note, (unsigned long long)unreached);
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

/* What the missing-data runs of one plan reuse: computed by the first, kept
 * until the plan goes. None of it depends on the image. */
struct rb_missing_cache {
    int positive;        /* rb_axis_is_positive on both axes */
    double dc_gain;      /* the 2D filter's DC gain */
    rb_plan *zero;       /* the filter with a zero boundary (zero / constant runs) */
    rb_plan *one;        /* the filter with constant 1, one channel (G's run) */
    float *extension;    /* G = F_1(0): the response to the extension alone */
};

void rb_missing_cache_free(rb_plan *plan)
{
    struct rb_missing_cache *c = plan->missing;
    if (!c)
        return;
    rb_plan_destroy(c->zero);
    rb_plan_destroy(c->one);
    free(c->extension);
    free(c);
    plan->missing = NULL;
}

/* A sibling plan of the same filter and size with boundary b. */
static rb_status sibling(rb_plan *plan, rb_boundary b, int channels, rb_plan **out)
{
    return rb_plan_build(plan->ctx, &plan->filter, b, plan->width, plan->height, channels,
                         RB_WORK_FILTER_2D, RB_MEMORY_HOST, out);
}

static rb_status run_plan(void *user, rb_boundary b, rb_image *img)
{
    rb_plan *plan = user;
    const int same_boundary = b.mode == plan->boundary.mode &&
                              (b.mode != RB_BOUNDARY_CONSTANT || b.value == plan->boundary.value);
    if (same_boundary && img->channels == plan->channels)
        return rb_execute(plan, img, img);
    /* the zero run of zero / constant data (the cache holds its plan) */
    struct rb_missing_cache *c = plan->missing;
    if (b.mode == RB_BOUNDARY_ZERO && img->channels == plan->channels) {
        rb_status s = c->zero ? RB_OK : sibling(plan, b, img->channels, &c->zero);
        return s == RB_OK ? rb_execute(c->zero, img, img) : s;
    }
    return rb_error(plan->ctx, RB_ERR_ARGUMENT, "missing data: no run for boundary %s",
                    rb_boundary_name(b.mode));
}

/* The plan's cache, made on first use: the impulse-response check (a line
 * of up to 2^22 samples per axis), and for zero / constant boundaries G. */
static rb_status missing_cache(rb_plan *plan, struct rb_missing_cache **out)
{
    struct rb_missing_cache *c = plan->missing;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return rb_error(plan->ctx, RB_ERR_NOMEM, "out of memory for missing-data filtering");
        c->positive = 1;
        c->dc_gain = 1.0;
        for (int a = 0; a < 2; a++) {
            const rb_axis *ax = &plan->filter.axis[a];
            c->positive = c->positive && rb_axis_is_positive(ax);
            if (ax->active)
                c->dc_gain *= ax->dc_gain;
        }
        plan->missing = c;
    }
    const rb_boundary_mode mode = plan->boundary.mode;
    if (c->positive && !c->extension && (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT)) {
        const size_t n = (size_t)plan->width * plan->height;
        const rb_boundary one = {RB_BOUNDARY_CONSTANT, 1.0f};
        float *g = calloc(n, sizeof(float));
        if (!g)
            return rb_error(plan->ctx, RB_ERR_NOMEM, "out of memory for missing-data filtering");
        rb_image g_img = {plan->width, plan->height, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE,
                          0, g};
        rb_status s = c->one ? RB_OK : sibling(plan, one, 1, &c->one);
        if (s == RB_OK)
            s = rb_execute(c->one, &g_img, &g_img); /* G: zeros inside, 1 beyond the edges */
        if (s != RB_OK) {
            free(g);
            return s;
        }
        c->extension = g;
    }
    *out = c;
    return RB_OK;
}

rb_status rb_missing_execute(rb_plan *plan, const rb_image *in, const rb_weights *weights,
                             rb_image *out, uint64_t n_missing)
{
    struct rb_missing_cache *c = NULL;
    rb_status s = missing_cache(plan, &c);
    if (s != RB_OK)
        return s;
    if (!c->positive) {
        if (weights)
            return rb_error(plan->ctx, RB_ERR_UNSUPPORTED,
                            "weights (a mask) cannot be applied by a filter with negative lobes "
                            "(%s): normalised filtering means nothing there",
                            plan->filter.description);
        return rb_missing_refuse(plan->ctx, plan->filter.description, n_missing);
    }
    const rb_missing_filter f = {run_plan, plan, plan->boundary, c->dc_gain, plan->linear_light,
                                 c->extension};
    return rb_missing_filter_image(plan->ctx, &f, in, weights, out, n_missing);
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
                         const rb_image *in, const rb_weights *weights, rb_image *out,
                         uint64_t n_missing)
{
    box_user u = {ctx, size_x, size_y};
    const rb_missing_filter f = {run_box, &u, boundary, 1.0, 0, NULL};
    return rb_missing_filter_image(ctx, &f, in, weights, out, n_missing);
}
