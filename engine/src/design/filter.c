/* rb_filter: the engine's form of a separable filter (rb_internal.h), its
 * construction from the public rb_axis_filter, stability and copies. */
#include "rb_internal.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest root modulus of z^r + d1 z^(r-1) + ... + dr (Durand-Kerner); only
 * used for messages, the stability decision is the exact test below. */
static double max_root_modulus(const double *d, int r)
{
    if (r <= 0)
        return 0.0;
    double complex z[RB_MAX_ORDER], seed = 0.4 + 0.9 * I;
    double scale = 1.0;
    for (int k = 0; k < r; k++)
        if (fabs(d[k]) > scale)
            scale = fabs(d[k]);
    for (int k = 0; k < r; k++)
        z[k] = scale * cpow(seed, k + 1);
    for (int it = 0; it < 2000; it++) {
        double change = 0.0;
        for (int i = 0; i < r; i++) {
            double complex p = 1.0;
            for (int k = 0; k < r; k++)
                p = p * z[i] + d[k];
            double complex q = 1.0;
            for (int j = 0; j < r; j++)
                if (j != i)
                    q *= z[i] - z[j];
            if (cabs(q) < 1e-300)
                q = 1e-300;
            double complex delta = p / q;
            z[i] -= delta;
            change = fmax(change, cabs(delta));
        }
        if (change < 1e-15 * scale)
            break;
    }
    double m = 0.0;
    for (int i = 0; i < r; i++)
        if (cabs(z[i]) > m)
            m = cabs(z[i]);
    return m;
}

/* Schur-Cohn (lattice step-down): every root of 1 + sum d_k z^-k is strictly
 * inside the unit circle iff every reflection coefficient has |k_m| < 1. */
int rb_feedback_is_stable(const double *d, int r, double *max_pole)
{
    double a[RB_MAX_ORDER + 1];
    int stable = 1;
    if (r < 0 || r > RB_MAX_ORDER)
        return 0;
    a[0] = 1.0;
    for (int k = 1; k <= r; k++) {
        a[k] = d[k - 1];
        if (!isfinite(a[k]))
            stable = 0;
    }
    for (int m = r; m >= 1 && stable; m--) {
        double km = a[m];
        if (!(fabs(km) < 1.0)) {
            stable = 0;
            break;
        }
        double den = 1.0 - km * km;
        double b[RB_MAX_ORDER + 1];
        for (int i = 0; i < m; i++)
            b[i] = (a[i] - km * a[m - i]) / den;
        memcpy(a, b, sizeof(double) * (size_t)m);
    }
    if (max_pole)
        *max_pole = stable || r == 0 ? max_root_modulus(d, r) : fmax(1.0, max_root_modulus(d, r));
    return stable;
}

static int fir_is_identity(const rb_axis_filter *p)
{
    return !p->fir || (p->fir_lo == 0 && p->fir_hi == 0 && p->fir[0] == 1.0);
}

rb_status rb_axis_from_public(rb_context *ctx, const rb_axis_filter *pub, rb_axis *out,
                              const char *what)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "rb_axis_from_public: NULL output");
    memset(out, 0, sizeof *out);
    if (!what)
        what = "filter";
    if (!pub)
        return RB_OK; /* inactive axis */
    if (pub->causal_order < 0 || pub->causal_order > RB_MAX_ORDER || pub->anticausal_order < 0 ||
        pub->anticausal_order > RB_MAX_ORDER)
        return rb_error(ctx, RB_ERR_ARGUMENT, "%s: recursive order %d/%d out of range (0..%d)", what,
                        pub->causal_order, pub->anticausal_order, RB_MAX_ORDER);
    if (pub->fir) {
        if (pub->fir_lo > pub->fir_hi)
            return rb_error(ctx, RB_ERR_ARGUMENT, "%s: FIR offsets %d..%d are reversed", what,
                            pub->fir_lo, pub->fir_hi);
        long taps = (long)pub->fir_hi - pub->fir_lo + 1;
        if (taps > RB_MAX_FIR_TAPS || pub->fir_lo < -RB_MAX_FIR_TAPS || pub->fir_hi > RB_MAX_FIR_TAPS)
            return rb_error(ctx, RB_ERR_ARGUMENT, "%s: FIR with %ld taps at %d..%d (at most %d taps)",
                            what, taps, pub->fir_lo, pub->fir_hi, RB_MAX_FIR_TAPS);
        for (long k = 0; k < taps; k++)
            if (!isfinite(pub->fir[k]))
                return rb_error(ctx, RB_ERR_NAN, "%s: FIR tap %ld is not finite", what,
                                k + pub->fir_lo);
    }
    for (int k = 0; k < pub->causal_order; k++)
        if (!isfinite(pub->causal[k]))
            return rb_error(ctx, RB_ERR_NAN, "%s: causal feedback a%d is not finite", what, k + 1);
    for (int k = 0; k < pub->anticausal_order; k++)
        if (!isfinite(pub->anticausal[k]))
            return rb_error(ctx, RB_ERR_NAN, "%s: anticausal feedback a%d is not finite", what, k + 1);

    rb_axis ax;
    memset(&ax, 0, sizeof ax);
    ax.causal_order = pub->causal_order;
    ax.anticausal_order = pub->anticausal_order;
    ax.r = ax.causal_order > ax.anticausal_order ? ax.causal_order : ax.anticausal_order;
    for (int k = 0; k < ax.causal_order; k++)
        ax.dc[k] = -pub->causal[k];
    for (int k = 0; k < ax.anticausal_order; k++)
        ax.da[k] = -pub->anticausal[k];
    double pole;
    if (!rb_feedback_is_stable(ax.dc, ax.causal_order, &pole))
        return rb_error(ctx, RB_ERR_UNSTABLE,
                        "%s: unstable causal feedback (pole of modulus %.9g on or outside the unit circle)",
                        what, pole);
    if (!rb_feedback_is_stable(ax.da, ax.anticausal_order, &pole))
        return rb_error(ctx, RB_ERR_UNSTABLE,
                        "%s: unstable anticausal feedback (pole of modulus %.9g on or outside the unit circle)",
                        what, pole);

    double fsum = 1.0;
    int fir_even = 1;
    if (!fir_is_identity(pub)) {
        int taps = pub->fir_hi - pub->fir_lo + 1;
        ax.fir = malloc(sizeof(double) * (size_t)taps);
        if (!ax.fir)
            return rb_error(ctx, RB_ERR_NOMEM, "%s: out of memory for %d FIR taps", what, taps);
        memcpy(ax.fir, pub->fir, sizeof(double) * (size_t)taps);
        ax.fir_lo = pub->fir_lo;
        ax.fir_hi = pub->fir_hi;
        fsum = 0.0;
        for (int k = 0; k < taps; k++)
            fsum += ax.fir[k];
        fir_even = ax.fir_lo == -ax.fir_hi;
        for (int k = 0; fir_even && k < taps; k++)
            if (ax.fir[k] != ax.fir[taps - 1 - k])
                fir_even = 0;
    }
    ax.active = ax.fir != NULL || ax.r > 0;
    int same = ax.causal_order == ax.anticausal_order;
    for (int k = 0; same && k < ax.r; k++)
        if (ax.dc[k] != ax.da[k])
            same = 0;
    ax.symmetric = fir_even && same;
    long double sc = 1.0L, sa = 1.0L, fs = 0.0L; /* 1 + sum d cancels for poles near 1 */
    for (int k = 0; k < ax.r; k++) {
        sc += ax.dc[k];
        sa += ax.da[k];
    }
    if (ax.fir)
        for (int k = 0; k <= ax.fir_hi - ax.fir_lo; k++)
            fs += ax.fir[k];
    else
        fs = fsum;
    ax.dc_gain = (double)(fs / (sc * sa));
    *out = ax;
    return RB_OK;
}

static void describe_axis(const rb_axis *ax, char *buf, size_t len)
{
    if (!ax->active) {
        snprintf(buf, len, "unfiltered");
        return;
    }
    int n = 0;
    if (ax->causal_order && ax->anticausal_order)
        n = snprintf(buf, len, "order %d causal + %d anticausal", ax->causal_order, ax->anticausal_order);
    else if (ax->causal_order)
        n = snprintf(buf, len, "order %d causal", ax->causal_order);
    else if (ax->anticausal_order)
        n = snprintf(buf, len, "order %d anticausal", ax->anticausal_order);
    if (ax->fir && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "%s%d-tap FIR", n ? " + " : "", ax->fir_hi - ax->fir_lo + 1);
}

rb_status rb_filter_create(rb_context *ctx, const rb_axis_filter *x, const rb_axis_filter *y,
                           rb_filter **out)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "rb_filter_create: NULL output pointer");
    *out = NULL;
    rb_filter *f = calloc(1, sizeof *f);
    if (!f)
        return rb_error(ctx, RB_ERR_NOMEM, "rb_filter_create: out of memory");
    rb_status s = rb_axis_from_public(ctx, x, &f->axis[0], "x axis");
    if (s == RB_OK)
        s = rb_axis_from_public(ctx, y, &f->axis[1], "y axis");
    if (s != RB_OK) {
        rb_filter_destroy(f);
        return s;
    }
    char dx[96], dy[96];
    describe_axis(&f->axis[0], dx, sizeof dx);
    describe_axis(&f->axis[1], dy, sizeof dy);
    snprintf(f->description, sizeof f->description, "custom filter: x %s; y %s", dx, dy);
    *out = f;
    return RB_OK;
}

void rb_filter_clear(rb_filter *f)
{
    if (!f)
        return;
    for (int a = 0; a < 2; a++) {
        free(f->axis[a].fir);
        f->axis[a].fir = NULL;
    }
}

void rb_filter_destroy(rb_filter *filter)
{
    if (!filter)
        return;
    rb_filter_clear(filter);
    free(filter);
}

rb_status rb_filter_copy(rb_context *ctx, const rb_filter *src, rb_filter *dst)
{
    if (!src || !dst)
        return rb_error(ctx, RB_ERR_NULL, "rb_filter_copy: NULL filter");
    rb_filter tmp = *src;
    for (int a = 0; a < 2; a++) {
        tmp.axis[a].fir = NULL;
        if (src->axis[a].fir) {
            size_t taps = (size_t)(src->axis[a].fir_hi - src->axis[a].fir_lo + 1);
            tmp.axis[a].fir = malloc(sizeof(double) * taps);
            if (!tmp.axis[a].fir) {
                rb_filter_clear(&tmp);
                return rb_error(ctx, RB_ERR_NOMEM, "rb_filter_copy: out of memory");
            }
            memcpy(tmp.axis[a].fir, src->axis[a].fir, sizeof(double) * taps);
        }
    }
    *dst = tmp;
    return RB_OK;
}

rb_status rb_filter_get_axis(const rb_filter *filter, int axis, rb_axis_filter *out)
{
    if (!filter || !out)
        return RB_ERR_NULL;
    if (axis != 0 && axis != 1)
        return RB_ERR_ARGUMENT;
    const rb_axis *ax = &filter->axis[axis];
    memset(out, 0, sizeof *out);
    out->fir = ax->fir;
    out->fir_lo = ax->fir ? ax->fir_lo : 0;
    out->fir_hi = ax->fir ? ax->fir_hi : 0;
    out->causal_order = ax->causal_order;
    out->anticausal_order = ax->anticausal_order;
    for (int k = 0; k < ax->causal_order; k++)
        out->causal[k] = -ax->dc[k];
    for (int k = 0; k < ax->anticausal_order; k++)
        out->anticausal[k] = -ax->da[k];
    return RB_OK;
}

const char *rb_filter_describe(const rb_filter *filter)
{
    return filter ? filter->description : "";
}
