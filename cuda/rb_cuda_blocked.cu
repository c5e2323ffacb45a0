/* Block-parallel exact solver (see rb_cuda.h): the overlapped carries of the
 * 2011 paper (algorithm 4's causal/anticausal block tails and heads, fixed by
 * a per-lane carry chain) with the exact infinite-extension feedbacks of the
 * 2016 paper injected where the chains start. Five light launches:
 *   tails: zero-initialised causal tail of every block            (reads u)
 *   chain_c: true causal state entering every block, e_{-1}(Y), e(Z)
 *   heads: Y of the block, zero-initialised anticausal head        (reads u)
 *   chain_a: true anticausal state entering every block
 *   final: Y and Z of the block from the true states, written      (reads u, writes z)
 * Carries are r doubles per lane per block of 32 samples: for poles near 1
 * (wide Gaussians) the states dwarf the output and float carries lost its
 * digits (sigma 40 was 3e-3..5e-3 off); the tiled solver's rb_cuda_fz.dbl
 * keeps them in double for the same reason. */
#include "rb_cuda.h"
#include "rb_cuda_dd.cuh"
#include "rb_cuda_extend.cuh"
#include <math.h>
#include <stdint.h>
#include <string.h>

#define B RB_CUDA_BLOCK

/* carry layout: [blk][k][lane] */
#define CAR(buf, blk, k) (buf)[((size_t)(blk) * R + (k)) * lanes + lane]

template <int R>
static __device__ __forceinline__ void rb_mv(const double *M, const double *v, double *o)
{
#pragma unroll
    for (int i = 0; i < R; ++i) {
        double s = 0.0;
#pragma unroll
        for (int j = 0; j < R; ++j) s += M[i * R + j] * v[j];
        o[i] = s;
    }
}

/* constant-like boundary values c0, c1 (u far before / after the line) */
static __device__ __forceinline__ void rb_edges(const rb_cuda_axis &a, const float *x, size_t S,
                                                float cv, float *c0, float *c1)
{
    *c0 = *c1 = 0.0f;
    if (a.mode == RB_BOUNDARY_CONSTANT) *c0 = *c1 = cv * a.sumfir;
    else if (a.mode == RB_BOUNDARY_CLAMP) {
        *c0 = x[0] * a.sumfir;
        *c1 = x[(size_t)(a.n - 1) * S] * a.sumfir;
    }
}

template <int R>
__global__ void rb_blk_tails(const rb_cuda_blk b, const float *in, const float *mean, double *car,
                             size_t lanes)
{
    size_t t_ = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lane = t_ % lanes;
    int blk = (int)(t_ / lanes);
    if (blk >= b.nb) return;
    const rb_cuda_axis &a = b.ax;
    const float *x = in + lane;
    const float cv = a.cval[lane % a.channels];
    int i0 = blk * B, len = min(B, a.m - i0);
    const float mu = a.shift ? mean[lane] * a.sumfir : 0.0f;
    double p[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = 0.0f;
#pragma unroll
    for (int j = 0; j < B; ++j) {
        if (j < len) {
            double v = (double)rb_u(a, x, lanes, (long long)a.s0 + i0 + j, cv) - mu;
#pragma unroll
            for (int k = 0; k < R; ++k) v -= a.dcd[k] * p[k];
#pragma unroll
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            if (R > 0) p[0] = v;
        }
    }
#pragma unroll
    for (int k = 0; k < R; ++k) CAR(car, blk, k) = p[k];
}

/* causal chain: tails in car1 become the true states entering each block;
 * edge gets e(Z) for constant-like modes (zeros otherwise). */
template <int R>
__global__ void rb_blk_chain_c(const rb_cuda_blk b, const float *in, const float *mean, double *car,
                               double *edge, size_t lanes)
{
    size_t lane = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    const rb_cuda_axis &a = b.ax;
    const float cv = a.cval[lane % a.channels];
    float c0, c1;
    rb_edges(a, in + lane, lanes, cv, &c0, &c1);
    if (a.shift) {
        c0 -= mean[lane] * a.sumfir;
        c1 -= mean[lane] * a.sumfir;
    }
    const int const_like = !a.padded && (a.mode == RB_BOUNDARY_ZERO || a.mode == RB_BOUNDARY_CONSTANT ||
                                         a.mode == RB_BOUNDARY_CLAMP);
    double S[R + 1], t[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) S[k] = const_like ? a.prologue_dc * c0 : 0.0; /* (35) */
    if (b.periodic_like) {
        /* zero-initialised chain: e_{-1}(Yhat), then (49) in this convention */
        for (int blk = 0; blk < b.nb; ++blk) {
            rb_mv<R>(blk == b.nb - 1 ? b.Mc_last : b.Mc, S, t);
#pragma unroll
            for (int k = 0; k < R; ++k) S[k] = t[k] + CAR(car, blk, k);
        }
        rb_mv<R>(b.Qc, S, t);
#pragma unroll
        for (int k = 0; k < R; ++k) S[k] = t[k];
    }
    for (int blk = 0; blk < b.nb; ++blk) {
        rb_mv<R>(blk == b.nb - 1 ? b.Mc_last : b.Mc, S, t);
#pragma unroll
        for (int k = 0; k < R; ++k) {
            double tail = CAR(car, blk, k);
            CAR(car, blk, k) = S[k];
            S[k] = t[k] + tail;
        }
    }
    /* S = e_{-1}(Y) as [y_{m-1} .. y_{m-r}]; epilogue [z_m .. z_{m+r-1}] */
    double ev[R + 1], ez[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) ev[k] = S[R - 1 - k];
    if (const_like && a.has_c) {
        rb_mv_dd(R, a.M44, ev, a.v44, c1, ez); /* (44), its cancellation in double-double */
    } else if (const_like) {
#pragma unroll
        for (int k = 0; k < R; ++k) ez[k] = a.anticausal_dc * c1;
    } else {
#pragma unroll
        for (int k = 0; k < R; ++k) ez[k] = 0.0;
    }
#pragma unroll
    for (int k = 0; k < R; ++k) edge[(size_t)k * lanes + lane] = ez[k];
}

/* Y of one block from its true causal state, in registers */
template <int R>
static __device__ __forceinline__ void rb_blk_y(const rb_cuda_blk &b, const float *x, size_t lanes,
                                                size_t lane, int blk, int len, float cv,
                                                float mu, const double *car1, double *y)
{
    const rb_cuda_axis &a = b.ax;
    double p[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = CAR(car1, blk, k);
    int i0 = blk * B;
#pragma unroll
    for (int j = 0; j < B; ++j) {
        if (j < len) {
            double v = (double)rb_u(a, x, lanes, (long long)a.s0 + i0 + j, cv) - mu;
#pragma unroll
            for (int k = 0; k < R; ++k) v -= a.dcd[k] * p[k];
#pragma unroll
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            if (R > 0) p[0] = v;
            y[j] = v;
        }
    }
}

template <int R>
__global__ void rb_blk_heads(const rb_cuda_blk b, const float *in, const float *mean,
                             const double *car1, double *car2, size_t lanes)
{
    size_t t_ = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lane = t_ % lanes;
    int blk = (int)(t_ / lanes);
    if (blk >= b.nb) return;
    const rb_cuda_axis &a = b.ax;
    const float cv = a.cval[lane % a.channels];
    int len = min(B, a.m - blk * B);
    const float mu = a.shift ? mean[lane] * a.sumfir : 0.0f;
    double y[B];
    rb_blk_y<R>(b, in + lane, lanes, lane, blk, len, cv, mu, car1, y);
    double q[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) q[k] = 0.0f;
#pragma unroll
    for (int j = B - 1; j >= 0; --j) {
        if (j < len) {
            double v = y[j];
#pragma unroll
            for (int k = 0; k < R; ++k) v -= a.dad[k] * q[k];
#pragma unroll
            for (int k = R - 1; k > 0; --k) q[k] = q[k - 1];
            if (R > 0) q[0] = v;
        }
    }
#pragma unroll
    for (int k = 0; k < R; ++k) CAR(car2, blk, k) = q[k];
}

/* anticausal chain, right to left: heads in car2 become the true states
 * entering each block from the right */
template <int R>
__global__ void rb_blk_chain_a(const rb_cuda_blk b, double *car2, const double *edge, size_t lanes)
{
    size_t lane = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    double E[R + 1], t[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) E[k] = b.periodic_like ? 0.0 : edge[(size_t)k * lanes + lane];
    if (b.periodic_like) {
        for (int blk = b.nb - 1; blk >= 0; --blk) {
            rb_mv<R>(blk == b.nb - 1 ? b.Ma_last : b.Ma, E, t);
#pragma unroll
            for (int k = 0; k < R; ++k) E[k] = t[k] + CAR(car2, blk, k);
        }
        rb_mv<R>(b.Qa, E, t); /* (51) in this convention */
#pragma unroll
        for (int k = 0; k < R; ++k) E[k] = t[k];
    }
    for (int blk = b.nb - 1; blk >= 0; --blk) {
        rb_mv<R>(blk == b.nb - 1 ? b.Ma_last : b.Ma, E, t);
#pragma unroll
        for (int k = 0; k < R; ++k) {
            double head = CAR(car2, blk, k);
            CAR(car2, blk, k) = E[k];
            E[k] = t[k] + head;
        }
    }
}

template <int R>
__global__ void rb_blk_final(const rb_cuda_blk b, const float *in, const float *mean, float *out,
                             const double *car1, const double *car2, size_t lanes)
{
    size_t t_ = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lane = t_ % lanes;
    int blk = (int)(t_ / lanes);
    if (blk >= b.nb) return;
    const rb_cuda_axis &a = b.ax;
    const float cv = a.cval[lane % a.channels];
    int i0 = blk * B, len = min(B, a.m - i0);
    long long j0 = (long long)a.s0 + i0;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line */
    const float mu = a.shift ? mean[lane] * a.sumfir : 0.0f;
    const float back = a.shift ? (float)(a.gain * mean[lane]) : 0.0f;
    double y[B];
    rb_blk_y<R>(b, in + lane, lanes, lane, blk, len, cv, mu, car1, y);
    double q[R + 1];
#pragma unroll
    for (int k = 0; k < R; ++k) q[k] = CAR(car2, blk, k);
    float *z = out + lane;
#pragma unroll
    for (int j = B - 1; j >= 0; --j) {
        if (j < len) {
            double v = y[j];
#pragma unroll
            for (int k = 0; k < R; ++k) v -= a.dad[k] * q[k];
#pragma unroll
            for (int k = R - 1; k > 0; --k) q[k] = q[k - 1];
            if (R > 0) q[0] = v;
            long long jj = j0 + j;
            if (jj >= 0 && jj < a.n) z[(size_t)jj * lanes] = (float)(v + back);
        }
    }
}

/* per-lane mean of the line (the shift of line_solver.c) */
__global__ void rb_blk_mean(const rb_cuda_axis a, const float *in, float *mean, size_t lanes)
{
    size_t lane = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    double s = 0.0;
    for (int i = 0; i < a.n; ++i) s += in[(size_t)i * lanes + lane];
    mean[lane] = (float)(s / a.n);
}

/* ------------------------------------------------------------------ host */
static void rb_companion(const double *d, int r, double *C)
{
    memset(C, 0, sizeof(double) * r * r);
    for (int k = 0; k < r; ++k) C[k] = -d[k];
    for (int i = 1; i < r; ++i) C[i * r + i - 1] = 1.0;
}

static void rb_matmul(const double *A, const double *Bm, int r, double *O)
{
    double t[RB_MAX_ORDER * RB_MAX_ORDER];
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < r; ++j) {
            double s = 0;
            for (int k = 0; k < r; ++k) s += A[i * r + k] * Bm[k * r + j];
            t[i * r + j] = s;
        }
    memcpy(O, t, sizeof(double) * r * r);
}

static void rb_matpow(const double *C, int r, long long e, double *O)
{
    double base[RB_MAX_ORDER * RB_MAX_ORDER];
    memcpy(base, C, sizeof(double) * r * r);
    memset(O, 0, sizeof(double) * r * r);
    for (int i = 0; i < r; ++i) O[i * r + i] = 1.0;
    while (e > 0) {
        if (e & 1) rb_matmul(O, base, r, O);
        rb_matmul(base, base, r, base);
        e >>= 1;
    }
}

/* Mirror goes by explicit padding here: the extension filtered from zero states
 * `pad` samples before and after the line. In float32 that stays accurate where the
 * closed forms (67)/(72) and the 2n-periodic route lose digits to cancellation
 * (poles near 1, very short lines), and it is cheaper than 2n for moderate poles.
 * pad = where the impulse responses of both passes have died out below 1e-13 of
 * their peak (as the CPU's padded route), plus order and FIR reach: the slowest
 * pole alone underestimates it for repeated or clustered poles (an order-5 filter
 * with poles near 0.99 was 1.6e-3 off with the old 1e-9-of-one-pole rule). */
static long rb_cuda_decay_steps(const double *d, int r, long double tol)
{
    long double h[RB_MAX_ORDER] = {0}, peak = 0;
    long last = 0;
    const long cap = 100000000L;
    for (long i = 0; i < cap; i++) {
        long double v = i == 0 ? 1.0L : 0.0L;
        for (int k = 0; k < r; k++) v -= d[k] * h[k];
        for (int k = r - 1; k > 0; k--) h[k] = h[k - 1];
        if (r > 0) h[0] = v;
        long double a = fabsl(v);
        if (a > peak) peak = a;
        if (a > tol * peak) last = i;
        if (i - last > 256 && i - last > last / 4) break;
    }
    return last + 1;
}

static int rb_cuda_mirror_pad(const rb_axis_plan *ap)
{
    int r = ap->ax.r;
    long pc = r > 0 ? rb_cuda_decay_steps(ap->ax.dc, r, 1e-13L) : 0;
    long pa = r > 0 ? rb_cuda_decay_steps(ap->ax.da, r, 1e-13L) : 0;
    long p = (pc > pa ? pc : pa) + r + ap->fir_ext + 8;
    return p > (1L << 28) ? (1 << 28) : (int)p;
}

extern "C" size_t rb_cuda_blk_carry(const rb_axis_plan *ap)
{
    int r = ap->ax.r;
    int m = rb_cuda_axis_scratch(ap);
    if (ap->mode == RB_BOUNDARY_MIRROR && !ap->padded) m = ap->n + 2 * rb_cuda_mirror_pad(ap);
    size_t nb = ((size_t)m + B - 1) / B;
    /* in floats: car1, car2 (nb * r doubles each) and edge (r doubles), then the
     * float mean; rb_blk_launch's layout */
    return 2 * (2 * nb * (size_t)r + (size_t)r) + 1;
}

extern "C" void rb_cuda_blk_init(const rb_axis_plan *ap, const float *dev_fir, int channels,
                                const float *cval, rb_cuda_blk *o)
{
    memset(o, 0, sizeof *o);
    rb_cuda_axis_from_plan(ap, dev_fir, channels, cval, &o->ax);
    if (ap->mode == RB_BOUNDARY_MIRROR && !ap->padded) {
        int pad = rb_cuda_mirror_pad(ap);
        o->ax.padded = 1;
        o->ax.via_periodic = 0;
        o->ax.s0 = -pad;
        o->ax.m = ap->n + 2 * pad;
    }
    /* mirror always goes by padding here (above), which needs no periodic closure */
    o->periodic_like = !o->ax.padded && ap->mode == RB_BOUNDARY_PERIODIC;
    int r = ap->ax.r, m = o->ax.m;
    o->nb = (m + B - 1) / B;
    o->last_len = m - (o->nb - 1) * B;
    if (r == 0) return;
    double Cc[RB_MAX_ORDER * RB_MAX_ORDER], Ca[RB_MAX_ORDER * RB_MAX_ORDER];
    double dc[RB_MAX_ORDER], da[RB_MAX_ORDER];
    /* from the filter's double coefficients, as the CPU's closed forms are: with poles
     * near 1 the float-rounded recursion is ill-conditioned at DC, and short lines
     * (mostly carried by these matrices) then stay on the true filter */
    for (int k = 0; k < r; ++k) {
        dc[k] = ap->ax.dc[k];
        da[k] = ap->ax.da[k];
    }
    rb_companion(dc, r, Cc);
    rb_companion(da, r, Ca);
    rb_matpow(Cc, r, B, o->Mc);
    rb_matpow(Cc, r, o->last_len, o->Mc_last);
    rb_matpow(Ca, r, B, o->Ma);
    rb_matpow(Ca, r, o->last_len, o->Ma_last);
    if (o->periodic_like) {
        /* (49)/(51): (I - A^n)^-1 as the plan summed it (axis_plan.c, long double series,
         * the CPU's Pf/Pr), not the inverse of I - A^n with A^n by repeated squaring in
         * double: for order-5 poles near 0.99 on a 1000-sample line A^n has entries of 1e6
         * that cancel to its 1e-2, and that inverse was off by 1e5 (1.8e-2 of the output,
         * RB_TEST_SEED=3). Our states run newest first ([y_-1 .. y_-R]), the CPU's oldest
         * first: Qc = K Pf K; the anticausal states agree ([z_0 .. z_R-1]): Qa = Pr. */
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < r; ++j) {
                o->Qc[i * r + j] = ap->Pf[(r - 1 - i) * r + (r - 1 - j)];
                o->Qa[i * r + j] = ap->Pr[i * r + j];
            }
    }
}

template <int R>
static cudaError_t rb_blk_launch(const rb_cuda_blk *b, const float *in, float *out, float *carry,
                                 size_t lanes, cudaStream_t s)
{
    const int bs = 128;
    /* per-block kernels: one flat index over (block, lane), lanes fastest (coalesced) */
    size_t total = lanes * (size_t)b->nb;
    unsigned g1 = (unsigned)((lanes + bs - 1) / bs), g2 = (unsigned)((total + bs - 1) / bs);
    if ((total + bs - 1) / bs > 0x7fffffffu) return cudaErrorInvalidConfiguration;
    /* the doubles first: carry is the start of a cudaMalloc'd buffer (256-byte
     * aligned), so they are 8-byte aligned, and the float mean after them too */
    double *car1 = (double *)carry, *car2 = car1 + (size_t)b->nb * R * lanes;
    double *edge = car2 + (size_t)b->nb * R * lanes;
    float *mean = (float *)(edge + (size_t)R * lanes);
    if ((uintptr_t)carry % alignof(double)) return cudaErrorMisalignedAddress;
    if (b->ax.shift) rb_blk_mean<<<g1, bs, 0, s>>>(b->ax, in, mean, lanes);
    if (R > 0) {
        rb_blk_tails<R><<<g2, bs, 0, s>>>(*b, in, mean, car1, lanes);
        rb_blk_chain_c<R><<<g1, bs, 0, s>>>(*b, in, mean, car1, edge, lanes);
        rb_blk_heads<R><<<g2, bs, 0, s>>>(*b, in, mean, car1, car2, lanes);
        rb_blk_chain_a<R><<<g1, bs, 0, s>>>(*b, car2, edge, lanes);
    }
    rb_blk_final<R><<<g2, bs, 0, s>>>(*b, in, mean, out, car1, car2, lanes);
    return cudaGetLastError();
}

extern "C" cudaError_t rb_cuda_solve_blocked(const rb_cuda_blk *b, const float *in, float *out,
                                             float *carry, size_t lanes, cudaStream_t s)
{
    switch (b->ax.r) {
    case 0: return rb_blk_launch<0>(b, in, out, carry, lanes, s);
    case 1: return rb_blk_launch<1>(b, in, out, carry, lanes, s);
    case 2: return rb_blk_launch<2>(b, in, out, carry, lanes, s);
    case 3: return rb_blk_launch<3>(b, in, out, carry, lanes, s);
    case 4: return rb_blk_launch<4>(b, in, out, carry, lanes, s);
    case 5: return rb_blk_launch<5>(b, in, out, carry, lanes, s);
    case 6: return rb_blk_launch<6>(b, in, out, carry, lanes, s);
    case 7: return rb_blk_launch<7>(b, in, out, carry, lanes, s);
    case 8: return rb_blk_launch<8>(b, in, out, carry, lanes, s);
    default: return cudaErrorInvalidValue;
    }
}
