/* The benchmark's baseline ("x naive" column of gpu_bench): one thread runs
 * the whole exact 1D algorithm of the 2016 paper on one line, the CPU's
 * algorithm, with no blocking:
 *   u = FIR(x on its infinite extension), zero-initialised causal pass,
 *   closed-form prologue p(Y), superposition of its homogeneous response,
 *   closed-form epilogue e(Z), anticausal pass.
 * Lanes are interleaved in memory (sample i of lane l at i * lanes + l), so
 * every step of a warp is one coalesced 128-byte access; the row pass runs
 * between two transposes. It lives here only: the library runs the tiled
 * solver (cuda/tiled/). */
#include "gpu_naive_lanes.h"
#include "bench_cuda.h"
#include "rb_tiled.h"
#include "rb_cuda_dd.cuh"
#include "rb_cuda_extend.cuh"
#include <stdlib.h>
#include <string.h>

/* one axis: the tiled solver's device axis (unpadded) plus the closed forms
 * the per-line algorithm needs and float taps on the device */
typedef struct {
    rb_cuda_axis a;
    const float *fir;
    float sumfir;
    double Pf[RB_MAX_ORDER * RB_MAX_ORDER], Pr[RB_MAX_ORDER * RB_MAX_ORDER];
    double M67z[RB_MAX_ORDER * RB_MAX_ORDER], M67y[RB_MAX_ORDER * RB_MAX_ORDER];
    double M72[RB_MAX_ORDER * RB_MAX_ORDER];
} naive_axis;

struct bench_naive {
    naive_axis col, row;
    int w, h, c, has_col, has_row;
    float *fir_y, *fir_x, *ybuf, *t1, *t2;
};

/* u_j = sum_t fir[t] x_ext(j + fir_lo + t) */
static __device__ __forceinline__ float naive_u(const naive_axis &na, const float *x, size_t S, long long j,
                                                float cv)
{
    const rb_cuda_axis &a = na.a;
    if (a.ntaps == 0) return rb_ext_sample(x, (long long)S, j, a.n, a.mode, cv);
    float acc = 0.0f;
    for (int t = 0; t < a.ntaps; ++t)
        acc += na.fir[t] * rb_ext_sample(x, (long long)S, j + a.fir_lo + t, a.n, a.mode, cv);
    return acc;
}

/* out = M v (r x r row-major, double) */
template <int R>
static __device__ __forceinline__ void naive_mv(const double *M, const double *v, double *out)
{
#pragma unroll
    for (int i = 0; i < R; ++i) {
        double s = 0.0;
#pragma unroll
        for (int j = 0; j < R; ++j) s += M[i * R + j] * v[j];
        out[i] = s;
    }
}

/* The anticausal pass over y[0 .. m-1] from the state nxt ([z_{m} .. z_{m+r-1}]),
 * nxt ending as its head [z_0 .. z_{r-1}]; z: where to write the samples that
 * lie inside the line (sample i is j = s0 + i), or NULL. */
template <int R>
static __device__ __forceinline__ void naive_anticausal(const rb_cuda_axis &a, const float *y, size_t S, int m,
                                                        float *nxt, float *z)
{
    for (int i = m - 1; i >= 0; --i) {
        float v = y[(size_t)i * S];
#pragma unroll
        for (int k = 0; k < R; ++k) v -= a.da[k] * nxt[k];
#pragma unroll
        for (int k = R - 1; k > 0; --k) nxt[k] = nxt[k - 1];
        if (R > 0) nxt[0] = v;
        const long long j = (long long)a.s0 + i;
        if (z && j >= 0 && j < a.n) z[(size_t)j * S] = v;
    }
}

/* the head [z_0 .. z_{r-1}] of the zero-initialised anticausal pass */
template <int R>
static __device__ __forceinline__ void naive_head(const rb_cuda_axis &a, const float *y, size_t S, int m,
                                                  float *nxt)
{
#pragma unroll
    for (int k = 0; k < R; ++k) nxt[k] = 0.0f;
    naive_anticausal<R>(a, y, S, m, nxt, NULL);
}

template <int R>
__global__ void naive_kernel(const naive_axis na, const float *in, float *out, float *yb, size_t lanes)
{
    size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= lanes) return;
    const rb_cuda_axis &a = na.a;
    const size_t S = lanes;
    const float *x = in + l;
    float *y = yb + l;
    float *z = out + l;
    const int m = a.m, mode = a.mode;
    const long long s0 = a.s0;
    const float cv = a.cval[l % a.channels];

    /* causal state: prev[k] = y_{i-1-k} */
    float prev[R + 1], nxt[R + 1];
    double pv[R + 1], ev[R + 1], tv[R + 1];
    float c0 = 0.0f, c1 = 0.0f; /* u far before / after the line */
    if (mode == RB_BOUNDARY_CONSTANT) c0 = c1 = cv * na.sumfir;
    else if (mode == RB_BOUNDARY_CLAMP) {
        c0 = x[0] * na.sumfir;
        c1 = x[(size_t)(a.n - 1) * S] * na.sumfir;
    }
    const int const_like = !a.padded && (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT ||
                                         mode == RB_BOUNDARY_CLAMP);
#pragma unroll
    for (int k = 0; k < R; ++k) prev[k] = const_like ? (float)(a.prologue_dc * c0) : 0.0f; /* (35) */

    for (int i = 0; i < m; ++i) {
        float v = naive_u(na, x, S, s0 + i, cv);
#pragma unroll
        for (int k = 0; k < R; ++k) v -= a.dc[k] * prev[k];
#pragma unroll
        for (int k = R - 1; k > 0; --k) prev[k] = prev[k - 1];
        if (R > 0) prev[0] = v;
        y[(size_t)i * S] = v;
    }

    if (!a.padded && (mode == RB_BOUNDARY_PERIODIC || mode == RB_BOUNDARY_MIRROR)) {
#pragma unroll
        for (int k = 0; k < R; ++k) ev[k] = prev[R - 1 - k]; /* e_{-1}(Yhat) in paper order */
        if (mode == RB_BOUNDARY_PERIODIC || a.via_periodic) {
            naive_mv<R>(na.Pf, ev, pv); /* (49) */
        } else {
            naive_head<R>(a, y, S, m, nxt);
            double t1[R + 1], t2[R + 1];
#pragma unroll
            for (int k = 0; k < R; ++k) tv[k] = nxt[k];
            naive_mv<R>(na.M67z, tv, t1); /* (67), corrected */
            naive_mv<R>(na.M67y, ev, t2);
#pragma unroll
            for (int k = 0; k < R; ++k) pv[k] = t1[k] + t2[k];
        }
        /* superpose the homogeneous response of p(Y); prev ends as e_{-1}(Y) */
        float h[R + 1];
#pragma unroll
        for (int k = 0; k < R; ++k) h[k] = (float)pv[R - 1 - k];
        for (int i = 0; i < m; ++i) {
            float v = 0.0f;
#pragma unroll
            for (int k = 0; k < R; ++k) v -= a.dc[k] * h[k];
#pragma unroll
            for (int k = R - 1; k > 0; --k) h[k] = h[k - 1];
            if (R > 0) h[0] = v;
            y[(size_t)i * S] += v;
        }
#pragma unroll
        for (int k = 0; k < R; ++k) prev[k] += h[k];
    }

    /* epilogue e(Z) = [z_m .. z_{m+r-1}] (nxt[k] = z_{i+1+k}) */
#pragma unroll
    for (int k = 0; k < R; ++k) ev[k] = prev[R - 1 - k];
#pragma unroll
    for (int k = 0; k < R; ++k) nxt[k] = 0.0f; /* padded, none */
    if (const_like && !a.has_c) {
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)(a.anticausal_dc * c1);
    } else if (const_like) {
        rb_mv_dd(R, a.M44, ev, a.v44, c1, tv); /* (44) */
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)tv[k];
    } else if (!a.padded && (mode == RB_BOUNDARY_PERIODIC || (mode == RB_BOUNDARY_MIRROR && a.via_periodic))) {
        naive_head<R>(a, y, S, m, nxt); /* (51) */
#pragma unroll
        for (int k = 0; k < R; ++k) tv[k] = nxt[k];
        naive_mv<R>(na.Pr, tv, pv);
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)pv[k];
    } else if (!a.padded && mode == RB_BOUNDARY_MIRROR) {
        naive_mv<R>(na.M72, ev, tv); /* (72) */
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)tv[k];
    }

    naive_anticausal<R>(a, y, S, m, nxt, z); /* writing the samples that lie inside the line */
}

/* packed h x w pixels of c floats -> w x h, in 32 x 32 pixel tiles through
 * shared memory (padded against bank conflicts) */
#define NAIVE_TILE 32
__global__ void naive_transpose(const float *src, float *dst, int w, int h, int c)
{
    __shared__ float tile[NAIVE_TILE][NAIVE_TILE * 4 + 1];
    int bx = blockIdx.x * NAIVE_TILE, by = blockIdx.y * NAIVE_TILE;
    for (int ty = threadIdx.y; ty < NAIVE_TILE; ty += blockDim.y) {
        int yy = by + ty;
        if (yy >= h) break;
        for (int t = threadIdx.x; t < NAIVE_TILE * c; t += blockDim.x) {
            int xx = bx + t / c;
            if (xx < w) tile[ty][t] = src[((size_t)yy * w + bx) * c + t];
        }
    }
    __syncthreads();
    for (int tx = threadIdx.y; tx < NAIVE_TILE; tx += blockDim.y) {
        int xx = bx + tx;
        if (xx >= w) break;
        for (int t = threadIdx.x; t < NAIVE_TILE * c; t += blockDim.x) {
            int yy = by + t / c, k = t % c;
            if (yy < h) dst[((size_t)xx * h + by) * c + t] = tile[t / c][tx * c + k];
        }
    }
}

static void naive_transpose_launch(const float *src, float *dst, int w, int h, int c)
{
    dim3 grid((unsigned)((w + NAIVE_TILE - 1) / NAIVE_TILE), (unsigned)((h + NAIVE_TILE - 1) / NAIVE_TILE));
    naive_transpose<<<grid, dim3(32, 8)>>>(src, dst, w, h, c);
    CK(cudaGetLastError());
}

static void naive_axis_init(const rb_axis_plan *ap, int c, float cval, naive_axis *na, float **dev_fir)
{
    float cv[4] = {cval, cval, cval, cval};
    memset(na, 0, sizeof *na);
    rb_cuda_axis_from_plan(ap, c, cv, &na->a);
    double s = 1.0;
    *dev_fir = NULL;
    if (ap->ax.fir) {
        float taps[RB_MAX_FIR_TAPS];
        s = 0.0;
        for (int t = 0; t < na->a.ntaps; ++t) {
            taps[t] = (float)ap->ax.fir[t];
            s += ap->ax.fir[t];
        }
        CK(cudaMalloc((void **)dev_fir, na->a.ntaps * sizeof(float)));
        CK(cudaMemcpy(*dev_fir, taps, na->a.ntaps * sizeof(float), cudaMemcpyHostToDevice));
    }
    na->fir = *dev_fir;
    na->sumfir = (float)s;
    memcpy(na->Pf, ap->Pf, sizeof na->Pf);
    memcpy(na->Pr, ap->Pr, sizeof na->Pr);
    memcpy(na->M67z, ap->M67z, sizeof na->M67z);
    memcpy(na->M67y, ap->M67y, sizeof na->M67y);
    memcpy(na->M72, ap->M72, sizeof na->M72);
}

static void naive_axis_run(const naive_axis *na, const float *in, float *out, float *ybuf, size_t lanes)
{
    const int bs = 128;
    const unsigned grid = (unsigned)((lanes + bs - 1) / bs);
    switch (na->a.r) {
#define NAIVE_CASE(R) case R: naive_kernel<R><<<grid, bs>>>(*na, in, out, ybuf, lanes); break;
    NAIVE_CASE(0) NAIVE_CASE(1) NAIVE_CASE(2) NAIVE_CASE(3) NAIVE_CASE(4)
    NAIVE_CASE(5) NAIVE_CASE(6) NAIVE_CASE(7) NAIVE_CASE(8)
#undef NAIVE_CASE
    default: fprintf(stderr, "naive baseline: order %d not taken\n", na->a.r); exit(2);
    }
    CK(cudaGetLastError());
}

bench_naive *bench_naive_create(const rb_plan *plan, float bval)
{
    bench_naive *nv = (bench_naive *)calloc(1, sizeof *nv);
    if (!nv) { fprintf(stderr, "out of host memory\n"); exit(2); }
    nv->w = plan->width;
    nv->h = plan->height;
    nv->c = plan->channels;
    nv->has_col = plan->cols.ax.active;
    nv->has_row = plan->rows.ax.active;
    const size_t count = (size_t)nv->w * nv->h * nv->c;
    size_t scratch = 0;
    if (nv->has_col) {
        naive_axis_init(&plan->cols, nv->c, bval, &nv->col, &nv->fir_y);
        scratch = (size_t)nv->col.a.m * nv->w * nv->c;
    }
    if (nv->has_row) {
        /* the row pass sees the constant through the column pass's DC gain (FORMULAS.md, 2D) */
        const float g = nv->has_col ? (float)plan->cols.ax.dc_gain : 1.0f;
        naive_axis_init(&plan->rows, nv->c, bval * g, &nv->row, &nv->fir_x);
        const size_t t = (size_t)nv->row.a.m * nv->h * nv->c;
        if (t > scratch) scratch = t;
    }
    CK(cudaMalloc((void **)&nv->ybuf, (scratch ? scratch : 1) * sizeof(float)));
    CK(cudaMalloc((void **)&nv->t1, count * sizeof(float)));
    CK(cudaMalloc((void **)&nv->t2, count * sizeof(float)));
    return nv;
}

void bench_naive_run(bench_naive *nv, const float *in, float *out)
{
    const size_t bytes = (size_t)nv->w * nv->h * nv->c * sizeof(float);
    const float *cur = in;
    if (nv->has_col) {
        naive_axis_run(&nv->col, cur, nv->t1, nv->ybuf, (size_t)nv->w * nv->c);
        cur = nv->t1;
    }
    if (nv->has_row) {
        float *tr = cur == nv->t1 ? nv->t2 : nv->t1, *back = cur == nv->t1 ? nv->t1 : nv->t2;
        naive_transpose_launch(cur, tr, nv->w, nv->h, nv->c);
        naive_axis_run(&nv->row, tr, back, nv->ybuf, (size_t)nv->h * nv->c);
        naive_transpose_launch(back, out, nv->h, nv->w, nv->c);
        return;
    }
    CK(cudaMemcpyAsync(out, cur, bytes, cudaMemcpyDeviceToDevice, 0));
}

void bench_naive_destroy(bench_naive *nv)
{
    if (!nv) return;
    cudaFree(nv->fir_y);
    cudaFree(nv->fir_x);
    cudaFree(nv->ybuf);
    cudaFree(nv->t1);
    cudaFree(nv->t2);
    free(nv);
}
