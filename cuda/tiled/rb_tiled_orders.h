/* The tiled solver's per-order entries: defined in rb_tiled_launch.cuh,
 * instantiated once per order R (1 .. RB_TILED_MAX_ORDER) in the
 * translation units generated from rb_tiled_order.cu.in, and dispatched on
 * the run-time order by rb_tiled_launch.cu. */
#ifndef RB_TILED_ORDERS_H
#define RB_TILED_ORDERS_H
#include "rb_tiled.h"

/* one axis (rb_cuda_tiled_axis) */
template <int R>
cudaError_t rb_tiled_launch_ct(const rb_cuda_tiled *f, const float *in, float *out, float *carry, size_t lanes,
                               cudaStream_t s, cudaEvent_t *ev);
/* columns making the row carries (rb_cuda_tiled_cols_making_row_carries) */
template <int R>
cudaError_t rb_tiled_launch_cols_s1(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in, float *mid,
                                    float *ccarry, float *rcarry, size_t lanes, size_t rlanes, cudaStream_t s,
                                    cudaEvent_t *ev, int nowrite);
/* the final stage of both axes (rb_cuda_tiled_final_both) */
template <int R>
cudaError_t rb_tiled_launch_final_both(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                       const float *mid, float *out, float *ccarry, float *rcarry, size_t lanes,
                                       size_t rlanes, cudaStream_t s, cudaEvent_t *ev);
/* the column stage 1 with the x-part of the row carries, the column chain,
 * the cross terms (rb_cuda_tiled_cols_row_carries_cross) */
template <int R>
cudaError_t rb_tiled_launch_cols_cross(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in, float *mid,
                                       float *ccarry, float *rcarry, size_t lanes, size_t rlanes, cudaStream_t s,
                                       cudaEvent_t *ev);
/* the cross kernel's thread blocks that fit the device (rb_cuda_tiled_plan_cross) */
template <int R>
int rb_tiled_cross_fit(const rb_cuda_tiled *fc);
/* the rows from those carries (rb_cuda_tiled_rows_from_carries) */
template <int R>
cudaError_t rb_tiled_launch_rows_rest(const rb_cuda_tiled *fr, const float *mid, float *out, float *rcarry,
                                      size_t rlanes, cudaStream_t s, cudaEvent_t *ev);
#endif
