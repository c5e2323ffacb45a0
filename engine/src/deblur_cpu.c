/* The quadrant deblur filter on the CPU: plan (margin, float coefficients)
 * and a wavefront-parallel execute.
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

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_DEBLUR_STRIP_MIN 64

typedef struct {
    int ra, ca;                  /* used extent of a: rows, columns */
    int rb, cb;                  /* used extent of b */
    float *a, *b;                /* ra x ca, cb columns reversed (dot products run forwards) */
} quad_coef;

struct rb_deblur_plan {
    rb_context *ctx;
    int m, width, height, channels;
    rb_boundary boundary;
    int margin;
    quad_coef qc[4];
    char backend_name[64];
};

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

static float *reversed(const double *c, int m, int rows, int cols)
{
    float *o = calloc((size_t)(rows ? rows : 1) * (cols ? cols : 1), sizeof(float));
    if (!o)
        return NULL;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            o[i * cols + (cols - 1 - j)] = (float)c[i * m + j];
    return o;
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
    if (ctx && ctx->backend == RB_BACKEND_CUDA)
        return rb_error(ctx, RB_ERR_BACKEND,
                        "deblur: the CUDA back end for the quadrant filter is not written yet; "
                        "use --backend cpu");
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
        quad_coef *c = &p->qc[q];
        extent(f->a[q], f->m, 0, &c->ra, &c->ca);
        extent(f->b[q], f->m, 1, &c->rb, &c->cb);
        c->a = reversed(f->a[q], f->m, c->ra, c->ca);
        c->b = reversed(f->b[q], f->m, c->rb, c->cb);
        if (!c->a || !c->b) {
            rb_deblur_plan_destroy(p);
            return rb_error(ctx, RB_ERR_NOMEM, "deblur plan: out of memory");
        }
        int reach = (c->ra > c->ca ? c->ra : c->ca) - 1 + f->decay[q];
        if (reach > margin)
            margin = reach;
    }
    p->margin = exact ? 0 : margin;
    snprintf(p->backend_name, sizeof p->backend_name, "cpu (%d thread%s, wavefront)",
             rb_context_thread_count(ctx), rb_context_thread_count(ctx) == 1 ? "" : "s");
    *out = p;
    return RB_OK;
}

int rb_deblur_plan_margin(const rb_deblur_plan *p) { return p ? p->margin : -1; }
const char *rb_deblur_plan_backend_name(const rb_deblur_plan *p) { return p ? p->backend_name : ""; }

/* Index of the boundary extension; -1 for "outside, use the constant". */
static long ext_index(long k, long n, rb_boundary_mode mode)
{
    if (k >= 0 && k < n)
        return k;
    switch (mode) {
    case RB_BOUNDARY_CLAMP:
        return k < 0 ? 0 : n - 1;
    case RB_BOUNDARY_PERIODIC:
        k %= n;
        return k < 0 ? k + n : k;
    case RB_BOUNDARY_MIRROR:
        k %= 2 * n;
        if (k < 0)
            k += 2 * n;
        return k < n ? k : 2 * n - 1 - k;
    default:
        return -1;
    }
}

typedef struct {
    const quad_coef *c;
    const float *X;
    float *Y;
    long Wp, Hp, Z;              /* buffer sides; Z = guard */
    int strip_w, nstrips;
    atomic_long *progress;       /* rows (absolute buffer index) completed per strip */
    atomic_int next;             /* next unclaimed strip */
} wave;

static void run_row(const wave *w, long i, long j0, long j1)
{
    const quad_coef *c = w->c;
    const long Wp = w->Wp;
    for (long j = j0; j < j1; j++) {
        double s = 0.0;
        for (int r1 = 0; r1 < c->ra; r1++) {
            const float *x = w->X + (i - r1) * Wp + j - (c->ca - 1);
            const float *a = c->a + r1 * c->ca;
            float t = 0.f;
            for (int r2 = 0; r2 < c->ca; r2++)
                t += a[r2] * x[r2];
            s += t;
        }
        for (int k1 = 0; k1 < c->rb; k1++) {
            const float *y = w->Y + (i - k1) * Wp + j - (c->cb - 1);
            const float *b = c->b + k1 * c->cb;
            float t = 0.f;
            /* row k1 = 0 stops before the origin (y(i,j) itself is not yet known) */
            int n = k1 ? c->cb : c->cb - 1;
            for (int k2 = 0; k2 < n; k2++)
                t += b[k2] * y[k2];
            s += t;
        }
        w->Y[i * Wp + j] = (float)s;
    }
}

static void *wave_main(void *arg)
{
    wave *w = arg;
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
            run_row(w, i, j0, j1);
            atomic_store_explicit(&w->progress[s], i + 1, memory_order_release);
        }
        (void)avail;
    }
    return NULL;
}

rb_status rb_deblur_execute(rb_deblur_plan *p, const rb_image *in, rb_image *out)
{
    if (!p)
        return RB_ERR_NULL;
    rb_context *ctx = p->ctx;
    rb_status st = rb_image_check(ctx, in, p->width, p->height, p->channels, "deblur input");
    if (st == RB_OK)
        st = rb_image_check(ctx, out, p->width, p->height, p->channels, "deblur output");
    if (st != RB_OK)
        return st;
    if (in->memory != RB_MEMORY_HOST || out->memory != RB_MEMORY_HOST)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "deblur: images must be in host memory (the CUDA "
                                                 "back end for the quadrant filter is not written yet)");
    if (in->format == RB_F64 || out->format == RB_F64)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "deblur: F64 images are not supported (U8, U16, F32)");

    const long W = p->width, H = p->height, ch = p->channels, P = p->margin;
    int maxr = 1;
    for (int q = 0; q < 4; q++) {
        const quad_coef *c = &p->qc[q];
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
    if (!work || !acc || !X || !Y || !progress) {
        free(work), free(acc), free(X), free(Y), free(progress);
        return rb_error(ctx, RB_ERR_NOMEM, "deblur: out of memory for a %ldx%ld image", W, H);
    }
    rb_pixels_load(in, work, 0);
    float cval[4] = {0, 0, 0, 0};
    if (p->boundary.mode == RB_BOUNDARY_CONSTANT)
        rb_pixel_constant(p->boundary.value, (int)ch, in->alpha, 0, cval);

    int nt = rb_context_thread_count(ctx);
    if (nt > nstrips)
        nt = nstrips;
    if (nt > 256)
        nt = 256;
    pthread_t tid[256];
    rb_status result = RB_OK;
    int tasks = (int)ch * 4, done = 0;
    for (long cc = 0; cc < ch && result == RB_OK; cc++)
        for (int q = 0; q < 4 && result == RB_OK; q++) {
            const int si = rb_deblur_si(q), sj = rb_deblur_sj(q);
            /* Extended input, flipped so this quadrant scans from the top-left. */
            for (long i = 0; i < P + H; i++) {
                long ci = i - P, row = si > 0 ? ci : H - 1 - ci;
                long ri = ext_index(row, H, p->boundary.mode);
                float *xr = X + (Z + i) * Wp + Z;
                for (long j = 0; j < P + W; j++) {
                    long cj = j - P, col = sj > 0 ? cj : W - 1 - cj;
                    long rj = ext_index(col, W, p->boundary.mode);
                    xr[j] = (ri < 0 || rj < 0) ? cval[cc] : work[(ri * W + rj) * ch + cc];
                }
            }
            wave w = {&p->qc[q], X, Y, Wp, Hp, Z, strip_w, nstrips, progress, 0};
            for (int s = 0; s < nstrips; s++)
                atomic_init(&progress[s], Z);
            atomic_init(&w.next, 0);
            int started = 0;
            for (int t = 1; t < nt; t++) {
                if (pthread_create(&tid[t], NULL, wave_main, &w) != 0)
                    break;  /* fewer helpers: still correct, see wave_main */
                started = t;
            }
            wave_main(&w);
            for (int t = 1; t <= started; t++)
                pthread_join(tid[t], NULL);
            for (long i = 0; i < H; i++) {
                long row = si > 0 ? i : H - 1 - i;
                const float *yr = Y + (Z + P + i) * Wp + Z + P;
                for (long j = 0; j < W; j++) {
                    long col = sj > 0 ? j : W - 1 - j;
                    acc[(row * W + col) * ch + cc] += yr[j];
                }
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
    return result;
}
