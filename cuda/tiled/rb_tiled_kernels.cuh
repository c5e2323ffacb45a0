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

#endif
