/* Missing data (issue 20): NaN samples of a float image filtered as unknown
 * by normalised convolution, out = F(w x) / F(w), against an independent
 * float64 reference (tests/reference.c: the filter's recursions run in long
 * double over an explicit extension of the signal), for every boundary,
 * with the conventions of docs/RELIABILITY.md ("Missing data"): clamp,
 * mirror and periodic extend data and weights alike; zero and constant=c
 * extend the data by 0 or c with weight 1; none has nothing outside. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "log_capture.h"
#include "reference.h"
#include "test_util.h"

static const rb_boundary modes[] = {{RB_BOUNDARY_ZERO, 0},     {RB_BOUNDARY_CONSTANT, 0.3f},
                                    {RB_BOUNDARY_CLAMP, 0},    {RB_BOUNDARY_PERIODIC, 0},
                                    {RB_BOUNDARY_MIRROR, 0},   {RB_BOUNDARY_NONE, 0}};
#define N_MODES ((int)(sizeof modes / sizeof modes[0]))

/* The reference: per channel, A = F(w x) with the data's extension and
 * B = F(w) with the weights' (1 beyond the edge for zero and constant), both
 * by ref_filter_image, w the validity (0 for NaN) times the pixel's mask
 * weight (mask NULL: 1); out = A / B where B holds at least min_weight of
 * the DC gain, NaN elsewhere. A channel without one sample of weight > 0 is
 * all NaN. */
static void reference(const rb_axis_filter *fx, const rb_axis_filter *fy, rb_boundary b,
                      const float *in, const double *mask, double *out, double *weight, int w,
                      int h, int ch)
{
    const size_t n = (size_t)w * h * ch;
    double *xw = malloc(sizeof(double) * n), *wt = malloc(sizeof(double) * n);
    assert_non_null(xw);
    assert_non_null(wt);
    int valid[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double wi = isnan(in[i]) ? 0.0 : mask ? mask[i / ch] : 1.0;
        wt[i] = wi;
        xw[i] = wi > 0.0 ? wi * in[i] : 0.0;
        valid[i % ch] |= wi > 0.0;
    }
    rb_boundary bw = b;
    if (b.mode == RB_BOUNDARY_ZERO || b.mode == RB_BOUNDARY_CONSTANT)
        bw = (rb_boundary){RB_BOUNDARY_CONSTANT, 1.0f};
    assert_int_equal(ref_filter_image(fx, fy, b, xw, out, w, h, ch), 0);
    assert_int_equal(ref_filter_image(fx, fy, bw, wt, weight, w, h, ch), 0);
    for (size_t i = 0; i < n; i++)
        out[i] = valid[i % ch] ? out[i] / weight[i] : NAN;
    free(xw);
    free(wt);
}

static double axis_gain(const rb_axis_filter *a)
{
    if (!a)
        return 1.0;
    double s = 0, c = 1, d = 1;
    if (a->fir)
        for (int k = a->fir_lo; k <= a->fir_hi; k++)
            s += a->fir[k - a->fir_lo];
    else
        s = 1;
    for (int k = 0; k < a->causal_order; k++)
        c -= a->causal[k];
    for (int k = 0; k < a->anticausal_order; k++)
        d -= a->anticausal[k];
    return s / (c * d);
}

/* The engine against the reference on `in` (with the weight image `mask`,
 * one float in [0,1] per pixel, when not NULL): relative RMS over the outputs
 * whose reference weight is well above the engine's threshold (1e-5 of the
 * DC gain); those must be finite, and those with no weight at all NaN. */
static double check(rb_context *ctx, const rb_filter *f, rb_boundary b, const float *in,
                    const float *mask, int w, int h, int ch, const char *what)
{
    const size_t n = (size_t)w * h * ch;
    float *out = malloc(sizeof(float) * n);
    double *ref = malloc(sizeof(double) * n), *wt = malloc(sizeof(double) * n);
    double *got = malloc(sizeof(double) * n), *want = malloc(sizeof(double) * n);
    double *mask_d = mask ? malloc(sizeof(double) * w * h) : NULL;
    assert_true(out && ref && wt && got && want && (!mask || mask_d));
    rb_plan *p = NULL;
    assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &p), RB_OK);
    rb_image Im = tu_f32_image(w, h, ch, (float *)in), O = tu_f32_image(w, h, ch, out);
    rb_image M = tu_f32_image(w, h, 1, (float *)mask);
    const rb_weights weights = {RB_WEIGHTS_IMAGE, &M};
    if (rb_execute_weighted(p, &Im, mask ? &weights : NULL, &O) != RB_OK)
        fail_msg("%s, %s: %s", what, rb_boundary_name(b.mode), rb_context_error(ctx));
    rb_plan_destroy(p);
    rb_axis_filter fx, fy;
    rb_filter_get_axis(f, 0, &fx);
    rb_filter_get_axis(f, 1, &fy);
    if (mask)
        tu_to_double(mask, mask_d, (size_t)w * h);
    reference(&fx, &fy, b, in, mask_d, ref, wt, w, h, ch);
    const double gain = axis_gain(&fx) * axis_gain(&fy);
    size_t m = 0, nan_ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(ref[i]) || wt[i] <= 0.0) {
            if (!isnan(out[i]))
                fail_msg("%s, %s: sample %zu has no valid data in reach but came out %g", what,
                         rb_boundary_name(b.mode), i, out[i]);
            nan_ok++;
        } else if (wt[i] > 1e-3 * gain) {
            if (!isfinite(out[i]))
                fail_msg("%s, %s: sample %zu (%zu,%zu) is %g, the reference %g (weight %.3g)", what,
                         rb_boundary_name(b.mode), i, i / ch % w, i / ch / w, out[i], ref[i],
                         wt[i] / gain);
            got[m] = out[i];
            want[m] = ref[i];
            m++;
        }
    }
    double rms = m ? ref_rel_rms(got, want, m) : 0.0;
    printf("  %-26s %-9s %6zu compared, %5zu NaN (none in reach), rel RMS %.2e\n", what,
           rb_boundary_name(b.mode), m, nan_ok, rms);
    free(out);
    free(ref);
    free(wt);
    free(got);
    free(want);
    free(mask_d);
    return rms;
}

enum { P_SCATTERED, P_ALONE, P_EDGES, P_CORNERS, P_ROWS_COLS, P_PER_CHANNEL, N_PATTERNS };
static const char *pattern_name[] = {"1% scattered", "one NaN alone", "NaN along the edges",
                                     "NaN corners", "whole NaN rows and columns",
                                     "NaN in one channel only"};

static void make_image(float *in, int w, int h, int ch, int pattern)
{
    for (int i = 0; i < w * h * ch; i++)
        in[i] = (float)tu_uniform();
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int nan = 0;
            switch (pattern) {
            case P_SCATTERED: nan = tu_uniform() < 0.01; break;
            case P_ALONE: nan = x == w / 3 && y == h / 2; break;
            case P_EDGES: nan = x == 0 || y == h - 1 || (x == w - 1 && y % 3 == 0); break;
            case P_CORNERS: nan = (x < 2 || x >= w - 2) && (y < 2 || y >= h - 2); break;
            case P_ROWS_COLS: nan = y == 0 || y == 7 || y == 8 || x == 5 || x == w - 1; break;
            case P_PER_CHANNEL: nan = tu_uniform() < 0.05; break;
            }
            if (nan)
                for (int c = 0; c < ch; c++)
                    if (pattern != P_PER_CHANNEL || c == 1)
                        in[((size_t)y * w + x) * ch + c] = NAN;
        }
}

/* Every pattern, every boundary: a Gaussian (recursive + FIR) and a
 * first-order signature (pure recursion, poles 0.6). */
static void test_against_reference(void **state)
{
    (void)state;
    const int w = 47, h = 38, ch = 2;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *filters[2];
    assert_int_equal(rb_filter_gaussian(ctx, 3.0, 2.0, RB_GAUSSIAN_DEFAULT, &filters[0]), RB_OK);
    assert_int_equal(rb_filter_parse(ctx, "0.4: 0.6", RB_DIRECTION_BOTH, RB_AXES_BOTH, &filters[1]),
                     RB_OK);
    float *in = malloc(sizeof(float) * w * h * ch);
    assert_non_null(in);
    double worst = 0;
    for (int fi = 0; fi < 2; fi++)
        for (int pat = 0; pat < N_PATTERNS; pat++) {
            make_image(in, w, h, ch, pat);
            for (int m = 0; m < N_MODES; m++) {
                char what[96];
                snprintf(what, sizeof what, "%s %s", fi ? "sig" : "gauss", pattern_name[pat]);
                double rms = check(ctx, filters[fi], modes[m], in, NULL, w, h, ch, what);
                worst = fmax(worst, rms);
                if (rms > 1e-5)
                    fail_msg("%s, %s: relative RMS %.3g > 1e-5", what, rb_boundary_name(modes[m].mode),
                             rms);
            }
        }
    printf("  worst relative RMS %.2e\n", worst);
    free(in);
    rb_filter_destroy(filters[0]);
    rb_filter_destroy(filters[1]);
    rb_context_destroy(ctx);
}

/* The box filter (an FIR of 5 x 3 equal taps for the reference). */
static void test_box(void **state)
{
    (void)state;
    const int w = 30, h = 21, ch = 1, sx = 5, sy = 3;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    float in[30 * 21], out[30 * 21];
    make_image(in, w, h, ch, P_SCATTERED);
    in[0] = NAN;
    in[7 * w + 12] = NAN;
    double tx[5] = {0.2, 0.2, 0.2, 0.2, 0.2}, ty[3] = {1 / 3.0, 1 / 3.0, 1 / 3.0};
    rb_axis_filter fx = {-2, 2, tx, 0, {0}, 0, {0}}, fy = {-1, 1, ty, 0, {0}, 0, {0}};
    for (int m = 0; m < N_MODES; m++) {
        rb_image Im = tu_f32_image(w, h, ch, in), O = tu_f32_image(w, h, ch, out);
        assert_int_equal(rb_box_filter(ctx, sx, sy, modes[m], &Im, &O), RB_OK);
        double ref[30 * 21], wt[30 * 21], got[30 * 21], want[30 * 21];
        reference(&fx, &fy, modes[m], in, NULL, ref, wt, w, h, ch);
        int k = 0;
        for (int i = 0; i < w * h; i++) {
            if (wt[i] > 1e-3) {
                assert_true(isfinite(out[i]));
                got[k] = out[i];
                want[k++] = ref[i];
            }
        }
        double rms = ref_rel_rms(got, want, (size_t)k);
        printf("  box 5x3 %-9s rel RMS %.2e\n", rb_boundary_name(modes[m].mode), rms);
        assert_true(rms < 1e-5);
    }
    rb_context_destroy(ctx);
}

/* The issue's example: 64 x 64, one NaN at (5,5), signature "1: 0.1": the
 * far corner is finite (missing) and NaN (propagate, IEEE). */
static void test_issue_example(void **state)
{
    (void)state;
    const int w = 64, h = 64;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_parse(ctx, "1: 0.1", RB_DIRECTION_BOTH, RB_AXES_BOTH, &f), RB_OK);
    float *in = malloc(sizeof(float) * w * h), *out = malloc(sizeof(float) * w * h);
    for (int i = 0; i < w * h; i++)
        in[i] = (float)tu_uniform();
    in[5 * w + 5] = NAN;
    rb_plan *p = NULL;
    assert_int_equal(rb_plan_create(ctx, f, (rb_boundary){RB_BOUNDARY_CLAMP, 0}, w, h, 1, &p), RB_OK);
    rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
    assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
    int finite = 0;
    for (int i = 0; i < w * h; i++)
        finite += isfinite(out[i]) != 0;
    printf("  missing: far corner %g, %d of %d finite; log: %s", out[w * h - 1], finite, w * h, logbuf);
    assert_true(isfinite(out[w * h - 1]));
    assert_int_equal(finite, w * h);
    assert_non_null(strstr(logbuf, "1 of 4096 samples missing"));
    assert_non_null(strstr(logbuf, "0 outputs had no valid data"));
    double rms = check(ctx, f, (rb_boundary){RB_BOUNDARY_CLAMP, 0}, in, NULL, w, h, 1, "issue example");
    assert_true(rms < 1e-5);
    /* --nan propagate: IEEE arithmetic, the NaN reaches the whole image */
    assert_int_equal(rb_context_set_nan_mode(ctx, RB_NAN_PROPAGATE), RB_OK);
    assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
    int nans = 0;
    for (int i = 0; i < w * h; i++)
        nans += isnan(out[i]) != 0;
    printf("  propagate: far corner %g, %d of %d NaN\n", out[w * h - 1], nans, w * h);
    assert_true(isnan(out[w * h - 1]));
    assert_int_equal(nans, w * h);
    assert_int_equal(rb_context_set_nan_mode(ctx, (rb_nan_mode)7), RB_ERR_ARGUMENT);
    rb_plan_destroy(p);
    rb_filter_destroy(f);
    free(in);
    free(out);
    rb_context_destroy(ctx);
}

/* An all-NaN image stays NaN with a message, whatever the boundary (a
 * constant beyond the edges is not data of this image); an image without
 * NaN runs the ordinary path and logs nothing about missing data. */
static void test_all_nan(void **state)
{
    (void)state;
    const int w = 20, h = 13, ch = 3;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 2.0, 2.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    float in[20 * 13 * 3], out[20 * 13 * 3];
    for (int m = 0; m < N_MODES; m++) {
        for (int i = 0; i < w * h * ch; i++)
            in[i] = NAN;
        logbuf[0] = 0;
        rb_plan *p = NULL;
        assert_int_equal(rb_plan_create(ctx, f, modes[m], w, h, ch, &p), RB_OK);
        rb_image Im = tu_f32_image(w, h, ch, in), O = tu_f32_image(w, h, ch, out);
        assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
        for (int i = 0; i < w * h * ch; i++)
            assert_true(isnan(out[i]));
        assert_non_null(strstr(logbuf, "every sample is missing"));
        /* no NaN: the ordinary path, nothing said about missing data */
        for (int i = 0; i < w * h * ch; i++)
            in[i] = 0.5f;
        logbuf[0] = 0;
        assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
        assert_null(strstr(logbuf, "missing"));
        for (int i = 0; i < w * h * ch; i++)
            assert_true(isfinite(out[i]));
        rb_plan_destroy(p);
    }
    printf("  all-NaN: NaN out for every boundary, with \"every sample is missing\"\n");
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* Filters with negative lobes refuse NaN input (naming --nan propagate)
 * and leave the output untouched; without NaN, or with propagate, they run.
 * Positive filters (Gaussians of every size, a positive signature) run. */
static void test_negative_lobes(void **state)
{
    (void)state;
    const int w = 24, h = 16;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    float in[24 * 16], out[24 * 16];
    for (int i = 0; i < w * h; i++)
        in[i] = (float)tu_uniform();
    in[3 * w + 4] = NAN;
    rb_filter *neg[3];
    assert_int_equal(rb_filter_bspline(ctx, 3, &neg[0]), RB_OK);
    assert_int_equal(rb_filter_bspline(ctx, 5, &neg[1]), RB_OK);
    assert_int_equal(rb_filter_parse(ctx, "1: -0.5", RB_DIRECTION_BOTH, RB_AXES_BOTH, &neg[2]), RB_OK);
    for (int k = 0; k < 3; k++) {
        rb_plan *p = NULL;
        assert_int_equal(rb_plan_create(ctx, neg[k], (rb_boundary){RB_BOUNDARY_MIRROR, 0}, w, h, 1, &p),
                         RB_OK);
        for (int i = 0; i < w * h; i++)
            out[i] = 42.0f;
        rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
        assert_int_equal(rb_execute(p, &Im, &O), RB_ERR_UNSUPPORTED);
        printf("  %s\n", rb_context_error(ctx));
        assert_non_null(strstr(rb_context_error(ctx), "--nan propagate"));
        assert_non_null(strstr(rb_context_error(ctx), "negative lobes"));
        for (int i = 0; i < w * h; i++)
            assert_true(out[i] == 42.0f);
        assert_int_equal(rb_context_set_nan_mode(ctx, RB_NAN_PROPAGATE), RB_OK);
        assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
        assert_true(isnan(out[3 * w + 4]));
        assert_int_equal(rb_context_set_nan_mode(ctx, RB_NAN_MISSING), RB_OK);
        float clean[24 * 16];
        memcpy(clean, in, sizeof clean);
        clean[3 * w + 4] = 0.5f;
        rb_image C = tu_f32_image(w, h, 1, clean);
        assert_int_equal(rb_execute(p, &C, &O), RB_OK);
        rb_plan_destroy(p);
        rb_filter_destroy(neg[k]);
    }
    /* positive: Gaussians from the smallest sigma to wide ones, both designs */
    const double sigmas[] = {0.5, 0.8, 1.0, 1.7, 3.0, 7.5, 20.0, 64.0, 300.0};
    for (size_t k = 0; k < sizeof sigmas / sizeof sigmas[0]; k++)
        for (int q = 0; q < 2; q++) {
            rb_filter *f = NULL;
            assert_int_equal(rb_filter_gaussian(ctx, sigmas[k], sigmas[k], (rb_gaussian_quality)q, &f),
                             RB_OK);
            rb_plan *p = NULL;
            assert_int_equal(rb_plan_create(ctx, f, (rb_boundary){RB_BOUNDARY_CLAMP, 0}, w, h, 1, &p),
                             RB_OK);
            rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
            if (rb_execute(p, &Im, &O) != RB_OK)
                fail_msg("gaussian sigma %g (%s) refused: %s", sigmas[k], q ? "accurate" : "default",
                         rb_context_error(ctx));
            assert_true(isfinite(out[3 * w + 4]));
            rb_plan_destroy(p);
            rb_filter_destroy(f);
        }
    rb_context_destroy(ctx);
}

/* Deblur filters have negative lobes: NaN input is refused in missing mode. */
static void test_deblur_refuses(void **state)
{
    (void)state;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    const int w = 32, h = 24;
    rb_settings s;
    rb_settings_init(&s, rb_op_get(RB_OP_DEBLUR));
    assert_int_equal(rb_settings_set(ctx, &s, "psf-sigma", "1.5"), RB_OK);
    float in[32 * 24], out[32 * 24];
    for (int i = 0; i < w * h; i++)
        in[i] = (float)tu_uniform();
    in[100] = NAN;
    rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
    assert_int_equal(rb_settings_run(ctx, &s, &Im, &O), RB_ERR_UNSUPPORTED);
    printf("  %s\n", rb_context_error(ctx));
    assert_non_null(strstr(rb_context_error(ctx), "--nan propagate"));
    assert_int_equal(rb_context_set_nan_mode(ctx, RB_NAN_PROPAGATE), RB_OK);
    assert_int_equal(rb_settings_run(ctx, &s, &Im, &O), RB_OK);
    rb_context_destroy(ctx);
}

/* +-Inf are data: with a NaN elsewhere, the missing-data output's
 * non-finite samples (NaN, +Inf, -Inf, sample for sample) are those of
 * IEEE filtering of the image with the NaN set to 0 (F(w x); F(w) is finite
 * and positive where data is in reach): Inf spreads over the filter's
 * reach, and where +Inf and -Inf (or Inf times a negative tap) meet it
 * becomes NaN. */
static void test_infinities(void **state)
{
    (void)state;
    const int w = 40, h = 30;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f[2];
    assert_int_equal(rb_filter_gaussian(ctx, 1.0, 1.0, RB_GAUSSIAN_DEFAULT, &f[0]), RB_OK); /* FIR */
    assert_int_equal(rb_filter_gaussian(ctx, 4.0, 4.0, RB_GAUSSIAN_DEFAULT, &f[1]), RB_OK); /* IIR */
    float in[40 * 30], zeroed[40 * 30], out[40 * 30], ieee[40 * 30];
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < N_MODES; m++) {
            for (int i = 0; i < w * h; i++)
                in[i] = (float)tu_uniform();
            in[10 * w + 10] = INFINITY;
            in[20 * w + 30] = -INFINITY;
            in[5 * w + 35] = NAN;
            memcpy(zeroed, in, sizeof in);
            zeroed[5 * w + 35] = 0.0f;
            rb_plan *p = NULL;
            assert_int_equal(rb_plan_create(ctx, f[k], modes[m], w, h, 1, &p), RB_OK);
            rb_image Im = tu_f32_image(w, h, 1, in), Z = tu_f32_image(w, h, 1, zeroed),
                     O = tu_f32_image(w, h, 1, out), E = tu_f32_image(w, h, 1, ieee);
            assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
            assert_int_equal(rb_context_set_nan_mode(ctx, RB_NAN_PROPAGATE), RB_OK);
            assert_int_equal(rb_execute(p, &Z, &E), RB_OK);
            assert_int_equal(rb_context_set_nan_mode(ctx, RB_NAN_MISSING), RB_OK);
            int nonfinite = 0, nans = 0;
            for (int i = 0; i < w * h; i++) {
                int cls_o = isnan(out[i]) ? 0 : isinf(out[i]) ? (out[i] > 0 ? 1 : 2) : 3;
                int cls_e = isnan(ieee[i]) ? 0 : isinf(ieee[i]) ? (ieee[i] > 0 ? 1 : 2) : 3;
                if (cls_o != cls_e)
                    fail_msg("%s sigma %d, %s: sample (%d,%d) is %g, IEEE filtering %g", "gaussian",
                             k ? 4 : 1, rb_boundary_name(modes[m].mode), i % w, i / w, out[i], ieee[i]);
                nonfinite += cls_o != 3;
                nans += cls_o == 0;
            }
            printf("  Inf, gaussian sigma %d, %-9s: %4d non-finite (%d NaN), as IEEE filtering\n",
                   k ? 4 : 1, rb_boundary_name(modes[m].mode), nonfinite, nans);
            assert_true(isinf(out[10 * w + 10]) || isnan(out[10 * w + 10]));
            if (k == 0) /* a short FIR: the Infs stay local, the NaN is filled */
                assert_true(isfinite(out[5 * w + 35]) && isfinite(out[28 * w + 2]));
            rb_plan_destroy(p);
        }
    rb_filter_destroy(f[0]);
    rb_filter_destroy(f[1]);
    rb_context_destroy(ctx);
}

/* Straight alpha: colour is premultiplied before filtering, as on the
 * ordinary path, so a NaN colour is missing in the premultiplied colour;
 * un-premultiplying divides by the filtered alpha. Reference: colour
 * F(w a x)/F(w) / F(a), alpha F(a) (no NaN in alpha, clamp boundary). */
static void test_straight_alpha(void **state)
{
    (void)state;
    const int w = 25, h = 19, ch = 4;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 2.5, 2.5, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    float in[25 * 19 * 4], out[25 * 19 * 4];
    for (int i = 0; i < w * h * ch; i++)
        in[i] = (float)(i % ch == 3 ? 0.2 + 0.8 * tu_uniform() : tu_uniform());
    in[(4 * w + 6) * ch + 0] = NAN;
    in[(4 * w + 6) * ch + 1] = NAN;
    in[(4 * w + 6) * ch + 2] = NAN;
    in[(12 * w + 20) * ch + 2] = NAN;
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    rb_plan *p = NULL;
    assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &p), RB_OK);
    rb_image Im = tu_f32_image(w, h, ch, in), O = tu_f32_image(w, h, ch, out);
    Im.alpha = O.alpha = RB_ALPHA_STRAIGHT;
    assert_int_equal(rb_execute(p, &Im, &O), RB_OK);
    rb_plan_destroy(p);
    /* premultiplied colour (NaN stays NaN), then the reference per channel */
    float pm[25 * 19 * 4];
    for (int i = 0; i < w * h * ch; i++)
        pm[i] = i % ch == 3 ? in[i] : in[i] * in[i - i % ch + 3];
    double ref[25 * 19 * 4], wt[25 * 19 * 4], got[25 * 19 * 4], want[25 * 19 * 4];
    rb_axis_filter fx, fy;
    rb_filter_get_axis(f, 0, &fx);
    rb_filter_get_axis(f, 1, &fy);
    reference(&fx, &fy, b, pm, NULL, ref, wt, w, h, ch);
    for (int i = 0; i < w * h * ch; i++) {
        assert_true(isfinite(out[i]));
        got[i] = out[i];
        want[i] = i % ch == 3 ? ref[i] : ref[i] / ref[i - i % ch + 3];
    }
    double rms = ref_rel_rms(got, want, (size_t)(w * h * ch));
    printf("  straight alpha, NaN colour: rel RMS %.2e\n", rms);
    assert_true(rms < 1e-5);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* A hole wider than a FIR's reach: the outputs with no valid sample under
 * the window are NaN, counted in the log; the rest match the reference. */
static void test_no_data_in_reach(void **state)
{
    (void)state;
    const int w = 30, h = 21;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    float in[30 * 21], out[30 * 21];
    for (int i = 0; i < w * h; i++)
        in[i] = (float)tu_uniform();
    for (int y = 6; y < 15; y++) /* 12 x 9 */
        for (int x = 10; x < 22; x++)
            in[y * w + x] = NAN;
    for (int m = 0; m < N_MODES; m++) {
        logbuf[0] = 0;
        rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
        assert_int_equal(rb_box_filter(ctx, 5, 3, modes[m], &Im, &O), RB_OK);
        int nans = 0, inner = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int hole = x >= 12 && x < 20 && y >= 7 && y < 14; /* (12-4) x (9-2) */
                nans += isnan(out[y * w + x]) != 0;
                inner += hole && isnan(out[y * w + x]);
            }
        printf("  12x9 hole, box 5x3, %-9s: %d NaN outputs (56 expected); %s", rb_boundary_name(modes[m].mode),
               nans, logbuf);
        assert_int_equal(nans, 56);
        assert_int_equal(inner, 56);
        assert_non_null(strstr(logbuf, "108 of 630 samples missing"));
        assert_non_null(strstr(logbuf, "56 outputs had no valid data in reach"));
    }
    rb_context_destroy(ctx);
}

/* ------------------------------------------------------------------ masks */

/* Fractional weights: 0 (unknown), 1 (valid) and between, with NaN too;
 * every boundary, a Gaussian and a first-order signature, against the
 * reference with the same per-pixel weights. */
static void make_mask(float *mask, int w, int h)
{
    for (int i = 0; i < w * h; i++) {
        double u = tu_uniform();
        mask[i] = u < 0.15 ? 0.0f : u < 0.4 ? 1.0f : (float)tu_uniform();
    }
    for (int y = 0; y < h; y++) /* a hole of weight 0 at the left edge */
        for (int x = 0; x < 4; x++)
            if (y >= h / 3 && y < h / 2)
                mask[y * w + x] = 0.0f;
}

static void test_mask_against_reference(void **state)
{
    (void)state;
    const int w = 41, h = 29, ch = 3;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *filters[2];
    assert_int_equal(rb_filter_gaussian(ctx, 2.5, 1.5, RB_GAUSSIAN_DEFAULT, &filters[0]), RB_OK);
    assert_int_equal(rb_filter_parse(ctx, "0.4: 0.6", RB_DIRECTION_BOTH, RB_AXES_BOTH, &filters[1]),
                     RB_OK);
    float *in = malloc(sizeof(float) * w * h * ch), *mask = malloc(sizeof(float) * w * h);
    assert_true(in && mask);
    double worst = 0;
    for (int fi = 0; fi < 2; fi++)
        for (int pat = 0; pat < 2; pat++) { /* no NaN, then 1 % NaN as well */
            make_image(in, w, h, ch, P_SCATTERED);
            if (pat == 0)
                for (int i = 0; i < w * h * ch; i++)
                    in[i] = isnan(in[i]) ? 0.5f : in[i];
            make_mask(mask, w, h);
            for (int m = 0; m < N_MODES; m++) {
                char what[96];
                snprintf(what, sizeof what, "%s mask%s", fi ? "sig" : "gauss", pat ? " + NaN" : "");
                double rms = check(ctx, filters[fi], modes[m], in, mask, w, h, ch, what);
                worst = fmax(worst, rms);
                if (rms > 1e-5)
                    fail_msg("%s, %s: relative RMS %.3g > 1e-5", what,
                             rb_boundary_name(modes[m].mode), rms);
            }
        }
    printf("  masks: worst relative RMS %.2e\n", worst);
    free(in);
    free(mask);
    rb_filter_destroy(filters[0]);
    rb_filter_destroy(filters[1]);
    rb_context_destroy(ctx);
}

/* U8 and U16 weight images mean v/255 and v/65535: the same output as the
 * F32 mask of those values, sample for sample. */
static void test_mask_formats(void **state)
{
    (void)state;
    const int w = 23, h = 17;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 2.0, 2.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_plan *p = NULL;
    assert_int_equal(rb_plan_create(ctx, f, (rb_boundary){RB_BOUNDARY_MIRROR, 0}, w, h, 1, &p), RB_OK);
    float in[23 * 17], mf[23 * 17], o_f[23 * 17], o_i[23 * 17];
    uint8_t m8[23 * 17];
    uint16_t m16[23 * 17];
    make_image(in, w, h, 1, P_SCATTERED);
    for (int i = 0; i < w * h; i++) {
        m8[i] = (uint8_t)tu_int(0, 255);
        m16[i] = (uint16_t)(m8[i] * 257u + (unsigned)tu_int(0, 256));
    }
    rb_image Im = tu_f32_image(w, h, 1, in), Of = tu_f32_image(w, h, 1, o_f),
             Oi = tu_f32_image(w, h, 1, o_i), Mf = tu_f32_image(w, h, 1, mf);
    rb_image M8 = tu_image(w, h, 1, RB_U8, 0, m8, RB_MEMORY_HOST);
    rb_image M16 = tu_image(w, h, 1, RB_U16, 0, m16, RB_MEMORY_HOST);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < w * h; i++)
            mf[i] = k ? (float)m16[i] / 65535.0f : (float)m8[i] / 255.0f;
        const rb_weights wf = {RB_WEIGHTS_IMAGE, &Mf}, wi = {RB_WEIGHTS_IMAGE, k ? &M16 : &M8};
        assert_int_equal(rb_execute_weighted(p, &Im, &wf, &Of), RB_OK);
        assert_int_equal(rb_execute_weighted(p, &Im, &wi, &Oi), RB_OK);
        assert_memory_equal(o_f, o_i, sizeof o_f);
    }
    printf("  U8 and U16 weight images: the same output as their F32 values\n");
    rb_plan_destroy(p);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* The alpha channel as weights: transparent pixels are unknown and filled
 * from their opaque neighbours, partial alpha is partial confidence. The
 * colour is F(a c)/F(a) of the straight colour c (the reference with alpha
 * as the mask), alpha out is 1 where colour came out and 0 where no weight
 * was in reach; straight and premultiplied input alike, every boundary. */
static void test_mask_alpha(void **state)
{
    (void)state;
    const int w = 31, h = 22, ch = 4;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 2.0, 1.5, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_axis_filter fx, fy;
    rb_filter_get_axis(f, 0, &fx);
    rb_filter_get_axis(f, 1, &fy);
    float in[31 * 22 * 4], pm[31 * 22 * 4], out[31 * 22 * 4], colour[31 * 22 * 3];
    double alpha[31 * 22], ref[31 * 22 * 3], wt[31 * 22 * 3];
    double got[31 * 22 * 3], want[31 * 22 * 3];
    float mask[31 * 22];
    make_mask(mask, w, h);
    for (int p = 0; p < w * h; p++) {
        alpha[p] = mask[p];
        for (int c = 0; c < 3; c++)
            colour[p * 3 + c] = in[p * ch + c] = (float)tu_uniform();
        in[p * ch + 3] = mask[p];
        for (int c = 0; c < 4; c++)
            pm[p * ch + c] = c == 3 ? in[p * ch + 3] : in[p * ch + c] * in[p * ch + 3];
    }
    for (int premultiplied = 0; premultiplied < 2; premultiplied++)
        for (int m = 0; m < N_MODES; m++) {
            rb_plan *p = NULL;
            assert_int_equal(rb_plan_create(ctx, f, modes[m], w, h, ch, &p), RB_OK);
            rb_image Im = tu_f32_image(w, h, ch, premultiplied ? pm : in), O = tu_f32_image(w, h, ch, out);
            Im.alpha = O.alpha = premultiplied ? RB_ALPHA_PREMULTIPLIED : RB_ALPHA_STRAIGHT;
            const rb_weights weights = {RB_WEIGHTS_ALPHA, NULL};
            assert_int_equal(rb_execute_weighted(p, &Im, &weights, &O), RB_OK);
            rb_plan_destroy(p);
            reference(&fx, &fy, modes[m], colour, alpha, ref, wt, w, h, 3);
            int k = 0, opaque = 0, transparent = 0;
            for (int q = 0; q < w * h; q++) {
                const double b = wt[q * 3];
                const float a = out[q * ch + 3];
                if (b <= 0.0) { /* no weight in reach */
                    assert_true(a == 0.0f);
                    transparent++;
                    continue;
                }
                if (b < 1e-3)
                    continue;
                if (a != 1.0f)
                    fail_msg("alpha as weights, %s: alpha out %g at (%d,%d), weight %g",
                             rb_boundary_name(modes[m].mode), a, q % w, q / w, b);
                opaque++;
                for (int c = 0; c < 3; c++) {
                    got[k] = out[q * ch + c];
                    want[k++] = ref[q * 3 + c];
                }
            }
            double rms = ref_rel_rms(got, want, (size_t)k);
            printf("  alpha as weights (%s), %-9s: %d opaque, %d transparent, rel RMS %.2e\n",
                   premultiplied ? "premultiplied" : "straight", rb_boundary_name(modes[m].mode),
                   opaque, transparent, rms);
            assert_true(rms < 1e-5);
            assert_true(opaque > w * h / 2);
        }
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* The box filter takes weights too (its reference: an FIR of equal taps). */
static void test_mask_box(void **state)
{
    (void)state;
    const int w = 30, h = 21;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    float in[30 * 21], out[30 * 21], mask[30 * 21];
    make_image(in, w, h, 1, P_SCATTERED);
    make_mask(mask, w, h);
    double tx[5] = {0.2, 0.2, 0.2, 0.2, 0.2}, ty[3] = {1 / 3.0, 1 / 3.0, 1 / 3.0}, md[30 * 21];
    tu_to_double(mask, md, (size_t)w * h);
    rb_axis_filter fx = {-2, 2, tx, 0, {0}, 0, {0}}, fy = {-1, 1, ty, 0, {0}, 0, {0}};
    for (int m = 0; m < N_MODES; m++) {
        rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
        rb_image M = tu_f32_image(w, h, 1, mask);
        const rb_weights weights = {RB_WEIGHTS_IMAGE, &M};
        assert_int_equal(rb_box_filter_weighted(ctx, 5, 3, modes[m], &Im, &weights, &O), RB_OK);
        double ref[30 * 21], wt[30 * 21], got[30 * 21], want[30 * 21];
        reference(&fx, &fy, modes[m], in, md, ref, wt, w, h, 1);
        int k = 0;
        for (int i = 0; i < w * h; i++) {
            if (wt[i] <= 0.0)
                assert_true(isnan(out[i]));
            else if (wt[i] > 1e-3) {
                assert_true(isfinite(out[i]));
                got[k] = out[i];
                want[k++] = ref[i];
            }
        }
        double rms = ref_rel_rms(got, want, (size_t)k);
        printf("  box 5x3 with a mask, %-9s rel RMS %.2e\n", rb_boundary_name(modes[m].mode), rms);
        assert_true(rms < 1e-5);
    }
    rb_context_destroy(ctx);
}

/* Bad weights are errors that leave the output untouched: a weight image of
 * another size or more than one channel, floats outside [0,1] or NaN, alpha
 * on an image without alpha, weights with a negative-lobe filter. A mask of
 * zeros gives an all-NaN output with a message. */
static void test_mask_errors(void **state)
{
    (void)state;
    const int w = 16, h = 12;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL, *bs = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 2.0, 2.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    assert_int_equal(rb_filter_bspline(ctx, 3, &bs), RB_OK);
    rb_plan *p = NULL, *pb = NULL;
    assert_int_equal(rb_plan_create(ctx, f, (rb_boundary){RB_BOUNDARY_CONSTANT, 0.5f}, w, h, 1, &p), RB_OK);
    assert_int_equal(rb_plan_create(ctx, bs, (rb_boundary){RB_BOUNDARY_MIRROR, 0}, w, h, 1, &pb), RB_OK);
    float in[16 * 12], out[16 * 12], mask[17 * 12 * 2];
    for (int i = 0; i < w * h; i++)
        in[i] = (float)tu_uniform();
    for (int i = 0; i < 17 * 12 * 2; i++)
        mask[i] = 1.0f;
    rb_image Im = tu_f32_image(w, h, 1, in), O = tu_f32_image(w, h, 1, out);
    struct {
        rb_image m;
        rb_plan *plan;
        rb_weights_source source;
        rb_status want;
        const char *says;
    } cases[] = {
        {tu_f32_image(17, 12, 1, mask), p, RB_WEIGHTS_IMAGE, RB_ERR_SIZE, "17x12"},
        {tu_f32_image(16, 12, 2, mask), p, RB_WEIGHTS_IMAGE, RB_ERR_SIZE, "channel"},
        {tu_f32_image(16, 12, 1, mask), p, RB_WEIGHTS_ALPHA, RB_ERR_ARGUMENT, "no alpha"},
        {tu_f32_image(16, 12, 1, mask), pb, RB_WEIGHTS_IMAGE, RB_ERR_UNSUPPORTED, "negative lobes"},
        {tu_f32_image(16, 12, 1, mask), p, RB_WEIGHTS_IMAGE, RB_ERR_ARGUMENT, "outside [0, 1]"},
        {tu_f32_image(16, 12, 1, mask), p, RB_WEIGHTS_IMAGE, RB_ERR_ARGUMENT, "outside [0, 1]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int i = 0; i < w * h; i++)
            out[i] = 42.0f;
        mask[5] = k == 4 ? 1.5f : k == 5 ? NAN : 1.0f;
        const rb_weights weights = {cases[k].source, &cases[k].m};
        rb_status st = rb_execute_weighted(cases[k].plan, &Im, &weights, &O);
        printf("  %s\n", rb_context_error(ctx));
        assert_int_equal(st, cases[k].want);
        assert_non_null(strstr(rb_context_error(ctx), cases[k].says));
        for (int i = 0; i < w * h; i++)
            assert_true(out[i] == 42.0f);
    }
    /* all zeros: NaN everywhere, even with a constant beyond the edges */
    for (int i = 0; i < w * h; i++)
        mask[i] = 0.0f;
    rb_image M = tu_f32_image(w, h, 1, mask);
    const rb_weights zeros = {RB_WEIGHTS_IMAGE, &M};
    logbuf[0] = 0;
    assert_int_equal(rb_execute_weighted(p, &Im, &zeros, &O), RB_OK);
    for (int i = 0; i < w * h; i++)
        assert_true(isnan(out[i]));
    printf("  mask of zeros: %s", logbuf);
    assert_non_null(strstr(logbuf, "every sample is missing (NaN or weight 0)"));
    /* no weights (NULL, or source none): rb_execute itself, bit for bit */
    float plain[16 * 12];
    rb_image P = tu_f32_image(w, h, 1, plain);
    const rb_weights none = {RB_WEIGHTS_NONE, NULL};
    assert_int_equal(rb_execute(p, &Im, &P), RB_OK);
    assert_int_equal(rb_execute_weighted(p, &Im, &none, &O), RB_OK);
    assert_memory_equal(out, plain, sizeof plain);
    rb_plan_destroy(p);
    rb_plan_destroy(pb);
    rb_filter_destroy(f);
    rb_filter_destroy(bs);
    rb_context_destroy(ctx);
}

/* The plan caches what missing-data runs reuse (the impulse-response check,
 * the sibling plans, G): a second and third execute of one plan give the
 * bits of the first, and of a fresh plan, for every boundary. */
static void test_plan_cache_reuse(void **state)
{
    (void)state;
    const int w = 27, h = 19, ch = 2;
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 3.0, 2.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    float in[27 * 19 * 2], a[27 * 19 * 2], b[27 * 19 * 2], mask[27 * 19];
    make_image(in, w, h, ch, P_SCATTERED);
    make_mask(mask, w, h);
    rb_image Im = tu_f32_image(w, h, ch, in), A = tu_f32_image(w, h, ch, a),
             B = tu_f32_image(w, h, ch, b), M = tu_f32_image(w, h, 1, mask);
    const rb_weights weights = {RB_WEIGHTS_IMAGE, &M};
    for (int m = 0; m < N_MODES; m++) {
        rb_plan *p = NULL, *fresh = NULL;
        assert_int_equal(rb_plan_create(ctx, f, modes[m], w, h, ch, &p), RB_OK);
        assert_int_equal(rb_execute(p, &Im, &A), RB_OK);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(rb_execute(p, &Im, &B), RB_OK);
            assert_memory_equal(a, b, sizeof a);
        }
        assert_int_equal(rb_execute_weighted(p, &Im, &weights, &A), RB_OK);
        assert_int_equal(rb_plan_create(ctx, f, modes[m], w, h, ch, &fresh), RB_OK);
        assert_int_equal(rb_execute_weighted(fresh, &Im, &weights, &B), RB_OK);
        assert_memory_equal(a, b, sizeof a);
        rb_plan_destroy(p);
        rb_plan_destroy(fresh);
    }
    printf("  a plan executed again (NaN, then weights) gives the same bits as a fresh one\n");
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

int main(void)
{
    tu_seed("test_missing_data");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_reference), cmocka_unit_test(test_box),
        cmocka_unit_test(test_issue_example),     cmocka_unit_test(test_all_nan),
        cmocka_unit_test(test_negative_lobes),    cmocka_unit_test(test_deblur_refuses),
        cmocka_unit_test(test_infinities),        cmocka_unit_test(test_straight_alpha),
        cmocka_unit_test(test_no_data_in_reach),  cmocka_unit_test(test_mask_against_reference),
        cmocka_unit_test(test_mask_formats),      cmocka_unit_test(test_mask_alpha),
        cmocka_unit_test(test_mask_box),          cmocka_unit_test(test_mask_errors),
        cmocka_unit_test(test_plan_cache_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
