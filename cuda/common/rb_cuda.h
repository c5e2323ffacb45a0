/* CUDA back end, internal: the per-plan state and what the stages (the tiled
 * 2D solver, the 1D scan, summed-area tables, pixel plumbing) offer the
 * back end's plan and execute (cuda/plan/). */
#ifndef RB_CUDA_H
#define RB_CUDA_H

#include "rb_internal.h"
#include "rb_tiled.h"
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The back end's per-plan state (rb_cuda_backend.cu makes it at plan time). */
typedef struct {
    int device;
    cudaStream_t stream;
    float *A, *B;              /* two full float images */
    float *carry;              /* the tiled solver's carries (both axes' at once on the fused route) */
    size_t fuse_off;           /* rb_cuda_fuse_off, made at plan time: it steps the recursion to
                                  size the carries, too slow for every execute (bench/RESULTS.md) */
    size_t floats;             /* w * h * channels */
    rb_cuda_tiled *col_axis, *row_axis; /* the tiled solver's per-axis parameters (host memory) */
    cudaEvent_t ev[10];        /* RECBLUR_CUDA_PROFILE=1: per-step times in the log */
    int nev;
    struct rb_cuda_staging *stage;  /* pinned staging of host images (rb_cuda_staging.h);
                                       NULL: plain copies from pageable memory */
    int stage_tried;           /* the staging's memory is made at the first execute with a
                                  host image: plans for device pointers and 1D signals pin nothing */
    struct rb_cuda_rec1d *rec1d; /* a 1D plan's scan tables, made by its first call and kept:
                                    the context keeps the plan for calls of the same size */
    void *rec1d_work;          /* the scan's scratch, rec1d_work_bytes long */
    size_t rec1d_work_bytes;
    /* The banded route (rb_cuda_banded.cu), planned when A and B do not fit the
     * device: A and B stay NULL; the columns run in nbands full-height bands of
     * band_w pixels, the rows in nstrips full-width strips of strip_h rows,
     * through a float image in host memory (or the caller's float output). */
    int banded;
    int band_w, strip_h, nbands, nstrips;
    float *piece[4];           /* two slots of (X, Y), piece_floats each, one allocation at piece[0] */
    cudaStream_t band_down;    /* downloads to page-locked host rows, beside the uploads */
    size_t piece_floats;
    float *host_mid;           /* the float image between the passes: made by the first execute
                                  that needs it, kept with the plan (w * h * channels floats) */
    int host_mid_pinned;       /* host_mid is page-locked (rb_cuda_malloc_host), else malloc'ed */
    int fused;                 /* the last 2D execute ran the fused column final + row stage 1 (1),
                                  or the final of both axes after it (2) (rb_cuda_plan_fused: tests
                                  assert the route they mean to reach) */
} rb_cuda_state;

/* Where the row carries start in s->carry on the fused route (rb_cuda_backend.cu). */
size_t rb_cuda_fuse_off(const rb_plan *plan);
/* 1 when the plan's last 2D execute took the fused column final + row stage 1
 * (rb_tiled_final_cols_s1), 2 when it took that without its pixel writes and
 * then the final stage of both axes in one kernel (rb_tiled_final_both), 0
 * otherwise or for a plan of another back end. */
int rb_cuda_plan_fused(const rb_plan *plan);
/* rb_backend_ops.execute of a 2D plan (rb_cuda_execute.cu). */
rb_status rb_cuda_execute_2d(rb_plan *plan, const rb_image *in, rb_image *out, rb_nan_tally *nan);

/* Float32 samples the solver takes as they are (rb_cuda_execute.cu). */
int rb_cuda_plain_f32(const rb_plan *plan, const rb_image *img);

/* The banded route (rb_cuda_banded.cu): at plan time, after the whole-image
 * buffers failed (`why`: that failure), size and allocate the pieces from the
 * device memory left, or explain (RB_ERR_DEVICE) that not even one
 * full-height column fits; then the 2D execute of such a plan. */
rb_status rb_cuda_banded_plan(rb_plan *plan, rb_cuda_state *s, const char *why);
rb_status rb_cuda_execute_banded(rb_plan *plan, const rb_image *in, rb_image *out, rb_nan_tally *nan);

/* rb_backend_ops.recurrence_1d (rb_cuda_recurrence.cu). */
rb_status rb_cuda_recurrence_1d(rb_plan *plan, const float *in, float *out, size_t n, rb_memory mem);

/* rb_sat on the device (rb_cuda_sat.cu). */
rb_status rb_cuda_sat(rb_context *ctx, const rb_image *in, rb_image *out);

/* Pixel plumbing (rb_cuda_pixels.cu). */
typedef struct {
    int width, height, channels;
    rb_format format;
    size_t pitch;        /* bytes between rows of the raw samples */
    size_t ld;           /* floats between rows of the float image; 0: packed (width * channels).
                            A column band of a wider image is loaded with the wider image's ld */
    int alpha;           /* rb_alpha */
    int linear;          /* decode/encode sRGB on colour channels */
} rb_cuda_pixels;
/* The load/store geometry of img on plan (rb_cuda_execute.cu): the whole
 * plan, packed floats, raw rows `pitch` bytes apart; a piece sets its own
 * width and height after. */
void rb_cuda_pixels_of(const rb_plan *plan, const rb_image *img, size_t pitch, rb_cuda_pixels *p);

/* raw samples -> packed float (premultiplied / linearised as asked) */
cudaError_t rb_cuda_load(const rb_cuda_pixels *p, const void *raw, float *dst, cudaStream_t s);
/* packed float -> raw samples (rounded and clamped for U8/U16) */
cudaError_t rb_cuda_store(const rb_cuda_pixels *p, const float *src, void *raw, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
