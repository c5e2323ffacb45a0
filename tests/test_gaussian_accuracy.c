/* rb_filter_gaussian accuracy: per axis, the L1 norm of (impulse response of
 * the axis filter on an infinite line - sampled Gaussian normalised to unit
 * sum). The impulse response is computed from the rb_axis form itself (FIR,
 * then causal, then anticausal recursion, each in long double) over a window
 * wide enough that what falls outside is below 1e-15.
 * Budgets: DEFAULT <= 1e-3, ACCURATE <= 1e-4, each up to its design's
 * double-precision limit (gaussian_design.h); above those the lower-order
 * designs are held to what they were fitted for (1e-3, 6.5e-3, 3.5e-2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_internal.h"
#include "gaussian_design.h"

typedef struct {
    double l1, dc, dc_tol;
} measure;

static measure axis_error(const rb_axis_filter *ax, double sigma)
{
    long L = (long)ceil(45.0 * sigma) + 64, n = 2 * L + 1;
    long double *y = calloc((size_t)n, sizeof *y);
    assert_non_null(y);
    double absfir = 0, sumfir = 0;
    for (int k = ax->fir_lo; k <= ax->fir_hi; k++) {
        double c = ax->fir ? ax->fir[k - ax->fir_lo] : 1.0;
        y[L - k] = c; /* u[i] = sum fir[k] x[i+k], impulse at L */
        absfir += fabs(c);
        sumfir += c;
    }
    for (long i = 0; i < n; i++)
        for (int k = 1; k <= ax->causal_order && k <= i; k++)
            y[i] += ax->causal[k - 1] * y[i - k];
    for (long i = n - 1; i >= 0; i--)
        for (int k = 1; k <= ax->anticausal_order && i + k < n; k++)
            y[i] += ax->anticausal[k - 1] * y[i + k];
    long double gs = 0, hs = 0;
    for (long i = 0; i < n; i++) {
        long double x = (long double)(i - L) / sigma;
        gs += expl(-x * x / 2);
        hs += y[i];
    }
    long double l1 = 0;
    for (long i = 0; i < n; i++) {
        long double x = (long double)(i - L) / sigma;
        l1 += fabsl(y[i] - expl(-x * x / 2) / gs);
    }
    /* tails of the window must be negligible, or the window was too short */
    assert_true(fabsl(y[0]) < 1e-15 && fabsl(y[n - 1]) < 1e-15);
    free(y);
    measure m = {(double)l1, (double)hs, 0};
    /* "DC gain exactly 1": to the resolution the taps allow, since the taps of a
     * wide filter are far larger than their sum (1 + sum d)^2 */
    m.dc_tol = 1e-12 + 16 * DBL_EPSILON * absfir / fabs(sumfir);
    return m;
}

static measure check(double sigma, rb_gaussian_quality q, int verbose)
{
    rb_context *ctx;
    rb_filter *f;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_status st = rb_filter_gaussian(ctx, sigma, sigma, q, &f);
    if (st != RB_OK)
        fail_msg("sigma %g: %s", sigma, rb_context_error(ctx));
    rb_axis_filter ax, ay;
    assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
    assert_int_equal(rb_filter_get_axis(f, 1, &ay), RB_OK);
    /* both axes identical */
    assert_int_equal(ax.fir_hi - ax.fir_lo, ay.fir_hi - ay.fir_lo);
    assert_int_equal(ax.causal_order, ay.causal_order);
    /* stable, symmetric pair */
    double pole;
    assert_true(rb_feedback_is_stable(f->axis[0].dc, f->axis[0].causal_order, &pole));
    assert_true(pole < 1.0);
    assert_int_equal(ax.causal_order, ax.anticausal_order);
    assert_true(f->axis[0].symmetric);
    measure m = axis_error(&ax, sigma);
    int accurate = q == RB_GAUSSIAN_ACCURATE && sigma < RB_GAUSSIAN_ACCURATE_MAX_SIGMA;
    double budget = accurate ? 1e-4 : sigma < RB_GAUSSIAN_ORDER4_MAX_SIGMA ? 1e-3
                                    : sigma < RB_GAUSSIAN_ORDER3_MAX_SIGMA ? 6.5e-3 : 3.5e-2;
    if (verbose)
        printf("  %-8s sigma %8.3f  L1 %.3e  |dc-1| %.1e (tol %.1e)  %s\n",
               q == RB_GAUSSIAN_ACCURATE ? "accurate" : "default", sigma, m.l1, fabs(m.dc - 1), m.dc_tol,
               rb_filter_describe(f));
    if (!(m.l1 <= budget))
        fail_msg("%s sigma %g: L1 error %.3e above %.0e (%s)", q ? "accurate" : "default", sigma, m.l1, budget,
                 rb_filter_describe(f));
    if (!(fabs(m.dc - 1) <= m.dc_tol))
        fail_msg("sigma %g: DC gain %.17g", sigma, m.dc);
    if (q == RB_GAUSSIAN_ACCURATE && !accurate && sigma < RB_GAUSSIAN_ORDER4_MAX_SIGMA)
        assert_non_null(strstr(rb_filter_describe(f), "accurate not reachable"));
    if (sigma >= RB_GAUSSIAN_ORDER4_MAX_SIGMA)
        assert_non_null(strstr(rb_filter_describe(f), "order reduced"));
    assert_non_null(strstr(rb_filter_describe(f), "gaussian"));
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    return m;
}

static const double listed[] = {0.5, 0.8, 1, 2, 3, 5, 10, 50, 200, 1000, 2000, 5000, 30000, 100000};

static void test_listed_default(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
        check(listed[i], RB_GAUSSIAN_DEFAULT, 1);
}

static void test_listed_accurate(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
        check(listed[i], RB_GAUSSIAN_ACCURATE, 1);
}

/* fine sweeps across every switch point of both modes */
static void test_sweep(void **s)
{
    (void)s;
    const double sw[] = {RB_GAUSSIAN_DEFAULT_FIR_BELOW, RB_GAUSSIAN_DEFAULT_WARP_FROM,
                         RB_GAUSSIAN_ACCURATE_FIR_BELOW,
                         RB_GAUSSIAN_ACCURATE_MAX_SIGMA, RB_GAUSSIAN_ORDER4_MAX_SIGMA,
                         RB_GAUSSIAN_ORDER3_MAX_SIGMA};
    for (int q = 0; q < 2; q++) {
        for (double sg = 0.5; sg <= 12.0; sg += 0.05)
            check(sg, (rb_gaussian_quality)q, 0);
        for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++)
            if (sw[i] < 1e5)
                for (double t = -0.1; t <= 0.1001; t += 0.01)
                    check(sw[i] * (1 + t), (rb_gaussian_quality)q, 0);
        for (double sg = 12; sg <= 2000; sg *= 1.13)
            check(sg, (rb_gaussian_quality)q, 0);
        if (q == 0) /* the reduced orders are shared by both modes */
            for (double sg = 2000; sg <= 1e5; sg *= 1.7)
                check(sg, (rb_gaussian_quality)q, 0);
    }
}

static void test_separate_sigmas(void **s)
{
    (void)s;
    rb_context *ctx;
    rb_filter *f;
    rb_axis_filter ax;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_filter_gaussian(ctx, 1.5, 40.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
    assert_true(axis_error(&ax, 1.5).l1 <= 1e-3);
    assert_true(axis_error(&ax, 40.0).l1 > 0.5); /* not the other axis' filter */
    assert_int_equal(rb_filter_get_axis(f, 1, &ax), RB_OK);
    assert_true(axis_error(&ax, 40.0).l1 <= 1e-3);
    assert_non_null(strstr(rb_filter_describe(f), "sigma-x=1.5"));
    rb_filter_destroy(f);
    /* sigma 0 leaves an axis unfiltered */
    assert_int_equal(rb_filter_gaussian(ctx, 0.0, 7.0, RB_GAUSSIAN_ACCURATE, &f), RB_OK);
    assert_false(f->axis[0].active);
    assert_true(f->axis[1].active);
    rb_filter_destroy(f);
    assert_int_equal(rb_filter_gaussian(ctx, 100000.0, 0.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    assert_true(f->axis[0].active && !f->axis[1].active);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* The designs through rb_execute on the CPU back end: an impulse on a 1-row
 * image with zero boundary (exact for the infinite line) must meet the same
 * budgets, plus float32 output rounding. */
static void test_through_engine(void **s)
{
    (void)s;
    const double sig[] = {1, 3, 25, 99, 1000};
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CPU), RB_OK);
    for (int q = 0; q < 2; q++)
        for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++) {
            double sg = sig[i];
            int n = 2 * (int)(13 * sg) + 41;
            rb_filter *f;
            rb_plan *plan;
            assert_int_equal(rb_filter_gaussian(ctx, sg, 0, (rb_gaussian_quality)q, &f), RB_OK);
            rb_boundary b = {RB_BOUNDARY_ZERO, 0.0f};
            if (rb_plan_create(ctx, f, b, n, 1, 1, &plan) != RB_OK)
                fail_msg("plan: %s", rb_context_error(ctx));
            float *in = calloc((size_t)n, sizeof *in), *out = calloc((size_t)n, sizeof *out);
            in[n / 2] = 1.0f;
            rb_image im = {n, 1, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in}, om = im;
            om.data = out;
            if (rb_execute(plan, &im, &om) != RB_OK)
                fail_msg("execute: %s", rb_context_error(ctx));
            double gs = 0, l1 = 0;
            for (int k = 0; k < n; k++)
                gs += exp(-0.5 * ((k - n / 2) / sg) * ((k - n / 2) / sg));
            for (int k = 0; k < n; k++)
                l1 += fabs(out[k] - exp(-0.5 * ((k - n / 2) / sg) * ((k - n / 2) / sg)) / gs);
            double budget = (q && sg < RB_GAUSSIAN_ACCURATE_MAX_SIGMA) ? 1e-4 : 1e-3;
            printf("  engine %-8s sigma %6g  L1 %.3e  (%s)\n", q ? "accurate" : "default", sg, l1,
                   rb_plan_backend_name(plan));
            if (!(l1 <= budget + 1e-6))
                fail_msg("sigma %g quality %d through rb_execute: L1 %.3e", sg, q, l1);
            free(in);
            free(out);
            rb_plan_destroy(plan);
            rb_filter_destroy(f);
        }
    rb_context_destroy(ctx);
}

static void test_bad_sigma(void **s)
{
    (void)s;
    rb_context *ctx;
    rb_filter *f = (rb_filter *)&f;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_filter_gaussian(ctx, 0.3, 1, RB_GAUSSIAN_DEFAULT, &f), RB_ERR_ARGUMENT);
    assert_null(f);
    assert_non_null(strstr(rb_context_error(ctx), "0.3"));
    assert_int_equal(rb_filter_gaussian(ctx, 1, -2, RB_GAUSSIAN_DEFAULT, &f), RB_ERR_ARGUMENT);
    assert_non_null(strstr(rb_context_error(ctx), "sigma-y"));
    assert_int_equal(rb_filter_gaussian(ctx, NAN, 1, RB_GAUSSIAN_DEFAULT, &f), RB_ERR_NAN);
    assert_int_equal(rb_filter_gaussian(ctx, 1, INFINITY, RB_GAUSSIAN_DEFAULT, &f), RB_ERR_NAN);
    assert_int_equal(rb_filter_gaussian(ctx, 2e5, 1, RB_GAUSSIAN_DEFAULT, &f), RB_ERR_ARGUMENT);
    assert_int_equal(rb_filter_gaussian(ctx, 0, 0, RB_GAUSSIAN_DEFAULT, &f), RB_ERR_ARGUMENT);
    assert_int_equal(rb_filter_gaussian(ctx, 1, 1, (rb_gaussian_quality)9, &f), RB_ERR_ARGUMENT);
    assert_int_equal(rb_filter_gaussian(ctx, 1, 1, RB_GAUSSIAN_DEFAULT, NULL), RB_ERR_NULL);
    rb_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_sigma),
        cmocka_unit_test(test_separate_sigmas),
        cmocka_unit_test(test_listed_default),
        cmocka_unit_test(test_listed_accurate),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_through_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
