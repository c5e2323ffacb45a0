/* The two one-pass summed-area kernels side by side: rb_cuda_scan.cuh's
 * rb_cuda_sat_run / rb_cuda_sat_work_bytes are the look-back kernel
 * (rb_cuda_sat_lookback.cu, RECBLUR_CUDA_SAT=lookback), these the tile kernel
 * (rb_cuda_scan_sat.cu, rb_sat's default), both kept for before/after
 * comparisons in one binary; and the entry points that choose. */
#ifndef RB_CUDA_SAT_CUH
#define RB_CUDA_SAT_CUH

#include "recblur.h"
#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the tile kernel: tiles of 32 x 128, warp 0 computes every carry */
size_t rb_cuda_sat_tiles_work_bytes(int w, int h, int ch);
cudaError_t rb_cuda_sat_tiles_run(const void *in, size_t in_pitch, rb_format in_fmt, void *out,
                                  size_t out_pitch, rb_format out_fmt, int w, int h, int ch, void *work,
                                  cudaStream_t s);
/* rb_cuda_sat_run with the test hook "test:scan_delay_ns": tiles publish their
 * inclusive records after pseudo-random delays below delay_ns (0: none) */
cudaError_t rb_cuda_sat_run_delay(const void *in, size_t in_pitch, rb_format in_fmt, void *out,
                                  size_t out_pitch, rb_format out_fmt, int w, int h, int ch, void *work,
                                  cudaStream_t s, unsigned delay_ns);
/* rb_sat through a one-pass kernel: the look-back one (tiles 0) or the tile kernel (1) */
rb_status rb_cuda_sat_onepass_with(rb_context *ctx, const rb_image *in, rb_image *out, int tiles);

#ifdef __cplusplus
}
#endif
#endif
