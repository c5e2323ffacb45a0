/* The double-double matrix-vector product of the epilogue (44), for the
 * tiled solver and the host emulation (tests/gpu_emu.cu). */
#ifndef RB_CUDA_DD_CUH
#define RB_CUDA_DD_CUH

#include "rb_cuda_hd.cuh"
#include <math.h>

/* o = M v + w c (M: r x r, row-major) with each row summed in double-double
 * (products split exactly by fma, error-free sums) and rounded once: the
 * epilogue (44) of the 2016 paper. For poles near 1 (a
 * Gaussian of sigma 210 on a 97-sample row: |M44| 4e13, states 8e-9) its terms
 * cancel by six digits, and the 1e-11 plain double left in e(Z) grew across the
 * line, through the anticausal recursion, to 1e-5 of the input (RB_TEST_SEED=14).
 * Once per lane and axis: nothing per pixel. Device: _rn intrinsics, so that no
 * product is fused into a sum (the error terms assume rounded products). */
#ifdef __CUDA_ARCH__
#define RB_DMUL(a, b) __dmul_rn(a, b)
#define RB_DADD(a, b) __dadd_rn(a, b)
#define RB_DSUB(a, b) __dsub_rn(a, b)
#else
#define RB_DMUL(a, b) ((a) * (b))
#define RB_DADD(a, b) ((a) + (b))
#define RB_DSUB(a, b) ((a) - (b))
#endif
RB_HD void rb_mv_dd(int r, const double *M, const double *v, const double *w, double c, double *o)
{
RB_UNROLL
    for (int i = 0; i < r; ++i) {
        double s = RB_DMUL(w[i], c), e = fma(w[i], c, -s);
RB_UNROLL
        for (int j = 0; j < r; ++j) {
            const double p = RB_DMUL(M[i * r + j], v[j]), pe = fma(M[i * r + j], v[j], -p);
            const double t = RB_DADD(s, p), bb = RB_DSUB(t, s);
            e = RB_DADD(e, RB_DADD(RB_DADD(RB_DSUB(s, RB_DSUB(t, bb)), RB_DSUB(p, bb)), pe));
            s = t;
        }
        o[i] = RB_DADD(s, e);
    }
}

#endif
