/* Where a 2D call's time goes, fused (the column final + row stage 1 of
 * rb_tiled_cols_rows.cuh) and not (RECBLUR_CUDA_FUSE=off), on device images:
 * helper fuse found the fused order-3 call a near-constant 0.14-0.2 ms above
 * its own kernels' event times, orders 1 and 5 not (bench/RESULTS.md,
 * 2026-11-27). For each order and route, same plan, same run, medians of RUNS
 * calls on fresh input (a fill and a device sync before each, as gpu_bench):
 *   call   rb_execute between legacy-stream events (gpu_bench's figure), and
 *          its host wall time;
 *   b2b    host wall of calls back to back (no refill, no sync between);
 *   prof   RECBLUR_CUDA_PROFILE=1 on fresh input: the steps' event sum and
 *          the host wall of that call;
 *   split  the solver's two entries called directly on the plan's buffers and
 *          stream: host time to enqueue each (the launches return), GPU time of
 *          each (events on the plan's stream), then the wait;
 *   sync   the same with a stream sync after each entry (host wall each).
 *   gpu_fuse_bench [--MODE] [--alloc] [--cpu-ref] [n] [channels] [orders...]
 *   (default --clamp 4096 1 1 2 3 4 5; --alloc, --cpu-ref: as gpu_bench does, images
 *   allocated per order before its plan, a CPU back-end run before the timing) */
#include "recblur.h"
#include "bench_cuda.h"
#include "rb_internal.h"
#include "rb_cuda.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 30

/* fresh input, waited for (the timed call starts on an idle GPU, as in gpu_bench) */
static void fill(float *d, size_t n, unsigned seed)
{
    bench_fill(d, n, seed);
    CK(cudaDeviceSynchronize());
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* the profiled call's step times, from the back end's log */
static double last_steps[8];
static int have_steps;
static void on_log(const char *msg, void *user)
{
    (void)user;
    const char *p = strstr(msg, "cuda steps (ms): ");
    if (!p) return;
    double *t = last_steps;
    have_steps = sscanf(p, "cuda steps (ms): in %lf | columns: stage1 %lf chain %lf final %lf | rows: stage1 %lf "
                           "chain %lf final %lf | out %lf",
                        &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]) == 8;
}

typedef struct {
    double call_ev, call_wall, b2b, prof_sum, prof_wall, enq1, enq2, wait, gpu1, gpu2, sync1, sync2;
} figures;

static void one_route(rb_context *ctx, rb_plan *plan, rb_image *di, rb_image *dout, float *din, size_t count,
                      int fused, figures *fg)
{
    std::vector<double> ev, wall, b2b, psum, pwall, enq1, enq2, wait, g1, g2, s1, s2;
    RK(ctx, rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", fused ? "on" : "off"));
    RK(ctx, rb_execute(plan, di, dout)); /* warm-up */
    for (int i = 0; i < RUNS; ++i) {
        fill(din, count, 100 + i);
        double t0 = now_ms();
        ev.push_back(bench_event_ms([&] { RK(ctx, rb_execute(plan, di, dout)); }));
        wall.push_back(now_ms() - t0);
    }
    for (int i = 0; i < RUNS; ++i) {
        double t0 = now_ms();
        RK(ctx, rb_execute(plan, di, dout));
        b2b.push_back(now_ms() - t0);
    }
    RK(ctx, rb_switch_set(ctx, "RECBLUR_CUDA_PROFILE", "1"));
    RK(ctx, rb_execute(plan, di, dout));
    for (int i = 0; i < RUNS; ++i) {
        fill(din, count, 200 + i);
        have_steps = 0;
        double t0 = now_ms();
        RK(ctx, rb_execute(plan, di, dout));
        pwall.push_back(now_ms() - t0);
        double s = 0;
        for (int k = 0; k < 8; ++k) s += last_steps[k];
        psum.push_back(have_steps ? s : NAN);
    }
    RK(ctx, rb_switch_set(ctx, "RECBLUR_CUDA_PROFILE", NULL));

    /* the solver's entries themselves, as rb_cuda_execute_2d calls them for a
     * packed float device image (boundary constants as the last execute left them) */
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    const size_t lanes = (size_t)plan->width * plan->channels, rlanes = (size_t)plan->height * plan->channels;
    s->col_axis->ld = s->col_axis->ld_out = (long long)lanes;
    s->row_axis->ld = s->row_axis->ld_out = (long long)lanes;
    float *rcarry = s->carry + s->fuse_off;
    cudaEvent_t e[3];
    for (int k = 0; k < 3; ++k) CK(cudaEventCreate(&e[k]));
    auto first = [&] {
        return fused ? rb_cuda_tiled_cols_making_row_carries(s->col_axis, s->row_axis, din, s->A, s->carry, rcarry,
                                                             lanes, rlanes, s->stream, NULL)
                     : rb_cuda_tiled_axis(s->col_axis, din, s->A, s->carry, lanes, s->stream, NULL);
    };
    auto second = [&] {
        return fused ? rb_cuda_tiled_rows_from_carries(s->row_axis, s->A, (float *)dout->data, rcarry, rlanes,
                                                       s->stream, NULL)
                     : rb_cuda_tiled_axis(s->row_axis, s->A, (float *)dout->data, s->carry, rlanes, s->stream, NULL);
    };
    for (int i = 0; i < RUNS; ++i) {
        fill(din, count, 300 + i);
        double t0 = now_ms();
        CK(cudaEventRecord(e[0], s->stream));
        CK(first());
        double t1 = now_ms();
        CK(cudaEventRecord(e[1], s->stream));
        CK(second());
        CK(cudaEventRecord(e[2], s->stream));
        double t2 = now_ms();
        CK(cudaStreamSynchronize(s->stream));
        double t3 = now_ms();
        float a = 0, b = 0;
        CK(cudaEventElapsedTime(&a, e[0], e[1]));
        CK(cudaEventElapsedTime(&b, e[1], e[2]));
        enq1.push_back(t1 - t0);
        enq2.push_back(t2 - t1);
        wait.push_back(t3 - t2);
        g1.push_back(a);
        g2.push_back(b);
    }
    for (int i = 0; i < RUNS; ++i) {
        fill(din, count, 400 + i);
        double t0 = now_ms();
        CK(first());
        CK(cudaStreamSynchronize(s->stream));
        double t1 = now_ms();
        CK(second());
        CK(cudaStreamSynchronize(s->stream));
        s1.push_back(t1 - t0);
        s2.push_back(now_ms() - t1);
    }
    for (int k = 0; k < 3; ++k) CK(cudaEventDestroy(e[k]));
    RK(ctx, rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", NULL));
    fg->call_ev = bench_median(ev);
    fg->call_wall = bench_median(wall);
    fg->b2b = bench_median(b2b);
    fg->prof_sum = bench_median(psum);
    fg->prof_wall = bench_median(pwall);
    fg->enq1 = bench_median(enq1);
    fg->enq2 = bench_median(enq2);
    fg->wait = bench_median(wait);
    fg->gpu1 = bench_median(g1);
    fg->gpu2 = bench_median(g2);
    fg->sync1 = bench_median(s1);
    fg->sync2 = bench_median(s2);
}

int main(int argc, char **argv)
{
    rb_boundary_mode mode = RB_BOUNDARY_CLAMP;
    int like_gpu_bench = 0, cpu_ref = 0;
    while (argc > 1 && !strncmp(argv[1], "--", 2)) { /* --zero, --periodic, --mirror, ... */
        for (int m = RB_BOUNDARY_ZERO; m <= RB_BOUNDARY_NONE; ++m)
            if (!strcmp(argv[1] + 2, rb_boundary_name((rb_boundary_mode)m))) mode = (rb_boundary_mode)m;
        if (!strcmp(argv[1], "--alloc")) like_gpu_bench = 1; /* images allocated per order, before the plan */
        if (!strcmp(argv[1], "--cpu-ref")) cpu_ref = 1;      /* a CPU back-end run of the image before timing */
        argc--;
        argv++;
    }
    const int n = argc > 1 ? atoi(argv[1]) : 4096, ch = argc > 2 ? atoi(argv[2]) : 1;
    int orders[8] = {1, 2, 3, 4, 5}, norders = 5;
    if (argc > 3) {
        norders = 0;
        for (int i = 3; i < argc && norders < 8; ++i) orders[norders++] = atoi(argv[i]);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs; %d^2 x %d float32 on device, %s; medians of %d\n", prop.name, prop.multiProcessorCount,
           n, ch, rb_boundary_name(mode), RUNS);
    const size_t count = (size_t)n * n * ch;
    float *din, *dout, *dref;
    CK(cudaMalloc((void **)&din, count * 4));
    CK(cudaMalloc((void **)&dout, count * 4));
    CK(cudaMalloc((void **)&dref, count * 4));
    std::vector<double> cp;
    for (int i = 0; i < RUNS; ++i) {
        fill(din, count, 1000 + i);
        cp.push_back(bench_event_ms([&] { CK(cudaMemcpyAsync(dref, din, count * 4, cudaMemcpyDeviceToDevice, 0)); }));
    }
    const double copy = bench_median(cp);
    printf("# device-to-device copy of the image: %.4f ms\n", copy);
    printf("| order | route | call (events) | fraction of copy | call (host) | back to back | profiled: steps | "
           "profiled: host | enqueue 1 / 2 | GPU 1 / 2 | wait | synced 1 / 2 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    rb_context *ctx;
    if (rb_context_create(&ctx) != RB_OK) return 2;
    rb_context_set_log(ctx, on_log, NULL);
    RK(ctx, rb_context_set_backend(ctx, RB_BACKEND_CUDA));
    std::vector<float> h1(count), h2(count);
    rb_context *cctx = NULL;
    if (cpu_ref && (rb_context_create(&cctx) != RB_OK || rb_context_set_backend(cctx, RB_BACKEND_CPU) != RB_OK))
        return 2;
    printf("# images allocated %s; %s\n", like_gpu_bench ? "per order, before its plan (as gpu_bench)" : "once",
           cpu_ref ? "a CPU back-end run of the image before the timing (as gpu_bench's check)" : "no CPU run");
    for (int oi = 0; oi < norders; ++oi) {
        rb_filter *f = bench_filter(ctx, orders[oi]);
        rb_plan *plan;
        if (like_gpu_bench) {
            CK(cudaFree(din));
            CK(cudaFree(dout));
            CK(cudaMalloc((void **)&din, count * 4));
            CK(cudaMalloc((void **)&dout, count * 4));
        }
        rb_boundary b = {mode, 0.25f};
        RK(ctx, rb_plan_create(ctx, f, b, n, n, ch, &plan));
        rb_image di = bench_square_image(n, ch, RB_F32, RB_MEMORY_DEVICE, din), dout_im = di;
        dout_im.data = dout;
        /* the two routes' outputs on one input: the same bits */
        long ndiff = 0;
        for (int fused = 0; fused < 2; ++fused) {
            RK(ctx, rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", fused ? "on" : "off"));
            fill(din, count, 7);
            RK(ctx, rb_execute(plan, &di, &dout_im));
            if (rb_cuda_plan_fused(plan) != fused) {
                fprintf(stderr, "order %d: RECBLUR_CUDA_FUSE=%s did not take its route\n", orders[oi], fused ? "on" : "off");
                return 3;
            }
            CK(cudaMemcpy(fused ? h2.data() : h1.data(), dout, count * 4, cudaMemcpyDeviceToHost));
        }
        for (size_t i = 0; i < count; ++i) ndiff += memcmp(&h1[i], &h2[i], 4) != 0;
        RK(ctx, rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", NULL));
        if (cpu_ref) {
            rb_plan *cp;
            RK(cctx, rb_plan_create(cctx, f, b, n, n, ch, &cp));
            CK(cudaMemcpy(h1.data(), din, count * 4, cudaMemcpyDeviceToHost));
            rb_image hi = bench_square_image(n, ch, RB_F32, RB_MEMORY_HOST, h1.data());
            rb_image ho = bench_square_image(n, ch, RB_F32, RB_MEMORY_HOST, h2.data());
            RK(cctx, rb_execute(cp, &hi, &ho));
            rb_plan_destroy(cp);
        }
        for (int fused = 1; fused >= 0; --fused) {
            figures fg;
            one_route(ctx, plan, &di, &dout_im, din, count, fused, &fg);
            printf("| %d | %s | %.4f | %.3f | %.4f | %.4f | %.4f | %.4f | %.4f / %.4f | %.4f / %.4f | %.4f | %.4f / %.4f |\n",
                   orders[oi], fused ? "fused" : "=off", fg.call_ev, copy / fg.call_ev, fg.call_wall, fg.b2b,
                   fg.prof_sum, fg.prof_wall, fg.enq1, fg.enq2, fg.gpu1, fg.gpu2, fg.wait, fg.sync1, fg.sync2);
        }
        if (ndiff) printf("  NOTE: order %d: fused and unfused outputs differ in %ld floats\n", orders[oi], ndiff);
        rb_plan_destroy(plan);
        rb_filter_destroy(f);
    }
    rb_context_destroy(ctx);
    if (cctx) rb_context_destroy(cctx);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(dref));
    return 0;
}
