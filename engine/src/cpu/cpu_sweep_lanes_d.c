/* The sweep's column kernels with double lanes: the default (the other
 * routes are double too); the row kernel is in cpu_sweep_rows_d.c.
 * A unit of its own so that a parallel build compiles the two lane types
 * side by side: each copy of cpu_sweep_kernel.h with its three target
 * clones takes minutes at -O3 (cpu_sweep_internal.h). */
#include "cpu_sweep_internal.h"

#define SW_COLS 1
#define SW_ROWS 0
#define SW_V v4d
#define SW_NV 2
#define SW_E double
#define SW_N(x) x##_d
#define SW_C(x) x
#include "cpu_sweep_kernel.h"
