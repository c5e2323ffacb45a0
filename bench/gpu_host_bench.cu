/* Host-pointer API of the CUDA back end (issue 3 item 4): rb_execute on host
 * images in pageable memory, against a plain pageable cudaMemcpy up + down of
 * the same bytes and a pinned cudaMemcpy up + down (the floor: no route can
 * move host data faster than the DMA engine from pinned memory), all measured
 * in the same run, interleaved run by run.
 *
 * Routes: the filter from device pointers (the compute alone), host images
 * with RECBLUR_CUDA_STAGING=off (pageable cudaMemcpy2DAsync, the route before
 * staging), with staging on (default settings and one setting changed at a
 * time: copy threads, streaming stores, strips, column bands), and from pinned
 * user buffers (direct DMA, with and without the overlaps). The device route is checked against the CPU back end (float
 * rounding) and every host route against the device route byte for byte,
 * before timing. Wall-clock time of the whole synchronous call, median of RUNS
 * runs after a warm-up; host buffers are touched before timing.
 *
 * A CPU-only route, "host copies alone", copies the image pageable -> pinned and
 * pinned -> pageable with the staging's default 8 threads and no GPU at all: the
 * floor of any route that stages a pageable image through the CPU.
 *
 *   gpu_host_bench [--quick|--rgb|--copy-floor] [--no-cpu]
 *     --quick: 4096^2 only, 10 runs; --rgb: 8192^2 RGB 8-bit only, issue 17's
 *     round-trip image; --no-cpu: leave out the CPU back end's route (builds whose
 *     CPU sweep is compiled without optimisation, as the device calls do);
 *     --copy-floor: the staging's CPU copies alone (pageable -> pinned -> pageable,
 *     streaming stores as the staging, and plain memcpy) at 4/8/12/16 threads,
 *     and what locking host memory costs, for 8192^2 RGB 8-bit and float (issue 17
 *     item 3: which floor bounds the CLI's float execute)
 *   RECBLUR_CUDA_PROFILE=1 in the environment: the back end's per-step times
 *   of every GPU call go to stderr, after the route's name */

#include "recblur.h"
#include "rb_internal.h" /* rb_switch_set: the routes set per plan */

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <thread>
#include <emmintrin.h>
#include <vector>

#include "bench_cuda.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The routes, timed interleaved run by run. env: the staging settings the
 * route's plan is made with (read at plan time). */
typedef struct {
    const char *name;
    int kind;            /* 0 memcpy pageable, 1 memcpy pinned, 2 rb_execute host, 3 rb_execute device,
                            4 rb_execute host on the cpu back end (all cores: what the GPU must beat),
                            5 CPU copies alone: pageable -> pinned, pinned -> pageable, 8 threads,
                            6 rb_execute host with the caller's pageable buffers page-locked in place
                              for the call (cudaHostRegister .. cudaHostUnregister, timed with it),
                            7 that registering and unregistering alone */
    int pinned_user;     /* kind 2: the caller's buffers are pinned */
    const char *env[3];  /* NAME=VALUE settings for the plan */
} route;

static const route routes[] = {
    {"pageable cudaMemcpy up + down", 0, 0, {0}},
    {"pinned cudaMemcpy up + down (floor)", 1, 0, {0}},
    {"filter, device pointers (compute only)", 3, 0, {0}},
    {"filter, host: staging off (before)", 2, 0, {"RECBLUR_CUDA_STAGING=off"}},
    {"filter, host: staging on (default)", 2, 0, {0}},
    {"  on, 1 copy thread", 2, 0, {"RECBLUR_CUDA_STAGING_THREADS=1"}},
    {"  on, 4 copy threads", 2, 0, {"RECBLUR_CUDA_STAGING_THREADS=4"}},
    {"  on, 16 copy threads", 2, 0, {"RECBLUR_CUDA_STAGING_THREADS=16"}},
    {"  on, plain memcpy (no streaming stores)", 2, 0, {"RECBLUR_CUDA_STAGING_COPY=memcpy"}},
    {"  on, 1 strip (rows not overlapped)", 2, 0, {"RECBLUR_CUDA_STAGING_STRIPS=1"}},
    {"  on, 8 strips", 2, 0, {"RECBLUR_CUDA_STAGING_STRIPS=8"}},
    {"  on, no column bands (upload not overlapped)", 2, 0, {"RECBLUR_CUDA_STAGING_BANDS=1"}},
    {"  on, 8 column bands", 2, 0, {"RECBLUR_CUDA_STAGING_BANDS=8"}},
    {"  on, 32 MiB slots", 2, 0, {"RECBLUR_CUDA_STAGING_SLOT=33554432"}},
    {"  on, caller's buffers pinned (direct DMA)", 2, 1, {0}},
    {"  on, pinned, no bands, 1 strip (no overlap)", 2, 1, {"RECBLUR_CUDA_STAGING_BANDS=1", "RECBLUR_CUDA_STAGING_STRIPS=1"}},
    {"host copies alone, 8 threads (no GPU: staging's floor)", 5, 0, {0}},
    {"  on, caller's buffers registered for the call", 6, 0, {0}},
    {"cudaHostRegister + unregister of in and out alone", 7, 0, {0}},
    {"cpu back end, all cores, host (same call)", 4, 0, {0}},
};
#define NR (int)(sizeof routes / sizeof routes[0])

static const char *current_route = "";  /* RECBLUR_CUDA_PROFILE=1: whose steps the log shows */
static void log_to_stderr(const char *message, void *user)
{
    (void)user;
    fprintf(stderr, "[%s] %s\n", current_route, message);
}

/* memcpy of n bytes in `threads` parts at once, as the staging's copy threads */
static void copy_threaded(unsigned char *d, const unsigned char *s, size_t n, int threads)
{
    std::vector<std::thread> th;
    const size_t part = (n / threads + 63) & ~(size_t)63;
    for (int t = 1; t < threads; ++t) {
        const size_t b0 = part * t < n ? part * t : n, b1 = part * (t + 1) < n ? part * (t + 1) : n;
        th.emplace_back([=] { memcpy(d + b0, s + b0, b1 - b0); });
    }
    memcpy(d, s, part < n ? part : n);
    for (auto &x : th) x.join();
}

/* The staging's copy (rb_cuda_staging.cu, rb_copy_bytes): 16-byte loads,
 * streaming stores, no read-for-ownership of the destination */
static void copy_nt(unsigned char *d, const unsigned char *s, size_t n)
{
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    memcpy(d + i, s + i, n - i);
    _mm_sfence();
}

/* n bytes in `threads` parts at once; nt: the staging's streaming copy */
static void copy_parts(unsigned char *d, const unsigned char *s, size_t n, int threads, int nt)
{
    std::vector<std::thread> th;
    const size_t part = (n / threads + 63) & ~(size_t)63;
    for (int t = 0; t < threads; ++t) {
        const size_t b0 = part * t < n ? part * t : n, b1 = part * (t + 1) < n && t + 1 < threads ? part * (t + 1) : n;
        th.emplace_back([=] { nt ? copy_nt(d + b0, s + b0, b1 - b0) : (void)memcpy(d + b0, s + b0, b1 - b0); });
    }
    for (auto &x : th) x.join();
}

/* --copy-floor: for 8192^2 RGB 8-bit and float, the staging's CPU copies up
 * (pageable -> pinned) and down (pinned -> pageable) at 4, 8, 12 and 16 threads,
 * the pinned DMA up and down, and the costs of page-locking: what a route that
 * stages pageable images, or one that locks them, cannot go below */
static void copy_floor(int runs)
{
    printf("| image | bytes each way | what | median ms | GB/s (bytes moved / time) |\n|---|---|---|---|---|\n");
    for (int fi = 0; fi < 2; ++fi) {
        const size_t bytes = (size_t)8192 * 8192 * 3 * (fi ? 4 : 1);
        const char *what = fi ? "8192^2 RGB float" : "8192^2 RGB 8-bit";
        unsigned char *src = (unsigned char *)malloc(bytes), *dst = (unsigned char *)malloc(bytes), *pin, *dev;
        if (!src || !dst) { fprintf(stderr, "out of host memory\n"); exit(2); }
        for (size_t i = 0; i < bytes; ++i) src[i] = (unsigned char)(i * 2654435761u >> 13);
        memset(dst, 0, bytes);
        CK(cudaMallocHost((void **)&pin, bytes));
        CK(cudaMalloc((void **)&dev, bytes));
        memset(pin, 0, bytes);
        auto row = [&](const char *name, double ms, double moved) {
            printf("| %s | %zu | %s | %.2f | %.1f |\n", what, bytes, name, ms, moved / ms / 1e6);
            fflush(stdout);
        };
        const int tn[4] = {4, 8, 12, 16};
        for (int nt = 1; nt >= 0; --nt)
            for (int k = 0; k < 4; ++k) {
                std::vector<double> up, down;
                for (int r = -1; r < runs; ++r) {
                    double t0 = now_ms();
                    copy_parts(pin, src, bytes, tn[k], nt);
                    double t1 = now_ms();
                    copy_parts(dst, pin, bytes, tn[k], nt);
                    double t2 = now_ms();
                    if (r >= 0) up.push_back(t1 - t0), down.push_back(t2 - t1);
                }
                if (memcmp(dst, src, bytes)) { fprintf(stderr, "CHECK FAILED: copy\n"); exit(3); }
                char name[96];
                snprintf(name, sizeof name, "CPU copy up, %d threads, %s", tn[k], nt ? "streaming stores" : "memcpy");
                row(name, bench_median(up), (double)bytes);
                snprintf(name, sizeof name, "CPU copy down, %d threads, %s", tn[k], nt ? "streaming stores" : "memcpy");
                row(name, bench_median(down), (double)bytes);
            }
        std::vector<double> h2d, d2h, reg, unreg, halloc, hfree, touch;
        for (int r = -1; r < runs; ++r) {
            double t0 = now_ms();
            CK(cudaMemcpy(dev, pin, bytes, cudaMemcpyHostToDevice));
            double t1 = now_ms();
            CK(cudaMemcpy(pin, dev, bytes, cudaMemcpyDeviceToHost));
            double t2 = now_ms();
            if (r >= 0) h2d.push_back(t1 - t0), d2h.push_back(t2 - t1);
        }
        row("pinned DMA up (cudaMemcpy)", bench_median(h2d), (double)bytes);
        row("pinned DMA down (cudaMemcpy)", bench_median(d2h), (double)bytes);
        {
            unsigned char *dev2;
            std::vector<double> d2d;
            CK(cudaMalloc((void **)&dev2, bytes));
            for (int r = -1; r < runs; ++r) {
                double t0 = now_ms();
                CK(cudaMemcpy(dev2, dev, bytes, cudaMemcpyDeviceToDevice));
                CK(cudaDeviceSynchronize());
                if (r >= 0) d2d.push_back(now_ms() - t0);
            }
            row("device-to-device copy (GB/s: read + write)", bench_median(d2d), 2.0 * bytes);
            CK(cudaFree(dev2));
        }
        for (int r = 0; r < 3; ++r) {
            double t0 = now_ms();
            unsigned char *b = (unsigned char *)malloc(bytes);
            for (size_t i = 0; i < bytes; i += 4096) ((volatile unsigned char *)b)[i] = 0;
            double t1 = now_ms();
            CK(cudaHostRegister(b, bytes, cudaHostRegisterDefault));
            double t2 = now_ms();
            CK(cudaHostUnregister(b));
            double t3 = now_ms();
            free(b);
            unsigned char *a;
            double t4 = now_ms();
            CK(cudaHostAlloc((void **)&a, bytes, cudaHostAllocDefault));
            double t5 = now_ms();
            CK(cudaFreeHost(a));
            double t6 = now_ms();
            touch.push_back(t1 - t0), reg.push_back(t2 - t1), unreg.push_back(t3 - t2);
            halloc.push_back(t5 - t4), hfree.push_back(t6 - t5);
        }
        row("malloc + a write per page, 1 thread (3 runs)", bench_median(touch), (double)bytes);
        row("cudaHostRegister of those pages (3 runs)", bench_median(reg), (double)bytes);
        row("cudaHostUnregister (3 runs)", bench_median(unreg), (double)bytes);
        row("cudaHostAlloc (3 runs)", bench_median(halloc), (double)bytes);
        row("cudaFreeHost (3 runs)", bench_median(hfree), (double)bytes);
        CK(cudaFreeHost(pin));
        CK(cudaFree(dev));
        free(src);
        free(dst);
    }
}

static rb_plan *make_plan(rb_context *ctx, const rb_filter *f, int n, int c, const route *r)
{
    char names[3][64];
    for (int i = 0; i < 3 && r->env[i]; ++i) {
        const char *eq = strchr(r->env[i], '=');
        snprintf(names[i], sizeof names[i], "%.*s", (int)(eq - r->env[i]), r->env[i]);
        rb_switch_set(ctx, names[i], eq + 1);
    }
    rb_plan *p;
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    RK(ctx, rb_plan_create(ctx, f, b, n, n, c, &p));
    for (int i = 0; i < 3 && r->env[i]; ++i) rb_switch_set(ctx, names[i], NULL);
    return p;
}

static void run(rb_context *g, rb_context *cpu, const rb_filter *f, int n, int c, rb_format fmt, int runs, int no_cpu)
{
    const size_t bytes = (size_t)n * n * c * (fmt == RB_F32 ? 4 : 1);
    const char *what = fmt == RB_F32 ? "F32 1ch" : c == 3 ? "RGB U8" : "RGBA U8";
    unsigned char *in = (unsigned char *)malloc(bytes), *out = (unsigned char *)malloc(bytes);
    unsigned char *ref = (unsigned char *)malloc(bytes), *pin_in, *pin_out, *dev, *dev_out;
    if (!in || !out || !ref) { fprintf(stderr, "out of host memory\n"); exit(2); }
    CK(cudaMallocHost((void **)&pin_in, bytes));
    CK(cudaMallocHost((void **)&pin_out, bytes));
    CK(cudaMalloc((void **)&dev, bytes));
    CK(cudaMalloc((void **)&dev_out, bytes));
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < bytes; i += (fmt == RB_F32 ? 4 : 1)) {
        h ^= h << 13; h ^= h >> 7; h ^= h << 17;
        if (fmt == RB_F32) { float v = (float)(h >> 40) / 16777216.0f; memcpy(in + i, &v, 4); }
        else in[i] = (unsigned char)(h >> 56);
    }
    memcpy(pin_in, in, bytes);
    CK(cudaMemcpy(dev, in, bytes, cudaMemcpyHostToDevice));
    memset(out, 0, bytes);
    memset(pin_out, 0, bytes);
    rb_plan *plan[NR] = {0};
    for (int r = 0; r < NR; ++r)
        if ((routes[r].kind >= 2 && routes[r].kind <= 4 && !(routes[r].kind == 4 && no_cpu)) || routes[r].kind == 6)
            plan[r] = make_plan(routes[r].kind == 4 ? cpu : g, f, n, c, &routes[r]);
    rb_image hi = bench_square_image(n, c, fmt, RB_MEMORY_HOST, NULL);
    rb_image ho = hi, di = hi, dO = hi;
    di.memory = dO.memory = RB_MEMORY_DEVICE;
    di.data = dev;
    dO.data = dev_out;
    /* checks: the device route against the cpu back end (float rounding), then
     * every host route against the device route byte for byte */
    RK(g, rb_execute(plan[2], &di, &dO));
    CK(cudaMemcpy(ref, dev_out, bytes, cudaMemcpyDeviceToHost));
    {
        rb_plan *cp;
        rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
        hi.data = in;
        ho.data = out;
        RK(cpu, rb_plan_create(cpu, f, b, n, n, c, &cp));
        RK(cpu, rb_execute(cp, &hi, &ho));
        rb_plan_destroy(cp);
        double mx = 0;
        for (size_t i = 0; i < bytes; i += (fmt == RB_F32 ? 4 : 1)) {
            double a, b;
            if (fmt == RB_F32) { float x, y; memcpy(&x, ref + i, 4); memcpy(&y, out + i, 4); a = x; b = y; }
            else { a = ref[i]; b = out[i]; }
            mx = fmax(mx, fabs(a - b));
        }
        fprintf(stderr, "  %d^2 %s: gpu vs cpu max |diff| %.3g%s\n", n, what, mx, fmt == RB_F32 ? "" : " (8-bit units)");
        if (mx > (fmt == RB_F32 ? 1e-4 : 1.0)) { fprintf(stderr, "CHECK FAILED\n"); exit(3); }
    }
    for (int r = 0; r < NR; ++r) {
        if (routes[r].kind != 2 && routes[r].kind != 6) continue;
        rb_image a = hi, b = ho;
        a.data = routes[r].pinned_user ? pin_in : in;
        b.data = routes[r].pinned_user ? pin_out : out;
        memset(b.data, 0x5A, bytes);
        if (routes[r].kind == 6) {
            CK(cudaHostRegister(in, bytes, cudaHostRegisterDefault));
            CK(cudaHostRegister(out, bytes, cudaHostRegisterDefault));
        }
        RK(g, rb_execute(plan[r], &a, &b));
        if (routes[r].kind == 6) {
            CK(cudaHostUnregister(in));
            CK(cudaHostUnregister(out));
        }
        if (memcmp(b.data, ref, bytes)) { fprintf(stderr, "CHECK FAILED: %s differs from the device route\n", routes[r].name); exit(3); }
    }
    static double t[NR][64];
    for (int i = -1; i < runs; ++i) /* i = -1: warm-up */
        for (int r = 0; r < NR; ++r) {
            const route *R = &routes[r];
            if (R->kind == 4 && no_cpu) continue;
            current_route = R->name;
            double t0 = now_ms();
            if (R->kind == 6 || R->kind == 7) {
                CK(cudaHostRegister(in, bytes, cudaHostRegisterDefault));
                CK(cudaHostRegister(out, bytes, cudaHostRegisterDefault));
                if (R->kind == 6) {
                    rb_image a = hi, b = ho;
                    a.data = in;
                    b.data = out;
                    RK(g, rb_execute(plan[r], &a, &b));
                }
                CK(cudaHostUnregister(in));
                CK(cudaHostUnregister(out));
            } else if (R->kind == 5) {
                copy_threaded(pin_in, in, bytes, 8);
                copy_threaded(out, pin_out, bytes, 8);
            } else if (R->kind <= 1) {
                CK(cudaMemcpy(dev, R->kind ? pin_in : in, bytes, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(R->kind ? pin_out : out, dev, bytes, cudaMemcpyDeviceToHost));
            } else if (R->kind == 3) {
                RK(g, rb_execute(plan[r], &di, &dO));
            } else if (R->kind == 4) {
                rb_image a = hi, b = ho;
                a.data = in;
                b.data = out;
                RK(cpu, rb_execute(plan[r], &a, &b));
            } else {
                rb_image a = hi, b = ho;
                a.data = R->pinned_user ? pin_in : in;
                b.data = R->pinned_user ? pin_out : out;
                RK(g, rb_execute(plan[r], &a, &b));
            }
            if (i >= 0) t[r][i] = now_ms() - t0;
        }
    double m[NR];
    for (int r = 0; r < NR; ++r) m[r] = routes[r].kind == 4 && no_cpu ? 0 : bench_median(std::vector<double>(t[r], t[r] + runs));
    const double mb = bytes / 1e6;
    for (int r = 0; r < NR; ++r)
        if (m[r] > 0) printf("| %d^2 | %s | %s | %.2f | %.1f | %.2f | %.2f |\n", n, what, routes[r].name, m[r],
               routes[r].kind == 3 ? 0.0 : 2 * mb / m[r], m[0] / m[r], m[1] / m[r]);
    fflush(stdout);
    for (int r = 0; r < NR; ++r) rb_plan_destroy(plan[r]);
    CK(cudaFreeHost(pin_in));
    CK(cudaFreeHost(pin_out));
    CK(cudaFree(dev));
    CK(cudaFree(dev_out));
    free(in);
    free(out);
    free(ref);
}

int main(int argc, char **argv)
{
    int quick = 0, rgb_only = 0, no_cpu = 0, copy = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--rgb")) rgb_only = 1;  /* issue 17's image alone, 8192^2 RGB 8-bit */
        else if (!strcmp(argv[i], "--no-cpu")) no_cpu = 1;
        else if (!strcmp(argv[i], "--copy-floor")) copy = 1;
        else { fprintf(stderr, "gpu_host_bench: unknown option %s\n", argv[i]); return 2; }
    }
    int runs = quick ? 10 : 30;
    cudaDeviceProp prop;
    int drv = 0;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaDriverGetVersion(&drv));
    if (copy) {
        printf("GPU %s, CUDA driver %d; %u host threads; median of 10 runs unless said (ms, wall clock)\n\n",
               prop.name, drv, std::thread::hardware_concurrency());
        copy_floor(10);
        return 0;
    }
    rb_context *g, *cpu;
    if (rb_context_create(&g) != RB_OK || rb_context_create(&cpu) != RB_OK) return 2;
    RK(g, rb_context_set_backend(g, RB_BACKEND_CUDA));
    if (getenv("RECBLUR_CUDA_PROFILE")) rb_context_set_log(g, log_to_stderr, NULL);
    RK(cpu, rb_context_set_backend(cpu, RB_BACKEND_CPU));
    rb_filter *f;
    RK(g, rb_filter_gaussian(g, 8.0, 8.0, RB_GAUSSIAN_DEFAULT, &f));
    printf("GPU %s, CUDA driver %d, %s, clamp boundary, host pageable in/out, median of %d runs (ms, wall clock)\n\n",
           prop.name, drv, rb_filter_describe(f), runs);
    printf("| size | image | route | median ms | GB/s (bytes up + down / time) | pageable copy / this | floor / this |\n");
    printf("|---|---|---|---|---|---|---|\n");
    const int sizes[2] = {4096, 8192};
    for (int si = 0; si < (quick ? 1 : 2) && !rgb_only; ++si) {
        run(g, cpu, f, sizes[si], 1, RB_F32, runs, no_cpu);
        run(g, cpu, f, sizes[si], 3, RB_U8, runs, no_cpu);
        run(g, cpu, f, sizes[si], 4, RB_U8, runs, no_cpu);
    }
    if (rgb_only) run(g, cpu, f, 8192, 3, RB_U8, runs, no_cpu);
    rb_filter_destroy(f);
    rb_context_destroy(g);
    rb_context_destroy(cpu);
    return 0;
}
