/* The multi-threaded CPU back end: image -> float working buffer, the exact
 * line solver on bundles of columns then bundles of rows, -> image.
 * Threads come from rb_parallel_for, created and joined inside each call (no pool,
 * no global state: ImageMagick unloads the module after every use). */
#include "cpu_sweep.h"
#include "line_solver.h"
#include "parallel.h"
#include "pixel_convert.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Target lanes per bundle, and the most scratch memory one worker may use. */
/* Columns: strips 16 RGB pixels wide; rows: 8 RGB rows side by side. A
 * bundle of 4096-sample lines (two double buffers) is then ~3 and ~1.6 MB:
 * 4096^2 RGB u8 on a 2-core EPYC (1 MB L2, 32 MB L3) ran 10-30 % faster
 * than with 128/64 lanes (noisy shared VM); narrower column strips lose
 * the sequential reads. */
#ifndef RB_CPU_COL_LANES
#define RB_CPU_COL_LANES 48
#endif
#ifndef RB_CPU_ROW_LANES
#define RB_CPU_ROW_LANES 24
#endif
#define RB_CPU_SCRATCH_BYTES ((size_t)32 << 20)
/* Most lanes in one bundle (unit * channels, units capped below). */
#define RB_CPU_MAX_BUNDLE 512

typedef struct {
    const rb_axis_plan *ap;
    float *img;                 /* working buffer, (y*W + x)*ch + c */
    size_t W, H;
    int ch;
    int rows;                   /* 0: column pass, 1: row pass */
    int unit;                   /* columns per strip / rows per group */
    rb_lane cval[RB_LINE_MAX_LANES];
    rb_line_layout lay;
    /* Direct 8/16-bit I/O (see direct_io_ok): the column pass gathers from
     * src instead of img, the row pass scatters into dst instead of img, so
     * the whole-image load and store passes disappear. NULL otherwise. */
    const rb_image *src;
    rb_image *dst;
} pass_desc;

/* Sample l of row i of an 8/16-bit image as rb_pixels_load makes it. */
static void gather_row(const rb_image *im, size_t i, size_t x0ch, size_t L, rb_lane *dst,
                       rb_lane *sum)
{
    const unsigned char *row = (const unsigned char *)im->data + i * rb_image_stride(im);
    if (im->format == RB_U8) {
        const unsigned char *s = row + x0ch;
        for (size_t l = 0; l < L; l++) {
            dst[l] = (float)s[l] / 255.0f;
            sum[l] += dst[l];
        }
    } else {
        const uint16_t *s = (const uint16_t *)row + x0ch;
        for (size_t l = 0; l < L; l++) {
            dst[l] = (float)s[l] / 65535.0f;
            sum[l] += dst[l];
        }
    }
}

/* One sample into an 8/16-bit image, rounded as rb_pixels_store does. */
static inline void put_sample(unsigned char *row, int fmt, size_t k, rb_lane r)
{
    float f = (float)r;
    if (fmt == RB_U8) {
        float v = f * 255.0f + 0.5f;
        v = v > 0.0f ? (v < 255.0f ? v : 255.0f) : 0.0f; /* NaN -> 0 */
        row[k] = (unsigned char)v;
    } else {
        float v = f * 65535.0f + 0.5f;
        v = v > 0.0f ? (v < 65535.0f ? v : 65535.0f) : 0.0f;
        ((uint16_t *)row)[k] = (uint16_t)v;
    }
}

typedef struct {
    const pass_desc *pd;
    long b0, b1;
    rb_lane *x, *w;
} worker;

/* Where a bundle's results go, row by row as the solver finishes them. */
typedef struct {
    const pass_desc *pd;
    size_t first, count; /* first column / row of the bundle, how many */
    const rb_lane *off;  /* per-lane constant to add (rb_line_solve_ex) */
} sink_ctx;

/* Column pass: result row i of a strip -> the float working image. */
static void sink_cols(void *user, ptrdiff_t i, const rb_lane *v)
{
    const sink_ctx *sc = user;
    const pass_desc *pd = sc->pd;
    const size_t L = sc->count * (size_t)pd->ch;
    float *dst = pd->img + ((size_t)i * pd->W + sc->first) * (size_t)pd->ch;
    for (size_t l = 0; l < L; l++)
        dst[l] = (float)(v[l] + sc->off[l]);
}

/* Row pass: result pixel i of each row of a group -> the output image (8/16
 * bit, direct I/O) or the float working image. */
static void sink_rows(void *user, ptrdiff_t i, const rb_lane *v)
{
    const sink_ctx *sc = user;
    const pass_desc *pd = sc->pd;
    const size_t ch = (size_t)pd->ch;
    if (pd->dst) {
        const size_t ostride = rb_image_stride(pd->dst);
        const int fmt = pd->dst->format;
        for (size_t g = 0; g < sc->count; g++) {
            unsigned char *row = (unsigned char *)pd->dst->data + (sc->first + g) * ostride;
            for (size_t c = 0; c < ch; c++)
                put_sample(row, fmt, (size_t)i * ch + c, v[g * ch + c] + sc->off[g * ch + c]);
        }
    } else {
        for (size_t g = 0; g < sc->count; g++) {
            float *dst = pd->img + ((sc->first + g) * pd->W + (size_t)i) * ch;
            for (size_t c = 0; c < ch; c++)
                dst[c] = (float)(v[g * ch + c] + sc->off[g * ch + c]);
        }
    }
}

static void run_bundle(const pass_desc *pd, long b, rb_lane *X, rb_lane *Wk)
{
    const size_t W = pd->W, H = pd->H, ch = (size_t)pd->ch, lead = (size_t)pd->lay.lead;
    /* per-lane sums taken while gathering, and the constant the solver
     * leaves to the scatter (rb_line_solve_ex): two sweeps fewer */
    rb_lane sum[RB_CPU_MAX_BUNDLE], off[RB_CPU_MAX_BUNDLE];
    for (int l = 0; l < RB_CPU_MAX_BUNDLE; l++)
        sum[l] = 0.0;
    if (!pd->rows) {
        size_t x0 = (size_t)b * pd->unit;
        size_t nc = W - x0 < (size_t)pd->unit ? W - x0 : (size_t)pd->unit;
        size_t L = nc * ch;
        if (pd->src)
            for (size_t i = 0; i < H; i++)
                gather_row(pd->src, i, x0 * ch, L, X + (lead + i) * L, sum);
        else
            for (size_t i = 0; i < H; i++) {
                const float *src = pd->img + (i * W + x0) * ch;
                rb_lane *dst = X + (lead + i) * L;
                for (size_t l = 0; l < L; l++) {
                    dst[l] = src[l];
                    sum[l] += dst[l];
                }
            }
        sink_ctx sc = {pd, x0, nc, off};
        rb_line_solve_ex(pd->ap, (int)L, X, Wk, pd->cval, sum, off, sink_cols, &sc);
    } else {
        size_t y0 = (size_t)b * pd->unit;
        size_t ng = H - y0 < (size_t)pd->unit ? H - y0 : (size_t)pd->unit;
        size_t L = ng * ch;
        /* Tiles of T pixels: each source row is read sequentially, the
         * scratch tile (T * L lanes) stays in L1. */
        enum { T = 32 };
        const float *base = pd->img + y0 * W * ch;
        for (size_t i0 = 0; i0 < W; i0 += T) {
            size_t i1 = i0 + T < W ? i0 + T : W;
            for (size_t g = 0; g < ng; g++) {
                const float *src = base + g * W * ch;
                rb_lane *dst = X + lead * L + g * ch;
                rb_lane *sg = sum + g * ch;
                for (size_t i = i0; i < i1; i++)
                    for (size_t c = 0; c < ch; c++) {
                        dst[i * L + c] = src[i * ch + c];
                        sg[c] += dst[i * L + c];
                    }
            }
        }
        sink_ctx sc = {pd, y0, ng, off};
        rb_line_solve_ex(pd->ap, (int)L, X, Wk, pd->cval, sum, off, sink_rows, &sc);
    }
}

/* Worker t runs its own run of bundles with its own scratch. */
static void worker_task(void *user, int t)
{
    worker *wk = (worker *)user + t;
    for (long b = wk->b0; b < wk->b1; b++)
        run_bundle(wk->pd, b, wk->x, wk->w);
}

/* Run bundles [b0, b1) split across nt workers (the caller is one of them). */
static void run_range(worker *wks, int nt, const pass_desc *pd, long b0, long b1)
{
    long cnt = b1 - b0;
    if (nt > cnt)
        nt = (int)(cnt > 0 ? cnt : 1);
    for (int t = 0; t < nt; t++) {
        wks[t].pd = pd;
        wks[t].b0 = b0 + cnt * t / nt;
        wks[t].b1 = b0 + cnt * (t + 1) / nt;
    }
    rb_parallel_for(nt, nt, worker_task, wks);
}

typedef struct {
    pass_desc pd;
    long nb;
    int active;
} pass_setup;

static size_t per_lane_floats(const rb_line_layout *lay)
{
    return (size_t)lay->in_len + (size_t)lay->work_len;
}

static void setup_pass(pass_setup *ps, const rb_axis_plan *ap, float *img, int W, int H, int ch,
                       int rows, const float *cval)
{
    memset(ps, 0, sizeof *ps);
    ps->active = ap->ax.active;
    if (!ps->active)
        return;
    pass_desc *pd = &ps->pd;
    pd->ap = ap;
    pd->img = img;
    pd->W = (size_t)W;
    pd->H = (size_t)H;
    pd->ch = ch;
    pd->rows = rows;
    rb_line_layout_get(ap, &pd->lay);
    size_t unit = (rows ? RB_CPU_ROW_LANES : RB_CPU_COL_LANES) / (size_t)ch;
    if (unit < 1)
        unit = 1;
    size_t pl = per_lane_floats(&pd->lay);
    size_t cap = RB_CPU_SCRATCH_BYTES / (pl * sizeof(rb_lane) * (size_t)ch);
    if (unit > cap)
        unit = cap < 1 ? 1 : cap;
    size_t lines = rows ? (size_t)H : (size_t)W;
    if (unit > lines)
        unit = lines;
    if (unit * (size_t)ch > RB_CPU_MAX_BUNDLE)
        unit = RB_CPU_MAX_BUNDLE / (size_t)ch;
    pd->unit = (int)unit;
    for (size_t l = 0; l < unit * (size_t)ch; l++)
        pd->cval[l] = cval[l % (size_t)ch];
    ps->nb = (long)((lines + unit - 1) / unit);
}

static rb_status cpu_execute(rb_plan *plan, const rb_image *in, rb_image *out)
{
    rb_context *ctx = plan->ctx;
    const int W = plan->width, H = plan->height, ch = plan->channels;
    size_t count = (size_t)W * (size_t)H * (size_t)ch;
    if (count / (size_t)W / (size_t)H != (size_t)ch || count > SIZE_MAX / sizeof(float))
        return rb_error(ctx, RB_ERR_SIZE, "image %dx%dx%d is too large for this machine", W, H, ch);
    float ccol[4], crow[4]; /* the constant boundary, per pass */
    rb_plan_constants(plan, in, ccol, crow);
    if (rb_cpu_sweep_ok(plan, in, out)) /* the fast route (cpu_sweep.c) */
        return rb_cpu_sweep_execute(plan, in, out, rb_context_thread_count(ctx), ccol, crow);
    /* A packed F32 output can be the working buffer itself, unless a progress
     * callback could cancel (the output must then stay untouched). */
    int direct = out->format == RB_F32 && out->memory == RB_MEMORY_HOST && !ctx->progress &&
                 rb_image_stride(out) == (size_t)W * (size_t)ch * sizeof(float) &&
                 out->alpha != RB_ALPHA_STRAIGHT && !(plan->linear_light && out->srgb) &&
                 (in->data != out->data ||
                  (in->format == RB_F32 && rb_image_stride(in) == rb_image_stride(out)));
    /* 8/16-bit in and out, nothing to decode or premultiply, both axes
     * filtered, no callback that could cancel after the output is touched:
     * convert inside the passes (read u8 once, write u8 once). */
    int dio = !direct && !ctx->progress && plan->cols.ax.active && plan->rows.ax.active &&
              (in->format == RB_U8 || in->format == RB_U16) &&
              (out->format == RB_U8 || out->format == RB_U16) && in->memory == RB_MEMORY_HOST &&
              out->memory == RB_MEMORY_HOST && in->alpha != RB_ALPHA_STRAIGHT &&
              out->alpha != RB_ALPHA_STRAIGHT && !(plan->linear_light && (in->srgb || out->srgb));
    float *img = direct ? (float *)out->data : malloc(count * sizeof(float));
    if (!img)
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a %dx%d working image (%zu MiB)", W, H,
                        (count * sizeof(float)) >> 20);

    pass_setup ps[2];
    setup_pass(&ps[0], &plan->cols, img, W, H, ch, 0, ccol);
    setup_pass(&ps[1], &plan->rows, img, W, H, ch, 1, crow);

    int nt = rb_context_thread_count(ctx);
    if (nt > 256)
        nt = 256;
    long maxnb = ps[0].nb > ps[1].nb ? ps[0].nb : ps[1].nb;
    if (nt > maxnb && maxnb > 0)
        nt = (int)maxnb;
    size_t scratch = 0;
    for (int p = 0; p < 2; p++)
        if (ps[p].active) {
            size_t s = per_lane_floats(&ps[p].pd.lay) * (size_t)ps[p].pd.unit * (size_t)ch;
            if (s > scratch)
                scratch = s;
        }
    /* at most 1 GiB of scratch in all: fewer threads on huge lines */
    while (nt > 1 && scratch * sizeof(rb_lane) * (size_t)nt > ((size_t)1 << 30))
        nt--;
    worker wks[256];
    rb_lane *mem = NULL;
    if (scratch) {
        mem = malloc(scratch * sizeof(rb_lane) * (size_t)nt);
        if (!mem) {
            if (!direct)
                free(img);
            return rb_error(ctx, RB_ERR_NOMEM, "out of memory for %d thread scratch buffers", nt);
        }
    }
    for (int t = 0; t < nt; t++)
        wks[t].x = mem + scratch * (size_t)t;

    if (dio) {
        ps[0].pd.src = in;
        ps[1].pd.dst = out;
    } else if (!direct || in->data != out->data || in->format != RB_F32 ||
        rb_image_stride(in) != rb_image_stride(out) || in->alpha == RB_ALPHA_STRAIGHT ||
        (plan->linear_light && in->srgb))
        rb_pixels_load_threads(in, img, plan->linear_light, nt);

    /* Chunks only matter for progress/cancel; without a callback one per pass. */
    int chunks = ctx->progress ? 8 : 1;
    long total = (ps[0].active ? ps[0].nb : 0) + (ps[1].active ? ps[1].nb : 0), done = 0;
    for (int p = 0; p < 2; p++) {
        if (!ps[p].active)
            continue;
        for (int t = 0; t < nt; t++)
            wks[t].w = wks[t].x + ps[p].pd.lay.in_len * (size_t)ps[p].pd.unit * (size_t)ch;
        for (int k = 0; k < chunks; k++) {
            long b0 = ps[p].nb * k / chunks, b1 = ps[p].nb * (k + 1) / chunks;
            if (b1 > b0)
                run_range(wks, nt, &ps[p].pd, b0, b1);
            done += b1 - b0;
            if (ctx->progress && ctx->progress(0.99 * (double)done / (double)total, ctx->progress_user)) {
                free(mem);
                free(img);
                return rb_error(ctx, RB_ERR_CANCELLED, "filtering cancelled by the progress callback");
            }
        }
    }
    free(mem);
    if (dio)
        free(img);
    else if (!direct) {
        rb_pixels_store_threads(img, out, plan->linear_light, nt);
        free(img);
    }
    if (ctx->progress)
        ctx->progress(1.0, ctx->progress_user);
    return RB_OK;
}

static rb_status cpu_probe(char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    return RB_OK;
}

/* The CPU runs every operation, on host memory only. */
static rb_route_verdict cpu_can_run(const rb_route_request *req, char *why, size_t why_len)
{
    const int device = req->memory == RB_MEMORY_DEVICE ||
                       (req->in && req->in->memory == RB_MEMORY_DEVICE) ||
                       (req->out && req->out->memory == RB_MEMORY_DEVICE);
    if (device) {
        if (why && why_len)
            snprintf(why, why_len, "device memory needs the cuda back end");
        return RB_ROUTE_NO;
    }
    if (why && why_len)
        why[0] = 0;
    return RB_ROUTE_YES;
}

static rb_status cpu_plan_init(rb_plan *plan)
{
    snprintf(plan->backend_name, sizeof plan->backend_name, "cpu (%d thread%s)",
             rb_context_thread_count(plan->ctx), rb_context_thread_count(plan->ctx) == 1 ? "" : "s");
    return RB_OK;
}

static void cpu_plan_fini(rb_plan *plan) { (void)plan; }

static rb_status cpu_recurrence_1d(rb_plan *plan, const float *in, float *out, size_t n,
                                   rb_memory mem)
{
    rb_context *ctx = plan->ctx;
    if (mem != RB_MEMORY_HOST)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "the cpu back end cannot read device memory");
    const rb_axis_plan *ap = &plan->rows;
    if (!ap->ax.active) {
        if (in != out)
            memmove(out, in, n * sizeof(float));
        return RB_OK;
    }
    rb_line_layout lay;
    rb_line_layout_get(ap, &lay);
    size_t total = (size_t)lay.in_len + (size_t)lay.work_len;
    rb_lane *buf = malloc(total * sizeof(rb_lane));
    if (!buf)
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a 1D signal of %zu samples", n);
    for (size_t i = 0; i < n; i++)
        buf[lay.lead + (long)i] = in[i];
    rb_lane cv = plan->boundary.value;
    const rb_lane *res = rb_line_solve(ap, 1, buf, lay.work_len ? buf + lay.in_len : NULL, &cv);
    for (size_t i = 0; i < n; i++)
        out[i] = (float)res[i];
    free(buf);
    return RB_OK;
}

rb_status rb_sat_cpu(rb_context *ctx, const rb_image *in, rb_image *out);

const rb_backend_ops rb_backend_cpu = {
    .name = "cpu",
    .probe = cpu_probe,
    .plan_init = cpu_plan_init,
    .plan_fini = cpu_plan_fini,
    .execute = cpu_execute,
    .sat = rb_sat_cpu,
    .recurrence_1d = cpu_recurrence_1d,
    .can_run = cpu_can_run,
    .deblur = NULL, /* deblur_cpu.c's own wavefront */
};
