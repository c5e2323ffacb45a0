/* The strips' carries in a temporary file (rb_stream_set_carry_memory,
 * api/stream_carry_store.c): with a limit of 0 bytes every stream keeps its
 * carries in a file (pass 1 writes each strip's record, the close reads and
 * writes them back 64 lanes at a time, pass 2 reads strip k's), and the
 * result must be the in-memory route's, bit for bit (the same operations on
 * every lane), and rb_execute's to 1e-5: every boundary, the Gaussian and
 * random filters of orders 1 and 4 with FIR taps (symmetric and not,
 * one-sided passes), one-row strips, strips of 1..5 rows, equal strips with
 * a short last one, a single strip, odd heights, images 1..7 blocks of
 * lanes wide (the close's ranges, a ragged last one). A stream that passes
 * its limit half way (tall strips, then one-row ones) moves to the file
 * then, with the same result. A TMPDIR that cannot take the file is
 * RB_ERR_IO naming it, and no output is written; nothing is left behind.
 * Fresh seed per run (printed); RB_TEST_SEED reproduces. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reference.h"
#include "test_util.h"
#include "rb_internal.h"

static rb_context *ctx;

/* The strip split: shape 0 one-row strips, 1 random heights 1..5, 2 equal
 * strips of q rows with a last short one, 3 a single strip, 4 one tall
 * strip (half the image) and then one-row strips. */
static int make_split(int h, int shape, int *y0, int *rows)
{
    int k = 0, q = tu_int(2, 6);
    for (int y = 0; y < h; k++) {
        int n = shape == 0 ? 1 : shape == 1 ? tu_int(1, 5) : shape == 2 ? q : shape == 3 ? h
                : (y == 0 ? (h + 1) / 2 : 1);
        if (n > h - y)
            n = h - y;
        y0[k] = y;
        rows[k] = n;
        y += n;
    }
    return k;
}

static rb_image strip_of(const rb_image *img, int y0, int rows)
{
    rb_image s = *img;
    s.stride = (size_t)img->width * img->channels * (img->format == RB_U8 ? 1 : img->format == RB_U16 ? 2 : 4);
    s.height = rows;
    s.data = (char *)img->data + (size_t)y0 * s.stride;
    return s;
}

/* Run plan over `in` in the given strips into `out`, the carries allowed
 * carry_mem bytes (SIZE_MAX: the default, in memory); where they were into
 * *info. RB_OK or the first error. */
static rb_status run_strips(rb_plan *plan, const rb_image *in, rb_image *out, int K, const int *y0,
                            const int *rows, size_t carry_mem, rb_stream_carry_info *info)
{
    rb_stream *st;
    rb_status s = rb_stream_create(plan, &st);
    if (s != RB_OK)
        return s;
    if (carry_mem != SIZE_MAX)
        s = rb_stream_set_carry_memory(st, carry_mem);
    for (int k = 0; k < K && s == RB_OK; k++) {
        rb_image a = strip_of(in, y0[k], rows[k]);
        s = rb_stream_gather(st, &a, y0[k]);
    }
    if (s == RB_OK)
        s = rb_stream_close_carries(st);
    for (int k = 0; k < K && s == RB_OK; k++) {
        rb_image a = strip_of(in, y0[k], rows[k]), b = strip_of(out, y0[k], rows[k]);
        s = rb_stream_produce(st, &a, &b, y0[k]);
    }
    if (info)
        assert_int_equal(rb_stream_carries(st, info), RB_OK);
    rb_stream_destroy(st);
    return s;
}

static const rb_boundary_mode modes[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                         RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR, RB_BOUNDARY_NONE};
static const char *const kinds[] = {"gaussian", "order 1, symmetric FIR", "order 4, symmetric FIR",
                                    "order 4, any FIR", "order 1, causal only + FIR",
                                    "order 4, one-sided passes"};

/* The column filter of kind fk (the rows: a random order-2 filter). */
static rb_filter *make_filter(int fk, tu_axis *ax, tu_axis *ay)
{
    rb_filter *f;
    if (fk == 0) {
        assert_int_equal(rb_filter_gaussian(ctx, 0.5 + 3 * tu_uniform(), 0.7 + 5 * tu_uniform(),
                                            RB_GAUSSIAN_DEFAULT, &f), RB_OK);
        return f;
    }
    tu_random_axis(ax, 2, 0.9, tu_int(0, 1));
    const int order[] = {0, 1, 4, 4, 1, 4}, variant[] = {0, 1, 1, 5, 3, 2};
    tu_random_axis(ay, order[fk], 0.9, variant[fk]);
    if (fk == 4) { /* variant 3 (no anticausal pass) has no FIR: give it one */
        static double taps[3];
        taps[0] = 0.3, taps[1] = 0.5, taps[2] = 0.2;
        ay->f.fir = taps;
        ay->f.fir_lo = -1;
        ay->f.fir_hi = 1;
    }
    assert_int_equal(rb_filter_create(ctx, &ax->f, &ay->f, &f), RB_OK);
    return f;
}

/* The file route == the memory route, bit for bit, and == rb_execute. */
static void test_file_equals_memory(void **state)
{
    (void)state;
    int cases = 0, refused = 0, chunked = 0;
    rb_context_set_threads(ctx, 2);
    for (int mi = 0; mi < 6; mi++)
        for (int fk = 0; fk < 6; fk++)
            for (int shape = 0; shape < 5; shape++) {
                const int hs[] = {1, 2, 3, 13, 31, 57, 77};
                const int w = tu_int(1, 150), h = hs[tu_int(0, 6)], ch = tu_int(1, 3);
                tu_axis ax, ay;
                rb_filter *f = make_filter(fk, &ax, &ay);
                rb_boundary b = {modes[mi], (float)tu_uniform()};
                rb_plan *plan;
                assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
                const size_t n = (size_t)w * h * ch;
                float *x = malloc(n * 4), *y0 = malloc(n * 4), *y1 = malloc(n * 4),
                      *y2 = malloc(n * 4);
                tu_fill_random(x, RB_F32, n);
                rb_image in = tu_f32_image(w, h, ch, x), o0 = in, o1 = in, o2 = in;
                o0.data = y0;
                o1.data = y1;
                o2.data = y2;
                assert_int_equal(rb_execute(plan, &in, &o0), RB_OK);
                int ys[80], rows[80];
                const int K = make_split(h, shape, ys, rows);
                rb_stream_carry_info mem, file;
                rb_status s1 = run_strips(plan, &in, &o1, K, ys, rows, SIZE_MAX, &mem);
                rb_status s2 = run_strips(plan, &in, &o2, K, ys, rows, 0, &file);
                assert_int_equal(s1, s2);
                if (s1 == RB_ERR_UNSUPPORTED) { /* mirror on a column filter that is not symmetric */
                    assert_int_equal(modes[mi], RB_BOUNDARY_MIRROR);
                    refused++;
                } else {
                    if (s2 != RB_OK)
                        print_error("%s\n", rb_context_error(ctx));
                    assert_int_equal(s2, RB_OK);
                    assert_int_equal(mem.in_file, 0);
                    assert_int_equal(file.in_file, 1);
                    /* written at least once (pass 1, the close) and read back (the close, pass 2)
                     * where there are carries: an anticausal pass or rows after a strip */
                    if (file.bytes) {
                        assert_true(file.written > 0);
                        assert_true(file.read > 0);
                    }
                    if (memcmp(y1, y2, n * 4)) {
                        size_t i = 0;
                        while (y1[i] == y2[i])
                            i++;
                        print_error("%s, %s, shape %d, %dx%dx%d in %d strips: the file route "
                                    "differs at sample %zu (row %zu): %.9g, in memory %.9g\n",
                                    rb_boundary_name(modes[mi]), kinds[fk], shape, w, h, ch, K, i,
                                    i / ((size_t)w * ch), y2[i], y1[i]);
                        fail();
                    }
                    const double e = tu_rel_rms_f(y2, y0, n);
                    if (e > 1e-5)
                        print_error("%s, %s: off rb_execute by %.2e\n", rb_boundary_name(modes[mi]),
                                    kinds[fk], e);
                    assert_true(e <= 1e-5);
                    chunked += (long)w * ch > 64;
                    cases++;
                }
                free(x);
                free(y0);
                free(y1);
                free(y2);
                rb_plan_destroy(plan);
                rb_filter_destroy(f);
            }
    rb_context_set_threads(ctx, 0);
    printf("file route: %d cases equal to the memory route bit for bit (%d closed in several "
           "ranges of lanes), %d refused (mirror, not symmetric)\n", cases, chunked, refused);
}

/* Wide images, 8-bit in and out, tall strips and a limit that a few
 * strips' carries pass: the stream moves to the file at the strip where the
 * carries outgrow it, the close takes several ranges of lanes (a ragged
 * last one), and the codes are the memory route's. */
static void test_wide_limit(void **state)
{
    (void)state;
    for (int mi = 0; mi < 5; mi++) {
        const int w = tu_int(300, 460), h = tu_int(90, 140), ch = tu_int(1, 3);
        rb_filter *f;
        assert_int_equal(rb_filter_gaussian(ctx, 2 + 4 * tu_uniform(), 2 + 4 * tu_uniform(),
                                            RB_GAUSSIAN_DEFAULT, &f), RB_OK);
        rb_boundary b = {modes[mi], 0.5f};
        rb_plan *plan;
        assert_int_equal(rb_plan_create(ctx, f, b, w, h, ch, &plan), RB_OK);
        const size_t n = (size_t)w * h * ch;
        uint8_t *x = malloc(n), *y1 = malloc(n), *y2 = malloc(n);
        tu_fill_random(x, RB_U8, n);
        rb_image in = {w, h, ch, 0, RB_U8, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, x}, o1 = in, o2 = in;
        o1.data = y1;
        o2.data = y2;
        int ys[200], rows[200];
        const int K = make_split(h, 4, ys, rows);
        /* about 3 strips' carries: the first strip (half the image, 2 strips
         * foreseen) fits, the one-row strips after it do not */
        const size_t per = (size_t)w * ch * (4 * sizeof(double) + 8 * sizeof(float));
        rb_stream_carry_info mem, file;
        assert_int_equal(run_strips(plan, &in, &o1, K, ys, rows, SIZE_MAX, &mem), RB_OK);
        assert_int_equal(run_strips(plan, &in, &o2, K, ys, rows, 3 * per, &file), RB_OK);
        assert_int_equal(file.in_file, 1);
        assert_true(file.bytes > 3 * per); /* the records of every strip */
        assert_memory_equal(y1, y2, n);
        free(x);
        free(y1);
        free(y2);
        rb_plan_destroy(plan);
        rb_filter_destroy(f);
    }
}

/* Entries in dir other than . and .. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* A TMPDIR that cannot take the file: RB_ERR_IO from the gather that needs
 * it, naming the directory; the stream stops (a produce fails too) and the
 * output is not touched. One that can: the file is unlinked as soon as it is
 * made (the directory stays empty while the stream runs and after). The
 * limit is set before the first gather only. */
static void test_tmpdir(void **state)
{
    (void)state;
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    rb_filter *f;
    assert_int_equal(rb_filter_gaussian(ctx, 3, 3, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_boundary b = {RB_BOUNDARY_PERIODIC, 0};
    rb_plan *plan;
    const int w = 40, h = 30;
    assert_int_equal(rb_plan_create(ctx, f, b, w, h, 1, &plan), RB_OK);
    float *x = malloc(sizeof(float) * w * h), *y = malloc(sizeof(float) * w * h);
    tu_fill_random(x, RB_F32, (size_t)w * h);
    for (int i = 0; i < w * h; i++)
        y[i] = 12345.0f;
    rb_image in = tu_f32_image(w, h, 1, x), out = in;
    out.data = y;

    char dir[] = "/tmp/rb_test_stream_file_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char missing[sizeof dir + 16];
    snprintf(missing, sizeof missing, "%s/no/such", dir);
    setenv("TMPDIR", missing, 1);
    rb_stream *st;
    assert_int_equal(rb_stream_create(plan, &st), RB_OK);
    assert_int_equal(rb_stream_set_carry_memory(st, 1), RB_OK);
    rb_image a = strip_of(&in, 0, 10);
    assert_int_equal(rb_stream_gather(st, &a, 0), RB_ERR_IO);
    const char *msg = rb_context_error(ctx);
    printf("unwritable TMPDIR: %s\n", msg);
    assert_non_null(strstr(msg, missing));
    assert_non_null(strstr(msg, "temporary file"));
    a = strip_of(&in, 10, 20);
    assert_int_not_equal(rb_stream_gather(st, &a, 10), RB_OK);
    assert_int_not_equal(rb_stream_close_carries(st), RB_OK);
    rb_image o = strip_of(&out, 0, 10);
    a = strip_of(&in, 0, 10);
    assert_int_not_equal(rb_stream_produce(st, &a, &o, 0), RB_OK);
    rb_stream_destroy(st);
    for (int i = 0; i < w * h; i++)
        assert_true(y[i] == 12345.0f);

    /* a directory that takes it: empty while the stream runs, and after */
    setenv("TMPDIR", dir, 1);
    assert_int_equal(rb_stream_create(plan, &st), RB_OK);
    assert_int_equal(rb_stream_set_carry_memory(st, 1), RB_OK);
    a = strip_of(&in, 0, 10);
    assert_int_equal(rb_stream_gather(st, &a, 0), RB_OK);
    assert_int_equal(rb_stream_set_carry_memory(st, 1), RB_ERR_ARGUMENT); /* too late */
    rb_stream_carry_info info;
    assert_int_equal(rb_stream_carries(st, &info), RB_OK);
    assert_int_equal(info.in_file, 1);
    assert_string_equal(info.dir, dir);
    assert_int_equal(dir_entries(dir), 0);
    rb_stream_destroy(st);
    assert_int_equal(dir_entries(dir), 0);
    assert_int_equal(rmdir(dir), 0);

    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    free(x);
    free(y);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
}

/* rb_stream_working_bytes_capped: past the limit the carries' share is a
 * few strips' records and the close's range, far below them all; within
 * it, the same as rb_stream_working_bytes. */
static void test_capped_bytes(void **state)
{
    (void)state;
    rb_filter *f;
    assert_int_equal(rb_filter_gaussian(ctx, 5, 5, RB_GAUSSIAN_DEFAULT, &f), RB_OK);
    rb_boundary b = {RB_BOUNDARY_PERIODIC, 0};
    rb_plan *plan;
    assert_int_equal(rb_plan_create(ctx, f, b, 4096, 8192, 1, &plan), RB_OK);
    const size_t all = rb_stream_working_bytes(plan, 16), big = rb_stream_working_bytes_capped(plan, 16, all),
                 small = rb_stream_working_bytes_capped(plan, 16, 1 << 20);
    assert_int_equal(all, big);
    /* 512 strips, at least 4 doubles a lane each: 64 MiB of carries in memory */
    assert_true(all >= (size_t)512 * 4096 * 4 * sizeof(double));
    assert_true(small < all / 8);
    assert_int_equal(rb_stream_working_bytes_capped(NULL, 16, 0), 0);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
}

int main(void)
{
    tu_seed("test_stream_file");
    if (rb_context_create(&ctx) != RB_OK)
        return 1;
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_equals_memory),
        cmocka_unit_test(test_wide_limit),
        cmocka_unit_test(test_tmpdir),
        cmocka_unit_test(test_capped_bytes),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rb_context_destroy(ctx);
    return rc;
}
