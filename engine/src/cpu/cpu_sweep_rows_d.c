/* The sweep's row kernel with double lanes (the column kernels are in
 * cpu_sweep_lanes_d.c).
 * A unit of its own so that a parallel build compiles it beside the column
 * kernels: the double copy of cpu_sweep_kernel.h with its three target
 * clones took 7 CPU-minutes at -O3 in one unit (cpu_sweep_internal.h). */
#include "cpu_sweep_internal.h"

#define SW_COLS 0
#define SW_ROWS 1
#define SW_V v4d
#define SW_NV 2
#define SW_E double
#define SW_N(x) x##_d
#define SW_C(x) x
#include "cpu_sweep_kernel.h"
