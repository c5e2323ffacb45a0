/* The quadrant deblur filter's CUDA back end (cuda/rb_cuda_deblur.cu, the
 * flexible single-launch wavefront) against an independent float64 direct
 * evaluation of the recursion in recblur_deblur.h: random stable coefficient
 * sets, odd sizes, m in {2, 3, 7, 15, 31}, every boundary mode, 1-4
 * channels; any grid size gives the same bits (no deadlock, no dependence
 * on the order blocks start); U8/U16 in and out; device errors (simulated
 * out-of-memory, failing launch) give a clear error under --backend cuda,
 * leak nothing and leave the output untouched, and fall back to the CPU
 * under auto. Without a usable GPU the GPU cases skip with a message and the
 * dispatch rules (cuda = clear error, auto = CPU) are checked instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_internal.h"
#include "recblur.h"
#include "recblur_deblur.h"

static int gpu_present(void)
{
    static int cached = -1;
    if (cached < 0) {
        char why[256] = "";
        const rb_backend_ops *ops = rb_backend_cuda();
        cached = ops && ops->probe && ops->probe(why, sizeof why) == RB_OK;
        if (!cached)
            fprintf(stderr, "test_deblur_gpu: %s\n", why[0] ? why : "CUDA back end not built");
    }
    return cached;
}

#define NEED_GPU()                                                                         \
    do {                                                                                   \
        if (!gpu_present()) {                                                              \
            fprintf(stderr, "test_deblur_gpu: skipped: no usable CUDA device\n");          \
            skip();                                                                        \
        }                                                                                  \
    } while (0)

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void) /* [0,1) xorshift, deterministic */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Random a, and b with sum |b| = gain < 1 over a random sub-window (a
 * contraction in the sup norm, so stable); full: b over the whole window. */
static void random_quadrant(int m, double gain, int full, double *a, double *b)
{
    for (int k = 0; k < m * m; k++)
        a[k] = (urand() * 2 - 1) / m;
    memset(b, 0, sizeof(double) * (size_t)m * m);
    int rb = full ? m : 1 + (int)(urand() * m), cb = full ? m : 1 + (int)(urand() * m);
    if (rb * cb < 2)
        cb = 2;
    double s = 0;
    for (int i = 0; i < rb; i++)
        for (int j = 0; j < cb; j++)
            if (i || j) {
                b[i * m + j] = urand() * 2 - 1;
                s += fabs(b[i * m + j]);
            }
    for (int k = 0; k < m * m; k++)
        b[k] *= gain / s;
}

/* Decays on the engine's 512 x 512 stability grid (see test_deblur_engine.c). */
static double gain_for(int m)
{
    double g = pow(10.0, -9.0 * (m - 1) / 256.0);
    return g < 0.9 ? g : 0.9;
}

/* Boundary extension from its definition (not the engine's code). */
static double ext_value(const double *img, int w, int h, int ch, int c, long i, long j,
                        rb_boundary b)
{
    long n[2] = {h, w}, k[2] = {i, j};
    for (int d = 0; d < 2; d++) {
        if (k[d] >= 0 && k[d] < n[d])
            continue;
        switch (b.mode) {
        case RB_BOUNDARY_CLAMP: k[d] = k[d] < 0 ? 0 : n[d] - 1; break;
        case RB_BOUNDARY_PERIODIC: k[d] = ((k[d] % n[d]) + n[d]) % n[d]; break;
        case RB_BOUNDARY_MIRROR: {
            long p = ((k[d] % (2 * n[d])) + 2 * n[d]) % (2 * n[d]);
            k[d] = p < n[d] ? p : 2 * n[d] - 1 - p;
            break;
        }
        case RB_BOUNDARY_CONSTANT: return b.value;
        default: return 0.0;
        }
    }
    return img[(k[0] * w + k[1]) * ch + c];
}

/* Direct float64 evaluation of recblur_deblur.h: each quadrant scans from its
 * corner from a zero state P pixels before the image on its leading sides
 * (extended input there); the four are summed. */
static void reference(int m, double *const a[4], double *const b[4], rb_boundary bd, int P,
                      const double *in, double *out, int w, int h, int ch)
{
    long off = P + m, H2 = h + 2 * off, W2 = w + 2 * off;
    double *X = malloc(sizeof(double) * H2 * W2), *Y = malloc(sizeof(double) * H2 * W2);
    assert_non_null(X);
    assert_non_null(Y);
    memset(out, 0, sizeof(double) * (size_t)w * h * ch);
    for (int c = 0; c < ch; c++)
        for (int q = 0; q < 4; q++) {
            int si = (q & 2) ? -1 : 1, sj = (q & 1) ? -1 : 1;
            for (long i = 0; i < H2; i++)
                for (long j = 0; j < W2; j++) {
                    long ii = i - off, jj = j - off;
                    int inside = ii >= -P && ii < h + P && jj >= -P && jj < w + P;
                    X[i * W2 + j] = inside ? ext_value(in, w, h, ch, c, ii, jj, bd) : 0.0;
                    Y[i * W2 + j] = 0.0;
                }
            for (long t1 = 0; t1 < h + P; t1++)
                for (long t2 = 0; t2 < w + P; t2++) {
                    long ii = si > 0 ? t1 - P : h - 1 + P - t1;
                    long jj = sj > 0 ? t2 - P : w - 1 + P - t2;
                    double s = 0;
                    for (int r1 = 0; r1 < m; r1++)
                        for (int r2 = 0; r2 < m; r2++) {
                            long xi = ii - si * r1, xj = jj - sj * r2;
                            int before = (si > 0 ? xi < -P : xi > h - 1 + P) ||
                                         (sj > 0 ? xj < -P : xj > w - 1 + P);
                            if (before)
                                continue;
                            s += a[q][r1 * m + r2] * X[(xi + off) * W2 + xj + off];
                            if (r1 || r2)
                                s += b[q][r1 * m + r2] * Y[(xi + off) * W2 + xj + off];
                        }
                    Y[(ii + off) * W2 + jj + off] = s;
                }
            for (long i = 0; i < h; i++)
                for (long j = 0; j < w; j++)
                    out[(i * w + j) * ch + c] += Y[(i + off) * W2 + j + off];
        }
    free(X);
    free(Y);
}

static double rel_rms(const float *x, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t k = 0; k < n; k++) {
        num += (x[k] - ref[k]) * (x[k] - ref[k]);
        den += ref[k] * ref[k];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

typedef struct {
    int m, w, h, ch, full;
} case_t;

typedef struct {
    int m;
    double *a[4], *b[4];
    rb_deblur_filter *f;
} coefs;

static void coefs_make(rb_context *ctx, int m, int full, coefs *c)
{
    c->m = m;
    for (int q = 0; q < 4; q++) {
        c->a[q] = malloc(sizeof(double) * m * m);
        c->b[q] = malloc(sizeof(double) * m * m);
        random_quadrant(m, gain_for(m), full, c->a[q], c->b[q]);
    }
    rb_status st = rb_deblur_filter_create(ctx, m, (const double *const *)c->a,
                                           (const double *const *)c->b, &c->f);
    if (st != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
}

static void coefs_free(coefs *c)
{
    rb_deblur_filter_destroy(c->f);
    for (int q = 0; q < 4; q++)
        free(c->a[q]), free(c->b[q]);
}

static rb_context *cuda_ctx(void)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, RB_BACKEND_CUDA), RB_OK);
    return ctx;
}

/* Run one case on the GPU; returns the rel RMS against the reference. */
static double run_case(const case_t *cs, rb_boundary bd)
{
    rb_context *ctx = cuda_ctx();
    coefs c;
    coefs_make(ctx, cs->m, cs->full, &c);
    const int w = cs->w, h = cs->h, ch = cs->ch;
    rb_deblur_plan *p;
    if (rb_deblur_plan_create(ctx, c.f, bd, w, h, ch, &p) != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
    size_t n = (size_t)w * h * ch;
    double *in = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
    float *fin = malloc(sizeof(float) * n), *fout = malloc(sizeof(float) * n);
    for (size_t k = 0; k < n; k++)
        fin[k] = (float)urand(), in[k] = fin[k], fout[k] = NAN;
    rb_image I = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, fin};
    rb_image O = I;
    O.data = fout;
    if (rb_deblur_execute(p, &I, &O) != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
    if (strncmp(rb_deblur_plan_backend_name(p), "cuda", 4) != 0)
        fail_msg("ran on '%s', not the GPU", rb_deblur_plan_backend_name(p));
    int P = rb_deblur_plan_margin(p);
    reference(cs->m, c.a, c.b, bd, P, in, ref, w, h, ch);
    double e = rel_rms(fout, ref, n);
    if (!(e <= 1e-5))
        fail_msg("m=%d %dx%dx%d boundary %s margin %d: GPU vs float64 rel RMS %g > 1e-5", cs->m, w,
                 h, ch, rb_boundary_name(bd.mode), P, e);
    /* in == out gives the same pixels */
    float *copy = malloc(sizeof(float) * n);
    memcpy(copy, fin, sizeof(float) * n);
    I.data = O.data = copy;
    assert_int_equal(rb_deblur_execute(p, &I, &O), RB_OK);
    assert_memory_equal(copy, fout, sizeof(float) * n);
    free(copy), free(in), free(ref), free(fin), free(fout);
    rb_deblur_plan_destroy(p);
    coefs_free(&c);
    rb_context_destroy(ctx);
    return e;
}

static void test_gpu_against_reference(void **state)
{
    (void)state;
    NEED_GPU();
    /* widths past one 32-column strip (plus the margin) exercise the halo
     * hand-over between strips; 1-pixel sides the degenerate cases */
    const case_t cases[] = {
        {2, 13, 9, 1, 0},    {2, 101, 37, 2, 1},  {3, 31, 17, 2, 0},  {3, 1, 19, 1, 0},
        {3, 23, 1, 3, 1},    {7, 67, 45, 3, 0},   {7, 131, 29, 4, 1}, {15, 37, 29, 1, 0},
        {15, 99, 41, 2, 1},  {31, 45, 39, 1, 0},  {31, 77, 33, 1, 1},
    };
    const rb_boundary bds[] = {
        {RB_BOUNDARY_ZERO, 0},  {RB_BOUNDARY_NONE, 0},   {RB_BOUNDARY_CONSTANT, 0.3f},
        {RB_BOUNDARY_CLAMP, 0}, {RB_BOUNDARY_MIRROR, 0}, {RB_BOUNDARY_PERIODIC, 0},
    };
    double worst = 0;
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (size_t bi = 0; bi < sizeof bds / sizeof *bds; bi++) {
            if (cases[c].m == 31 && (bi + c) % 2)
                continue; /* the biggest window: half the boundaries keep the suite quick */
            double e = run_case(&cases[c], bds[bi]);
            worst = e > worst ? e : worst;
            n++;
        }
    fprintf(stderr, "test_deblur_gpu: %d cases, worst GPU vs float64 rel RMS %.3g\n", n, worst);
}

/* Any number of blocks, one included, computes the same bits: blocks claim
 * strips by ticket, so no grid size can deadlock and no schedule changes a
 * pixel. */
static void test_any_grid_size(void **state)
{
    (void)state;
    NEED_GPU();
    rb_context *ctx = cuda_ctx();
    coefs c;
    coefs_make(ctx, 7, 1, &c);
    const int w = 301, h = 157, ch = 2;
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    rb_deblur_plan *p;
    assert_int_equal(rb_deblur_plan_create(ctx, c.f, bd, w, h, ch, &p), RB_OK);
    size_t n = (size_t)w * h * ch;
    float *in = malloc(sizeof(float) * n), *o0 = malloc(sizeof(float) * n),
          *o1 = malloc(sizeof(float) * n);
    for (size_t k = 0; k < n; k++)
        in[k] = (float)urand();
    rb_image I = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
    rb_image O = I;
    O.data = o0;
    assert_int_equal(rb_deblur_execute(p, &I, &O), RB_OK);
    const char *grids[] = {"1", "2", "3", "7", "1000"};
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        setenv("RECBLUR_CUDA_DEBLUR_GRID", grids[g], 1);
        for (size_t k = 0; k < n; k++)
            o1[k] = NAN;
        O.data = o1;
        rb_status st = rb_deblur_execute(p, &I, &O);
        unsetenv("RECBLUR_CUDA_DEBLUR_GRID");
        if (st != RB_OK)
            fail_msg("grid %s: %s", grids[g], rb_context_error(ctx));
        assert_non_null(strstr(rb_deblur_plan_backend_name(p), "cuda"));
        if (memcmp(o0, o1, sizeof(float) * n) != 0)
            fail_msg("grid %s blocks: output differs from the default grid", grids[g]);
    }
    free(in), free(o0), free(o1);
    rb_deblur_plan_destroy(p);
    coefs_free(&c);
    rb_context_destroy(ctx);
}

/* U8 and U16 through the engine's pixel conversion: GPU == CPU back end
 * (both round the same float sums; allow one unit for float summation order). */
static void test_integer_formats(void **state)
{
    (void)state;
    NEED_GPU();
    rb_context *gctx = cuda_ctx(), *cctx;
    assert_int_equal(rb_context_create(&cctx), RB_OK);
    rb_context_set_backend(cctx, RB_BACKEND_CPU);
    coefs c;
    coefs_make(gctx, 5, 0, &c);
    const int w = 83, h = 61, ch = 3;
    rb_boundary bd = {RB_BOUNDARY_CLAMP, 0};
    rb_deblur_plan *pg, *pc;
    assert_int_equal(rb_deblur_plan_create(gctx, c.f, bd, w, h, ch, &pg), RB_OK);
    assert_int_equal(rb_deblur_plan_create(cctx, c.f, bd, w, h, ch, &pc), RB_OK);
    size_t n = (size_t)w * h * ch;
    for (int fmt = 0; fmt < 2; fmt++) {
        rb_format F = fmt ? RB_U16 : RB_U8;
        size_t bs = fmt ? 2 : 1;
        unsigned char *in = malloc(n * bs), *og = malloc(n * bs), *oc = malloc(n * bs);
        for (size_t k = 0; k < n * bs; k++)
            in[k] = (unsigned char)(urand() * 256);
        rb_image I = {w, h, ch, 0, F, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
        rb_image O = I;
        O.data = og;
        assert_int_equal(rb_deblur_execute(pg, &I, &O), RB_OK);
        O.data = oc;
        assert_int_equal(rb_deblur_execute(pc, &I, &O), RB_OK);
        long worst = 0, nonzero = 0;
        for (size_t k = 0; k < n; k++) {
            long g = fmt ? ((uint16_t *)og)[k] : og[k], r = fmt ? ((uint16_t *)oc)[k] : oc[k];
            worst = labs(g - r) > worst ? labs(g - r) : worst;
            nonzero += r != 0;
        }
        if (worst > 1)
            fail_msg("%s: GPU and CPU differ by %ld units", fmt ? "U16" : "U8", worst);
        assert_true(nonzero > (long)n / 10); /* the filter did produce an image */
        free(in), free(og), free(oc);
    }
    rb_deblur_plan_destroy(pg);
    rb_deblur_plan_destroy(pc);
    coefs_free(&c);
    rb_context_destroy(gctx);
    rb_context_destroy(cctx);
}

static int log_lines;
static char last_log[512];
static void on_log(const char *msg, void *user)
{
    (void)user;
    log_lines++;
    snprintf(last_log, sizeof last_log, "%s", msg);
}

/* Device failures: under cuda a clear RB_ERR_DEVICE, nothing leaked, the
 * output untouched; under auto the CPU takes over, says so, and the result is
 * still right. */
static void test_device_errors(void **state)
{
    (void)state;
    NEED_GPU();
    const char *env[][2] = {{"RECBLUR_CUDA_ALLOC_LIMIT", "4096"}, {"RECBLUR_CUDA_FAIL_LAUNCH", "1"}};
    for (int e = 0; e < 2; e++)
        for (int backend = 0; backend < 2; backend++) {
            rb_context *ctx;
            assert_int_equal(rb_context_create(&ctx), RB_OK);
            rb_context_set_backend(ctx, backend ? RB_BACKEND_AUTO : RB_BACKEND_CUDA);
            rb_context_set_log(ctx, on_log, NULL);
            coefs c;
            coefs_make(ctx, 4, 0, &c);
            const int w = 71, h = 53;
            rb_boundary bd = {RB_BOUNDARY_PERIODIC, 0};
            rb_deblur_plan *p;
            assert_int_equal(rb_deblur_plan_create(ctx, c.f, bd, w, h, 1, &p), RB_OK);
            float *in = malloc(sizeof(float) * w * h), *out = malloc(sizeof(float) * w * h);
            double *din = malloc(sizeof(double) * w * h), *ref = malloc(sizeof(double) * w * h);
            for (int k = 0; k < w * h; k++)
                in[k] = (float)urand(), din[k] = in[k], out[k] = -7.f;
            rb_image I = {w, h, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
            rb_image O = I;
            O.data = out;
            size_t before = rb_cuda_device_bytes_in_use();
            setenv(env[e][0], env[e][1], 1);
            log_lines = 0;
            rb_status st = rb_deblur_execute(p, &I, &O);
            unsetenv(env[e][0]);
            assert_int_equal(rb_cuda_device_bytes_in_use(), before);
            if (!backend) {
                assert_int_equal(st, RB_ERR_DEVICE);
                assert_non_null(strstr(rb_context_error(ctx), "deblur (cuda)"));
                for (int k = 0; k < w * h; k++)
                    assert_true(out[k] == -7.f);
            } else {
                if (st != RB_OK)
                    fail_msg("auto after a GPU failure: %s", rb_context_error(ctx));
                assert_true(log_lines > 0);
                assert_non_null(strstr(last_log, "falling back to the cpu"));
                assert_non_null(strstr(rb_deblur_plan_backend_name(p), "cpu"));
                reference(4, c.a, c.b, bd, rb_deblur_plan_margin(p), din, ref, w, h, 1);
                assert_true(rel_rms(out, ref, (size_t)w * h) <= 1e-5);
            }
            free(in), free(out), free(din), free(ref);
            rb_deblur_plan_destroy(p);
            coefs_free(&c);
            rb_context_destroy(ctx);
        }
}

/* Without a usable GPU: --backend cuda is a clear error at plan time, auto
 * runs on the CPU. (With a GPU: auto picks it.) */
static void test_dispatch(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    coefs c;
    coefs_make(ctx, 3, 0, &c);
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    rb_deblur_plan *p = NULL;
    rb_context_set_backend(ctx, RB_BACKEND_CUDA);
    rb_status st = rb_deblur_plan_create(ctx, c.f, bd, 40, 30, 1, &p);
    if (gpu_present()) {
        assert_int_equal(st, RB_OK);
        assert_non_null(strstr(rb_deblur_plan_backend_name(p), "cuda"));
    } else {
        assert_int_equal(st, RB_ERR_BACKEND);
        assert_null(p);
        assert_non_null(strstr(rb_context_error(ctx), "cuda back end was requested"));
        fprintf(stderr, "test_deblur_gpu: no GPU: --backend cuda says: %s\n", rb_context_error(ctx));
    }
    rb_deblur_plan_destroy(p);
    p = NULL;
    rb_context_set_backend(ctx, RB_BACKEND_AUTO);
    assert_int_equal(rb_deblur_plan_create(ctx, c.f, bd, 40, 30, 1, &p), RB_OK);
    assert_non_null(strstr(rb_deblur_plan_backend_name(p), gpu_present() ? "cuda" : "cpu"));
    rb_deblur_plan_destroy(p);
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    assert_int_equal(rb_deblur_plan_create(ctx, c.f, bd, 40, 30, 1, &p), RB_OK);
    assert_non_null(strstr(rb_deblur_plan_backend_name(p), "cpu"));
    rb_deblur_plan_destroy(p);
    coefs_free(&c);
    rb_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_gpu_against_reference),
        cmocka_unit_test(test_any_grid_size),
        cmocka_unit_test(test_integer_formats),
        cmocka_unit_test(test_device_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
