/* The fast route of the CPU back end (see cpu_sweep.h).
 *
 * Pass 1 walks down the columns of the input, pass 2 down the columns of
 * the intermediate T, which pass 1 writes transposed: T[x][y*ch + c]. So both
 * passes are the same kernel: lanes are consecutive samples of a source row
 * (8 per block, one 8-double vector), steps go down the rows, and each
 * result goes to the destination transposed (pass 2's destination is the
 * output image, in its own format). Per block of 8 lanes the causal pass runs
 * with its state in registers, reading the source through a ring of converted
 * samples (FIR reach), and writes its outputs to a per-thread buffer Y (one
 * block tall: stays in L2); the anticausal pass runs back up Y and stores
 * the results. Arithmetic is double, as in line_solver.c (float32 lanes miss
 * the accuracy bound for clustered poles near the unit circle); only T is
 * float32, which costs at most a float32 rounding of each intermediate.
 *
 * The same mathematics as rb_line_solve_ex for these modes: the prologue (35),
 * the epilogue (44) (or the padded route's steady states), and the mean shift
 * (filter x - mean, add DC gain * mean back). Operation order differs (the
 * feedback terms are summed farthest first, to shorten the dependency chain),
 * so results match line_solver.c to rounding, not bitwise. */
#define _GNU_SOURCE
#include "cpu_sweep.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
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
#define SW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SW_CLONES
#endif

typedef double v8d __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef uint8_t v8u8 __attribute__((vector_size(8)));
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
    long nstrips;
    double *sums;                /* NULL, or lanes per-lane sums given by the previous pass */
} sw_pass;

static size_t fmt_size(rb_format f) { return f == RB_U8 ? 1 : f == RB_U16 ? 2 : 4; }

/* 8 source samples as rb_pixels_load makes them (u8/u16 scaled to [0,1]). */
static inline __attribute__((always_inline)) v8d cvt8(const unsigned char *s, rb_format f)
{
    if (f == RB_U8) {
        v8u8 b;
        memcpy(&b, s, sizeof b);
        v8f x = __builtin_convertvector(b, v8f) / 255.0f;
        return __builtin_convertvector(x, v8d);
    }
    if (f == RB_U16) {
        v8u16 b;
        memcpy(&b, s, sizeof b);
        v8f x = __builtin_convertvector(b, v8f) / 65535.0f;
        return __builtin_convertvector(x, v8d);
    }
    v8f x;
    memcpy(&x, s, sizeof x);
    return __builtin_convertvector(x, v8d);
}

/* Lanes g0 .. g0+nl-1 of source row i (lanes past nl read as 0). */
static inline __attribute__((always_inline)) v8d load8(const sw_pass *p, long i, long g0, int nl)
{
    const size_t es = fmt_size(p->sfmt);
    const unsigned char *s = p->src + (size_t)i * p->srow + (size_t)g0 * es;
    if (nl == 8)
        return cvt8(s, p->sfmt);
    unsigned char tmp[32] = {0};
    memcpy(tmp, s, (size_t)nl * es);
    return cvt8(tmp, p->sfmt);
}

/* Result of step i for nl lanes -> the destination, rounded as rb_pixels_store. */
static inline __attribute__((always_inline)) void store8(const sw_pass *p, long i,
                                                         const size_t *doff, int nl, v8d v)
{
    const size_t es = fmt_size(p->dfmt);
    unsigned char *d = p->dst + (size_t)i * (size_t)p->ch * es;
    v8f f = __builtin_convertvector(v, v8f);
    if (p->dfmt == RB_F32) {
        for (int l = 0; l < nl; l++)
            memcpy(d + doff[l], &f[l], sizeof(float));
    } else if (p->dfmt == RB_U8) {
        for (int l = 0; l < nl; l++) {
            float x = f[l] * 255.0f + 0.5f;
            x = x > 0.0f ? (x < 255.0f ? x : 255.0f) : 0.0f; /* NaN -> 0 */
            d[doff[l]] = (unsigned char)x;
        }
    } else {
        for (int l = 0; l < nl; l++) {
            float x = f[l] * 65535.0f + 0.5f;
            x = x > 0.0f ? (x < 65535.0f ? x : 65535.0f) : 0.0f;
            uint16_t u = (uint16_t)x;
            memcpy(d + doff[l], &u, sizeof u);
        }
    }
}

/* One block of 8 lanes over the whole line: causal pass (FIR fused, state in
 * registers) into Y, then the anticausal pass back up, results stored. R is a
 * constant at each call site, so the state arrays live in registers. */
static inline __attribute__((always_inline)) void run_block(const sw_pass *p, long g0, int nl,
                                                            v8d mean, v8d c0, v8d c1, v8d off,
                                                            const size_t *doff, v8d *Y, const int R)
{
    const sw_axis *a = p->ax;
    const long n = a->n, D = a->D, m = n + 2 * D;
    const int taps = a->taps;
    const long lo = a->lo;
    int rs = 1;
    while (rs < taps)
        rs <<= 1;
    const long mask = rs - 1;
    v8d ring[SW_MAX_TAPS];
    v8d s[RB_MAX_ORDER];

    /* x extended: c0 before the line, c1 after it, x - mean on it */
#define XEXT(i) ((i) < 0 ? c0 : (i) >= n ? c1 : load8(p, (i), g0, nl) - mean)
    for (long q = 0; q < taps - 1; q++) {
        long i = q - D + lo;
        ring[q & mask] = XEXT(i);
    }
    for (int k = 0; k < R; k++)
        s[k] = c0 * a->pro; /* (35); the padded route starts from the same steady state */
    for (long j = 0; j < m; j++) {
        long q = j + taps - 1, i = q - D + lo;
        ring[q & mask] = XEXT(i);
        v8d u = a->f[0] * ring[j & mask];
        for (int t = 1; t < taps; t++)
            u += a->f[t] * ring[(j + t) & mask];
        v8d acc = u;
        for (int k = R - 1; k >= 0; k--)
            acc -= a->dc[k] * s[k];
        for (int k = R - 1; k > 0; k--)
            s[k] = s[k - 1];
        s[0] = acc;
        Y[j] = acc;
    }
#undef XEXT

    v8d z[RB_MAX_ORDER];
    if (a->padded) {
        for (int k = 0; k < R; k++)
            z[k] = c1 * a->epi;
    } else { /* (44): z_{m+k} = sum_j M44[k][j] y_{m-r+j} + v44[k] * c1 * fsum */
        v8d C1 = c1 * a->fsum;
        for (int k = 0; k < R; k++) {
            v8d acc = a->v44[k] * C1;
            for (int jj = 0; jj < R; jj++)
                acc += a->M44[k * R + jj] * s[R - 1 - jj];
            z[k] = acc;
        }
    }
    long j = m - 1;
    for (; j >= D + n; j--) {
        v8d acc = Y[j];
        for (int k = R - 1; k >= 0; k--)
            acc -= a->da[k] * z[k];
        for (int k = R - 1; k > 0; k--)
            z[k] = z[k - 1];
        z[0] = acc;
    }
    for (; j >= D; j--) {
        v8d acc = Y[j];
        for (int k = R - 1; k >= 0; k--)
            acc -= a->da[k] * z[k];
        for (int k = R - 1; k > 0; k--)
            z[k] = z[k - 1];
        z[0] = acc;
        store8(p, j - D, doff, nl, acc + off);
    }
}

/* One strip of lanes [g0, g0 + ns): per-lane sums (unless the previous pass
 * gave them), then each block of 8. */
SW_CLONES static void run_strip(const sw_pass *p, long g0, long ns, v8d *Y)
{
    const sw_axis *a = p->ax;
    const long n = a->n;
    enum { MAXB = 64 };
    v8d sum[MAXB];
    const int nb = (int)((ns + 7) / 8);
    for (int b = 0; b < nb; b++)
        sum[b] = (v8d){0};
    if (a->shift) {
        if (p->sums)
            for (int b = 0; b < nb; b++)
                for (int l = 0; l < 8 && b * 8 + l < ns; l++)
                    sum[b][l] = p->sums[g0 + b * 8 + l];
        else
            for (long i = 0; i < n; i++)
                for (int b = 0; b < nb; b++) {
                    long nl = ns - b * 8 < 8 ? ns - b * 8 : 8;
                    sum[b] += load8(p, i, g0 + b * 8, (int)nl);
                }
    }
    for (int b = 0; b < nb; b++) {
        const long gb = g0 + b * 8;
        const int nl = (int)(ns - b * 8 < 8 ? ns - b * 8 : 8);
        v8d mean = (v8d){0}, c0 = (v8d){0}, c1 = (v8d){0}, off = (v8d){0};
        size_t doff[8];
        for (int l = 0; l < 8; l++) {
            long g = gb + (l < nl ? l : 0);
            doff[l] = (size_t)(g / p->ch) * p->drow + (size_t)(g % p->ch) * fmt_size(p->dfmt);
        }
        if (a->shift)
            mean = sum[b] / (double)n;
        if (a->mode == RB_BOUNDARY_CLAMP) {
            c0 = load8(p, 0, gb, nl) - mean;
            c1 = load8(p, n - 1, gb, nl) - mean;
        } else if (a->mode == RB_BOUNDARY_CONSTANT) {
            for (int l = 0; l < 8; l++)
                c0[l] = p->cval[(gb + l) % p->ch];
            c0 -= mean;
            c1 = c0;
        }
        if (a->shift)
            for (int l = 0; l < 8; l++)
                off[l] = (double)(a->gain * mean[l]);
        switch (a->r) {
#define CASE(R)                                                                                    \
    case R:                                                                                        \
        run_block(p, gb, nl, mean, c0, c1, off, doff, Y, R);                                      \
        break;
            CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        }
    }
}

/* Pass-1 helper for pass 2's mean shift: T's column sums, i.e. per (y, c)
 * the sum over x of the first pass' results, taken from T (rows [x0, x1)). */
static void t_sums(const float *T, long x0, long x1, long len, double *acc)
{
    for (long x = x0; x < x1; x++) {
        const float *row = T + (size_t)x * (size_t)len;
        for (long k = 0; k < len; k++)
            acc[k] += row[k];
    }
}

typedef struct {
    const sw_pass *p;
    long s0, s1;                 /* strips [s0, s1) */
    v8d *Y;
    /* sums phase (between the passes) */
    const float *T;
    long x0, x1, len;
    double *acc;
} sw_worker;

static void *worker_main(void *arg)
{
    sw_worker *w = arg;
    if (w->p) {
        const sw_pass *p = w->p;
        for (long s = w->s0; s < w->s1; s++) {
            long g0 = s * p->strip, ns = p->lanes - g0 < p->strip ? p->lanes - g0 : p->strip;
            run_strip(p, g0, ns, w->Y);
        }
    } else
        t_sums(w->T, w->x0, w->x1, w->len, w->acc);
    return NULL;
}

static void run_workers(sw_worker *w, int nt)
{
    pthread_t tid[SW_MAX_THREADS];
    int started[SW_MAX_THREADS] = {0};
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, worker_main, &w[t]) == 0;
    worker_main(&w[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            worker_main(&w[t]); /* no thread: do its share here */
    }
}

static void run_pass(const sw_pass *p, sw_worker *w, int nt, v8d **Ys)
{
    if (nt > p->nstrips)
        nt = (int)p->nstrips;
    for (int t = 0; t < nt; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].p = p;
        w[t].s0 = p->nstrips * t / nt;
        w[t].s1 = p->nstrips * (t + 1) / nt;
        w[t].Y = Ys[t];
    }
    run_workers(w, nt);
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

/* The intermediate: one float per sample, on huge pages where the kernel
 * gives them (page faults on 4 KiB pages cost ~15 % of a 4096^2 call). */
static float *alloc_t(size_t bytes, size_t *mapped)
{
    const size_t huge = (size_t)2 << 20;
    size_t len = (bytes + huge - 1) / huge * huge;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#endif
    *mapped = len;
    return p;
}

rb_status rb_cpu_sweep_execute(rb_plan *plan, const rb_image *in, rb_image *out, int nt,
                               const float *cch)
{
    rb_context *ctx = plan->ctx;
    const long W = plan->width, H = plan->height;
    const int ch = plan->channels;
    sw_axis ay, ax;
    axis_setup(&plan->cols, &ay);
    axis_setup(&plan->rows, &ax);

    /* RECBLUR_CPU_TIMES=1: per-phase seconds on stderr (bench/RESULTS.md) */
    const int times = getenv("RECBLUR_CPU_TIMES") != NULL;
    double tk[6];
    tk[0] = sw_now();
    size_t count = (size_t)W * (size_t)H * (size_t)ch;
    size_t tmapped = 0;
    float *T = alloc_t(count * sizeof(float), &tmapped);
    if (!T)
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a %ldx%ld intermediate image (%zu MiB)",
                        W, H, (count * sizeof(float)) >> 20);
    if (nt < 1)
        nt = 1;
    if (nt > SW_MAX_THREADS)
        nt = SW_MAX_THREADS;
    long ymax = (ay.n + 2 * ay.D) > (ax.n + 2 * ax.D) ? ay.n + 2 * ay.D : ax.n + 2 * ax.D;
    v8d *Ymem = aligned_alloc(64, (size_t)ymax * sizeof(v8d) * (size_t)nt);
    double *sums = calloc((size_t)H * (size_t)ch * (size_t)nt, sizeof(double));
    if (!Ymem || !sums) {
        free(Ymem);
        free(sums);
        munmap(T, tmapped);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for %d thread buffers", nt);
    }
    v8d *Ys[SW_MAX_THREADS];
    for (int t = 0; t < nt; t++)
        Ys[t] = Ymem + (size_t)ymax * (size_t)t;
    sw_worker w[SW_MAX_THREADS];

    /* pass 1: down the columns of the input, into T[x][y*ch + c] */
    sw_pass p1;
    memset(&p1, 0, sizeof p1);
    p1.ax = &ay;
    p1.src = in->data;
    p1.srow = rb_image_stride(in);
    p1.sfmt = in->format;
    p1.lanes = W * ch;
    p1.dst = (unsigned char *)T;
    p1.drow = (size_t)H * (size_t)ch * sizeof(float);
    p1.dfmt = RB_F32;
    p1.ch = ch;
    for (int c = 0; c < ch; c++)
        p1.cval[c] = cch[c];
    p1.strip = 64 / (long)fmt_size(in->format);
    p1.nstrips = (p1.lanes + p1.strip - 1) / p1.strip;
    tk[1] = sw_now();
    run_pass(&p1, w, nt, Ys);
    tk[2] = sw_now();

    /* pass 2's per-lane sums (mean shift), from T, rows split over threads */
    double *psum = NULL;
    if (ax.shift) {
        int ns = nt > W ? (int)W : nt;
        for (int t = 0; t < ns; t++) {
            memset(&w[t], 0, sizeof w[t]);
            w[t].T = T;
            w[t].x0 = W * t / ns;
            w[t].x1 = W * (t + 1) / ns;
            w[t].len = H * ch;
            w[t].acc = sums + (size_t)H * (size_t)ch * (size_t)t;
        }
        run_workers(w, ns);
        for (int t = 1; t < ns; t++)
            for (long k = 0; k < H * ch; k++)
                sums[k] += sums[(size_t)H * (size_t)ch * (size_t)t + (size_t)k];
        psum = sums;
    }

    /* pass 2: down the columns of T (the image's rows), into the output */
    sw_pass p2;
    memset(&p2, 0, sizeof p2);
    p2.ax = &ax;
    p2.src = (const unsigned char *)T;
    p2.srow = (size_t)H * (size_t)ch * sizeof(float);
    p2.sfmt = RB_F32;
    p2.lanes = H * ch;
    p2.dst = out->data;
    p2.drow = rb_image_stride(out);
    p2.dfmt = out->format;
    p2.ch = ch;
    /* the row pass sees the constant times the column pass' DC gain */
    float g_col = (float)plan->cols.ax.dc_gain;
    for (int c = 0; c < ch; c++)
        p2.cval[c] = cch[c] * g_col;
    p2.strip = 16;
    p2.nstrips = (p2.lanes + p2.strip - 1) / p2.strip;
    p2.sums = psum;
    tk[3] = sw_now();
    run_pass(&p2, w, nt, Ys);
    tk[4] = sw_now();

    free(Ymem);
    free(sums);
    munmap(T, tmapped);
    tk[5] = sw_now();
    if (times)
        fprintf(stderr, "recblur cpu sweep: alloc %.4f s, columns %.4f s, row sums %.4f s, rows %.4f s, "
                "free %.4f s (%d threads)\n", tk[1] - tk[0], tk[2] - tk[1], tk[3] - tk[2],
                tk[4] - tk[3], tk[5] - tk[4], nt);
    return RB_OK;
}
