/* rb_filter_gaussian: a Gaussian blur as FIR -> causal -> anticausal passes.
 *
 * Small sigma: a direct FIR whose taps come incrementally (Turkowski 2007,
 * GPU Gems 3 ch. 40: g0 *= g1; g1 *= g2, one exp per kernel), cut where the
 * two-sided tail is below the budget (cutting a tail of mass T and
 * renormalising costs exactly 2T in L1).
 *
 * Otherwise a recursive design fitted offline (tools/design_gaussian.py ->
 * gaussian_fit_coefficients.h): the symmetric kernel h(t) = sum_k alpha_k
 * exp(-mu_k |t|/sigma) whose transform is N(x)/prod(mu_k^2 + x), x = (sigma w)^2,
 * with a numerator N of low degree m. Writing delta = 2 - z - 1/z,
 *   (1 - p z^-1)(1 - p z) = p (delta + beta),  beta = (1 - p)^2 / p,
 * so the symmetric cascade H = FIR / (D(z) D(1/z)) has FIR = prod(p) nu(delta),
 * a polynomial in delta (taps of delta^j are binomial), and D = prod (1 - p_k z^-1).
 * Two ways to reach the discrete filter:
 *  - sampled ("impulse invariant", Deriche 1993): p_k = exp(-mu_k/sigma), h[n] is
 *    exactly the fitted kernel at t = n/sigma, so the error stays the fit's error
 *    down to sigma ~ 1; nu has degree r-1 whose top coefficients only encode the
 *    sampling, and whose taps grow like sigma^(2r-3) relative to their sum, which
 *    double precision cannot carry at large sigma;
 *  - warped: beta_k = (mu_k/sigma)^2 and nu(delta) = N(sigma^2 delta): the fit seen
 *    through the frequency map w^2 -> 4 sin^2(w/2); degree m only, so its taps
 *    stay well conditioned, and the warp costs ~1/(24 sigma^2), nothing at large sigma.
 * The switch points per quality are measured (tests/test_gaussian_accuracy.c).
 *
 * Precision limit (double): the feedback coefficients of an order-r filter with
 * poles within ~2/sigma of 1 carry the poles only to ~eps sigma^r; above the
 * sigma where that exceeds the accurate budget, ACCURATE falls back to the
 * default design (the description says so). */
#include "rb_internal.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaussian_design.h"
#include "gaussian_fit_coefficients.h"

typedef long double complex lcx;

/* ------------------------------------------------------------ exact sums */
/* Error-free accumulation (Knuth two-sum), for DC sums that cancel heavily. */
typedef struct {
    double hi, lo;
} rb_dd;

static void dd_add(rb_dd *s, double x)
{
    double a = s->hi, t = a + x, bp = t - a;
    double err = (a - (t - bp)) + (x - bp);
    s->hi = t;
    s->lo += err;
}

/* --------------------------------------------------------------- the FIR */
/* Taps for |k| <= R of the unit-sum sampled Gaussian, with R the smallest
 * radius whose L1 cost 2T (T = tail mass beyond R) is within budget. */
static int gaussian_fir(double sigma, double budget, double **taps_out, int *radius_out)
{
    int kmax = (int)ceil(12.0 * sigma) + 2;
    double *g = calloc((size_t)kmax + 1, sizeof(double));
    if (!g)
        return 0;
    /* incremental: g(k+1)/g(k) = exp(-(2k+1)/(2 s^2)); Turkowski's quotients */
    double g0 = 1.0, g1 = exp(-0.5 / (sigma * sigma)), g2 = g1 * g1;
    for (int k = 0; k <= kmax; k++) {
        g[k] = g0;
        g0 *= g1;
        g1 *= g2;
    }
    long double total = g[0];
    for (int k = 1; k <= kmax; k++)
        total += 2.0L * g[k];
    int R = 0;
    long double inside = g[0];
    while (R < kmax && 2.0L * (total - inside) / total > budget) {
        R++;
        inside += 2.0L * g[R];
    }
    int taps = 2 * R + 1;
    double *t = malloc(sizeof(double) * (size_t)taps);
    if (!t) {
        free(g);
        return 0;
    }
    for (int k = -R; k <= R; k++)
        t[k + R] = (double)(g[k < 0 ? -k : k] / inside);
    /* unit sum to the last bit: put the residue on the centre tap */
    rb_dd s = {0, 0};
    for (int k = 0; k < taps; k++)
        dd_add(&s, t[k]);
    t[R] += (1.0 - s.hi) - s.lo;
    free(g);
    *taps_out = t;
    *radius_out = R;
    return 1;
}

/* ---------------------------------------------------------- the recursive */
enum { MAP_SAMPLED = 0, MAP_WARPED = 1 };

/* One axis of the recursive design at sigma. fir: 2*deg+1 taps (caller frees).
 * d: D(z) = 1 + sum d_k z^-k in the engine's sign (public a_k = -d_k). */
static rb_status recursive_axis(rb_context *ctx, const rb_gaussian_fit *fit, double sigma, int map,
                                double d[RB_MAX_ORDER], double **fir_out, int *deg_out)
{
    const int r = fit->order;
    lcx mu[RB_MAX_ORDER], p[RB_MAX_ORDER], beta[RB_MAX_ORDER];
    int np = 0;
    for (int i = 0; i < fit->npoles; i++) {
        mu[np++] = fit->mu_re[i] + I * (long double)fit->mu_im[i];
        if (fit->mu_im[i] != 0.0)
            mu[np++] = fit->mu_re[i] - I * (long double)fit->mu_im[i];
    }
    if (np != r)
        return rb_error(ctx, RB_ERR_ARGUMENT, "gaussian: internal design table is inconsistent");
    const long double s = sigma;
    lcx nu[RB_MAX_ORDER + 1] = {0}; /* nu(delta) coefficients */
    int deg;
    if (map == MAP_SAMPLED) {
        /* alpha_k = N(-mu_k^2) / (2 mu_k prod_{j!=k} (mu_j^2 - mu_k^2)), N(x) = prod(mu^2) sum n_j x^j */
        lcx N0 = 1;
        for (int k = 0; k < r; k++)
            N0 *= mu[k] * mu[k];
        for (int k = 0; k < r; k++) {
            lcx sh = csinhl(mu[k] / (2 * s));
            beta[k] = 4 * sh * sh; /* (1-p)^2/p = 4 sinh^2(mu/2s) */
            p[k] = cexpl(-mu[k] / s);
        }
        for (int k = 0; k < r; k++) {
            lcx x = -mu[k] * mu[k], Nx = 0, xp = 1;
            for (int j = 0; j <= fit->num_degree; j++) {
                Nx += (j ? fit->num[j - 1] : 1.0L) * xp;
                xp *= x;
            }
            Nx *= N0;
            lcx den = 2 * mu[k];
            for (int j = 0; j < r; j++)
                if (j != k)
                    den *= mu[j] * mu[j] - mu[k] * mu[k];
            /* alpha (1-p^2)/((1-p/z)(1-pz)) = alpha 2 sinh(mu/s) / (p (delta + beta)) */
            lcx A = Nx / den * 2 * csinhl(mu[k] / s);
            lcx poly[RB_MAX_ORDER + 1] = {0};
            poly[0] = A;
            int pd = 0;
            for (int j = 0; j < r; j++) {
                if (j == k)
                    continue;
                for (int q = pd + 1; q >= 1; q--)
                    poly[q] = poly[q] * beta[j] + poly[q - 1];
                poly[0] *= beta[j];
                pd++;
            }
            for (int q = 0; q <= pd; q++)
                nu[q] += poly[q];
        }
        deg = r - 1;
    } else {
        lcx B = 1;
        for (int k = 0; k < r; k++) {
            beta[k] = mu[k] * mu[k] / (s * s);
            B *= beta[k];
            /* p + 1/p = 2 + beta, |p| < 1: take the outer root (no cancellation), invert */
            lcx h = 1 + beta[k] / 2, root = csqrtl(beta[k] * (1 + beta[k] / 4));
            lcx q1 = h + root, q2 = h - root;
            p[k] = 1 / (cabsl(q1) >= cabsl(q2) ? q1 : q2);
        }
        long double s2j = 1;
        for (int j = 0; j <= fit->num_degree; j++) {
            nu[j] = B * (j ? fit->num[j - 1] : 1.0L) * s2j;
            s2j *= s * s;
        }
        deg = fit->num_degree;
    }

    /* D(z) = prod (1 - p_k z^-1): real for conjugate pairs; long double, rounded once */
    lcx D[RB_MAX_ORDER + 1] = {1};
    for (int k = 0; k < r; k++) {
        for (int q = k + 1; q >= 1; q--)
            D[q] -= p[k] * D[q - 1];
    }
    for (int k = 0; k < r; k++)
        d[k] = (double)creall(D[k + 1]);

    /* FIR taps: sum_j nu_j (2 - z - 1/z)^j on offsets -deg..deg */
    long double taps[2 * RB_MAX_ORDER + 1] = {0}, pw[2 * RB_MAX_ORDER + 1] = {0};
    int w = 2 * deg + 1, c = deg;
    pw[c] = 1; /* delta^0 */
    for (int j = 0; j <= deg; j++) {
        long double nj = creall(nu[j]);
        for (int t = 0; t < w; t++)
            taps[t] += nj * pw[t];
        /* pw *= (-1, 2, -1) */
        long double nw[2 * RB_MAX_ORDER + 1] = {0};
        for (int t = 0; t < w; t++) {
            nw[t] += 2 * pw[t];
            if (t > 0)
                nw[t] -= pw[t - 1];
            if (t + 1 < w)
                nw[t] -= pw[t + 1];
        }
        memcpy(pw, nw, sizeof nw);
    }
    /* DC gain 1 for the coefficients as rounded: sum(fir) = (1 + sum d)^2, both
     * sums exact (the taps cancel to a number ~sigma^-2r). Scale, then put the
     * residue on the centre tap. */
    rb_dd sd = {1.0, 0.0};
    for (int k = 0; k < r; k++)
        dd_add(&sd, d[k]);
    long double S = (long double)sd.hi + sd.lo, target = S * S;
    long double nsum = creall(nu[0]); /* sum of delta^j taps is 0 for j >= 1 */
    double *fir = malloc(sizeof(double) * (size_t)w);
    if (!fir)
        return rb_error(ctx, RB_ERR_NOMEM, "gaussian: out of memory");
    for (int t = 0; t < w; t++)
        fir[t] = (double)(taps[t] * (target / nsum));
    rb_dd fs = {0, 0};
    for (int t = 0; t < w; t++)
        dd_add(&fs, fir[t]);
    fir[c] = (double)((long double)fir[c] + (target - ((long double)fs.hi + fs.lo)));
    *fir_out = fir;
    *deg_out = deg;
    return RB_OK;
}

/* ---------------------------------------------------------- front door */
typedef struct {
    double from;                  /* this stage for sigma >= from (up to the next stage) */
    const rb_gaussian_fit *fit;
    int map;
    const char *note;             /* for the description */
} rb_gaussian_stage;

#define REDUCED3 " (order reduced to 3 by double precision: L1 ~6e-3)"
#define REDUCED2 " (order reduced to 2 by double precision: L1 ~3e-2)"
/* stages in increasing sigma; the FIR covers sigma below the first */
static const rb_gaussian_stage default_stages[] = {
    {RB_GAUSSIAN_DEFAULT_FIR_BELOW, &rb_gaussian_fit_default, MAP_SAMPLED, ""},
    {RB_GAUSSIAN_DEFAULT_WARP_FROM, &rb_gaussian_fit_default, MAP_WARPED, ""},
    {RB_GAUSSIAN_ORDER4_MAX_SIGMA, &rb_gaussian_fit_reduced3, MAP_WARPED, REDUCED3},
    {RB_GAUSSIAN_ORDER3_MAX_SIGMA, &rb_gaussian_fit_reduced2, MAP_WARPED, REDUCED2},
};
static const rb_gaussian_stage accurate_stages[] = {
    {RB_GAUSSIAN_ACCURATE_FIR_BELOW, &rb_gaussian_fit_accurate, MAP_SAMPLED, ""},
    {RB_GAUSSIAN_ACCURATE_MAX_SIGMA, &rb_gaussian_fit_default, MAP_WARPED,
     " (accurate not reachable in double here: default design)"},
    {RB_GAUSSIAN_ORDER4_MAX_SIGMA, &rb_gaussian_fit_reduced3, MAP_WARPED, REDUCED3},
    {RB_GAUSSIAN_ORDER3_MAX_SIGMA, &rb_gaussian_fit_reduced2, MAP_WARPED, REDUCED2},
};

typedef struct {
    rb_axis_filter ax;
    double *fir;
    char what[160];
} axis_design;

static rb_status design_axis(rb_context *ctx, double sigma, rb_gaussian_quality q, axis_design *out)
{
    memset(out, 0, sizeof *out);
    const int acc = q == RB_GAUSSIAN_ACCURATE;
    const rb_gaussian_stage *st = acc ? accurate_stages : default_stages;
    const int ns = acc ? (int)(sizeof accurate_stages / sizeof accurate_stages[0])
                       : (int)(sizeof default_stages / sizeof default_stages[0]);
    if (sigma < st[0].from) {
        /* FIR; the truncation takes 0.8 of the budget, rounding needs none of the rest */
        int R;
        if (!gaussian_fir(sigma, acc ? 0.8e-4 : 0.8e-3, &out->fir, &R))
            return rb_error(ctx, RB_ERR_NOMEM, "gaussian: out of memory");
        out->ax.fir = out->fir;
        out->ax.fir_lo = -R;
        out->ax.fir_hi = R;
        snprintf(out->what, sizeof out->what, "%d-tap FIR", 2 * R + 1);
        return RB_OK;
    }
    int i = 0;
    while (i + 1 < ns && sigma >= st[i + 1].from)
        i++;
    double d[RB_MAX_ORDER];
    int deg;
    rb_status s = recursive_axis(ctx, st[i].fit, sigma, st[i].map, d, &out->fir, &deg);
    if (s != RB_OK)
        return s;
    const int r = st[i].fit->order;
    out->ax.fir = out->fir;
    out->ax.fir_lo = -deg;
    out->ax.fir_hi = deg;
    out->ax.causal_order = out->ax.anticausal_order = r;
    for (int k = 0; k < r; k++)
        out->ax.causal[k] = out->ax.anticausal[k] = -d[k];
    snprintf(out->what, sizeof out->what, "recursive order %d + %d-tap FIR numerator%s", r, 2 * deg + 1,
             st[i].note);
    return RB_OK;
}

static rb_status check_sigma(rb_context *ctx, double s, const char *axis)
{
    if (!isfinite(s))
        return rb_error(ctx, RB_ERR_NAN, "gaussian: sigma-%s is not a finite number", axis);
    if (s < 0)
        return rb_error(ctx, RB_ERR_ARGUMENT, "gaussian: sigma-%s = %g is negative", axis, s);
    if (s > 0 && s < 0.5)
        return rb_error(ctx, RB_ERR_ARGUMENT,
                        "gaussian: sigma-%s = %g is below 0.5 (use 0 to leave the axis unfiltered)", axis, s);
    if (s > 1e5)
        return rb_error(ctx, RB_ERR_ARGUMENT, "gaussian: sigma-%s = %g is above the maximum 1e5", axis, s);
    return RB_OK;
}

rb_status rb_filter_gaussian(rb_context *ctx, double sigma_x, double sigma_y, rb_gaussian_quality quality,
                             rb_filter **out)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "rb_filter_gaussian: NULL output pointer");
    *out = NULL;
    if (quality != RB_GAUSSIAN_DEFAULT && quality != RB_GAUSSIAN_ACCURATE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "gaussian: unknown quality %d", (int)quality);
    rb_status st = check_sigma(ctx, sigma_x, "x");
    if (st == RB_OK)
        st = check_sigma(ctx, sigma_y, "y");
    if (st != RB_OK)
        return st;
    if (sigma_x == 0 && sigma_y == 0)
        return rb_error(ctx, RB_ERR_ARGUMENT, "gaussian: both sigmas are 0 (nothing to filter)");
    axis_design ax = {0}, ay = {0};
    if (sigma_x > 0)
        st = design_axis(ctx, sigma_x, quality, &ax);
    if (st == RB_OK && sigma_y > 0)
        st = design_axis(ctx, sigma_y, quality, &ay);
    rb_filter *f = NULL;
    if (st == RB_OK)
        st = rb_filter_create(ctx, sigma_x > 0 ? &ax.ax : NULL, sigma_y > 0 ? &ay.ax : NULL, &f);
    free(ax.fir);
    free(ay.fir);
    if (st != RB_OK)
        return st;
    const char *qn = quality == RB_GAUSSIAN_ACCURATE ? "accurate" : "default";
    if (sigma_x == sigma_y)
        snprintf(f->description, sizeof f->description, "gaussian sigma=%g (%s): %.200s", sigma_x, qn, ax.what);
    else
        snprintf(f->description, sizeof f->description, "gaussian sigma-x=%g, sigma-y=%g (%s): x %.96s; y %.96s",
                 sigma_x, sigma_y, qn, sigma_x > 0 ? ax.what : "unfiltered", sigma_y > 0 ? ay.what : "unfiltered");
    *out = f;
    return RB_OK;
}
