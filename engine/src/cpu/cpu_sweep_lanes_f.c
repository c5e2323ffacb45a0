/* The sweep's kernels with float lanes: RECBLUR_CPU_LANES=auto or float
 * (cpu_sweep.c's use_float_lanes).
 * A unit of its own so that a parallel build compiles the two lane types
 * side by side: each copy of cpu_sweep_kernel.h with its three target
 * clones takes minutes at -O3 (cpu_sweep_internal.h). */
#include "cpu_sweep_internal.h"

#define SW_COLS 1
#define SW_ROWS 1
#define SW_V v8f
#define SW_NV 1
#define SW_E float
#define SW_N(x) x##_f
#define SW_C(x) x##_f
#include "cpu_sweep_kernel.h"
