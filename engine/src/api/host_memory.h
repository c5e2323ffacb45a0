/* What rb_context_host_alloc (api/host_memory.c) asks of the CUDA back end:
 * lock a caller's pages in place (cuda/host/rb_cuda_alloc.cu), counted with
 * the staging's pinned bytes and under the same test limit. */
#ifndef RB_HOST_MEMORY_H
#define RB_HOST_MEMORY_H

#include "switches.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Page-lock [p, p + bytes) for DMA (cudaHostRegister): 0, or -1 when it
 * cannot be (no device, RECBLUR_CUDA_PINNED_LIMIT of sw, the driver's no). */
int rb_cuda_host_register(void *p, size_t bytes, const rb_switches *sw);
/* Undo rb_cuda_host_register. */
void rb_cuda_host_unregister(void *p);

#ifdef __cplusplus
}
#endif
#endif
