/* Switch points of the Gaussian designer (filter_gaussian.c), shared with
 * tests/test_gaussian_accuracy.c, which sweeps across each of them.
 * Chosen from measurements of the L1 error per sigma (see that test's output). */
#ifndef RB_GAUSSIAN_DESIGN_H
#define RB_GAUSSIAN_DESIGN_H

/* DEFAULT (L1 <= 1e-3): FIR below, order-4 fit sampled, then warped */
#define RB_GAUSSIAN_DEFAULT_FIR_BELOW 2.0
#define RB_GAUSSIAN_DEFAULT_WARP_FROM 64.0
/* ACCURATE (L1 <= 1e-4): FIR below, order-6 fit sampled; its 11-tap numerator
 * stays representable up to its double-precision limit, so no warped stage
 * (measured: warped is the worse of the two there) */
#define RB_GAUSSIAN_ACCURATE_FIR_BELOW 3.0
/* Double-precision limits: above these sigmas the feedback coefficients (rounded
 * to double) no longer carry the design's poles within budget, and a lower
 * order takes over: the accurate design hands over to the order-4 one, that to
 * order 3 (L1 ~6e-3), that to order 2 (L1 ~3e-2). */
#define RB_GAUSSIAN_ACCURATE_MAX_SIGMA 100.0
#define RB_GAUSSIAN_ORDER4_MAX_SIGMA 2200.0
#define RB_GAUSSIAN_ORDER3_MAX_SIGMA 12000.0

#endif
