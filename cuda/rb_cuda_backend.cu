/* The CUDA back end: rb_backend_ops for the engine. Device buffers are made
 * at plan time (FFTW/cuFFT style). Execute runs the tiled solver
 * (rb_cuda_fused.cu) on both axes of the row-major image: float32 data needing
 * no conversion is read from the caller's buffer and written to it directly;
 * other formats go through one load / store pass. Filters the tiled solver
 * does not cover (order 0, long FIRs) take the older route: load, the blocked
 * column solver, transpose, the row solver, transpose back, store.
 * Host images go through pinned staging (rb_cuda_staging.h); on the way out the
 * row pass runs in strips so the download of one overlaps the filtering of the next. */
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_staging.h"
extern "C" {
#include "deblur_internal.h"  /* rb_cuda_deblur_run, the deblur entry */
#include "pixel_convert.h"
}
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* rb_cuda_fused.cu: the column final stage fused with the row stage 1 */
extern "C" int rb_cuda_fz_fusable(const rb_cuda_fz *fc, const rb_cuda_fz *fr);
/* force: RECBLUR_CUDA_FUSE (RB_FORCE_*), read at each execute (the benchmark times both) */
extern "C" int rb_cuda_fz_fuse_want(const rb_cuda_fz *fc, const rb_cuda_fz *fr, int force);
extern "C" cudaError_t rb_cuda_solve_fused_cols(const rb_cuda_fz *fc, const rb_cuda_fz *fr, const float *in,
                                                float *mid, float *ccarry, float *rcarry, size_t lanes,
                                                size_t rlanes, cudaStream_t s, cudaEvent_t *ev);
extern "C" cudaError_t rb_cuda_solve_fused_rows(const rb_cuda_fz *fr, const float *mid, float *out, float *rcarry,
                                                size_t rlanes, cudaStream_t s, cudaEvent_t *ev);

/* where the row carries start in the scratch when the fused route runs: after
 * the column carries (rounded to 8 bytes), so both live at once */
static size_t rb_cuda_fuse_off(const rb_plan *plan)
{
    return (rb_cuda_fz_carry(&plan->cols, &plan->ctx->sw) * (size_t)plan->width * (size_t)plan->channels + 1) & ~(size_t)1;
}


#define RB_CU(call, what)                                                               \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            st = rb_error(ctx, RB_ERR_DEVICE, "cuda: %s: %s", what,            \
                          cudaGetErrorString(e_));                                      \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

static rb_status rb_cuda_probe(char *why, size_t why_len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        if (why && why_len) snprintf(why, why_len, "no CUDA device: cudaGetDeviceCount: %s",
                                     cudaGetErrorString(e));
        cudaGetLastError();  /* clear the sticky-free error state */
        return RB_ERR_BACKEND;
    }
    if (count == 0) {
        if (why && why_len) snprintf(why, why_len, "no CUDA device: cudaGetDeviceCount found 0 devices");
        return RB_ERR_BACKEND;
    }
    if (why && why_len) snprintf(why, why_len, "%d CUDA device%s", count, count > 1 ? "s" : "");
    return RB_OK;
}

/* Longest explicit extension (rb_axis_plan.padded) the solvers keep exact:
 * they filter it in float storage, which loses accuracy over very long
 * extensions (sigma 2000 on 37x29: 3e-3 rel RMS on the H100; sigma <= 683,
 * pad <= 12198, stays at 1e-6). */
#define RB_CUDA_MAX_PAD 12288

/* The back end's route predicate (rb_backend_ops.can_run): no usable GPU is a
 * no; work it runs less exactly or slower than the CPU is an `avoid` (auto
 * goes to the CPU and logs why; --backend cuda runs it):
 *  - 2D filters whose padded route extends past RB_CUDA_MAX_PAD;
 *  - 2D FIRs longer than the tiled solver takes (RB_FZ_TAPS): the blocked
 *    solver would take them, and it loses digits on ill-conditioned filters
 *    (docs/RELIABILITY.md);
 *  - summed-area tables and 1D signals in host memory: the copies over the
 *    bus cost more than the CPU's one pass. */
static rb_route_verdict rb_cuda_can_run(const rb_route_request *req, char *why, size_t why_len)
{
    char probe[200] = "";
    if (rb_cuda_probe(probe, sizeof probe) != RB_OK) {
        snprintf(why, why_len, "no GPU is usable: %s", probe);
        return RB_ROUTE_NO;
    }
    why[0] = 0;
    const bool device = req->memory == RB_MEMORY_DEVICE || (req->in && req->in->memory == RB_MEMORY_DEVICE) ||
                        (req->out && req->out->memory == RB_MEMORY_DEVICE);
    switch (req->work) {
    case RB_WORK_FILTER_2D: {
        int pad = 0, taps = 0;
        for (int a = 0; a < 2; ++a) {
            const rb_axis_plan *ap = a ? &req->plan->rows : &req->plan->cols;
            if (!ap->ax.active) continue;
            if (ap->padded && ap->pad > pad) pad = ap->pad;
            const int t = ap->ax.fir ? ap->ax.fir_hi - ap->ax.fir_lo + 1 : 0;
            if (t > taps) taps = t;
        }
        if (pad > RB_CUDA_MAX_PAD) {
            snprintf(why, why_len, "filter too wide for the GPU's float extension (%d samples padded)", pad);
            return RB_ROUTE_AVOID;
        }
        if (taps > RB_FZ_TAPS) {
            snprintf(why, why_len, "FIR of %d taps, more than the GPU's tiled solver takes (%d)", taps,
                     RB_FZ_TAPS);
            return RB_ROUTE_AVOID;
        }
        return RB_ROUTE_YES;
    }
    case RB_WORK_SAT:
    case RB_WORK_RECURRENCE_1D:
        if (!device) {
            snprintf(why, why_len, "%s in host memory: the copies to the GPU and back cost more than the "
                                   "cpu's one pass",
                     req->work == RB_WORK_SAT ? "image" : "signal");
            return RB_ROUTE_AVOID;
        }
        return RB_ROUTE_YES;
    case RB_WORK_DEBLUR:
        return RB_ROUTE_YES;
    }
    snprintf(why, why_len, "unknown work %d", (int)req->work);
    return RB_ROUTE_NO;
}

static void rb_cuda_state_free(rb_cuda_state *s)
{
    if (!s) return;
    rb_cuda_free(s->A);
    rb_cuda_free(s->B);
    rb_cuda_free(s->ybuf);
    rb_cuda_free(s->fir_x);
    rb_cuda_free(s->fir_y);
    free(s->fcol);
    free(s->frow);
    for (int i = 0; i < s->nev; ++i) cudaEventDestroy(s->ev[i]);
    if (s->stage) {
        rb_cuda_staging_fini(s->stage);
        free(s->stage);
    }
    if (s->stream) cudaStreamDestroy(s->stream);
    free(s);
}

static cudaError_t rb_cuda_upload_fir(const rb_axis *ax, float **out)
{
    *out = NULL;
    if (!ax->active || !ax->fir) return cudaSuccess;
    int n = ax->fir_hi - ax->fir_lo + 1;
    float tmp[RB_MAX_FIR_TAPS];
    for (int i = 0; i < n; ++i) tmp[i] = (float)ax->fir[i];
    cudaError_t e = rb_cuda_malloc((void **)out, (size_t)n * sizeof(float));
    if (e != cudaSuccess) return e;
    return cudaMemcpy(*out, tmp, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
}

static rb_status rb_cuda_plan_init(rb_plan *plan)
{
    rb_context *ctx = plan->ctx;
    rb_cuda_alloc_use(&ctx->sw);
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)calloc(1, sizeof *s);
    if (!s) return rb_error(ctx, RB_ERR_NOMEM, "cuda: out of host memory for the plan");
    cudaDeviceProp prop;
    size_t w = (size_t)plan->width, h = (size_t)plan->height, c = (size_t)plan->channels;
    size_t scratch = 0;
    RB_CU(cudaGetDevice(&s->device), "cudaGetDevice");
    RB_CU(cudaGetDeviceProperties(&prop, s->device), "cudaGetDeviceProperties");
    /* a blocking stream: it waits for the caller's work on the legacy default
     * stream (a pageable cudaMemcpy may return before its DMA lands; on a
     * non-blocking stream the filter read stale device input under load) */
    RB_CU(cudaStreamCreateWithFlags(&s->stream, cudaStreamDefault), "cudaStreamCreate");
    s->floats = w * h * c;
    s->naive = ctx->sw.cuda_solver == RB_CUDA_SOLVER_LANES;
    /* the tiled solver, where it covers both axes */
    {
        int want = ctx->sw.cuda_solver == RB_CUDA_SOLVER_TILED;
        int fc = 0, fr = 0;
        if (want) {
            s->fcol = (rb_cuda_fz *)calloc(1, sizeof *s->fcol);
            s->frow = (rb_cuda_fz *)calloc(1, sizeof *s->frow);
            if (!s->fcol || !s->frow) {
                st = rb_error(ctx, RB_ERR_NOMEM, "cuda: out of host memory for the plan");
                goto fail;
            }
            fc = plan->cols.ax.active ? rb_cuda_fz_init(&plan->cols, (int)c, 0, &ctx->sw, s->fcol) : 0;
            fr = plan->rows.ax.active ? rb_cuda_fz_init(&plan->rows, (int)c, 1, &ctx->sw, s->frow) : 0;
        }
        s->fused = want && fc == 0 && fr == 0;
        if (s->fused) {
            if (plan->cols.ax.active) {
                size_t t = rb_cuda_fz_carry(&plan->cols, &ctx->sw) * w * c;
                if (t > scratch) scratch = t;
            }
            if (plan->rows.ax.active) {
                size_t t = rb_cuda_fz_carry(&plan->rows, &ctx->sw) * h * c;
                if (t > scratch) scratch = t;
            }
            if (plan->cols.ax.active && plan->rows.ax.active && rb_cuda_fz_fusable(s->fcol, s->frow)) {
                /* the fused route keeps the column and the row carries at once */
                size_t t = rb_cuda_fuse_off(plan) + rb_cuda_fz_carry(&plan->rows, &ctx->sw) * h * c;
                if (t > scratch) scratch = t;
            }
            rb_log(ctx, "recblur: cuda solver: tiled (carries in one read, one chain per line, "
                        "one read + one write per axis)");
        } else {
            free(s->fcol);
            free(s->frow);
            s->fcol = s->frow = NULL;
            rb_log(ctx, "recblur: cuda solver: %s", s->naive ? "one thread per line (RECBLUR_CUDA_SOLVER=lanes)"
                        : want ? "blocked with transposes (filter not covered by the tiled solver: "
                                 "order 0, or more than 64 FIR taps)"
                               : "blocked with transposes (RECBLUR_CUDA_SOLVER=blocked)");
        }
    }
    /* the per-axis solvers' scratch, for rb_cuda_axis_pass: only the blocked route
     * (rb_cuda_execute_blocked) calls it (the 1D recurrence has its own scan), and
     * the blocked carries are doubles now, 4r/32 floats per sample and lane, more
     * than the tiled plans need: not sized for those */
    if (plan->cols.ax.active && !s->fused) {
        size_t t = (s->naive ? (size_t)rb_cuda_axis_scratch(&plan->cols) : rb_cuda_blk_carry(&plan->cols)) * w * c;
        if (t > scratch) scratch = t;
    }
    if (plan->rows.ax.active && !s->fused) {
        size_t t = (s->naive ? (size_t)rb_cuda_axis_scratch(&plan->rows) : rb_cuda_blk_carry(&plan->rows)) * h * c;
        if (t > scratch) scratch = t;
    }
    RB_CU(rb_cuda_malloc((void **)&s->A, s->floats * sizeof(float)), "cudaMalloc (image buffer)");
    RB_CU(rb_cuda_malloc((void **)&s->B, s->floats * sizeof(float)), "cudaMalloc (image buffer)");
    if (scratch)
        RB_CU(rb_cuda_malloc((void **)&s->ybuf, scratch * sizeof(float)), "cudaMalloc (solver scratch)");
    RB_CU(rb_cuda_upload_fir(&plan->cols.ax, &s->fir_y), "uploading FIR taps");
    RB_CU(rb_cuda_upload_fir(&plan->rows.ax, &s->fir_x), "uploading FIR taps");
    if (plan->cols.ax.active) rb_cuda_blk_init(&plan->cols, s->fir_y, (int)c, NULL, &s->bcol);
    if (plan->rows.ax.active) rb_cuda_blk_init(&plan->rows, s->fir_x, (int)c, NULL, &s->brow);
    /* pinned staging for host images: its settings now, its memory at the first
     * execute with a host image (rb_cuda_staging_ready) */
    if (rb_cuda_staging_wanted(&ctx->sw)) {
        s->stage = (rb_cuda_staging *)calloc(1, sizeof *s->stage);
        if (s->stage)
            rb_cuda_staging_config(s->stage, s->floats * sizeof(float), w * c * sizeof(float),
                                   rb_context_thread_count(ctx), &ctx->sw);
    }
    snprintf(plan->backend_name, sizeof plan->backend_name, "cuda (%.140s)", prop.name);
    plan->backend_state = s;
    return RB_OK;
fail:
    rb_cuda_state_free(s);
    return st;
}

static void rb_cuda_plan_fini(rb_plan *plan)
{
    rb_cuda_state_free((rb_cuda_state *)plan->backend_state);
    plan->backend_state = NULL;
}

/* One axis over `lanes` interleaved lines: in -> out (distinct buffers). */
cudaError_t rb_cuda_axis_pass(const rb_cuda_state *s, rb_cuda_blk *blk, const rb_axis_plan *ap,
                                     const float *fir, int c, const float *cval, const float *in,
                                     float *out, size_t lanes, cudaStream_t q)
{
    for (int k = 0; k < c && k < 4; ++k) blk->ax.cval[k] = cval[k];
    if (s->naive) {
        rb_cuda_axis ax;
        rb_cuda_axis_from_plan(ap, fir, c, cval, &ax);
        cudaError_t e = rb_cuda_solve_lanes(&ax, in, out, s->ybuf, lanes, q);
        return e != cudaSuccess ? e : rb_cuda_launch_check();
    }
    cudaError_t e = rb_cuda_solve_blocked(blk, in, out, s->ybuf, lanes, q);
    return e != cudaSuccess ? e : rb_cuda_launch_check();
}

static void rb_cuda_pixels_of(const rb_plan *plan, const rb_image *img, size_t pitch,
                              rb_cuda_pixels *p)
{
    p->width = plan->width;
    p->height = plan->height;
    p->channels = plan->channels;
    p->format = img->format;
    p->pitch = pitch;
    p->alpha = img->alpha;
    p->linear = plan->linear_light && img->srgb;
}

/* Strips of the last pass for a host output of `rawrow` bytes per row: about
 * RB_STAGE_STRIPS of them (or as set), whole 32-row tiles of the row solver, on
 * images large enough for the overlap to pay; one strip otherwise. More strips
 * hide more of the pass behind the download, but each pays the latency of the
 * solver's chain over the blocks of a row. */
static int rb_cuda_strips(const rb_plan *plan, const rb_cuda_staging *sg, size_t rawrow, size_t *strip_rows)
{
    size_t h = (size_t)plan->height;
    int want = sg->strips ? sg->strips : rawrow * h >= RB_STAGE_OVERLAP_BYTES ? RB_STAGE_STRIPS : 1;
    *strip_rows = h;
    if (h < 64 || want < 2 || rawrow * h < 2 * sg->slot_bytes) return 1;
    size_t sr = (h + want - 1) / want;
    sr = (sr + 31) & ~(size_t)31;
    *strip_rows = sr;
    return (int)((h + sr - 1) / sr);
}

/* Column bands of a float32 host input (the upload of band b + 1 overlaps the
 * column pass of band b): RB_STAGE_BANDS of them (or as set), whole warps of
 * lanes (32 pixels), on images large enough for it to pay; one otherwise. */
static int rb_cuda_bands(const rb_plan *plan, const rb_cuda_staging *sg, size_t *band)
{
    const size_t w = (size_t)plan->width, row = w * plan->channels * sizeof(float);
    const size_t bytes = row * plan->height;
    int want = sg->bands ? sg->bands : bytes >= RB_STAGE_OVERLAP_BYTES ? RB_STAGE_BANDS : 1;
    *band = w;
    if (w < 64 || want < 2 || bytes < 2 * sg->slot_bytes) return 1;
    size_t bw = (w + want - 1) / want;
    bw = (bw + 31) & ~(size_t)31;
    *band = bw;
    return (int)((w + bw - 1) / bw);
}

/* A packed float image, final on the compute stream q, to the host output:
 * stored into `raw` (a free device buffer) when the format needs it, then
 * through the staging as one strip. */
static cudaError_t rb_cuda_host_out(const rb_plan *plan, rb_cuda_state *s, const float *cur, float *raw,
                                    const rb_image *out, int plain, cudaStream_t q)
{
    const size_t rawrow = (size_t)plan->width * plan->channels * rb_format_size(out->format);
    const void *src = cur;
    cudaError_t e;
    if (!plain) {
        rb_cuda_pixels pout;
        rb_cuda_pixels_of(plan, out, rawrow, &pout);
        if ((e = rb_cuda_store(&pout, cur, raw, q)) != cudaSuccess) return e;
        if ((e = rb_cuda_launch_check()) != cudaSuccess) return e;
        src = raw;
    }
    if ((e = cudaEventRecord(s->stage->strip_done[0], q)) != cudaSuccess) return e;
    return rb_cuda_stage_down(s->stage, out->data, rb_image_stride(out), src, rawrow, rawrow,
                              (size_t)plan->height, (size_t)plan->height, s->stage->strip_done, 1);
}

/* Progress and cancel between the passes (the GPU passes take milliseconds, so
 * a few reports suffice). The stream is drained first so the fraction is true;
 * a cancel returns before anything is written to the caller's output. */
#define RB_CU_PROGRESS(fraction)                                                        \
    do {                                                                                \
        if (ctx->progress) {                                                            \
            RB_CU(cudaStreamSynchronize(q), "running the filter");                      \
            if (ctx->progress((fraction), ctx->progress_user)) {                        \
                st = rb_error(ctx, RB_ERR_CANCELLED,                                    \
                              "filtering cancelled by the progress callback");          \
                goto fail;                                                              \
            }                                                                           \
        }                                                                               \
    } while (0)

static rb_status rb_cuda_execute_blocked(rb_plan *plan, const rb_image *in, rb_image *out)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    const int w = plan->width, h = plan->height, c = plan->channels;
    cudaStream_t q = s->stream;
    rb_cuda_pixels pin, pout;
    float *cur;
    float ccol[4] = {0, 0, 0, 0}, crow[4] = {0, 0, 0, 0};
    RB_CU(cudaSetDevice(s->device), "cudaSetDevice");

    /* 1. samples in: device images are read in place, host images through B */
    {
        size_t row = (size_t)w * c * rb_format_size(in->format);
        size_t stride = rb_image_stride(in);
        const void *raw = in->data;
        size_t pitch = stride;
        if (in->memory == RB_MEMORY_HOST) {
            RB_CU(rb_cuda_stage_up(s->stage, s->B, row, in->data, stride, row, (size_t)h, q),
                  "copying the input to the device");
            if (s->stage) RB_CU(cudaStreamWaitEvent(q, s->stage->up_done, 0), "copying the input to the device");
            raw = s->B;
            pitch = row;
        }
        rb_cuda_pixels_of(plan, in, pitch, &pin);
        RB_CU(rb_cuda_load(&pin, raw, s->A, q), "loading samples");
    }
    cur = s->A;
    RB_CU_PROGRESS(0.1);
    /* constant boundary in working units per channel (decoded, premultiplied);
     * the row pass sees it through the column pass's DC gain (FORMULAS.md, 2D) */
    rb_plan_constants(plan, in, ccol, crow);

    /* 2. columns (lanes = w * c, line length h): cur -> other */
    if (plan->cols.ax.active) {
        float *other = cur == s->A ? s->B : s->A;
        RB_CU(rb_cuda_axis_pass(s, &s->bcol, &plan->cols, s->fir_y, c, ccol, cur, other, (size_t)w * c, q),
              "column pass");
        cur = other;
    }
    RB_CU_PROGRESS(0.4);
    /* 3. rows: transpose (w x h), solve lanes = h * c, transpose back */
    if (plan->rows.ax.active) {
        float *other = cur == s->A ? s->B : s->A;
        RB_CU(rb_cuda_transpose(cur, other, w, h, c, q), "transpose");
        RB_CU(rb_cuda_axis_pass(s, &s->brow, &plan->rows, s->fir_x, c, crow, other, cur, (size_t)h * c, q),
              "row pass");
        RB_CU(rb_cuda_transpose(cur, other, h, w, c, q), "transpose");
        cur = other;
    }

    RB_CU_PROGRESS(0.8);
    /* 4. samples out */
    {
        size_t row = (size_t)w * c * rb_format_size(out->format);
        size_t stride = rb_image_stride(out);
        if (out->memory == RB_MEMORY_HOST && s->stage) {
            RB_CU(rb_cuda_host_out(plan, s, cur, cur == s->A ? s->B : s->A, out, 0, q),
                  "copying the output to the host");
        } else if (out->memory == RB_MEMORY_HOST) {
            float *other = cur == s->A ? s->B : s->A;
            rb_cuda_pixels_of(plan, out, row, &pout);
            RB_CU(rb_cuda_store(&pout, cur, other, q), "storing samples");
            RB_CU(cudaMemcpy2DAsync(out->data, stride, other, row, row, (size_t)h,
                                    cudaMemcpyDeviceToHost, q), "copying the output to the host");
        } else {
            rb_cuda_pixels_of(plan, out, stride, &pout);
            RB_CU(rb_cuda_store(&pout, cur, out->data, q), "storing samples");
        }
    }
    RB_CU(cudaStreamSynchronize(q), "running the filter");
    if (ctx->progress) ctx->progress(1.0, ctx->progress_user);
    return RB_OK;
fail:
    cudaStreamSynchronize(q);
    rb_cuda_staging_drain(s->stage);
    return st;
}

/* Float32 samples that need no decoding (no sRGB, no straight alpha) and a
 * float-aligned stride: the solver reads or writes them in place. */
static int rb_cuda_plain_f32(const rb_plan *plan, const rb_image *img)
{
    return img->format == RB_F32 && img->alpha != RB_ALPHA_STRAIGHT &&
           !(plan->linear_light && img->srgb) && rb_image_stride(img) % sizeof(float) == 0;
}

/* RECBLUR_CUDA_PROFILE=1: events between the steps, times sent to the log */
static int rb_cuda_profile_on(const rb_context *ctx, rb_cuda_state *s)
{
    if (!ctx->sw.cuda_profile) return 0;
    while (s->nev < 10) {
        if (cudaEventCreate(&s->ev[s->nev]) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        s->nev++;
    }
    return 1;
}

static rb_status rb_cuda_execute_fused(rb_plan *plan, const rb_image *in, rb_image *out)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    const int w = plan->width, h = plan->height, c = plan->channels;
    const long long packed = (long long)w * c;
    const size_t row = (size_t)w * c * sizeof(float);
    cudaStream_t q = s->stream;
    rb_cuda_pixels pin, pout;
    const float *cur;
    long long cur_ld = packed;
    int done = 0;
    float ccol[4] = {0, 0, 0, 0}, crow[4] = {0, 0, 0, 0};
    const int prof = rb_cuda_profile_on(ctx, s);
    cudaEvent_t *ev = s->ev;
    size_t band = (size_t)w;
    const int nbands = in->memory == RB_MEMORY_HOST && s->stage && !prof && !ctx->progress &&
                               plan->cols.ax.active && rb_cuda_plain_f32(plan, in)
                           ? rb_cuda_bands(plan, s->stage, &band)
                           : 1;
    /* the column final stage also makes the row carries (rb_cuda_fused.cu), except
     * where the rows go in strips to a host image or the columns in bands */
    const int fuse2 = nbands == 1 && plan->cols.ax.active && plan->rows.ax.active &&
                      !(out->memory == RB_MEMORY_HOST && s->stage && !prof) &&
                      rb_cuda_fz_fuse_want(s->fcol, s->frow, ctx->sw.cuda_fuse);
    float *rcarry = fuse2 ? s->ybuf + rb_cuda_fuse_off(plan) : NULL;
    RB_CU(cudaSetDevice(s->device), "cudaSetDevice");
    if (prof) cudaEventRecord(ev[0], q);
    rb_plan_constants(plan, in, ccol, crow);

    if (nbands > 1) {
        /* 1 + 2 overlapped: a float32 host image goes up in column bands, and
         * the column pass of band b runs while band b + 1 goes up (columns are
         * independent in this pass: a band is the same pass on fewer lanes from
         * an offset base) */
        rb_cuda_fz *f = s->fcol;
        const size_t stride = rb_image_stride(in);
        for (int k = 0; k < c; ++k) f->b.ax.cval[k] = ccol[k];
        f->ld = packed;
        f->ld_out = packed;
        for (int b = 0; b < nbands; ++b) {
            const size_t x0 = (size_t)b * band, bw = (size_t)w - x0 < band ? (size_t)w - x0 : band;
            RB_CU(rb_cuda_stage_up(s->stage, s->A + x0 * c, row, (const unsigned char *)in->data + x0 * c * sizeof(float),
                                   stride, bw * c * sizeof(float), (size_t)h, q),
                  "copying the input to the device");
            RB_CU(cudaStreamWaitEvent(q, s->stage->up_done, 0), "copying the input to the device");
            RB_CU(rb_cuda_solve_fused(f, s->A + x0 * c, s->B + x0 * c, s->ybuf, bw * c, q, NULL), "column pass");
            RB_CU(rb_cuda_launch_check(), "column pass");
        }
        cur = s->B;
    } else {
        /* 1. samples in */
        if (in->memory == RB_MEMORY_HOST) {
            size_t stride = rb_image_stride(in), rawrow = (size_t)w * c * rb_format_size(in->format);
            const int plain = rb_cuda_plain_f32(plan, in);
            /* raw rows go up as they are (a quarter of the bytes for u8), decoded on the device */
            RB_CU(rb_cuda_stage_up(s->stage, plain ? s->A : s->B, rawrow, in->data, stride, rawrow, (size_t)h, q),
                  "copying the input to the device");
            if (s->stage) RB_CU(cudaStreamWaitEvent(q, s->stage->up_done, 0), "copying the input to the device");
            if (!plain) {
                rb_cuda_pixels_of(plan, in, rawrow, &pin);
                RB_CU(rb_cuda_load(&pin, s->B, s->A, q), "loading samples");
            }
            cur = s->A;
        } else if (rb_cuda_plain_f32(plan, in)) {
            cur = (const float *)in->data;
            cur_ld = (long long)(rb_image_stride(in) / sizeof(float));
        } else {
            rb_cuda_pixels_of(plan, in, rb_image_stride(in), &pin);
            RB_CU(rb_cuda_load(&pin, in->data, s->A, q), "loading samples");
            cur = s->A;
        }
        if (prof) cudaEventRecord(ev[1], q);
        RB_CU_PROGRESS(0.1);

        /* 2. columns: cur -> a scratch image */
        if (plan->cols.ax.active) {
            float *dst = cur == s->A ? s->B : s->A;
            rb_cuda_fz *f = s->fcol;
            for (int k = 0; k < c; ++k) f->b.ax.cval[k] = ccol[k];
            f->ld = cur_ld;
            f->ld_out = packed;
            if (fuse2) {
                /* the row pass's parameters before the row stage 1 runs (on the column output) */
                for (int k = 0; k < c; ++k) s->frow->b.ax.cval[k] = crow[k];
                s->frow->ld = packed;
                s->frow->ld_out = packed;
            }
            if (fuse2)
                RB_CU(rb_cuda_solve_fused_cols(f, s->frow, cur, dst, s->ybuf, rcarry, (size_t)w * c, (size_t)h * c, q,
                                               prof ? ev + 2 : NULL),
                      "column pass");
            else
                RB_CU(rb_cuda_solve_fused(f, cur, dst, s->ybuf, (size_t)w * c, q, prof ? ev + 2 : NULL), "column pass");
            RB_CU(rb_cuda_launch_check(), "column pass");
            cur = dst;
            cur_ld = packed;
        } else if (prof) {
            for (int i = 2; i < 5; ++i) cudaEventRecord(ev[i], q);
        }
    }  /* bands */
    RB_CU_PROGRESS(0.4);
    /* 3. rows: cur -> the caller's buffer when it takes float32 as is; to a host
     * image through the staging, strip by strip: the download of strip j
     * overlaps the filtering of strip j + 1 (rows are independent in this pass:
     * a strip is the same pass on fewer lanes from an offset base) */
    if (plan->rows.ax.active && out->memory == RB_MEMORY_HOST && s->stage && !prof) {
        RB_CU_PROGRESS(0.6);  /* the last report before the caller's output is written */
        rb_cuda_fz *f = s->frow;
        const int plain = rb_cuda_plain_f32(plan, out);
        const size_t rawrow = (size_t)w * c * rb_format_size(out->format);
        float *dst = cur == s->A ? s->B : s->A;
        /* stored samples of strip j go over its own, already read input rows of
         * cur (a raw row is never longer than a float row); a caller's device
         * input is never written: then the other scratch image takes them */
        float *raw = plain ? dst : (cur == s->A || cur == s->B) ? (float *)cur : dst == s->A ? s->B : s->A;
        size_t strip_rows;
        const int nstrips = rb_cuda_strips(plan, s->stage, rawrow, &strip_rows);
        for (int k = 0; k < c; ++k) f->b.ax.cval[k] = crow[k];
        f->ld = cur_ld;
        f->ld_out = packed;
        rb_cuda_pixels_of(plan, out, rawrow, &pout);
        for (int j = 0; j < nstrips; ++j) {
            const size_t y0 = (size_t)j * strip_rows;
            const size_t n = (size_t)h - y0 < strip_rows ? (size_t)h - y0 : strip_rows;
            float *d = dst + y0 * (size_t)packed;
            RB_CU(rb_cuda_solve_fused(f, cur + y0 * (size_t)cur_ld, d, s->ybuf, n * c, q, NULL), "row pass");
            RB_CU(rb_cuda_launch_check(), "row pass");
            if (!plain) {
                pout.height = (int)n;
                RB_CU(rb_cuda_store(&pout, d, (unsigned char *)raw + y0 * rawrow, q), "storing samples");
                RB_CU(rb_cuda_launch_check(), "storing samples");
            }
            RB_CU(cudaEventRecord(s->stage->strip_done[j], q), "row pass");
        }
        RB_CU(rb_cuda_stage_down(s->stage, out->data, rb_image_stride(out), plain ? (const void *)dst : raw,
                                 rawrow, rawrow, (size_t)h, strip_rows, s->stage->strip_done, nstrips),
              "copying the output to the host");
        done = 1;
    } else if (plan->rows.ax.active) {
        rb_cuda_fz *f = s->frow;
        float *dst;
        long long dst_ld = packed;
        if (out->memory == RB_MEMORY_DEVICE && rb_cuda_plain_f32(plan, out) && out->data != (const void *)cur) {
            dst = (float *)out->data;
            dst_ld = (long long)(rb_image_stride(out) / sizeof(float));
            done = 1;
        } else {
            dst = cur == s->A ? s->B : s->A;
        }
        for (int k = 0; k < c; ++k) f->b.ax.cval[k] = crow[k];
        f->ld = cur_ld;
        f->ld_out = dst_ld;
        if (fuse2)
            RB_CU(rb_cuda_solve_fused_rows(f, cur, dst, rcarry, (size_t)h * c, q, prof ? ev + 5 : NULL), "row pass");
        else
            RB_CU(rb_cuda_solve_fused(f, cur, dst, s->ybuf, (size_t)h * c, q, prof ? ev + 5 : NULL), "row pass");
        RB_CU(rb_cuda_launch_check(), "row pass");
        cur = dst;
        cur_ld = dst_ld;
    } else if (prof) {
        for (int i = 5; i < 8; ++i) cudaEventRecord(ev[i], q);
    }

    /* 4. samples out */
    if (!done) {
        RB_CU_PROGRESS(0.8);
        if (cur_ld != packed) { /* no axis ran: the caller's pitched input, packed first */
            RB_CU(cudaMemcpy2DAsync(s->A, row, cur, (size_t)cur_ld * sizeof(float), row, (size_t)h,
                                    cudaMemcpyDeviceToDevice, q), "copying samples");
            cur = s->A;
        }
        size_t stride = rb_image_stride(out), rawrow = (size_t)w * c * rb_format_size(out->format);
        if (out->memory == RB_MEMORY_HOST && s->stage) {
            RB_CU(rb_cuda_host_out(plan, s, cur, cur == s->A ? s->B : s->A, out, rb_cuda_plain_f32(plan, out), q),
                  "copying the output to the host");
        } else if (out->memory == RB_MEMORY_HOST) {
            const void *src = cur;
            if (!rb_cuda_plain_f32(plan, out)) {
                float *other = cur == s->A ? s->B : s->A;
                rb_cuda_pixels_of(plan, out, rawrow, &pout);
                RB_CU(rb_cuda_store(&pout, cur, other, q), "storing samples");
                src = other;
            }
            RB_CU(cudaMemcpy2DAsync(out->data, stride, src, rawrow, rawrow, (size_t)h,
                                    cudaMemcpyDeviceToHost, q), "copying the output to the host");
        } else {
            rb_cuda_pixels_of(plan, out, stride, &pout);
            RB_CU(rb_cuda_store(&pout, cur, out->data, q), "storing samples");
        }
    }
    if (prof) cudaEventRecord(ev[8], q);
    RB_CU(cudaStreamSynchronize(q), "running the filter");
    if (prof) {
        float t[8];
        for (int i = 0; i < 8; ++i) {
            t[i] = 0.0f;
            cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
        }
        rb_log(ctx, "recblur: cuda steps (ms): in %.4f | columns: stage1 %.4f chain %.4f final %.4f | "
                    "rows: stage1 %.4f chain %.4f final %.4f | out %.4f",
               t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
    }
    if (ctx->progress) ctx->progress(1.0, ctx->progress_user);
    return RB_OK;
fail:
    cudaStreamSynchronize(q);
    rb_cuda_staging_drain(s->stage);
    return st;
}

/* Pinned staging for host images, allocated at the first execute that has one
 * (a plan used only with device pointers, or for a 1D signal, pins nothing: at
 * 2^28 samples the three slots took a second to pin). Without it
 * (RECBLUR_CUDA_STAGING=off at plan time, or no pinned memory to be had) host
 * images are copied from pageable memory, slower but the same result. */
static void rb_cuda_staging_ready(rb_plan *plan, rb_cuda_state *s)
{
    if (!s->stage || s->stage_tried)
        return;
    s->stage_tried = 1;
    cudaError_t e = cudaSetDevice(s->device); /* the staging's events belong to the plan's device */
    if (e == cudaSuccess)
        e = rb_cuda_staging_alloc(s->stage);
    if (e != cudaSuccess) {
        rb_log(plan->ctx, "recblur: cuda: no pinned staging buffers (%s): host images are copied "
                          "from pageable memory", cudaGetErrorString(e));
        free(s->stage);
        s->stage = NULL;
    }
}

static rb_status rb_cuda_execute(rb_plan *plan, const rb_image *in, rb_image *out)
{
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    rb_cuda_alloc_use(&plan->ctx->sw);
    if (in->memory == RB_MEMORY_HOST || out->memory == RB_MEMORY_HOST)
        rb_cuda_staging_ready(plan, s);
    return s->fused ? rb_cuda_execute_fused(plan, in, out) : rb_cuda_execute_blocked(plan, in, out);
}

static const rb_backend_ops rb_cuda_ops = {
    "cuda",
    rb_cuda_probe,
    rb_cuda_plan_init,
    rb_cuda_plan_fini,
    rb_cuda_execute,
    rb_cuda_sat,
    rb_cuda_recurrence_1d,  /* rb_cuda_recurrence.cu */
    rb_cuda_can_run,
    rb_cuda_deblur_run,     /* rb_cuda_deblur.cu */
};

extern "C" const rb_backend_ops *rb_backend_cuda(void) { return &rb_cuda_ops; }
