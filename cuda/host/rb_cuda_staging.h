/* Host-pointer transfers of the CUDA back end through pinned staging.
 *
 * A pageable cudaMemcpy is copied by the driver through its own small pinned
 * buffer, one piece at a time, at a fraction of the bus speed. Here a ring of
 * RB_STAGE_SLOTS pinned buffers (allocated once per plan) takes the caller's
 * rows instead: CPU threads copy chunk k+1 into one slot while the DMA engine
 * moves chunk k out of another (cudaMemcpyAsync on a copy stream of its own,
 * an event per slot says when it is free again), and the same backwards for
 * the output, where the download of strip k also overlaps the filtering of
 * strip k+1 (the back end records one event per strip). A caller's buffer that
 * is pinned already is moved by DMA directly.
 *   RECBLUR_CUDA_STAGING=off          plain cudaMemcpy2DAsync from pageable memory
 *                                     (the route before staging; the benchmark's "before")
 *   RECBLUR_CUDA_STAGING_THREADS=<n>  CPU threads copying into / out of the slots (default: the
 *                                     context's threads, at most 16)
 *   RECBLUR_CUDA_STAGING_COPY=memcpy  plain memcpy instead of streaming stores (benchmark)
 *   RECBLUR_CUDA_STAGING_STRIPS=<n>   strips of the row pass (1..8), whatever the image size
 *   RECBLUR_CUDA_STAGING_BANDS=<n>    column bands of a host upload (8-, 16-bit or float32), whatever
 *                                     the image size
 *   RECBLUR_CUDA_STAGING_SLOT=<bytes> slot size (tests: many small chunks; at least a row)
 * All are read when a context is made (engine/src/api/switches.h) and used
 * when a plan is made. */
#ifndef RB_CUDA_STAGING_H
#define RB_CUDA_STAGING_H

#include "rb_internal.h"
#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RB_STAGE_SLOTS 3
#define RB_STAGE_SLOT_BYTES ((size_t)8 << 20)   /* most a slot holds (a row more when rows are larger) */
#define RB_STAGE_MAX_STRIPS 8                   /* strips of the last axis' pass, at most */
#define RB_STAGE_STRIPS 4                       /* strips by default on large images */
#define RB_STAGE_BANDS 4                        /* column bands by default on large images */
/* The overlaps pay from about this many bytes moved each way: each strip or
 * band costs the latency of the solver's chain, which on the H100 outweighed
 * what they hid at 4096^2 x 4 bytes (67 MB) and not at 8192^2 (268 MB). */
#define RB_STAGE_OVERLAP_BYTES ((size_t)128 << 20)

typedef struct rb_cuda_stage_pool rb_cuda_stage_pool;  /* the CPU copy threads */

typedef struct rb_cuda_staging {
    size_t slot_bytes;
    unsigned char *slot[RB_STAGE_SLOTS];     /* pinned (rb_cuda_malloc_host) */
    cudaEvent_t slot_free[RB_STAGE_SLOTS];   /* recorded on `copy` after the slot's last DMA */
    int slot_used[RB_STAGE_SLOTS];           /* the event has been recorded at least once */
    int next;                                /* next slot of the ring */
    cudaStream_t copy;                       /* the DMA stream */
    cudaEvent_t up_done;                     /* the input is on the device */
    cudaEvent_t strip_done[RB_STAGE_MAX_STRIPS];
    int threads;                             /* CPU copy threads wanted (pool made at first need) */
    int nt;                                  /* copies with streaming stores */
    int strips;                              /* strips of the last pass (1..RB_STAGE_MAX_STRIPS); 0: automatic */
    int bands;                               /* column bands of a host upload (1: none); 0: automatic */
    rb_cuda_stage_pool *pool;
} rb_cuda_staging;

/* 1 unless RECBLUR_CUDA_STAGING=off. */
int rb_cuda_staging_wanted(const rb_switches *sw);
/* Two steps. Config, at plan time: the settings for an image of `image_bytes`
 * (float working size) whose rows are at most `row_bytes_max` (slot size, copy
 * threads from `threads`, the context's count; strips, bands, copy routine
 * from the context's switches), allocating nothing. Alloc, at the first use: the
 * streams, events and pinned slots; on failure it frees what it made, clears
 * the settings and returns the error (the caller may go on without staging). */
void rb_cuda_staging_config(rb_cuda_staging *st, size_t image_bytes, size_t row_bytes_max, int threads,
                            const rb_switches *sw);
cudaError_t rb_cuda_staging_alloc(rb_cuda_staging *st);
void rb_cuda_staging_fini(rb_cuda_staging *st);
/* Wait for every DMA of the staging (before an error return). */
void rb_cuda_staging_drain(rb_cuda_staging *st);

/* Load the kernels that bring host samples in and out (rb_cuda_pixels.cu)
 * now, not at their first launch: the back end's warm-up calls it. */
void rb_cuda_pixels_warm(void);

/* Whether [p, p + bytes) is page-locked host memory (DMA without staging). */
int rb_cuda_host_is_pinned(const void *p, size_t bytes);

/* `rows` rows of `row_bytes` from the host (stride host_stride) to the device
 * (pitch dev_pitch), on the copy stream; returns once the caller's buffer is no
 * longer needed, with up_done recorded after the last DMA (make the compute
 * stream wait on it). st == NULL: one cudaMemcpy2DAsync on `q` (no staging).
 * nan != NULL (float32 rows): the NaN samples are counted into it by the CPU
 * copy into the slots; a route without that copy (no staging, a pinned caller
 * buffer) sets nan->uncounted instead. */
cudaError_t rb_cuda_stage_up(rb_cuda_staging *st, void *dev, size_t dev_pitch, const void *host,
                             size_t host_stride, size_t row_bytes, size_t rows, cudaStream_t q,
                             rb_nan_tally *nan);

/* Device rows to the host. The rows come in `nstrips` strips of strip_rows
 * (the last one shorter); strip j's DMAs wait for ready[j] (recorded on the
 * compute stream when the strip is final). Returns when every row is in the
 * caller's buffer. */
cudaError_t rb_cuda_stage_down(rb_cuda_staging *st, void *host, size_t host_stride, const void *dev,
                               size_t dev_pitch, size_t row_bytes, size_t rows, size_t strip_rows,
                               const cudaEvent_t *ready, int nstrips);

#ifdef __cplusplus
}
#endif
#endif
