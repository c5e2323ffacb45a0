/* The quadrant deblur filter's independent float64 reference, shared by
 * test_deblur_engine (CPU back end) and test_deblur_gpu (CUDA back end):
 * random stable coefficient sets and a direct evaluation of the recursion in
 * recblur_deblur.h, written from its definition, not from the engine's code.
 * Include after cmocka.h and test_util.h (draws come from tu_uniform). */
#ifndef RB_DEBLUR_REFERENCE_H
#define RB_DEBLUR_REFERENCE_H

#include "recblur.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Random a (m x m, m >= 2) and b with sum |b| = gain < 1 (provably stable:
 * the recursion is a contraction in the sup norm), over a random sub-window
 * of b, or the whole window when `full`. */
static void dr_random_quadrant(int m, double gain, int full, double *a, double *b)
{
    for (int k = 0; k < m * m; k++)
        a[k] = (tu_uniform() * 2 - 1) / m;
    memset(b, 0, sizeof(double) * (size_t)m * m);
    int rb = full ? m : 1 + (int)(tu_uniform() * m), cb = full ? m : 1 + (int)(tu_uniform() * m);
    if (rb * cb < 2)
        cb = 2;
    double s = 0;
    for (int i = 0; i < rb; i++)
        for (int j = 0; j < cb; j++)
            if (i || j) {
                b[i * m + j] = tu_uniform() * 2 - 1;
                s += fabs(b[i * m + j]);
            }
    if (s == 0) {
        b[1] = 1;
        s = 1;
    }
    for (int k = 0; k < m * m; k++)
        b[k] *= gain / s;
}

/* sum |b|: below 1 is stable, but taps m - 1 apart let a response travel m - 1
 * pixels per step, so keep gain^(256/(m-1)) ~ 1e-9 for it to decay on the
 * engine's 512 x 512 check grid. */
static double dr_gain_for(int m)
{
    double g = pow(10.0, -9.0 * (m - 1) / 256.0);
    return g < 0.9 ? g : 0.9;
}

/* Boundary extension, written from its definition (not the engine's code). */
static double dr_ext_value(const double *img, int w, int h, int ch, int c, long i, long j,
                           rb_boundary b)
{
    long n[2] = {h, w}, k[2] = {i, j};
    for (int d = 0; d < 2; d++) {
        if (k[d] >= 0 && k[d] < n[d])
            continue;
        switch (b.mode) {
        case RB_BOUNDARY_CLAMP: k[d] = k[d] < 0 ? 0 : n[d] - 1; break;
        case RB_BOUNDARY_PERIODIC: k[d] = ((k[d] % n[d]) + n[d]) % n[d]; break;
        case RB_BOUNDARY_MIRROR: {
            long p = ((k[d] % (2 * n[d])) + 2 * n[d]) % (2 * n[d]);
            k[d] = p < n[d] ? p : 2 * n[d] - 1 - p;
            break;
        }
        case RB_BOUNDARY_CONSTANT: return b.value;
        default: return 0.0;
        }
    }
    return img[(k[0] * w + k[1]) * ch + c];
}

/* Direct float64 evaluation: each quadrant scans from its corner, starting
 * `P` pixels before the image on its leading sides from a zero state, with
 * the extended input there; the four are summed. */
static void dr_reference(int m, double *const a[4], double *const b[4], rb_boundary bd, int P,
                         const double *in, double *out, int w, int h, int ch)
{
    long off = P + m, H2 = h + 2 * off, W2 = w + 2 * off;
    double *X = malloc(sizeof(double) * H2 * W2), *Y = malloc(sizeof(double) * H2 * W2);
    assert_non_null(X);
    assert_non_null(Y);
    memset(out, 0, sizeof(double) * (size_t)w * h * ch);
    for (int c = 0; c < ch; c++)
        for (int q = 0; q < 4; q++) {
            int si = (q & 2) ? -1 : 1, sj = (q & 1) ? -1 : 1;
            for (long i = 0; i < H2; i++)
                for (long j = 0; j < W2; j++) {
                    long ii = i - off, jj = j - off;
                    int inside = ii >= -P && ii < h + P && jj >= -P && jj < w + P;
                    /* only the leading margins exist: nothing before the scan start */
                    X[i * W2 + j] = inside ? dr_ext_value(in, w, h, ch, c, ii, jj, bd) : 0.0;
                    Y[i * W2 + j] = 0.0;
                }
            for (long t1 = 0; t1 < h + P; t1++)
                for (long t2 = 0; t2 < w + P; t2++) {
                    long ii = si > 0 ? t1 - P : h - 1 + P - t1;
                    long jj = sj > 0 ? t2 - P : w - 1 + P - t2;
                    double s = 0;
                    for (int r1 = 0; r1 < m; r1++)
                        for (int r2 = 0; r2 < m; r2++) {
                            long xi = ii - si * r1, xj = jj - sj * r2;
                            /* reads before the scan start are zero */
                            int before = (si > 0 ? xi < -P : xi > h - 1 + P) ||
                                         (sj > 0 ? xj < -P : xj > w - 1 + P);
                            if (before)
                                continue;
                            s += a[q][r1 * m + r2] * X[(xi + off) * W2 + xj + off];
                            if (r1 || r2)
                                s += b[q][r1 * m + r2] * Y[(xi + off) * W2 + xj + off];
                        }
                    Y[(ii + off) * W2 + jj + off] = s;
                }
            for (long i = 0; i < h; i++)
                for (long j = 0; j < w; j++)
                    out[(i * w + j) * ch + c] += Y[(i + off) * W2 + j + off];
        }
    free(X);
    free(Y);
}

/* The error scale: the same recursion with |a|, |b| on |input| (and |value|
 * outside). Float rounding and a truncated start both grow with this, not with
 * the signed output, which can cancel to near zero (four quadrants of random
 * sign on a 1x1 image); dividing by it keeps the bound meaningful there. */
static void dr_error_scale(int m, double *const a[4], double *const b[4], rb_boundary bd, int P,
                           const double *in, double *scale, int w, int h, int ch)
{
    double *aa[4], *ab[4];
    size_t mm = (size_t)m * m, n = (size_t)w * h * ch;
    double *ain = malloc(sizeof(double) * n);
    assert_non_null(ain);
    for (size_t k = 0; k < n; k++)
        ain[k] = fabs(in[k]);
    for (int q = 0; q < 4; q++) {
        aa[q] = malloc(sizeof(double) * mm);
        ab[q] = malloc(sizeof(double) * mm);
        assert_non_null(aa[q]);
        assert_non_null(ab[q]);
        for (size_t k = 0; k < mm; k++)
            aa[q][k] = fabs(a[q][k]), ab[q][k] = fabs(b[q][k]);
    }
    bd.value = fabsf(bd.value);
    dr_reference(m, aa, ab, bd, P, ain, scale, w, h, ch);
    for (int q = 0; q < 4; q++)
        free(aa[q]), free(ab[q]);
    free(ain);
}

/* RMS difference of a float result to the float64 reference, relative to the
 * RMS of the error scale above (dr_error_scale) */
static double dr_rel_rms(const float *x, const double *ref, const double *scale, size_t n)
{
    double num = 0, den = 0;
    for (size_t k = 0; k < n; k++) {
        num += (x[k] - ref[k]) * (x[k] - ref[k]);
        den += scale[k] * scale[k];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

#endif
