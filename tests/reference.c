/* Independent float64 reference (see reference.h). Deliberately simple and
 * slow: padding + direct recurrences in the signature form. */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int fir_reach(const rb_axis_filter *ax)
{
    if (!ax || !ax->fir)
        return 0;
    int e = -ax->fir_lo > ax->fir_hi ? -ax->fir_lo : ax->fir_hi;
    return e > 0 ? e : 0;
}

/* Length after which the impulse response of y_i = x_i + sum a_k y_{i-k}
 * stays below 1e-16 of its peak (simulated, so no root finding). */
static long decay_length(const double *a, int order)
{
    if (order <= 0)
        return 0;
    long last = 0;
    double peak = 0.0, hist[RB_MAX_ORDER] = {0};
    for (long i = 0; i < 2000000; i++) {
        double v = i == 0 ? 1.0 : 0.0;
        for (int k = 0; k < order; k++)
            v += a[k] * hist[k];
        for (int k = order - 1; k > 0; k--)
            hist[k] = hist[k - 1];
        hist[0] = v;
        double m = fabs(v);
        if (m > peak)
            peak = m;
        if (m > 1e-16 * peak)
            last = i;
        if (i - last > 20000)
            break;
    }
    return last + 1;
}

long ref_padding(const rb_axis_filter *ax)
{
    if (!ax)
        return 0;
    long a = decay_length(ax->causal, ax->causal_order);
    long b = decay_length(ax->anticausal, ax->anticausal_order);
    return (a > b ? a : b) + 2L * fir_reach(ax) + 16;
}

static long imod(long i, long p)
{
    long j = i % p;
    return j < 0 ? j + p : j;
}

/* Value of the extended signal at any integer i. */
static double ext(const double *x, long n, long i, rb_boundary_mode mode, double cval)
{
    if (i >= 0 && i < n)
        return x[i];
    switch (mode) {
    case RB_BOUNDARY_CONSTANT: return cval;
    case RB_BOUNDARY_CLAMP: return i < 0 ? x[0] : x[n - 1];
    case RB_BOUNDARY_PERIODIC: return x[imod(i, n)];
    case RB_BOUNDARY_MIRROR: {
        long j = imod(i, 2 * n);
        return x[j < n ? j : 2 * n - 1 - j];
    }
    default: return 0.0; /* zero, none */
    }
}

static int filter_line_padded(const rb_axis_filter *ax, rb_boundary_mode mode, double cval,
                              const double *in, double *out, long n, long pad)
{
    if (!ax) {
        if (out != in)
            memmove(out, in, sizeof(double) * (size_t)n);
        return 0;
    }
    /* none: filter exactly [0, n), zero input outside, zero states at the ends */
    long P = mode == RB_BOUNDARY_NONE ? 0 : pad;
    long N = n + 2 * P;
    /* long double: clustered poles near the unit circle cost the direct form
     * in double up to ~1e-5 */
    long double *u = malloc(sizeof(long double) * (size_t)N);
    if (!u)
        return -1;
    for (long j = 0; j < N; j++) {
        long i = j - P;
        if (!ax->fir)
            u[j] = ext(in, n, i, mode, cval);
        else {
            long double s = 0.0;
            for (int k = ax->fir_lo; k <= ax->fir_hi; k++)
                s += (long double)ax->fir[k - ax->fir_lo] * ext(in, n, i + k, mode, cval);
            u[j] = s;
        }
    }
    for (long j = 0; j < N; j++) /* causal: y_j = u_j + sum a_k y_{j-k} */
        for (int k = 1; k <= ax->causal_order && j - k >= 0; k++)
            u[j] += (long double)ax->causal[k - 1] * u[j - k];
    for (long j = N - 1; j >= 0; j--) /* anticausal: z_j = y_j + sum a'_k z_{j+k} */
        for (int k = 1; k <= ax->anticausal_order && j + k < N; k++)
            u[j] += (long double)ax->anticausal[k - 1] * u[j + k];
    for (long i = 0; i < n; i++)
        out[i] = (double)u[P + i];
    free(u);
    return 0;
}

int ref_filter_line(const rb_axis_filter *ax, rb_boundary_mode mode, double cval, const double *in,
                    double *out, long n)
{
    return filter_line_padded(ax, mode, cval, in, out, n, ref_padding(ax));
}

/* Filter every line of one direction of an interleaved image in place: line
 * (o, k) for o < outer, k < ch starts at img[o * outer_step + k], its n
 * samples sample_step apart. */
static int filter_lines(const rb_axis_filter *ax, rb_boundary_mode mode, double c, double *img,
                        double *line, int outer, size_t outer_step, int ch, long n,
                        size_t sample_step, long pad)
{
    for (int o = 0; o < outer; o++)
        for (int k = 0; k < ch; k++) {
            double *base = img + (size_t)o * outer_step + (size_t)k;
            for (long i = 0; i < n; i++)
                line[i] = base[(size_t)i * sample_step];
            if (filter_line_padded(ax, mode, c, line, line, n, pad))
                return -1;
            for (long i = 0; i < n; i++)
                base[(size_t)i * sample_step] = line[i];
        }
    return 0;
}

int ref_filter_image(const rb_axis_filter *fx, const rb_axis_filter *fy, rb_boundary b,
                     const double *in, double *out, int w, int h, int ch)
{
    long len = w > h ? w : h;
    double *line = malloc(sizeof(double) * (size_t)len);
    if (!line)
        return -1;
    if (out != in)
        memmove(out, in, sizeof(double) * (size_t)w * h * ch);
    double c = b.value;
    long py = ref_padding(fy), px = ref_padding(fx); /* once per axis: it is simulated */
    /* the row pass of a constant extension sees a column of constants, filtered */
    double crow = c;
    int rc = filter_lines(fy, b.mode, c, out, line, w, (size_t)ch, ch, h, (size_t)w * ch, py);
    if (rc == 0 && b.mode == RB_BOUNDARY_CONSTANT && fy)
        rc = filter_line_padded(fy, b.mode, c, &crow, &crow, 1, py);
    if (rc == 0)
        rc = filter_lines(fx, b.mode, crow, out, line, h, (size_t)w * ch, ch, w, (size_t)ch, px);
    free(line);
    return rc;
}

double ref_rel_rms(const double *a, const double *b, size_t count)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < count; i++) {
        double d = a[i] - b[i];
        num += d * d;
        den += b[i] * b[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num / (double)(count ? count : 1));
}
