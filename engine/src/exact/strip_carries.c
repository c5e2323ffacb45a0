/* The carries of a strip-streamed column pass (strip_carries.h): per-segment
 * matrices, and the closure that turns pass 1's zero-initialised heads into
 * the true anticausal state after every segment.
 *
 * By superposition (2011 paper, section 4: a block's output is its
 * zero-initialised output plus the responses to its incoming carries), with
 * y = Yhat + h(p) where h(p) is the homogeneous causal response to the true
 * prologue p = p(Y):
 *   head_k(y) = head_k(Yhat) + Q_k q_k,   q_0 = p, q_{k+1} = A_F^{len_k} q_k
 *   e_{k-1}   = head_k(y) + T_k e_k,      e_{K-1} = e(Z)
 * Q_k maps a causal state at the segment's start to the head of the
 * zero-initialised anticausal pass over its homogeneous response; T_k is the
 * 2011 paper's A_RB for a block of len_k (its head as a function of the state
 * after it, valid for len_k < r too). The boundary closures give p and e(Z)
 * from the same chained quantities. */
#include "strip_carries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rb_strip_kind_of(const rb_axis_plan *ap, const char **why)
{
    const int ext = ap->mode == RB_BOUNDARY_ZERO || ap->mode == RB_BOUNDARY_CONSTANT ||
                    ap->mode == RB_BOUNDARY_CLAMP;
    *why = "";
    if (ext)
        return ap->padded ? RB_STRIP_EXT_PADDED : RB_STRIP_EXT;
    if (ap->mode == RB_BOUNDARY_NONE)
        return RB_STRIP_NONE;
    if (ap->padded) {
        *why = "the column filter needs the padded route for this boundary (poles too near 1 "
               "for the closed forms), which reaches across the image's far end";
        return -1;
    }
    if (ap->mode == RB_BOUNDARY_PERIODIC)
        return RB_STRIP_PERIODIC;
    if (ap->mode == RB_BOUNDARY_MIRROR && !ap->mirror_via_periodic)
        return RB_STRIP_MIRROR;
    *why = "mirror boundary whose exact route for this column filter runs the mirrored line of "
           "2h rows (the filter is not symmetric, or its symmetric closed forms are "
           "ill-conditioned)";
    return -1;
}

long rb_strip_domain_ext(const rb_axis_plan *ap, rb_strip_kind kind)
{
    /* The padded route's top padding adds nothing: its causal pass starts
     * from the steady state of a constant input, and stays there until the
     * FIR reaches the image. Its bottom padding is run at the close
     * (padded_epilogue), one lane at a time, instead of being a segment. */
    return kind == RB_STRIP_EXT || kind == RB_STRIP_EXT_PADDED ? ap->fir_ext : 0;
}

/* The padded route's e(Z) at the end of the domain (n + E): the causal pass
 * goes on over the rest of the padding (pad - E rows of the constant C1)
 * from e_{-1}(Y), the anticausal pass comes back from the steady state at
 * n + pad, as line_solver.c's padded route does. Lane by lane: pad doubles. */
static int padded_epilogue(const rb_axis_plan *ap, long L, const double *ey, const double *C1,
                           double *e)
{
    const rb_axis *ax = &ap->ax;
    const int r = ax->r;
    const long T = ap->pad - ap->fir_ext > 0 ? ap->pad - ap->fir_ext : 0;
    double *w = malloc(sizeof(double) * (size_t)(T + 2 * r));
    if (!w)
        return 0;
    for (long l = 0; l < L; l++) {
        for (int k = 0; k < r; k++)
            w[k] = ey[k * L + l];
        for (long i = 0; i < T; i++) {
            double acc = C1[l];
            for (int k = 1; k <= r; k++)
                acc -= ax->dc[k - 1] * w[r + i - k];
            w[r + i] = acc;
        }
        const double steady = C1[l] * ap->prologue_dc * ap->anticausal_dc;
        for (int k = 0; k < r; k++)
            w[r + T + k] = steady;
        for (long i = T - 1; i >= 0; i--) {
            double acc = w[r + i];
            for (int k = 1; k <= r; k++)
                acc -= ax->da[k - 1] * w[r + i + k];
            w[r + i] = acc;
        }
        for (int k = 0; k < r; k++)
            e[k * L + l] = w[r + k];
    }
    free(w);
    return 1;
}

/* A_F^len, T (= A_RB) and Q for a segment of len rows, by running the
 * recurrences from unit states in long double (plan-time accuracy). */
static int seg_matrices(const rb_axis *ax, long len, long double *AF, long double *T,
                        long double *Q)
{
    const int r = ax->r;
    long double *w = malloc(sizeof(long double) * (size_t)(len + 2 * r));
    if (!w)
        return 0;
    for (int j = 0; j < r; j++) {
        /* causal: w[0..r) the state, w[r + i] row i of the segment */
        for (int i = 0; i < r; i++)
            w[i] = i == j;
        for (long i = 0; i < len; i++) {
            long double v = 0;
            for (int k = 1; k <= r; k++)
                v -= ax->dc[k - 1] * w[r + i - k];
            w[r + i] = v;
        }
        for (int i = 0; i < r; i++)
            AF[i * r + j] = w[len + i];
        /* zero-initialised anticausal over the segment's rows: its head is Q e_j */
        for (int i = 0; i < r; i++)
            w[r + len + i] = 0;
        for (long i = len - 1; i >= 0; i--) {
            long double v = w[r + i];
            for (int k = 1; k <= r; k++)
                v -= ax->da[k - 1] * w[r + i + k];
            w[r + i] = v;
        }
        for (int i = 0; i < r; i++)
            Q[i * r + j] = w[r + i];
        /* homogeneous anticausal from the unit state after the segment: T e_j */
        for (int i = 0; i < r; i++)
            w[len + i] = i == j;
        for (long i = len - 1; i >= 0; i--) {
            long double v = 0;
            for (int k = 1; k <= r; k++)
                v -= ax->da[k - 1] * w[i + k];
            w[i] = v;
        }
        for (int i = 0; i < r; i++)
            T[i * r + j] = w[i];
    }
    free(w);
    return 1;
}

/* out = M v (+ add), per lane, summed in long double as the line solver's
 * mat_lanes does (the closures' terms cancel for poles near 1). out must not
 * alias v; add may alias out. */
static void mat_lanes(int r, long L, const double *M, const double *v, const double *add,
                      double *out)
{
    for (long l = 0; l < L; l++)
        for (int k = 0; k < r; k++) {
            long double acc = add ? (long double)add[k * L + l] : 0.0L;
            for (int j = 0; j < r; j++)
                acc += (long double)M[k * r + j] * v[j * L + l];
            out[k * L + l] = (double)acc;
        }
}

/* The same with a long double matrix: the segment matrices stay in long
 * double, for clustered poles near 1 (wide Gaussians) their entries are
 * large and cancel (a 4th-order state carried over 64 rows: entries ~1e5),
 * and rounding them to double cost 1e-3 of the result at sigma 1000. */
static void mat_lanes_l(int r, long L, const long double *M, const double *v, const double *add,
                        double *out)
{
    for (long l = 0; l < L; l++)
        for (int k = 0; k < r; k++) {
            long double acc = add ? (long double)add[k * L + l] : 0.0L;
            for (int j = 0; j < r; j++)
                acc += M[k * r + j] * v[j * L + l];
            out[k * L + l] = (double)acc;
        }
}

/* The causal response to state q (and the input delta on rows < s0) over a
 * segment starting at row b, done row by row: its zero-initialised
 * anticausal head into corr, the state after it into q. A block of lanes at
 * a time, so the scratch is len rows of a block, not of the width. 0 when
 * out of memory. */
static int explicit_segment(const rb_axis *ax, long L, long b, long len, const double *delta,
                            long s0, double *q, double *corr)
{
    enum { BLOCK = 64 };
    const int r = ax->r;
    double *w = malloc(sizeof(double) * (size_t)(len + 2 * r) * BLOCK);
    if (!w)
        return 0;
    for (long b0 = 0; b0 < L; b0 += BLOCK) {
        const long nb = L - b0 < BLOCK ? L - b0 : BLOCK;
        for (int t = 0; t < r; t++)
            memcpy(w + t * nb, q + t * L + b0, sizeof(double) * (size_t)nb);
        for (long i = 0; i < len; i++) {
            double *o = w + (r + i) * nb;
            const double *x = b + i < s0 ? delta + (b + i) * L + b0 : NULL;
            for (long l = 0; l < nb; l++) {
                double acc = x ? x[l] : 0.0;
                for (int k = 1; k <= r; k++)
                    acc -= ax->dc[k - 1] * o[l - k * nb];
                o[l] = acc;
            }
        }
        for (int t = 0; t < r; t++)
            memcpy(q + t * L + b0, w + (len + t) * nb, sizeof(double) * (size_t)nb);
        memset(w + (r + len) * nb, 0, sizeof(double) * (size_t)(r * nb));
        for (long i = len - 1; i >= 0; i--) {
            double *o = w + (r + i) * nb;
            for (long l = 0; l < nb; l++) {
                double acc = o[l];
                for (int k = 1; k <= r; k++)
                    acc -= ax->da[k - 1] * o[l + k * nb];
                o[l] = acc;
            }
        }
        for (int t = 0; t < r; t++)
            memcpy(corr + t * L + b0, w + (r + t) * nb, sizeof(double) * (size_t)nb);
    }
    free(w);
    return 1;
}

typedef struct {
    long double AF[RB_MAX_ORDER * RB_MAX_ORDER], T[RB_MAX_ORDER * RB_MAX_ORDER],
        Q[RB_MAX_ORDER * RB_MAX_ORDER];
} seg_mats;

/* q runs down the segments from q0 (the homogeneous causal response, plus
 * the periodic delta's); add: head_k += Q_k q_k (the true heads). Segments
 * that hold delta rows go row by row. q ends as the state after the last.
 * 0 when out of memory. */
static int forward_chain(rb_strip_close_args *a, const seg_mats *m, double *q, int add,
                         double *t1, double *t2)
{
    const rb_axis *ax = &a->ap->ax;
    const int r = ax->r;
    const long L = a->L;
    long b = 0; /* delta only for periodic, whose domain starts at row 0 */
    for (int k = 0; k < a->K; k++) {
        double *head = a->carry + (size_t)k * r * L;
        if (a->delta && b < a->s0) {
            if (!explicit_segment(ax, L, b, a->seg_len[k], a->delta, a->s0, q, t1))
                return 0;
        } else {
            mat_lanes_l(r, L, m[k].Q, q, NULL, t1);
            mat_lanes_l(r, L, m[k].AF, q, NULL, t2);
            memcpy(q, t2, sizeof(double) * (size_t)(r * L));
        }
        if (add)
            for (long i = 0; i < r * L; i++)
                head[i] += t1[i];
        b += a->seg_len[k];
    }
    return 1;
}

/* g = the head of the zero-initialised anticausal pass over the whole
 * domain, from the per-segment heads: g = head_k + T_k g, upwards from 0. */
static void head_chain(const rb_strip_close_args *a, const seg_mats *m, double *g, double *t)
{
    const int r = a->ap->ax.r;
    const long L = a->L;
    memset(g, 0, sizeof(double) * (size_t)(r * L));
    for (int k = a->K - 1; k >= 0; k--) {
        mat_lanes_l(r, L, m[k].T, g, a->carry + (size_t)k * r * L, t);
        memcpy(g, t, sizeof(double) * (size_t)(r * L));
    }
}

rb_status rb_strip_close(rb_context *ctx, rb_strip_close_args *a)
{
    const rb_axis_plan *ap = a->ap;
    const rb_axis *ax = &ap->ax;
    const int r = ax->r, has_c = ax->causal_order > 0, has_a = ax->anticausal_order > 0;
    const long L = a->L;
    const size_t rl = (size_t)r * (size_t)L;
    if (r == 0)
        return RB_OK;
    seg_mats *m = malloc(sizeof *m * (size_t)a->K);
    double *q = malloc(sizeof(double) * rl * 4);
    if (!m || !q) {
        free(m);
        free(q);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the strips' carries");
    }
    double *e = q + rl, *t1 = e + rl, *t2 = t1 + rl;
    for (int k = 0; k < a->K; k++)
        if (!seg_matrices(ax, a->seg_len[k], m[k].AF, m[k].T, m[k].Q)) {
            free(m);
            free(q);
            return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the strips' carries");
        }

    memset(a->p, 0, sizeof(double) * rl);
    switch (a->kind) {
    case RB_STRIP_EXT:
    case RB_STRIP_EXT_PADDED:
        /* (35): the DC response of the top value in every slot */
        if (has_c)
            for (int k = 0; k < r; k++)
                for (long l = 0; l < L; l++)
                    a->p[k * L + l] = a->C0[l] * ap->prologue_dc;
        if (!has_a)
            break;
        memcpy(q, a->p, sizeof(double) * rl);
        if (!forward_chain(a, m, q, 1, t1, t2))
            goto nomem;
        if (a->kind == RB_STRIP_EXT_PADDED && has_c) {
            for (size_t i = 0; i < rl; i++)
                t1[i] = q[i] + a->yend[i];
            if (!padded_epilogue(ap, L, t1, a->C1, e))
                goto nomem;
        } else if (a->kind == RB_STRIP_EXT && has_c) {
            /* (44): e(Z) = S_RF A_F^r e_{-1}(Y) + (..) C1, e_{-1}(Y) = A_F^h p + e_{-1}(Yhat) */
            for (size_t i = 0; i < rl; i++)
                t1[i] = q[i] + a->yend[i];
            for (int k = 0; k < r; k++)
                for (long l = 0; l < L; l++)
                    t2[k * L + l] = ap->v44[k] * a->C1[l];
            mat_lanes(r, L, ap->M44, t1, t2, e);
        } else {
            /* anticausal only: the steady state of the bottom value */
            const double g = ap->anticausal_dc;
            for (int k = 0; k < r; k++)
                for (long l = 0; l < L; l++)
                    e[k * L + l] = a->C1[l] * g;
        }
        break;
    case RB_STRIP_NONE:
        memset(e, 0, sizeof(double) * rl);
        break;
    case RB_STRIP_PERIODIC:
        if (has_c) {
            /* (49): p = (I - A_F^h)^-1 e_{-1}(Yhat), Yhat with the delta rows in */
            memset(q, 0, sizeof(double) * rl);
            if (a->delta && !forward_chain(a, m, q, 0, t1, t2))
                goto nomem;
            for (size_t i = 0; i < rl; i++)
                t1[i] = q[i] + a->yend[i];
            mat_lanes(r, L, ap->Pf, t1, NULL, a->p);
        }
        if (!has_a)
            break;
        memcpy(q, a->p, sizeof(double) * rl);
        if (!forward_chain(a, m, q, 1, t1, t2))
            goto nomem;
        /* (51): e(Z) = (I - A_R^h)^-1 p_1(R(Y, 0)) */
        head_chain(a, m, t1, t2);
        mat_lanes(r, L, ap->Pr, t1, NULL, e);
        break;
    case RB_STRIP_MIRROR:
        /* (67) corrected: p = M67z p_1(Zhat) + M67y e_{-1}(Yhat) */
        head_chain(a, m, t1, t2);
        mat_lanes(r, L, ap->M67z, t1, NULL, t2);
        mat_lanes(r, L, ap->M67y, a->yend, t2, a->p);
        memcpy(q, a->p, sizeof(double) * rl);
        if (!forward_chain(a, m, q, 1, t1, t2))
            goto nomem;
        /* (72): e(Z) = (K - A_R^r)^-1 Abar_R (A_F^h p + e_{-1}(Yhat)) */
        for (size_t i = 0; i < rl; i++)
            t1[i] = q[i] + a->yend[i];
        mat_lanes(r, L, ap->M72, t1, NULL, e);
        break;
    }
    if (has_a) {
        /* e_{k-1} = head_k(y) + T_k e_k, from e_{K-1} = e(Z) upwards */
        for (int k = a->K - 1; k >= 0; k--) {
            double *c = a->carry + (size_t)k * rl;
            mat_lanes_l(r, L, m[k].T, e, c, t1);
            memcpy(c, e, sizeof(double) * rl);
            memcpy(e, t1, sizeof(double) * rl);
        }
    }
    free(m);
    free(q);
    return RB_OK;
nomem:
    free(m);
    free(q);
    return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the strips' carries");
}
