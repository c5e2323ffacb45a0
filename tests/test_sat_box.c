/* Summed-area tables against naive double sums (exact for integer input with
 * F64 output), box filters against a naive windowed average of the explicit
 * extension, every boundary mode, odd and even sizes, sizes beyond the image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_util.h"

static void test_sat_exact(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    for (int rep = 0; rep < 12; rep++) {
        int w = tu_int(1, 70), h = tu_int(1, 50), ch = tu_int(1, 4);
        rb_format fin = rep % 3 == 0 ? RB_U8 : rep % 3 == 1 ? RB_U16 : RB_F32;
        size_t n = (size_t)w * h * ch;
        void *in = malloc(n * 4);
        double *v = malloc(n * 8), *want = malloc(n * 8), *got = malloc(n * 8);
        float *gotf = malloc(n * 4);
        for (size_t i = 0; i < n; i++) {
            if (fin == RB_U8)
                v[i] = ((uint8_t *)in)[i] = (uint8_t)tu_int(0, 255);
            else if (fin == RB_U16)
                v[i] = ((uint16_t *)in)[i] = (uint16_t)tu_int(0, 65535);
            else
                v[i] = ((float *)in)[i] = (float)(tu_uniform() - 0.3);
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++) {
                    double s = 0; /* naive: the whole rectangle */
                    for (int yy = 0; yy <= y; yy++)
                        for (int xx = 0; xx <= x; xx++)
                            s += v[((size_t)yy * w + xx) * ch + c];
                    want[((size_t)y * w + x) * ch + c] = s;
                }
        rb_image i = {w, h, ch, 0, fin, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
        rb_image o = {w, h, ch, 0, RB_F64, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, got};
        assert_int_equal(rb_sat(ctx, &i, &o), RB_OK);
        o.format = RB_F32;
        o.data = gotf;
        assert_int_equal(rb_sat(ctx, &i, &o), RB_OK);
        for (size_t k = 0; k < n; k++) {
            if (fin != RB_F32)
                assert_true(got[k] == want[k]); /* integers: exact */
            else
                assert_true(fabs(got[k] - want[k]) <= 1e-9 * (1 + fabs(want[k])));
            assert_true(fabs(gotf[k] - want[k]) <= 6e-8 * fabs(want[k]) + 1e-9);
        }
        free(in); free(v); free(want); free(got); free(gotf);
    }
    /* errors */
    uint8_t px[4] = {1, 2, 3, 4};
    rb_image i = {2, 2, 1, 0, RB_U8, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, px};
    rb_image o = i;
    uint8_t dst[4];
    o.data = dst;
    assert_int_equal(rb_sat(ctx, &i, &o), RB_ERR_UNSUPPORTED); /* U8 output */
    assert_true(strlen(rb_context_error(ctx)) > 0);
    assert_int_equal(rb_sat(ctx, NULL, &o), RB_ERR_NULL);
    o.format = RB_F32;
    o.width = 3;
    assert_int_equal(rb_sat(ctx, &i, &o), RB_ERR_SIZE);
    rb_context_destroy(ctx);
}

static long imod(long i, long p)
{
    long j = i % p;
    return j < 0 ? j + p : j;
}

static double ext(const double *x, long n, long stride, long i, rb_boundary b)
{
    if (i >= 0 && i < n)
        return x[i * stride];
    switch (b.mode) {
    case RB_BOUNDARY_CONSTANT: return b.value;
    case RB_BOUNDARY_CLAMP: return x[(i < 0 ? 0 : n - 1) * stride];
    case RB_BOUNDARY_PERIODIC: return x[imod(i, n) * stride];
    case RB_BOUNDARY_MIRROR: {
        long j = imod(i, 2 * n);
        return x[(j < n ? j : 2 * n - 1 - j) * stride];
    }
    default: return 0.0;
    }
}

static void test_box(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR, RB_BOUNDARY_NONE};
    for (int m = 0; m < 6; m++)
        for (int rep = 0; rep < 4; rep++) {
            int w = tu_int(1, 40), h = tu_int(1, 30), ch = tu_int(1, 4);
            int sx = rep == 3 ? 2 * w + 3 : tu_int(1, 9), sy = rep == 3 ? 3 * h + 2 : tu_int(1, 9);
            rb_boundary b = {modes[m], 0.3f};
            size_t n = (size_t)w * h * ch;
            float *in = malloc(n * 4), *out = malloc(n * 4);
            double *v = malloc(n * 8), *t = malloc(n * 8), *want = malloc(n * 8);
            for (size_t i = 0; i < n; i++)
                v[i] = in[i] = (float)tu_uniform();
            /* columns: window -(s/2) .. s-1-s/2 */
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++)
                    for (int y = 0; y < h; y++) {
                        double s = 0;
                        for (int k = -(sy / 2); k <= sy - 1 - sy / 2; k++)
                            s += ext(v + (size_t)x * ch + c, h, (long)w * ch, y + k, b);
                        t[((size_t)y * w + x) * ch + c] = s / sy;
                    }
            for (int y = 0; y < h; y++)
                for (int c = 0; c < ch; c++)
                    for (int x = 0; x < w; x++) {
                        double s = 0;
                        for (int k = -(sx / 2); k <= sx - 1 - sx / 2; k++)
                            s += ext(t + (size_t)y * w * ch + c, w, ch, x + k, b);
                        want[((size_t)y * w + x) * ch + c] = s / sx;
                    }
            rb_image i = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
            rb_image o = i;
            o.data = out;
            assert_int_equal(rb_box_filter(ctx, sx, sy, b, &i, &o), RB_OK);
            double maxe = 0;
            for (size_t k = 0; k < n; k++)
                maxe = fmax(maxe, fabs(out[k] - want[k]));
            if (maxe > 2e-6)
                fail_msg("box %dx%d on %dx%dx%d %s: max error %g", sx, sy, w, h, ch,
                         rb_boundary_name(modes[m]), maxe);
            free(in); free(out); free(v); free(t); free(want);
        }
    float px = 1;
    rb_image i = {1, 1, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, &px};
    rb_boundary b = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_box_filter(ctx, 0, 3, b, &i, &i), RB_ERR_ARGUMENT);
    assert_true(strlen(rb_context_error(ctx)) > 0);
    assert_true(px == 1);
    rb_context_destroy(ctx);
}

/* The banded, threaded route: any thread count gives the F32 answer bit for
 * bit, in place too; 8-bit straight-alpha images land on the rounding floor
 * of the premultiplied float64 average (colour un-premultiplied by the
 * averaged alpha). */
static void test_box_bands_inplace_u8(void **state)
{
    (void)state;
    for (int rep = 0; rep < 6; rep++) {
        int w = tu_int(3, 50), h = tu_int(3, 70), ch = 4;
        int sx = tu_int(1, 2 * w + 5), sy = tu_int(1, 2 * h + 5);
        rb_boundary_mode modes[] = {RB_BOUNDARY_CLAMP, RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR,
                                    RB_BOUNDARY_CONSTANT};
        rb_boundary b = {modes[rep % 4], 0.6f};
        size_t n = (size_t)w * h * ch;
        float *in = malloc(n * 4), *ref = malloc(n * 4), *inpl = malloc(n * 4);
        unsigned char *u8 = malloc(n), *o8 = malloc(n);
        for (size_t i = 0; i < n; i++) {
            u8[i] = (unsigned char)tu_int(0, 255);
            in[i] = inpl[i] = (float)tu_uniform();
        }
        rb_context *c1, *c5;
        assert_int_equal(rb_context_create(&c1), RB_OK);
        assert_int_equal(rb_context_create(&c5), RB_OK);
        assert_int_equal(rb_context_set_threads(c1, 1), RB_OK);
        assert_int_equal(rb_context_set_threads(c5, 5), RB_OK);
        rb_image fi = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
        rb_image fo = fi, fp = fi;
        fo.data = ref;
        fp.data = inpl;
        assert_int_equal(rb_box_filter(c1, sx, sy, b, &fi, &fo), RB_OK);
        assert_int_equal(rb_box_filter(c5, sx, sy, b, &fp, &fp), RB_OK); /* in place, 5 bands */
        assert_memory_equal(ref, inpl, n * sizeof(float));

        rb_image ui = {w, h, ch, 0, RB_U8, RB_MEMORY_HOST, RB_ALPHA_STRAIGHT, 0, u8};
        rb_image uo = ui;
        uo.data = o8;
        assert_int_equal(rb_box_filter(c5, sx, sy, b, &ui, &uo), RB_OK);
        /* float64 reference: premultiply, average over the extension, un-premultiply */
        double *pm = malloc(n * 8);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const unsigned char *p = u8 + ((size_t)y * w + x) * ch;
                double a = p[3] / 255.0;
                for (int c = 0; c < 3; c++)
                    pm[((size_t)y * w + x) * ch + c] = p[c] / 255.0 * a;
                pm[((size_t)y * w + x) * ch + 3] = a;
            }
        double cst[4] = {0.6 * 0.6, 0.6 * 0.6, 0.6 * 0.6, 0.6}; /* constant pixel, premultiplied */
        double worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double acc[4] = {0, 0, 0, 0};
                for (int j = -(sy / 2); j <= sy - 1 - sy / 2; j++)
                    for (int i = -(sx / 2); i <= sx - 1 - sx / 2; i++)
                        for (int c = 0; c < 4; c++) {
                            long ey = y + j, ex = x + i;
                            double v;
                            if (b.mode == RB_BOUNDARY_CONSTANT && (ey < 0 || ey >= h || ex < 0 || ex >= w))
                                v = cst[c];
                            else {
                                /* the extension, one axis at a time */
                                for (int ax = 0; ax < 2; ax++) {
                                    long *k = ax ? &ex : &ey;
                                    long nn = ax ? w : h;
                                    if (*k >= 0 && *k < nn)
                                        continue;
                                    if (b.mode == RB_BOUNDARY_CLAMP)
                                        *k = *k < 0 ? 0 : nn - 1;
                                    else {
                                        long per = b.mode == RB_BOUNDARY_MIRROR ? 2 * nn : nn;
                                        long m = imod(*k, per);
                                        *k = m < nn ? m : 2 * nn - 1 - m;
                                    }
                                }
                                v = pm[((size_t)ey * w + ex) * ch + c];
                            }
                            acc[c] += v;
                        }
                double a = acc[3] / ((double)sx * sy);
                for (int c = 0; c < 4; c++) {
                    double want = c < 3 ? (a > 0 ? acc[c] / ((double)sx * sy) / a : 0) : a;
                    want = fmin(fmax(want, 0.0), 1.0) * 255.0;
                    double got = o8[((size_t)y * w + x) * ch + c];
                    worst = fmax(worst, fabs(got - want));
                }
            }
        if (worst > 0.5 + 1e-3)
            fail_msg("u8 box %dx%d on %dx%d %s: %.4f levels from the float64 average", sx, sy, w, h,
                     rb_boundary_name(b.mode), worst);
        free(pm);
        free(in); free(ref); free(inpl); free(u8); free(o8);
        rb_context_destroy(c1);
        rb_context_destroy(c5);
    }
}

int main(void)
{
    tu_seed("test_sat_box");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sat_exact),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_box_bands_inplace_u8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
