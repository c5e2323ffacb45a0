#ifndef RB_TILED_COLS_ROWS_CUH
#define RB_TILED_COLS_ROWS_CUH

#include "rb_tiled_kernels.cuh"
#include "rb_tiled_cols.cuh"

/* The column final stage fused with the row stage 1 (RECBLUR_CUDA_FUSE; by
 * default where it covers the axes and measured faster: rb_cuda_tiled_fuse_wanted). The thread block's
 * column output tile (32 image rows x 128 lanes) is exactly what the row
 * stage 1 reads for 4 / c row blocks of those rows, when the row blocks start
 * at pixel 0 (no padding, no FIR) and 128 lanes hold whole row blocks
 * (c = 1, 2, 4): so the tile goes to shared memory as well as to the output,
 * and the row carries (Tbar, Hbar, block sums) come from it, which saves the
 * row stage 1's read of the whole image. Same floats, same per-block
 * functions and order of sums as rb_tiled_s1_rows: the carries are bit-identical
 * to the three-kernel route's. Float carries and float recursion only. */

/* row blocks the fused kernel makes, from pixel 0: all of them on the bare
 * line; with padding (mirror, the plan's padded route) those wholly inside the
 * line (the rest read mirrored samples of other tiles: rb_tiled_s1_rows makes
 * them, reading the column output) */
static __host__ __device__ __forceinline__ int rb_tiled_fused_nb(const rb_cuda_tiled &fr)
{
    return fr.b.ax.padded ? fr.b.ax.n / B : fr.b.nb;
}

/* Row stage 1 of row block qg from a shared-memory tile (p: the block's
 * first sample of one channel, channels c apart), carries to rcar1/rcar2/rsums.
 * The same floats as rb_tiled_s1_rows makes for this block (dot products for
 * whole blocks where the axis allows), so the carries stay bit-identical.
 * Shared by the fused column final and the three-transfer route's stage 1. */
template <int R, int C>
static __device__ __forceinline__ void rb_tiled_tile_row_s1(const rb_cuda_tiled &fr, float *p, int c, int qg,
                                                            float *__restrict__ rcar1, float *__restrict__ rcar2,
                                                            float *__restrict__ rsums, size_t rlanes, size_t rlane)
{
    const rb_cuda_axis &ra = fr.b.ax;
    const int rlen = min(B, ra.m - qg * B);
    const rb_tiled_smc<C> u = {p, c};
    double bs = 0.0, T[R], H[R];
    if (ra.shift) {
        const volatile float *vu = p;
#pragma unroll
        for (int j = 0; j < B; ++j)
            if (j < rlen) bs += (double)vu[j * c];
    }
    if (fr.wdot && rlen == B) rb_tiled_stage1_dot<R>(fr, u, T, H);
    else rb_tiled_stage1<R, float>(fr, u, rlen, T, H);
    rb_tiled_put_carries<R, float>(ra, rcar1, rcar2, rsums, qg, T, H, bs, rlanes, rlane);
}

/* The column final stage of one lane and column block, in place in the
 * thread's column of the tile sm (as rb_tiled_s1_cols): no 32 registers for
 * u, twice the warps per SM to hide the latency of both recursions. The
 * output pixels (mean added back) stay in the tile for the row stage that
 * follows, and go to z (the lane's column of the output, ld f.ld_out) when
 * wr. Shared by the fused kernel and rb_tiled_final_both (rb_tiled_final_both.cuh):
 * the same floats either way. */
template <int R>
static __device__ __forceinline__ void rb_tiled_col_final_tile(const rb_cuda_tiled &f, const float *x, float *z, int wr,
                                                               const float *__restrict__ car1,
                                                               const float *__restrict__ car2,
                                                               const float *__restrict__ mean, size_t lanes,
                                                               size_t lane, int blk, int len, long long j0, float *sm)
{
    const rb_cuda_axis &a = f.b.ax;
    const long long S = f.ld;
    const rb_tiled_smc<RB_TILED_XS> u = {sm + threadIdx.x, 0};
    double bs;
    const int plain = rb_tiled_plain(f, j0, len);
    if (plain) {
#pragma unroll
        for (int j = 0; j < B; ++j)
            if (j < len) __pipeline_memcpy_async(sm + j * RB_TILED_XS + threadIdx.x, x + (j0 + j) * S, sizeof(float));
        __pipeline_commit();
    } else if (rb_tiled_fir_tiled(f, j0, len)) {
        rb_tiled_load_fir<float>(f, x, S, j0, len, u, &bs);
    } else if (!rb_tiled_load_mirror(f, x, S, j0, len, u, &bs)) {
        rb_tiled_load_generic<R, float>(f, x, S, blk, len, a.cval[lane % a.channels], u, &bs);
    }
    double P[R], E[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        P[k] = (double)RB_TILED_CAR(car1, blk, k);
        E[k] = (double)RB_TILED_CAR(car2, blk, k);
    }
    const double m = a.shift ? (double)mean[lane] : 0.0;
    if (plain) __pipeline_wait_prior(0);
    rb_tiled_final<R, float>(f, u, len, m * f.sumfird, P, E);
    const double back = a.gain * m;
#pragma unroll
    for (int j = 0; j < B; ++j) {
        long long jj = j0 + j;
        if (j < len && jj >= 0 && jj < a.n) {
            const float v = (float)((double)u[j] + back);
            if (wr) z[jj * f.ld_out] = v;
            u[j] = v;
        }
    }
}

/* wlo, whi: the column output is written only for pixels x < wlo or
 * x >= whi (0, 0: all of it, the fused route; the route of
 * rb_tiled_final_both writes only the pixels the row stage 1 of the
 * padding's blocks and its own line-end blocks read: rb_tiled_edge_window) */
template <int R, int C>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_final_cols_s1(const rb_cuda_tiled f, const rb_cuda_tiled fr, const float *__restrict__ in,
                    float *__restrict__ out, const float *__restrict__ car1, const float *__restrict__ car2,
                    const float *__restrict__ mean, size_t lanes, unsigned nlc, float *__restrict__ rcar1,
                    float *__restrict__ rcar2, float *__restrict__ rsums, size_t rlanes, int wlo, int whi)
{
    __shared__ float sm[B * RB_TILED_XS];
    const unsigned lc = blockIdx.x % nlc;
    const auto [blk, lane, len, j0] = rb_tiled_col_thread(f, nlc);
    const rb_cuda_axis &a = f.b.ax;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    if (lane < lanes) {
        const long long x = (long long)(lane / (C ? C : fr.c));
        rb_tiled_col_final_tile<R>(f, in + lane, out + lane, x < wlo || x >= whi, car1, car2, mean, lanes, lane, blk,
                                   len, j0, sm);
    }
    __syncthreads();
    /* row stage 1: thread = (tile row r, row block q of the tile, channel k) */
    const int c = C ? C : fr.c, t = threadIdx.x, r = t & (B - 1), rest = t / B;
    const int q = rest / c, k = rest - q * c;
    const long long y = j0 + r;
    const rb_cuda_axis &ra = fr.b.ax;
    /* row block q of the tile is block qg of the row's blocks, counted from
     * pixel 0, so the padding's whole blocks come first */
    const int ql = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q, qg = ql + (-ra.s0) / B;
    if (r >= len || y < 0 || y >= a.n || ql >= rb_tiled_fused_nb(fr)) return;
    rb_tiled_tile_row_s1<R, C>(fr, sm + r * RB_TILED_XS + q * B * c + k, c, qg, rcar1, rcar2, rsums, rlanes,
                               (size_t)y * c + k);
}

/* ---- rows with a FIR (the Gaussian's centred taps) -------------------------
 * The same fusion for rows whose blocks take their FIR from a tile
 * (rb_tiled_fir_tiled), float or double carries (the Gaussian's from sigma 4:
 * rb_cuda_tiled.dbl). A row block reads ntaps - 1 pixels beyond its own 32,
 * and with clamp's s0 = -fir_ext its blocks do not start at the tile's
 * pixels: so the thread block also runs the column final stage of the hl
 * pixels left and hr right of its 128 lanes (a fifth warp; their outputs go
 * to the tile only, their own thread blocks write them), and makes the row
 * blocks that start in its pixels and read only the line (the edge blocks,
 * whose FIR reads the extension, and the padding's are left to
 * rb_tiled_s1_rows, reading the column output). Per lane and per row block
 * the same functions on the same floats as rb_tiled_final_cols and
 * rb_tiled_s1_rows, u in registers instead of in place (neighbouring row
 * blocks share the tile's halo): the carries are bit-identical to the
 * three-kernel route's. */

/* which row blocks the fused FIR kernel makes and the halo it needs: row
 * block q of the line starts at pixel s0 + 32 q = d0 + 32 (q - k0), d0 in
 * (-32, 0]; thread block (column tile) lc, pixels [lc W, lc W + W) with
 * W = 128 / c, makes the W / 32 blocks from q - k0 = lc W / 32 that lie in
 * [qlo, qhi) */
struct rb_tiled_fir_span {
    int hl, hr;   /* pixels of the column output left and right of the tile a row block reads */
    int d0, k0;   /* start of the first row block at or after pixel 0 - 31, its index */
    int qlo, qhi; /* q - k0 of the fused row blocks: whole, their FIR reach inside the line */
};

static __host__ __device__ __forceinline__ rb_tiled_fir_span rb_tiled_fir_span_of(const rb_cuda_tiled &fr)
{
    const rb_cuda_axis &ra = fr.b.ax;
    rb_tiled_fir_span sp;
    sp.k0 = (-ra.s0) / B;
    sp.d0 = ra.s0 + B * sp.k0;
    const int lo = sp.d0 + ra.fir_lo, hi = lo + ra.ntaps - 1;
    sp.hl = lo < 0 ? -lo : 0;
    sp.hr = hi > 0 ? hi : 0;
    /* the whole blocks whose reach lies in [0, n): q' >= ceil(-lo / 32), and
     * d0 + 32 q' + fir_lo + 31 + ntaps <= n, q' + k0 a whole block */
    sp.qlo = lo < 0 ? (-lo + B - 1) / B : 0;
    const long long top = (long long)ra.n - (lo + B + ra.ntaps - 1); /* 32 q' <= top */
    int qhi = top < 0 ? 0 : (int)(top / B) + 1;
    const int whole = fr.b.last_len == B ? fr.b.nb : fr.b.nb - 1; /* blocks q < whole are whole */
    if (qhi > whole - sp.k0) qhi = whole - sp.k0;
    sp.qhi = qhi > sp.qlo ? qhi : sp.qlo;
    return sp;
}

/* the FIR kernels' tile: 32 rows x (128 lanes + the halo's 32 threads), odd
 * stride so that columns and rows both hit 32 banks */
#define RB_TILED_FIR_ST (RB_TILED_COL_THREADS + B + 1)

/* The column final stage of the tile's 128 lanes and of the halo's hl c left
 * and hr c right (threads 128 ..: the fifth warp) into the tile sm (column
 * sc of lane base - hl c + sc), rows of column block blk; the tile's own
 * lanes also go to out: WR 1 all of them (the fused route), 2 only pixels
 * x < wlo or x >= whi (x = lane / c), 0 none (the halo's own thread blocks
 * write theirs). rb_tiled_final_cols for each lane: the same floats. Shared
 * by the fused FIR kernel and the FIR rows' final of both axes
 * (rb_tiled_final_both.cuh). WR at compile time, the fused route's code as
 * it was written in its kernel: with a run-time window test there its RGBA
 * kernel measured 3-6 % slower on the H100 (bench/RESULTS.md, helper gboth). */
template <int R, typename CT, int C, int WR>
static __device__ __forceinline__ void rb_tiled_col_final_halo(const rb_cuda_tiled &f, const rb_tiled_fir_span &sp,
                                                               const float *__restrict__ in, float *__restrict__ out,
                                                               int wlo, int whi, const CT *__restrict__ car1,
                                                               const CT *__restrict__ car2,
                                                               const float *__restrict__ mean, size_t lanes,
                                                               unsigned lc, int blk, long long j0, int len, float *sm)
{
    typedef CT IT; /* double carries go with double recursion, float with float */
    const int c = C ? C : f.c, t = threadIdx.x;
    const rb_cuda_axis &a = f.b.ax;
    /* the thread's lane: 128 of the tile (written out), or one of the halo's */
    const long long base = (long long)lc * RB_TILED_COL_THREADS;
    long long lane;
    int sc, own = t < RB_TILED_COL_THREADS;
    if (own) {
        lane = base + t;
        sc = sp.hl * c + t;
    } else {
        const int i = t - RB_TILED_COL_THREADS;
        lane = i < sp.hl * c ? base - sp.hl * c + i : base + RB_TILED_COL_THREADS + (i - sp.hl * c);
        sc = i < sp.hl * c ? i : RB_TILED_COL_THREADS + i;
        if (i >= (sp.hl + sp.hr) * c) lane = -1;
    }
    if (lane >= 0 && lane < (long long)lanes) {
        if (WR == 2) own = own && (lane / c < wlo || lane / c >= whi);
        IT u[B];
        rb_tiled_final_load<R, IT>(f, in + lane, blk, j0, len, a.cval[lane % a.channels], u);
        const double back = rb_tiled_final_from_carries<R, CT, IT>(f, u, len, blk, car1, car2, mean, lanes, (size_t)lane);
        float *z = out + lane;
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const long long jj = j0 + j;
            if (j < len && jj >= 0 && jj < a.n) {
                const float v = (float)((double)u[j] + back);
                if (WR && own) z[jj * f.ld_out] = v;
                sm[j * RB_TILED_FIR_ST + sc] = v;
            }
        }
    }
}

/* WIN: the column output is written only for pixels x < wlo or x >= whi
 * (the FIR rows' route of rb_tiled_final_both_fir: the pixels the row chain,
 * the edge blocks' row stage 1 and final read, rb_tiled_fir_edge_window);
 * else all of it (the fused route) */
template <int R, typename CT, int C, bool WIN>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS + B)
rb_tiled_final_cols_s1_fir(const rb_cuda_tiled f, const rb_cuda_tiled fr, const rb_tiled_fir_span sp,
                           const float *__restrict__ in, float *__restrict__ out, const CT *__restrict__ car1,
                           const CT *__restrict__ car2, const float *__restrict__ mean, size_t lanes, unsigned nlc,
                           CT *__restrict__ rcar1, CT *__restrict__ rcar2, float *__restrict__ rsums, size_t rlanes,
                           int wlo, int whi)
{
    typedef CT IT;
    __shared__ float sm[B * RB_TILED_FIR_ST];
    const int c = C ? C : f.c, t = threadIdx.x;
    const unsigned lc = blockIdx.x % nlc;
    const int blk = (int)(blockIdx.x / nlc);
    const rb_cuda_axis &a = f.b.ax;
    const long long j0 = (long long)a.s0 + (long long)blk * B;
    const int len = min(B, a.m - blk * B);
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    rb_tiled_col_final_halo<R, CT, C, WIN ? 2 : 1>(f, sp, in, out, wlo, whi, car1, car2, mean, lanes, lc, blk, j0, len,
                                                   sm);
    __syncthreads();
    if (t >= RB_TILED_COL_THREADS) return;
    /* row stage 1: thread = (tile row r, row block q of the tile, channel k) */
    const int r = t & (B - 1), rest = t / B, q = rest / c, k = rest - q * c;
    const long long y = j0 + r;
    const rb_cuda_axis &ra = fr.b.ax;
    const int ql = (int)lc * (RB_TILED_COL_THREADS / (B * c)) + q;
    if (r >= len || y < 0 || y >= a.n || ql < sp.qlo || ql >= sp.qhi) return;
    /* the block's FIR reach starts at pixel d0 + 32 ql + fir_lo, the tile at lc W - hl */
    const int off = sp.d0 + B * q + ra.fir_lo + sp.hl;
    const rb_tiled_smc<C> x = {sm + r * RB_TILED_FIR_ST + off * c + k, c};
    double bs = 0.0, T[R], H[R];
    IT u[B];
    rb_tiled_fir_block<IT>(fr, x, B, u, &bs);
    rb_tiled_stage1<R, IT>(fr, u, B, T, H);
    rb_tiled_put_carries<R, CT>(ra, rcar1, rcar2, rsums, ql + sp.k0, T, H, bs, rlanes, (size_t)y * c + k);
}

#endif
