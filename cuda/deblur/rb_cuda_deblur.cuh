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
#include "rb_cuda_extend.cuh"

/* Lanes: 4 quadrants x up to 4 channels. */
#define RB_DQ_MAX_LANES 16
/* A strip publishes its progress, and reads its halo from the left
 * neighbour, every this many steps (one fence and one wait each). */
#define RB_DQ_BATCH 4

typedef struct {
    int W, H, ch;              /* image */
    int P;                     /* margin (leading sides) */
    int mode;                  /* rb_boundary_mode */
    float cval[4];             /* constant-boundary working value per channel */
    int Hp, Wp;                /* extended canonical grid */
    int S, G;                  /* strip width (threads per group), groups per block */
    int halo;                  /* window reach: max extent - 1 (< S) */
    int R;                     /* ring rows (power of two >= 2 (halo + 1) + RB_DQ_BATCH) */
    int nstrips, lanes, nsteps;
    int ra[4], ca[4], rb[4], cb[4];  /* used extents of a and b per quadrant */
    int aoff[4], boff[4];      /* float offsets of a_q and b_q in coef */
    int cmax;                  /* max over q of ra pad4(ca) + rb pad4(cb) (shared-memory copy) */
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
/* Extended input of lane (q, cc) at canonical (i, j), 0 <= i < Hp, 0 <= j < Wp. */
__device__ __forceinline__ float rb_dq_x(const rb_dq_args &A, const float *img, int q, int cc,
                                         int i, int j)
{
    int ci = i - A.P, cj = j - A.P;
    int r = rb_ext_index<int>((q & 2) ? A.H - 1 - ci : ci, A.H, A.mode);
    int c = rb_ext_index<int>((q & 1) ? A.W - 1 - cj : cj, A.W, A.mode);
    if (r < 0 || c < 0) return A.cval[cc];
    return img[((size_t)r * A.W + c) * A.ch + cc];
}

/* sum_c k[c] v[-c] for c = c0 .. n-1, even c into s0 and odd c into s1, in
 * increasing c (two FMA chains in flight). VEC: k is 16-byte aligned and
 * read four at a time (one broadcast shared-memory load for four taps);
 * the arithmetic, and so every bit of the result, is the same either way. */
template <bool VEC>
__device__ __forceinline__ void rb_dq_row(const float *k, const float *v, int c0, int n, float &s0,
                                          float &s1)
{
    int c = c0;
    if (c & 1) {
        if (c < n) s1 = fmaf(k[c], v[-c], s1);
        c++;
    }
    if (VEC) {
        if ((c & 2) && c + 1 < n) {
            s0 = fmaf(k[c], v[-c], s0);
            s1 = fmaf(k[c + 1], v[-c - 1], s1);
            c += 2;
        }
        for (; c + 3 < n; c += 4) {
            const float4 q = *reinterpret_cast<const float4 *>(k + c);
            s0 = fmaf(q.x, v[-c], s0);
            s1 = fmaf(q.y, v[-c - 1], s1);
            s0 = fmaf(q.z, v[-c - 2], s0);
            s1 = fmaf(q.w, v[-c - 3], s1);
        }
    }
    for (; c + 1 < n; c += 2) {
        s0 = fmaf(k[c], v[-c], s0);
        s1 = fmaf(k[c + 1], v[-c - 1], s1);
    }
    if (c < n) s0 = fmaf(k[c], v[-c], s0);
}

/* Group g's share of pixel (i, j): the rows r = g, g + G, ... of the FIR
 * window on x and of the recursive window on y (origin excluded). a, b: the
 * quadrant's coefficients (ra x ca with row stride lda, rb x cb with ldb);
 * xr(r) and yr(r) point at x(i - r, j) and y(i - r, j); columns go left by
 * [-c]. VEC needs lda, ldb multiples of 4 and 16-byte aligned a, b. */
template <bool VEC, class XRow, class YRow>
__device__ __forceinline__ float rb_dq_partial(const float *a, int lda, const float *b, int ldb,
                                               int ra, int ca, int rb, int cb, int g, int G,
                                               XRow xr, YRow yr)
{
    const int rows = ra > rb ? ra : rb;
    float x0 = 0.f, x1 = 0.f, y0 = 0.f, y1 = 0.f;
    for (int r = g; r < rows; r += G) {
        if (r < ra) rb_dq_row<VEC>(a + r * lda, xr(r), 0, ca, x0, x1);
        if (r < rb) rb_dq_row<VEC>(b + r * ldb, yr(r), r == 0 ? 1 : 0, cb, y0, y1);
    }
    return (x0 + x1) + (y0 + y1);
}

/* Row stride of a coefficient window in the kernel's shared-memory copy. */
static inline __host__ __device__ int rb_dq_pad4(int n) { return (n + 3) & ~3; }

#endif
