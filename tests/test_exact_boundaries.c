/* The engine (CPU back end) against the independent float64 reference of the
 * infinite extension: every boundary mode, orders 1..5, random stable filters
 * (complex poles, FIR taps, causal-only/anticausal-only, different causal and
 * anticausal coefficients) of random DC gain (negative too), odd sizes down
 * to 1x1, 1..4 channels, through both CPU routes (the sweep and the general
 * line route). Each plan's route is asserted: well-conditioned filters must
 * take the closed forms, not the padded fallback.
 * Fresh seed per run (printed); RB_TEST_SEED reproduces. */
#define _GNU_SOURCE /* setenv, and M_PI (test_util.h) under -std=c11 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "reference.h"
#include "test_util.h"
#include "cpu_sweep.h"
#include "axis_route.h"


static const char *variant_names[] = {"symmetric", "symmetric+even FIR", "different c/a",
                                      "causal-only", "anticausal-only", "asymmetric FIR",
                                      "FIR only"};

typedef struct {
    int w, h;
} size2;

/* 1: run_case filters into a separate output image instead of in place. */
static int out_of_place;
/* 1: run_case asserts the route of every plan (route_mismatches counts the
 * misses); set for filters whose closed forms are well conditioned. */
static int assert_routes;
static int route_mismatches;
/* The routes of run_case's last plan: [0] x (rows), [1] y (columns). */
static rb_axis_route last_routes[2];

/* 1 when the public axis is even (same causal and anticausal feedback, FIR
 * taps mirrored around 0): the mirror closed forms (67)/(72) apply. */
static int axis_is_even(const rb_axis_filter *f)
{
    if (f->causal_order != f->anticausal_order)
        return 0;
    for (int k = 0; k < f->causal_order; k++)
        if (f->causal[k] != f->anticausal[k])
            return 0;
    if (!f->fir)
        return 1;
    if (f->fir_lo != -f->fir_hi)
        return 0;
    for (int k = 0; k <= f->fir_hi; k++)
        if (f->fir[f->fir_hi + k] != f->fir[f->fir_hi - k])
            return 0;
    return 1;
}

/* The route a well-conditioned axis must take for this boundary mode. */
static rb_axis_route expected_route(const rb_axis_filter *f, rb_boundary_mode mode)
{
    if (!f || mode == RB_BOUNDARY_NONE)
        return RB_AXIS_ROUTE_NONE;
    int recursive = f->causal_order > 0 || f->anticausal_order > 0;
    if (mode == RB_BOUNDARY_MIRROR && recursive && !(axis_is_even(f) && f->causal_order > 0))
        return RB_AXIS_ROUTE_MIRROR_VIA_PERIODIC;
    return RB_AXIS_ROUTE_CLOSED_FORM;
}

static void check_route(const rb_axis_plan *ap, const rb_axis_filter *f, rb_boundary_mode mode,
                        const char *axis, const char *label)
{
    rb_axis_route want = expected_route(f, mode), got = rb_axis_plan_route(ap);
    if (got != want) {
        printf("FAIL %s: %s axis took the %s route, expected %s\n", label, axis,
               rb_axis_route_name(got), rb_axis_route_name(want));
        route_mismatches++;
    }
}

/* The sweep's own conditions that a plan of both passes on both axes with a
 * zero/constant/clamp boundary meets: it must then take the sweep. */
static int sweep_expected(const rb_axis_filter *fx, const rb_axis_filter *fy, rb_boundary_mode mode,
                          int ch)
{
    return fx && fy && fx->causal_order && fx->anticausal_order && fy->causal_order &&
           fy->anticausal_order && ch <= 4 &&
           (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT || mode == RB_BOUNDARY_CLAMP);
}

/* Run the engine on a random float image and compare with the reference. */
static double run_case(rb_context *ctx, const rb_axis_filter *fx, const rb_axis_filter *fy,
                       rb_boundary b, int w, int h, int ch, rb_format fmt, const char *label)
{
    size_t cnt = (size_t)w * h * ch;
    double *in = malloc(cnt * sizeof(double)), *ref = malloc(cnt * sizeof(double)),
           *got = malloc(cnt * sizeof(double));
    void *buf = malloc(cnt * 4);
    assert_non_null(in);
    assert_non_null(ref);
    assert_non_null(got);
    assert_non_null(buf);
    for (size_t i = 0; i < cnt; i++) {
        if (fmt == RB_U16) {
            uint16_t v = (uint16_t)tu_int(0, 65535);
            ((uint16_t *)buf)[i] = v;
            in[i] = v / 65535.0;
        } else {
            float v = (float)tu_uniform();
            ((float *)buf)[i] = v;
            in[i] = v;
        }
    }
    assert_int_equal(ref_filter_image(fx, fy, b, in, ref, w, h, ch), 0);

    rb_filter *f = NULL;
    rb_status s = rb_filter_create(ctx, fx, fy, &f);
    if (s != RB_OK)
        fail_msg("%s: rb_filter_create: %s", label, rb_context_error(ctx));
    rb_plan *plan = NULL;
    s = rb_plan_create(ctx, f, b, w, h, ch, &plan);
    if (s != RB_OK)
        fail_msg("%s: rb_plan_create: %s", label, rb_context_error(ctx));
    last_routes[0] = rb_axis_plan_route(&plan->rows);
    last_routes[1] = rb_axis_plan_route(&plan->cols);
    if (assert_routes) {
        check_route(&plan->rows, fx, b.mode, "x", label);
        check_route(&plan->cols, fy, b.mode, "y", label);
    }
    if (fmt == RB_U16) /* the reference, quantised the same way */
        for (size_t i = 0; i < cnt; i++) {
            double v = ref[i] < 0 ? 0 : ref[i] > 1 ? 1 : ref[i];
            ref[i] = floor(v * 65535.0 + 0.5) / 65535.0;
        }
    void *src = malloc(cnt * 4);
    assert_non_null(src);
    memcpy(src, buf, cnt * 4);
    /* the sweep route where the plan allows it, then the general route */
    double err = 0.0;
    for (int general = 0; general < 2; general++) {
        memcpy(buf, src, cnt * 4);
        rb_image img = {w, h, ch, 0, fmt, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, buf};
        void *obuf = out_of_place ? malloc(cnt * 4) : NULL;
        rb_image oimg = img;
        if (obuf)
            oimg.data = obuf;
        if (general) /* the general route (cpu_sweep.c's A/B switch) */
            rb_switch_set(ctx, "RECBLUR_CPU_NO_SWEEP", "1");
        int sweep = rb_cpu_sweep_ok(plan, &img, &oimg);
        if (!general && assert_routes && sweep_expected(fx, fy, b.mode, ch) && !sweep) {
            printf("FAIL %s: the CPU sweep route was expected\n", label);
            route_mismatches++;
        }
        s = rb_execute(plan, &img, &oimg);
        rb_switch_set(ctx, "RECBLUR_CPU_NO_SWEEP", NULL);
        if (s != RB_OK)
            fail_msg("%s: rb_execute: %s", label, rb_context_error(ctx));
        if (obuf) {
            memcpy(buf, obuf, cnt * 4);
            free(obuf);
        }
        for (size_t i = 0; i < cnt; i++)
            got[i] = fmt == RB_U16 ? ((uint16_t *)buf)[i] / 65535.0 : ((float *)buf)[i];
        double e = ref_rel_rms(got, ref, cnt);
        if (!(e <= err)) /* NaN stays */
            err = e;
        if (!sweep) /* the first run was the general route already */
            break;
    }
    free(src);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    free(in);
    free(ref);
    free(got);
    free(buf);
    return err;
}

static const rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO,     RB_BOUNDARY_CONSTANT,
                                         RB_BOUNDARY_CLAMP,    RB_BOUNDARY_PERIODIC,
                                         RB_BOUNDARY_MIRROR,   RB_BOUNDARY_NONE};
static const size2 sizes[] = {{1, 1}, {1, 7}, {7, 1}, {31, 33}, {257, 129}, {1000, 3}};

static void random_cases(double pmax, double tol)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_context_set_threads(ctx, 2);
    int idx = 0, failures = 0;
    double worst = 0.0;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (int order = 1; order <= 5; order++)
            for (int rep = 0; rep < 3; rep++, idx++) {
                size2 sz = sizes[(idx + m) % (sizeof sizes / sizeof sizes[0])];
                if (rep == 2) { /* tiny: shorter than the order and the FIR reach */
                    sz.w = tu_int(1, 6);
                    sz.h = tu_int(1, 6);
                }
                int ch = tu_int(1, 4);
                int vx = tu_int(0, 6), vy = tu_int(0, 6);
                tu_axis ax, ay;
                tu_random_axis(&ax, order, pmax, vx);
                tu_random_axis(&ay, tu_int(1, order), pmax, vy);
                const rb_axis_filter *fx = &ax.f, *fy = &ay.f;
                double u = tu_uniform();
                if (u < 0.1)
                    fx = NULL;
                else if (u < 0.2)
                    fy = NULL;
                rb_boundary b = {modes[m], modes[m] == RB_BOUNDARY_CONSTANT ? 0.37f : 0.0f};
                char label[256];
                snprintf(label, sizeof label, "%s %dx%dx%d order %d x:%s y:%s pmax %.2f",
                         rb_boundary_name(modes[m]), sz.w, sz.h, ch, order,
                         fx ? variant_names[vx] : "none", fy ? variant_names[vy] : "none", pmax);
                double err = run_case(ctx, fx, fy, b, sz.w, sz.h, ch, RB_F32, label);
                if (err > worst)
                    worst = err;
                if (getenv("RB_TEST_VERBOSE"))
                    printf("  %s: %.3g\n", label, err);
                if (!(err <= tol)) {
                    printf("FAIL %s: relative RMS %.3g > %.1g\n", label, err, tol);
                    failures++;
                }
            }
    printf("pmax %.2f: %d cases, worst relative RMS %.3g (limit %.1g)\n", pmax, idx, worst, tol);
    rb_context_destroy(ctx);
    assert_int_equal(failures, 0);
}

/* Poles up to 0.9: the closed forms are well conditioned, so every plan's
 * route is asserted (a probe that falls back to the padded route means a
 * closed form broke). */
static void test_poles_090(void **state)
{
    (void)state;
    assert_routes = 1;
    route_mismatches = 0;
    random_cases(0.9, 1e-5);
    assert_routes = 0;
    assert_int_equal(route_mismatches, 0);
}

static void test_poles_099(void **state)
{
    (void)state;
    random_cases(0.99, 1e-4);
}

static void test_u16(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    tu_axis ax, ay;
    tu_random_axis(&ax, 3, 0.9, 0);
    tu_random_axis(&ay, 2, 0.9, 1);
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    double err = run_case(ctx, &ax.f, &ay.f, b, 64, 48, 3, RB_U16, "u16 clamp");
    printf("u16 clamp: relative RMS %.3g\n", err);
    assert_true(err <= 1e-5 + 2e-5);
    rb_context_destroy(ctx);
}

/* Filter a float image with the engine; returns a malloc'd copy of the output. */
static float *engine_run(rb_context *ctx, const rb_axis_filter *fx, const rb_axis_filter *fy,
                         rb_boundary b, const float *in, int w, int h, int ch)
{
    size_t cnt = (size_t)w * h * ch;
    float *out = malloc(cnt * sizeof(float));
    assert_non_null(out);
    rb_filter *f;
    assert_int_equal(rb_filter_create(ctx, fx, fy, &f), RB_OK);
    rb_plan *plan;
    assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
    rb_image i = {w, h, ch, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, (void *)in};
    rb_image o = i;
    o.data = out;
    assert_int_equal(rb_execute(plan, &i, &o), RB_OK);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    return out;
}

/* Periodic output is shift invariant (no seam anywhere), and the wrap-around
 * differences look like interior differences. */
static void test_periodic_seamless(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    const int w = 73, h = 41, ch = 2, dx = 30, dy = 17;
    tu_axis ax, ay;
    tu_random_axis(&ax, 4, 0.9, 0);
    tu_random_axis(&ay, 3, 0.9, 2);
    float *in = malloc(sizeof(float) * w * h * ch), *sh = malloc(sizeof(float) * w * h * ch);
    for (int i = 0; i < w * h * ch; i++)
        in[i] = (float)tu_uniform();
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                sh[(((y + dy) % h) * w + (x + dx) % w) * ch + c] = in[(y * w + x) * ch + c];
    rb_boundary b = {RB_BOUNDARY_PERIODIC, 0};
    float *o1 = engine_run(ctx, &ax.f, &ay.f, b, in, w, h, ch);
    float *o2 = engine_run(ctx, &ax.f, &ay.f, b, sh, w, h, ch);
    double num = 0, den = 0, wrap = 0, inner = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                double a = o1[(y * w + x) * ch + c];
                double s = o2[(((y + dy) % h) * w + (x + dx) % w) * ch + c];
                num += (a - s) * (a - s);
                den += a * a;
                double d = o1[(y * w + (x + 1) % w) * ch + c] - a;
                if (x == w - 1)
                    wrap += d * d / h;
                else
                    inner += d * d / ((double)h * (w - 1));
            }
    printf("periodic: shift mismatch %.3g, wrap diff rms %.3g, interior %.3g\n", sqrt(num / den),
           sqrt(wrap), sqrt(inner));
    assert_true(sqrt(num / den) <= 1e-5);
    assert_true(sqrt(wrap) <= 3.0 * sqrt(inner));
    free(in); free(sh); free(o1); free(o2);
    rb_context_destroy(ctx);
}

/* Mirror: the doubled, mirrored image (I | flipped I, and flipped rows)
 * filtered with mirror or periodic boundaries gives the mirror result of I in
 * its first quadrant, and its output is itself mirror-symmetric. */
static void test_mirror_doubled(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    for (int rep = 0; rep < 6; rep++) {
        int w = tu_int(1, 40), h = tu_int(1, 40), ch = tu_int(1, 3), W = 2 * w, H = 2 * h;
        tu_axis ax, ay;
        int vx = rep == 0 ? 0 : tu_int(0, 6), vy = rep == 0 ? 1 : tu_int(0, 6);
        /* only even filters (symmetric recursion, even FIR) keep mirror symmetry */
        int symmetric = (vx == 0 || vx == 1 || vx == 6) && (vy == 0 || vy == 1 || vy == 6);
        tu_random_axis(&ax, tu_int(1, 5), 0.9, vx);
        tu_random_axis(&ay, tu_int(1, 5), 0.9, vy);
        float *in = malloc(sizeof(float) * w * h * ch), *dbl = malloc(sizeof(float) * W * H * ch);
        for (int i = 0; i < w * h * ch; i++)
            in[i] = (float)tu_uniform();
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < ch; c++) {
                    int sx = x < w ? x : W - 1 - x, sy = y < h ? y : H - 1 - y;
                    dbl[(y * W + x) * ch + c] = in[(sy * w + sx) * ch + c];
                }
        rb_boundary bm = {RB_BOUNDARY_MIRROR, 0}, bp = {RB_BOUNDARY_PERIODIC, 0};
        float *o = engine_run(ctx, &ax.f, &ay.f, bm, in, w, h, ch);
        float *om = engine_run(ctx, &ax.f, &ay.f, bm, dbl, W, H, ch);
        float *op = engine_run(ctx, &ax.f, &ay.f, bp, dbl, W, H, ch);
        float *q = malloc(sizeof(float) * w * h * ch), *qp = malloc(sizeof(float) * w * h * ch);
        double sym = 0, den = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < ch; c++) {
                    float v = om[(y * W + x) * ch + c];
                    int sx = x < w ? x : W - 1 - x, sy = y < h ? y : H - 1 - y;
                    float m = om[(sy * W + sx) * ch + c];
                    sym += ((double)v - m) * ((double)v - m);
                    den += (double)m * m;
                    if (x < w && y < h) {
                        q[(y * w + x) * ch + c] = v;
                        qp[(y * w + x) * ch + c] = op[(y * W + x) * ch + c];
                    }
                }
        double e1 = tu_rel_rms_f(q, o, (size_t)w * h * ch), e2 = tu_rel_rms_f(qp, o, (size_t)w * h * ch);
        double e3 = sqrt(sym / (den > 0 ? den : 1));
        printf("mirror %dx%dx%d: doubled-mirror %.3g, doubled-periodic %.3g, symmetry %.3g%s\n", w,
               h, ch, e1, e2, e3, symmetric ? "" : " (not checked: odd filter)");
        assert_true(e1 <= 1e-5);
        assert_true(e2 <= 1e-5);
        if (symmetric)
            assert_true(e3 <= 1e-5);
        free(in); free(dbl); free(o); free(om); free(op); free(q); free(qp);
    }
    rb_context_destroy(ctx);
}

/* The designer's Gaussians end to end, narrow to very wide (poles within
 * 1e-3 of 1, where the closed forms give way to the padded route: asserted
 * for sigma 2000, so that route is reached against the reference; for the
 * constant modes the route is (44) from the steady states, asserted too). */
static void test_gaussians(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    const double sigmas[] = {1.5, 40, 400, 2000};
    int failures = 0;
    for (int si = 0; si < 4; si++) {
        rb_filter *f;
        if (rb_filter_gaussian(ctx, sigmas[si], sigmas[si] * 0.7, RB_GAUSSIAN_DEFAULT, &f) != RB_OK)
            fail_msg("rb_filter_gaussian(%g): %s", sigmas[si], rb_context_error(ctx));
        rb_axis_filter ax, ay;
        assert_int_equal(rb_filter_get_axis(f, 0, &ax), RB_OK);
        assert_int_equal(rb_filter_get_axis(f, 1, &ay), RB_OK);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            char label[160];
            snprintf(label, sizeof label, "gaussian %g %s", sigmas[si], rb_boundary_name(modes[m]));
            rb_boundary b = {modes[m], 0.37f};
            double err = run_case(ctx, &ax, &ay, b, 37, 29, 2, RB_F32, label);
            if (getenv("RB_TEST_VERBOSE"))
                printf("  %s: %.3g (x %s, y %s)\n", label, err, rb_axis_route_name(last_routes[0]),
                       rb_axis_route_name(last_routes[1]));
            /* sigma 2000: periodic and mirror pad; the constant modes take
             * (44) from the steady states where its probe holds, else pad.
             * sigma 400 (11x the image): the constant modes' steady route holds. */
            const int constant = modes[m] == RB_BOUNDARY_ZERO ||
                                 modes[m] == RB_BOUNDARY_CONSTANT || modes[m] == RB_BOUNDARY_CLAMP;
            for (int a = 0; a < 2; a++) {
                const rb_axis_route got = last_routes[a];
                int ok = 1;
                if (sigmas[si] >= 2000 && modes[m] != RB_BOUNDARY_NONE)
                    ok = got == RB_AXIS_ROUTE_PADDED ||
                         (constant && got == RB_AXIS_ROUTE_STEADY_EPILOGUE);
                else if (sigmas[si] == 400 && constant)
                    ok = got == RB_AXIS_ROUTE_STEADY_EPILOGUE;
                if (!ok) {
                    printf("FAIL %s: route %s on %s\n", label, rb_axis_route_name(got),
                           a ? "y" : "x");
                    failures++;
                }
            }
            /* sigma 2000 (poles within 1e-3 of 1, past DESIGN.md's 1e-4 for
             * |p| <= 0.99): clamp on the padded route reached 1.05e-4 at
             * RB_TEST_SEED=1795742022247339 (20 other seeds 3.6e-5..5.9e-5,
             * the other modes 4e-6..1.1e-5 on the same input): 2e-4 there */
            const double limit = sigmas[si] >= 2000 && modes[m] == RB_BOUNDARY_CLAMP ? 2e-4 : 1e-4;
            if (!(err <= limit)) {
                printf("FAIL %s: relative RMS %.3g > %g\n", label, err, limit);
                failures++;
            }
        }
        rb_filter_destroy(f);
    }
    rb_context_destroy(ctx);
    assert_int_equal(failures, 0);
}

/* Periodic and mirror on images large enough for the CPU back end's sweep
 * route (cpu_sweep.c: the padded route on the wrapped line when the
 * transients die out within the line), mirror in place and not, float lanes
 * (sigma 2, RECBLUR_CPU_LANES=auto for this test) and double lanes, 1..4
 * channels, random filters with FIR taps. RECBLUR_CPU_TIMES=1 shows each
 * call that took that route. */
static void test_sweep_wrap(void **state)
{
    (void)state;
    rb_context *ctx;
    setenv("RECBLUR_CPU_LANES", "auto", 1); /* the probe-gated float lanes too (read at creation) */
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    unsetenv("RECBLUR_CPU_LANES");
    rb_context_set_threads(ctx, 2);
    const rb_boundary_mode wm[] = {RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    int failures = 0, idx = 0;
    double worst = 0.0;
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 6; k++, idx++) {
            tu_axis ax, ay;
            rb_axis_filter gx, gy;
            const rb_axis_filter *fx = &ax.f, *fy = &ay.f;
            rb_filter *g = NULL;
            char label[200];
            int ch = tu_int(1, 4), w = tu_int(200, 330), h = tu_int(200, 330);
            if (k < 2) { /* the designer's Gaussian: float lanes at sigma 2 */
                double sg = k == 0 ? 2.0 : 6.0;
                assert_int_equal(rb_filter_gaussian(ctx, sg, sg, RB_GAUSSIAN_DEFAULT, &g), RB_OK);
                assert_int_equal(rb_filter_get_axis(g, 0, &gx), RB_OK);
                assert_int_equal(rb_filter_get_axis(g, 1, &gy), RB_OK);
                fx = &gx;
                fy = &gy;
                snprintf(label, sizeof label, "sweep %s %dx%dx%d gaussian %g", rb_boundary_name(wm[m]),
                         w, h, ch, sg);
            } else {
                /* the variants with both passes (the sweep route's) */
                static const int both[] = {0, 1, 2, 5};
                int vx = both[tu_int(0, 3)], vy = both[tu_int(0, 3)];
                tu_random_axis(&ax, tu_int(1, 4), 0.8, vx);
                tu_random_axis(&ay, tu_int(1, 4), 0.8, vy);
                snprintf(label, sizeof label, "sweep %s %dx%dx%d x:%s y:%s pmax 0.8",
                         rb_boundary_name(wm[m]), w, h, ch, variant_names[vx], variant_names[vy]);
            }
            rb_boundary b = {wm[m], 0.0f};
            out_of_place = m == 0 || (k & 1); /* periodic in place: the bundle route */
            double err = run_case(ctx, fx, fy, b, w, h, ch, RB_F32, label);
            out_of_place = 0;
            rb_filter_destroy(g);
            if (err > worst)
                worst = err;
            if (getenv("RB_TEST_VERBOSE"))
                printf("  %s: %.3g\n", label, err);
            if (!(err <= 1e-5)) {
                printf("FAIL %s: relative RMS %.3g > 1e-5\n", label, err);
                failures++;
            }
        }
    printf("sweep periodic/mirror: %d cases, worst relative RMS %.3g (limit 1e-5)\n", idx, worst);
    rb_context_destroy(ctx);
    assert_int_equal(failures, 0);
}

int main(void)
{
    tu_seed("test_exact_boundaries");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poles_090),
        cmocka_unit_test(test_poles_099),
        cmocka_unit_test(test_u16),
        cmocka_unit_test(test_periodic_seamless),
        cmocka_unit_test(test_mirror_doubled),
        cmocka_unit_test(test_gaussians),
        cmocka_unit_test(test_sweep_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
