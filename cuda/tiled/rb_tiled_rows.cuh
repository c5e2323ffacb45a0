/* The row kernels of the tiled solver: 32-pixel blocks of RB_TILED_TR(c)
 * rows go through shared memory (cp.async), so a warp's loads and stores stay
 * contiguous and no transpose is needed; stage 1 and the final stage. */
#ifndef RB_TILED_ROWS_CUH
#define RB_TILED_ROWS_CUH

#include "rb_tiled_kernels.cuh"

/* The tile of rows row0 .. row0+TR-1, samples j0 .. j0+len-1, into shared
 * memory. The tile's TR * 32c floats are numbered row by row and thread t
 * copies numbers t, t + nthr, ..., 32 of them (TR c = nthr: 128, or 126 for
 * c = 3, so a compile-time C gives nthr as RB_TILED_TR(C) C, not 128), all
 * as asynchronous copies (cp.async) issued before the first wait: a thread
 * block has its 16 KB in flight at once (the old loop had each warp load one
 * row segment, store it, and wait out the next latency, 32 times), without
 * 32 registers per thread to hold them, and consecutive threads still read
 * consecutive floats of a row. The (row, column) of each number is stepped,
 * not divided, since 32c need not be a power of two. Floats outside the image
 * or the block are left unset: no thread uses them. The caller syncs. WPX:
 * pixels a tile row holds (B, or B + RB_TILED_HALO for a FIR's taps beyond the
 * block: rb_tiled_fir_tiled), st: floats between tile rows. */
template <int C, int WPX = B>
static __device__ __forceinline__ void rb_tiled_tile_load(const rb_cuda_tiled &f, const float *__restrict__ in,
                                                       float *sm, int st, long long row0, long long h, long long j0,
                                                       int len)
{
    const int c = C ? C : f.c, W = len * c, W32 = WPX * c, nthr = C ? RB_TILED_TR(C) * C : blockDim.x;
    const int drow = nthr / W32, dcol = nthr - drow * W32;
    int r_ = threadIdx.x / W32, col = threadIdx.x - r_ * W32;
    const long long nr = h - row0; /* rows of the image left from row0 */
    const float *src = in + row0 * f.ld + j0 * c;
#pragma unroll
    for (int i = 0; i < WPX; ++i) {
        if (r_ < nr && col < W)
            __pipeline_memcpy_async(sm + r_ * st + col, src + (long long)r_ * f.ld + col, sizeof(float));
        r_ += drow;
        col += dcol;
        if (col >= W32) {
            col -= W32;
            ++r_;
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
}

/* A row block's tile for both row kernels: its samples (plain), or with the
 * FIR its samples and the taps' reach beyond them, read once, coalesced (firt);
 * neither: the thread reads its own samples later. plain and firt are uniform
 * over the thread block (the barrier). Returns the tile's row stride. */
template <int C>
static __device__ __forceinline__ int rb_tiled_row_block_load(const rb_cuda_tiled &f, const float *__restrict__ in,
                                                              float *sm, long long row0, long long h, long long j0,
                                                              int len, int plain, int firt)
{
    const int c = C ? C : f.c;
    const int st = firt ? RB_TILED_SM_STRIDE_FIR(c) : RB_TILED_SM_STRIDE(c);
    if (plain) {
        rb_tiled_tile_load<C>(f, in, sm, st, row0, h, j0, len);
        __syncthreads();
    } else if (firt) {
        rb_tiled_tile_load<C, B + RB_TILED_HALO>(f, in, sm, st, row0, h, j0 + f.b.ax.fir_lo, len + f.b.ax.ntaps - 1);
        __syncthreads();
    }
    return st;
}

template <int C>
static __device__ __forceinline__ void rb_tiled_tile_store(const rb_cuda_tiled &f, float *__restrict__ out,
                                                        const float *sm, int st, long long row0, long long h,
                                                        long long j0, int len)
{
    const int c = C ? C : f.c, W32 = B * c, nthr = C ? RB_TILED_TR(C) * C : blockDim.x;
    const int drow = nthr / W32, dcol = nthr - drow * W32;
    /* only the pixels inside the line */
    long long p0 = j0 < 0 ? 0 : j0, p1 = j0 + len > f.b.ax.n ? f.b.ax.n : j0 + len;
    const int c0 = (int)(p0 - j0) * c, c1 = (int)(p1 - j0) * c;
    int r_ = threadIdx.x / W32, col = threadIdx.x - r_ * W32;
    const long long nr = h - row0;
    float *dst = out + row0 * f.ld_out + j0 * c;
#pragma unroll
    for (int i = 0; i < B; ++i) {
        if (r_ < nr && col >= c0 && col < c1) dst[(long long)r_ * f.ld_out + col] = sm[r_ * st + col];
        r_ += drow;
        col += dcol;
        if (col >= W32) {
            col -= W32;
            ++r_;
        }
    }
}

/* rows: one thread block = RB_TILED_TR(c) image rows x all channels (lane y*c + k),
 * one block of 32 samples along x */
/* MF: as rb_tiled_s1_cols' */
template <int R, typename CT, typename IT, int C, bool MF = false>
__global__ void __launch_bounds__(128)
rb_tiled_s1_rows(const rb_cuda_tiled f, const float *__restrict__ in, CT *__restrict__ car1,
              CT *__restrict__ car2, float *__restrict__ sums, size_t lanes, unsigned ntile, int skip0,
              int nskip)
{
    extern __shared__ float sm[]; /* RB_TILED_SM_FLOATS, or _FIR (rb_tiled_row_smem) */
    const int c = C ? C : f.c, TR = RB_TILED_TR(c);
    /* consecutive thread blocks take consecutive blocks along the same rows, so
     * the blocks resident at a time read whole rows (DRAM pages), not 128 B of
     * each of thousands of rows. nskip > 0: blocks skip0 .. skip0+nskip-1 are
     * skipped (the fused route made their carries) */
    const unsigned nsel = (unsigned)(f.b.nb - nskip);
    const int bsel = (int)(blockIdx.x % nsel);
    const int blk = bsel < skip0 ? bsel : bsel + nskip;
    const unsigned tile = blockIdx.x / nsel;
    const auto [h, row0, ty, k, y, lane, len, j0] = rb_tiled_row_thread(f, c, TR, lanes, tile, blk);
    const rb_cuda_axis &a = f.b.ax;
    const int plain = rb_tiled_plain(f, j0, len), firt = !plain && rb_tiled_fir_tiled(f, j0, len);
    const int st = rb_tiled_row_block_load<C>(f, in, sm, row0, h, j0, len, plain, firt);
    if (y >= h) return;
    double bs = 0.0, T[R], H[R];
    if constexpr (std::is_same<IT, float>::value) {
        /* float recursion: in place in the thread's row of the tile */
        const rb_tiled_smc<C> u = {sm + ty * st + k, c};
        if (plain) {
            /* volatile: the compiler would otherwise keep all 32 samples in
             * registers for the recursion below (30 more registers, fewer warps) */
            const volatile float *vu = sm + ty * st + k;
            if (a.shift) {
#pragma unroll
                for (int j = 0; j < B; ++j)
                    if (j < len) bs += (double)vu[j * c];
            }
        } else if (firt) {
            rb_tiled_fir_block<IT>(f, u, len, u, &bs); /* in place */
        } else {
            rb_tiled_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
        }
        /* a whole in-line block: the dot products, as the columns (rb_cuda_tiled.wdot) */
        if (f.wdot && plain && len == B) rb_tiled_stage1_dot<R>(f, u, T, H);
        else rb_tiled_stage1<R, IT>(f, u, len, T, H);
    } else {
        IT u[B];
        if (plain) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) {
                    u[j] = (IT)sm[ty * st + j * c + k];
                    bs += u[j];
                }
        } else if (firt) {
            rb_tiled_fir_block<IT>(f, rb_tiled_smc<C>{sm + ty * st + k, c}, len, u, &bs);
        } else if (!(MF && rb_tiled_load_mirror_fir<IT>(f, in + y * f.ld + k, c, j0, len, u, &bs))) {
            rb_tiled_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
        }
        rb_tiled_stage1<R, IT>(f, u, len, T, H);
    }
    rb_tiled_put_carries<R, CT>(a, car1, car2, sums, blk, T, H, bs, lanes, lane);
}

template <int R, typename CT, typename IT, int C>
__global__ void __launch_bounds__(128)
rb_tiled_final_rows(const rb_cuda_tiled f, const float *__restrict__ in, float *__restrict__ out,
                 const CT *__restrict__ car1, const CT *__restrict__ car2,
                 const float *__restrict__ mean, size_t lanes, unsigned ntile)
{
    extern __shared__ float sm[]; /* RB_TILED_SM_FLOATS, or _FIR (rb_tiled_row_smem) */
    const int c = C ? C : f.c, TR = RB_TILED_TR(c);
    /* consecutive thread blocks take consecutive blocks along the same rows, so
     * the blocks resident at a time read whole rows (DRAM pages), not 128 B of
     * each of thousands of rows */
    const int blk = (int)(blockIdx.x % (unsigned)f.b.nb);
    const unsigned tile = blockIdx.x / (unsigned)f.b.nb;
    const auto [h, row0, ty, k, y, lane, len, j0] = rb_tiled_row_thread(f, c, TR, lanes, tile, blk);
    const rb_cuda_axis &a = f.b.ax;
    if (j0 >= a.n || j0 + len <= 0) return; /* uniform over the thread block */
    const int plain = rb_tiled_plain(f, j0, len), firt = !plain && rb_tiled_fir_tiled(f, j0, len);
    const int st = rb_tiled_row_block_load<C>(f, in, sm, row0, h, j0, len, plain, firt);
    const int valid = y < h;
    double bs;
    if constexpr (std::is_same<IT, float>::value) {
        /* float recursion: in place in the thread's row of the tile (only this
         * thread touches that row until the barrier before the store) */
        if (valid) {
            const rb_tiled_smc<C> u = {sm + ty * st + k, c};
            if (firt) rb_tiled_fir_block<IT>(f, u, len, u, (double *)0); /* in place */
            else if (!plain) rb_tiled_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
            const double back = rb_tiled_final_from_carries<R, CT, IT>(f, u, len, blk, car1, car2, mean, lanes, lane);
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) u[j] = (float)((double)u[j] + back);
        }
        __syncthreads();
    } else {
        IT u[B];
        if (valid) {
            if (plain) {
#pragma unroll
                for (int j = 0; j < B; ++j)
                    if (j < len) u[j] = (IT)sm[ty * st + j * c + k];
            } else if (firt) {
                rb_tiled_fir_block<IT>(f, rb_tiled_smc<C>{sm + ty * st + k, c}, len, u, (double *)0);
            } else {
                rb_tiled_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
            }
            const double back = rb_tiled_final_from_carries<R, CT, IT>(f, u, len, blk, car1, car2, mean, lanes, lane);
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) u[j] = (IT)((double)u[j] + back);
        }
        __syncthreads(); /* every thread is done reading the tile */
        if (valid) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) sm[ty * st + j * c + k] = (float)u[j];
        }
        __syncthreads();
    }
    rb_tiled_tile_store<C>(f, out, sm, st, row0, h, j0, len);
}

#endif
