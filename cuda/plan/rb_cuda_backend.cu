/* The CUDA back end: rb_backend_ops for the engine. Device buffers and the
 * tiled solver's per-axis parameters are made at plan time (FFTW/cuFFT
 * style); rb_cuda_execute.cu runs a 2D plan, rb_cuda_banded.cu one whose
 * whole-image buffers did not fit the device (in bands and strips). Filters the tiled solver does
 * not take (FIRs of more than RB_TILED_TAPS taps) are refused at plan time
 * with the reason: `auto` runs them on the CPU back end. */
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_check.h"
#include "rb_cuda_scan.cuh"  /* rb_cuda_rec1d_destroy: a 1D plan's kept scan tables */
#include "rb_cuda_staging.h"
extern "C" {
#include "deblur_internal.h"  /* rb_cuda_deblur_run, the deblur entry */
}
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* where the row carries start in the carry buffer when the fused route runs:
 * after the column carries (rounded to 8 bytes), so both live at once */
extern "C" size_t rb_cuda_fuse_off(const rb_plan *plan)
{
    return (rb_cuda_tiled_carry(&plan->cols, &plan->ctx->sw) * (size_t)plan->width * (size_t)plan->channels + 1) & ~(size_t)1;
}

#define RB_CU(call, what) RB_CU_CHECK(fail, "cuda", call, what)

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
 * pad <= 12198, stays at 1e-6). A periodic axis the tiled solver closes by
 * wrapping its chain (rb_cuda_tiled_wraps) runs no extension: it does not count. */
#define RB_CUDA_MAX_PAD 12288

/* The back end's route predicate (rb_backend_ops.can_run): no usable GPU, or
 * a 2D FIR longer than the tiled solver takes (no GPU solver runs it), is a
 * no; work it runs less exactly or slower than the CPU is an `avoid` (auto
 * goes to the CPU and logs why; --backend cuda runs it):
 *  - 2D filters whose padded route extends past RB_CUDA_MAX_PAD;
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
        int pad = 0;
        for (int a = 0; a < 2; ++a) {
            const rb_axis_plan *ap = a ? &req->plan->rows : &req->plan->cols;
            if (!ap->ax.active) continue;
            if (rb_cuda_tiled_covers(ap, why, why_len) != 0) return RB_ROUTE_NO;
            if (ap->padded && ap->pad > pad && !rb_cuda_tiled_wraps(ap, &req->plan->ctx->sw)) pad = ap->pad;
        }
        if (pad > RB_CUDA_MAX_PAD) {
            snprintf(why, why_len, "filter too wide for the GPU's float extension (%d samples padded)", pad);
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
    rb_cuda_free(s->carry);
    rb_cuda_free(s->piece[0]);
    if (s->host_mid_pinned) rb_cuda_free_host(s->host_mid);
    else free(s->host_mid);
    rb_cuda_rec1d_destroy(s->rec1d);
    rb_cuda_free(s->rec1d_work);
    free(s->col_axis);
    free(s->row_axis);
    for (int i = 0; i < s->nev; ++i) cudaEventDestroy(s->ev[i]);
    if (s->stage) {
        rb_cuda_staging_fini(s->stage);
        free(s->stage);
    }
    if (s->band_down) cudaStreamDestroy(s->band_down);
    if (s->stream) cudaStreamDestroy(s->stream);
    free(s);
}

/* Pinned staging for host images: its slots, streams, events and copy
 * threads, made once per plan. Slots of the usual size (at most
 * RB_STAGE_SLOT_BYTES) are made by the plan, so that the first execute pays
 * none of it (FFTW style: 6-18 ms on the H100 machine); slots of a very long
 * row (a 1D signal of 2^28 samples: three 1 GiB slots took a second to pin)
 * wait for the first execute with a host image, which a plan used only with
 * device pointers never runs. Without staging (RECBLUR_CUDA_STAGING=off at
 * plan time, or no pinned memory to be had) host images are copied from
 * pageable memory, slower but the same result. */
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
    /* the tiled solver on every active axis, or the reason it cannot */
    for (int a = 0; a < 2; ++a) {
        const rb_axis_plan *ap = a ? &plan->rows : &plan->cols;
        char why[160];
        if (ap->ax.active && rb_cuda_tiled_covers(ap, why, sizeof why) != 0) {
            st = rb_error(ctx, RB_ERR_BACKEND, "cuda: %s (the cpu back end runs it)", why);
            goto fail;
        }
    }
    s->col_axis = (rb_cuda_tiled *)calloc(1, sizeof *s->col_axis);
    s->row_axis = (rb_cuda_tiled *)calloc(1, sizeof *s->row_axis);
    if (!s->col_axis || !s->row_axis) {
        st = rb_error(ctx, RB_ERR_NOMEM, "cuda: out of host memory for the plan");
        goto fail;
    }
    if (plan->cols.ax.active) {
        rb_cuda_tiled_init(&plan->cols, (int)c, 0, &ctx->sw, s->col_axis);
        rb_cuda_tiled_plan_chain(s->col_axis, w * c);
        scratch = rb_cuda_tiled_carry(&plan->cols, &ctx->sw) * w * c;
    }
    if (plan->rows.ax.active) {
        rb_cuda_tiled_init(&plan->rows, (int)c, 1, &ctx->sw, s->row_axis);
        rb_cuda_tiled_plan_chain(s->row_axis, h * c);
        const size_t t = rb_cuda_tiled_carry(&plan->rows, &ctx->sw) * h * c;
        if (t > scratch) scratch = t;
    }
    if (plan->cols.ax.active && plan->rows.ax.active && rb_cuda_tiled_can_fuse(s->col_axis, s->row_axis)) {
        /* the fused route keeps the column and the row carries at once */
        s->fuse_off = rb_cuda_fuse_off(plan);
        const size_t t = s->fuse_off + rb_cuda_tiled_carry(&plan->rows, &ctx->sw) * h * c;
        if (t > scratch) scratch = t;
        if (rb_cuda_tiled_can_cross(s->col_axis, s->row_axis)) {
            if (ctx->sw.hook_cross_grid > 0) s->col_axis->cross_blocks = ctx->sw.hook_cross_grid; /* tests */
            else rb_cuda_tiled_plan_cross(s->col_axis);
        }
    }
    rb_log(ctx, "recblur: cuda solver: tiled (carries in one read, one chain per line, "
                "one read + one write per axis)");
    {
        /* the whole image twice and the carries; when they do not fit, the
         * banded route (rb_cuda_banded.cu) takes the image in pieces instead */
        cudaError_t e = rb_cuda_malloc((void **)&s->A, s->floats * sizeof(float));
        const char *what = "cudaMalloc (image buffer)";
        if (e == cudaSuccess) e = rb_cuda_malloc((void **)&s->B, s->floats * sizeof(float));
        if (e == cudaSuccess && scratch) {
            what = "cudaMalloc (solver carries)";
            e = rb_cuda_malloc((void **)&s->carry, scratch * sizeof(float));
        }
        if (e == cudaErrorMemoryAllocation) {
            char why[160];
            snprintf(why, sizeof why, "%s: %s", what, cudaGetErrorString(e));
            cudaGetLastError();
            rb_cuda_free(s->A);
            rb_cuda_free(s->B);
            rb_cuda_free(s->carry);
            s->A = s->B = s->carry = NULL;
            if ((st = rb_cuda_banded_plan(plan, s, why)) != RB_OK) goto fail;
        } else {
            RB_CU(e, what);
        }
    }
    /* pinned staging for host images: its settings now, and its memory too
     * unless its slots are outsized (rb_cuda_staging_ready) */
    if (rb_cuda_staging_wanted(&ctx->sw)) {
        s->stage = (rb_cuda_staging *)calloc(1, sizeof *s->stage);
        if (s->stage)
            rb_cuda_staging_config(s->stage, s->floats * sizeof(float), w * c * sizeof(float),
                                   rb_context_thread_count(ctx), &ctx->sw);
    }
    snprintf(plan->backend_name, sizeof plan->backend_name, "cuda (%.140s)", prop.name);
    plan->backend_state = s;
    if (s->stage && s->stage->slot_bytes <= RB_STAGE_SLOT_BYTES)
        rb_cuda_staging_ready(plan, s);
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

/* nan: count a host float32 input's NaNs in the staging copy (rb_backend_ops.execute_counting) */
static rb_status rb_cuda_execute_counting(rb_plan *plan, const rb_image *in, rb_image *out, rb_nan_tally *nan)
{
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    rb_cuda_alloc_use(&plan->ctx->sw);
    if (in->memory == RB_MEMORY_HOST || out->memory == RB_MEMORY_HOST)
        rb_cuda_staging_ready(plan, s);
    return rb_cuda_execute_2d(plan, in, out, nan);
}

static rb_status rb_cuda_execute(rb_plan *plan, const rb_image *in, rb_image *out)
{
    return rb_cuda_execute_counting(plan, in, out, NULL);
}

/* rb_backend_ops.warm_up, on rb_context_warm_up's thread: the runtime's start
 * and the primary context of device 0 (this thread's device), which the first
 * plan's calls would otherwise make, and the pixel kernels' module; it is the process's, so every thread's
 * later calls use it. An error here comes back to the plan, which reports it. */
static void rb_cuda_warm_up(void)
{
    if (cudaFree(0) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    /* the host-image kernels every plan with a host image launches, loaded now
     * rather than at their first launch (CUDA loads modules lazily) */
    rb_cuda_pixels_warm();
}

static const rb_backend_ops rb_cuda_ops = {
    "cuda",
    rb_cuda_probe,
    rb_cuda_plan_init,
    rb_cuda_plan_fini,
    rb_cuda_execute,
    rb_cuda_sat,
    rb_cuda_recurrence_1d,  /* scan/rb_cuda_recurrence.cu */
    rb_cuda_can_run,
    rb_cuda_deblur_run,     /* deblur/rb_cuda_deblur.cu */
    rb_cuda_execute_counting,
    rb_cuda_warm_up,
};

extern "C" const rb_backend_ops *rb_backend_cuda(void) { return &rb_cuda_ops; }
