/* The engine's front door: every bad input gets its status and a message and
 * leaves the output untouched; formats, strides, in-place, alpha, sRGB, sizes,
 * threads, progress/cancel, 1D recurrences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "rb_internal.h" /* rb_feedback_is_stable, clearing the context message */
#include "reference.h"
#include "test_util.h"

#define POISON 0xA5

static rb_context *ctx;
static rb_filter *blur; /* symmetric order-2 on both axes, unit DC gain */
static double fir_gain[1];
static rb_axis_filter blur_axis;

static int setup(void **state)
{
    (void)state;
    if (rb_context_create(&ctx) != RB_OK)
        return -1;
    double p = 0.7;
    blur_axis.causal_order = blur_axis.anticausal_order = 2;
    blur_axis.causal[0] = blur_axis.anticausal[0] = 2 * p;
    blur_axis.causal[1] = blur_axis.anticausal[1] = -p * p;
    fir_gain[0] = pow(1 - p, 4);
    blur_axis.fir = fir_gain;
    return rb_filter_create(ctx, &blur_axis, &blur_axis, &blur) == RB_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rb_filter_destroy(blur);
    rb_context_destroy(ctx);
    return 0;
}

static void expect_error(rb_status got, rb_status want, const char *what)
{
    if (got != want)
        fail_msg("%s: status %d (%s), expected %d (%s); message: %s", what, got,
                 rb_status_string(got), want, rb_status_string(want), rb_context_error(ctx));
    if (!rb_context_error(ctx)[0])
        fail_msg("%s: no error message", what);
    printf("  %-40s -> %s\n", what, rb_context_error(ctx));
    ctx->error[0] = 0;
}

static int all_poisoned(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != POISON)
            return 0;
    return 1;
}

static void test_status_strings(void **state)
{
    (void)state;
    for (int s = RB_OK; s <= RB_ERR_CANCELLED; s++) {
        const char *t = rb_status_string((rb_status)s);
        assert_non_null(t);
        assert_true(strlen(t) > 0);
        for (int u = RB_OK; u < s; u++)
            assert_string_not_equal(t, rb_status_string((rb_status)u));
    }
}

static void test_plan_errors(void **state)
{
    (void)state;
    rb_plan *p = (rb_plan *)0x1;
    rb_boundary zero = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_plan_create(NULL, blur, zero, 8, 8, 1, &p), RB_ERR_NULL);
    expect_error(rb_plan_create(ctx, NULL, zero, 8, 8, 1, &p), RB_ERR_NULL, "NULL filter");
    expect_error(rb_plan_create(ctx, blur, zero, 8, 8, 1, NULL), RB_ERR_NULL, "NULL plan pointer");
    expect_error(rb_plan_create(ctx, blur, zero, 0, 8, 1, &p), RB_ERR_SIZE, "width 0");
    expect_error(rb_plan_create(ctx, blur, zero, 8, -3, 1, &p), RB_ERR_SIZE, "height -3");
    expect_error(rb_plan_create(ctx, blur, zero, RB_MAX_SIDE + 1, 1, 1, &p), RB_ERR_SIZE, "width too large");
    expect_error(rb_plan_create(ctx, blur, zero, RB_MAX_SIDE, RB_MAX_SIDE, 1, &p), RB_ERR_SIZE,
                 "too many pixels");
    expect_error(rb_plan_create(ctx, blur, zero, 8, 8, 0, &p), RB_ERR_ARGUMENT, "0 channels");
    expect_error(rb_plan_create(ctx, blur, zero, 8, 8, 5, &p), RB_ERR_ARGUMENT, "5 channels");
    rb_boundary bad = {(rb_boundary_mode)42, 0};
    expect_error(rb_plan_create(ctx, blur, bad, 8, 8, 1, &p), RB_ERR_ARGUMENT, "unknown boundary");
    rb_boundary nanb = {RB_BOUNDARY_CONSTANT, NAN};
    expect_error(rb_plan_create(ctx, blur, nanb, 8, 8, 1, &p), RB_ERR_NAN, "NaN boundary constant");
    /* this build may or may not have CUDA; without a usable GPU the request is an error */
    char why[256];
    if (!rb_cuda_available(why, sizeof why)) {
        assert_true(strlen(why) > 0);
        assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CUDA), RB_OK);
        expect_error(rb_plan_create(ctx, blur, zero, 8, 8, 1, &p), RB_ERR_BACKEND, "cuda without GPU");
        assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_AUTO), RB_OK);
    }
    expect_error(rb_context_set_backend(ctx, (rb_backend)9), RB_ERR_ARGUMENT, "unknown back end");
    expect_error(rb_context_set_threads(ctx, -1), RB_ERR_ARGUMENT, "threads -1");
}

static void test_filter_errors(void **state)
{
    (void)state;
    rb_filter *f = NULL;
    rb_axis_filter a = {0};
    a.causal_order = 1;
    a.causal[0] = NAN;
    expect_error(rb_filter_create(ctx, &a, NULL, &f), RB_ERR_NAN, "NaN feedback");
    a.causal[0] = 1.0;
    expect_error(rb_filter_create(ctx, &a, NULL, &f), RB_ERR_UNSTABLE, "pole on the unit circle");
    a.causal[0] = -1.5;
    expect_error(rb_filter_create(ctx, NULL, &a, &f), RB_ERR_UNSTABLE, "pole -1.5");
    /* complex pair of modulus 1.01 */
    a.causal_order = 2;
    a.causal[0] = 2 * 1.01 * cos(0.3);
    a.causal[1] = -1.01 * 1.01;
    expect_error(rb_filter_create(ctx, &a, NULL, &f), RB_ERR_UNSTABLE, "complex poles |p| = 1.01");
    double maxp;
    double d[2] = {-a.causal[0], -a.causal[1]};
    assert_false(rb_feedback_is_stable(d, 2, &maxp));
    assert_true(fabs(maxp - 1.01) < 1e-9);
    d[0] = -2 * 0.99 * cos(0.3);
    d[1] = 0.99 * 0.99;
    assert_true(rb_feedback_is_stable(d, 2, &maxp));
    assert_true(fabs(maxp - 0.99) < 1e-9);
    a.causal_order = RB_MAX_ORDER + 1;
    expect_error(rb_filter_create(ctx, &a, NULL, &f), RB_ERR_ARGUMENT, "order 9");
    a.causal_order = 0;
    double taps[2] = {1, 1};
    a.fir = taps;
    a.fir_lo = 1;
    a.fir_hi = 0;
    expect_error(rb_filter_create(ctx, &a, NULL, &f), RB_ERR_ARGUMENT, "reversed FIR offsets");
    taps[0] = INFINITY;
    a.fir_lo = 0;
    a.fir_hi = 1;
    expect_error(rb_filter_create(ctx, &a, NULL, &f), RB_ERR_NAN, "infinite FIR tap");
    assert_null(f);
}

static void test_parse_errors(void **state)
{
    (void)state;
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0.5f};
    expect_error(rb_boundary_parse(ctx, "reflect", &b), RB_ERR_PARSE, "boundary reflect");
    expect_error(rb_boundary_parse(ctx, "constant=abc", &b), RB_ERR_PARSE, "constant=abc");
    expect_error(rb_boundary_parse(ctx, "constant=nan", &b), RB_ERR_PARSE, "constant=nan");
    expect_error(rb_boundary_parse(ctx, "constant=", &b), RB_ERR_PARSE, "constant=");
    expect_error(rb_boundary_parse(ctx, NULL, &b), RB_ERR_NULL, "NULL boundary text");
    assert_int_equal(b.mode, RB_BOUNDARY_CLAMP); /* untouched */
    const char *names[] = {"zero", "clamp", "periodic", "tileable", "mirror", "none"};
    const rb_boundary_mode want[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CLAMP, RB_BOUNDARY_PERIODIC,
                                     RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR, RB_BOUNDARY_NONE};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(rb_boundary_parse(ctx, names[i], &b), RB_OK);
        assert_int_equal(b.mode, want[i]);
    }
    assert_int_equal(rb_boundary_parse(ctx, "constant=0.25", &b), RB_OK);
    assert_int_equal(b.mode, RB_BOUNDARY_CONSTANT);
    assert_true(b.value == 0.25f);
    rb_backend be;
    expect_error(rb_backend_parse(ctx, "opencl", &be), RB_ERR_PARSE, "back end opencl");
    assert_int_equal(rb_backend_parse(ctx, "cpu", &be), RB_OK);
    assert_int_equal(be, RB_BACKEND_CPU);
}

static void test_execute_errors(void **state)
{
    (void)state;
    const int w = 9, h = 7, ch = 3;
    rb_plan *p;
    rb_boundary zero = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_plan_create(ctx, blur, zero, w, h, ch, &p), RB_OK);
    size_t bytes = (size_t)w * h * ch * 8 + 64;
    unsigned char *src = malloc(bytes), *dst = malloc(bytes);
    memset(src, 0x3c, bytes);
    memset(dst, POISON, bytes);
    rb_image in = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, NULL};
    rb_image out = in;
    in.data = src;
    out.data = dst;
    rb_image i2, o2;

    assert_int_equal(rb_execute(NULL, &in, &out), RB_ERR_NULL);
    expect_error(rb_execute(p, NULL, &out), RB_ERR_NULL, "NULL input image");
    expect_error(rb_execute(p, &in, NULL), RB_ERR_NULL, "NULL output image");
    i2 = in; i2.data = NULL;
    expect_error(rb_execute(p, &i2, &out), RB_ERR_NULL, "NULL input data");
    i2 = in; i2.width = w + 1;
    expect_error(rb_execute(p, &i2, &out), RB_ERR_SIZE, "input width mismatch");
    o2 = out; o2.height = h - 1;
    expect_error(rb_execute(p, &in, &o2), RB_ERR_SIZE, "output height mismatch");
    o2 = out; o2.channels = 4;
    expect_error(rb_execute(p, &in, &o2), RB_ERR_SIZE, "output channels mismatch");
    i2 = in; i2.format = RB_F64;
    expect_error(rb_execute(p, &i2, &out), RB_ERR_UNSUPPORTED, "F64 input");
    o2 = out; o2.format = (rb_format)17;
    expect_error(rb_execute(p, &in, &o2), RB_ERR_ARGUMENT, "unknown output format");
    i2 = in; i2.memory = RB_MEMORY_DEVICE;
    if (strncmp(rb_plan_backend_name(p), "cpu", 3) == 0)
        expect_error(rb_execute(p, &i2, &out), RB_ERR_UNSUPPORTED, "device memory on the cpu");
    i2 = in; i2.stride = 5;
    expect_error(rb_execute(p, &i2, &out), RB_ERR_SIZE, "stride too small");
    i2 = in; i2.alpha = (rb_alpha)7;
    expect_error(rb_execute(p, &i2, &out), RB_ERR_ARGUMENT, "unknown alpha mode");
    o2 = out; o2.data = src + 4; /* overlapping, different buffer */
    expect_error(rb_execute(p, &in, &o2), RB_ERR_ARGUMENT, "partially overlapping images");
    assert_true(all_poisoned(dst, bytes));
    rb_plan_destroy(p);

    rb_plan *p1;
    assert_int_equal(rb_plan_create(ctx, blur, zero, w, h, 1, &p1), RB_OK);
    i2 = in; i2.channels = 1; i2.alpha = RB_ALPHA_STRAIGHT;
    o2 = out; o2.channels = 1;
    expect_error(rb_execute(p1, &i2, &o2), RB_ERR_ARGUMENT, "alpha on 1 channel");
    assert_true(all_poisoned(dst, bytes));
    rb_plan_destroy(p1);
    free(src);
    free(dst);
}

/* Filter with the engine from/to the given formats. */
static void run(rb_plan *p, const void *in, rb_format fi, void *out, rb_format fo, int w, int h,
                int ch, rb_alpha alpha)
{
    rb_image i = {w, h, ch, 0, fi, RB_MEMORY_HOST, alpha, 0, (void *)in};
    rb_image o = {w, h, ch, 0, fo, RB_MEMORY_HOST, alpha, 0, out};
    rb_status s = rb_execute(p, &i, &o);
    if (s != RB_OK)
        fail_msg("rb_execute: %s", rb_context_error(ctx));
}

static void test_round_trips(void **state)
{
    (void)state;
    const int w = 33, h = 5, ch = 4;
    const size_t n = (size_t)w * h * ch;
    rb_filter *id;
    assert_int_equal(rb_filter_create(ctx, NULL, NULL, &id), RB_OK);
    rb_plan *p;
    rb_boundary zero = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_plan_create(ctx, id, zero, w, h, ch, &p), RB_OK);
    uint8_t *u8 = malloc(n), *u8b = malloc(n);
    uint16_t *u16 = malloc(2 * n), *u16b = malloc(2 * n);
    float *f = malloc(4 * n), *fb = malloc(4 * n);
    for (size_t i = 0; i < n; i++) {
        u8[i] = (uint8_t)tu_int(0, 255);
        u16[i] = (uint16_t)tu_int(0, 65535);
        f[i] = (float)(4 * tu_uniform() - 2);
    }
    run(p, u8, RB_U8, u8b, RB_U8, w, h, ch, RB_ALPHA_NONE);
    assert_memory_equal(u8, u8b, n);
    run(p, u16, RB_U16, u16b, RB_U16, w, h, ch, RB_ALPHA_NONE);
    assert_memory_equal(u16, u16b, 2 * n);
    run(p, f, RB_F32, fb, RB_F32, w, h, ch, RB_ALPHA_NONE);
    assert_memory_equal(f, fb, 4 * n);
    run(p, u8, RB_U8, fb, RB_F32, w, h, ch, RB_ALPHA_NONE);
    for (size_t i = 0; i < n; i++)
        assert_true(fabs(fb[i] - u8[i] / 255.0) < 1e-7);
    run(p, fb, RB_F32, u16b, RB_U16, w, h, ch, RB_ALPHA_NONE);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(u16b[i], u8[i] * 257);
    run(p, f, RB_F32, u8b, RB_U8, w, h, ch, RB_ALPHA_NONE); /* clamped and rounded */
    for (size_t i = 0; i < n; i++) {
        double v = f[i] < 0 ? 0 : f[i] > 1 ? 255 : floor(f[i] * 255.0 + 0.5);
        assert_true(fabs(u8b[i] - v) <= 1);
    }
    /* strided rows */
    size_t stride = (size_t)w * ch + 7;
    uint8_t *s8 = malloc(stride * h);
    memset(s8, POISON, stride * h);
    rb_image i = {w, h, ch, 0, RB_U8, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, u8};
    rb_image o = {w, h, ch, stride, RB_U8, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, s8};
    assert_int_equal(rb_execute(p, &i, &o), RB_OK);
    for (int y = 0; y < h; y++) {
        assert_memory_equal(s8 + y * stride, u8 + (size_t)y * w * ch, (size_t)w * ch);
        assert_true(all_poisoned(s8 + y * stride + (size_t)w * ch, 7));
    }
    rb_plan_destroy(p);
    rb_filter_destroy(id);
    free(u8); free(u8b); free(u16); free(u16b); free(f); free(fb); free(s8);
}

static void test_in_place_and_threads(void **state)
{
    (void)state;
    const int w = 131, h = 77, ch = 3;
    const size_t n = (size_t)w * h * ch;
    const rb_boundary_mode modes[] = {RB_BOUNDARY_CLAMP, RB_BOUNDARY_MIRROR, RB_BOUNDARY_PERIODIC};
    for (int m = 0; m < 3; m++) {
        rb_boundary b = {modes[m], 0};
        float *src = malloc(4 * n), *a = malloc(4 * n), *c = malloc(4 * n);
        uint8_t *u = malloc(n), *u2 = malloc(n);
        for (size_t i = 0; i < n; i++) {
            src[i] = (float)tu_uniform();
            u[i] = (uint8_t)tu_int(0, 255);
        }
        rb_plan *p1, *p2;
        assert_int_equal(rb_context_set_threads(ctx, 1), RB_OK);
        assert_int_equal(rb_plan_create(ctx, blur, b, w, h, ch, &p1), RB_OK);
        assert_int_equal(rb_context_set_threads(ctx, 2), RB_OK);
        assert_int_equal(rb_plan_create(ctx, blur, b, w, h, ch, &p2), RB_OK);
        run(p1, src, RB_F32, a, RB_F32, w, h, ch, RB_ALPHA_NONE);
        memcpy(c, src, 4 * n);
        run(p2, c, RB_F32, c, RB_F32, w, h, ch, RB_ALPHA_NONE); /* in place, 2 threads */
        assert_memory_equal(a, c, 4 * n);
        run(p2, u, RB_U8, u2, RB_U8, w, h, ch, RB_ALPHA_NONE);
        run(p1, u, RB_U8, u, RB_U8, w, h, ch, RB_ALPHA_NONE);
        assert_memory_equal(u, u2, n);
        rb_plan_destroy(p1);
        rb_plan_destroy(p2);
        free(src); free(a); free(c); free(u); free(u2);
    }
    rb_context_set_threads(ctx, 0);
}

static void test_straight_alpha(void **state)
{
    (void)state;
    const int w = 40, h = 30, ch = 4;
    float *img = malloc(sizeof(float) * w * h * ch), *out = malloc(sizeof(float) * w * h * ch);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float *p = img + (y * w + x) * ch;
            int opaque = x >= w / 2;
            p[0] = opaque ? 0.0f : 1.0f; /* transparent pixels are red */
            p[1] = 0.0f;
            p[2] = opaque ? 1.0f : 0.0f; /* opaque ones blue */
            p[3] = opaque ? 1.0f : 0.0f;
        }
    rb_plan *p;
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    assert_int_equal(rb_plan_create(ctx, blur, b, w, h, ch, &p), RB_OK);
    run(p, img, RB_F32, out, RB_F32, w, h, ch, RB_ALPHA_STRAIGHT);
    int partly = 0;
    for (int i = 0; i < w * h; i++) {
        float *q = out + i * ch;
        if (q[3] > 1e-6f) {
            assert_true(fabsf(q[0]) < 1e-4f); /* no red */
            assert_true(fabsf(q[2] - 1.0f) < 1e-4f);
            if (q[3] < 0.9f)
                partly++;
        } else
            assert_true(q[0] == 0.0f && q[2] == 0.0f);
    }
    assert_true(partly > 0);
    /* without alpha handling the red does bleed: the test can tell */
    run(p, img, RB_F32, out, RB_F32, w, h, ch, RB_ALPHA_NONE);
    int bled = 0;
    for (int i = 0; i < w * h; i++)
        if (out[i * ch + 3] > 0.05f && out[i * ch] > 0.05f)
            bled++;
    assert_true(bled > 0);
    rb_plan_destroy(p);
    free(img);
    free(out);
}

static void test_linear_light(void **state)
{
    (void)state;
    const int w = 23, h = 19, ch = 3;
    const size_t n = (size_t)w * h * ch;
    uint8_t *u = malloc(n), *o = malloc(n);
    double *lin = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        u[i] = (uint8_t)tu_int(0, 255);
        double v = u[i] / 255.0;
        lin[i] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    rb_boundary b = {RB_BOUNDARY_MIRROR, 0};
    rb_plan *p;
    assert_int_equal(rb_plan_create(ctx, blur, b, w, h, ch, &p), RB_OK);
    assert_int_equal(rb_plan_set_linear_light(p, 1), RB_OK);
    rb_image i = {w, h, ch, 0, RB_U8, RB_MEMORY_HOST, RB_ALPHA_NONE, 1, u};
    rb_image oi = i;
    oi.data = o;
    assert_int_equal(rb_execute(p, &i, &oi), RB_OK);
    assert_int_equal(ref_filter_image(&blur_axis, &blur_axis, b, lin, lin, w, h, ch), 0);
    int maxd = 0;
    for (size_t k = 0; k < n; k++) {
        double v = lin[k] <= 0.0031308 ? lin[k] * 12.92 : 1.055 * pow(lin[k], 1 / 2.4) - 0.055;
        int want = (int)floor(v * 255 + 0.5);
        int d = abs(want - (int)o[k]);
        if (d > maxd)
            maxd = d;
    }
    printf("  linear light: max difference %d levels\n", maxd);
    assert_true(maxd <= 1);
    rb_plan_destroy(p);
    free(u); free(o); free(lin);
}

static void test_sizes(void **state)
{
    (void)state;
    const int sizes[][2] = {{1, 1}, {100000, 1}, {1, 5000}, {2, 3}};
    rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR, RB_BOUNDARY_NONE};
    for (int s = 0; s < 4; s++)
        for (int m = 0; m < 6; m++) {
            int w = sizes[s][0], h = sizes[s][1];
            size_t n = (size_t)w * h;
            float *f = malloc(4 * n);
            double *d = malloc(8 * n), *r = malloc(8 * n);
            for (size_t i = 0; i < n; i++)
                d[i] = f[i] = (float)tu_uniform();
            rb_boundary b = {modes[m], 0.6f};
            rb_plan *p;
            assert_int_equal(rb_plan_create(ctx, blur, b, w, h, 1, &p), RB_OK);
            run(p, f, RB_F32, f, RB_F32, w, h, 1, RB_ALPHA_NONE);
            assert_int_equal(ref_filter_image(&blur_axis, &blur_axis, b, d, r, w, h, 1), 0);
            for (size_t i = 0; i < n; i++)
                d[i] = f[i];
            double e = ref_rel_rms(d, r, n);
            if (e > 1e-6)
                fail_msg("%dx%d %s: relative RMS %g", w, h, rb_boundary_name(modes[m]), e);
            rb_plan_destroy(p);
            free(f); free(d); free(r);
        }
}

static void test_progress_cancel(void **state)
{
    (void)state;
    const int w = 200, h = 100;
    float *in = malloc(sizeof(float) * w * h), *out = malloc(sizeof(float) * w * h);
    for (int i = 0; i < w * h; i++)
        in[i] = (float)tu_uniform();
    memset(out, POISON, sizeof(float) * w * h);
    rb_plan *p;
    rb_boundary b = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_plan_create(ctx, blur, b, w, h, 1, &p), RB_OK);
    tu_progress probe;
    rb_context_set_progress(ctx, tu_progress_report, &probe);
    tu_progress_start(&probe, 3);
    rb_image i = {w, h, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
    rb_image o = i;
    o.data = out;
    expect_error(rb_execute(p, &i, &o), RB_ERR_CANCELLED, "cancelled by progress");
    assert_true(all_poisoned((unsigned char *)out, sizeof(float) * w * h));
    assert_false(probe.out_of_order);
    tu_progress_start(&probe, 1 << 30);
    assert_int_equal(rb_execute(p, &i, &o), RB_OK);
    assert_true(probe.calls >= 2);
    assert_true(probe.last == 1.0);
    assert_false(probe.out_of_order);
    rb_context_set_progress(ctx, NULL, NULL);
    rb_plan_destroy(p);
    free(in);
    free(out);
}

static char logged[512];
static void logger(const char *m, void *u)
{
    (void)u;
    snprintf(logged, sizeof logged, "%s", m);
}

static void test_backend_and_log(void **state)
{
    (void)state;
    rb_context_set_log(ctx, logger, NULL);
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    rb_context_set_threads(ctx, 3);
    rb_plan *p;
    rb_boundary b = {RB_BOUNDARY_ZERO, 0};
    logged[0] = 0;
    assert_int_equal(rb_plan_create(ctx, blur, b, 8, 8, 1, &p), RB_OK);
    assert_string_equal(rb_plan_backend_name(p), "cpu (3 threads)");
    assert_non_null(strstr(logged, "cpu"));
    rb_plan_destroy(p);
    rb_context_set_backend(ctx, RB_BACKEND_AUTO);
    rb_context_set_threads(ctx, 0);
    rb_context_set_log(ctx, NULL, NULL);
}

/* One 1D call against the float64 reference: relative RMS of the result. */
static double one_1d_call(const rb_filter *f, const rb_axis_filter *a, rb_boundary b, size_t n)
{
    float *x = malloc(4 * n);
    double *d = malloc(8 * n), *r = malloc(8 * n);
    assert_non_null(x); assert_non_null(d); assert_non_null(r);
    for (size_t i = 0; i < n; i++)
        d[i] = x[i] = (float)tu_uniform();
    assert_int_equal(rb_recurrence_1d(ctx, f, b, x, x, n, RB_MEMORY_HOST), RB_OK);
    assert_int_equal(ref_filter_line(a, b.mode, b.value, d, r, (long)n), 0);
    for (size_t i = 0; i < n; i++)
        d[i] = x[i];
    double e = ref_rel_rms(d, r, n);
    free(x); free(d); free(r);
    return e;
}

/* rb_recurrence_1d keeps its plan in the context: calls that change one thing
 * at a time (length, boundary, constant, a feedback, a FIR tap, the threads,
 * a 2D plan made in between) must each give that call's own answer, never the
 * kept plan's. */
static void test_recurrence_1d_plan_reuse(void **state)
{
    (void)state;
    double taps[3] = {0.25, 0.5, 0.25};
    rb_axis_filter a = {0};
    a.fir_lo = -1;
    a.fir_hi = 1;
    a.fir = taps;
    a.causal_order = 2;
    a.causal[0] = 1.2;
    a.causal[1] = -0.4;
    a.anticausal_order = 2;
    a.anticausal[0] = 1.2;
    a.anticausal[1] = -0.4;
    rb_boundary b = {RB_BOUNDARY_CONSTANT, 0.7f};
    struct { const char *what; size_t n; } steps[] = {
        {"first call", 3001}, {"same call again", 3001}, {"shorter line", 1999},
        {"boundary constant 0.7 -> -2", 1999}, {"clamp", 1999}, {"periodic", 1999},
        {"feedback changed", 1999}, {"FIR tap changed", 1999}, {"threads changed", 1999},
        {"a 2D plan in between", 1999}, {"longer line", 4097},
    };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        const char *w = steps[k].what;
        if (!strcmp(w, "boundary constant 0.7 -> -2")) b.value = -2.0f;
        if (!strcmp(w, "clamp")) b.mode = RB_BOUNDARY_CLAMP;
        if (!strcmp(w, "periodic")) b.mode = RB_BOUNDARY_PERIODIC;
        if (!strcmp(w, "feedback changed")) a.causal[1] = -0.3;
        if (!strcmp(w, "FIR tap changed")) taps[2] = 0.5;
        if (!strcmp(w, "threads changed")) rb_context_set_threads(ctx, 1);
        if (!strcmp(w, "a 2D plan in between")) {
            rb_filter *g;
            rb_plan *p;
            assert_int_equal(rb_filter_gaussian(ctx, 2, 2, RB_GAUSSIAN_DEFAULT, &g), RB_OK);
            assert_int_equal(rb_plan_create(ctx, g, b, 16, 16, 1, &p), RB_OK);
            rb_plan_destroy(p);
            rb_filter_destroy(g);
        }
        rb_filter *f;
        assert_int_equal(rb_filter_create(ctx, &a, NULL, &f), RB_OK);
        double e = one_1d_call(f, &a, b, steps[k].n);
        printf("  1D plan reuse, %s (n=%zu): relative RMS %.3g\n", w, steps[k].n, e);
        assert_true(e <= 1e-6);
        rb_filter_destroy(f);
    }
    rb_context_set_threads(ctx, 0);
}

static void test_recurrence_1d(void **state)
{
    (void)state;
    rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR, RB_BOUNDARY_NONE};
    rb_axis_filter a = {0};
    a.causal_order = 3;
    tu_random_feedback(3, 0.95, a.causal);
    a.anticausal_order = 1;
    a.anticausal[0] = 0.5;
    rb_filter *f;
    assert_int_equal(rb_filter_create(ctx, &a, NULL, &f), RB_OK);
    for (int m = 0; m < 6; m++) {
        size_t n = m == 0 ? 1 : 1000 + 37 * m;
        float *x = malloc(4 * n);
        double *d = malloc(8 * n), *r = malloc(8 * n);
        for (size_t i = 0; i < n; i++)
            d[i] = x[i] = (float)tu_uniform();
        rb_boundary b = {modes[m], -0.3f};
        assert_int_equal(rb_recurrence_1d(ctx, f, b, x, x, n, RB_MEMORY_HOST), RB_OK);
        assert_int_equal(ref_filter_line(&a, modes[m], -0.3, d, r, (long)n), 0);
        for (size_t i = 0; i < n; i++)
            d[i] = x[i];
        double e = ref_rel_rms(d, r, n);
        printf("  1D %s n=%zu: relative RMS %.3g\n", rb_boundary_name(modes[m]), n, e);
        assert_true(e <= 1e-6);
        free(x); free(d); free(r);
    }
    float v = 1;
    rb_boundary zero = {RB_BOUNDARY_ZERO, 0};
    expect_error(rb_recurrence_1d(ctx, f, zero, &v, &v, 0, RB_MEMORY_HOST), RB_ERR_SIZE, "1D n = 0");
    expect_error(rb_recurrence_1d(ctx, f, zero, NULL, &v, 1, RB_MEMORY_HOST), RB_ERR_NULL, "1D NULL input");
    rb_filter_destroy(f);
}

int main(void)
{
    tu_seed("test_engine_api");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings),  cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_filter_errors),   cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_execute_errors),  cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_in_place_and_threads), cmocka_unit_test(test_straight_alpha),
        cmocka_unit_test(test_linear_light),    cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_progress_cancel), cmocka_unit_test(test_backend_and_log),
        cmocka_unit_test(test_recurrence_1d),   cmocka_unit_test(test_recurrence_1d_plan_reuse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
