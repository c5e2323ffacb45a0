/* rb_axis_plan_init: the r x r matrices of the exact initial feedbacks of the
 * 2016 paper (Nehab & Maximo) for one axis, one line length and one boundary
 * mode, computed in double at plan time. Conventions and the corrected (67)
 * are those of FORMULAS.md. */
#include "rb_internal.h"
#include "matrix.h"

#include <limits.h>
#include <string.h>

/* A_F: ones on the superdiagonal, last row [-d_r ... -d_1]. */
static void companion(int r, const double *d, double *a)
{
    memset(a, 0, sizeof(double) * (size_t)(r * r));
    for (int i = 0; i + 1 < r; i++)
        a[i * r + i + 1] = 1.0;
    for (int j = 0; j < r; j++)
        a[(r - 1) * r + j] = -d[r - 1 - j];
}

/* Abar_F: column k is the last column of A_F^(r-1-k). */
static void abar(int r, const double *af, double *out)
{
    double p[RB_MAT_MAX];
    for (int k = 0; k < r; k++) {
        rb_mat_pow(r, af, (unsigned long)(r - 1 - k), p);
        for (int i = 0; i < r; i++)
            out[i * r + k] = p[i * r + r - 1];
    }
}

/* K M K (reverse rows and columns). */
static void exchange(int r, const double *m, double *out)
{
    double t[RB_MAT_MAX];
    for (int i = 0; i < r; i++)
        for (int j = 0; j < r; j++)
            t[i * r + j] = m[(r - 1 - i) * r + (r - 1 - j)];
    rb_mat_copy(r, t, out);
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

    double AF[RB_MAT_MAX], AbF[RB_MAT_MAX], AR[RB_MAT_MAX], AbR[RB_MAT_MAX];
    double AFr[RB_MAT_MAX], ARr[RB_MAT_MAX], I[RB_MAT_MAX], t[RB_MAT_MAX], u[RB_MAT_MAX];
    companion(r, ax->dc, AF);
    abar(r, AF, AbF);
    companion(r, ax->da, t);
    abar(r, t, u);
    exchange(r, t, AR);  /* A_R = K A_F(da) K */
    exchange(r, u, AbR); /* Abar_R = K Abar_F(da) K */
    rb_mat_pow(r, AF, (unsigned long)r, AFr);
    rb_mat_pow(r, AR, (unsigned long)r, ARr);
    rb_mat_identity(r, I);
    double sc = 1.0, sa = 1.0;
    for (int k = 0; k < r; k++) {
        sc += ax->dc[k];
        sa += ax->da[k];
    }
    out->prologue_dc = 1.0 / sc;
    out->anticausal_dc = 1.0 / sa;

    switch (mode) {
    case RB_BOUNDARY_ZERO:
    case RB_BOUNDARY_CONSTANT:
    case RB_BOUNDARY_CLAMP: {
        /* (44): e(Z) = S_RF A_F^r e_{-1}(Y) + (S_R Abar_R - S_RF A_F^r) S_F Abar_F [c..c] */
        double SF[RB_MAT_MAX], SR[RB_MAT_MAX], SRF[RB_MAT_MAX], w[RB_MAX_ORDER], ones[RB_MAX_ORDER];
        rb_mat_sub(r, I, AFr, t);
        if (!rb_mat_inverse(r, t, SF))
            return singular(ctx, "I - A_F^r");
        rb_mat_sub(r, I, ARr, t);
        if (!rb_mat_inverse(r, t, SR))
            return singular(ctx, "I - A_R^r");
        if (!rb_stein_solve(r, ARr, AFr, AbR, SRF)) /* (43) */
            return singular(ctx, "Stein (43)");
        rb_mat_mul(r, SRF, AFr, out->M44);
        rb_mat_mul(r, SR, AbR, t);
        rb_mat_sub(r, t, out->M44, t);
        rb_mat_mul(r, t, SF, t);
        rb_mat_mul(r, t, AbF, t);
        for (int k = 0; k < r; k++)
            ones[k] = 1.0;
        rb_mat_vec(r, t, ones, w);
        memcpy(out->v44, w, sizeof(double) * (size_t)r);
        break;
    }
    case RB_BOUNDARY_MIRROR:
        if (ax->symmetric && ax->causal_order > 0) {
            /* (67) corrected and (72), FORMULAS.md */
            double AFh[RB_MAT_MAX], AF2h[RB_MAT_MAX], ARh[RB_MAT_MAX], iAbF[RB_MAT_MAX],
                S2[RB_MAT_MAX], K[RB_MAT_MAX];
            int ok = 1;
            rb_mat_pow(r, AF, (unsigned long)n, AFh);
            rb_mat_mul(r, AFh, AFh, AF2h);
            rb_mat_pow(r, AR, (unsigned long)n, ARh);
            rb_mat_sub(r, I, AF2h, t);
            ok = ok && rb_mat_inverse(r, t, S2);
            ok = ok && rb_mat_inverse(r, AbF, iAbF);
            memset(K, 0, sizeof K);
            for (int i = 0; i < r; i++)
                K[i * r + r - 1 - i] = 1.0;
            /* M67z = S2 K Abar_F^-1 (I - A_F^r A_R^r) */
            rb_mat_mul(r, AFr, ARr, t);
            rb_mat_sub(r, I, t, t);
            rb_mat_mul(r, iAbF, t, t);
            rb_mat_mul(r, K, t, t);
            rb_mat_mul(r, S2, t, out->M67z);
            /* M67y = S2 (A_F^h + K A_R^h Abar_F^-1 A_F^r Abar_R) */
            rb_mat_mul(r, AFr, AbR, t);
            rb_mat_mul(r, iAbF, t, t);
            rb_mat_mul(r, ARh, t, t);
            rb_mat_mul(r, K, t, t);
            for (int i = 0; i < r * r; i++)
                t[i] += AFh[i];
            rb_mat_mul(r, S2, t, out->M67y);
            rb_mat_copy(r, AFh, out->AFh);
            /* M72 = (K - A_R^r)^-1 Abar_R */
            rb_mat_sub(r, K, ARr, t);
            ok = ok && rb_mat_inverse(r, t, u);
            rb_mat_mul(r, u, AbR, out->M72);
            if (ok)
                break;
        }
        /* Non-symmetric axis: the mirror extension is 2n-periodic; use (49)/(51) on 2n. */
        if (n > INT_MAX / 2)
            return rb_error(ctx, RB_ERR_SIZE, "mirror boundary: line of %d samples too long", n);
        out->mirror_via_periodic = 1;
        /* fall through */
    case RB_BOUNDARY_PERIODIC: {
        unsigned long h = out->mirror_via_periodic ? 2ul * (unsigned long)n : (unsigned long)n;
        rb_mat_pow(r, AF, h, t);
        rb_mat_sub(r, I, t, t);
        if (!rb_mat_inverse(r, t, out->Pf)) /* (49) */
            return singular(ctx, "I - A_F^h");
        rb_mat_pow(r, AR, h, t);
        rb_mat_sub(r, I, t, t);
        if (!rb_mat_inverse(r, t, out->Pr)) /* (51) */
            return singular(ctx, "I - A_R^h");
        break;
    }
    case RB_BOUNDARY_NONE:
        break;
    default:
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown boundary mode %d", (int)mode);
    }
    return RB_OK;
}
