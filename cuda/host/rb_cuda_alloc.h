/* Every device allocation of the CUDA back end goes through here, so that
 * tests can (1) simulate a GPU that runs out of memory part-way and a failing
 * kernel launch, and (2) check that no device memory is leaked after an error.
 * From the context's switches (engine/src/api/switches.h):
 *   RECBLUR_CUDA_ALLOC_LIMIT=<bytes>  allocations beyond this many bytes in use fail
 *                                     with cudaErrorMemoryAllocation
 *   RECBLUR_CUDA_PINNED_LIMIT=<bytes> pinned host allocations beyond this many bytes in use
 *                                     fail (the staging of host images, rb_cuda_staging.h)
 *   test:fail_launch (a test hook)    rb_cuda_launch_check reports cudaErrorLaunchFailure
 * The counts are process-wide, so the limits are too: each entry point of the
 * back end hands its context's switches to rb_cuda_alloc_use first. */
#ifndef RB_CUDA_ALLOC_H
#define RB_CUDA_ALLOC_H

#include "switches.h"
#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMalloc, counted and subject to the test limit. */
cudaError_t rb_cuda_malloc(void **ptr, size_t bytes);
/* cudaMallocHost, counted separately (limited by RECBLUR_CUDA_PINNED_LIMIT only). */
cudaError_t rb_cuda_malloc_host(void **ptr, size_t bytes);
/* Free what rb_cuda_malloc / rb_cuda_malloc_host gave; NULL is a no-op. */
void rb_cuda_free(void *ptr);
void rb_cuda_free_host(void *ptr);
/* Stream-ordered scratch (cudaMallocAsync from the device's default pool, which
 * keeps up to 64 MiB cached between calls, so per-call scratch costs no
 * cudaMalloc/cudaFree): counted and limited as rb_cuda_malloc. */
cudaError_t rb_cuda_malloc_async(void **ptr, size_t bytes, cudaStream_t s);
void rb_cuda_free_async(void *ptr, cudaStream_t s);
/* Device bytes a plan may still take: what the test limit leaves, and what
 * cudaMemGetInfo says is free less a margin (1/16, at least 64 MiB) for the
 * context's own allocations (the banded route of rb_cuda_banded.cu sizes
 * its pieces from it). */
size_t rb_cuda_device_room(void);
/* Pinned host bytes held now (tests: nothing leaks). */
size_t rb_cuda_host_bytes_in_use(void);
/* The limits and the launch hook of the context whose call runs now. */
void rb_cuda_alloc_use(const rb_switches *sw);
/* After a launch: cudaGetLastError(), or the simulated failure. */
cudaError_t rb_cuda_launch_check(void);

#ifdef __cplusplus
}
#endif
#endif
