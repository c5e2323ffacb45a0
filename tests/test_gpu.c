/* CUDA back end tests. Every GPU test skips (cmocka skip) with a message when
 * no CUDA device is usable, so the suite runs in CI without a GPU; the
 * "no device" test checks the clear error CI must see there.
 *
 * Correctness: the GPU result against the CPU back end (same function to
 * float32 rounding) for every boundary mode x orders 1..8 x random stable
 * filters (symmetric and not, with and without FIR) x odd sizes x 1..4
 * channels x U8/U16/F32, and against the independent float64 reference
 * (tests/reference.h) where that is built. */
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

/* tests/gpu_emu.cu: the tiled solver's per-lane code run on the host */
int rb_gpu_emulate_2d(const rb_plan *plan, const float *in, float *out, float bval);

#define GPU_SUITE "test_gpu"
#include "gpu_skip.h"
#include "log_capture.h"

/* ------------------------------------------------------------ random filters */
/* Random draws come from tests/test_util.h (tu_seed in main: RB_TEST_SEED=<n>
 * reproduces a run); the emulated solver test replays the draws from here. */
static uint64_t suite_seed;

typedef struct {
    rb_axis_filter ax[2];
    double taps[2][8];
} test_filter;

/* kind 0: symmetric pair, no FIR; 1: symmetric with an even FIR; 2: different
 * causal/anticausal orders and an uneven FIR */
static rb_filter *make_filter(rb_context *ctx, int order, int kind, double pmax, test_filter *tf)
{
    memset(tf, 0, sizeof *tf);
    for (int a = 0; a < 2; ++a) {
        rb_axis_filter *f = &tf->ax[a];
        f->causal_order = order;
        tu_random_feedback(order, pmax, f->causal);
        if (kind == 2) {
            f->anticausal_order = tu_int(1, order);
            tu_random_feedback(f->anticausal_order, pmax, f->anticausal);
            f->fir_lo = -1;
            f->fir_hi = 2;
            for (int t = 0; t < 4; ++t) tf->taps[a][t] = 0.1 + tu_uniform();
            f->fir = tf->taps[a];
        } else {
            f->anticausal_order = order;
            memcpy(f->anticausal, f->causal, sizeof f->causal);
            if (kind == 1) {
                f->fir_lo = -1;
                f->fir_hi = 1;
                tf->taps[a][0] = tf->taps[a][2] = 0.25 + 0.1 * tu_uniform();
                tf->taps[a][1] = 0.5;
                f->fir = tf->taps[a];
            }
        }
    }
    rb_filter *filt = NULL;
    rb_status st = rb_filter_create(ctx, &tf->ax[0], &tf->ax[1], &filt);
    if (st != RB_OK) fprintf(stderr, "test_gpu: filter: %s\n", rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    return filt;
}

/* ---------------------------------------------------------------- helpers */

static rb_image image(int w, int h, int c, rb_format fmt, void *data)
{
    return tu_image(w, h, c, fmt, 0, data, RB_MEMORY_HOST);
}

/* A fresh context on back end be. */
static rb_context *backend_ctx(rb_backend be)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, be), RB_OK);
    return ctx;
}

/* Run filter on `in` with the given back end into a fresh buffer. */
static void *run_backend_lin(rb_backend be, const rb_filter *f, rb_boundary b, const rb_image *in,
                             rb_format out_fmt, char *name, size_t name_len, int linear)
{
    rb_context *ctx = backend_ctx(be);
    rb_plan *plan;
    rb_status st = rb_plan_create(ctx, f, b, in->width, in->height, in->channels, &plan);
    if (st != RB_OK) fprintf(stderr, "test_gpu: plan: %s\n", rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    if (linear) assert_int_equal(rb_plan_set_linear_light(plan, 1), RB_OK);
    size_t count = (size_t)in->width * in->height * in->channels;
    void *out = malloc(count * rb_format_size(out_fmt) + 1);
    assert_non_null(out);
    memset(out, 0xA5, count * rb_format_size(out_fmt)); /* poison */
    rb_image o = image(in->width, in->height, in->channels, out_fmt, out);
    o.alpha = in->alpha;
    o.srgb = in->srgb;
    st = rb_execute(plan, in, &o);
    if (st != RB_OK) fprintf(stderr, "test_gpu: execute: %s\n", rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    if (name) snprintf(name, name_len, "%s", rb_plan_backend_name(plan));
    rb_plan_destroy(plan);
    rb_context_destroy(ctx);
    return out;
}

static void *run_backend(rb_backend be, const rb_filter *f, rb_boundary b, const rb_image *in,
                         rb_format out_fmt, char *name, size_t name_len)
{
    return run_backend_lin(be, f, b, in, out_fmt, name, name_len, 0);
}

/* relative RMS difference (F32) or max |diff| in units (U8/U16) */
static double compare(const void *a, const void *b, rb_format fmt, size_t count, double *maxabs)
{
    double se = 0, sr = 0, mx = 0;
    for (size_t i = 0; i < count; ++i) {
        double x = tu_sample(a, fmt, i), y = tu_sample(b, fmt, i);
        if (isnan(x) || isnan(y)) {
            *maxabs = INFINITY;
            return INFINITY;
        }
        se += (x - y) * (x - y);
        sr += y * y;
        if (fabs(x - y) > mx) mx = fabs(x - y);
    }
    *maxabs = mx;
    return sr > 0 ? sqrt(se / sr) : sqrt(se);
}

static const int sizes[][2] = {{1, 1}, {7, 1}, {1, 7}, {31, 33}, {257, 129}, {1000, 3}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* -------------------------------------------------------------------- tests */

/* Without a device, asking for CUDA is a clear RB_ERR_BACKEND (runs in CI). */
static void test_cuda_backend_request(void **state)
{
    (void)state;
    const rb_backend_ops *ops = rb_backend_cuda();
    assert_non_null(ops);
    char why[256] = "";
    rb_status pst = ops->probe(why, sizeof why);
    rb_context *ctx;
    rb_plan *plan = NULL;
    test_filter tf;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_filter *f = make_filter(ctx, 2, 1, 0.8, &tf);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0.0f};
    rb_status st = rb_context_set_backend(ctx, RB_BACKEND_CUDA);
    if (st == RB_OK) st = rb_plan_create(ctx, f, b, 16, 16, 1, &plan);
    if (pst != RB_OK) {
        fprintf(stderr, "test_gpu: probe says: %s\n", why);
        assert_int_equal(pst, RB_ERR_BACKEND);
        assert_non_null(strstr(why, "no CUDA device"));
        assert_int_equal(st, RB_ERR_BACKEND);
        fprintf(stderr, "test_gpu: rb_plan_create says: %s\n", rb_context_error(ctx));
        assert_non_null(strstr(rb_context_error(ctx), "no CUDA device"));
        assert_null(plan);
        assert_int_equal(rb_cuda_available(NULL, 0), 0);
    } else {
        assert_int_equal(st, RB_OK);
        assert_non_null(strstr(rb_plan_backend_name(plan), "cuda"));
        assert_int_not_equal(rb_cuda_available(NULL, 0), 0);
        rb_plan_destroy(plan);
    }
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* GPU == CPU back end == float64 reference for every mode x orders lo..hi x
 * sizes x 1..4 channels x random filters; F32. Prints every disagreement and
 * returns their count (the caller asserts, after restoring what it changed). */
static int gpu_matches_cpu_orders(int lo, int hi)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    int cases = 0, bad_ref = 0, bad_cpu = 0;
    double worst = 0, worst_ref = 0;
    for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode)
        for (int order = lo; order <= hi; ++order)
            for (int si = 0; si < NSIZES; ++si) {
                int w = sizes[si][0], h = sizes[si][1];
                int ch = 1 + (order + si + mode) % 4;
                int kind = (order + si) % 3;
                double pmax = (si % 2) ? 0.99 : 0.9;
                test_filter tf;
                rb_filter *f = make_filter(ctx, order, kind, pmax, &tf);
                rb_boundary b = {(rb_boundary_mode)mode, mode == RB_BOUNDARY_CONSTANT ? 0.3f : 0.0f};
                size_t count = (size_t)w * h * ch;
                float *in = malloc(count * sizeof(float));
                tu_fill_random(in, RB_F32, count);
                if (!gpu_order_wanted(order)) { /* drawn all the same: the other orders keep their cases */
                    free(in);
                    rb_filter_destroy(f);
                    continue;
                }
                rb_image im = image(w, h, ch, RB_F32, in);
                char name[160];
                float *g = run_backend(RB_BACKEND_CUDA, f, b, &im, RB_F32, name, sizeof name);
                float *c = run_backend(RB_BACKEND_CPU, f, b, &im, RB_F32, NULL, 0);
                assert_non_null(strstr(name, "cuda"));
                double mx, rel = compare(g, c, RB_F32, count, &mx);
                double tol = pmax <= 0.9 ? 1e-5 : 1e-4;
                /* and against the independent float64 reference */
                double *din = malloc(count * sizeof(double)), *dref = malloc(count * sizeof(double));
                float *fref = malloc(count * sizeof(float));
                assert_non_null(din);
                assert_non_null(dref);
                assert_non_null(fref);
                for (size_t i = 0; i < count; ++i) din[i] = in[i];
                assert_int_equal(ref_filter_image(&tf.ax[0], &tf.ax[1], b, din, dref, w, h, ch), 0);
                for (size_t i = 0; i < count; ++i) fref[i] = (float)dref[i];
                double rref = compare(g, fref, RB_F32, count, &mx);
                /* report every disagreement (not only the first), then assert */
                if (!(rref <= tol)) {
                    bad_ref++;
                    fprintf(stderr, "test_gpu: GPU vs float64 reference: mode %s order %d kind %d "
                            "%dx%dx%d pmax %.2f: rel RMS %.3g (tol %.0e)\n",
                            rb_boundary_name((rb_boundary_mode)mode), order, kind, w, h, ch, pmax, rref, tol);
                }
                if (!(rel <= tol)) {
                    bad_cpu++;
                    fprintf(stderr, "test_gpu: GPU vs CPU back end: mode %s order %d kind %d %dx%dx%d "
                            "pmax %.2f: rel RMS %.3g (GPU vs reference %.3g)\n",
                            rb_boundary_name((rb_boundary_mode)mode), order, kind, w, h, ch, pmax, rel, rref);
                }
                if (rel > worst) worst = rel;
                if (rref > worst_ref) worst_ref = rref;
                free(din);
                free(dref);
                free(fref);
                cases++;
                free(in);
                free(g);
                free(c);
                rb_filter_destroy(f);
            }
    fprintf(stderr, "test_gpu: orders %d-%d: %d mode/order/size cases, worst rel RMS: GPU vs CPU %.3g, "
            "GPU vs float64 reference %.3g; failures: %d vs reference, %d vs CPU\n", lo, hi, cases, worst,
            worst_ref, bad_ref, bad_cpu);
    rb_context_destroy(ctx);
    return bad_ref + bad_cpu;
}

/* Orders 1..5: the tiled solver. */
static void test_gpu_matches_cpu_all_modes(void **state)
{
    (void)state;
    NEED_GPU();
    assert_int_equal(gpu_matches_cpu_orders(1, 5), 0);
}

/* 2D orders 6..8: the tiled solver takes them (cuda/tiled/, RB_TILED_MAX_ORDER);
 * until 2026-11-25 they went to the retired blocked solver, which no test reached
 * and which lost them (NaN on mirror order 6, 7e-3 on clamp order 7: RELIABILITY.md).
 * Its draws come from a stream of their own (restored after), so adding it moved
 * no other test's filters or data: the seed-specific notes still reproduce. */
static void test_gpu_orders_6_8(void **state)
{
    (void)state;
    NEED_GPU();
    if (!gpu_order_wanted(6) && !gpu_order_wanted(7) && !gpu_order_wanted(8)) {
        fprintf(stderr, "test_gpu: orders 6-8 not in RB_TEST_ORDERS: skipped\n");
        skip();
    }
    uint64_t saved = tu_state;
    tu_state = suite_seed ^ 0x6a09e667f3bcc909ull; /* any fixed offset from the suite seed */
    {
        /* that they do (else this test no longer covers the default route) */
        rb_context *ctx = new_ctx(RB_BACKEND_CUDA);
        test_filter tf;
        rb_filter *f = make_filter(ctx, 7, 0, 0.9, &tf);
        rb_boundary b = {RB_BOUNDARY_CLAMP, 0.0f};
        rb_plan *plan;
        assert_int_equal(rb_plan_create(ctx, f, b, 64, 48, 3, &plan), RB_OK);
        const char *hit = strstr(logbuf, "cuda solver: tiled");
        if (!hit) fprintf(stderr, "test_gpu: order 7 did not take the tiled solver; the log says:\n%s", logbuf);
        assert_non_null(hit);
        rb_plan_destroy(plan);
        rb_filter_destroy(f);
        rb_context_destroy(ctx);
    }
    int bad = gpu_matches_cpu_orders(6, 8);
    tu_state = saved;
    assert_int_equal(bad, 0);
}

/* A FIR longer than the tiled solver takes (RB_CUDA_TILED_TAPS): `auto` plans
 * it on the CPU and says so; --backend cuda refuses it with the reason (no
 * GPU solver takes it since the blocked one was retired). */
static void test_long_fir_auto_cpu(void **state)
{
    (void)state;
    NEED_GPU();
    double taps[RB_CUDA_TILED_TAPS + 1];
    for (int k = 0; k <= RB_CUDA_TILED_TAPS; ++k)
        taps[k] = 1.0 / (RB_CUDA_TILED_TAPS + 1);
    rb_axis_filter ax;
    memset(&ax, 0, sizeof ax);
    ax.causal_order = 1;
    ax.causal[0] = 0.5;
    ax.fir = taps;
    ax.fir_lo = -RB_CUDA_TILED_TAPS / 2;
    ax.fir_hi = ax.fir_lo + RB_CUDA_TILED_TAPS;
    for (int forced = 0; forced < 2; ++forced) {
        rb_context *ctx = new_ctx(forced ? RB_BACKEND_CUDA : RB_BACKEND_AUTO);
        rb_filter *f;
        assert_int_equal(rb_filter_create(ctx, &ax, &ax, &f), RB_OK);
        rb_plan *plan = NULL;
        rb_boundary b = {RB_BOUNDARY_CLAMP, 0.0f};
        const rb_status st = rb_plan_create(ctx, f, b, 40, 30, 1, &plan);
        if (forced) {
            assert_int_equal(st, RB_ERR_BACKEND);
            if (!strstr(rb_context_error(ctx), "more than the GPU's tiled solver takes"))
                fprintf(stderr, "test_gpu: forced cuda, 65-tap FIR: %s\n", rb_context_error(ctx));
            assert_non_null(strstr(rb_context_error(ctx), "more than the GPU's tiled solver takes"));
        } else {
            assert_int_equal(st, RB_OK);
            const char *name = rb_plan_backend_name(plan);
            if (!strstr(name, "cpu")) fprintf(stderr, "test_gpu: 65-tap FIR planned on %s\n%s", name, logbuf);
            assert_non_null(strstr(name, "cpu"));
            assert_non_null(strstr(logbuf, "more than the GPU's tiled solver takes"));
            rb_plan_destroy(plan);
        }
        rb_filter_destroy(f);
        rb_context_destroy(ctx);
    }
}

/* U8/U16 in and out, 1..4 channels, every mode: within one unit of the
 * float64 reference (rounded the same way) and of the CPU back end; then
 * straight/premultiplied alpha with linear light against the CPU back end. */
static void test_gpu_formats_alpha(void **state)
{
    (void)state;
    rb_context *ctx = gpu_test_context(RB_BACKEND_AUTO);
    test_filter tf;
    rb_filter *f = make_filter(ctx, 3, 1, 0.8, &tf);
    rb_format fmts[2] = {RB_U8, RB_U16};
    int bad = 0;
    for (int fi = 0; fi < 2; ++fi)
        for (int ch = 1; ch <= 4; ++ch)
            for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode)
                for (int variant = 0; variant < 2; ++variant) {
                    if (variant == 1 && ch < 2) continue;
                    int w = 67, h = 45;
                    size_t count = (size_t)w * h * ch;
                    double unit = fmts[fi] == RB_U8 ? 255.0 : 65535.0;
                    void *in = malloc(count * rb_format_size(fmts[fi]));
                    tu_fill_random(in, fmts[fi], count);
                    rb_image im = image(w, h, ch, fmts[fi], in);
                    if (variant == 1) {
                        im.alpha = (mode % 2) ? RB_ALPHA_STRAIGHT : RB_ALPHA_PREMULTIPLIED;
                        im.srgb = 1;
                    }
                    rb_boundary b = {(rb_boundary_mode)mode, 0.6f};
                    void *g = run_backend_lin(RB_BACKEND_CUDA, f, b, &im, fmts[fi], NULL, 0, variant);
                    void *c = run_backend_lin(RB_BACKEND_CPU, f, b, &im, fmts[fi], NULL, 0, variant);
                    double mx, mref = 0;
                    compare(g, c, fmts[fi], count, &mx);
                    if (variant == 0) {
                        double *dx = malloc(count * sizeof(double));
                        assert_non_null(dx);
                        for (size_t i = 0; i < count; ++i) dx[i] = tu_sample(in, fmts[fi], i) / unit;
                        assert_int_equal(ref_filter_image(&tf.ax[0], &tf.ax[1], b, dx, dx, w, h, ch), 0);
                        for (size_t i = 0; i < count; ++i) {
                            double v = floor(dx[i] * unit + 0.5);
                            v = v < 0 ? 0 : (v > unit ? unit : v);
                            double d = fabs(tu_sample(g, fmts[fi], i) - v);
                            if (d > mref) mref = d;
                        }
                        free(dx);
                    }
                    /* alpha + linear light: sRGB encoding (slope 12.92 near 0) after dividing by
                     * a small alpha turns one float32 ulp of powf/division difference between
                     * the CPU's libm and the GPU into a few U16 units; U8 stays within 1 */
                    double tol_cpu = (variant == 1 && fmts[fi] == RB_U16) ? 16 : 1;
                    if (mx > tol_cpu || mref > 1) {
                        bad++;
                        fprintf(stderr, "test_gpu: %s %d ch %s%s: max diff %.0f units vs CPU, %.0f vs "
                                "reference\n", fi ? "U16" : "U8", ch, rb_boundary_name((rb_boundary_mode)mode),
                                variant ? " (alpha, linear light)" : "", mx, mref);
                    }
                    free(in);
                    free(g);
                    free(c);
                }
    assert_int_equal(bad, 0);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

/* Device pointers (pitched), host in-place, device in-place: same as the CPU. */
static void test_gpu_device_memory_and_inplace(void **state)
{
    (void)state;
    rb_context *ctx = gpu_test_context(RB_BACKEND_CUDA);
    rb_context *cctx = backend_ctx(RB_BACKEND_CPU);
    test_filter tf;
    rb_filter *f = make_filter(ctx, 3, 2, 0.9, &tf);
    const int w = 203, h = 77, ch = 3;
    for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode) {
        rb_boundary b = {(rb_boundary_mode)mode, 0.25f};
        rb_plan *gp, *cp;
        assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &gp), RB_OK);
        assert_int_equal(rb_plan_create(cctx, f, b, w, h, ch, &cp), RB_OK);
        size_t count = (size_t)w * h * ch, row = (size_t)w * ch * sizeof(float);
        float *in = malloc(count * sizeof(float)), *ref = malloc(count * sizeof(float));
        float *got = malloc(count * sizeof(float));
        tu_fill_random(in, RB_F32, count);
        /* expected: the float64 reference (the CPU back end is compared in the tests above) */
        {
            double *dx = malloc(count * sizeof(double));
            assert_non_null(dx);
            for (size_t i = 0; i < count; ++i) dx[i] = in[i];
            assert_int_equal(ref_filter_image(&tf.ax[0], &tf.ax[1], b, dx, dx, w, h, ch), 0);
            for (size_t i = 0; i < count; ++i) ref[i] = (float)dx[i];
            free(dx);
        }

        /* device, pitched, separate in and out */
        void *din, *dout;
        size_t pin, pout;
        assert_int_equal(cudaMallocPitch(&din, &pin, row + 64, h), cudaSuccess);
        assert_int_equal(cudaMallocPitch(&dout, &pout, row, h), cudaSuccess);
        assert_int_equal(cudaMemcpy2D(din, pin, in, row, row, h, cudaMemcpyHostToDevice), cudaSuccess);
        assert_int_equal(cudaMemset2D(dout, pout, 0xA5, row, h), cudaSuccess);
        rb_image di = image(w, h, ch, RB_F32, din), dout_im = image(w, h, ch, RB_F32, dout);
        di.memory = dout_im.memory = RB_MEMORY_DEVICE;
        di.stride = pin;
        dout_im.stride = pout;
        rb_status st = rb_execute(gp, &di, &dout_im);
        (void)cp;
        if (st != RB_OK) fprintf(stderr, "test_gpu: %s\n", rb_context_error(ctx));
        assert_int_equal(st, RB_OK);
        assert_int_equal(cudaMemcpy2D(got, row, dout, pout, row, h, cudaMemcpyDeviceToHost), cudaSuccess);
        double mx, rel = compare(got, ref, RB_F32, count, &mx);
        if (!(rel <= 1e-5)) fprintf(stderr, "test_gpu: device pointers, mode %s: rel RMS %.3g vs reference\n",
                                    rb_boundary_name((rb_boundary_mode)mode), rel);
        assert_true(rel <= 1e-5);

        /* device in place */
        assert_int_equal(rb_execute(gp, &di, &di), RB_OK);
        assert_int_equal(cudaMemcpy2D(got, row, din, pin, row, h, cudaMemcpyDeviceToHost), cudaSuccess);
        rel = compare(got, ref, RB_F32, count, &mx);
        assert_true(rel <= 1e-5);

        /* host in place, with a padded stride */
        size_t stride = row + 12;
        unsigned char *pad = malloc(stride * h);
        for (int y = 0; y < h; ++y) memcpy(pad + y * stride, (char *)in + y * row, row);
        rb_image pi = image(w, h, ch, RB_F32, pad);
        pi.stride = stride;
        assert_int_equal(rb_execute(gp, &pi, &pi), RB_OK);
        for (int y = 0; y < h; ++y) memcpy((char *)got + y * row, pad + y * stride, row);
        rel = compare(got, ref, RB_F32, count, &mx);
        assert_true(rel <= 1e-5);

        cudaFree(din);
        cudaFree(dout);
        free(pad);
        free(in);
        free(ref);
        free(got);
        rb_plan_destroy(gp);
        rb_plan_destroy(cp);
    }
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    rb_context_destroy(cctx);
}

/* rb_sat on the GPU: U8/U16 exactly equal to the CPU's double sums (F64 out),
 * F32 in and out within float rounding; host and device memory. */
static void test_gpu_sat(void **state)
{
    (void)state;
    rb_context *g = gpu_test_context(RB_BACKEND_CUDA);
    rb_context *c = backend_ctx(RB_BACKEND_CPU);
    rb_format fins[3] = {RB_U8, RB_U16, RB_F32};
    for (int fi = 0; fi < 3; ++fi)
        for (int ch = 1; ch <= 4; ++ch)
            for (int si = 0; si < NSIZES; ++si) {
                int w = sizes[si][0], h = sizes[si][1];
                size_t count = (size_t)w * h * ch;
                void *in = malloc(count * rb_format_size(fins[fi]));
                tu_fill_random(in, fins[fi], count);
                rb_format fo = fins[fi] == RB_F32 ? RB_F32 : RB_F64;
                void *og = malloc(count * rb_format_size(fo)), *oc = malloc(count * rb_format_size(fo));
                memset(og, 0xA5, count * rb_format_size(fo));
                rb_image im = image(w, h, ch, fins[fi], in);
                rb_image gi = image(w, h, ch, fo, og), ci = image(w, h, ch, fo, oc);
                rb_status st = rb_sat(g, &im, &gi);
                if (st != RB_OK) fprintf(stderr, "test_gpu: sat: %s\n", rb_context_error(g));
                assert_int_equal(st, RB_OK);
                assert_int_equal(rb_sat(c, &im, &ci), RB_OK);
                if (fo == RB_F64) {
                    assert_memory_equal(og, oc, count * sizeof(double));
                } else {
                    double mx, rel = compare(og, oc, RB_F32, count, &mx);
                    assert_true(rel <= 1e-7);
                }
                free(in);
                free(og);
                free(oc);
            }
    /* device memory, U16 -> F64 */
    {
        int w = 300, h = 200, ch = 2;
        size_t count = (size_t)w * h * ch;
        uint16_t *in = malloc(count * 2);
        double *oc = malloc(count * 8), *og = malloc(count * 8);
        tu_fill_random(in, RB_U16, count);
        void *din, *dout;
        assert_int_equal(cudaMalloc(&din, count * 2), cudaSuccess);
        assert_int_equal(cudaMalloc(&dout, count * 8), cudaSuccess);
        assert_int_equal(cudaMemcpy(din, in, count * 2, cudaMemcpyHostToDevice), cudaSuccess);
        rb_image di = image(w, h, ch, RB_U16, din), dout_im = image(w, h, ch, RB_F64, dout);
        di.memory = dout_im.memory = RB_MEMORY_DEVICE;
        assert_int_equal(rb_sat(g, &di, &dout_im), RB_OK);
        assert_int_equal(cudaMemcpy(og, dout, count * 8, cudaMemcpyDeviceToHost), cudaSuccess);
        rb_image hi = image(w, h, ch, RB_U16, in), ho = image(w, h, ch, RB_F64, oc);
        assert_int_equal(rb_sat(c, &hi, &ho), RB_OK);
        assert_memory_equal(og, oc, count * 8);
        cudaFree(din);
        cudaFree(dout);
        free(in);
        free(oc);
        free(og);
    }
    rb_context_destroy(g);
    rb_context_destroy(c);
}

/* rb_recurrence_1d on the GPU against the float64 reference: every mode,
 * orders 1..5, host memory and device memory in place. */
static void test_gpu_recurrence_1d(void **state)
{
    (void)state;
    rb_context *g = gpu_test_context(RB_BACKEND_CUDA);
    const size_t lens[3] = {1, 77, 100003};
    int bad = 0;
    for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode)
        for (int order = 1; order <= 5; ++order)
            for (int li = 0; li < 3; ++li) {
                size_t n = lens[li];
                test_filter tf;
                rb_filter *f = make_filter(g, order, (order + li) % 3, 0.9, &tf);
                rb_boundary b = {(rb_boundary_mode)mode, 0.4f};
                float *x = malloc(n * 4), *y = malloc(n * 4);
                double *dx = malloc(n * 8), *dy = malloc(n * 8);
                tu_fill_random(x, RB_F32, n);
                for (size_t i = 0; i < n; ++i) dx[i] = x[i];
                assert_int_equal(ref_filter_line(&tf.ax[0], b.mode, b.value, dx, dy, (long)n), 0);
                float *ref = malloc(n * 4);
                for (size_t i = 0; i < n; ++i) ref[i] = (float)dy[i];
                rb_status st = rb_recurrence_1d(g, f, b, x, y, n, RB_MEMORY_HOST);
                if (st != RB_OK) fprintf(stderr, "test_gpu: 1d: %s\n", rb_context_error(g));
                assert_int_equal(st, RB_OK);
                double mx, rel = compare(y, ref, RB_F32, n, &mx);
                /* device, in place */
                float *d;
                assert_int_equal(cudaMalloc((void **)&d, n * 4), cudaSuccess);
                assert_int_equal(cudaMemcpy(d, x, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
                assert_int_equal(rb_recurrence_1d(g, f, b, d, d, n, RB_MEMORY_DEVICE), RB_OK);
                assert_int_equal(cudaMemcpy(y, d, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
                double rel2 = compare(y, ref, RB_F32, n, &mx);
                cudaFree(d);
                /* the 1D scan keeps float states: orders 1-2 hold 1e-5, higher orders
                 * 1e-4 (as test_gpu_1d_sat; periodic order 4 at n = 100003 gave 1.1e-4) */
                const double tol1d = order <= 2 ? 1e-5 : 1e-4;
                if (!(rel <= tol1d) || !(rel2 <= tol1d)) {
                    bad++;
                    fprintf(stderr, "test_gpu: 1d %s order %d n %zu: rel RMS %.3g (host), %.3g (device)\n",
                            rb_boundary_name(b.mode), order, n, rel, rel2);
                }
                free(x);
                free(y);
                free(dx);
                free(dy);
                free(ref);
                rb_filter_destroy(f);
            }
    assert_int_equal(bad, 0);
    rb_context_destroy(g);
}

/* Wide Gaussians take the plan's padded route (closed forms ill-conditioned):
 * the GPU runs it too, and matches the CPU back end. */
static void test_gpu_wide_gaussian(void **state)
{
    (void)state;
    NEED_GPU();
    if (!gpu_order_wanted(4)) { /* the Gaussian's order: not compiled in a build without it */
        fprintf(stderr, "test_gpu: order 4 not in RB_TEST_ORDERS: the wide Gaussians skipped\n");
        skip();
    }
    rb_context *ctx = gpu_test_context(RB_BACKEND_AUTO);
    const int w = 301, h = 203, ch = 2;
    const double sigmas[2] = {40.0, 200.0};
    int bad = 0;
    for (int si = 0; si < 2; ++si)
        for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode) {
            rb_filter *f;
            assert_int_equal(rb_filter_gaussian(ctx, sigmas[si], sigmas[si] * 0.5, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
            rb_boundary b = {(rb_boundary_mode)mode, 0.3f};
            size_t count = (size_t)w * h * ch;
            float *in = malloc(count * sizeof(float));
            tu_fill_random(in, RB_F32, count);
            rb_image im = image(w, h, ch, RB_F32, in);
            char name[160];
            float *g = run_backend(RB_BACKEND_CUDA, f, b, &im, RB_F32, name, sizeof name);
            float *c = run_backend(RB_BACKEND_CPU, f, b, &im, RB_F32, NULL, 0);
            assert_non_null(strstr(name, "cuda"));
            double mx, rel = compare(g, c, RB_F32, count, &mx);
            if (!(rel <= 1e-5)) {
                bad++;
                fprintf(stderr, "test_gpu: gaussian sigma %g, %s: GPU vs CPU rel RMS %.3g\n", sigmas[si],
                        rb_boundary_name((rb_boundary_mode)mode), rel);
            }
            free(in);
            free(g);
            free(c);
            rb_filter_destroy(f);
        }
    assert_int_equal(bad, 0);
    rb_context_destroy(ctx);
}

/* The independent float64 reference of filter tf on in (w x h x ch, F32),
 * rounded to float for compare(); the caller frees it. */
static float *reference_f32(const test_filter *tf, rb_boundary b, const float *in, int w, int h, int ch)
{
    const size_t count = (size_t)w * h * ch;
    double *din = malloc(count * sizeof(double)), *dref = malloc(count * sizeof(double));
    float *fref = malloc(count * sizeof(float));
    assert_true(din && dref && fref);
    for (size_t i = 0; i < count; ++i) din[i] = in[i];
    assert_int_equal(ref_filter_image(&tf->ax[0], &tf->ax[1], b, din, dref, w, h, ch), 0);
    for (size_t i = 0; i < count; ++i) fref[i] = (float)dref[i];
    free(din);
    free(dref);
    return fref;
}

/* The engine's Gaussian of sigmas (sx, sy) and its public form in tf, for
 * the float64 reference. */
static rb_filter *gaussian_public(rb_context *ctx, double sx, double sy, test_filter *tf)
{
    rb_filter *f;
    assert_int_equal(rb_filter_gaussian(ctx, sx, sy, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    memset(tf, 0, sizeof *tf);
    for (int a = 0; a < 2; ++a) {
        const rb_axis *ax = &f->axis[a];
        rb_axis_filter *pf = &tf->ax[a];
        pf->causal_order = ax->causal_order;
        pf->anticausal_order = ax->anticausal_order;
        for (int k = 0; k < ax->r; ++k) {
            pf->causal[k] = -ax->dc[k];
            pf->anticausal[k] = -ax->da[k];
        }
        pf->fir = ax->fir;
        pf->fir_lo = ax->fir_lo;
        pf->fir_hi = ax->fir_hi;
    }
    return f;
}

/* The tiled solver's arithmetic on the host (no GPU needed): the same
 * mode x order x size x filter cases as test_gpu_matches_cpu_all_modes (same
 * random filters and data), plus wide Gaussians (padded route), against the
 * CPU back end and the float64 reference, same tolerances. */
static void test_tiled_solver_emulated(void **state)
{
    (void)state;
    uint64_t saved = tu_state;
    rb_context *ctx = backend_ctx(RB_BACKEND_CPU);
    tu_state = suite_seed;
    {
        test_filter tf; /* the draws of test_cuda_backend_request */
        rb_filter_destroy(make_filter(ctx, 2, 1, 0.8, &tf));
    }
    int cases = 0, bad = 0;
    double worst = 0, worst_ref = 0;
    /* pass 1: orders 6-8 after the rest, so the draws of orders 1-5 stay those of
     * earlier runs (the seed notes of docs/RELIABILITY.md) */
    for (int pass = 0; pass < 2; ++pass)
    for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE + 1; ++mode)
        for (int order = pass ? 6 : 1; order <= (pass ? 8 : 5); ++order)
            for (int si = 0; si < NSIZES; ++si) {
                const int gauss = mode == RB_BOUNDARY_NONE + 1; /* wide Gaussians, all modes */
                if (gauss && (si >= 2 || pass)) continue;
                int w = gauss ? 97 : sizes[si][0], h = gauss ? 61 : sizes[si][1];
                int ch = gauss ? 1 + order % 3 : 1 + (order + si + mode) % 4;
                int kind = (order + si) % 3;
                double pmax = (si % 2) ? 0.99 : 0.9;
                rb_boundary_mode bm = gauss ? (rb_boundary_mode)(order - 1 + 5 * si) : (rb_boundary_mode)mode;
                if (gauss && bm > RB_BOUNDARY_NONE) continue;
                test_filter tf;
                rb_filter *f;
                if (gauss) {
                    f = gaussian_public(ctx, 150.0 + 20 * order, 30.0 * order, &tf);
                    pmax = 0.9;
                } else {
                    f = make_filter(ctx, order, kind, pmax, &tf);
                }
                rb_boundary b = {bm, bm == RB_BOUNDARY_CONSTANT ? 0.3f : 0.0f};
                size_t count = (size_t)w * h * ch;
                float *in = malloc(count * sizeof(float)), *e = malloc(count * sizeof(float));
                assert_non_null(in);
                assert_non_null(e);
                tu_fill_random(in, RB_F32, count);
                rb_image im = image(w, h, ch, RB_F32, in);
                float *c = run_backend(RB_BACKEND_CPU, f, b, &im, RB_F32, NULL, 0);
                rb_plan *plan;
                assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
                int rc = rb_gpu_emulate_2d(plan, in, e, b.value);
                assert_int_equal(rc, 0);
                double mx, rel = compare(e, c, RB_F32, count, &mx), rref = 0;
                double tol = pmax <= 0.9 ? 1e-5 : 1e-4;
                {
                    float *fref = reference_f32(&tf, b, in, w, h, ch);
                    rref = compare(e, fref, RB_F32, count, &mx);
                    free(fref);
                }
                if (!(rref <= tol) || !(rel <= tol)) {
                    bad++;
                    fprintf(stderr, "test_gpu: emulated tiled solver: %s%s order %d kind %d %dx%dx%d pmax %.2f "
                            "(cols %s, rows %s): rel RMS %.3g vs CPU, %.3g vs reference (tol %.0e)\n",
                            gauss ? "gaussian " : "", rb_boundary_name(bm), order, kind, w, h, ch, pmax,
                            plan->cols.padded ? "padded" : "closed form", plan->rows.padded ? "padded" : "closed form",
                            rel, rref, tol);
                }
                if (rel > worst) worst = rel;
                if (rref > worst_ref) worst_ref = rref;
                cases++;
                rb_plan_destroy(plan);
                free(in);
                free(e);
                free(c);
                rb_filter_destroy(f);
            }
    fprintf(stderr, "test_gpu: emulated tiled solver: %d cases, worst rel RMS %.3g vs CPU, %.3g vs "
            "reference; %d failures\n", cases, worst, worst_ref, bad);
    assert_int_equal(bad, 0);
    rb_context_destroy(ctx);
    tu_state = saved;
}

/* The double-carry chain (rb_tiled_chain.cuh) walks a lane's blocks with its
 * loads a ring of D blocks ahead (D = 16 .. 1 by order and pass), the line's
 * last block apart, in one thread a lane and (few lanes) split, the lane's
 * state spread over 1, 2 or 4 threads (orders 3, 5 and 7 leave a thread's
 * second slot empty), each case both ways: double carries forced
 * (RECBLUR_CUDA_CARRY=double) on lines of 1, 2, 4, 5, 8, 9, 16, 17 and 33
 * blocks, a short last block each, along rows and along columns, every mode,
 * against the CPU back end and the float64 reference. A tail, head or state
 * taken from the wrong block or the wrong thread, or a block skipped at a
 * ring's end, is off by far more than the tolerance. */
static void test_double_chain_emulated(void **state)
{
    (void)state;
    static const int nbs[] = {1, 2, 4, 5, 8, 9, 16, 17, 33}, orders[] = {1, 2, 3, 4, 5, 7, 8};
    const uint64_t saved = tu_state; /* the later tests' draws stay those of earlier runs */
    rb_context *ctx = backend_ctx(RB_BACKEND_CPU);
    assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_CARRY", "double"), RB_OK);
    int cases = 0, bad = 0;
    double worst = 0;
    for (int oi = 0; oi < (int)(sizeof orders / sizeof orders[0]); ++oi)
        for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode)
            for (int ni = 0; ni < (int)(sizeof nbs / sizeof nbs[0]); ++ni)
                for (int along_cols = 0; along_cols < 2; ++along_cols) {
                    const int n = 32 * (nbs[ni] - 1) + 13, order = orders[oi];
                    const int w = along_cols ? 2 : n, h = along_cols ? n : 2, ch = 1 + (oi + ni) % 2;
                    test_filter tf;
                    rb_filter *f = make_filter(ctx, order, (order + ni) % 3, 0.9, &tf);
                    rb_boundary b = {(rb_boundary_mode)mode, mode == RB_BOUNDARY_CONSTANT ? 0.3f : 0.0f};
                    size_t count = (size_t)w * h * ch;
                    float *in = malloc(count * sizeof(float)), *e = malloc(count * sizeof(float));
                    assert_true(in && e);
                    tu_fill_random(in, RB_F32, count);
                    rb_image im = image(w, h, ch, RB_F32, in);
                    float *c = run_backend(RB_BACKEND_CPU, f, b, &im, RB_F32, NULL, 0);
                    rb_plan *plan;
                    assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
                    float *fref = reference_f32(&tf, b, in, w, h, ch);
                    /* these few lanes take the split chain; the one-thread chain (many lanes) too */
                    for (int one = 0; one < 2; ++one) {
                        if (one) setenv("RB_EMU_CHAIN", "one", 1);
                        assert_int_equal(rb_gpu_emulate_2d(plan, in, e, b.value), 0);
                        unsetenv("RB_EMU_CHAIN");
                        double mx, rel = compare(e, c, RB_F32, count, &mx), rref = compare(e, fref, RB_F32, count, &mx);
                        if (!(rel <= 1e-5) || !(rref <= 1e-5)) {
                            bad++;
                            fprintf(stderr, "test_gpu: double chain, emulated (%s): %s order %d %dx%dx%d (%d blocks): "
                                    "rel RMS %.3g vs CPU, %.3g vs reference (tol 1e-05)\n", one ? "one thread" : "split",
                                    rb_boundary_name(b.mode), order, w, h, ch, nbs[ni], rel, rref);
                        }
                        if (rel > worst) worst = rel;
                        if (rref > worst) worst = rref;
                        cases++;
                    }
                    rb_plan_destroy(plan);
                    free(in);
                    free(e);
                    free(fref);
                    free(c);
                    rb_filter_destroy(f);
                }
    fprintf(stderr, "test_gpu: double chain, emulated: %d cases, worst rel RMS %.3g; %d failures\n", cases, worst,
            bad);
    assert_int_equal(bad, 0);
    rb_context_destroy(ctx);
    tu_state = saved;
}

/* The mirror Gaussian from sigma 4 (double carries, so padded, with its 7-tap
 * FIR): the pad blocks within one reflection of the line take
 * rb_tiled_load_mirror_fir (each reflected sample read once), which the wide
 * Gaussians above, mostly beyond [-n, 2n), barely reach. Both axes, lines
 * from 37 to 1000 samples (a block cut by the line's end, a pad rounded up
 * to whole blocks), 1 and 4 channels, against the CPU back end and the
 * float64 reference. */
static void test_gauss_mirror_emulated(void **state)
{
    (void)state;
    static const int sizes_gm[][2] = {{257, 129}, {1000, 37}, {37, 300}};
    static const double sigmas[] = {6.0, 30.0};
    const uint64_t saved = tu_state;
    rb_context *ctx = backend_ctx(RB_BACKEND_CPU);
    int cases = 0, bad = 0;
    double worst = 0;
    for (int si = 0; si < 3; ++si)
        for (int gi = 0; gi < 2; ++gi)
            for (int ch = 1; ch <= 4; ch += 3) {
                const int w = sizes_gm[si][0], h = sizes_gm[si][1];
                test_filter tf;
                rb_filter *f = gaussian_public(ctx, sigmas[gi], sigmas[gi], &tf);
                const rb_boundary b = {RB_BOUNDARY_MIRROR, 0.0f};
                const size_t count = (size_t)w * h * ch;
                float *in = malloc(count * sizeof(float)), *e = malloc(count * sizeof(float));
                assert_true(in && e);
                tu_fill_random(in, RB_F32, count);
                rb_image im = image(w, h, ch, RB_F32, in);
                float *c = run_backend(RB_BACKEND_CPU, f, b, &im, RB_F32, NULL, 0);
                rb_plan *plan;
                assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
                assert_int_equal(rb_gpu_emulate_2d(plan, in, e, b.value), 0);
                float *fref = reference_f32(&tf, b, in, w, h, ch);
                double mx, rel = compare(e, c, RB_F32, count, &mx), rref = compare(e, fref, RB_F32, count, &mx);
                if (!(rel <= 1e-5) || !(rref <= 1e-5)) {
                    bad++;
                    fprintf(stderr, "test_gpu: mirror Gaussian, emulated: sigma %g %dx%dx%d: rel RMS %.3g vs CPU, "
                            "%.3g vs reference (tol 1e-05)\n", sigmas[gi], w, h, ch, rel, rref);
                }
                if (rel > worst) worst = rel;
                if (rref > worst) worst = rref;
                cases++;
                rb_plan_destroy(plan);
                free(in);
                free(e);
                free(fref);
                free(c);
                rb_filter_destroy(f);
            }
    fprintf(stderr, "test_gpu: mirror Gaussian, emulated: %d cases, worst rel RMS %.3g; %d failures\n", cases,
            worst, bad);
    assert_int_equal(bad, 0);
    rb_context_destroy(ctx);
    tu_state = saved;
}

/* A FIR alone on both axes (order 0, which the tiled solver runs as order 1
 * with a zero feedback; until the blocked solver was retired it took these),
 * every mode: the emulated tiled solver, and the GPU where there is one,
 * against the CPU back end and the float64 reference. */
static void test_fir_only_axes(void **state)
{
    (void)state;
    rb_context *ctx = backend_ctx(RB_BACKEND_CPU);
    test_filter tf;
    memset(&tf, 0, sizeof tf);
    for (int a = 0; a < 2; ++a) {
        rb_axis_filter *pf = &tf.ax[a];
        pf->fir_lo = -2 + a;
        pf->fir_hi = pf->fir_lo + 4;
        for (int t = 0; t < 5; ++t) tf.taps[a][t] = 0.05 + tu_uniform();
        pf->fir = tf.taps[a];
    }
    rb_filter *f;
    assert_int_equal(rb_filter_create(ctx, &tf.ax[0], &tf.ax[1], &f), RB_OK);
    int bad = 0;
    for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode) {
        const int w = 37, h = 29, ch = 3;
        const size_t count = (size_t)w * h * ch;
        rb_boundary b = {(rb_boundary_mode)mode, mode == RB_BOUNDARY_CONSTANT ? 0.3f : 0.0f};
        float *in = malloc(count * sizeof(float)), *e = malloc(count * sizeof(float)), *fref = malloc(count * sizeof(float));
        double *din = malloc(count * sizeof(double)), *dref = malloc(count * sizeof(double));
        assert_true(in && e && fref && din && dref);
        tu_fill_random(in, RB_F32, count);
        rb_image im = image(w, h, ch, RB_F32, in);
        float *c = run_backend(RB_BACKEND_CPU, f, b, &im, RB_F32, NULL, 0);
        for (size_t i = 0; i < count; ++i) din[i] = in[i];
        assert_int_equal(ref_filter_image(&tf.ax[0], &tf.ax[1], b, din, dref, w, h, ch), 0);
        for (size_t i = 0; i < count; ++i) fref[i] = (float)dref[i];
        rb_plan *plan;
        assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
        assert_int_equal(rb_gpu_emulate_2d(plan, in, e, b.value), 0);
        rb_plan_destroy(plan);
        double mx, rel = compare(e, c, RB_F32, count, &mx), rref = compare(e, fref, RB_F32, count, &mx);
        double gref = 0;
        if (gpu_present()) {
            char name[160];
            float *g = run_backend(RB_BACKEND_CUDA, f, b, &im, RB_F32, name, sizeof name);
            gref = compare(g, fref, RB_F32, count, &mx);
            free(g);
        }
        if (!(rel <= 1e-5) || !(rref <= 1e-5) || !(gref <= 1e-5)) {
            bad++;
            fprintf(stderr, "test_gpu: FIR only, %s: emulated rel RMS %.3g vs CPU, %.3g vs reference; GPU %.3g "
                    "vs reference\n", rb_boundary_name(b.mode), rel, rref, gref);
        }
        free(in);
        free(e);
        free(fref);
        free(din);
        free(dref);
        free(c);
    }
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    assert_int_equal(bad, 0);
}

int main(int argc, char **argv)
{
    /* A fixed seed unless RB_TEST_SEED says otherwise: random seeds found two
     * cases where the tiled solver missed its tolerance (seed 3: periodic
     * closure inverted in double; seed 14: the (44) sum, CPU too), both fixed
     * (docs/RELIABILITY.md), but seed 14 passes with a margin of only 2x (the
     * tiled padded route of a sigma-210 Gaussian on 97 samples), so CI must not
     * pass or fail by the draw yet. tu_seed prints the seed either way. */
    if (!getenv("RB_TEST_SEED"))
        setenv("RB_TEST_SEED", "1", 0);
    suite_seed = tu_seed("test_gpu");
    /* RB_TEST_ONLY=test_gpu_matches_cpu_all_modes runs one test (a planted build's check) */
    if (getenv("RB_TEST_ONLY")) cmocka_set_test_filter(getenv("RB_TEST_ONLY"));
    /* no device needed: the clear error without one, the tiled solver's
     * arithmetic in the CPU emulation (ctest: test_gpu_no_device) */
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_cuda_backend_request),
        cmocka_unit_test(test_tiled_solver_emulated),
        cmocka_unit_test(test_double_chain_emulated),
        cmocka_unit_test(test_gauss_mirror_emulated),
        cmocka_unit_test(test_fir_only_axes),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_gpu_matches_cpu_all_modes),
        cmocka_unit_test(test_gpu_orders_6_8),
        cmocka_unit_test(test_long_fir_auto_cpu),
        cmocka_unit_test(test_gpu_formats_alpha),
        cmocka_unit_test(test_gpu_device_memory_and_inplace),
        cmocka_unit_test(test_gpu_sat),
        cmocka_unit_test(test_gpu_recurrence_1d),
        cmocka_unit_test(test_gpu_wide_gaussian),
    };
    return RB_GPU_SUITE_MAIN(argc, argv, host, device, NULL, NULL);
}
