/* Strip execution (recblur.h, rb_stream_*): a plan run over an image that
 * arrives and leaves in horizontal strips, top to bottom, twice.
 *
 * Rows are filtered inside each strip (whole rows are there). Columns take
 * the 2011 paper's block carries (algorithms 4/5) with one strip a block:
 * - pass 1 (gather) runs the zero-initialised causal pass down the columns,
 *   strip after strip (its state simply carries on), and keeps for each strip
 *   the head of its zero-initialised anticausal pass: r values per column.
 *   The head is summed on the way down (head_m = sum_j g(j - m) y_j, g the
 *   anticausal recursion's impulse response), so pass 1 keeps no rows of
 *   doubles: a strip whose last rows wait for the next strip's (the FIR's
 *   reach) costs r running sums per column, not the strip;
 * - the close (exact/strip_carries.c) chains those heads with the exact
 *   boundary closures of the 2016 paper into the true anticausal state after
 *   every strip, and the true causal state p(Y) at the top;
 * - pass 2 (produce) reruns the causal pass from p(Y), then each strip's
 *   anticausal pass from its state, and filters the strip's rows.
 * The column FIR u = FIR(x_ext) reaches hi rows below a row: pass 1 keeps the
 * first hi rows after every strip (pass 2 needs them before their strip
 * comes back), and the first and last rows for the periodic and mirror
 * extensions. Everything runs in double, as the line solver does.
 * Both passes walk the columns in blocks of LANE_BLOCK lanes, each block
 * down all the rows it can go: the doubles in flight are a block's, which
 * stay in the cache, and pass 2 writes its result over the loaded strip, so
 * the memory is one strip of floats plus the carries.
 * The carries (each strip's r values per lane and the FIR's rows after it)
 * grow with the image; past the memory the caller lets them take they go to
 * a temporary file (stream_carry_store.c), a record per strip: written when
 * complete in pass 1, closed a range of lanes at a time (the chain runs
 * along the strips of each lane, so lanes close apart), read back a strip
 * at a time in pass 2. */
#include "rb_internal.h"
#include "pixel_convert.h"
#include "line_solver.h"
#include "strip_carries.h"
#include "stream_carry_store.h"
#include "parallel.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { STAGE_GATHER = 0, STAGE_CLOSED, STAGE_DONE };

/* The phases RECBLUR_CPU_TIMES times: those on the stream's threads
 * (conversions, column lanes, rows) and those on the calling thread alone
 * (the taps tables, the kept rows, the close). */
enum { PH_LOAD, PH_TAPS1, PH_LANES1, PH_KEEP, PH_CLOSE, PH_TAPS2, PH_LANES2, PH_ROWS, PH_STORE,
       PH_COUNT };
static const char *const ph_names[PH_COUNT] = {
    "load (threads)", "pass 1 taps table (alone)", "pass 1 columns (threads)",
    "pass 1 kept rows (alone)", "close of the carries (alone)",
    "pass 2 ring + taps table (alone)", "pass 2 columns (threads)", "rows (threads)",
    "store (threads)"};

static double ph_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* The lane loops run 4 doubles wide with AVX2 where the CPU has it (GCC
 * function clones, chosen once at load time, as cpu/line_solver.c does), 2
 * wide otherwise. No FMA: the same IEEE operations in the same order. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(RB_NO_CLONES)
#define STREAM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define STREAM_CLONES
#endif
#if defined(__GNUC__)
#define STREAM_INLINE static inline __attribute__((always_inline)) /* into the clones */
#else
#define STREAM_INLINE static inline
#endif

/* Lanes a column block holds (64 doubles: 512 bytes a row), and the rows
 * pass 1 computes into a block's buffer before it moves its state back. */
enum { LANE_BLOCK = 64, PASS1_CHUNK = 32 };

/* The taps of one row of the column FIR at lane 0, found once per row for
 * every lane block (the search through the rows kept cost as much as a
 * block's arithmetic): an extension value (c, full-width) or a sample row,
 * which a block reads from its ring of widened rows (slot). */
typedef struct row_tap {
    const double *c;
    double w;
    int slot;
} row_tap;

/* A sample row to widen into a ring slot before a row's taps are summed:
 * x - s in double, once per row and block, where each of the FIR's taps
 * converted and shifted it again (the same values: the same operations). */
typedef struct row_conv {
    const void *x;
    int slot;
    rb_format fmt;               /* x's samples: a kept row's floats, or the caller's strip */
} row_conv;

struct rb_stream {
    rb_plan *plan;
    rb_context *ctx;
    int W, H, ch;
    long L;                      /* lanes of a row: W * ch */
    int stage;
    int next_y;                  /* the row the next strip must start at */
    int produced;                /* strips produced so far */
    /* the strips of pass 1 (pass 2 must repeat them) */
    int K, Kcap;
    int *y0s, *rows;
    long *seg_len;               /* domain rows of each strip's segment */
    float **look;                /* per strip: the first look_n rows after it */
    int *look_n;
    /* the column axis */
    const rb_axis_plan *ap;
    int col;                     /* column axis filtered */
    rb_strip_kind kind;
    int r, lo, hi, taps;
    double f[RB_MAX_FIR_TAPS], fsum, gain;
    long D;                      /* domain [-D, H + D) */
    int shift;                   /* the samples are filtered less their first row (line_solver.c:
                                    the states then carry no large DC) */
    int have_consts;
    float ccol[4], crow[4];
    double *s, *c0, *c1, *C0, *C1;   /* per lane: shift, extension values (shifted), FIR of them */
    /* rows kept */
    float *head; long head_n;    /* rows [0, head_n) */
    float *tail; long tail_n;    /* rows [H - tail_n, H), after the close */
    float *ring; long ring_cap, ring_end; /* the last rows before the current strip */
    float *ring_next;            /* pass 2: the ring as it is after the current strip */
    /* the current strip's rows: the loaded floats, or the caller's samples read
     * where they are (direct_ok); row j at cur + (j - cur_y0) * cur_stride */
    const unsigned char *cur; long cur_y0, cur_rows;
    size_t cur_stride;
    rb_format cur_fmt;
    float *curbuf; long curbuf_rows; /* the loaded strip; pass 2 leaves its result there */
    /* column pass */
    double *state;               /* r * L: the causal pass's last r rows, oldest first */
    double *heads;               /* r * L: pass 1, the current segment's head summed so far */
    double *g; long g_n;         /* the anticausal recursion's impulse response, g_n terms */
    double *work; long work_rows; /* nt blocks of work_rows x LANE_BLOCK doubles */
    long seg_fill;               /* pass 1: rows of the current segment done */
    int seg_k;                   /* pass 1: the segment being filled */
    long next_u;                 /* pass 1: the next domain row */
    long received;               /* pass 1: rows gathered */
    double *carry;               /* r * L a strip, from strip carry_k0 on: in memory all K strips
                                    (carry_k0 0); with the file, those pass 1 or 2 works on */
    int carry_k0;
    long carry_slots;            /* the file's case: strips st->carry has room for */
    size_t carry_mem;            /* rb_stream_set_carry_memory: past it, the file */
    rb_carry_file *cf;           /* the carries' file, or NULL: in memory */
    int look_done;               /* the file's case: strips before it have their rows in the file */
    float *look2;                /* the file's case, pass 2: the current strip's rows read back */
    row_tap *tab;                /* the column FIR's taps of the rows a column pass runs over */
    int *tab_n;                  /* taps kept per row */
    long tab_u0, tab_cap;        /* the first row of the table, rows it has room for */
    row_conv *conv;              /* the sample rows each row widens into a block's ring */
    long *conv_off;              /* per row: its first entry in conv (one more at the end) */
    long conv_n;                 /* entries in conv */
    double *p;                   /* r * L: p(Y), from the close */
    /* row pass */
    rb_line_layout rlay;
    rb_lane *rowx;               /* nt row-pass buffers */
    int row_group;
    int nt;                      /* threads: lanes of the column pass, rows of the row pass */
    /* RECBLUR_CPU_TIMES=1: wall seconds per phase, said on stderr by
     * rb_stream_destroy: which steps run on the calling thread alone
     * (bench/RESULTS.md, "streamrgb") */
    int times;
    double tph[PH_COUNT];
};

/* The time since *t0 into phase ph, and *t0 moved to now (no clock read
 * when the times are not asked for). */
static void ph_mark(rb_stream *st, int ph, double *t0)
{
    if (!st->times)
        return;
    const double t = ph_now();
    st->tph[ph] += t - *t0;
    *t0 = t;
}

/* The rows kept around the strips for the column FIR's reach (lo .. hi rows
 * around a row): the first and the last head_n rows, and a ring of the last
 * rows before a strip. */
static long fir_reach(long lo, long hi)
{
    return (hi > -lo ? hi : -lo) + 2;
}

static int thread_count(rb_context *ctx, long L)
{
    int nt = rb_context_thread_count(ctx);
    if (nt > 16)
        nt = 16;
    if (nt > 1 && L / nt < 64) /* narrow images: not worth a thread */
        nt = L / 64 > 1 ? (int)(L / 64) : 1;
    return nt;
}

/* The bytes a strip's carries take in memory: r doubles and the FIR's
 * reach (hi floats) per lane, as rb_stream_working_bytes counts them. */
static double carry_bytes_per_strip(int r, long hi, double L)
{
    return ((double)r * sizeof(double) + (double)hi * sizeof(float)) * L;
}

/* The lanes a range of the close takes: all K strips' carries of `lanes`
 * lanes in about `mem` bytes, at least a block of lanes (or the width). */
static long close_lanes(size_t mem, int K, int r, long L)
{
    const double per = (double)K * r * sizeof(double);
    double n = per > 0 ? (double)mem / per : (double)L;
    if (n < LANE_BLOCK)
        n = LANE_BLOCK;
    return n < (double)L ? (long)n : L;
}

size_t rb_stream_working_bytes(const rb_plan *plan, int strip_rows)
{
    return rb_stream_working_bytes_capped(plan, strip_rows, SIZE_MAX);
}

size_t rb_stream_working_bytes_capped(const rb_plan *plan, int strip_rows, size_t carry_memory)
{
    if (!plan || strip_rows < 1)
        return 0;
    const double L = (double)plan->width * plan->channels, H = plan->height;
    const double K = ceil(H / strip_rows), nt = thread_count(plan->ctx, (long)L);
    const double rows = strip_rows < H ? strip_rows : H;
    double bytes = sizeof(rb_stream) + rows * L * sizeof(float) + K * 64.0;
    const rb_axis *ax = &plan->cols.ax;
    if (ax->active) {
        const long lo = ax->fir ? ax->fir_lo : 0, hi = ax->fir ? ax->fir_hi : 0;
        const double reach = (double)fir_reach(lo, hi), taps = (double)(hi - lo + 1);
        const double head = H < 2 * reach ? H : 2 * reach;
        const double D = (double)rb_strip_domain_ext(&plan->cols, RB_STRIP_EXT);
        const double per = carry_bytes_per_strip(ax->r, hi, L);
        double carries = K * per;
        if (carries > (double)carry_memory) {
            /* in the file: a few strips' records in memory (pass 1's, the
             * FIR's rows waiting for the next strips, pass 2's) and the
             * close's range of lanes */
            const long lanes = close_lanes(carry_memory, (int)K, ax->r, (long)L);
            carries = (3.0 + ceil((double)hi / rows)) * per +
                      (K * ax->r + 4.0 * ax->r + 3.0) * lanes * sizeof(double);
        }
        bytes += (2 * head + 2 * (2 * reach + taps)) * L * sizeof(float) /* head, tail, rings */
                 + (5.0 + 3.0 * ax->r) * L * sizeof(double)                /* lanes' values, states */
                 + carries                                                 /* the carries */
                 + nt * (2.0 * ax->r + rows + 2 * D) * LANE_BLOCK * sizeof(double) /* blocks */
                 + (rows + 2 * D) * sizeof(double)                         /* g */
                 + (rows + 2 * D) * (taps * (sizeof(row_tap) + sizeof(row_conv)) +
                                     sizeof(long) + sizeof(int));          /* taps_table */
    }
    if (plan->rows.ax.active) {
        rb_line_layout lay;
        rb_line_layout_get(&plan->rows, &lay);
        bytes += sizeof(rb_lane) * (double)(lay.in_len + lay.work_len) * 8.0 * plan->channels * nt;
    }
    return (size_t)bytes;
}

static void *grow(void *p, size_t bytes)
{
    return realloc(p, bytes ? bytes : 1);
}

rb_status rb_stream_create(rb_plan *plan, rb_stream **out)
{
    if (!plan)
        return RB_ERR_NULL;
    rb_context *ctx = plan->ctx;
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "rb_stream_create: NULL output pointer");
    *out = NULL;
    const rb_axis_plan *ap = &plan->cols;
    const char *why = "";
    int kind = RB_STRIP_NONE;
    if (ap->ax.active && (kind = rb_strip_kind_of(ap, &why)) < 0)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "rb_stream_create: strips cannot run this plan: %s",
                        why);
    /* Strips run on the cpu whatever back end runs the plan in memory: the
     * cuda back end has no strip route yet (the carries are host arrays). */
    if (ctx->backend == RB_BACKEND_CUDA)
        return rb_error(ctx, RB_ERR_BACKEND, "rb_stream_create: the cuda back end was requested, "
                                             "but strips run on the cpu back end only for now");
    if (plan->backend != &rb_backend_cpu)
        rb_log(ctx, "recblur: strips run on the cpu back end (the cuda back end has no strip route yet)");
    rb_stream *st = calloc(1, sizeof *st);
    if (!st)
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a stream");
    st->plan = plan;
    st->ctx = ctx;
    st->W = plan->width;
    st->H = plan->height;
    st->ch = plan->channels;
    st->L = (long)st->W * st->ch;
    st->carry_mem = SIZE_MAX;
    st->ap = ap;
    st->col = ap->ax.active;
    st->kind = (rb_strip_kind)kind;
    const long L = st->L;
    if (st->col) {
        const rb_axis *ax = &ap->ax;
        st->r = ax->r;
        if (ax->fir) {
            st->lo = ax->fir_lo;
            st->hi = ax->fir_hi;
            st->taps = ax->fir_hi - ax->fir_lo + 1;
            for (int t = 0; t < st->taps; t++)
                st->f[t] = ax->fir[t];
        } else {
            st->taps = 1;
            st->f[0] = 1.0;
        }
        long double fs = 0, sc = 1, sa = 1;
        for (int t = 0; t < st->taps; t++)
            fs += st->f[t];
        for (int k = 0; k < st->r; k++) {
            sc += ax->dc[k];
            sa += ax->da[k];
        }
        st->fsum = (double)fs;
        st->gain = (double)(fs / (sc * sa));
        st->D = rb_strip_domain_ext(ap, st->kind);
        st->shift = ap->mode == RB_BOUNDARY_CONSTANT || ap->mode == RB_BOUNDARY_CLAMP ||
                    ap->mode == RB_BOUNDARY_PERIODIC || ap->mode == RB_BOUNDARY_MIRROR;
        const long reach = fir_reach(st->lo, st->hi);
        st->head_n = st->H < 2 * reach ? st->H : 2 * reach;
        st->tail_n = st->head_n;
        st->ring_cap = 2 * reach + st->taps;
        st->s = calloc((size_t)L * 5, sizeof(double));
        st->head = malloc(sizeof(float) * (size_t)(st->head_n * L));
        st->tail = malloc(sizeof(float) * (size_t)(st->tail_n * L));
        st->ring = malloc(sizeof(float) * (size_t)(st->ring_cap * L));
        st->ring_next = malloc(sizeof(float) * (size_t)(st->ring_cap * L));
        st->state = calloc((size_t)(3 * st->r) * (size_t)L + 1, sizeof(double));
        if (!st->s || !st->head || !st->tail || !st->ring || !st->ring_next || !st->state) {
            rb_stream_destroy(st);
            return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a stream");
        }
        st->c0 = st->s + L;
        st->c1 = st->c0 + L;
        st->C0 = st->c1 + L;
        st->C1 = st->C0 + L;
        st->heads = st->state + (size_t)st->r * L;
        st->p = st->heads + (size_t)st->r * L;
        st->next_u = -st->D;
    }
    st->nt = thread_count(ctx, L);
    st->times = ctx->sw.cpu_times;
    if (plan->rows.ax.active) {
        rb_line_layout_get(&plan->rows, &st->rlay);
        st->row_group = 8;
        size_t per = (size_t)(st->rlay.in_len + st->rlay.work_len);
        st->rowx = malloc(sizeof(rb_lane) * per * (size_t)(st->row_group * st->ch) * (size_t)st->nt);
        if (!st->rowx) {
            rb_stream_destroy(st);
            return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a stream's row buffers");
        }
    }
    *out = st;
    return RB_OK;
}

void rb_stream_destroy(rb_stream *st)
{
    if (!st)
        return;
    if (st->times) {
        double all = 0.0;
        for (int p = 0; p < PH_COUNT; p++)
            all += st->tph[p];
        fprintf(stderr, "recblur stream: %d strips, %d threads, %.3f s in the engine:", st->K, st->nt, all);
        for (int p = 0; p < PH_COUNT; p++)
            fprintf(stderr, "%s %s %.3f s", p ? "," : "", ph_names[p], st->tph[p]);
        fprintf(stderr, "\n");
    }
    for (int k = 0; k < st->K; k++)
        if (st->look && st->look[k] != st->look2)
            free(st->look[k]);
    free(st->look2);
    rb_carry_file_close(st->cf);
    free(st->look);
    free(st->look_n);
    free(st->y0s);
    free(st->rows);
    free(st->seg_len);
    free(st->s);
    free(st->head);
    free(st->tail);
    free(st->ring);
    free(st->ring_next);
    free(st->curbuf);
    free(st->state);
    free(st->g);
    free(st->work);
    free(st->carry);
    free(st->tab);
    free(st->tab_n);
    free(st->conv);
    free(st->conv_off);
    free(st->rowx);
    free(st);
}

/* ------------------------------------------------------------ the rows kept */

/* Sample l of a row in format fmt as rb_pixels_load_rows makes it (8- and
 * 16-bit codes scaled to [0, 1]): the column passes read the caller's strip
 * where it is, without a float copy, and see the same values. */
STREAM_INLINE float sample_at(const void *x, rb_format fmt, long l)
{
    if (fmt == RB_U8)
        return (float)((const uint8_t *)x)[l] / 255.0f;
    if (fmt == RB_U16)
        return (float)((const uint16_t *)x)[l] / 65535.0f;
    return ((const float *)x)[l];
}

/* A row of L samples into floats (a kept row), as sample_at reads them. */
static void row_to_float(float *dst, const void *x, rb_format fmt, long L)
{
    if (fmt == RB_F32)
        memcpy(dst, x, sizeof(float) * (size_t)L);
    else
        for (long l = 0; l < L; l++)
            dst[l] = sample_at(x, fmt, l);
}

/* Row j (0 <= j < H), wherever it is kept, its format into *fmt; NULL when
 * it is nowhere (a bug: the sizes above keep every row a step needs). */
static const void *row_at(const rb_stream *st, long j, int strip, rb_format *fmt)
{
    const long L = st->L;
    *fmt = RB_F32;
    if (st->cur && j >= st->cur_y0 && j < st->cur_y0 + st->cur_rows) {
        *fmt = st->cur_fmt;
        return st->cur + (size_t)(j - st->cur_y0) * st->cur_stride;
    }
    if (j < st->head_n)
        return st->head + j * L;
    if (st->stage != STAGE_GATHER && j >= st->H - st->tail_n)
        return st->tail + (j - (st->H - st->tail_n)) * L;
    if (j < st->ring_end && j >= st->ring_end - st->ring_cap)
        return st->ring + (j % st->ring_cap) * L;
    if (strip >= 0 && st->cur && j >= st->cur_y0 + st->cur_rows) {
        long e = st->cur_y0 + st->cur_rows;
        if (j - e < st->look_n[strip])
            return st->look[strip] + (j - e) * L;
    }
    return NULL;
}

/* The input row of pass 1 that u_i needs last (-1: none); pass 1 leaves the
 * periodic wrap across the top out (the delta of strip_carries.h). */
static long row_needed(const rb_stream *st, long i)
{
    long need = -1;
    for (int t = 0; t < st->taps; t++) {
        long j = i + st->lo + t, k = j;
        if (j < 0 || j >= st->H) {
            switch (st->ap->mode) {
            case RB_BOUNDARY_PERIODIC:
                if (j < 0)
                    continue;
                k = rb_extend_index(j, st->H, RB_BOUNDARY_PERIODIC);
                break;
            case RB_BOUNDARY_MIRROR:
                k = rb_extend_index(j, st->H, RB_BOUNDARY_MIRROR);
                break;
            case RB_BOUNDARY_NONE:
                continue;
            default: /* the extension values: the first / the last row */
                k = j < 0 ? 0 : st->H - 1;
            }
        }
        if (k > need)
            need = k;
    }
    return need;
}

/* The column FIR's taps at domain row i on a block: tap t reads c[t], a
 * sample row widened with the shift subtracted (the block's ring) or the
 * shifted extension values; taps that read neither (outside the image for
 * NONE, the periodic wrap across the top in pass 1, added at the close)
 * are left out. */
enum { FUSED_TAPS = 32 }; /* longer FIRs take the tap-by-tap route */
typedef struct {
    const double *c[FUSED_TAPS];
    double w[FUSED_TAPS];
    int n;
} fir_taps;


/* Tap t of u_i: its weight into *w, and its row or its extension values (or
 * neither). 0 when the row is nowhere (a bug: row_at's sizes keep them). */
STREAM_INLINE int fir_tap(const rb_stream *st, long i, int pass1, int strip, int t,
                          const void **x, rb_format *fmt, const double **c)
{
    const long j = i + st->lo + t;
    long k = j;
    *x = NULL;
    *c = NULL;
    if (j < 0 || j >= st->H) {
        const rb_boundary_mode m = st->ap->mode;
        if (m == RB_BOUNDARY_NONE || (pass1 && m == RB_BOUNDARY_PERIODIC && j < 0))
            return 1;
        if (m != RB_BOUNDARY_PERIODIC && m != RB_BOUNDARY_MIRROR) {
            *c = j < 0 ? st->c0 : st->c1;
            return 1;
        }
        k = rb_extend_index(j, st->H, m);
    }
    *x = row_at(st, k, strip, fmt);
    return *x != NULL;
}

/* u_i (the column FIR of the shifted, extended input) on lanes [l0, l1)
 * into dst[0 .. l1 - l0), tap by tap. pass1: the periodic wrap across the
 * top is left out (added at the close). */
STREAM_INLINE int u_row(const rb_stream *st, long i, int pass1, int strip, double *dst, long l0,
                        long l1)
{
    const long n = l1 - l0;
    const double *s = st->s + l0;
    for (long l = 0; l < n; l++)
        dst[l] = 0.0;
    for (int t = 0; t < st->taps; t++) {
        const void *x;
        rb_format fmt;
        const double *c;
        const double w = st->f[t];
        if (!fir_tap(st, i, pass1, strip, t, &x, &fmt, &c))
            return 0;
        if (c) {
            c += l0;
            for (long l = 0; l < n; l++)
                dst[l] += w * c[l];
        } else if (x) {
            for (long l = 0; l < n; l++)
                dst[l] += w * ((double)sample_at(x, fmt, l0 + l) - s[l]);
        }
    }
    return 1;
}

/* Slots of a block's ring: twice the taps, so a row's own never go. */
enum { RING_SLOTS = 2 * FUSED_TAPS };

/* The taps of rows [u0, u1) of a column pass into the table (when the
 * fused route runs: FIRs of at most FUSED_TAPS taps), and the ring's
 * schedule: which sample row each row widens into which slot (a slot
 * not read by the row itself, the one read longest ago). 0 when a row is
 * nowhere (a bug, as fir_tap), -1 out of memory. */
static int taps_table(rb_stream *st, long u0, long u1, int pass1, int strip)
{
    if (st->taps > FUSED_TAPS || u1 <= u0)
        return 1;
    const long rows = u1 - u0;
    if (rows > st->tab_cap) {
        const size_t n = (size_t)rows * (size_t)st->taps;
        row_tap *t = grow(st->tab, sizeof(row_tap) * n);
        if (t)
            st->tab = t;
        int *tn = t ? grow(st->tab_n, sizeof(int) * (size_t)rows) : NULL;
        if (tn)
            st->tab_n = tn;
        row_conv *cv = tn ? grow(st->conv, sizeof(row_conv) * n) : NULL;
        if (cv)
            st->conv = cv;
        long *co = cv ? grow(st->conv_off, sizeof(long) * (size_t)(rows + 1)) : NULL;
        if (!co)
            return -1;
        st->conv_off = co;
        st->tab_cap = rows;
    }
    st->tab_u0 = u0;
    const int slots = 2 * st->taps;
    const void *tag[RING_SLOTS];
    long last[RING_SLOTS];
    for (int q = 0; q < slots; q++) {
        tag[q] = NULL;
        last[q] = -1;
    }
    long nc = 0;
    for (long i = u0; i < u1; i++) {
        row_tap *rt = st->tab + (i - u0) * st->taps;
        const long row = i - u0;
        int n = 0;
        st->conv_off[row] = nc;
        for (int t = 0; t < st->taps; t++) {
            const void *x;
            rb_format fmt;
            const double *c;
            if (!fir_tap(st, i, pass1, strip, t, &x, &fmt, &c))
                return 0;
            if (c) {
                rt[n++] = (row_tap){c, st->f[t], -1};
            } else if (x) {
                int q = 0;
                while (q < slots && tag[q] != x)
                    q++;
                if (q == slots) { /* not in the ring: into the slot read longest ago */
                    q = 0;
                    for (int v = 1; v < slots; v++)
                        if (last[v] < last[q])
                            q = v;
                    tag[q] = x;
                    st->conv[nc++] = (row_conv){x, q, fmt};
                }
                last[q] = row;
                rt[n++] = (row_tap){NULL, st->f[t], q};
            }
        }
        st->tab_n[row] = n;
    }
    st->conv_off[rows] = nc;
    st->conv_n = nc;
    return 1;
}

/* One row of the causal column pass on a block: o = u_i - sum_k dc[k]
 * o[-k nb] (the state in the r rows above), u_i summed in registers, 4
 * lanes at a time, the taps in order and then the feedback terms in order:
 * the same operations as u_row and causal_row, fused. 0 as u_row. */
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* 4 doubles at p, and back: values, so that an array of them stays in
 * registers (a memcpy into an array element kept the array on the stack) */
#define ld4(p) ({ v4d v_; memcpy(&v_, (p), sizeof v_); v_; })
#define st4(p, v) do { const v4d v_ = (v); memcpy((p), &v_, sizeof v_); } while (0)

/* 4 floats at p widened to doubles, element by element: GCC 12 makes this
 * one vcvtps2pd from memory, where __builtin_convertvector of a v4f became
 * two 2-lane conversions and a vinsertf128 (cpu_sweep_kernel.h's cvt4 met
 * the same). The same values either way. */
STREAM_INLINE void widen4(v4d *r, const float *p)
{
    v4f x;
    memcpy(&x, p, sizeof x);
    for (int l = 0; l < 4; l++)
        (*r)[l] = x[l];
}

/* 4 8-bit (16-bit) codes at p as sample_at makes them, widened: the bytes
 * are spread by a shuffle with zeros first (GCC 12 turns a direct u8 -> int
 * conversion of a vector into scalar code, cpu_sweep_kernel.h's cvt4),
 * converted to float and divided by 255 (65535) in float, as
 * rb_pixels_load_rows does, element by element. */
typedef int32_t v4i __attribute__((vector_size(16)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));
STREAM_INLINE void widen4_u8(v4d *r, const uint8_t *p)
{
    uint32_t u;
    memcpy(&u, p, sizeof u);
    const v16u8 b = (v16u8)(v4i){(int32_t)u, 0, 0, 0};
    const v4i iv = (v4i)__builtin_shufflevector(b, (v16u8){0}, 0, 16, 16, 16, 1, 16, 16, 16, 2, 16,
                                                16, 16, 3, 16, 16, 16);
    const v4f x = __builtin_convertvector(iv, v4f) / 255.0f;
    for (int l = 0; l < 4; l++)
        (*r)[l] = x[l];
}

STREAM_INLINE void widen4_u16(v4d *r, const uint8_t *p)
{
    uint64_t u;
    memcpy(&u, p, sizeof u);
    const v8u16 b = (v8u16)(v4i){(int32_t)(uint32_t)u, (int32_t)(uint32_t)(u >> 32), 0, 0};
    const v4i iv = (v4i)__builtin_shufflevector(b, (v8u16){0}, 0, 8, 1, 8, 2, 8, 3, 8);
    const v4f x = __builtin_convertvector(iv, v4f) / 65535.0f;
    for (int l = 0; l < 4; l++)
        (*r)[l] = x[l];
}

/* Lanes [l0, l0 + nb) of a sample row, less the shift s, into d (doubles):
 * the widening every tap of a row then reads from the block's ring. */
STREAM_INLINE void widen_row(double *d, const void *xr, rb_format fmt, long l0, long nb,
                             const double *s)
{
    long l = 0;
    if (fmt == RB_U8) {
        const uint8_t *x = (const uint8_t *)xr + l0;
        for (; l + 4 <= nb; l += 4) {
            v4d xv, sv;
            widen4_u8(&xv, x + l);
            memcpy(&sv, s + l, sizeof sv);
            xv -= sv;
            memcpy(d + l, &xv, sizeof xv);
        }
    } else if (fmt == RB_U16) {
        const uint8_t *x = (const uint8_t *)xr + 2 * l0;
        for (; l + 4 <= nb; l += 4) {
            v4d xv, sv;
            widen4_u16(&xv, x + 2 * l);
            memcpy(&sv, s + l, sizeof sv);
            xv -= sv;
            memcpy(d + l, &xv, sizeof xv);
        }
    } else {
        const float *x = (const float *)xr + l0;
        for (; l + 4 <= nb; l += 4) {
            v4d xv, sv;
            widen4(&xv, x + l);
            memcpy(&sv, s + l, sizeof sv);
            xv -= sv;
            memcpy(d + l, &xv, sizeof xv);
        }
    }
    for (; l < nb; l++)
        d[l] = (double)sample_at(xr, fmt, l0 + l) - s[l];
}

STREAM_INLINE int u_causal_row(const rb_stream *st, long i, int pass1, int strip, double *o,
                               long l0, long nb, double *ring)
{
    const int r = st->r;
    const double *dc = st->ap->ax.dc;
    if (st->taps > FUSED_TAPS) {
        if (!u_row(st, i, pass1, strip, o, l0, l0 + nb))
            return 0;
        for (int k = 1; k <= r; k++) {
            const double c = dc[k - 1], *z = o - k * nb;
            for (long l = 0; l < nb; l++)
                o[l] -= c * z[l];
        }
        return 1;
    }
    const double *s = st->s + l0;
    const long row = i - st->tab_u0;
    /* the sample rows this row widens first: x - s, as u_row takes it. The
     * block's lanes of a row are a few cache lines a whole row apart, where
     * the hardware prefetcher does not follow: they are asked for
     * CONV_AHEAD rows before they are widened. */
    enum { CONV_AHEAD = 6 };
    for (long e = st->conv_off[row]; e < st->conv_off[row + 1]; e++) {
        if (e + CONV_AHEAD < st->conv_n) {
            const row_conv *a = &st->conv[e + CONV_AHEAD];
            const long es = (long)rb_format_size(a->fmt);
            const char *pf = (const char *)a->x + l0 * es;
            for (long b = 0; b < nb * es; b += 64)
                __builtin_prefetch(pf + b);
        }
        widen_row(ring + st->conv[e].slot * nb, st->conv[e].x, st->conv[e].fmt, l0, nb, s);
    }
    fir_taps tp;
    const row_tap *rt = st->tab + row * st->taps;
    tp.n = st->tab_n[row];
    for (int t = 0; t < tp.n; t++) {
        tp.c[t] = rt[t].c ? rt[t].c + l0 : ring + rt[t].slot * nb;
        tp.w[t] = rt[t].w;
    }
    long l = 0;
    /* 16 lanes a step, as 4 independent chains: each chain is a string of
     * dependent additions, and one alone would wait on every one of them */
    for (; l + 16 <= nb; l += 16) {
        v4d a[4];
        for (int q = 0; q < 4; q++)
            a[q] = (v4d){0.0, 0.0, 0.0, 0.0};
        for (int t = 0; t < tp.n; t++)
            for (int q = 0; q < 4; q++) {
                v4d cv;
                memcpy(&cv, tp.c[t] + l + 4 * q, sizeof cv);
                a[q] += tp.w[t] * cv;
            }
        for (int k = 1; k <= r; k++)
            for (int q = 0; q < 4; q++) {
                v4d z;
                memcpy(&z, o + l + 4 * q - k * nb, sizeof z);
                a[q] -= dc[k - 1] * z;
            }
        for (int q = 0; q < 4; q++) /* vector by vector (see anticausal_out) */
            st4(o + l + 4 * q, a[q]);
    }
    for (; l + 4 <= nb; l += 4) {
        v4d a = {0.0, 0.0, 0.0, 0.0};
        for (int t = 0; t < tp.n; t++) {
            v4d cv;
            memcpy(&cv, tp.c[t] + l, sizeof cv);
            a += tp.w[t] * cv;
        }
        for (int k = 1; k <= r; k++) {
            v4d z;
            memcpy(&z, o + l - k * nb, sizeof z);
            a -= dc[k - 1] * z;
        }
        memcpy(o + l, &a, sizeof a);
    }
    for (; l < nb; l++) {
        double a = 0.0;
        for (int t = 0; t < tp.n; t++)
            a += tp.w[t] * tp.c[t][l];
        for (int k = 1; k <= r; k++)
            a -= dc[k - 1] * o[l - k * nb];
        o[l] = a;
    }
    return 1;
}

/* Row j of the current strip. */
static const void *cur_row(const rb_stream *st, long j)
{
    return st->cur + (size_t)(j - st->cur_y0) * st->cur_stride;
}

/* Keep what later steps need of the strip just used: the first rows, the
 * rows after earlier strips, the last rows before the next strip (pass 1). */
static void keep_rows(rb_stream *st)
{
    const long L = st->L, y0 = st->cur_y0, n = st->cur_rows;
    for (long j = y0; j < y0 + n && j < st->head_n; j++)
        row_to_float(st->head + j * L, cur_row(st, j), st->cur_fmt, L);
    if (st->hi > 0)
        for (int k = st->K - 2; k >= 0; k--) {
            const long e = st->y0s[k] + st->rows[k];
            if (e + st->hi <= y0)
                break;
            for (long j = y0; j < y0 + n && j < e + st->hi; j++)
                if (j - e == st->look_n[k]) {
                    row_to_float(st->look[k] + (j - e) * L, cur_row(st, j), st->cur_fmt, L);
                    st->look_n[k]++;
                }
        }
    for (long j = y0 + n - st->ring_cap > y0 ? y0 + n - st->ring_cap : y0; j < y0 + n; j++)
        row_to_float(st->ring + (j % st->ring_cap) * L, cur_row(st, j), st->cur_fmt, L);
    st->ring_end = y0 + n;
}

/* Pass 2: the ring as it will be after the current strip, into ring_next,
 * before the strip is filtered over (the column pass still reads the ring
 * as it is; the head rows were kept by pass 1). */
static void next_ring(rb_stream *st)
{
    const long L = st->L, y0 = st->cur_y0, n = st->cur_rows;
    memcpy(st->ring_next, st->ring, sizeof(float) * (size_t)(st->ring_cap * L));
    for (long j = y0 + n - st->ring_cap > y0 ? y0 + n - st->ring_cap : y0; j < y0 + n; j++)
        row_to_float(st->ring_next + (j % st->ring_cap) * L, cur_row(st, j), st->cur_fmt, L);
}

/* ----------------------------------------------------------------- checks */

static rb_status check_strip(rb_stream *st, const rb_image *img, int y0, const char *what)
{
    rb_context *ctx = st->ctx;
    if (!img)
        return rb_error(ctx, RB_ERR_NULL, "%s: NULL strip", what);
    if (img->height < 1 || y0 < 0 || y0 > st->H - img->height)
        return rb_error(ctx, RB_ERR_SIZE, "%s: a strip of %d rows at row %d does not fit an image "
                        "of %d rows", what, img->height, y0, st->H);
    rb_status s = rb_image_check(ctx, img, st->W, img->height, st->ch, what);
    if (s != RB_OK)
        return s;
    if (img->format == RB_F64)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s: F64 samples are only an rb_sat output", what);
    if (img->memory != RB_MEMORY_HOST)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s: strips must be in host memory", what);
    return RB_OK;
}

static void load_rows(rb_stream *st, const rb_image *img, long rows);

/* Whether the column passes can read img's samples where they are: the
 * load does nothing but scale them (no sRGB decode, no premultiplying). */
static int direct_ok(const rb_stream *st, const rb_image *img)
{
    return st->col && img->alpha != RB_ALPHA_STRAIGHT && !(st->plan->linear_light && img->srgb) &&
           (img->format == RB_U8 || img->format == RB_U16 || img->format == RB_F32);
}

/* The strip img at row y0 as the current strip: read where it is when
 * direct_ok (load 0: the float strip is then only room for pass 2's
 * results, allocated when need_buf), else loaded into the float strip. */
static rb_status load_strip(rb_stream *st, const rb_image *img, int y0, int need_buf)
{
    const long n = img->height;
    const int direct = direct_ok(st, img);
    if ((need_buf || !direct) && n > st->curbuf_rows) {
        float *b = grow(st->curbuf, sizeof(float) * (size_t)(n * st->L));
        if (!b)
            return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip of %ld rows", n);
        st->curbuf = b;
        st->curbuf_rows = n;
    }
    if (direct) {
        st->cur = img->data;
        st->cur_stride = rb_image_stride(img);
        st->cur_fmt = img->format;
    } else {
        load_rows(st, img, n);
        st->cur = (const unsigned char *)st->curbuf;
        st->cur_stride = sizeof(float) * (size_t)st->L;
        st->cur_fmt = RB_F32;
    }
    st->cur_y0 = y0;
    st->cur_rows = n;
    if (!st->have_consts) {
        rb_plan_constants(st->plan, img, st->ccol, st->crow);
        st->have_consts = 1;
    }
    return RB_OK;
}

/* Room for `rows` rows of a column block in every thread's scratch. */
static rb_status work_reserve(rb_stream *st, long rows)
{
    if (rows <= st->work_rows)
        return RB_OK;
    double *b = grow(st->work, sizeof(double) * (size_t)rows * LANE_BLOCK * (size_t)st->nt);
    if (!b)
        return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's column pass (%ld rows)",
                        rows);
    st->work = b;
    st->work_rows = rows;
    return RB_OK;
}

/* g(0 .. n), the impulse response of the anticausal recursion
 * z_i = y_i - sum_k da_k z_{i+k} read downwards: the head of a
 * zero-initialised anticausal pass over a segment is
 * z_m = sum_{j >= m} g(j - m) y_j. Run in long double (plan-time accuracy),
 * kept in double. */
static rb_status g_reserve(rb_stream *st, long n)
{
    if (n <= st->g_n)
        return RB_OK;
    double *g = grow(st->g, sizeof(double) * (size_t)n);
    long double *w = malloc(sizeof(long double) * (size_t)n);
    if (!g || !w) {
        if (g)
            st->g = g;
        free(w);
        return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's column pass");
    }
    const double *da = st->ap->ax.da;
    for (long i = 0; i < n; i++) {
        long double v = i == 0;
        for (int k = 1; k <= st->r && k <= i; k++)
            v -= da[k - 1] * w[i - k];
        w[i] = v;
        g[i] = (double)v;
    }
    free(w);
    st->g = g;
    st->g_n = n;
    return RB_OK;
}

/* The per-lane shift and extension values, from the first row (and the last
 * for clamp's bottom). */
static void set_lane_values(rb_stream *st, int top)
{
    const long L = st->L;
    const rb_boundary_mode m = st->ap->mode;
    rb_format fmt;
    const void *x = row_at(st, top ? 0 : st->H - 1, -1, &fmt);
    double *c = top ? st->c0 : st->c1, *C = top ? st->C0 : st->C1;
    for (long l = 0; l < L; l++) {
        const double xl = sample_at(x, fmt, l);
        if (top) {
            double s = st->shift ? xl : 0.0;
            st->s[l] = isfinite(s) ? s : 0.0; /* a NaN must not reach the whole column */
        }
        double v = m == RB_BOUNDARY_CLAMP ? xl : m == RB_BOUNDARY_CONSTANT ? st->ccol[l % st->ch] : 0.0;
        c[l] = v - st->s[l];
        C[l] = st->fsum * c[l];
    }
}

/* ------------------------------------------------------------------ pass 1 */

/* Lanes [b0, b0 + nb) of `rows` rows of a full-width array (stride L) into
 * a block (stride nb), and back. */
static void block_load(double *blk, const double *src, long rows, long nb, long L, long b0)
{
    for (long i = 0; i < rows; i++)
        memcpy(blk + i * nb, src + i * L + b0, sizeof(double) * (size_t)nb);
}

static void block_store(double *dst, const double *blk, long rows, long nb, long L, long b0)
{
    for (long i = 0; i < rows; i++)
        memcpy(dst + i * L + b0, blk + i * nb, sizeof(double) * (size_t)nb);
}

/* 4 floats of pass 2's result into the float strip, past the caches where
 * the address allows (x86: 16-byte aligned): the strip is read again only
 * by the row pass, after the whole strip's columns (tens of MB), and an
 * ordinary store first read every line it wrote. stream_fence orders them
 * before the row pass's threads read the strip. */
#if defined(__x86_64__)
#include <xmmintrin.h> /* SSE's intrinsics: GCC's and clang's alike (the fuzz build is clang) */
STREAM_INLINE void stream_store4(float *p, v4f f)
{
    if (((uintptr_t)p & 15) == 0)
        _mm_stream_ps(p, (__m128)f);
    else
        memcpy(p, &f, sizeof f);
}
STREAM_INLINE void stream_fence(void)
{
    _mm_sfence();
}
#else
STREAM_INLINE void stream_store4(float *p, v4f f)
{
    memcpy(p, &f, sizeof f);
}
STREAM_INLINE void stream_fence(void)
{
}
#endif

/* Pass 2's last sweep over a block: the backward pass over its len rows at
 * y (stride nb; the anticausal state in the r rows after them; da NULL:
 * none), each row of the strip's own (rows [y0, y0 + rows) of the domain
 * rows b + i) written out as soon as it is final, the shift's DC response
 * added back, into the block's lanes of the loaded strip. One sweep, the
 * lanes in registers, where the pass and the write-out were two (and the
 * pass read and wrote every row once per feedback term): the same
 * operations in the same order, so the same results. The rows before the
 * strip's first (the extension above the image) are not needed. */
STREAM_INLINE void anticausal_out(const rb_stream *st, const double *da, int r, double *y,
                                  long len, long nb, long b, long y0, long rows, long b0)
{
    const long L = st->L;
    const double *s = st->s + b0;
    const double gain = st->gain;
    const int rr = da ? r : 0;
    for (long i = len - 1; i >= y0 - b; i--) {
        double *o = y + i * nb;
        const long row = b + i;
        float *d = row < y0 + rows ? st->curbuf + (row - y0) * L + b0 : NULL;
        long l = 0;
        for (; l + 16 <= nb; l += 16) {
            /* vector by vector: one memcpy of the four became 16-byte
             * copies through the stack, reloaded 32 bytes at a time (a
             * missed store forwarding: a quarter of pass2_lanes in perf) */
            v4d a[4];
            for (int q = 0; q < 4; q++)
                a[q] = ld4(o + l + 4 * q);
            for (int k = 1; k <= rr; k++)
                for (int q = 0; q < 4; q++) {
                    v4d z;
                    memcpy(&z, o + l + 4 * q + k * nb, sizeof z);
                    a[q] -= da[k - 1] * z;
                }
            for (int q = 0; q < 4; q++)
                st4(o + l + 4 * q, a[q]);
            if (d)
                for (int q = 0; q < 4; q++) {
                    v4d sv;
                    memcpy(&sv, s + l + 4 * q, sizeof sv);
                    const v4d v = a[q] + gain * sv;
                    const v4f f = __builtin_convertvector(v, v4f); /* one vcvtpd2ps */
                    stream_store4(d + l + 4 * q, f);
                }
        }
        for (; l < nb; l++) {
            double a = o[l];
            for (int k = 1; k <= rr; k++)
                a -= da[k - 1] * o[l + k * nb];
            o[l] = a;
            if (d)
                d[l] = (float)(a + gain * s[l]);
        }
    }
}

/* Work on lanes [l0, l1) of a strip, one job a thread. */
typedef struct lane_job {
    rb_stream *st;
    long l0, l1;
    int k;                       /* pass 2: the strip; pass 1: the segment to stop at */
    long stop_u;                 /* pass 1: the domain row to stop at */
    int ok;
    int slot;                    /* the job's scratch: its index in the fan-out */
    const rb_image *img;         /* the conversions: the strip loaded */
    rb_image *out;               /* the conversions: the strip stored */
    void (*fn)(struct lane_job *);
} lane_job;

/* One fan-out: n items in pieces of `grain`, claimed one at a time by
 * whichever thread is free. Static slices waited for their slowest thread:
 * on a machine shared with other work a thread that lost its core held the
 * whole strip (two threads ran no faster than one). */
typedef struct {
    lane_job jobs[16];
    long n, grain;
    atomic_long next;
} lane_fanout;

static void lane_worker(void *user, int t)
{
    lane_fanout *f = user;
    lane_job *j = &f->jobs[t];
    for (;;) {
        const long p = atomic_fetch_add(&f->next, 1) * f->grain;
        if (p >= f->n || !j->ok)
            break;
        j->l0 = p;
        j->l1 = p + f->grain < f->n ? p + f->grain : f->n;
        j->fn(j);
    }
}

/* Run fn on the pieces of n items on nt threads (thread t: a copy of proto,
 * slot t). 0 when a piece failed. */
static int run_slices(const lane_job *proto, long n, int nt, long grain)
{
    lane_fanout f = {.n = n, .grain = grain > 0 ? grain : 1};
    atomic_init(&f.next, 0);
    for (int t = 0; t < nt; t++) {
        f.jobs[t] = *proto;
        f.jobs[t].slot = t;
    }
    rb_parallel_for(nt, nt, lane_worker, &f);
    int ok = 1;
    for (int t = 0; t < nt; t++)
        ok = ok && f.jobs[t].ok;
    return ok;
}

/* Run fn on the stream's thread count of slices of the lanes. */
static int run_lanes(rb_stream *st, void (*fn)(lane_job *), int k, long stop_u)
{
    const lane_job proto = {st, 0, 0, k, stop_u, 1, 0, NULL, NULL, fn};
    return run_slices(&proto, st->L, st->nt, LANE_BLOCK);
}

/* Where segment k of the domain starts and ends (the last ends at H + D
 * once the last strip is known). */
static long seg_begin(const rb_stream *st, int k)
{
    return k == 0 ? -st->D : st->y0s[k];
}

static long seg_end(const rb_stream *st, int k)
{
    const long e = (long)st->y0s[k] + st->rows[k];
    return e == st->H ? st->H + st->D : e;
}

/* Rows o[0 .. rows) of a block (stride nb), whose fills in their segment
 * are fill0, fill0 + 1, ..., into the segment's head: head_m += g(fill - m)
 * y for m <= fill. Each head's lanes stay in registers over the rows (R a
 * constant), where adding row by row loaded and stored every head lane for
 * every row (a third of pass1_lanes): each lane's sums in the same order,
 * so the same bits. */
STREAM_INLINE void heads_add_r(const rb_stream *st, const double *o, long rows, long fill0, long b0,
                               long nb, const int R)
{
    const long L = st->L;
    const double *g = st->g;
    double *h0 = st->heads + b0;
    long l = 0;
    for (; l + 8 <= nb; l += 8) {
        v4d h[RB_MAX_ORDER][2];
        for (int m = 0; m < R; m++) {
            h[m][0] = ld4(h0 + m * L + l);
            h[m][1] = ld4(h0 + m * L + l + 4);
        }
        for (long i = 0; i < rows; i++) {
            const long fill = fill0 + i;
            const v4d y0 = ld4(o + i * nb + l), y1 = ld4(o + i * nb + l + 4);
            for (int m = 0; m < R; m++)
                if (m <= fill) {
                    const double gm = g[fill - m];
                    h[m][0] += gm * y0;
                    h[m][1] += gm * y1;
                }
        }
        for (int m = 0; m < R; m++) {
            st4(h0 + m * L + l, h[m][0]);
            st4(h0 + m * L + l + 4, h[m][1]);
        }
    }
    for (; l < nb; l++)
        for (long i = 0; i < rows; i++) {
            const long fill = fill0 + i;
            for (int m = 0; m < R && m <= fill; m++)
                h0[m * L + l] += g[fill - m] * o[i * nb + l];
        }
}

STREAM_CLONES static void heads_add(const rb_stream *st, const double *o, long rows, long fill0,
                                    long b0, long nb)
{
    switch (st->r) {
#define HEADS_CASE(R)                                                                              \
    case R:                                                                                        \
        heads_add_r(st, o, rows, fill0, b0, nb, R);                                                \
        break;
        HEADS_CASE(1) HEADS_CASE(2) HEADS_CASE(3) HEADS_CASE(4)
        HEADS_CASE(5) HEADS_CASE(6) HEADS_CASE(7) HEADS_CASE(8)
#undef HEADS_CASE
    }
}

/* Pass 1 from the stream's counters to (j->k, j->stop_u) on lanes [l0, l1),
 * a block of lanes at a time: the causal pass row by row (the state carries
 * on across segments), each row added into the segment's head
 * (head_m += g(fill - m) y, g_reserve); at each segment's end the head is
 * the segment's carry and starts again from 0. The counters are moved by the
 * caller. */
STREAM_CLONES static void pass1_lanes(lane_job *j)
{
    rb_stream *st = j->st;
    const long L = st->L;
    const int r = st->r, anti = st->ap->ax.anticausal_order > 0;
    double ring[RING_SLOTS * LANE_BLOCK]; /* the block's widened sample rows (taps_table) */
    double *w = st->work + (size_t)j->slot * (size_t)st->work_rows * LANE_BLOCK;
    for (long b0 = j->l0; b0 < j->l1; b0 += LANE_BLOCK) {
        const long nb = j->l1 - b0 < LANE_BLOCK ? j->l1 - b0 : LANE_BLOCK;
        long u = st->next_u, fill = st->seg_fill, n = 0; /* n: rows in w after the state */
        long p = 0; /* rows [p, n) of w are not in the heads yet */
        int k = st->seg_k;
        block_load(w, st->state, r, nb, L, b0);
        while (k < j->k || u < j->stop_u) {
            if (u < seg_end(st, k)) {
                if (n == PASS1_CHUNK) { /* the last r rows become the state rows */
                    if (anti)
                        heads_add(st, w + (r + p) * nb, n - p, fill - (n - p), b0, nb);
                    memmove(w, w + n * nb, sizeof(double) * (size_t)(r * nb));
                    n = p = 0;
                }
                double *o = w + (r + n) * nb;
                if (!u_causal_row(st, u, 1, -1, o, b0, nb, ring)) {
                    j->ok = 0;
                    return;
                }
                n++;
                fill++;
                u++;
                continue;
            }
            if (anti) {
                heads_add(st, w + (r + p) * nb, n - p, fill - (n - p), b0, nb);
                p = n;
            }
            if (anti)
                for (int m = 0; m < r; m++) {
                    double *h = st->heads + m * L + b0;
                    memcpy(st->carry + ((size_t)(k - st->carry_k0) * r + m) * L + b0, h,
                           sizeof(double) * (size_t)nb);
                    memset(h, 0, sizeof(double) * (size_t)nb);
                }
            fill = 0;
            k++;
        }
        if (anti)
            heads_add(st, w + (r + p) * nb, n - p, fill - (n - p), b0, nb);
        block_store(st->state, w + n * nb, r, nb, L, b0);
    }
}

/* Advance pass 1 over every domain row the rows received allow: the steps
 * are decided here, then run on slices of the lanes. */
static rb_status pass1_advance(rb_stream *st)
{
    long u = st->next_u, fill = st->seg_fill, need = 0;
    int k = st->seg_k;
    while (k < st->K) {
        const long e = seg_end(st, k);
        if (e - seg_begin(st, k) > need)
            need = e - seg_begin(st, k);
        if (u < e) {
            if (row_needed(st, u) >= st->received)
                break;
            u++;
            fill++;
            continue;
        }
        st->seg_len[k] = fill;
        fill = 0;
        k++;
    }
    rb_status s = g_reserve(st, need);
    if (s == RB_OK)
        s = work_reserve(st, st->r + PASS1_CHUNK);
    if (s != RB_OK)
        return s;
    double t0 = st->times ? ph_now() : 0.0;
    const int tabbed = taps_table(st, st->next_u, u, 1, -1);
    ph_mark(st, PH_TAPS1, &t0);
    if (tabbed < 0)
        return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's column pass");
    const int ran = tabbed && run_lanes(st, pass1_lanes, k, u);
    ph_mark(st, PH_LANES1, &t0);
    if (!ran)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_gather: a row of the column FIR was "
                        "not kept (internal)");
    st->next_u = u;
    st->seg_fill = fill;
    st->seg_k = k;
    return RB_OK;
}

/* ------------------------------------------------- the carries in a file */

/* A strip's record in the file: its carry (r doubles a lane; none when the
 * column has no anticausal pass, whose carries pass 1 does not write), then
 * the rows its column FIR reaches into the next strip (hi floats a lane). */
static size_t rec_carry(const rb_stream *st)
{
    return st->ap->ax.anticausal_order > 0 ? sizeof(double) * (size_t)st->r * (size_t)st->L : 0;
}

static uint64_t rec_at(const rb_stream *st, int k)
{
    return (uint64_t)k * (rec_carry(st) + sizeof(float) * (size_t)st->hi * (size_t)st->L);
}

/* Room in st->carry for `slots` strips' carries (the file's case). */
static rb_status carry_window(rb_stream *st, long slots)
{
    if (slots <= st->carry_slots)
        return RB_OK;
    double *c = grow(st->carry, sizeof(double) * (size_t)slots * (size_t)st->r * (size_t)st->L);
    if (!c)
        return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's carries");
    st->carry = c;
    st->carry_slots = slots;
    return RB_OK;
}

/* The carries pass 1 has completed (strips carry_k0 .. seg_k - 1) into
 * the file; st->carry then starts at the strip pass 1 works on. */
static rb_status flush_carries(rb_stream *st)
{
    const size_t n = rec_carry(st);
    for (int k = st->carry_k0; k < st->seg_k && n; k++) {
        const double *c = st->carry + (size_t)(k - st->carry_k0) * (size_t)st->r * (size_t)st->L;
        rb_status s = rb_carry_file_write(st->cf, rec_at(st, k), c, n);
        if (s != RB_OK)
            return s;
    }
    st->carry_k0 = st->seg_k;
    return RB_OK;
}

/* The FIR's rows after each strip, once all are there, into the file and
 * out of memory (a strip's rows are complete before a later strip's). */
static rb_status flush_looks(rb_stream *st)
{
    for (; st->look_done < st->K; st->look_done++) {
        const int k = st->look_done;
        if (!st->look[k])
            continue; /* the last strip, or no FIR below */
        const long e = (long)st->y0s[k] + st->rows[k];
        if (st->look_n[k] < (st->H - e < st->hi ? st->H - e : st->hi))
            break;
        rb_status s = rb_carry_file_write(st->cf, rec_at(st, k) + rec_carry(st), st->look[k],
                                          sizeof(float) * (size_t)st->look_n[k] * (size_t)st->L);
        if (s != RB_OK)
            return s;
        free(st->look[k]);
        st->look[k] = NULL;
    }
    return RB_OK;
}

/* From memory to the file: what pass 1 has completed so far is written, the
 * carries' array gives way to a window of the strips in work. */
static rb_status carries_to_file(rb_stream *st)
{
    rb_status s = rb_carry_file_open(st->ctx, &st->cf);
    if (s != RB_OK)
        return s;
    st->carry_k0 = 0;
    if ((s = flush_carries(st)) != RB_OK || (s = flush_looks(st)) != RB_OK)
        return s;
    free(st->carry);
    st->carry = NULL;
    st->carry_slots = 0;
    return RB_OK;
}

/* Whether the carries outgrow the memory allowed once a strip of `rows`
 * rows is gathered, the strips to come taken as high (rb_stream_working_
 * bytes_capped judges the same). */
static int carries_too_big(const rb_stream *st, long rows)
{
    if (st->cf || !st->col || st->carry_mem == SIZE_MAX)
        return 0;
    const double left = ceil((double)(st->H - st->next_y - rows) / (double)rows);
    return ((double)st->K + 1.0 + left) * carry_bytes_per_strip(st->r, st->hi, (double)st->L) >
           (double)st->carry_mem;
}

/* Pass 2: strip k's record read back, its carry into st->carry, its FIR
 * rows where row_at looks for them. */
static rb_status carries_read(rb_stream *st, int k)
{
    const size_t n = rec_carry(st);
    rb_status s = RB_OK;
    if (n && (s = carry_window(st, 1)) == RB_OK)
        s = rb_carry_file_read(st->cf, rec_at(st, k), st->carry, n);
    st->carry_k0 = k;
    if (s == RB_OK && st->look_n[k] > 0) {
        if (!st->look2 && !(st->look2 = malloc(sizeof(float) * (size_t)st->hi * (size_t)st->L)))
            return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's carries");
        s = rb_carry_file_read(st->cf, rec_at(st, k) + n, st->look2,
                               sizeof(float) * (size_t)st->look_n[k] * (size_t)st->L);
        st->look[k] = st->look2;
    }
    return s;
}

/* The close with the carries in the file: a range of lanes at a time, every
 * strip's carries of those lanes read in, chained by rb_strip_close over
 * just those lanes (each lane's chain is its own: the same bits as over the
 * whole width) and written back; p(Y) of the range into st->p. */
static rb_status close_from_file(rb_stream *st, const double *delta, long s0)
{
    const long L = st->L;
    const int r = st->r, K = st->K;
    const size_t nc = rec_carry(st);
    const long n = close_lanes(st->carry_mem, K, r, L);
    double *c = malloc(sizeof(double) * ((size_t)K * r + 3 * (size_t)r + 2 + (size_t)s0) * (size_t)n);
    if (!c)
        return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for the strips' carries (%ld lanes "
                        "of %d strips at a time)", n, K);
    double *yend = c + (size_t)K * r * n, *p = yend + (size_t)r * n, *C0 = p + (size_t)r * n,
           *C1 = C0 + n, *dl = C1 + n;
    rb_status s = RB_OK;
    for (long l0 = 0; l0 < L && s == RB_OK; l0 += n) {
        const long m = L - l0 < n ? L - l0 : n;
        for (int k = 0; k < K && nc && s == RB_OK; k++)
            for (int q = 0; q < r && s == RB_OK; q++)
                s = rb_carry_file_read(st->cf, rec_at(st, k) + sizeof(double) * ((size_t)q * L + l0),
                                       c + ((size_t)k * r + q) * m, sizeof(double) * (size_t)m);
        if (s != RB_OK)
            break;
        block_load(yend, st->state, r, m, L, l0);
        block_load(C0, st->C0, 1, m, L, l0);
        block_load(C1, st->C1, 1, m, L, l0);
        if (delta)
            block_load(dl, delta, s0, m, L, l0);
        rb_strip_close_args a = {st->ap, st->kind, m, K, st->seg_len, c, yend, C0, C1,
                                 delta ? dl : NULL, s0, p};
        if ((s = rb_strip_close(st->ctx, &a)) != RB_OK)
            break;
        for (int k = 0; k < K && nc && s == RB_OK; k++)
            for (int q = 0; q < r && s == RB_OK; q++)
                s = rb_carry_file_write(st->cf, rec_at(st, k) + sizeof(double) * ((size_t)q * L + l0),
                                        c + ((size_t)k * r + q) * m, sizeof(double) * (size_t)m);
        block_store(st->p, p, r, m, L, l0);
    }
    free(c);
    return s;
}

rb_status rb_stream_set_carry_memory(rb_stream *st, size_t bytes)
{
    if (!st)
        return RB_ERR_NULL;
    if (st->K > 0 || st->stage != STAGE_GATHER)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_set_carry_memory: call it before the "
                        "first rb_stream_gather");
    st->carry_mem = bytes;
    return RB_OK;
}

rb_status rb_stream_carries(const rb_stream *st, rb_stream_carry_info *info)
{
    if (!st || !info)
        return RB_ERR_NULL;
    memset(info, 0, sizeof *info);
    info->in_file = st->cf != NULL;
    info->dir = rb_carry_file_dir(st->cf);
    if (st->cf) {
        info->bytes = rb_carry_file_size(st->cf);
        info->written = rb_carry_file_written(st->cf);
        info->read = rb_carry_file_read_bytes(st->cf);
    } else if (st->col)
        info->bytes = (unsigned long long)(st->K * carry_bytes_per_strip(st->r, st->hi, (double)st->L));
    return RB_OK;
}

rb_status rb_stream_gather(rb_stream *st, const rb_image *strip, int y0)
{
    if (!st)
        return RB_ERR_NULL;
    rb_status s;
    if (st->stage == STAGE_DONE)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_gather: an earlier call failed");
    if (st->stage != STAGE_GATHER)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_gather: the carries are closed already; "
                        "gather every strip before rb_stream_close_carries");
    if ((s = check_strip(st, strip, y0, "rb_stream_gather")) != RB_OK)
        return s;
    if (y0 != st->next_y)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_gather: strip at row %d out of order: "
                        "the next strip starts at row %d (strips go top to bottom, each once)",
                        y0, st->next_y);
    if (carries_too_big(st, strip->height) && (s = carries_to_file(st)) != RB_OK) {
        st->stage = STAGE_DONE;
        return s;
    }
    if (st->K == st->Kcap) {
        int cap = st->Kcap ? 2 * st->Kcap : 16;
        int *a = grow(st->y0s, sizeof(int) * (size_t)cap), *b;
        if (a)
            st->y0s = a;
        b = a ? grow(st->rows, sizeof(int) * (size_t)cap) : NULL;
        if (b)
            st->rows = b;
        long *c = b ? grow(st->seg_len, sizeof(long) * (size_t)cap) : NULL;
        if (c)
            st->seg_len = c;
        float **d = c ? grow(st->look, sizeof(float *) * (size_t)cap) : NULL;
        if (d)
            st->look = d;
        int *e = d ? grow(st->look_n, sizeof(int) * (size_t)cap) : NULL;
        if (e)
            st->look_n = e;
        const int all = st->col && !st->cf; /* in memory: every strip's carries */
        double *g = e && all ? grow(st->carry, sizeof(double) * (size_t)cap * (size_t)st->r *
                                                  (size_t)st->L)
                             : NULL;
        if (g)
            st->carry = g;
        if (!e || (all && !g))
            return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for the carries of %d strips", cap);
        st->Kcap = cap;
    }
    const int k = st->K;
    st->y0s[k] = y0;
    st->rows[k] = strip->height;
    st->look[k] = NULL;
    st->look_n[k] = 0;
    if (st->col && st->hi > 0 && y0 + strip->height < st->H) {
        st->look[k] = malloc(sizeof(float) * (size_t)st->hi * (size_t)st->L);
        if (!st->look[k])
            return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's carries");
    }
    st->K++;
    st->next_y = y0 + strip->height;
    if (!st->col)
        return RB_OK;
    double t0 = st->times ? ph_now() : 0.0;
    if ((s = load_strip(st, strip, y0, 0)) != RB_OK)
        return s;
    ph_mark(st, PH_LOAD, &t0);
    st->received = y0 + strip->height;
    if (y0 == 0)
        set_lane_values(st, 1);
    if (st->received == st->H)
        set_lane_values(st, 0);
    if (st->cf && (s = carry_window(st, st->K - st->seg_k)) != RB_OK) {
        st->cur = NULL;
        return s;
    }
    s = pass1_advance(st);
    t0 = st->times ? ph_now() : 0.0;
    keep_rows(st);
    ph_mark(st, PH_KEEP, &t0);
    st->cur = NULL;
    if (s == RB_OK && st->cf &&
        ((s = flush_carries(st)) != RB_OK || (s = flush_looks(st)) != RB_OK))
        st->stage = STAGE_DONE;
    return s;
}

rb_status rb_stream_close_carries(rb_stream *st)
{
    if (!st)
        return RB_ERR_NULL;
    if (st->stage != STAGE_GATHER)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_close_carries: already closed");
    if (st->next_y != st->H)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_close_carries: rows %d..%d of %d were "
                        "not gathered", st->next_y, st->H - 1, st->H);
    st->stage = STAGE_CLOSED;
    if (!st->col)
        return RB_OK;
    double t0 = st->times ? ph_now() : 0.0;
    const long L = st->L;
    /* the last rows, for the periodic wrap (they are the ring's newest) */
    for (long j = st->H - st->tail_n; j < st->H; j++)
        memcpy(st->tail + (j - (st->H - st->tail_n)) * L, st->ring + (j % st->ring_cap) * L,
               sizeof(float) * (size_t)L);
    if (st->seg_k != st->K)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_close_carries: the column pass "
                        "stopped at row %ld (internal)", st->next_u);
    /* periodic: the input pass 1 left out, the FIR's reach across the top */
    long s0 = 0;
    double *delta = NULL;
    if (st->kind == RB_STRIP_PERIODIC && st->lo < 0) {
        s0 = -st->lo < st->H ? -st->lo : st->H;
        delta = calloc((size_t)(s0 * L), sizeof(double));
        if (!delta)
            return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for the strips' carries");
        double *full = malloc(sizeof(double) * (size_t)L);
        for (long i = 0; i < s0 && full; i++) {
            double *d = delta + i * L;
            u_row(st, i, 0, -1, full, 0, L);
            u_row(st, i, 1, -1, d, 0, L);
            for (long l = 0; l < L; l++)
                d[l] = full[l] - d[l];
        }
        if (!full) {
            free(delta);
            return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for the strips' carries");
        }
        free(full);
    }
    /* e_{-1}(Yhat): the causal state pass 1 ended with */
    rb_status s;
    if (st->cf) {
        free(st->carry); /* pass 1's window: the close's range takes its place */
        st->carry = NULL;
        st->carry_slots = 0;
        s = st->look_done == st->K && st->carry_k0 == st->K
                ? close_from_file(st, delta, s0)
                : rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_close_carries: strip %d's carries "
                           "did not reach their file (internal)", st->look_done);
    } else {
        rb_strip_close_args a = {st->ap, st->kind, L, st->K, st->seg_len, st->carry, st->state,
                                 st->C0, st->C1, delta, s0, st->p};
        s = rb_strip_close(st->ctx, &a);
    }
    free(delta);
    if (s != RB_OK)
        st->stage = STAGE_DONE;
    /* pass 2 starts from p(Y) */
    if (s == RB_OK && st->r)
        memcpy(st->state, st->p, sizeof(double) * (size_t)(st->r * L));
    st->ring_end = 0;
    ph_mark(st, PH_CLOSE, &t0);
    return s;
}

/* ------------------------------------------------------------------ pass 2 */

/* Pass 2's column pass over strip j->k, lanes [l0, l1), a block of lanes at
 * a time: the causal pass from the state the previous strip left, the
 * anticausal pass from the strip's carry, the results (working units) over
 * the block's lanes of the loaded strip (its input is read only by this
 * block's rows, all computed by then). */
STREAM_CLONES static void pass2_lanes(lane_job *j)
{
    rb_stream *st = j->st;
    const long L = st->L;
    const int r = st->r, k = j->k;
    const long b = seg_begin(st, k), len = st->seg_len[k], y0 = st->y0s[k];
    const double *da = st->ap->ax.da;
    double *w = st->work + (size_t)j->slot * (size_t)st->work_rows * LANE_BLOCK;
    double ring[RING_SLOTS * LANE_BLOCK]; /* the block's widened sample rows (taps_table) */
    for (long b0 = j->l0; b0 < j->l1; b0 += LANE_BLOCK) {
        const long nb = j->l1 - b0 < LANE_BLOCK ? j->l1 - b0 : LANE_BLOCK;
        double *y = w + r * nb;
        block_load(w, st->state, r, nb, L, b0);
        for (long i = 0; i < len; i++) {
            if (!u_causal_row(st, b + i, 0, k, y + i * nb, b0, nb, ring)) {
                j->ok = 0;
                return;
            }
        }
        /* the causal state for the next strip */
        block_store(st->state, w + len * nb, r, nb, L, b0);
        const int anti = st->ap->ax.anticausal_order > 0;
        if (anti)
            block_load(y + len * nb, st->carry + (size_t)(k - st->carry_k0) * r * L, r, nb, L, b0);
        anticausal_out(st, anti ? da : NULL, r, y, len, nb, b, y0, st->rows[k], b0);
    }
    stream_fence();
}

static rb_status pass2_columns(rb_stream *st, int k)
{
    rb_status s = work_reserve(st, 2 * st->r + st->seg_len[k]);
    if (s != RB_OK)
        return s;
    double t0 = st->times ? ph_now() : 0.0;
    next_ring(st);
    const int tabbed = taps_table(st, seg_begin(st, k), seg_begin(st, k) + st->seg_len[k], 0, k);
    ph_mark(st, PH_TAPS2, &t0);
    if (tabbed < 0)
        return rb_error(st->ctx, RB_ERR_NOMEM, "out of memory for a strip's column pass");
    const int ran = tabbed && run_lanes(st, pass2_lanes, k, 0);
    ph_mark(st, PH_LANES2, &t0);
    if (!ran)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_produce: a row of the column FIR was "
                        "not kept (internal)");
    /* the input rows later strips' FIR reaches back to */
    float *t = st->ring;
    st->ring = st->ring_next;
    st->ring_next = t;
    st->ring_end = st->cur_y0 + st->cur_rows;
    return RB_OK;
}

/* Where the row pass's results go: pixel i of the G rows of a group, as
 * the solver finishes it (rb_line_solve_ex's sink, while the row of lanes
 * is still in L1), the solver's per-lane constant added here; into the
 * float rows, or (store_ok) straight into the output strip's rows in its
 * format, where a separate store swept the float strip once more. */
typedef struct {
    float *row[8];
    unsigned char *orow[8];      /* the output's rows, or NULL: into row[] */
    rb_format ofmt;
    long G, ch;
    const rb_lane *off;
} row_sink;

/* Sample k of an output row: f as rb_pixels_store_rows stores it (8/16-bit:
 * scaled, + 0.5, clamped with NaN to 0, truncated). */
STREAM_INLINE void put_sample(unsigned char *d, long k, rb_format fmt, float f)
{
    if (fmt == RB_U8) {
        float v = f * 255.0f + 0.5f;
        v = v > 0.0f ? (v < 255.0f ? v : 255.0f) : 0.0f; /* NaN -> 0 */
        d[k] = (unsigned char)v;
    } else if (fmt == RB_U16) {
        float v = f * 65535.0f + 0.5f;
        v = v > 0.0f ? (v < 65535.0f ? v : 65535.0f) : 0.0f;
        const uint16_t u = (uint16_t)v;
        memcpy(d + 2 * k, &u, sizeof u);
    } else
        memcpy(d + 4 * k, &f, sizeof f);
}

/* The 8-bit codes of 4 results from v (+ off), as put_sample makes them,
 * 4 at a time: (float)(v + off), * 255 + 0.5, clamped by masks (NaN fails
 * both tests: 0), truncated. The same values as the scalar code. */
STREAM_INLINE v4i codes4_u8(const rb_lane *v, const rb_lane *off)
{
    const v4d a = ld4(v) + ld4(off);
    const v4f t = __builtin_convertvector(a, v4f) * 255.0f + 0.5f;
    const v4f zero = {0.0f, 0.0f, 0.0f, 0.0f}, top = {255.0f, 255.0f, 255.0f, 255.0f};
    const v4i pos = t > zero, below = t < top;
    v4i tb, mb;
    memcpy(&tb, &t, sizeof tb);
    memcpy(&mb, &top, sizeof mb);
    const v4i sel = pos & ((below & tb) | (~below & mb));
    v4f r;
    memcpy(&r, &sel, sizeof r);
    return __builtin_convertvector(r, v4i);
}

/* G and CH constants where the caller knows them (the loops unroll). */
STREAM_INLINE void sink_put(const row_sink *rs, ptrdiff_t i, const rb_lane *v, long G, long CH,
                            int store, rb_format fmt)
{
    const rb_lane *off = rs->off;
    if (store && fmt == RB_U8 && (G * CH) % 4 == 0) {
        /* the rows in locals: a byte store may alias *rs, and the pointer
         * was loaded again after every byte */
        unsigned char *orow[8];
        for (long g = 0; g < G; g++)
            orow[g] = rs->orow[g] + i * CH;
        for (long l = 0; l < G * CH; l += 4) {
            const v4i c = codes4_u8(v + l, off + l);
            for (int e = 0; e < 4; e++)
                orow[(l + e) / CH][(l + e) % CH] = (unsigned char)c[e];
        }
        return;
    }
    for (long g = 0; g < G; g++)
        for (long c = 0; c < CH; c++) {
            const float f = (float)(v[g * CH + c] + off[g * CH + c]);
            if (store)
                put_sample(rs->orow[g], i * CH + c, fmt, f);
            else
                rs->row[g][i * CH + c] = f;
        }
}

STREAM_CLONES static void row_sink_put(void *user, ptrdiff_t i, const rb_lane *v)
{
    const row_sink *rs = user;
    const int eight = rs->G == 8;
    if (!rs->orow[0]) {
        if (eight && rs->ch == 1)
            sink_put(rs, i, v, 8, 1, 0, RB_F32);
        else if (eight && rs->ch == 3)
            sink_put(rs, i, v, 8, 3, 0, RB_F32);
        else
            sink_put(rs, i, v, rs->G, rs->ch, 0, RB_F32);
    } else if (rs->ofmt == RB_U8) {
        if (eight && rs->ch == 1)
            sink_put(rs, i, v, 8, 1, 1, RB_U8);
        else if (eight && rs->ch == 3)
            sink_put(rs, i, v, 8, 3, 1, RB_U8);
        else
            sink_put(rs, i, v, rs->G, rs->ch, 1, RB_U8);
    } else
        sink_put(rs, i, v, rs->G, rs->ch, 1, rs->ofmt);
}

/* Whether the row pass can store into out itself: the store does nothing
 * but scale and round (no sRGB encode, no un-premultiplying). */
static int store_ok(const rb_stream *st, const rb_image *out)
{
    return st->plan->rows.ax.active && out->alpha != RB_ALPHA_STRAIGHT &&
           !(st->plan->linear_light && out->srgb) &&
           (out->format == RB_U8 || out->format == RB_U16 || out->format == RB_F32);
}

/* Pixels [i0, i1) of the G rows into the lanes (pixel i of row g, channel
 * c at xi[i * G * CH + g * CH + c]), each lane's sum taken on the way in
 * the order the solver would take it (i ascending). CH a constant where
 * the caller knows it, so that the inner loop unrolls. */
STREAM_INLINE void rows_gather(rb_lane *xi, rb_lane *sum, float *const *row, long G, long CH,
                               long i0, long i1)
{
    const long L2 = G * CH;
    for (long g = 0; g < G; g++) {
        const float *src = row[g];
        rb_lane *dst = xi + g * CH;
        for (long i = i0; i < i1; i++)
            for (long c = 0; c < CH; c++)
                dst[i * L2 + c] = src[i * CH + c];
    }
    /* the sums over the tile (in L1), all lanes side by side: independent
     * chains that vectorise, where one lane at a time waited on each add */
    for (long i = i0; i < i1; i++)
        for (long l = 0; l < L2; l++)
            sum[l] += xi[i * L2 + l];
}

/* The row pass over rows [j->l0, j->l1) of st->curbuf (j->k rows in all):
 * groups of rows side by side as lanes, through the in-memory route's line
 * solver; thread t uses the t-th row buffer. The lanes are gathered in
 * tiles of T pixels (each source row read in order, the tile in L1) with
 * their sums (the solver's mean, one sweep fewer), and the results go
 * straight back to the rows through the sink (no second sweep over the
 * lanes, no separate scatter): the same operations on each lane as
 * rb_line_solve, so the same results. */
static void rows_job(lane_job *j)
{
    rb_stream *st = j->st;
    const rb_axis_plan *ap = &st->plan->rows;
    const long W = st->W, ch = st->ch;
    const rb_line_layout *lay = &st->rlay;
    const long per = (lay->in_len + lay->work_len) * st->row_group * ch;
    rb_lane *x = st->rowx + per * j->slot;
    enum { T = 32 };
    for (long g0 = j->l0; g0 < j->l1; g0 += st->row_group) {
        const long G = j->l1 - g0 < st->row_group ? j->l1 - g0 : st->row_group;
        const long L2 = G * ch;
        rb_lane cval[4 * 8], sum[4 * 8], off[4 * 8];
        for (long l = 0; l < L2; l++) {
            cval[l] = st->crow[l % ch];
            sum[l] = 0.0;
        }
        row_sink rs = {{NULL}, {NULL}, RB_F32, G, ch, off};
        for (long g = 0; g < G; g++)
            rs.row[g] = st->curbuf + (g0 + g) * W * ch;
        if (j->out) {
            rs.ofmt = j->out->format;
            for (long g = 0; g < G; g++)
                rs.orow[g] = (unsigned char *)j->out->data + (size_t)(g0 + g) * rb_image_stride(j->out);
        }
        rb_lane *xi = x + lay->lead * L2;
        for (long i0 = 0; i0 < W; i0 += T) {
            const long i1 = i0 + T < W ? i0 + T : W;
            /* the rows' next tiles asked for ahead: the float strip left
             * the cache since the column pass wrote it, and 8 streams at
             * once are more than the hardware prefetcher follows */
            if (i1 + 2 * T <= W)
                for (long g = 0; g < G; g++)
                    for (long b = 0; b < T * ch * (long)sizeof(float); b += 64)
                        __builtin_prefetch((const char *)(rs.row[g] + (i0 + 2 * T) * ch) + b);
            if (G == 8 && ch == 1)
                rows_gather(xi, sum, rs.row, 8, 1, i0, i1);
            else if (G == 8 && ch == 3)
                rows_gather(xi, sum, rs.row, 8, 3, i0, i1);
            else
                rows_gather(xi, sum, rs.row, G, ch, i0, i1);
        }
        rb_line_solve_ex(ap, (int)L2, x, x + lay->in_len * L2, cval, sum, off, row_sink_put, &rs);
    }
}

/* The strip's samples into (load) or out of (store) the float rows, rows
 * [j->l0, j->l1) of it: the conversions split across the threads too. */
static void load_job(lane_job *j)
{
    rb_stream *st = j->st;
    rb_pixels_load_rows(j->img, (int)j->l0, (int)(j->l1 - j->l0), st->curbuf + j->l0 * st->L,
                        st->plan->linear_light);
}

static void store_job(lane_job *j)
{
    rb_stream *st = j->st;
    rb_pixels_store_rows(st->curbuf + j->l0 * st->L, j->out, (int)j->l0, (int)(j->l1 - j->l0),
                         st->plan->linear_light);
}

static void convert_rows(rb_stream *st, void (*fn)(lane_job *), const rb_image *img,
                         rb_image *out, long rows)
{
    lane_job proto = {st, 0, 0, 0, 0, 1, 0, img, out, fn};
    run_slices(&proto, rows, st->nt < rows ? st->nt : (int)rows, 8);
}

static void load_rows(rb_stream *st, const rb_image *img, long rows)
{
    convert_rows(st, load_job, img, NULL, rows);
}

/* The row pass; out: stored into there by the pass itself (store_ok), or
 * NULL: left in the float strip. */
static void pass2_rows(rb_stream *st, long rows, rb_image *out)
{
    const lane_job proto = {st, 0, 0, 0, 0, 1, 0, NULL, out, rows_job};
    run_slices(&proto, rows, st->nt < rows ? st->nt : (int)rows, st->row_group);
}

rb_status rb_stream_produce(rb_stream *st, const rb_image *in, rb_image *out, int y0)
{
    if (!st)
        return RB_ERR_NULL;
    rb_status s;
    if (st->stage == STAGE_GATHER)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_produce: the carries are not closed "
                        "yet; call rb_stream_close_carries after gathering every strip");
    if (st->stage == STAGE_DONE || st->produced == st->K)
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_produce: every strip was produced "
                        "already (or the close failed)");
    if ((s = check_strip(st, in, y0, "rb_stream_produce input")) != RB_OK ||
        (s = check_strip(st, out, y0, "rb_stream_produce output")) != RB_OK)
        return s;
    const int k = st->produced;
    if (y0 != st->y0s[k] || in->height != st->rows[k] || out->height != st->rows[k])
        return rb_error(st->ctx, RB_ERR_ARGUMENT, "rb_stream_produce: strip %d must be rows "
                        "%d..%d as gathered, got rows %d..%d (produce the gathered strips again, "
                        "in order)", k, st->y0s[k], st->y0s[k] + st->rows[k] - 1, y0,
                        y0 + in->height - 1);
    double t0 = st->times ? ph_now() : 0.0;
    if ((s = load_strip(st, in, y0, 1)) != RB_OK)
        return s;
    ph_mark(st, PH_LOAD, &t0);
    if (st->col && st->cf && (s = carries_read(st, k)) != RB_OK) {
        st->look[k] = NULL;
        st->stage = STAGE_DONE;
        return s;
    }
    if (st->col && (s = pass2_columns(st, k)) != RB_OK) {
        if (st->cf)
            st->look[k] = NULL;
        st->stage = STAGE_DONE;
        return s;
    }
    if (st->cf)
        st->look[k] = NULL; /* look2, strip k + 1's next */
    st->cur = NULL;
    t0 = st->times ? ph_now() : 0.0;
    const int stored = store_ok(st, out);
    if (st->plan->rows.ax.active)
        pass2_rows(st, in->height, stored ? out : NULL);
    ph_mark(st, PH_ROWS, &t0);
    if (!stored)
        convert_rows(st, store_job, NULL, out, out->height);
    ph_mark(st, PH_STORE, &t0);
    st->produced++;
    if (st->produced == st->K)
        st->stage = STAGE_DONE;
    return RB_OK;
}
