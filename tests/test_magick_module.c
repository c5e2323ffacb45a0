/* The ImageMagick module in process, through InvokeDynamicImageFilter("recblur", ...)
 * exactly as `-process` calls it (the module is loaded from MAGICK_CODER_FILTER_PATH).
 * Good argument sets must give the pixels the engine gives when called directly
 * on the same samples (this checks the argument parser and the pixel mapping:
 * channel order, IM6 opacity vs alpha, gray, lists); bad sets must raise an
 * error-severity exception naming the problem and leave every pixel unchanged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <magick/MagickCore.h>

#include "recblur.h"
#include "recblur_deblur.h"

#define W 37
#define H 23

/* Deterministic, non-smooth content with every 16-bit value possible. */
static uint16_t *pattern(int w, int h, int ch, uint32_t seed)
{
    uint16_t *p = malloc((size_t)w * h * ch * sizeof *p);
    uint32_t s = seed;
    for (int i = 0; i < w * h * ch; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (uint16_t)(s >> 16);
    }
    if (ch == 4 || ch == 2) /* alpha away from 0 so colour always matters */
        for (int i = ch - 1; i < w * h * ch; i += ch)
            p[i] = (uint16_t)(8000 + p[i] % 57000);
    return p;
}

static const char *map_of(int ch)
{
    return ch == 1 ? "I" : ch == 2 ? "IA" : ch == 3 ? "RGB" : "RGBA";
}

static Image *make_image(const uint16_t *px, int w, int h, int ch)
{
    ExceptionInfo *ex = AcquireExceptionInfo();
    Image *img = ConstituteImage((size_t)w, (size_t)h, map_of(ch), ShortPixel, px, ex);
    assert_non_null(img);
    assert_true(ex->severity == UndefinedException);
    DestroyExceptionInfo(ex);
    return img;
}

static uint16_t *export_image(Image *img, int ch)
{
    ExceptionInfo *ex = AcquireExceptionInfo();
    uint16_t *px = malloc(img->columns * img->rows * (size_t)ch * sizeof *px);
    assert_true(ExportImagePixels(img, 0, 0, img->columns, img->rows, map_of(ch), ShortPixel,
                                  px, ex) == MagickTrue);
    DestroyExceptionInfo(ex);
    return px;
}

/* Run the module; returns the exception (caller destroys). */
static ExceptionInfo *invoke(Image **img, int argc, const char **argv)
{
    ExceptionInfo *ex = AcquireExceptionInfo();
    (void)InvokeDynamicImageFilter("recblur", img, argc, argv, ex);
    return ex;
}

/* What the engine gives on the same samples. */
static uint16_t *engine_result(const uint16_t *in, int w, int h, int ch, const rb_filter *f,
                               rb_boundary b, int linear, int box)
{
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    uint16_t *out = malloc((size_t)w * h * ch * sizeof *out);
    memcpy(out, in, (size_t)w * h * ch * sizeof *out);
    rb_image img = { w, h, ch, 0, RB_U16, RB_MEMORY_HOST,
                     (ch == 2 || ch == 4) ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE, 1, out };
    if (box) {
        assert_int_equal(rb_box_filter(ctx, box, box, b, &img, &img), RB_OK);
    } else {
        rb_plan *plan;
        assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
        assert_int_equal(rb_plan_set_linear_light(plan, linear), RB_OK);
        assert_int_equal(rb_execute(plan, &img, &img), RB_OK);
        rb_plan_destroy(plan);
    }
    rb_context_destroy(ctx);
    return out;
}

static rb_filter *gaussian(double sx, double sy)
{
    rb_context *ctx;
    rb_filter *f;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_filter_gaussian(ctx, sx, sy, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_context_destroy(ctx);
    return f;
}

static void assert_same(const uint16_t *a, const uint16_t *b, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            fail_msg("%s: sample %zu differs: %u vs %u", what, i, a[i], b[i]);
}

static int differs(const uint16_t *a, const uint16_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 1;
    return 0;
}

/* The module on a fresh W x H image of ch channels (pattern seed), prepare()
 * applied to it first: the call must succeed and change the image. The
 * input's samples in *in, the result returned (free both). */
static uint16_t *module_result(int ch, uint32_t seed, int argc, const char **argv,
                               void (*prepare)(Image *), uint16_t **in)
{
    *in = pattern(W, H, ch, seed);
    Image *img = make_image(*in, W, H, ch);
    if (prepare)
        prepare(img);
    ExceptionInfo *ex = invoke(&img, argc, argv);
    if (ex->severity != UndefinedException)
        fail_msg("module failed: %s %s", ex->reason ? ex->reason : "",
                 ex->description ? ex->description : "");
    uint16_t *got = export_image(img, ch);
    assert_true(differs(got, *in, (size_t)W * H * ch));
    DestroyExceptionInfo(ex);
    DestroyImage(img);
    return got;
}

/* The module's result equals the engine's (what names the call); all three freed. */
static void assert_same_and_free(uint16_t *in, uint16_t *got, uint16_t *want, int ch, const char *what)
{
    assert_same(got, want, (size_t)W * H * ch, what);
    free(in);
    free(got);
    free(want);
}

/* One good call: module on a fresh image vs the engine on the same samples. */
static void check_good(int ch, int argc, const char **argv, const rb_filter *f, rb_boundary b,
                       int linear, int box, void (*prepare)(Image *))
{
    uint16_t *in, *got = module_result(ch, 7u + (uint32_t)ch, argc, argv, prepare, &in);
    assert_same_and_free(in, got, engine_result(in, W, H, ch, f, b, linear, box), ch,
                         argv && argc ? argv[0] : "(defines)");
}

static void set_defines(Image *img)
{
    SetImageArtifact(img, "recblur:sigma", "3");
    SetImageArtifact(img, "recblur:boundary", "zero");
}

static void set_overridden_defines(Image *img)
{
    SetImageArtifact(img, "recblur:sigma", "9");
    SetImageArtifact(img, "recblur:boundary", "periodic");
}

static void set_tile(Image *img)
{
    SetImageVirtualPixelMethod(img, TileVirtualPixelMethod);
}

/* A good call and the engine call it must equal: sigma_x/sigma_y of the
 * Gaussian (or box, the box size with no Gaussian), boundary, linear light,
 * and what is set on the image first (defines, virtual-pixel method). */
typedef struct {
    const char *name;
    int channels;
    const char *args[4];
    int argc;
    double sigma_x, sigma_y;
    int box;
    rb_boundary boundary;
    int linear;
    void (*prepare)(Image *);
} good_case;

static const good_case good_cases[] = {
    { "rgba periodic", 4, { "sigma=3", "boundary=periodic" }, 2, 3, 3, 0, { RB_BOUNDARY_PERIODIC, 0 }, 0, NULL },
    { "positional rgb", 3, { "5", "mirror" }, 2, 5, 5, 0, { RB_BOUNDARY_MIRROR, 0 }, 0, NULL },
    { "gray", 1, { "sigma-x=2", "sigma-y=4", "boundary=constant=0.25" }, 3, 2, 4, 0,
      { RB_BOUNDARY_CONSTANT, 0.25f }, 0, NULL },
    { "gray alpha", 2, { "sigma-x=2", "sigma-y=4", "boundary=constant=0.25" }, 3, 2, 4, 0,
      { RB_BOUNDARY_CONSTANT, 0.25f }, 0, NULL },
    { "linear light", 4, { "sigma=4", "linear=yes", "boundary=clamp" }, 3, 4, 4, 0,
      { RB_BOUNDARY_CLAMP, 0 }, 1, NULL },
    /* -define recblur:* alone, then overridden by -process words */
    { "defines", 3, { NULL }, 0, 3, 3, 0, { RB_BOUNDARY_ZERO, 0 }, 0, set_defines },
    { "words over defines", 3, { "3", "zero" }, 2, 3, 3, 0, { RB_BOUNDARY_ZERO, 0 }, 0,
      set_overridden_defines },
    /* no boundary given: the image's virtual-pixel method (tile), else clamp */
    { "virtual pixel tile", 3, { "2.5" }, 1, 2.5, 2.5, 0, { RB_BOUNDARY_PERIODIC, 0 }, 0, set_tile },
    { "virtual pixel default", 3, { "2.5" }, 1, 2.5, 2.5, 0, { RB_BOUNDARY_CLAMP, 0 }, 0, NULL },
    { "box rgb", 3, { "op=sat-box", "size=5", "boundary=clamp" }, 3, 0, 0, 5, { RB_BOUNDARY_CLAMP, 0 }, 0, NULL },
    { "box rgba", 4, { "op=sat-box", "size=5", "boundary=clamp" }, 3, 0, 0, 5, { RB_BOUNDARY_CLAMP, 0 }, 0, NULL },
};

static void test_good_calls(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++) {
        const good_case *c = &good_cases[i];
        print_message("  %s\n", c->name);
        const char *argv[4];   /* the module takes a non-const list */
        memcpy(argv, c->args, sizeof argv);
        rb_filter *f = c->box ? NULL : gaussian(c->sigma_x, c->sigma_y);
        check_good(c->channels, c->argc, c->argc ? argv : NULL, f, c->boundary, c->linear, c->box,
                   c->prepare);
        rb_filter_destroy(f);
    }
}

/* Linear light really changes the result (else the linear case above proves nothing). */
static void test_linear_light_differs(void **state)
{
    (void)state;
    rb_filter *f = gaussian(4, 4);
    uint16_t *in = pattern(W, H, 3, 99);
    uint16_t *lin = engine_result(in, W, H, 3, f, (rb_boundary){ RB_BOUNDARY_CLAMP, 0 }, 1, 0);
    uint16_t *enc = engine_result(in, W, H, 3, f, (rb_boundary){ RB_BOUNDARY_CLAMP, 0 }, 0, 0);
    assert_true(differs(lin, enc, (size_t)W * H * 3));
    free(in);
    free(lin);
    free(enc);
    rb_filter_destroy(f);
}

static void test_signature_split_by_magick(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_filter *f;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_filter_parse(ctx, "0.2: 0.8", RB_DIRECTION_BOTH, RB_AXES_BOTH, &f), RB_OK);
    /* ImageMagick splits 'signature="0.2: 0.8"' at the space: the module rejoins it */
    const char *argv[] = { "signature=\"0.2:", "0.8\"", "boundary=mirror" };
    check_good(4, 3, argv, f, (rb_boundary){ RB_BOUNDARY_MIRROR, 0 }, 0, 0, NULL);
    rb_filter_destroy(f);
    assert_int_equal(rb_filter_bspline(ctx, 5, &f), RB_OK);
    const char *argv5[] = { "op=bspline5", "boundary=periodic" };
    check_good(3, 2, argv5, f, (rb_boundary){ RB_BOUNDARY_PERIODIC, 0 }, 0, 0, NULL);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
}

static void test_channel_red_only(void **state)
{
    (void)state;
    rb_filter *f = gaussian(3, 3);
    uint16_t *in = pattern(W, H, 4, 11);
    Image *img = make_image(in, W, H, 4);
    const char *argv[] = { "sigma=3", "boundary=clamp", "channel=R" };
    ExceptionInfo *ex = invoke(&img, 3, argv);
    assert_true(ex->severity == UndefinedException);
    uint16_t *got = export_image(img, 4);
    uint16_t *want = engine_result(in, W, H, 4, f, (rb_boundary){ RB_BOUNDARY_CLAMP, 0 }, 0, 0);
    int red_changed = 0;
    for (int i = 0; i < W * H * 4; i++) {
        if (i % 4 == 0) {
            assert_int_equal(got[i], want[i]);
            red_changed |= got[i] != in[i];
        } else {
            assert_int_equal(got[i], in[i]);
        }
    }
    assert_true(red_changed);
    free(in);
    free(got);
    free(want);
    DestroyExceptionInfo(ex);
    DestroyImage(img);
    rb_filter_destroy(f);
}

static void test_list_of_two(void **state)
{
    (void)state;
    rb_filter *f = gaussian(2, 2);
    rb_boundary b = { RB_BOUNDARY_MIRROR, 0 };
    uint16_t *in1 = pattern(W, H, 3, 1), *in2 = pattern(19, 31, 4, 2);
    Image *list = make_image(in1, W, H, 3);
    AppendImageToList(&list, make_image(in2, 19, 31, 4));
    const char *argv[] = { "2", "mirror" };
    ExceptionInfo *ex = invoke(&list, 2, argv);
    assert_true(ex->severity == UndefinedException);
    assert_int_equal(GetImageListLength(list), 2);
    uint16_t *got1 = export_image(list, 3), *got2 = export_image(GetNextImageInList(list), 4);
    uint16_t *want1 = engine_result(in1, W, H, 3, f, b, 0, 0);
    uint16_t *want2 = engine_result(in2, 19, 31, 4, f, b, 0, 0);
    assert_same(got1, want1, (size_t)W * H * 3, "first image");
    assert_same(got2, want2, (size_t)19 * 31 * 4, "second image");
    free(in1); free(in2); free(got1); free(got2); free(want1); free(want2);
    DestroyExceptionInfo(ex);
    DestroyImageList(list);
    rb_filter_destroy(f);
}

typedef struct {
    const char *args[4];
    int argc;
    const char *define_key, *define_value;
    const char *want;
} bad_case;

static const bad_case bad_cases[] = {
    { { NULL }, 0, NULL, NULL, "no sigma given" },
    { { "sigma=3", "foo=1" }, 2, NULL, NULL, "unknown key 'foo'" },
    { { "sigma=abc" }, 1, NULL, NULL, "bad sigma 'abc': not a number" },
    { { "abc" }, 1, NULL, NULL, "'abc' is not a number" },
    { { "3", "clamp", "more" }, 3, NULL, NULL, "unexpected word 'more'" },
    { { "5", "wobbly" }, 2, NULL, NULL, "wobbly" },
    { { "sigma=0.2" }, 1, NULL, NULL, "sigma" },
    { { "signature=0.5:1.5" }, 1, NULL, NULL, "unstable" },
    { { "signature=\"0.5:", "1.5" }, 2, NULL, NULL, "unterminated quote" },
    { { "preset=nosuchpreset" }, 1, NULL, NULL, "nosuchpreset" },
    { { "sigma=3", "size=5" }, 2, NULL, NULL, "different operations" },
    { { "op=blur", "sigma=2", "size=5" }, 3, NULL, NULL, "size does not apply to op=blur" },
    { { "op=sharpen" }, 1, NULL, NULL, "unknown op 'sharpen'" },
    { { "size=3", "linear=yes" }, 2, NULL, NULL, "linear does not apply to op=box" },
    { { "3", "backend=warp" }, 2, NULL, NULL, "warp" },
    { { "3", "linear=maybe" }, 2, NULL, NULL, "linear 'maybe'" },
    { { "3", "channel=Q" }, 2, NULL, NULL, "channel 'Q'" },
    { { "3" }, 1, "recblur:bogus", "1", "unknown define 'recblur:bogus'" },
    { { NULL }, 0, "recblur:sigma", "lots", "bad sigma 'lots': not a number" },
};

static void test_bad_arguments_leave_image_unchanged(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof bad_cases / sizeof bad_cases[0]; c++) {
        const bad_case *bc = &bad_cases[c];
        uint16_t *in = pattern(W, H, 4, 5);
        Image *list = make_image(in, W, H, 4);
        AppendImageToList(&list, make_image(in, W, H, 4));
        if (bc->define_key)
            SetImageArtifact(list, bc->define_key, bc->define_value);
        ExceptionInfo *ex = invoke(&list, bc->argc, (const char **)bc->args);
        if (ex->severity < ErrorException)
            fail_msg("case %zu (%s): no error raised", c, bc->want);
        if (!ex->reason || !strstr(ex->reason, bc->want))
            fail_msg("case %zu: message \"%s\" lacks \"%s\"", c, ex->reason ? ex->reason : "",
                     bc->want);
        for (Image *im = list; im; im = GetNextImageInList(im)) {
            uint16_t *got = export_image(im, 4);
            assert_same(got, in, (size_t)W * H * 4, bc->want);
            free(got);
        }
        free(in);
        DestroyExceptionInfo(ex);
        DestroyImageList(list);
    }
}

/* A progress monitor that stops recblur once filtering of its image has started
 * (when `cancel` is set); counts recblur's calls. */
typedef struct {
    int calls;
    int cancel;
} monitor_state;

static MagickBooleanType stop_recblur(const char *tag, const MagickOffsetType offset,
                                      const MagickSizeType extent, void *user)
{
    (void)extent;
    monitor_state *m = user;
    if (strncmp(tag, "recblur", 7) != 0)
        return MagickTrue;
    m->calls++;
    return (m->cancel && offset > 0) ? MagickFalse : MagickTrue;
}

/* A two-image list whose second run (the module given word) the progress
 * monitor cancels once it has started, the first having run to its end: the
 * call fails with a cancel message and neither image changes (results go back
 * only after the engine succeeded for every image). */
static void check_cancelled_list(const char *word, int w, int h, uint32_t seed)
{
    monitor_state first = { 0, 0 }, second = { 0, 1 };
    uint16_t *in = pattern(w, h, 3, seed);
    Image *list = make_image(in, w, h, 3);
    AppendImageToList(&list, make_image(in, w, h, 3));
    SetImageProgressMonitor(list, stop_recblur, &first);
    SetImageProgressMonitor(GetNextImageInList(list), stop_recblur, &second);
    const char *argv[] = { word };
    ExceptionInfo *ex = invoke(&list, 1, argv);
    assert_true(first.calls > 2);
    assert_true(second.calls > 1);
    if (ex->severity < ErrorException)
        fail_msg("%s: cancelling from the progress monitor raised no error", word);
    assert_non_null(strstr(ex->reason, "cancel"));
    for (Image *im = list; im; im = GetNextImageInList(im)) {
        uint16_t *got = export_image(im, 3);
        assert_same(got, in, (size_t)w * h * 3, word);
        free(got);
    }
    free(in);
    DestroyExceptionInfo(ex);
    DestroyImageList(list);
}

static void test_cancel_leaves_images_unchanged(void **state)
{
    (void)state;
    check_cancelled_list("sigma=6", 301, 203, 17);
}

static uint16_t *deblur_engine_result(const uint16_t *in, int w, int h, int ch, double sigma,
                                      double noise, int m, rb_boundary b)
{
    rb_context *ctx;
    rb_deblur_filter *f;
    rb_deblur_plan *plan;
    rb_deblur_psf psf = { RB_DEBLUR_PSF_GAUSSIAN, sigma, 0, 0, NULL };
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_deblur_design(ctx, &psf, noise, m, 0, &f), RB_OK);
    assert_int_equal(rb_deblur_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
    uint16_t *out = malloc((size_t)w * h * ch * sizeof *out);
    memcpy(out, in, (size_t)w * h * ch * sizeof *out);
    rb_image img = { w, h, ch, 0, RB_U16, RB_MEMORY_HOST,
                     (ch == 2 || ch == 4) ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE, 1, out };
    assert_int_equal(rb_deblur_execute(plan, &img, &img), RB_OK);
    rb_deblur_plan_destroy(plan);
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
    return out;
}

static void check_deblur(int ch, int argc, const char **argv, void (*prepare)(Image *),
                         double sigma, double noise, int m, rb_boundary_mode mode)
{
    uint16_t *in, *got = module_result(ch, 31u + (uint32_t)ch, argc, argv, prepare, &in);
    rb_boundary b = { mode, 0.0f };
    assert_same_and_free(in, got, deblur_engine_result(in, W, H, ch, sigma, noise, m, b), ch, argv[0]);
}

/* op=deblur on every layout, its defaults (noise 0.005, window 8, mirror),
 * and -virtual-pixel tile choosing periodic when boundary= is absent. */
static void test_deblur_matches_engine(void **state)
{
    (void)state;
    const char *a1[] = { "op=deblur", "psf-sigma=1.5", "window=5", "boundary=periodic" };
    for (int ch = 1; ch <= 4; ch++)
        check_deblur(ch, 4, a1, NULL, 1.5, 0.005, 5, RB_BOUNDARY_PERIODIC);
    const char *a2[] = { "psf-sigma=2" };
    check_deblur(3, 1, a2, NULL, 2.0, 0.005, 8, RB_BOUNDARY_MIRROR);
    check_deblur(4, 1, a2, set_tile, 2.0, 0.005, 8, RB_BOUNDARY_PERIODIC);
    const char *a3[] = { "psf-sigma=1", "noise=1%", "window=3", "boundary=clamp" };
    check_deblur(2, 4, a3, NULL, 1.0, 0.01, 3, RB_BOUNDARY_CLAMP);
}

static void test_deblur_cancel_leaves_images_unchanged(void **state)
{
    (void)state;
    check_cancelled_list("psf-sigma=1.5", W, H, 19);
}

static void test_severity_is_option_error(void **state)
{
    (void)state;
    uint16_t *in = pattern(W, H, 3, 3);
    Image *img = make_image(in, W, H, 3);
    const char *argv[] = { "sigma=3", "foo=1" };
    ExceptionInfo *ex = invoke(&img, 2, argv);
    assert_int_equal(ex->severity, OptionError);
    assert_non_null(strstr(ex->reason, "usage: -process 'recblur SIGMA [BOUNDARY]'"));
    free(in);
    DestroyExceptionInfo(ex);
    DestroyImage(img);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (!getenv("MAGICK_CODER_FILTER_PATH")) {
        fprintf(stderr, "test_magick_module: MAGICK_CODER_FILTER_PATH must name the directory "
                        "holding recblur.so/recblur.la (ctest sets it)\n");
        return 1;
    }
    MagickCoreGenesis(argv[0], MagickFalse);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_calls),
        cmocka_unit_test(test_linear_light_differs),
        cmocka_unit_test(test_signature_split_by_magick),
        cmocka_unit_test(test_channel_red_only),
        cmocka_unit_test(test_list_of_two),
        cmocka_unit_test(test_bad_arguments_leave_image_unchanged),
        cmocka_unit_test(test_severity_is_option_error),
        cmocka_unit_test(test_cancel_leaves_images_unchanged),
        cmocka_unit_test(test_deblur_matches_engine),
        cmocka_unit_test(test_deblur_cancel_leaves_images_unchanged),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MagickCoreTerminus();
    return failed;
}
