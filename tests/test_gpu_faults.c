/* GPU faults (issue 7). Always (any build, any machine):
 *  - without CUDA compiled in, or without a usable GPU, `cuda` is a clear
 *    RB_ERR_BACKEND naming the reason and `auto` runs on the cpu and says so.
 * On a machine with a usable GPU (skipped with a message elsewhere), using
 * the test hooks of cuda/host/rb_cuda_alloc.h:
 *  - RECBLUR_CUDA_ALLOC_LIMIT so that the 1st, 2nd or 3rd device allocation
 *    fails (out of memory part-way through planning): the plan takes the
 *    banded route where one full-height column of the image fits in pieces
 *    (the GPU's bits, then), falls back or fails where not,
 *  - the test hook "test:fail_launch" (every kernel launch check fails; set
 *    with rb_switch_set, switches.h) before planning and, separately,
 *    between planning and execution,
 * `auto` falls back to the cpu with a log line and gives exactly the cpu
 * back end's bits; `cuda` fails with RB_ERR_DEVICE and a message, leaving a
 * poisoned output untouched; and after every case (20 rounds each) the
 * device bytes in use (rb_cuda_device_bytes_in_use) are back at baseline. */
#define _GNU_SOURCE /* setenv, unsetenv, M_PI under -std=c11 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "rb_internal.h" /* rb_backend_cuda, rb_cuda_device_bytes_in_use */
#include "test_util.h"

#define W 96
#define H 64
#define CH 3
#define ROUNDS 20
#define POISON 0x3C

#include "log_capture.h"
#define GPU_SUITE "test_gpu_faults"
#include "gpu_skip.h"

static void expect_msg(rb_context *ctx, rb_status got, rb_status want, const char *what, const char *needle)
{
    const char *m = rb_context_error(ctx);
    if (got != want)
        fail_msg("%s: status %d (%s), expected %d (%s): %s", what, got, rb_status_string(got), want,
                 rb_status_string(want), m);
    if (strncmp(m, "recblur: ", 9) || (needle && !strstr(m, needle)))
        fail_msg("%s: message \"%s\" (wanted one mentioning \"%s\")", what, m, needle ? needle : "");
    printf("  %-50s -> %s\n", what, m);
}

static float input[W * H * CH];
static float cpu_out[W * H * CH];
static rb_filter *filt;
static const rb_boundary bnd = {RB_BOUNDARY_MIRROR, 0};

static rb_image img(float *data)
{
    rb_image im = {W, H, CH, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, data};
    return im;
}

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < W * H * CH; i++)
        input[i] = (float)tu_uniform();
    rb_context *ctx = NULL;
    rb_plan *p = NULL;
    if (rb_context_create(&ctx) != RB_OK || rb_context_set_backend(ctx, RB_BACKEND_CPU) != RB_OK ||
        rb_filter_gaussian(ctx, 3.0, 5.0, RB_GAUSSIAN_DEFAULT, &filt) != RB_OK ||
        rb_plan_create(ctx, filt, bnd, W, H, CH, &p) != RB_OK)
        return -1;
    rb_image in = img(input), out = img(cpu_out);
    rb_status s = rb_execute(p, &in, &out); /* what every fall-back must give, bit for bit */
    rb_plan_destroy(p);
    rb_context_destroy(ctx);
    return s == RB_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rb_filter_destroy(filt);
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    return 0;
}

/* ------------------------------------------------------------ no GPU part */

static void test_without_gpu(void **state)
{
    (void)state;
    char why[256] = "";
    SKIP_WHERE_A_GPU_RUNS(why, "the no-GPU checks");
    printf("  no usable GPU: %s\n", why);
    assert_true(strlen(why) > 0);
#ifndef RB_TEST_HAVE_CUDA
    assert_null(rb_backend_cuda());
    assert_non_null(strstr(why, "without"));
    const char *needle = "built without CUDA";
#else
    assert_non_null(rb_backend_cuda());
    const char *needle = "no GPU is usable";
#endif
    rb_context *ctx = new_ctx(RB_BACKEND_CUDA);
    rb_plan *p = (rb_plan *)0x1;
    expect_msg(ctx, rb_plan_create(ctx, filt, bnd, W, H, CH, &p), RB_ERR_BACKEND, "plan, backend cuda",
               needle);
    assert_null(p);
    float out[W * H * CH];
    rb_image in = img(input), o = img(out);
    memset(out, POISON, sizeof out);
    expect_msg(ctx, rb_sat(ctx, &in, &o), RB_ERR_BACKEND, "rb_sat, backend cuda", "cuda");
    expect_msg(ctx, rb_recurrence_1d(ctx, filt, bnd, input, out, 100, RB_MEMORY_HOST), RB_ERR_BACKEND,
               "rb_recurrence_1d, backend cuda", "cuda");
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(((unsigned char *)out)[i], POISON);
    rb_context_destroy(ctx);

    /* auto: the cpu, the same bits, and (with CUDA compiled in) a log line why */
    ctx = new_ctx(RB_BACKEND_AUTO);
    assert_int_equal(rb_plan_create(ctx, filt, bnd, W, H, CH, &p), RB_OK);
    printf("  auto -> %s; log: %s", rb_plan_backend_name(p), logbuf[0] ? logbuf : "(none)\n");
    assert_int_equal(strncmp(rb_plan_backend_name(p), "cpu", 3), 0);
#ifdef RB_TEST_HAVE_CUDA
    assert_non_null(strstr(logbuf, "no GPU is usable"));
#endif
    assert_int_equal(rb_execute(p, &in, &o), RB_OK);
    assert_memory_equal(out, cpu_out, sizeof out);
    /* device memory cannot be served by the cpu */
    rb_image dev = img(out);
    dev.memory = RB_MEMORY_DEVICE;
    expect_msg(ctx, rb_execute(p, &in, &dev), RB_ERR_UNSUPPORTED, "device image, cpu plan", "device");
    rb_plan_destroy(p);
    rb_context_destroy(ctx);
    assert_int_equal(rb_cuda_device_bytes_in_use(), 0);
}

/* --------------------------------------------------------------- GPU part */

static void set_limit(size_t bytes)
{
    char v[32];
    snprintf(v, sizeof v, "%zu", bytes);
    setenv("RECBLUR_CUDA_ALLOC_LIMIT", v, 1);
}

/* Sanity: without faults, auto does pick the GPU here (else the fall-backs
 * below would prove nothing), and agrees with the cpu to float rounding. */
static void test_gpu_healthy(void **state)
{
    (void)state;
    NEED_GPU();
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    size_t base = rb_cuda_device_bytes_in_use();
    rb_context *ctx = new_ctx(RB_BACKEND_AUTO);
    rb_plan *p = NULL;
    assert_int_equal(rb_plan_create(ctx, filt, bnd, W, H, CH, &p), RB_OK);
    printf("  auto, no faults -> %s (%zu device bytes held)\n", rb_plan_backend_name(p),
           rb_cuda_device_bytes_in_use() - base);
    assert_int_equal(strncmp(rb_plan_backend_name(p), "cuda", 4), 0);
    assert_true(rb_cuda_device_bytes_in_use() > base);
    static float out[W * H * CH];
    rb_image in = img(input), o = img(out);
    assert_int_equal(rb_execute(p, &in, &o), RB_OK);
    double maxerr = 0;
    for (int i = 0; i < W * H * CH; i++)
        maxerr = fmax(maxerr, fabs(out[i] - cpu_out[i]));
    printf("  gpu vs cpu: max difference %.2e\n", maxerr);
    assert_true(maxerr < 1e-4);
    rb_plan_destroy(p);
    rb_context_destroy(ctx);
    assert_int_equal(rb_cuda_device_bytes_in_use(), base);
}

/* The plan's device allocations are two W*H*CH float images first, then
 * scratch and taps: limits 2 and 3 make the 2nd and 3rd one fail, and the plan
 * goes to the banded route (the image in pieces, rb_cuda_banded.cu) with the
 * in-memory route's bits; limits 0 and 1 leave no room for even one column of
 * it in pieces, and `auto` falls back to the cpu, `cuda` fails. */
static void test_out_of_memory_part_way(void **state)
{
    (void)state;
    NEED_GPU();
    const size_t image = (size_t)W * H * CH * sizeof(float);
    const size_t limits[] = {0, (size_t)4 * H * CH * sizeof(float) - 1, image + image / 2, 2 * image + 1};
    static float out[W * H * CH], gpu_out[W * H * CH];
    size_t base = rb_cuda_device_bytes_in_use();
    {
        unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
        rb_context *ctx = new_ctx(RB_BACKEND_CUDA);
        rb_plan *p = NULL;
        assert_int_equal(rb_plan_create(ctx, filt, bnd, W, H, CH, &p), RB_OK);
        rb_image in = img(input), o = img(gpu_out);
        assert_int_equal(rb_execute(p, &in, &o), RB_OK);
        rb_plan_destroy(p);
        rb_context_destroy(ctx);
    }
    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
        const int banded = li >= 2;
        for (int round = 0; round < ROUNDS; round++) {
            int loud = round == 0;
            set_limit(limits[li]);
            /* auto: falls back while planning and logs it (cpu bits), or runs banded (gpu bits) */
            rb_context *ctx = new_ctx(RB_BACKEND_AUTO);
            rb_plan *p = NULL;
            assert_int_equal(rb_plan_create(ctx, filt, bnd, W, H, CH, &p), RB_OK);
            if (loud)
                printf("  limit %zu bytes, auto -> %s; log: %s", limits[li], rb_plan_backend_name(p), logbuf);
            assert_int_equal(strncmp(rb_plan_backend_name(p), banded ? "cuda" : "cpu", banded ? 4 : 3), 0);
            assert_non_null(strstr(logbuf, banded ? "does not fit" : "falling back"));
            if (!banded) assert_int_equal(rb_cuda_device_bytes_in_use(), base);
            rb_image in = img(input), o = img(out);
            assert_int_equal(rb_execute(p, &in, &o), RB_OK);
            assert_memory_equal(out, banded ? gpu_out : cpu_out, sizeof out);
            rb_plan_destroy(p);
            rb_context_destroy(ctx);
            assert_int_equal(rb_cuda_device_bytes_in_use(), base);
            /* cuda: a clear device error, nothing held; or the banded route */
            ctx = new_ctx(RB_BACKEND_CUDA);
            p = (rb_plan *)0x1;
            rb_status s = rb_plan_create(ctx, filt, bnd, W, H, CH, &p);
            if (banded) {
                assert_int_equal(s, RB_OK);
                memset(out, POISON, sizeof out);
                assert_int_equal(rb_execute(p, &in, &o), RB_OK);
                assert_memory_equal(out, gpu_out, sizeof out);
                rb_plan_destroy(p);
            } else {
                if (loud)
                    expect_msg(ctx, s, RB_ERR_DEVICE, "limit, backend cuda", "cuda");
                assert_int_equal(s, RB_ERR_DEVICE);
                assert_null(p);
            }
            assert_int_equal(rb_cuda_device_bytes_in_use(), base);
            /* the other GPU entry points under the same limit */
            memset(out, POISON, sizeof out);
            rb_image so = o;
            s = rb_sat(ctx, &in, &so);
            if (loud)
                printf("  limit %zu, rb_sat on cuda -> %s: %s\n", limits[li], rb_status_string(s),
                       rb_context_error(ctx));
            if (s != RB_OK) {
                assert_int_equal(s, RB_ERR_DEVICE);
                for (size_t i = 0; i < sizeof out; i++)
                    assert_int_equal(((unsigned char *)out)[i], POISON);
            }
            s = rb_recurrence_1d(ctx, filt, bnd, input, out, (size_t)W * H, RB_MEMORY_HOST);
            if (loud)
                printf("  limit %zu, rb_recurrence_1d on cuda -> %s: %s\n", limits[li], rb_status_string(s),
                       rb_context_error(ctx));
            assert_true(s == RB_OK || s == RB_ERR_DEVICE);
            /* a 1D call that ran keeps its plan in the context (fb41333) until the context goes */
            rb_context_destroy(ctx);
            assert_int_equal(rb_cuda_device_bytes_in_use(), base);
        }
    }
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
}

/* Failing launches, set before planning (plan- or execute-time failure,
 * whichever launches first) and between planning and execution. */
static void test_failing_launch(void **state)
{
    (void)state;
    NEED_GPU();
    unsetenv("RECBLUR_CUDA_ALLOC_LIMIT");
    static float out[W * H * CH];
    size_t base = rb_cuda_device_bytes_in_use();
    for (int when = 0; when < 2; when++) /* 0: before planning, 1: after */
        for (int round = 0; round < ROUNDS; round++) {
            int loud = round == 0;
            /* auto */
            rb_context *ctx = new_ctx(RB_BACKEND_AUTO);
            if (when == 0)
                rb_switch_set(ctx, "test:fail_launch", "1");
            rb_plan *p = NULL;
            assert_int_equal(rb_plan_create(ctx, filt, bnd, W, H, CH, &p), RB_OK);
            if (when == 1) {
                assert_int_equal(strncmp(rb_plan_backend_name(p), "cuda", 4), 0);
                rb_switch_set(ctx, "test:fail_launch", "1");
            }
            rb_image in = img(input), o = img(out);
            memset(out, POISON, sizeof out);
            assert_int_equal(rb_execute(p, &in, &o), RB_OK);
            if (loud)
                printf("  failing launch %s planning, auto -> %s; log: %s", when ? "after" : "before",
                       rb_plan_backend_name(p), logbuf);
            assert_int_equal(strncmp(rb_plan_backend_name(p), "cpu", 3), 0);
            assert_non_null(strstr(logbuf, "falling back"));
            assert_memory_equal(out, cpu_out, sizeof out);
            /* the failed GPU state is gone at once, not at destroy */
            assert_int_equal(rb_cuda_device_bytes_in_use(), base);
            /* and the plan keeps working (on the cpu) */
            assert_int_equal(rb_execute(p, &in, &o), RB_OK);
            assert_memory_equal(out, cpu_out, sizeof out);
            rb_plan_destroy(p);
            rb_context_destroy(ctx);

            /* cuda: RB_ERR_DEVICE at plan or execute time, output untouched */
            ctx = new_ctx(RB_BACKEND_CUDA);
            if (when == 0)
                rb_switch_set(ctx, "test:fail_launch", "1");
            p = NULL;
            rb_status s = rb_plan_create(ctx, filt, bnd, W, H, CH, &p);
            if (s == RB_OK) {
                rb_switch_set(ctx, "test:fail_launch", "1");
                memset(out, POISON, sizeof out);
                s = rb_execute(p, &in, &o);
                for (size_t i = 0; i < sizeof out; i++)
                    if (((unsigned char *)out)[i] != POISON)
                        fail_msg("failing launch, backend cuda: output byte %zu was written", i);
                assert_int_equal(strncmp(rb_plan_backend_name(p), "cuda", 4), 0); /* no silent move */
            }
            if (loud)
                expect_msg(ctx, s, RB_ERR_DEVICE, "failing launch, backend cuda", "cuda");
            assert_int_equal(s, RB_ERR_DEVICE);
            rb_plan_destroy(p);
            assert_int_equal(rb_cuda_device_bytes_in_use(), base);
            rb_context_destroy(ctx);
        }
}

int main(int argc, char **argv)
{
    tu_seed("test_gpu_faults");
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_without_gpu),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_gpu_healthy),
        cmocka_unit_test(test_out_of_memory_part_way),
        cmocka_unit_test(test_failing_launch),
    };
    return RB_GPU_SUITE_MAIN(argc, argv, host, device, setup, teardown);
}
