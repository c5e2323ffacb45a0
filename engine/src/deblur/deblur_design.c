/* Designer of the quadrant deblur filter from a point-spread function.
 *
 * 1. H = DFT of the centred PSF on an N x N grid (separable direct sums).
 * 2. Wiener-type inverse W = conj(H) / (|H|^2 + K), K = (noise / 0.1)^2:
 *    white noise of that standard deviation over a signal of contrast 0.1.
 * 3. w = inverse DFT of W: the centred impulse response of the inverse.
 * 4. Quadrant q takes w(si p1, sj p2), p >= 0, with the weights shared with
 *    neighbours split evenly: 1/4 at the origin, 1/2 on the two half-axes.
 * 5. Each quadrant is fitted by a / B over the whole quadrant in least
 *    squares, B(z1,z2) = A(z1) A(z2), A one of a family of 1D denominators of
 *    order <= 2 whose roots lie inside |z| <= 0.9 (stable by construction:
 *    the impulse response of 1/B is g1(p1) g1(p2), g1 that of 1/A), and
 *    A = 1 (pure FIR). Because 1/B is separable, the normal equations are
 *    the Kronecker product R (x) R of the m x m Toeplitz autocorrelation R of
 *    g1, so a = R^-1 C R^-1 (C the cross-correlation of g1 (x) g1 with the
 *    target): O(m^3) per candidate. The candidate with the least residual
 *    wins; rb_deblur_filter_create then runs the decay check on it too. */
#include "deblur_internal.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DN 256          /* DFT grid */
#define DT (DN / 2)     /* quadrant target side */
#define FD 256          /* side of the fit domain (the target lives in [0, DT)) */
/* Fit weight: natural-image correlation rho^(|dx|+|dy|) plus a white term of
 * sqrt(noise-to-signal) (Q1 + NU_ROOT I, both factors: see fit()). */
#define MARKOV_RHO 0.95
#define NU_ROOT 0.05
#define SIGNAL_CONTRAST 0.1
#define RB_PI 3.14159265358979323846

typedef struct {
    int order;
    double al[3];       /* A(z) = al0 + al1 z^-1 + al2 z^-2, al0 = 1 */
    double r, theta;    /* pole radius / angle (order 2), r = pole (order 1) */
} denom;

static int build_psf(rb_context *ctx, const rb_deblur_psf *psf, double **k, int *kw, int *kh)
{
    if (psf->kind == RB_DEBLUR_PSF_GAUSSIAN) {
        double s = psf->sigma;
        if (!isfinite(s))
            return rb_error(ctx, RB_ERR_NAN, "deblur design: PSF sigma is not finite");
        if (s < 0.3 || s > 20)
            return rb_error(ctx, RB_ERR_ARGUMENT,
                            "deblur design: PSF sigma %g out of range (0.3 .. 20)", s);
        int r = (int)ceil(4 * s);
        *kw = *kh = 2 * r + 1;
        double *g1 = malloc(sizeof(double) * (2 * r + 1));
        *k = malloc(sizeof(double) * (2 * r + 1) * (2 * r + 1));
        if (!g1 || !*k) {
            free(g1);
            return rb_error(ctx, RB_ERR_NOMEM, "deblur design: out of memory");
        }
        double sum = 0;
        for (int i = -r; i <= r; i++)
            sum += g1[i + r] = exp(-(double)i * i / (2 * s * s));
        for (int i = 0; i <= 2 * r; i++)
            for (int j = 0; j <= 2 * r; j++)
                (*k)[i * (2 * r + 1) + j] = g1[i] * g1[j] / (sum * sum);
        free(g1);
        return RB_OK;
    }
    if (psf->kind != RB_DEBLUR_PSF_KERNEL)
        return rb_error(ctx, RB_ERR_ARGUMENT, "deblur design: unknown PSF kind %d", (int)psf->kind);
    if (!psf->kernel)
        return rb_error(ctx, RB_ERR_NULL, "deblur design: PSF kernel is NULL");
    if (psf->kw < 1 || psf->kh < 1 || psf->kw > 127 || psf->kh > 127 || !(psf->kw & 1) ||
        !(psf->kh & 1))
        return rb_error(ctx, RB_ERR_SIZE,
                        "deblur design: PSF kernel is %dx%d; sides must be odd, 1 .. 127 (the "
                        "centre sample is the origin)",
                        psf->kw, psf->kh);
    double sum = 0;
    for (int i = 0; i < psf->kw * psf->kh; i++) {
        double v = psf->kernel[i];
        if (!isfinite(v))
            return rb_error(ctx, RB_ERR_NAN, "deblur design: PSF sample (%d,%d) is not finite",
                            i % psf->kw, i / psf->kw);
        if (v < 0)
            return rb_error(ctx, RB_ERR_ARGUMENT,
                            "deblur design: PSF sample (%d,%d) is negative (%g); a point-spread "
                            "function is non-negative",
                            i % psf->kw, i / psf->kw, v);
        sum += v;
    }
    if (!(sum > 0))
        return rb_error(ctx, RB_ERR_ARGUMENT, "deblur design: PSF kernel sums to 0");
    *kw = psf->kw;
    *kh = psf->kh;
    *k = malloc(sizeof(double) * psf->kw * psf->kh);
    if (!*k)
        return rb_error(ctx, RB_ERR_NOMEM, "deblur design: out of memory");
    for (int i = 0; i < psf->kw * psf->kh; i++)
        (*k)[i] = psf->kernel[i] / sum;
    return RB_OK;
}

/* w[p*DN + s] = centred impulse response of the Wiener inverse (indices mod DN). */
static int wiener_response(const double *k, int kw, int kh, double K, double *w)
{
    double complex *tw = malloc(sizeof(double complex) * DN);
    double complex *A = malloc(sizeof(double complex) * DN * DN);
    double complex *B = malloc(sizeof(double complex) * DN * DN);
    if (!tw || !A || !B) {
        free(tw), free(A), free(B);
        return -1;
    }
    for (int t = 0; t < DN; t++)
        tw[t] = cexp(2.0 * RB_PI * I * t / DN);
    const int cx = kw / 2, cy = kh / 2;
    /* Hr[y][v] = sum_x k(y,x) e^{-2 pi i v (x - cx) / N} */
    for (int y = 0; y < kh; y++)
        for (int v = 0; v < DN; v++) {
            double complex s = 0;
            for (int x = 0; x < kw; x++)
                s += k[y * kw + x] * conj(tw[(((long)v * (x - cx)) % DN + DN) % DN]);
            A[y * DN + v] = s;
        }
    /* H[u][v], then W in place */
    for (int u = 0; u < DN; u++)
        for (int v = 0; v < DN; v++) {
            double complex s = 0;
            for (int y = 0; y < kh; y++)
                s += A[y * DN + v] * conj(tw[(((long)u * (y - cy)) % DN + DN) % DN]);
            double p = creal(s) * creal(s) + cimag(s) * cimag(s);
            B[u * DN + v] = conj(s) / (p + K);
        }
    /* T[u][s] = sum_v W[u][v] e^{+...}, then w[p][s] = Re sum_u T[u][s] e^{+...} / N^2 */
    for (int u = 0; u < DN; u++)
        for (int s = 0; s < DN; s++) {
            double complex acc = 0;
            for (int v = 0; v < DN; v++)
                acc += B[u * DN + v] * tw[(v * s) % DN];
            A[u * DN + s] = acc;
        }
    for (int p = 0; p < DN; p++)
        for (int s = 0; s < DN; s++) {
            double complex acc = 0;
            for (int u = 0; u < DN; u++)
                acc += A[u * DN + s] * tw[(u * p) % DN];
            w[p * DN + s] = creal(acc) / ((double)DN * DN);
        }
    free(tw), free(A), free(B);
    return 0;
}

/* Cholesky of an SPD m x m matrix in place (lower). 0 on success. */
static int cholesky(double *L, int m)
{
    for (int j = 0; j < m; j++) {
        double d = L[j * m + j];
        for (int k = 0; k < j; k++)
            d -= L[j * m + k] * L[j * m + k];
        if (!(d > 0))
            return -1;
        d = sqrt(d);
        L[j * m + j] = d;
        for (int i = j + 1; i < m; i++) {
            double s = L[i * m + j];
            for (int k = 0; k < j; k++)
                s -= L[i * m + k] * L[j * m + k];
            L[i * m + j] = s / d;
        }
    }
    return 0;
}

/* Solve (L L^T) x = x in place for one vector with stride. */
static void chol_solve(const double *L, int m, double *x, int stride)
{
    for (int i = 0; i < m; i++) {
        double s = x[i * stride];
        for (int k = 0; k < i; k++)
            s -= L[i * m + k] * x[k * stride];
        x[i * stride] = s / L[i * m + i];
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = x[i * stride];
        for (int k = i + 1; k < m; k++)
            s -= L[k * m + i] * x[k * stride];
        x[i * stride] = s / L[i * m + i];
    }
}

/* y = Q x for the weight Q = Markov correlation rho^|p - p'| + nu_root I on
 * [0, FD): a forward and a backward first-order recursion, O(FD). */
static void apply_q(const double *x, int stride, double *y, int ystride, double *f)
{
    double acc = 0;
    for (int p = 0; p < FD; p++)
        f[p] = acc = x[p * stride] + MARKOV_RHO * acc;
    acc = 0;
    for (int p = FD - 1; p >= 0; p--) {
        double xp = x[p * stride];
        acc = xp + MARKOV_RHO * acc;
        y[p * ystride] = f[p] + acc - xp + NU_ROOT * xp;
    }
}

/* Weighted target T' = Q T Q (FD x FD) from the DT x DT target t. */
static void weight_target(const double *t, double *Tw, double *f)
{
    memset(Tw, 0, sizeof(double) * FD * FD);
    for (int p1 = 0; p1 < DT; p1++)
        memcpy(Tw + p1 * FD, t + p1 * DT, sizeof(double) * DT);
    for (int p1 = 0; p1 < FD; p1++)   /* rows: T Q */
        apply_q(Tw + p1 * FD, 1, Tw + p1 * FD, 1, f);
    for (int p2 = 0; p2 < FD; p2++)   /* columns: Q (T Q) */
        apply_q(Tw + p2, FD, Tw + p2, FD, f);
}

/* sum_p g1[p - from] x[p stride], p = from .. FD-1: column `from` of G1 (the
 * denominator's impulse response g1 shifted down by `from`) dotted with a
 * strided vector */
static double g1_column_dot(const double *g1, int from, const double *x, int stride)
{
    double acc = 0;
    for (int p = from; p < FD; p++)
        acc += g1[p - from] * x[p * stride];
    return acc;
}

/* (X Y)[i][j] of two m x m row-major matrices */
static double product_entry(const double *X, const double *Y, int m, int i, int j)
{
    double acc = 0;
    for (int k = 0; k < m; k++)
        acc += X[i * m + k] * Y[k * m + j];
    return acc;
}

/* Fit target t with a / (A(z1) A(z2)), a m x m, minimising the quadrant's
 * response error in the weighted norm |e|_Q^2 = e . (Q (x) Q) e: the mean
 * squared restoration error on images with the separable Markov
 * correlation rho^(|dx|+|dy|), plus a white (noise) term. Q (x) Q and the
 * separable 1/B keep the normal equations a Kronecker product:
 * (G1' Q G1) a (G1' Q G1) = G1' (Q T Q) G1. Returns the weighted residual
 * (INFINITY when the candidate is unusable). */
static double fit(const double *Tw, double tQt, int m, const denom *d, double *a, double *scratch)
{
    double *g1 = scratch;                     /* FD */
    double *V = g1 + FD;                      /* FD * m: Q G1 */
    double *tmp = V + FD * m;                 /* FD * m: T' G1 */
    double *R = tmp + FD * m;                 /* m * m */
    double *C = R + m * m;                    /* m * m */
    double *L = C + m * m;                    /* m * m */
    double *Z = L + m * m;                    /* m * m */
    double *f = Z + m * m;                    /* FD */
    double *col = f + FD;                     /* FD */
    g1[0] = 1;
    for (int k = 1; k < FD; k++) {
        double v = -d->al[1] * g1[k - 1];
        if (k >= 2)
            v -= d->al[2] * g1[k - 2];
        g1[k] = d->order ? v : 0.0;
    }
    for (int r = 0; r < m; r++) {             /* column r of G1 is g1 shifted by r */
        for (int p = 0; p < FD; p++)
            col[p] = p >= r ? g1[p - r] : 0.0;
        apply_q(col, 1, V + r, m, f);
    }
    for (int r = 0; r < m; r++)          /* R = G1' Q G1 */
        for (int s2 = 0; s2 < m; s2++)
            R[r * m + s2] = g1_column_dot(g1, r, V + s2, m);
    for (int p1 = 0; p1 < FD; p1++)      /* T' G1 */
        for (int r2 = 0; r2 < m; r2++)
            tmp[p1 * m + r2] = g1_column_dot(g1, r2, Tw + p1 * FD, 1);
    for (int r1 = 0; r1 < m; r1++)       /* C = G1' T' G1 */
        for (int r2 = 0; r2 < m; r2++)
            C[r1 * m + r2] = g1_column_dot(g1, r1, tmp + r2, m);
    /* A small ridge keeps a bounded when R is near singular: huge, cancelling
     * taps would cost float32 accuracy at run time. */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            L[i * m + j] = 0.5 * (R[i * m + j] + R[j * m + i]) + (i == j ? 1e-9 * R[0] : 0.0);
    if (cholesky(L, m))
        return INFINITY;
    memcpy(Z, C, sizeof(double) * m * m);
    for (int c = 0; c < m; c++)          /* Z = R^-1 C */
        chol_solve(L, m, Z + c, m);
    for (int r = 0; r < m; r++)          /* a = Z R^-1 (R symmetric) */
        chol_solve(L, m, Z + r * m, 1);
    memcpy(a, Z, sizeof(double) * m * m);
    /* residual = t'Qt - 2 a.C + a.(R a R) */
    double ac = 0, aRa = 0;
    for (int k = 0; k < m * m; k++)
        ac += a[k] * C[k];
    for (int i = 0; i < m; i++)          /* Z = R a */
        for (int j = 0; j < m; j++)
            Z[i * m + j] = product_entry(R, a, m, i, j);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            aRa += a[i * m + j] * product_entry(Z, R, m, i, j);
    double res = tQt - 2 * ac + aRa;
    return res > 0 ? res : 0;
}

static int make_denoms(denom *list, int m, unsigned flags)
{
    int n = 0;
    list[n++] = (denom){0, {1, 0, 0}, 0, 0};
    if (flags & RB_DEBLUR_DESIGN_FIR_ONLY)
        return n;
    static const double p1[] = {-0.9, -0.8, -0.7, -0.5, -0.3, 0.3, 0.5, 0.7, 0.8, 0.9};
    for (size_t i = 0; i < sizeof p1 / sizeof *p1; i++)
        list[n++] = (denom){1, {1, -p1[i], 0}, p1[i], 0};
    if (m < 3)
        return n;
    static const double rr[] = {0.3, 0.5, 0.65, 0.75, 0.82, 0.88, 0.9};
    for (size_t i = 0; i < sizeof rr / sizeof *rr; i++)
        for (int k = 0; k <= 12; k++) {
            double th = RB_PI * k / 12;
            list[n++] = (denom){2, {1, -2 * rr[i] * cos(th), rr[i] * rr[i]}, rr[i], th};
        }
    return n;
}

rb_status rb_deblur_design(rb_context *ctx, const rb_deblur_psf *psf, double noise, int m,
                           unsigned flags, rb_deblur_filter **out)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "deblur design: NULL output pointer");
    *out = NULL;
    if (!psf)
        return rb_error(ctx, RB_ERR_NULL, "deblur design: NULL PSF");
    if (!isfinite(noise))
        return rb_error(ctx, RB_ERR_NAN, "deblur design: noise level is not finite");
    if (noise < 0 || noise > 0.5)
        return rb_error(ctx, RB_ERR_ARGUMENT,
                        "deblur design: noise level %g out of range (0 .. 0.5, the standard "
                        "deviation in [0,1] units, e.g. 0.005 for 0.5%%)",
                        noise);
    if (m < RB_DEBLUR_MIN_WINDOW || m > RB_DEBLUR_MAX_WINDOW)
        return rb_error(ctx, RB_ERR_ARGUMENT, "deblur design: window %d out of range (%d..%d)", m,
                        RB_DEBLUR_MIN_WINDOW, RB_DEBLUR_MAX_WINDOW);
    if (flags & ~RB_DEBLUR_DESIGN_FIR_ONLY)
        return rb_error(ctx, RB_ERR_ARGUMENT, "deblur design: unknown flags 0x%x", flags);
    double *k = NULL;
    int kw = 0, kh = 0;
    rb_status st = build_psf(ctx, psf, &k, &kw, &kh);
    if (st != RB_OK)
        return st;
    /* K > 0 keeps W bounded where H vanishes; noise 0 gets a tiny floor. */
    double K = (noise / SIGNAL_CONTRAST) * (noise / SIGNAL_CONTRAST);
    if (K < 1e-8)
        K = 1e-8;
    double *w = malloc(sizeof(double) * DN * DN);
    double *t = malloc(sizeof(double) * DT * DT);
    double *scratch = malloc(sizeof(double) * (3 * FD + 2 * FD * m + 4 * m * m));
    double *Tw = malloc(sizeof(double) * FD * FD), *fq = malloc(sizeof(double) * FD);
    double *a[4] = {0}, *b[4] = {0}, *cand = malloc(sizeof(double) * m * m);
    denom *list = malloc(sizeof(denom) * 128);
    int ok = w && t && scratch && cand && list && Tw && fq;
    for (int q = 0; q < 4 && ok; q++) {
        a[q] = calloc((size_t)m * m, sizeof(double));
        b[q] = calloc((size_t)m * m, sizeof(double));
        ok = a[q] && b[q];
    }
    if (!ok || wiener_response(k, kw, kh, K, w)) {
        st = rb_error(ctx, RB_ERR_NOMEM, "deblur design: out of memory");
        goto done;
    }
    int nd = make_denoms(list, m, flags);
    double err_total = 0, fir_total = 0, tt_total = 0;
    denom chosen[4];
    double err_q[4], fir_q[4], tt_q[4], *tq[4] = {0};
    for (int q = 0; q < 4; q++)
        if (!(tq[q] = malloc(sizeof(double) * DT * DT))) {
            st = rb_error(ctx, RB_ERR_NOMEM, "deblur design: out of memory");
            goto done2;
        }
    for (int q = 0; q < 4; q++) {
        const int si = rb_deblur_si(q), sj = rb_deblur_sj(q);
        double tt = 0;
        for (int p1 = 0; p1 < DT; p1++)
            for (int p2 = 0; p2 < DT; p2++) {
                double wt = (p1 == 0 ? 0.5 : 1.0) * (p2 == 0 ? 0.5 : 1.0);
                double v = wt * w[((si * p1 + DN) % DN) * DN + (sj * p2 + DN) % DN];
                t[p1 * DT + p2] = v;
                tt += v * v;
            }
        /* A symmetric PSF gives four equal targets: fit once. */
        int same = -1;
        for (int r = 0; r < q && same < 0; r++)
            if (!memcmp(tq[r], t, sizeof(double) * DT * DT))
                same = r;
        memcpy(tq[q], t, sizeof(double) * DT * DT);
        if (same >= 0) {
            memcpy(a[q], a[same], sizeof(double) * m * m);
            memcpy(b[q], b[same], sizeof(double) * m * m);
            chosen[q] = chosen[same];
            err_total += err_q[same];
            fir_total += fir_q[same];
            tt_total += tt_q[same];
            err_q[q] = err_q[same], fir_q[q] = fir_q[same], tt_q[q] = tt_q[same];
            continue;
        }
        weight_target(t, Tw, fq);
        double tQt = 0;
        for (int p1 = 0; p1 < DT; p1++)
            for (int p2 = 0; p2 < DT; p2++)
                tQt += t[p1 * DT + p2] * Tw[p1 * FD + p2];
        tt = tQt;
        double best = INFINITY;
        for (int c = 0; c < nd; c++) {
            double res = fit(Tw, tQt, m, &list[c], cand, scratch);
            if (c == 0)
                fir_q[q] = res;
            if (res < best) {
                best = res;
                chosen[q] = list[c];
                memcpy(a[q], cand, sizeof(double) * m * m);
            }
        }
        err_q[q] = best;
        tt_q[q] = tt;
        err_total += best;
        tt_total += tt;
        fir_total += fir_q[q];
        /* B = A(z1) A(z2) = 1 - sum b z^-k: b(k1,k2) = -al_k1 al_k2 */
        const denom *d = &chosen[q];
        for (int k1 = 0; k1 <= d->order; k1++)
            for (int k2 = 0; k2 <= d->order; k2++)
                if (k1 || k2)
                    b[q][k1 * m + k2] = -d->al[k1] * d->al[k2];
    }
    st = rb_deblur_filter_create(ctx, m, (const double *const *)a, (const double *const *)b, out);
    if (st != RB_OK)
        goto done2;
    (*out)->fit_error = sqrt(err_total / tt_total);
    char psfs[64];
    if (psf->kind == RB_DEBLUR_PSF_GAUSSIAN)
        snprintf(psfs, sizeof psfs, "gaussian PSF sigma %g", psf->sigma);
    else
        snprintf(psfs, sizeof psfs, "%dx%d PSF kernel", kw, kh);
    const denom *d = &chosen[0];
    char rec[96];
    if (d->order == 0)
        snprintf(rec, sizeof rec, "pure FIR (b = 0)");
    else if (d->order == 1)
        snprintf(rec, sizeof rec, "IIR, B = A(z1)A(z2), A pole %g", d->r);
    else
        snprintf(rec, sizeof rec, "IIR, B = A(z1)A(z2), A poles %g exp(+-i %.0f deg)", d->r,
                 d->theta * 180 / RB_PI);
    snprintf((*out)->description, sizeof (*out)->description,
             "deblur %s, noise %g, window %d: %s; fit error %.3g%% (FIR alone %.3g%%)", psfs,
             noise, m, rec, 100 * (*out)->fit_error, 100 * sqrt(fir_total / tt_total));
done2:
    for (int q = 0; q < 4; q++)
        free(tq[q]);
done:
    free(k), free(w), free(t), free(scratch), free(cand), free(list), free(Tw), free(fq);
    for (int q = 0; q < 4; q++)
        free(a[q]), free(b[q]);
    return st;
}
