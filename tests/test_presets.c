/* Presets: every shipped preset loads and builds; every malformed line is
 * RB_ERR_PRESET naming the file and the line; search path order. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_main.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_internal.h"

static const char *const shipped[] = {"gaussian-soft", "gaussian-wide", "bspline3", "bspline5", "tileable-blur"};

static void test_shipped(void **state)
{
    (void)state;
    rb_context *ctx;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    char names[64][128];
    int n = rb_preset_list(names, 64);
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        int found = 0;
        for (int k = 0; k < n; k++)
            found |= !strcmp(names[k], shipped[i]);
        if (!found)
            fail_msg("rb_preset_list lacks %s", shipped[i]);
        rb_preset p;
        if (rb_preset_load(ctx, shipped[i], &p) != RB_OK)
            fail_msg("%s: %s", shipped[i], rb_context_error(ctx));
        assert_string_equal(p.name, shipped[i]);
        assert_true(strlen(p.description) > 10);
        rb_filter *f = NULL;
        if (rb_settings_filter(ctx, &p.settings, &f, NULL) != RB_OK)
            fail_msg("%s: %s", shipped[i], rb_context_error(ctx));
        assert_true(f->axis[0].active && f->axis[1].active);
        /* dc_gain is a plain double quotient; its sums cancel for wide filters */
        assert_true(fabs(f->axis[0].dc_gain - 1.0) < 1e-6);
        rb_filter_destroy(f);
    }
    rb_preset p;
    assert_int_equal(rb_preset_load(ctx, "gaussian-wide", &p), RB_OK);
    assert_string_equal(p.settings.op->name, "blur");
    assert_true(rb_settings_number(&p.settings, "sigma-x") == 25.0 &&
                rb_settings_number(&p.settings, "sigma-y") == 25.0 && rb_settings_int(&p.settings, "accurate") == 1);
    assert_int_equal(rb_preset_load(ctx, "tileable-blur", &p), RB_OK);
    assert_true(rb_settings_given(&p.settings, "boundary") &&
                rb_settings_boundary(&p.settings).mode == RB_BOUNDARY_PERIODIC &&
                rb_settings_number(&p.settings, "sigma-x") == 8.0);
    assert_int_equal(rb_preset_load(ctx, "bspline5", &p), RB_OK);
    assert_true(!strcmp(p.settings.op->name, "bspline") && rb_settings_int(&p.settings, "degree") == 5);
    /* by path */
    char path[2048];
    snprintf(path, sizeof path, "%s/bspline3.preset", getenv("RECBLUR_PRESET_PATH"));
    assert_int_equal(rb_preset_load(ctx, path, &p), RB_OK);
    assert_int_equal(rb_settings_int(&p.settings, "degree"), 3);
    assert_string_equal(p.name, "bspline3");
    rb_context_destroy(ctx);
}

static void test_fields(void **state)
{
    (void)state;
    rb_context *ctx;
    rb_preset p;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    const char *text = "# a comment\n\n   op = filter  \r\n"
                       "signature = \"0.2: 0.5\"\n"
                       "direction = causal\naxes = x\n"
                       "description = my # filter\n"
                       "boundary = constant=0.25\n";
    if (rb_preset_parse_text(ctx, text, "/some/dir/mine.preset", &p) != RB_OK)
        fail_msg("%s", rb_context_error(ctx));
    assert_string_equal(p.name, "mine");
    assert_string_equal(p.settings.op->name, "filter");
    assert_string_equal(rb_settings_text(&p.settings, "signature"), "0.2: 0.5");
    assert_int_equal(rb_settings_int(&p.settings, "direction"), RB_DIRECTION_CAUSAL);
    assert_int_equal(rb_settings_int(&p.settings, "axes"), RB_AXES_X);
    assert_string_equal(p.description, "my # filter");
    rb_boundary b = rb_settings_boundary(&p.settings);
    assert_true(rb_settings_given(&p.settings, "boundary") && b.mode == RB_BOUNDARY_CONSTANT && b.value == 0.25f);
    rb_filter *f;
    assert_int_equal(rb_settings_filter(ctx, &p.settings, &f, NULL), RB_OK);
    assert_true(f->axis[0].active && !f->axis[1].active);
    rb_filter_destroy(f);
    /* blur defaults: op absent = blur, sigma-y alone leaves x unfiltered */
    assert_int_equal(rb_preset_parse_text(ctx, "sigma-y = 3\n", "t.preset", &p), RB_OK);
    assert_string_equal(p.settings.op->name, "blur");
    assert_true(rb_settings_number(&p.settings, "sigma-x") == 0.0 && rb_settings_number(&p.settings, "sigma-y") == 3.0 &&
                !rb_settings_int(&p.settings, "accurate") && !rb_settings_given(&p.settings, "boundary"));
    assert_int_equal(rb_preset_parse_text(ctx, "op = box\nsize-x = 3\nsize-y = 5\n", "t.preset", &p), RB_OK);
    assert_true(rb_settings_int(&p.settings, "size-x") == 3 && rb_settings_int(&p.settings, "size-y") == 5);
    assert_int_equal(rb_settings_filter(ctx, &p.settings, &f, NULL), RB_ERR_ARGUMENT);
    assert_int_equal(rb_preset_parse_text(ctx, "op = sat\n", "t.preset", &p), RB_OK);
    rb_context_destroy(ctx);
}

static void expect(const char *text, const char *must1, const char *must2)
{
    rb_context *ctx;
    rb_preset p;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    rb_status st = rb_preset_parse_text(ctx, text, "/tmp/x.preset", &p);
    const char *m = rb_context_error(ctx);
    if (st != RB_ERR_PRESET)
        fail_msg("status %d for [%.80s]: %s", st, text, m);
    if (!strstr(m, "recblur: preset 'x.preset'") || (must1 && !strstr(m, must1)) || (must2 && !strstr(m, must2)))
        fail_msg("message \"%s\" lacks \"%s\" / \"%s\"", m, must1 ? must1 : "", must2 ? must2 : "");
    rb_context_destroy(ctx);
}

static void test_errors(void **state)
{
    (void)state;
    expect("op = blur\nsigmaa = 2\n", "line 2: unknown key 'sigmaa'", NULL);
    expect("sigma = abc\n", "line 1:", "bad sigma 'abc'");
    expect("# c\nsigma = 0.3\n", "line 2:", "bad sigma");
    expect("sigma = nan\n", "line 1:", "bad sigma");
    expect("sigma = 2\naccurate = maybe\n", "line 2:", "accurate");
    expect("op = blur\nsigma 2\n", "line 2:", "key = value");
    expect("sigma = 2\nboundary = wrap\n", "line 2:", "wrap");
    expect("sigma = 2\n\nsigma = 3\n", "line 3:", "repeated (first on line 1)");
    expect("op = blur\nsigma = 2\ndegree = 3\n", "line 3:", "does not apply to op 'blur'");
    expect("op = blurr\nsigma = 2\n", "line 1:", "unknown op 'blurr'");
    expect("op = filter\nsignature = 0.2,,0.3: 0.5\n", "line 2:", "column 5");
    expect("op = filter\nsignature = 0.2: 1.5\n", "line 2:", "unstable");
    expect("op = filter\ndirection = sideways\nsignature = 0.2: 0.5\n", "line 2:", "sideways");
    expect("op = bspline\ndegree = 4\n", "line 2: bad degree '4'", NULL);
    expect("op = box\nsize = 0\n", "line 2:", "bad size");
    expect("sigma = 2\nsigma-x = 3\n", "line 2:", "either");
    expect("sigma =\n", "line 1:", "no value");
    expect(" = 3\n", "line 1:", "missing key");
    expect("op = filter\n", "needs 'signature'", NULL);
    expect("description = nothing else\n", "needs 'sigma'", NULL);
    {
        char *big = malloc(3000);
        memset(big, 'a', 2999);
        big[2999] = 0;
        memcpy(big, "sigma = 2\ndescription = ", 24);
        expect(big, "line 2:", "longer than 1024");
        free(big);
        big = malloc(70000);
        memset(big, '#', 69999);
        big[69999] = 0;
        for (int i = 0; i < 69999; i += 100)
            big[i] = '\n';
        expect(big, "limit", NULL);
        free(big);
    }
    rb_context *ctx;
    rb_preset p;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_preset_load(ctx, "no-such-preset", &p), RB_ERR_PRESET);
    assert_non_null(strstr(rb_context_error(ctx), "unknown preset 'no-such-preset'"));
    assert_int_equal(rb_preset_load(ctx, "bad name!", &p), RB_ERR_PRESET);
    assert_int_equal(rb_preset_load(ctx, "/nonexistent/dir/x.preset", &p), RB_ERR_IO);
    assert_int_equal(rb_preset_load(ctx, NULL, &p), RB_ERR_NULL);
    rb_context_destroy(ctx);
}

static void test_search_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb_presets_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/gaussian-soft.preset", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("description = overridden\nsigma = 3\n", fp);
    fclose(fp);
    char path2[256];
    snprintf(path2, sizeof path2, "%s/zz-mine.preset", dir);
    fp = fopen(path2, "w");
    assert_non_null(fp);
    fputs("op = bspline\ndegree = 3\n", fp);
    fclose(fp);
    char *old = strdup(getenv("RECBLUR_PRESET_PATH"));
    char env[2048];
    snprintf(env, sizeof env, "%s:%s", dir, old);
    setenv("RECBLUR_PRESET_PATH", env, 1);
    rb_context *ctx;
    rb_preset p;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_preset_load(ctx, "gaussian-soft", &p), RB_OK);
    assert_true(rb_settings_number(&p.settings, "sigma-x") == 3.0);
    assert_int_equal(rb_preset_load(ctx, "gaussian-wide", &p), RB_OK); /* falls through to the next dir */
    char names[64][128];
    int n = rb_preset_list(names, 64), mine = 0, soft = 0;
    for (int k = 0; k < n; k++) {
        mine += !strcmp(names[k], "zz-mine");
        soft += !strcmp(names[k], "gaussian-soft");
    }
    assert_int_equal(mine, 1);
    assert_int_equal(soft, 1); /* listed once although found twice */
    assert_int_equal(rb_preset_list(names, 2), 2);
    setenv("RECBLUR_PRESET_PATH", old, 1);
    free(old);
    unlink(path);
    unlink(path2);
    rmdir(dir);
    rb_context_destroy(ctx);
}

int main(void)
{
    /* ctest sets the search path; when run by hand, use the source tree's presets/ */
    if (!getenv("RECBLUR_PRESET_PATH")) {
        char dir[2048];
        snprintf(dir, sizeof dir, "%s", __FILE__);
        char *slash = strrchr(dir, '/');
        if (slash)
            snprintf(slash, sizeof dir - (size_t)(slash - dir), "/../presets");
        else
            snprintf(dir, sizeof dir, "../presets");
        setenv("RECBLUR_PRESET_PATH", dir, 1);
    }
    TU_RUN_TESTS(cmocka_unit_test(test_shipped), cmocka_unit_test(test_fields),
                 cmocka_unit_test(test_errors), cmocka_unit_test(test_search_path));
}
