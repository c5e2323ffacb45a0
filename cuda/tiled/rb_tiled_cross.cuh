#ifndef RB_TILED_CROSS_CUH
#define RB_TILED_CROSS_CUH

#include "rb_tiled_cols_rows.cuh"

/* The 2D route in three image transfers (issue 19 item 1; RECBLUR_CUDA_FUSE=cross):
 * the 2011 paper's algorithm 5 in our terms. The row carries need the column
 * output, which needs the complete column carries; but both finals are
 * linear, so the column output of a tile is
 *   colfinal(x; P, E, m) = colfinal(x; 0, 0, 0) + colfinal(0; P, E, m)
 * (P, E: the tile's complete column carries, m the column mean: (14)-(15) of
 * the paper's section 5), and so are its row carries. Hence:
 *  1. rb_tiled_s1_cols_x (read): the column stage 1 of the tile, which is
 *     the column final from zero states (the same two recursions: Tbar is
 *     the causal pass' last state, Hbar the anticausal pass' first), whose
 *     zero-state output stays in shared memory; the row stage 1 of its row
 *     blocks on it: the x-part of the row carries;
 *  2. the column chain (complete P, E, m);
 *  3. rb_tiled_cross (no image read): adds the row carries of the zero tile's
 *     response to P, E, m, by the paper's cross terms (its algorithm 5, the
 *     products of (P, E) with the block transfer matrices on the other axis):
 *     colfinal(0; P, E, m) at tile row r is sum_b bas_b(r) v_b(lane), v_b the
 *     2R + 1 carry "rows" (P_k, E_k, m) of each lane and bas_b the response
 *     of a zero block to a unit carry b; the row stage 1 is linear along the
 *     row, so the cross term of row r is sum_b bas_b(r) S1(v_b), with S1 run
 *     only over the 2R + 1 carry rows of the tile instead of its 32 rows;
 *  4. the row chain and rb_tiled_final_both (read, write).
 * Rounding differs from the route of rb_tiled_final_both (not bit-identical).
 * Covers rows without padding (the row blocks of the padding read the column
 * output beyond the window the stage writes): zero, constant, clamp,
 * periodic, and mirror where the chains close it by (67)/(72) (unpadded:
 * rb_cuda_blocks.mirror_closed; the closure needs only the carries); clamp's row chain reads the column output of the rows' first and
 * last pixels (rb_tiled_edge_window), which step 1 writes from zero states
 * and step 3 corrects by the same cross terms. */

/* the column final of a block from zero states with u's samples, which also
 * yields its stage 1 carries: rb_tiled_final_n with P = E = 0, mu = 0 and
 * rb_tiled_stage1_n's Tbar / Hbar read from the same recursion */
template <int R, bool FULL, typename U>
static __device__ __forceinline__ void rb_tiled_s1_final0_n(const rb_cuda_tiled &f, U u, int len, double *T, double *H)
{
    const rb_cuda_axis &a = f.b.ax;
    float p[R];
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = 0.0f;
#pragma unroll
    for (int j = 0; j < B; ++j)
        if (FULL || j < len) u[j] = rb_tiled_step<R, float, true>(a, p, (float)u[j]);
#pragma unroll
    for (int k = 0; k < R; ++k) T[k] = (double)p[k];
#pragma unroll
    for (int k = 0; k < R; ++k) p[k] = 0.0f;
#pragma unroll
    for (int j = B - 1; j >= 0; --j)
        if (FULL || j < len) u[j] = rb_tiled_step<R, float, false>(a, p, (float)u[j]);
#pragma unroll
    for (int k = 0; k < R; ++k) H[k] = (double)p[k];
}

/* step 1: column stage 1 (every block, as rb_tiled_s1_cols) + the x-part of
 * the row carries (blocks inside the line) + the x-part of the column output
 * at x < wlo or x >= whi into mid. Column blocks blk0 + blockIdx.x / nlc.
 * PLAIN: whole blocks inside the line without a FIR only (rb_tiled_plain,
 * len = B), their samples loaded straight into registers and both recursions
 * run there; the other blocks (cut, padding, extension, FIR) go through
 * rb_tiled_s1_load in a launch of their own (rb_tiled_launch_cols_cross),
 * whose register needs (94-96 at orders 1-5, the generic load's) held the
 * plain blocks to 5 thread blocks an SM */
template <int R, int C, bool PLAIN>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_s1_cols_x(const rb_cuda_tiled f, const rb_cuda_tiled fr, const float *__restrict__ in, float *__restrict__ mid,
                   float *__restrict__ car1, float *__restrict__ car2, float *__restrict__ sums, size_t lanes,
                   unsigned nlc, int blk0, float *__restrict__ rcar1, float *__restrict__ rcar2,
                   float *__restrict__ rsums, size_t rlanes, int wlo, int whi)
{
    __shared__ float sm[B * RB_TILED_XS];
    const rb_cuda_axis &a = f.b.ax;
    const unsigned lc = blockIdx.x % nlc;
    const int blk = blk0 + (int)(blockIdx.x / nlc), len = min(B, a.m - blk * B);
    const long long j0 = (long long)a.s0 + (long long)blk * B;
    const size_t lane = (size_t)lc * RB_TILED_COL_THREADS + threadIdx.x;
    const int c = C ? C : fr.c;
    if (lane < lanes) {
        const float *x = in + lane;
        const rb_tiled_smc<RB_TILED_XS> u = {sm + threadIdx.x, 0};
        double bs = 0.0, T[R], H[R];
        const long long px = (long long)(lane / c);
        if constexpr (PLAIN) {
            /* its 32 loads straight into registers, all in flight at once,
             * both recursions on registers, only their output to the tile: the
             * same floats as rb_tiled_s1_load's route (the sum in the same
             * order) */
            float w[B];
#pragma unroll
            for (int j = 0; j < B; ++j) w[j] = __ldg(x + (j0 + j) * f.ld);
            if (a.shift) {
#pragma unroll
                for (int j = 0; j < B; ++j) bs += (double)w[j];
            }
            rb_tiled_s1_final0_n<R, true>(f, w, B, T, H);
#pragma unroll
            for (int j = 0; j < B; ++j) u[j] = w[j];
            rb_tiled_put_carries<R, float>(a, car1, car2, sums, blk, T, H, bs, lanes, lane);
            if (px < wlo || px >= whi) {
#pragma unroll
                for (int j = 0; j < B; ++j) mid[(j0 + j) * f.ld_out + lane] = w[j];
            }
        } else {
            rb_tiled_s1_load<R, float>(f, x, blk, lane, len, j0, u, &bs);
            if (len == B) rb_tiled_s1_final0_n<R, true>(f, u, len, T, H);
            else rb_tiled_s1_final0_n<R, false>(f, u, len, T, H);
            rb_tiled_put_carries<R, float>(a, car1, car2, sums, blk, T, H, bs, lanes, lane);
            if (px < wlo || px >= whi) {
#pragma unroll 4
                for (int j = 0; j < len; ++j) {
                    const long long jj = j0 + j;
                    if (jj >= 0 && jj < a.n) mid[jj * f.ld_out + lane] = u[j];
                }
            }
        }
    }
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    __syncthreads();
    /* the x-part of the row carries: rb_tiled_final_cols_s1's row stage 1 */
    const int t = threadIdx.x, r = t & (B - 1), rest = t / B;
    const int q = rest / c, k = rest - q * c;
    const long long y = j0 + r;
    const int qg = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q;
    if (r >= len || y < 0 || y >= a.n || qg >= fr.b.nb) return;
    rb_tiled_tile_row_s1<R, C>(fr, sm + r * RB_TILED_XS + q * B * c + k, c, qg, rcar1, rcar2, rsums, rlanes,
                               (size_t)y * c + k);
}

/* step 3: the cross terms (see the top of this file), after the column chain.
 * The 2011 paper's algorithm 5 (steps 5.4-5.5) makes the row carries
 * P^T(U), E^T(V) from the zero-state ones P^T(U check), E^T(V tilde) plus the
 * products of the complete column carries P_{m-1,n}(Y), E_{m+1,n}(Z) with
 * block matrices (its (37) and (39)); here, per tile and (row block,
 * channel) qk, with v_b the 2R + 1 carry rows (P_k, E_k, m) of the tile's
 * lanes and X_b the zero block's column final from unit carry b:
 *   S1(colfinal(0; v) at row r) = sum_b X_b(r) S1(v_b)      (linearity)
 * so s1[qk][b] = S1(v_b over row block qk) (2R dot products and a sum of 32
 * lanes, fr.Wt / fr.Wh immediate operands), then each thread (row r, qk) adds
 * sum_b X_b(r) s1[qk][b] to its 2R + 1 row carries: one read, one write each.
 * Persistent thread blocks walk the tiles: the basis (kernel parameters,
 * which a per-thread index reads 32-way serialised) goes to shared memory
 * once per thread block, the cut block's too; each tile issues all its global
 * loads (its lanes' column carries, its rows' row carries) before its first
 * barrier, so it waits on memory once; cv and s1 alternate between two
 * buffers, so two barriers a tile separate the phases. */
template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS, R == 1 && C == 1 ? 16 : 0) /* order 1: 16 blocks an SM, as main */
rb_tiled_cross(const rb_cuda_tiled f, const rb_cuda_tiled fr, float *__restrict__ mid,
               const float *__restrict__ car1, const float *__restrict__ car2, const float *__restrict__ mean,
               size_t lanes, unsigned nlc, unsigned ntiles, float *__restrict__ rcar1, float *__restrict__ rcar2,
               float *__restrict__ rsums, size_t rlanes, int wlo, int whi)
{
    constexpr int NV = 2 * R + 1;               /* carry rows: P_0..P_{R-1}, E_0..E_{R-1}, m */
    /* s1[i SI + qk SQ + b]: output i (Tbar, Hbar, sum) of the row stage 1 of
     * carry row b over (row block, channel) qk; SQ = 8 or 24 (mod 32): the 32
     * S1 jobs of a warp (b = 8 values, qk = 4) write 32 banks at once, and the
     * add phase reads float4s of 4 b (those beyond NV zero) */
    constexpr int NB4 = (NV + 3) / 4;           /* float4s over b */
    constexpr int SQ = NV <= 8 ? 8 : 24;        /* 2 R + 1 <= 17 */
    constexpr int SI = 4 * SQ;
    constexpr int NQ = RB_TILED_COL_THREADS / B; /* (row block, channel) pairs of a tile */
    /* cv[b CS + t + t / 32]: carry b of the tile's lane t, a float of padding
     * after every 32 lanes, so that the 32 S1 jobs of a warp (8 carry rows
     * x 4 (row block, channel) pairs) read 32 banks at once */
    constexpr int CS = RB_TILED_COL_THREADS + 4;
    __shared__ float xs[2 * NV * B];             /* xs[b B + j]: whole block, tile row j, unit carry b;
                                                    from NV B: the same for the line's cut last block */
    __shared__ float cv[2][NV * CS];
    __shared__ __align__(16) float s1[2][NV * SI];
    const rb_cuda_axis &a = f.b.ax, &ra = fr.b.ax;
    const int c = C ? C : fr.c, t = threadIdx.x, r = t & (B - 1), qk = t / B, q = qk / c, k = qk - q * c;
    for (int i = t; i < NV * B; i += RB_TILED_COL_THREADS) xs[i] = f.Xb[i];
    for (int i = t; i < 2 * NV * SI; i += RB_TILED_COL_THREADS) s1[0][i] = 0.0f;
    const int cut = a.m % B;
    if (cut && t < NV) {
        /* the cut block's basis: a zero block's column final from unit carry t
         * (rb_tiled_col_final_tile's arithmetic: u - m sumfir, the recursions,
         * gain m added back) */
        float *u = xs + NV * B + t * B, p[R];
        const int mt = t == 2 * R;
        const float mu = mt ? (float)f.sumfird : 0.0f;
        /* rb_tiled_final_n's steps, rolled (a rare path: no registers held for it) */
#pragma unroll
        for (int i = 0; i < R; ++i) p[i] = t == i ? 1.0f : 0.0f;
#pragma unroll 1
        for (int j = 0; j < cut; ++j) u[j] = rb_tiled_step<R, float, true>(a, p, 0.0f - mu);
#pragma unroll
        for (int i = 0; i < R; ++i) p[i] = t == R + i ? 1.0f : 0.0f;
#pragma unroll 1
        for (int j = cut - 1; j >= 0; --j) u[j] = rb_tiled_step<R, float, false>(a, p, u[j]);
#pragma unroll 1
        for (int j = 0; j < cut; ++j) u[j] = (float)((double)u[j] + (mt ? a.gain : 0.0));
    }
    __syncthreads();
    int pb = 0;
    /* the walk: tile i is lane tile i / nbk, column block i % nbk (consecutive
     * tiles go down a lane tile's column blocks). In main's order (lane tile
     * i % nlc) a grid that is a multiple of nlc (2112 thread blocks = 33 x 64
     * lane tiles at 8192^2 order 1) kept each thread block on one lane tile for
     * all its tiles, and the 66 holding the rows' end pixels (x = 0 and n - 1: a
     * round trip to mid a tile) ran 1.5x as long as the others: SMs idle a
     * third of the kernel (ncu). Now a thread block meets one or two such tiles */
    const unsigned nbk = ntiles / nlc;
    for (unsigned tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const unsigned lc = tile / nbk;
        const int blk = (int)(tile - lc * nbk), len = min(B, a.m - blk * B);
        const long long j0 = (long long)a.s0 + (long long)blk * B;
        if (j0 >= a.n || j0 + len <= 0) continue; /* block wholly outside the line: uniform */
        const size_t lane = (size_t)lc * RB_TILED_COL_THREADS + t;
        /* every global load of the tile: column carries of lane t, row carries of (r, qk) */
        float v[NV];
        {
            const int ok = lane < lanes;
#pragma unroll
            for (int i = 0; i < R; ++i) {
                v[i] = ok ? RB_TILED_CAR(car1, blk, i) : 0.0f;
                v[R + i] = ok ? RB_TILED_CAR(car2, blk, i) : 0.0f;
            }
            v[2 * R] = ok && a.shift ? mean[lane] : 0.0f;
        }
        const long long y = j0 + r;
        const int qg = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q;
        const int mine = r < len && y >= 0 && y < a.n && qg < fr.b.nb;
        const size_t rl = (size_t)y * c + k;
        float rc[NV];
        if (mine) {
#pragma unroll
            for (int i = 0; i < R; ++i) {
                rc[i] = rcar1[((size_t)qg * R + i) * rlanes + rl];
                rc[R + i] = rcar2[((size_t)qg * R + i) * rlanes + rl];
            }
            rc[2 * R] = ra.shift ? rsums[(size_t)qg * rlanes + rl] : 0.0f;
        }
        const float *xb = xs + (len == B ? 0 : NV * B);
        float *cvp = cv[pb], *s1p = s1[pb];
        pb ^= 1;
#pragma unroll
        for (int b = 0; b < NV; ++b) cvp[b * CS + t + t / B] = v[b];
        __syncthreads();
        {
            /* the clamp rows' end pixels (x < wlo or x >= whi): the column output's
             * cross term, sum_b X_b(r) v_b, added to mid; each such lane of a warp
             * by the whole warp, thread r taking tile row r, so a lane costs one
             * round trip to memory, not 32 dependent ones; the warp's end-pixel
             * lanes found by one ballot, not by a walk over its 32 lanes */
            const int w0 = t & ~(B - 1);
            const size_t wl = (size_t)lc * RB_TILED_COL_THREADS + w0;
            const long long px = (long long)(lane / c);
            const unsigned em = __ballot_sync(0xffffffffu, lane < lanes && (px < wlo || px >= whi));
            const long long jj = j0 + r;
            const int rowok = r < len && jj >= 0 && jj < a.n;
            for (unsigned m = em; m; m &= m - 1) { /* uniform over the warp */
                const int e = __ffs(m) - 1, et = w0 + e;
                float s = 0.0f;
#pragma unroll
                for (int b = 0; b < NV; ++b) s = fmaf(xb[b * B + r], cvp[b * CS + et + et / B], s);
                if (rowok) mid[jj * f.ld_out + wl + e] += s;
            }
        }
        /* a cut row block (or rows without dot products) runs its recursion in
         * place on cv, which the end pixels above read: those reads first */
        if (!fr.wdot || (ra.m % B != 0 && ((int)lc + 1) * (RB_TILED_COL_THREADS / (B * c)) >= fr.b.nb))
            __syncthreads();
        if (t < NV * NQ) {
            /* the row stage 1 of carry row sb over row block sq, channel sk */
            const int sqk = t % NQ, sb = t / NQ, sq = sqk / c, sk = sqk - sq * c;
            const int sqg = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + sq;
            float *o = s1p + sqk * SQ + sb; /* o[i SI]: output i */
            if (sqg < fr.b.nb) {
                const int rlen = min(B, ra.m - sqg * B);
                /* sample j of the job: lane sq B c + j c + sk of the tile */
                float *u0 = cvp + sb * CS + sq * (B + 1) * c + sk;
                auto u = [&](int j) -> float & { return u0[j * c + ((j * c) >> 5)]; };
                if (fr.wdot && rlen == B) {
                    /* a whole row block as 2R dot products and its sum, one pass over its 32 lanes */
                    float tt[R], hh[R], bs = 0.0f;
#pragma unroll
                    for (int i = 0; i < R; ++i) tt[i] = hh[i] = 0.0f;
#pragma unroll
                    for (int j = 0; j < B; ++j) {
                        const float w = u(j);
                        bs += w;
#pragma unroll
                        for (int i = 0; i < R; ++i) {
                            tt[i] = fmaf(fr.Wt[i * B + j], w, tt[i]);
                            hh[i] = fmaf(fr.Wh[i * B + j], w, hh[i]);
                        }
                    }
#pragma unroll
                    for (int i = 0; i < R; ++i) {
                        o[(i) * SI] = tt[i];
                        o[(R + i) * SI] = hh[i];
                    }
                    o[(2 * R) * SI] = bs;
                } else {
                    /* a cut row block: rb_tiled_stage1_n's steps, rolled (a rare path:
                     * no registers held for it), in place on the job's own samples of
                     * cv (no other job reads them; the end pixels' reads are done) */
                    float p[R], bs = 0.0f;
#pragma unroll
                    for (int i = 0; i < R; ++i) p[i] = 0.0f;
#pragma unroll 1
                    for (int j = 0; j < rlen; ++j) {
                        bs += u(j);
                        u(j) = rb_tiled_step<R, float, true>(ra, p, u(j));
                    }
#pragma unroll
                    for (int i = 0; i < R; ++i) {
                        o[(i) * SI] = p[i];
                        p[i] = 0.0f;
                    }
#pragma unroll 1
                    for (int j = rlen - 1; j >= 0; --j) rb_tiled_step<R, float, false>(ra, p, u(j));
#pragma unroll
                    for (int i = 0; i < R; ++i) o[(R + i) * SI] = p[i];
                    o[(2 * R) * SI] = bs;
                }
            }
        }
        __syncthreads();
        if (!mine) continue;
#pragma unroll 1
        for (int b4 = 0; b4 < NB4; ++b4) {
            float x[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) x[e] = 4 * b4 + e < NV ? xb[(4 * b4 + e) * B + r] : 0.0f;
#pragma unroll
            for (int i = 0; i < NV; ++i) {
                const float4 w = *(const float4 *)(s1p + i * SI + qk * SQ + 4 * b4);
                rc[i] = fmaf(x[0], w.x, rc[i]);
                rc[i] = fmaf(x[1], w.y, rc[i]);
                rc[i] = fmaf(x[2], w.z, rc[i]);
                rc[i] = fmaf(x[3], w.w, rc[i]);
            }
        }
#pragma unroll
        for (int i = 0; i < R; ++i) {
            rcar1[((size_t)qg * R + i) * rlanes + rl] = rc[i];
            rcar2[((size_t)qg * R + i) * rlanes + rl] = rc[R + i];
        }
        if (ra.shift) rsums[(size_t)qg * rlanes + rl] = rc[2 * R];
    }
}

#endif
