/* The 2D execute of the CUDA back end: the tiled solver (cuda/tiled/) on both
 * axes of the row-major image. Float32 data needing no conversion is read
 * from the caller's buffer and written to it directly; other formats go
 * through one load / store pass. Host images go through pinned staging
 * (rb_cuda_staging.h): the input goes up in column bands (8- and 16-bit as
 * stored, decoded on the device band by band) that overlap the column pass,
 * and the row pass runs in strips so the download of one overlaps the
 * filtering of the next. */
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_check.h"
#include "rb_cuda_staging.h"
extern "C" {
#include "pixel_convert.h"
}
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_CU(call, what) RB_CU_CHECK(fail, "cuda", call, what)

extern "C" void rb_cuda_pixels_of(const rb_plan *plan, const rb_image *img, size_t pitch,
                                  rb_cuda_pixels *p)
{
    p->width = plan->width;
    p->height = plan->height;
    p->channels = plan->channels;
    p->format = img->format;
    p->pitch = pitch;
    p->ld = 0;
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

/* Column bands of a host input (the upload of band b + 1 overlaps the column
 * pass of band b): RB_STAGE_BANDS of them (or as set), whole warps of lanes
 * (32 pixels), on images large enough (in float32) for it to pay; one
 * otherwise. */
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

/* Float32 samples that need no decoding (no sRGB, no straight alpha) and a
 * float-aligned stride: the solver reads or writes them in place. */
extern "C" int rb_cuda_plain_f32(const rb_plan *plan, const rb_image *img)
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

/* an axis pass' inputs: the boundary constants of its c channels, the
 * leading dimensions (floats) of the image it reads and the one it writes */
static void rb_cuda_axis_io(rb_cuda_tiled *f, const float *cval, int c, long long ld, long long ld_out)
{
    for (int k = 0; k < c; ++k) f->b.ax.cval[k] = cval[k];
    f->ld = ld;
    f->ld_out = ld_out;
}

/* a launch's own error, else what the launch check finds (a fault in the
 * kernel, or the test hook of rb_cuda_alloc.h) */
static cudaError_t rb_cuda_launched(cudaError_t e)
{
    return e != cudaSuccess ? e : rb_cuda_launch_check();
}

/* profiling an axis that does not run: its three events (stage 1, chain,
 * final) at once, so the log still shows every step */
static void rb_cuda_axis_skipped(cudaEvent_t *ev, cudaStream_t q)
{
    for (int i = 0; i < 3; ++i) cudaEventRecord(ev[i], q);
}

/* The route of rb_cuda_tiled_final_both (four image transfers): where its
 * output goes, NULL where it cannot run (the fused route runs instead), and
 * *mid, the scratch image for the column output near the rows' ends. The
 * output goes straight to a device float32 output; else over its input
 * where a thread block reads only its own tile (rb_cuda_tiled_final_both_in_place)
 * and the input is the caller's output or a scratch image, or to the other
 * scratch image: never over a caller's input that is not its output. */
static float *rb_cuda_both_dst(const rb_plan *plan, rb_cuda_state *s, const rb_image *out, const float *cur,
                               long long cur_ld, float **mid, long long *dst_ld, int *done)
{
    const int dev_out = out->memory == RB_MEMORY_DEVICE && rb_cuda_plain_f32(plan, out);
    const int scratch = cur == s->A || cur == s->B;
    *mid = cur == s->A ? s->B : s->A;
    *dst_ld = (long long)plan->width * plan->channels;
    if (dev_out && out->data != (const void *)cur) {
        *dst_ld = (long long)(rb_image_stride(out) / sizeof(float));
        *done = 1;
        return (float *)out->data;
    }
    if (!scratch && !dev_out) return *mid == s->A ? s->B : s->A;
    /* FIR rows (rb_tiled_final_both_fir): a thread block reads its halo's input too */
    if (!rb_cuda_tiled_final_both_in_place(s->col_axis) || s->row_axis->b.ax.ntaps != 0) return NULL;
    if (dev_out && (long long)(rb_image_stride(out) / sizeof(float)) != cur_ld) return NULL; /* same pointer, other pitch */
    *dst_ld = cur_ld;
    *done = dev_out;
    return (float *)cur;
}

/* 1: the last 2D execute took the fused column final + row stage 1; 2: the
 * final stage of both axes in one kernel (rb_cuda_tiled_final_both); 3: that,
 * with the row carries from the column stage 1 and the cross terms
 * (rb_cuda_tiled_cols_row_carries_cross); 0: neither */
extern "C" int rb_cuda_plan_fused(const rb_plan *plan)
{
    const rb_cuda_state *s = plan && plan->backend == rb_backend_cuda() ? (const rb_cuda_state *)plan->backend_state : NULL;
    return s ? s->fused : 0;
}

rb_status rb_cuda_execute_2d(rb_plan *plan, const rb_image *in, rb_image *out, rb_nan_tally *nan)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    s->fused = 0;
    if (s->banded) return rb_cuda_execute_banded(plan, in, out, nan);
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
    const int plain_in = rb_cuda_plain_f32(plan, in);
    /* samples that need decoding go up in bands too when a raw row is no longer
     * than a float row: raw band b waits in the float columns of band b of B,
     * which only band b's column pass writes, after band b is loaded */
    const size_t in_size = rb_format_size(in->format);
    const int nbands = in->memory == RB_MEMORY_HOST && s->stage && !prof && !ctx->progress &&
                               plan->cols.ax.active && (plain_in || in_size <= sizeof(float))
                           ? rb_cuda_bands(plan, s->stage, &band)
                           : 1;
    /* the column final stage also makes the row carries (rb_tiled_launch.cu), except
     * where the rows go in strips to a host image or the columns in bands */
    const int fuse_cols_rows = nbands == 1 && plan->cols.ax.active && plan->rows.ax.active &&
                      !(out->memory == RB_MEMORY_HOST && s->stage && !prof) &&
                      rb_cuda_tiled_fuse_wanted(s->col_axis, s->row_axis, ctx->sw.cuda_fuse);
    float *rcarry = fuse_cols_rows ? s->carry + s->fuse_off : NULL;
    /* the final stage of both axes in one kernel (where it covers and the
     * output has somewhere to go: rb_cuda_both_dst, once the input is known) */
    int both = fuse_cols_rows && rb_cuda_tiled_final_both_wanted(s->col_axis, s->row_axis, ctx->sw.cuda_fuse);
    int cross = 0;
    float *both_mid = NULL, *both_dst = NULL;
    long long both_ld = packed;
    s->fused = fuse_cols_rows;
    rb_nan_tally *count_nan = in->format == RB_F32 ? nan : NULL;  /* the staging copy counts them */
    RB_CU(cudaSetDevice(s->device), "cudaSetDevice");
    if (prof) cudaEventRecord(ev[0], q);
    rb_plan_constants(plan, in, ccol, crow);

    if (nbands > 1) {
        /* 1 + 2 overlapped: a host image goes up in column bands, and the
         * column pass of band b runs while band b + 1 goes up (columns are
         * independent in this pass: a band is the same pass on fewer lanes from
         * an offset base). Float32 goes to A as it is; other samples go up raw
         * into band b's own float columns of B (pitch: a float row) and are
         * decoded into A there, before band b's column pass overwrites them. */
        rb_cuda_tiled *f = s->col_axis;
        const size_t stride = rb_image_stride(in);
        rb_cuda_axis_io(f, ccol, c, packed, packed);
        if (!plain_in) {
            rb_cuda_pixels_of(plan, in, row, &pin);
            pin.ld = (size_t)packed;
        }
        for (int b = 0; b < nbands; ++b) {
            const size_t x0 = (size_t)b * band, bw = (size_t)w - x0 < band ? (size_t)w - x0 : band;
            void *up = plain_in ? (void *)(s->A + x0 * c) : (void *)(s->B + x0 * c);
            RB_CU(rb_cuda_stage_up(s->stage, up, row, (const unsigned char *)in->data + x0 * c * in_size, stride,
                                   bw * c * in_size, (size_t)h, q, count_nan),
                  "copying the input to the device");
            RB_CU(cudaStreamWaitEvent(q, s->stage->up_done, 0), "copying the input to the device");
            if (!plain_in) {
                pin.width = (int)bw;
                RB_CU(rb_cuda_launched(rb_cuda_load(&pin, up, s->A + x0 * c, q)), "loading samples");
            }
            RB_CU(rb_cuda_launched(rb_cuda_tiled_axis(f, s->A + x0 * c, s->B + x0 * c, s->carry, bw * c, q, NULL)),
                  "column pass");
        }
        cur = s->B;
    } else {
        /* 1. samples in */
        if (in->memory == RB_MEMORY_HOST) {
            size_t stride = rb_image_stride(in), rawrow = (size_t)w * c * rb_format_size(in->format);
            const int plain = rb_cuda_plain_f32(plan, in);
            /* raw rows go up as they are (a quarter of the bytes for u8), decoded on the device */
            RB_CU(rb_cuda_stage_up(s->stage, plain ? s->A : s->B, rawrow, in->data, stride, rawrow, (size_t)h, q,
                                   count_nan),
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

        if (both) {
            both_dst = rb_cuda_both_dst(plan, s, out, cur, cur_ld, &both_mid, &both_ld, &done);
            both = both_dst != NULL;
            /* RECBLUR_CUDA_FUSE=cross: the row carries from the column stage 1
             * and the cross terms (rb_tiled_cross.cuh, three image transfers) */
            cross = both && rb_cuda_tiled_cross_wanted(s->col_axis, s->row_axis, ctx->sw.cuda_fuse);
            s->fused = cross ? 3 : both ? 2 : fuse_cols_rows;
        }
        /* 2. columns: cur -> a scratch image; on the route of
         * rb_cuda_tiled_final_both only the row carries (and the column output
         * near the rows' ends, into both_mid): cur stays the input */
        if (both) {
            rb_cuda_tiled *f = s->col_axis;
            rb_cuda_axis_io(f, ccol, c, cur_ld, packed);
            rb_cuda_axis_io(s->row_axis, crow, c, packed, both_ld);
            if (cross)
                RB_CU(rb_cuda_launched(rb_cuda_tiled_cols_row_carries_cross(f, s->row_axis, cur, both_mid, s->carry,
                                                                            rcarry, (size_t)w * c, (size_t)h * c, q,
                                                                            prof ? ev + 2 : NULL)),
                      "column pass");
            else
                RB_CU(rb_cuda_launched(rb_cuda_tiled_cols_row_carries_only(f, s->row_axis, cur, both_mid, s->carry,
                                                                           rcarry, (size_t)w * c, (size_t)h * c, q,
                                                                           prof ? ev + 2 : NULL)),
                      "column pass");
        } else if (plan->cols.ax.active) {
            float *dst = cur == s->A ? s->B : s->A;
            rb_cuda_tiled *f = s->col_axis;
            rb_cuda_axis_io(f, ccol, c, cur_ld, packed);
            /* fused: the row pass's parameters before the row stage 1 runs (on the column output) */
            if (fuse_cols_rows) rb_cuda_axis_io(s->row_axis, crow, c, packed, packed);
            RB_CU(rb_cuda_launched(fuse_cols_rows ? rb_cuda_tiled_cols_making_row_carries(
                                                        f, s->row_axis, cur, dst, s->carry, rcarry, (size_t)w * c,
                                                        (size_t)h * c, q, prof ? ev + 2 : NULL)
                                                  : rb_cuda_tiled_axis(f, cur, dst, s->carry, (size_t)w * c, q,
                                                                       prof ? ev + 2 : NULL)),
                  "column pass");
            cur = dst;
            cur_ld = packed;
        } else if (prof) {
            rb_cuda_axis_skipped(ev + 2, q);
        }
    }  /* bands */
    RB_CU_PROGRESS(0.4);
    /* 3. rows: cur -> the caller's buffer when it takes float32 as is; to a host
     * image through the staging, strip by strip: the download of strip j
     * overlaps the filtering of strip j + 1 (rows are independent in this pass:
     * a strip is the same pass on fewer lanes from an offset base) */
    if (plan->rows.ax.active && out->memory == RB_MEMORY_HOST && s->stage && !prof) {
        RB_CU_PROGRESS(0.6);  /* the last report before the caller's output is written */
        rb_cuda_tiled *f = s->row_axis;
        const int plain = rb_cuda_plain_f32(plan, out);
        const size_t rawrow = (size_t)w * c * rb_format_size(out->format);
        float *dst = cur == s->A ? s->B : s->A;
        /* stored samples of strip j go over its own, already read input rows of
         * cur (a raw row is never longer than a float row); a caller's device
         * input is never written: then the other scratch image takes them */
        float *raw = plain ? dst : (cur == s->A || cur == s->B) ? (float *)cur : dst == s->A ? s->B : s->A;
        size_t strip_rows;
        const int nstrips = rb_cuda_strips(plan, s->stage, rawrow, &strip_rows);
        rb_cuda_axis_io(f, crow, c, cur_ld, packed);
        rb_cuda_pixels_of(plan, out, rawrow, &pout);
        for (int j = 0; j < nstrips; ++j) {
            const size_t y0 = (size_t)j * strip_rows;
            const size_t n = (size_t)h - y0 < strip_rows ? (size_t)h - y0 : strip_rows;
            float *d = dst + y0 * (size_t)packed;
            RB_CU(rb_cuda_launched(rb_cuda_tiled_axis(f, cur + y0 * (size_t)cur_ld, d, s->carry, n * c, q, NULL)),
                  "row pass");
            if (!plain) {
                pout.height = (int)n;
                RB_CU(rb_cuda_launched(rb_cuda_store(&pout, d, (unsigned char *)raw + y0 * rawrow, q)),
                      "storing samples");
            }
            RB_CU(cudaEventRecord(s->stage->strip_done[j], q), "row pass");
        }
        RB_CU(rb_cuda_stage_down(s->stage, out->data, rb_image_stride(out), plain ? (const void *)dst : raw,
                                 rawrow, rawrow, (size_t)h, strip_rows, s->stage->strip_done, nstrips),
              "copying the output to the host");
        done = 1;
    } else if (both) {
        RB_CU(rb_cuda_launched(rb_cuda_tiled_final_both(s->col_axis, s->row_axis, cur, both_mid, both_dst, s->carry,
                                                        rcarry, (size_t)w * c, (size_t)h * c, q, prof ? ev + 5 : NULL)),
              "final stage of both axes");
        cur = both_dst;
        cur_ld = both_ld;
    } else if (plan->rows.ax.active) {
        rb_cuda_tiled *f = s->row_axis;
        float *dst;
        long long dst_ld = packed;
        if (out->memory == RB_MEMORY_DEVICE && rb_cuda_plain_f32(plan, out) && out->data != (const void *)cur) {
            dst = (float *)out->data;
            dst_ld = (long long)(rb_image_stride(out) / sizeof(float));
            done = 1;
        } else {
            dst = cur == s->A ? s->B : s->A;
        }
        rb_cuda_axis_io(f, crow, c, cur_ld, dst_ld);
        RB_CU(rb_cuda_launched(fuse_cols_rows
                                   ? rb_cuda_tiled_rows_from_carries(f, cur, dst, rcarry, (size_t)h * c, q,
                                                                     prof ? ev + 5 : NULL)
                                   : rb_cuda_tiled_axis(f, cur, dst, s->carry, (size_t)h * c, q, prof ? ev + 5 : NULL)),
              "row pass");
        cur = dst;
        cur_ld = dst_ld;
    } else if (prof) {
        rb_cuda_axis_skipped(ev + 5, q);
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

