/* rb_axis_plan_init: the r x r matrices of the exact initial feedbacks of the
 * 2016 paper (Nehab & Maximo) for one axis, one line length and one boundary
 * mode, computed in long double at plan time (stored in double). Conventions and the corrected (67)
 * are those of FORMULAS.md. */
#include "rb_internal.h"
#include "matrix.h"
#include "line_solver.h"
#include "axis_route.h"

#include <stdint.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A_F: ones on the superdiagonal, last row [-d_r ... -d_1]. */
static void companion(int r, const double *d, rb_real *a)
{
    memset(a, 0, sizeof(rb_real) * (size_t)(r * r));
    for (int i = 0; i + 1 < r; i++)
        a[i * r + i + 1] = 1.0;
    for (int j = 0; j < r; j++)
        a[(r - 1) * r + j] = -d[r - 1 - j];
}

/* Abar_F: column k is the last column of A_F^(r-1-k). */
static void abar(int r, const rb_real *af, rb_real *out)
{
    rb_real p[RB_MAT_MAX];
    for (int k = 0; k < r; k++) {
        rb_mat_pow(r, af, (unsigned long)(r - 1 - k), p);
        for (int i = 0; i < r; i++)
            out[i * r + k] = p[i * r + r - 1];
    }
}

/* K M K (reverse rows and columns). */
static void exchange(int r, const rb_real *m, rb_real *out)
{
    rb_real t[RB_MAT_MAX] = {0};
    for (int i = 0; i < r; i++)
        for (int j = 0; j < r; j++)
            t[i * r + j] = m[(r - 1 - i) * r + (r - 1 - j)];
    rb_mat_copy(r, t, out);
}

/* Round a long double matrix into the plan's double storage. */
static void store(int r, const rb_real *m, double *dst)
{
    for (int i = 0; i < r * r; i++)
        dst[i] = (double)m[i];
}

/* ---- Series summed by running the recurrences (long double, plan time).
 * The closed forms (I - A^h)^-1, S_RF and friends are limits of Neumann
 * series of companion matrices; for clustered poles near the unit circle the
 * matrices are so ill-conditioned that inverting them (even in long double)
 * lost up to 1e-3. Summing the series by running the scalar recurrence is as
 * accurate as the recurrence itself, and only costs O(r * decay) at plan time. */

/* Samples until the impulse response of y_i = -sum d_k y_{i-k} is below
 * `tol` of its peak for good; -1 when it has not decayed after RB_DECAY_CAP
 * samples (a pole on the unit circle that rounding let through the stability
 * test, or one so near it that planning would take minutes: found by fuzzing). */
#define RB_DECAY_CAP (1L << 25) /* 9x the decay of a sigma 1e5 Gaussian (3.6M) */
static long decay_steps(const double *d, int r, long double tol)
{
    long double h[RB_MAX_ORDER] = {0}, peak = 0;
    long last = 0;
    for (long i = 0;; i++) {
        if (i == RB_DECAY_CAP)
            return -1;
        long double v = i == 0 ? 1.0L : 0.0L;
        for (int k = 0; k < r; k++)
            v -= d[k] * h[k];
        for (int k = r - 1; k > 0; k--)
            h[k] = h[k - 1];
        if (r > 0)
            h[0] = v;
        long double m = fabsl(v);
        if (m > peak)
            peak = m;
        if (m > tol * peak)
            last = i;
        if (i - last > 256 && i - last > last / 4)
            break;
    }
    return last + 1;
}

/* out[r x r] = sum_{k>=0} (A^h)^k for the causal companion of d: column j
 * sums the states of the homogeneous recurrence started from e_j, taken every
 * h steps. reversed = 1 builds the anticausal version (state [z_h..z_{h+r-1}]). */
static void series_power_sum(const double *d, int r, unsigned long h, long steps, int reversed,
                             rb_real *out)
{
    /* terms until the state has died out (after `steps`), at least one period */
    long total = (long)h > steps ? 0 : steps + (long)h; /* A^h below 1e-21: the sum is I */
    for (int j = 0; j < r; j++) {
        rb_real w[RB_MAX_ORDER], acc[RB_MAX_ORDER]; /* w[i]: the last r values, oldest first */
        for (int i = 0; i < r; i++)
            w[i] = acc[i] = (reversed ? (r - 1 - i) : i) == j ? 1.0L : 0.0L;
        for (long s = 1; s <= total; s++) {
            rb_real v = 0;
            for (int k = 1; k <= r; k++)
                v -= d[k - 1] * w[r - k];
            for (int i = 0; i + 1 < r; i++)
                w[i] = w[i + 1];
            w[r - 1] = v;
            if ((unsigned long)s % h == 0)
                for (int i = 0; i < r; i++)
                    acc[i] += w[i];
        }
        for (int i = 0; i < r; i++)
            out[(reversed ? r - 1 - i : i) * r + j] = acc[i];
    }
}

/* A tail through both passes: the causal recursion over y[r .. total-1]
 * from the states y[0 .. r-1] with constant input `in`, then the anticausal
 * one from the far end, its states all z_end there; z: its r states at y[r]
 * (z[k] = z_{r+k}). */
static void tail_through_both(const rb_axis *ax, int r, rb_real *y, long total, rb_real in, rb_real z_end,
                              rb_real *z)
{
    for (long t = r; t < total; t++) {
        rb_real v = in;
        for (int k = 1; k <= r; k++)
            v -= ax->dc[k - 1] * y[t - k];
        y[t] = v;
    }
    for (int k = 0; k < r; k++)
        z[k] = z_end; /* z[k] = z_{t+1+k} */
    for (long t = total - 1; t >= r; t--) {
        rb_real v = y[t];
        for (int k = 0; k < r; k++)
            v -= ax->da[k] * z[k];
        for (int k = r - 1; k > 0; k--)
            z[k] = z[k - 1];
        z[0] = v;
    }
}

/* (44) by the series: e(Z) = M44 e_{-1}(Y) + v44 C for a causal tail that
 * starts from state e_{-1}(Y) with constant input C beyond the line. */
static int series_epilogue(const rb_axis *ax, int r, long steps, rb_real *M44, rb_real *v44)
{
    long total = 2 * steps + 2 * r;
    rb_real *y = malloc(sizeof(rb_real) * (size_t)total);
    if (!y)
        return 0;
    rb_real sc = 1, sa = 1;
    for (int k = 0; k < r; k++) {
        sc += ax->dc[k];
        sa += ax->da[k];
    }
    for (int j = 0; j <= r; j++) { /* j == r: the constant input */
        rb_real in = j == r ? 1.0L : 0.0L;
        for (int i = 0; i < r; i++)
            y[i] = i == j ? 1.0L : 0.0L;
        /* the anticausal pass starts where y has reached its steady state */
        rb_real z[RB_MAX_ORDER];
        tail_through_both(ax, r, y, total, in, in / sc / sa, z);
        for (int i = 0; i < r; i++) {
            if (j < r)
                M44[i * r + j] = z[i];
            else
                v44[i] = z[i];
        }
    }
    free(y);
    return 1;
}

/* M44 in backward differences: column k is e(Z) after a causal state whose
 * k-th backward difference at y_{-1} is 1 and the others 0, i.e.
 * y_{-1-t} = (-1)^k C(t, k) (Newton's backward formula), zero input beyond.
 * For poles near 1, M44's own columns are huge and cancel on the nearly equal
 * samples of a real state (off by 1e0 at sigma 2000 even in long double);
 * in differences each column meets a coordinate of its own size, and the
 * recurrences here run from small integer states, in long double. */
static int series_epilogue_differences(const rb_axis *ax, int r, long steps, rb_real *Md)
{
    long total = 2 * steps + 2 * r;
    rb_real *y = malloc(sizeof(rb_real) * (size_t)total);
    if (!y)
        return 0;
    for (int k = 0; k < r; k++) {
        for (int t = 0; t < r; t++) { /* y[r-1-t] = y_{-1-t} = (-1)^k C(t, k) */
            rb_real c = 0;
            if (t >= k) {
                c = 1;
                for (int i = 0; i < k; i++)
                    c = c * (rb_real)(t - i) / (rb_real)(i + 1);
            }
            y[r - 1 - t] = (k % 2) ? -c : c;
        }
        rb_real z[RB_MAX_ORDER];
        tail_through_both(ax, r, y, total, 0, 0, z);
        for (int i = 0; i < r; i++)
            Md[i * r + k] = z[i];
    }
    free(y);
    return 1;
}

/* The probe's LCG state after k steps from s (Brown's jump-ahead: the affine
 * map s -> a s + c composed k times, mod 2^32). */
static uint32_t probe_skip(uint32_t s, uint64_t k)
{
    uint32_t am = 1u, ap = 0u, cm = 1664525u, cp = 1013904223u;
    for (; k; k >>= 1) {
        if (k & 1) {
            am *= cm;
            ap = ap * cm + cp;
        }
        cp *= cm + 1u;
        cm *= cm;
    }
    return am * s + ap;
}

/* Run a deterministic probe line (constant 0.37 outside for the constant
 * mode) through two routes; 1 when they agree to 1e-6 (relative RMS: well
 * inside float32 output accuracy targets, well outside both routes' own
 * double rounding when they are sound). *diff gets the difference.
 *
 * Long lines are probed on their two ends only: both routes run the same
 * recurrence and differ only in the states they start from at each end, whose
 * effect is below 1e-13 of the peak after `reach` samples (the padding's own
 * criterion), and once n > reach the plan's matrices no longer depend on n
 * (A^n below 1e-21: the series of (49)/(51) are I, the A^n terms of (67)
 * vanish). So for n > 2 (reach + margin) the probe is the first and the last
 * half of L = 2 (reach + margin) samples of the n-sample probe's data, joined
 * in the middle (the join lies beyond both ends' reach, and both routes see
 * it alike): the squared difference is the full probe's to 1e-13, and the
 * reference energy is scaled by n / L (the interior is stationary noise), so
 * it decides as the n-sample probe does, in O(reach) instead of O(n) (an
 * order-1 probe of 2^24 samples took most of a 335 ms GPU call whose kernel
 * runs 0.08 ms). */
static int routes_agree(const rb_axis_plan *pa, const rb_axis_plan *pb, long reach, double *diff)
{
    rb_axis_plan a = *pa, b = *pb;
    const long n = pa->n, margin = 1024 + (long)pa->fir_ext;
    const long L = reach >= 0 && n > 2 * (reach + margin) ? 2 * (reach + margin) : n;
    a.n = b.n = (int)L;
    const rb_lane cval = 0.37;
    rb_line_layout la, lb;
    rb_line_layout_get(&a, &la);
    rb_line_layout_get(&b, &lb);
    size_t na = (size_t)(la.in_len + la.work_len), nb = (size_t)(lb.in_len + lb.work_len);
    rb_lane *xa = malloc(sizeof(rb_lane) * na), *xb = malloc(sizeof(rb_lane) * nb);
    int agree = 0;
    if (xa && xb) {
        uint32_t s = 12345u;
        for (long i = 0; i < L; i++) {
            if (L < n && i == L / 2) /* the tail: the full line's samples n - (L - L/2) .. n-1 */
                s = probe_skip(12345u, (uint64_t)(n - (L - i)));
            s = s * 1664525u + 1013904223u;
            xa[la.lead + i] = xb[lb.lead + i] = (double)(s >> 8) / 8388608.0 - 1.0;
        }
        const rb_lane *ya = rb_line_solve(&a, 1, xa, xa + la.in_len, &cval);
        const rb_lane *yb = rb_line_solve(&b, 1, xb, xb + lb.in_len, &cval);
        double num = 0, den = 0;
        for (long i = 0; i < L; i++) {
            num += (ya[i] - yb[i]) * (ya[i] - yb[i]);
            den += yb[i] * yb[i];
        }
        den *= (double)n / (double)L;
        agree = num <= 1e-12 * den;
        if (diff)
            *diff = den > 0 ? sqrt(num / den) : sqrt(num);
    }
    free(xa);
    free(xb);
    return agree;
}

/* Padding of the padded route: the transients' decay plus the FIR reach. */
static int padding(long steps, int fir_ext)
{
    long p = steps + fir_ext + 8;
    return p > (1L << 28) ? (1 << 28) : (int)p;
}

/* out = (I - a)^-1, the resolvent of the closed forms (43), (44), (67);
 * t: scratch. 0 when I - a is singular. */
static int inverse_of_i_minus(int r, const rb_real *I, const rb_real *a, rb_real *t, rb_real *out)
{
    rb_mat_sub(r, I, a, t);
    return rb_mat_inverse(r, t, out);
}

static rb_status singular(rb_context *ctx, const char *what)
{
    return rb_error(ctx, RB_ERR_UNSTABLE,
                    "exact boundary: the %s matrix is singular (filter too close to unstable)", what);
}

rb_status rb_axis_plan_init(rb_context *ctx, const rb_axis *ax, rb_boundary_mode mode, int n,
                            rb_axis_plan *out)
{
    if (!ax || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_axis_plan_init: NULL argument");
    if (n < 1)
        return rb_error(ctx, RB_ERR_SIZE, "line length %d must be at least 1", n);
    memset(out, 0, sizeof *out);
    out->ax = *ax;
    out->n = n;
    out->mode = mode;
    if (!ax->active)
        return RB_OK;
    if (ax->fir) {
        int e = -ax->fir_lo > ax->fir_hi ? -ax->fir_lo : ax->fir_hi;
        out->fir_ext = e > 0 ? e : 0;
    }
    const int r = ax->r;
    if (r == 0)
        return RB_OK;

    rb_real AF[RB_MAT_MAX], AbF[RB_MAT_MAX], AR[RB_MAT_MAX], AbR[RB_MAT_MAX];
    rb_real AFr[RB_MAT_MAX], ARr[RB_MAT_MAX], I[RB_MAT_MAX], t[RB_MAT_MAX], u[RB_MAT_MAX];
    companion(r, ax->dc, AF);
    abar(r, AF, AbF);
    companion(r, ax->da, t);
    abar(r, t, u);
    exchange(r, t, AR);  /* A_R = K A_F(da) K */
    exchange(r, u, AbR); /* Abar_R = K Abar_F(da) K */
    rb_mat_pow(r, AF, (unsigned long)r, AFr);
    rb_mat_pow(r, AR, (unsigned long)r, ARr);
    rb_mat_identity(r, I);
    /* long double sums: for poles near 1, 1 + sum d is tiny and cancels */
    long double sc = 1.0L, sa = 1.0L;
    for (int k = 0; k < r; k++) {
        sc += ax->dc[k];
        sa += ax->da[k];
    }
    out->prologue_dc = (double)(1.0L / sc);
    out->anticausal_dc = (double)(1.0L / sa);

    /* series: terms below 1e-21 of the peak; padded route: transients below
     * 1e-13 of the peak (far below float32 output resolution) */
    long steps_c = decay_steps(ax->dc, r, 1e-21L);
    long steps_a = steps_c < 0 ? -1 : decay_steps(ax->da, r, 1e-21L);
    if (steps_c < 0 || steps_a < 0)
        return rb_error(ctx, RB_ERR_UNSTABLE,
                        "exact boundary: the %s feedback's impulse response has not decayed after "
                        "%ld samples (a pole on or too near the unit circle)",
                        steps_c < 0 ? "causal" : "anticausal", RB_DECAY_CAP);
    long steps = steps_c > steps_a ? steps_c : steps_a;
    long pc = decay_steps(ax->dc, r, 1e-13L), pa = decay_steps(ax->da, r, 1e-13L);
    long pad_steps = pc > pa ? pc : pa;
    out->pad_need = padding(pad_steps, out->fir_ext);

    switch (mode) {
    case RB_BOUNDARY_ZERO:
    case RB_BOUNDARY_CONSTANT:
    case RB_BOUNDARY_CLAMP: {
        rb_real M44s[RB_MAT_MAX], v44s[RB_MAX_ORDER];
        if (steps <= (4L << 20) && series_epilogue(ax, r, steps, M44s, v44s)) {
            store(r, M44s, out->M44);
            for (int k = 0; k < r; k++)
                out->v44[k] = (double)v44s[k];
            break;
        }
        /* too slow to die out for the series: the closed form */
        /* (44): e(Z) = S_RF A_F^r e_{-1}(Y) + (S_R Abar_R - S_RF A_F^r) S_F Abar_F [c..c] */
        rb_real SF[RB_MAT_MAX], SR[RB_MAT_MAX], SRF[RB_MAT_MAX], w[RB_MAX_ORDER], ones[RB_MAX_ORDER];
        if (!inverse_of_i_minus(r, I, AFr, t, SF))
            return singular(ctx, "I - A_F^r");
        if (!inverse_of_i_minus(r, I, ARr, t, SR))
            return singular(ctx, "I - A_R^r");
        if (!rb_stein_solve(r, ARr, AFr, AbR, SRF)) /* (43) */
            return singular(ctx, "Stein (43)");
        rb_real M44[RB_MAT_MAX];
        rb_mat_mul(r, SRF, AFr, M44);
        store(r, M44, out->M44);
        rb_mat_mul(r, SR, AbR, t);
        rb_mat_sub(r, t, M44, t);
        rb_mat_mul(r, t, SF, t);
        rb_mat_mul(r, t, AbF, t);
        for (int k = 0; k < r; k++)
            ones[k] = 1.0;
        rb_mat_vec(r, t, ones, w);
        for (int k = 0; k < r; k++)
            out->v44[k] = (double)w[k];
        break;
    }
    case RB_BOUNDARY_MIRROR: {
        int sym_ok = 0;
        if (ax->symmetric && ax->causal_order > 0) {
            /* (67) corrected and (72), FORMULAS.md */
            rb_real AFh[RB_MAT_MAX], AF2h[RB_MAT_MAX], ARh[RB_MAT_MAX], iAbF[RB_MAT_MAX],
                S2[RB_MAT_MAX], K[RB_MAT_MAX];
            int ok = 1;
            rb_mat_pow(r, AF, (unsigned long)n, AFh);
            rb_mat_mul(r, AFh, AFh, AF2h);
            rb_mat_pow(r, AR, (unsigned long)n, ARh);
            ok = ok && inverse_of_i_minus(r, I, AF2h, t, S2);
            ok = ok && rb_mat_inverse(r, AbF, iAbF);
            memset(K, 0, sizeof K);
            for (int i = 0; i < r; i++)
                K[i * r + r - 1 - i] = 1.0;
            /* M67z = S2 K Abar_F^-1 (I - A_F^r A_R^r) */
            rb_mat_mul(r, AFr, ARr, t);
            rb_mat_sub(r, I, t, t);
            rb_mat_mul(r, iAbF, t, t);
            rb_mat_mul(r, K, t, t);
            rb_mat_mul(r, S2, t, u);
            store(r, u, out->M67z);
            /* M67y = S2 (A_F^h + K A_R^h Abar_F^-1 A_F^r Abar_R) */
            rb_mat_mul(r, AFr, AbR, t);
            rb_mat_mul(r, iAbF, t, t);
            rb_mat_mul(r, ARh, t, t);
            rb_mat_mul(r, K, t, t);
            for (int i = 0; i < r * r; i++)
                t[i] += AFh[i];
            rb_mat_mul(r, S2, t, u);
            store(r, u, out->M67y);
            store(r, AFh, out->AFh);
            /* M72 = (K - A_R^r)^-1 Abar_R */
            rb_mat_sub(r, K, ARr, t);
            ok = ok && rb_mat_inverse(r, t, u);
            rb_mat_mul(r, u, AbR, u);
            store(r, u, out->M72);
            sym_ok = ok;
        }
        /* The mirror extension is 2n-periodic: (49)/(51) on the mirrored 2n line
         * is exact for every axis. The symmetric closed forms are cheaper (no
         * doubled line) but their matrices can be ill-conditioned for
         * clustered poles near the unit circle, so a probe line decides. */
        if (n > INT_MAX / 2) {
            if (!sym_ok)
                return rb_error(ctx, RB_ERR_SIZE, "mirror boundary: line of %d samples too long", n);
            break;
        }
        series_power_sum(ax->dc, r, 2ul * (unsigned long)n, steps_c, 0, u);
        store(r, u, out->Pf);
        series_power_sum(ax->da, r, 2ul * (unsigned long)n, steps_a, 1, u);
        store(r, u, out->Pr);
        out->mirror_via_periodic = 1;
        if (sym_ok) { /* the symmetric closed forms, if they hold up against the padding */
            rb_axis_plan sym = *out, pad = *out;
            sym.mirror_via_periodic = 0;
            pad.mirror_via_periodic = 0;
            pad.padded = 1;
            pad.pad = padding(pad_steps, out->fir_ext);
            if (routes_agree(&sym, &pad, steps, NULL))
                out->mirror_via_periodic = 0;
        }
        break;
    }
    case RB_BOUNDARY_PERIODIC: {
        unsigned long h = out->mirror_via_periodic ? 2ul * (unsigned long)n : (unsigned long)n;
        /* (49), (51): (I - A^h)^-1 = sum_k A^(hk), summed by the recurrence */
        series_power_sum(ax->dc, r, h, steps_c, 0, u);
        store(r, u, out->Pf);
        series_power_sum(ax->da, r, h, steps_a, 1, u);
        store(r, u, out->Pr);
        break;
    }
    case RB_BOUNDARY_NONE:
        return RB_OK;
    default:
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown boundary mode %d", (int)mode);
    }
    /* Check the chosen closed form against the padded route on a probe line;
     * for poles very near 1 (wide Gaussians) the closed forms lose everything
     * to cancellation and the padded route takes over. */
    {
        rb_axis_plan pad = *out;
        pad.mirror_via_periodic = 0;
        pad.padded = 1;
        pad.pad = padding(pad_steps, out->fir_ext);
        double diff = 0;
        if (!routes_agree(out, &pad, steps, &diff)) {
            out->padded = 1;
            out->pad = pad.pad;
            out->mirror_via_periodic = 0;
            /* Constant modes: what cancels in (44) is mostly the steady
             * states' own part (|v44 C| and |M44 ys| huge, their sum zs);
             * taken relative to them it may hold, and then the CPU routes
             * need no padding at all (the padded route's causal pass only
             * stays at the steady state over the leading pad, and over the
             * trailing one runs the map M44 takes the distance from it by). */
            rb_axis_plan steady = *out;
            steady.steady_epilogue = 1;
            double sdiff = 0;
            rb_real Md[RB_MAT_MAX];
            if (!(ctx && ctx->sw.cpu_padded) &&
                (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT ||
                 mode == RB_BOUNDARY_CLAMP) &&
                ax->causal_order > 0 && steps <= (4L << 20) &&
                series_epilogue_differences(ax, r, steps, Md) &&
                (store(r, Md, steady.M44d), routes_agree(&steady, &pad, steps, &sdiff))) {
                memcpy(out->M44d, steady.M44d, sizeof out->M44d);
                out->steady_epilogue = 1;
                rb_log(ctx, "recblur: line of %d: closed-form boundaries ill-conditioned for this "
                            "filter (off by %.1e); (44) from the steady states holds (off by "
                            "%.1e): no padding on the CPU", n, diff, sdiff);
            } else
                rb_log(ctx, "recblur: line of %d: closed-form boundaries ill-conditioned for this "
                            "filter (off by %.1e; from the steady states %.1e), using a padding of "
                            "%d samples (exact, slower)", n, diff, sdiff, out->pad);
        }
    }
    return RB_OK;
}

rb_axis_route rb_axis_plan_route(const rb_axis_plan *ap)
{
    if (!ap->ax.active || ap->mode == RB_BOUNDARY_NONE)
        return RB_AXIS_ROUTE_NONE;
    if (ap->padded)
        return ap->steady_epilogue ? RB_AXIS_ROUTE_STEADY_EPILOGUE : RB_AXIS_ROUTE_PADDED;
    return ap->mirror_via_periodic ? RB_AXIS_ROUTE_MIRROR_VIA_PERIODIC : RB_AXIS_ROUTE_CLOSED_FORM;
}

const char *rb_axis_route_name(rb_axis_route route)
{
    switch (route) {
    case RB_AXIS_ROUTE_NONE: return "none";
    case RB_AXIS_ROUTE_CLOSED_FORM: return "closed form";
    case RB_AXIS_ROUTE_MIRROR_VIA_PERIODIC: return "mirror via periodic";
    case RB_AXIS_ROUTE_PADDED: return "padded";
    case RB_AXIS_ROUTE_STEADY_EPILOGUE: return "steady-state epilogue";
    }
    return "?";
}
