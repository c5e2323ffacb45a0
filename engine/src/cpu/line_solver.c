/* The exact per-axis 1D procedure on bundles of lanes (see line_solver.h).
 *
 * Per mode (FORMULAS.md conventions, 2016 paper's equation numbers):
 * - zero/constant/clamp: u = FIR(x) is constant only beyond distance E (the
 *   FIR reach) from the line, so both feedback passes run over [-E, n+E)
 *   (x extended by 2E), started by the prologue (35) and the epilogue (44).
 * - periodic: zero-initialised passes, then (49)/(51) give the true initial
 *   states and the homogeneous responses are added (superposition).
 * - mirror, symmetric axis: (67) corrected and (72); other axes: the mirror
 *   extension is 2n-periodic, so the mirrored 2n line goes the periodic way.
 * - none: input zero outside [0, n) for the FIR; the causal pass starts from a
 *   zero state at i = 0 and runs over [0, n), the anticausal pass starts from
 *   a zero state at i = n-1. Nothing is assumed beyond the line.
 * Feedback states are combined in double; samples stay rb_lane32. */
#include "line_solver.h"

#include <math.h>
#include <stddef.h>
#include <string.h>


static int uses_extended_domain(rb_boundary_mode m)
{
    return m == RB_BOUNDARY_ZERO || m == RB_BOUNDARY_CONSTANT || m == RB_BOUNDARY_CLAMP;
}

/* A FIR of one tap at offset 0 is a gain: applied in place, no work buffer. */
static int fir_is_gain(const rb_axis *ax)
{
    return ax->fir && ax->fir_lo == 0 && ax->fir_hi == 0;
}

/* The padded route, unless the plan found (44) from the steady states sound. */
static int runs_padded(const rb_axis_plan *ap)
{
    return ap->padded && !ap->steady_epilogue;
}

/* Samples the feedback passes run beyond each end of the line: E for the
 * constant modes (u is constant only past the FIR reach), the padding for
 * the padded route, none otherwise. */

static long domain_ext(const rb_axis_plan *ap)
{
    if (runs_padded(ap))
        return ap->pad;
    return uses_extended_domain(ap->mode) ? ap->fir_ext : 0;
}

void rb_line_layout_get(const rb_axis_plan *ap, rb_line_layout *lay)
{
    long n = ap->n, E = ap->fir_ext, r = ap->ax.r, D = domain_ext(ap);
    long len = ap->mirror_via_periodic ? 2 * n : n;
    long m = len + 2 * D;                 /* feedback domain [-D, len + D) */
    if (ap->ax.fir && !fir_is_gain(&ap->ax)) {
        long xl = D + E;                  /* input reach each side */
        lay->lead = xl;
        lay->in_len = xl + len + xl;
        lay->work_len = m + 2 * r;
    } else {                              /* in place: r state slots each side */
        lay->lead = D + r;
        lay->in_len = D + r + len + D + r;
        lay->work_len = 0;
    }
    lay->work_len += RB_LINE_TMP;
    if (lay->in_len < 1)
        lay->in_len = 1;
}

/* ---------------------------------------------------------------- kernels */
/* The lane loops run 4 doubles wide with AVX2 where the CPU has it (GCC
 * function clones, chosen once at load time), 2 wide otherwise. No FMA: the
 * same IEEE operations in the same order, so results do not depend on it. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(RB_NO_CLONES)
#define RB_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RB_SIMD_CLONES
#endif
#if defined(__GNUC__)
#define RB_ROW_INLINE static inline __attribute__((always_inline))
#else
#define RB_ROW_INLINE static inline
#endif
/* One row of a recursion, in place of its input: o[l] = s[l] - sum_k d[k]
 * o[l + (k+1) back] over the L lanes, back = -L for the forward pass (the R
 * rows before hold the state), +L for the backward one (the R rows after); s
 * may be NULL (zero input) or equal o. Inlined into each pass (and each of
 * its clones), so the lane loop vectorises as written. */
#define DEF_REC(R)                                                                        \
    RB_ROW_INLINE void rec_row_##R(rb_lane *o, const rb_lane *s, ptrdiff_t L, ptrdiff_t back, \
                                   const rb_lane *d)                                      \
    {                                                                                     \
        _Pragma("GCC ivdep") for (ptrdiff_t l = 0; l < L; l++)                            \
        {                                                                                 \
            rb_lane acc = s ? s[l] : 0.0;                                                 \
            for (int k = 0; k < R; k++)                                                   \
                acc -= d[k] * o[l + (k + 1) * back];                                      \
            o[l] = acc;                                                                   \
        }                                                                                 \
    }                                                                                     \
    /* Forward: out[i] = in[i] - sum_k d[k] out[i-1-k], i = 0..m-1, out[-R..-1] state;  \
     * in may be NULL (zero input) or equal out */                                        \
    RB_SIMD_CLONES static void rec_fwd_##R(rb_lane *out, const rb_lane *in, ptrdiff_t m, ptrdiff_t L, \
                                           const rb_lane *d)                              \
    {                                                                                     \
        for (ptrdiff_t i = 0; i < m; i++)                                                 \
            rec_row_##R(out + i * L, in ? in + i * L : NULL, L, -L, d);                   \
    }                                                                                     \
    /* Backward: out[i] = in[i] - sum_k d[k] out[i+1+k], i = m-1..0, out[m..m+R-1] state */ \
    RB_SIMD_CLONES static void rec_bwd_##R(rb_lane *out, const rb_lane *in, ptrdiff_t m, ptrdiff_t L, \
                                           const rb_lane *d)                              \
    {                                                                                     \
        for (ptrdiff_t i = m - 1; i >= 0; i--)                                            \
            rec_row_##R(out + i * L, in ? in + i * L : NULL, L, L, d);                    \
    }                                                                                     \
    /* Backward in place, row i handed to the sink as i - off once final when it is     \
     * one of the n results: rec_bwd one row a call cost a call per row */               \
    RB_SIMD_CLONES static void rec_bwd_sink_##R(rb_lane *y, ptrdiff_t m, ptrdiff_t L,      \
                                                const rb_lane *d, ptrdiff_t off, ptrdiff_t n, \
                                                rb_line_sink sink, void *user)            \
    {                                                                                     \
        for (ptrdiff_t i = m - 1; i >= 0; i--) {                                          \
            rec_row_##R(y + i * L, y + i * L, L, L, d);                                   \
            if (i >= off && i < off + n)                                                  \
                sink(user, i - off, y + i * L);                                           \
        }                                                                                 \
    }
DEF_REC(1)
DEF_REC(2)
DEF_REC(3)
DEF_REC(4)
DEF_REC(5)
DEF_REC(6)
DEF_REC(7)
DEF_REC(8)

typedef void (*rec_fn)(rb_lane *, const rb_lane *, ptrdiff_t, ptrdiff_t, const rb_lane *);
static const rec_fn rec_fwd_tab[9] = {NULL, rec_fwd_1, rec_fwd_2, rec_fwd_3, rec_fwd_4,
                                      rec_fwd_5, rec_fwd_6, rec_fwd_7, rec_fwd_8};
static const rec_fn rec_bwd_tab[9] = {NULL, rec_bwd_1, rec_bwd_2, rec_bwd_3, rec_bwd_4,
                                      rec_bwd_5, rec_bwd_6, rec_bwd_7, rec_bwd_8};
typedef void (*rec_sink_fn)(rb_lane *, ptrdiff_t, ptrdiff_t, const rb_lane *, ptrdiff_t, ptrdiff_t,
                            rb_line_sink, void *);
static const rec_sink_fn rec_bwd_sink_tab[9] = {NULL,          rec_bwd_sink_1, rec_bwd_sink_2,
                                                rec_bwd_sink_3, rec_bwd_sink_4, rec_bwd_sink_5,
                                                rec_bwd_sink_6, rec_bwd_sink_7, rec_bwd_sink_8};

/* u[j] = sum_t f[t] x[j + lo + t] for j in [0, m); x points at the input
 * element aligned with u[0]. */
RB_SIMD_CLONES static void fir_apply(rb_lane *u, const rb_lane *x, ptrdiff_t m, ptrdiff_t L, const double *fir, int lo,
                      int hi)
{
    int taps = hi - lo + 1;
    rb_lane f[RB_MAX_FIR_TAPS];
    for (int t = 0; t < taps; t++)
        f[t] = fir[t];
    for (ptrdiff_t j = 0; j < m; j++) {
        rb_lane *o = u + j * L;
        const rb_lane *s0 = x + (j + lo) * L;
        rb_lane w = f[0];
        for (ptrdiff_t l = 0; l < L; l++)
            o[l] = w * s0[l];
        for (int t = 1; t < taps; t++) {
            const rb_lane *s = s0 + (ptrdiff_t)t * L;
            w = f[t];
            _Pragma("GCC ivdep") for (ptrdiff_t l = 0; l < L; l++) o[l] += w * s[l];
        }
    }
}

/* The FIR and the causal pass in one sweep (one read of x, one write of y
 * instead of a write and a re-read of u): y[j] = sum_t f[t] x[j+lo+t] - sub[l]
 * - sum_k d[k] y[j-1-k], y[-R..-1] holding the state. sub: per-lane offset
 * (the FIR of the mean, see rb_line_solve), may be NULL. The per-lane
 * operations are those of fir_apply then rec_fwd, in the same order, summed
 * in registers 16 lanes at a time (tap by tap over the row, each tap
 * stored and reloaded the row: a store and two loads a tap and lane). */
typedef double lane4 __attribute__((vector_size(32)));
#define LD4(p) ({ lane4 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define ST4(p, v) do { const lane4 v_ = (v); memcpy((p), &v_, sizeof v_); } while (0)
/* Q vectors of 4 lanes from lane l of row j: o = f[0] s0; o += f[t] s_t;
 * o -= sub; o -= d[k] y[j-1-k] */
#define FIR_REC_LANES(R, Q)                                                                 \
    {                                                                                       \
        lane4 a[Q];                                                                         \
        for (int q = 0; q < Q; q++)                                                         \
            a[q] = f[0] * LD4(s0 + l + 4 * q);                                              \
        for (int t = 1; t < taps; t++) {                                                    \
            const rb_lane *s = s0 + (ptrdiff_t)t * L + l;                                   \
            const rb_lane w = f[t];                                                         \
            for (int q = 0; q < Q; q++)                                                     \
                a[q] += w * LD4(s + 4 * q);                                                 \
        }                                                                                   \
        if (sub)                                                                            \
            for (int q = 0; q < Q; q++)                                                     \
                a[q] -= LD4(sub + l + 4 * q);                                               \
        for (int k = 0; k < R; k++)                                                         \
            for (int q = 0; q < Q; q++)                                                     \
                a[q] -= d[k] * LD4(o + l + 4 * q - (k + 1) * L);                            \
        for (int q = 0; q < Q; q++)                                                         \
            ST4(o + l + 4 * q, a[q]);                                                       \
    }
#define DEF_FIR_REC(R)                                                                      \
    RB_SIMD_CLONES static void fir_rec_fwd_##R(rb_lane *y, const rb_lane *x, ptrdiff_t m,       \
                                               ptrdiff_t L, const rb_lane *f, int lo, int taps, \
                                               const rb_lane *d, const rb_lane *sub)            \
    {                                                                                       \
        for (ptrdiff_t j = 0; j < m; j++) {                                                 \
            rb_lane *o = y + j * L;                                                         \
            const rb_lane *s0 = x + (j + lo) * L;                                           \
            ptrdiff_t l = 0;                                                                \
            for (; l + 16 <= L; l += 16)                                                    \
                FIR_REC_LANES(R, 4)                                                         \
            for (; l + 4 <= L; l += 4)                                                      \
                FIR_REC_LANES(R, 1)                                                         \
            for (; l < L; l++) {                                                            \
                rb_lane acc = f[0] * s0[l];                                                 \
                for (int t = 1; t < taps; t++)                                              \
                    acc += f[t] * s0[(ptrdiff_t)t * L + l];                                 \
                if (sub)                                                                    \
                    acc -= sub[l];                                                          \
                for (int k = 0; k < R; k++)                                                 \
                    acc -= d[k] * o[l - (k + 1) * L];                                       \
                o[l] = acc;                                                                 \
            }                                                                               \
        }                                                                                   \
    }
DEF_FIR_REC(1)
DEF_FIR_REC(2)
DEF_FIR_REC(3)
DEF_FIR_REC(4)
DEF_FIR_REC(5)
DEF_FIR_REC(6)
DEF_FIR_REC(7)
DEF_FIR_REC(8)
typedef void (*fir_rec_fn)(rb_lane *, const rb_lane *, ptrdiff_t, ptrdiff_t, const rb_lane *, int,
                           int, const rb_lane *, const rb_lane *);
static const fir_rec_fn fir_rec_tab[9] = {NULL,          fir_rec_fwd_1, fir_rec_fwd_2,
                                          fir_rec_fwd_3, fir_rec_fwd_4, fir_rec_fwd_5,
                                          fir_rec_fwd_6, fir_rec_fwd_7, fir_rec_fwd_8};

/* y[i] += h[i], h the zero-input causal response from state (r values per lane,
 * layout st[k*L+l] for y_{-r+k}); stops once the response has died out. */
static void homog_fwd_add(rb_lane *y, ptrdiff_t m, ptrdiff_t L, const rb_lane *d, int r,
                          const double *st, rb_lane *tmp)
{
    double smax = 0.0;
    for (ptrdiff_t i = 0; i < r * L; i++) {
        tmp[i] = st[i];
        smax = fmax(smax, fabs(st[i]));
    }
    if (smax == 0.0)
        return;
    for (ptrdiff_t i0 = 0; i0 < m; i0 += CHUNK) {
        ptrdiff_t c = m - i0 < CHUNK ? m - i0 : CHUNK;
        rec_fwd_tab[r](tmp + r * L, NULL, c, L, d);
        rb_lane *yy = y + i0 * L;
        for (ptrdiff_t i = 0; i < c * L; i++)
            yy[i] += tmp[r * L + i];
        memmove(tmp, tmp + c * L, sizeof(rb_lane) * (size_t)(r * L));
        rb_lane cur = 0.0;
        for (ptrdiff_t i = 0; i < r * L; i++)
            cur = fmax(cur, fabs(tmp[i]));
        if (cur <= 1e-15 * smax)
            break;
    }
}

/* y[i] += h[i], h the zero-input anticausal response from state (layout
 * st[k*L+l] for z_{m+k}). */
static void homog_bwd_add(rb_lane *y, ptrdiff_t m, ptrdiff_t L, const rb_lane *d, int r,
                          const double *st, rb_lane *tmp)
{
    double smax = 0.0;
    for (ptrdiff_t i = 0; i < r * L; i++)
        smax = fmax(smax, fabs(st[i]));
    if (smax == 0.0)
        return;
    ptrdiff_t c = m < CHUNK ? m : CHUNK;
    for (ptrdiff_t i = 0; i < r * L; i++)
        tmp[c * L + i] = st[i];
    for (ptrdiff_t i1 = m; i1 > 0;) {
        ptrdiff_t i0 = i1 - c;
        rec_bwd_tab[r](tmp, NULL, c, L, d);
        rb_lane *yy = y + i0 * L;
        for (ptrdiff_t i = 0; i < c * L; i++)
            yy[i] += tmp[i];
        i1 = i0;
        ptrdiff_t cn = i1 < CHUNK ? i1 : CHUNK;
        memmove(tmp + cn * L, tmp, sizeof(rb_lane) * (size_t)(r * L));
        rb_lane cur = 0.0;
        for (ptrdiff_t i = 0; i < r * L; i++)
            cur = fmax(cur, fabs(tmp[cn * L + i]));
        if (cur <= 1e-15 * smax)
            break;
        c = cn;
    }
}

/* First r values (zero-padded) of the zero-initialised anticausal pass over y,
 * without writing y: p_1(Zhat) of FORMULAS.md. head layout [k*L+l]. */
static void scan_bwd_head(const rb_lane *y, ptrdiff_t m, ptrdiff_t L, const rb_lane *d, int r,
                          double *head, rb_lane *tmp)
{
    ptrdiff_t c = m < CHUNK ? m : CHUNK;
    memset(tmp + c * L, 0, sizeof(rb_lane) * (size_t)(r * L));
    for (ptrdiff_t i1 = m; i1 > 0;) {
        ptrdiff_t i0 = i1 - c;
        rec_bwd_tab[r](tmp, y + i0 * L, c, L, d);
        i1 = i0;
        if (i1 == 0)
            break;
        ptrdiff_t cn = i1 < CHUNK ? i1 : CHUNK;
        memmove(tmp + cn * L, tmp, sizeof(rb_lane) * (size_t)(r * L));
        c = cn;
    }
    for (ptrdiff_t i = 0; i < r * L; i++)
        head[i] = tmp[i];
}

/* out[k*L+l] = sum_j M[k][j] v[j*L+l] (+ add[k] * s[l] when add), summed in
 * long double: once per line, and the epilogue (44) needs it: for poles near 1
 * its terms cancel by six digits (|M44| 4e13 against states of 8e-9 for a
 * Gaussian of sigma 210 on 97 samples), and a double rounding left in the state
 * grew across the line to 1e-5 of the input (docs/RELIABILITY.md, seed 14). */
static void mat_lanes(int r, ptrdiff_t L, const double *M, const double *v, const double *add,
                      const double *s, double *out)
{
    for (ptrdiff_t l = 0; l < L; l++)
        for (int k = 0; k < r; k++) {
            long double acc = add ? (long double)add[k] * s[l] : 0.0L;
            for (int j = 0; j < r; j++)
                acc += (long double)M[k * r + j] * v[j * L + l];
            out[k * L + l] = (double)acc;
        }
}

/* (44) taken relative to the steady state and in backward differences:
 * e(Z) = zs + M44d [y_{-1} - ys, D y_{-1}, ..., D^(r-1) y_{-1}] (axis_plan.c),
 * ys = prologue_dc C and zs = anticausal_dc ys the states a constant C beyond
 * the line settles to (the same map as M44 e_{-1}(Y) + v44 C, since
 * M44 ys + v44 C = zs). For poles near 1, |v44 C| and |M44 ys| are huge and
 * cancel to zs, and M44's columns cancel on the nearly equal samples of the
 * state; the differences are what the boundary really carries. In long
 * double, per lane. st: e_{-1}(Y) (layout [k*L+l]); C: per-lane C. */
static void epilogue_lanes(const rb_axis_plan *ap, int r, ptrdiff_t L, const double *st,
                           const double *C, double *out)
{
    for (ptrdiff_t l = 0; l < L; l++) {
        const long double ys = (long double)ap->prologue_dc * C[l];
        const long double zs = (long double)ap->anticausal_dc * ys;
        long double c[RB_MAX_ORDER]; /* newest first, then its backward differences */
        for (int t = 0; t < r; t++)
            c[t] = st[(r - 1 - t) * L + l];
        for (int k = 1; k < r; k++)
            for (int t = r - 1; t >= k; t--)
                c[t] = c[t - 1] - c[t];
        c[0] -= ys;
        for (int k = 0; k < r; k++) {
            long double acc = zs;
            for (int j = 0; j < r; j++)
                acc += (long double)ap->M44d[k * r + j] * c[j];
            out[k * L + l] = (double)acc;
        }
    }
}

static void read_state(const rb_lane *y, ptrdiff_t pos, int r, ptrdiff_t L, double *st)
{
    for (int k = 0; k < r; k++)
        for (ptrdiff_t l = 0; l < L; l++)
            st[k * L + l] = y[(pos + k) * L + l];
}

static void write_state(rb_lane *y, ptrdiff_t pos, int r, ptrdiff_t L, const double *st)
{
    for (int k = 0; k < r; k++)
        for (ptrdiff_t l = 0; l < L; l++)
            y[(pos + k) * L + l] = st[k * L + l];
}

static void fill_slots(rb_lane *y, ptrdiff_t pos, int r, ptrdiff_t L, const double *per_lane,
                       double scale)
{
    for (int k = 0; k < r; k++)
        for (ptrdiff_t l = 0; l < L; l++)
            y[(pos + k) * L + l] = per_lane ? per_lane[l] * scale : 0.0;
}

/* The causal pass over y in place, or fused with the FIR from x. */
static void causal_first(rb_lane *y, const rb_lane *x, ptrdiff_t m, ptrdiff_t L, const rb_axis *ax,
                         const rb_lane *d, const rb_lane *sub, int fuse)
{
    if (!fuse) {
        rec_fwd_tab[ax->r](y, y, m, L, d);
        return;
    }
    rb_lane f[RB_MAX_FIR_TAPS];
    int taps = ax->fir_hi - ax->fir_lo + 1;
    for (int t = 0; t < taps; t++)
        f[t] = ax->fir[t];
    fir_rec_tab[ax->r](y, x, m, L, f, ax->fir_lo, taps, d, sub);
}

rb_lane *rb_line_solve(const rb_axis_plan *ap, int Li, rb_lane *x, rb_lane *work, const rb_lane *cval)
{
    return rb_line_solve_ex(ap, Li, x, work, cval, NULL, NULL, NULL, NULL);
}

/* The last pass when it is a plain anticausal sweep: row by row, each result
 * row handed to the sink as soon as it is final. Returns whether it sank. */
static int anticausal_last(rb_lane *y, ptrdiff_t m, ptrdiff_t L, int r, const rb_lane *d,
                           ptrdiff_t out_off, ptrdiff_t n, rb_line_sink sink, void *user)
{
    if (!sink) {
        rec_bwd_tab[r](y, y, m, L, d);
        return 0;
    }
    rec_bwd_sink_tab[r](y, m, L, d, out_off, n, sink, user);
    return 1;
}

rb_lane *rb_line_solve_ex(const rb_axis_plan *ap, int Li, rb_lane *x, rb_lane *work,
                          const rb_lane *cval, const rb_lane *sum, rb_lane *offset,
                          rb_line_sink sink, void *user)
{
    int sunk = 0;
    const rb_axis *ax = &ap->ax;
    const ptrdiff_t L = Li, n = ap->n, E = ap->fir_ext;
    const int r = ax->r, has_c = ax->causal_order > 0, has_a = ax->anticausal_order > 0;
    const rb_boundary_mode mode = ap->mode;
    const int ext = uses_extended_domain(mode);
    const ptrdiff_t len = ap->mirror_via_periodic ? 2 * n : n;
    rb_line_layout lay;
    rb_line_layout_get(ap, &lay);
    rb_lane *x0 = x + lay.lead * L; /* sample 0 */

    /* Boundary values per lane, read before anything is overwritten. */
    /* per-lane temporaries live in the work buffer (see RB_LINE_TMP) */
    rb_lane *tmp = work + lay.work_len * L - RB_LINE_TMP * L;
    double *c0 = tmp + (RB_MAX_ORDER + CHUNK) * L, *c1 = c0 + L, *C1 = c1 + L;
    double *st = C1 + L, *st2 = st + RB_MAX_ORDER * L, *st3 = st2 + RB_MAX_ORDER * L;
    double *mean = st3 + RB_MAX_ORDER * L;
    for (ptrdiff_t l = 0; l < L; l++) {
        if (mode == RB_BOUNDARY_CLAMP) {
            c0[l] = x0[l];
            c1[l] = x0[(n - 1) * L + l];
        } else if (mode == RB_BOUNDARY_CONSTANT && cval)
            c0[l] = c1[l] = cval[l];
        else
            c0[l] = c1[l] = 0.0;
    }

    /* Filter x - mean and add G * mean back (G: the axis' DC gain). With
     * these extensions that is the same function, but the internal states no
     * longer carry the huge DC response of poles near 1, whose cancellation
     * in the closed forms cost up to 1e-2 for wide Gaussians. Not for zero and
     * none, whose extension does not shift with the signal. */
    const int shift = mode == RB_BOUNDARY_CONSTANT || mode == RB_BOUNDARY_CLAMP ||
                      mode == RB_BOUNDARY_PERIODIC || mode == RB_BOUNDARY_MIRROR;
    /* With a FIR and a causal pass over the extended domain (constant modes,
     * the padded route), the FIR and the causal pass run fused and the mean
     * is taken off there (FIR(x - mean) = FIR(x) - fsum * mean): x itself
     * and its extension stay unshifted, one sweep less. */
    const int has_fir = ax->fir && !fir_is_gain(ax);
    const int fuse = has_fir && has_c && r > 0 && (runs_padded(ap) || ext);
    const int fold = shift && fuse;
    long double gain = 1.0L;
    if (shift) {
        long double sc = 1.0L, sa = 1.0L, fs = ax->fir ? 0.0L : 1.0L;
        for (int k = 0; k < ax->r; k++) {
            sc += ax->dc[k];
            sa += ax->da[k];
        }
        if (ax->fir)
            for (int t = 0; t <= ax->fir_hi - ax->fir_lo; t++)
                fs += ax->fir[t];
        gain = fs / (sc * sa);
        for (ptrdiff_t l = 0; l < L; l++)
            mean[l] = sum ? sum[l] : 0.0;
        if (!sum)
            for (ptrdiff_t i = 0; i < n; i++)
                for (ptrdiff_t l = 0; l < L; l++)
                    mean[l] += x0[i * L + l];
        for (ptrdiff_t l = 0; l < L; l++) {
            mean[l] /= (double)n;
            /* a NaN/Inf sample must not reach the whole line through its mean */
            if (!isfinite(mean[l]))
                mean[l] = 0.0;
        }
        if (!fold) {
            for (ptrdiff_t l = 0; l < L; l++) {
                c0[l] -= mean[l];
                c1[l] -= mean[l];
            }
            for (ptrdiff_t i = 0; i < n; i++)
                for (ptrdiff_t l = 0; l < L; l++)
                    x0[i * L + l] -= mean[l];
        }
    }

    /* ---- the extension, then the FIR, over the feedback domain [-D, len + D) */
    const ptrdiff_t D = domain_ext(ap);
    const ptrdiff_t xl = has_fir ? D + E : D;
    if (ap->mirror_via_periodic)
        for (ptrdiff_t i = n; i < 2 * n; i++)
            memcpy(x0 + i * L, x0 + (2 * n - 1 - i) * L, sizeof(rb_lane) * (size_t)L);
    for (ptrdiff_t i = -xl; i < len + xl; i++) {
        if (i == 0)
            i = len;
        if (i >= len + xl)
            break;
        rb_lane *dst = x0 + i * L;
        if (ext || mode == RB_BOUNDARY_NONE) {
            const double *c = i < 0 ? c0 : c1;
            for (ptrdiff_t l = 0; l < L; l++)
                dst[l] = c[l];
        } else {
            /* periodic, or mirror: the mirrored 2n line wraps (filled in above) */
            const long j = rb_extend_index((long)i, (long)len,
                                           ap->mirror_via_periodic ? RB_BOUNDARY_PERIODIC : mode);
            memcpy(dst, x0 + j * L, sizeof(rb_lane) * (size_t)L);
        }
    }
    rb_lane *sub = NULL; /* per-lane FIR of the mean, for the fused sweep */
    if (fold) {
        double fs = 0.0;
        for (int t = 0; t <= ax->fir_hi - ax->fir_lo; t++)
            fs += ax->fir[t];
        sub = st3;
        for (ptrdiff_t l = 0; l < L; l++) {
            c0[l] -= mean[l];
            c1[l] -= mean[l];
            sub[l] = fs * mean[l];
        }
    }
    if (offset)
        for (ptrdiff_t l = 0; l < L; l++)
            offset[l] = shift ? (double)(gain * mean[l]) : 0.0;
    rb_lane *y; /* u, then the results, over the domain; r state slots each side */
    const ptrdiff_t m = len + 2 * D, out_off = D;
    if (has_fir) {
        y = work + (ptrdiff_t)r * L;
        if (!fuse)
            fir_apply(y, x0 - D * L, m, L, ax->fir, ax->fir_lo, ax->fir_hi);
    } else {
        y = x0 - D * L;
        if (ax->fir) { /* gain */
            const rb_lane g = ax->fir[0];
            for (ptrdiff_t i = 0; i < m * L; i++)
                y[i] *= g;
        }
    }
    if (r == 0)
        goto done;

    const rb_lane *dcf = ax->dc, *daf = ax->da;
    double fsum = 1.0;
    if (ax->fir) {
        fsum = 0.0;
        for (int t = 0; t <= ax->fir_hi - ax->fir_lo; t++)
            fsum += ax->fir[t];
    }

    if (runs_padded(ap)) {
        /* The padded route: the extension is explicit over D samples each
         * side, past which every start-up transient has died out (below
         * 1e-13 of the impulse response's peak). Constant modes start from
         * their steady states, the others from zero. */
        const int cst = ext;
        if (has_c) {
            fill_slots(y, -r, r, L, cst ? c0 : NULL, fsum * ap->prologue_dc);
            causal_first(y, x0 - D * L, m, L, ax, dcf, sub, fuse);
        }
        if (has_a) {
            fill_slots(y, m, r, L, cst ? c1 : NULL,
                       fsum * (has_c ? ap->prologue_dc : 1.0) * ap->anticausal_dc);
            sunk = anticausal_last(y, m, L, r, daf, out_off, n, sink, user);
        }
        goto done;
    }

    switch (mode) {
    case RB_BOUNDARY_ZERO:
    case RB_BOUNDARY_CONSTANT:
    case RB_BOUNDARY_CLAMP:
        if (has_c) {
            fill_slots(y, -r, r, L, c0, fsum * ap->prologue_dc); /* (35) */
            causal_first(y, x0 - D * L, m, L, ax, dcf, sub, fuse);
        }
        if (has_a) {
            if (has_c) { /* (44) */
                for (ptrdiff_t l = 0; l < L; l++)
                    C1[l] = c1[l] * fsum;
                read_state(y, m - r, r, L, st);
                if (ap->steady_epilogue)
                    epilogue_lanes(ap, r, L, st, C1, st2);
                else
                    mat_lanes(r, L, ap->M44, st, ap->v44, C1, st2);
                write_state(y, m, r, L, st2);
            } else
                fill_slots(y, m, r, L, c1, fsum * ap->anticausal_dc);
            sunk = anticausal_last(y, m, L, r, daf, out_off, n, sink, user);
        }
        break;
    case RB_BOUNDARY_NONE:
        if (has_c) {
            fill_slots(y, -r, r, L, NULL, 0.0);
            rec_fwd_tab[r](y, y, m, L, dcf);
        }
        if (has_a) {
            fill_slots(y, m, r, L, NULL, 0.0);
            sunk = anticausal_last(y, m, L, r, daf, out_off, n, sink, user);
        }
        break;
    case RB_BOUNDARY_MIRROR:
        if (!ap->mirror_via_periodic) {
            /* symmetric axis: (67) corrected, (72) */
            fill_slots(y, -r, r, L, NULL, 0.0);
            fill_slots(y, m, r, L, NULL, 0.0);
            rec_fwd_tab[r](y, y, m, L, dcf);
            read_state(y, m - r, r, L, st);          /* e_{-1}(Yhat) */
            scan_bwd_head(y, m, L, daf, r, st2, tmp);     /* p_1(Zhat) */
            mat_lanes(r, L, ap->M67z, st2, NULL, NULL, st3);
            mat_lanes(r, L, ap->M67y, st, NULL, NULL, st2);
            for (ptrdiff_t i = 0; i < r * L; i++)
                st3[i] += st2[i];                    /* p(Y) */
            homog_fwd_add(y, m, L, dcf, r, st3, tmp);
            mat_lanes(r, L, ap->AFh, st3, NULL, NULL, st2);
            for (ptrdiff_t i = 0; i < r * L; i++)
                st2[i] += st[i];                     /* e_{-1}(Y) = A_F^h p(Y) + e_{-1}(Yhat) */
            mat_lanes(r, L, ap->M72, st2, NULL, NULL, st);
            write_state(y, m, r, L, st);             /* e(Z) */
            rec_bwd_tab[r](y, y, m, L, daf);
            break;
        }
        /* not symmetric: the 2n-periodic route below */
        /* fall through */
    case RB_BOUNDARY_PERIODIC:
        if (has_c) {
            fill_slots(y, -r, r, L, NULL, 0.0);
            rec_fwd_tab[r](y, y, m, L, dcf);
            read_state(y, m - r, r, L, st);
            mat_lanes(r, L, ap->Pf, st, NULL, NULL, st2); /* (49) */
            homog_fwd_add(y, m, L, dcf, r, st2, tmp);
        }
        if (has_a) {
            fill_slots(y, m, r, L, NULL, 0.0);
            rec_bwd_tab[r](y, y, m, L, daf);
            read_state(y, 0, r, L, st);
            mat_lanes(r, L, ap->Pr, st, NULL, NULL, st2); /* (51) */
            homog_bwd_add(y, m, L, daf, r, st2, tmp);
        }
        break;
    }
done:
    if (sink && !sunk)
        for (ptrdiff_t i = 0; i < n; i++)
            sink(user, i, y + (out_off + i) * L);
    if (offset)
        ; /* set above, the caller adds it */
    else if (shift) {
        rb_lane *o = y + out_off * L;
        for (ptrdiff_t l = 0; l < L; l++)
            mean[l] = (double)(gain * mean[l]);
        for (ptrdiff_t i = 0; i < n; i++)
            for (ptrdiff_t l = 0; l < L; l++)
                o[i * L + l] += mean[l];
    }
    return y + out_off * L;
}
