/* The CPU sweep (cpu_sweep.c) with what kept it off before: linear light on
 * sRGB images and straight alpha, decoded in the sweep's own loads and encoded
 * through a staged band of float rows, and a progress callback. Each case runs
 * the sweep and the general line route (RECBLUR_CPU_NO_SWEEP, which converts
 * the whole image in pixel_convert.c) on the same input: 8- and 16-bit codes
 * may differ by one step where a value lies within rounding of a step's edge
 * (the two routes sum in different orders), float by float rounding.
 * Progress reports must be in order, within [0, 1] and end at 1.0; a cancel
 * must leave the output either untouched (RB_ERR_CANCELLED) or whole (RB_OK,
 * a cancel after the sweep's first output row), never half written.
 * Fresh seed per run (printed); RB_TEST_SEED reproduces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cpu_sweep.h"
#include "test_util.h"

#define POISON 0x5A

static rb_context *ctx;

static int setup(void **state)
{
    (void)state;
    tu_seed("test_sweep_convert");
    if (rb_context_create(&ctx) != RB_OK)
        return -1;
    rb_context_set_threads(ctx, 2);
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rb_context_destroy(ctx);
    return 0;
}

static size_t sample_size(rb_format f) { return f == RB_U8 ? 1 : f == RB_U16 ? 2 : sizeof(float); }

/* Random samples; with alpha, the last channel has exact 0s and 1s among
 * random values (alpha 0: colour 0 after premultiplication, un-premultiplied
 * to 0). Float colours in [0, 1], as images have them. */
static void fill(void *data, rb_format fmt, int w, int h, int ch, int alpha)
{
    const size_t n = (size_t)w * h * ch;
    for (size_t i = 0; i < n; i++) {
        double v = tu_uniform();
        if (alpha && (int)(i % (size_t)ch) == ch - 1) {
            double r = tu_uniform();
            v = r < 0.1 ? 0.0 : r < 0.2 ? 1.0 : v;
        }
        if (fmt == RB_U8)
            ((uint8_t *)data)[i] = (uint8_t)(v * 255.0 + 0.5);
        else if (fmt == RB_U16)
            ((uint16_t *)data)[i] = (uint16_t)(v * 65535.0 + 0.5);
        else
            ((float *)data)[i] = (float)v;
    }
}

typedef struct {
    int lin, straight;
    rb_boundary boundary;
} conv_case;

/* Largest difference of two outputs: in steps of the format, or for float
 * relative to 1 + |value| (straight alpha divides by alpha: float rounding
 * of colour and alpha grows by 1/alpha where alpha is small). */
static double max_diff(const void *a, const void *b, rb_format fmt, size_t n, const void *alpha_src,
                       int ch, int straight)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double x = tu_sample(a, fmt, i), y = tu_sample(b, fmt, i);
        double d = fabs(x - y);
        if (fmt == RB_F32) {
            double scale = 1.0 + fabs(y);
            if (straight && (int)(i % (size_t)ch) != ch - 1) {
                double al = fabs(tu_sample(alpha_src, fmt, i - i % (size_t)ch + (size_t)ch - 1));
                scale *= al > 1e-3 ? 1.0 / al : 1e3;
            }
            d /= scale;
        }
        if (!(d <= worst))
            worst = d == d ? d : 1e30;
    }
    return worst;
}

/* One case through the sweep and through the general route; in_place: the
 * sweep filters the image in place (the general route out of place). */
static void run_case(const conv_case *cc, rb_format fmt, int w, int h, int ch, int in_place,
                     double *worst, const char *label)
{
    rb_filter *f = NULL;
    rb_plan *p = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 3.0 + 5.0 * tu_uniform(), 2.0 + 6.0 * tu_uniform(),
                                        RB_GAUSSIAN_DEFAULT, &f),
                     RB_OK);
    assert_int_equal(rb_plan_create(ctx, f, cc->boundary, w, h, ch, &p), RB_OK);
    assert_int_equal(rb_plan_set_linear_light(p, cc->lin), RB_OK);
    const size_t n = (size_t)w * h * ch, bytes = n * sample_size(fmt);
    unsigned char *in = malloc(bytes), *sweep = malloc(bytes), *general = malloc(bytes);
    assert_non_null(in);
    assert_non_null(sweep);
    assert_non_null(general);
    fill(in, fmt, w, h, ch, cc->straight);
    rb_image In = tu_image(w, h, ch, fmt, 0, in, RB_MEMORY_HOST);
    In.srgb = 1;
    In.alpha = cc->straight ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE;
    rb_image S = In, G = In;
    S.data = sweep;
    G.data = general;
    memset(general, POISON, bytes);
    if (in_place)
        memcpy(sweep, in, bytes);
    else
        memset(sweep, POISON, bytes);
    rb_image Sin = in_place ? S : In;
    if (!rb_cpu_sweep_ok(p, &Sin, &S))
        fail_msg("%s: the sweep refused the case", label);

    tu_progress probe;
    rb_context_set_progress(ctx, tu_progress_report, &probe);
    tu_progress_start(&probe, 1 << 30);
    if (rb_execute(p, &Sin, &S) != RB_OK)
        fail_msg("%s: sweep: %s", label, rb_context_error(ctx));
    if (probe.out_of_order || probe.calls < 2 || probe.last != 1.0)
        fail_msg("%s: sweep progress: %d reports, last %g, %s", label, probe.calls, probe.last,
                 probe.out_of_order ? "out of order or outside [0, 1]" : "in order");
    rb_context_set_progress(ctx, NULL, NULL);

    rb_switch_set(ctx, "RECBLUR_CPU_NO_SWEEP", "1");
    rb_status s = rb_execute(p, &In, &G);
    rb_switch_set(ctx, "RECBLUR_CPU_NO_SWEEP", NULL);
    if (s != RB_OK)
        fail_msg("%s: general route: %s", label, rb_context_error(ctx));

    double d = max_diff(sweep, general, fmt, n, general, ch, cc->straight);
    const double tol = fmt == RB_F32 ? 2e-5 : 1.0;
    if (!(d <= tol))
        fail_msg("%s: sweep and general route differ by %g (%s)", label, d,
                 fmt == RB_F32 ? "relative" : "steps");
    if (d > *worst)
        *worst = d;
    free(in);
    free(sweep);
    free(general);
    rb_plan_destroy(p);
    rb_filter_destroy(f);
}

static void test_sweep_matches_general_route(void **state)
{
    (void)state;
    static const rb_format fmts[] = {RB_U8, RB_U16, RB_F32};
    static const char *const fname[] = {"u8", "u16", "f32"};
    /* 3 bands of 64 rows and a short one; odd widths: pixels straddle the
     * sweep's 8-lane groups */
    static const int sizes[][2] = {{67, 45}, {131, 150}, {5, 211}};
    const conv_case cases[] = {
        {1, 0, {RB_BOUNDARY_CLAMP, 0}},    {0, 1, {RB_BOUNDARY_CLAMP, 0}},
        {1, 1, {RB_BOUNDARY_CLAMP, 0}},    {1, 1, {RB_BOUNDARY_CONSTANT, 0.3f}},
        {1, 1, {RB_BOUNDARY_ZERO, 0}},     {1, 0, {RB_BOUNDARY_CONSTANT, 0.7f}},
    };
    double worst[3] = {0, 0, 0};
    int runs = 0;
    for (int fi = 0; fi < 3; fi++)
        for (int ch = 1; ch <= 4; ch++)
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
                for (int si = 0; si < 3; si++) {
                    const conv_case *cc = &cases[c];
                    if (cc->straight && ch < 2)
                        continue;
                    char label[160];
                    for (int in_place = 0; in_place < 2; in_place++) {
                        snprintf(label, sizeof label, "%s %dx%dx%d%s%s %s%s", fname[fi], sizes[si][0],
                                 sizes[si][1], ch, cc->lin ? " linear-light" : "",
                                 cc->straight ? " straight-alpha" : "",
                                 rb_boundary_name(cc->boundary.mode), in_place ? " in place" : "");
                        run_case(cc, fmts[fi], sizes[si][0], sizes[si][1], ch, in_place, &worst[fi],
                                 label);
                        runs++;
                    }
                }
    printf("  %d cases: sweep vs general route at most %g steps (u8), %g steps (u16), %.3g "
           "relative (f32)\n",
           runs, worst[0], worst[1], worst[2]);
}

/* Cancel at every report in turn: each call either comes back cancelled with
 * the output untouched, or whole and equal to an uncancelled run. The first
 * reports (before the first output row) must cancel; the last must not. */
static void test_cancel_never_half_written(void **state)
{
    (void)state;
    const int w = 93, h = 301, ch = 4;
    rb_filter *f = NULL;
    rb_plan *p = NULL;
    assert_int_equal(rb_filter_gaussian(ctx, 7.0, 7.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &p), RB_OK);
    assert_int_equal(rb_plan_set_linear_light(p, 1), RB_OK);
    const size_t n = (size_t)w * h * ch;
    uint8_t *in = malloc(n), *full = malloc(n), *out = malloc(n);
    assert_non_null(in);
    assert_non_null(full);
    assert_non_null(out);
    fill(in, RB_U8, w, h, ch, 1);
    rb_image In = tu_image(w, h, ch, RB_U8, 0, in, RB_MEMORY_HOST);
    In.srgb = 1;
    In.alpha = RB_ALPHA_STRAIGHT;
    rb_image O = In;
    O.data = full;
    assert_true(rb_cpu_sweep_ok(p, &In, &O));
    tu_progress probe;
    rb_context_set_progress(ctx, tu_progress_report, &probe);
    tu_progress_start(&probe, 1 << 30);
    assert_int_equal(rb_execute(p, &In, &O), RB_OK);
    const int calls = probe.calls;
    assert_true(calls >= 4);
    int cancelled = 0, finished = 0;
    O.data = out;
    for (int k = 1; k <= calls; k++) {
        memset(out, POISON, n);
        tu_progress_start(&probe, k);
        rb_status s = rb_execute(p, &In, &O);
        if (probe.out_of_order)
            fail_msg("cancel at report %d: reports out of order", k);
        if (s == RB_ERR_CANCELLED) {
            for (size_t i = 0; i < n; i++)
                if (out[i] != POISON)
                    fail_msg("cancel at report %d: cancelled, but output byte %zu written", k, i);
            if (finished)
                fail_msg("cancel at report %d honoured after a later report was not", k);
            cancelled++;
        } else {
            assert_int_equal(s, RB_OK);
            if (memcmp(out, full, n))
                fail_msg("cancel at report %d: RB_OK, but the output is not the whole result", k);
            finished++;
        }
    }
    rb_context_set_progress(ctx, NULL, NULL);
    printf("  %d reports: a cancel at the first %d leaves the output untouched, at the last %d "
           "the call finishes\n",
           calls, cancelled, finished);
    assert_true(cancelled >= 2);
    assert_true(finished >= 1);
    free(in);
    free(full);
    free(out);
    rb_plan_destroy(p);
    rb_filter_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_matches_general_route),
        cmocka_unit_test(test_cancel_never_half_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
