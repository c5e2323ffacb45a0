/* rb_context_host_alloc / rb_context_host_free (recblur.h): the caller's image
 * memory, page-locked for the CUDA back end so that its transfers go by DMA
 * instead of through the pinned staging's CPU copies (the host's copy
 * bandwidth, not the bus, bounds a staged float image: bench/RESULTS.md).
 * The pages are faulted in here first, before the device is asked: that part
 * runs while a warm-up makes the device's context, and only the locking waits
 * for it. A header page before the block says how to free it. */
#define _GNU_SOURCE /* madvise, MADV_HUGEPAGE */
#include "rb_internal.h"
#include "host_memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RB_HOST_PAGE 4096
#define RB_HOST_HUGE ((size_t)2 << 20)
#define RB_HOST_MAGIC 0x52424831u /* "RBH1" */

typedef struct {
    uint32_t magic;
    int locked;   /* rb_cuda_host_register took it */
    size_t bytes;
} rb_host_block;

/* Whether this context may run on cuda, so that locked pages can pay. */
#ifdef RB_HAVE_CUDA
static int rb_host_wants_lock(const rb_context *ctx)
{
    return ctx->backend != RB_BACKEND_CPU && !ctx->sw.cuda_host_pageable && rb_backend_cuda() != NULL;
}
#endif

void *rb_context_host_alloc(rb_context *ctx, size_t bytes)
{
    if (!ctx || !bytes || bytes > SIZE_MAX - 2 * RB_HOST_PAGE)
        return NULL;
    /* large blocks 2 MiB-aligned and marked for transparent huge pages (as the
     * CLI's images, cli/image_io.c): 4 KiB pages made the first touch of an
     * 8192^2 RGB float image 441 ms on the H100 machine, 200 000 faults */
    void *base = NULL;
    size_t total = RB_HOST_PAGE + bytes, align = RB_HOST_PAGE;
#ifdef MADV_HUGEPAGE
    if (bytes >= 4 * RB_HOST_HUGE) {
        align = RB_HOST_HUGE;
        total = (total + RB_HOST_HUGE - 1) / RB_HOST_HUGE * RB_HOST_HUGE;
    }
#endif
    if (posix_memalign(&base, align, total) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (align == RB_HOST_HUGE)
        (void)madvise(base, total, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#endif
    rb_host_block *h = base;
    unsigned char *p = (unsigned char *)base + RB_HOST_PAGE;
    h->magic = RB_HOST_MAGIC;
    h->locked = 0;
    h->bytes = bytes;
    /* a write per page faults it in (the kernel zeroes it) here, on the
     * caller's time, not on the first filter's that writes it; and before
     * the device is needed: the locking then only pins resident pages */
    volatile unsigned char *v = p;
    for (size_t i = 0; i < bytes; i += RB_HOST_PAGE)
        v[i] = 0;
#ifdef RB_HAVE_CUDA
    if (rb_host_wants_lock(ctx))
        h->locked = rb_cuda_host_register(p, bytes, &ctx->sw) == 0;
#endif
    return p;
}

void rb_context_host_free(rb_context *ctx, void *p)
{
    (void)ctx;
    if (!p)
        return;
    rb_host_block *h = (rb_host_block *)((unsigned char *)p - RB_HOST_PAGE);
    if (h->magic != RB_HOST_MAGIC)
        abort(); /* not rb_context_host_alloc's: freeing it would corrupt the heap */
#ifdef RB_HAVE_CUDA
    if (h->locked)
        rb_cuda_host_unregister(p);
#endif
    h->magic = 0;
    free(h);
}

int rb_context_host_locked(const void *p)
{
    if (!p)
        return 0;
    const rb_host_block *h = (const rb_host_block *)((const unsigned char *)p - RB_HOST_PAGE);
    return h->magic == RB_HOST_MAGIC && h->locked;
}
