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
    int periodic_like;        /* periodic (mirror always goes by padding in this solver) */
    double Mc[RB_MAX_ORDER * RB_MAX_ORDER], Mc_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Ma[RB_MAX_ORDER * RB_MAX_ORDER], Ma_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Qc[RB_MAX_ORDER * RB_MAX_ORDER], Qa[RB_MAX_ORDER * RB_MAX_ORDER];
} rb_cuda_blk;

/* Fill from the engine's axis plan (its matrices, the periodic closure included:
 * nothing to invert here, so nothing can fail). */
void rb_cuda_blk_init(const rb_axis_plan *ap, const float *dev_fir, int channels, const float *cval,
                     rb_cuda_blk *out);
/* Carry floats per lane the blocked solver needs (its carries are doubles,
 * two floats each). */
size_t rb_cuda_blk_carry(const rb_axis_plan *ap);
/* in -> out (must not alias), carry: lanes * rb_cuda_blk_carry floats, 8-byte
 * aligned (cudaErrorMisalignedAddress otherwise). */
cudaError_t rb_cuda_solve_blocked(const rb_cuda_blk *b, const float *in, float *out, float *carry,
                                  size_t lanes, cudaStream_t s);

/* Tiled solver (rb_cuda_fused.cu, math in rb_cuda_fused.cuh): per axis one
 * read of the input for the block carries, one per-lane chain over the small
 * carry arrays, one read + one write for the output; both axes run on the
 * row-major image (rows through 32-row shared-memory tiles, columns directly,
 * coalesced), so no transposes and no deinterleaving of channels. */
#define RB_FZ_TAPS RB_CUDA_TILED_TAPS
#define RB_FZ_MAX_ORDER 8      /* every order the engine takes (RB_MAX_ORDER); the blocked
                                  solver is left for FIRs of more than 64 taps */
typedef struct {
    rb_cuda_blk b;            /* axis, blocks, A^len powers, periodic (I - A^m)^-1 */
    double G[RB_MAX_ORDER * RB_MAX_ORDER], G_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double T1[RB_MAX_ORDER], T1_last[RB_MAX_ORDER], H1[RB_MAX_ORDER], H1_last[RB_MAX_ORDER];
    double fird[RB_FZ_TAPS];  /* FIR taps in double */
    double sumfird;           /* their sum (1 without a FIR) */
    int rows;                 /* 0: lanes are columns (lane = x*c + k, sample = row);
                                 1: lanes are rows (lane = y*c + k, sample = x) */
    int c;                    /* channels */
    int dbl;                  /* carries in double: the states are much larger than the output
                                 (poles near 1, e.g. wide Gaussians), float would lose it all */
    int fin;                  /* recursion inside blocks in float (else double) */
    int seq_chain;            /* RECBLUR_CUDA_CHAIN=seq: the one-thread-per-lane chain for
                                 float carries too (comparisons; double carries always take it) */
    long long ld, ld_out;     /* floats between image rows, input and output */
    int wdot;                 /* float carries: stage 1 of whole in-line blocks as
                                 2R dot products with Wt/Wh (rb_fz_stage1_dot), no recursion */
    float Wt[RB_FZ_MAX_ORDER * RB_CUDA_BLOCK];  /* Tbar_k = sum_j Wt[k B + j] u_j of a whole block */
    float Wh[RB_FZ_MAX_ORDER * RB_CUDA_BLOCK];  /* Hbar_k = sum_j Wh[k B + j] u_j */
} rb_cuda_fz;

/* 0 on success, -2 not covered (order 0 or above RB_FZ_MAX_ORDER, more than
 * RB_FZ_TAPS taps): use the blocked solver. */
int rb_cuda_fz_init(const rb_axis_plan *ap, int channels, int rows, const rb_switches *sw,
                    rb_cuda_fz *out);
/* Carry floats per lane. */
size_t rb_cuda_fz_carry(const rb_axis_plan *ap, const rb_switches *sw);
/* One axis: in -> out (distinct), lanes = w*c (columns) or h*c (rows);
 * ev: NULL or 3 events recorded after stage 1, the chain and the final stage. */
cudaError_t rb_cuda_solve_fused(const rb_cuda_fz *f, const float *in, float *out, float *carry,
                                size_t lanes, cudaStream_t s, cudaEvent_t *ev);

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
    int fused;                 /* 1: the tiled solver (rb_cuda_fused.cu) runs both axes */
    rb_cuda_fz *fcol, *frow;   /* its per-axis parameters (host memory) */
    cudaEvent_t ev[10];        /* RECBLUR_CUDA_PROFILE=1: per-step times in the log */
    int nev;
    struct rb_cuda_staging *stage;  /* pinned staging of host images (rb_cuda_staging.h);
                                       NULL: plain copies from pageable memory */
    int stage_tried;           /* the staging's memory is made at the first execute with a
                                  host image: plans for device pointers and 1D signals pin nothing */
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
