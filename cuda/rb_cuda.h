/* CUDA back end, internal: what the launchers in the cuda/ sources share. The
 * per-line solver runs the exact infinite-extension algorithm of the 2016
 * paper on "lanes": lane l, sample i lives at buf[i * lanes + l], so a warp's
 * 32 lanes read 32 consecutive floats (coalesced) at every step. */
#ifndef RB_CUDA_H
#define RB_CUDA_H

#include "rb_internal.h"
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One axis as the device solver needs it (passed to kernels by value). */
typedef struct {
    int n;              /* line length */
    int s0, m;          /* the passes run over extended samples s0 .. s0+m-1 */
    int mode;           /* rb_boundary_mode */
    int via_periodic;   /* mirror on a non-symmetric axis: m = 2n periodic route */
    int padded;         /* the plan's padded route: zero states `pad` samples beyond each end */
    int shift;          /* filter x - mean(x), add gain * mean back (as line_solver.c): the
                           states then carry no huge DC response of poles near 1 */
    double gain;        /* the axis' DC gain sum(fir) / ((1 + sum dc)(1 + sum da)) */
    int r;              /* common order of both passes */
    int fir_lo, ntaps;  /* ntaps == 0: identity FIR */
    const float *fir;   /* device taps */
    float sumfir;       /* sum of taps (1 for identity) */
    int channels;       /* lane l carries channel l % channels */
    float cval[4];      /* constant mode: the working value outside, per channel */
    int has_c, has_a;   /* causal / anticausal pass present */
    double anticausal_dc;
    float dc[RB_MAX_ORDER], da[RB_MAX_ORDER];
    double dcd[RB_MAX_ORDER], dad[RB_MAX_ORDER];  /* the blocked solver recurs in double */
    double prologue_dc;
    double M44[RB_MAX_ORDER * RB_MAX_ORDER], v44[RB_MAX_ORDER];
    double Pf[RB_MAX_ORDER * RB_MAX_ORDER], Pr[RB_MAX_ORDER * RB_MAX_ORDER];
    double M67z[RB_MAX_ORDER * RB_MAX_ORDER], M67y[RB_MAX_ORDER * RB_MAX_ORDER];
    double M72[RB_MAX_ORDER * RB_MAX_ORDER];
} rb_cuda_axis;

/* Fill a device axis from the engine's plan (taps must already be on the device). */
void rb_cuda_axis_from_plan(const rb_axis_plan *ap, const float *dev_fir, int channels,
                            const float *cval, rb_cuda_axis *out);
/* Scratch floats per lane the solver needs for this axis (m). */
int rb_cuda_axis_scratch(const rb_axis_plan *ap);

/* Solve every lane: in -> out (may alias), ybuf holds lanes * m floats. */
cudaError_t rb_cuda_solve_lanes(const rb_cuda_axis *ax, const float *in, float *out,
                                float *ybuf, size_t lanes, cudaStream_t s);

/* Block-parallel solver (rb_cuda_blocked.cu): each line is cut into blocks of
 * RB_CUDA_BLOCK samples; one thread per (lane, block) computes the block's
 * zero-initialised tail, a light per-lane pass chains the carries exactly
 * (boundary feedbacks injected at the line ends), and a final pass recomputes
 * every block from its true initial states. Same function as the per-lane
 * solver. States use the solver's convention: causal [y_{i-1} .. y_{i-r}],
 * anticausal [z_{i+1} .. z_{i+r}]. */
#define RB_CUDA_BLOCK 32
typedef struct {
    rb_cuda_axis ax;
    int nb, last_len;         /* blocks per line, samples in the last block */
    int periodic_like;        /* periodic, and mirror (always its 2n-periodic route here) */
    double Mc[RB_MAX_ORDER * RB_MAX_ORDER], Mc_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Ma[RB_MAX_ORDER * RB_MAX_ORDER], Ma_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Qc[RB_MAX_ORDER * RB_MAX_ORDER], Qa[RB_MAX_ORDER * RB_MAX_ORDER];
} rb_cuda_blk;

/* Fill from the engine's axis plan; 0 on success, -1 if a matrix is singular. */
int rb_cuda_blk_init(const rb_axis_plan *ap, const float *dev_fir, int channels, const float *cval,
                     rb_cuda_blk *out);
/* Carry floats per lane the blocked solver needs. */
size_t rb_cuda_blk_carry(const rb_axis_plan *ap);
/* in -> out (must not alias), carry: lanes * rb_cuda_blk_carry floats. */
cudaError_t rb_cuda_solve_blocked(const rb_cuda_blk *b, const float *in, float *out, float *carry,
                                  size_t lanes, cudaStream_t s);

/* The back end's per-plan state (rb_cuda_backend.cu makes it at plan time). */
typedef struct {
    int device;
    cudaStream_t stream;
    float *A, *B, *ybuf;       /* two full float images and the solver scratch */
    int naive;                 /* RECBLUR_CUDA_SOLVER=lanes: the one-thread-per-line solver
                                  (the benchmark's baseline); default: block-parallel */
    float *fir_x, *fir_y;
    rb_cuda_blk bcol, brow;    /* per-axis solver parameters (constants set per execute) */
    size_t floats;             /* w * h * channels */
} rb_cuda_state;

/* One axis over `lanes` interleaved lines: in -> out (distinct buffers), with
 * the plan's solver (block-parallel, or the per-lane baseline). */
cudaError_t rb_cuda_axis_pass(const rb_cuda_state *s, rb_cuda_blk *blk, const rb_axis_plan *ap,
                              const float *fir, int c, const float *cval, const float *in,
                              float *out, size_t lanes, cudaStream_t q);

/* rb_backend_ops.recurrence_1d (rb_cuda_recurrence.cu). */
rb_status rb_cuda_recurrence_1d(rb_plan *plan, const float *in, float *out, size_t n, rb_memory mem);

/* rb_sat on the device (rb_cuda_sat.cu). */
rb_status rb_cuda_sat(rb_context *ctx, const rb_image *in, rb_image *out);

/* Pixel plumbing (rb_cuda_pixels.cu). */
typedef struct {
    int width, height, channels;
    rb_format format;
    size_t pitch;        /* bytes between rows */
    int alpha;           /* rb_alpha */
    int linear;          /* decode/encode sRGB on colour channels */
} rb_cuda_pixels;

/* raw samples -> packed float (premultiplied / linearised as asked) */
cudaError_t rb_cuda_load(const rb_cuda_pixels *p, const void *raw, float *dst, cudaStream_t s);
/* packed float -> raw samples (rounded and clamped for U8/U16) */
cudaError_t rb_cuda_store(const rb_cuda_pixels *p, const float *src, void *raw, cudaStream_t s);
/* packed h x w pixels of c floats -> w x h */
cudaError_t rb_cuda_transpose(const float *src, float *dst, int w, int h, int c, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
