/* Per-lane exact solver: one thread runs the whole 1D algorithm of the 2016
 * paper on one line (one column of one channel), the CPU's algorithm:
 *   u = FIR(x on its infinite extension), zero-initialised causal pass,
 *   closed-form prologue p(Y), superposition of its homogeneous response,
 *   closed-form epilogue e(Z), anticausal pass.
 * Lanes are interleaved in memory (sample i of lane l at i * lanes + l), so
 * every step of a warp is one coalesced 128-byte access. */
#include "rb_cuda.h"
#include "rb_cuda_dd.cuh"
#include "rb_cuda_extend.cuh"
#include <string.h>

/* out = M v (r x r row-major, double) */
template <int R>
static __device__ __forceinline__ void rb_matvec(const double *M, const double *v, double *out)
{
#pragma unroll
    for (int i = 0; i < R; ++i) {
        double s = 0.0;
#pragma unroll
        for (int j = 0; j < R; ++j) s += M[i * R + j] * v[j];
        out[i] = s;
    }
}

template <int R>
__global__ void rb_solve_kernel(const rb_cuda_axis a, const float *in, float *out, float *yb,
                                size_t lanes)
{
    size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= lanes) return;
    const size_t S = lanes;
    const float *x = in + l;
    float *y = yb + l;
    float *z = out + l;
    const int m = a.m;
    const long long s0 = a.s0;
    const int mode = a.mode;
    const float cv = a.cval[l % a.channels];

    /* causal state: prev[k] = y_{i-1-k}; the paper's vector [y_{i-r} .. y_{i-1}]
     * is prev reversed. */
    float prev[R + 1], nxt[R + 1];
    double pv[R + 1], ev[R + 1], tv[R + 1];
    float c0 = 0.0f, c1 = 0.0f;  /* u far before / after the line */
    if (mode == RB_BOUNDARY_CONSTANT) c0 = c1 = cv * a.sumfir;
    else if (mode == RB_BOUNDARY_CLAMP) {
        c0 = x[0] * a.sumfir;
        c1 = x[(size_t)(a.n - 1) * S] * a.sumfir;
    }
    const int const_like = !a.padded && (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT ||
                                         mode == RB_BOUNDARY_CLAMP);
    /* (35) of the 2016 paper: p(Y) = DC response of c0 in every slot */
#pragma unroll
    for (int k = 0; k < R; ++k) prev[k] = const_like ? (float)(a.prologue_dc * c0) : 0.0f;

    /* pass 1: causal over u (true prologue for constant-like modes, zero otherwise) */
    for (int i = 0; i < m; ++i) {
        float v = rb_u(a, x, S, s0 + i, cv);
#pragma unroll
        for (int k = 0; k < R; ++k) v -= a.dc[k] * prev[k];
#pragma unroll
        for (int k = R - 1; k > 0; --k) prev[k] = prev[k - 1];
        if (R > 0) prev[0] = v;
        y[(size_t)i * S] = v;
    }

    if (!a.padded && (mode == RB_BOUNDARY_PERIODIC || mode == RB_BOUNDARY_MIRROR)) {
        /* e_{-1}(Yhat) in paper order */
#pragma unroll
        for (int k = 0; k < R; ++k) ev[k] = prev[R - 1 - k];
        if (mode == RB_BOUNDARY_PERIODIC || a.via_periodic) {
            rb_matvec<R>(a.Pf, ev, pv);                        /* (49) */
        } else {
            /* p_1(Zhat): head of the zero-initialised anticausal pass over Yhat */
#pragma unroll
            for (int k = 0; k < R; ++k) nxt[k] = 0.0f;
            for (int i = m - 1; i >= 0; --i) {
                float v = y[(size_t)i * S];
#pragma unroll
                for (int k = 0; k < R; ++k) v -= a.da[k] * nxt[k];
#pragma unroll
                for (int k = R - 1; k > 0; --k) nxt[k] = nxt[k - 1];
                if (R > 0) nxt[0] = v;
            }
#pragma unroll
            for (int k = 0; k < R; ++k) tv[k] = nxt[k];       /* [z_0 .. z_{r-1}] */
            double t1[R + 1], t2[R + 1];
            rb_matvec<R>(a.M67z, tv, t1);                      /* (67), corrected */
            rb_matvec<R>(a.M67y, ev, t2);
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
    for (int k = 0; k < R; ++k) ev[k] = prev[R - 1 - k];      /* e_{-1}(Y) */
    if (const_like && !a.has_c) {
        /* anticausal only: its DC response to c1 in every slot */
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)(a.anticausal_dc * c1);
    } else if (const_like) {
        rb_mv_dd(R, a.M44, ev, a.v44, c1, tv);                 /* (44), in double-double */
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)tv[k];
    } else if (a.padded) {
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = 0.0f;
    } else if (mode == RB_BOUNDARY_PERIODIC || (mode == RB_BOUNDARY_MIRROR && a.via_periodic)) {
        /* (51): head of the zero-initialised anticausal pass over Y */
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = 0.0f;
        for (int i = m - 1; i >= 0; --i) {
            float v = y[(size_t)i * S];
#pragma unroll
            for (int k = 0; k < R; ++k) v -= a.da[k] * nxt[k];
#pragma unroll
            for (int k = R - 1; k > 0; --k) nxt[k] = nxt[k - 1];
            if (R > 0) nxt[0] = v;
        }
#pragma unroll
        for (int k = 0; k < R; ++k) tv[k] = nxt[k];
        rb_matvec<R>(a.Pr, tv, pv);
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)pv[k];
    } else if (mode == RB_BOUNDARY_MIRROR) {
        rb_matvec<R>(a.M72, ev, tv);                           /* (72) */
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = (float)tv[k];
    } else {
#pragma unroll
        for (int k = 0; k < R; ++k) nxt[k] = 0.0f;             /* none */
    }

    /* pass 2: anticausal, writing the samples that lie inside the line */
    for (int i = m - 1; i >= 0; --i) {
        float v = y[(size_t)i * S];
#pragma unroll
        for (int k = 0; k < R; ++k) v -= a.da[k] * nxt[k];
#pragma unroll
        for (int k = R - 1; k > 0; --k) nxt[k] = nxt[k - 1];
        if (R > 0) nxt[0] = v;
        long long j = s0 + i;
        if (j >= 0 && j < a.n) z[(size_t)j * S] = v;
    }
}

extern "C" int rb_cuda_axis_scratch(const rb_axis_plan *ap)
{
    int n = ap->n;
    int mode = ap->mode;
    if (ap->padded) return n + 2 * ap->pad;
    if (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT || mode == RB_BOUNDARY_CLAMP)
        return n + 2 * ap->fir_ext;
    if (mode == RB_BOUNDARY_MIRROR && ap->mirror_via_periodic) return 2 * n;
    return n;
}

extern "C" void rb_cuda_axis_from_plan(const rb_axis_plan *ap, const float *dev_fir,
                                       int channels, const float *cval, rb_cuda_axis *o)
{
    memset(o, 0, sizeof *o);
    const rb_axis *ax = &ap->ax;
    o->n = ap->n;
    o->mode = ap->mode;
    o->via_periodic = ap->mirror_via_periodic;
    o->m = rb_cuda_axis_scratch(ap);
    o->s0 = (o->m == ap->n + 2 * ap->fir_ext && (ap->mode == RB_BOUNDARY_ZERO ||
             ap->mode == RB_BOUNDARY_CONSTANT || ap->mode == RB_BOUNDARY_CLAMP)) ? -ap->fir_ext : 0;
    if (ap->padded) {
        /* closed forms ill-conditioned for this filter (axis_plan.c): filter the
         * extension over `pad` samples each side from zero states, as the CPU does */
        o->padded = 1;
        o->via_periodic = 0;
        o->s0 = -ap->pad;
    }
    o->r = ax->r;
    o->fir_lo = ax->fir_lo;
    o->ntaps = ax->fir ? ax->fir_hi - ax->fir_lo + 1 : 0;
    o->fir = dev_fir;
    double s = 0.0;
    if (ax->fir)
        for (int t = 0; t < o->ntaps; ++t) s += ax->fir[t];
    else
        s = 1.0;
    o->sumfir = (float)s;
    o->channels = channels;
    for (int c = 0; c < channels && c < 4; ++c) o->cval[c] = cval ? cval[c] : 0.0f;
    o->has_c = ax->causal_order > 0;
    o->has_a = ax->anticausal_order > 0;
    o->anticausal_dc = ap->anticausal_dc;
    for (int k = 0; k < ax->r; ++k) {
        o->dc[k] = (float)ax->dc[k];
        o->da[k] = (float)ax->da[k];
        o->dcd[k] = ax->dc[k];
        o->dad[k] = ax->da[k];
    }
    o->prologue_dc = ap->prologue_dc;
    {
        long double sc = 1.0L, sa = 1.0L;
        for (int k = 0; k < ax->r; ++k) {
            sc += ax->dc[k];
            sa += ax->da[k];
        }
        o->gain = (double)((long double)s / (sc * sa));
        o->shift = ap->mode == RB_BOUNDARY_CONSTANT || ap->mode == RB_BOUNDARY_CLAMP ||
                   ap->mode == RB_BOUNDARY_PERIODIC || ap->mode == RB_BOUNDARY_MIRROR;
    }
    memcpy(o->M44, ap->M44, sizeof o->M44);
    memcpy(o->v44, ap->v44, sizeof o->v44);
    memcpy(o->Pf, ap->Pf, sizeof o->Pf);
    memcpy(o->Pr, ap->Pr, sizeof o->Pr);
    memcpy(o->M67z, ap->M67z, sizeof o->M67z);
    memcpy(o->M67y, ap->M67y, sizeof o->M67y);
    memcpy(o->M72, ap->M72, sizeof o->M72);
}

extern "C" cudaError_t rb_cuda_solve_lanes(const rb_cuda_axis *a, const float *in, float *out,
                                           float *ybuf, size_t lanes, cudaStream_t s)
{
    const int bs = 128;
    unsigned grid = (unsigned)((lanes + bs - 1) / bs);
    switch (a->r) {
#define RB_CASE(R) case R: rb_solve_kernel<R><<<grid, bs, 0, s>>>(*a, in, out, ybuf, lanes); break;
    RB_CASE(0) RB_CASE(1) RB_CASE(2) RB_CASE(3) RB_CASE(4)
    RB_CASE(5) RB_CASE(6) RB_CASE(7) RB_CASE(8)
#undef RB_CASE
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
