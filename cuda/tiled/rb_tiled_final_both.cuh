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

/* The tiles of the image: the plain ones (rb_tiled_final_both_plain), lane
 * groups lc < nlcp of column blocks [b0, b1), and the border, the rest, which
 * rb_tiled_final_both takes in this order: column blocks [0, b0), [b1, nb),
 * then lane groups [nlcp, nlc) of blocks [b0, b1). b0 = b1 = 0: all tiles
 * are the border (no plain one). */
struct rb_tiled_fb_split {
    unsigned nlc, nlcp;
    int b0, b1;
};

/* tile i of the border: its lane group and column block */
static __device__ __forceinline__ void rb_tiled_fb_border(const rb_tiled_fb_split &sp, int nb, unsigned i,
                                                          unsigned *lc, int *blk)
{
    const unsigned top = (unsigned)sp.b0 * sp.nlc, bottom = (unsigned)(nb - sp.b1) * sp.nlc;
    if (i < top) {
        *blk = (int)(i / sp.nlc);
        *lc = i % sp.nlc;
    } else if (i - top < bottom) {
        *blk = sp.b1 + (int)((i - top) / sp.nlc);
        *lc = (i - top) % sp.nlc;
    } else {
        const unsigned w = sp.nlc - sp.nlcp, k = i - top - bottom;
        *blk = sp.b0 + (int)(k / w);
        *lc = sp.nlcp + k % w;
    }
}

template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_final_both(const rb_cuda_tiled f, const rb_cuda_tiled fr, const float *in, const float *__restrict__ mid,
                    float *out, const float *__restrict__ car1, const float *__restrict__ car2,
                    const float *__restrict__ mean, size_t lanes, rb_tiled_fb_split spl, const float *__restrict__ rcar1,
                    const float *__restrict__ rcar2, const float *__restrict__ rmean, size_t rlanes)
{
    __shared__ float sm[B * RB_TILED_XS];
    unsigned lc;
    int blk;
    rb_tiled_fb_border(spl, f.b.nb, blockIdx.x, &lc, &blk);
    const size_t lane = (size_t)lc * RB_TILED_COL_THREADS + threadIdx.x;
    const long long j0 = (long long)f.b.ax.s0 + (long long)blk * B;
    const int len = min(B, f.b.ax.m - blk * B);
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

/* A whole block (B samples in u, float recursion) finished from its float
 * carries P, E and its line's mean m, as rb_tiled_final_from_carries does:
 * the recursion in place; returns gain * m, which the caller adds back to
 * each sample in double (the same floats as the general kernel) */
template <int R>
static __device__ __forceinline__ double rb_tiled_final_whole(const rb_cuda_tiled &f, float *u, const float *cp,
                                                              const float *ce, float cm)
{
    double P[R], E[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        P[k] = (double)cp[k];
        E[k] = (double)ce[k];
    }
    const double m = (double)cm;
    rb_tiled_final_n<R, float, true>(f, u, B, m * f.sumfird, P, E);
    return f.b.ax.gain * m;
}

/* The plain tiles (Nsight Compute on the H100, bench/RESULTS.md, helper
 * fb3: the kernel above took 78 registers for its edge and padding paths, 6
 * thread blocks an SM, its row carries loaded only after the first barrier,
 * 14 shared-memory accesses a pixel): a whole column block inside the line
 * (no column FIR), 128 valid lanes, whole row blocks inside the line. Every
 * global load of the tile (its 32 x 128 samples, the column carries, the row
 * carries of its 4 / c row blocks, both means) is issued first; each
 * recursion runs on 32 samples in registers, the tile in shared memory only
 * between the axes; the output goes out with streaming stores (never read
 * again). The same per-block functions on the same floats as the kernel
 * above: the same output bits. In place as the kernel above: the tile's
 * reads end before the first barrier, its writes follow the second. */
/* 9 thread blocks an SM: 56 registers, no spills at orders 1, 3, 5 with
 * the channel count known (c = 2 at run time spills at 56; 6 blocks there,
 * as the kernel above) */
template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS, C ? 9 : 6)
rb_tiled_final_both_plain(const rb_cuda_tiled f, const rb_cuda_tiled fr, const float *in, float *out,
                          const float *__restrict__ car1, const float *__restrict__ car2,
                          const float *__restrict__ mean, size_t lanes, rb_tiled_fb_split spl,
                          const float *__restrict__ rcar1, const float *__restrict__ rcar2,
                          const float *__restrict__ rmean, size_t rlanes)
{
    __shared__ float sm[B * RB_TILED_XS];
    const int t = threadIdx.x;
    const unsigned lc = blockIdx.x % spl.nlcp;
    const int blk = spl.b0 + (int)(blockIdx.x / spl.nlcp);
    const rb_cuda_axis &a = f.b.ax, &ra = fr.b.ax;
    const long long j0 = (long long)a.s0 + (long long)blk * B;
    const size_t lane = (size_t)lc * RB_TILED_COL_THREADS + t;
    /* the lane's 32 samples, all in flight at once */
    float u[B];
    {
        const float *x = in + lane + j0 * f.ld;
#pragma unroll
        for (int j = 0; j < B; ++j) u[j] = __ldcs(x + j * f.ld);
    }
    float cp[R], ce[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        cp[k] = RB_TILED_CAR(car1, blk, k);
        ce[k] = RB_TILED_CAR(car2, blk, k);
    }
    const float cm = a.shift ? mean[lane] : 0.0f;
    /* the row block of the row final: thread = (tile row r, row block q of
     * the tile, channel k), its carries loaded now, used after the barrier */
    const int c = C ? C : fr.c, r = t & (B - 1), rest = t / B, q = rest / c, kc = rest - q * c;
    const int qg = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q + (-ra.s0) / B;
    float rp[R], re[R], rm;
    {
        const size_t rlane = (size_t)(j0 + r) * c + kc;
#pragma unroll
        for (int k = 0; k < R; ++k) {
            rp[k] = rcar1[((size_t)qg * R + k) * rlanes + rlane];
            re[k] = rcar2[((size_t)qg * R + k) * rlanes + rlane];
        }
        rm = ra.shift ? rmean[rlane] : 0.0f;
    }
    /* column final (rb_tiled_col_final_tile's floats) */
    {
        const double back = rb_tiled_final_whole<R>(f, u, cp, ce, cm);
#pragma unroll
        for (int j = 0; j < B; ++j) sm[j * RB_TILED_XS + t] = (float)((double)u[j] + back);
    }
    __syncthreads();
    /* row final (rb_tiled_final_from_carries' floats) */
    {
        float *p = sm + r * RB_TILED_XS + q * B * c + kc;
#pragma unroll
        for (int j = 0; j < B; ++j) u[j] = p[j * c];
        const double back = rb_tiled_final_whole<R>(fr, u, rp, re, rm);
#pragma unroll
        for (int j = 0; j < B; ++j) p[j * c] = (float)((double)u[j] + back);
    }
    __syncthreads();
    /* the output, each thread its lane's column (coalesced over the lanes) */
    float *z = out + lane + j0 * fr.ld_out;
#pragma unroll
    for (int j = 0; j < B; ++j) __stcs(z + j * fr.ld_out, sm[j * RB_TILED_XS + t]);
}

/* ---- rows with a FIR (the Gaussian's centred taps) -------------------------
 * The same route for the rows of rb_tiled_final_cols_s1_fir (issue 19 item
 * 4): float or double carries, the recursion in the carries' type. A row
 * block's FIR reads ntaps - 1 pixels beyond its 32, and clamp's blocks start
 * at d0 = -fir_ext, not at the tile's edge; so the thread block runs the
 * column final of its 128 lanes and of the halo (the fifth warp, as the fused
 * FIR kernel: rb_tiled_col_final_halo, the same floats), then the row final
 * of the row blocks that start in its pixels and read only the line
 * (rb_tiled_fir_span: [qlo, qhi)), each the FIR of the tile and the
 * recursion from the complete row carries, as rb_tiled_final_rows; results
 * back into the tile and out row-coalesced. The output pixels of a thread
 * block are those of its row blocks, [lc W + d0, lc W + d0 + W), not its
 * lanes. The edge blocks (their FIR reads the extension) take
 * rb_tiled_final_rows_edges, from the column output near the line's ends
 * (mid: rb_tiled_fir_edge_window). Never in place: the halo and the column
 * FIR read other tiles' input. */
template <int R, typename CT, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS + B)
rb_tiled_final_both_fir(const rb_cuda_tiled f, const rb_cuda_tiled fr, const rb_tiled_fir_span sp,
                        const float *__restrict__ in, float *__restrict__ out, const CT *__restrict__ car1,
                        const CT *__restrict__ car2, const float *__restrict__ mean, size_t lanes, unsigned nlc,
                        const CT *__restrict__ rcar1, const CT *__restrict__ rcar2, const float *__restrict__ rmean,
                        size_t rlanes)
{
    typedef CT IT;
    __shared__ float sm[B * RB_TILED_FIR_ST];
    const int c = C ? C : f.c, t = threadIdx.x;
    const unsigned lc = blockIdx.x % nlc;
    const int blk = (int)(blockIdx.x / nlc);
    const rb_cuda_axis &a = f.b.ax, &ra = fr.b.ax;
    const long long j0 = (long long)a.s0 + (long long)blk * B;
    const int len = min(B, a.m - blk * B);
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    rb_tiled_col_final_halo<R, CT, C, 0>(f, sp, in, (float *)0, 0, 0, car1, car2, mean, lanes, lc, blk, j0, len,
                                      sm);
    __syncthreads();
    /* row final: thread = (tile row r, row block q of the tile, channel k) */
    const int r = t & (B - 1), rest = t / B, q = rest / c, k = rest - q * c;
    const long long y = j0 + r;
    const int W = RB_TILED_COL_THREADS / c, ql = (int)lc * (W / B) + q;
    const int act = t < RB_TILED_COL_THREADS && r < len && y >= 0 && y < a.n && ql >= sp.qlo && ql < sp.qhi;
    IT u[B];
    double back = 0.0;
    if (act) {
        const int off = sp.d0 + B * q + ra.fir_lo + sp.hl; /* the FIR's first tap, from the tile's lc W - hl */
        const rb_tiled_smc<C> x = {sm + r * RB_TILED_FIR_ST + off * c + k, c};
        rb_tiled_fir_block<IT>(fr, x, B, u, (double *)0);
        back = rb_tiled_final_from_carries<R, CT, IT>(fr, u, B, ql + sp.k0, rcar1, rcar2, rmean, rlanes,
                                                      (size_t)y * c + k);
    }
    __syncthreads(); /* every FIR has read the tile */
    if (act) {
        float *p = sm + r * RB_TILED_FIR_ST + (sp.d0 + B * q + sp.hl) * c + k;
#pragma unroll
        for (int j = 0; j < B; ++j) p[j * c] = (float)((double)u[j] + back);
    }
    __syncthreads();
    /* the output, thread t the float d0 c + t of the thread block's pixels
     * (coalesced over the threads), where its row block was made here */
    if (t < RB_TILED_COL_THREADS) {
        const int qt = (int)lc * (W / B) + t / (B * c);
        if (qt >= sp.qlo && qt < sp.qhi) {
            float *z = out + (long long)lc * RB_TILED_COL_THREADS + sp.d0 * c + t;
            const float *v = sm + (sp.hl + sp.d0) * c + t;
#pragma unroll
            for (int j = 0; j < B; ++j) {
                const long long jj = j0 + j;
                if (j < len && jj >= 0 && jj < a.n) z[jj * fr.ld_out] = v[j * RB_TILED_FIR_ST];
            }
        }
    }
}

/* The row final of the edge blocks the kernel above leaves (nleft from block
 * k0, the rest from q1): thread = (edge block e, lane), lanes consecutive;
 * the samples through the extension from mid, the column output near the
 * line's ends (rb_tiled_load_generic: the same u as rb_tiled_final_rows makes
 * for these blocks), the recursion from the row carries, written straight
 * out (a few blocks a row). */
template <int R, typename CT>
__global__ void __launch_bounds__(128)
rb_tiled_final_rows_edges(const rb_cuda_tiled f, const float *__restrict__ mid, float *__restrict__ out,
                          const CT *__restrict__ car1, const CT *__restrict__ car2, const float *__restrict__ mean,
                          size_t lanes, int k0, int nleft, int q1, int nedge)
{
    typedef CT IT;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, e = i / lanes, lane = i - e * lanes;
    if (e >= (size_t)nedge) return;
    const rb_cuda_axis &a = f.b.ax;
    const int c = f.c, blk = (int)e < nleft ? k0 + (int)e : q1 + ((int)e - nleft);
    const long long j0 = (long long)a.s0 + (long long)blk * B, y = (long long)(lane / c);
    const int k = (int)(lane - (size_t)y * c), len = min(B, a.m - blk * B);
    IT u[B];
    double bs;
    rb_tiled_load_generic<R, IT>(f, mid + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
    const double back = rb_tiled_final_from_carries<R, CT, IT>(f, u, len, blk, car1, car2, mean, lanes, lane);
    float *z = out + y * f.ld_out + k;
#pragma unroll
    for (int j = 0; j < B; ++j) {
        const long long jj = j0 + j;
        if (j < len && jj >= 0 && jj < a.n) z[jj * c] = (float)((double)u[j] + back);
    }
}

#endif
