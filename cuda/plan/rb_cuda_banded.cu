/* The banded route of the CUDA back end: an image whose two whole float
 * buffers do not fit the device runs in pieces, with the same kernels and no
 * carries between pieces, because the 2D filter is separable and the tiled
 * solver's lanes are independent within a pass (columns in the column pass,
 * rows in the row pass: a piece is the same pass on fewer lanes):
 *   1. the column pass band by band: each full-height band of band_w columns
 *      goes up (8/16-bit as stored, decoded on the device), is filtered down
 *      its columns and comes down as float32 into a float image between the
 *      passes: the caller's output when it is float32 the solver takes as it
 *      is, else a host buffer of w * h * channels floats kept with the plan
 *      (page-locked when it can be: DMA without CPU copies);
 *   2. the row pass strip by strip: each full-width strip of strip_h rows of
 *      that image goes up, is filtered along its rows, stored (encoded on the
 *      device) and comes down into the caller's output.
 * Two slots of device buffers alternate, so the transfers of one piece (the
 * pinned staging's CPU copies and DMAs, rb_cuda_staging.h) overlap the
 * kernels of the next. Every piece computes what the in-memory route
 * computes for its lanes, so the result is the in-memory route's, bit for
 * bit (tests/test_gpu_banded.c). */
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_check.h"
#include "rb_cuda_staging.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* sysconf: the machine's memory */

#define RB_CU(call, what) RB_CU_CHECK(fail, "cuda", call, what)

#define RB_MIB(bytes) ((double)(bytes) / 1048576.0)

/* Carry floats per lane of an axis that runs (0 otherwise). */
static size_t rb_band_carry(const rb_axis_plan *ap, const rb_switches *sw)
{
    return ap->ax.active ? rb_cuda_tiled_carry(ap, sw) : 0;
}

/* Pieces of at most `most` lines over n: as few as that allows, of even size,
 * whole warps (32) where that keeps within `most`. Returns the size. */
static size_t rb_band_even(size_t n, size_t most)
{
    if (most >= n) return n;
    const size_t k = (n + most - 1) / most;
    size_t b = (n + k - 1) / k;
    const size_t b32 = (b + 31) & ~(size_t)31;
    if (b >= 32 && b32 <= most) b = b32;
    return b;
}

extern "C" rb_status rb_cuda_banded_plan(rb_plan *plan, rb_cuda_state *s, const char *why)
{
    rb_context *ctx = plan->ctx;
    const size_t w = (size_t)plan->width, h = (size_t)plan->height, c = (size_t)plan->channels;
    const int cols = plan->cols.ax.active, rows = plan->rows.ax.active || !cols;
    const size_t kc = rb_band_carry(&plan->cols, &ctx->sw), kr = rb_band_carry(&plan->rows, &ctx->sw);
    /* floats a lane needs: its line in 4 buffers (two slots of in and out) and its carries */
    const size_t col_lane = 4 * h + kc, row_lane = 4 * w + kr;
    /* half of what is left: other plans (the missing-data route's siblings of
     * this one, the caller's own) still find room, in pieces of their own */
    const size_t room0 = rb_cuda_device_room();
    size_t room = room0 / 2;
    for (;;) {
        const size_t fl = room / sizeof(float);
        const size_t bw_most = cols ? fl / (col_lane * c) : w, sh_most = rows ? fl / (row_lane * c) : h;
        if (bw_most < 1 || sh_most < 1) {
            return rb_error(ctx, RB_ERR_DEVICE,
                            "cuda: %s: the image (%.0f MiB of floats) does not fit the device's %.1f MiB, "
                            "nor does one %s of it in half of that (%.2f MiB with its carries, double-buffered)",
                            why, RB_MIB(s->floats * sizeof(float)), RB_MIB(room0),
                            bw_most < 1 ? "full-height column" : "full-width row",
                            RB_MIB((bw_most < 1 ? col_lane : row_lane) * c * sizeof(float)));
        }
        size_t bw = cols ? rb_band_even(w, bw_most) : w, sh = rows ? rb_band_even(h, sh_most) : h;
        /* the slots serve both passes: the larger piece and the larger carries */
        size_t piece, carry;
        for (;;) {
            const size_t pc = cols ? h * bw * c : 0, pr = rows ? sh * w * c : 0;
            const size_t cc = cols ? kc * bw * c : 0, cr = rows ? kr * sh * c : 0;
            piece = pc > pr ? pc : pr;
            carry = cc > cr ? cc : cr;
            if (4 * piece + carry <= fl) break;
            if (cols && bw > 1 && (pc >= pr || sh == 1)) bw = rb_band_even(w, bw - 1);
            else if (rows && sh > 1) sh = rb_band_even(h, sh - 1);
            else return rb_error(ctx, RB_ERR_DEVICE, "cuda: %s: the image (%.0f MiB of floats) does not fit the "
                                 "device's %.1f MiB, nor do its pieces", why, RB_MIB(s->floats * sizeof(float)),
                                 RB_MIB(room0));
        }
        cudaError_t e = rb_cuda_malloc((void **)&s->piece[0], 4 * piece * sizeof(float));
        if (e == cudaSuccess && carry) e = rb_cuda_malloc((void **)&s->carry, carry * sizeof(float));
        if (e == cudaSuccess && !s->band_down) e = cudaStreamCreateWithFlags(&s->band_down, cudaStreamNonBlocking);
        if (e == cudaSuccess) {
            for (int k = 1; k < 4; ++k) s->piece[k] = s->piece[0] + (size_t)k * piece;
            s->piece_floats = piece;
            s->band_w = (int)bw;
            s->strip_h = (int)sh;
            s->nbands = cols ? (int)((w + bw - 1) / bw) : 0;
            s->nstrips = rows ? (int)((h + sh - 1) / sh) : 0;
            s->banded = 1;
            break;
        }
        /* the free memory was not all to be had in one piece (fragmentation):
         * ask for less */
        cudaGetLastError();
        rb_cuda_free(s->piece[0]);
        rb_cuda_free(s->carry);
        s->piece[0] = NULL;
        s->carry = NULL;
        if (e != cudaErrorMemoryAllocation)
            return rb_error(ctx, RB_ERR_DEVICE, "cuda: cudaMalloc (banded pieces): %s", cudaGetErrorString(e));
        room = room / 4 * 3;
    }
    char pass[200];
    const int both = plan->cols.ax.active && plan->rows.ax.active;
    if (both)
        snprintf(pass, sizeof pass, "columns in %d bands of %d, rows in %d strips of %d through host memory "
                                    "(a float copy of the image, %.0f MiB, unless the output is float32)",
                 s->nbands, s->band_w, s->nstrips, s->strip_h, RB_MIB(s->floats * sizeof(float)));
    else if (plan->cols.ax.active)
        snprintf(pass, sizeof pass, "columns in %d bands of %d", s->nbands, s->band_w);
    else
        snprintf(pass, sizeof pass, "rows in %d strips of %d", s->nstrips, s->strip_h);
    rb_log(ctx, "recblur: cuda: the image (%.0f MiB of floats) does not fit the device's %.0f MiB: %s",
           RB_MIB(s->floats * sizeof(float)), RB_MIB(room0), pass);
    return RB_OK;
}

namespace {
/* One end of a pass: where its pieces come from or go to. */
struct rb_band_end {
    unsigned char *base;
    size_t stride;       /* bytes between rows */
    size_t sample;       /* bytes per sample */
    rb_memory memory;
    const rb_image *img; /* format, alpha, sRGB; NULL: the float image between the passes */
    int plain;           /* float32 the solver takes as it is (no decoding) */
    int callers_out;     /* writing here touches the caller's output */
};

/* A pass over pieces: column bands (lanes are the band's columns, x0 moves)
 * or row strips (lanes are the strip's rows, y0 moves). */
struct rb_band_pass {
    rb_cuda_tiled *f;    /* NULL: no filtering, the samples only loaded and stored */
    const float *cval;
    int cols;
    int count;           /* pieces */
    size_t step;         /* pixels (bands) or rows (strips) per piece */
    rb_band_end src, dst;
    rb_nan_tally *nan;   /* the caller's float32 input: its NaNs counted on the way up */
    double f0, f1;       /* progress over this pass */
};
}  // namespace

static cudaError_t rb_band_launched(cudaError_t e)
{
    return e != cudaSuccess ? e : rb_cuda_launch_check();
}

/* The streams of a pass: q computes (and moves device images and page-locked
 * host rows up, after the kernels before, opposite to the downloads), `down`
 * moves pieces to page-locked host rows, the staging's copy stream the rest.
 * Events, per slot (the staging's): ready after the piece's kernels, free
 * after its last transfer that did not make the CPU wait. */
struct rb_band_io {
    rb_cuda_staging *sg;  /* NULL: no staging, everything on q in order */
    cudaStream_t q, down;
    int free_set[2];      /* the slot's free event was recorded */
};

static cudaEvent_t rb_band_ready(const rb_band_io *io, int slot) { return io->sg->strip_done[slot]; }
static cudaEvent_t rb_band_free(const rb_band_io *io, int slot) { return io->sg->strip_done[2 + slot]; }

/* Rows y0 .. y0+rows of pixels x0 .. x0+npx of an end to the device (packed). */
static cudaError_t rb_band_up(rb_band_io *io, const rb_band_end *e, int c, size_t x0, size_t y0, size_t npx,
                              size_t rows, void *dev, int slot, rb_nan_tally *nan)
{
    const size_t row_bytes = npx * c * e->sample;
    const unsigned char *src = e->base + y0 * e->stride + x0 * c * e->sample;
    cudaStream_t q = io->q;
    cudaError_t err;
    if (e->memory == RB_MEMORY_DEVICE) {
        if (io->free_set[slot] && (err = cudaStreamWaitEvent(q, rb_band_free(io, slot), 0)) != cudaSuccess)
            return err;
        return cudaMemcpy2DAsync(dev, row_bytes, src, e->stride, row_bytes, rows, cudaMemcpyDeviceToDevice, q);
    }
    if (!io->sg) return rb_cuda_stage_up(NULL, dev, row_bytes, src, e->stride, row_bytes, rows, q, nan);
    if (rb_cuda_host_is_pinned(src, e->stride * (rows - 1) + row_bytes)) {
        /* DMA on q, after the slot's last download (no CPU pass to count NaN in) */
        if (nan) nan->uncounted = 1;
        if (io->free_set[slot] && (err = cudaStreamWaitEvent(q, rb_band_free(io, slot), 0)) != cudaSuccess)
            return err;
        return cudaMemcpy2DAsync(dev, row_bytes, src, e->stride, row_bytes, rows, cudaMemcpyHostToDevice, q);
    }
    if (io->free_set[slot] && (err = cudaStreamWaitEvent(io->sg->copy, rb_band_free(io, slot), 0)) != cudaSuccess)
        return err;
    if ((err = rb_cuda_stage_up(io->sg, dev, row_bytes, src, e->stride, row_bytes, rows, q, nan)) != cudaSuccess)
        return err;
    return cudaStreamWaitEvent(q, io->sg->up_done, 0);
}

/* A finished piece (packed on the device, ready recorded after its kernels)
 * to an end. Pageable host ends return when the piece is there; device and
 * page-locked ends record the slot's free event instead. */
static cudaError_t rb_band_down(rb_band_io *io, const rb_band_end *e, int c, size_t x0, size_t y0, size_t npx,
                                size_t rows, const void *dev, int slot)
{
    const size_t row_bytes = npx * c * e->sample;
    unsigned char *dst = e->base + y0 * e->stride + x0 * c * e->sample;
    cudaStream_t q = io->q;
    cudaError_t err;
    if (e->memory == RB_MEMORY_DEVICE) {
        err = cudaMemcpy2DAsync(dst, e->stride, dev, row_bytes, row_bytes, rows, cudaMemcpyDeviceToDevice, q);
        if (err == cudaSuccess && io->sg) {
            err = cudaEventRecord(rb_band_free(io, slot), q);
            io->free_set[slot] = 1;
        }
        return err;
    }
    if (!io->sg) {
        err = cudaMemcpy2DAsync(dst, e->stride, dev, row_bytes, row_bytes, rows, cudaMemcpyDeviceToHost, q);
        return err != cudaSuccess ? err : cudaStreamSynchronize(q);
    }
    if (rb_cuda_host_is_pinned(dst, e->stride * (rows - 1) + row_bytes)) {
        /* DMA on its own stream: it overlaps the next piece's upload, the other way */
        if ((err = cudaStreamWaitEvent(io->down, rb_band_ready(io, slot), 0)) != cudaSuccess) return err;
        err = cudaMemcpy2DAsync(dst, e->stride, dev, row_bytes, row_bytes, rows, cudaMemcpyDeviceToHost, io->down);
        if (err == cudaSuccess) err = cudaEventRecord(rb_band_free(io, slot), io->down);
        io->free_set[slot] = 1;
        return err;
    }
    return rb_cuda_stage_down(io->sg, dst, e->stride, dev, row_bytes, row_bytes, rows, rows,
                              &io->sg->strip_done[slot], 1);
}

/* Progress after a piece, once the pieces so far are where they go (the
 * streams drained: with a progress callback the transfers overlap less). A
 * cancel is honoured while the caller's output is untouched (recblur.h),
 * else the call goes on to the end. */
#define RB_BAND_PROGRESS(fraction)                                                        \
    do {                                                                                  \
        if (ctx->progress) {                                                              \
            RB_CU(cudaStreamSynchronize(q), "running the filter");                        \
            RB_CU(cudaStreamSynchronize(io.down), "copying a piece back");                \
            if (ctx->progress((fraction), ctx->progress_user) && !*touched) {             \
                st = rb_error(ctx, RB_ERR_CANCELLED, "filtering cancelled by the progress callback"); \
                goto fail;                                                                \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* Piece j of a pass: its first pixel x0 and row y0, its width and height. */
static void rb_band_piece(const rb_band_pass *ps, size_t w, size_t h, int j, size_t *x0, size_t *y0,
                          size_t *npx, size_t *nrows)
{
    const size_t at = (size_t)j * ps->step;
    *x0 = ps->cols ? at : 0;
    *y0 = ps->cols ? 0 : at;
    *npx = ps->cols ? (w - at < ps->step ? w - at : ps->step) : w;
    *nrows = ps->cols ? h : (h - at < ps->step ? h - at : ps->step);
}

/* The load/store geometry of a piece of an end (packed, npx pixels a row). */
static void rb_band_pixels(const rb_plan *plan, const rb_band_end *e, size_t npx, size_t nrows,
                           rb_cuda_pixels *px)
{
    rb_cuda_pixels_of(plan, e->img, npx * plan->channels * e->sample, px);
    px->width = (int)npx;
    px->height = (int)nrows;
}

/* One pass, piece by piece: up(p), kernels(p), then down(p - 1), so that the
 * download of one piece and the upload of the next overlap the kernels. */
static rb_status rb_band_run(rb_plan *plan, rb_cuda_state *s, rb_cuda_staging *sg, const rb_band_pass *ps,
                             int *touched)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    const int c = plan->channels;
    const size_t w = (size_t)plan->width, h = (size_t)plan->height;
    cudaStream_t q = s->stream;
    const void *result[2] = {NULL, NULL};
    rb_band_io io = {sg, q, s->band_down, {0, 0}};
    for (int p = 0; p <= ps->count; ++p) {
        if (p < ps->count) {
            const int slot = p & 1;
            float *X = s->piece[2 * slot], *Y = s->piece[2 * slot + 1];
            size_t x0, y0, npx, nrows;
            rb_band_piece(ps, w, h, p, &x0, &y0, &npx, &nrows);
            /* raw samples wait in Y, which the filter writes only after they are decoded into X */
            void *up = ps->src.plain ? (void *)X : (void *)Y;
            RB_CU(rb_band_up(&io, &ps->src, c, x0, y0, npx, nrows, up, slot, ps->nan),
                  "copying the input to the device");
            if (!ps->src.plain) {
                rb_cuda_pixels pin;
                rb_band_pixels(plan, &ps->src, npx, nrows, &pin);
                RB_CU(rb_band_launched(rb_cuda_load(&pin, up, X, q)), "loading samples");
            }
            float *res = X;
            if (ps->f) {
                ps->f->ld = ps->f->ld_out = (long long)(npx * c);
                for (int k = 0; k < c; ++k) ps->f->b.ax.cval[k] = ps->cval[k];
                RB_CU(rb_band_launched(rb_cuda_tiled_axis(ps->f, X, Y, s->carry, ps->cols ? npx * c : nrows * c, q, NULL)),
                      ps->cols ? "column pass" : "row pass");
                res = Y;
            }
            result[slot] = res;
            if (!ps->dst.plain) {
                /* stored samples go over the piece's other buffer, read already */
                float *raw = res == X ? Y : X;
                rb_cuda_pixels pout;
                rb_band_pixels(plan, &ps->dst, npx, nrows, &pout);
                RB_CU(rb_band_launched(rb_cuda_store(&pout, res, raw, q)), "storing samples");
                result[slot] = raw;
            }
            if (sg) RB_CU(cudaEventRecord(rb_band_ready(&io, slot), q), "filtering a piece");
        }
        if (p > 0) {
            const int j = p - 1, slot = j & 1;
            size_t x0, y0, npx, nrows;
            rb_band_piece(ps, w, h, j, &x0, &y0, &npx, &nrows);
            RB_CU(rb_band_down(&io, &ps->dst, c, x0, y0, npx, nrows, result[slot], slot),
                  "copying a piece back");
            if (ps->dst.callers_out) *touched = 1;
            if (p < ps->count || ps->f1 < 1.0) /* 1.0 comes once, at the end */
                RB_BAND_PROGRESS(ps->f0 + (ps->f1 - ps->f0) * p / ps->count);
        }
    }
    /* the next pass reads what this one wrote */
    RB_CU(cudaStreamSynchronize(io.down), "copying a piece back");
    return RB_OK;
fail:
    cudaStreamSynchronize(io.down);
    return st;
}

static rb_band_end rb_band_end_of(const rb_plan *plan, const rb_image *img, int callers_out)
{
    rb_band_end e;
    e.base = (unsigned char *)img->data;
    e.stride = rb_image_stride(img);
    e.sample = rb_format_size(img->format);
    e.memory = img->memory;
    e.img = img;
    e.plain = rb_cuda_plain_f32(plan, img);
    e.callers_out = callers_out;
    return e;
}

extern "C" rb_status rb_cuda_execute_banded(rb_plan *plan, const rb_image *in, rb_image *out, rb_nan_tally *nan)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    cudaStream_t q = s->stream;
    const int cols = plan->cols.ax.active, rows = plan->rows.ax.active;
    float ccol[4] = {0, 0, 0, 0}, crow[4] = {0, 0, 0, 0};
    int touched = 0, *const tp = &touched;
    /* the pinned staging once it is made (the first execute with a host image,
     * rb_cuda_staging_ready); device images alone go without */
    rb_cuda_staging *sg = s->stage && s->stage->copy ? s->stage : NULL;
    rb_band_end src = rb_band_end_of(plan, in, 0), dst = rb_band_end_of(plan, out, 1), mid;
    rb_nan_tally *count_nan = in->format == RB_F32 && in->memory == RB_MEMORY_HOST ? nan : NULL;
    RB_CU(cudaSetDevice(s->device), "cudaSetDevice");
    rb_plan_constants(plan, in, ccol, crow);
    if (cols && rows) {
        /* the float image between the passes: the caller's output when it takes
         * float32 as it is, else the plan's host buffer */
        if (dst.plain) {
            mid = dst;
        } else {
            if (!s->host_mid) {
                /* page-locked when it can be had and takes at most a quarter of
                 * the machine's memory: the copy engines then move it without the
                 * staging's CPU copies (4 bytes a sample, both ways) */
                const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
                if ((double)(s->floats * sizeof(float)) <= phys / 4 &&
                    rb_cuda_malloc_host((void **)&s->host_mid, s->floats * sizeof(float)) == cudaSuccess) {
                    s->host_mid_pinned = 1;
                } else {
                    cudaGetLastError();
                    s->host_mid = (float *)malloc(s->floats * sizeof(float));
                }
                rb_log(ctx, "recblur: cuda: %.0f MiB of %s host memory for the float image between the passes",
                       RB_MIB(s->floats * sizeof(float)), s->host_mid_pinned ? "page-locked" : "pageable");
                if (!s->host_mid)
                    return rb_error(ctx, RB_ERR_NOMEM,
                                    "cuda: the image does not fit the device, and the %.0f MiB of host memory "
                                    "for its float copy between the passes could not be had",
                                    RB_MIB(s->floats * sizeof(float)));
            }
            mid.base = (unsigned char *)s->host_mid;
            mid.stride = (size_t)plan->width * plan->channels * sizeof(float);
            mid.sample = sizeof(float);
            mid.memory = RB_MEMORY_HOST;
            mid.img = NULL;
            mid.plain = 1;
            mid.callers_out = 0;
        }
    }
    if (ctx->progress && ctx->progress(0.0, ctx->progress_user))
        return rb_error(ctx, RB_ERR_CANCELLED, "filtering cancelled by the progress callback");
    if (cols) {
        rb_band_pass ps = {s->col_axis, ccol, 1, s->nbands, (size_t)s->band_w, src, rows ? mid : dst, count_nan,
                           0.0, rows ? 0.5 : 1.0};
        if ((st = rb_band_run(plan, s, sg, &ps, tp)) != RB_OK) goto fail;
    }
    if (rows || !cols) {
        rb_band_pass ps = {rows ? s->row_axis : NULL, crow, 0, s->nstrips, (size_t)s->strip_h, cols ? mid : src,
                           dst, cols ? NULL : count_nan, cols ? 0.5 : 0.0, 1.0};
        if ((st = rb_band_run(plan, s, sg, &ps, tp)) != RB_OK) goto fail;
    }
    RB_CU(cudaStreamSynchronize(q), "running the filter");
    if (ctx->progress) ctx->progress(1.0, ctx->progress_user);
    return RB_OK;
fail:
    cudaStreamSynchronize(q);
    rb_cuda_staging_drain(s->stage);
    return st;
}
