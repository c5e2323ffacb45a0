/* GPU benchmark of the CUDA back end, reported against the same GPU's
 * device-to-device copy rate measured in the same run.
 *
 * Method (see bench/RESULTS.md): CUDA events, a warm-up run, the median of
 * >= 30 runs, a fresh random input before every run (never zeros), outputs
 * poisoned with NaN before the checked run, every CUDA call checked, and every
 * workload's output checked against the CPU back end before it is timed.
 *
 *   gpu_bench [--quick] [--big] [--all-modes] [--no-1d] [--focus] [--gauss | --gauss-one | --gauss-fuse | --gauss-prof | --gauss-steps |
 *             --wide | --wide-quick | --chain | --chain-gauss | --prof-2d] [--no-abort] [--default-only]
 *   (--quick: 4096^2 only, fewer workloads; --focus: the 2D solver alone, for
 *   comparing its routes and settings between runs; --gauss: only the Gaussian
 *   (sigma 2, 8, 30, 100; clamp, periodic, mirror; 1 and 4 channels) next to the
 *   plain order-4 filter at 8192^2; --gauss-one: sigma 8 clamp only, for timing
 *   variants, without the plain rows (a profiler's first launches are the Gaussian's); --no-abort: report a failed check and go on, for such variants;
 *   --gauss-fuse: the Gaussian's fused route against the unfused, sigma 2-100, 1 and 4 channels (run_gauss_fuse);
 *   --wide: wide periodic Gaussians, the wrapped route against the padded one
 *   (RECBLUR_CUDA_PERIODIC=padded) in the same run: sigma n/6 at 4096^2 next to
 *   cuFFT, then sigma 100, 300, 683, 2000 at 4096^2 and 8192^2, 1 and 4 channels;
 *   --gauss-prof: one untimed execute each of order 4 and the Gaussian of sigma 8,
 *   clamp, 8192^2, 1 and 4 channels, for Nsight Compute; --gauss-steps: those and
 *   sigma 2, per-step times, RECBLUR_CUDA_PROFILE=1, third of three runs;
 *   --prof-2d: one untimed execute each of orders 1, 3, 5 clamp at 4096^2 and
 *   8192^2, for Nsight Compute; --default-only: with --focus, clamp, periodic
 *   and mirror by the default route alone, no route comparisons) */
#include "recblur.h"
#include "bench_cuda.h"
#include "gpu_naive_lanes.h"
#include "rb_internal.h" /* rb_switch_set: routes compared within one process */

#include <cuda_runtime.h>
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 30

/* Median ms of RUNS calls, each on fresh random input (bench_fill(din, count, seed0 + i)),
 * timed by CUDA events on the legacy stream. */
template <class Call>
static float time_fresh(float *din, size_t count, unsigned seed0, Call call)
{
    std::vector<float> t(RUNS);
    for (int i = 0; i < RUNS; ++i) {
        bench_fill(din, count, seed0 + i);
        CK(cudaDeviceSynchronize());
        t[i] = bench_event_ms(call);
    }
    return bench_median(t);
}

/* median ms of a D2D copy of `bytes` (fresh source each run) */
static float time_copy(float *dst, float *src, size_t floats)
{
    CK(cudaMemcpy(dst, src, floats * 4, cudaMemcpyDeviceToDevice)); /* warm-up */
    return time_fresh(src, floats, 1000, [&] { CK(cudaMemcpyAsync(dst, src, floats * 4, cudaMemcpyDeviceToDevice, 0)); });
}

/* The CPU back end's output for the same filter on the host copy of an
 * n x n input: the reference every GPU workload is checked against. With
 * cpu_tag set (--wide: two routes of one workload, on the same seed-7 input)
 * the output is kept under that tag and reused while it stays the same: the
 * wide Gaussians' CPU references are most of that run's time. */
static const char *cpu_tag;
static struct {
    char tag[64];
    int n, ch;
    float *out;
} cpu_kept;

static void cpu_reference(rb_context *cctx, const rb_filter *f, rb_boundary b, int n, int ch, float *hin, float *hout)
{
    const size_t bytes = (size_t)n * n * ch * 4;
    if (cpu_tag && cpu_kept.out && !strcmp(cpu_kept.tag, cpu_tag) && cpu_kept.n == n && cpu_kept.ch == ch) {
        memcpy(hout, cpu_kept.out, bytes);
        return;
    }
    rb_plan *cp;
    RK(cctx, rb_plan_create(cctx, f, b, n, n, ch, &cp));
    rb_image hi = bench_square_image(n, ch, RB_F32, RB_MEMORY_HOST, hin);
    rb_image ho = bench_square_image(n, ch, RB_F32, RB_MEMORY_HOST, hout);
    RK(cctx, rb_execute(cp, &hi, &ho));
    rb_plan_destroy(cp);
    if (!cpu_tag) return;
    free(cpu_kept.out);
    cpu_kept.out = (float *)malloc(bytes);
    if (cpu_kept.out) {
        memcpy(cpu_kept.out, hout, bytes);
        snprintf(cpu_kept.tag, sizeof cpu_kept.tag, "%s", cpu_tag);
        cpu_kept.n = n;
        cpu_kept.ch = ch;
    }
}

static double rel_rms(const float *a, const float *b, size_t n)
{
    double se = 0, sr = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!(a[i] == a[i])) return INFINITY;
        double d = (double)a[i] - b[i];
        se += d * d;
        sr += (double)b[i] * b[i];
    }
    return sqrt(se / (sr > 0 ? sr : 1));
}

typedef struct {
    const char *what;
    int n, ch, order;
    rb_boundary_mode mode;
    float ms, copy_ms;
    double check;
    char steps[256];   /* per-step ms of one profiled run (RECBLUR_CUDA_PROFILE=1) */
    char steps_off[256]; /* iir-2d: the same with RECBLUR_CUDA_FUSE=off (why one route is slower) */
    char steps_on[256];  /* iir-2d: the same with =on (the fused route alone, five image transfers) */
    char solver[64];
    char steps_x[256];   /* iir-2d: the same with =cross (three image transfers) */
    float ms_alt[4];   /* iir-2d: the same plan with RECBLUR_CUDA_FUSE=off / =on / =both / =cross (0: not run) */
    double cross_err;  /* rel RMS of =cross's output against the default's (other rounding, not the same bits) */
    long ndiff;        /* floats where those routes' outputs differ from the default's */
} row_t;

/* the back end's log: which solver ran, and the per-step times */
static char last_steps[256], last_solver[64];
static void bench_log(const char *msg, void *user)
{
    (void)user;
    const char *p;
    if ((p = strstr(msg, "cuda steps (ms): ")))
        snprintf(last_steps, sizeof last_steps, "%s", p + 17);
    else if ((p = strstr(msg, "cuda solver: "))) {
        snprintf(last_solver, sizeof last_solver, "%s", p + 13);
        char *paren = strchr(last_solver, '(');
        if (paren && paren > last_solver) paren[-1] = 0;
    }
}

/* one more run with per-step events (median of 5 of each step is overkill:
 * the third of three runs, after warm-up) */
static void profile_steps(rb_context *gctx, rb_plan *gp, rb_image *in, rb_image *out, char *dst, size_t len)
{
    rb_switch_set(gctx, "RECBLUR_CUDA_PROFILE", "1");
    last_steps[0] = 0;
    for (int i = 0; i < 3; ++i) RK(gctx, rb_execute(gp, in, out));
    rb_switch_set(gctx, "RECBLUR_CUDA_PROFILE", NULL);
    snprintf(dst, len, "%s", last_steps[0] ? last_steps : "-");
}

static row_t rows[256];
static int nrows;
static int no_abort; /* --no-abort: a failed check is reported, the run goes on */
static int default_only; /* --default-only: with --focus, the 2D rows of issue 19's line alone (clamp, periodic,
                            mirror), by the default route, without the RECBLUR_CUDA_FUSE comparisons: a shorter run */

/* the workloads timed with RECBLUR_CUDA_FUSE=off and =on too: the plain
 * filters and the Gaussians (whose FIR rows fuse too) */
static int fuse_compared(const char *what)
{
    return !strcmp(what, "iir-2d") || !strncmp(what, "gauss s", 7);
}

/* One 2D workload: check against the CPU back end, then time. naive: the
 * per-line baseline (gpu_naive_lanes.cu) on the same plan's axes instead of
 * rb_execute. */
static void run_2d(rb_context *gctx, rb_context *cctx, const char *what, const rb_filter *f,
                   rb_boundary_mode mode, int n, int ch, int order, float copy_ms, int naive = 0)
{
    size_t count = (size_t)n * n * ch;
    float *din, *dout, *hin, *hgpu, *hcpu;
    CK(cudaMalloc((void **)&din, count * 4));
    CK(cudaMalloc((void **)&dout, count * 4));
    hin = (float *)malloc(count * 4);
    hgpu = (float *)malloc(count * 4);
    hcpu = (float *)malloc(count * 4);
    if (!hin || !hgpu || !hcpu) { fprintf(stderr, "out of host memory\n"); exit(2); }
    rb_boundary b = {mode, 0.25f};
    rb_plan *gp;
    fprintf(stderr, "  [%s %d^2 x%d order %d %s: plan]\n", what, n, ch, order, rb_boundary_name(mode));
    last_solver[0] = 0;
    RK(gctx, rb_plan_create(gctx, f, b, n, n, ch, &gp));
    rb_image di = bench_square_image(n, ch, RB_F32, RB_MEMORY_DEVICE, din), dout_im;
    dout_im = di;
    dout_im.data = dout;
    bench_naive *nv = naive ? bench_naive_create(gp, b.value) : NULL;
    auto execute = [&] {
        if (nv) bench_naive_run(nv, din, dout);
        else RK(gctx, rb_execute(gp, &di, &dout_im));
    };

    /* check: poisoned output, fresh input, against the CPU back end */
    bench_fill(din, count, 7);
    CK(cudaMemset(dout, 0xFF, count * 4));
    fprintf(stderr, "  [gpu execute]\n");
    execute();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hin, din, count * 4, cudaMemcpyDeviceToHost));
    fprintf(stderr, "  [cpu check]\n");
    CK(cudaMemcpy(hgpu, dout, count * 4, cudaMemcpyDeviceToHost));
    cpu_reference(cctx, f, b, n, ch, hin, hcpu);
    double check = rel_rms(hgpu, hcpu, count);
    fprintf(stderr, "  [timing]\n");
    execute(); /* warm-up */
    const float ms = time_fresh(din, count, 100, execute);
    row_t *r = &rows[nrows++];
    r->what = what;
    r->n = n;
    r->ch = ch;
    r->order = order;
    r->mode = mode;
    r->ms = ms;
    r->copy_ms = copy_ms;
    r->check = check;
    snprintf(r->solver, sizeof r->solver, "%s", nv ? "one thread per line" : last_solver);
    r->ms_alt[0] = r->ms_alt[1] = r->ms_alt[2] = r->ms_alt[3] = 0;
    r->ndiff = 0;
    r->cross_err = 0.0;
    static const char *const alts[4] = {"off", "on", "both", "cross"};
    for (int alt = 0; alt < 4 && fuse_compared(what) && !default_only; ++alt) {
        /* the route without (off) and with (on) the row stage 1 fused into the
         * column final stage, and with the final stage of both axes in one
         * kernel (both), same plan, same run: its time, and its output on the
         * checked input must be the same bits */
        rb_switch_set(gctx, "RECBLUR_CUDA_FUSE", alts[alt]);
        bench_fill(din, count, 7);
        CK(cudaMemset(dout, 0xFF, count * 4));
        RK(gctx, rb_execute(gp, &di, &dout_im));
        CK(cudaMemcpy(hcpu, dout, count * 4, cudaMemcpyDeviceToHost));
        if (alt == 3) r->cross_err = rel_rms(hcpu, hgpu, count); /* other rounding: compared, not bits */
        else for (size_t i = 0; i < count; ++i) r->ndiff += memcmp(&hcpu[i], &hgpu[i], 4) != 0;
        r->ms_alt[alt] = time_fresh(din, count, 100, [&] { RK(gctx, rb_execute(gp, &di, &dout_im)); });
        rb_switch_set(gctx, "RECBLUR_CUDA_FUSE", NULL);
    }
    if (!nv) profile_steps(gctx, gp, &di, &dout_im, r->steps, sizeof r->steps);
    r->steps_off[0] = r->steps_on[0] = r->steps_x[0] = 0;
    if (fuse_compared(what) && !default_only) {
        rb_switch_set(gctx, "RECBLUR_CUDA_FUSE", "off");
        profile_steps(gctx, gp, &di, &dout_im, r->steps_off, sizeof r->steps_off);
        rb_switch_set(gctx, "RECBLUR_CUDA_FUSE", "on");
        profile_steps(gctx, gp, &di, &dout_im, r->steps_on, sizeof r->steps_on);
        rb_switch_set(gctx, "RECBLUR_CUDA_FUSE", "cross");
        profile_steps(gctx, gp, &di, &dout_im, r->steps_x, sizeof r->steps_x);
        rb_switch_set(gctx, "RECBLUR_CUDA_FUSE", NULL);
    }
    bench_naive_destroy(nv);
    fprintf(stderr, "  %-10s %5d^2 x%d order %d %-8s %9.3f ms (unfused %.3f, fused %.3f, both %.3f, cross %.3f [vs default %.1e], %ld floats differ)  check %.2e  [%s] steps: %s; =off: %s; =on: %s; =cross: %s\n",
            what, n, ch, order, rb_boundary_name(mode), r->ms, r->ms_alt[0], r->ms_alt[1], r->ms_alt[2], r->ms_alt[3],
            r->cross_err, r->ndiff, check, r->solver, r->steps, r->steps_off[0] ? r->steps_off : "-",
            r->steps_on[0] ? r->steps_on : "-", r->steps_x[0] ? r->steps_x : "-");
    if (!(r->cross_err <= 1e-4)) {
        fprintf(stderr, "CROSS CHECK FAILED\n");
        if (!no_abort) exit(3);
    }
    if (!(check <= 1e-4)) {
        fprintf(stderr, "CHECK FAILED\n");
        if (!no_abort) exit(3);
    }
    if (r->ndiff) fprintf(stderr, "  NOTE: %ld floats of RECBLUR_CUDA_FUSE=off/on/both outputs differ from the default's\n", r->ndiff);
    rb_plan_destroy(gp);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(hin);
    free(hgpu);
    free(hcpu);
}

/* The host-pointer API: rb_execute on pageable host images (upload, filter,
 * download), against a plain pageable cudaMemcpy up and down of the same bytes. */
static void run_host(rb_context *gctx, const rb_filter *f, int n, int order)
{
    size_t count = (size_t)n * n;
    float *hin = (float *)malloc(count * 4), *hout = (float *)malloc(count * 4), *d;
    if (!hin || !hout) { fprintf(stderr, "out of host memory\n"); exit(2); }
    for (size_t i = 0; i < count; ++i) hin[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    CK(cudaMalloc((void **)&d, count * 4));
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    rb_plan *gp;
    RK(gctx, rb_plan_create(gctx, f, b, n, n, 1, &gp));
    rb_image hi = bench_square_image(n, 1, RB_F32, RB_MEMORY_HOST, hin);
    rb_image ho = hi;
    ho.data = hout;
    std::vector<float> t(RUNS), c(RUNS);
    RK(gctx, rb_execute(gp, &hi, &ho));
    for (int i = 0; i < RUNS; ++i) {
        t[i] = bench_event_ms([&] { RK(gctx, rb_execute(gp, &hi, &ho)); });
        c[i] = bench_event_ms([&] {
            CK(cudaMemcpy(d, hin, count * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(hout, d, count * 4, cudaMemcpyDeviceToHost));
        });
    }
    row_t *r = &rows[nrows++];
    r->what = "iir-2d host ptrs (copy = pageable H2D+D2H)";
    r->n = n; r->ch = 1; r->order = order; r->mode = RB_BOUNDARY_CLAMP;
    r->ms = bench_median(t); r->copy_ms = bench_median(c); r->check = 0;
    fprintf(stderr, "  host pointers %d^2 order %d: %.3f ms, pageable up+down copy %.3f ms\n", n, order, r->ms, r->copy_ms);
    rb_plan_destroy(gp);
    CK(cudaFree(d));
    free(hin);
    free(hout);
}

/* periodic Gaussian by cuFFT: R2C, multiply by the sampled transfer function, C2R */
__global__ void gauss_mul(cufftComplex *F, int n, int nc, float sigma)
{
    int kx = blockIdx.x * blockDim.x + threadIdx.x, ky = blockIdx.y;
    if (kx >= nc) return;
    float fy = (float)(ky <= n / 2 ? ky : ky - n) / n, fx = (float)kx / n;
    float g = expf(-2.0f * 9.8696044f * sigma * sigma * (fx * fx + fy * fy)) / ((float)n * n);
    cufftComplex *p = F + (size_t)ky * nc + kx;
    p->x *= g;
    p->y *= g;
}

/* wide: also the same plan made with RECBLUR_CUDA_PERIODIC=padded (the route
 * before the wrapped one), checked and timed in the same run */
static void run_fft_gauss(rb_context *gctx, rb_context *cctx, int n, float copy_ms, int wide = 0)
{
    size_t count = (size_t)n * n;
    int nc = n / 2 + 1;
    float *din, *dout, *dfft;
    cufftComplex *F;
    CK(cudaMalloc((void **)&din, count * 4));
    CK(cudaMalloc((void **)&dout, count * 4));
    CK(cudaMalloc((void **)&dfft, count * 4));
    CK(cudaMalloc((void **)&F, (size_t)n * nc * sizeof(cufftComplex)));
    cufftHandle fwd, inv;
    if (cufftPlan2d(&fwd, n, n, CUFFT_R2C) != CUFFT_SUCCESS || cufftPlan2d(&inv, n, n, CUFFT_C2R) != CUFFT_SUCCESS) {
        fprintf(stderr, "cufftPlan2d failed\n");
        exit(2);
    }
    double sigma = n / 6.0;
    rb_filter *f;

    RK(gctx, rb_filter_gaussian(gctx, sigma, sigma, RB_GAUSSIAN_DEFAULT, &f));
    rb_boundary b = {RB_BOUNDARY_PERIODIC, 0};
    rb_plan *gp;
    last_solver[0] = 0;
    if (rb_plan_create(gctx, f, b, n, n, 1, &gp) != RB_OK) {
        fprintf(stderr, "  gaussian sigma %.0f %d^2: not run on the GPU: %s\n", sigma, n, rb_context_error(gctx));
        printf("# gaussian sigma %.0f periodic %d^2: not run on the GPU: %s\n", sigma, n, rb_context_error(gctx));
        rb_filter_destroy(f);
        cufftDestroy(fwd);
        cufftDestroy(inv);
        CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(dfft)); CK(cudaFree(F));
        return;
    }
    char solver[64];
    snprintf(solver, sizeof solver, "%s", last_solver);
    rb_plan *gpp = NULL; /* wide: the padded route */
    if (wide) {
        rb_switch_set(gctx, "RECBLUR_CUDA_PERIODIC", "padded");
        RK(gctx, rb_plan_create(gctx, f, b, n, n, 1, &gpp));
        rb_switch_set(gctx, "RECBLUR_CUDA_PERIODIC", NULL);
    }
    rb_image di = bench_square_image(n, 1, RB_F32, RB_MEMORY_DEVICE, din);
    rb_image dout_im = di;
    dout_im.data = dout;
    dim3 g((nc + 255) / 256, n);
#define FFT_RUN()                                                                   \
    do {                                                                            \
        if (cufftExecR2C(fwd, din, F) != CUFFT_SUCCESS) { fprintf(stderr, "R2C\n"); exit(2); } \
        gauss_mul<<<g, 256>>>(F, n, nc, (float)sigma);                              \
        CK(cudaGetLastError());                                                     \
        if (cufftExecC2R(inv, F, dfft) != CUFFT_SUCCESS) { fprintf(stderr, "C2R\n"); exit(2); } \
    } while (0)
    bench_fill(din, count, 9);
    CK(cudaMemset(dout, 0xFF, count * 4));
    CK(cudaMemset(dfft, 0xFF, count * 4));
    RK(gctx, rb_execute(gp, &di, &dout_im));
    FFT_RUN();
    CK(cudaDeviceSynchronize());
    float *a = (float *)malloc(count * 4), *bb = (float *)malloc(count * 4);
    CK(cudaMemcpy(a, dout, count * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bb, dfft, count * 4, cudaMemcpyDeviceToHost));
    /* compare the blurred images minus their mean (both keep the mean) */
    double ma = 0, mb = 0, se = 0, sr = 0;
    for (size_t i = 0; i < count; ++i) { ma += a[i]; mb += bb[i]; }
    ma /= count; mb /= count;
    for (size_t i = 0; i < count; ++i) {
        double x = a[i] - ma, y = bb[i] - mb;
        se += (x - y) * (x - y);
        sr += y * y;
    }
    double diff = sqrt(se / sr);
    /* recblur's GPU output against the CPU back end (wide: the padded route's too) */
    double chk = 0, chk_pad = 0;
    {
        float *hin = (float *)malloc(count * 4);
        CK(cudaMemcpy(hin, din, count * 4, cudaMemcpyDeviceToHost));
        cpu_reference(cctx, f, b, n, 1, hin, bb);
        chk = rel_rms(a, bb, count);
        fprintf(stderr, "  gaussian %d^2: GPU vs CPU back end rel RMS %.2e\n", n, chk);
        if (!(chk <= 1e-4)) { fprintf(stderr, "CHECK FAILED\n"); exit(3); }
        if (gpp) {
            CK(cudaMemset(dout, 0xFF, count * 4));
            RK(gctx, rb_execute(gpp, &di, &dout_im));
            CK(cudaMemcpy(a, dout, count * 4, cudaMemcpyDeviceToHost));
            chk_pad = rel_rms(a, bb, count);
            fprintf(stderr, "  gaussian %d^2, padded route: GPU vs CPU back end rel RMS %.2e\n", n, chk_pad);
            if (!(chk_pad <= 1e-4)) { fprintf(stderr, "CHECK FAILED\n"); exit(3); }
        }
        free(hin);
    }
    free(a);
    free(bb);
    const float rec_ms = time_fresh(din, count, 300, [&] { RK(gctx, rb_execute(gp, &di, &dout_im)); });
    const float pad_ms = gpp ? time_fresh(din, count, 350, [&] { RK(gctx, rb_execute(gpp, &di, &dout_im)); }) : 0;
    const float fft_ms = time_fresh(din, count, 400, [&] { FFT_RUN(); });
    row_t *r = &rows[nrows++];
    r->what = "gauss-rec";
    r->n = n; r->ch = 1; r->order = -1; r->mode = RB_BOUNDARY_PERIODIC;
    r->ms = rec_ms; r->copy_ms = copy_ms; r->check = wide ? chk : diff;
    snprintf(r->solver, sizeof r->solver, "%s", solver);
    profile_steps(gctx, gp, &di, &dout_im, r->steps, sizeof r->steps);
    if (gpp) {
        r = &rows[nrows++];
        r->what = "gauss-rec padded";
        r->n = n; r->ch = 1; r->order = -1; r->mode = RB_BOUNDARY_PERIODIC;
        r->ms = pad_ms; r->copy_ms = copy_ms; r->check = chk_pad;
        snprintf(r->solver, sizeof r->solver, "RECBLUR_CUDA_PERIODIC=padded");
        profile_steps(gctx, gpp, &di, &dout_im, r->steps, sizeof r->steps);
        rb_plan_destroy(gpp);
        fprintf(stderr, "  gaussian sigma %.0f periodic %d^2: padded route %.3f ms\n", sigma, n, pad_ms);
    }
    r = &rows[nrows++];
    r->what = "gauss-cufft";
    r->n = n; r->ch = 1; r->order = -1; r->mode = RB_BOUNDARY_PERIODIC;
    r->ms = fft_ms; r->copy_ms = copy_ms; r->check = diff;
    fprintf(stderr, "  gaussian sigma %.0f periodic %d^2: recblur %.3f ms, cuFFT %.3f ms, "
            "rel RMS difference (mean removed) %.2e\n", sigma, n, rec_ms, fft_ms, diff);
    cufftDestroy(fwd);
    cufftDestroy(inv);
    rb_plan_destroy(gp);
    rb_filter_destroy(f);
    CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(dfft)); CK(cudaFree(F));
}

/* SAT of an n x n F32 image (device to device), checked against the CPU back end */
static void run_sat(rb_context *gctx, rb_context *cctx, int n, float copy_ms)
{
    size_t count = (size_t)n * n;
    float *din, *dout;
    CK(cudaMalloc((void **)&din, count * 4));
    CK(cudaMalloc((void **)&dout, count * 4));
    rb_image di = bench_square_image(n, 1, RB_F32, RB_MEMORY_DEVICE, din);
    rb_image dout_im = di;
    dout_im.data = dout;
    bench_fill(din, count, 11);
    CK(cudaMemset(dout, 0xFF, count * 4));
    RK(gctx, rb_sat(gctx, &di, &dout_im));
    float *hin = (float *)malloc(count * 4), *hg = (float *)malloc(count * 4), *hc = (float *)malloc(count * 4);
    CK(cudaMemcpy(hin, din, count * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hg, dout, count * 4, cudaMemcpyDeviceToHost));
    rb_image hi = di, ho = di;
    hi.memory = ho.memory = RB_MEMORY_HOST;
    hi.data = hin;
    ho.data = hc;
    RK(cctx, rb_sat(cctx, &hi, &ho));
    double check = rel_rms(hg, hc, count);
    const float ms = time_fresh(din, count, 500, [&] { RK(gctx, rb_sat(gctx, &di, &dout_im)); });
    row_t *r = &rows[nrows++];
    r->what = "sat-f32"; r->n = n; r->ch = 1; r->order = -1; r->mode = RB_BOUNDARY_NONE;
    r->ms = ms; r->copy_ms = copy_ms; r->check = check;
    fprintf(stderr, "  sat %d^2: %.3f ms check %.2e\n", n, r->ms, check);
    if (!(check <= 1e-6)) { fprintf(stderr, "CHECK FAILED\n"); exit(3); }
    free(hin); free(hg); free(hc);
    CK(cudaFree(din)); CK(cudaFree(dout));
}

/* 1D order-1 recurrence of 2^28 samples, device memory, checked against the CPU */
static void run_1d(rb_context *gctx, rb_context *cctx, size_t n)
{
    float *din, *dout, *a, *b2;
    CK(cudaMalloc((void **)&din, n * 4));
    CK(cudaMalloc((void **)&dout, n * 4));
    CK(cudaMalloc((void **)&a, n * 4));
    CK(cudaMalloc((void **)&b2, n * 4));
    const float copy_ms =
        time_fresh(a, n, 600, [&] { CK(cudaMemcpyAsync(b2, a, n * 4, cudaMemcpyDeviceToDevice, 0)); });
    rb_filter *f = bench_filter(gctx, 1);
    rb_boundary bd = {RB_BOUNDARY_CLAMP, 0};
    bench_fill(din, n, 13);
    CK(cudaMemset(dout, 0xFF, n * 4));
    RK(gctx, rb_recurrence_1d(gctx, f, bd, din, dout, n, RB_MEMORY_DEVICE));
    float *hin = (float *)malloc(n * 4), *hg = (float *)malloc(n * 4), *hc = (float *)malloc(n * 4);
    CK(cudaMemcpy(hin, din, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hg, dout, n * 4, cudaMemcpyDeviceToHost));
    RK(cctx, rb_recurrence_1d(cctx, f, bd, hin, hc, n, RB_MEMORY_HOST));
    double check = rel_rms(hg, hc, n);
    /* one timed run first: a slow path gets fewer repeats (said in the table) */
    std::vector<float> t;
    int runs = RUNS;
    for (int i = 0; i < runs; ++i) {
        bench_fill(din, n, 700 + i);
        CK(cudaDeviceSynchronize());
        t.push_back(bench_event_ms([&] { RK(gctx, rb_recurrence_1d(gctx, f, bd, din, dout, n, RB_MEMORY_DEVICE)); }));
        if (i == 0 && t[0] > 200.0f) runs = 5;
    }
    row_t *r = &rows[nrows++];
    r->what = runs == RUNS ? "rec1d-o1" : "rec1d-o1 (5 runs)";
    r->n = 4096; r->ch = 1; r->order = 1; r->mode = RB_BOUNDARY_CLAMP; /* 2^24 = 4096^2 samples */
    r->ms = bench_median(t); r->copy_ms = copy_ms; r->check = check;
    fprintf(stderr, "  1d 2^24: %.3f ms (copy %.3f) check %.2e\n", r->ms, copy_ms, check);
    if (!(check <= 1e-5)) { fprintf(stderr, "CHECK FAILED\n"); exit(3); }
    rb_filter_destroy(f);
    free(hin); free(hg); free(hc);
    CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(a)); CK(cudaFree(b2));
}

/* The device-to-device copy of an n^2 image, one and four channels, timed in
 * this run (every fraction of copy divides by these); the one-channel one
 * becomes a "d2d-copy" row. */
static void measure_copies(int n, float *copy1, float *copy4)
{
    size_t cnt = (size_t)n * n * 4;
    float *a, *b;
    CK(cudaMalloc((void **)&a, cnt * 4));
    CK(cudaMalloc((void **)&b, cnt * 4));
    *copy1 = time_copy(b, a, (size_t)n * n);
    *copy4 = time_copy(b, a, cnt);
    CK(cudaFree(a));
    CK(cudaFree(b));
    fprintf(stderr, "  copy %d^2: %.3f ms (1 ch), %.3f ms (4 ch)\n", n, *copy1, *copy4);
    row_t *r = &rows[nrows++];
    r->what = "d2d-copy"; r->n = n; r->ch = 1; r->order = 0; r->mode = RB_BOUNDARY_NONE;
    r->ms = *copy1; r->copy_ms = *copy1; r->check = 0;
}

/* The Gaussian users run (rb_filter_gaussian, default quality: order 4 and a
 * FIR numerator) at 8192^2, next to the plain order-4 filter of the same run,
 * clamp, periodic and mirror, one channel and RGBA; one: sigma 8 clamp only */
static void run_gauss_table(rb_context *gctx, rb_context *cctx, int one)
{
    const int n = 8192;
    float copy1, copy4;
    measure_copies(n, &copy1, &copy4);
    static const rb_boundary_mode modes[3] = {RB_BOUNDARY_CLAMP, RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    static const int chs[2] = {1, 4};
    const int nmodes = one ? 1 : 3, nch = one ? 1 : 2;
    rb_filter *f4 = bench_filter(gctx, 4);
    for (int ci = 0; ci < nch && !one; ++ci)
        for (int mi = 0; mi < nmodes; ++mi)
            run_2d(gctx, cctx, "iir-2d", f4, modes[mi], n, chs[ci], 4, chs[ci] == 1 ? copy1 : copy4);
    rb_filter_destroy(f4);
    static const double sigmas[4] = {2, 8, 30, 100};
    static const char *names[4] = {"gauss s2", "gauss s8", "gauss s30", "gauss s100"};
    for (int si = 0; si < 4; ++si) {
        if (one && sigmas[si] != 8) continue;
        rb_filter *g;
        RK(gctx, rb_filter_gaussian(gctx, sigmas[si], sigmas[si], RB_GAUSSIAN_DEFAULT, &g));
        fprintf(stderr, "  gaussian sigma %g: %s\n", sigmas[si], rb_filter_describe(g));
        for (int ci = 0; ci < nch; ++ci)
            for (int mi = 0; mi < nmodes; ++mi)
                run_2d(gctx, cctx, names[si], g, modes[mi], n, chs[ci], 4, chs[ci] == 1 ? copy1 : copy4);
        rb_filter_destroy(g);
    }
}

/* --gauss-fuse: the Gaussian's fused route against the three-kernel one (each
 * row times the default, RECBLUR_CUDA_FUSE=off and =on in the same run),
 * 8192^2: sigma 8 and 100 periodic and mirror one channel, sigma 8 mirror
 * RGBA, then sigma 2, 8, 30, 100 clamp one channel and 8, 100 clamp RGBA */
static void run_gauss_fuse(rb_context *gctx, rb_context *cctx)
{
    const int n = 8192;
    float copy1, copy4;
    measure_copies(n, &copy1, &copy4);
    static const struct {
        double sigma;
        const char *name;
        rb_boundary_mode mode;
        int ch;
    } w[] = {{8, "gauss s8", RB_BOUNDARY_PERIODIC, 1},  {8, "gauss s8", RB_BOUNDARY_MIRROR, 1},
             {100, "gauss s100", RB_BOUNDARY_PERIODIC, 1}, {100, "gauss s100", RB_BOUNDARY_MIRROR, 1},
             {8, "gauss s8", RB_BOUNDARY_MIRROR, 4},    {2, "gauss s2", RB_BOUNDARY_CLAMP, 1},
             {8, "gauss s8", RB_BOUNDARY_CLAMP, 1},     {30, "gauss s30", RB_BOUNDARY_CLAMP, 1},
             {100, "gauss s100", RB_BOUNDARY_CLAMP, 1}, {8, "gauss s8", RB_BOUNDARY_CLAMP, 4},
             {100, "gauss s100", RB_BOUNDARY_CLAMP, 4}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; ++i) {
        rb_filter *g;
        RK(gctx, rb_filter_gaussian(gctx, w[i].sigma, w[i].sigma, RB_GAUSSIAN_DEFAULT, &g));
        run_2d(gctx, cctx, w[i].name, g, w[i].mode, n, w[i].ch, 4, w[i].ch == 1 ? copy1 : copy4);
        rb_filter_destroy(g);
    }
}

/* One execute of f, clamp, n^2 x ch floats on the device, on fresh input,
 * unchecked and untimed (the launches a profiler takes, and no others); with
 * steps, through profile_steps, its per-step times into st */
static void bench_one_execute(rb_context *gctx, const rb_filter *f, int n, int ch, char *st, size_t st_len)
{
    size_t count = (size_t)n * n * ch;
    float *din, *dout;
    CK(cudaMalloc((void **)&din, count * 4));
    CK(cudaMalloc((void **)&dout, count * 4));
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0.25f};
    rb_plan *gp;
    RK(gctx, rb_plan_create(gctx, f, b, n, n, ch, &gp));
    rb_image di = bench_square_image(n, ch, RB_F32, RB_MEMORY_DEVICE, din), dout_im = di;
    dout_im.data = dout;
    bench_fill(din, count, 7);
    if (st) profile_steps(gctx, gp, &di, &dout_im, st, st_len);
    else RK(gctx, rb_execute(gp, &di, &dout_im));
    CK(cudaDeviceSynchronize());
    rb_plan_destroy(gp);
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

/* --gauss-prof: one execute each of the plain order-4 filter and the Gaussian
 * of sigma 8, clamp, 8192^2, one channel then RGBA (bench_one_execute);
 * steps (--gauss-steps): with sigma 2 too, the per-step times of each */
static void run_gauss_prof(rb_context *gctx, int steps)
{
    const int n = 8192;
    rb_filter *f4 = bench_filter(gctx, 4), *g, *g2;
    RK(gctx, rb_filter_gaussian(gctx, 8, 8, RB_GAUSSIAN_DEFAULT, &g));
    RK(gctx, rb_filter_gaussian(gctx, 2, 2, RB_GAUSSIAN_DEFAULT, &g2));
    const rb_filter *fs[3] = {f4, g, g2};
    static const char *names[3] = {"iir-2d order 4 clamp", "gauss s8 clamp", "gauss s2 clamp"};
    for (int ch = 1; ch <= 4; ch += 3)
        for (int fi = 0; fi < (steps ? 3 : 2); ++fi) {
            char st[256] = "-";
            bench_one_execute(gctx, fs[fi], n, ch, steps ? st : NULL, sizeof st);
            printf("%s, %d channel(s), solver %s, steps (ms): %s\n", names[fi], ch, last_solver, st);
        }
    rb_filter_destroy(f4);
    rb_filter_destroy(g);
    rb_filter_destroy(g2);
}

/* --prof-2d: one execute each of the plain order 1, 3 and 5 filters, clamp,
 * 4096^2 and 8192^2, one channel (RGBA too at 4096^2; bench_one_execute): the
 * launches a profiler takes of the 2D route, and no others */
static void run_prof_2d(rb_context *gctx)
{
    static const int orders[3] = {1, 3, 5}, sizes[2] = {4096, 8192};
    for (int oi = 0; oi < 3; ++oi) {
        rb_filter *f = bench_filter(gctx, orders[oi]);
        for (int si = 0; si < 2; ++si)
            for (int ch = 1; ch <= (sizes[si] == 4096 ? 4 : 1); ch += 3) {
                bench_one_execute(gctx, f, sizes[si], ch, NULL, 0);
                printf("iir-2d order %d clamp %d^2, %d channel(s), solver %s\n", orders[oi], sizes[si], ch,
                       last_solver);
            }
        rb_filter_destroy(f);
    }
}

/* --wide (issue 19 item 3): wide periodic Gaussians. sigma n/6 at 4096^2
 * against cuFFT (run_fft_gauss), then sigma 100, 300, 683 and 2000 at 4096^2
 * and 8192^2, one channel and RGBA, each by the default route (wrapped where
 * the plan pads the axis, rb_cuda_tiled_wraps) and by the padded route
 * (RECBLUR_CUDA_PERIODIC=padded), both checked against the one CPU output;
 * quick (--wide-quick): one channel, the default route only. */
static void run_wide(rb_context *gctx, rb_context *cctx, int quick)
{
    static const int ns[2] = {4096, 8192}, chs[2] = {1, 4};
    static const double sigmas[4] = {100, 300, 683, 2000};
    static const char *names[2][4] = {{"gauss s100", "gauss s300", "gauss s683", "gauss s2000"},
                                      {"gauss s100 padded", "gauss s300 padded", "gauss s683 padded",
                                       "gauss s2000 padded"}};
    for (int ni = 0; ni < 2; ++ni) {
        const int n = ns[ni];
        float copy1, copy4;
        measure_copies(n, &copy1, &copy4);
        if (n == 4096) run_fft_gauss(gctx, cctx, n, copy1, 1);
        for (int si = 0; si < 4; ++si) {
            rb_filter *g;
            RK(gctx, rb_filter_gaussian(gctx, sigmas[si], sigmas[si], RB_GAUSSIAN_DEFAULT, &g));
            fprintf(stderr, "  gaussian sigma %g: %s\n", sigmas[si], rb_filter_describe(g));
            for (int ci = 0; ci < (quick ? 1 : 2); ++ci) {
                char tag[64];
                snprintf(tag, sizeof tag, "wide s%g n%d c%d", sigmas[si], n, chs[ci]);
                cpu_tag = tag;
                for (int route = 0; route < (quick ? 1 : 2); ++route) {
                    if (route) rb_switch_set(gctx, "RECBLUR_CUDA_PERIODIC", "padded");
                    run_2d(gctx, cctx, names[route][si], g, RB_BOUNDARY_PERIODIC, n, chs[ci], 4,
                           chs[ci] == 1 ? copy1 : copy4);
                    if (route) rb_switch_set(gctx, "RECBLUR_CUDA_PERIODIC", NULL);
                }
                cpu_tag = NULL;
            }
            rb_filter_destroy(g);
        }
    }
}

/* --chain (issue 19 items 1 and 3): the rows where the tiled solver's carry
 * chains weigh most, each with its per-step times: the Gaussian at sigma 8
 * (double carries) clamp and periodic, one channel and RGBA, at 8192^2;
 * sigma n/6 periodic at 4096^2 (wrapped chains) against cuFFT; the plain
 * order 1, 3 and 5 filters (float carries, the parallel chain) clamp and
 * periodic at 4096^2 and 8192^2; gauss_only (--chain-gauss): the Gaussian's
 * rows, sigma 8 at 4096^2 too (its 4096 lanes take the split chain), and
 * cuFFT's alone (builds of the Gaussian's order only) */
static void run_chain_rows(rb_context *gctx, rb_context *cctx, int gauss_only)
{
    static const rb_boundary_mode modes[2] = {RB_BOUNDARY_CLAMP, RB_BOUNDARY_PERIODIC};
    float copy1, copy4;
    measure_copies(8192, &copy1, &copy4);
    rb_filter *g;
    RK(gctx, rb_filter_gaussian(gctx, 8, 8, RB_GAUSSIAN_DEFAULT, &g));
    for (int ch = 1; ch <= 4; ch += 3)
        for (int mi = 0; mi < 2; ++mi) run_2d(gctx, cctx, "gauss s8", g, modes[mi], 8192, ch, 4, ch == 1 ? copy1 : copy4);
    if (gauss_only) { /* 4096 lanes a channel: the split chain (rb_tiled_chain_splits) */
        measure_copies(4096, &copy1, &copy4);
        for (int ch = 1; ch <= 4; ch += 3)
            for (int mi = 0; mi < 2; ++mi)
                run_2d(gctx, cctx, "gauss s8", g, modes[mi], 4096, ch, 4, ch == 1 ? copy1 : copy4);
        measure_copies(8192, &copy1, &copy4);
    }
    rb_filter_destroy(g);
    static const int orders[3] = {1, 3, 5};
    for (int n = 4096; n <= 8192; n *= 2) {
        if (n == 4096) {
            measure_copies(n, &copy1, &copy4);
            run_fft_gauss(gctx, cctx, n, copy1);
        }
        for (int oi = 0; oi < 3 && !gauss_only; ++oi) {
            rb_filter *f = bench_filter(gctx, orders[oi]);
            for (int mi = 0; mi < 2; ++mi) run_2d(gctx, cctx, "iir-2d", f, modes[mi], n, 1, orders[oi], copy1);
            rb_filter_destroy(f);
        }
        if (n == 4096) measure_copies(8192, &copy1, &copy4);
        if (gauss_only) break;
    }
}

int main(int argc, char **argv)
{
    /* --quick: 4096^2, clamp and periodic only; --big: 8192^2 too with every mode
     * (Gaussian and SAT at 4096^2 only); --no-1d: skip the 1D recurrence row */
    int quick = 0, big = 0, no1d = 0, allmodes = 0; /* --all-modes: every boundary mode with --quick too */
    int focus = 0; /* --focus: the 2D tiled solver only (no baselines, SAT, Gaussian, 1D): route comparisons */
    int gauss = 0; /* --gauss: the Gaussian table only (1); --gauss-one: its sigma-8 clamp rows (2); --wide (3);
                      --chain (4), --chain-gauss (8): run_chain_rows; --gauss-prof (5), --gauss-steps (6):
                      run_gauss_prof; --gauss-fuse (7); --wide-quick (9): --wide, one channel, default route;
                      --prof-2d (10): run_prof_2d */
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--focus")) focus = no1d = 1;
        else if (!strcmp(argv[i], "--big")) big = 1;
        else if (!strcmp(argv[i], "--no-1d")) no1d = 1;
        else if (!strcmp(argv[i], "--all-modes")) allmodes = 1;
        else if (!strcmp(argv[i], "--gauss")) gauss = 1;
        else if (!strcmp(argv[i], "--gauss-one")) gauss = 2;
        else if (!strcmp(argv[i], "--wide")) gauss = 3;
        else if (!strcmp(argv[i], "--wide-quick")) gauss = 9;
        else if (!strcmp(argv[i], "--chain")) gauss = 4;
        else if (!strcmp(argv[i], "--chain-gauss")) gauss = 8;
        else if (!strcmp(argv[i], "--gauss-prof")) gauss = 5;
        else if (!strcmp(argv[i], "--gauss-steps")) gauss = 6;
        else if (!strcmp(argv[i], "--gauss-fuse")) gauss = 7;
        else if (!strcmp(argv[i], "--prof-2d")) gauss = 10;
        else if (!strcmp(argv[i], "--no-abort")) no_abort = 1;
        else if (!strcmp(argv[i], "--default-only")) default_only = 1;
    }
    setvbuf(stderr, NULL, _IONBF, 0);
    cudaDeviceProp prop;
    int drv = 0, rt = 0;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    printf("# device: %s, %d SMs, driver API %d.%d, runtime %d.%d\n", prop.name,
           prop.multiProcessorCount, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    rb_context *gctx, *cctx;
    rb_context_create(&gctx);
    rb_context_create(&cctx);
    rb_context_set_log(gctx, bench_log, NULL);
    RK(gctx, rb_context_set_backend(gctx, RB_BACKEND_CUDA));
    RK(cctx, rb_context_set_backend(cctx, RB_BACKEND_CPU));

    int sizes[2] = {4096, 8192};
    int nsizes = gauss ? 0 : quick ? 1 : 2;
    if (gauss == 10) {
        run_prof_2d(gctx);
        return 0;
    }
    if (gauss == 5 || gauss == 6) {
        run_gauss_prof(gctx, gauss == 6);
        return 0;
    }
    if (gauss == 7) {
        run_gauss_fuse(gctx, cctx);
        no1d = 1;
    } else if (gauss == 3 || gauss == 9) {
        run_wide(gctx, cctx, gauss == 9);
        no1d = 1;
    } else if (gauss == 4 || gauss == 8) {
        run_chain_rows(gctx, cctx, gauss == 8);
        no1d = 1;
    } else if (gauss) {
        run_gauss_table(gctx, cctx, gauss == 2);
        no1d = 1;
    }
    (void)big;
    for (int si = 0; si < nsizes; ++si) {
        int n = sizes[si];
        float copy1, copy4;
        measure_copies(n, &copy1, &copy4);
        static const int orders[3] = {1, 3, 5};
        for (int oi = 0; oi < 3; ++oi) {
            rb_filter *f = bench_filter(gctx, orders[oi]);
            for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_MIRROR; ++mode) {
                if (quick && !allmodes && mode != RB_BOUNDARY_CLAMP && mode != RB_BOUNDARY_PERIODIC) continue;
                if (default_only && mode < RB_BOUNDARY_CLAMP) continue; /* clamp, periodic, mirror */
                run_2d(gctx, cctx, "iir-2d", f, (rb_boundary_mode)mode, n, 1, orders[oi], copy1);
            }
            if (focus) {
                /* RGBA at every order: whether the fused route pays depends on channels too */
                run_2d(gctx, cctx, "iir-2d", f, RB_BOUNDARY_CLAMP, n, 4, orders[oi], copy4);
                rb_filter_destroy(f);
                continue;
            }
            /* baseline: the naive one-thread-per-line solver (gpu_naive_lanes.cu), for
             * every workload above: the table's "x naive" column */
            for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_MIRROR; ++mode) {
                if (quick && !allmodes && mode != RB_BOUNDARY_CLAMP && mode != RB_BOUNDARY_PERIODIC) continue;
                run_2d(gctx, cctx, "naive-lanes", f, (rb_boundary_mode)mode, n, 1, orders[oi], copy1, 1);
            }
            if (orders[oi] == 3) run_2d(gctx, cctx, "naive-lanes", f, RB_BOUNDARY_CLAMP, n, 4, 3, copy4, 1);
            if (orders[oi] == 3) {
                run_2d(gctx, cctx, "iir-2d", f, RB_BOUNDARY_CLAMP, n, 4, 3, copy4);
                if (n == 4096) run_host(gctx, f, n, 3);
            }
            rb_filter_destroy(f);
        }
        if (!focus && (!big || n == 4096)) {
            run_sat(gctx, cctx, n, copy1);
            run_fft_gauss(gctx, cctx, n, copy1);
        }
    }
    /* 2^28 took 14.8 s a run with the single-thread carry chain (RESULTS.md); 2^24 here */
    if (!no1d) run_1d(gctx, cctx, (size_t)1 << 24);

    /* bytes the tiled solver must move per pixel and channel (F32, device to device):
     * per axis one read for the carries, one read and one write for the output (the
     * carries themselves add about (10 r + 2) / 32 floats per axis) */
    printf("\n| workload | size | ch | order | boundary | median ms | Gpx/s | copy Gpx/s | fraction of copy | "
           "model B/px | achieved GB/s | check | solver | ms (fraction) RECBLUR_CUDA_FUSE=off | =on | =both | "
           "=cross (rel RMS vs default) | x cuFFT | x naive |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nrows; ++i) {
        row_t *r = &rows[i];
        double px = (double)r->n * r->n;
        char ord[16], bpx[32] = "-", gbs[32] = "-";
        if (r->order > 0) snprintf(ord, sizeof ord, "%d", r->order);
        else snprintf(ord, sizeof ord, "-");
        if (r->order > 0 && !strcmp(r->what, "iir-2d")) {
            double b = r->ch * (24.0 + 2 * 4.0 * (10.0 * r->order + 2) / 32.0);
            snprintf(bpx, sizeof bpx, "%.1f", b);
            snprintf(gbs, sizeof gbs, "%.0f", b * px / (r->ms * 1e6));
        } else if (r->order == 0) {
            snprintf(bpx, sizeof bpx, "%d", 8 * r->ch);
            snprintf(gbs, sizeof gbs, "%.0f", 8.0 * r->ch * px / (r->ms * 1e6));
        }
        char off[4][48] = {"-", "-", "-", "-"};
        for (int a = 0; a < 3; ++a)
            if (r->ms_alt[a] > 0)
                snprintf(off[a], sizeof off[a], "%.3f (%.3f)%s", r->ms_alt[a], r->copy_ms / r->ms_alt[a],
                         r->ndiff ? " DIFFERS" : "");
        if (r->ms_alt[3] > 0)
            snprintf(off[3], sizeof off[3], "%.3f (%.3f) %.0e", r->ms_alt[3], r->copy_ms / r->ms_alt[3], r->cross_err);
        /* speed-ups: over the cuFFT convolution (R2C, multiply, C2R) of an image of the
         * same size (any kernel costs it the same; per channel), and over the naive
         * one-thread-per-line solver on the same workload */
        char xfft[24] = "-", xnaive[24] = "-";
        if (!strcmp(r->what, "iir-2d") || !strncmp(r->what, "gauss-rec", 9) || !strncmp(r->what, "gauss s", 7) ||
            !strncmp(r->what, "sat", 3))
            for (int j = 0; j < nrows; ++j) {
                const row_t *q = &rows[j];
                if (q->n != r->n) continue;
                if (!strcmp(q->what, "gauss-cufft"))
                    snprintf(xfft, sizeof xfft, "%.2f", q->ms * r->ch / r->ms);
                if (!strcmp(q->what, "naive-lanes") && !strcmp(r->what, "iir-2d") && q->ch == r->ch &&
                    q->order == r->order && q->mode == r->mode)
                    snprintf(xnaive, sizeof xnaive, "%.1f", q->ms / r->ms);
            }
        printf("| %s | %d^2 | %d | %s | %s | %.3f | %.2f | %.2f | %.3f | %s | %s | %.1e | %s | %s | %s | %s | %s | %s | %s |\n",
               r->what, r->n, r->ch, ord, r->order == 0 ? "-" : rb_boundary_name(r->mode), r->ms, px / r->ms / 1e6,
               px / r->copy_ms / 1e6, r->copy_ms / r->ms, bpx, gbs, r->check, r->solver[0] ? r->solver : "-", off[0],
               off[1], off[2], off[3], xfft, xnaive);
    }
    printf("\nPer-step times of one profiled run (ms; CUDA events between the launches, RECBLUR_CUDA_PROFILE=1):\n\n");
    printf("| workload | size | ch | order | boundary | steps | steps, RECBLUR_CUDA_FUSE=off | steps, =on | steps, =cross |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nrows; ++i) {
        row_t *r = &rows[i];
        if (!r->steps[0]) continue;
        char ord[16] = "-";
        if (r->order > 0) snprintf(ord, sizeof ord, "%d", r->order);
        printf("| %s | %d^2 | %d | %s | %s | %s | %s | %s | %s |\n", r->what, r->n, r->ch,
               ord, rb_boundary_name(r->mode), r->steps, r->steps_off[0] ? r->steps_off : "-",
               r->steps_on[0] ? r->steps_on : "-", r->steps_x[0] ? r->steps_x : "-");
    }
    rb_context_destroy(gctx);
    rb_context_destroy(cctx);
    return 0;
}
