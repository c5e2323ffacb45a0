/* The quadrant deblur filter's CPU back end against an independent float64
 * direct evaluation of its defining recursion (recblur_deblur.h), on random
 * stable coefficient sets, odd sizes, every boundary, several thread counts;
 * and the stability check / argument errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_main.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recblur.h"
#include "recblur_deblur.h"
#include "test_util.h"
#include "deblur_reference.h"

typedef struct {
    int m, w, h, ch;
} case_t;

static void run_case(const case_t *cs, rb_boundary bd, int threads, double *worst)
{
    int m = cs->m, w = cs->w, h = cs->h, ch = cs->ch;
    double *a[4], *b[4];
    for (int q = 0; q < 4; q++) {
        a[q] = malloc(sizeof(double) * m * m);
        b[q] = malloc(sizeof(double) * m * m);
        dr_random_quadrant(m, dr_gain_for(m), 0, a[q], b[q]);
    }
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_context_set_threads(ctx, threads);
    rb_deblur_filter *f;
    rb_status st = rb_deblur_filter_create(ctx, m, (const double *const *)a, (const double *const *)b, &f);
    if (st != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
    rb_deblur_plan *p;
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, w, h, ch, &p), RB_OK);
    size_t n = (size_t)w * h * ch;
    double *in = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n),
           *scale = malloc(sizeof(double) * n);
    float *fin = malloc(sizeof(float) * n), *fout = malloc(sizeof(float) * n);
    for (size_t k = 0; k < n; k++)
        fin[k] = (float)tu_uniform(), in[k] = fin[k];
    rb_image src = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, fin};
    rb_image dst = src;
    dst.data = fout;
    st = rb_deblur_execute(p, &src, &dst);
    if (st != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
    int P = rb_deblur_plan_margin(p);
    if (bd.mode == RB_BOUNDARY_ZERO || bd.mode == RB_BOUNDARY_NONE)
        assert_int_equal(P, 0);
    dr_reference(m, a, b, bd, P, in, ref, w, h, ch);
    dr_error_scale(m, a, b, bd, P, in, scale, w, h, ch);
    double e = dr_rel_rms(fout, ref, scale, n);
    if (e > *worst)
        *worst = e;
    if (e > 1e-5)
        fail_msg("m=%d %dx%dx%d boundary %s threads %d margin %d: rel RMS %g > 1e-5", m, w, h, ch,
                 rb_boundary_name(bd.mode), threads, P, e);
    /* The margin is long enough: a reference with a 3x longer one agrees too. */
    if (P > 0 && m <= 8) {
        dr_reference(m, a, b, bd, 3 * P + 5, in, ref, w, h, ch);
        double e2 = dr_rel_rms(fout, ref, scale, n);
        if (e2 > 1e-5)
            fail_msg("m=%d boundary %s: margin %d too short: rel RMS %g against margin %d", m,
                     rb_boundary_name(bd.mode), P, e2, 3 * P + 5);
    }
    /* in == out gives the same pixels. */
    float *copy = malloc(sizeof(float) * n);
    memcpy(copy, fin, sizeof(float) * n);
    src.data = copy;
    dst.data = copy;
    assert_int_equal(rb_deblur_execute(p, &src, &dst), RB_OK);
    assert_memory_equal(copy, fout, sizeof(float) * n);
    free(copy);
    free(in), free(ref), free(scale), free(fin), free(fout);
    rb_deblur_plan_destroy(p);
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
    for (int q = 0; q < 4; q++)
        free(a[q]), free(b[q]);
}

static void test_random_against_reference(void **state)
{
    (void)state;
    const case_t cases[] = {
        {2, 13, 9, 1},  {3, 31, 17, 2}, {5, 23, 41, 1}, {8, 67, 45, 3}, {2, 1, 1, 1},
        {3, 1, 19, 1},  {4, 21, 1, 1},  {13, 37, 29, 1}, {31, 45, 39, 1},
    };
    const rb_boundary bds[] = {
        {RB_BOUNDARY_ZERO, 0},     {RB_BOUNDARY_NONE, 0},   {RB_BOUNDARY_CONSTANT, 0.3f},
        {RB_BOUNDARY_CLAMP, 0},    {RB_BOUNDARY_MIRROR, 0}, {RB_BOUNDARY_PERIODIC, 0},
    };
    const int threads[] = {1, 2, 3, 7};
    double worst = 0;
    int k = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (size_t bi = 0; bi < sizeof bds / sizeof *bds; bi++, k++) {
            if (cases[c].m == 31 && bi % 2)
                continue;  /* the biggest window: half the boundaries keep the suite quick */
            run_case(&cases[c], bds[bi], threads[k % 4], &worst);
        }
    printf("deblur CPU vs float64 reference: worst rel RMS %.3g\n", worst);
}

/* Thread count does not change a single bit (each pixel is computed by the
 * same operations whichever thread owns its strip). */
static void test_threads_bitwise(void **state)
{
    (void)state;
    const int m = 6, w = 301, h = 77;
    double *a[4], *b[4];
    for (int q = 0; q < 4; q++) {
        a[q] = malloc(sizeof(double) * m * m);
        b[q] = malloc(sizeof(double) * m * m);
        dr_random_quadrant(m, dr_gain_for(m), 0, a[q], b[q]);
    }
    float *in = malloc(sizeof(float) * w * h), *o1 = malloc(sizeof(float) * w * h),
          *o2 = malloc(sizeof(float) * w * h);
    for (int k = 0; k < w * h; k++)
        in[k] = (float)tu_uniform();
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    for (int t = 1; t <= 8; t++) {
        rb_context *ctx;
        rb_context_create(&ctx);
        rb_context_set_threads(ctx, t);
        rb_deblur_filter *f;
        assert_int_equal(rb_deblur_filter_create(ctx, m, (const double *const *)a,
                                                 (const double *const *)b, &f), RB_OK);
        rb_deblur_plan *p;
        assert_int_equal(rb_deblur_plan_create(ctx, f, bd, w, h, 1, &p), RB_OK);
        rb_image src = {w, h, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
        rb_image dst = src;
        dst.data = t == 1 ? o1 : o2;
        assert_int_equal(rb_deblur_execute(p, &src, &dst), RB_OK);
        if (t > 1)
            assert_memory_equal(o1, o2, sizeof(float) * w * h);
        rb_deblur_plan_destroy(p);
        rb_deblur_filter_destroy(f);
        rb_context_destroy(ctx);
    }
    free(in), free(o1), free(o2);
    for (int q = 0; q < 4; q++)
        free(a[q]), free(b[q]);
}

static rb_status make(rb_context *ctx, int m, double b10, double b01, double b11, double nan_a,
                      rb_deblur_filter **f)
{
    double a[4][16] = {{0}}, b[4][16] = {{0}};
    const double *pa[4], *pb[4];
    for (int q = 0; q < 4; q++) {
        a[q][0] = 0.25 + nan_a;
        b[q][1 * m + 0] = b10;
        b[q][0 * m + 1] = b01;
        b[q][1 * m + 1] = b11;
        pa[q] = a[q];
        pb[q] = b[q];
    }
    return rb_deblur_filter_create(ctx, m, pa, pb, f);
}

static void test_stability_and_errors(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    rb_deblur_filter *f = NULL;
    /* Stable by construction: (1 - 0.9 z1^-1)(1 - 0.9 z2^-1). */
    assert_int_equal(make(ctx, 3, 0.9, 0.9, -0.81, 0, &f), RB_OK);
    assert_true(rb_deblur_filter_decay(f, 0) > 50 && rb_deblur_filter_decay(f, 0) < 256);
    rb_deblur_filter_destroy(f);
    /* 1/(1 - 0.6 z1^-1 - 0.6 z2^-1): anti-diagonal sums grow like 1.2^n. */
    assert_int_equal(make(ctx, 3, 0.6, 0.6, 0, 0, &f), RB_ERR_UNSTABLE);
    assert_null(f);
    assert_non_null(strstr(rb_context_error(ctx), "unstable"));
    assert_non_null(strstr(rb_context_error(ctx), "quadrant 0"));
    /* Marginal: a diagonal pole at 1. */
    assert_int_equal(make(ctx, 2, 0, 0, 1.0, 0, &f), RB_ERR_UNSTABLE);
    /* Separable product with a pole at -1.02. */
    assert_int_equal(make(ctx, 2, -1.02, -1.02, -1.02 * 1.02, 0, &f), RB_ERR_UNSTABLE);
    assert_int_equal(make(ctx, 3, 0.1, 0.1, 0, NAN, &f), RB_ERR_NAN);
    assert_non_null(strstr(rb_context_error(ctx), "a(0,0)"));
    assert_int_equal(make(ctx, 1, 0, 0, 0, 0, &f), RB_ERR_ARGUMENT);
    assert_non_null(strstr(rb_context_error(ctx), "window 1"));
    double a0[4] = {1, 0, 0, 0}, b0[4] = {0.5, 0, 0, 0};
    const double *pa[4] = {a0, a0, a0, a0}, *pb[4] = {b0, b0, b0, b0};
    assert_int_equal(rb_deblur_filter_create(ctx, 2, pa, pb, &f), RB_ERR_ARGUMENT);
    assert_non_null(strstr(rb_context_error(ctx), "b(0,0)"));
    /* Plan errors: size, channels; execute: mismatched image. */
    assert_int_equal(make(ctx, 3, 0.3, 0.3, 0, 0, &f), RB_OK);
    rb_deblur_plan *p = NULL;
    rb_boundary bd = {RB_BOUNDARY_CLAMP, 0};
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, 0, 5, 1, &p), RB_ERR_SIZE);
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, 5, 5, 5, &p), RB_ERR_SIZE);
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, 5, 5, 1, &p), RB_OK);
    float px[36] = {0};
    rb_image src = {6, 6, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, px};
    assert_int_equal(rb_deblur_execute(p, &src, &src), RB_ERR_SIZE);
    assert_non_null(strstr(rb_context_error(ctx), "6x6"));
    rb_deblur_plan_destroy(p);
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* U8 in, U8 out: a filter that is the identity (a quarter of the centre tap in
 * each quadrant) gives the image back exactly. */
static void test_identity_u8(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    rb_deblur_filter *f;
    assert_int_equal(make(ctx, 2, 0, 0, 0, 0, &f), RB_OK);
    rb_deblur_plan *p;
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, 17, 11, 3, &p), RB_OK);
    unsigned char in[17 * 11 * 3], out[17 * 11 * 3];
    for (int k = 0; k < 17 * 11 * 3; k++)
        in[k] = (unsigned char)(tu_uniform() * 256);
    rb_image src = {17, 11, 3, 0, RB_U8, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
    rb_image dst = src;
    dst.data = out;
    assert_int_equal(rb_deblur_execute(p, &src, &dst), RB_OK);
    assert_memory_equal(in, out, sizeof in);
    rb_deblur_plan_destroy(p);
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
}

int main(void)
{
    tu_seed("test_deblur_engine");
    TU_RUN_TESTS(cmocka_unit_test(test_random_against_reference),
                 cmocka_unit_test(test_threads_bitwise),
                 cmocka_unit_test(test_stability_and_errors), cmocka_unit_test(test_identity_u8));
}
