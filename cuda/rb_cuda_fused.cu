/* Tiled exact solver, one axis in three launches (see rb_cuda_fused.cuh):
 *   stage 1: read the input once, write Tbar, Hbar (R floats each) and the
 *            block sum per (lane, block of 32 samples);
 *   chain:   one thread per lane walks the small carry arrays (mean, boundary
 *            feedbacks of the 2016 paper, true states entering every block);
 *   final:   read the input again, write the output once.
 * Columns (lanes = consecutive floats of a row) read and write global memory
 * directly, coalesced. Rows go through 32-row tiles in shared memory, so a
 * warp's loads and stores stay contiguous and no transpose is needed; the
 * tile is 32 pixels by all channels, so interleaved channels need no passes
 * of their own. */
#include "rb_cuda.h"
#include "rb_cuda_fused.cuh"
#include <cuda_pipeline.h>
#include <math.h>
#include <type_traits>
#include <stdlib.h>
#include <string.h>

#define B RB_FZ_B
#define RB_FZ_COL_THREADS 128
/* a column tile in shared memory: 32 samples x 128 lanes, odd stride so that a
 * warp walking 32 columns (or 32 rows) hits 32 banks */
#define RB_FZ_XS (RB_FZ_COL_THREADS + 1)
/* rows: a thread block holds RB_FZ_TR(c) image rows x 32 pixels x c channels,
 * one thread per (row, channel); a tile row's stride of 33 c floats is c (mod 32),
 * so the 32 threads of a warp (consecutive (row, channel) pairs) hit 32 banks */
#define RB_FZ_TR(c) (128 / (c))
#define RB_FZ_SM_STRIDE(c) (33 * (c))
#define RB_FZ_SM_FLOATS (128 * 33)

/* a thread's row of the tile with the channel count known at compile time
 * (C = 1: the row kernels are bound by instruction issue, and a runtime
 * stride costs an address computation per access); C = 0: f.c at run time */
template <int C>
struct rb_fz_smc {
    float *p;
    int c;
    __device__ __forceinline__ float &operator[](int j) const { return p[j * (C ? C : c)]; }
};

/* whether block blk lies inside the line and needs no FIR: read x directly */
static __device__ __forceinline__ int rb_fz_plain(const rb_cuda_fz &f, long long j0, int len)
{
    return f.b.ax.ntaps == 0 && j0 >= 0 && j0 + len <= f.b.ax.n;
}

/* A column block of a mirror line without FIR within [-n, 2n) (the padding):
 * each sample is read from its reflection directly, the floats that
 * rb_fz_load_generic would give (and the same in-line sum, in the same order)
 * without its 64-bit remainders per sample. */
template <typename U>
static __device__ __forceinline__ int rb_fz_load_mirror(const rb_cuda_fz &f, const float *x, long long S,
                                                        long long j0, int len, U u, double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    const long long n = a.n;
    if (a.ntaps != 0 || a.mode != RB_BOUNDARY_MIRROR || j0 < -n || j0 + len > 2 * n) return 0;
    double s = 0.0;
#pragma unroll 4
    for (int j = 0; j < len; ++j) {
        const long long jj = j0 + j, k = jj < 0 ? -1 - jj : jj >= n ? 2 * n - 1 - jj : jj;
        const float v = __ldg(x + k * S);
        u[j] = v;
        if (jj >= 0 && jj < n) s += (double)v;
    }
    *bsum = s;
    return 1;
}

template <int R, typename CT, typename IT>
__global__ void __launch_bounds__(RB_FZ_COL_THREADS)
rb_fz_s1_cols(const rb_cuda_fz f, const float *__restrict__ in, CT *__restrict__ car1,
              CT *__restrict__ car2, float *__restrict__ sums, size_t lanes, unsigned nlc)
{
    const unsigned lc = blockIdx.x % nlc;
    const int blk = (int)(blockIdx.x / nlc);
    const size_t lane = (size_t)lc * RB_FZ_COL_THREADS + threadIdx.x;
    if (lane >= lanes) return;
    const rb_cuda_axis &a = f.b.ax;
    const int len = min(B, a.m - blk * B);
    const long long j0 = (long long)a.s0 + (long long)blk * B, S = f.ld;
    const float *x = in + lane;
    double bs = 0.0, T[R], H[R];
    if constexpr (std::is_same<IT, float>::value) {
        if (f.wdot && len == B && rb_fz_plain(f, j0, len)) {
            /* a whole block inside the line: 32 loads straight into registers, all
             * in flight at once, and 2R dot products (rb_fz_stage1_dot): no chain of
             * 64 dependent steps, so the pass streams at the read rate (the
             * recursion below reached 61 % of the DRAM peak, this 81 %: RESULTS.md) */
            float v[B];
#pragma unroll
            for (int j = 0; j < B; ++j) v[j] = __ldg(x + (j0 + j) * S);
            if (a.shift) {
#pragma unroll
                for (int j = 0; j < B; ++j) bs += (double)v[j];
            }
            rb_fz_stage1_dot<R>(f, v, T, H);
#pragma unroll
            for (int k = 0; k < R; ++k) {
                RB_FZ_CAR(car1, blk, k) = (CT)T[k];
                RB_FZ_CAR(car2, blk, k) = (CT)H[k];
            }
            if (a.shift) RB_FZ_SUM(sums, blk) = (float)bs;
            return;
        }
        /* float recursion: the thread's column of a shared-memory tile, loaded
         * with cp.async and filtered in place (as the row kernels do): no 32
         * registers for u, so more warps per SM keep more loads in flight.
         * Each thread reads back only its own column: no barrier. */
        __shared__ float sm[B * RB_FZ_XS];
        const rb_fz_smc<RB_FZ_XS> u = {sm + threadIdx.x, 0};
        if (rb_fz_plain(f, j0, len)) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) __pipeline_memcpy_async(sm + j * RB_FZ_XS + threadIdx.x, x + (j0 + j) * S, sizeof(float));
            __pipeline_commit();
            __pipeline_wait_prior(0);
            if (a.shift) {
                const volatile float *vu = sm + threadIdx.x;
#pragma unroll
                for (int j = 0; j < B; ++j)
                    if (j < len) bs += (double)vu[j * RB_FZ_XS];
            }
        } else if (!rb_fz_load_mirror(f, x, S, j0, len, u, &bs)) {
            rb_fz_load_generic<R, IT>(f, x, S, blk, len, a.cval[lane % a.channels], u, &bs);
        }
        rb_fz_stage1<R, IT>(f, u, len, T, H);
    } else {
        IT u[B];
        if (rb_fz_plain(f, j0, len)) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) {
                    u[j] = (IT)__ldg(x + (j0 + j) * S);
                    bs += u[j];
                }
        } else {
            rb_fz_load_generic<R, IT>(f, x, S, blk, len, a.cval[lane % a.channels], u, &bs);
        }
        rb_fz_stage1<R, IT>(f, u, len, T, H);
    }
#pragma unroll
    for (int k = 0; k < R; ++k) {
        RB_FZ_CAR(car1, blk, k) = (CT)T[k];
        RB_FZ_CAR(car2, blk, k) = (CT)H[k];
    }
    if (a.shift) RB_FZ_SUM(sums, blk) = (float)bs;
}

template <int R, typename CT, typename IT>
__global__ void __launch_bounds__(RB_FZ_COL_THREADS)
rb_fz_final_cols(const rb_cuda_fz f, const float *__restrict__ in, float *__restrict__ out,
                 const CT *__restrict__ car1, const CT *__restrict__ car2,
                 const float *__restrict__ mean, size_t lanes, unsigned nlc)
{
    const unsigned lc = blockIdx.x % nlc;
    const int blk = (int)(blockIdx.x / nlc);
    const size_t lane = (size_t)lc * RB_FZ_COL_THREADS + threadIdx.x;
    if (lane >= lanes) return;
    const rb_cuda_axis &a = f.b.ax;
    const int len = min(B, a.m - blk * B);
    const long long j0 = (long long)a.s0 + (long long)blk * B, S = f.ld;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line */
    const float *x = in + lane;
    IT u[B];
    double bs;
    if (rb_fz_plain(f, j0, len)) {
#pragma unroll
        for (int j = 0; j < B; ++j)
            if (j < len) u[j] = (IT)__ldg(x + (j0 + j) * S);
    } else {
        rb_fz_load_generic<R, IT>(f, x, S, blk, len, a.cval[lane % a.channels], u, &bs);
    }
    double P[R], E[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        P[k] = (double)RB_FZ_CAR(car1, blk, k);
        E[k] = (double)RB_FZ_CAR(car2, blk, k);
    }
    const double m = a.shift ? (double)mean[lane] : 0.0;
    rb_fz_final<R, IT>(f, u, len, m * f.sumfird, P, E);
    const double back = a.gain * m;
    float *z = out + lane;
#pragma unroll
    for (int j = 0; j < B; ++j) {
        long long jj = j0 + j;
        if (j < len && jj >= 0 && jj < a.n) z[jj * f.ld_out] = (float)((double)u[j] + back);
    }
}

/* The tile of rows row0 .. row0+TR-1, samples j0 .. j0+len-1, into shared
 * memory. The tile's TR * 32c floats are numbered row by row and thread t
 * copies numbers t, t + nthr, ..., 32 of them (TR c = nthr, 128 or 126), all
 * as asynchronous copies (cp.async) issued before the first wait: a thread
 * block has its 16 KB in flight at once (the old loop had each warp load one
 * row segment, store it, and wait out the next latency, 32 times), without
 * 32 registers per thread to hold them, and consecutive threads still read
 * consecutive floats of a row. The (row, column) of each number is stepped,
 * not divided, since 32c need not be a power of two. Floats outside the image
 * or the block are left unset: no thread uses them. The caller syncs. */
template <int C>
static __device__ __forceinline__ void rb_fz_tile_load(const rb_cuda_fz &f, const float *__restrict__ in,
                                                       float *sm, long long row0, long long h, long long j0,
                                                       int len)
{
    const int c = C ? C : f.c, st = RB_FZ_SM_STRIDE(c), W = len * c, W32 = B * c, nthr = C ? 128 : blockDim.x;
    const int drow = nthr / W32, dcol = nthr - drow * W32;
    int r_ = threadIdx.x / W32, col = threadIdx.x - r_ * W32;
    const long long nr = h - row0; /* rows of the image left from row0 */
    const float *src = in + row0 * f.ld + j0 * c;
#pragma unroll
    for (int i = 0; i < B; ++i) {
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

template <int C>
static __device__ __forceinline__ void rb_fz_tile_store(const rb_cuda_fz &f, float *__restrict__ out,
                                                        const float *sm, long long row0, long long h,
                                                        long long j0, int len)
{
    const int c = C ? C : f.c, st = RB_FZ_SM_STRIDE(c), W32 = B * c, nthr = C ? 128 : blockDim.x;
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

/* rows: one thread block = RB_FZ_TR(c) image rows x all channels (lane y*c + k),
 * one block of 32 samples along x */
template <int R, typename CT, typename IT, int C>
__global__ void __launch_bounds__(128)
rb_fz_s1_rows(const rb_cuda_fz f, const float *__restrict__ in, CT *__restrict__ car1,
              CT *__restrict__ car2, float *__restrict__ sums, size_t lanes, unsigned ntile, int skip0,
              int nskip)
{
    __shared__ float sm[RB_FZ_SM_FLOATS];
    const int c = C ? C : f.c, st = RB_FZ_SM_STRIDE(c), t = threadIdx.x, TR = RB_FZ_TR(c);
    /* consecutive thread blocks take consecutive blocks along the same rows, so
     * the blocks resident at a time read whole rows (DRAM pages), not 128 B of
     * each of thousands of rows. nskip > 0: blocks skip0 .. skip0+nskip-1 are
     * skipped (the fused route made their carries) */
    const unsigned nsel = (unsigned)(f.b.nb - nskip);
    const int bsel = (int)(blockIdx.x % nsel);
    const int blk = bsel < skip0 ? bsel : bsel + nskip;
    const unsigned tile = blockIdx.x / nsel;
    const long long h = (long long)(lanes / c), row0 = (long long)tile * TR;
    const int ty = t / c, k = t - (t / c) * c;
    const long long y = row0 + ty;
    const size_t lane = (size_t)y * c + k;
    const rb_cuda_axis &a = f.b.ax;
    const int len = min(B, a.m - blk * B);
    const long long j0 = (long long)a.s0 + (long long)blk * B;
    const int plain = rb_fz_plain(f, j0, len);
    if (plain) {
        rb_fz_tile_load<C>(f, in, sm, row0, h, j0, len);
        __syncthreads();
    }
    if (y >= h) return;
    double bs = 0.0, T[R], H[R];
    if constexpr (std::is_same<IT, float>::value) {
        /* float recursion: in place in the thread's row of the tile */
        const rb_fz_smc<C> u = {sm + ty * st + k, c};
        if (plain) {
            /* volatile: the compiler would otherwise keep all 32 samples in
             * registers for the recursion below (30 more registers, fewer warps) */
            const volatile float *vu = sm + ty * st + k;
            if (a.shift) {
#pragma unroll
                for (int j = 0; j < B; ++j)
                    if (j < len) bs += (double)vu[j * c];
            }
        } else {
            rb_fz_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
        }
        /* a whole in-line block: the dot products, as the columns (rb_cuda_fz.wdot) */
        if (f.wdot && plain && len == B) rb_fz_stage1_dot<R>(f, u, T, H);
        else rb_fz_stage1<R, IT>(f, u, len, T, H);
    } else {
        IT u[B];
        if (plain) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) {
                    u[j] = (IT)sm[ty * st + j * c + k];
                    bs += u[j];
                }
        } else {
            rb_fz_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
        }
        rb_fz_stage1<R, IT>(f, u, len, T, H);
    }
#pragma unroll
    for (int q = 0; q < R; ++q) {
        RB_FZ_CAR(car1, blk, q) = (CT)T[q];
        RB_FZ_CAR(car2, blk, q) = (CT)H[q];
    }
    if (a.shift) RB_FZ_SUM(sums, blk) = (float)bs;
}

template <int R, typename CT, typename IT, int C>
__global__ void __launch_bounds__(128)
rb_fz_final_rows(const rb_cuda_fz f, const float *__restrict__ in, float *__restrict__ out,
                 const CT *__restrict__ car1, const CT *__restrict__ car2,
                 const float *__restrict__ mean, size_t lanes, unsigned ntile)
{
    __shared__ float sm[RB_FZ_SM_FLOATS];
    const int c = C ? C : f.c, st = RB_FZ_SM_STRIDE(c), t = threadIdx.x, TR = RB_FZ_TR(c);
    /* consecutive thread blocks take consecutive blocks along the same rows, so
     * the blocks resident at a time read whole rows (DRAM pages), not 128 B of
     * each of thousands of rows */
    const int blk = (int)(blockIdx.x % (unsigned)f.b.nb);
    const unsigned tile = blockIdx.x / (unsigned)f.b.nb;
    const long long h = (long long)(lanes / c), row0 = (long long)tile * TR;
    const int ty = t / c, k = t - (t / c) * c;
    const long long y = row0 + ty;
    const size_t lane = (size_t)y * c + k;
    const rb_cuda_axis &a = f.b.ax;
    const int len = min(B, a.m - blk * B);
    const long long j0 = (long long)a.s0 + (long long)blk * B;
    if (j0 >= a.n || j0 + len <= 0) return; /* uniform over the thread block */
    const int plain = rb_fz_plain(f, j0, len);
    if (plain) {
        rb_fz_tile_load<C>(f, in, sm, row0, h, j0, len);
        __syncthreads();
    }
    const int valid = y < h;
    double bs;
    if constexpr (std::is_same<IT, float>::value) {
        /* float recursion: in place in the thread's row of the tile (only this
         * thread touches that row until the barrier before the store) */
        if (valid) {
            const rb_fz_smc<C> u = {sm + ty * st + k, c};
            if (!plain) rb_fz_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
            double P[R], E[R];
#pragma unroll
            for (int q = 0; q < R; ++q) {
                P[q] = (double)RB_FZ_CAR(car1, blk, q);
                E[q] = (double)RB_FZ_CAR(car2, blk, q);
            }
            const double m = a.shift ? (double)mean[lane] : 0.0;
            rb_fz_final<R, IT>(f, u, len, m * f.sumfird, P, E);
            const double back = a.gain * m;
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
            } else {
                rb_fz_load_generic<R, IT>(f, in + y * f.ld + k, c, blk, len, a.cval[k], u, &bs);
            }
            double P[R], E[R];
#pragma unroll
            for (int q = 0; q < R; ++q) {
                P[q] = (double)RB_FZ_CAR(car1, blk, q);
                E[q] = (double)RB_FZ_CAR(car2, blk, q);
            }
            const double m = a.shift ? (double)mean[lane] : 0.0;
            rb_fz_final<R, IT>(f, u, len, m * f.sumfird, P, E);
            const double back = a.gain * m;
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
    rb_fz_tile_store<C>(f, out, sm, row0, h, j0, len);
}

/* The column final stage fused with the row stage 1 (RECBLUR_CUDA_FUSE, on
 * by default where it applies: see rb_cuda_fz_fusable). The thread block's
 * column output tile (32 image rows x 128 lanes) is exactly what the row
 * stage 1 reads for 4 / c row blocks of those rows, when the row blocks start
 * at pixel 0 (no padding, no FIR) and 128 lanes hold whole row blocks
 * (c = 1, 2, 4): so the tile goes to shared memory as well as to the output,
 * and the row carries (Tbar, Hbar, block sums) come from it, which saves the
 * row stage 1's read of the whole image. Same floats, same per-block
 * functions and order of sums as rb_fz_s1_rows: the carries are bit-identical
 * to the three-kernel route's. Float carries and float recursion only. */

/* row blocks the fused kernel makes, from pixel 0: all of them on the bare
 * line; with padding (mirror, the plan's padded route) those wholly inside the
 * line (the rest read mirrored samples of other tiles: rb_fz_s1_rows makes
 * them, reading the column output) */
static __host__ __device__ __forceinline__ int rb_fz_fused_nb(const rb_cuda_fz &fr)
{
    return fr.b.ax.padded ? fr.b.ax.n / B : fr.b.nb;
}

template <int R, int C>
__global__ void __launch_bounds__(RB_FZ_COL_THREADS)
rb_fz_final_cols_s1(const rb_cuda_fz f, const rb_cuda_fz fr, const float *__restrict__ in,
                    float *__restrict__ out, const float *__restrict__ car1, const float *__restrict__ car2,
                    const float *__restrict__ mean, size_t lanes, unsigned nlc, float *__restrict__ rcar1,
                    float *__restrict__ rcar2, float *__restrict__ rsums, size_t rlanes)
{
    __shared__ float sm[B * RB_FZ_XS];
    const unsigned lc = blockIdx.x % nlc;
    const int blk = (int)(blockIdx.x / nlc);
    const size_t lane = (size_t)lc * RB_FZ_COL_THREADS + threadIdx.x;
    const rb_cuda_axis &a = f.b.ax;
    const int len = min(B, a.m - blk * B);
    const long long j0 = (long long)a.s0 + (long long)blk * B, S = f.ld;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line: uniform */
    if (lane < lanes) {
        /* the column recursion in place in the thread's column of the tile (as
         * rb_fz_s1_cols): no 32 registers for u, twice the warps per SM to hide
         * the latency of both recursions */
        const float *x = in + lane;
        const rb_fz_smc<RB_FZ_XS> u = {sm + threadIdx.x, 0};
        double bs;
        const int plain = rb_fz_plain(f, j0, len);
        if (plain) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) __pipeline_memcpy_async(sm + j * RB_FZ_XS + threadIdx.x, x + (j0 + j) * S, sizeof(float));
            __pipeline_commit();
        } else if (!rb_fz_load_mirror(f, x, S, j0, len, u, &bs)) {
            rb_fz_load_generic<R, float>(f, x, S, blk, len, a.cval[lane % a.channels], u, &bs);
        }
        double P[R], E[R];
#pragma unroll
        for (int k = 0; k < R; ++k) {
            P[k] = (double)RB_FZ_CAR(car1, blk, k);
            E[k] = (double)RB_FZ_CAR(car2, blk, k);
        }
        const double m = a.shift ? (double)mean[lane] : 0.0;
        if (plain) __pipeline_wait_prior(0);
        rb_fz_final<R, float>(f, u, len, m * f.sumfird, P, E);
        const double back = a.gain * m;
        float *z = out + lane;
#pragma unroll
        for (int j = 0; j < B; ++j) {
            long long jj = j0 + j;
            if (j < len && jj >= 0 && jj < a.n) {
                const float v = (float)((double)u[j] + back);
                z[jj * f.ld_out] = v;
                u[j] = v;
            }
        }
    }
    __syncthreads();
    /* row stage 1: thread = (tile row r, row block q of the tile, channel k) */
    const int c = C ? C : fr.c, t = threadIdx.x, r = t & (B - 1), rest = t / B;
    const int q = rest / c, k = rest - q * c;
    const long long y = j0 + r;
    const rb_cuda_axis &ra = fr.b.ax;
    /* row block q of the tile is block qg of the row's blocks, counted from
     * pixel 0, so the padding's whole blocks come first */
    const int ql = (int)lc * (RB_FZ_COL_THREADS / (B * c)) + q, qg = ql + (-ra.s0) / B;
    if (r >= len || y < 0 || y >= a.n || ql >= rb_fz_fused_nb(fr)) return;
    const int rlen = min(B, ra.m - qg * B);
    const size_t rlane = (size_t)y * c + k;
    const rb_fz_smc<C> u = {sm + r * RB_FZ_XS + q * B * c + k, c};
    double bs = 0.0, T[R], H[R];
    if (ra.shift) {
        const volatile float *vu = sm + r * RB_FZ_XS + q * B * c + k;
#pragma unroll
        for (int j = 0; j < B; ++j)
            if (j < rlen) bs += (double)vu[j * c];
    }
    /* the same floats as rb_fz_s1_rows makes for this block (dot products for
     * whole blocks where the axis allows): the carries stay bit-identical */
    if (fr.wdot && rlen == B) rb_fz_stage1_dot<R>(fr, u, T, H);
    else rb_fz_stage1<R, float>(fr, u, rlen, T, H);
#pragma unroll
    for (int p = 0; p < R; ++p) {
        rcar1[((size_t)qg * R + p) * rlanes + rlane] = T[p];
        rcar2[((size_t)qg * R + p) * rlanes + rlane] = H[p];
    }
    if (ra.shift) rsums[(size_t)qg * rlanes + rlane] = (float)bs;
}

template <int R, typename CT>
__global__ void __launch_bounds__(32)
rb_fz_chain_k(const rb_cuda_fz f, const float *__restrict__ in, CT *__restrict__ car1,
              CT *__restrict__ car2, const float *__restrict__ sums, float *__restrict__ mean,
              size_t lanes)
{
    size_t lane = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    rb_fz_chain<R, CT>(f, in, car1, car2, sums, mean, lanes, lane);
}

/* The parallel chain (rb_cuda_fused.cuh, phases 0-5): a thread block holds
 * 32 lanes x RB_FZ_NG groups; threadIdx.x is the lane (coalesced carries),
 * threadIdx.y the group; the group states meet in shared memory. */
template <int R, typename CT>
__global__ void __launch_bounds__(32 * RB_FZ_NG)
rb_fz_pchain_k(const rb_cuda_fz f, const rb_fz_grp gp, const float *__restrict__ in, CT *__restrict__ car1,
               CT *__restrict__ car2, const float *__restrict__ sums, float *__restrict__ mean, size_t lanes)
{
    __shared__ double sh[RB_FZ_NG * R * 32];
    __shared__ double se[R * 32];
    __shared__ double sm[RB_FZ_NG * 32];
    const int l = threadIdx.x, g = threadIdx.y;
    const size_t lane = (size_t)blockIdx.x * 32 + l;
    const bool ok = lane < lanes;
    double mu = 0.0, v[R];
    if (f.b.ax.shift) {
        if (ok) sm[g * 32 + l] = rb_fz_pc_sum(f, gp, g, sums, lanes, lane);
        __syncthreads();
        if (g == 0 && ok) {
            double s = 0.0;
            for (int q = 0; q < RB_FZ_NG; ++q) s += sm[q * 32 + l];
            const float mf = (float)(s / f.b.ax.n);
            mean[lane] = mf;
            se[l] = (double)mf * f.sumfird;
        }
        __syncthreads();
        mu = se[l];
        __syncthreads(); /* se is reused below */
    } else if (g == 0 && ok) {
        mean[lane] = 0.0f;
    }
    if (ok) {
        rb_fz_pc_zero_c<R, CT>(f, gp, g, car1, mu, lanes, lane, v);
#pragma unroll
        for (int k = 0; k < R; ++k) sh[(g * R + k) * 32 + l] = v[k];
    }
    __syncthreads();
    if (g == 0 && ok) rb_fz_pc_combine_c<R>(f, gp, in, lane, mu, sh + l, 32, se + l, 32);
    __syncthreads();
    if (ok) {
        double S0[R];
#pragma unroll
        for (int k = 0; k < R; ++k) S0[k] = sh[(g * R + k) * 32 + l];
        rb_fz_pc_run_c<R, CT>(f, gp, g, car1, car2, mu, lanes, lane, S0, v);
#pragma unroll
        for (int k = 0; k < R; ++k) sh[(g * R + k) * 32 + l] = v[k];
    }
    __syncthreads();
    if (g == 0 && ok) rb_fz_pc_combine_a<R>(f, gp, sh + l, 32, se + l, 32);
    __syncthreads();
    if (ok) {
#pragma unroll
        for (int k = 0; k < R; ++k) v[k] = sh[(g * R + k) * 32 + l];
        rb_fz_pc_run_a<R, CT>(f, gp, g, car2, lanes, lane, v);
    }
}

/* ------------------------------------------------------------------ host */
/* Host copies of the per-block recursions (same loops as rb_fz_stage1). */
static void rb_fz_host_tail_head(const double *dc, const double *da, int r, const double *u, int len,
                                 const double *p0, double *T, double *H)
{
    double y[B], p[RB_MAX_ORDER];
    for (int k = 0; k < r; ++k) p[k] = p0 ? p0[k] : 0.0;
    for (int j = 0; j < len; ++j) {
        double v = u ? u[j] : 0.0;
        for (int k = 0; k < r; ++k) v -= dc[k] * p[k];
        for (int k = r - 1; k > 0; --k) p[k] = p[k - 1];
        p[0] = v;
        y[j] = v;
    }
    if (T)
        for (int k = 0; k < r; ++k) T[k] = p[k];
    for (int k = 0; k < r; ++k) p[k] = 0.0;
    for (int j = len - 1; j >= 0; --j) {
        double v = y[j];
        for (int k = 0; k < r; ++k) v -= da[k] * p[k];
        for (int k = r - 1; k > 0; --k) p[k] = p[k - 1];
        p[0] = v;
    }
    for (int k = 0; k < r; ++k) H[k] = p[k];
}

/* T1, H1 and G for blocks of `len` samples */
static void rb_fz_block_consts(const rb_axis_plan *ap, int len, double *T1, double *H1, double *G)
{
    const int r = ap->ax.r;
    double ones[B], e[RB_MAX_ORDER], h[RB_MAX_ORDER];
    for (int j = 0; j < B; ++j) ones[j] = 1.0;
    rb_fz_host_tail_head(ap->ax.dc, ap->ax.da, r, ones, len, NULL, T1, H1);
    for (int i = 0; i < r; ++i) {
        for (int k = 0; k < r; ++k) e[k] = k == i;
        rb_fz_host_tail_head(ap->ax.dc, ap->ax.da, r, NULL, len, e, NULL, h);
        for (int k = 0; k < r; ++k) G[k * r + i] = h[k];
    }
}

/* l1 norm of the impulse response of 1 / (1 + sum d_k z^-k) */
static double rb_fz_l1(const double *d, int r)
{
    double p[RB_MAX_ORDER] = {0}, l1 = 0.0, peak = 0.0;
    long last = 0;
    for (long i = 0; i < 4000000L; ++i) {
        double v = i == 0 ? 1.0 : 0.0;
        for (int k = 0; k < r; ++k) v -= d[k] * p[k];
        for (int k = r - 1; k > 0; --k) p[k] = p[k - 1];
        if (r > 0) p[0] = v;
        double a = fabs(v);
        l1 += a;
        if (a > peak) peak = a;
        if (a > 1e-12 * peak) last = i;
        if (i - last > 256 && i - last > last / 4) break;
    }
    return l1;
}

/* Carries in double (and the chain's homogeneous responses step by step) when
 * float states would lose the output: a relative error e in a stored state
 * comes back as about e * l1(impulse response) against an output of dc_gain
 * times the input, so above a ratio of 30 float (6e-8) would reach 2e-6 (poles
 * near -1 with a tiny DC gain; wide Gaussians, whose l1 is 1e4..1e8).
 * RECBLUR_CUDA_CARRY=float or double overrides (tests, benchmarks). */
static int rb_fz_want_double(const rb_axis_plan *ap, const rb_switches *sw)
{
    if (sw->cuda_carry == RB_CARRY_DOUBLE) return 1;
    if (sw->cuda_carry == RB_CARRY_FLOAT) return 0;
    const int r = ap->ax.r;
    /* orders 6-8 always: float in-block recursion and carries of an order-6
     * filter (poles <= 0.8, l1 13, outputs ~500x the input in 2D) were 0.28
     * off near the zero-boundary edges, 71 units of U8 (test_gpu_host on the
     * H100, 2026-11-25; double: within one unit); those orders were the
     * blocked solver's, which recursed in double, and speed is no target there */
    if (r > 5) return 1;
    double lc = rb_fz_l1(ap->ax.dc, r), la = rb_fz_l1(ap->ax.da, r);
    double l1 = lc > la ? lc : la, g = fabs(ap->ax.dc_gain);
    return l1 > 30.0 * (g < 1.0 ? g : 1.0);
}

/* rb_cuda_blk_init with the padding (mirror, the plan's padded route) rounded
 * up to whole blocks: the row blocks inside the line then start at pixel 0,
 * as the fused route needs, and the row tiles read whole 128-byte segments.
 * More padding only lets the transients from the zero states decay further. */
static void rb_fz_blk_init(const rb_axis_plan *ap, int channels, rb_cuda_blk *b)
{
    rb_cuda_blk_init(ap, NULL, channels, NULL, b);
    const int pad = -b->ax.s0;
    if (!b->ax.padded || pad % B == 0 || pad > (1 << 28)) return;
    rb_axis_plan p = *ap;
    p.padded = 1;
    p.pad = (pad + B - 1) / B * B;
    rb_cuda_blk_init(&p, NULL, channels, NULL, b);
}

extern "C" size_t rb_cuda_fz_carry(const rb_axis_plan *ap, const rb_switches *sw)
{
    rb_cuda_blk b;
    rb_fz_blk_init(ap, 1, &b);
    return (size_t)(rb_fz_want_double(ap, sw) ? 4 : 2) * ap->ax.r * (size_t)b.nb + (size_t)b.nb + 1;
}

extern "C" int rb_cuda_fz_init(const rb_axis_plan *ap, int channels, int rows, const rb_switches *sw,
                               rb_cuda_fz *o)
{
    memset(o, 0, sizeof *o);
    const int r = ap->ax.r;
    const int ntaps = ap->ax.fir ? ap->ax.fir_hi - ap->ax.fir_lo + 1 : 0;
    if (r < 1 || r > RB_FZ_MAX_ORDER || ntaps > RB_FZ_TAPS || RB_CUDA_BLOCK != B) return -2;
    rb_fz_blk_init(ap, channels, &o->b); /* the periodic closure from the plan's Pf/Pr */
    double s = 0.0;
    for (int t = 0; t < ntaps; ++t) {
        o->fird[t] = ap->ax.fir[t];
        s += ap->ax.fir[t];
    }
    o->sumfird = ntaps ? s : 1.0;
    rb_fz_block_consts(ap, B, o->T1, o->H1, o->G);
    rb_fz_block_consts(ap, o->b.last_len, o->T1_last, o->H1_last, o->G_last);
    o->rows = rows;
    o->c = channels;
    o->dbl = rb_fz_want_double(ap, sw);
    /* float recursion inside blocks where the carries may be float too (the states
     * stay within 30x the output); RECBLUR_CUDA_INBLOCK=double keeps double */
    o->fin = !o->dbl && !sw->cuda_inblock_double;
    o->seq_chain = sw->cuda_chain_seq;
    {
        /* stage 1 of whole blocks as dot products (RECBLUR_CUDA_S1=rec: the recursion) */
        o->wdot = o->fin && !sw->cuda_s1_recursion;
        for (int j = 0; j < B; ++j) {
            double e[B] = {0}, T[RB_MAX_ORDER], H[RB_MAX_ORDER];
            e[j] = 1.0;
            rb_fz_host_tail_head(ap->ax.dc, ap->ax.da, r, e, B, NULL, T, H);
            for (int k = 0; k < r; ++k) {
                o->Wt[k * B + j] = (float)T[k];
                o->Wh[k * B + j] = (float)H[k];
            }
        }
    }
    return 0;
}

/* the carry arrays of one axis inside its scratch: car1, car2 ([blk][k][lane]), sums, mean */
template <typename CT>
struct rb_fz_bufs {
    CT *car1, *car2;
    float *sums, *mean;
    rb_fz_bufs(const rb_cuda_fz *f, float *carry, size_t lanes, int R)
    {
        const int nb = f->b.nb;
        car1 = (CT *)carry;
        car2 = car1 + (size_t)nb * R * lanes;
        sums = (float *)(car2 + (size_t)nb * R * lanes);
        mean = sums + (size_t)nb * lanes;
    }
};

/* grid of a stage-1 or final launch: n2 lane groups (columns) or row tiles
 * (rows) times nb blocks, bs threads; 0 if it does not fit */
static unsigned rb_fz_grid(const rb_cuda_fz *f, size_t lanes, unsigned *n2, int *bs)
{
    if (f->rows) {
        *n2 = (unsigned)((lanes / f->c + RB_FZ_TR(f->c) - 1) / RB_FZ_TR(f->c));
        *bs = RB_FZ_TR(f->c) * f->c;
    } else {
        *n2 = (unsigned)((lanes + RB_FZ_COL_THREADS - 1) / RB_FZ_COL_THREADS);
        *bs = RB_FZ_COL_THREADS;
    }
    unsigned long long grid = (unsigned long long)*n2 * f->b.nb;
    if (grid > 0x7fffffffull || *n2 == 0) return 0;
    return (unsigned)grid;
}

/* RGBA rows get their own instantiation (channel count known at compile time,
 * as c = 1) for float carries and float recursion, the common case; other
 * types keep the run-time count (fewer kernels to compile) */
template <typename CT, typename IT>
static constexpr bool rb_fz_c4()
{
    return std::is_same<CT, float>::value && std::is_same<IT, float>::value;
}

template <int R, typename CT>
static void rb_fz_chain_launch(const rb_cuda_fz *f, const float *in, const rb_fz_bufs<CT> &m, size_t lanes,
                               cudaStream_t s)
{
    if (f->dbl || f->seq_chain) {
        rb_fz_chain_k<R, CT><<<(unsigned)((lanes + 31) / 32), 32, 0, s>>>(*f, in, m.car1, m.car2, m.sums, m.mean,
                                                                          lanes);
    } else {
        rb_fz_grp gp;
        rb_fz_grp_init(f, &gp);
        rb_fz_pchain_k<R, CT><<<(unsigned)((lanes + 31) / 32), dim3(32, RB_FZ_NG), 0, s>>>(
            *f, gp, in, m.car1, m.car2, m.sums, m.mean, lanes);
    }
}

template <int R, typename CT, typename IT>
static void rb_fz_final_launch(const rb_cuda_fz *f, const float *in, float *out, const rb_fz_bufs<CT> &m,
                               size_t lanes, unsigned grid, unsigned n2, int bs, cudaStream_t s)
{
    if (f->rows && f->c == 1)
        rb_fz_final_rows<R, CT, IT, 1><<<grid, bs, 0, s>>>(*f, in, out, m.car1, m.car2, m.mean, lanes, n2);
    else if (f->rows && f->c == 4 && rb_fz_c4<CT, IT>())
        rb_fz_final_rows<R, CT, IT, rb_fz_c4<CT, IT>() ? 4 : 0><<<grid, bs, 0, s>>>(*f, in, out, m.car1, m.car2, m.mean,
                                                                                      lanes, n2);
    else if (f->rows)
        rb_fz_final_rows<R, CT, IT, 0><<<grid, bs, 0, s>>>(*f, in, out, m.car1, m.car2, m.mean, lanes, n2);
    else rb_fz_final_cols<R, CT, IT><<<grid, bs, 0, s>>>(*f, in, out, m.car1, m.car2, m.mean, lanes, n2);
}

template <int R, typename CT, typename IT>
static cudaError_t rb_fz_launch(const rb_cuda_fz *f, const float *in, float *out, float *carry,
                                size_t lanes, cudaStream_t s, cudaEvent_t *ev)
{
    unsigned n2;
    int bs;
    const unsigned grid = rb_fz_grid(f, lanes, &n2, &bs);
    if (!grid) return cudaErrorInvalidConfiguration;
    const rb_fz_bufs<CT> m(f, carry, lanes, R);
    if (f->rows && f->c == 1)
        rb_fz_s1_rows<R, CT, IT, 1><<<grid, bs, 0, s>>>(*f, in, m.car1, m.car2, m.sums, lanes, n2, 0, 0);
    else if (f->rows && f->c == 4 && rb_fz_c4<CT, IT>())
        rb_fz_s1_rows<R, CT, IT, rb_fz_c4<CT, IT>() ? 4 : 0><<<grid, bs, 0, s>>>(*f, in, m.car1, m.car2, m.sums, lanes,
                                                                                   n2, 0, 0);
    else if (f->rows) rb_fz_s1_rows<R, CT, IT, 0><<<grid, bs, 0, s>>>(*f, in, m.car1, m.car2, m.sums, lanes, n2, 0, 0);
    else rb_fz_s1_cols<R, CT, IT><<<grid, bs, 0, s>>>(*f, in, m.car1, m.car2, m.sums, lanes, n2);
    if (ev) cudaEventRecord(ev[0], s);
    rb_fz_chain_launch<R, CT>(f, in, m, lanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    rb_fz_final_launch<R, CT, IT>(f, in, out, m, lanes, grid, n2, bs, s);
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

template <int R>
static cudaError_t rb_fz_launch_ct(const rb_cuda_fz *f, const float *in, float *out, float *carry,
                                   size_t lanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (f->dbl) return rb_fz_launch<R, double, double>(f, in, out, carry, lanes, s, ev);
    return f->fin ? rb_fz_launch<R, float, float>(f, in, out, carry, lanes, s, ev)
                  : rb_fz_launch<R, float, double>(f, in, out, carry, lanes, s, ev);
}

extern "C" cudaError_t rb_cuda_solve_fused(const rb_cuda_fz *f, const float *in, float *out,
                                           float *carry, size_t lanes, cudaStream_t s, cudaEvent_t *ev)
{
    switch (f->b.ax.r) {
    case 1: return rb_fz_launch_ct<1>(f, in, out, carry, lanes, s, ev);
    case 2: return rb_fz_launch_ct<2>(f, in, out, carry, lanes, s, ev);
    case 3: return rb_fz_launch_ct<3>(f, in, out, carry, lanes, s, ev);
    case 4: return rb_fz_launch_ct<4>(f, in, out, carry, lanes, s, ev);
    case 5: return rb_fz_launch_ct<5>(f, in, out, carry, lanes, s, ev);
    case 6: return rb_fz_launch_ct<6>(f, in, out, carry, lanes, s, ev);
    case 7: return rb_fz_launch_ct<7>(f, in, out, carry, lanes, s, ev);
    case 8: return rb_fz_launch_ct<8>(f, in, out, carry, lanes, s, ev);
    default: return cudaErrorInvalidValue;
    }
}

/* ---- columns with the row stage 1 fused into their final stage ---------- */

/* Whether the fused route covers this pair of axes (see rb_fz_final_cols_s1):
 * the same order, float carries and float recursion on both, 1, 2 or 4
 * channels, and row blocks from pixel 0 over the bare line (no FIR, no
 * padding, no 2n-periodic mirror). */
extern "C" int rb_cuda_fz_fusable(const rb_cuda_fz *fc, const rb_cuda_fz *fr)
{
    const rb_cuda_axis &a = fc->b.ax, &ra = fr->b.ax;
    if (fc->rows || !fr->rows || fc->c != fr->c) return 0;
    if (fc->c != 1 && fc->c != 2 && fc->c != 4) return 0;
    if (a.r != ra.r || a.r < 1 || a.r > RB_FZ_MAX_ORDER) return 0;
    if (fc->dbl || fr->dbl || !fc->fin || !fr->fin) return 0;
    if (ra.ntaps != 0 || ra.via_periodic) return 0;
    if (ra.padded) return ra.s0 <= 0 && (-ra.s0) % B == 0 && ra.m == ra.n - 2 * ra.s0;
    return ra.s0 == 0 && ra.m == ra.n;
}

/* Whether the fused route runs: RECBLUR_CUDA_FUSE=off never (the three-kernel
 * route on both axes), =on wherever it covers the axes; by default where it
 * measured faster on the H100 (bench/RESULTS.md, fourth session, both routes
 * timed in the same run): everywhere but padded rows (mirror) above order 1,
 * where the fused column final plus the separate launch for the padding's row
 * blocks cost more than the row stage 1 they save at 4096^2 (order 3 mirror
 * 0.303 vs 0.287 ms, order 5 0.379 vs 0.349; at 8192^2 3 % less). */
extern "C" int rb_cuda_fz_fuse_want(const rb_cuda_fz *fc, const rb_cuda_fz *fr, int force)
{
    if (!rb_cuda_fz_fusable(fc, fr)) return 0;
    if (force == RB_FORCE_OFF) return 0;
    if (force == RB_FORCE_ON) return 1;
    return !(fr->b.ax.padded && fc->b.ax.r > 1);
}

template <int R>
static cudaError_t rb_fz_launch_cols_s1(const rb_cuda_fz *fc, const rb_cuda_fz *fr, const float *in, float *mid,
                                        float *ccarry, float *rcarry, size_t lanes, size_t rlanes,
                                        cudaStream_t s, cudaEvent_t *ev)
{
    unsigned n2;
    int bs;
    const unsigned grid = rb_fz_grid(fc, lanes, &n2, &bs);
    if (!grid) return cudaErrorInvalidConfiguration;
    const rb_fz_bufs<float> m(fc, ccarry, lanes, R), rm(fr, rcarry, rlanes, R);
    rb_fz_s1_cols<R, float, float><<<grid, bs, 0, s>>>(*fc, in, m.car1, m.car2, m.sums, lanes, n2);
    if (ev) cudaEventRecord(ev[0], s);
    rb_fz_chain_launch<R, float>(fc, in, m, lanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    if (fc->c == 1)
        rb_fz_final_cols_s1<R, 1><<<grid, bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.mean, lanes, n2,
                                                      rm.car1, rm.car2, rm.sums, rlanes);
    else if (fc->c == 4)
        rb_fz_final_cols_s1<R, 4><<<grid, bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.mean, lanes, n2,
                                                      rm.car1, rm.car2, rm.sums, rlanes);
    else
        rb_fz_final_cols_s1<R, 0><<<grid, bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.mean, lanes, n2,
                                                      rm.car1, rm.car2, rm.sums, rlanes);
    const int nf = rb_fz_fused_nb(*fr), nrest = fr->b.nb - nf;
    if (nrest > 0) {
        /* the row blocks of the padding and the one across the line's end */
        unsigned rn2;
        int rbs;
        if (!rb_fz_grid(fr, rlanes, &rn2, &rbs)) return cudaErrorInvalidConfiguration;
        const unsigned rgrid = rn2 * (unsigned)nrest, skip0 = (unsigned)((-fr->b.ax.s0) / B);
        if (fr->c == 1)
            rb_fz_s1_rows<R, float, float, 1><<<rgrid, rbs, 0, s>>>(*fr, mid, rm.car1, rm.car2, rm.sums, rlanes, rn2,
                                                                    (int)skip0, nf);
        else if (fr->c == 4)
            rb_fz_s1_rows<R, float, float, 4><<<rgrid, rbs, 0, s>>>(*fr, mid, rm.car1, rm.car2, rm.sums, rlanes, rn2,
                                                                    (int)skip0, nf);
        else
            rb_fz_s1_rows<R, float, float, 0><<<rgrid, rbs, 0, s>>>(*fr, mid, rm.car1, rm.car2, rm.sums, rlanes, rn2,
                                                                    (int)skip0, nf);
    }
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

template <int R>
static cudaError_t rb_fz_launch_rows_rest(const rb_cuda_fz *fr, const float *mid, float *out, float *rcarry,
                                          size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    unsigned n2;
    int bs;
    const unsigned grid = rb_fz_grid(fr, rlanes, &n2, &bs);
    if (!grid) return cudaErrorInvalidConfiguration;
    const rb_fz_bufs<float> m(fr, rcarry, rlanes, R);
    if (ev) cudaEventRecord(ev[0], s); /* no row stage 1 of its own */
    rb_fz_chain_launch<R, float>(fr, mid, m, rlanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    rb_fz_final_launch<R, float, float>(fr, mid, out, m, rlanes, grid, n2, bs, s);
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

/* Columns in -> mid, with the row carries into rcarry (the row pass's own
 * scratch, distinct from ccarry); then rb_cuda_solve_fused_rows finishes. */
extern "C" cudaError_t rb_cuda_solve_fused_cols(const rb_cuda_fz *fc, const rb_cuda_fz *fr, const float *in,
                                                float *mid, float *ccarry, float *rcarry, size_t lanes,
                                                size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (!rb_cuda_fz_fusable(fc, fr)) return cudaErrorInvalidValue;
    switch (fc->b.ax.r) {
    case 1: return rb_fz_launch_cols_s1<1>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 2: return rb_fz_launch_cols_s1<2>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 3: return rb_fz_launch_cols_s1<3>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 4: return rb_fz_launch_cols_s1<4>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 5: return rb_fz_launch_cols_s1<5>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 6: return rb_fz_launch_cols_s1<6>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 7: return rb_fz_launch_cols_s1<7>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    case 8: return rb_fz_launch_cols_s1<8>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t rb_cuda_solve_fused_rows(const rb_cuda_fz *fr, const float *mid, float *out, float *rcarry,
                                                size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    switch (fr->b.ax.r) {
    case 1: return rb_fz_launch_rows_rest<1>(fr, mid, out, rcarry, rlanes, s, ev);
    case 2: return rb_fz_launch_rows_rest<2>(fr, mid, out, rcarry, rlanes, s, ev);
    case 3: return rb_fz_launch_rows_rest<3>(fr, mid, out, rcarry, rlanes, s, ev);
    case 4: return rb_fz_launch_rows_rest<4>(fr, mid, out, rcarry, rlanes, s, ev);
    case 5: return rb_fz_launch_rows_rest<5>(fr, mid, out, rcarry, rlanes, s, ev);
    case 6: return rb_fz_launch_rows_rest<6>(fr, mid, out, rcarry, rlanes, s, ev);
    case 7: return rb_fz_launch_rows_rest<7>(fr, mid, out, rcarry, rlanes, s, ev);
    case 8: return rb_fz_launch_rows_rest<8>(fr, mid, out, rcarry, rlanes, s, ev);
    default: return cudaErrorInvalidValue;
    }
}
