/* The switches, the route choice and the line extension (issue 15, items 2-3):
 *  - rb_extend_index against an extension built by repeated reflection and
 *    wrapping, one step at a time (not the closed form under test);
 *  - the run-time switches are read when a context is made and not after;
 *    bad values mean the default; the test hooks never come from the
 *    environment, only from rb_switch_set;
 *  - route.c: what each wish gives when no GPU back end can be used (the
 *    answers every CI machine sees): the cpu for auto, a clear
 *    RB_ERR_BACKEND for cuda naming the work, RB_ERR_UNSUPPORTED for device
 *    memory on the cpu. */
#define _GNU_SOURCE /* setenv, unsetenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tu_main.h"

#include "plan_build.h" /* rb_route_choose */
#include "rb_internal.h"
#include "log_capture.h"
#define GPU_SUITE "test_route"
#include "gpu_skip.h"

#include <stdlib.h>
#include <string.h>

/* The sample at index k of the extension, by walking: reflect or wrap until k
 * lands inside [0, n). */
static long walk_extension(long k, long n, rb_boundary_mode mode)
{
    switch (mode) {
    case RB_BOUNDARY_CLAMP:
        return k < 0 ? 0 : k >= n ? n - 1 : k;
    case RB_BOUNDARY_PERIODIC:
        while (k < 0)
            k += n;
        while (k >= n)
            k -= n;
        return k;
    case RB_BOUNDARY_MIRROR: /* the edge sample repeated: -1 -> 0, n -> n - 1 */
        while (k < 0 || k >= n)
            k = k < 0 ? -1 - k : 2 * n - 1 - k;
        return k;
    default:
        return k >= 0 && k < n ? k : -1;
    }
}

static void test_extend_index(void **state)
{
    (void)state;
    const rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                      RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR, RB_BOUNDARY_NONE};
    int checked = 0;
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
        for (long n = 1; n <= 9; n++)
            for (long k = -5 * n - 3; k <= 6 * n + 3; k++) {
                long got = rb_extend_index(k, n, modes[m]), want = walk_extension(k, n, modes[m]);
                if (got != want)
                    fail_msg("%s n=%ld k=%ld: %ld, expected %ld", rb_boundary_name(modes[m]), n, k, got,
                             want);
                checked++;
            }
    printf("  rb_extend_index: %d indices agree with the walked extension\n", checked);
}

static void test_switches_read_once(void **state)
{
    (void)state;
    setenv("RECBLUR_CPU_LANES", "float", 1);
    setenv("RECBLUR_CUDA_ALLOC_LIMIT", "123456", 1);
    setenv("RECBLUR_CUDA_STAGING_STRIPS", "0", 1);  /* not positive: automatic */
    setenv("test:fail_launch", "1", 1);              /* a hook: never from the environment */
    rb_context *a = new_ctx(RB_BACKEND_AUTO);
    assert_int_equal(a->sw.cpu_lanes, RB_LANES_FLOAT);
    assert_int_equal(a->sw.cuda_alloc_limit, 123456);
    assert_int_equal(a->sw.cuda_staging_strips, 0);
    assert_int_equal(a->sw.hook_fail_launch, 0);
    setenv("RECBLUR_CPU_LANES", "bogus", 1);         /* unknown: the default */
    setenv("RECBLUR_CUDA_ALLOC_LIMIT", "12x", 1);    /* not a number: no limit */
    rb_context *b = new_ctx(RB_BACKEND_AUTO);
    assert_int_equal(b->sw.cpu_lanes, RB_LANES_DOUBLE);
    assert_int_equal(b->sw.cuda_alloc_limit, SIZE_MAX);
    /* the first context kept what it read */
    assert_int_equal(a->sw.cpu_lanes, RB_LANES_FLOAT);
    assert_int_equal(a->sw.cuda_alloc_limit, 123456);
    unsetenv("RECBLUR_CPU_LANES");
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    unsetenv("RECBLUR_CUDA_STAGING_STRIPS");
    unsetenv("test:fail_launch");
    /* rb_switch_set: by name, NULL restores the default, unknown names are errors */
    assert_int_equal(rb_switch_set(b, "test:fail_launch", "1"), RB_OK);
    assert_int_equal(b->sw.hook_fail_launch, 1);
    assert_int_equal(rb_switch_set(b, "test:fail_launch", NULL), RB_OK);
    assert_int_equal(b->sw.hook_fail_launch, 0);
    assert_int_equal(rb_switch_set(b, "RECBLUR_CUDA_FUSE", "off"), RB_OK);
    assert_int_equal(b->sw.cuda_fuse, RB_FORCE_OFF);
    assert_int_equal(rb_switch_set(b, "RECBLUR_NO_SUCH_SWITCH", "1"), RB_ERR_ARGUMENT);
    assert_non_null(strstr(rb_context_error(b), "RECBLUR_NO_SUCH_SWITCH"));
    rb_context_destroy(a);
    rb_context_destroy(b);
}

/* Every work kind under each wish, where no CUDA back end can run anything. */
static void test_route_without_gpu(void **state)
{
    (void)state;
    char why[256] = "";
    SKIP_WHERE_A_GPU_RUNS(why, "the no-GPU routes");
    static float px[4 * 3 * 2];
    rb_image host = {4, 3, 2, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, px}, dev = host;
    dev.memory = RB_MEMORY_DEVICE;
    const rb_route_request reqs[] = {
        {RB_WORK_FILTER_2D, NULL, NULL, NULL, RB_MEMORY_HOST, 4, 3, 2},
        {RB_WORK_SAT, NULL, &host, &host, RB_MEMORY_HOST, 4, 3, 2},
        {RB_WORK_RECURRENCE_1D, NULL, NULL, NULL, RB_MEMORY_HOST, 12, 1, 1},
        {RB_WORK_DEBLUR, NULL, NULL, NULL, RB_MEMORY_HOST, 4, 3, 2},
    };
    const char *prefix[] = {"the cuda", "rb_sat: ", "rb_recurrence_1d: ", "deblur: "};
    for (size_t i = 0; i < sizeof reqs / sizeof *reqs; i++) {
        const rb_backend_ops *ops = NULL;
        rb_context *ctx = new_ctx(RB_BACKEND_AUTO);
        assert_int_equal(rb_route_choose(ctx, &reqs[i], &ops), RB_OK);
        assert_ptr_equal(ops, &rb_backend_cpu);
        /* a log line says why, when there was a CUDA back end to leave */
        assert_true(rb_backend_cuda() ? strstr(logbuf, "using the cpu back end") != NULL : logbuf[0] == 0);
        rb_context_destroy(ctx);

        ctx = new_ctx(RB_BACKEND_CUDA);
        ops = NULL;
        assert_int_equal(rb_route_choose(ctx, &reqs[i], &ops), RB_ERR_BACKEND);
        assert_null(ops);
        const char *m = rb_context_error(ctx);
        printf("  cuda wished: %s\n", m);
        assert_non_null(strstr(m, prefix[i]));
        assert_non_null(strstr(m, rb_backend_cuda() ? "no GPU is usable" : "built without CUDA"));
        rb_context_destroy(ctx);
    }
    /* device memory: the cpu cannot, whatever the wish */
    const rb_route_request sat_dev = {RB_WORK_SAT, NULL, &host, &dev, RB_MEMORY_HOST, 4, 3, 2};
    const rb_route_request rec_dev = {RB_WORK_RECURRENCE_1D, NULL, NULL, NULL, RB_MEMORY_DEVICE, 12, 1, 1};
    const rb_backend wishes[] = {RB_BACKEND_AUTO, RB_BACKEND_CPU};
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < 2; r++) {
            rb_context *ctx = new_ctx(wishes[w]);
            const rb_backend_ops *ops = NULL;
            assert_int_equal(rb_route_choose(ctx, r ? &rec_dev : &sat_dev, &ops), RB_ERR_UNSUPPORTED);
            printf("  device memory, %s: %s\n", w ? "cpu" : "auto", rb_context_error(ctx));
            assert_non_null(strstr(rb_context_error(ctx), "device memory"));
            rb_context_destroy(ctx);
        }
    /* the public entry points take the same route */
    rb_context *ctx = new_ctx(RB_BACKEND_CPU);
    static float big[4 * 3 * 2];
    rb_image o = dev;
    o.data = big;
    assert_int_equal(rb_sat(ctx, &host, &o), RB_ERR_UNSUPPORTED);
    rb_context_destroy(ctx);
}

int main(void)
{
    TU_RUN_TESTS(cmocka_unit_test(test_extend_index), cmocka_unit_test(test_switches_read_once),
                 cmocka_unit_test(test_route_without_gpu));
}
