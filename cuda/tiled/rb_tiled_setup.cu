/* The tiled solver's plan-time set-up of one axis, on the host: the device
 * axis from the engine's plan, its blocks (padding where mirror is not closed
 * by (67)/(72), the block transfer matrices, the periodic and mirror closures), the per-block constants of the
 * chain and the dot-product weights of stage 1, and the choice of float or
 * double carries. Nothing here can fail but a filter the solver does not take. */
#include "rb_tiled.h"
#include "rb_tiled_chain.cuh"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B RB_TILED_B

/* samples the closed forms' passes run over (m) */
static int rb_cuda_axis_span(const rb_axis_plan *ap)
{
    const int n = ap->n, mode = ap->mode;
    if (ap->padded) return n + 2 * ap->pad;
    if (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT || mode == RB_BOUNDARY_CLAMP)
        return n + 2 * ap->fir_ext;
    if (mode == RB_BOUNDARY_MIRROR && ap->mirror_via_periodic) return 2 * n;
    return n;
}

extern "C" void rb_cuda_axis_from_plan(const rb_axis_plan *ap, int channels, const float *cval, rb_cuda_axis *o)
{
    memset(o, 0, sizeof *o);
    const rb_axis *ax = &ap->ax;
    const int const_like = ap->mode == RB_BOUNDARY_ZERO || ap->mode == RB_BOUNDARY_CONSTANT ||
                           ap->mode == RB_BOUNDARY_CLAMP;
    o->n = ap->n;
    o->mode = ap->mode;
    o->via_periodic = ap->mirror_via_periodic;
    o->m = rb_cuda_axis_span(ap);
    o->s0 = const_like && o->m == ap->n + 2 * ap->fir_ext ? -ap->fir_ext : 0;
    if (ap->padded) {
        /* closed forms ill-conditioned for this filter (axis_plan.c): filter the
         * extension over `pad` samples each side from zero states, as the CPU does */
        o->padded = 1;
        o->via_periodic = 0;
        o->s0 = -ap->pad;
    }
    o->r = ax->r;
    o->fir_lo = ax->fir_lo;
    o->ntaps = ax->fir ? ax->fir_hi - ax->fir_lo + 1 : 0;
    o->channels = channels;
    for (int c = 0; c < channels && c < 4; ++c) o->cval[c] = cval ? cval[c] : 0.0f;
    o->has_c = ax->causal_order > 0;
    o->anticausal_dc = ap->anticausal_dc;
    double sumfir = ax->fir ? 0.0 : 1.0;
    long double sc = 1.0L, sa = 1.0L;
    for (int t = 0; t < o->ntaps; ++t) sumfir += ax->fir[t];
    for (int k = 0; k < ax->r; ++k) {
        o->dc[k] = (float)ax->dc[k];
        o->da[k] = (float)ax->da[k];
        o->dcd[k] = ax->dc[k];
        o->dad[k] = ax->da[k];
        sc += ax->dc[k];
        sa += ax->da[k];
    }
    o->gain = (double)((long double)sumfir / (sc * sa));
    o->shift = ap->mode == RB_BOUNDARY_CONSTANT || ap->mode == RB_BOUNDARY_CLAMP ||
               ap->mode == RB_BOUNDARY_PERIODIC || ap->mode == RB_BOUNDARY_MIRROR;
    o->prologue_dc = ap->prologue_dc;
    memcpy(o->M44, ap->M44, sizeof o->M44);
    memcpy(o->v44, ap->v44, sizeof o->v44);
}

static void rb_companion(const double *d, int r, double *C)
{
    memset(C, 0, sizeof(double) * r * r);
    for (int k = 0; k < r; ++k) C[k] = -d[k];
    for (int i = 1; i < r; ++i) C[i * r + i - 1] = 1.0;
}

static void rb_matpow(const double *C, int r, long long e, double *O)
{
    double base[RB_MAX_ORDER * RB_MAX_ORDER];
    memcpy(base, C, sizeof(double) * r * r);
    memset(O, 0, sizeof(double) * r * r);
    for (int i = 0; i < r; ++i) O[i * r + i] = 1.0;
    while (e > 0) {
        if (e & 1) rb_tiled_mm(O, base, r, O);
        rb_tiled_mm(base, base, r, base);
        e >>= 1;
    }
}

/* Mirror not closed by (67)/(72) (rb_tiled_mirror_closes: double carries, the
 * 2n-periodic route of non-symmetric axes) goes by explicit padding: the
 * extension filtered from zero states `pad` samples before and after the line.
 * In float32 that stays accurate where the closed forms and the 2n-periodic
 * route lose digits to cancellation (poles near 1: the double carries' filters),
 * and it is cheaper than 2n for moderate poles.
 * pad = where the impulse responses of both passes have died out below 1e-13 of
 * their peak (as the CPU's padded route), plus order and FIR reach: the slowest
 * pole alone underestimates it for repeated or clustered poles (an order-5 filter
 * with poles near 0.99 was 1.6e-3 off with the old 1e-9-of-one-pole rule). */
static long rb_decay_steps(const double *d, int r, long double tol, long cap = 100000000L)
{
    long double h[RB_MAX_ORDER] = {0}, peak = 0;
    long last = 0;
    for (long i = 0; i < cap; i++) {
        long double v = i == 0 ? 1.0L : 0.0L;
        for (int k = 0; k < r; k++) v -= d[k] * h[k];
        for (int k = r - 1; k > 0; k--) h[k] = h[k - 1];
        if (r > 0) h[0] = v;
        long double a = fabsl(v);
        if (a > peak) peak = a;
        if (a > tol * peak) last = i;
        if (i - last > 256 && i - last > last / 4) break;
    }
    return last + 1;
}

static long rb_mirror_pad(const rb_axis_plan *ap)
{
    const int r = ap->ax.r;
    const long pc = r > 0 ? rb_decay_steps(ap->ax.dc, r, 1e-13L) : 0;
    const long pa = r > 0 ? rb_decay_steps(ap->ax.da, r, 1e-13L) : 0;
    return (pc > pa ? pc : pa) + r + ap->fir_ext + 8;
}

/* The wrapped periodic route (issue 19 item 3). On a periodic line the causal
 * carry chain is the affine map X -> T X + z (T the line's transfer A_F^n, z its
 * zero-state result), whose fixed point is the true entering state p(Y) of
 * (49): X = (I - T)^-1 z. Where (I - A_F^n)^-1 in direct form is
 * ill-conditioned (poles near 1: the plan pads), the chain instead goes round
 * the line K times from the zero state with its own per-block steps (the
 * difference-form blocks of double carries), never forming T: the error left
 * is T^K X, ~ rho^(K n). K laps from zero are the causal pass over K n samples
 * of the periodic extension before the line, i.e. the padded route with a
 * padding of K n: K = ceil(decay / n), decay where both impulse responses fall
 * below 1e-13 of their peak (the plan's own criterion for `pad`, axis_plan.c),
 * is as exact as the padding it replaces. The same K closes the anticausal
 * chain ((51)) once the causal states are exact. Only the carries go round:
 * stage 1 and the final stage read n samples a line, not n + 2 pad. */
extern "C" int rb_cuda_tiled_wraps(const rb_axis_plan *ap, const rb_switches *sw)
{
    if (ap->mode != RB_BOUNDARY_PERIODIC || !ap->padded || ap->ax.r < 1 || ap->n < 1) return 0;
    if (sw && sw->cuda_periodic_padded) return 0;
    const int r = ap->ax.r;
    const long dc = rb_decay_steps(ap->ax.dc, r, 1e-13L), da = rb_decay_steps(ap->ax.da, r, 1e-13L);
    const long decay = dc > da ? dc : da;
    const long K = (decay + ap->n - 1) / ap->n;
    return K >= 1 && K <= RB_TILED_MAX_WRAPS ? (int)K : 0;
}

/* The closing laps of a periodic line, cut to where the impulse responses
 * have died out. The causal state entering the line is the causal pass over
 * the periodic extension before it, (49)'s p(Y) = sum_j T^j z; from a zero
 * state S samples back it is that sum less terms below tol of the response's
 * peak once S passes the response's decay. So the lap need not go round the
 * line: blocks c0 .. nb-1 (n - c0 B >= S mod n samples) then S / n whole laps,
 * and the anticausal lap likewise over blocks a1-1 .. 0 ((51), the extension
 * after the line). Where the closed form holds (no wrap) this replaces its
 * whole lap plus Qc/Qa by a few blocks (sigma 8: 7 blocks of 256 on 8192;
 * sigma 100: 74), and the heads need not be stored for a second read (the
 * anticausal lap forms them as the clamp chain does): 5R doubles a block,
 * clamp's, instead of 8R. tol 1e-17 of the peak, below double rounding of the states, and one
 * block more for the order and the FIR's reach; wrapped lines never step
 * more than the wrap's K whole laps (rb_cuda_tiled_wraps, 1e-13). */
static void rb_tiled_laps_init(const rb_axis_plan *ap, rb_cuda_blocks *o)
{
    const int r = ap->ax.r;
    o->lapped = 0;
    if (!o->periodic_like || r < 1) return;
    const long n = o->ax.m, cap = o->wrap ? (long)o->wrap * n : n + 1; /* the closed form's lap, the wrap's */
    long sc = rb_decay_steps(ap->ax.dc, r, 1e-17L, cap) + B, sa = rb_decay_steps(ap->ax.da, r, 1e-17L, cap) + B;
    if (!o->wrap && (sc >= n || sa >= n)) return; /* the closed form's whole lap is no longer */
    if (sc > cap) sc = cap;
    if (sa > cap) sa = cap;
    o->lapped = 1;
    o->lap_nc = (int)(sc / n);
    const long rc = sc % n, ra = sa % n;
    o->lap_c0 = rc ? (int)((n - rc) / B) : o->nb; /* blocks c0 .. nb-1 hold n - c0 B >= rc samples */
    o->lap_na = (int)(sa / n);
    o->lap_a1 = ra ? (int)((ra + B - 1) / B) : 0; /* blocks 0 .. a1-1 hold >= ra (a1 < nb: a1 B) */
}

static int rb_tiled_want_double(const rb_axis_plan *ap, const rb_switches *sw);

/* Whether a mirror axis closes its chains by (67)/(72) (rb_tiled_pc_combine_c)
 * instead of the padding: where the plan chose the symmetric closed form (not
 * padded, not the 2n-periodic route: its probe line agreed with the padding,
 * axis_plan.c) and the chain is the parallel one (float carries, not
 * RECBLUR_CUDA_CHAIN=seq), up to RB_TILED_MIR_ORDER. The sequential and split
 * chains (double carries: the Gaussian from sigma 4, orders 6-8) keep the
 * padding: their walks were measured and tested that way, and their closures
 * would need (67) in the states' differences to stay exact for poles near 1. */
static int rb_tiled_mirror_closes(const rb_axis_plan *ap, const rb_switches *sw)
{
    if (ap->mode != RB_BOUNDARY_MIRROR || ap->padded || ap->mirror_via_periodic) return 0;
    if (ap->ax.r < 1 || ap->ax.r > RB_TILED_MIR_ORDER || ap->ax.causal_order < 1) return 0;
    return !sw->cuda_chain_seq && !rb_tiled_want_double(ap, sw);
}

/* The axis and its blocks. Padding (mirror, the plan's padded route) is
 * rounded up to whole blocks: the row blocks inside the line then start at
 * pixel 0, as the fused route needs, and the row tiles read whole 128-byte
 * segments; more padding only lets the transients from the zero states decay
 * further. */
static void rb_tiled_blocks_init(const rb_axis_plan *ap, int channels, const rb_switches *sw, rb_cuda_blocks *o)
{
    memset(o, 0, sizeof *o);
    rb_cuda_axis_from_plan(ap, channels, NULL, &o->ax);
    o->wrap = rb_cuda_tiled_wraps(ap, sw);
    if (o->wrap) { /* the bare line, closed by going round it (rb_cuda_tiled_wraps) */
        o->ax.padded = 0;
        o->ax.s0 = 0;
        o->ax.m = ap->n;
    }
    long pad = ap->padded && !o->wrap ? ap->pad : 0;
    o->mirror_closed = rb_tiled_mirror_closes(ap, sw);
    if (ap->mode == RB_BOUNDARY_MIRROR && !ap->padded && !o->mirror_closed) pad = rb_mirror_pad(ap);
    if (pad > 0) {
        if (pad % B && pad <= (1L << 28)) pad = (pad + B - 1) / B * B;
        if (pad > (1L << 28)) pad = 1L << 28;
        o->ax.padded = 1;
        o->ax.via_periodic = 0;
        o->ax.s0 = -(int)pad;
        o->ax.m = ap->n + 2 * (int)pad;
    }
    o->periodic_like = !o->ax.padded && ap->mode == RB_BOUNDARY_PERIODIC;
    const int r = ap->ax.r, m = o->ax.m;
    o->nb = (m + B - 1) / B;
    o->last_len = m - (o->nb - 1) * B;
    if (r == 0) return;
    rb_tiled_laps_init(ap, o);
    double Cc[RB_MAX_ORDER * RB_MAX_ORDER], Ca[RB_MAX_ORDER * RB_MAX_ORDER];
    /* from the filter's double coefficients, as the CPU's closed forms are: with poles
     * near 1 the float-rounded recursion is ill-conditioned at DC, and short lines
     * (mostly carried by these matrices) then stay on the true filter */
    rb_companion(ap->ax.dc, r, Cc);
    rb_companion(ap->ax.da, r, Ca);
    rb_matpow(Cc, r, B, o->Mc);
    rb_matpow(Cc, r, o->last_len, o->Mc_last);
    rb_matpow(Ca, r, B, o->Ma);
    rb_matpow(Ca, r, o->last_len, o->Ma_last);
    if (o->mirror_closed) {
        /* (67) corrected and (72) as the plan made them (FORMULAS.md), in our
         * state order: the causal state [y_-1 .. y_-R] is K times the plan's
         * [y_-R .. y_-1]; the anticausal ones agree ([z_0 .. z_R-1]) */
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < r; ++j) {
                o->Mz[i * r + j] = ap->M67z[(r - 1 - i) * r + j];
                o->My[i * r + j] = ap->M67y[(r - 1 - i) * r + (r - 1 - j)];
                o->Me[i * r + j] = ap->M72[i * r + (r - 1 - j)];
            }
        /* p_1(Zhat) = sum_b Ma^b H_b: blocks past where the anticausal response
         * fell below 1e-17 of its peak add nothing a double holds (one block
         * more for the order's reach into the next) */
        const long sa = rb_decay_steps(ap->ax.da, r, 1e-17L, (long)m + 1);
        const long nj = (sa + B - 1) / B + 1;
        o->mir_nj = nj < o->nb ? (int)nj : o->nb;
    }
    if (o->periodic_like) {
        /* (49)/(51): (I - A^n)^-1 as the plan summed it (axis_plan.c, long double series,
         * the CPU's Pf/Pr), not the inverse of I - A^n with A^n by repeated squaring in
         * double: for order-5 poles near 0.99 on a 1000-sample line A^n has entries of 1e6
         * that cancel to its 1e-2, and that inverse was off by 1e5 (1.8e-2 of the output,
         * RB_TEST_SEED=3). Our states run newest first ([y_-1 .. y_-R]), the CPU's oldest
         * first: Qc = K Pf K; the anticausal states agree ([z_0 .. z_R-1]): Qa = Pr. */
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < r; ++j) {
                o->Qc[i * r + j] = ap->Pf[(r - 1 - i) * r + (r - 1 - j)];
                o->Qa[i * r + j] = ap->Pr[i * r + j];
            }
    }
}

/* Host copies of the per-block recursions (same loops as rb_tiled_stage1):
 * the causal pass over u (NULL: zeros) from state p0 (NULL: zero), its last
 * state into T; the anticausal pass over that from state e0 (NULL: zero), its
 * outputs into z (NULL: not kept) and its first state into H (NULL: not kept). */
static void rb_tiled_host_block(const double *dc, const double *da, int r, const double *u, int len,
                                const double *p0, const double *e0, double *T, double *z, double *H)
{
    double y[B], p[RB_MAX_ORDER];
    for (int k = 0; k < r; ++k) p[k] = p0 ? p0[k] : 0.0;
    for (int j = 0; j < len; ++j) {
        double v = u ? u[j] : 0.0;
        for (int k = 0; k < r; ++k) v -= dc[k] * p[k];
        for (int k = r - 1; k > 0; --k) p[k] = p[k - 1];
        p[0] = v;
        y[j] = v;
    }
    if (T)
        for (int k = 0; k < r; ++k) T[k] = p[k];
    for (int k = 0; k < r; ++k) p[k] = e0 ? e0[k] : 0.0;
    for (int j = len - 1; j >= 0; --j) {
        double v = y[j];
        for (int k = 0; k < r; ++k) v -= da[k] * p[k];
        for (int k = r - 1; k > 0; --k) p[k] = p[k - 1];
        p[0] = v;
        if (z) z[j] = v;
    }
    if (H)
        for (int k = 0; k < r; ++k) H[k] = p[k];
}

static void rb_tiled_host_tail_head(const double *dc, const double *da, int r, const double *u, int len,
                                    const double *p0, double *T, double *H)
{
    rb_tiled_host_block(dc, da, r, u, len, p0, NULL, T, NULL, H);
}

/* rb_cuda_tiled.Xb: a whole zero block's final stage (causal from P, then
 * anticausal from E over it) for each unit carry, in double; the mean's
 * column takes the input -sumfir and adds the gain, as the final stage does
 * for the line's mean (rb_tiled_col_final_tile) */
static void rb_tiled_cross_basis(const rb_axis_plan *ap, double sumfir, double gain, float *Xb)
{
    const int r = ap->ax.r;
    double mean_in[B], z[B];
    for (int j = 0; j < B; ++j) mean_in[j] = -sumfir;
    for (int b = 0; b <= 2 * r; ++b) {
        double p[RB_MAX_ORDER], e[RB_MAX_ORDER];
        for (int k = 0; k < r; ++k) {
            p[k] = b == k;
            e[k] = b == r + k;
        }
        rb_tiled_host_block(ap->ax.dc, ap->ax.da, r, b == 2 * r ? mean_in : NULL, B, p, e, NULL, z, NULL);
        for (int j = 0; j < B; ++j) Xb[b * B + j] = (float)(z[j] + (b == 2 * r ? gain : 0.0));
    }
}

/* T1, H1 and G for blocks of `len` samples */
static void rb_tiled_block_consts(const rb_axis_plan *ap, int len, double *T1, double *H1, double *G)
{
    const int r = ap->ax.r;
    double ones[B], e[RB_MAX_ORDER], h[RB_MAX_ORDER];
    for (int j = 0; j < B; ++j) ones[j] = 1.0;
    rb_tiled_host_tail_head(ap->ax.dc, ap->ax.da, r, ones, len, NULL, T1, H1);
    for (int i = 0; i < r; ++i) {
        for (int k = 0; k < r; ++k) e[k] = k == i;
        rb_tiled_host_tail_head(ap->ax.dc, ap->ax.da, r, NULL, len, e, NULL, h);
        for (int k = 0; k < r; ++k) G[k * r + i] = h[k];
    }
}

/* l1 norm of the impulse response of 1 / (1 + sum d_k z^-k) */
static double rb_tiled_l1(const double *d, int r)
{
    double p[RB_MAX_ORDER] = {0}, l1 = 0.0, peak = 0.0;
    long last = 0;
    for (long i = 0; i < 4000000L; ++i) {
        double v = i == 0 ? 1.0 : 0.0;
        for (int k = 0; k < r; ++k) v -= d[k] * p[k];
        for (int k = r - 1; k > 0; --k) p[k] = p[k - 1];
        if (r > 0) p[0] = v;
        double a = fabs(v);
        l1 += a;
        if (a > peak) peak = a;
        if (a > 1e-12 * peak) last = i;
        if (i - last > 256 && i - last > last / 4) break;
    }
    return l1;
}

/* Carries in double (and the chain's homogeneous responses step by step) when
 * float states would lose the output: a relative error e in a stored state
 * comes back as about e * l1(impulse response) against an output of dc_gain
 * times the input, so above a ratio of 30 float (6e-8) would reach 2e-6 (poles
 * near -1 with a tiny DC gain; wide Gaussians, whose l1 is 1e4..1e8).
 * RECBLUR_CUDA_CARRY=float or double overrides (tests, benchmarks). */
static int rb_tiled_want_double(const rb_axis_plan *ap, const rb_switches *sw)
{
    if (sw->cuda_carry == RB_CARRY_DOUBLE) return 1;
    if (sw->cuda_carry == RB_CARRY_FLOAT) return 0;
    const int r = ap->ax.r;
    /* orders 6-8 always: float in-block recursion and carries of an order-6
     * filter (poles <= 0.8, l1 13, outputs ~500x the input in 2D) were 0.28
     * off near the zero-boundary edges, 71 units of U8 (test_gpu_host on the
     * H100, 2026-11-25; double: within one unit); speed is no target there */
    if (r > 5) return 1;
    double lc = rb_tiled_l1(ap->ax.dc, r), la = rb_tiled_l1(ap->ax.da, r);
    double l1 = lc > la ? lc : la, g = fabs(ap->ax.dc_gain);
    return l1 > 30.0 * (g < 1.0 ? g : 1.0);
}

/* A FIR alone (order 0) runs as order 1 with a zero feedback: the same
 * outputs (every state is multiplied by 0), and one code path. */
static const rb_axis_plan *rb_tiled_order_at_least_1(const rb_axis_plan *ap, rb_axis_plan *tmp)
{
    if (ap->ax.r > 0) return ap;
    *tmp = *ap;
    tmp->ax.r = 1;
    tmp->ax.dc[0] = tmp->ax.da[0] = 0.0;
    tmp->prologue_dc = tmp->anticausal_dc = 1.0;
    memset(tmp->M44, 0, sizeof tmp->M44);
    memset(tmp->v44, 0, sizeof tmp->v44);
    memset(tmp->Pf, 0, sizeof tmp->Pf);
    memset(tmp->Pr, 0, sizeof tmp->Pr);
    return tmp;
}

extern "C" int rb_cuda_tiled_covers(const rb_axis_plan *ap, char *why, size_t why_len)
{
    const int ntaps = ap->ax.fir ? ap->ax.fir_hi - ap->ax.fir_lo + 1 : 0;
    if (ntaps > RB_TILED_TAPS) {
        if (why && why_len)
            snprintf(why, why_len, "a FIR of %d taps, more than the GPU's tiled solver takes (%d)", ntaps,
                     RB_TILED_TAPS);
        return -2;
    }
    if (ap->ax.r > RB_TILED_MAX_ORDER) {
        if (why && why_len)
            snprintf(why, why_len, "order %d, more than the GPU's tiled solver takes (%d)", ap->ax.r,
                     RB_TILED_MAX_ORDER);
        return -2;
    }
    return 0;
}

extern "C" size_t rb_cuda_tiled_carry(const rb_axis_plan *ap0, const rb_switches *sw)
{
    rb_axis_plan tmp;
    const rb_axis_plan *ap = rb_tiled_order_at_least_1(ap0, &tmp);
    rb_cuda_blocks b;
    rb_tiled_blocks_init(ap, 1, sw, &b);
    return (size_t)(rb_tiled_want_double(ap, sw) ? 4 : 2) * ap->ax.r * (size_t)b.nb + (size_t)b.nb + 1;
}

extern "C" int rb_cuda_tiled_init(const rb_axis_plan *ap0, int channels, int rows, const rb_switches *sw,
                                  rb_cuda_tiled *o)
{
    memset(o, 0, sizeof *o);
    if (rb_cuda_tiled_covers(ap0, NULL, 0) != 0) return -2;
    rb_axis_plan tmp;
    const rb_axis_plan *ap = rb_tiled_order_at_least_1(ap0, &tmp);
    const int r = ap->ax.r;
    const int ntaps = ap->ax.fir ? ap->ax.fir_hi - ap->ax.fir_lo + 1 : 0;
    rb_tiled_blocks_init(ap, channels, sw, &o->b); /* the periodic closure from the plan's Pf/Pr */
    double s = 0.0;
    for (int t = 0; t < ntaps; ++t) {
        o->fird[t] = ap->ax.fir[t];
        s += ap->ax.fir[t];
    }
    o->sumfird = ntaps ? s : 1.0;
    rb_tiled_block_consts(ap, B, o->T1, o->H1, o->G);
    rb_tiled_block_consts(ap, o->b.last_len, o->T1_last, o->H1_last, o->G_last);
    rb_tiled_diff_responses(ap->ax.dc, ap->ax.da, r, B, o->Dc, o->Dg);
    rb_tiled_diff_responses(ap->ax.dc, ap->ax.da, r, o->b.last_len, o->Dc_last, o->Dg_last);
    rb_tiled_diff_responses(ap->ax.da, NULL, r, B, o->Da, NULL);
    rb_tiled_diff_responses(ap->ax.da, NULL, r, o->b.last_len, o->Da_last, NULL);
    o->rows = rows;
    o->c = channels;
    o->dbl = rb_tiled_want_double(ap, sw);
    /* float recursion inside blocks where the carries may be float too (the states
     * stay within 30x the output); RECBLUR_CUDA_INBLOCK=double keeps double */
    o->fin = !o->dbl && !sw->cuda_inblock_double;
    o->seq_chain = sw->cuda_chain_seq;
    o->fir_tile = !sw->cuda_fir_direct;
    {
        /* stage 1 of whole blocks as dot products (RECBLUR_CUDA_S1=rec: the recursion) */
        o->wdot = o->fin && !sw->cuda_s1_recursion;
        for (int j = 0; j < B; ++j) {
            double e[B] = {0}, T[RB_MAX_ORDER], H[RB_MAX_ORDER];
            e[j] = 1.0;
            rb_tiled_host_tail_head(ap->ax.dc, ap->ax.da, r, e, B, NULL, T, H);
            for (int k = 0; k < r; ++k) {
                o->Wt[k * B + j] = (float)T[k];
                o->Wh[k * B + j] = (float)H[k];
            }
        }
    }
    rb_tiled_cross_basis(ap, o->sumfird, o->b.ax.gain, o->Xb);
    return 0;
}
