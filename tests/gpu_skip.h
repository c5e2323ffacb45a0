/* GPU tests skip (cmocka skip, with a message naming why) where no CUDA device
 * is usable, so the suites run in CI without a GPU. Include after cmocka.h;
 * define GPU_SUITE (the test's name, for the messages) first. */
#ifndef RB_GPU_SKIP_H
#define RB_GPU_SKIP_H

#include "rb_internal.h"

#include <stdio.h>

/* 1 when the CUDA back end is built and its probe finds a device (asked once). */
static int gpu_present(void)
{
    static int cached = -1;
    if (cached < 0) {
        char why[256] = "";
        const rb_backend_ops *ops = rb_backend_cuda();
        cached = ops && ops->probe && ops->probe(why, sizeof why) == RB_OK;
        if (!cached)
            fprintf(stderr, "%s: %s\n", GPU_SUITE, why[0] ? why : "CUDA back end not built");
    }
    return cached;
}

#define NEED_GPU()                                                                   \
    do {                                                                             \
        if (!gpu_present()) {                                                        \
            fprintf(stderr, "%s: skipped: no usable CUDA device\n", GPU_SUITE);      \
            skip();                                                                  \
        }                                                                            \
    } while (0)

#endif
