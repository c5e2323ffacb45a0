/* rb_filter_bspline: the prefilter inverts the sampled B-spline.
 * 1. In double, per axis: the axis impulse response convolved with the
 *    sampled B-spline kernel is a unit impulse (to 1e-13).
 * 2. Through rb_execute (mirror and periodic): prefilter a random image, then
 *    apply the B-spline FIR (1,4,1)/6 or (1,26,66,26,1)/120 in double with the
 *    same extension; this must give the input back (<= 1e-5 relative). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_main.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_internal.h"

#define L 200 /* half length of the impulse response window: |z1|^200 < 1e-100 */

static void axis_impulse(const rb_axis_filter *ax, double *h /* 2L+1 */)
{
    int n = 2 * L + 1;
    double *y = calloc((size_t)n, sizeof *y);
    for (int k = ax->fir_lo; k <= ax->fir_hi; k++)
        y[L - k] = ax->fir ? ax->fir[k - ax->fir_lo] : 1.0;
    for (int i = 0; i < n; i++)
        for (int k = 1; k <= ax->causal_order; k++)
            if (i - k >= 0)
                y[i] += ax->causal[k - 1] * y[i - k];
    for (int i = n - 1; i >= 0; i--)
        for (int k = 1; k <= ax->anticausal_order; k++)
            if (i + k < n)
                y[i] += ax->anticausal[k - 1] * y[i + k];
    memcpy(h, y, sizeof *y * (size_t)n);
    free(y);
}

static const double k3[] = {1 / 6.0, 4 / 6.0, 1 / 6.0};
static const double k5[] = {1 / 120.0, 26 / 120.0, 66 / 120.0, 26 / 120.0, 1 / 120.0};

static void check_inverse(int degree)
{
    rb_context *ctx;
    rb_filter *f;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_filter_bspline(ctx, degree, &f), RB_OK);
    const double *ker = degree == 3 ? k3 : k5;
    int half = degree == 3 ? 1 : 2;
    double h[2 * L + 1];
    for (int axis = 0; axis < 2; axis++) {
        rb_axis_filter ax;
        assert_int_equal(rb_filter_get_axis(f, axis, &ax), RB_OK);
        assert_int_equal(ax.causal_order, degree == 3 ? 1 : 2);
        assert_int_equal(ax.anticausal_order, ax.causal_order);
        axis_impulse(&ax, h);
        double worst = 0;
        for (int i = half; i < 2 * L + 1 - half; i++) {
            double s = 0;
            for (int k = -half; k <= half; k++)
                s += ker[k + half] * h[i - k];
            worst = fmax(worst, fabs(s - (i == L ? 1.0 : 0.0)));
        }
        if (worst > 1e-13)
            fail_msg("degree %d axis %d: prefilter * B-spline differs from a unit impulse by %g", degree, axis,
                     worst);
        assert_true(fabs(f->axis[axis].dc_gain - 1.0) < 1e-14);
    }
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

static void test_inverse_cubic(void **s) { (void)s; check_inverse(3); }
static void test_inverse_quintic(void **s) { (void)s; check_inverse(5); }

/* Index of sample i of a line of n after the boundary extension. */
static int extend(int i, int n, rb_boundary_mode mode)
{
    if (mode == RB_BOUNDARY_PERIODIC) {
        i %= n;
        return i < 0 ? i + n : i;
    }
    /* mirror: ... x1 x0 | x0 x1 ... x(n-1) | x(n-1) x(n-2) ... (period 2n) */
    int p = 2 * n;
    i %= p;
    if (i < 0)
        i += p;
    return i < n ? i : p - 1 - i;
}

static void check_roundtrip(int degree, rb_boundary_mode mode, int w, int h)
{
    rb_context *ctx;
    rb_filter *f;
    rb_plan *plan;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CPU), RB_OK);
    assert_int_equal(rb_filter_bspline(ctx, degree, &f), RB_OK);
    rb_boundary b = {mode, 0.0f};
    rb_status st = rb_plan_create(ctx, f, b, w, h, 1, &plan);
    if (st != RB_OK)
        fail_msg("rb_plan_create: %s", rb_context_error(ctx));
    float *in = malloc(sizeof(float) * (size_t)(w * h)), *coef = malloc(sizeof(float) * (size_t)(w * h));
    srand(1234 + degree + 10 * (int)mode);
    for (int i = 0; i < w * h; i++)
        in[i] = (float)rand() / (float)RAND_MAX;
    rb_image im = {w, h, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
    rb_image om = im;
    om.data = coef;
    st = rb_execute(plan, &im, &om);
    if (st != RB_OK)
        fail_msg("rb_execute: %s", rb_context_error(ctx));
    /* reconstruct: B-spline FIR over rows then columns, in double, same extension */
    const double *ker = degree == 3 ? k3 : k5;
    int half = degree == 3 ? 1 : 2;
    double *t = malloc(sizeof(double) * (size_t)(w * h));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            for (int k = -half; k <= half; k++)
                s += ker[k + half] * coef[y * w + extend(x + k, w, mode)];
            t[y * w + x] = s;
        }
    double worst = 0, mag = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            for (int k = -half; k <= half; k++)
                s += ker[k + half] * t[extend(y + k, h, mode) * w + x];
            worst = fmax(worst, fabs(s - in[y * w + x]));
            mag = fmax(mag, fabs(in[y * w + x]));
        }
    if (worst > 1e-5 * mag)
        fail_msg("degree %d %s %dx%d: reconstruction error %g (relative %g)", degree, rb_boundary_name(mode), w,
                 h, worst, worst / mag);
    free(t);
    free(in);
    free(coef);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

static void test_roundtrip(void **s)
{
    (void)s;
    const int sizes[][2] = {{37, 23}, {1, 9}, {5, 2}, {64, 64}};
    for (int d = 3; d <= 5; d += 2)
        for (int m = 0; m < 2; m++)
            for (int k = 0; k < 4; k++)
                check_roundtrip(d, m ? RB_BOUNDARY_PERIODIC : RB_BOUNDARY_MIRROR, sizes[k][0], sizes[k][1]);
}

static void test_bad_degree(void **s)
{
    (void)s;
    rb_context *ctx;
    rb_filter *f = (rb_filter *)&f;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_filter_bspline(ctx, 4, &f), RB_ERR_ARGUMENT);
    assert_null(f);
    assert_non_null(strstr(rb_context_error(ctx), "degree 4"));
    assert_int_equal(rb_filter_bspline(ctx, 3, NULL), RB_ERR_NULL);
    rb_context_destroy(ctx);
}

int main(void)
{
    TU_RUN_TESTS(cmocka_unit_test(test_inverse_cubic), cmocka_unit_test(test_inverse_quintic),
                 cmocka_unit_test(test_bad_degree), cmocka_unit_test(test_roundtrip));
}
