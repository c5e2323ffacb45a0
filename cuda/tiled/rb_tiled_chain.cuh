/* The chain of the tiled solver (rb_tiled_block.cuh gives the per-block
 * arithmetic): per lane, the carries of stage 1 become the true states
 * entering every block, sequentially (one thread a lane, or a lane's state
 * over a few threads where lanes are few; double carries) or in RB_TILED_NG
 * groups per lane (float carries). __host__ __device__, so
 * the host emulation (tests/gpu_emu.cu) runs this very code. */
#ifndef RB_TILED_CHAIN_CUH
#define RB_TILED_CHAIN_CUH

#include "rb_tiled_block.cuh"
#ifdef __CUDA_ARCH__
#include <cuda_pipeline.h>
#endif

/* carry layout: [blk][k][lane] (coalesced over lanes in every stage) */
#define RB_TILED_CAR(buf, blk, k) (buf)[((size_t)(blk) * R + (k)) * lanes + lane]
#define RB_TILED_SUM(buf, blk) (buf)[(size_t)(blk) * lanes + lane]

/* The homogeneous responses through the block transfers on the states'
 * differences (rb_tiled_diffs, rb_cuda_tiled.Dc ...) rather than the
 * companion matrices: double carries only (rb_cuda_tiled.dbl), so the
 * float-carry kernels (the parallel chain) compile without that path. */
#define RB_TILED_DIFF(CT, f) (sizeof(CT) == sizeof(double) && (f).dbl)

/* causal state St through a block (last: the line's last block) -> t, and its
 * anticausal head -> h (unless NULL), on the differences of St */
template <int R>
RB_HD void rb_tiled_diff_c(const rb_cuda_tiled &f, int last, const double *St, double *t, double *h)
{
    double d[R];
    rb_tiled_diffs<R>(St, d);
    rb_tiled_mv<R>(last ? f.Dc_last : f.Dc, d, t);
    if (h) rb_tiled_mv<R>(last ? f.Dg_last : f.Dg, d, h);
}

/* anticausal state E through a block -> t */
template <int R>
RB_HD void rb_tiled_diff_a(const rb_cuda_tiled &f, int last, const double *E, double *t)
{
    double d[R];
    rb_tiled_diffs<R>(E, d);
    rb_tiled_mv<R>(last ? f.Da_last : f.Da, d, t);
}

/* u far before (c0) and after (c1) lane `lane`'s line, minus the mean's FIR
 * mu; 1 where the boundary is constant-like (zero, constant, clamp without
 * padding): the closed forms (35)/(44) then start the chains */
RB_HD int rb_tiled_edges(const rb_cuda_tiled &f, const float *in, size_t lane, double mu, double *c0,
                         double *c1)
{
    const rb_cuda_axis &a = f.b.ax;
    long long base, S;
    rb_tiled_lane(f, (long long)lane, &base, &S);
    const float *x = in + base;
    *c0 = *c1 = 0.0;
    if (a.mode == RB_BOUNDARY_CONSTANT) *c0 = *c1 = (double)a.cval[lane % a.channels] * f.sumfird;
    else if (a.mode == RB_BOUNDARY_CLAMP) {
        *c0 = (double)x[0] * f.sumfird;
        *c1 = (double)x[(long long)(a.n - 1) * S] * f.sumfird;
    }
    *c0 -= mu;
    *c1 -= mu;
    return !a.padded && (a.mode == RB_BOUNDARY_ZERO || a.mode == RB_BOUNDARY_CONSTANT ||
                         a.mode == RB_BOUNDARY_CLAMP);
}

/* The causal state entering the line: (35) for constant-like boundaries, the
 * DC response of c0 in every slot, else zero; *c1 for the epilogue. Returns
 * whether the boundary is constant-like (rb_tiled_edges). */
template <int R>
RB_HD int rb_tiled_chain_start(const rb_cuda_tiled &f, const float *in, size_t lane, double mu, double *St,
                               double *c1)
{
    double c0;
    const int const_like = rb_tiled_edges(f, in, lane, mu, &c0, c1);
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = const_like ? f.b.ax.prologue_dc * c0 : 0.0; /* (35) */
    return const_like;
}

/* The epilogue e(Z) = [z_m .. z_{m+R-1}] from the causal state leaving the
 * line St = e_{-1}(Y) = [y_{m-1} .. y_{m-R}]: (44) for constant-like
 * boundaries (the anticausal DC response alone without a causal pass), zero
 * otherwise (periodic closes the anticausal chain itself). */
template <int R>
RB_HD void rb_tiled_epilogue(const rb_cuda_axis &a, int const_like, const double *St, double c1, double *E)
{
    double ev[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) ev[k] = St[R - 1 - k];
    if (const_like && a.has_c) {
        rb_mv_dd(R, a.M44, ev, a.v44, c1, E); /* (44) */
    } else {
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = const_like ? a.anticausal_dc * c1 : 0.0;
    }
}

/* How far ahead the one-thread chain's loads run. One thread walks a lane's
 * blocks in a dependent sequence, and with one or two warps an SM nothing
 * hides a load issued only when its block comes up (4 blocks at a time: DRAM
 * at 28 %, ncu). A ring of the next 32 carries in registers reached 54 %
 * (long scoreboard still 54 % of stalls; 64 spilled past 255 registers). The
 * passes (rb_tiled_chain_c, _a, rb_tiled_lap_c) now keep their ring in shared
 * memory: each thread copies its own lane's carries of the block D-1 further
 * on with cp.async (no registers, no scoreboard) and reads a block's slot once
 * its copy group has landed. RB_TILED_RING carries a thread, 3x the register
 * ring: sigma 8 8192^2 chains 0.177 -> 0.140 ms (H100), registers 245 -> 108;
 * 24 KB a one-warp block of doubles, so the 8 warps an SM of 32768 lanes still
 * fit. The host (emulation) copies at once: the same values. */
#define RB_TILED_RING 96
#ifdef __CUDA_ARCH__
#define RB_TILED_RING_AT(ring, i) (ring)[(size_t)(i) * 32 + (threadIdx.x & 31)]
#else
#define RB_TILED_RING_AT(ring, i) (ring)[i]
#endif

/* ring value `at` <- *src (a cp.async on the device, a copy on the host) */
template <typename CT>
RB_HD void rb_tiled_ring_cp(CT *ring, int at, const CT *src)
{
#ifdef __CUDA_ARCH__
    __pipeline_memcpy_async(&RB_TILED_RING_AT(ring, at), src, sizeof(CT));
#else
    RB_TILED_RING_AT(ring, at) = *src;
#endif
}

RB_HD void rb_tiled_ring_commit()
{
#ifdef __CUDA_ARCH__
    __pipeline_commit();
#endif
}

/* every copy group but the newest N has landed */
template <int N>
RB_HD void rb_tiled_ring_wait()
{
#ifdef __CUDA_ARCH__
    __pipeline_wait_prior(N);
#endif
}

/* ring slot `slot` of NV values <- block blk's R values of b1 and, if TWO, of b2 */
template <int R, typename CT, bool TWO>
RB_HD void rb_tiled_ring_put(CT *ring, int slot, const CT *b1, const CT *b2, int blk, size_t lanes, size_t lane)
{
    constexpr int NV = TWO ? 2 * R : R;
RB_UNROLL
    for (int k = 0; k < R; ++k) {
        rb_tiled_ring_cp<CT>(ring, slot * NV + k, &RB_TILED_CAR(b1, blk, k));
        if (TWO) rb_tiled_ring_cp<CT>(ring, slot * NV + R + k, &RB_TILED_CAR(b2, blk, k));
    }
}

/* a slot's values into registers */
template <int R, typename CT, bool TWO>
RB_HD void rb_tiled_ring_get(const CT *ring, int slot, CT *v1, CT *v2)
{
    constexpr int NV = TWO ? 2 * R : R;
RB_UNROLL
    for (int k = 0; k < R; ++k) {
        v1[k] = RB_TILED_RING_AT(ring, slot * NV + k);
        if (TWO) v2[k] = RB_TILED_RING_AT(ring, slot * NV + R + k);
    }
}

/* The loads ahead over a walk of n blocks, block i of the walk being block
 * b + dir i of the line: rb_tiled_ring_prime puts the walk's first D - 1
 * blocks into slots 0 .. D-2; rb_tiled_ring_next, at step i (slot i mod D),
 * puts block i + D - 1 into the slot step i - 1 left and takes block i's
 * values once their copy group has landed. */
template <int R, typename CT, bool TWO, int D>
RB_HD void rb_tiled_ring_prime(CT *ring, const CT *b1, const CT *b2, int b, int dir, int n, size_t lanes, size_t lane)
{
    for (int d = 0; d < D - 1; ++d) {
        if (d < n) rb_tiled_ring_put<R, CT, TWO>(ring, d, b1, b2, b + dir * d, lanes, lane);
        rb_tiled_ring_commit();
    }
}

template <int R, typename CT, bool TWO, int D>
RB_HD void rb_tiled_ring_next(CT *ring, const CT *b1, const CT *b2, int b, int dir, int n, int i, int slot, CT *v1,
                              CT *v2, size_t lanes, size_t lane)
{
    if (i + D - 1 < n)
        rb_tiled_ring_put<R, CT, TWO>(ring, slot ? slot - 1 : D - 1, b1, b2, b + dir * (i + D - 1), lanes, lane);
    rb_tiled_ring_commit();
    rb_tiled_ring_wait<D - 1>();
    rb_tiled_ring_get<R, CT, TWO>(ring, slot, v1, v2);
}

/* one causal block step from the true state St entering block blk (last: the
 * line's last block): writes P_b (car1) and, with HEADS, the head H_b = Hbar_b
 * - mu H1 + G P_b (car2); St leaves as the state entering blk + 1 */
template <int R, typename CT, bool HEADS>
RB_HD void rb_tiled_step_c(const rb_cuda_tiled &f, bool last, int blk, double *St, const CT *tl, const CT *hd,
                           double mu, CT *car1, CT *car2, size_t lanes, size_t lane)
{
    const double *T1 = last ? f.T1_last : f.T1, *H1 = last ? f.H1_last : f.H1;
    double t[R], h[R];
    if (RB_TILED_DIFF(CT, f)) {
        rb_tiled_diff_c<R>(f, last, St, t, HEADS ? h : (double *)0);
    } else {
        if (HEADS) rb_tiled_mv<R>(last ? f.G_last : f.G, St, h);
        rb_tiled_mv<R>(last ? f.b.Mc_last : f.b.Mc, St, t);
    }
RB_UNROLL
    for (int k = 0; k < R; ++k) {
        double tail = (double)tl[k] - mu * T1[k];
        RB_TILED_CAR(car1, blk, k) = (CT)St[k];
        if (HEADS) RB_TILED_CAR(car2, blk, k) = (CT)((double)hd[k] - mu * H1[k] + h[k]);
        St[k] = t[k] + tail;
    }
}

/* The causal chain over blocks b0 .. b1-1 from the true state St entering b0:
 * writes P_b (car1) and, with HEADS, the heads H_b (car2, which holds Hbar);
 * St leaves as the state after b1-1. Without HEADS (double carries off
 * periodic lines) car2 keeps Hbar and rb_tiled_chain_a without HEADS forms
 * each head where it is used, from the same doubles: one store and one load
 * of R values a block fewer. The line's last block (its own transfer) is stepped
 * apart, so every other step takes the block constants at fixed addresses;
 * the loads run D blocks ahead (RB_TILED_RING). */
template <int R, typename CT, bool HEADS = true>
RB_HD void rb_tiled_chain_c(const rb_cuda_tiled &f, int b0, int b1, double *St, double mu, CT *car1, CT *car2,
                            size_t lanes, size_t lane, CT *ring)
{
    const int nb = f.b.nb;
    const int e = b1 == nb ? nb - 1 : b1; /* the ring's blocks b0 .. e-1 */
    constexpr int D = RB_TILED_RING / (HEADS ? 2 * R : R);
    CT tl[R], hd[HEADS ? R : 1], tl_last[R], hd_last[HEADS ? R : 1];
    const bool last = b1 == nb && b0 <= nb - 1;
    if (last) /* untouched until its own step: loaded with the ring's first blocks */
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            tl_last[k] = RB_TILED_CAR(car1, nb - 1, k);
            if (HEADS) hd_last[k] = RB_TILED_CAR(car2, nb - 1, k);
        }
    rb_tiled_ring_prime<R, CT, HEADS, D>(ring, car1, car2, b0, 1, e - b0, lanes, lane);
    for (int blk = b0, slot = 0; blk < e; ++blk, slot = slot + 1 == D ? 0 : slot + 1) {
        rb_tiled_ring_next<R, CT, HEADS, D>(ring, car1, car2, b0, 1, e - b0, blk - b0, slot, tl, hd, lanes, lane);
        rb_tiled_step_c<R, CT, HEADS>(f, false, blk, St, tl, hd, mu, car1, car2, lanes, lane);
    }
    if (last) rb_tiled_step_c<R, CT, HEADS>(f, true, nb - 1, St, tl_last, hd_last, mu, car1, car2, lanes, lane);
}

/* one anticausal block step from the true state E entering block blk from the
 * right, over its head hd (HEADS) or, without, the head formed here from Hbar
 * (hd) and the true causal state P entering the block (p), exactly as
 * rb_tiled_step_c forms it on double carries: writes E_b (car2) if WRITE; E
 * leaves as the state entering blk - 1 */
template <int R, typename CT, bool WRITE, bool HEADS>
RB_HD void rb_tiled_step_a(const rb_cuda_tiled &f, bool last, int blk, double *E, const CT *hd, const CT *p,
                           double mu, CT *car2, size_t lanes, size_t lane)
{
    double t[R], h[R];
    if (!HEADS) {
        double P[R], d[R];
RB_UNROLL
        for (int k = 0; k < R; ++k) P[k] = (double)p[k];
        rb_tiled_diffs<R>(P, d);
        rb_tiled_mv<R>(last ? f.Dg_last : f.Dg, d, h);
    }
    if (RB_TILED_DIFF(CT, f)) rb_tiled_diff_a<R>(f, last, E, t);
    else rb_tiled_mv<R>(last ? f.b.Ma_last : f.b.Ma, E, t);
    const double *H1 = last ? f.H1_last : f.H1;
RB_UNROLL
    for (int k = 0; k < R; ++k) {
        if (WRITE) RB_TILED_CAR(car2, blk, k) = (CT)E[k];
        E[k] = t[k] + (HEADS ? (double)hd[k] : (double)(CT)((double)hd[k] - mu * H1[k] + h[k]));
    }
}

/* The anticausal chain over blocks b1-1 down to b0 from the true state E
 * entering b1-1 from the right: writes E_b (car2) unless WRITE is false; E
 * leaves as the state entering b0-1. HEADS: car2 holds the heads H_b; else
 * (double carries, rb_tiled_chain_c without HEADS) it holds Hbar and each head
 * is formed from it and P_b (car1). The last block apart and the loads
 * ahead, as in rb_tiled_chain_c. */
template <int R, typename CT, bool WRITE = true, bool HEADS = true>
RB_HD void rb_tiled_chain_a(const rb_cuda_tiled &f, int b0, int b1, double *E, CT *car2, size_t lanes,
                            size_t lane, CT *ring, double mu = 0.0, const CT *car1 = (const CT *)0)
{
    const int nb = f.b.nb;
    const int e = b1 == nb ? nb - 1 : b1; /* the ring's blocks e-1 .. b0 */
    constexpr int D = RB_TILED_RING / (HEADS ? R : 2 * R);
    CT hd[R], pp[HEADS ? 1 : R], hd_last[R], p_last[HEADS ? 1 : R];
    const bool last = b1 == nb && b0 <= nb - 1;
    if (last)
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            hd_last[k] = RB_TILED_CAR(car2, nb - 1, k);
            if (!HEADS) p_last[k] = RB_TILED_CAR(car1, nb - 1, k);
        }
    rb_tiled_ring_prime<R, CT, !HEADS, D>(ring, car2, car1, e - 1, -1, e - b0, lanes, lane);
    if (last) rb_tiled_step_a<R, CT, WRITE, HEADS>(f, true, nb - 1, E, hd_last, p_last, mu, car2, lanes, lane);
    for (int blk = e - 1, slot = 0; blk >= b0; --blk, slot = slot + 1 == D ? 0 : slot + 1) {
        rb_tiled_ring_next<R, CT, !HEADS, D>(ring, car2, car1, e - 1, -1, e - b0, e - 1 - blk, slot, hd, pp, lanes,
                                             lane);
        rb_tiled_step_a<R, CT, WRITE, HEADS>(f, false, blk, E, hd, pp, mu, car2, lanes, lane);
    }
}

/* one block of a causal lap: St <- T St + (Tbar_b - mu T1) */
template <int R, typename CT>
RB_HD void rb_tiled_lap_step(const rb_cuda_tiled &f, bool last, double *St, const CT *tl, double mu)
{
    const double *T1 = last ? f.T1_last : f.T1;
    double t[R];
    if (RB_TILED_DIFF(CT, f)) rb_tiled_diff_c<R>(f, last, St, t, (double *)0);
    else rb_tiled_mv<R>(last ? f.b.Mc_last : f.b.Mc, St, t);
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = t[k] + ((double)tl[k] - mu * T1[k]);
}

/* One lap of the causal chain round a periodic line from block b0 to its end
 * (b0 = 0 a whole lap: rb_cuda_tiled_wraps, the zero-initialised pass of (49);
 * else the lap cut where the response has died out, rb_cuda_blocks.lapped),
 * writing nothing: St <- T St + z block by block, P_{b+1} = A_F^len P_b +
 * Tbar_b - mu T1 with the chain's own block steps (on the differences for
 * double carries), the loads ahead as in rb_tiled_chain_c. */
template <int R, typename CT>
RB_HD void rb_tiled_lap_c(const rb_cuda_tiled &f, int b0, double *St, double mu, const CT *car1, size_t lanes,
                          size_t lane, CT *ring)
{
    const int nb = f.b.nb;
    const int e = nb - 1;
    constexpr int D = RB_TILED_RING / R;
    CT tl[R], tl_last[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) tl_last[k] = RB_TILED_CAR(car1, nb - 1, k);
    rb_tiled_ring_prime<R, CT, false, D>(ring, car1, car1, b0, 1, e - b0, lanes, lane);
    for (int blk = b0, slot = 0; blk < e; ++blk, slot = slot + 1 == D ? 0 : slot + 1) {
        rb_tiled_ring_next<R, CT, false, D>(ring, car1, car1, b0, 1, e - b0, blk - b0, slot, tl, tl, lanes, lane);
        rb_tiled_lap_step<R, CT>(f, false, St, tl, mu);
    }
    rb_tiled_lap_step<R, CT>(f, true, St, tl_last, mu);
}

/* ---- the split sequential chain: a lane's state over TPL threads --------
 * The chain above runs one thread a lane. Where that leaves the SMs at most
 * one warp each (4096 lanes over the H100's 132 SMs: a wide periodic
 * Gaussian at 4096^2, its laps round the line), the dependent FP64 steps of
 * one thread are the bound. There the state's R components are spread over
 * TPL threads of one warp (component i = s TPL + t in slot s of thread t):
 * each step the group gathers the whole state by shuffles, every thread forms
 * its differences (the same doubles in the same order: the same values), and
 * each computes only its own rows of the block transfers and loads and
 * stores only its own components. The arithmetic of every component is that
 * of one thread stepping the whole state (rb_tiled_mv's row, its order of
 * summation): the same sums, though on the device the two chains' code can
 * still round a carry's last bit apart (most likely FMA contraction; one
 * output float in ~10^7 moved), so the plan, not a launch, picks
 * the chain (rb_cuda_tiled_plan_chain). Measured (H100, order 4, double
 * carries): chains 1.27x faster at 4096 lanes, but 1.1x slower at 8192 and
 * 1.6x at 32768, where the loads bound the chain and the split's
 * finer-grained rings waited on them more (ncu: long scoreboard 79 % of
 * 11.6 cycles an instruction, against 54 % of 4.9): rb_tiled_chain_splits.
 * NT: the group's threads one caller runs in lockstep: 1 on the device (t0 =
 * the thread's place in its group), TPL in the host emulation (t0 = 0: every
 * thread of the group, gathered from its slots instead of by shuffles). */
#define RB_TILED_TPL(R) ((R) >= 4 ? 4 : (R) >= 2 ? 2 : 1)
#define RB_TILED_SPLIT_LANES 4096

/* whether an axis of `lanes` lanes in all (the plan's, not one launch's)
 * takes the split chain (double carries or RECBLUR_CUDA_CHAIN=seq, as the
 * one-thread chain) */
RB_HD int rb_tiled_chain_splits(size_t lanes)
{
    return lanes <= RB_TILED_SPLIT_LANES;
}

/* How far ahead the split chain loads (N: carry values one device thread
 * loads a block): up to 40 values for double carries (56 spilled the split
 * order-5 chain), 8-20 for orders 5-8 (two slots a thread) */
#define RB_TILED_AHEAD_SPLIT(N, CT, R)                                                           \
    (sizeof(CT) == sizeof(float) ? ((N) <= 4 ? 8 : 4)                                             \
     : (R) > 4 ? ((N) >= 16 ? 1 : (N) >= 8 ? 2 : 4)                                              \
     : (N) >= 16 ? 2 : (N) >= 6 ? 4 : (N) >= 3 ? 8 : 16)

/* one lane's group: its lane, the caller's first thread t0, the warp's mask */
struct rb_tiled_lg {
    size_t lanes, lane;
    int t0;
    unsigned mask;
};

/* the whole state from the group's slots (see above) */
template <int R, int TPL, int NT, int NS>
RB_HD void rb_tiled_gather(const double (&own)[NT][NS], double *all, const rb_tiled_lg &g)
{
RB_UNROLL
    for (int j = 0; j < R; ++j) {
        if constexpr (NT == TPL) {
            all[j] = own[j % TPL][j / TPL];
        } else {
#ifdef __CUDA_ARCH__
            all[j] = __shfl_sync(g.mask, own[0][j / TPL], j % TPL, TPL);
#endif
        }
    }
}

/* thread t0 + q's slot s from a whole state */
template <int R, int TPL, int NT, int NS>
RB_HD void rb_tiled_scatter(const double *all, double (&own)[NT][NS], const rb_tiled_lg &g)
{
RB_UNROLL
    for (int q = 0; q < NT; ++q)
RB_UNROLL
        for (int s = 0; s < NS; ++s) {
            const int i = s * TPL + g.t0 + q;
            double v = 0.0;
RB_UNROLL
            for (int k = 0; k < R; ++k) /* a run-time index into the kernel's parameters would copy them */
                if (k == i) v = all[k];
            own[q][s] = v;
        }
}

/* row i of the R x R matrix M times v, summed as rb_tiled_mv sums it */
template <int R>
RB_HD double rb_tiled_row(const double *M, int i, const double *v)
{
    double s = 0.0;
RB_UNROLL
    for (int j = 0; j < R; ++j) {
        double m = 0.0;
RB_UNROLL
        for (int k = 0; k < R; ++k)
            if (k == i) m = M[k * R + j];
        s += m * v[j];
    }
    return s;
}

/* entry i of a vector of R constants (fixed addresses, as rb_tiled_row) */
template <int R>
RB_HD double rb_tiled_at(const double *v, int i)
{
    double m = 0.0;
RB_UNROLL
    for (int k = 0; k < R; ++k)
        if (k == i) m = v[k];
    return m;
}

/* A thread's rows of the block constants but the last block's: the causal
 * transfer and head (on the differences for double carries, else the
 * companion matrices), the anticausal transfer, T1, H1 */
template <int R, int NT, int NS>
struct rb_tiled_own_rows {
    double c[NT][NS][R], g[NT][NS][R], a[NT][NS][R], t1[NT][NS], h1[NT][NS];
};

template <int R, int TPL, int NT, int NS, typename CT>
RB_HD void rb_tiled_rows_init(const rb_cuda_tiled &f, const rb_tiled_lg &g, rb_tiled_own_rows<R, NT, NS> &w)
{
    const bool diff = RB_TILED_DIFF(CT, f);
    const double *C = diff ? f.Dc : f.b.Mc, *G = diff ? f.Dg : f.G, *A = diff ? f.Da : f.b.Ma;
RB_UNROLL
    for (int q = 0; q < NT; ++q)
RB_UNROLL
        for (int s = 0; s < NS; ++s) {
            const int i = s * TPL + g.t0 + q;
RB_UNROLL
            for (int j = 0; j < R; ++j) {
                double c = 0.0, h = 0.0, a = 0.0;
RB_UNROLL
                for (int k = 0; k < R; ++k)
                    if (k == i) {
                        c = C[k * R + j];
                        h = G[k * R + j];
                        a = A[k * R + j];
                    }
                w.c[q][s][j] = c;
                w.g[q][s][j] = h;
                w.a[q][s][j] = a;
            }
            w.t1[q][s] = rb_tiled_at<R>(f.T1, i);
            w.h1[q][s] = rb_tiled_at<R>(f.H1, i);
        }
}

/* a row held by the thread (or the last block's, from the constants), times v */
template <int R>
RB_HD double rb_tiled_row_own(const double *own, const double *M_last, bool last, int i, const double *v)
{
    if (last) return rb_tiled_row<R>(M_last, i, v);
    double s = 0.0;
RB_UNROLL
    for (int j = 0; j < R; ++j) s += own[j] * v[j];
    return s;
}

/* One causal block step of the group from the true states St entering block
 * blk (last: the line's last block): with WRITE, P_b (car1) and, with HEADS,
 * the head H_b = Hbar_b - mu H1 + G P_b (car2); St leaves as the state
 * entering blk + 1. Without WRITE a lap's step (rb_cuda_tiled_wraps, the
 * zero-initialised pass of (49)): St <- T St + (Tbar_b - mu T1). */
template <int R, int TPL, int NT, int NS, typename CT, bool WRITE, bool HEADS>
RB_HD void rb_tiled_gstep_c(const rb_cuda_tiled &f, const rb_tiled_own_rows<R, NT, NS> &w, bool last, int blk,
                            double (&St)[NT][NS], const CT (&tl)[NT][NS], const CT (&hd)[NT][NS], double mu,
                            CT *car1, CT *car2, const rb_tiled_lg &g)
{
    const size_t lanes = g.lanes, lane = g.lane;
    const bool diff = RB_TILED_DIFF(CT, f);
    double all[R], d[R];
    rb_tiled_gather<R, TPL, NT, NS>(St, all, g);
    if (diff) rb_tiled_diffs<R>(all, d);
    else
RB_UNROLL
        for (int k = 0; k < R; ++k) d[k] = all[k];
RB_UNROLL
    for (int q = 0; q < NT; ++q)
RB_UNROLL
        for (int s = 0; s < NS; ++s) {
            const int i = s * TPL + g.t0 + q;
            if (i >= R) continue;
            const double t = rb_tiled_row_own<R>(w.c[q][s], diff ? f.Dc_last : f.b.Mc_last, last, i, d);
            const double tail = (double)tl[q][s] - mu * (last ? rb_tiled_at<R>(f.T1_last, i) : w.t1[q][s]);
            if (WRITE) RB_TILED_CAR(car1, blk, i) = (CT)St[q][s];
            if (HEADS) {
                const double h = rb_tiled_row_own<R>(w.g[q][s], diff ? f.Dg_last : f.G_last, last, i, d);
                const double h1 = last ? rb_tiled_at<R>(f.H1_last, i) : w.h1[q][s];
                RB_TILED_CAR(car2, blk, i) = (CT)((double)hd[q][s] - mu * h1 + h);
            }
            St[q][s] = t + tail;
        }
}

/* load the group's own components of block blk of buf into r */
template <int R, int TPL, int NT, int NS, typename CT>
RB_HD void rb_tiled_gload(CT (&r)[NT][NS], const CT *buf, int blk, const rb_tiled_lg &g)
{
    const size_t lanes = g.lanes, lane = g.lane;
RB_UNROLL
    for (int q = 0; q < NT; ++q)
RB_UNROLL
        for (int s = 0; s < NS; ++s) {
            const int i = s * TPL + g.t0 + q;
            if (i < R) r[q][s] = RB_TILED_CAR(buf, blk, i);
        }
}

/* The causal chain over the line's blocks from the true states St entering
 * block 0 (WRITE: writes P_b to car1 and, with HEADS, the heads H_b to car2,
 * which holds Hbar; without WRITE a lap round the line, writing nothing). St
 * leaves as the state after the last block. Without HEADS (double carries
 * off periodic lines) car2 keeps Hbar and rb_tiled_gchain_a forms each head
 * where it is used, from the same doubles: one store and one load of R
 * values a block fewer. The line's last block (its own transfer) is stepped
 * apart, so every other step takes the block constants from the thread's
 * rows; the loads run D blocks ahead (RB_TILED_AHEAD_SPLIT). */
template <int R, int TPL, int NT, int NS, typename CT, bool WRITE, bool HEADS, bool CUT = false>
RB_HD void rb_tiled_gchain_c(const rb_cuda_tiled &f, const rb_tiled_own_rows<R, NT, NS> &w, double (&St)[NT][NS],
                             double mu, CT *car1, CT *car2, const rb_tiled_lg &g, int cut0 = 0)
{
    /* CUT: a cut lap from block cut0 (rb_cuda_blocks.lapped); else from block 0
     * at compile time (the whole passes' code as before the cut laps) */
    const int nb = f.b.nb, e = nb - 1, b0 = CUT ? cut0 : 0; /* the ring's blocks b0 .. e-1 */
    constexpr int D = RB_TILED_AHEAD_SPLIT(HEADS ? 2 * NS : NS, CT, R);
    CT tl[D][NT][NS], hd[D][NT][NS], tl_last[NT][NS], hd_last[NT][NS];
    /* untouched until its own step: loaded with the ring's first blocks */
    rb_tiled_gload<R, TPL, NT, NS, CT>(tl_last, car1, nb - 1, g);
    if (HEADS) rb_tiled_gload<R, TPL, NT, NS, CT>(hd_last, car2, nb - 1, g);
RB_UNROLL
    for (int d = 0; d < D; ++d)
        if (b0 + d < e) {
            rb_tiled_gload<R, TPL, NT, NS, CT>(tl[d], car1, b0 + d, g);
            if (HEADS) rb_tiled_gload<R, TPL, NT, NS, CT>(hd[d], car2, b0 + d, g);
        }
    for (int c0 = b0; c0 < e; c0 += D) {
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c0 + d;
            if (blk >= e) break;
            rb_tiled_gstep_c<R, TPL, NT, NS, CT, WRITE, HEADS>(f, w, false, blk, St, tl[d], hd[d], mu, car1, car2, g);
            if (blk + D < e) {
                rb_tiled_gload<R, TPL, NT, NS, CT>(tl[d], car1, blk + D, g);
                if (HEADS) rb_tiled_gload<R, TPL, NT, NS, CT>(hd[d], car2, blk + D, g);
            }
        }
    }
    rb_tiled_gstep_c<R, TPL, NT, NS, CT, WRITE, HEADS>(f, w, true, nb - 1, St, tl_last, hd_last, mu, car1, car2, g);
}

/* One anticausal block step of the group from the true states E entering
 * block blk from the right, over its heads hd (HEADS) or, without, the heads
 * formed here from Hbar (hd) and the whole true causal state P entering the
 * block (p), exactly as rb_tiled_gstep_c forms them on double carries:
 * writes E_b (car2) if WRITE; E leaves as the state entering blk - 1 */
template <int R, int TPL, int NT, int NS, typename CT, bool WRITE, bool HEADS>
RB_HD void rb_tiled_gstep_a(const rb_cuda_tiled &f, const rb_tiled_own_rows<R, NT, NS> &w, bool last, int blk,
                            double (&E)[NT][NS], const CT (&hd)[NT][NS], const CT *p, double mu, CT *car2,
                            const rb_tiled_lg &g)
{
    const size_t lanes = g.lanes, lane = g.lane;
    const bool diff = RB_TILED_DIFF(CT, f);
    double all[R], d[R], dp[R];
    rb_tiled_gather<R, TPL, NT, NS>(E, all, g);
    if (diff) rb_tiled_diffs<R>(all, d);
    else
RB_UNROLL
        for (int k = 0; k < R; ++k) d[k] = all[k];
    if (!HEADS) {
        double P[R];
RB_UNROLL
        for (int k = 0; k < R; ++k) P[k] = (double)p[k];
        rb_tiled_diffs<R>(P, dp);
    }
RB_UNROLL
    for (int q = 0; q < NT; ++q)
RB_UNROLL
        for (int s = 0; s < NS; ++s) {
            const int i = s * TPL + g.t0 + q;
            if (i >= R) continue;
            const double t = rb_tiled_row_own<R>(w.a[q][s], diff ? f.Da_last : f.b.Ma_last, last, i, d);
            double head = (double)hd[q][s];
            if (!HEADS) {
                const double h = rb_tiled_row_own<R>(w.g[q][s], f.Dg_last, last, i, dp);
                const double h1 = last ? rb_tiled_at<R>(f.H1_last, i) : w.h1[q][s];
                head = (double)(CT)(head - mu * h1 + h);
            }
            if (WRITE) RB_TILED_CAR(car2, blk, i) = (CT)E[q][s];
            E[q][s] = t + head;
        }
}

/* The anticausal chain over the line's blocks, last to first, from the true
 * states E entering the last block from the right: writes E_b (car2) unless
 * WRITE is false (a lap); E leaves as the state entering block -1. HEADS:
 * car2 holds the heads H_b; else (double carries, rb_tiled_gchain_c without
 * HEADS) it holds Hbar and each head is formed from it and the whole P_b
 * (car1; every thread of the group loads all R, the same addresses). The last
 * block apart and the loads ahead, as in rb_tiled_gchain_c. */
template <int R, int TPL, int NT, int NS, typename CT, bool WRITE, bool HEADS, bool CUT = false>
RB_HD void rb_tiled_gchain_a(const rb_cuda_tiled &f, const rb_tiled_own_rows<R, NT, NS> &w, double (&E)[NT][NS],
                             CT *car2, const rb_tiled_lg &g, double mu, const CT *car1, int b1 = 0)
{
    const size_t lanes = g.lanes, lane = g.lane;
    const int nb = f.b.nb;
    const bool last = !CUT || b1 == nb; /* CUT: a cut lap over blocks b1-1 .. 0 */
    const int e = last ? nb - 1 : b1;   /* the ring's blocks e-1 .. 0 */
    constexpr int PR = HEADS ? 1 : R;
    constexpr int D = RB_TILED_AHEAD_SPLIT(HEADS ? NS : NS + R, CT, R);
    CT hd[D][NT][NS], pp[D][PR], hd_last[NT][NS], p_last[PR];
    if (last) {
        rb_tiled_gload<R, TPL, NT, NS, CT>(hd_last, car2, nb - 1, g);
        if (!HEADS)
RB_UNROLL
            for (int k = 0; k < R; ++k) p_last[k] = RB_TILED_CAR(car1, nb - 1, k);
    }
RB_UNROLL
    for (int d = 0; d < D; ++d)
        if (e - 1 - d >= 0) {
            rb_tiled_gload<R, TPL, NT, NS, CT>(hd[d], car2, e - 1 - d, g);
            if (!HEADS)
RB_UNROLL
                for (int k = 0; k < R; ++k) pp[d][k] = RB_TILED_CAR(car1, e - 1 - d, k);
        }
    if (last) rb_tiled_gstep_a<R, TPL, NT, NS, CT, WRITE, HEADS>(f, w, true, nb - 1, E, hd_last, p_last, mu, car2, g);
    for (int c1 = e - 1; c1 >= 0; c1 -= D) {
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c1 - d;
            if (blk < 0) break;
            rb_tiled_gstep_a<R, TPL, NT, NS, CT, WRITE, HEADS>(f, w, false, blk, E, hd[d], pp[d], mu, car2, g);
            if (blk - D >= 0) {
                rb_tiled_gload<R, TPL, NT, NS, CT>(hd[d], car2, blk - D, g);
                if (!HEADS)
RB_UNROLL
                    for (int k = 0; k < R; ++k) pp[d][k] = RB_TILED_CAR(car1, blk - D, k);
            }
        }
    }
}

/* A run of carries [blk][k] of one lane: in car1 / car2 (p = car + lane, ld =
 * lanes, o = 0) or in a parallel-chain group's on-chip cache (rb_tiled_pcc: o
 * = the group's first block), so the chain's loops read and write either
 * through the same code */
template <typename CT>
struct rb_tiled_cv {
    CT *p;
    size_t ld;
    int o;
};
#define RB_TILED_CV(v, blk, k) (v).p[((size_t)((blk) - (v).o) * R + (k)) * (v).ld]

template <typename CT>
RB_HD rb_tiled_cv<CT> rb_tiled_cv_car(CT *car, size_t lanes, size_t lane)
{
    return rb_tiled_cv<CT>{car + lane, lanes, 0};
}

/* The stage-1 carries of blocks c0 .. min(c0 + D, end) - 1 (Tbar from tv,
 * Hbar from hv), loaded together before they are used, so their latencies
 * overlap (the parallel chain's groups, the mirror closure's p_1 walk) */
template <int R, int D, typename CT>
RB_HD void rb_tiled_load_batch_v(rb_tiled_cv<CT> tv, rb_tiled_cv<CT> hv, int c0, int end, CT (&tl)[D][R],
                                 CT (&hd)[D][R])
{
RB_UNROLL
    for (int d = 0; d < D; ++d)
        if (c0 + d < end) {
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                tl[d][k] = RB_TILED_CV(tv, c0 + d, k);
                hd[d][k] = RB_TILED_CV(hv, c0 + d, k);
            }
        }
}

template <int R, int D, typename CT>
RB_HD void rb_tiled_load_batch(const CT *car1, const CT *car2, int c0, int end, size_t lanes, size_t lane,
                               CT (&tl)[D][R], CT (&hd)[D][R])
{
    rb_tiled_load_batch_v<R, D, CT>(rb_tiled_cv_car<CT>((CT *)car1, lanes, lane),
                                    rb_tiled_cv_car<CT>((CT *)car2, lanes, lane), c0, end, tl, hd);
}

/* The parallel chain's groups (float carries, 512-thread blocks of 128
 * registers a thread): rb_tiled_chain_c and rb_tiled_chain_a with the carries
 * of D blocks loaded together before they are used, the block constants
 * selected per block; the rings of those spilled the order-3 and 5 kernels.
 * The same arithmetic. Blocks b0 .. b1-1: Tbar from tv, Hbar from hv; the
 * true states P_b to pv, the heads to headv (hv itself where they replace
 * Hbar in the group's cache). */
template <int R, typename CT>
RB_HD void rb_tiled_chain_c_batch(const rb_cuda_tiled &f, int b0, int b1, double *St, double mu, rb_tiled_cv<CT> tv,
                                  rb_tiled_cv<CT> hv, rb_tiled_cv<CT> pv, rb_tiled_cv<CT> headv)
{
    const rb_cuda_blocks &b = f.b;
    double t[R], h[R];
    constexpr int D = R <= 2 ? 8 : 4;
    for (int c0 = b0; c0 < b1; c0 += D) {
        CT tl[D][R], hd[D][R];
        rb_tiled_load_batch_v<R, D, CT>(tv, hv, c0, b1, tl, hd);
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c0 + d;
            if (blk >= b1) break;
            const int last = blk == b.nb - 1;
            const double *T1 = last ? f.T1_last : f.T1, *H1 = last ? f.H1_last : f.H1;
            if (RB_TILED_DIFF(CT, f)) {
                rb_tiled_diff_c<R>(f, last, St, t, h);
            } else {
                rb_tiled_mv<R>(last ? f.G_last : f.G, St, h);
                rb_tiled_mv<R>(last ? b.Mc_last : b.Mc, St, t);
            }
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                double tail = (double)tl[d][k] - mu * T1[k];
                double head = (double)hd[d][k] - mu * H1[k] + h[k];
                RB_TILED_CV(pv, blk, k) = (CT)St[k];
                RB_TILED_CV(headv, blk, k) = (CT)head;
                St[k] = t[k] + tail;
            }
        }
    }
}

/* backwards over blocks b1-1 .. b0: the heads from hv; WRITE: the true
 * states E_b to ev */
template <int R, typename CT, bool WRITE = true>
RB_HD void rb_tiled_chain_a_batch(const rb_cuda_tiled &f, int b0, int b1, double *E, rb_tiled_cv<CT> hv,
                                  rb_tiled_cv<CT> ev)
{
    const rb_cuda_blocks &b = f.b;
    double t[R];
    constexpr int D = R <= 2 ? 8 : 4;
    for (int c1 = b1 - 1; c1 >= b0; c1 -= D) {
        CT hd[D][R];
RB_UNROLL
        for (int d = 0; d < D; ++d)
            if (c1 - d >= b0) {
RB_UNROLL
                for (int k = 0; k < R; ++k) hd[d][k] = RB_TILED_CV(hv, c1 - d, k);
            }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c1 - d;
            if (blk < b0) break;
            if (RB_TILED_DIFF(CT, f)) rb_tiled_diff_a<R>(f, blk == b.nb - 1, E, t);
            else rb_tiled_mv<R>(blk == b.nb - 1 ? b.Ma_last : b.Ma, E, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) {
                if (WRITE) RB_TILED_CV(ev, blk, k) = (CT)E[k];
                E[k] = t[k] + (double)hd[d][k];
            }
        }
    }
}


/* The final stage of block blk of lane `lane` (second read of the input):
 * its true states from the chain's carries, u minus the mean's FIR -> z in
 * place. Returns what each output sample gets back: gain * mean. */
template <int R, typename CT, typename IT, typename U>
RB_HD double rb_tiled_final_from_carries(const rb_cuda_tiled &f, U u, int len, int blk, const CT *car1,
                                         const CT *car2, const float *mean, size_t lanes, size_t lane)
{
    double P[R], E[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) {
        P[k] = (double)RB_TILED_CAR(car1, blk, k);
        E[k] = (double)RB_TILED_CAR(car2, blk, k);
    }
    const double m = f.b.ax.shift ? (double)mean[lane] : 0.0;
    rb_tiled_final<R, IT>(f, u, len, m * f.sumfird, P, E);
    return f.b.ax.gain * m;
}

/* Whether the causal chain stores the heads H_b for the anticausal one: float
 * carries and the companion-matrix blocks always; double carries only where
 * the anticausal laps read them more than once (periodic lines closed by
 * Qa or by whole laps); else the anticausal passes form each head from Hbar
 * and P_b where they use it (one store and one load of R values a block fewer). */
template <typename CT>
RB_HD bool rb_tiled_heads_stored(const rb_cuda_tiled &f)
{
    if (sizeof(CT) != sizeof(double) || !RB_TILED_DIFF(CT, f)) return true;
    return f.b.periodic_like && (!f.b.lapped || f.b.lap_na > 0);
}

/* The mean the lane's final stage takes off (a.shift: constant extensions
 * filtered about it): its block sums added in block order, the loads 32
 * blocks ahead (as the register ring that RB_TILED_RING replaced). */
RB_HD float rb_tiled_chain_mean(const rb_cuda_tiled &f, const float *sums, size_t lanes, size_t lane)
{
    const int nb = f.b.nb;
    constexpr int DS = 32;
    float q[DS];
    double s = 0.0;
RB_UNROLL
    for (int d = 0; d < DS; ++d)
        if (d < nb) q[d] = RB_TILED_SUM(sums, d);
    for (int c0 = 0; c0 < nb; c0 += DS) {
RB_UNROLL
        for (int d = 0; d < DS; ++d) {
            const int blk = c0 + d;
            if (blk >= nb) break;
            s += (double)q[d];
            if (blk + DS < nb) q[d] = RB_TILED_SUM(sums, blk + DS);
        }
    }
    return (float)(s / f.b.ax.n);
}

/* The chain of one lane (see the top of rb_tiled_block.cuh). car1: Tbar in, true
 * causal states P out; car2: Hbar in, true anticausal states E out; sums:
 * block sums in; mean: the mean the final stage must take off. */
template <int R, typename CT>
RB_HD void rb_tiled_chain(const rb_cuda_tiled &f, const float *in, CT *car1, CT *car2,
                          const float *sums, float *mean, size_t lanes, size_t lane)
{
    const rb_cuda_blocks &b = f.b;
    const rb_cuda_axis &a = b.ax;
    const int nb = b.nb;
    const float mf = a.shift ? rb_tiled_chain_mean(f, sums, lanes, lane) : 0.0f;
    const double mu = (double)mf * f.sumfird;
    mean[lane] = mf;
    double c1, St[R], t[R];
#ifdef __CUDA_ARCH__
    __shared__ CT ring[RB_TILED_RING * 32]; /* the passes' loads ahead (RB_TILED_RING) */
#else
    CT ring[RB_TILED_RING];
#endif
    const int const_like = rb_tiled_chain_start<R>(f, in, lane, mu, St, &c1);
    if (b.periodic_like && b.lapped) {
        /* p(Y) of (49) as the causal pass over the periodic extension from a zero
         * state where the response has died out (rb_cuda_blocks.lapped): the blocks
         * lap_c0 .. nb-1, then lap_nc whole laps */
        if (b.lap_c0 < nb) rb_tiled_lap_c<R, CT>(f, b.lap_c0, St, mu, car1, lanes, lane, ring);
        for (int w = 0; w < b.lap_nc; ++w) rb_tiled_lap_c<R, CT>(f, 0, St, mu, car1, lanes, lane, ring);
    } else if (b.periodic_like) {
        /* b.wrap: p(Y) of (49) as the fixed point of a lap, X = T X + z: b.wrap laps
         * from the zero state (St, as rb_tiled_chain_start left it), error ~ rho^(wrap n);
         * else one zero-initialised lap, e_{-1}(Yhat), and (49) gives the true p(Y) */
        for (int w = 0; w < (b.wrap ? b.wrap : 1); ++w) rb_tiled_lap_c<R, CT>(f, 0, St, mu, car1, lanes, lane, ring);
        if (!b.wrap) {
            rb_tiled_mv<R>(b.Qc, St, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k];
        }
    }
    const bool heads = rb_tiled_heads_stored<CT>(f);
    if (heads) rb_tiled_chain_c<R, CT, true>(f, 0, nb, St, mu, car1, car2, lanes, lane, ring);
    else if constexpr (sizeof(CT) == sizeof(double))
        rb_tiled_chain_c<R, CT, false>(f, 0, nb, St, mu, car1, car2, lanes, lane, ring);
    double E[R];
    rb_tiled_epilogue<R>(a, const_like, St, c1, E);
    if (b.periodic_like) {
        /* e(Z) of (51) likewise, over the heads H_b of the exact causal states just
         * written: b.wrap anticausal laps from zero (the epilogue left E zero), or one
         * and (51) */
RB_UNROLL
        for (int k = 0; k < R; ++k) E[k] = 0.0;
        if (b.lapped) { /* cut where the response has died out, as the causal lap */
            if (heads) rb_tiled_chain_a<R, CT, false>(f, 0, b.lap_a1, E, car2, lanes, lane, ring);
            else if constexpr (sizeof(CT) == sizeof(double))
                rb_tiled_chain_a<R, CT, false, false>(f, 0, b.lap_a1, E, car2, lanes, lane, ring, mu, car1);
            for (int w = 0; w < b.lap_na; ++w) rb_tiled_chain_a<R, CT, false>(f, 0, nb, E, car2, lanes, lane, ring);
        } else
            for (int w = 0; w < (b.wrap ? b.wrap : 1); ++w) rb_tiled_chain_a<R, CT, false>(f, 0, nb, E, car2, lanes, lane, ring);
        if (!b.wrap && !b.lapped) {
            rb_tiled_mv<R>(b.Qa, E, t); /* (51) */
RB_UNROLL
            for (int k = 0; k < R; ++k) E[k] = t[k];
        }
    }
    if (heads) rb_tiled_chain_a<R, CT, true, true>(f, 0, nb, E, car2, lanes, lane, ring);
    else if constexpr (sizeof(CT) == sizeof(double))
        rb_tiled_chain_a<R, CT, true, false>(f, 0, nb, E, car2, lanes, lane, ring, mu, car1);
}

/* rb_tiled_chain over the lane's group of TPL threads (rb_tiled_lg; NT of
 * them run by this caller, see the split chain above). Every thread of the
 * group sums the mean and forms the boundary closures from the whole state
 * alike (the same doubles); the block steps are split. */
template <int R, typename CT, int TPL, int NT>
RB_HD void rb_tiled_chain_split(const rb_cuda_tiled &f, const float *in, CT *car1, CT *car2, const float *sums,
                                float *mean, const rb_tiled_lg &g)
{
    constexpr int NS = (R + TPL - 1) / TPL;
    const rb_cuda_blocks &b = f.b;
    const rb_cuda_axis &a = b.ax;
    const size_t lanes = g.lanes, lane = g.lane;
    const float mf = a.shift ? rb_tiled_chain_mean(f, sums, lanes, lane) : 0.0f;
    const double mu = (double)mf * f.sumfird;
    if (g.t0 == 0) mean[lane] = mf;
    rb_tiled_own_rows<R, NT, NS> w;
    rb_tiled_rows_init<R, TPL, NT, NS, CT>(f, g, w);
    double c1, S[R], t[R], St[NT][NS], E[NT][NS];
    const int const_like = rb_tiled_chain_start<R>(f, in, lane, mu, S, &c1);
    rb_tiled_scatter<R, TPL, NT, NS>(S, St, g);
    if (b.periodic_like) {
        /* b.wrap: p(Y) of (49) as the fixed point of a lap, X = T X + z: b.wrap laps
         * from the zero state (St, as rb_tiled_chain_start left it), error ~ rho^(wrap n);
         * else one zero-initialised lap, e_{-1}(Yhat), and (49) gives the true p(Y) */
        if (b.lapped) { /* cut where the response has died out, as in rb_tiled_chain */
            if (b.lap_c0 < b.nb)
                rb_tiled_gchain_c<R, TPL, NT, NS, CT, false, false, true>(f, w, St, mu, car1, car2, g, b.lap_c0);
            for (int l = 0; l < b.lap_nc; ++l)
                rb_tiled_gchain_c<R, TPL, NT, NS, CT, false, false>(f, w, St, mu, car1, car2, g);
        } else
            for (int l = 0; l < (b.wrap ? b.wrap : 1); ++l)
                rb_tiled_gchain_c<R, TPL, NT, NS, CT, false, false>(f, w, St, mu, car1, car2, g);
        if (!b.wrap && !b.lapped) {
            rb_tiled_gather<R, TPL, NT, NS>(St, S, g);
            rb_tiled_mv<R>(b.Qc, S, t);
            rb_tiled_scatter<R, TPL, NT, NS>(t, St, g);
        }
    }
    const bool heads = rb_tiled_heads_stored<CT>(f);
    if (heads) rb_tiled_gchain_c<R, TPL, NT, NS, CT, true, true>(f, w, St, mu, car1, car2, g);
    else if constexpr (sizeof(CT) == sizeof(double))
        rb_tiled_gchain_c<R, TPL, NT, NS, CT, true, false>(f, w, St, mu, car1, car2, g);
    rb_tiled_gather<R, TPL, NT, NS>(St, S, g);
    rb_tiled_epilogue<R>(a, const_like, S, c1, t);
    rb_tiled_scatter<R, TPL, NT, NS>(t, E, g);
    if (b.periodic_like) {
        /* e(Z) of (51) likewise, over the heads H_b of the exact causal states just
         * written: b.wrap anticausal laps from zero (the epilogue left E zero), or one
         * and (51) */
RB_UNROLL
        for (int q = 0; q < NT; ++q)
RB_UNROLL
            for (int s = 0; s < NS; ++s) E[q][s] = 0.0;
        if (b.lapped) {
            if (heads) rb_tiled_gchain_a<R, TPL, NT, NS, CT, false, true, true>(f, w, E, car2, g, mu, car1, b.lap_a1);
            else if constexpr (sizeof(CT) == sizeof(double))
                rb_tiled_gchain_a<R, TPL, NT, NS, CT, false, false, true>(f, w, E, car2, g, mu, car1, b.lap_a1);
            for (int l = 0; l < b.lap_na; ++l)
                rb_tiled_gchain_a<R, TPL, NT, NS, CT, false, true>(f, w, E, car2, g, mu, car1);
        } else
            for (int l = 0; l < (b.wrap ? b.wrap : 1); ++l)
                rb_tiled_gchain_a<R, TPL, NT, NS, CT, false, true>(f, w, E, car2, g, mu, car1);
        if (!b.wrap && !b.lapped) {
            rb_tiled_gather<R, TPL, NT, NS>(E, S, g);
            rb_tiled_mv<R>(b.Qa, S, t); /* (51) */
            rb_tiled_scatter<R, TPL, NT, NS>(t, E, g);
        }
    }
    if (heads) rb_tiled_gchain_a<R, TPL, NT, NS, CT, true, true>(f, w, E, car2, g, mu, car1);
    else if constexpr (sizeof(CT) == sizeof(double))
        rb_tiled_gchain_a<R, TPL, NT, NS, CT, true, false>(f, w, E, car2, g, mu, car1);
}

/* ---- the parallel chain (float carries) ----------------------------------
 * The sequential chain above walks all nb blocks of a lane in one thread,
 * which leaves the GPU with one thread per lane (4096 at 4096^2) waiting out
 * one memory latency after another. Instead each lane's blocks are cut into
 * RB_TILED_NG groups of nbg consecutive blocks, one thread per (lane, group):
 *   1. every group runs the causal chain from a zero state over its blocks
 *      (the recurrence P_{b+1} = Mc P_b + Tbar_b - mu T1 is affine, so the
 *      true state leaving the group is Mg P_in plus this zero-state result);
 *   2. one thread per lane combines the groups (RB_TILED_NG steps with the group
 *      matrices Mg = Mc^nbg), starting from (35) or, for periodic, from (49)
 *      applied to the zero-initialised pass over the groups, for mirror from
 *      (67) (rb_tiled_pc_combine_c); it also forms the epilogue (44) or, for
 *      mirror, (72) from the state leaving the line;
 *   3. every group reruns its blocks from its true entering state, writing P_b
 *      and the heads H_b = Hbar_b - mu H1 + G P_b, and runs the anticausal
 *      chain from a zero state over those heads (backwards);
 *   4. the same combination for the anticausal states ((51) for periodic);
 *   5. every group reruns backwards, writing the true states E_b.
 * The first blocks of each group keep their carries on chip from phase 1 on
 * (rb_tiled_pcc), so the chain reads car1 and car2 once and writes P_b and
 * E_b once; their heads never go to car2 (issue 19).
 * Same per-block arithmetic as rb_tiled_chain (same matrices, same float
 * rounding of the stored heads); only the association across groups differs
 * (in double). Double carries (ill-conditioned filters) keep the sequential
 * chain: the same phases with the 16-block group transfers on the states'
 * differences too ran 4x faster on the H100 (0.23 ms per axis at 8192^2 vs
 * 0.86 stepped), but the emulation's wide Gaussians on long padded lines
 * (RB_TEST_SEED=14) then lost 2.2e-5 against 4e-6 for the sequential chain:
 * transfers over groups of many hundred samples of poles that close to 1 are
 * no longer small on the differences of a random line's states. */
#define RB_TILED_NG 16

typedef struct {
    int nbg;                  /* blocks per group (the last groups may be short or empty) */
    int glast;                /* the group holding block nb - 1 */
    double Mc[RB_MAX_ORDER * RB_MAX_ORDER], Mc_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Ma[RB_MAX_ORDER * RB_MAX_ORDER], Ma_last[RB_MAX_ORDER * RB_MAX_ORDER];
} rb_tiled_grp;

/* host: o = a b (r x r) */
static inline void rb_tiled_mm(const double *a, const double *b, int r, double *o)
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

/* The chain's block transfers for double carries on the backward differences
 * of a state s = [s_0 .. s_{R-1}] (newest first): d_k = sum_j (-1)^j C(k,j) s_j,
 * so s_j = sum_k (-1)^k C(j,k) d_k. Column k of M is the state after len
 * samples of zero input through the recursion d from the state with d = e_k,
 * of G (unless NULL) the anticausal head over that response (recursion da).
 * Why: with poles near 1 the states of a smooth line are nearly equal, and
 * A^len (entries ~ len^(R-1)) applied to them cancels away 1e-4 of a wide Gaussian's output even in double; the k-th
 * difference of such a state is small, and the response to it is not large,
 * so M d sums terms of about the size of the result, as stepping the
 * recursion does, in R^2 multiply-adds instead of len * R (and 2 len * R for
 * the head). Stepped in long double, rounded once; len <= RB_TILED_B. */
static inline void rb_tiled_diff_responses(const double *d, const double *da, int r, int len, double *M, double *G)
{
    for (int k = 0; k < r; ++k) {
        long double p[RB_MAX_ORDER], y[RB_TILED_B];
        for (int j = 0; j < r; ++j) {
            long double c = 1.0L; /* C(j, k) */
            for (int t = 0; t < k; ++t) c = c * (long double)(j - t) / (long double)(t + 1);
            p[j] = j < k ? 0.0L : (k % 2 ? -c : c);
        }
        for (int j = 0; j < len; ++j) {
            long double v = 0.0L;
            for (int t = 0; t < r; ++t) v -= (long double)d[t] * p[t];
            for (int t = r - 1; t > 0; --t) p[t] = p[t - 1];
            p[0] = v;
            y[j] = v;
        }
        for (int i = 0; i < r; ++i) M[i * r + k] = (double)p[i];
        if (!G) continue;
        for (int t = 0; t < r; ++t) p[t] = 0.0L;
        for (int j = len - 1; j >= 0; --j) {
            long double v = y[j];
            for (int t = 0; t < r; ++t) v -= (long double)da[t] * p[t];
            for (int t = r - 1; t > 0; --t) p[t] = p[t - 1];
            p[0] = v;
        }
        for (int i = 0; i < r; ++i) G[i * r + k] = (double)p[i];
    }
}

/* host: the group matrices. Causal through a group: Mc_end .. Mc_start, so the
 * last group's is Mc_last Mc^(cnt-1); anticausal (backwards): Ma^(cnt-1) Ma_last. */
static inline void rb_tiled_grp_init(const rb_cuda_tiled *f, rb_tiled_grp *g)
{
    const int r = f->b.ax.r, nb = f->b.nb;
    memset(g, 0, sizeof *g);
    g->nbg = (nb + RB_TILED_NG - 1) / RB_TILED_NG;
    g->glast = (nb - 1) / g->nbg;
    const int cnt = nb - g->glast * g->nbg;
    double pc[RB_MAX_ORDER * RB_MAX_ORDER], pa[RB_MAX_ORDER * RB_MAX_ORDER];
    for (int i = 0; i < r * r; ++i) pc[i] = pa[i] = (i / r == i % r) ? 1.0 : 0.0;
    for (int k = 1; k <= g->nbg; ++k) {
        rb_tiled_mm(f->b.Mc, pc, r, pc);
        rb_tiled_mm(f->b.Ma, pa, r, pa);
        if (k == cnt - 1) {
            rb_tiled_mm(f->b.Mc_last, pc, r, g->Mc_last);
            rb_tiled_mm(pa, f->b.Ma_last, r, g->Ma_last);
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
#define RB_TILED_SH(sh, g, k) (sh)[((size_t)(g) * R + (k)) * (size_t)ls]

RB_HD void rb_tiled_grp_range(const rb_tiled_grp &gp, int nb, int g, int *b0, int *b1)
{
    int s = g * gp.nbg, e = s + gp.nbg;
    *b0 = s < nb ? s : nb;
    *b1 = e < nb ? e : nb;
}

/* group g's blocks b0 .. b1-1, and X = X0, the state entering them */
template <int R>
RB_HD void rb_tiled_grp_enter(const rb_tiled_grp &gp, int nb, int g, const double *X0, double *X, int *b0, int *b1)
{
    rb_tiled_grp_range(gp, nb, g, b0, b1);
RB_UNROLL
    for (int k = 0; k < R; ++k) X[k] = X0[k];
}

/* phase 0: the group's share of the line's sum */
RB_HD double rb_tiled_pc_sum(const rb_cuda_tiled &f, const rb_tiled_grp &gp, int g, const float *sums,
                          size_t lanes, size_t lane)
{
    int b0, b1;
    rb_tiled_grp_range(gp, f.b.nb, g, &b0, &b1);
    double s = 0.0;
    for (int blk = b0; blk < b1; ++blk) s += (double)RB_TILED_SUM(sums, blk);
    return s;
}

/* A group's on-chip copy of its carries (shared memory in rb_tiled_pchain_k):
 * for its first `cap` blocks, Tbar and Hbar as phase 1 loads them (Hbar then
 * replaced by the head H_b in phase 3), so phases 3 and 5 read them there, not
 * from car1 and car2 again, and the heads are never stored to car2 (nothing
 * but phase 5 of the same thread reads them). Entry (j, k) of block b0 + j:
 * Tbar at p[2 (j R + k) ls], Hbar / H_b ls further. Blocks past cap (groups
 * longer than the shared memory holds) keep the loads from car1 and car2.
 * The same CT values in the same order: only where they are read from changes. */
template <typename CT>
struct rb_tiled_pcc {
    CT *p;
    int ls, cap;
};

/* the cache's Tbar (w = 0) or Hbar / head (w = 1) of the group starting at b0 */
template <typename CT>
RB_HD rb_tiled_cv<CT> rb_tiled_pcc_view(const rb_tiled_pcc<CT> &c, int w, int b0)
{
    return rb_tiled_cv<CT>{c.p + (size_t)w * c.ls, (size_t)2 * c.ls, b0};
}

/* the group's blocks b0 .. b1-1 and bc, the end of those in its cache (b0
 * where the instance has none: CACHE false, a constant the compiler sees) */
template <bool CACHE, typename CT>
RB_HD void rb_tiled_pcc_range(const rb_tiled_grp &gp, const rb_tiled_pcc<CT> &c, int nb, int g, int *b0, int *b1,
                              int *bc)
{
    rb_tiled_grp_range(gp, nb, g, b0, b1);
    *bc = !CACHE ? *b0 : *b1 - *b0 < c.cap ? *b1 : *b0 + c.cap;
}

/* phase 1 over blocks b0 .. b1-1 from St; FILL: Hbar is loaded with Tbar and
 * both go to the cache (tc, hc) */
template <int R, typename CT, bool FILL>
RB_HD void rb_tiled_pc_zero_span(const rb_cuda_tiled &f, int b0, int b1, rb_tiled_cv<CT> car1, rb_tiled_cv<CT> car2,
                                 rb_tiled_cv<CT> tc, rb_tiled_cv<CT> hc, double mu, double *St)
{
    const rb_cuda_blocks &b = f.b;
    double t[R];
    constexpr int D = R <= 2 ? 8 : 4;
    for (int c0 = b0; c0 < b1; c0 += D) {
        CT tl[D][R];
        if constexpr (FILL) {
            CT hd[D][R];
            rb_tiled_load_batch_v<R, D, CT>(car1, car2, c0, b1, tl, hd);
RB_UNROLL
            for (int d = 0; d < D; ++d)
                if (c0 + d < b1) {
RB_UNROLL
                    for (int k = 0; k < R; ++k) {
                        RB_TILED_CV(tc, c0 + d, k) = tl[d][k];
                        RB_TILED_CV(hc, c0 + d, k) = hd[d][k];
                    }
                }
        } else {
RB_UNROLL
            for (int d = 0; d < D; ++d)
                if (c0 + d < b1) {
RB_UNROLL
                    for (int k = 0; k < R; ++k) tl[d][k] = RB_TILED_CV(car1, c0 + d, k);
                }
        }
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c0 + d;
            if (blk >= b1) break;
            const int last = blk == b.nb - 1;
            const double *T1 = last ? f.T1_last : f.T1;
            rb_tiled_mv<R>(last ? b.Mc_last : b.Mc, St, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k] + ((double)tl[d][k] - mu * T1[k]);
        }
    }
}

/* phase 1: causal chain over the group from a zero state; CACHE: the cache
 * filled. Without it (the mirror instance) the code is main's single span:
 * the two spans grew that instance's stack (order 5: 112 -> 144 bytes) and
 * made its chains 4-5 % slower on the H100 (bench/RESULTS.md, 2026-11-28) */
template <int R, typename CT, bool CACHE = true>
RB_HD void rb_tiled_pc_zero_c(const rb_cuda_tiled &f, const rb_tiled_grp &gp, int g, const CT *car1, const CT *car2,
                              const rb_tiled_pcc<CT> &c, double mu, size_t lanes, size_t lane, double *Z)
{
    int b0, b1, bc;
    rb_tiled_pcc_range<CACHE>(gp, c, f.b.nb, g, &b0, &b1, &bc);
    const rb_tiled_cv<CT> v1 = rb_tiled_cv_car<CT>((CT *)car1, lanes, lane), v2 = rb_tiled_cv_car<CT>((CT *)car2, lanes, lane);
    const rb_tiled_cv<CT> tc = rb_tiled_pcc_view(c, 0, b0), hc = rb_tiled_pcc_view(c, 1, b0);
    double St[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = 0.0;
    if constexpr (CACHE) rb_tiled_pc_zero_span<R, CT, true>(f, b0, bc, v1, v2, tc, hc, mu, St);
    rb_tiled_pc_zero_span<R, CT, false>(f, bc, b1, v1, v2, tc, hc, mu, St);
RB_UNROLL
    for (int k = 0; k < R; ++k) Z[k] = St[k];
}

/* Phases 2 and 4 walk the groups in order, DIR = 1 causal (groups 0 ..
 * glast), DIR = -1 anticausal (glast .. 0), the group matrices M (M_last for
 * the last group) stepping the state X over a group. */

/* periodic lines: X through every group, adding each group's zero-state
 * result, then closed by Q ((49) causal, (51) anticausal): the true state
 * entering the line; laps > 0 (rb_cuda_blocks.wrap): no Q, X goes round the
 * line `laps` times instead (the fixed point of X = T X + z) */
template <int R, int DIR>
RB_HD void rb_tiled_pc_wrap(const rb_tiled_grp &gp, const double *M, const double *M_last, const double *Q,
                            int laps, const double *sh, int ls, double *X)
{
    double t[R];
    for (int w = 0; w < (laps ? laps : 1); ++w)
    for (int g = DIR > 0 ? 0 : gp.glast; DIR > 0 ? g <= gp.glast : g >= 0; g += DIR) {
        rb_tiled_mv<R>(g == gp.glast ? M_last : M, X, t);
RB_UNROLL
        for (int k = 0; k < R; ++k) X[k] = t[k] + RB_TILED_SH(sh, g, k);
    }
    if (laps) return;
    rb_tiled_mv<R>(Q, X, t);
RB_UNROLL
    for (int k = 0; k < R; ++k) X[k] = t[k];
}

/* from X, the true state entering the first group: each group's slot in sh
 * (its zero-state result) takes the true state entering it, and X steps on */
template <int R, int DIR>
RB_HD void rb_tiled_pc_exchange(const rb_tiled_grp &gp, const double *M, const double *M_last, double *sh, int ls,
                                double *X)
{
    double t[R];
    for (int g = DIR > 0 ? 0 : gp.glast; DIR > 0 ? g <= gp.glast : g >= 0; g += DIR) {
        rb_tiled_mv<R>(g == gp.glast ? M_last : M, X, t);
RB_UNROLL
        for (int k = 0; k < R; ++k) {
            double zero_state = RB_TILED_SH(sh, g, k);
            RB_TILED_SH(sh, g, k) = X[k];
            X[k] = t[k] + zero_state;
        }
    }
}

/* p_1(Zhat) of a mirror line (rb_cuda_blocks.mirror_closed): the anticausal
 * state leaving the line to the left from a zero state over the heads of the
 * zero-initialised causal pass Yhat, sum_b Ma^b H_b with H_b = Hbar_b - mu H1 +
 * G P_b, P_b the zero-initialised causal states (the blocks left of b are whole:
 * Ma). Its terms die out with Ma^b, so only the first mir_nj blocks are walked,
 * from the stage-1 carries (Tbar in car1, Hbar in car2, not yet overwritten);
 * Q holds Ma^b (R^3 a block, over a few blocks, in one thread a lane). */
template <int R, typename CT>
RB_HD void rb_tiled_mirror_p1(const rb_cuda_tiled &f, const CT *car1, const CT *car2, double mu, size_t lanes,
                              size_t lane, double *p1)
{
    const rb_cuda_blocks &b = f.b;
    const int nj = b.mir_nj;
    double P[R], Q[R * R], h[R], t[R];
RB_UNROLL
    for (int i = 0; i < R; ++i) {
        P[i] = p1[i] = 0.0;
RB_UNROLL
        for (int j = 0; j < R; ++j) Q[i * R + j] = i == j ? 1.0 : 0.0;
    }
    constexpr int D = R <= 2 ? 4 : R <= 3 ? 2 : 1;
    for (int c0 = 0; c0 < nj; c0 += D) {
        CT tl[D][R], hd[D][R];
        rb_tiled_load_batch<R, D, CT>(car1, car2, c0, nj, lanes, lane, tl, hd);
RB_UNROLL
        for (int d = 0; d < D; ++d) {
            const int blk = c0 + d;
            if (blk >= nj) break;
            const int last = blk == b.nb - 1;
            const double *T1 = last ? f.T1_last : f.T1, *H1 = last ? f.H1_last : f.H1;
            rb_tiled_mv<R>(last ? f.G_last : f.G, P, h);
RB_UNROLL
            for (int k = 0; k < R; ++k) h[k] += (double)hd[d][k] - mu * H1[k]; /* H_b */
            rb_tiled_mv<R>(Q, h, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) p1[k] += t[k];
            rb_tiled_mv<R>(last ? b.Mc_last : b.Mc, P, t);
RB_UNROLL
            for (int k = 0; k < R; ++k) P[k] = t[k] + ((double)tl[d][k] - mu * T1[k]);
            /* Q <- Q Ma, a row at a time */
RB_UNROLL
            for (int i = 0; i < R; ++i) {
RB_UNROLL
                for (int j = 0; j < R; ++j) {
                    double s = 0.0;
RB_UNROLL
                    for (int k = 0; k < R; ++k) s += Q[i * R + k] * b.Ma[k * R + j];
                    t[j] = s;
                }
RB_UNROLL
                for (int j = 0; j < R; ++j) Q[i * R + j] = t[j];
            }
        }
    }
}

/* phase 2 (one thread per lane): the true causal state entering every group,
 * in place of the zero-state results in sh; Eend: the anticausal state
 * entering the line's last block from the right (unused for periodic).
 * car1, car2: the stage-1 carries, which a mirror line's closure reads. MIR:
 * compiled with the mirror closure (the kernel's instance for mirror_closed
 * axes, rb_tiled_pchain_k; the host emulation always). */
template <int R, typename CT, bool MIR = true>
RB_HD void rb_tiled_pc_combine_c(const rb_cuda_tiled &f, const rb_tiled_grp &gp, const float *in, size_t lane, double mu,
                              double *sh, int ls, double *Eend, int els, const CT *car1, const CT *car2, size_t lanes)
{
    const rb_cuda_blocks &b = f.b;
    const rb_cuda_axis &a = b.ax;
    double c1, St[R];
    const int const_like = rb_tiled_chain_start<R>(f, in, lane, mu, St, &c1);
    double E[R];
    if constexpr (MIR && R <= RB_TILED_MIR_ORDER) {
        if (b.mirror_closed) {
            /* mirror (2016 paper, 4.3; FORMULAS.md): e_{-1}(Yhat), the zero-initialised
             * pass over the whole line (St is zero, rb_tiled_chain_start), and
             * p_1(Zhat) give p(Y) by (67); the true states from p(Y) through the groups
             * (the recurrence is affine), e_{-1}(Y) leaving the line, and e(Z) by (72) */
            double p1[R], t[R];
            rb_tiled_pc_wrap<R, 1>(gp, gp.Mc, gp.Mc_last, b.Qc, 1, sh, ls, St); /* one lap, no closure */
            rb_tiled_mirror_p1<R, CT>(f, car1, car2, mu, lanes, lane, p1);
            rb_tiled_mv<R>(b.Mz, p1, t);
            rb_tiled_mv<R>(b.My, St, E);
RB_UNROLL
            for (int k = 0; k < R; ++k) St[k] = t[k] + E[k]; /* (67) */
            rb_tiled_pc_exchange<R, 1>(gp, gp.Mc, gp.Mc_last, sh, ls, St);
            rb_tiled_mv<R>(b.Me, St, E); /* (72) */
RB_UNROLL
            for (int k = 0; k < R; ++k) Eend[(size_t)k * els] = E[k];
            return;
        }
    }
    /* periodic: the zero-initialised pass over the whole line; (49) gives the true p(Y) */
    if (b.periodic_like) rb_tiled_pc_wrap<R, 1>(gp, gp.Mc, gp.Mc_last, b.Qc, b.wrap, sh, ls, St);
    rb_tiled_pc_exchange<R, 1>(gp, gp.Mc, gp.Mc_last, sh, ls, St);
    rb_tiled_epilogue<R>(a, const_like, St, c1, E);
RB_UNROLL
    for (int k = 0; k < R; ++k) Eend[(size_t)k * els] = E[k];
}

/* phase 3: the group's true causal states P_b and heads H_b, then the
 * anticausal chain over the group (backwards) from a zero state -> Y; the
 * cached blocks' carries from the cache, their heads back to it (CACHE, as
 * in rb_tiled_pc_zero_c) */
template <int R, typename CT, bool CACHE = true>
RB_HD void rb_tiled_pc_run_c(const rb_cuda_tiled &f, const rb_tiled_grp &gp, int g, CT *car1, CT *car2,
                             const rb_tiled_pcc<CT> &c, double mu, size_t lanes, size_t lane, const double *S0, double *Y)
{
    int b0, b1, bc;
    double St[R];
    rb_tiled_grp_enter<R>(gp, f.b.nb, g, S0, St, &b0, &b1);
    rb_tiled_pcc_range<CACHE>(gp, c, f.b.nb, g, &b0, &b1, &bc);
    const rb_tiled_cv<CT> v1 = rb_tiled_cv_car<CT>(car1, lanes, lane), v2 = rb_tiled_cv_car<CT>(car2, lanes, lane);
    const rb_tiled_cv<CT> tc = rb_tiled_pcc_view(c, 0, b0), hc = rb_tiled_pcc_view(c, 1, b0);
    if constexpr (CACHE) rb_tiled_chain_c_batch<R, CT>(f, b0, bc, St, mu, tc, hc, v1, hc);
    rb_tiled_chain_c_batch<R, CT>(f, bc, b1, St, mu, v1, v2, v1, v2);
    /* anticausal from zero over the heads just stored (as CT, as the sequential chain reads them) */
RB_UNROLL
    for (int k = 0; k < R; ++k) St[k] = 0.0;
    rb_tiled_chain_a_batch<R, CT, false>(f, bc, b1, St, v2, v2);
    if constexpr (CACHE) rb_tiled_chain_a_batch<R, CT, false>(f, b0, bc, St, hc, v2);
RB_UNROLL
    for (int k = 0; k < R; ++k) Y[k] = St[k];
}

/* phase 4 (one thread per lane): the true anticausal state entering every
 * group from the right, in place of the zero-state results in sh */
template <int R>
RB_HD void rb_tiled_pc_combine_a(const rb_cuda_tiled &f, const rb_tiled_grp &gp, double *sh, int ls, const double *Eend,
                              int els)
{
    const rb_cuda_blocks &b = f.b;
    double E[R];
RB_UNROLL
    for (int k = 0; k < R; ++k) E[k] = b.periodic_like ? 0.0 : Eend[(size_t)k * els];
    if (b.periodic_like) rb_tiled_pc_wrap<R, -1>(gp, gp.Ma, gp.Ma_last, b.Qa, b.wrap, sh, ls, E); /* (51) */
    rb_tiled_pc_exchange<R, -1>(gp, gp.Ma, gp.Ma_last, sh, ls, E);
}

/* phase 5: the group's true anticausal states E_b, backwards from E0 (the
 * cached blocks' heads from the cache; CACHE as in rb_tiled_pc_zero_c) */
template <int R, typename CT, bool CACHE = true>
RB_HD void rb_tiled_pc_run_a(const rb_cuda_tiled &f, const rb_tiled_grp &gp, int g, CT *car2, const rb_tiled_pcc<CT> &c,
                             size_t lanes, size_t lane, const double *E0)
{
    int b0, b1, bc;
    double E[R];
    rb_tiled_grp_enter<R>(gp, f.b.nb, g, E0, E, &b0, &b1);
    rb_tiled_pcc_range<CACHE>(gp, c, f.b.nb, g, &b0, &b1, &bc);
    const rb_tiled_cv<CT> v2 = rb_tiled_cv_car<CT>(car2, lanes, lane);
    rb_tiled_chain_a_batch<R, CT>(f, bc, b1, E, v2, v2);
    if constexpr (CACHE) rb_tiled_chain_a_batch<R, CT>(f, b0, bc, E, rb_tiled_pcc_view(c, 1, b0), v2);
}

#endif

