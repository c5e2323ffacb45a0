/* rb_context_host_alloc / rb_context_host_free (issue 17 item 3): the
 * caller's image memory, page-locked where the back end may be cuda so the
 * GPU moves it by DMA; results must not depend on where the images live.
 * Host group (every machine): NULL and 0 give NULL; blocks are page-aligned,
 * writable to their last byte, and freed (also after the context); on the cpu
 * back end and under auto (no GPU: plain memory) a filter into and out of
 * them gives the same bits as into malloc'd images and the float64 reference
 * of the infinite extension within 1e-5.
 * Device group: on cuda (and auto) the block is locked (counted as pinned
 * bytes, given back at free); float32 and 8-bit images in locked memory, the
 * output coming down in strips straight from the device, equal the same
 * filter on malloc'd images bit for bit, and the reference; with locking
 * refused (RECBLUR_CUDA_PINNED_LIMIT=0, RECBLUR_CUDA_HOST_ALLOC=pageable) the
 * block is plain and the result the same. Fresh seed per run (printed);
 * RB_TEST_SEED reproduces. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define GPU_SUITE "test_host_alloc"
#include "rb_internal.h" /* rb_switch_set */
#include "gpu_skip.h"
#include "reference.h"
#include "test_util.h"

#include <stdint.h>
#include <stdlib.h>

/* pinned bytes the CUDA back end holds (cuda/host/rb_cuda_alloc.cu); absent
 * (NULL) in a build without CUDA */
size_t rb_cuda_host_bytes_in_use(void) __attribute__((weak));
static size_t pinned_now(void) { return rb_cuda_host_bytes_in_use ? rb_cuda_host_bytes_in_use() : 0; }

static rb_context *ctx_on(rb_backend be)
{
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, be), RB_OK);
    return ctx;
}

/* ---------------------------------------------- one float filter, two ways */
typedef struct {
    tu_axis ax, ay;
    rb_boundary b;
    int w, h, ch;
    float *x;     /* random input (malloc) */
    double *ref;  /* float64 reference of the infinite extension */
} case_t;

static void case_make(case_t *c, int w, int h)
{
    /* order 4, the Gaussian's: every build compiles its GPU kernels, the
     * benchmark builds that compile no other order too */
    tu_random_axis(&c->ax, 4, 0.9, tu_int(0, 1));
    tu_random_axis(&c->ay, 4, 0.9, tu_int(0, 1));
    static const rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                             RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    c->b = (rb_boundary){modes[tu_int(0, 4)], (float)tu_uniform()};
    c->w = w;
    c->h = h;
    c->ch = tu_int(1, 4);
    const size_t n = (size_t)w * h * c->ch;
    c->x = malloc(n * sizeof *c->x);
    c->ref = malloc(n * sizeof *c->ref);
    double *xd = malloc(n * sizeof *xd);
    assert_non_null(c->x);
    assert_non_null(c->ref);
    assert_non_null(xd);
    for (size_t i = 0; i < n; i++)
        xd[i] = c->x[i] = (float)tu_uniform();
    assert_int_equal(ref_filter_image(&c->ax.f, &c->ay.f, c->b, xd, c->ref, w, h, c->ch), 0);
    free(xd);
}

static void case_free(case_t *c)
{
    free(c->x);
    free(c->ref);
}

/* c on ctx from in to out (either kind of memory); the back end's name */
static const char *case_run(rb_context *ctx, const case_t *c, const float *in, float *out, char *name, size_t len)
{
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    assert_int_equal(rb_filter_create(ctx, &c->ax.f, &c->ay.f, &f), RB_OK);
    assert_int_equal(rb_plan_create(ctx, f, c->b, c->w, c->h, c->ch, &plan), RB_OK);
    rb_image i = tu_f32_image(c->w, c->h, c->ch, (float *)in), o = tu_f32_image(c->w, c->h, c->ch, out);
    assert_int_equal(rb_execute(plan, &i, &o), RB_OK);
    snprintf(name, len, "%s", rb_plan_backend_name(plan));
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    return name;
}

/* The filter on malloc'd images and on ctx's host memory: the same bits, the
 * reference within 1e-5. locked: 1 the blocks must be counted as pinned, 0
 * must not, -1 either. */
static void compare_memory(rb_context *ctx, int w, int h, int locked)
{
    case_t c;
    case_make(&c, w, h);
    const size_t n = (size_t)w * h * c.ch, bytes = n * sizeof(float);
    float *y0 = malloc(bytes);
    assert_non_null(y0);
    const size_t pinned0 = pinned_now();
    float *hx = rb_context_host_alloc(ctx, bytes), *hy = rb_context_host_alloc(ctx, bytes);
    assert_non_null(hx);
    assert_non_null(hy);
    if (locked == 1) {
        assert_int_equal(pinned_now(), pinned0 + 2 * bytes);
        assert_true(rb_context_host_locked(hx) && rb_context_host_locked(hy));
    }
    if (locked == 0) {
        assert_int_equal(pinned_now(), pinned0);
        assert_false(rb_context_host_locked(hx) || rb_context_host_locked(hy));
    }
    memcpy(hx, c.x, bytes);
    for (size_t i = 0; i < n; i++)
        y0[i] = hy[i] = NAN; /* poison: every sample must be written */
    char n0[160], n1[160];
    case_run(ctx, &c, c.x, y0, n0, sizeof n0);
    case_run(ctx, &c, hx, hy, n1, sizeof n1);
    assert_string_equal(n0, n1);
    assert_memory_equal(y0, hy, bytes);
    double *yd = malloc(n * sizeof *yd);
    assert_non_null(yd);
    tu_to_double(hy, yd, n);
    const double e = ref_rel_rms(yd, c.ref, n);
    printf("  %s %dx%dx%d boundary %d, %s memory: = malloc'd, rel RMS %.2e against the reference\n", n1, w, h,
           c.ch, (int)c.b.mode, pinned_now() > pinned0 ? "locked" : "plain", e);
    assert_true(e <= 1e-5);
    rb_context_host_free(ctx, hx);
    rb_context_host_free(ctx, hy);
    assert_int_equal(pinned_now(), pinned0);
    free(yd);
    free(y0);
    case_free(&c);
}

/* ------------------------------------------------------------ host group */
static void test_null_zero(void **state)
{
    (void)state;
    rb_context *ctx = ctx_on(RB_BACKEND_CPU);
    assert_null(rb_context_host_alloc(NULL, 4096));
    assert_null(rb_context_host_alloc(ctx, 0));
    assert_null(rb_context_host_alloc(ctx, SIZE_MAX - 100));
    assert_false(rb_context_host_locked(NULL));
    rb_context_host_free(ctx, NULL);
    rb_context_host_free(NULL, NULL);
    rb_context_destroy(ctx);
}

/* page-aligned, every byte writable and kept; freed after its context too */
static void test_blocks(void **state)
{
    (void)state;
    /* small blocks, and large ones (2 MiB-aligned, huge pages) */
    static const size_t sizes[] = {1, 4095, 4097, 1000003, (size_t)8 << 20, ((size_t)20 << 20) + 17};
    for (int be = RB_BACKEND_AUTO; be <= RB_BACKEND_CPU; be++) {
        rb_context *ctx = ctx_on((rb_backend)be);
        unsigned char *p[6];
        for (int k = 0; k < 6; k++) {
            p[k] = rb_context_host_alloc(ctx, sizes[k]);
            assert_non_null(p[k]);
            assert_int_equal((uintptr_t)p[k] % 4096, 0);
            for (size_t i = 0; i < sizes[k]; i++)
                p[k][i] = (unsigned char)(i * 7 + k);
        }
        for (int k = 0; k < 6; k++)
            for (size_t i = 0; i < sizes[k]; i++)
                if (p[k][i] != (unsigned char)(i * 7 + k))
                    fail_msg("block %d byte %zu changed", k, i);
        for (int k = 0; k < 3; k++)
            rb_context_host_free(ctx, p[k]);
        rb_context_destroy(ctx);
        for (int k = 3; k < 6; k++)
            rb_context_host_free(NULL, p[k]); /* the memory is not the context's */
    }
}

/* the cpu back end never locks; auto locks only where a device takes it */
static void test_cpu_same_result(void **state)
{
    (void)state;
    rb_context *ctx = ctx_on(RB_BACKEND_CPU);
    for (int round = 0; round < 2; round++)
        compare_memory(ctx, tu_int(40, 300), tu_int(40, 300), 0);
    rb_context_destroy(ctx);
    ctx = ctx_on(RB_BACKEND_AUTO);
    compare_memory(ctx, tu_int(40, 300), tu_int(40, 300), gpu_present() ? 1 : 0);
    rb_context_destroy(ctx);
}

/* ---------------------------------------------------------- device group */
static void test_cuda_locked(void **state)
{
    (void)state;
    for (int be = 0; be < 2; be++) {
        rb_context *ctx = gpu_test_context(be ? RB_BACKEND_AUTO : RB_BACKEND_CUDA);
        for (int round = 0; round < 2; round++)
            compare_memory(ctx, tu_int(40, 700), tu_int(40, 700), 1);
        /* strips forced: the output comes down strip by strip, by DMA straight
         * into the locked block (rb_cuda_stage_down's pinned route) */
        assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_STAGING_STRIPS", "4"), RB_OK);
        assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_STAGING_BANDS", "3"), RB_OK);
        compare_memory(ctx, tu_int(300, 900), tu_int(300, 900), 1);
        rb_context_destroy(ctx);
    }
}

/* 8-bit RGB (decoded and encoded on the device) in locked memory, the output
 * in strips: the same bytes as from malloc'd images, and as the cpu's to one
 * 8-bit step */
static void test_cuda_u8(void **state)
{
    (void)state;
    rb_context *g = gpu_test_context(RB_BACKEND_CUDA), *cpu = ctx_on(RB_BACKEND_CPU);
    assert_int_equal(rb_switch_set(g, "RECBLUR_CUDA_STAGING_STRIPS", "4"), RB_OK);
    const int w = 1543, h = 1021;
    const size_t bytes = (size_t)w * h * 3;
    rb_image in = tu_random_image(w, h, 3, RB_U8), o0 = tu_random_image(w, h, 3, RB_U8), o1 = o0, oc = o0;
    oc.data = malloc(bytes);
    const size_t pinned0 = pinned_now();
    o1.data = rb_context_host_alloc(g, bytes);
    unsigned char *hin = rb_context_host_alloc(g, bytes);
    assert_non_null(o1.data);
    assert_non_null(hin);
    assert_int_equal(pinned_now(), pinned0 + 2 * bytes);
    memcpy(hin, in.data, bytes);
    memset(o1.data, 0x5a, bytes);
    rb_filter *f = NULL;
    assert_int_equal(rb_filter_gaussian(g, 10.0, 10.0, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0.0f};
    rb_plan *p = NULL, *pc = NULL;
    assert_int_equal(rb_plan_create(g, f, b, w, h, 3, &p), RB_OK);
    assert_int_equal(rb_plan_create(cpu, f, b, w, h, 3, &pc), RB_OK);
    assert_int_equal(rb_execute(p, &in, &o0), RB_OK);
    rb_image hi = in;
    hi.data = hin;
    assert_int_equal(rb_execute(p, &hi, &o1), RB_OK);
    assert_int_equal(rb_execute(pc, &in, &oc), RB_OK);
    assert_memory_equal(o0.data, o1.data, bytes);
    int maxd = 0;
    for (size_t i = 0; i < bytes; i++) {
        int d = abs((int)((unsigned char *)o1.data)[i] - (int)((unsigned char *)oc.data)[i]);
        maxd = d > maxd ? d : maxd;
    }
    printf("  8-bit RGB %dx%d, locked in and out: = malloc'd; max |cuda - cpu| %d step\n", w, h, maxd);
    assert_true(maxd <= 1);
    rb_plan_destroy(p);
    rb_plan_destroy(pc);
    rb_filter_destroy(f);
    rb_context_host_free(g, o1.data);
    rb_context_host_free(g, hin);
    assert_int_equal(pinned_now(), pinned0);
    rb_context_destroy(g);
    rb_context_destroy(cpu);
    free(in.data);
    free(o0.data);
    free(oc.data);
}

/* locking refused (the pinned test limit), or switched off: plain blocks, the
 * same results */
static void test_cuda_not_locked(void **state)
{
    (void)state;
    setenv("RECBLUR_CUDA_PINNED_LIMIT", "0", 1);
    rb_context *ctx = gpu_test_context(RB_BACKEND_CUDA);
    unsetenv("RECBLUR_CUDA_PINNED_LIMIT");
    /* the staging's slots cannot be pinned either: host images go pageable */
    compare_memory(ctx, tu_int(40, 300), tu_int(40, 300), 0);
    rb_context_destroy(ctx);
    setenv("RECBLUR_CUDA_HOST_ALLOC", "pageable", 1);
    ctx = gpu_test_context(RB_BACKEND_CUDA);
    unsetenv("RECBLUR_CUDA_HOST_ALLOC");
    /* the staging holds its slots (counted); the blocks add nothing */
    compare_memory(ctx, tu_int(40, 300), tu_int(40, 300), 0);
    rb_context_destroy(ctx);
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
        cmocka_unit_test(test_null_zero),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_cpu_same_result),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_cuda_locked),
        cmocka_unit_test(test_cuda_u8),
        cmocka_unit_test(test_cuda_not_locked),
    };
    return RB_GPU_SUITE_MAIN(argc, argv, host, device, setup, NULL);
}
