/* CUDA back end, images larger than the device's memory (issue 18 item 3):
 * with RECBLUR_CUDA_ALLOC_LIMIT set so that the plan's two whole-image float
 * buffers cannot fit, the plan runs the banded route (cuda/plan/
 * rb_cuda_banded.cu: columns in full-height bands, rows in full-width strips,
 * through a float image in host memory or the caller's float output) instead
 * of falling back to the cpu. Each case checks that
 *  - the log says the banded route was planned, with more than one band and
 *    strip (for the axes that run),
 *  - its output equals the in-memory GPU route's (the same plan without the
 *    limit, host images through the staging) byte for byte,
 *  - and, for some cases, agrees with the float64 reference (tests/reference.h)
 *    to DESIGN's 1e-5 relative RMS (float output) or one step (8/16-bit).
 * Then: a limit below one full-height column falls back (auto) or fails
 * (cuda) with the reason; progress and cancel; NaN input (missing data); and
 * nothing leaks. Skips without a GPU. */
#define _GNU_SOURCE /* setenv, unsetenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "rb_internal.h"
#include "recblur.h"
#include "reference.h"
#include "test_util.h"
#define GPU_SUITE "test_gpu_banded"
#include "gpu_skip.h"
#include "log_capture.h"

#define POISON 0xA5

enum { F_GAUSS, F_ORDER3, F_COLS, F_ROWS, F_COUNT };
static rb_filter *filters[F_COUNT];
static const char *filter_names[F_COUNT] = {"gaussian 3x5", "order 3", "columns only", "rows only"};

static int setup(void **state)
{
    (void)state;
    tu_seed(GPU_SUITE);
    rb_context *ctx;
    if (rb_context_create(&ctx) != RB_OK) return -1;
    if (rb_filter_gaussian(ctx, 3.0, 5.0, RB_GAUSSIAN_DEFAULT, &filters[F_GAUSS]) != RB_OK ||
        rb_filter_gaussian(ctx, 0.0, 4.0, RB_GAUSSIAN_DEFAULT, &filters[F_COLS]) != RB_OK ||
        rb_filter_gaussian(ctx, 2.5, 0.0, RB_GAUSSIAN_DEFAULT, &filters[F_ROWS]) != RB_OK)
        return -1;
    /* a plain order-3 recursive filter of random poles (|p| <= 0.9), different
     * on the two axes and in the two directions of x */
    rb_axis_filter ax, ay;
    memset(&ax, 0, sizeof ax);
    memset(&ay, 0, sizeof ay);
    ax.causal_order = ax.anticausal_order = ay.causal_order = ay.anticausal_order = 3;
    tu_random_feedback(3, 0.9, ax.causal);
    tu_random_feedback(3, 0.9, ax.anticausal);
    tu_random_feedback(3, 0.9, ay.causal);
    memcpy(ay.anticausal, ay.causal, sizeof ay.causal);
    if (rb_filter_create(ctx, &ax, &ay, &filters[F_ORDER3]) != RB_OK) return -1;
    for (int i = 0; i < F_COUNT; ++i) printf("  %-13s %s\n", filter_names[i], rb_filter_describe(filters[i]));
    rb_context_destroy(ctx);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < F_COUNT; ++i) rb_filter_destroy(filters[i]);
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    unsetenv("RECBLUR_CUDA_STAGING");
    return 0;
}

static void set_limit(size_t bytes)
{
    char v[32];
    snprintf(v, sizeof v, "%zu", bytes);
    setenv("RECBLUR_CUDA_ALLOC_LIMIT", v, 1);
}

typedef struct {
    int w, h, c;
    rb_format fmt;
    rb_alpha alpha;
    int filter;
    rb_boundary_mode mode;
    double limit;     /* device memory allowed, as a fraction of one float image */
    int where;        /* 0 host images, 1 in place (host), 2 device images, 3 staging off,
                         4 host in, device out, 5 page-locked host images */
    int reference;    /* also against the float64 reference */
} band_case;

/* The float64 reference of a case's (decoded) input, compared with the
 * banded output: relative RMS for float output, the largest step for 8/16-bit. */
static void check_reference(const band_case *k, const void *in, const void *out)
{
    const size_t count = (size_t)k->w * k->h * k->c;
    const double scale = k->fmt == RB_U8 ? 255.0 : k->fmt == RB_U16 ? 65535.0 : 1.0;
    double *x = malloc(count * sizeof *x), *y = malloc(count * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    for (size_t i = 0; i < count; ++i) x[i] = tu_sample(in, k->fmt, i) / scale;
    rb_axis_filter fx, fy;
    assert_int_equal(rb_filter_get_axis(filters[k->filter], 0, &fx), RB_OK);
    assert_int_equal(rb_filter_get_axis(filters[k->filter], 1, &fy), RB_OK);
    rb_boundary b = {k->mode, 0.3f};
    assert_int_equal(ref_filter_image(&fx, &fy, b, x, y, k->w, k->h, k->c), 0);
    if (k->fmt == RB_F32) {
        const double rms = tu_rel_rms_fd(out, y, count);
        printf("    float64 reference: rel RMS %.2e\n", rms);
        assert_true(rms <= 1e-5);
    } else {
        double worst = 0;
        for (size_t i = 0; i < count; ++i) {
            const double want = fmin(fmax(y[i], 0.0), 1.0) * scale;
            worst = fmax(worst, fabs(tu_sample(out, k->fmt, i) - want));
        }
        printf("    float64 reference: largest difference %.3f steps\n", worst);
        assert_true(worst <= 1.0);
    }
    free(x);
    free(y);
}

/* Bands and strips the log announced (0 when the axis did not say). */
static void logged_pieces(int *bands, int *strips)
{
    const char *b = strstr(logbuf, "columns in "), *s = strstr(logbuf, "rows in ");
    *bands = *strips = 0;
    if (b) sscanf(b, "columns in %d", bands);
    if (s) sscanf(s, "rows in %d", strips);
}

static void run_case(const band_case *k)
{
    const size_t fs = rb_format_size(k->fmt), row = (size_t)k->w * k->c * fs, bytes = row * k->h;
    const size_t count = (size_t)k->w * k->h * k->c, floats = count * sizeof(float);
    const size_t dev0 = rb_cuda_device_bytes_in_use();
    rb_boundary b = {k->mode, 0.3f};
    unsigned char *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    assert_non_null(in);
    assert_non_null(want);
    assert_non_null(got);
    tu_fill_random(in, k->fmt, count);
    if (k->alpha == RB_ALPHA_STRAIGHT && k->fmt == RB_F32) /* un-premultiplying divides by alpha */
        for (size_t i = k->c - 1; i < count; i += k->c) ((float *)in)[i] = (float)(0.25 + 0.75 * tu_uniform());
    rb_image img = {k->w, k->h, k->c, 0, k->fmt, RB_MEMORY_HOST, k->alpha, 0, in};

    /* the in-memory route: host images through the staging */
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    rb_context *g = new_ctx(RB_BACKEND_CUDA);
    rb_plan *p;
    if (rb_plan_create(g, filters[k->filter], b, k->w, k->h, k->c, &p) != RB_OK)
        fail_msg("in-memory plan: %s", rb_context_error(g));
    assert_null(strstr(logbuf, "does not fit"));
    rb_image o = img;
    o.data = want;
    if (rb_execute(p, &img, &o) != RB_OK) fail_msg("in-memory route: %s", rb_context_error(g));
    rb_plan_destroy(p);
    rb_context_destroy(g);

    /* the banded route, under the limit */
    set_limit((size_t)(k->limit * (double)floats));
    if (k->where == 3) setenv("RECBLUR_CUDA_STAGING", "off", 1);
    g = new_ctx(k->where == 1 ? RB_BACKEND_AUTO : RB_BACKEND_CUDA);
    if (rb_plan_create(g, filters[k->filter], b, k->w, k->h, k->c, &p) != RB_OK)
        fail_msg("banded plan: %s", rb_context_error(g));
    unsetenv("RECBLUR_CUDA_STAGING");
    assert_int_equal(strncmp(rb_plan_backend_name(p), "cuda", 4), 0);
    const char *said = strstr(logbuf, "recblur: cuda: the image");
    if (!said || !strstr(said, "does not fit")) fail_msg("no banded route in the log:\n%s", logbuf);
    int bands, strips;
    logged_pieces(&bands, &strips);
    const int cols_run = k->filter != F_ROWS, rows_run = k->filter != F_COLS;
    printf("  %dx%dx%d fmt %d %s %-9s %-13s limit %.2f where %d: %d bands, %d strips\n", k->w, k->h, k->c,
           (int)k->fmt, k->alpha == RB_ALPHA_STRAIGHT ? "straight" : "-", rb_boundary_name(k->mode),
           filter_names[k->filter], k->limit, k->where, bands, strips);
    /* the axes that run, each in more than one piece */
    assert_true(cols_run ? bands >= 2 : bands == 0);
    assert_true(rows_run ? strips >= 2 : strips == 0);
    memset(got, POISON, bytes);
    rb_status st;
    if (k->where == 2 || k->where == 4) {
        void *din = NULL, *dout;
        if (k->where == 2) {
            assert_int_equal(cudaMalloc(&din, bytes), cudaSuccess);
            assert_int_equal(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice), cudaSuccess);
        }
        assert_int_equal(cudaMalloc(&dout, bytes), cudaSuccess);
        assert_int_equal(cudaMemcpy(dout, got, bytes, cudaMemcpyHostToDevice), cudaSuccess);
        rb_image di = img, dO = img;
        if (din) {
            di.memory = RB_MEMORY_DEVICE;
            di.data = din;
        }
        dO.memory = RB_MEMORY_DEVICE;
        dO.data = dout;
        st = rb_execute(p, &di, &dO);
        assert_int_equal(cudaMemcpy(got, dout, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        cudaFree(din);
        cudaFree(dout);
    } else if (k->where == 5) {
        unsigned char *pin = NULL, *pout = NULL;
        assert_int_equal(cudaMallocHost((void **)&pin, bytes), cudaSuccess);
        assert_int_equal(cudaMallocHost((void **)&pout, bytes), cudaSuccess);
        memcpy(pin, in, bytes);
        memset(pout, POISON, bytes);
        rb_image pi = img, po = img;
        pi.data = pin;
        po.data = pout;
        st = rb_execute(p, &pi, &po);
        memcpy(got, pout, bytes);
        cudaFreeHost(pin);
        cudaFreeHost(pout);
    } else if (k->where == 1) {
        memcpy(got, in, bytes);
        rb_image io = img;
        io.data = got;
        st = rb_execute(p, &io, &io);
    } else {
        o.data = got;
        st = rb_execute(p, &img, &o);
    }
    if (st != RB_OK) fail_msg("banded route: %s", rb_context_error(g));
    if (memcmp(got, want, bytes)) {
        size_t i = 0;
        while (got[i] == want[i]) ++i;
        fail_msg("%dx%dx%d %s %s: the banded route differs from the in-memory route at byte %zu "
                 "(pixel %zu, row %zu)",
                 k->w, k->h, k->c, filter_names[k->filter], rb_boundary_name(k->mode), i, i / fs / k->c,
                 i / row);
    }
    rb_plan_destroy(p);
    rb_context_destroy(g);
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    assert_int_equal(rb_cuda_device_bytes_in_use(), dev0);
    if (k->reference) check_reference(k, in, got);
    free(in);
    free(want);
    free(got);
}

static void test_banded_equals_in_memory(void **state)
{
    (void)state;
    NEED_GPU();
    const band_case cases[] = {
        /* 8-bit RGB, 16-bit, float; several boundaries; odd sizes */
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_CLAMP, 0.3, 0, 1},
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_PERIODIC, 0.3, 0, 0},
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_ORDER3, RB_BOUNDARY_MIRROR, 0.9, 0, 0},
        {1021, 777, 2, RB_U16, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_MIRROR, 0.3, 0, 1},
        {1021, 777, 1, RB_F32, RB_ALPHA_NONE, F_ORDER3, RB_BOUNDARY_PERIODIC, 0.3, 0, 1},
        {1021, 777, 1, RB_F32, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_CONSTANT, 0.05, 0, 1},
        {1021, 777, 4, RB_F32, RB_ALPHA_STRAIGHT, F_GAUSS, RB_BOUNDARY_ZERO, 0.3, 0, 0},
        {1021, 777, 4, RB_U8, RB_ALPHA_STRAIGHT, F_ORDER3, RB_BOUNDARY_CLAMP, 0.3, 0, 0},
        {777, 1021, 3, RB_U16, RB_ALPHA_NONE, F_ORDER3, RB_BOUNDARY_NONE, 0.5, 0, 0},
        /* one axis only */
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_COLS, RB_BOUNDARY_PERIODIC, 0.3, 0, 0},
        {1021, 777, 1, RB_F32, RB_ALPHA_NONE, F_ROWS, RB_BOUNDARY_MIRROR, 0.3, 0, 0},
        /* in place (auto), device images, staging off, host in and device out, page-locked host */
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_MIRROR, 0.3, 1, 0},
        {1021, 777, 3, RB_F32, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_CLAMP, 0.3, 1, 0},
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_PERIODIC, 0.3, 2, 0},
        {1021, 777, 1, RB_F32, RB_ALPHA_NONE, F_ORDER3, RB_BOUNDARY_MIRROR, 0.3, 2, 0},
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_CLAMP, 0.3, 3, 0},
        {1021, 777, 1, RB_F32, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_ZERO, 0.3, 4, 0},
        {1021, 777, 1, RB_F32, RB_ALPHA_NONE, F_ORDER3, RB_BOUNDARY_PERIODIC, 0.3, 5, 0},
        {1021, 777, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_MIRROR, 0.3, 5, 0},
        /* small and thin: bands narrower than a warp, strips of a few rows */
        {45, 300, 1, RB_F32, RB_ALPHA_NONE, F_ORDER3, RB_BOUNDARY_PERIODIC, 0.3, 0, 1},
        {300, 45, 3, RB_U8, RB_ALPHA_NONE, F_GAUSS, RB_BOUNDARY_MIRROR, 0.3, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(&cases[i]);
}

/* A limit below one full-height column (in its two slots of two buffers):
 * `auto` falls back to the cpu and says why, `cuda` is RB_ERR_DEVICE with the
 * reason; nothing leaks. */
static void test_banded_too_small(void **state)
{
    (void)state;
    NEED_GPU();
    const int w = 640, h = 480, c = 3;
    const size_t dev0 = rb_cuda_device_bytes_in_use();
    set_limit((size_t)4 * h * c * sizeof(float) - 1);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    rb_context *g = new_ctx(RB_BACKEND_AUTO);
    rb_plan *p = NULL;
    assert_int_equal(rb_plan_create(g, filters[F_GAUSS], b, w, h, c, &p), RB_OK);
    printf("  auto -> %s; log:\n%s", rb_plan_backend_name(p), logbuf);
    assert_int_equal(strncmp(rb_plan_backend_name(p), "cpu", 3), 0);
    assert_non_null(strstr(logbuf, "falling back to the cpu"));
    assert_non_null(strstr(logbuf, "nor does one full-height column"));
    rb_plan_destroy(p);
    rb_context_destroy(g);
    g = new_ctx(RB_BACKEND_CUDA);
    p = (rb_plan *)0x1;
    rb_status s = rb_plan_create(g, filters[F_GAUSS], b, w, h, c, &p);
    printf("  cuda: %s: %s\n", rb_status_string(s), rb_context_error(g));
    assert_int_equal(s, RB_ERR_DEVICE);
    assert_null(p);
    assert_non_null(strstr(rb_context_error(g), "out of memory"));
    rb_context_destroy(g);
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    assert_int_equal(rb_cuda_device_bytes_in_use(), dev0);
}

/* Progress comes in order, per piece, 1.0 last; a cancel while the output is
 * untouched (the column bands go to the plan's host float image when the
 * output is 8-bit) returns RB_ERR_CANCELLED with the output as it was; a
 * cancel later is ignored and the output is whole. */
static void test_banded_progress_cancel(void **state)
{
    (void)state;
    NEED_GPU();
    const int w = 1021, h = 777, c = 3;
    const size_t bytes = (size_t)w * h * c;
    rb_image hi = tu_random_image(w, h, c, RB_U8), ho = hi;
    unsigned char *want = malloc(bytes), *got = malloc(bytes);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    rb_context *g = new_ctx(RB_BACKEND_CUDA);
    rb_plan *p;
    assert_int_equal(rb_plan_create(g, filters[F_GAUSS], b, w, h, c, &p), RB_OK);
    ho.data = want;
    assert_int_equal(rb_execute(p, &hi, &ho), RB_OK);
    rb_plan_destroy(p);
    rb_context_destroy(g);
    set_limit(bytes * sizeof(float) / 3);
    g = new_ctx(RB_BACKEND_CUDA);
    assert_int_equal(rb_plan_create(g, filters[F_GAUSS], b, w, h, c, &p), RB_OK);
    int bands, strips;
    logged_pieces(&bands, &strips);
    assert_true(bands >= 2 && strips >= 2);
    tu_progress probe;
    rb_context_set_progress(g, tu_progress_report, &probe);
    ho.data = got;
    /* reports: 0, one per band, one per strip (the last strip's is the final 1.0) */
    for (int cancel_at = 1; cancel_at <= bands + 1; ++cancel_at) {
        tu_progress_start(&probe, cancel_at);
        memset(got, POISON, bytes);
        assert_int_equal(rb_execute(p, &hi, &ho), RB_ERR_CANCELLED);
        for (size_t i = 0; i < bytes; ++i)
            if (got[i] != POISON) fail_msg("cancel at report %d: output byte %zu written", cancel_at, i);
        assert_false(probe.out_of_order);
    }
    /* after the first strip is down, a cancel is too late: the call finishes */
    tu_progress_start(&probe, bands + 2);
    assert_int_equal(rb_execute(p, &hi, &ho), RB_OK);
    assert_memory_equal(got, want, bytes);
    tu_progress_start(&probe, 1 << 30);
    assert_int_equal(rb_execute(p, &hi, &ho), RB_OK);
    assert_true(probe.last == 1.0);
    assert_false(probe.out_of_order);
    assert_int_equal(probe.calls, 1 + bands + strips);
    assert_memory_equal(got, want, bytes);
    printf("  %d bands, %d strips: %d reports; a cancel at any of the first %d leaves the output untouched, "
           "a later one is ignored\n", bands, strips, probe.calls, bands + 1);
    rb_context_set_progress(g, NULL, NULL);
    rb_plan_destroy(p);
    rb_context_destroy(g);
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    free(hi.data);
    free(want);
    free(got);
}

/* NaN samples (missing data) on a banded plan: the missing-data route's plans
 * run banded too, and give the in-memory GPU route's numbers. */
static void test_banded_missing_data(void **state)
{
    (void)state;
    NEED_GPU();
    const int w = 513, h = 389, c = 2;
    const size_t count = (size_t)w * h * c;
    float *in = malloc(count * 4), *want = malloc(count * 4), *got = malloc(count * 4);
    for (size_t i = 0; i < count; i++) in[i] = tu_uniform() < 0.01 ? NAN : (float)tu_uniform();
    rb_boundary b = {RB_BOUNDARY_MIRROR, 0};
    rb_image hi = {w, h, c, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in}, ho = hi;
    for (int banded = 0; banded < 2; ++banded) {
        if (banded) set_limit(count * sizeof(float) / 3);
        rb_context *g = new_ctx(RB_BACKEND_CUDA);
        rb_plan *p;
        assert_int_equal(rb_plan_create(g, filters[F_GAUSS], b, w, h, c, &p), RB_OK);
        ho.data = banded ? got : want;
        memset(ho.data, POISON, count * 4);
        if (rb_execute(p, &hi, &ho) != RB_OK) fail_msg("%s: %s", banded ? "banded" : "in memory", rb_context_error(g));
        assert_non_null(strstr(logbuf, "samples missing"));
        if (banded) assert_non_null(strstr(logbuf, "does not fit"));
        rb_plan_destroy(p);
        rb_context_destroy(g);
    }
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    size_t nan_w = 0;
    for (size_t i = 0; i < count; ++i) {
        if (isnan(want[i]) != isnan(got[i])) fail_msg("sample %zu: %g banded, %g in memory", i, got[i], want[i]);
        nan_w += isnan(want[i]) != 0;
    }
    const int same = memcmp(got, want, count * 4) == 0;
    printf("  NaN input: banded %s the in-memory route (%zu NaN outputs on both)\n",
           same ? "equals" : "differs from", nan_w);
    assert_true(same);
    free(in);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_banded_equals_in_memory),
        cmocka_unit_test(test_banded_too_small),
        cmocka_unit_test(test_banded_progress_cancel),
        cmocka_unit_test(test_banded_missing_data),
    };
    return RB_GPU_DEVICE_MAIN(tests, setup, teardown);
}
