/* gpu_bench's baseline: one thread per line (gpu_naive_lanes.cu). */
#ifndef GPU_NAIVE_LANES_H
#define GPU_NAIVE_LANES_H

#include "rb_internal.h"

typedef struct bench_naive bench_naive;

/* Device buffers and per-axis parameters for the plan's filter on packed
 * float32 device images; bval: the constant boundary's value. Exits on a
 * CUDA error, as the benchmark does. */
bench_naive *bench_naive_create(const rb_plan *plan, float bval);
/* in -> out (device, packed, distinct), on the legacy stream */
void bench_naive_run(bench_naive *nv, const float *in, float *out);
void bench_naive_destroy(bench_naive *nv);

#endif
