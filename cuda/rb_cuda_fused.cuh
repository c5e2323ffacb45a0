/* The per-lane arithmetic of the tiled solver (rb_cuda_fused.cu), written as
 * __host__ __device__ functions so that the host emulation test
 * (tests/test_gpu_emu.cu) runs exactly this code on the CPU, without a GPU.
 *
 * One axis, one lane (one line of one channel), blocks of RB_FZ_B samples of
 * the feedback domain [s0, s0 + m). Per block, stage 1 (one read of the
 * input) gives the zero-initialised causal tail Tbar and the zero-initialised
 * anticausal head Hbar over that causal output, plus the block's sum of input
 * samples; the chain (small arrays only) turns them into the true states
 * entering every block, by linearity:
 *   causal state entering block b+1:  P_{b+1} = A_F^len P_b + Tbar_b - mu T1
 *   anticausal head of block b:       H_b = Hbar_b - mu H1 + G P_b
 *   anticausal state entering b-1:    E_{b-1} = A_R^len E_b + H_b
 * (mu: the FIR of the line's mean, taken off as line_solver.c does; T1, H1:
 * the same tail/head for a block of ones; G: the anticausal head of the
 * homogeneous causal response to a unit state). The boundary feedbacks of the
 * 2016 paper start the chains: (35)/(44) for the constant modes, (49)/(51) for
 * periodic; mirror goes by explicit padding, as does the plan's padded route.
 * The final stage (second read) recomputes each block from its true states
 * and writes the output once. Recursion in double; carries stored as CT:
 * float, or double where the states dwarf the output (rb_cuda_fz.dbl). */
#ifndef RB_CUDA_FUSED_CUH
#define RB_CUDA_FUSED_CUH

#include "rb_cuda.h"
#include "rb_cuda_dd.cuh"
#include <math.h>
#include <string.h>

#define RB_FZ_B 32

/* Coefficient k of a pass in the recursion's type: float recursion takes the
 * axis' float copy (exactly (float) of the double one, as rb_cuda_axis_from_plan
 * makes it), an operand the kernels read from the parameter bank as it is,
 * instead of a double to convert at every step. */
#define RB_FZ_COEF(IT, cf, cd, k) (sizeof(IT) == sizeof(float) ? (IT)(cf)[k] : (IT)(cd)[k])

/* The samples of one block where the per-block functions below take them:
 * an array of IT (registers), or, for float recursion in the row kernels,
 * the thread's row of the shared-memory tile (sample j at p[j * c]): the
 * recursion then runs in place there and needs no 32 registers for u, so
 * more thread blocks fit on an SM. Same arithmetic either way. */
struct rb_fz_smu {
    float *p;
    int c;
#ifdef __CUDACC__
    __host__ __device__ __forceinline__
#endif
    float &operator[](int j) const { return p[j * c]; }
};

/* x on its infinite extension (input units) */
RB_HD float rb_fz_xext(const float *x, long long S, long long j, int n, int mode, float cval)
{
    if (j >= 0 && j < n) return x[j * S];
    switch (mode) {
    case RB_BOUNDARY_CONSTANT: return cval;
    case RB_BOUNDARY_CLAMP: return x[(j < 0 ? 0 : (long long)n - 1) * S];
    case RB_BOUNDARY_PERIODIC: {
        long long k = j % n;
        if (k < 0) k += n;
        return x[k * S];
    }
    case RB_BOUNDARY_MIRROR: {
        long long p = 2LL * n, k = j % p;
        if (k < 0) k += p;
        if (k >= n) k = p - 1 - k;
        return x[k * S];
    }
    default: return 0.0f; /* zero, none */
    }
}

/* u_j = sum_t fir[t] x_ext(j + fir_lo + t), in double with double taps: the
 * constant-mode closed forms assume u is exactly sumfir * c beyond the line,
 * and float taps broke that by 1e-7 relative, which filters with poles near -1
 * amplify by orders of magnitude (the 1x1 clamp failure). */
RB_HD double rb_fz_u(const rb_cuda_fz &f, const float *x, long long S, long long j, float cv)
{
    const rb_cuda_axis &a = f.b.ax;
    if (a.ntaps == 0) return (double)rb_fz_xext(x, S, j, a.n, a.mode, cv);
    double acc = 0.0;
    long long b = j + a.fir_lo;
    if (b >= 0 && b + a.ntaps <= a.n) {
        for (int t = 0; t < a.ntaps; ++t) acc += f.fird[t] * (double)x[(b + t) * S];
    } else {
        for (int t = 0; t < a.ntaps; ++t)
            acc += f.fird[t] * (double)rb_fz_xext(x, S, b + t, a.n, a.mode, cv);
    }
    return acc;
}

/* Where lane `lane`'s line starts and the distance between its samples. */
RB_HD void rb_fz_lane(const rb_cuda_fz &f, long long lane, long long *base, long long *S)
{
    if (f.rows) {
        *base = (lane / f.c) * f.ld + lane % f.c;
        *S = f.c;
    } else {
        *base = lane;
        *S = f.ld;
    }
}

/* u over one block (generic path: extension and FIR), and the block's sum of
 * the line's own samples. Not unrolled (it runs on edge blocks and FIR axes
 * only): a local array takes the values, copied to u with fixed indices so u
 * itself stays in registers. */
template <int R, typename IT, typename U = IT *>
RB_HD void rb_fz_load_generic(const rb_cuda_fz &f, const float *x, long long S, int blk, int len,
                              float cv, U u, double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    long long j0 = (long long)a.s0 + (long long)blk * RB_FZ_B;
    double s = 0.0, tmp[RB_FZ_B];
RB_NO_UNROLL
    for (int j = 0; j < len; ++j) {
        long long jj = j0 + j;
        tmp[j] = rb_fz_u(f, x, S, jj, cv);
        if (jj >= 0 && jj < a.n) s += (double)x[jj * S];
    }
RB_UNROLL
    for (int j = 0; j < RB_FZ_B; ++j)
        if (j < len) u[j] = (IT)tmp[j];
    *bsum = s;
}

/* stage 1 on one block: Tbar = [y_{len-1} .. y_{len-R}] of the zero-initialised
 * causal pass, Hbar = [z_0 .. z_{R-1}] of the zero-initialised anticausal pass
 * over it (both zero-padded when len < R). u is overwritten. */
template <int R, typename IT, typename U = IT *>
RB_HD void rb_fz_stage1(const rb_cuda_fz &f, U u, int len, double *T, double *H)
{
    const rb_cuda_axis &a = f.b.ax;
    IT p[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)0;
RB_UNROLL
    for (int j = 0; j < RB_FZ_B; ++j) {
        if (j < len) {
            IT v = u[j];
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= RB_FZ_COEF(IT, a.dc, a.dcd, k) * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
            u[j] = v;
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) T[k] = (double)p[k];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)0;
RB_UNROLL
    for (int j = RB_FZ_B - 1; j >= 0; --j) {
        if (j < len) {
            IT v = u[j];
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= RB_FZ_COEF(IT, a.da, a.dad, k) * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) H[k] = (double)p[k];
}

/* Stage 1 of a whole block (len = B) as 2R dot products: Tbar and Hbar are
 * linear in the block's samples with zero initial states, so
 * Tbar_k = sum_j Wt[k][j] u_j and Hbar_k = sum_j Wh[k][j] u_j, with the weights
 * the two recursions give for unit impulses (rb_cuda_fz_init, in double). No
 * chain of 2B dependent steps: the sums take the samples as their loads land,
 * which keeps the column stage 1 a plain streaming read. Float sums, as the
 * float recursion it replaces (rb_cuda_fz.wdot only goes with float carries). */
template <int R, typename U>
RB_HD void rb_fz_stage1_dot(const rb_cuda_fz &f, const U &u, double *T, double *H)
{
    float t[R], h[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) t[k] = h[k] = 0.0f;
RB_UNROLL
    for (int j = 0; j < RB_FZ_B; ++j) {
        const float v = (float)u[j];
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            t[k] = fmaf(f.Wt[k * RB_FZ_B + j], v, t[k]);
            h[k] = fmaf(f.Wh[k * RB_FZ_B + j], v, h[k]);
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) {
        T[k] = (double)t[k];
        H[k] = (double)h[k];
    }
}

/* final stage on one block: from the true causal state P (entering from the
 * left, [y_{-1} .. y_{-R}]) and anticausal state E (entering from the right,
 * [z_len .. z_{len+R-1}]), u - mu -> z in place */
template <int R, typename IT, typename U = IT *>
RB_HD void rb_fz_final(const rb_cuda_fz &f, U u, int len, double mu, const double *P,
                       const double *E)
{
    const rb_cuda_axis &a = f.b.ax;
    IT p[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)P[k];
RB_UNROLL
    for (int j = 0; j < RB_FZ_B; ++j) {
        if (j < len) {
            IT v = u[j] - (IT)mu;
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= RB_FZ_COEF(IT, a.dc, a.dcd, k) * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
            u[j] = v;
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)E[k];
RB_UNROLL
    for (int j = RB_FZ_B - 1; j >= 0; --j) {
        if (j < len) {
            IT v = u[j];
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= RB_FZ_COEF(IT, a.da, a.dad, k) * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
            u[j] = v;
        }
    }
}

template <int R>
RB_HD void rb_fz_mv(const double *M, const double *v, double *o)
{
RB_UNROLL
    for (int i = 0; i < R; ++i) {
        double s = 0.0;
RB_UNROLL
        for (int j = 0; j < R; ++j) s += M[i * R + j] * v[j];
        o[i] = s;
    }
}

/* The homogeneous responses the chain needs, step by step (the recursion's own
 * arithmetic) instead of through A^len and G: for poles near 1 the entries of
 * A^32 grow like 32^(R-1) and cancel against states that are all nearly equal,
 * which loses 1e-4 of the output of a wide Gaussian even in double. Used with
 * double carries (rb_cuda_fz.dbl), where such filters go. Causal: state P
 * through len samples of zero input -> Pout; head: the zero-initialised
 * anticausal head over that response. Anticausal: E through len samples. */
template <int R>
RB_HD void rb_fz_step_c(const rb_cuda_axis &a, const double *P, int len, double *Pout, double *head)
{
    double p[R], y[RB_FZ_B];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = P[k];
RB_UNROLL
    for (int j = 0; j < RB_FZ_B; ++j) {
        if (j < len) {
            double v = 0.0;
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= a.dcd[k] * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
            y[j] = v;
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) Pout[k] = p[k];
    if (!head) return;
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = 0.0;
RB_UNROLL
    for (int j = RB_FZ_B - 1; j >= 0; --j) {
        if (j < len) {
            double v = y[j];
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= a.dad[k] * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) head[k] = p[k];
}

template <int R>
RB_HD void rb_fz_step_a(const rb_cuda_axis &a, const double *E, int len, double *Eout)
{
    double p[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = E[k];
RB_UNROLL
    for (int j = 0; j < RB_FZ_B; ++j) {
        if (j < len) {
            double v = 0.0;
RB_UNROLL
            for (int k = 0; k < R; ++k) v -= a.dad[k] * p[k];
RB_UNROLL
            for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
            p[0] = v;
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) Eout[k] = p[k];
}

/* carry layout: [blk][k][lane] (coalesced over lanes in every stage) */
#define RB_FZ_CAR(buf, blk, k) (buf)[((size_t)(blk) * R + (k)) * lanes + lane]
#define RB_FZ_SUM(buf, blk) (buf)[(size_t)(blk) * lanes + lane]

/* The chain of one lane (see the top of this file). car1: Tbar in, true
 * causal states P out; car2: Hbar in, true anticausal states E out; sums:
 * block sums in; mean: the mean the final stage must take off. */
template <int R, typename CT>
RB_HD void rb_fz_chain(const rb_cuda_fz &f, const float *in, CT *car1, CT *car2,
                       const float *sums, float *mean, size_t lanes, size_t lane)
{
    const rb_cuda_blk &b = f.b;
    const rb_cuda_axis &a = b.ax;
    const int nb = b.nb;
    long long base, S;
    rb_fz_lane(f, (long long)lane, &base, &S);
    const float *x = in + base;
    const float cv = a.cval[lane % a.channels];

    double mu = 0.0;
    float mf = 0.0f;
    if (a.shift) {
        double s = 0.0;
#ifdef __CUDA_ARCH__
#pragma unroll 8
#endif
        for (int blk = 0; blk < nb; ++blk) s += (double)RB_FZ_SUM(sums, blk);
        mf = (float)(s / a.n);
        mu = (double)mf * f.sumfird;
    }
    mean[lane] = mf;
    /* u far before / after the line, minus the mean's FIR */
    double c0 = 0.0, c1 = 0.0;
    if (a.mode == RB_BOUNDARY_CONSTANT) c0 = c1 = (double)cv * f.sumfird;
    else if (a.mode == RB_BOUNDARY_CLAMP) {
        c0 = (double)x[0] * f.sumfird;
        c1 = (double)x[(long long)(a.n - 1) * S] * f.sumfird;
    }
    c0 -= mu;
    c1 -= mu;
    const int const_like = !a.padded && (a.mode == RB_BOUNDARY_ZERO || a.mode == RB_BOUNDARY_CONSTANT ||
                                         a.mode == RB_BOUNDARY_CLAMP);
    double St[R], t[R], h[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = const_like ? a.prologue_dc * c0 : 0.0; /* (35) */
    if (b.periodic_like) {
        /* zero-initialised chain: e_{-1}(Yhat); (49) gives the true p(Y) */
        for (int blk = 0; blk < nb; ++blk) {
            const int last = blk == nb - 1;
            if (f.dbl) rb_fz_step_c<R>(a, St, last ? b.last_len : RB_FZ_B, t, (double *)0);
            else rb_fz_mv<R>(last ? b.Mc_last : b.Mc, St, t);
            const double *T1 = last ? f.T1_last : f.T1;
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k] + (double)RB_FZ_CAR(car1, blk, k) - mu * T1[k];
        }
        rb_fz_mv<R>(b.Qc, St, t);
RB_UNROLL
        for (int k = 0; k < R; ++k) St[k] = t[k];
    }
    /* the carries of D blocks are loaded together before they are used: the
     * chain is one thread per lane, so it would otherwise wait out one memory
     * latency per block */
    constexpr int D = R <= 2 ? 8 : 4;
    for (int b0 = 0; b0 < nb; b0 += D) {
        CT tl[D][R], hd[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (b0 + d < nb) {
RB_UNROLL
                for (int k = 0; k < R; ++k) {
                    tl[d][k] = RB_FZ_CAR(car1, b0 + d, k);
                    hd[d][k] = RB_FZ_CAR(car2, b0 + d, k);
                }
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = b0 + d;
            if (blk >= nb) break;
            const int last = blk == nb - 1;
            const double *T1 = last ? f.T1_last : f.T1, *H1 = last ? f.H1_last : f.H1;
            if (f.dbl) {
                rb_fz_step_c<R>(a, St, last ? b.last_len : RB_FZ_B, t, h);
            } else {
                rb_fz_mv<R>(last ? f.G_last : f.G, St, h);
                rb_fz_mv<R>(last ? b.Mc_last : b.Mc, St, t);
            }
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                double tail = (double)tl[d][k] - mu * T1[k];
                double head = (double)hd[d][k] - mu * H1[k] + h[k];
                RB_FZ_CAR(car1, blk, k) = (CT)St[k];
                RB_FZ_CAR(car2, blk, k) = (CT)head;
                St[k] = t[k] + tail;
            }
        }
    }
    /* St = e_{-1}(Y) as [y_{m-1} .. y_{m-R}]; the epilogue e(Z) = [z_m .. z_{m+R-1}] */
    double ev[R], E[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) ev[k] = St[R - 1 - k];
    if (const_like && a.has_c) {
        rb_mv_dd(R, a.M44, ev, a.v44, c1, E); /* (44) */
    } else {
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = const_like ? a.anticausal_dc * c1 : 0.0;
    }
    if (b.periodic_like) {
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = 0.0;
        for (int blk = nb - 1; blk >= 0; --blk) {
            if (f.dbl) rb_fz_step_a<R>(a, E, blk == nb - 1 ? b.last_len : RB_FZ_B, t);
            else rb_fz_mv<R>(blk == nb - 1 ? b.Ma_last : b.Ma, E, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) E[k] = t[k] + (double)RB_FZ_CAR(car2, blk, k);
        }
        rb_fz_mv<R>(b.Qa, E, t); /* (51) */
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = t[k];
    }
    for (int b1 = nb - 1; b1 >= 0; b1 -= D) {
        CT hd[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (b1 - d >= 0) {
RB_UNROLL
                for (int k = 0; k < R; ++k) hd[d][k] = RB_FZ_CAR(car2, b1 - d, k);
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = b1 - d;
            if (blk < 0) break;
            if (f.dbl) rb_fz_step_a<R>(a, E, blk == nb - 1 ? b.last_len : RB_FZ_B, t);
            else rb_fz_mv<R>(blk == nb - 1 ? b.Ma_last : b.Ma, E, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                RB_FZ_CAR(car2, blk, k) = (CT)E[k];
                E[k] = t[k] + (double)hd[d][k];
            }
        }
    }
}

/* ---- the parallel chain (float carries) ----------------------------------
 * The sequential chain above walks all nb blocks of a lane in one thread,
 * which leaves the GPU with one thread per lane (4096 at 4096^2) waiting out
 * one memory latency after another. Instead each lane's blocks are cut into
 * RB_FZ_NG groups of nbg consecutive blocks, one thread per (lane, group):
 *   1. every group runs the causal chain from a zero state over its blocks
 *      (the recurrence P_{b+1} = Mc P_b + Tbar_b - mu T1 is affine, so the
 *      true state leaving the group is Mg P_in plus this zero-state result);
 *   2. one thread per lane combines the groups (RB_FZ_NG steps with the group
 *      matrices Mg = Mc^nbg), starting from (35) or, for periodic, from (49)
 *      applied to the zero-initialised pass over the groups; it also forms
 *      the epilogue (44) from the state leaving the line;
 *   3. every group reruns its blocks from its true entering state, writing P_b
 *      and the heads H_b = Hbar_b - mu H1 + G P_b, and runs the anticausal
 *      chain from a zero state over those heads (backwards);
 *   4. the same combination for the anticausal states ((51) for periodic);
 *   5. every group reruns backwards, writing the true states E_b.
 * Same per-block arithmetic as rb_fz_chain (same matrices, same float
 * rounding of the stored heads); only the association across groups differs
 * (in double). Double carries (ill-conditioned filters, stepped responses)
 * keep the sequential chain. */
#define RB_FZ_NG 16

typedef struct {
    int nbg;                  /* blocks per group (the last groups may be short or empty) */
    int glast;                /* the group holding block nb - 1 */
    double Mc[RB_MAX_ORDER * RB_MAX_ORDER], Mc_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Ma[RB_MAX_ORDER * RB_MAX_ORDER], Ma_last[RB_MAX_ORDER * RB_MAX_ORDER];
} rb_fz_grp;

/* host: o = a b (r x r) */
static inline void rb_fz_mm(const double *a, const double *b, int r, double *o)
{
    double t[RB_MAX_ORDER * RB_MAX_ORDER];
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < r; ++j) {
            double s = 0.0;
            for (int k = 0; k < r; ++k) s += a[i * r + k] * b[k * r + j];
            t[i * r + j] = s;
        }
    memcpy(o, t, sizeof(double) * r * r);
}

/* host: the group matrices. Causal through a group: Mc_end .. Mc_start, so the
 * last group's is Mc_last Mc^(cnt-1); anticausal (backwards): Ma^(cnt-1) Ma_last. */
static inline void rb_fz_grp_init(const rb_cuda_fz *f, rb_fz_grp *g)
{
    const int r = f->b.ax.r, nb = f->b.nb;
    memset(g, 0, sizeof *g);
    g->nbg = (nb + RB_FZ_NG - 1) / RB_FZ_NG;
    g->glast = (nb - 1) / g->nbg;
    const int cnt = nb - g->glast * g->nbg;
    double pc[RB_MAX_ORDER * RB_MAX_ORDER], pa[RB_MAX_ORDER * RB_MAX_ORDER];
    for (int i = 0; i < r * r; ++i) pc[i] = pa[i] = (i / r == i % r) ? 1.0 : 0.0;
    for (int k = 1; k <= g->nbg; ++k) {
        rb_fz_mm(f->b.Mc, pc, r, pc);
        rb_fz_mm(f->b.Ma, pa, r, pa);
        if (k == cnt - 1) {
            rb_fz_mm(f->b.Mc_last, pc, r, g->Mc_last);
            rb_fz_mm(pa, f->b.Ma_last, r, g->Ma_last);
        }
    }
    if (cnt == 1) {
        memcpy(g->Mc_last, f->b.Mc_last, sizeof g->Mc_last);
        memcpy(g->Ma_last, f->b.Ma_last, sizeof g->Ma_last);
    }
    memcpy(g->Mc, pc, sizeof g->Mc);
    memcpy(g->Ma, pa, sizeof g->Ma);
}

/* group states in the combiner's array: sh[(g * R + k) * ls] */
#define RB_FZ_SH(sh, g, k) (sh)[((size_t)(g) * R + (k)) * (size_t)ls]

RB_HD void rb_fz_grp_range(const rb_fz_grp &gp, int nb, int g, int *b0, int *b1)
{
    int s = g * gp.nbg, e = s + gp.nbg;
    *b0 = s < nb ? s : nb;
    *b1 = e < nb ? e : nb;
}

/* phase 0: the group's share of the line's sum */
RB_HD double rb_fz_pc_sum(const rb_cuda_fz &f, const rb_fz_grp &gp, int g, const float *sums,
                          size_t lanes, size_t lane)
{
    int b0, b1;
    rb_fz_grp_range(gp, f.b.nb, g, &b0, &b1);
    double s = 0.0;
    for (int blk = b0; blk < b1; ++blk) s += (double)RB_FZ_SUM(sums, blk);
    return s;
}

/* phase 1: causal chain over the group from a zero state */
template <int R, typename CT>
RB_HD void rb_fz_pc_zero_c(const rb_cuda_fz &f, const rb_fz_grp &gp, int g, const CT *car1, double mu,
                           size_t lanes, size_t lane, double *Z)
{
    const rb_cuda_blk &b = f.b;
    int b0, b1;
    rb_fz_grp_range(gp, b.nb, g, &b0, &b1);
    double St[R], t[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = 0.0;
    constexpr int D = R <= 2 ? 8 : 4;
    for (int c0 = b0; c0 < b1; c0 += D) {
        CT tl[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (c0 + d < b1) {
RB_UNROLL
                for (int k = 0; k < R; ++k) tl[d][k] = RB_FZ_CAR(car1, c0 + d, k);
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c0 + d;
            if (blk >= b1) break;
            const int last = blk == b.nb - 1;
            const double *T1 = last ? f.T1_last : f.T1;
            rb_fz_mv<R>(last ? b.Mc_last : b.Mc, St, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k] + ((double)tl[d][k] - mu * T1[k]);
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) Z[k] = St[k];
}

/* phase 2 (one thread per lane): the true causal state entering every group,
 * in place of the zero-state results in sh; Eend: the anticausal state
 * entering the line's last block from the right (unused for periodic) */
template <int R>
RB_HD void rb_fz_pc_combine_c(const rb_cuda_fz &f, const rb_fz_grp &gp, const float *in, size_t lane, double mu,
                              double *sh, int ls, double *Eend, int els)
{
    const rb_cuda_blk &b = f.b;
    const rb_cuda_axis &a = b.ax;
    long long base, S;
    rb_fz_lane(f, (long long)lane, &base, &S);
    const float *x = in + base;
    const float cv = a.cval[lane % a.channels];
    double c0 = 0.0, c1 = 0.0;
    if (a.mode == RB_BOUNDARY_CONSTANT) c0 = c1 = (double)cv * f.sumfird;
    else if (a.mode == RB_BOUNDARY_CLAMP) {
        c0 = (double)x[0] * f.sumfird;
        c1 = (double)x[(long long)(a.n - 1) * S] * f.sumfird;
    }
    c0 -= mu;
    c1 -= mu;
    const int const_like = !a.padded && (a.mode == RB_BOUNDARY_ZERO || a.mode == RB_BOUNDARY_CONSTANT ||
                                         a.mode == RB_BOUNDARY_CLAMP);
    double St[R], t[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = const_like ? a.prologue_dc * c0 : 0.0; /* (35) */
    if (b.periodic_like) {
        /* the zero-initialised pass over the whole line; (49) gives the true p(Y) */
        for (int g = 0; g <= gp.glast; ++g) {
            rb_fz_mv<R>(g == gp.glast ? gp.Mc_last : gp.Mc, St, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k] + RB_FZ_SH(sh, g, k);
        }
        rb_fz_mv<R>(b.Qc, St, t);
RB_UNROLL
        for (int k = 0; k < R; ++k) St[k] = t[k];
    }
    for (int g = 0; g <= gp.glast; ++g) {
        rb_fz_mv<R>(g == gp.glast ? gp.Mc_last : gp.Mc, St, t);
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            double z = RB_FZ_SH(sh, g, k);
            RB_FZ_SH(sh, g, k) = St[k];
            St[k] = t[k] + z;
        }
    }
    /* St = e_{-1}(Y) as [y_{m-1} .. y_{m-R}]; the epilogue e(Z) = [z_m .. z_{m+R-1}] */
    double ev[R], E[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) ev[k] = St[R - 1 - k];
    if (const_like && a.has_c) {
        rb_mv_dd(R, a.M44, ev, a.v44, c1, E); /* (44) */
    } else {
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = const_like ? a.anticausal_dc * c1 : 0.0;
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) Eend[(size_t)k * els] = E[k];
}

/* phase 3: the group's true causal states P_b and heads H_b, then the
 * anticausal chain over the group (backwards) from a zero state -> Y */
template <int R, typename CT>
RB_HD void rb_fz_pc_run_c(const rb_cuda_fz &f, const rb_fz_grp &gp, int g, CT *car1, CT *car2, double mu,
                          size_t lanes, size_t lane, const double *S0, double *Y)
{
    const rb_cuda_blk &b = f.b;
    int b0, b1;
    rb_fz_grp_range(gp, b.nb, g, &b0, &b1);
    double St[R], t[R], h[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = S0[k];
    constexpr int D = R <= 2 ? 8 : 4;
    for (int c0 = b0; c0 < b1; c0 += D) {
        CT tl[D][R], hd[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (c0 + d < b1) {
RB_UNROLL
                for (int k = 0; k < R; ++k) {
                    tl[d][k] = RB_FZ_CAR(car1, c0 + d, k);
                    hd[d][k] = RB_FZ_CAR(car2, c0 + d, k);
                }
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c0 + d;
            if (blk >= b1) break;
            const int last = blk == b.nb - 1;
            const double *T1 = last ? f.T1_last : f.T1, *H1 = last ? f.H1_last : f.H1;
            rb_fz_mv<R>(last ? f.G_last : f.G, St, h);
            rb_fz_mv<R>(last ? b.Mc_last : b.Mc, St, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                double tail = (double)tl[d][k] - mu * T1[k];
                double head = (double)hd[d][k] - mu * H1[k] + h[k];
                RB_FZ_CAR(car1, blk, k) = (CT)St[k];
                RB_FZ_CAR(car2, blk, k) = (CT)head;
                St[k] = t[k] + tail;
            }
        }
    }
    /* anticausal from zero over the heads just stored (as CT, as the sequential chain reads them) */
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = 0.0;
    for (int c1 = b1 - 1; c1 >= b0; c1 -= D) {
        CT hd[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (c1 - d >= b0) {
RB_UNROLL
                for (int k = 0; k < R; ++k) hd[d][k] = RB_FZ_CAR(car2, c1 - d, k);
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c1 - d;
            if (blk < b0) break;
            rb_fz_mv<R>(blk == b.nb - 1 ? b.Ma_last : b.Ma, St, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k] + (double)hd[d][k];
        }
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) Y[k] = St[k];
}

/* phase 4 (one thread per lane): the true anticausal state entering every
 * group from the right, in place of the zero-state results in sh */
template <int R>
RB_HD void rb_fz_pc_combine_a(const rb_cuda_fz &f, const rb_fz_grp &gp, double *sh, int ls, const double *Eend,
                              int els)
{
    const rb_cuda_blk &b = f.b;
    double E[R], t[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) E[k] = b.periodic_like ? 0.0 : Eend[(size_t)k * els];
    if (b.periodic_like) {
        for (int g = gp.glast; g >= 0; --g) {
            rb_fz_mv<R>(g == gp.glast ? gp.Ma_last : gp.Ma, E, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) E[k] = t[k] + RB_FZ_SH(sh, g, k);
        }
        rb_fz_mv<R>(b.Qa, E, t); /* (51) */
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = t[k];
    }
    for (int g = gp.glast; g >= 0; --g) {
        rb_fz_mv<R>(g == gp.glast ? gp.Ma_last : gp.Ma, E, t);
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            double y = RB_FZ_SH(sh, g, k);
            RB_FZ_SH(sh, g, k) = E[k];
            E[k] = t[k] + y;
        }
    }
}

/* phase 5: the group's true anticausal states E_b, backwards from E0 */
template <int R, typename CT>
RB_HD void rb_fz_pc_run_a(const rb_cuda_fz &f, const rb_fz_grp &gp, int g, CT *car2, size_t lanes, size_t lane,
                          const double *E0)
{
    const rb_cuda_blk &b = f.b;
    int b0, b1;
    rb_fz_grp_range(gp, b.nb, g, &b0, &b1);
    double E[R], t[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) E[k] = E0[k];
    constexpr int D = R <= 2 ? 8 : 4;
    for (int c1 = b1 - 1; c1 >= b0; c1 -= D) {
        CT hd[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (c1 - d >= b0) {
RB_UNROLL
                for (int k = 0; k < R; ++k) hd[d][k] = RB_FZ_CAR(car2, c1 - d, k);
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c1 - d;
            if (blk < b0) break;
            rb_fz_mv<R>(blk == b.nb - 1 ? b.Ma_last : b.Ma, E, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                RB_FZ_CAR(car2, blk, k) = (CT)E[k];
                E[k] = t[k] + (double)hd[d][k];
            }
        }
    }
}

#endif
