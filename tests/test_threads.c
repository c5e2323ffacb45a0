/* Thread safety (issue 7): separate contexts and plans used from 2 and 4
 * threads at once give bit-identical results to one thread doing the same
 * work alone; filters are shared read-only between the threads; a plan
 * made in one thread may run in another (not at the same time). What is
 * and is not safe is listed in docs/RELIABILITY.md. Also run under
 * ThreadSanitizer (see there). */
#define _GNU_SOURCE /* M_PI (test_util.h) under -std=c11 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>

#include "test_util.h"

#define W 203
#define H 117
#define CH 3

/* One job: a filter, a boundary, an output format and how many worker
 * threads the engine may use inside each call. */
typedef struct {
    int filter;
    rb_boundary boundary;
    rb_format out_format;
    int engine_threads;
} job;

static rb_filter *filters[3];
static job jobs[12];
static int njobs;
static float *input;
static unsigned char *expected[12];
static size_t out_bytes[12];

static size_t sample_size(rb_format f) { return f == RB_U8 ? 1 : f == RB_U16 ? 2 : 4; }

/* Run job j in context ctx into out (allocated by the caller). */
static rb_status run_job(rb_context *ctx, const job *jb, void *out)
{
    rb_plan *p = NULL;
    rb_status s = rb_context_set_threads(ctx, jb->engine_threads);
    if (s == RB_OK)
        s = rb_plan_create(ctx, filters[jb->filter], jb->boundary, W, H, CH, &p);
    if (s != RB_OK)
        return s;
    rb_image in = {W, H, CH, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, input};
    rb_image o = {W, H, CH, 0, jb->out_format, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, out};
    s = rb_execute(p, &in, &o);
    rb_plan_destroy(p);
    return s;
}

static int setup(void **state)
{
    (void)state;
    rb_context *ctx;
    if (rb_context_create(&ctx) != RB_OK)
        return -1;
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    rb_axis_filter a;
    memset(&a, 0, sizeof a);
    a.causal_order = a.anticausal_order = 3;
    tu_random_feedback(3, 0.9, a.causal);
    tu_random_feedback(3, 0.8, a.anticausal);
    if (rb_filter_gaussian(ctx, 4.0, 7.5, RB_GAUSSIAN_DEFAULT, &filters[0]) != RB_OK ||
        rb_filter_create(ctx, &a, &a, &filters[1]) != RB_OK || rb_filter_bspline(ctx, 3, &filters[2]) != RB_OK)
        return -1;
    static const rb_boundary_mode modes[] = {RB_BOUNDARY_MIRROR, RB_BOUNDARY_PERIODIC, RB_BOUNDARY_CONSTANT,
                                             RB_BOUNDARY_CLAMP};
    static const rb_format fmts[] = {RB_F32, RB_U8, RB_U16};
    njobs = 0;
    for (int f = 0; f < 3; f++)
        for (int k = 0; k < 4; k++) {
            job *jb = &jobs[njobs];
            jb->filter = f;
            jb->boundary.mode = modes[(f + k) % 4];
            jb->boundary.value = 0.25f;
            jb->out_format = fmts[k % 3];
            jb->engine_threads = 1 + k % 2;
            out_bytes[njobs] = (size_t)W * H * CH * sample_size(jb->out_format);
            njobs++;
        }
    input = malloc(sizeof(float) * W * H * CH);
    if (!input)
        return -1;
    for (int i = 0; i < W * H * CH; i++)
        input[i] = (float)tu_uniform();
    /* the expected results: one thread, one call at a time */
    for (int j = 0; j < njobs; j++) {
        expected[j] = malloc(out_bytes[j]);
        if (!expected[j] || run_job(ctx, &jobs[j], expected[j]) != RB_OK) {
            fprintf(stderr, "job %d: %s\n", j, rb_context_error(ctx));
            return -1;
        }
    }
    rb_context_destroy(ctx);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int f = 0; f < 3; f++)
        rb_filter_destroy(filters[f]);
    for (int j = 0; j < njobs; j++)
        free(expected[j]);
    free(input);
    return 0;
}

typedef struct {
    int id, rounds;
    int mismatches, errors;
    char first_error[256];
} worker_state;

/* Each worker: its own context, its own plans (made per job), the shared
 * filters and input; jobs in a worker-specific order, several rounds. */
static void *worker(void *arg)
{
    worker_state *ws = arg;
    rb_context *ctx = NULL;
    if (rb_context_create(&ctx) != RB_OK) {
        ws->errors++;
        return NULL;
    }
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    unsigned char *out = malloc((size_t)W * H * CH * 4);
    for (int r = 0; out && r < ws->rounds; r++)
        for (int k = 0; k < njobs; k++) {
            int j = (k * 5 + ws->id * 7 + r) % njobs;
            memset(out, 0xEE, out_bytes[j]);
            if (run_job(ctx, &jobs[j], out) != RB_OK) {
                if (!ws->errors++)
                    snprintf(ws->first_error, sizeof ws->first_error, "%s", rb_context_error(ctx));
                continue;
            }
            if (memcmp(out, expected[j], out_bytes[j]) != 0)
                ws->mismatches++;
        }
    if (!out)
        ws->errors++;
    free(out);
    rb_context_destroy(ctx);
    return NULL;
}

static void run_threads(int nthreads, int rounds)
{
    pthread_t tid[8];
    worker_state ws[8];
    memset(ws, 0, sizeof ws);
    for (int t = 0; t < nthreads; t++) {
        ws[t].id = t;
        ws[t].rounds = rounds;
        assert_int_equal(pthread_create(&tid[t], NULL, worker, &ws[t]), 0);
    }
    int bad = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(tid[t], NULL);
        printf("  %d threads: worker %d ran %d jobs: %d mismatches, %d errors %s\n", nthreads, t,
               rounds * njobs, ws[t].mismatches, ws[t].errors, ws[t].first_error);
        bad += ws[t].mismatches + ws[t].errors;
    }
    assert_int_equal(bad, 0);
}

static void test_two_threads(void **state)
{
    (void)state;
    run_threads(2, 3);
}

static void test_four_threads(void **state)
{
    (void)state;
    run_threads(4, 2);
}

/* A plan made in one thread runs in another, one at a time: same bits. */
typedef struct {
    rb_plan *plan;
    void *out;
    rb_format fmt;
    rb_status status;
} handoff;

static void *execute_elsewhere(void *arg)
{
    handoff *h = arg;
    rb_image in = {W, H, CH, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, input};
    rb_image o = {W, H, CH, 0, h->fmt, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, h->out};
    h->status = rb_execute(h->plan, &in, &o);
    return NULL;
}

static void test_plan_handed_to_another_thread(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    for (int j = 0; j < njobs; j++) {
        handoff h = {NULL, malloc(out_bytes[j]), jobs[j].out_format, RB_OK};
        assert_non_null(h.out);
        assert_int_equal(rb_context_set_threads(ctx, jobs[j].engine_threads), RB_OK);
        assert_int_equal(rb_plan_create(ctx, filters[jobs[j].filter], jobs[j].boundary, W, H, CH, &h.plan),
                         RB_OK);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, execute_elsewhere, &h), 0);
        pthread_join(t, NULL);
        assert_int_equal(h.status, RB_OK);
        assert_memory_equal(h.out, expected[j], out_bytes[j]);
        rb_plan_destroy(h.plan);
        free(h.out);
    }
    rb_context_destroy(ctx);
}

int main(void)
{
    tu_seed("test_threads");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_four_threads),
        cmocka_unit_test(test_plan_handed_to_another_thread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
