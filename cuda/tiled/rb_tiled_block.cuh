/* The per-lane arithmetic of the tiled solver (rb_tiled_launch.cu), written as
 * __host__ __device__ functions so that the host emulation test
 * (tests/test_gpu_emu.cu) runs exactly this code on the CPU, without a GPU.
 *
 * One axis, one lane (one line of one channel), blocks of RB_TILED_B samples of
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
 * periodic (or, where the plan pads a periodic axis, the chains taken K times
 * round the line: rb_cuda_tiled_wraps), (67)/(72) for mirror where the plan
 * took its symmetric closed form and the carries are float (the parallel
 * chain: rb_cuda_blocks.mirror_closed); other mirror axes go by explicit
 * padding, as does the plan's padded route otherwise.
 * The final stage (second read) recomputes each block from its true states
 * and writes the output once. Recursion in double; carries stored as CT:
 * float, or double where the states dwarf the output (rb_cuda_tiled.dbl). */
#ifndef RB_TILED_BLOCK_CUH
#define RB_TILED_BLOCK_CUH

#include "rb_tiled.h"
#include "rb_cuda_dd.cuh"
#include "rb_cuda_extend.cuh"
#include <math.h>
#include <type_traits>
#include <string.h>


/* Coefficient k of a pass in the recursion's type: float recursion takes the
 * axis' float copy (exactly (float) of the double one, as rb_cuda_axis_from_plan
 * makes it), an operand the kernels read from the parameter bank as it is,
 * instead of a double to convert at every step. */
#define RB_TILED_COEF(IT, cf, cd, k) (sizeof(IT) == sizeof(float) ? (IT)(cf)[k] : (IT)(cd)[k])

/* The samples of one block where the per-block functions below take them:
 * an array of IT (registers), or, for float recursion in the row kernels,
 * the thread's row of the shared-memory tile (sample j at p[j * c]): the
 * recursion then runs in place there and needs no 32 registers for u, so
 * more thread blocks fit on an SM. Same arithmetic either way. */
struct rb_tiled_smu {
    float *p;
    int c;
#ifdef __CUDACC__
    __host__ __device__ __forceinline__
#endif
    float &operator[](int j) const { return p[j * c]; }
};

/* u_j = sum_t fir[t] x_ext(j + fir_lo + t), in double with double taps: the
 * constant-mode closed forms assume u is exactly sumfir * c beyond the line,
 * and float taps broke that by 1e-7 relative, which filters with poles near -1
 * amplify by orders of magnitude (the 1x1 clamp failure). */
RB_HD double rb_tiled_u(const rb_cuda_tiled &f, const float *x, long long S, long long j, float cv)
{
    const rb_cuda_axis &a = f.b.ax;
    if (a.ntaps == 0) return (double)rb_ext_sample(x, S, j, a.n, a.mode, cv);
    double acc = 0.0;
    long long b = j + a.fir_lo;
    if (b >= 0 && b + a.ntaps <= a.n) {
        for (int t = 0; t < a.ntaps; ++t) acc += f.fird[t] * (double)x[(b + t) * S];
    } else {
        for (int t = 0; t < a.ntaps; ++t)
            acc += f.fird[t] * (double)rb_ext_sample(x, S, b + t, a.n, a.mode, cv);
    }
    return acc;
}

/* FIR taps beyond the first that a block takes from a tile of its samples
 * (rb_tiled_fir_tiled): the engine's Gaussians have 7 taps (sampled design) or
 * 5 (warped); longer FIRs read through rb_tiled_u */
#define RB_TILED_HALO 8

/* Whether a block of len samples from j0 takes its FIR from a tile of the
 * len + ntaps - 1 samples it reads, all inside the line: every tap of every
 * output is then a sample of the line, read once (rb_tiled_u reads each
 * sample ntaps times, and along rows those are uncoalesced loads). */
RB_HD int rb_tiled_fir_tiled(const rb_cuda_tiled &f, long long j0, int len)
{
    const rb_cuda_axis &a = f.b.ax;
    /* the taps around sample 0 (fir_lo <= 0 <= fir_hi), so the block's own
     * samples are in the tile too (its sum) */
    return f.fir_tile && a.ntaps > 0 && a.ntaps <= RB_TILED_HALO + 1 && a.fir_lo <= 0 && a.fir_lo + a.ntaps > 0 &&
           j0 + a.fir_lo >= 0 && j0 + a.fir_lo + len + a.ntaps - 1 <= a.n;
}

/* The half-width H of a centred FIR of 2H + 1 taps (fir_lo = -H) that a whole
 * block of len = B takes through rb_tiled_fir_block_c (H = 3: the engine's
 * sampled Gaussians, H = 2: the warped ones at large sigma); 0 otherwise. */
RB_HD int rb_tiled_fir_centred(const rb_cuda_axis &a, int len)
{
    if (len != RB_TILED_B) return 0;
    if (a.ntaps == 7 && a.fir_lo == -3) return 3;
    if (a.ntaps == 5 && a.fir_lo == -2) return 2;
    return 0;
}

/* rb_tiled_fir_block of a whole block and a centred FIR of 2H + 1 taps, the
 * tap count and block length known at compile time: the run-time ones made
 * every tap of every output a compare and two selects around its DFMA, each
 * sample converted to double once per tap and, along rows, loaded from shared
 * memory once per tap (Nsight Compute, H100: 110 instructions per sample in
 * the Gaussian's column stage 1, 17 of them DFMAs; bench/RESULTS.md). Here
 * a sliding window of the samples in double, each loaded and converted once;
 * the same double sums in the same order, so the same u (and bsum: x[j + H]
 * in order, the block's own samples). In place (x and u one storage) it is
 * safe as before: u_j is written after x[j + 2H] was read, and no later
 * output reads x[j]. */
template <int H, typename IT, typename X, typename U>
RB_HD void rb_tiled_fir_block_c(const rb_cuda_tiled &f, const X &x, U u, double *bsum)
{
    constexpr int NT = 2 * H + 1;
    double w[NT], s = 0.0;
RB_UNROLL
    for (int t = 0; t < NT - 1; ++t) w[t] = (double)x[t];
RB_UNROLL
    for (int j = 0; j < RB_TILED_B; ++j) {
        w[NT - 1] = (double)x[j + NT - 1];
        double acc = 0.0;
RB_UNROLL
        for (int t = 0; t < NT; ++t) acc += f.fird[t] * w[t];
        s += w[H];
        u[j] = (IT)acc;
RB_UNROLL
        for (int t = 0; t < NT - 1; ++t) w[t] = w[t + 1];
    }
    if (bsum) *bsum = s;
}

/* The FIR of such a block: u_j = sum_t fird[t] x[j + t] (x: the block's
 * samples from j0 + fir_lo), the double sums of rb_tiled_u in the same order,
 * so the same values (the constant-mode closed forms need u exactly as
 * rb_tiled_u makes it); bsum (unless NULL; x a tile accessor, not an array
 * of registers, which a run-time index would move to local memory; or any x
 * on the whole-block centred route, rb_tiled_fir_block_c): the block's own
 * samples x[j - fir_lo] summed in order, as rb_tiled_load_generic does. x and
 * u may be the same storage (the row tile in place): u_j is written after its
 * last read of x[j], and no later output reads x[j] again; bsum is taken first. */
template <typename IT, typename X, typename U>
RB_HD void rb_tiled_fir_block(const rb_cuda_tiled &f, const X &x, int len, U u, double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    const int hc = rb_tiled_fir_centred(a, len);
    if (hc == 3) {
        rb_tiled_fir_block_c<3, IT>(f, x, u, bsum);
        return;
    }
    if (hc == 2) {
        rb_tiled_fir_block_c<2, IT>(f, x, u, bsum);
        return;
    }
    if constexpr (!std::is_pointer<X>::value && !std::is_array<X>::value) if (bsum) {
        double s = 0.0;
RB_UNROLL
        for (int j = 0; j < RB_TILED_B; ++j)
            if (j < len) s += (double)x[j - a.fir_lo];
        *bsum = s;
    }
RB_UNROLL
    for (int j = 0; j < RB_TILED_B; ++j) {
        if (j < len) {
            double acc = 0.0;
RB_UNROLL
            for (int t = 0; t <= RB_TILED_HALO; ++t)
                if (t < a.ntaps) acc += f.fird[t] * (double)x[j + t];
            u[j] = (IT)acc;
        }
    }
}

/* Where lane `lane`'s line starts and the distance between its samples. */
RB_HD void rb_tiled_lane(const rb_cuda_tiled &f, long long lane, long long *base, long long *S)
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
RB_HD void rb_tiled_load_generic(const rb_cuda_tiled &f, const float *x, long long S, int blk, int len,
                              float cv, U u, double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    long long j0 = (long long)a.s0 + (long long)blk * RB_TILED_B;
    double s = 0.0, tmp[RB_TILED_B];
RB_NO_UNROLL
    for (int j = 0; j < len; ++j) {
        long long jj = j0 + j;
        tmp[j] = rb_tiled_u(f, x, S, jj, cv);
        if (jj >= 0 && jj < a.n) s += (double)x[jj * S];
    }
RB_UNROLL
    for (int j = 0; j < RB_TILED_B; ++j)
        if (j < len) u[j] = (IT)tmp[j];
    *bsum = s;
}

/* A block of a mirror line without FIR within [-n, 2n) (the padding): each
 * sample read from its reflection directly, the floats rb_tiled_load_generic
 * gives (and the same in-line sum, in the same order) without its 64-bit
 * remainders a sample. Returns 0 (u untouched) where the block is not such a
 * one; the column kernels take it, and the host emulation for every such block. */
template <typename U>
RB_HD int rb_tiled_load_mirror(const rb_cuda_tiled &f, const float *x, long long S, long long j0, int len, U u,
                               double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    const long long n = a.n;
    if (a.ntaps != 0 || a.mode != RB_BOUNDARY_MIRROR || j0 < -n || j0 + len > 2 * n) return 0;
    double s = 0.0;
RB_UNROLL4
    for (int j = 0; j < len; ++j) {
        const long long jj = j0 + j;
        const float v = rb_ldg(x + rb_ext_mirror1(jj, n) * S);
        u[j] = v;
        if (jj >= 0 && jj < n) s += (double)v;
    }
    *bsum = s;
    return 1;
}

/* Whether an axis takes rb_tiled_load_mirror_fir for its blocks outside the
 * line (the MF instances of the double stage-1 kernels): mirror padded, with
 * a FIR of at most RB_TILED_HALO + 1 taps around sample 0 (rb_tiled_fir_tiled's
 * condition) and a double recursion (the Gaussian from sigma 4). Fixed for the
 * whole axis, so the launch tests it once and the load only its range. */
template <typename IT>
RB_HD bool rb_tiled_mirror_fir_axis(const rb_cuda_axis &a)
{
    return std::is_same<IT, double>::value && a.padded && a.mode == RB_BOUNDARY_MIRROR && a.ntaps > 0 &&
           a.ntaps <= RB_TILED_HALO + 1 && a.fir_lo <= 0 && a.fir_lo + a.ntaps > 0;
}

/* A block of an axis of rb_tiled_mirror_fir_axis whose taps all lie within
 * [-n, 2n) (the padding of the double-carry chains, where the closed form
 * (67)/(72) is not used). Its len + ntaps - 1 samples are read once from
 * their reflections, then rb_tiled_fir_block: the same doubles summed in the
 * same order as rb_tiled_u, so the same u and the same in-line sum as
 * rb_tiled_load_generic, without its ntaps reflected reads and 64-bit
 * remainders a sample (a padded sample cost the Gaussian's stage 1 about 15
 * line samples: bench/RESULTS.md, 2026-11-28 14:35). S: the distance between
 * the line's samples. Returns 0 (u untouched) where the block reaches
 * further. */
template <typename IT, typename U>
RB_HD int rb_tiled_load_mirror_fir(const rb_cuda_tiled &f, const float *x, long long S, long long j0, int len, U u,
                                   double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    const long long n = a.n, b0 = j0 + a.fir_lo;
    const int w = len + a.ntaps - 1, lo = -a.fir_lo;
    if (b0 < -n || b0 + w > 2 * n) return 0;
    float v[RB_TILED_B + RB_TILED_HALO];
RB_UNROLL
    for (int i = 0; i < RB_TILED_B + RB_TILED_HALO; ++i)
        if (i < w) v[i] = rb_ldg(x + rb_ext_mirror1(b0 + i, n) * S);
    double s = 0.0;
RB_UNROLL
    for (int i = 0; i < RB_TILED_B + RB_TILED_HALO; ++i)
        if (i >= lo && i < lo + len && b0 + i >= 0 && b0 + i < n) s += (double)v[i];
    *bsum = s;
    rb_tiled_fir_block<IT>(f, v, len, u, (double *)0);
    return 1;
}

/* One step of a pass of order R: v -= sum_k d_k p_k, then the state
 * [p_0 .. p_{R-1}] (newest first) shifts v in; the pass's coefficients in
 * the recursion's type (CAUSAL: dc, else da). Returns v. */
template <int R, typename IT, bool CAUSAL>
RB_HD IT rb_tiled_step(const rb_cuda_axis &a, IT *p, IT v)
{
RB_UNROLL
    for (int k = 0; k < R; ++k)
        v -= (CAUSAL ? RB_TILED_COEF(IT, a.dc, a.dcd, k) : RB_TILED_COEF(IT, a.da, a.dad, k)) * p[k];
RB_UNROLL
    for (int k = R - 1; k > 0; --k) p[k] = p[k - 1];
    p[0] = v;
    return v;
}

/* stage 1 on one block: Tbar = [y_{len-1} .. y_{len-R}] of the zero-initialised
 * causal pass, Hbar = [z_0 .. z_{R-1}] of the zero-initialised anticausal pass
 * over it (both zero-padded when len < R). u is overwritten. FULL: len == B,
 * known at compile time (rb_tiled_stage1 picks it): a per-sample test of len
 * made each step's state shift register moves and selects, a third of the
 * double kernels' instructions, and cost the plain filters' float finals
 * 10 % (bench/RESULTS.md); the same arithmetic. */
template <int R, typename IT, bool FULL, typename U>
RB_HD void rb_tiled_stage1_n(const rb_cuda_tiled &f, U u, int len, double *T, double *H)
{
    const rb_cuda_axis &a = f.b.ax;
    IT p[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)0;
RB_UNROLL
    for (int j = 0; j < RB_TILED_B; ++j) {
        if (FULL || j < len) u[j] = rb_tiled_step<R, IT, true>(a, p, u[j]);
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) T[k] = (double)p[k];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)0;
RB_UNROLL
    for (int j = RB_TILED_B - 1; j >= 0; --j) {
        if (FULL || j < len) rb_tiled_step<R, IT, false>(a, p, u[j]);
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) H[k] = (double)p[k];
}

template <int R, typename IT, typename U = IT *>
RB_HD void rb_tiled_stage1(const rb_cuda_tiled &f, U u, int len, double *T, double *H)
{
    if (len == RB_TILED_B) rb_tiled_stage1_n<R, IT, true>(f, u, len, T, H);
    else rb_tiled_stage1_n<R, IT, false>(f, u, len, T, H);
}

/* Stage 1 of a whole block (len = B) as 2R dot products: Tbar and Hbar are
 * linear in the block's samples with zero initial states, so
 * Tbar_k = sum_j Wt[k][j] u_j and Hbar_k = sum_j Wh[k][j] u_j, with the weights
 * the two recursions give for unit impulses (rb_cuda_tiled_init, in double). No
 * chain of 2B dependent steps: the sums take the samples as their loads land,
 * which keeps the column stage 1 a plain streaming read. Float sums, as the
 * float recursion it replaces (rb_cuda_tiled.wdot only goes with float carries). */
template <int R, typename U>
RB_HD void rb_tiled_stage1_dot(const rb_cuda_tiled &f, const U &u, double *T, double *H)
{
    float t[R], h[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) t[k] = h[k] = 0.0f;
RB_UNROLL
    for (int j = 0; j < RB_TILED_B; ++j) {
        const float v = (float)u[j];
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            t[k] = fmaf(f.Wt[k * RB_TILED_B + j], v, t[k]);
            h[k] = fmaf(f.Wh[k * RB_TILED_B + j], v, h[k]);
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
 * [z_len .. z_{len+R-1}]), u - mu -> z in place; FULL as rb_tiled_stage1_n */
template <int R, typename IT, bool FULL, typename U>
RB_HD void rb_tiled_final_n(const rb_cuda_tiled &f, U u, int len, double mu, const double *P,
                            const double *E)
{
    const rb_cuda_axis &a = f.b.ax;
    IT p[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)P[k];
RB_UNROLL
    for (int j = 0; j < RB_TILED_B; ++j) {
        if (FULL || j < len) u[j] = rb_tiled_step<R, IT, true>(a, p, u[j] - (IT)mu);
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) p[k] = (IT)E[k];
RB_UNROLL
    for (int j = RB_TILED_B - 1; j >= 0; --j) {
        if (FULL || j < len) u[j] = rb_tiled_step<R, IT, false>(a, p, u[j]);
    }
}

template <int R, typename IT, typename U = IT *>
RB_HD void rb_tiled_final(const rb_cuda_tiled &f, U u, int len, double mu, const double *P,
                          const double *E)
{
    if (len == RB_TILED_B) rb_tiled_final_n<R, IT, true>(f, u, len, mu, P, E);
    else rb_tiled_final_n<R, IT, false>(f, u, len, mu, P, E);
}

template <int R>
RB_HD void rb_tiled_mv(const double *M, const double *v, double *o)
{
RB_UNROLL
    for (int i = 0; i < R; ++i) {
        double s = 0.0;
RB_UNROLL
        for (int j = 0; j < R; ++j) s += M[i * R + j] * v[j];
        o[i] = s;
    }
}

/* The backward differences of a state s (newest first): d_k = the k-th
 * difference at the newest end, by repeated differencing (each an exact or
 * nearly exact subtraction of nearly equal doubles). The chain's block
 * transfers for double carries (rb_cuda_tiled.Dc ...) act on these: for
 * poles near 1 the entries of A^32 grow like 32^(R-1) and cancel against
 * states that are all nearly equal, which loses 1e-4 of a wide Gaussian's
 * output even in double; on the differences they do not
 * (rb_tiled_diff_responses in rb_tiled_setup.cu). */
template <int R>
RB_HD void rb_tiled_diffs(const double *s, double *d)
{
    double w[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) w[k] = s[k];
    d[0] = w[0];
RB_UNROLL
    for (int l = 1; l < R; ++l) {
RB_UNROLL
        for (int j = 0; j < R - l; ++j) w[j] -= w[j + 1];
        d[l] = w[0];
    }
}

#endif
