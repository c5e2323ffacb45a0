/* What the tiled solver's kernels share: launch geometry, the shared-memory
 * layouts of column and row tiles, and the test for a block that needs no
 * extension and no FIR. */
#ifndef RB_TILED_KERNELS_CUH
#define RB_TILED_KERNELS_CUH

#include "rb_tiled_chain.cuh"
#include <cuda_pipeline.h>
#include <type_traits>

/* B: samples per block, in every kernel */
#define B RB_TILED_B
#define RB_TILED_COL_THREADS 128
/* a column tile in shared memory: 32 samples x 128 lanes, odd stride so that a
 * warp walking 32 columns (or 32 rows) hits 32 banks */
#define RB_TILED_XS (RB_TILED_COL_THREADS + 1)
/* rows: a thread block holds RB_TILED_TR(c) image rows x 32 pixels x c channels,
 * one thread per (row, channel); a tile row's stride of 33 c floats is c (mod 32),
 * so the 32 threads of a warp (consecutive (row, channel) pairs) hit 32 banks */
#define RB_TILED_TR(c) (128 / (c))
#define RB_TILED_SM_STRIDE(c) (33 * (c))
#define RB_TILED_SM_FLOATS (128 * 33)
/* a row tile with a FIR (rb_tiled_fir_tiled): up to 32 + RB_TILED_HALO pixels of
 * each row, stride 41 c (41 = 9 mod 32, prime to 32: 32 consecutive rows still
 * hit 32 banks for c = 1, 2, 4); the row kernels take their tile as dynamic
 * shared memory, so filters without a FIR keep the smaller one */
#define RB_TILED_SM_STRIDE_FIR(c) ((B + RB_TILED_HALO + 1) * (c))
#define RB_TILED_SM_FLOATS_FIR (128 * (B + RB_TILED_HALO + 1))

/* a thread's row of the tile with the channel count known at compile time
 * (C = 1: the row kernels are bound by instruction issue, and a runtime
 * stride costs an address computation per access); C = 0: f.c at run time */
template <int C>
struct rb_tiled_smc {
    float *p;
    int c;
    __device__ __forceinline__ float &operator[](int j) const { return p[j * (C ? C : c)]; }
};

/* whether block blk lies inside the line and needs no FIR: read x directly */
static __device__ __forceinline__ int rb_tiled_plain(const rb_cuda_tiled &f, long long j0, int len)
{
    return f.b.ax.ntaps == 0 && j0 >= 0 && j0 + len <= f.b.ax.n;
}

/* where a column kernel's thread works: its lane and block blk of the line,
 * len samples from sample j0 (the last block may be short); a lane past the
 * last one is the caller's to skip */
struct rb_tiled_col_at {
    int blk;
    size_t lane;
    int len;
    long long j0;
};
static __device__ __forceinline__ rb_tiled_col_at rb_tiled_col_thread(const rb_cuda_tiled &f, unsigned nlc)
{
    const int blk = (int)(blockIdx.x / nlc);
    const long long j0 = (long long)f.b.ax.s0 + (long long)blk * B;
    return {blk, (size_t)(blockIdx.x % nlc) * RB_TILED_COL_THREADS + threadIdx.x, min(B, f.b.ax.m - blk * B), j0};
}

/* where a row kernel's thread works: tile row ty (image row y of h, the tile
 * starting at row0), channel k, lane y c + k, and block blk of the row, len
 * samples from sample j0 */
struct rb_tiled_row_at {
    long long h, row0;
    int ty, k;
    long long y;
    size_t lane;
    int len;
    long long j0;
};
static __device__ __forceinline__ rb_tiled_row_at rb_tiled_row_thread(const rb_cuda_tiled &f, int c, int TR, size_t lanes,
                                                                     unsigned tile, int blk)
{
    const long long row0 = (long long)tile * TR;
    const int t = threadIdx.x, ty = t / c, k = t - (t / c) * c;
    const long long y = row0 + ty;
    return {(long long)(lanes / c), row0, ty, k, y, (size_t)y * c + k, min(B, f.b.ax.m - blk * B),
            (long long)f.b.ax.s0 + (long long)blk * B};
}

/* stage 1's results for one lane and block: the R tail and head carries (Tbar,
 * Hbar, stored as CT) and, when the mean is shifted out, the block's sum */
template <int R, typename CT>
static __device__ __forceinline__ void rb_tiled_put_carries(const rb_cuda_axis &a, CT *__restrict__ car1,
                                                          CT *__restrict__ car2, float *__restrict__ sums, int blk,
                                                          const double (&T)[R], const double (&H)[R], double bs,
                                                          size_t lanes, size_t lane)
{
#pragma unroll
    for (int k = 0; k < R; ++k) {
        RB_TILED_CAR(car1, blk, k) = (CT)T[k];
        RB_TILED_CAR(car2, blk, k) = (CT)H[k];
    }
    if (a.shift) RB_TILED_SUM(sums, blk) = (float)bs;
}

#endif
