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
 * periodic; clamp's row chain reads the column output of the rows' first and
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
 * at x < wlo or x >= whi into mid */
template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_s1_cols_x(const rb_cuda_tiled f, const rb_cuda_tiled fr, const float *__restrict__ in, float *__restrict__ mid,
                   float *__restrict__ car1, float *__restrict__ car2, float *__restrict__ sums, size_t lanes,
                   unsigned nlc, float *__restrict__ rcar1, float *__restrict__ rcar2, float *__restrict__ rsums,
                   size_t rlanes, int wlo, int whi)
{
    __shared__ float sm[B * RB_TILED_XS];
    const unsigned lc = blockIdx.x % nlc;
    const auto [blk, lane, len, j0] = rb_tiled_col_thread(f, nlc);
    const rb_cuda_axis &a = f.b.ax;
    const int c = C ? C : fr.c;
    if (lane < lanes) {
        const float *x = in + lane;
        const rb_tiled_smc<RB_TILED_XS> u = {sm + threadIdx.x, 0};
        double bs = 0.0, T[R], H[R];
        rb_tiled_s1_load<R, float>(f, x, blk, lane, len, j0, u, &bs);
        if (len == B) rb_tiled_s1_final0_n<R, true>(f, u, len, T, H);
        else rb_tiled_s1_final0_n<R, false>(f, u, len, T, H);
        rb_tiled_put_carries<R, float>(a, car1, car2, sums, blk, T, H, bs, lanes, lane);
        const long long px = (long long)(lane / c);
        if (px < wlo || px >= whi) {
#pragma unroll 4
            for (int j = 0; j < len; ++j) {
                const long long jj = j0 + j;
                if (jj >= 0 && jj < a.n) mid[jj * f.ld_out + lane] = u[j];
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

/* step 3: the cross terms (see the top of this file), after the column chain */
template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_cross(const rb_cuda_tiled f, const rb_cuda_tiled fr, float *__restrict__ mid,
               const float *__restrict__ car1, const float *__restrict__ car2, const float *__restrict__ mean,
               size_t lanes, unsigned nlc, float *__restrict__ rcar1, float *__restrict__ rcar2,
               float *__restrict__ rsums, size_t rlanes, int wlo, int whi)
{
    constexpr int NV = 2 * R + 1;   /* carry rows: P_0..P_{R-1}, E_0..E_{R-1}, m */
    constexpr int NQ = RB_TILED_COL_THREADS / B; /* (row block, channel) pairs of a tile */
    __shared__ float bas[NV * B];                /* bas[b B + j]: response of tile row j to carry b */
    __shared__ float cv[NV * RB_TILED_XS];       /* cv[b XS + t]: carry b of the tile's lane t */
    __shared__ double s1[NV * NQ * NV];          /* s1[(b NQ + qk) NV + i]: Tbar, Hbar, sum of carry row b */
    const unsigned lc = blockIdx.x % nlc;
    const auto [blk, lane, len, j0] = rb_tiled_col_thread(f, nlc);
    const rb_cuda_axis &a = f.b.ax, &ra = fr.b.ax;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    const int c = C ? C : fr.c, t = threadIdx.x;
    {
        const int ok = lane < lanes;
#pragma unroll
        for (int k = 0; k < R; ++k) {
            cv[k * RB_TILED_XS + t] = ok ? RB_TILED_CAR(car1, blk, k) : 0.0f;
            cv[(R + k) * RB_TILED_XS + t] = ok ? RB_TILED_CAR(car2, blk, k) : 0.0f;
        }
        cv[2 * R * RB_TILED_XS + t] = ok && a.shift ? mean[lane] : 0.0f;
    }
    if (len == B) {
        /* whole blocks: the basis made at plan time in double (rb_cuda_tiled.Xb) */
        for (int i = t; i < NV * B; i += RB_TILED_COL_THREADS) bas[i] = f.Xb[i];
    } else if (t < NV) {
        /* a zero block's column final from unit carry t (rb_tiled_col_final_tile's
         * arithmetic: u - m sumfir, the recursions, gain m added back) */
        float u[B];
        double P[R], E[R];
#pragma unroll
        for (int j = 0; j < B; ++j) u[j] = 0.0f;
#pragma unroll
        for (int k = 0; k < R; ++k) {
            P[k] = t == k ? 1.0 : 0.0;
            E[k] = t == R + k ? 1.0 : 0.0;
        }
        const int mt = t == 2 * R;
        rb_tiled_final<R, float>(f, u, len, mt ? f.sumfird : 0.0, P, E);
#pragma unroll
        for (int j = 0; j < B; ++j) bas[t * B + j] = (float)((double)u[j] + (mt ? a.gain : 0.0));
    }
    __syncthreads();
    if (t < NV * NQ) {
        /* the row stage 1 of carry row b over row block q, channel k */
        const int b = t / NQ, qk = t - b * NQ, q = qk / c, k = qk - q * c;
        const int qg = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q;
        double T[R], H[R], bs = 0.0;
        if (qg < fr.b.nb) {
            const int rlen = min(B, ra.m - qg * B);
            float u[B];
#pragma unroll
            for (int j = 0; j < B; ++j) u[j] = j < rlen ? cv[b * RB_TILED_XS + q * B * c + k + j * c] : 0.0f;
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < rlen) bs += (double)u[j];
            /* whole row blocks as 2R dot products (no chain of 64 dependent steps) */
            if (fr.wdot && rlen == B) rb_tiled_stage1_dot<R>(fr, u, T, H);
            else rb_tiled_stage1<R, float>(fr, u, rlen, T, H);
        } else {
#pragma unroll
            for (int i = 0; i < R; ++i) T[i] = H[i] = 0.0;
        }
        double *o = s1 + (b * NQ + qk) * NV;
#pragma unroll
        for (int i = 0; i < R; ++i) {
            o[i] = T[i];
            o[R + i] = H[i];
        }
        o[2 * R] = bs;
    }
    __syncthreads();
    /* the clamp rows' end pixels: the column output's cross term of the lane */
    if (lane < lanes) {
        const long long px = (long long)(lane / c);
        if (px < wlo || px >= whi) {
            for (int j = 0; j < len; ++j) {
                const long long jj = j0 + j;
                if (jj < 0 || jj >= a.n) continue;
                double s = 0.0;
#pragma unroll
                for (int b = 0; b < NV; ++b) s += (double)bas[b * B + j] * (double)cv[b * RB_TILED_XS + t];
                mid[jj * f.ld_out + lane] = (float)((double)mid[jj * f.ld_out + lane] + s);
            }
        }
    }
    /* the row carries' cross terms: thread = (tile row r, row block q, channel k) */
    const int r = t & (B - 1), qk = t / B, q = qk / c, k = qk - q * c;
    const long long y = j0 + r;
    const int qg = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q;
    if (r >= len || y < 0 || y >= a.n || qg >= fr.b.nb) return;
    double add[NV];
#pragma unroll
    for (int i = 0; i < NV; ++i) add[i] = 0.0;
#pragma unroll
    for (int b = 0; b < NV; ++b) {
        const double w = (double)bas[b * B + r];
        const double *o = s1 + (b * NQ + qk) * NV;
#pragma unroll
        for (int i = 0; i < NV; ++i) add[i] += w * o[i];
    }
    const size_t rl = (size_t)y * c + k;
#pragma unroll
    for (int i = 0; i < R; ++i) {
        float *p1 = rcar1 + ((size_t)qg * R + i) * rlanes + rl, *p2 = rcar2 + ((size_t)qg * R + i) * rlanes + rl;
        *p1 = (float)((double)*p1 + add[i]);
        *p2 = (float)((double)*p2 + add[R + i]);
    }
    if (ra.shift) {
        float *ps = rsums + (size_t)qg * rlanes + rl;
        *ps = (float)((double)*ps + add[2 * R]);
    }
}

#endif
