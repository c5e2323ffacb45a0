/* The Gaussian on DEVICE images through the fused column final + row stage 1
 * (issue 19 item 4): rb_cuda_execute fuses only where the output is not a
 * host image going down in strips, so test_gpu's host-image cases never
 * reach it (bench/RESULTS.md, 2026-11-27 09:28). Here in and out are
 * cudaMalloc'd float32 images, 1, 2 and 4 channels, odd sizes, sigma 2
 * (float carries), 8 and 30 (double carries), clamp, periodic and mirror,
 * each run with RECBLUR_CUDA_FUSE=on and =off: both against the independent
 * float64 reference (tests/reference.c) at the engine's 1e-5 relative RMS,
 * and against each other bit for bit (the fused kernel makes the row carries
 * with the same functions on the same floats as the row stage 1). Every
 * case must be one the fused route covers (rb_cuda_tiled_can_fuse), so the
 * switch really changes the route. Each case also runs with =both, the final
 * stage of both axes in one kernel after the fused kernel without its pixel
 * writes (rb_tiled_final_both_fir, four image transfers): the route asserted
 * (rb_cuda_plan_fused = 2), against the reference, and against =off bit for
 * bit (the same per-block functions on the same floats). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_internal.h"
#include "recblur.h"
#include "reference.h"
#include "rb_tiled.h"
#include "rb_cuda.h" /* rb_cuda_plan_fused: the route taken */
#include "test_util.h"

#define GPU_SUITE "test_gpu_gauss_device"
#include "gpu_skip.h"

/* whether the plan's axes take the fused route when asked (RECBLUR_CUDA_FUSE=on) */
static int fusable(const rb_plan *p, int ch)
{
    rb_cuda_tiled *fc = calloc(1, sizeof *fc), *fr = calloc(1, sizeof *fr);
    assert_true(fc && fr);
    assert_int_equal(rb_cuda_tiled_init(&p->cols, ch, 0, &p->ctx->sw, fc), 0);
    assert_int_equal(rb_cuda_tiled_init(&p->rows, ch, 1, &p->ctx->sw, fr), 0);
    const int ok = rb_cuda_tiled_can_fuse(fc, fr);
    free(fc);
    free(fr);
    return ok;
}

/* f on the device image din -> dout (both w x h x ch packed floats) with
 * RECBLUR_CUDA_FUSE=fuse; the result back in got */
static void run_device(const rb_filter *f, rb_boundary b, int w, int h, int ch, const float *din, float *dout,
                       const char *fuse, float *got, int *fused, int *route)
{
    rb_context *ctx = gpu_test_context(RB_BACKEND_CUDA);
    assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", fuse), RB_OK);
    rb_plan *p;
    rb_status st = rb_plan_create(ctx, f, b, w, h, ch, &p);
    if (st != RB_OK) fprintf(stderr, "%s: plan: %s\n", GPU_SUITE, rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    *fused = fusable(p, ch);
    const size_t count = (size_t)w * h * ch;
    assert_int_equal(cudaMemset(dout, 0xFF, count * sizeof(float)), cudaSuccess); /* NaN poison */
    rb_image di = tu_image(w, h, ch, RB_F32, 0, (void *)din, RB_MEMORY_DEVICE);
    rb_image dd = tu_image(w, h, ch, RB_F32, 0, dout, RB_MEMORY_DEVICE);
    st = rb_execute(p, &di, &dd);
    if (st != RB_OK) fprintf(stderr, "%s: execute: %s\n", GPU_SUITE, rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    *route = rb_cuda_plan_fused(p);
    assert_int_equal(cudaMemcpy(got, dout, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    rb_plan_destroy(p);
    rb_context_destroy(ctx);
}

static void test_gauss_device_fused_unfused(void **state)
{
    (void)state;
    NEED_GPU();
    tu_seed(GPU_SUITE);
    static const int sizes[][2] = {{257, 129}, {1000, 37}, {130, 300}};
    static const int chans[] = {1, 2, 4};
    static const double sigmas[] = {2, 8, 30};
    static const rb_boundary_mode modes[] = {RB_BOUNDARY_CLAMP, RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    rb_context *dctx;
    assert_int_equal(rb_context_create(&dctx), RB_OK);
    double worst[3] = {0, 0, 0};
    int cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ++ci) {
            const int w = sizes[si][0], h = sizes[si][1], ch = chans[ci];
            const size_t count = (size_t)w * h * ch;
            float *in = malloc(count * sizeof(float)), *on = malloc(count * sizeof(float));
            float *off = malloc(count * sizeof(float)), *both = malloc(count * sizeof(float));
            double *ref = malloc(count * sizeof(double));
            assert_true(in && on && off && both && ref);
            float *din, *dout;
            assert_int_equal(cudaMalloc((void **)&din, count * sizeof(float)), cudaSuccess);
            assert_int_equal(cudaMalloc((void **)&dout, count * sizeof(float)), cudaSuccess);
            for (size_t sg = 0; sg < sizeof sigmas / sizeof sigmas[0]; ++sg) {
                rb_filter *f;
                assert_int_equal(rb_filter_gaussian(dctx, sigmas[sg], sigmas[sg], RB_GAUSSIAN_DEFAULT, &f), RB_OK);
                rb_axis_filter pf[2];
                assert_int_equal(rb_filter_get_axis(f, 0, &pf[0]), RB_OK); /* the public form, for the reference */
                assert_int_equal(rb_filter_get_axis(f, 1, &pf[1]), RB_OK);
                for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; ++mi) {
                    const rb_boundary b = {modes[mi], 0.0f};
                    tu_fill_random(in, RB_F32, count); /* fresh input every case */
                    assert_int_equal(cudaMemcpy(din, in, count * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
                    for (size_t i = 0; i < count; ++i) ref[i] = in[i];
                    assert_int_equal(ref_filter_image(&pf[0], &pf[1], b, ref, ref, w, h, ch), 0);
                    int fused_on, fused_off, fused_both, r_on, r_off, r_both;
                    /* =both first: its route reads the column output near the rows' ends
                     * from a scratch image, which a plan of the same input on another
                     * route would leave holding the right values */
                    run_device(f, b, w, h, ch, din, dout, "both", both, &fused_both, &r_both);
                    run_device(f, b, w, h, ch, din, dout, "on", on, &fused_on, &r_on);
                    run_device(f, b, w, h, ch, din, dout, "off", off, &fused_off, &r_off);
                    const double e_on = tu_rel_rms_fd(on, ref, count), e_off = tu_rel_rms_fd(off, ref, count),
                                 e_both = tu_rel_rms_fd(both, ref, count);
                    size_t ndiff = 0, nboth = 0;
                    for (size_t i = 0; i < count; ++i) {
                        ndiff += memcmp(&on[i], &off[i], sizeof(float)) != 0;
                        nboth += memcmp(&both[i], &off[i], sizeof(float)) != 0;
                    }
                    if (!fused_on || r_on != 1 || r_off != 0 || r_both != 2 || !(e_on <= 1e-5) || !(e_off <= 1e-5) ||
                        !(e_both <= 1e-5) || ndiff || nboth)
                        fprintf(stderr,
                                "%s: %dx%d x%d sigma %g %s: fusable %d, routes on/off/both %d/%d/%d, rel RMS fused "
                                "%.3g unfused %.3g both %.3g, %zu floats differ (fused), %zu (both)\n",
                                GPU_SUITE, w, h, ch, sigmas[sg], rb_boundary_name(modes[mi]), fused_on, r_on, r_off,
                                r_both, e_on, e_off, e_both, ndiff, nboth);
                    assert_true(fused_on);
                    assert_int_equal(r_on, 1);
                    assert_int_equal(r_off, 0);
                    assert_int_equal(r_both, 2);
                    assert_true(e_on <= 1e-5);
                    assert_true(e_off <= 1e-5);
                    assert_true(e_both <= 1e-5);
                    assert_int_equal(ndiff, 0);
                    assert_int_equal(nboth, 0);
                    worst[0] = fmax(worst[0], e_on);
                    worst[1] = fmax(worst[1], e_off);
                    worst[2] = fmax(worst[2], e_both);
                    ++cases;
                }
                rb_filter_destroy(f);
            }
            cudaFree(din);
            cudaFree(dout);
            free(in);
            free(on);
            free(off);
            free(both);
            free(ref);
        }
    printf("%s: %d cases, each fused: worst rel RMS fused %.3g, unfused %.3g, final of both axes %.3g against the "
           "float64 reference; fused = both = unfused bit for bit\n",
           GPU_SUITE, cases, worst[0], worst[1], worst[2]);
    rb_context_destroy(dctx);
}

int main(void)
{
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_gauss_device_fused_unfused),
    };
    return RB_GPU_DEVICE_MAIN(device, NULL, NULL);
}
