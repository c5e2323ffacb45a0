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
 *   band buffer stored transposed and channel-planar, BB[x][c*rows + row]
 *   (8x8 register transposes: vector stores); then the row pass runs down
 *   the columns of BB (the same kernel: lanes are consecutive samples of a
 *   BB row, i.e. 8 rows of one channel) and writes the output rows, in
 *   their format.
 * Reads the input three times (sums, phase A, band), writes the output once;
 * the causal column pass costs twice; nothing of image size is allocated.
 * Arithmetic is double, as in line_solver.c (float32 recurrences miss the
 * accuracy bound for clustered poles near the unit circle); only BB is
 * float32, one float32 rounding of each intermediate. RECBLUR_CPU_LANES=auto
 * runs float lanes where a probe line shows them within bounds (small
 * sigma, B-splines); off by default, as the other routes are double.
 *
 * The same mathematics as rb_line_solve_ex for these modes: the prologue (35),
 * the epilogue (44) (or the padded route's steady states), and the mean shift
 * (filter x - mean, add DC gain * mean back). Periodic and mirror: the padded
 * route on the wrapped line, from zero states (transients below 1e-13). Operation order differs (the
 * feedback terms are summed farthest first, to shorten the dependency chain),
 * so results match line_solver.c to rounding, not bitwise.
 *
 * The kernels are in cpu_sweep_kernel.h, compiled once per lane type in
 * cpu_sweep_lanes_d.c (+ cpu_sweep_rows_d.c) and cpu_sweep_lanes_f.c
 * (cpu_sweep_internal.h says why); this file sets the sweep up and runs it. */
#define _GNU_SOURCE
#include "cpu_sweep_internal.h"
#include "parallel.h"
#include "srgb_tables.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double sw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define SW_MAX_THREADS 256

void rb_sweep_barrier_wait(sw_barrier *b)
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

/* Member 0's progress report: fraction f of the call, scaled to [0, 0.99]
 * as the general route does (1.0 comes once the call is done). may_cancel:
 * no output row has been written yet, so a cancel can still be honoured;
 * later the answer is ignored and the call finishes (recblur.h). */
void rb_sweep_report(sw_shared *sh, double f, int may_cancel)
{
    if (!sh->progress)
        return;
    if (sh->progress(0.99 * f, sh->progress_user) && may_cancel)
        atomic_store(&sh->cancel, 1);
}

/* every buffer of one sweep (free(NULL) for those not, or not yet, made);
 * Ymem: the threads' line scratch */
static void sw_free_buffers(sw_shared *sh, unsigned char *Ymem)
{
    free(sh->heads);
    free(sh->ctr);
    free(sh->cs.sums);
    free(sh->cs.blk);
    free(sh->cs.st);
    free(sh->cs.z);
    free(sh->bb[0]);
    free(sh->ob[0]);
    free(Ymem);
}

/* Periodic and mirror on this route: the padded route on the wrapped line
 * (transients below 1e-13, as axis_plan.c's padded route), padding D each
 * side. -1 when D would exceed the line (more than 3x the work: the bundle
 * route's closed forms (49)/(51)/(67)/(72) are then cheaper). */
static long wrap_pad(const rb_axis_plan *ap)
{
    long D = ap->pad_need; /* axis_plan.c: 1e-13 decay + FIR reach + 8 */
    return D > 0 && D <= ap->n ? D : -1;
}

static int axis_ok(const rb_axis_plan *ap)
{
    const rb_axis *ax = &ap->ax;
    if (!ax->active || ax->r < 1 || ax->r > RB_MAX_ORDER || ax->causal_order < 1 ||
        ax->anticausal_order < 1)
        return 0;
    int taps = ax->fir ? ax->fir_hi - ax->fir_lo + 1 : 1;
    if (taps < 1 || taps > SW_MAX_TAPS || ap->n < 1)
        return 0;
    if (ap->mode == RB_BOUNDARY_PERIODIC || ap->mode == RB_BOUNDARY_MIRROR)
        return wrap_pad(ap) > 0;
    return ap->mode == RB_BOUNDARY_ZERO || ap->mode == RB_BOUNDARY_CONSTANT ||
           ap->mode == RB_BOUNDARY_CLAMP;
}

int rb_cpu_sweep_ok(const rb_plan *plan, const rb_image *in, const rb_image *out)
{
    if (plan->ctx->sw.cpu_no_sweep) /* A/B against the general route */
        return 0;
    if (plan->channels < 1 || plan->channels > 4)
        return 0;
    if (!axis_ok(&plan->cols) || !axis_ok(&plan->rows))
        return 0;
    for (int k = 0; k < 2; k++) {
        const rb_image *im = k ? out : in;
        if (im->memory != RB_MEMORY_HOST)
            return 0;
        if (im->format != RB_U8 && im->format != RB_U16 && im->format != RB_F32)
            return 0;
    }
    /* in place, band 0 of a periodic column pass would read the bottom rows
     * (its FIR reach above the image), which the band order has written */
    if (in->data == out->data && plan->cols.mode == RB_BOUNDARY_PERIODIC)
        return 0;
    /* the band order writes output rows while later bands still read input
     * rows: overlapping images only when they are the same image */
    size_t row = (size_t)plan->width * (size_t)plan->channels;
    const unsigned char *a0 = in->data, *b0 = out->data;
    const unsigned char *a1 = a0 + rb_image_stride(in) * (size_t)(plan->height - 1) + row * rb_format_size(in->format);
    const unsigned char *b1 = b0 + rb_image_stride(out) * (size_t)(plan->height - 1) + row * rb_format_size(out->format);
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
    a->steady = ap->padded && ap->steady_epilogue;
    a->padded = ap->padded && !a->steady;
    a->D = a->padded ? ap->pad : ap->fir_ext;
    if (ap->mode == RB_BOUNDARY_PERIODIC || ap->mode == RB_BOUNDARY_MIRROR) {
        a->wrap = ap->mode; /* from zero states: c0 = c1 = 0 after the mean shift */
        a->padded = 1;
        a->D = wrap_pad(ap);
    }
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
    a->prologue_dc = ap->prologue_dc;
    a->anticausal_dc = ap->anticausal_dc;
    memcpy(a->M44d, ap->M44d, sizeof a->M44d);
    memcpy(a->M44, ap->M44, sizeof a->M44);
    memcpy(a->v44, ap->v44, sizeof a->v44);
    a->shift = ap->mode == RB_BOUNDARY_CONSTANT || ap->mode == RB_BOUNDARY_CLAMP || a->wrap;
    long double sc = 1.0L, sa = 1.0L, fs = ax->fir ? 0.0L : 1.0L;
    for (int k = 0; k < ax->r; k++) {
        sc += ax->dc[k];
        sa += ax->da[k];
    }
    if (ax->fir)
        for (int t = 0; t < a->taps; t++)
            fs += ax->fir[t];
    a->gain = fs / (sc * sa);
    for (int t = 0; t < a->taps; t++)
        a->f_f[t] = (float)a->f[t];
    for (int k = 0; k < RB_MAX_ORDER; k++) {
        a->dc_f[k] = (float)a->dc[k];
        a->da_f[k] = (float)a->da[k];
        a->v44_f[k] = (float)a->v44[k];
    }
    for (int k = 0; k < RB_MAX_ORDER * RB_MAX_ORDER; k++)
        a->M44_f[k] = (float)a->M44[k];
    a->pro_f = (float)a->pro;
    a->fsum_f = (float)a->fsum;
    a->epi_f = (float)a->epi;
}

/* C11's aligned_alloc wants a size that is a multiple of the alignment (ASan
 * aborts otherwise; float lanes made the sizes multiples of 32 only). */
static void *sw_alloc64(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

/* How far float lanes are from double lanes on this axis: the row kernel
 * (the same arithmetic as the column pass, its boundary starts included) on
 * 8 probe lines of the axis' length (at most SW_PROBE_N: past the transients
 * the error does not grow with n), in both precisions; max |float - double|
 * over max |double|. Lanes: 6 uniform random, a step, an impulse. */
#define SW_PROBE_N 16384
static double probe_error(const sw_axis *ax0, rb_format srcfmt)
{
    sw_axis a = *ax0;
    if (a.n > SW_PROBE_N)
        a.n = SW_PROBE_N;
    const long n = a.n, m = n + 2 * a.D;
    float *x = malloc((size_t)n * 8 * sizeof(float));
    float *yd = malloc((size_t)n * 8 * sizeof(float) * 2), *yf = yd ? yd + (size_t)n * 8 : NULL;
    void *Y = sw_alloc64((size_t)m * SW_GROUP_BYTES_D);
    double err = 1.0; /* no memory: no float */
    if (x && yd && Y) {
        uint32_t rng = 12345u;
        for (long i = 0; i < n; i++)
            for (int l = 0; l < 8; l++) {
                rng = rng * 1664525u + 1013904223u;
                float v = (float)(rng >> 8) / 16777216.0f;
                if (srcfmt == RB_U8) /* the values that format can hold */
                    v = (float)(int)(v * 255.0f) / 255.0f;
                x[i * 8 + l] = l < 6 ? v : l == 6 ? (float)(i >= n / 2) : (float)(i == n / 2);
            }
        sw_pass p;
        memset(&p, 0, sizeof p);
        p.ax = &a;
        p.src = (const unsigned char *)x;
        p.srow = 8 * sizeof(float);
        p.sfmt = RB_F32;
        p.lanes = 8;
        p.drow = (size_t)n * sizeof(float);
        p.dfmt = RB_F32;
        p.ch = 1;
        p.cval[0] = 0.3;
        p.dst = (unsigned char *)yd;
        rb_sweep_line_strip_d(&p, 0, 8, Y);
        p.dst = (unsigned char *)yf;
        rb_sweep_line_strip_f(&p, 0, 8, Y);
        double emax = 0.0, ymax = 0.0;
        for (size_t k = 0; k < (size_t)n * 8; k++) {
            double e = fabs((double)yf[k] - (double)yd[k]), y = fabs((double)yd[k]);
            if (!(e <= emax)) /* NaN counts as an error */
                emax = e == e ? e : 1.0;
            if (y > ymax)
                ymax = y;
        }
        err = ymax > 0.0 ? emax / ymax : emax;
    }
    free(x);
    free(yd);
    free(Y);
    return err;
}

/* Float lanes (RECBLUR_CPU_LANES=auto) only where they stay well inside what
 * the output can show: 1e-6 of the signal for float and 16-bit output (the
 * accuracy tests' bounds are 1e-5 relative RMS and up), a 64th of a step for
 * 8-bit output. Off by default: float lanes change a few samples by one step
 * against the double routes (the bundle route, straight alpha, the CUDA
 * fall-back), and the ImageMagick module's tests hold the module to the
 * engine's other routes bit for bit (bench/RESULTS.md, round 3).
 * RECBLUR_CPU_LANES=float forces them (A/B), =double or unset: double. */
static int use_float_lanes(int lanes, const sw_axis *ay, const sw_axis *ax, const rb_image *in,
                           const rb_image *out, double *err)
{
    *err = -1.0; /* not probed */
    if (lanes == RB_LANES_DOUBLE)
        return 0;
    *err = probe_error(ay, in->format) + probe_error(ax, RB_F32);
    if (lanes == RB_LANES_FLOAT)
        return 1;
    const double tol = out->format == RB_U8 ? 1.0 / (255.0 * 64.0) : 1e-6;
    return *err <= tol;
}

/* What each member of the sweep's thread team gets (rb_parallel_team). */
typedef struct {
    sw_shared *sh;
    int fl;                      /* float lanes */
    unsigned char *Ymem;         /* line scratch, Ystride bytes per member */
    size_t Ystride;
} sweep_team;

static void sweep_member(void *user, int member, int members)
{
    const sweep_team *team = user;
    sw_shared *sh = team->sh;
    sw_thread th = {sh, member, team->Ymem + team->Ystride * (size_t)member};
    if (member == 0) { /* the team is complete: fix the barrier's parties */
        pthread_mutex_lock(&sh->bar.mu);
        sh->nt = members;
        sh->bar.parties = members;
        sh->cs.nsums = sh->p1->ax->shift ? members : 0;
        pthread_mutex_unlock(&sh->bar.mu);
    }
    (team->fl ? rb_sweep_main_f : rb_sweep_main_d)(&th);
}

rb_status rb_cpu_sweep_execute(rb_plan *plan, const rb_image *in, rb_image *out, int nt,
                               const float *ccol, const float *crow)
{
    rb_context *ctx = plan->ctx;
    const long W = plan->width, H = plan->height;
    const int ch = plan->channels;
    /* RECBLUR_CPU_TIMES=1: per-phase seconds on stderr (bench/RESULTS.md) */
    const int times = ctx->sw.cpu_times;
    double tstart = sw_now(), tphase[3] = {0, 0, 0};
    sw_axis ay, ax;
    axis_setup(&plan->cols, &ay);
    axis_setup(&plan->rows, &ax);
    double perr;
    const int fl = use_float_lanes(ctx->sw.cpu_lanes, &ay, &ax, in, out, &perr);
    const size_t vs = fl ? sizeof(v8f) : SW_GROUP_BYTES_D;
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
    cs->B = SW_BAND;
    cs->nbands = (H + cs->B - 1) / cs->B;
    cs->nblocks = (W * ch + 7) / 8;
    const int R = ay.r;
    long ymax = cs->B + ay.D > W + 2 * ax.D ? cs->B + ay.D : W + 2 * ax.D;
    sh.bbrow = (size_t)cs->B * (size_t)ch * sizeof(float);
    size_t bbn = (size_t)W * (size_t)cs->B * (size_t)ch;
    cs->blk = sw_alloc64((size_t)cs->nblocks * 4 * vs); /* sw_blk: 4 vectors */
    cs->st = sw_alloc64((size_t)cs->nbands * (size_t)cs->nblocks * (size_t)R * vs);
    cs->z = sw_alloc64((size_t)cs->nblocks * (size_t)R * vs);
    cs->sums = sw_alloc64((size_t)cs->nblocks * (size_t)nt * vs);
    sh.ctr = malloc((size_t)SW_NCTR(cs->nbands) * sizeof(atomic_long));
    sh.bb[0] = sw_alloc64(2 * bbn * sizeof(float));
    sh.bb[1] = sh.bb[0] ? sh.bb[0] + bbn : NULL;
    unsigned char *Ymem = sw_alloc64((size_t)ymax * vs * (size_t)nt);
    /* the output's encode (linear light on an sRGB image, straight alpha)
     * needs whole pixels of float results: staged, two bands of them */
    /* 8-bit codes without alpha are encoded in the row pass' stores */
    const rb_srgb_runs *enc8 = plan->linear_light && out->srgb && out->format == RB_U8 &&
                                       out->alpha == RB_ALPHA_NONE
                                   ? rb_srgb_encoder_u8()
                                   : NULL;
    const int staged = !enc8 && ((plan->linear_light && out->srgb) || out->alpha == RB_ALPHA_STRAIGHT);
    if (staged) {
        sh.ob[0] = malloc(2 * bbn * sizeof(float));
        sh.ob[1] = sh.ob[0] ? sh.ob[0] + bbn : NULL;
        sh.outim = out;
        sh.lin = plan->linear_light;
    }
    if (!cs->blk || !cs->st || !cs->z || !cs->sums || !sh.ctr || !sh.bb[0] || !Ymem ||
        (staged && !sh.ob[0])) {
        sw_free_buffers(&sh, Ymem);
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the %ldx%ld blur's band buffers", W, H);
    }

    for (long k = 0; k < SW_NCTR(cs->nbands); k++)
        atomic_init(&sh.ctr[k], 0);
    memset(cs->sums, 0, (size_t)cs->nblocks * (size_t)nt * vs);
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
        p1.cval[c] = ccol[c];
    /* the input's decode (rb_pixels_load_rows' rules), inside the loads */
    p1.lin = plan->linear_light && in->srgb;
    p1.premul = in->alpha == RB_ALPHA_STRAIGHT;
    p1.alpha = in->alpha != RB_ALPHA_NONE;
    p1.conv = p1.lin || p1.premul;
    p1.dec = !p1.lin ? NULL
             : in->format == RB_U8 ? rb_srgb_decode_table_u8()
             : in->format == RB_U16 ? rb_srgb_decode_table_u16() : NULL;
    p1.lut = p1.dec && !p1.alpha && !p1.premul && in->format == RB_U8;
    memset(&p2, 0, sizeof p2);
    p2.ax = &ax;
    p2.sfmt = RB_F32;
    p2.drow = rb_image_stride(out);
    p2.dfmt = out->format;
    p2.ch = ch;
    for (int c = 0; c < ch; c++)
        p2.cval[c] = crow[c]; /* the constant times the column pass' DC gain */
    p2.enc8 = enc8;
    if (staged) { /* float rows into sh.ob, stored by rb_pixels_store_rows */
        p2.drow = (size_t)W * (size_t)ch * sizeof(float);
        p2.dfmt = RB_F32;
    }
    sh.p1 = &p1;
    sh.p2 = &p2;
    sh.H = H;
    sh.out = out->data;
    sh.ostride = rb_image_stride(out);
    sh.tphase = times ? tphase : NULL;
    /* progress shares by passes over the samples: the sums one read, phase A
     * one causal pass, the bands the causal pass again, the anticausal
     * pass and the row pass' two */
    sh.progress = ctx->progress;
    sh.progress_user = ctx->progress_user;
    {
        const double sums = ay.shift ? 1.0 : 0.0, total = sums + 1.0 + 4.0;
        sh.w_sums = sums / total;
        sh.w_a = 1.0 / total;
    }
    sh.achunks = ctx->progress ? SW_A_CHUNKS : 1;
    atomic_init(&sh.cancel, 0);
    pthread_mutex_init(&sh.bar.mu, NULL);
    pthread_cond_init(&sh.bar.cv, NULL);
    sh.bar.parties = INT_MAX; /* until member 0 of the team fixes it (sweep_member) */

    /* in place (rb_cpu_sweep_ok allows only identical layouts to overlap) */
    if (in->data == out->data && plan->cols.ax.fir && plan->cols.ax.fir_hi > 0 && cs->nbands > 1) {
        sh.nhead = plan->cols.ax.fir_hi;
        sh.headrow = (size_t)W * (size_t)ch * rb_format_size(in->format);
        sh.heads = malloc((size_t)cs->nbands * (size_t)sh.nhead * sh.headrow);
        if (!sh.heads) {
            sw_free_buffers(&sh, Ymem);
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

    sweep_team team = {&sh, fl, Ymem, (size_t)ymax * vs};
    const int started = rb_parallel_team(nt, sweep_member, &team);
    pthread_cond_destroy(&sh.bar.cv);
    pthread_mutex_destroy(&sh.bar.mu);

    sw_free_buffers(&sh, Ymem);
    if (atomic_load(&sh.cancel)) /* honoured before any output row was written */
        return rb_error(ctx, RB_ERR_CANCELLED, "filtering cancelled by the progress callback");
    if (times)
        fprintf(stderr, "recblur cpu sweep: %.4f s wall; thread 0 CPU: column phase A %.4f s, "
                "column bands %.4f s, row pass %.4f s; %d threads; %s lanes (float vs double probe %.2g)\n",
                sw_now() - tstart, tphase[0], tphase[1], tphase[2], started, fl ? "float" : "double", perr);
    if (ctx->progress)
        ctx->progress(1.0, ctx->progress_user);
    return RB_OK;
}
