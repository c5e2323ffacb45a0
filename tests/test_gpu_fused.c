/* The fused column final + row stage 1 (rb_tiled_final_cols_s1 in
 * cuda/tiled/rb_tiled_cols_rows.cuh) and the final stage of both axes in one
 * kernel after it (rb_tiled_final_both.cuh, four image transfers), which
 * device-pointer calls of plain filters take and no other suite reaches: test_gpu's cases
 * run on host images, whose rows go down through the staging in strips and
 * never fuse (rb_cuda_execute.cu), so a wrong column store planted there went
 * unnoticed (bench/RESULTS.md, 2026-11-27).
 *
 * Device images (cudaMalloc'd float32, 1, 2 and 4 channels; packed, pitched,
 * and in place), plain filters (no FIR, poles <= 0.9), every order 1-8, every
 * boundary, sizes that are not multiples of the 32-sample block or of the
 * 128-lane column tile. Only float carries fuse: orders 6-8 take them only
 * when told (RECBLUR_CUDA_CARRY=float, here with poles <= 0.5), orders 1-5 by
 * default except where a filter's feedback outweighs 30 times its DC gain
 * (rb_tiled_want_double: 67 of 150 first draws of orders 2-5; forced to float
 * carries those lose up to 1.2e-3), so such draws are drawn again.
 * Each case runs with RECBLUR_CUDA_FUSE=on, =off, =both and the default on
 * one plan, and checks:
 *  - the route each call took (rb_cuda_plan_fused): =on fused (1) wherever
 *    the plan's carries are float, =both the final stage of both axes (2)
 *    there too but in place where a tile's column final reads rows of
 *    another tile (rb_cuda_tiled_final_both_in_place: then 1), =off never;
 *    and that most cases take each route;
 *  - each against the independent float64 reference (tests/reference.c);
 *  - all three bit-identical (the fused kernel makes the same row carries
 *    from the same floats, rb_tiled_cols_rows.cuh; the final of both axes
 *    runs the same per-block functions on the same floats), and the default
 *    equal to the route it reports;
 *  - RECBLUR_CUDA_FUSE=cross (rb_tiled_cross.cuh, three image transfers):
 *    route 3 wherever =both takes 2 on rows without padding
 *    (rb_cuda_tiled_can_cross), else =both's; against the reference and
 *    against =both, both within the case's tolerance (other rounding: the
 *    row carries are the sum of a zero-state part and the cross terms);
 *    and again on a plan whose cross kernel has 2 thread blocks walking all
 *    the tiles ("test:cross_grid"): the same floats, bit for bit.
 * RB_TEST_ORDERS (e.g. "135"): only those orders on the device, for builds
 * with RECBLUR_CUDA_TILED_ORDERS limited (the others cannot run there).
 * The host part runs the same cases through the CPU emulation of the tiled
 * solver (tests/gpu_emu.cu) against the same reference, so the tolerance the
 * device part asserts is known to hold for the arithmetic; a device failure
 * then points at a kernel, not at float carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "rb_cuda.h" /* rb_cuda_plan_fused, rb_cuda_tiled_init: the route taken, the carries */
#include "rb_internal.h"
#include "recblur.h"
#include "reference.h"
#include "test_util.h"

/* tests/gpu_emu.cu: the tiled solver's per-lane code run on the host */
int rb_gpu_emulate_2d(const rb_plan *plan, const float *in, float *out, float bval);

#define GPU_SUITE "test_gpu_fused"
#include "gpu_skip.h"

/* widths below one block (20), lines ending in a 1-sample block (257), column
 * tiles cut short (257, 1000 and 77 lanes times c are no multiples of 128),
 * a height below one block (7) */
static const int sizes[][2] = {{257, 129}, {1000, 37}, {20, 45}, {77, 300}, {300, 7}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
static const int chans[3] = {1, 2, 4};
static const char *const layouts[3] = {"packed", "pitched", "in place"};

/* orders 6-8 in float carries: poles <= 0.5 and 3e-5 (the emulated solver's
 * worst of these cases: 1.4e-5, order 8 mirror; 4.1e-5 with poles <= 0.6) */
static double case_pmax(int order) { return order <= 5 ? 0.9 : 0.5; }
static double case_tol(int order) { return order <= 5 ? 1e-5 : 3e-5; }

typedef struct {
    int order, mode, w, h, ch, layout;
    rb_axis_filter ax[2]; /* x (rows), y (columns): different feedbacks, one order */
    rb_boundary b;
} fcase;

/* The case's context: orders 6-8 in float carries, the only ones that fuse
 * (rb_tiled_want_double gives them double by default); orders 1-5 as the
 * plan chooses. */
static rb_context *case_ctx(rb_backend be, int order)
{
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, be), RB_OK);
    assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_CARRY", order > 5 ? "float" : NULL), RB_OK);
    assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", NULL), RB_OK);
    return ctx;
}

static rb_filter *case_filter(rb_context *ctx, const fcase *fc)
{
    rb_filter *f = NULL;
    rb_status st = rb_filter_create(ctx, &fc->ax[0], &fc->ax[1], &f);
    if (st != RB_OK) fprintf(stderr, "%s: filter: %s\n", GPU_SUITE, rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    return f;
}

/* Whether the fused route covers the plan, as far as the cases do not set it
 * themselves (1, 2 or 4 channels, no FIR, one order on both axes): float
 * carries and float recursion on both axes, as the CUDA back end makes them
 * (rb_cuda_tiled_init, also for a CPU plan: the host part draws the same). */
static int plan_float_carries(const rb_plan *plan)
{
    static rb_cuda_tiled t; /* 11 KB */
    int ok = 1;
    for (int rows = 0; rows < 2; ++rows) {
        if (rb_cuda_tiled_init(rows ? &plan->rows : &plan->cols, plan->channels, rows, &plan->ctx->sw, &t) != 0)
            return 0;
        ok = ok && !t.dbl && t.fin;
    }
    return ok;
}

/* The case of order/mode/size si. Its feedbacks are redrawn (up to 16 times)
 * until the plan takes float carries, so that nearly every case reaches the
 * fused kernel; the draws come in a fixed order, so the host and device parts
 * see the same filters and inputs for a seed. */
static void case_make(fcase *fc, int order, int mode, int si)
{
    memset(fc, 0, sizeof *fc);
    fc->order = order;
    fc->mode = mode;
    fc->w = sizes[si][0];
    fc->h = sizes[si][1];
    fc->ch = chans[(order + mode + si) % 3];
    fc->layout = (order + si + mode) % 3;
    fc->b.mode = (rb_boundary_mode)mode;
    fc->b.value = 0.3f;
    rb_context *ctx = case_ctx(RB_BACKEND_CPU, order);
    for (int tries = 0; tries < 16; ++tries) {
        for (int a = 0; a < 2; ++a) {
            fc->ax[a].causal_order = fc->ax[a].anticausal_order = order;
            tu_random_feedback(order, case_pmax(order), fc->ax[a].causal);
            memcpy(fc->ax[a].anticausal, fc->ax[a].causal, sizeof fc->ax[a].causal);
        }
        rb_filter *f = case_filter(ctx, fc);
        rb_plan *plan = NULL;
        assert_int_equal(rb_plan_create(ctx, f, fc->b, fc->w, fc->h, fc->ch, &plan), RB_OK);
        const int floats = plan_float_carries(plan);
        rb_plan_destroy(plan);
        rb_filter_destroy(f);
        if (floats) break;
    }
    rb_context_destroy(ctx);
}

static size_t case_count(const fcase *fc) { return (size_t)fc->w * fc->h * fc->ch; }

/* the float64 reference of the case's input, rounded to float */
static float *case_reference(const fcase *fc, const float *in)
{
    const size_t n = case_count(fc);
    double *d = malloc(n * sizeof *d);
    float *ref = malloc(n * sizeof *ref);
    assert_true(d && ref);
    for (size_t i = 0; i < n; ++i) d[i] = in[i];
    assert_int_equal(ref_filter_image(&fc->ax[0], &fc->ax[1], fc->b, d, d, fc->w, fc->h, fc->ch), 0);
    for (size_t i = 0; i < n; ++i) ref[i] = (float)d[i];
    free(d);
    return ref;
}

/* relative RMS of a against the reference r; NaN anywhere is infinite */
static double rel_rms(const float *a, const float *r, size_t n)
{
    double se = 0.0, sr = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (isnan(a[i]) || isnan(r[i])) return INFINITY;
        se += ((double)a[i] - r[i]) * ((double)a[i] - r[i]);
        sr += (double)r[i] * r[i];
    }
    return sr > 0 ? sqrt(se / sr) : sqrt(se);
}

static size_t bits_differ(const float *a, const float *b, size_t n, double *maxabs)
{
    size_t d = 0;
    *maxabs = 0.0;
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            d++;
            double x = fabs((double)a[i] - b[i]);
            if (!(x <= *maxabs)) *maxabs = x;
        }
    return d;
}



#define CASE_FMT "order %d %s %dx%dx%d %s"
#define CASE_ARGS(fc) (fc)->order, rb_boundary_name((rb_boundary_mode)(fc)->mode), (fc)->w, (fc)->h, (fc)->ch, \
                      layouts[(fc)->layout]

/* ------------------------------------------------------------- device part */

typedef struct {
    void *din, *dout; /* dout == din in place */
    size_t pin, pout; /* bytes between rows */
} dbufs;

static void dbufs_make(const fcase *fc, dbufs *d)
{
    const size_t row = (size_t)fc->w * fc->ch * sizeof(float);
    if (fc->layout == 0) {
        assert_int_equal(cudaMalloc(&d->din, row * fc->h), cudaSuccess);
        assert_int_equal(cudaMalloc(&d->dout, row * fc->h), cudaSuccess);
        d->pin = d->pout = row;
    } else {
        /* one float wider than a row: the pitch is never the packed row */
        assert_int_equal(cudaMallocPitch(&d->din, &d->pin, row + sizeof(float), fc->h), cudaSuccess);
        if (fc->layout == 1) {
            assert_int_equal(cudaMallocPitch(&d->dout, &d->pout, row + sizeof(float), fc->h), cudaSuccess);
        } else {
            d->dout = d->din;
            d->pout = d->pin;
        }
    }
}

static void dbufs_free(dbufs *d)
{
    if (d->dout != d->din) cudaFree(d->dout);
    cudaFree(d->din);
}

/* One execute of plan with RECBLUR_CUDA_FUSE = force (NULL: the default) on
 * a fresh upload of `in` and a poisoned output: the output in `out`, the
 * route the call took returned. */
static int run_route(rb_context *ctx, rb_plan *plan, const fcase *fc, const dbufs *d, const char *force,
                     const float *in, float *out)
{
    const size_t row = (size_t)fc->w * fc->ch * sizeof(float);
    assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", force), RB_OK);
    assert_int_equal(cudaMemcpy2D(d->din, d->pin, in, row, row, fc->h, cudaMemcpyHostToDevice), cudaSuccess);
    if (d->dout != d->din) assert_int_equal(cudaMemset2D(d->dout, d->pout, 0xFF, row, fc->h), cudaSuccess);
    rb_image di = tu_image(fc->w, fc->h, fc->ch, RB_F32, d->pin, d->din, RB_MEMORY_DEVICE);
    rb_image dout = tu_image(fc->w, fc->h, fc->ch, RB_F32, d->pout, d->dout, RB_MEMORY_DEVICE);
    rb_status st = rb_execute(plan, &di, &dout);
    if (st != RB_OK) fprintf(stderr, "%s: execute: %s\n", GPU_SUITE, rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    assert_int_equal(cudaMemcpy2D(out, row, d->dout, d->pout, row, fc->h, cudaMemcpyDeviceToHost), cudaSuccess);
    const int fused = rb_cuda_plan_fused(plan);
    assert_int_equal(rb_switch_set(ctx, "RECBLUR_CUDA_FUSE", NULL), RB_OK);
    return fused;
}

typedef struct {
    int cases, bad, covered, fused_default, both, cross, walked;
    double worst_on, worst_off, worst_both, worst_cross, worst_cross_both;
} tally;

/* the route RECBLUR_CUDA_FUSE=both must take: 2 with float carries, unless
 * in place where the column final of a tile reads another's rows */
static int both_expected(const rb_plan *plan, const fcase *fc, int covered)
{
    static rb_cuda_tiled t; /* 11 KB */
    if (!covered) return 0;
    assert_int_equal(rb_cuda_tiled_init(&plan->cols, plan->channels, 0, &plan->ctx->sw, &t), 0);
    return fc->layout == 2 && !rb_cuda_tiled_final_both_in_place(&t) ? 1 : 2;
}

/* the route RECBLUR_CUDA_FUSE=cross must take: 3 where =both takes 2 and the
 * rows have no padding, else =both's */
static int cross_expected(const rb_plan *plan, int x_both)
{
    static rb_cuda_tiled tc, tr; /* 11 KB each */
    if (x_both != 2) return x_both;
    assert_int_equal(rb_cuda_tiled_init(&plan->cols, plan->channels, 0, &plan->ctx->sw, &tc), 0);
    assert_int_equal(rb_cuda_tiled_init(&plan->rows, plan->channels, 1, &plan->ctx->sw, &tr), 0);
    return rb_cuda_tiled_can_cross(&tc, &tr) ? 3 : 2;
}


/* One case on the GPU: 0 when every check holds, else the number of failed
 * checks, each printed. */
static int device_case(const fcase *fc, tally *t)
{
    rb_context *ctx = case_ctx(RB_BACKEND_CUDA, fc->order);
    rb_filter *f = case_filter(ctx, fc);
    rb_plan *plan = NULL;
    rb_status st = rb_plan_create(ctx, f, fc->b, fc->w, fc->h, fc->ch, &plan);
    if (st != RB_OK) fprintf(stderr, "%s: plan: %s\n", GPU_SUITE, rb_context_error(ctx));
    assert_int_equal(st, RB_OK);
    assert_non_null(strstr(rb_plan_backend_name(plan), "cuda"));
    const size_t n = case_count(fc);
    float *in = malloc(n * sizeof *in), *on = malloc(n * sizeof *on), *off = malloc(n * sizeof *off),
          *def = malloc(n * sizeof *def), *both = malloc(n * sizeof *both), *cross = malloc(n * sizeof *cross);
    assert_true(in && on && off && def && both && cross);
    tu_fill_random(in, RB_F32, n);
    float *ref = case_reference(fc, in);
    dbufs d;
    dbufs_make(fc, &d);
    const int covered = plan_float_carries(plan);
    const int r_on = run_route(ctx, plan, fc, &d, "on", in, on);
    const int r_off = run_route(ctx, plan, fc, &d, "off", in, off);
    const int r_both = run_route(ctx, plan, fc, &d, "both", in, both);
    const int r_def = run_route(ctx, plan, fc, &d, NULL, in, def);
    const int r_cross = run_route(ctx, plan, fc, &d, "cross", in, cross);
    /* the cross kernel's thread blocks walk the tiles (as many blocks as fit the
     * device, sized at plan time; these images have fewer tiles than that, one a
     * block): a plan with two blocks, each walking many tiles, must give the
     * same floats, since a tile's arithmetic does not depend on who does it */
    size_t nwalk = 0;
    double dwalk = 0.0;
    if (r_cross == 3) {
        float *walk = malloc(n * sizeof *walk);
        assert_non_null(walk);
        rb_plan *plan2 = NULL;
        assert_int_equal(rb_switch_set(ctx, "test:cross_grid", "2"), RB_OK);
        assert_int_equal(rb_plan_create(ctx, f, fc->b, fc->w, fc->h, fc->ch, &plan2), RB_OK);
        assert_int_equal(run_route(ctx, plan2, fc, &d, "cross", in, walk), 3);
        assert_int_equal(rb_switch_set(ctx, "test:cross_grid", NULL), RB_OK);
        nwalk = bits_differ(walk, cross, n, &dwalk);
        rb_plan_destroy(plan2);
        free(walk);
        t->walked += nwalk == 0;
    }
    const int x_both = both_expected(plan, fc, covered), x_cross = cross_expected(plan, x_both);
    const double tol = case_tol(fc->order), e_on = rel_rms(on, ref, n), e_off = rel_rms(off, ref, n),
                 e_both = rel_rms(both, ref, n);
    double dmax = 0.0, ddef = 0.0, dboth = 0.0;
    const size_t ndiff = bits_differ(on, off, n, &dmax), nboth = bits_differ(both, off, n, &dboth),
                 ndef = bits_differ(def, r_def == 3 ? cross : r_def == 2 ? both : r_def ? on : off, n, &ddef);
    int bad = 0;
    const double e_cross = rel_rms(cross, ref, n), e_cb = rel_rms(cross, both, n);
    if (r_cross != x_cross) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": RECBLUR_CUDA_FUSE=cross took route %d, expected %d\n", GPU_SUITE,
                CASE_ARGS(fc), r_cross, x_cross);
    }
    if (!(e_cross <= tol) || !(e_cb <= tol)) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": rel RMS of =cross (route %d) vs float64 reference %.3g, vs =both %.3g (tol %.0e)\n",
                GPU_SUITE, CASE_ARGS(fc), r_cross, e_cross, e_cb, tol);
    }
    if (nwalk) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": =cross with 2 thread blocks walking the tiles differs from one a tile in "
                "%zu of %zu floats (max |diff| %.3g)\n", GPU_SUITE, CASE_ARGS(fc), nwalk, n, dwalk);
    }
    if (r_both != x_both) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": RECBLUR_CUDA_FUSE=both took route %d, expected %d\n", GPU_SUITE,
                CASE_ARGS(fc), r_both, x_both);
    }
    if (!(e_both <= tol)) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": rel RMS vs float64 reference: final of both axes %.3g (tol %.0e)\n",
                GPU_SUITE, CASE_ARGS(fc), e_both, tol);
    }
    if (nboth) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": =both and unfused differ in %zu of %zu floats (max |diff| %.3g)\n",
                GPU_SUITE, CASE_ARGS(fc), nboth, n, dboth);
    }
    if (r_on != covered || r_off) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": %s carries; RECBLUR_CUDA_FUSE=on %s, =off %s\n", GPU_SUITE,
                CASE_ARGS(fc), covered ? "float" : "double", r_on ? "fused" : "unfused", r_off ? "fused" : "unfused");
    }
    if (!(e_on <= tol) || !(e_off <= tol)) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": rel RMS vs float64 reference: fused %.3g, unfused %.3g (tol %.0e)\n",
                GPU_SUITE, CASE_ARGS(fc), e_on, e_off, tol);
    }
    if (ndiff) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": fused and unfused differ in %zu of %zu floats (max |diff| %.3g)\n",
                GPU_SUITE, CASE_ARGS(fc), ndiff, n, dmax);
    }
    if (ndef) {
        bad++;
        fprintf(stderr, "%s: " CASE_FMT ": the default route (%s) differs from =%s in %zu floats\n", GPU_SUITE,
                CASE_ARGS(fc), r_def ? "fused" : "unfused", r_def ? "on" : "off", ndef);
    }
    t->cases++;
    t->bad += bad != 0;
    t->covered += covered;
    t->fused_default += r_def != 0;
    t->both += r_both == 2;
    t->cross += r_cross == 3;
    if (r_cross == 3 && e_cross > t->worst_cross) t->worst_cross = e_cross;
    if (r_cross == 3 && e_cb > t->worst_cross_both) t->worst_cross_both = e_cb;
    if (e_both > t->worst_both) t->worst_both = e_both;
    if (e_on > t->worst_on) t->worst_on = e_on;
    if (e_off > t->worst_off) t->worst_off = e_off;
    dbufs_free(&d);
    free(in);
    free(on);
    free(off);
    free(def);
    free(both);
    free(cross);
    free(ref);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    return bad;
}

/* Every order, boundary and size on device images, fused and not. */
static void test_fused_device_images(void **state)
{
    (void)state;
    NEED_GPU();
    int bad = 0;
    for (int order = 1; order <= 8; ++order) {
        if (!gpu_order_wanted(order)) continue;
        tally t = {0};
        for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode)
            for (int si = 0; si < NSIZES; ++si) {
                fcase fc;
                case_make(&fc, order, mode, si);
                device_case(&fc, &t);
            }
        fprintf(stderr, "%s: order %d: %d cases, %d with float carries (those fused with =on, none with =off: "
                "checked), worst rel RMS vs reference =on %.3g, =off %.3g, =both %.3g; =both took the final of "
                "both axes in %d; default route fused in %d; %d cases failed\n", GPU_SUITE, order, t.cases,
                t.covered, t.worst_on, t.worst_off, t.worst_both, t.both, t.fused_default, t.bad);
        fprintf(stderr, "%s: order %d: =cross took the three-transfer route in %d, worst rel RMS there vs "
                "reference %.3g, vs =both %.3g; the same floats with 2 thread blocks walking the tiles in %d\n",
                GPU_SUITE, order, t.cross, t.worst_cross, t.worst_cross_both, t.walked);
        bad += t.bad;
        /* the cases must keep reaching the fused kernel (float carries in most draws) */
        if (!(2 * t.covered > t.cases) || !(2 * t.both > t.cases) || !(3 * t.cross > t.cases)) {
            fprintf(stderr, "%s: order %d: only %d of %d cases reach the fused route, %d the final of both axes, "
                    "%d the three-transfer route\n", GPU_SUITE, order, t.covered, t.cases, t.both, t.cross);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* What the fused route does not cover runs unfused even with =on, and stays
 * right: three channels (the column tile holds no whole row blocks), a row
 * FIR longer than the fused kernel's halo (RB_TILED_HALO + 1 = 9 taps; shorter
 * ones, the Gaussian's, are fused since helper gfuse: test_gpu_gauss_device),
 * double carries on rows without a FIR (orders 6-8 by default). */
static void test_fused_not_where_uncovered(void **state)
{
    (void)state;
    NEED_GPU();
    int bad = 0;
    for (int which = 0; which < 3; ++which) {
        if (which == 2 && !gpu_order_wanted(6)) continue; /* order 6 not in this build */
        fcase fc;
        case_make(&fc, which == 2 ? 6 : 3, RB_BOUNDARY_CLAMP, 0);
        double taps[11]; /* an 11-tap box, centred */
        for (int k = 0; k < 11; ++k) taps[k] = 1.0 / 11.0;
        if (which == 0) fc.ch = 3;
        if (which == 1) {
            fc.ax[0].fir = taps;
            fc.ax[0].fir_lo = -5;
            fc.ax[0].fir_hi = 5;
        }
        rb_context *ctx = gpu_test_context(RB_BACKEND_CUDA); /* default carries */
        rb_filter *f = case_filter(ctx, &fc);
        rb_plan *plan = NULL;
        assert_int_equal(rb_plan_create(ctx, f, fc.b, fc.w, fc.h, fc.ch, &plan), RB_OK);
        const size_t n = case_count(&fc);
        float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
        assert_true(in && out);
        tu_fill_random(in, RB_F32, n);
        float *ref = case_reference(&fc, in);
        dbufs d;
        dbufs_make(&fc, &d);
        for (int force = 0; force < 3; ++force) {
            const char *word = force == 2 ? "cross" : force ? "both" : "on";
            const int fused = run_route(ctx, plan, &fc, &d, word, in, out);
            const double e = rel_rms(out, ref, n);
            if (fused || !(e <= 1e-5)) {
                bad++;
                fprintf(stderr, "%s: %s, RECBLUR_CUDA_FUSE=%s: %s, rel RMS %.3g vs reference\n", GPU_SUITE,
                        which == 0 ? "3 channels" : which == 1 ? "an 11-tap FIR on the rows" : "order 6, double carries",
                        word, fused ? "fused (it does not cover this)" : "unfused", e);
            }
        }
        dbufs_free(&d);
        free(in);
        free(out);
        free(ref);
        rb_plan_destroy(plan);
        rb_filter_destroy(f);
        rb_context_destroy(ctx);
    }
    assert_int_equal(bad, 0);
}

/* ------------------------------------------ mirror closed by (67)/(72) ---- */

/* Mirror lines of symmetric filters whose plan took the closed form run
 * unpadded, the parallel chain closing them by (67)/(72)
 * (rb_cuda_blocks.mirror_closed, rb_tiled_pc_combine_c). Lines shorter than
 * the order, of one block, one block and a sample, 13 blocks and 5 samples
 * (one block a group), 40 and 1 (three a group, the head walk of p_1(Zhat)
 * shorter than the line), along rows and along columns, without and with an
 * even 5-tap FIR; orders 1-5, feedbacks redrawn until both axes take float
 * carries. Each case asserts that both axes took the closure (a route the
 * plan draws the same for the host and the device) and checks the result
 * against the float64 reference: emulated on the host, and on the device by
 * the three-kernel route, the default and =cross (route 3 where
 * rb_cuda_tiled_can_cross: mirror rows are no longer padded). */
static const int mir_lens[] = {1, 2, 3, 4, 32, 33, 13 * 32 + 5, 40 * 32 + 1};
#define MIR_NLENS (int)(sizeof mir_lens / sizeof mir_lens[0])

typedef struct {
    fcase fc;
    double taps[2][5];
} mcase;

/* whether each axis of plan closes mirror by (67)/(72); *expect: where it should
 * (the plan's symmetric closed form, float carries, order <= 5) */
static int mirror_closed_axes(const rb_plan *plan, int *expect)
{
    static rb_cuda_tiled t; /* 13 KB */
    int closed = 0;
    *expect = 0;
    for (int rows = 0; rows < 2; ++rows) {
        const rb_axis_plan *ap = rows ? &plan->rows : &plan->cols;
        assert_int_equal(rb_cuda_tiled_init(ap, plan->channels, rows, &plan->ctx->sw, &t), 0);
        const int want = !ap->padded && !ap->mirror_via_periodic && !t.dbl && ap->ax.r <= 5;
        const int got = t.b.mirror_closed && !t.b.ax.padded && t.b.ax.m == ap->n && t.b.ax.s0 == 0;
        closed += got;
        *expect += want;
    }
    return closed;
}

static void mcase_make(mcase *m, int order, int li, int along_rows, int fir)
{
    memset(m, 0, sizeof *m);
    fcase *fc = &m->fc;
    fc->order = order;
    fc->mode = RB_BOUNDARY_MIRROR;
    fc->b.mode = RB_BOUNDARY_MIRROR;
    const int n = mir_lens[li], other = 3 + li % 4;
    fc->w = along_rows ? n : other;
    fc->h = along_rows ? other : n;
    fc->ch = chans[(order + li) % 3];
    fc->layout = (order + li + along_rows) % 3;
    rb_context *ctx = case_ctx(RB_BACKEND_CPU, order);
    for (int tries = 0; tries < 16; ++tries) {
        for (int a = 0; a < 2; ++a) {
            fc->ax[a].causal_order = fc->ax[a].anticausal_order = order;
            tu_random_feedback(order, 0.9, fc->ax[a].causal);
            memcpy(fc->ax[a].anticausal, fc->ax[a].causal, sizeof fc->ax[a].causal);
            if (fir) { /* even: the mirror closed forms need an even-periodic input */
                const double c0 = 0.3 + tu_uniform(), c1 = 0.2 * tu_uniform(), c2 = 0.1 * tu_uniform();
                const double t5[5] = {c2, c1, c0, c1, c2};
                memcpy(m->taps[a], t5, sizeof t5);
                fc->ax[a].fir = m->taps[a];
                fc->ax[a].fir_lo = -2;
                fc->ax[a].fir_hi = 2;
            }
        }
        rb_filter *f = case_filter(ctx, fc);
        rb_plan *plan = NULL;
        assert_int_equal(rb_plan_create(ctx, f, fc->b, fc->w, fc->h, fc->ch, &plan), RB_OK);
        int expect = 0;
        const int closed = mirror_closed_axes(plan, &expect);
        rb_plan_destroy(plan);
        rb_filter_destroy(f);
        if (closed == 2) break;
    }
    rb_context_destroy(ctx);
}

/* One mirror case, emulated (dev 0) or on the device: failed checks, printed */
static int mirror_case(const mcase *m, int dev, int *closed_axes, int *crossed, double worst[3], char wcase[3][160])
{
    const fcase *fc = &m->fc;
    rb_context *ctx = case_ctx(dev ? RB_BACKEND_CUDA : RB_BACKEND_CPU, fc->order);
    rb_filter *f = case_filter(ctx, fc);
    rb_plan *plan = NULL;
    assert_int_equal(rb_plan_create(ctx, f, fc->b, fc->w, fc->h, fc->ch, &plan), RB_OK);
    const size_t n = case_count(fc);
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    assert_true(in && out);
    tu_fill_random(in, RB_F32, n);
    float *ref = case_reference(fc, in);
    int bad = 0, expect = 0;
    const int closed = mirror_closed_axes(plan, &expect);
    *closed_axes += closed;
    if (closed != expect) {
        bad++;
        fprintf(stderr, "%s: mirror " CASE_FMT "%s: %d axes closed by (67)/(72), expected %d\n", GPU_SUITE,
                CASE_ARGS(fc), fc->ax[0].fir ? " FIR" : "", closed, expect);
    }
    if (!dev) {
        assert_int_equal(rb_gpu_emulate_2d(plan, in, out, 0.0f), 0);
        const double e = rel_rms(out, ref, n);
        if (e > worst[0]) {
            worst[0] = e;
            snprintf(wcase[0], 160, CASE_FMT "%s", CASE_ARGS(fc), fc->ax[0].fir ? " FIR" : "");
        }
        if (!(e <= 1e-5)) {
            bad++;
            fprintf(stderr, "%s: mirror emulated " CASE_FMT "%s: rel RMS %.3g vs reference (tol 1e-05)\n", GPU_SUITE,
                    CASE_ARGS(fc), fc->ax[0].fir ? " FIR" : "", e);
        }
    } else {
        dbufs d;
        dbufs_make(fc, &d);
        static const char *const forces[3] = {"off", NULL, "cross"};
        /* route 3 where the three-transfer route covers the axes (and, in place,
         * a tile's column final reads only its own rows); elsewhere the other
         * tests check the route */
        static rb_cuda_tiled tc, tr; /* 13 KB each */
        assert_int_equal(rb_cuda_tiled_init(&plan->cols, plan->channels, 0, &plan->ctx->sw, &tc), 0);
        assert_int_equal(rb_cuda_tiled_init(&plan->rows, plan->channels, 1, &plan->ctx->sw, &tr), 0);
        const int x_cross = rb_cuda_tiled_can_cross(&tc, &tr) && (fc->layout != 2 || rb_cuda_tiled_final_both_in_place(&tc))
                                ? 3 : -1;
        for (int k = 0; k < 3; ++k) {
            const int route = run_route(ctx, plan, fc, &d, forces[k], in, out);
            const double e = rel_rms(out, ref, n);
            if (e > worst[k]) { /* per forced route: where the margin to the tolerance goes */
                worst[k] = e;
                snprintf(wcase[k], 160, CASE_FMT "%s route %d", CASE_ARGS(fc), fc->ax[0].fir ? " FIR" : "", route);
            }
            *crossed += k == 2 && route == 3;
            if (!(e <= 1e-5) || (k == 2 && x_cross == 3 && route != 3)) {
                bad++;
                fprintf(stderr, "%s: mirror " CASE_FMT "%s, RECBLUR_CUDA_FUSE=%s: route %d (=cross expects %d), "
                        "rel RMS %.3g vs reference (tol 1e-05)\n", GPU_SUITE, CASE_ARGS(fc),
                        fc->ax[0].fir ? " FIR" : "", forces[k] ? forces[k] : "default", route, x_cross, e);
            }
        }
        dbufs_free(&d);
    }
    free(in);
    free(out);
    free(ref);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    return bad;
}

static void mirror_cases(int dev)
{
    int bad = 0, cases = 0, closed = 0, crossed = 0;
    double worst[3] = {0.0, 0.0, 0.0};
    char wcase[3][160] = {"", "", ""};
    for (int order = 1; order <= 5; ++order)
        for (int li = 0; li < MIR_NLENS; ++li)
            for (int along_rows = 0; along_rows < 2; ++along_rows)
                for (int fir = 0; fir < 2; ++fir) {
                    mcase m;
                    mcase_make(&m, order, li, along_rows, fir);
                    if (dev && !gpu_order_wanted(order)) continue; /* drawn all the same */
                    bad += mirror_case(&m, dev, &closed, &crossed, worst, wcase) != 0;
                    cases++;
                }
    fprintf(stderr, "%s: mirror closed by (67)/(72), %s: %d cases, %d of %d axes closed, %d on the "
            "three-transfer route, %d failed\n", GPU_SUITE, dev ? "device" : "emulated", cases, closed, 2 * cases,
            crossed, bad);
    static const char *const rname[3] = {"=off", "default", "=cross"};
    for (int k = 0; k < (dev ? 3 : 1); ++k)
        fprintf(stderr, "%s: mirror closed, %s%s: worst rel RMS vs reference %.3g (%s)\n", GPU_SUITE,
                dev ? "device " : "emulated", dev ? rname[k] : "", worst[k], wcase[k]);
    /* the cases must keep reaching the closure (float carries in most draws) */
    assert_true(4 * closed > 3 * 2 * cases);
    assert_int_equal(bad, 0);
}

static void test_mirror_closure_device(void **state)
{
    (void)state;
    NEED_GPU();
    mirror_cases(1);
}

static void test_mirror_closure_emulated(void **state)
{
    (void)state;
    mirror_cases(0);
}

/* ---------------------------------------------------------------- host part */

/* The same cases through the CPU emulation of the tiled solver (the three
 * launches per axis; the fused kernel makes the same carries), same
 * switches, same tolerance. */
static void test_fused_cases_emulated(void **state)
{
    (void)state;
    int bad = 0, cases = 0, covered = 0;
    double worst = 0.0;
    for (int order = 1; order <= 8; ++order)
        for (int mode = RB_BOUNDARY_ZERO; mode <= RB_BOUNDARY_NONE; ++mode)
            for (int si = 0; si < NSIZES; ++si) {
                fcase fc;
                case_make(&fc, order, mode, si);
                rb_context *ctx = case_ctx(RB_BACKEND_CPU, order);
                rb_filter *f = case_filter(ctx, &fc);
                rb_plan *plan = NULL;
                assert_int_equal(rb_plan_create(ctx, f, fc.b, fc.w, fc.h, fc.ch, &plan), RB_OK);
                const size_t n = case_count(&fc);
                float *in = malloc(n * sizeof *in), *e = malloc(n * sizeof *e);
                assert_true(in && e);
                tu_fill_random(in, RB_F32, n);
                float *ref = case_reference(&fc, in);
                assert_int_equal(rb_gpu_emulate_2d(plan, in, e, fc.b.value), 0);
                covered += plan_float_carries(plan);
                const double err = rel_rms(e, ref, n);
                if (!(err <= case_tol(order))) {
                    bad++;
                    fprintf(stderr, "%s: emulated " CASE_FMT ": rel RMS %.3g vs reference (tol %.0e)\n", GPU_SUITE,
                            CASE_ARGS(&fc), err, case_tol(order));
                }
                if (err > worst) worst = err;
                cases++;
                free(in);
                free(e);
                free(ref);
                rb_plan_destroy(plan);
                rb_filter_destroy(f);
                rb_context_destroy(ctx);
            }
    fprintf(stderr, "%s: emulated: %d cases (%d with float carries, which fuse on the GPU), worst rel RMS vs "
            "reference %.3g, %d failed\n", GPU_SUITE, cases, covered, worst, bad);
    assert_int_equal(bad, 0);
}

int main(int argc, char **argv)
{
    if (!getenv("RB_TEST_SEED")) setenv("RB_TEST_SEED", "1", 0);
    tu_seed(GPU_SUITE);
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_fused_cases_emulated),
        cmocka_unit_test(test_mirror_closure_emulated),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_fused_device_images),
        cmocka_unit_test(test_fused_not_where_uncovered),
        cmocka_unit_test(test_mirror_closure_device),
    };
    return RB_GPU_SUITE_MAIN(argc, argv, host, device, NULL, NULL);
}
