/* rb_context_warm_up (issue 17 item 3): the back end's start on a thread of
 * the context, waited for by the first call that may reach a device and by
 * rb_context_destroy, changing no result.
 * Host group (every machine): a slow stand-in for the start
 * (rb_context_warm_up_with) must be finished when rb_plan_create, rb_sat or
 * rb_context_destroy returns; the cpu back end starts nothing; a warmed
 * context's results equal an unwarmed one's bit for bit and the float64
 * reference of the infinite extension.
 * Device group: the same on the cuda back end with the real start (the
 * device's context), and warm-up then destroy without a plan leaves no device
 * memory held. Fresh seed per run (printed); RB_TEST_SEED reproduces. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define GPU_SUITE "test_warm_up"
#include "api/context_warm.h"
#include "gpu_skip.h"
#include "reference.h"
#include "test_util.h"

#include <stdatomic.h>
#include <time.h>

/* ------------------------------------------------------- the slow stand-in */
static atomic_int slow_runs, slow_done;

static void slow_start(void)
{
    atomic_fetch_add(&slow_runs, 1);
    struct timespec ts = {0, 80 * 1000 * 1000}; /* longer than any call below takes to get there */
    nanosleep(&ts, NULL);
    atomic_store(&slow_done, 1);
}

static void slow_reset(void)
{
    atomic_store(&slow_runs, 0);
    atomic_store(&slow_done, 0);
}

/* ------------------------------------------------ one filter, three ways */
typedef struct {
    tu_axis ax, ay;
    rb_boundary b;
    int w, h, ch;
    float *x;            /* random input */
    double *ref;         /* float64 reference of the infinite extension */
} case_t;

static void case_make(case_t *c)
{
    tu_random_axis(&c->ax, gpu_order_built(tu_int(1, 4)), 0.9, tu_int(0, 1));
    tu_random_axis(&c->ay, gpu_order_built(tu_int(1, 4)), 0.9, tu_int(0, 1));
    static const rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                             RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    c->b = (rb_boundary){modes[tu_int(0, 4)], (float)tu_uniform()};
    c->w = tu_int(40, 300);
    c->h = tu_int(40, 300);
    c->ch = tu_int(1, 4);
    const size_t n = (size_t)c->w * c->h * c->ch;
    c->x = malloc(n * sizeof *c->x);
    c->ref = malloc(n * sizeof *c->ref);
    double *xd = malloc(n * sizeof *xd);
    assert_non_null(c->x);
    assert_non_null(c->ref);
    assert_non_null(xd);
    for (size_t i = 0; i < n; i++)
        xd[i] = c->x[i] = (float)tu_uniform();
    assert_int_equal(ref_filter_image(&c->ax.f, &c->ay.f, c->b, xd, c->ref, c->w, c->h, c->ch), 0);
    free(xd);
}

static void case_free(case_t *c)
{
    free(c->x);
    free(c->ref);
}

/* Plan and execute c on ctx into y; the plan's back end name in name. */
static void case_run(rb_context *ctx, const case_t *c, float *y, char *name, size_t name_len)
{
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    assert_int_equal(rb_filter_create(ctx, &c->ax.f, &c->ay.f, &f), RB_OK);
    rb_status s = rb_plan_create(ctx, f, c->b, c->w, c->h, c->ch, &plan);
    if (s != RB_OK)
        print_error("%s\n", rb_context_error(ctx));
    assert_int_equal(s, RB_OK);
    rb_image in = tu_f32_image(c->w, c->h, c->ch, c->x), out = tu_f32_image(c->w, c->h, c->ch, y);
    assert_int_equal(rb_execute(plan, &in, &out), RB_OK);
    snprintf(name, name_len, "%s", rb_plan_backend_name(plan));
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
}

/* A warmed context (warm: how) against an unwarmed one on back end be: the
 * same bits, and the reference within DESIGN's 1e-5 (poles <= 0.9). */
static void compare_warm(rb_backend be, void (*warm)(rb_context *), const char *want_backend)
{
    for (int round = 0; round < 3; round++) {
        case_t c;
        case_make(&c);
        const size_t n = (size_t)c.w * c.h * c.ch;
        float *y0 = malloc(n * sizeof *y0), *y1 = malloc(n * sizeof *y1);
        assert_non_null(y0);
        assert_non_null(y1);
        for (size_t i = 0; i < n; i++)
            y0[i] = y1[i] = NAN; /* poison: every sample must be written */
        rb_context *plain = NULL, *warmed = NULL;
        assert_int_equal(rb_context_create(&plain), RB_OK);
        assert_int_equal(rb_context_create(&warmed), RB_OK);
        assert_int_equal(rb_context_set_backend(plain, be), RB_OK);
        assert_int_equal(rb_context_set_backend(warmed, be), RB_OK);
        char name0[160], name1[160];
        case_run(plain, &c, y0, name0, sizeof name0);
        warm(warmed);
        case_run(warmed, &c, y1, name1, sizeof name1);
        assert_null(warmed->warm); /* the plan joined it */
        assert_string_equal(name0, name1);
        if (want_backend)
            assert_memory_equal(name1, want_backend, strlen(want_backend));
        assert_memory_equal(y0, y1, n * sizeof *y0);
        double *yd = malloc(n * sizeof *yd);
        assert_non_null(yd);
        tu_to_double(y1, yd, n);
        const double e = ref_rel_rms(yd, c.ref, n);
        printf("%s %dx%dx%d boundary %d: warmed = unwarmed, rel RMS %.2e against the reference\n",
               name1, c.w, c.h, c.ch, (int)c.b.mode, e);
        assert_true(e <= 1e-5);
        free(yd);
        rb_context_destroy(plain);
        rb_context_destroy(warmed);
        free(y0);
        free(y1);
        case_free(&c);
    }
}

static void warm_slow(rb_context *ctx)
{
    slow_reset();
    assert_int_equal(rb_context_warm_up_with(ctx, slow_start), RB_OK);
    assert_non_null(ctx->warm);
    /* a second call while it runs starts nothing */
    assert_int_equal(rb_context_warm_up_with(ctx, slow_start), RB_OK);
}

static void warm_real(rb_context *ctx) { assert_int_equal(rb_context_warm_up(ctx), RB_OK); }

/* ------------------------------------------------------------ host group */
static void test_null_and_cpu(void **state)
{
    (void)state;
    assert_int_equal(rb_context_warm_up(NULL), RB_ERR_NULL);
    assert_int_equal(rb_context_warm_up_with(NULL, slow_start), RB_ERR_NULL);
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CPU), RB_OK);
    assert_int_equal(rb_context_warm_up(ctx), RB_OK);
    assert_null(ctx->warm); /* the cpu back end has nothing to start */
    rb_context_destroy(ctx);
}

/* rb_plan_create waits for the start, and the result is the same */
static void test_plan_waits(void **state)
{
    (void)state;
    for (int be = RB_BACKEND_AUTO; be <= RB_BACKEND_CPU; be++) {
        compare_warm((rb_backend)be, warm_slow, NULL);
        assert_int_equal(atomic_load(&slow_done), 1);
        assert_int_equal(atomic_load(&slow_runs), 1);
    }
}

/* the real rb_context_warm_up under auto (a no-op without CUDA; without a GPU
 * the start fails and the plan runs on the cpu, as without warm-up) */
static void test_auto_real(void **state)
{
    (void)state;
    compare_warm(RB_BACKEND_AUTO, warm_real, NULL);
}

/* other calls that choose a back end wait too: rb_sat */
static void test_sat_waits(void **state)
{
    (void)state;
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_image in = tu_random_image(64, 48, 3, RB_F32), out = tu_random_image(64, 48, 3, RB_F32);
    assert_non_null(in.data);
    assert_non_null(out.data);
    warm_slow(ctx);
    assert_int_equal(rb_sat(ctx, &in, &out), RB_OK);
    assert_int_equal(atomic_load(&slow_done), 1);
    assert_null(ctx->warm);
    free(in.data);
    free(out.data);
    rb_context_destroy(ctx);
}

/* warm-up then destroy, no plan: destroy waits (no thread outlives the
 * context); again right after a set_backend, and twice in a row */
static void test_destroy_waits(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        rb_context *ctx = NULL;
        assert_int_equal(rb_context_create(&ctx), RB_OK);
        warm_slow(ctx);
        if (round == 1)
            assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CPU), RB_OK);
        rb_context_destroy(ctx);
        assert_int_equal(atomic_load(&slow_done), 1);
        assert_int_equal(atomic_load(&slow_runs), 1);
    }
    rb_context *ctx = NULL; /* the real one, whatever this machine has */
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_warm_up(ctx), RB_OK);
    rb_context_destroy(ctx);
}

/* ---------------------------------------------------------- device group */
static void test_cuda_same_result(void **state)
{
    (void)state;
    NEED_GPU();
    compare_warm(RB_BACKEND_CUDA, warm_real, "cuda");
    compare_warm(RB_BACKEND_AUTO, warm_real, "cuda");
}

/* a U8 RGB image through the pinned staging: the same bytes warmed or not */
static void test_cuda_u8(void **state)
{
    (void)state;
    rb_context *plain = gpu_test_context(RB_BACKEND_CUDA), *warmed = gpu_test_context(RB_BACKEND_CUDA);
    const int w = 1543, h = 1021;
    rb_image in = tu_random_image(w, h, 3, RB_U8), o0 = tu_random_image(w, h, 3, RB_U8),
             o1 = tu_random_image(w, h, 3, RB_U8);
    assert_non_null(in.data);
    assert_non_null(o0.data);
    assert_non_null(o1.data);
    assert_int_equal(rb_context_warm_up(warmed), RB_OK);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(plain, 10.0, 10.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0.0f};
    rb_plan *p0 = NULL, *p1 = NULL;
    assert_int_equal(rb_plan_create(plain, f, b, w, h, 3, &p0), RB_OK);
    assert_int_equal(rb_plan_create(warmed, f, b, w, h, 3, &p1), RB_OK);
    assert_memory_equal(rb_plan_backend_name(p1), "cuda", 4);
    assert_int_equal(rb_execute(p0, &in, &o0), RB_OK);
    assert_int_equal(rb_execute(p1, &in, &o1), RB_OK);
    assert_memory_equal(o0.data, o1.data, (size_t)w * h * 3);
    rb_plan_destroy(p0);
    rb_plan_destroy(p1);
    rb_filter_destroy(f);
    rb_context_destroy(plain);
    rb_context_destroy(warmed);
    free(in.data);
    free(o0.data);
    free(o1.data);
}

static void test_cuda_destroy_unplanned(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        rb_context *ctx = gpu_test_context(round == 2 ? RB_BACKEND_AUTO : RB_BACKEND_CUDA);
        const size_t before = rb_cuda_device_bytes_in_use();
        assert_int_equal(rb_context_warm_up(ctx), RB_OK);
        assert_non_null(ctx->warm);
        rb_context_destroy(ctx);
        assert_int_equal(rb_cuda_device_bytes_in_use(), before);
    }
}

static int setup(void **state)
{
    (void)state;
    tu_seed(GPU_SUITE);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_null_and_cpu),
        cmocka_unit_test(test_plan_waits),
        cmocka_unit_test(test_auto_real),
        cmocka_unit_test(test_sat_waits),
        cmocka_unit_test(test_destroy_waits),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_cuda_same_result),
        cmocka_unit_test(test_cuda_u8),
        cmocka_unit_test(test_cuda_destroy_unplanned),
    };
    return RB_GPU_SUITE_MAIN(argc, argv, host, device, setup, NULL);
}
