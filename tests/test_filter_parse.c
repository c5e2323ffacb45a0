/* rb_filter_parse: the signature's meaning (checked against running the
 * signature's two recurrences literally), its mapping to the engine form,
 * and every kind of bad text. */
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

#define N 401 /* impulse at N/2; the filters below decay far below 1e-14 within 200 samples */

/* The signature's own definition, run on a zero-padded impulse:
 * causal y[i] = sum b_k x[i-k] + sum a_k y[i-k]; anticausal z[i] = sum b_k y[i+k] + sum a_k z[i+k]. */
static void literal(const double *b, int nb, const double *a, int na, rb_direction dir, double *out)
{
    double x[N] = {0}, y[N], z[N];
    x[N / 2] = 1.0;
    if (dir == RB_DIRECTION_ANTICAUSAL)
        memcpy(y, x, sizeof x);
    else
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int k = 0; k < nb; k++)
                if (i - k >= 0)
                    s += b[k] * x[i - k];
            for (int k = 1; k <= na; k++)
                if (i - k >= 0)
                    s += a[k - 1] * y[i - k];
            y[i] = s;
        }
    if (dir == RB_DIRECTION_CAUSAL)
        memcpy(z, y, sizeof y);
    else
        for (int i = N - 1; i >= 0; i--) {
            double s = 0;
            for (int k = 0; k < nb; k++)
                if (i + k < N)
                    s += b[k] * y[i + k];
            for (int k = 1; k <= na; k++)
                if (i + k < N)
                    s += a[k - 1] * z[i + k];
            z[i] = s;
        }
    memcpy(out, z, sizeof z);
}

/* The engine form (rb_axis_filter of the public API) run on the same impulse. */
static void engine_form(const rb_axis_filter *ax, double *out)
{
    double u[N] = {0}, y[N], z[N];
    if (!ax->fir)
        u[N / 2] = 1.0;
    else
        for (int k = ax->fir_lo; k <= ax->fir_hi; k++) /* u[i] = sum fir x[i+k]: impulse at i+k = N/2 */
            u[N / 2 - k] = ax->fir[k - ax->fir_lo];
    for (int i = 0; i < N; i++) {
        double s = u[i];
        for (int k = 1; k <= ax->causal_order; k++)
            if (i - k >= 0)
                s += ax->causal[k - 1] * y[i - k];
        y[i] = s;
    }
    for (int i = N - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = 1; k <= ax->anticausal_order; k++)
            if (i + k < N)
                s += ax->anticausal[k - 1] * z[i + k];
        z[i] = s;
    }
    memcpy(out, z, sizeof z);
}

static void check_meaning(const char *sig, const double *b, int nb, const double *a, int na)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    for (int dir = 0; dir < 3; dir++) {
        rb_filter *f = NULL;
        rb_status st = rb_filter_parse(ctx, sig, (rb_direction)dir, RB_AXES_BOTH, &f);
        if (st != RB_OK)
            fail_msg("%s: %s", sig, rb_context_error(ctx));
        double want[N], got[N];
        literal(b, nb, a, na, (rb_direction)dir, want);
        for (int axis = 0; axis < 2; axis++) {
            rb_axis_filter ax;
            assert_int_equal(rb_filter_get_axis(f, axis, &ax), RB_OK);
            engine_form(&ax, got);
            double err = 0, mag = 0;
            for (int i = 0; i < N; i++) {
                err = fmax(err, fabs(got[i] - want[i]));
                mag = fmax(mag, fabs(want[i]));
            }
            if (err > 1e-13 * mag)
                fail_msg("%s direction %d axis %d: engine form differs from the signature by %g", sig, dir,
                         axis, err);
        }
        assert_non_null(strstr(rb_filter_describe(f), "signature"));
        rb_filter_destroy(f);
    }
    rb_context_destroy(ctx);
}

static void test_meaning(void **state)
{
    (void)state;
    { double b[] = {0.2}, a[] = {0.8}; check_meaning("0.2: 0.8", b, 1, a, 1); }
    { double b[] = {1, 0.5}, a[] = {0.3, -0.2}; check_meaning("1, 0.5: 0.3, -0.2", b, 2, a, 2); }
    { double b[] = {1}, a[] = {0.5}; check_meaning(": 0.5", b, 1, a, 1); }
    { double b[] = {0.1, -2, 0.25}, a[] = {1.2, -0.5, 0.1}; check_meaning("  1e-1 ,-2E0,\t0.25 :  1.2,-5e-1 , 0.1 ", b, 3, a, 3); }
    { double b[] = {0.5, 0.5}, a[] = {0.5}; check_meaning("(0.5, 0.5: 0.5)", b, 2, a, 1); }
    { double b[] = {0.25, 0.5, 0.25}, a[] = {0}; check_meaning("0.25, 0.5, 0.25: 0", b, 3, a, 0); }
    {   /* order 8 with poles 0.5 e^{+-i t} four times: stable, the largest order accepted */
        double a[8], p[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
        for (int s = 0; s < 4; s++) { /* multiply by 1 - 2*0.5 cos(0.3 s + 0.2) q + 0.25 q^2 */
            double c1 = -2 * 0.5 * cos(0.3 * s + 0.2), c2 = 0.25, np[9] = {0};
            for (int i = 0; i < 9; i++) {
                np[i] += p[i];
                if (i + 1 < 9) np[i + 1] += c1 * p[i];
                if (i + 2 < 9) np[i + 2] += c2 * p[i];
            }
            memcpy(p, np, sizeof p);
        }
        char sig[512];
        int n = snprintf(sig, sizeof sig, "0.3:");
        for (int k = 0; k < 8; k++) {
            a[k] = -p[k + 1];
            n += snprintf(sig + n, sizeof sig - (size_t)n, "%s%.17g", k ? ", " : " ", a[k]);
        }
        double b[] = {0.3};
        check_meaning(sig, b, 1, a, 8);
    }
}

/* A one-direction mapping of "1, 0.5: 0.25": two FIR taps on offsets lo..lo+1
 * and the one feedback in the pass that runs. */
static void expect_one_pass(const rb_axis_filter *ax, int lo, double f0, double f1, int causal)
{
    assert_int_equal(ax->fir_lo, lo);
    assert_int_equal(ax->fir_hi, lo + 1);
    assert_true(ax->fir[0] == f0 && ax->fir[1] == f1);
    assert_int_equal(ax->causal_order, causal ? 1 : 0);
    assert_int_equal(ax->anticausal_order, causal ? 0 : 1);
}

static void test_mapping(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_filter *f;
    rb_axis_filter ax;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    /* both directions: c = b * reverse(b), symmetric, and the same a both ways */
    assert_int_equal(rb_filter_parse(ctx, "1, 0.5: 0.25", RB_DIRECTION_BOTH, RB_AXES_X, &f), RB_OK);
    assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
    assert_int_equal(ax.fir_lo, -1);
    assert_int_equal(ax.fir_hi, 1);
    assert_true(ax.fir[0] == 0.5 && ax.fir[1] == 1.25 && ax.fir[2] == 0.5);
    assert_int_equal(ax.causal_order, 1);
    assert_int_equal(ax.anticausal_order, 1);
    assert_true(ax.causal[0] == 0.25 && ax.anticausal[0] == 0.25);
    assert_int_equal(rb_filter_get_axis(f, 1, &ax), RB_OK); /* y untouched */
    assert_null(ax.fir);
    assert_int_equal(ax.causal_order + ax.anticausal_order, 0);
    assert_true(f->axis[0].symmetric);
    rb_filter_destroy(f);
    /* causal only: offsets -(nb-1)..0, anticausal order 0; y axis only */
    assert_int_equal(rb_filter_parse(ctx, "1, 0.5: 0.25", RB_DIRECTION_CAUSAL, RB_AXES_Y, &f), RB_OK);
    assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
    assert_false(f->axis[0].active);
    assert_int_equal(rb_filter_get_axis(f, 1, &ax), RB_OK);
    expect_one_pass(&ax, -1, 0.5, 1.0, 1);
    rb_filter_destroy(f);
    /* anticausal only: offsets 0..nb-1 */
    assert_int_equal(rb_filter_parse(ctx, "1, 0.5: 0.25", RB_DIRECTION_ANTICAUSAL, RB_AXES_BOTH, &f), RB_OK);
    assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
    expect_one_pass(&ax, 0, 1.0, 0.5, 0);
    rb_filter_destroy(f);
    /* empty b: no FIR at all; trailing zero feedbacks dropped */
    assert_int_equal(rb_filter_parse(ctx, ": 0.5, 0, 0", RB_DIRECTION_BOTH, RB_AXES_BOTH, &f), RB_OK);
    assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
    assert_null(ax.fir);
    assert_int_equal(ax.causal_order, 1);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

static void expect_error(const char *sig, rb_status want, const char *must_contain)
{
    rb_context *ctx;
    rb_filter *f = (rb_filter *)&f; /* must be reset to NULL */
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_status st = rb_filter_parse(ctx, sig, RB_DIRECTION_BOTH, RB_AXES_BOTH, &f);
    if (st != want)
        fail_msg("\"%s\": status %d (%s), wanted %d; message: %s", sig, st, rb_status_string(st), want,
                 rb_context_error(ctx));
    assert_null(f);
    const char *msg = rb_context_error(ctx);
    assert_non_null(strstr(msg, "recblur: "));
    if (must_contain && !strstr(msg, must_contain))
        fail_msg("\"%s\": message \"%s\" lacks \"%s\"", sig, msg, must_contain);
    rb_context_destroy(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("", RB_ERR_PARSE, "empty");
    expect_error("   \t", RB_ERR_PARSE, "empty");
    expect_error("0.5", RB_ERR_PARSE, "missing ':'");
    expect_error("0.2,,0.3: 0.5", RB_ERR_PARSE, "column 5");
    expect_error("0.2, 0.3: 0.5 junk", RB_ERR_PARSE, "unexpected 'j'");
    expect_error("0.2: 0.5,", RB_ERR_PARSE, "missing number");
    expect_error("0.2:", RB_ERR_PARSE, "no a coefficients");
    expect_error("abc: 0.5", RB_ERR_PARSE, "\"abc\"");
    expect_error("0.2: 0.5x", RB_ERR_PARSE, "0.5x");
    expect_error("0.2: 0x1p-1", RB_ERR_PARSE, "0x1p-1");
    expect_error("1:2:3", RB_ERR_PARSE, "more than one ':'");
    expect_error("(0.2: 0.5", RB_ERR_PARSE, "parenthesis");
    expect_error("0.2: 0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1", RB_ERR_PARSE, "more than 8 a");
    expect_error("0.2: nan", RB_ERR_NAN, "not finite");
    expect_error("inf: 0.5", RB_ERR_NAN, "not finite");
    expect_error("0.2: 1e999", RB_ERR_NAN, "not finite");
    expect_error("0.2: 1.5", RB_ERR_UNSTABLE, "1.5");
    expect_error("0.2: -1", RB_ERR_UNSTABLE, "unstable");
    expect_error("1: 2, -1", RB_ERR_UNSTABLE, "unstable"); /* double pole at 1 */
    expect_error("0.2: 1.5", RB_ERR_UNSTABLE, "\"0.2: 1.5\"");
    expect_error("0, 0: 0.5", RB_ERR_ARGUMENT, "zero");
    expect_error("1: 0", RB_ERR_ARGUMENT, "identity");
    {   /* 65 b taps: too many */
        char sig[1024];
        int n = 0;
        for (int k = 0; k < 65; k++)
            n += snprintf(sig + n, sizeof sig - (size_t)n, "%s0.01", k ? "," : "");
        snprintf(sig + n, sizeof sig - (size_t)n, ": 0.5");
        expect_error(sig, RB_ERR_PARSE, "more than 64 b");
    }
    /* NULL arguments */
    rb_filter *f;
    assert_int_equal(rb_filter_parse(NULL, NULL, RB_DIRECTION_BOTH, RB_AXES_BOTH, &f), RB_ERR_NULL);
    assert_int_equal(rb_filter_parse(NULL, "0.2: 0.5", RB_DIRECTION_BOTH, RB_AXES_BOTH, NULL), RB_ERR_NULL);
    assert_int_equal(rb_filter_parse(NULL, "0.2: 0.5", (rb_direction)7, RB_AXES_BOTH, &f), RB_ERR_ARGUMENT);
}

int main(void)
{
    TU_RUN_TESTS(cmocka_unit_test(test_meaning), cmocka_unit_test(test_mapping),
                 cmocka_unit_test(test_errors));
}
