/* The input line on its infinite extension and the FIR on it: shared by the
 * per-lane and the blocked solvers (device code, included by .cu files). */
#ifndef RB_CUDA_EXTEND_CUH
#define RB_CUDA_EXTEND_CUH

#include "rb_cuda.h"

/* x on its infinite extension (input units). */
static __device__ __forceinline__ float rb_xext(const float *x, size_t S, long long j, int n,
                                                int mode, float cval)
{
    if (j >= 0 && j < n) return x[(size_t)j * S];
    switch (mode) {
    case RB_BOUNDARY_CONSTANT: return cval;
    case RB_BOUNDARY_CLAMP: return x[(size_t)(j < 0 ? 0 : n - 1) * S];
    case RB_BOUNDARY_PERIODIC: {
        long long k = j % n;
        if (k < 0) k += n;
        return x[(size_t)k * S];
    }
    case RB_BOUNDARY_MIRROR: {
        long long p = 2LL * n, k = j % p;
        if (k < 0) k += p;
        if (k >= n) k = p - 1 - k;
        return x[(size_t)k * S];
    }
    default: return 0.0f;  /* zero, none */
    }
}

/* u_j = sum_t fir[t] x_ext(j + fir_lo + t) */
static __device__ __forceinline__ float rb_u(const rb_cuda_axis &a, const float *x, size_t S,
                                             long long j, float cv)
{
    if (a.ntaps == 0) return rb_xext(x, S, j, a.n, a.mode, cv);
    float acc = 0.0f;
    long long b = j + a.fir_lo;
    if (b >= 0 && b + a.ntaps <= a.n) {  /* interior: no extension tests */
        const float *p = x + (size_t)b * S;
        for (int t = 0; t < a.ntaps; ++t) acc += a.fir[t] * p[(size_t)t * S];
    } else {
        for (int t = 0; t < a.ntaps; ++t) acc += a.fir[t] * rb_xext(x, S, b + t, a.n, a.mode, cv);
    }
    return acc;
}

#endif
