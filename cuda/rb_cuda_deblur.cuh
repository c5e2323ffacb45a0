/* The quadrant deblur filter on the GPU: what the library's kernels
 * (rb_cuda_deblur.cu) and the benchmark's fixed-allocation baseline
 * (bench/deblur_gpu_bench.cu) share, so both compute every pixel with the
 * same operations in the same order.
 *
 * Geometry. Each (channel, quadrant) pair is a "lane", run in the canonical
 * orientation (scan from the top-left) over the extended grid of Hp = P + H
 * rows and Wp = P + W columns (P = the plan's margin; canonical row i is image
 * row i - P read from the quadrant's corner). Columns are cut into strips of
 * S threads. Inside a strip the threads are skewed: at step tau, thread t
 * computes pixel (tau - t, j0 + t). Every pixel of the quadrant window
 * (up and to the left) was then computed at an earlier step, so one barrier
 * per step orders a whole strip. A strip reads the m - 1 columns left of it
 * (its halo) from its left neighbour, which computes column j0 - 1 at row tau
 * at step tau + S - 1: strip s may run step tau once strip s - 1 has finished
 * S more steps. Nikonorov, Fursov, Yakimov, conditions (9)-(10): a block
 * takes the next strip whose left neighbour has progressed far enough. */
#ifndef RB_CUDA_DEBLUR_CUH
#define RB_CUDA_DEBLUR_CUH

#include <cuda_runtime.h>
extern "C" {
#include "deblur_internal.h"
}

/* Lanes: 4 quadrants x up to 4 channels. */
#define RB_DQ_MAX_LANES 16
/* A strip publishes its progress every this many steps (one fence each). */
#define RB_DQ_PUBLISH 4

typedef struct {
    int W, H, ch;              /* image */
    int P;                     /* margin (leading sides) */
    int mode;                  /* rb_boundary_mode */
    float cval[4];             /* constant-boundary working value per channel */
    int Hp, Wp;                /* extended canonical grid */
    int S, G;                  /* strip width (threads per group), groups per block */
    int halo;                  /* window reach: max extent - 1 (< S) */
    int R;                     /* ring rows (power of two >= 2 (halo + 1)) */
    int nstrips, lanes, nsteps;
    int ra[4], ca[4], rb[4], cb[4];  /* used extents of a and b per quadrant */
    int aoff[4], boff[4];      /* float offsets of a_q and b_q in coef */
    const float *coef;         /* device */
} rb_dq_args;

/* Fill from a plan (coef: device pointer holding rb_cuda_deblur_pack's floats).
 * S, G, R follow from the window. */
void rb_cuda_deblur_args(const rb_deblur_plan *p, const float *coef, const float cval[4],
                         rb_dq_args *a);
/* Floats rb_cuda_deblur_pack writes (all quadrants' a then b). */
size_t rb_cuda_deblur_coef_count(const rb_deblur_plan *p);
void rb_cuda_deblur_pack(const rb_deblur_plan *p, float *host);
/* Dynamic shared memory of the flexible kernel, bytes. */
size_t rb_cuda_deblur_smem(const rb_dq_args *a);
/* Ints of the synchronisation area: ticket + progress per (lane, strip); zero
 * it before each launch. */
size_t rb_cuda_deblur_sync_count(const rb_dq_args *a);
/* Blocks the flexible kernel can keep resident (occupancy x SMs), capped at
 * the number of strips; the kernel is correct for any grid >= 1. */
cudaError_t rb_cuda_deblur_grid(const rb_dq_args *a, int *grid);
/* The flexible single-launch filter: img (interleaved floats, W x H x ch) ->
 * Y (lanes planes of Hp x Wp, canonical orientation, no guard). sync must be
 * zero. sync[0] is the ticket; sync[1] is set to 1 if a strip waited too long
 * for its neighbour (a hang turned into an error). */
cudaError_t rb_cuda_deblur_flexible(const rb_dq_args *a, const float *img, float *Y, int *sync,
                                    int grid, cudaStream_t s);
/* out (interleaved W x H x ch) = sum over quadrants of Y, flipped back. Y of
 * lane l at canonical (i, j) lives at Y[l * plane + (i + off) * pitch + j + off]. */
cudaError_t rb_cuda_deblur_combine(const rb_dq_args *a, const float *Y, size_t plane, size_t pitch,
                                   int off, float *out, cudaStream_t s);

/* ----------------------------------------------------- device helpers */
/* Index of the boundary extension of k in [0, n); -1 for "the constant". */
__device__ __forceinline__ int rb_dq_ext(int k, int n, int mode)
{
    if (k >= 0 && k < n) return k;
    switch (mode) {
    case RB_BOUNDARY_CLAMP: return k < 0 ? 0 : n - 1;
    case RB_BOUNDARY_PERIODIC: k %= n; return k < 0 ? k + n : k;
    case RB_BOUNDARY_MIRROR:
        k %= 2 * n;
        if (k < 0) k += 2 * n;
        return k < n ? k : 2 * n - 1 - k;
    default: return -1;
    }
}

/* Extended input of lane (q, cc) at canonical (i, j), 0 <= i < Hp, 0 <= j < Wp. */
__device__ __forceinline__ float rb_dq_x(const rb_dq_args &A, const float *img, int q, int cc,
                                         int i, int j)
{
    int ci = i - A.P, cj = j - A.P;
    int r = rb_dq_ext((q & 2) ? A.H - 1 - ci : ci, A.H, A.mode);
    int c = rb_dq_ext((q & 1) ? A.W - 1 - cj : cj, A.W, A.mode);
    if (r < 0 || c < 0) return A.cval[cc];
    return img[((size_t)r * A.W + c) * A.ch + cc];
}

/* Group g's share of pixel (i, j): the rows r = g, g + G, ... of the FIR
 * window on x and of the recursive window on y (origin excluded). xr(r) and
 * yr(r) point at x(i - r, j) and y(i - r, j); columns go left by [-r2].
 * Two accumulators (FIR, recursive) keep two FMA chains in flight. */
template <class XRow, class YRow>
__device__ __forceinline__ float rb_dq_partial(const rb_dq_args &A, int q, int g, XRow xr, YRow yr)
{
    const float *a = A.coef + A.aoff[q], *b = A.coef + A.boff[q];
    const int ra = A.ra[q], ca = A.ca[q], rb = A.rb[q], cb = A.cb[q];
    const int rows = ra > rb ? ra : rb;
    float sx = 0.f, sy = 0.f;
    for (int r = g; r < rows; r += A.G) {
        if (r < ra) {
            const float *ar = a + r * ca, *x = xr(r);
#pragma unroll 4
            for (int r2 = 0; r2 < ca; r2++) sx = fmaf(__ldg(ar + r2), x[-r2], sx);
        }
        if (r < rb) {
            const float *br = b + r * cb, *y = yr(r);
#pragma unroll 4
            for (int k2 = r == 0 ? 1 : 0; k2 < cb; k2++) sy = fmaf(__ldg(br + k2), y[-k2], sy);
        }
    }
    return sx + sy;
}

#endif
