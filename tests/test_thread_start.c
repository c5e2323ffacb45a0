/* A worker thread the engine cannot create (pthread_create fails, as it does
 * under a process or memory limit) is not an error: the call succeeds with the
 * threads that did start and gives the same bits as a call asked for that many
 * threads. Every CPU fan-out is reached: the sweep (its threads wait for each
 * other at barriers, and its mean-shift sums are split by thread), the general
 * route, the box filter and the deblur wavefront.
 *
 * Linked with -Wl,--wrap=pthread_create (tests/reliability.cmake): the
 * engine's calls come here, where the first `allowed` creations succeed and
 * the rest fail with EAGAIN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "recblur.h"
#include "recblur_deblur.h"
#include "test_util.h"

/* W: the deblur cuts columns into strips of at least 64, so 4 threads get
 * 4 strips; H: 3 bands of the sweep's 64 rows */
#define W 300
#define H 150
#define ASKED 4 /* threads asked for */

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int allowed = -1; /* creations left to succeed; -1: all */
static int refused;      /* creations failed here */

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (allowed == 0) {
        refused++;
        return EAGAIN;
    }
    if (allowed > 0)
        allowed--;
    return __real_pthread_create(t, a, fn, arg);
}

typedef enum { SWEEP, GENERAL, BOX, DEBLUR } route;
static const char *const route_name[] = {"sweep", "general", "box", "deblur"};

static float input[W * H * 4];

/* One call of the route on `threads` threads into out (W x H x 4 floats). */
static void run(route r, int threads, float *out)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CPU), RB_OK);
    assert_int_equal(rb_context_set_threads(ctx, threads), RB_OK);
    /* clamp: the sweep's mean shift runs (its sums are split by thread) */
    const rb_boundary clamp = {RB_BOUNDARY_CLAMP, 0.0f};
    /* straight alpha keeps the general route off the sweep */
    const int ch = r == GENERAL ? 4 : 3;
    rb_image in = {W, H, ch, 0, RB_F32, RB_MEMORY_HOST, r == GENERAL ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE, 0, input};
    rb_image o = in;
    o.data = out;
    rb_status st;
    if (r == BOX) {
        st = rb_box_filter(ctx, 9, 5, clamp, &in, &o);
    } else if (r == DEBLUR) {
        rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, 1.5, 0, 0, NULL};
        rb_deblur_filter *f = NULL;
        rb_deblur_plan *p = NULL;
        st = rb_deblur_design(ctx, &psf, 0.01, 8, 0, &f);
        if (st == RB_OK)
            st = rb_deblur_plan_create(ctx, f, clamp, W, H, ch, &p);
        if (st == RB_OK)
            st = rb_deblur_execute(p, &in, &o);
        rb_deblur_plan_destroy(p);
        rb_deblur_filter_destroy(f);
    } else {
        rb_filter *f = NULL;
        rb_plan *p = NULL;
        st = rb_filter_gaussian(ctx, 6.0, 3.5, RB_GAUSSIAN_DEFAULT, &f);
        if (st == RB_OK)
            st = rb_plan_create(ctx, f, clamp, W, H, ch, &p);
        if (st == RB_OK)
            st = rb_execute(p, &in, &o);
        rb_plan_destroy(p);
        rb_filter_destroy(f);
    }
    if (st != RB_OK)
        fail_msg("%s on %d threads: %s", route_name[r], threads, rb_context_error(ctx));
    rb_context_destroy(ctx);
}

static void check_route(route r)
{
    static float expected[W * H * 4], got[W * H * 4];
    for (int created = 0; created < ASKED - 1; created++) {
        allowed = -1;
        memset(expected, 0, sizeof expected);
        run(r, 1 + created, expected);
        allowed = created;
        refused = 0;
        memset(got, 0, sizeof got);
        run(r, ASKED, got);
        allowed = -1;
        printf("  %s: %d threads asked, %d created, %d refused\n", route_name[r], ASKED, created, refused);
        assert_true(refused > 0); /* the engine did meet a failure */
        if (memcmp(expected, got, sizeof got) != 0)
            fail_msg("%s: %d of %d threads started: not the bits of %d threads", route_name[r], 1 + created,
                     ASKED, 1 + created);
    }
}

static void test_sweep(void **state) { (void)state; check_route(SWEEP); }
static void test_general(void **state) { (void)state; check_route(GENERAL); }
static void test_box(void **state) { (void)state; check_route(BOX); }
static void test_deblur(void **state) { (void)state; check_route(DEBLUR); }

int main(void)
{
    tu_seed("test_thread_start");
    for (int i = 0; i < W * H * 4; i++)
        input[i] = (float)tu_uniform();
    /* an opaque-ish alpha for the general route (straight alpha divides by it) */
    for (int i = 3; i < W * H * 4; i += 4)
        input[i] = 0.25f + 0.75f * input[i];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_general),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_deblur),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
