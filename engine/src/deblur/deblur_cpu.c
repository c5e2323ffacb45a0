/* The quadrant deblur filter on the CPU: plan (margin, float coefficients,
 * back-end choice by route.c) and a wavefront-parallel execute. When the
 * route is the CUDA back end, execute hands the loaded image to its deblur
 * entry (rb_backend_ops.deblur, cuda/deblur/rb_cuda_deblur.cu); under auto a device
 * error falls back to the CPU below, with a log line.
 *
 * Each (channel, quadrant) is run in the canonical orientation (scan from
 * the top-left) on a buffer that holds the extended input flipped for that
 * quadrant, with m - 1 zero guard rows/columns in front so the inner loops
 * need no bounds tests. The wavefront: the columns are cut into strips at
 * least m - 1 wide, so row i of strip s depends only on rows <= i of strips
 * s and s - 1. Threads take strips round robin and publish, per strip, how
 * many rows are done (an atomic counter); a thread starts row i of strip s
 * once strip s - 1 has published row i. Dependencies point to lower strips
 * only, so the lowest unfinished strip can always advance: no deadlock. All
 * threads are joined before execute returns. */
#include "deblur_internal.h"
#include "pixel_convert.h"
#include "plan_build.h"
#include "missing_data.h"
#include "parallel.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_DEBLUR_STRIP_MIN 64

static void extent(const double *c, int m, int skip_origin, int *rows, int *cols)
{
    *rows = 0;
    *cols = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            if (c[i * m + j] != 0.0 && !(skip_origin && i == 0 && j == 0)) {
                if (i + 1 > *rows)
                    *rows = i + 1;
                if (j + 1 > *cols)
                    *cols = j + 1;
            }
}

static float *to_float(const double *c, int m, int rows, int cols)
{
    float *o = calloc((size_t)(rows ? rows : 1) * (cols ? cols : 1), sizeof(float));
    if (!o)
        return NULL;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            o[i * cols + j] = (float)c[i * m + j];
    return o;
}

static void set_cpu_name(rb_deblur_plan *p)
{
    int n = rb_context_thread_count(p->ctx);
    snprintf(p->backend_name, sizeof p->backend_name, "cpu (%d thread%s, wavefront)", n,
             n == 1 ? "" : "s");
}

void rb_deblur_plan_destroy(rb_deblur_plan *p)
{
    if (!p)
        return;
    for (int q = 0; q < 4; q++) {
        free(p->qc[q].a);
        free(p->qc[q].b);
    }
    free(p);
}

rb_status rb_deblur_plan_create(rb_context *ctx, const rb_deblur_filter *f, rb_boundary boundary,
                                int width, int height, int channels, rb_deblur_plan **out)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "deblur plan: NULL output pointer");
    *out = NULL;
    if (!f)
        return rb_error(ctx, RB_ERR_NULL, "deblur plan: NULL filter");
    if (width < 1 || height < 1 || width > RB_MAX_SIDE || height > RB_MAX_SIDE ||
        (uint64_t)width * (uint64_t)height > RB_MAX_PIXELS)
        return rb_error(ctx, RB_ERR_SIZE, "deblur plan: image size %dx%d out of range", width,
                        height);
    if (channels < 1 || channels > 4)
        return rb_error(ctx, RB_ERR_SIZE, "deblur plan: %d channels (1..4)", channels);
    if ((unsigned)boundary.mode > RB_BOUNDARY_NONE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "deblur plan: unknown boundary mode %d",
                        (int)boundary.mode);
    if (boundary.mode == RB_BOUNDARY_CONSTANT && !isfinite(boundary.value))
        return rb_error(ctx, RB_ERR_NAN, "deblur plan: boundary constant is not finite");
    /* the one route choice, as for every operation (route.c) */
    const rb_route_request req = {RB_WORK_DEBLUR, NULL, NULL, NULL, RB_MEMORY_HOST,
                                  width, height, channels};
    const rb_backend_ops *ops = NULL;
    rb_status rs = rb_route_choose(ctx, &req, &ops);
    if (rs != RB_OK)
        return rs;
    rb_deblur_plan *p = calloc(1, sizeof *p);
    if (!p)
        return rb_error(ctx, RB_ERR_NOMEM, "deblur plan: out of memory");
    p->ctx = ctx;
    p->m = f->m;
    p->width = width;
    p->height = height;
    p->channels = channels;
    p->boundary = boundary;
    /* Zero input outside: the zero-state start at the image edge is exact. */
    int exact = boundary.mode == RB_BOUNDARY_ZERO || boundary.mode == RB_BOUNDARY_NONE;
    int margin = 0;
    for (int q = 0; q < 4; q++) {
        rb_deblur_quad_coef *c = &p->qc[q];
        extent(f->a[q], f->m, 0, &c->ra, &c->ca);
        extent(f->b[q], f->m, 1, &c->rb, &c->cb);
        c->a = to_float(f->a[q], f->m, c->ra, c->ca);
        c->b = to_float(f->b[q], f->m, c->rb, c->cb);
        if (!c->a || !c->b) {
            rb_deblur_plan_destroy(p);
            return rb_error(ctx, RB_ERR_NOMEM, "deblur plan: out of memory");
        }
        int reach = (c->ra > c->ca ? c->ra : c->ca) - 1 + f->decay[q];
        if (reach > margin)
            margin = reach;
    }
    p->margin = exact ? 0 : margin;
    p->backend = ops->deblur ? ops : &rb_backend_cpu;
    if (p->backend != &rb_backend_cpu)
        snprintf(p->backend_name, sizeof p->backend_name, "%s (flexible wavefront)", ops->name);
    else
        set_cpu_name(p);
    *out = p;
    return RB_OK;
}

int rb_deblur_plan_margin(const rb_deblur_plan *p) { return p ? p->margin : -1; }
const char *rb_deblur_plan_backend_name(const rb_deblur_plan *p) { return p ? p->backend_name : ""; }

typedef struct {
    const rb_deblur_quad_coef *c;
    float *X;
    float *Y;
    long Wp, Hp, Z;              /* buffer sides; Z = guard */
    long P, W, H, ch, cc;        /* margin, image size, channels, this channel */
    int si, sj;                  /* this quadrant's scan signs */
    const long *row_src, *col_src; /* buffer row/col (past the guard) -> image row/col, -1: constant */
    const float *work;           /* the loaded image, interleaved */
    float *acc;                  /* sum of the quadrants, interleaved */
    float cval;                  /* constant-boundary value of this channel */
    int strip_w, nstrips;
    atomic_long *progress;       /* rows (absolute buffer index) completed per strip */
    atomic_int next;             /* next unclaimed strip */
    atomic_int failed;           /* a worker could not allocate its row buffer */
} wave;

/* u[j] += sum k[r1][r2] at[j - r1 Wp - r2], j < n, over rows r1 = r_first ..
 * rows-1 and columns r2 = 0 .. cols-1 of the cols-wide coefficients k: whole
 * shifted rows, in the order of the coefficients (vectorisable over j) */
static inline void add_shifted_rows(float *u, long n, const float *k, int r_first, int rows, int cols, const float *at,
                                    long Wp)
{
    for (int r1 = r_first; r1 < rows; r1++)
        for (int r2 = 0; r2 < cols; r2++) {
            const float kr = k[r1 * cols + r2];
            const float *x = at - r1 * Wp - r2;
            for (long j = 0; j < n; j++)
                u[j] += kr * x[j];
        }
}

/* One row of one strip. Everything but the in-row recursion is a sum of
 * whole shifted rows (vectorisable over j, no reassociation needed): the
 * FIR part and the rows above; then the short left-to-right recursion along
 * the row. Per pixel the order of operations does not depend on the strip
 * layout, so the thread count does not change a bit. */
static void run_row(const wave *w, long i, long j0, long j1, float *u)
{
    const rb_deblur_quad_coef *c = w->c;
    const long Wp = w->Wp, n = j1 - j0;
    for (long j = 0; j < n; j++)
        u[j] = 0.f;
    add_shifted_rows(u, n, c->a, 0, c->ra, c->ca, w->X + i * Wp + j0, Wp); /* the FIR part */
    add_shifted_rows(u, n, c->b, 1, c->rb, c->cb, w->Y + i * Wp + j0, Wp); /* the rows above */
    float *y = w->Y + i * Wp + j0;
    const float *b0 = c->b;  /* row k1 = 0: b(0, k2), k2 >= 1 */
    for (long j = 0; j < n; j++) {
        float s = u[j];
        for (int k2 = 1; k2 < c->cb; k2++)
            s += b0[k2] * y[j - k2];
        y[j] = s;
    }
}

/* One worker of the wavefront (a task of rb_parallel_for): claims strips until
 * none is left. However many workers run at once, the bits are the same; a
 * worker that a thread runs after its first (fewer threads could be created)
 * finds the strips claimed and returns. */
static void wave_worker(void *arg, int worker)
{
    (void)worker;
    wave *w = arg;
    float *u = malloc(sizeof(float) * (size_t)w->strip_w);
    if (!u) {
        atomic_store(&w->failed, 1);
        u = NULL;
    }
    /* Strips are claimed in increasing order, so every strip below a claimed
     * one is claimed too and being worked on: whatever number of threads runs
     * (even one), the lowest unfinished strip always advances. */
    for (int s; (s = atomic_fetch_add(&w->next, 1)) < w->nstrips;) {
        long j0 = w->Z + (long)s * w->strip_w;
        long j1 = j0 + w->strip_w < w->Wp ? j0 + w->strip_w : w->Wp;
        long avail = w->Hp;
        for (long i = w->Z; i < w->Hp; i++) {
            if (s > 0) {
                while (1) {
                    avail = atomic_load_explicit(&w->progress[s - 1], memory_order_acquire);
                    if (avail > i)
                        break;
                    sched_yield();
                }
            }
            /* This strip's part of the extended, flipped input row: read only
             * by this strip and by strip s + 1 after we publish row i. */
            long ri = w->row_src[i - w->Z];
            float *xr = w->X + i * w->Wp;
            for (long j = j0; j < j1; j++) {
                long rj = w->col_src[j - w->Z];
                xr[j] = (ri < 0 || rj < 0) ? w->cval : w->work[(ri * w->W + rj) * w->ch + w->cc];
            }
            if (u)
                run_row(w, i, j0, j1, u);
            /* Add the image part of the row into the sum (strips own disjoint pixels). */
            long ii = i - w->Z - w->P;
            if (ii >= 0) {
                long row = w->si > 0 ? ii : w->H - 1 - ii;
                const float *yr = w->Y + i * w->Wp;
                float *ar = w->acc + row * w->W * w->ch + w->cc;
                long js = j0 > w->Z + w->P ? j0 : w->Z + w->P;
                for (long j = js; j < j1; j++) {
                    long jj = j - w->Z - w->P, col = w->sj > 0 ? jj : w->W - 1 - jj;
                    ar[col * w->ch] += yr[j];
                }
            }
            atomic_store_explicit(&w->progress[s], i + 1, memory_order_release);
        }
        (void)avail;
    }
    free(u);
}

rb_status rb_deblur_execute(rb_deblur_plan *p, const rb_image *in, rb_image *out)
{
    if (!p)
        return RB_ERR_NULL;
    rb_context *ctx = p->ctx;
    rb_status st = rb_host_images_check(ctx, in, out, p->width, p->height, p->channels, "deblur");
    if (st != RB_OK)
        return st;
    uint64_t n_missing; /* a deblur filter has negative lobes: no normalised filtering */
    if ((n_missing = rb_missing_count(ctx, in)) > 0)
        return rb_missing_refuse(ctx, "deblur", n_missing);

    const long W = p->width, H = p->height, ch = p->channels, P = p->margin;
    int maxr = 1;
    for (int q = 0; q < 4; q++) {
        const rb_deblur_quad_coef *c = &p->qc[q];
        int r = c->ra > c->ca ? c->ra : c->ca;
        r = r > c->rb ? r : c->rb;
        r = r > c->cb ? r : c->cb;
        maxr = r > maxr ? r : maxr;
    }
    const long Z = maxr - 1, Hp = Z + P + H, Wp = Z + P + W;
    float *work = malloc(sizeof(float) * (size_t)(W * H * ch));
    float *acc = calloc((size_t)(W * H * ch), sizeof(float));
    float *X = calloc((size_t)(Hp * Wp), sizeof(float));
    float *Y = calloc((size_t)(Hp * Wp), sizeof(float));
    int strip_w = RB_DEBLUR_STRIP_MIN > maxr ? RB_DEBLUR_STRIP_MIN : maxr;
    int nstrips = (int)((Wp - Z + strip_w - 1) / strip_w);
    atomic_long *progress = malloc(sizeof(atomic_long) * (size_t)nstrips);
    long *row_src = malloc(sizeof(long) * (size_t)(P + H));
    long *col_src = malloc(sizeof(long) * (size_t)(P + W));
    if (!work || !acc || !X || !Y || !progress || !row_src || !col_src) {
        free(work), free(acc), free(X), free(Y), free(progress), free(row_src), free(col_src);
        return rb_error(ctx, RB_ERR_NOMEM, "deblur: out of memory for a %ldx%ld image", W, H);
    }
    rb_pixels_load(in, work, 0);
    float cval[4] = {0, 0, 0, 0};
    if (p->boundary.mode == RB_BOUNDARY_CONSTANT)
        rb_pixel_constant(p->boundary.value, (int)ch, in->alpha, 0, cval);

    if (p->backend != &rb_backend_cpu) {
        rb_status cs = p->backend->deblur(p, work, cval, acc);
        if (cs == RB_ERR_DEVICE && ctx && ctx->backend == RB_BACKEND_AUTO) {
            rb_log(ctx, "recblur: the GPU failed (%s); falling back to the cpu back end", ctx->error);
            p->backend = &rb_backend_cpu;
            set_cpu_name(p);
            memset(acc, 0, sizeof(float) * (size_t)(W * H * ch));
        } else {
            if (cs == RB_OK && ctx && ctx->progress && ctx->progress(1.0, ctx->progress_user))
                cs = rb_error(ctx, RB_ERR_CANCELLED, "deblur: cancelled");
            if (cs == RB_OK)
                rb_pixels_store(acc, out, 0);
            free(work), free(acc), free(X), free(Y), free(progress), free(row_src), free(col_src);
            return cs;
        }
    }
    int nt = rb_context_thread_count(ctx);
    if (nt > nstrips)
        nt = nstrips;
    rb_status result = RB_OK;
    int tasks = (int)ch * 4, done = 0;
    for (long cc = 0; cc < ch && result == RB_OK; cc++)
        for (int q = 0; q < 4 && result == RB_OK; q++) {
            const int si = rb_deblur_si(q), sj = rb_deblur_sj(q);
            /* Where each buffer row/column of the extended input, flipped so this
             * quadrant scans from the top-left, comes from in the image. */
            for (long i = 0; i < P + H; i++) {
                long ci = i - P;
                row_src[i] = rb_extend_index(si > 0 ? ci : H - 1 - ci, H, p->boundary.mode);
            }
            for (long j = 0; j < P + W; j++) {
                long cj = j - P;
                col_src[j] = rb_extend_index(sj > 0 ? cj : W - 1 - cj, W, p->boundary.mode);
            }
            wave w = {&p->qc[q], X, Y, Wp, Hp, Z, P, W, H, ch, cc, si, sj, row_src, col_src,
                      work, acc, cval[cc], strip_w, nstrips, progress, 0, 0};
            for (int s = 0; s < nstrips; s++)
                atomic_init(&progress[s], Z);
            atomic_init(&w.next, 0);
            atomic_init(&w.failed, 0);
            rb_parallel_for(nt, nt, wave_worker, &w);
            if (atomic_load(&w.failed)) {
                result = rb_error(ctx, RB_ERR_NOMEM, "deblur: out of memory for a row buffer");
                break;
            }
            done++;
            if (ctx && ctx->progress && ctx->progress((double)done / tasks, ctx->progress_user))
                result = rb_error(ctx, RB_ERR_CANCELLED, "deblur: cancelled");
        }
    if (result == RB_OK)
        rb_pixels_store(acc, out, 0);
    free(work);
    free(acc);
    free(X);
    free(Y);
    free(progress);
    free(row_src);
    free(col_src);
    return result;
}
