/* 1D recurrences on the device in one pass per direction (rb_cuda_scan.cu):
 * a tile of 4096 samples per thread block, a block scan of the threads'
 * r-vector carries with precomputed transfer matrices A^L, and the carries
 * from tile to tile by decoupled look-back (Maleki et al. 2018, PLR phase 2;
 * Merrill & Garland 2016): each tile publishes its zero-initialised end state
 * at once and its true end state as soon as its predecessor's is known, so the
 * signal is read once and written once per pass. The look-back is warp-wide (32
 * predecessors per step) and each state value travels in 64-bit words that carry
 * the pass's tag, so readers need no flag and no fence. Orders 1-2 keep float
 * states; orders >= 3 recur, scan and carry in double (float gave up to 1.1e-4).
 *
 * Exact boundaries as the rest of the back end (2016 paper): the constant-like
 * modes start from their closed-form states (35)/(44); periodic and mirror
 * (the 2n-periodic route) run the zero-initialised pass, get the true initial
 * state from its end state by (49)/(51), and add the homogeneous response of
 * that state, which is only non-negligible over the first K samples (K from the
 * largest pole: below 1e-12 of the state, or the whole line). */
#ifndef RB_CUDA_SCAN_CUH
#define RB_CUDA_SCAN_CUH

#include "rb_internal.h"
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rb_cuda_rec1d rb_cuda_rec1d;

/* Prepare one axis plan (the x axis of a 1D plan, line length = signal length)
 * for the device: transfer matrices and FIR taps go to device memory
 * (rb_cuda_malloc). cval: the constant boundary's value. */
cudaError_t rb_cuda_rec1d_create(const rb_axis_plan *ap, float cval, rb_cuda_rec1d **out);
void rb_cuda_rec1d_destroy(rb_cuda_rec1d *p);
/* Device scratch bytes a run needs (in_place: in == out). */
size_t rb_cuda_rec1d_work_bytes(const rb_cuda_rec1d *p, int in_place);
/* in -> out (device pointers, n samples each; in == out allowed), on stream s. */
cudaError_t rb_cuda_rec1d_run(const rb_cuda_rec1d *p, const float *in, float *out, void *work,
                              cudaStream_t s);
/* Test hook (switches.h "test:scan_delay_ns"): tiles publish after random
 * delays below delay_ns, so look-backs meet orders the normal schedule never
 * makes; 0 (the default) none. */
void rb_cuda_rec1d_set_delay(rb_cuda_rec1d *p, unsigned delay_ns);
/* Passes over the signal a run makes (for the benchmark's bytes-moved column). */
int rb_cuda_rec1d_passes(const rb_cuda_rec1d *p);

#ifdef __cplusplus
}
#endif
#endif
