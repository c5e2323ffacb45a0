#ifndef RB_TILED_FINAL_BOTH_CUH
#define RB_TILED_FINAL_BOTH_CUH

#include "rb_tiled_cols_rows.cuh"

/* The final stage of both axes in one pass over the image (issue 19 item 1):
 * the 2D route in four image transfers instead of five. The 2011 paper's
 * algorithm 4 in our terms: once the column carries (P, E per column block,
 * its (14)-(15)) and the row carries (the same per row block) are complete,
 * a tile needs no other pixels: the column final stage of the tile's 32
 * image rows x 128 lanes, kept in shared memory (rb_tiled_col_final_tile, as
 * the fused kernel), is exactly the input of the row final stage of its 4 / c
 * row blocks (whole row blocks from pixel 0, as rb_cuda_tiled_can_fuse
 * requires), so the output is written once and the column output never.
 * The route: column stage 1 (read), the column chain, the fused column final
 * + row stage 1 with no pixel writes (read; only the row carries), the row
 * chain, this kernel (read, write). Same per-block functions on the same
 * floats as rb_tiled_final_cols and rb_tiled_final_rows: the output is bit
 * for bit the fused route's.
 * Padded rows (mirror; the plan's padded route): the row block across the
 * line's end (n % 32 != 0) runs over extension samples beyond pixel n, which
 * may lie in another tile; they are read from mid, the column output the
 * fused kernel wrote for the pixels near the line's ends only
 * (rb_tiled_edge_window), as rb_tiled_final_rows read them from the whole
 * column output. out may be in (in place): a thread block writes only the
 * pixels of its own tile, after the barrier that ends its reads, and reads no
 * other tile's input (rb_cuda_tiled_final_both_in_place). */
template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_final_both(const rb_cuda_tiled f, const rb_cuda_tiled fr, const float *in, const float *__restrict__ mid,
                    float *out, const float *__restrict__ car1, const float *__restrict__ car2,
                    const float *__restrict__ mean, size_t lanes, unsigned nlc, const float *__restrict__ rcar1,
                    const float *__restrict__ rcar2, const float *__restrict__ rmean, size_t rlanes)
{
    __shared__ float sm[B * RB_TILED_XS];
    const unsigned lc = blockIdx.x % nlc;
    const auto [blk, lane, len, j0] = rb_tiled_col_thread(f, nlc);
    const rb_cuda_axis &a = f.b.ax, &ra = fr.b.ax;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    const int c = C ? C : fr.c;
    if (lane < lanes) {
        rb_tiled_col_final_tile<R>(f, in + lane, (float *)0, 0, car1, car2, mean, lanes, lane, blk, len, j0, sm);
    } else if (ra.padded) {
        /* a tile column beyond the line's end: the extension samples of the
         * row block across it, from the column output near the line's ends */
        const long long x = (long long)(lane / c);
        const int k = (int)(lane - (size_t)x * c);
        if (x < (long long)(ra.n + B - 1) / B * B) {
#pragma unroll 4
            for (int j = 0; j < len; ++j) {
                const long long y = j0 + j;
                if (y >= 0 && y < a.n)
                    sm[j * RB_TILED_XS + threadIdx.x] = rb_ext_sample(mid + y * fr.ld + k, c, x, ra.n, ra.mode, ra.cval[k]);
            }
        }
    }
    __syncthreads();
    /* row final: thread = (tile row r, row block q of the tile, channel k), as
     * the fused kernel's row stage 1 */
    {
        const int t = threadIdx.x, r = t & (B - 1), rest = t / B;
        const int q = rest / c, k = rest - q * c;
        const long long y = j0 + r;
        const int ql = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q, qg = ql + (-ra.s0) / B;
        if (r < len && y >= 0 && y < a.n && ql < (ra.n + B - 1) / B) {
            const int rlen = min(B, ra.m - qg * B);
            const rb_tiled_smc<C> u = {sm + r * RB_TILED_XS + q * B * c + k, c};
            const double back =
                rb_tiled_final_from_carries<R, float, float>(fr, u, rlen, qg, rcar1, rcar2, rmean, rlanes, (size_t)y * c + k);
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < rlen) u[j] = (float)((double)u[j] + back);
        }
    }
    __syncthreads();
    /* the output, each thread its lane's column (coalesced over the lanes) */
    if (lane < lanes) {
        float *z = out + lane;
        const float *v = sm + threadIdx.x;
        if (len == B && j0 >= 0 && j0 + B <= a.n) {
#pragma unroll
            for (int j = 0; j < B; ++j) z[(j0 + j) * fr.ld_out] = v[j * RB_TILED_XS];
        } else {
#pragma unroll
            for (int j = 0; j < B; ++j) {
                const long long jj = j0 + j;
                if (j < len && jj >= 0 && jj < a.n) z[jj * fr.ld_out] = v[j * RB_TILED_XS];
            }
        }
    }
}

#endif
