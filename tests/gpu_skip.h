/* GPU suites where no CUDA device is usable (CI builds CUDA without a GPU):
 * a suite's device part exits RB_GPU_SKIP_CODE, which ctest reports as
 * "Skipped" (SKIP_RETURN_CODE, set by rb_gpu_suite in tests/CMakeLists.txt),
 * never "Passed" with no assertion run. A part that needs no device (the CPU
 * emulation of the GPU plans, the no-device errors) is a separate ctest entry
 * (`NAME --host`), so neither part hides the other. Include after cmocka.h;
 * define GPU_SUITE (the test's name, for the messages) first. */
#ifndef RB_GPU_SKIP_H
#define RB_GPU_SKIP_H

#include "rb_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when the CUDA back end is built and its probe finds a device (asked once). */
static inline int gpu_present(void)
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

/* Must match SKIP_RETURN_CODE in rb_gpu_suite (tests/CMakeLists.txt). */
#define RB_GPU_SKIP_CODE 77

static inline int gpu_skipped(void)
{
    fprintf(stderr, "%s: skipped: no usable CUDA device\n", GPU_SUITE);
    return RB_GPU_SKIP_CODE;
}

/* main() of a GPU suite: `suite --host` runs the host group (no device
 * needed); `suite` runs the device group, or exits RB_GPU_SKIP_CODE without a
 * device. */
#define RB_GPU_SUITE_MAIN(argc, argv, host, device, setup, teardown)                          \
    ((argc) > 1 && strcmp((argv)[1], "--host") == 0                                           \
         ? _cmocka_run_group_tests(GPU_SUITE " (host)", host, sizeof host / sizeof host[0],   \
                                   setup, teardown)                                            \
         : gpu_present() ? _cmocka_run_group_tests(GPU_SUITE " (device)", device,             \
                                                   sizeof device / sizeof device[0], setup,    \
                                                   teardown)                                   \
                         : gpu_skipped())

/* main() of a GPU suite without a host group. */
#define RB_GPU_DEVICE_MAIN(device, setup, teardown)                                             \
    (gpu_present() ? _cmocka_run_group_tests(GPU_SUITE, device, sizeof device / sizeof device[0], \
                                             setup, teardown)                                   \
                   : gpu_skipped())

/* Inside a device-group test: a device the probe found must stay usable. */
#define NEED_GPU()                                                                   \
    do {                                                                             \
        if (!gpu_present()) {                                                        \
            fprintf(stderr, "%s: skipped: no usable CUDA device\n", GPU_SUITE);      \
            skip();                                                                  \
        }                                                                            \
    } while (0)

/* The context of a device test, on back end be; the test is skipped without a
 * usable GPU. */
static inline rb_context *gpu_test_context(rb_backend be)
{
    NEED_GPU();
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, be), RB_OK);
    return ctx;
}

/* RB_TEST_ORDERS (e.g. "135"): the tiled orders a device test runs, for
 * builds with RECBLUR_CUDA_TILED_ORDERS limited (an order not compiled fails
 * its execute there); unset or empty: every order. */
static inline int gpu_order_wanted(int order)
{
    const char *only = getenv("RB_TEST_ORDERS");
    return !only || !*only || (order >= 1 && order <= 9 && strchr(only, '0' + order));
}

/* A drawn order moved up to the next one RB_TEST_ORDERS lets run (unchanged
 * where every order runs, or none above it does): the draws stay the same. */
static inline int gpu_order_built(int order)
{
    for (int o = order; o <= 8; ++o)
        if (gpu_order_wanted(o)) return o;
    return order;
}

/* A test of what happens without a GPU (the CPU fallback, the no-device
 * errors), named by checks: skipped where a GPU is usable; otherwise the
 * char array why holds the reason there is none. */
#define SKIP_WHERE_A_GPU_RUNS(why, checks)                                              \
    do {                                                                                \
        if (rb_cuda_available(why, sizeof why)) {                                       \
            printf("  a GPU is usable here (%s): " checks " do not apply\n", why);     \
            skip();                                                                     \
        }                                                                               \
    } while (0)

#endif
