/* Small shared helpers for the engine tests: a seeded RNG (RB_TEST_SEED
 * reproduces a run) and random stable filters. */
#ifndef RB_TEST_UTIL_H
#define RB_TEST_UTIL_H

#include "recblur.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t tu_state;

static inline uint64_t tu_next(void)
{
    /* splitmix64 */
    uint64_t z = (tu_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double tu_uniform(void) { return (double)(tu_next() >> 11) * (1.0 / 9007199254740992.0); }
static inline int tu_int(int lo, int hi) { return lo + (int)(tu_next() % (uint64_t)(hi - lo + 1)); }

/* Fresh seed per run, printed; RB_TEST_SEED=<n> reproduces. */
static inline uint64_t tu_seed(const char *suite)
{
    const char *env = getenv("RB_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0)
                        : ((uint64_t)time(NULL) * 1000003u) ^ ((uint64_t)getpid() << 16);
    tu_state = seed;
    printf("%s: RB_TEST_SEED=%llu\n", suite, (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

/* Feedback coefficients a_1..a_r (signature sign) of r random poles with
 * modulus <= pmax, complex pairs included. Poles stay away from -1 (complex
 * angles <= 0.75 pi, negative real poles >= -0.6, as in B-spline prefilters):
 * clustered poles near -1 give a Nyquist gain ~1/prod|1+p|^2 (1e16 for four
 * at -0.99) that amplifies every rounding error of any arithmetic past the
 * output itself, so no finite-precision engine or reference can be checked
 * against another there. */
static inline void tu_random_feedback(int r, double pmax, double *a)
{
    double complex poly[RB_MAX_ORDER + 1] = {1.0};
    int deg = 0;
    while (deg < r) {
        double rad = pmax * (0.3 + 0.7 * sqrt(tu_uniform()));
        if (tu_uniform() < 0.25)
            rad = pmax;
        double complex roots[2];
        int nr;
        if (r - deg >= 2 && tu_uniform() < 0.5) {
            double th = 0.75 * M_PI * tu_uniform();
            roots[0] = rad * cexp(I * th);
            roots[1] = conj(roots[0]);
            nr = 2;
        } else {
            roots[0] = tu_uniform() < 0.7 ? rad : -fmin(rad, 0.6);
            nr = 1;
        }
        for (int k = 0; k < nr; k++) {
            for (int j = deg + 1; j >= 1; j--)
                poly[j] -= roots[k] * poly[j - 1];
            deg++;
        }
    }
    for (int k = 1; k <= r; k++)
        a[k - 1] = -creal(poly[k]); /* 1 + sum d z^-k, a = -d */
}

/* Random samples of a storage format (floats in [-0.5, 1.5): outside [0, 1]
 * on purpose), and one sample read back as a double. */
static inline void tu_fill_random(void *data, rb_format fmt, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        double v = tu_uniform();
        switch (fmt) {
        case RB_U8: ((uint8_t *)data)[i] = (uint8_t)(v * 255.999); break;
        case RB_U16: ((uint16_t *)data)[i] = (uint16_t)(v * 65535.999); break;
        default: ((float *)data)[i] = (float)(v * 2.0 - 0.5); break;
        }
    }
}

/* A random filter axis and the FIR taps it points at. */
typedef struct {
    rb_axis_filter f;
    double taps[16];
} tu_axis;

/* A DC gain for a random axis: 0.3..3, negative one time in five. A unit
 * gain everywhere hid every formula that forgets a gain (the constant row
 * value times the column pass' gain, the sweep's mean shift). */
static inline double tu_random_dc_gain(void)
{
    double g = 0.3 + 2.7 * tu_uniform();
    return tu_uniform() < 0.2 ? -g : g;
}

/* A random axis of the given variant (0 symmetric, 1 symmetric + even FIR,
 * 2 different causal/anticausal, 3 causal only, 4 anticausal only,
 * 5 asymmetric FIR, 6 FIR only), poles up to pmax, of a random DC gain. */
static inline void tu_random_axis(tu_axis *t, int order, double pmax, int variant)
{
    memset(t, 0, sizeof *t);
    rb_axis_filter *f = &t->f;
    int co = order, ao = order;
    if (variant == 2) {
        if (tu_uniform() < 0.5)
            co = tu_int(1, order);
        else
            ao = tu_int(1, order);
    }
    if (variant == 3)
        ao = 0;
    if (variant == 4)
        co = 0;
    if (variant == 6)
        co = ao = 0;
    f->causal_order = co;
    f->anticausal_order = ao;
    if (co)
        tu_random_feedback(co, pmax, f->causal);
    if (ao) {
        if (variant == 2 || variant == 4)
            tu_random_feedback(ao, pmax, f->anticausal);
        else
            memcpy(f->anticausal, f->causal, sizeof(double) * (size_t)ao);
    }
    int lo = 0, hi = 0;
    if (variant == 1 || variant == 6) {
        hi = tu_int(1, 3);
        lo = -hi;
    } else if (variant == 5) {
        lo = -tu_int(0, 3);
        hi = tu_int(0, 3);
        if (lo == 0 && hi == 0)
            hi = 2;
    }
    double sum = 0.0;
    for (int k = lo; k <= hi; k++) {
        double v = 0.2 + tu_uniform();
        if (variant == 1 || variant == 6) {
            if (k > 0)
                v = t->taps[-k - lo];
        }
        t->taps[k - lo] = v;
        sum += v;
    }
    double sc = 1.0, sa = 1.0;
    for (int k = 0; k < co; k++)
        sc -= f->causal[k];
    for (int k = 0; k < ao; k++)
        sa -= f->anticausal[k];
    double gain = tu_random_dc_gain();
    for (int k = lo; k <= hi; k++)
        t->taps[k - lo] *= gain * sc * sa / sum;
    f->fir = t->taps;
    f->fir_lo = lo;
    f->fir_hi = hi;
}

/* Relative RMS of float a against float b (absolute where b is all zero). */
static inline double tu_rel_rms_f(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        den += (double)b[i] * b[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

/* Relative RMS of float a against a float64 reference b (absolute where b
 * is all zero): the engine against tests/reference.c. */
static inline double tu_rel_rms_fd(const float *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

/* dst[i] = src[i]: float samples as the float64 reference takes them. */
static inline void tu_to_double(const float *src, double *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

static inline double tu_sample(const void *data, rb_format fmt, size_t i)
{
    switch (fmt) {
    case RB_U8: return ((const uint8_t *)data)[i];
    case RB_U16: return ((const uint16_t *)data)[i];
    default: return ((const float *)data)[i];
    }
}

/* An image of w x h x ch samples of fmt at data in memory mem; stride 0: rows
 * packed. No alpha, not sRGB. */
static inline rb_image tu_image(int w, int h, int ch, rb_format fmt, size_t stride, void *data,
                                rb_memory mem)
{
    return (rb_image){.width = w, .height = h, .channels = ch, .stride = stride, .format = fmt,
                      .memory = mem, .data = data};
}

/* A packed host F32 image of w x h x ch samples at data (no alpha, not sRGB). */
static inline rb_image tu_f32_image(int w, int h, int ch, float *data)
{
    return tu_image(w, h, ch, RB_F32, 0, data, RB_MEMORY_HOST);
}

/* A packed host image of w x h x ch random samples of fmt (tu_fill_random);
 * its data is malloc'ed: free(im.data). */
static inline rb_image tu_random_image(int w, int h, int ch, rb_format fmt)
{
    size_t count = (size_t)w * h * ch;
    size_t sample = fmt == RB_U8 ? 1 : fmt == RB_U16 ? 2 : sizeof(float);
    void *data = malloc(count * sample);
    if (data)
        tu_fill_random(data, fmt, count);
    return tu_image(w, h, ch, fmt, 0, data, RB_MEMORY_HOST);
}

/* A progress callback for the cancel tests (rb_context_set_progress(ctx,
 * tu_progress_report, &probe)): it counts the reports, keeps the last fraction,
 * notes any out of order or outside [0, 1], and cancels at report cancel_at. */
typedef struct {
    int cancel_at, calls, out_of_order;
    double last;
} tu_progress;

static inline void tu_progress_start(tu_progress *p, int cancel_at)
{
    *p = (tu_progress){cancel_at, 0, 0, 0.0};
}

static inline int tu_progress_report(double fraction, void *user)
{
    tu_progress *p = user;
    if (fraction < p->last || fraction > 1.0)
        p->out_of_order = 1;
    p->last = fraction;
    return ++p->calls >= p->cancel_at;
}

#endif
