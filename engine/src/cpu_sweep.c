/* The fast route of the CPU back end (see cpu_sweep.h).
 *
 * No whole-image intermediate: the image is done in bands of B rows, from
 * the bottom up, and each band leaves the engine finished.
 * - Phase A, once: per block of 8 column lanes (consecutive samples of an
 *   image row, one 8-double vector), the causal column pass (FIR fused,
 *   state in registers, samples converted on the fly) down the whole
 *   column, keeping only its state at the top of every band, and the
 *   anticausal start (44) at the bottom.
 * - Per band, bottom-up: the causal pass again inside the band from its saved
 *   state (same operations, so the same values), the anticausal pass up the
 *   band from the state the band below left, results (float32) into a small
 *   band buffer stored transposed, BB[x][row*ch + c]; then the row pass runs
 *   down the columns of BB (the same kernel: lanes are consecutive samples of
 *   a BB row) and writes the output rows, in their format.
 * Reads the input three times (sums, phase A, band), writes the output once;
 * the causal column pass costs twice; nothing of image size is allocated.
 * Arithmetic is double, as in line_solver.c (float32 recurrences miss the
 * accuracy bound for clustered poles near the unit circle); only BB is
 * float32, one float32 rounding of each intermediate.
 *
 * The same mathematics as rb_line_solve_ex for these modes: the prologue (35),
 * the epilogue (44) (or the padded route's steady states), and the mean shift
 * (filter x - mean, add DC gain * mean back). Operation order differs (the
 * feedback terms are summed farthest first, to shorten the dependency chain),
 * so results match line_solver.c to rounding, not bitwise. */
#define _GNU_SOURCE
#include "cpu_sweep.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double sw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define SW_MAX_TAPS 64  /* ring of converted samples: the FIR reach must fit */
#define SW_MAX_THREADS 256

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(RB_NO_CLONES)
#define SW_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SW_CLONES
#endif

typedef double v8d __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));

/* One axis, flattened for the kernel. */
typedef struct {
    int r, taps, lo;
    long n, D;                   /* line length, feedback domain [-D, n + D) */
    int padded, shift;
    rb_boundary_mode mode;
    double f[SW_MAX_TAPS], dc[RB_MAX_ORDER], da[RB_MAX_ORDER];
    double pro;                  /* fsum * prologue_dc: causal slots per unit boundary (35) */
    double fsum;
    double epi;                  /* padded route: anticausal slots per unit boundary */
    long double gain;            /* DC gain, for the mean shift */
    const double *M44, *v44;     /* (44) */
} sw_axis;

/* One pass: source rows -> transposed destination. */
typedef struct {
    const sw_axis *ax;
    const unsigned char *src;
    size_t srow;                 /* bytes between source rows (steps) */
    rb_format sfmt;
    long lanes;                  /* lanes per source row */
    unsigned char *dst;
    size_t drow;                 /* bytes between destination rows (one per lane group of ch) */
    rb_format dfmt;
    int ch;
    double cval[4];              /* constant boundary per channel */
    long strip;                  /* lanes per strip (64 bytes of source) */
    /* in place: source rows [alt_from, alt_to) come from a saved copy (the
     * row pass of the band below has overwritten them) */
    const unsigned char *alt;
    long alt_from, alt_to;
    size_t alt_row;
    long nstrips;
} sw_pass;

/* CPU seconds of the calling thread (phase times on a loaded machine). */
static double sw_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t fmt_size(rb_format f) { return f == RB_U8 ? 1 : f == RB_U16 ? 2 : 4; }

/* 8 source samples as rb_pixels_load makes them (u8/u16 scaled to [0,1]).
 * Bytes are widened by a shuffle with zeros first: GCC 12 turns a direct
 * u8 -> int conversion of a vector into byte-by-byte scalar code. */
static inline __attribute__((always_inline)) v8d cvt8(const unsigned char *s, rb_format f)
{
    v8i iv;
    float scale;
    if (f == RB_U8) {
        v16u8 b = {0};
        memcpy(&b, s, 8);
        v16u8 w = __builtin_shufflevector(b, (v16u8){0}, /* GCC 12 and clang both have it */
                                          0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7, 16);
        v8u16 h;
        memcpy(&h, &w, sizeof h);
        iv = __builtin_convertvector(h, v8i);
        scale = 255.0f;
    } else if (f == RB_U16) {
        v8u16 h;
        memcpy(&h, s, sizeof h);
        iv = __builtin_convertvector(h, v8i);
        scale = 65535.0f;
    } else {
        v8f x;
        memcpy(&x, s, sizeof x);
        return __builtin_convertvector(x, v8d);
    }
    v8f x = __builtin_convertvector(iv, v8f) / scale;
    return __builtin_convertvector(x, v8d);
}

/* Lanes g0 .. g0+nl-1 of source row i (lanes past nl read as 0). */
static inline __attribute__((always_inline)) v8d load8(const sw_pass *p, long i, long g0, int nl)
{
    const size_t es = fmt_size(p->sfmt);
    const unsigned char *s = p->alt && i >= p->alt_from && i < p->alt_to
                                 ? p->alt + (size_t)(i - p->alt_from) * p->alt_row
                                 : p->src + (size_t)i * p->srow;
    s += (size_t)g0 * es;
    if (nl == 8)
        return cvt8(s, p->sfmt);
    unsigned char tmp[32] = {0};
    memcpy(tmp, s, (size_t)nl * es);
    return cvt8(tmp, p->sfmt);
}

/* Rows of a column strip are a page or more apart, so the hardware
 * prefetchers (which stay inside a 4 KiB page) miss every one of them: ask
 * for the row PF steps ahead. */
#define SW_PF 12
static inline __attribute__((always_inline)) void prefetch_row(const sw_pass *p, long i, long g0)
{
    if (i >= 0 && i < p->ax->n)
        __builtin_prefetch(p->src + (size_t)i * p->srow + (size_t)g0 * fmt_size(p->sfmt));
}

/* Result of step i for nl lanes -> the destination, rounded as rb_pixels_store
 * (x * max + 0.5, clamped, NaN -> 0, truncated), computed 8 wide. */
static inline __attribute__((always_inline)) void store8(const sw_pass *p, long i,
                                                         const size_t *doff, int nl, v8d v)
{
    const size_t es = fmt_size(p->dfmt);
    unsigned char *d = p->dst + (size_t)i * (size_t)p->ch * es;
    v8f f = __builtin_convertvector(v, v8f);
    /* The empty asm keeps this loop scalar: GCC makes an AVX-512 scatter of
     * it, which is microcoded and slow (Zen 4: 40 % of a band's samples). */
    if (p->dfmt == RB_F32) {
        for (int l = 0; l < nl; l++) {
            float fl = f[l]; /* a copy: clang refuses the address of a vector element */
            memcpy(d + doff[l], &fl, sizeof fl);
            __asm__("" ::: "memory");
        }
        return;
    }
    const float top = p->dfmt == RB_U8 ? 255.0f : 65535.0f;
    v8f x = f * top + 0.5f, mx = (v8f){0} + top;
    v8i above0 = x > (v8f){0}, below = x < mx, xi, mi;
    memcpy(&xi, &x, sizeof xi);
    memcpy(&mi, &mx, sizeof mi);
    v8i sel = above0 & ((below & xi) | (~below & mi)); /* NaN fails both tests: 0 */
    v8f c;
    memcpy(&c, &sel, sizeof c);
    v8i q = __builtin_convertvector(c, v8i);
    if (p->dfmt == RB_U8)
        for (int l = 0; l < nl; l++)
            d[doff[l]] = (unsigned char)q[l];
    else
        for (int l = 0; l < nl; l++) {
            uint16_t u = (uint16_t)q[l];
            memcpy(d + doff[l], &u, sizeof u);
        }
}

/* The causal pass (FIR fused, state s in registers, s[0] = y_{j-1}) over
 * domain steps [j0, j1) (step j is sample i = j - D). Y: outputs Y[j - j0],
 * or NULL. save: the state before steps first, first + B, ... (nsave of
 * them) goes to save[k * sstride + 0..R-1]. R is a constant at each call. */
static inline __attribute__((always_inline)) void causal(const sw_pass *p, long g0, int nl,
                                                         v8d mean, v8d c0, v8d c1, v8d *s,
                                                         long j0, long j1, v8d *Y, v8d *save,
                                                         long first, long B, long nsave,
                                                         size_t sstride, const int R, const int TP)
{
    const sw_axis *a = p->ax;
    const long n = a->n, D = a->D, lo = a->lo;
    const int taps = TP ? TP : a->taps;
    int rs = 1;
    while (rs < taps)
        rs <<= 1;
    const long mask = rs - 1;
    /* TP (a constant) taps: the FIR window slides in registers; otherwise a
     * ring in L1 */
    v8d ring[TP ? 1 : SW_MAX_TAPS], win[TP ? TP : 1];
    /* x extended: c0 before the line, c1 after it, x - mean on it */
#define XEXT(i) ((i) < 0 ? c0 : (i) >= n ? c1 : load8(p, (i), g0, nl) - mean)
    for (long q = j0; q < j0 + taps - 1; q++) {
        if (TP)
            win[q - j0 + 1] = XEXT(q - D + lo);
        else
            ring[q & mask] = XEXT(q - D + lo);
    }
    long next = save && nsave > 0 ? first : -1, k = 0;
    for (long j = j0; j < j1; j++) {
        if (save && j == next) {
            for (int r = 0; r < R; r++)
                save[(size_t)k * sstride + (size_t)r] = s[r];
            k++;
            next = k < nsave ? next + B : -1;
        }
        long q = j + taps - 1;
        prefetch_row(p, q - D + lo + SW_PF, g0);
        v8d u;
        if (TP) {
            for (int t = 0; t + 1 < TP; t++)
                win[t] = win[t + 1];
            win[TP - 1] = XEXT(q - D + lo);
            /* two partial sums: half the latency of one chain */
            v8d u0 = a->f[0] * win[0], u1 = (v8d){0};
            for (int t = 1; t < TP; t++) {
                if (t & 1)
                    u1 += a->f[t] * win[t];
                else
                    u0 += a->f[t] * win[t];
            }
            u = u0 + u1;
        } else {
            ring[q & mask] = XEXT(q - D + lo);
            u = a->f[0] * ring[j & mask];
            for (int t = 1; t < taps; t++)
                u += a->f[t] * ring[(j + t) & mask];
        }
        v8d acc = u;
        for (int kk = R - 1; kk >= 0; kk--)
            acc -= a->dc[kk] * s[kk];
        for (int kk = R - 1; kk > 0; kk--)
            s[kk] = s[kk - 1];
        s[0] = acc;
        if (Y)
            Y[j - j0] = acc;
    }
#undef XEXT
}

/* The anticausal start after a causal pass that ended in state s: (44)
 * z_{m+k} = sum_j M44[k][j] y_{m-r+j} + v44[k] c1 fsum, or the padded
 * route's steady state. z[0] = z_m. */
static inline __attribute__((always_inline)) void anti_start(const sw_axis *a, const v8d *s,
                                                             v8d c1, v8d *z, const int R)
{
    if (a->padded) {
        for (int k = 0; k < R; k++)
            z[k] = c1 * a->epi;
        return;
    }
    v8d C1 = c1 * a->fsum;
    for (int k = 0; k < R; k++) {
        v8d acc = a->v44[k] * C1;
        for (int jj = 0; jj < R; jj++)
            acc += a->M44[k * R + jj] * s[R - 1 - jj];
        z[k] = acc;
    }
}

/* The anticausal pass from state z (z[0] = z_{j1}) over steps j1-1 down to
 * j0, reading Y[j - j0]; the results of steps [j0, o1) are stored (plus off)
 * at destination step j - j0. */
static inline __attribute__((always_inline)) void anticausal(const sw_pass *p, const v8d *Y,
                                                             long j0, long j1, v8d *z, long o1,
                                                             const size_t *doff, int nl, v8d off,
                                                             const int R)
{
    const sw_axis *a = p->ax;
    long j = j1 - 1;
    for (; j >= o1; j--) {
        v8d acc = Y[j - j0];
        for (int k = R - 1; k >= 0; k--)
            acc -= a->da[k] * z[k];
        for (int k = R - 1; k > 0; k--)
            z[k] = z[k - 1];
        z[0] = acc;
    }
    for (; j >= j0; j--) {
        v8d acc = Y[j - j0];
        for (int k = R - 1; k >= 0; k--)
            acc -= a->da[k] * z[k];
        for (int k = R - 1; k > 0; k--)
            z[k] = z[k - 1];
        z[0] = acc;
        store8(p, j - j0, doff, nl, acc + off);
    }
}

/* Per block of 8 lanes: the mean shift and the boundary values. */
typedef struct {
    v8d mean, c0, c1, off;
} sw_blk;

/* always_inline: a 64-byte vector must never cross a call between a clone
 * and default-target code (their ABIs pass it differently) */
static inline __attribute__((always_inline)) void block_setup(const sw_pass *p, long gb, int nl,
                                                              v8d sum, sw_blk *bk, size_t *doff)
{
    const sw_axis *a = p->ax;
    v8d mean = (v8d){0}, c0 = (v8d){0}, c1 = (v8d){0}, off = (v8d){0};
    for (int l = 0; l < 8; l++) {
        long g = gb + (l < nl ? l : 0);
        doff[l] = (size_t)(g / p->ch) * p->drow + (size_t)(g % p->ch) * fmt_size(p->dfmt);
    }
    if (a->shift)
        mean = sum / (double)a->n;
    if (a->mode == RB_BOUNDARY_CLAMP) {
        c0 = load8(p, 0, gb, nl) - mean;
        c1 = load8(p, a->n - 1, gb, nl) - mean;
    } else if (a->mode == RB_BOUNDARY_CONSTANT) {
        for (int l = 0; l < 8; l++)
            c0[l] = p->cval[(gb + l) % p->ch];
        c0 -= mean;
        c1 = c0;
    }
    if (a->shift)
        for (int l = 0; l < 8; l++)
            off[l] = (double)(a->gain * mean[l]);
    bk->mean = mean;
    bk->c0 = c0;
    bk->c1 = c1;
    bk->off = off;
}

/* Per-lane sums of the ns (<= 64) lanes from g0 over all n steps. */
static inline __attribute__((always_inline)) void strip_sums(const sw_pass *p, long g0, long ns,
                                                             v8d *sum)
{
    const int nb = (int)((ns + 7) / 8);
    for (int b = 0; b < nb; b++)
        sum[b] = (v8d){0};
    if (!p->ax->shift)
        return;
    for (long i = 0; i < p->ax->n; i++) {
        prefetch_row(p, i + SW_PF, g0);
        for (int b = 0; b < nb; b++) {
            long nl = ns - b * 8 < 8 ? ns - b * 8 : 8;
            sum[b] += load8(p, i, g0 + b * 8, (int)nl);
        }
    }
}

/* A whole line per block (the row pass over a band): sums, causal, (44),
 * anticausal, stored. Y: n + 2D vectors. */
SW_CLONES static void line_strip(const sw_pass *p, long g0, long ns, v8d *Y)
{
    const sw_axis *a = p->ax;
    const long n = a->n, D = a->D, m = n + 2 * D;
    v8d sum[8];
    strip_sums(p, g0, ns, sum);
    for (int b = 0; b < (int)((ns + 7) / 8); b++) {
        const long gb = g0 + b * 8;
        const int nl = (int)(ns - b * 8 < 8 ? ns - b * 8 : 8);
        sw_blk bk;
        size_t doff[8];
        block_setup(p, gb, nl, sum[b], &bk, doff);
        v8d s[RB_MAX_ORDER], z[RB_MAX_ORDER];
        switch (a->r) {
#define CASE(R)                                                                                    \
    case R:                                                                                        \
        for (int k = 0; k < R; k++)                                                                \
            s[k] = bk.c0 * a->pro; /* (35) */                                                      \
        if (a->taps == 7)                                                                          \
            causal(p, gb, nl, bk.mean, bk.c0, bk.c1, s, 0, m, Y, NULL, 0, 0, 0, 0, R, 7);         \
        else                                                                                       \
            causal(p, gb, nl, bk.mean, bk.c0, bk.c1, s, 0, m, Y, NULL, 0, 0, 0, 0, R, 0);         \
        anti_start(a, s, bk.c1, z, R);                                                             \
        anticausal(p, Y + D, D, m, z, D + n, doff, nl, bk.off, R);                                 \
        break;
            CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        }
    }
}

/* The column pass' state between phase A and the bands. */
typedef struct {
    long B, nbands, nblocks;
    sw_blk *blk;                 /* per block */
    v8d *st;                     /* causal state at each band top: [band][block][R] */
    v8d *z;                      /* anticausal state carried up: [block][R] */
    v8d *sums;                   /* per-lane column sums, [thread][block] (mean shift) */
    int nsums;                   /* threads that summed */
} sw_cols;

/* Column sums of rows [i0, i1) for the mean shift, read row by row (the
 * sequential reads the prefetchers follow), added to acc. */
SW_CLONES static void col_sums(const sw_pass *p, long i0, long i1, v8d *acc, long nblocks)
{
    for (long i = i0; i < i1; i++)
        for (long k = 0; k < nblocks; k++) {
            long nl = p->lanes - k * 8 < 8 ? p->lanes - k * 8 : 8;
            acc[k] += load8(p, i, k * 8, (int)nl);
        }
}

/* Phase A over a strip of ns (<= 64) lanes from g0. */
SW_CLONES static void cols_phase_a(const sw_pass *p, const sw_cols *cs, long g0, long ns)
{
    const sw_axis *a = p->ax;
    const long m = a->n + 2 * a->D;
    const int R = a->r;
    for (int b = 0; b < (int)((ns + 7) / 8); b++) {
        const long gb = g0 + b * 8, blk = gb / 8;
        const int nl = (int)(ns - b * 8 < 8 ? ns - b * 8 : 8);
        sw_blk *bk = &cs->blk[blk];
        size_t doff[8];
        v8d sum = (v8d){0};
        for (int t = 0; t < cs->nsums; t++)
            sum += cs->sums[(size_t)t * (size_t)cs->nblocks + (size_t)blk];
        block_setup(p, gb, nl, sum, bk, doff);
        v8d s[RB_MAX_ORDER];
        v8d *save = cs->st + (size_t)blk * (size_t)R;
        const size_t sstride = (size_t)cs->nblocks * (size_t)R;
        switch (R) {
#define CASE(R)                                                                                    \
    case R:                                                                                        \
        for (int k = 0; k < R; k++)                                                                \
            s[k] = bk->c0 * a->pro; /* (35) */                                                     \
        if (a->taps == 7)                                                                          \
            causal(p, gb, nl, bk->mean, bk->c0, bk->c1, s, 0, m, NULL, save, a->D, cs->B,         \
                   cs->nbands, sstride, R, 7);                                                     \
        else                                                                                       \
            causal(p, gb, nl, bk->mean, bk->c0, bk->c1, s, 0, m, NULL, save, a->D, cs->B,         \
                   cs->nbands, sstride, R, 0);                                                     \
        anti_start(a, s, bk->c1, cs->z + (size_t)blk * R, R);                                      \
        break;
            CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        }
    }
}

/* Band `band` of the column pass for blocks [k0, k1): results into p->dst
 * (the band buffer). Y: B + D vectors. */
SW_CLONES static void cols_band(const sw_pass *p, const sw_cols *cs, long band, long k0, long k1,
                                v8d *Y)
{
    const sw_axis *a = p->ax;
    const long n = a->n, D = a->D, m = n + 2 * D;
    const int R = a->r;
    const long j0 = D + band * cs->B;
    const long j1 = band == cs->nbands - 1 ? m : j0 + cs->B;
    const long o1 = j1 < D + n ? j1 : D + n;
    for (long blk = k0; blk < k1; blk++) {
        const long gb = blk * 8;
        const int nl = (int)(p->lanes - gb < 8 ? p->lanes - gb : 8);
        const sw_blk *bk = &cs->blk[blk];
        size_t doff[8];
        for (int l = 0; l < 8; l++) {
            long g = gb + (l < nl ? l : 0);
            doff[l] = (size_t)(g / p->ch) * p->drow + (size_t)(g % p->ch) * sizeof(float);
        }
        v8d s[RB_MAX_ORDER];
        const v8d *st = cs->st + ((size_t)band * (size_t)cs->nblocks + (size_t)blk) * (size_t)R;
        v8d *zc = cs->z + (size_t)blk * (size_t)R;
        switch (R) {
#define CASE(R)                                                                                    \
    case R: {                                                                                      \
        v8d z[R];                                                                                  \
        for (int k = 0; k < R; k++) {                                                              \
            s[k] = st[k];                                                                          \
            z[k] = zc[k];                                                                          \
        }                                                                                          \
        if (a->taps == 7)                                                                          \
            causal(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, Y, NULL, 0, 0, 0, 0, R, 7);    \
        else                                                                                       \
            causal(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, Y, NULL, 0, 0, 0, 0, R, 0);    \
        anticausal(p, Y, j0, j1, z, o1, doff, nl, bk->off, R);                                     \
        for (int k = 0; k < R; k++)                                                                \
            zc[k] = z[k];                                                                          \
        break;                                                                                     \
    }
            CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        }
    }
}

/* A barrier whose party count is fixed once every thread has started. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int parties, count;
    unsigned gen;
} sw_barrier;

static void barrier_wait(sw_barrier *b)
{
    pthread_mutex_lock(&b->mu);
    unsigned g = b->gen;
    if (++b->count >= b->parties) {
        b->count = 0;
        b->gen++;
        pthread_cond_broadcast(&b->cv);
    } else
        while (g == b->gen)
            pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

typedef struct {
    const sw_pass *p1, *p2;      /* column pass (dst unset), row pass template */
    sw_cols cs;
    float *bb[2];                /* band buffers, alternating */
    size_t bbrow;                /* bytes per band-buffer row (one image column) */
    long H;
    unsigned char *out;
    size_t ostride;
    sw_barrier bar;
    int nt;
    double *tphase;              /* thread 0's phase times, or NULL */
    /* work is claimed in chunks from these counters (one per phase and band):
     * on a loaded machine a thread that lost its core does not hold up the
     * other at every band's barrier */
    atomic_long *ctr;
    /* in place: the first nhead input rows of every band (the FIR reach of
     * the band above), saved before any output row is written */
    unsigned char *heads;
    long nhead;
    size_t headrow;
} sw_shared;

typedef struct {
    sw_shared *sh;
    int t;
    v8d *Y;
} sw_thread;

static void *sweep_main(void *arg)
{
    sw_thread *th = arg;
    sw_shared *sh = th->sh;
    barrier_wait(&sh->bar); /* every party known */
    const int t = th->t;
    const sw_cols *cs = &sh->cs;
    double t0 = th->t == 0 && sh->tphase ? sw_cpu() : 0.0, trow = 0.0;

    /* column sums (mean shift): chunks of rows, each thread into its array */
    const sw_pass *p1 = sh->p1;
    atomic_long *ctr = sh->ctr;
    long k, c0;
    if (p1->ax->shift) {
        const long n = p1->ax->n, CH = 32;
        while ((c0 = atomic_fetch_add(&ctr[0], CH)) < n)
            col_sums(p1, c0, c0 + CH < n ? c0 + CH : n, cs->sums + (size_t)t * (size_t)cs->nblocks,
                     cs->nblocks);
        barrier_wait(&sh->bar);
    }
    /* phase A: strips of 64 bytes of input */
    const long strip = 64 / (long)fmt_size(p1->sfmt);
    const long nstrips = (p1->lanes + strip - 1) / strip;
    while ((k = atomic_fetch_add(&ctr[1], 1)) < nstrips) {
        long g0 = k * strip;
        cols_phase_a(p1, cs, g0, p1->lanes - g0 < strip ? p1->lanes - g0 : strip);
    }
    barrier_wait(&sh->bar);
    double t1 = th->t == 0 && sh->tphase ? sw_cpu() : 0.0;

    /* bands, bottom-up; the row pass of band b overlaps the column pass of
     * band b - 1 (the other band buffer). Any thread may take any block: the
     * carried anticausal states live in cs->z, and the barrier orders bands. */
    const long CB = 32; /* column blocks per claim */
    for (long b = cs->nbands - 1; b >= -1; b--) {
        if (b + 1 < cs->nbands) { /* rows of band b + 1 */
            double tr = th->t == 0 && sh->tphase ? sw_cpu() : 0.0;
            long y0 = (b + 1) * cs->B, rows = sh->H - y0 < cs->B ? sh->H - y0 : cs->B;
            sw_pass p2 = *sh->p2;
            p2.src = (const unsigned char *)sh->bb[(b + 1) & 1];
            p2.srow = sh->bbrow;
            p2.lanes = rows * p2.ch;
            p2.dst = sh->out + (size_t)y0 * sh->ostride;
            p2.strip = 16;
            p2.nstrips = (p2.lanes + 15) / 16;
            while ((k = atomic_fetch_add(&ctr[2 + 2 * (b + 1)], 1)) < p2.nstrips) {
                long g0 = k * 16;
                line_strip(&p2, g0, p2.lanes - g0 < 16 ? p2.lanes - g0 : 16, th->Y);
            }
            if (th->t == 0 && sh->tphase)
                trow += sw_cpu() - tr;
        }
        if (b >= 0) { /* columns of band b */
            sw_pass pc = *p1;
            pc.dst = (unsigned char *)sh->bb[b & 1];
            pc.drow = sh->bbrow;
            if (sh->heads && b + 1 < cs->nbands) {
                pc.alt = sh->heads + (size_t)(b + 1) * (size_t)sh->nhead * sh->headrow;
                pc.alt_from = (b + 1) * cs->B;
                pc.alt_to = pc.alt_from + sh->nhead;
                pc.alt_row = sh->headrow;
            }
            while ((c0 = atomic_fetch_add(&ctr[3 + 2 * b], CB)) < cs->nblocks)
                cols_band(&pc, cs, b, c0, c0 + CB < cs->nblocks ? c0 + CB : cs->nblocks, th->Y);
        }
        barrier_wait(&sh->bar);
    }
    if (th->t == 0 && sh->tphase) {
        double t2 = sw_cpu();
        sh->tphase[0] = t1 - t0;
        sh->tphase[1] = t2 - t1 - trow;
        sh->tphase[2] = trow;
    }
    return NULL;
}

static int axis_ok(const rb_axis_plan *ap)
{
    const rb_axis *ax = &ap->ax;
    if (!ax->active || ax->r < 1 || ax->r > RB_MAX_ORDER || ax->causal_order < 1 ||
        ax->anticausal_order < 1)
        return 0;
    if (ap->mode != RB_BOUNDARY_ZERO && ap->mode != RB_BOUNDARY_CONSTANT &&
        ap->mode != RB_BOUNDARY_CLAMP)
        return 0;
    if (ap->mirror_via_periodic)
        return 0;
    int taps = ax->fir ? ax->fir_hi - ax->fir_lo + 1 : 1;
    return taps >= 1 && taps <= SW_MAX_TAPS && ap->n >= 1;
}

int rb_cpu_sweep_ok(const rb_plan *plan, const rb_image *in, const rb_image *out)
{
    if (getenv("RECBLUR_CPU_NO_SWEEP")) /* A/B against the general route */
        return 0;
    if (plan->ctx->progress || plan->channels < 1 || plan->channels > 4)
        return 0;
    if (!axis_ok(&plan->cols) || !axis_ok(&plan->rows))
        return 0;
    for (int k = 0; k < 2; k++) {
        const rb_image *im = k ? out : in;
        if (im->memory != RB_MEMORY_HOST || im->alpha == RB_ALPHA_STRAIGHT)
            return 0;
        if (im->format != RB_U8 && im->format != RB_U16 && im->format != RB_F32)
            return 0;
        if (plan->linear_light && im->srgb)
            return 0;
    }
    /* the band order writes output rows while later bands still read input
     * rows: overlapping images only when they are the same image */
    size_t row = (size_t)plan->width * (size_t)plan->channels;
    const unsigned char *a0 = in->data, *b0 = out->data;
    const unsigned char *a1 = a0 + rb_image_stride(in) * (size_t)(plan->height - 1) + row * fmt_size(in->format);
    const unsigned char *b1 = b0 + rb_image_stride(out) * (size_t)(plan->height - 1) + row * fmt_size(out->format);
    if (a0 < b1 && b0 < a1 &&
        !(a0 == b0 && in->format == out->format && rb_image_stride(in) == rb_image_stride(out)))
        return 0;
    return 1;
}

static void axis_setup(const rb_axis_plan *ap, sw_axis *a)
{
    const rb_axis *ax = &ap->ax;
    memset(a, 0, sizeof *a);
    a->r = ax->r;
    a->n = ap->n;
    a->mode = ap->mode;
    a->padded = ap->padded;
    a->D = ap->padded ? ap->pad : ap->fir_ext;
    if (ax->fir) {
        a->taps = ax->fir_hi - ax->fir_lo + 1;
        a->lo = ax->fir_lo;
        for (int t = 0; t < a->taps; t++)
            a->f[t] = ax->fir[t];
    } else {
        a->taps = 1;
        a->lo = 0;
        a->f[0] = 1.0;
    }
    /* the FIR reads D + fir_ext samples beyond each end; D >= fir_ext here */
    double fsum = 0.0;
    for (int t = 0; t < a->taps; t++)
        fsum += a->f[t];
    if (!ax->fir)
        fsum = 1.0;
    a->fsum = fsum;
    for (int k = 0; k < ax->r; k++) {
        a->dc[k] = ax->dc[k];
        a->da[k] = ax->da[k];
    }
    a->pro = fsum * ap->prologue_dc;
    a->epi = fsum * ap->prologue_dc * ap->anticausal_dc;
    a->M44 = ap->M44;
    a->v44 = ap->v44;
    a->shift = ap->mode == RB_BOUNDARY_CONSTANT || ap->mode == RB_BOUNDARY_CLAMP;
    long double sc = 1.0L, sa = 1.0L, fs = ax->fir ? 0.0L : 1.0L;
    for (int k = 0; k < ax->r; k++) {
        sc += ax->dc[k];
        sa += ax->da[k];
    }
    if (ax->fir)
        for (int t = 0; t < a->taps; t++)
            fs += ax->fir[t];
    a->gain = fs / (sc * sa);
}

rb_status rb_cpu_sweep_execute(rb_plan *plan, const rb_image *in, rb_image *out, int nt,
                               const float *cch)
{
    rb_context *ctx = plan->ctx;
    const long W = plan->width, H = plan->height;
    const int ch = plan->channels;
    /* RECBLUR_CPU_TIMES=1: per-phase seconds on stderr (bench/RESULTS.md) */
    const int times = getenv("RECBLUR_CPU_TIMES") != NULL;
    double tstart = sw_now(), tphase[3] = {0, 0, 0};
    sw_axis ay, ax;
    axis_setup(&plan->cols, &ay);
    axis_setup(&plan->rows, &ax);
    if (nt < 1)
        nt = 1;
    if (nt > SW_MAX_THREADS)
        nt = SW_MAX_THREADS;

    sw_shared sh;
    memset(&sh, 0, sizeof sh);
    sw_cols *cs = &sh.cs;
    /* 64-row bands: a band buffer is 64 * W * ch floats (3 MiB at 4096 RGB),
     * the saved states r vectors per block and band (24 MiB at 4096^2 RGB,
     * order 4) */
    cs->B = 64;
    cs->nbands = (H + cs->B - 1) / cs->B;
    cs->nblocks = (W * ch + 7) / 8;
    const int R = ay.r;
    long ymax = cs->B + ay.D > W + 2 * ax.D ? cs->B + ay.D : W + 2 * ax.D;
    sh.bbrow = (size_t)cs->B * (size_t)ch * sizeof(float);
    size_t bbn = (size_t)W * (size_t)cs->B * (size_t)ch;
    cs->blk = aligned_alloc(64, (size_t)cs->nblocks * sizeof(sw_blk));
    cs->st = aligned_alloc(64, (size_t)cs->nbands * (size_t)cs->nblocks * (size_t)R * sizeof(v8d));
    cs->z = aligned_alloc(64, (size_t)cs->nblocks * (size_t)R * sizeof(v8d));
    cs->sums = aligned_alloc(64, (size_t)cs->nblocks * (size_t)nt * sizeof(v8d));
    sh.ctr = malloc((size_t)(2 + 2 * cs->nbands + 2) * sizeof(atomic_long));
    sh.bb[0] = aligned_alloc(64, 2 * bbn * sizeof(float));
    sh.bb[1] = sh.bb[0] ? sh.bb[0] + bbn : NULL;
    v8d *Ymem = aligned_alloc(64, (size_t)ymax * sizeof(v8d) * (size_t)nt);
    if (!cs->blk || !cs->st || !cs->z || !cs->sums || !sh.ctr || !sh.bb[0] || !Ymem) {
        free(sh.ctr);
        free(cs->sums);
        free(cs->blk);
        free(cs->st);
        free(cs->z);
        free(sh.bb[0]);
        free(Ymem);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the %ldx%ld blur's band buffers", W, H);
    }

    for (long k = 0; k < 2 + 2 * cs->nbands + 2; k++)
        atomic_init(&sh.ctr[k], 0);
    for (size_t k = 0; k < (size_t)cs->nblocks * (size_t)nt; k++)
        cs->sums[k] = (v8d){0};
    sw_pass p1, p2;
    memset(&p1, 0, sizeof p1);
    p1.ax = &ay;
    p1.src = in->data;
    p1.srow = rb_image_stride(in);
    p1.sfmt = in->format;
    p1.lanes = W * ch;
    p1.dfmt = RB_F32;
    p1.ch = ch;
    for (int c = 0; c < ch; c++)
        p1.cval[c] = cch[c];
    memset(&p2, 0, sizeof p2);
    p2.ax = &ax;
    p2.sfmt = RB_F32;
    p2.drow = rb_image_stride(out);
    p2.dfmt = out->format;
    p2.ch = ch;
    /* the row pass sees the constant times the column pass' DC gain */
    float g_col = (float)plan->cols.ax.dc_gain;
    for (int c = 0; c < ch; c++)
        p2.cval[c] = cch[c] * g_col;
    sh.p1 = &p1;
    sh.p2 = &p2;
    sh.H = H;
    sh.out = out->data;
    sh.ostride = rb_image_stride(out);
    sh.tphase = times ? tphase : NULL;
    pthread_mutex_init(&sh.bar.mu, NULL);
    pthread_cond_init(&sh.bar.cv, NULL);
    sh.bar.parties = INT_MAX; /* until every thread has started */

    /* in place (rb_cpu_sweep_ok allows only identical layouts to overlap) */
    if (in->data == out->data && plan->cols.ax.fir && plan->cols.ax.fir_hi > 0 && cs->nbands > 1) {
        sh.nhead = plan->cols.ax.fir_hi;
        sh.headrow = (size_t)W * (size_t)ch * fmt_size(in->format);
        sh.heads = malloc((size_t)cs->nbands * (size_t)sh.nhead * sh.headrow);
        if (!sh.heads) {
            free(sh.ctr);
            free(cs->sums);
            free(cs->blk);
            free(cs->st);
            free(cs->z);
            free(sh.bb[0]);
            free(Ymem);
            return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the in-place blur's saved rows");
        }
        for (long b = 1; b < cs->nbands; b++)
            for (long k = 0; k < sh.nhead; k++) {
                long row = b * cs->B + k;
                if (row < H)
                    memcpy(sh.heads + ((size_t)b * (size_t)sh.nhead + (size_t)k) * sh.headrow,
                           (const unsigned char *)in->data + (size_t)row * p1.srow, sh.headrow);
            }
    }

    sw_thread th[SW_MAX_THREADS];
    pthread_t tid[SW_MAX_THREADS];
    int started = 1;
    for (int t = 1; t < nt; t++) {
        th[t].sh = &sh;
        th[t].t = t;
        th[t].Y = Ymem + (size_t)ymax * (size_t)t;
        if (pthread_create(&tid[t], NULL, sweep_main, &th[t]) != 0)
            break; /* fewer threads: the others claim their share of the work */
        started++;
    }
    th[0].sh = &sh;
    th[0].t = 0;
    th[0].Y = Ymem;
    pthread_mutex_lock(&sh.bar.mu);
    sh.nt = started;
    sh.bar.parties = started;
    cs->nsums = ay.shift ? started : 0;
    pthread_mutex_unlock(&sh.bar.mu);
    sweep_main(&th[0]);
    for (int t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_cond_destroy(&sh.bar.cv);
    pthread_mutex_destroy(&sh.bar.mu);

    free(sh.heads);
    free(sh.ctr);
    free(cs->sums);
    free(cs->blk);
    free(cs->st);
    free(cs->z);
    free(sh.bb[0]);
    free(Ymem);
    if (times)
        fprintf(stderr, "recblur cpu sweep: %.4f s wall; thread 0 CPU: column phase A %.4f s, "
                "column bands %.4f s, row pass %.4f s; %d threads\n", sw_now() - tstart, tphase[0], tphase[1],
                tphase[2], started);
    return RB_OK;
}
