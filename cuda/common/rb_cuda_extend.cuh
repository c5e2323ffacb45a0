/* A line on its infinite extension past both ends, the one copy every CUDA
 * solver uses (the tiled 2D solver, the 1D scan, the deblur filter, the
 * benchmark's per-line baseline) and the host emulation runs: the 2016
 * paper's boundary modes as FORMULAS.md defines them (mirror even-periodic,
 * the edge sample repeated). */
#ifndef RB_CUDA_EXTEND_CUH
#define RB_CUDA_EXTEND_CUH

#include "rb_cuda_hd.cuh"
#include "recblur.h"

/* Where sample j of a line of n samples comes from: an index in [0, n), or -1
 * where the extension is not a sample of the line (the constant of the
 * constant mode, zero for zero and none). I is int where the caller's
 * indices are (32-bit remainders are cheaper on the device), else long long. */
template <typename I>
RB_HD I rb_ext_index(I j, I n, int mode)
{
    if (j >= 0 && j < n) return j;
    switch (mode) {
    case RB_BOUNDARY_CLAMP: return j < 0 ? 0 : n - 1;
    case RB_BOUNDARY_PERIODIC: {
        const I k = j % n;
        return k < 0 ? k + n : k;
    }
    case RB_BOUNDARY_MIRROR: {
        const I p = 2 * n;
        I k = j % p;
        if (k < 0) k += p;
        return k >= n ? p - 1 - k : k;
    }
    default: return -1; /* constant, zero, none */
    }
}

/* rb_ext_index's mirror case for j in [-n, 2n), one reflection: without its
 * 64-bit remainders, which the padded blocks' loads (rb_tiled_load_mirror,
 * rb_tiled_load_mirror_fir) would pay per sample. */
template <typename I>
RB_HD I rb_ext_mirror1(I j, I n)
{
    return j < 0 ? -1 - j : j >= n ? 2 * n - 1 - j : j;
}

/* Sample j of the extended line x[0], x[S], ..., x[(n-1) S] (input units).
 * The samples inside the line and the constant ones return before the
 * remainders of rb_ext_index: in the padded route most samples lie outside. */
RB_HD float rb_ext_sample(const float *x, long long S, long long j, long long n, int mode, float cval)
{
    if (j >= 0 && j < n) return x[j * S];
    if (mode == RB_BOUNDARY_CONSTANT) return cval;
    if (mode != RB_BOUNDARY_CLAMP && mode != RB_BOUNDARY_PERIODIC && mode != RB_BOUNDARY_MIRROR) return 0.0f;
    return x[rb_ext_index<long long>(j, n, mode) * S];
}

#endif
