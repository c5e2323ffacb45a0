/* rb_filter_bspline: interpolation prefilters for cubic and quintic
 * B-splines (Unser's direct B-spline transform). The sampled B-spline
 * B(z) = sum_k beta(k) z^-k is symmetric; its inverse factors into
 * prod_k -z_k / ((1 - z_k z^-1)(1 - z_k z)), one causal and one anticausal
 * pole per root z_k (|z_k| < 1) of z^n B(z). The gain is prod (1 - z_k)^2,
 * which makes the DC gain exactly 1 (B(1) = 1). */
#include "rb_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Root of z + 1/z = w (w < -2) inside the unit circle, without cancellation:
 * the outer root w/2 - sqrt(w^2/4 - 1) is computed first, the inner is 1/it. */
static double inner_root(double w)
{
    double outer = w / 2.0 - sqrt(w * w / 4.0 - 1.0);
    return 1.0 / outer;
}

rb_status rb_filter_bspline(rb_context *ctx, int degree, rb_filter **out)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "rb_filter_bspline: NULL output pointer");
    *out = NULL;
    double z[2];
    int np;
    if (degree == 3) {
        /* (z + 4 + 1/z)/6: z + 1/z = -4 */
        z[0] = inner_root(-4.0); /* sqrt(3) - 2 */
        np = 1;
    } else if (degree == 5) {
        /* (z^2 + 26 z + 66 + 26/z + 1/z^2)/120 with w = z + 1/z: w^2 + 26 w + 64 = 0 */
        z[0] = inner_root(-13.0 + sqrt(105.0)); /* -0.4305753470999737 */
        z[1] = inner_root(-13.0 - sqrt(105.0)); /* -0.04309628820326465 */
        np = 2;
    } else
        return rb_error(ctx, RB_ERR_ARGUMENT, "B-spline degree %d not supported (3 or 5)", degree);

    rb_axis_filter ax;
    memset(&ax, 0, sizeof ax);
    double gain = 1.0;
    for (int k = 0; k < np; k++)
        gain *= (1.0 - z[k]) * (1.0 - z[k]);
    /* causal denominator prod (1 - z_k q^-1) in the signature convention y = x + sum a_k y[i-k] */
    if (np == 1) {
        ax.causal[0] = z[0];
    } else {
        ax.causal[0] = z[0] + z[1];
        ax.causal[1] = -z[0] * z[1];
    }
    ax.causal_order = ax.anticausal_order = np;
    for (int k = 0; k < np; k++)
        ax.anticausal[k] = ax.causal[k];
    ax.fir_lo = ax.fir_hi = 0;
    ax.fir = &gain;
    rb_filter *f = NULL;
    rb_status st = rb_filter_create(ctx, &ax, &ax, &f);
    if (st != RB_OK)
        return st;
    if (np == 1)
        snprintf(f->description, sizeof f->description,
                 "cubic B-spline prefilter: pole %.16g, causal + anticausal order 1, gain %.16g", z[0], gain);
    else
        snprintf(f->description, sizeof f->description,
                 "quintic B-spline prefilter: poles %.16g, %.16g, causal + anticausal order 2, gain %.16g",
                 z[0], z[1], gain);
    *out = f;
    return RB_OK;
}
