/* deblur_gpu_bench: the quadrant deblur filter on the GPU, flexible
 * allocation (one persistent launch, cuda/deblur/rb_cuda_deblur.cu) against the
 * fixed allocation of Nikonorov, Fursov, Yakimov (listing 2: one kernel
 * launch per wavefront time step, every block bound to its strip for that
 * step, state re-read from global memory), which lives only here.
 *
 * Both compute each pixel with rb_dq_partial (rb_cuda_deblur.cuh) in the same
 * order, so their outputs must agree bit for bit; the bench checks that, and
 * that no poisoned (NaN) output pixel survives. Times: CUDA events around
 * everything each method needs per image (flexible: clear the counters,
 * the kernel, the quadrant sum; fixed: build the guarded input planes, one
 * launch per step, the quadrant sum), a warm-up, then the median of fresh
 * random inputs. The device-to-device copy of the same image, timed the same
 * way in the same run, gives the "fraction of copy rate".
 *
 *   deblur_gpu_bench [--quick] [--sizes 2048,4096] [--windows 3,7,15,31]
 *   deblur_gpu_bench --cpu [...]   the engine's CPU back end, same cases (no GPU used)
 *
 * Coefficients: random stable sets over the whole m x m window for both
 * the FIR part a and the recursive part b (the paper's setting; the designer's
 * presets have a 3 x 3 recursive part), mirror boundary, 1 channel F32. */
#include "rb_cuda_deblur.cuh"
#include "rb_cuda_alloc.h"
#include "bench_cuda.h"

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>


/* Stable: sum |b| = gain < 1 (a contraction), decaying on the engine's grid. */
static void make_filter(rb_context *ctx, int m, rb_deblur_filter **f)
{
    std::vector<double> a(4 * m * m), b(4 * m * m);
    const double *pa[4], *pb[4];
    double gain = std::min(0.9, pow(10.0, -9.0 * (m - 1) / 256.0));
    for (int q = 0; q < 4; q++) {
        double *aq = &a[q * m * m], *bq = &b[q * m * m], s = 0;
        for (int k = 0; k < m * m; k++) {
            aq[k] = (bench_urand() * 2 - 1) / m;
            bq[k] = k ? bench_urand() * 2 - 1 : 0.0;
            s += fabs(bq[k]);
        }
        for (int k = 0; k < m * m; k++) bq[k] *= gain / s;
        pa[q] = aq, pb[q] = bq;
    }
    if (rb_deblur_filter_create(ctx, m, pa, pb, f) != RB_OK) {
        fprintf(stderr, "deblur_gpu_bench: %s\n", rb_context_error(ctx));
        exit(2);
    }
}

/* a random filter of window m (make_filter) and its plan for N x N, mirror, 1 channel */
static void make_plan(rb_context *ctx, int m, int N, rb_deblur_filter **f, rb_deblur_plan **p)
{
    make_filter(ctx, m, f);
    const rb_boundary bd = {RB_BOUNDARY_MIRROR, 0.f};
    RK(ctx, rb_deblur_plan_create(ctx, *f, bd, N, N, 1, p));
}

/* ------------------------------------------------ fixed allocation (bench only) */
/* Lane planes with Z = halo zero guard rows/columns in front, pitch columns. */
__global__ void fixed_prep(const rb_dq_args A, const float *__restrict__ img, float *Xg,
                           size_t plane, size_t pitch, int Z)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y, lane = blockIdx.z;
    if (j >= A.Wp) return;
    Xg[lane * plane + (size_t)(i + Z) * pitch + j + Z] = rb_dq_x(A, img, lane & 3, lane >> 2, i, j);
}

/* Time step T: strip s (block x) of lane (block y) does its step T - S s. */
template <int G>
__global__ void __launch_bounds__(32 * G) fixed_step(const rb_dq_args A, const float *Xg, float *Yg,
                                                     size_t plane, size_t pitch, int Z, int T,
                                                     int s_lo)
{
    const int S = 32;
    __shared__ float part[G * S];
    const int tid = threadIdx.x, t = tid % S, g = tid / S;
    const int s = s_lo + blockIdx.x, lane = blockIdx.y, q = lane & 3;
    const int i = T - S * s - t, j = s * S + t;
    const bool valid = i >= 0 && i < A.Hp;
    const float *X = Xg + lane * plane + (size_t)Z * pitch + Z;
    float *Y = Yg + lane * plane + (size_t)Z * pitch + Z;
    float p = 0.f;
    if (valid)
        p = rb_dq_partial<false>(
            A.coef + A.aoff[q], A.ca[q], A.coef + A.boff[q], A.cb[q], A.ra[q], A.ca[q], A.rb[q],
            A.cb[q], g, G,
            [&](int r) { return X + (ptrdiff_t)(i - r) * (ptrdiff_t)pitch + j; },
            [&](int r) { return (const float *)Y + (ptrdiff_t)(i - r) * (ptrdiff_t)pitch + j; });
    if (G > 1) {
        part[g * S + t] = p;
        __syncthreads();
    }
    if (g == 0 && valid && j < A.Wp) {
        float y = p;
        for (int h = 1; h < G; h++) y += part[h * S + t];
        Y[(size_t)i * pitch + j] = y;
    }
}

static void fixed_run(const rb_dq_args &A, const float *img, float *Xg, float *Yg, size_t plane,
                      size_t pitch, int Z, float *out, int *launches)
{
    dim3 pb(128), pg((A.Wp + 127) / 128, A.Hp, A.lanes);
    fixed_prep<<<pg, pb>>>(A, img, Xg, plane, pitch, Z);
    CK(rb_cuda_launch_check());
    const int S = 32, total = A.nsteps + S * (A.nstrips - 1);
    for (int T = 0; T < total; T++) {
        int lo = T - A.nsteps + 1 > 0 ? (T - A.nsteps + 1 + S - 1) / S : 0;
        int hi = std::min(A.nstrips - 1, T / S);
        dim3 grid(hi - lo + 1, A.lanes);
        switch (A.G) {
        case 1: fixed_step<1><<<grid, 32>>>(A, Xg, Yg, plane, pitch, Z, T, lo); break;
        case 2: fixed_step<2><<<grid, 64>>>(A, Xg, Yg, plane, pitch, Z, T, lo); break;
        case 4: fixed_step<4><<<grid, 128>>>(A, Xg, Yg, plane, pitch, Z, T, lo); break;
        default: fixed_step<8><<<grid, 256>>>(A, Xg, Yg, plane, pitch, Z, T, lo); break;
        }
        CK(rb_cuda_launch_check());
    }
    *launches = total + 2;
    CK(rb_cuda_deblur_combine(&A, Yg, plane, pitch, Z, out, 0));
}

/* --------------------------------------------------------------- helpers */
__global__ void fill_random(float *x, size_t n, uint32_t seed)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    uint32_t h = (uint32_t)k * 2654435761u ^ seed;
    h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
    x[k] = (float)(h >> 8) * (1.0f / 16777216.0f);
}

static std::vector<int> parse_list(const char *s)
{
    std::vector<int> v;
    for (const char *p = s; *p;) {
        v.push_back(atoi(p));
        while (*p && *p != ',') p++;
        if (*p) p++;
    }
    return v;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The CPU back end on this machine, same cases. */
static int cpu_table(const std::vector<int> &sizes, const std::vector<int> &windows, int reps)
{
    rb_context *ctx;
    rb_context_create(&ctx);
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    printf("| size | m | margin | CPU threads | time (s, median of %d) | Mpx/s |\n|---|---|---|---|---|---|\n",
           reps);
    for (int N : sizes)
        for (int m : windows) {
            rb_deblur_filter *f;
            rb_deblur_plan *p;
            make_plan(ctx, m, N, &f, &p);
            std::vector<float> in((size_t)N * N), out((size_t)N * N);
            std::vector<double> ts;
            for (int r = 0; r < reps; r++) {
                for (auto &v : in) v = (float)bench_urand();
                rb_image I = {N, N, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in.data()};
                rb_image O = I;
                O.data = out.data();
                double t0 = now_s();
                if (rb_deblur_execute(p, &I, &O) != RB_OK) {
                    fprintf(stderr, "%s\n", rb_context_error(ctx));
                    return 2;
                }
                ts.push_back(now_s() - t0);
            }
            double t = bench_median(ts);
            printf("| %d² | %d | %d | %d | %.3f | %.1f |\n", N, m, rb_deblur_plan_margin(p),
                   rb_context_thread_count(ctx), t, (double)N * N / t * 1e-6);
            fflush(stdout);
            rb_deblur_plan_destroy(p);
            rb_deblur_filter_destroy(f);
        }
    rb_context_destroy(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    std::vector<int> sizes = {2048, 4096}, windows = {3, 7, 15, 31};
    int reps = 7, cpu = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--quick")) reps = 3;
        else if (!strcmp(argv[k], "--cpu")) cpu = 1;
        else if (!strcmp(argv[k], "--sizes") && k + 1 < argc) sizes = parse_list(argv[++k]);
        else if (!strcmp(argv[k], "--windows") && k + 1 < argc) windows = parse_list(argv[++k]);
        else {
            fprintf(stderr, "usage: deblur_gpu_bench [--quick] [--cpu] [--sizes A,B] [--windows m,..]\n");
            return 2;
        }
    }
    if (cpu) return cpu_table(sizes, windows, reps > 3 ? 3 : reps);

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs\n\n", prop.name, prop.multiProcessorCount);
    printf("| size | m | margin | blocks x threads | launches fixed | flexible ms | fixed ms | "
           "flexible / fixed speed | flexible Gpx/s | fixed Gpx/s | copy Gpx/s | flexible / copy | "
           "max abs diff |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    rb_context *ctx;
    rb_context_create(&ctx);
    rb_context_set_backend(ctx, RB_BACKEND_CPU); /* the plan only gives the geometry */
    int bad = 0;
    for (int N : sizes)
        for (int m : windows) {
            rb_deblur_filter *f;
            rb_deblur_plan *p;
            make_plan(ctx, m, N, &f, &p);
            rb_dq_args A;
            size_t nc = rb_cuda_deblur_coef_count(p);
            std::vector<float> hc(nc);
            rb_cuda_deblur_pack(p, hc.data());
            float *coef, *img, *out, *out2, *Y, *Xg, *Yg, *cpy;
            int *sync;
            CK(rb_cuda_malloc((void **)&coef, nc * sizeof(float)));
            CK(cudaMemcpy(coef, hc.data(), nc * sizeof(float), cudaMemcpyHostToDevice));
            rb_cuda_deblur_args(p, coef, NULL, &A);
            if (A.S != 32) {
                fprintf(stderr, "deblur_gpu_bench: m=%d needs 64-wide strips; the fixed baseline has 32\n", m);
                return 2;
            }
            const size_t n = (size_t)N * N, plane = (size_t)A.Hp * A.Wp;
            const int Z = A.halo;
            const size_t pitch = Z + (size_t)A.nstrips * A.S, gplane = (Z + (size_t)A.Hp) * pitch;
            const size_t nsync = rb_cuda_deblur_sync_count(&A);
            CK(rb_cuda_malloc((void **)&img, n * sizeof(float)));
            CK(rb_cuda_malloc((void **)&out, n * sizeof(float)));
            CK(rb_cuda_malloc((void **)&out2, n * sizeof(float)));
            CK(rb_cuda_malloc((void **)&cpy, n * sizeof(float)));
            CK(rb_cuda_malloc((void **)&Y, A.lanes * plane * sizeof(float)));
            CK(rb_cuda_malloc((void **)&Xg, A.lanes * gplane * sizeof(float)));
            CK(rb_cuda_malloc((void **)&Yg, A.lanes * gplane * sizeof(float)));
            CK(rb_cuda_malloc((void **)&sync, nsync * sizeof(int)));
            CK(cudaMemset(Xg, 0, A.lanes * gplane * sizeof(float))); /* guards stay zero */
            CK(cudaMemset(Yg, 0, A.lanes * gplane * sizeof(float)));
            int grid;
            CK(rb_cuda_deblur_grid(&A, &grid));
            std::vector<double> tflex, tfix, tcopy;
            std::vector<float> h1(n), h2(n);
            double maxdiff = 0;
            long nonfinite = 0;
            int launches = 0;
            const int runs = reps + 1; /* the first is the warm-up */
            for (int r = 0; r < runs; r++) {
                fill_random<<<(unsigned)((n + 255) / 256), 256>>>(img, n, 0x1234567u + 977u * r + N + m);
                CK(rb_cuda_launch_check());
                float ms;
                /* copy rate */
                ms = bench_event_ms([&] { CK(cudaMemcpyAsync(cpy, img, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
                if (r) tcopy.push_back(ms);
                /* flexible */
                CK(cudaMemset(out, 0xff, n * sizeof(float))); /* NaN poison */
                ms = bench_event_ms([&] {
                    CK(cudaMemsetAsync(sync, 0, nsync * sizeof(int)));
                    CK(rb_cuda_deblur_flexible(&A, img, Y, sync, grid, 0));
                    CK(rb_cuda_deblur_combine(&A, Y, plane, A.Wp, 0, out, 0));
                });
                if (r) tflex.push_back(ms);
                int flag;
                CK(cudaMemcpy(&flag, sync + 1, sizeof(int), cudaMemcpyDeviceToHost));
                if (flag) {
                    fprintf(stderr, "deblur_gpu_bench: N=%d m=%d: the wavefront stalled\n", N, m);
                    bad = 1;
                }
                /* fixed */
                CK(cudaMemset(out2, 0xff, n * sizeof(float)));
                ms = bench_event_ms([&] { fixed_run(A, img, Xg, Yg, gplane, pitch, Z, out2, &launches); });
                if (r) tfix.push_back(ms);
                CK(cudaMemcpy(h1.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(h2.data(), out2, n * sizeof(float), cudaMemcpyDeviceToHost));
                for (size_t k = 0; k < n; k++) {
                    if (!std::isfinite(h1[k]) || !std::isfinite(h2[k])) nonfinite++;
                    else maxdiff = std::max(maxdiff, (double)fabsf(h1[k] - h2[k]));
                }
                fprintf(stderr, "N=%d m=%d run %d: flexible %.3f ms fixed %.3f ms\n", N, m, r,
                        tflex.empty() ? 0 : tflex.back(), tfix.empty() ? 0 : tfix.back());
            }
            if (nonfinite || maxdiff != 0) bad = 1;
            double tf = bench_median(tflex), tx = bench_median(tfix), tc = bench_median(tcopy);
            printf("| %d² | %d | %d | %d x %d | %d | %.3f | %.3f | %.2fx | %.3f | %.3f | %.1f | %.4f | %s |\n",
                   N, m, A.P, grid, A.S * A.G, launches, tf, tx, tx / tf, n / tf * 1e-6,
                   n / tx * 1e-6, n / tc * 1e-6, tc / tf,
                   nonfinite ? "NaN left!" : (maxdiff == 0 ? "0 (bitwise)" : "DIFFERS"));
            if (maxdiff != 0) printf("(max abs diff %.3g)\n", maxdiff);
            fflush(stdout);
            rb_cuda_free(coef), rb_cuda_free(img), rb_cuda_free(out), rb_cuda_free(out2);
            rb_cuda_free(cpy), rb_cuda_free(Y), rb_cuda_free(Xg), rb_cuda_free(Yg), rb_cuda_free(sync);
            rb_deblur_plan_destroy(p);
            rb_deblur_filter_destroy(f);
        }
    printf("\nmethod: CUDA events; %d timed runs after 1 warm-up, median; fresh random input each run; "
           "outputs poisoned with NaN before each run; flexible = counter clear + 1 kernel + quadrant sum; "
           "fixed = input planes + 1 launch per time step + quadrant sum; copy = cudaMemcpy D2D of the image.\n",
           reps);
    rb_context_destroy(ctx);
    return bad;
}
