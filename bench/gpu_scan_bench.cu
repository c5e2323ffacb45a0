/* gpu_scan_bench: the CUDA back end's 1D recurrences (single-pass decoupled
 * look-back, cuda/scan/rb_cuda_scan.cu) and summed-area tables (cuda/sat/rb_cuda_sat.cu)
 * against the same GPU's device-to-device copy of the same number of floats,
 * measured in the same run.
 *
 * Method: float32 signals / 1-channel images; every output is first checked
 * against the CPU back end (rb_recurrence_1d / rb_sat on the host) and the run
 * stops if it differs; then per repetition: fresh random input (a hash kernel,
 * new seed), the output poisoned (0xFF bytes), and the operation timed alone
 * with CUDA events on its device buffers and preallocated scratch (plan-time
 * work such as the transfer matrices is outside the timing, as cuFFT's plan
 * is). 3 warm-up runs, median of 31. Every CUDA call is checked.
 *
 * The SAT rows time, in the same run, the tile kernel (rb_cuda_sat_tiles_run,
 * cuda/sat/rb_cuda_scan_sat.cu, RECBLUR_CUDA_SAT=tiles), the look-back kernel
 * (cuda/sat/rb_cuda_sat_lookback.cu) in its 2026-11-27 shape
 * (RECBLUR_CUDA_SAT=lookback), the shapes measured against it, the rebuilding
 * kernel (cuda/sat/rb_cuda_sat_rebuild.cu: rb_sat's default for U8/U16/F32 input)
 * at other tile heights, rb_sat's default, and the kernels without their carries
 * (the floors: not tables).
 * "kernel" columns: the back end's entry point on preallocated scratch
 * (rb_cuda_rec1d_run / rb_cuda_sat_shape_run); "API" columns: the public call
 * (rb_recurrence_1d / rb_sat on device memory, CUDA context) with everything it
 * does per call (plan, scratch, synchronisation), timed the same way. A CUB
 * inclusive prefix sum of the same floats is the reference row ("cub scan").
 *
 * Usage: gpu_scan_bench [--quick] [--sat] [--huge] [--sat-size N] [--sat-in u8|u16|f32] [--sat-kernels a,b]
 * [--sat-reps N] [--sat-ch N]   (--sat: the SAT table alone; --sat-ch: images of N channels,
 * side / N pixels wide, the same samples; --sat-size/--sat-in/--sat-kernels: one size, input
 * format, the SAT kernels named (the table's second column); --sat-reps: fewer repetitions, for
 * a profiler; --quick: 2^24 and 4096^2 only; --huge:
 * also 2^30 - 16384 samples; the full run needs about 2 minutes on an H100 host,
 * mostly the CPU back end's checks of the 2^28 signals) */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include <cub/device/device_scan.cuh>

#include "rb_internal.h"
#include "rb_cuda_scan.cuh"
#include "rb_cuda_sat.cuh"
#include "recblur.h"
#include "bench_cuda.h"

static int REPS = 31, WARM = 3; /* --sat-reps: fewer, for a profiler */
static int SAT_CH = 1; /* --sat-ch: channels of the SAT images (side / ch pixels wide: the same samples) */
static rb_context *gctx; /* CUDA back end, for the API columns */

/* isz: 1 bytes, 2 16-bit samples, else floats in [0, 1) */
__global__ void fill_kernel(float *x, size_t n, uint32_t seed, int isz)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        h *= 3266489917u;
        h ^= h >> 16;
        if (isz == 1) ((unsigned char *)x)[i] = (unsigned char)h;
        else if (isz == 2) ((unsigned short *)x)[i] = (unsigned short)h;
        else x[i] = (float)(h >> 8) * (1.0f / 16777216.0f);
    }
}

static void fill(void *x, size_t n, uint32_t seed, int isz)
{
    fill_kernel<<<1024, 256>>>((float *)x, n, seed, isz);
    CK(cudaGetLastError());
}

/* median milliseconds of a D2D copy of `bytes` */
static double copy_ms(size_t bytes)
{
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    std::vector<double> t;
    for (int r = 0; r < WARM + REPS; ++r) {
        const float ms = bench_event_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
        if (r >= WARM) t.push_back(ms);
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    return bench_median(t);
}


/* order r with real poles of modulus 0.5 .. 0.9 (signature convention) */
static void feedback(int r, double *a)
{
    double d[RB_MAX_ORDER + 2] = {1.0};
    for (int deg = 0; deg < r; ++deg) {
        double p = (bench_urand() < 0.5 ? -1 : 1) * (0.5 + 0.4 * bench_urand());
        for (int k = deg + 1; k >= 1; --k) d[k] -= p * d[k - 1];
    }
    for (int k = 0; k < r; ++k) a[k] = -d[k + 1];
}

/* api_reps: timed public calls after a first, untimed one (rb_recurrence_1d keeps
 * the first call's plan in the context, so the timed calls are what a caller
 * filtering many signals of one length pays); 0 skips the column */
static void bench_1d(rb_context *ctx, size_t n, int order, int both, rb_boundary_mode mode, int api_reps)
{
    rb_axis_filter af;
    memset(&af, 0, sizeof af);
    af.causal_order = order;
    feedback(order, af.causal);
    if (both) {
        af.anticausal_order = order;
        memcpy(af.anticausal, af.causal, sizeof af.causal);
    }
    rb_filter *f = NULL;
    RK(ctx, rb_filter_create(ctx, &af, NULL, &f));
    rb_axis ax = f->axis[0];
    rb_axis_plan ap;
    RK(ctx, rb_axis_plan_init(ctx, &ax, mode, (int)n, &ap));
    rb_cuda_rec1d *p = NULL;
    CK(rb_cuda_rec1d_create(&ap, 0.0f, &p));
    float *x, *y;
    void *work;
    CK(cudaMalloc((void **)&x, n * sizeof(float)));
    CK(cudaMalloc((void **)&y, n * sizeof(float)));
    CK(cudaMalloc(&work, rb_cuda_rec1d_work_bytes(p, 0)));

    /* check against the CPU back end first */
    fill(x, n, 12345u + order, 0);
    CK(cudaMemset(y, 0xFF, n * sizeof(float)));
    CK(rb_cuda_rec1d_run(p, x, y, work, 0));
    CK(cudaDeviceSynchronize());
    std::vector<float> hx(n), hy(n), hc(n);
    CK(cudaMemcpy(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    rb_context *cpu;
    rb_context_create(&cpu);
    rb_context_set_backend(cpu, RB_BACKEND_CPU);
    rb_boundary b = {mode, 0.0f};
    if (rb_recurrence_1d(cpu, f, b, hx.data(), hc.data(), n, RB_MEMORY_HOST) != RB_OK) {
        fprintf(stderr, "gpu_scan_bench: CPU back end: %s\n", rb_context_error(cpu));
        exit(2);
    }
    rb_context_destroy(cpu);
    double num = 0, den = 0;
    for (size_t i = 0; i < n; ++i) {
        double d = (double)hy[i] - hc[i];
        num += d * d;
        den += (double)hc[i] * hc[i];
    }
    double rel = sqrt(num / (den > 0 ? den : 1));
    if (!(rel <= 1e-5)) {
        fprintf(stderr, "gpu_scan_bench: 1D n=%zu order %d %s: GPU differs from the CPU back end (rel RMS %.3g)\n",
                n, order, both ? "both" : "causal", rel);
        exit(1);
    }

    std::vector<double> t;
    for (int r = 0; r < WARM + REPS; ++r) {
        fill(x, n, 777u * r + order, 0);
        CK(cudaMemset(y, 0xFF, n * sizeof(float)));
        const float ms = bench_event_ms([&] { CK(rb_cuda_rec1d_run(p, x, y, work, 0)); });
        if (r >= WARM) t.push_back(ms);
    }
    double ms = bench_median(t), cms = copy_ms(n * sizeof(float));
    /* the public call on the same device buffers */
    t.clear();
    for (int r = 0; r < (api_reps ? 1 + api_reps : 0); ++r) {
        fill(x, n, 555u * r + order, 0);
        CK(cudaMemset(y, 0xFF, n * sizeof(float)));
        CK(cudaDeviceSynchronize());
        const float ams = bench_event_ms([&] {
            if (rb_recurrence_1d(gctx, f, b, x, y, n, RB_MEMORY_DEVICE) != RB_OK) {
                fprintf(stderr, "gpu_scan_bench: rb_recurrence_1d: %s\n", rb_context_error(gctx));
                exit(2);
            }
        });
        if (r >= 1) t.push_back(ams);
    }
    double api_ms = api_reps ? bench_median(t) : NAN;
    int passes = rb_cuda_rec1d_passes(p);
    double gbs = 2.0 * passes * n * sizeof(float) / (ms * 1e6);
    char sz[32];
    if ((n & (n - 1)) == 0) snprintf(sz, sizeof sz, "2^%d", (int)lround(log2((double)n)));
    else snprintf(sz, sizeof sz, "%zu", n);
    char api[64] = "- | -";
    if (api_reps) snprintf(api, sizeof api, "%.3f | %.4f", api_ms, cms / api_ms);
    printf("| 1D recurrence | %s | %d | %s | %s | %.3f | %.1f | %.3f | %s | %.1f | %d | %.0f | %.1e |\n",
           sz, order, both ? "causal+anticausal" : "causal",
           rb_boundary_name(mode), ms, n / (ms * 1e6), cms / ms, api, n / (cms * 1e6),
           passes, gbs, rel);
    fflush(stdout);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(work));
    rb_cuda_rec1d_destroy(p);
    rb_filter_destroy(f);
}

/* The SAT kernels measured: the tile kernel (RECBLUR_CUDA_SAT=tiles), the look-back
 * kernel's shapes (rb_cuda_sat.cuh; "lookback" is RECBLUR_CUDA_SAT=lookback, the
 * 2026-11-27 kernel), and the look-back kernel without its carries (not a table: the
 * floor of the tiles' own loads, scans and stores). api: the RECBLUR_CUDA_SAT word
 * whose rb_sat runs this kernel ("" the default route), NULL: no API column. */
typedef struct {
    const char *name;
    int tiles;
    rb_sat_shape shape;
    const char *api;
    int zero_each; /* the flags zeroed before every call (a memset launch): the kept scratch's saving */
} sat_variant;
static const sat_variant sat_variants[] = {
    {"tiles", 1, {0, 0, 0, 0, 0, 0, 0}, "tiles"},
    {"lookback", 0, {0, 1, 0, 0, 0, 0, 0}, "lookback"},
    {"release", 0, {0, 0, 0, 0, 0, 0, 0}, NULL},
    {"wide release", 0, {1, 0, 0, 0, 0, 0, 0}, NULL},
    {"wide release nap 256", 0, {1, 0, 0, 0, 256, 0, 0}, NULL},
    {"wide release dense", 0, {1, 0, 0, 1, 0, 0, 0}, NULL}, /* the default until 2026-11-27 11:00 */
    {"rebuild 32 rows", 0, {1, 0, 0, 1, 0, 1, 32}, NULL},
    {"rebuild 128 rows", 0, {1, 0, 0, 1, 0, 1, 128}, NULL}, /* U8 input alone */
    {"rebuild 64 rows unparked", 0, {1, 0, 0, 1, 0, 1, 0, -1}, NULL}, /* F32: the 11:47 default */
    {"default", 0, rb_sat_shape_default, ""},
    {"default zeroed each call", 0, rb_sat_shape_default, NULL, 1},
    /* the L2 prefetch of the next wave's input (rb_sat_shape.prefetch) */
    {"default no prefetch", 0, {1, 0, 0, 1, 0, 1, 0, 0, -1}, NULL},
    {"prefetch after totals", 0, {1, 0, 0, 1, 0, 1, 0, 0, 1}, NULL},
    {"prefetch evict_last", 0, {1, 0, 0, 1, 0, 1, 0, 0, 2}, NULL},
    {"prefetch at start", 0, {1, 0, 0, 1, 0, 1, 0, 0, 3}, NULL},
    {"prefetch top halves", 0, {1, 0, 0, 1, 0, 1, 0, 0, 4}, NULL},
    {"floor wide", 0, {1, 0, 1, 0, 0, 0, 0}, NULL},
    {"floor wide dense", 0, {1, 0, 1, 1, 0, 0, 0}, NULL},
    {"floor rebuild", 0, {1, 0, 1, 1, 0, 1, 0}, NULL},
    {"floor rebuild 32 rows", 0, {1, 0, 1, 1, 0, 1, 32}, NULL},
    {"floor rebuild 64 rows unparked", 0, {1, 0, 1, 1, 0, 1, 0, -1}, NULL},
};
static const int n_sat_variants = (int)(sizeof sat_variants / sizeof sat_variants[0]);

/* One SAT workload, one kernel, checked against the CPU back end (floors: not a
 * table, not checked), then timed alone (kernel) and through rb_sat (API). Two
 * fractions of copy: "px" against the copy of the same pixels as F32 (the tables'
 * convention: 8 bytes moved a pixel), "bytes" against a copy moving the bytes this
 * SAT must move (input size + 4 a pixel: 5 for U8 input, 6 for U16, 8 for F32).
 * The kernel runs on scratch kept from call to call (rb_sat_scratch), as rb_sat's
 * context keeps it: its flags are zeroed once, unless the variant says each call. */
static void bench_sat(int side, rb_format inf, const sat_variant *var)
{
    const int ch = SAT_CH, h = side, w = side / ch, n = w * ch; /* n: samples a row */
    const size_t count = (size_t)n * h, isz = rb_format_size(inf);
    const int tiles = var->tiles, floor_ = var->shape.nocarry;
    void *x, *y, *work;
    const size_t wb = tiles ? rb_cuda_sat_tiles_work_bytes(w, h, ch) : rb_cuda_sat_shape_work_bytes(var->shape, w, h, ch);
    rb_sat_scratch ks;
    memset(&ks, 0, sizeof ks);
    auto kernel = [&](cudaStream_t s) {
        if (var->zero_each) ks.epoch = 0;
        return tiles ? rb_cuda_sat_tiles_run(x, n * isz, inf, y, n * sizeof(float), RB_F32, w, h, ch, work, s)
                     : rb_cuda_sat_shape_run(var->shape, x, n * isz, inf, y, n * sizeof(float), RB_F32, w, h, ch,
                                             &ks, s, 0);
    };
    CK(cudaMalloc(&x, count * isz));
    CK(cudaMalloc(&y, count * sizeof(float)));
    CK(cudaMalloc(&work, wb));
    ks.work = work;
    ks.bytes = wb;
    const int fk = (int)isz; /* fill's kind */
    fill(x, count, 99u + tiles, fk);
    CK(cudaMemset(y, 0xFF, count * sizeof(float)));
    CK(kernel(0));
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> hx(count * isz);
    std::vector<float> hy(count), hc(count);
    CK(cudaMemcpy(hx.data(), x, count * isz, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), y, count * sizeof(float), cudaMemcpyDeviceToHost));
    rb_image in, out;
    memset(&in, 0, sizeof in);
    in.width = w;
    in.height = h;
    in.channels = ch;
    in.format = inf;
    in.data = hx.data();
    out = in;
    out.format = RB_F32;
    out.data = hc.data();
    if (!floor_) {
        rb_context *cpu;
        rb_context_create(&cpu);
        rb_context_set_backend(cpu, RB_BACKEND_CPU);
        if (rb_sat(cpu, &in, &out) != RB_OK) {
            fprintf(stderr, "gpu_scan_bench: CPU sat: %s\n", rb_context_error(cpu));
            exit(2);
        }
        rb_context_destroy(cpu);
        size_t bad = 0;
        for (size_t i = 0; i < count; ++i) {
            float a = hy[i], c = hc[i];
            int ok = inf != RB_F32 ? a == c : fabsf(a - c) <= fabsf(nextafterf(c, INFINITY) - c);
            bad += !ok;
        }
        if (bad) {
            fprintf(stderr, "gpu_scan_bench: SAT %dx%d (%s): %zu samples differ from the CPU back end\n", w, h,
                    var->name, bad);
            exit(1);
        }
    }
    std::vector<double> t;
    for (int r = 0; r < WARM + REPS; ++r) {
        fill(x, count, 31u * r + 7, fk);
        CK(cudaMemset(y, 0xFF, count * sizeof(float)));
        const float ms = bench_event_ms([&] { CK(kernel(0)); });
        if (r >= WARM) t.push_back(ms);
    }
    double ms = bench_median(t), cms = copy_ms(count * sizeof(float));
    double cms_b = copy_ms(count * (isz + 4) / 2); /* moves count * (isz + 4) bytes */
    /* rb_sat on the same device images */
    char api[64] = "- | - | -";
    if (var->api) {
        rb_image din = in, dout = out;
        din.memory = dout.memory = RB_MEMORY_DEVICE;
        din.data = x;
        dout.data = y;
        rb_switch_set(gctx, "RECBLUR_CUDA_SAT", var->api[0] ? var->api : NULL);
        t.clear();
        for (int r = 0; r < WARM + REPS; ++r) {
            fill(x, count, 17u * r + 3, fk);
            CK(cudaMemset(y, 0xFF, count * sizeof(float)));
            CK(cudaDeviceSynchronize());
            const float ams = bench_event_ms([&] {
                if (rb_sat(gctx, &din, &dout) != RB_OK) {
                    fprintf(stderr, "gpu_scan_bench: rb_sat: %s\n", rb_context_error(gctx));
                    exit(2);
                }
            });
            if (r >= WARM) t.push_back(ams);
        }
        rb_switch_set(gctx, "RECBLUR_CUDA_SAT", NULL);
        const double api_ms = bench_median(t);
        snprintf(api, sizeof api, "%.3f | %.3f | %.3f", api_ms, cms / api_ms, cms_b / api_ms);
    }
    double gbs = (double)count * (isz + 4) / (ms * 1e6);
    /* ch > 1: side / ch pixels of ch samples a row, "px" counting samples */
    char chs[16] = "";
    if (ch > 1) snprintf(chs, sizeof chs, " x%d ch", ch);
    printf("| SAT %s%s -> f32 | %s%s | %d^2 | %.3f | %.1f | %.3f | %.3f | %s | %.1f | %.0f | %.0f | %s |\n",
           inf == RB_U8 ? "u8" : inf == RB_U16 ? "u16" : "f32", chs, var->name, var->api && !var->api[0] ? " (default)" : "", side, ms,
           count / (ms * 1e6), cms / ms, cms_b / ms, api, count / (cms * 1e6), gbs,
           2.0 * count * (isz + 4) / 2 / (cms_b * 1e6), floor_ ? "not a table" : inf != RB_F32 ? "exact" : "<=1 ulp");
    fflush(stdout);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(work));
}

/* sizes: 0 both (4096^2 and 8192^2, or 4096^2 alone if quick), else that side;
 * only: a comma-separated list of variant names (NULL: every one) */
static void bench_sats(int quick, int size, const char *only, int fmt_only)
{
    printf("| workload | kernel | size | kernel ms | Gpx/s | kernel fraction of copy (px) | kernel fraction of copy (bytes) "
           "| API ms | API fraction of copy (px) | API fraction of copy (bytes) | copy Gpx/s (F32) | GB/s moved (kernel) "
           "| copy GB/s (same bytes) | vs CPU |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int w : {4096, 8192})
        for (rb_format f : {RB_U8, RB_U16, RB_F32})
            if ((size ? w == size : !quick || w == 4096) && (fmt_only < 0 || (int)f == fmt_only))
                for (int v = 0; v < n_sat_variants; ++v) {
                    const sat_variant *var = &sat_variants[v];
                    if (var->shape.rows == 128 && f != RB_U8) continue; /* built for bytes alone */
                    if (var->shape.park && f != RB_F32) continue;       /* F32's 64-row tiles alone */
                    if (var->shape.prefetch > 0 && f == RB_F32) continue; /* 8/16-bit input alone */
                    if (SAT_CH != 1 && (var->shape.rows == 128 || var->shape.nocarry)) continue; /* one channel alone */
                    if (only) {
                        char key[64];
                        snprintf(key, sizeof key, ",%s,", var->name);
                        char list[512];
                        snprintf(list, sizeof list, ",%s,", only);
                        if (!strstr(list, key)) continue;
                    }
                    bench_sat(w, f, var);
                }
    printf("\n");
}

/* CUB's inclusive prefix sum of n floats: the reference for a 1D scan's speed */
static void bench_cub(size_t n)
{
    float *x, *y;
    void *tmp = NULL;
    size_t tb = 0;
    CK(cudaMalloc((void **)&x, n * sizeof(float)));
    CK(cudaMalloc((void **)&y, n * sizeof(float)));
    CK(cub::DeviceScan::InclusiveSum(tmp, tb, x, y, (int)n));
    CK(cudaMalloc(&tmp, tb));
    std::vector<double> t;
    for (int r = 0; r < WARM + REPS; ++r) {
        fill(x, n, 999u * r, 0);
        const float ms = bench_event_ms([&] { CK(cub::DeviceScan::InclusiveSum(tmp, tb, x, y, (int)n)); });
        if (r >= WARM) t.push_back(ms);
    }
    double ms = bench_median(t), cms = copy_ms(n * sizeof(float));
    printf("| cub scan (sum) | 2^%d | - | - | - | %.3f | %.1f | %.3f | - | - | %.1f | 1 | %.0f | - |\n",
           (int)lround(log2((double)n)), ms, n / (ms * 1e6), cms / ms, n / (cms * 1e6),
           2.0 * n * sizeof(float) / (ms * 1e6));
    fflush(stdout);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(tmp));
}

int main(int argc, char **argv)
{
    bench_seed(0x853C49E6748FEA9Bull); /* the inputs of the earlier tables */
    int quick = 0, huge = 0, sat_only = 0, sat_size = 0, sat_in = -1;
    const char *sat_list = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--sat")) sat_only = 1;
        else if (!strcmp(argv[i], "--sat-size") && i + 1 < argc) sat_size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sat-kernels") && i + 1 < argc) sat_list = argv[++i];
        else if (!strcmp(argv[i], "--sat-in") && i + 1 < argc) {
            ++i;
            sat_in = !strcmp(argv[i], "u8") ? RB_U8 : !strcmp(argv[i], "u16") ? RB_U16 : RB_F32;
        }
        else if (!strcmp(argv[i], "--sat-reps") && i + 1 < argc) REPS = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sat-ch") && i + 1 < argc) SAT_CH = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--huge")) huge = 1;
    }
    cudaDeviceProp prop;
    int dev = 0, drv = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDriverGetVersion(&drv));
    printf("GPU: %s, driver API %d.%d, %d SMs\n\n", prop.name, drv / 1000, drv % 1000 / 10,
           prop.multiProcessorCount);
    rb_context *ctx;
    rb_context_create(&ctx);
    rb_context_create(&gctx);
    if (rb_context_set_backend(gctx, RB_BACKEND_CUDA) != RB_OK) {
        fprintf(stderr, "gpu_scan_bench: no CUDA back end: %s\n", rb_context_error(gctx));
        return 2;
    }
    /* the SATs first (quick), then the 1D recurrences */
    bench_sats(quick, sat_size, sat_list, sat_in);
    if (sat_only) {
        rb_context_destroy(gctx);
        rb_context_destroy(ctx);
        return 0;
    }
    printf("| workload | size | order | passes | boundary | kernel ms | Gsamples/s | kernel fraction of copy | API ms | API fraction of copy | copy Gsamples/s | sweeps | GB/s moved (kernel) | vs CPU |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    /* 2^24 first (quick), then the long signals, whose CPU-back-end checks take seconds each */
    bench_cub((size_t)1 << 24);
    for (int order : {1, 2, 3, 4, 8})
        for (int both = 0; both < 2; ++both)
            bench_1d(ctx, (size_t)1 << 24, order, both, RB_BOUNDARY_ZERO, both == 0 && order != 4 ? 5 : 0);
    bench_1d(ctx, (size_t)1 << 24, 1, 0, RB_BOUNDARY_PERIODIC, 3);
    bench_1d(ctx, (size_t)1 << 24, 2, 1, RB_BOUNDARY_PERIODIC, 0);
    bench_1d(ctx, (size_t)1 << 24, 3, 1, RB_BOUNDARY_CLAMP, 3);
    if (!quick) {
        bench_cub((size_t)1 << 28);
        for (int order : {1, 2, 3, 8}) bench_1d(ctx, (size_t)1 << 28, order, 0, RB_BOUNDARY_ZERO, 2);
        bench_1d(ctx, (size_t)1 << 28, 1, 1, RB_BOUNDARY_ZERO, 0);
    }
    if (huge) /* the API's longest signal: 2^30 less room for FIR reach (rb_recurrence_1d's limit) */
        bench_1d(ctx, ((size_t)1 << 30) - 16384, 1, 0, RB_BOUNDARY_ZERO, 0);
    rb_context_destroy(gctx);
    rb_context_destroy(ctx);
    return 0;
}
