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
    int r;              /* common order of both passes */
    int fir_lo, ntaps;  /* ntaps == 0: identity FIR */
    const float *fir;   /* device taps */
    float sumfir;       /* sum of taps (1 for identity) */
    int channels;       /* lane l carries channel l % channels */
    float cval[4];      /* constant mode: the working value outside, per channel */
    int has_c, has_a;   /* causal / anticausal pass present */
    double anticausal_dc;
    float dc[RB_MAX_ORDER], da[RB_MAX_ORDER];
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
