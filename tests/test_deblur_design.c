/* The PSF designer and deblur presets: designed filters are stable, their
 * total impulse response matches a Wiener inverse computed here
 * independently (direct DFT in double), FIR-only is really b = 0, a
 * non-symmetric PSF is undone, presets round-trip exactly, and bad PSFs and
 * presets fail with messages that name the problem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recblur.h"
#include "recblur_deblur.h"

#define PI 3.14159265358979323846
#define NR 128 /* reference grid */

/* Centred impulse response of conj(H)/(|H|^2 + K), H the DFT of a kw x kh
 * PSF (centre sample = origin, normalised here), on an NR x NR grid: direct
 * DFT sums in double (rows, then columns). */
static void wiener_reference_kernel(const double *k, int kw, int kh, double noise, double *w)
{
    double s = 0;
    for (int i = 0; i < kw * kh; i++)
        s += k[i];
    double K = (noise / 0.1) * (noise / 0.1);
    double complex *W = malloc(sizeof(double complex) * NR * NR);
    double complex *T = malloc(sizeof(double complex) * NR * NR);
    for (int u = 0; u < NR; u++)
        for (int v = 0; v < NR; v++) {
            double complex H = 0;
            for (int y = 0; y < kh; y++)
                for (int x = 0; x < kw; x++)
                    H += k[y * kw + x] / s * cexp(-2 * PI * I * ((double)u * (y - kh / 2) + (double)v * (x - kw / 2)) / NR);
            W[u * NR + v] = conj(H) / (creal(H * conj(H)) + K);
        }
    for (int u = 0; u < NR; u++)
        for (int q = 0; q < NR; q++) {
            double complex acc = 0;
            for (int v = 0; v < NR; v++)
                acc += W[u * NR + v] * cexp(2 * PI * I * (double)v * (q - NR / 2) / NR);
            T[u * NR + q] = acc;
        }
    for (int p = 0; p < NR; p++)
        for (int q = 0; q < NR; q++) {
            double complex acc = 0;
            for (int u = 0; u < NR; u++)
                acc += T[u * NR + q] * cexp(2 * PI * I * (double)u * (p - NR / 2) / NR);
            w[p * NR + q] = creal(acc) / (NR * NR);
        }
    free(W);
    free(T);
}

static void wiener_reference(double sigma, double noise, double *w)
{
    int r = (int)ceil(4 * sigma);
    double g[256], *k = malloc(sizeof(double) * (2 * r + 1) * (2 * r + 1));
    for (int i = -r; i <= r; i++)
        g[i + r] = exp(-(double)i * i / (2 * sigma * sigma));
    for (int i = 0; i <= 2 * r; i++)
        for (int j = 0; j <= 2 * r; j++)
            k[i * (2 * r + 1) + j] = g[i] * g[j];
    wiener_reference_kernel(k, 2 * r + 1, 2 * r + 1, noise, w);
    free(k);
}

static double rel_l2(const float *h, const double *w, double *sh, double *sw)
{
    double num = 0, den = 0;
    *sh = *sw = 0;
    for (int k = 0; k < NR * NR; k++) {
        num += (h[k] - w[k]) * (h[k] - w[k]);
        den += w[k] * w[k];
        *sh += h[k];
        *sw += w[k];
    }
    return sqrt(num / den);
}

/* Total impulse response of a filter: the engine on a delta (zero boundary). */
static void response(rb_context *ctx, const rb_deblur_filter *f, float *h, int n)
{
    rb_deblur_plan *p;
    rb_boundary bd = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, n, n, 1, &p), RB_OK);
    memset(h, 0, sizeof(float) * n * n);
    h[(n / 2) * n + n / 2] = 1;
    rb_image im = {n, n, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, h};
    assert_int_equal(rb_deblur_execute(p, &im, &im), RB_OK);
    rb_deblur_plan_destroy(p);
}

static void test_design_matches_wiener(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    const struct { double sigma; int m; double tol; } cs[] = {
        {1.0, 8, 0.03}, {1.5, 8, 0.05}, {1.5, 16, 0.01}, {3.0, 16, 0.03}, {3.0, 31, 0.01},
    };
    double *w = malloc(sizeof(double) * NR * NR);
    float *h = malloc(sizeof(float) * NR * NR);
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++) {
        rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, cs[c].sigma, 0, 0, NULL};
        rb_deblur_filter *f;
        rb_status st = rb_deblur_design(ctx, &psf, 0.005, cs[c].m, 0, &f);
        if (st != RB_OK)
            fail_msg("%s", rb_context_error(ctx));
        wiener_reference(cs[c].sigma, 0.005, w);
        response(ctx, f, h, NR);
        double sh, sw, e = rel_l2(h, w, &sh, &sw);
        printf("sigma %g m %d: %s\n  response vs independent Wiener: rel L2 %.4f, DC %.5f vs %.5f\n",
               cs[c].sigma, cs[c].m, rb_deblur_filter_describe(f), e, sh, sw);
        if (e > cs[c].tol)
            fail_msg("sigma %g m %d: rel L2 error %g > %g", cs[c].sigma, cs[c].m, e, cs[c].tol);
        assert_true(fabs(sh - sw) < 0.015 * fabs(sw));
        assert_true(rb_deblur_filter_fit_error(f) >= 0 && rb_deblur_filter_fit_error(f) < 0.2);
        rb_deblur_filter_destroy(f);
    }
    free(w);
    free(h);
    rb_context_destroy(ctx);
}

/* Every design over a grid of PSFs, windows and noise levels is accepted by
 * the stability check; FIR-only designs have no recursive taps at all. */
static void test_design_stable(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    const double sig[] = {0.5, 5};
    const int win[] = {2, 3, 12};
    const double noi[] = {0, 0.05};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++)
                for (unsigned fl = 0; fl < 2; fl++) {
                    rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, sig[i], 0, 0, NULL};
                    rb_deblur_filter *f;
                    rb_status st = rb_deblur_design(ctx, &psf, noi[k], win[j], fl, &f);
                    if (st != RB_OK)
                        fail_msg("sigma %g m %d noise %g: %s", sig[i], win[j], noi[k],
                                 rb_context_error(ctx));
                    for (int q = 0; q < 4; q++) {
                        const double *a, *b;
                        rb_deblur_filter_get(f, q, &a, &b);
                        assert_true(rb_deblur_filter_decay(f, q) < 256);
                        for (int t = 0; t < win[j] * win[j]; t++) {
                            assert_true(isfinite(a[t]));
                            if (fl)
                                assert_true(b[t] == 0.0);
                        }
                    }
                    if (fl)
                        assert_non_null(strstr(rb_deblur_filter_describe(f), "pure FIR"));
                    rb_deblur_filter_destroy(f);
                }
    rb_context_destroy(ctx);
}

/* A non-symmetric PSF (a 7 x 3 smear heavier on one side): the four
 * quadrants differ, and the designed response must still match the
 * independent Wiener inverse; and deblurring a blurred image must undo
 * most of the blur. */
static void test_kernel_psf(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    double k[21] = {0, 0.1, 0.2, 0.3, 0.2, 0.1, 0,
                    0.2, 0.6, 1.0, 1.0, 0.7, 0.4, 0.2,
                    0, 0.05, 0.1, 0.2, 0.1, 0, 0};
    rb_deblur_psf psf = {RB_DEBLUR_PSF_KERNEL, 0, 7, 3, k};
    rb_deblur_filter *f;
    if (rb_deblur_design(ctx, &psf, 0.005, 16, 0, &f) != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
    double *w = malloc(sizeof(double) * NR * NR);
    float *h = malloc(sizeof(float) * NR * NR);
    wiener_reference_kernel(k, 7, 3, 0.005, w);
    response(ctx, f, h, NR);
    double sh, sw, e = rel_l2(h, w, &sh, &sw);
    printf("7x3 kernel: %s\n  response vs independent Wiener: rel L2 %.4f, DC %.5f vs %.5f\n",
           rb_deblur_filter_describe(f), e, sh, sw);
    assert_true(e < 0.02);
    const double *a0, *b0, *a1, *b1;
    rb_deblur_filter_get(f, 0, &a0, &b0);
    rb_deblur_filter_get(f, 1, &a1, &b1);
    assert_memory_not_equal(a0, a1, sizeof(double) * 256); /* left and right differ */

    /* blur a test pattern periodically with the same PSF, deblur: error must drop */
    const int n = 96;
    double *x = malloc(sizeof(double) * n * n), ks = 0, eb = 0, er = 0;
    float *y = malloc(sizeof(float) * n * n);
    for (int t = 0; t < 21; t++)
        ks += k[t];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i * n + j] = 0.5 + 0.3 * sin(i * 0.3 + j * 0.2) * cos(j * 0.11) + ((i / 12 + j / 12) % 2 ? 0.15 : 0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -3; dx <= 3; dx++) /* y = sum k(d) x(. - d), periodic */
                    acc += k[(dy + 1) * 7 + dx + 3] / ks * x[((i - dy + n) % n) * n + (j - dx + n) % n];
            y[i * n + j] = (float)acc;
            eb += (acc - x[i * n + j]) * (acc - x[i * n + j]);
        }
    rb_deblur_plan *p;
    rb_boundary bd = {RB_BOUNDARY_PERIODIC, 0};
    assert_int_equal(rb_deblur_plan_create(ctx, f, bd, n, n, 1, &p), RB_OK);
    rb_image im = {n, n, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, y};
    assert_int_equal(rb_deblur_execute(p, &im, &im), RB_OK);
    for (int t = 0; t < n * n; t++)
        er += (y[t] - x[t]) * (y[t] - x[t]);
    printf("  blurred rms error %.4f, deblurred %.4f\n", sqrt(eb / (n * n)), sqrt(er / (n * n)));
    assert_true(er < 0.5 * eb);
    rb_deblur_plan_destroy(p);
    rb_deblur_filter_destroy(f);
    free(x), free(y), free(w), free(h);
    rb_context_destroy(ctx);
}

static void expect_psf_error(rb_context *ctx, rb_deblur_psf psf, double noise, int m, rb_status want,
                             const char *needle)
{
    rb_deblur_filter *f = (rb_deblur_filter *)1;
    rb_status st = rb_deblur_design(ctx, &psf, noise, m, 0, &f);
    if (st != want || !strstr(rb_context_error(ctx), needle))
        fail_msg("expected status %d with \"%s\", got %d: %s", want, needle, st,
                 rb_context_error(ctx));
    assert_null(f);
}

static void test_bad_psf(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    double neg[9] = {0, 0, 0, 0, 1, -0.5, 0, 0, 0}, zero[9] = {0}, nan9[9] = {0, 0, 0, 0, NAN};
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_GAUSSIAN, 0.1, 0, 0, NULL}, 0.005, 8,
                     RB_ERR_ARGUMENT, "sigma 0.1");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_GAUSSIAN, NAN, 0, 0, NULL}, 0.005, 8,
                     RB_ERR_NAN, "sigma");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_GAUSSIAN, 1, 0, 0, NULL}, -1, 8,
                     RB_ERR_ARGUMENT, "noise level -1");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_GAUSSIAN, 1, 0, 0, NULL}, 0.005, 65,
                     RB_ERR_ARGUMENT, "window 65");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_KERNEL, 0, 3, 3, neg}, 0.005, 8,
                     RB_ERR_ARGUMENT, "negative");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_KERNEL, 0, 3, 3, zero}, 0.005, 8,
                     RB_ERR_ARGUMENT, "sums to 0");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_KERNEL, 0, 3, 3, nan9}, 0.005, 8,
                     RB_ERR_NAN, "(1,1)");
    expect_psf_error(ctx, (rb_deblur_psf){RB_DEBLUR_PSF_KERNEL, 0, 4, 3, neg}, 0.005, 8,
                     RB_ERR_SIZE, "odd");
    rb_context_destroy(ctx);
}

static char tmpdir[256];

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_presets(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rb-deblur-test-%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmpdir);
    assert_int_equal(system(cmd), 0);
    /* round trip */
    rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, 2.0, 0, 0, NULL};
    rb_deblur_filter *f, *g;
    assert_int_equal(rb_deblur_design(ctx, &psf, 0.005, 6, 0, &f), RB_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/rt.deblur", tmpdir);
    rb_boundary bd = {RB_BOUNDARY_CLAMP, 0}, got = {RB_BOUNDARY_ZERO, 0};
    assert_int_equal(rb_deblur_preset_save(ctx, f, "round trip", &bd, path), RB_OK);
    int has = 0;
    assert_int_equal(rb_deblur_preset_load(ctx, path, &g, &got, &has), RB_OK);
    assert_int_equal(has, 1);
    assert_int_equal(got.mode, RB_BOUNDARY_CLAMP);
    assert_int_equal(rb_deblur_filter_window(g), 6);
    assert_string_equal(rb_deblur_filter_describe(g), "round trip");
    for (int q = 0; q < 4; q++) {
        const double *a1, *b1, *a2, *b2;
        rb_deblur_filter_get(f, q, &a1, &b1);
        rb_deblur_filter_get(g, q, &a2, &b2);
        assert_memory_equal(a1, a2, sizeof(double) * 36);
        assert_memory_equal(b1, b2, sizeof(double) * 36);
    }
    rb_deblur_filter_destroy(f);
    rb_deblur_filter_destroy(g);
    /* lookup by name on $RECBLUR_PRESET_PATH */
    setenv("RECBLUR_PRESET_PATH", tmpdir, 1);
    assert_int_equal(rb_deblur_preset_load(ctx, "rt", &g, NULL, NULL), RB_OK);
    rb_deblur_filter_destroy(g);
    /* bad presets, each error names the file and says what is wrong */
    struct { const char *text; rb_status st; const char *needle; } bad[] = {
        {"window = 2\n", RB_ERR_PRESET, "header"},
        {"recblur-deblur 1\nwindow = 2\na0 = 1 0 0\n", RB_ERR_PRESET, ":3: a0 has 3 numbers, expected 4"},
        {"recblur-deblur 1\nwindow = 2\nsize = 3\n", RB_ERR_PRESET, "unknown key \"size\""},
        {"recblur-deblur 1\nwindow = 99\n", RB_ERR_PRESET, "window \"99\""},
        {"recblur-deblur 1\nwindow = 2\na0 = 1 0 0 0\n", RB_ERR_PRESET, "missing a1"},
        {"recblur-deblur 1\nwindow = 2\na0 = 1 0 0 0\na1 = 0 0 0 0\na2 = 0 0 0 0\na3 = 0 0 0 0\n"
         "b0 = 0 0.6 0.6 0\nb1 = 0 0 0 0\nb2 = 0 0 0 0\nb3 = 0 0 0 0\n", RB_ERR_UNSTABLE, "quadrant 0 recursive part is unstable"},
        {"recblur-deblur 1\nwindow = 2\na0 = 1 0 0 nan\n", RB_ERR_NAN, "not finite"},
        {"recblur-deblur 1\nwindow = 2\nboundary = sideways\n", RB_ERR_PRESET, "bad boundary"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = write_file("bad.deblur", bad[i].text);
        g = (rb_deblur_filter *)1;
        rb_status st = rb_deblur_preset_load(ctx, p, &g, NULL, NULL);
        if (st != bad[i].st || !strstr(rb_context_error(ctx), bad[i].needle) ||
            !strstr(rb_context_error(ctx), "bad.deblur"))
            fail_msg("bad preset %zu: expected %d with \"%s\", got %d: %s", i, bad[i].st,
                     bad[i].needle, st, rb_context_error(ctx));
        assert_null(g);
    }
    assert_int_equal(rb_deblur_preset_load(ctx, "no-such-deblur-preset", &g, NULL, NULL),
                     RB_ERR_PRESET);
    assert_non_null(strstr(rb_context_error(ctx), "not found"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    assert_int_equal(system(cmd), 0);
    rb_context_destroy(ctx);
}

/* The shipped presets load, are stable and are the designs they claim. */
static void test_shipped_presets(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_context_create(&ctx);
    const char *names[] = {"deblur-gauss-1", "deblur-gauss-1.5", "deblur-gauss-2", "deblur-gauss-3"};
    const double sig[] = {1, 1.5, 2, 3};
    for (int i = 0; i < 4; i++) {
        rb_deblur_filter *f, *g;
        if (rb_deblur_preset_load(ctx, names[i], &f, NULL, NULL) != RB_OK)
            fail_msg("%s", rb_context_error(ctx));
        rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, sig[i], 0, 0, NULL};
        assert_int_equal(rb_deblur_design(ctx, &psf, 0.005, rb_deblur_filter_window(f), 0, &g), RB_OK);
        for (int q = 0; q < 4; q++) {
            const double *a1, *b1, *a2, *b2;
            rb_deblur_filter_get(f, q, &a1, &b1);
            rb_deblur_filter_get(g, q, &a2, &b2);
            int m = rb_deblur_filter_window(f);
            for (int t = 0; t < m * m; t++) {
                assert_true(fabs(a1[t] - a2[t]) <= 1e-9 * (1 + fabs(a2[t])));
                assert_true(fabs(b1[t] - b2[t]) <= 1e-12);
            }
        }
        rb_deblur_filter_destroy(f);
        rb_deblur_filter_destroy(g);
    }
    rb_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_matches_wiener), cmocka_unit_test(test_design_stable),
        cmocka_unit_test(test_kernel_psf),    cmocka_unit_test(test_bad_psf),
        cmocka_unit_test(test_presets),               cmocka_unit_test(test_shipped_presets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
