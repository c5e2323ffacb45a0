/* Every front end starts from the operation table's defaults: the CLI's
 * resolved settings, a preset that names only its op, the ImageMagick
 * option parser with no words but the op, and the GIMP plug-in's values
 * (rbg_vals_defaults_for through its table mapping) must all resolve to the
 * table's values, setting by setting, for every operation each one runs.
 * Settings a text front end requires (sigma, signature, size, psf-sigma) are
 * given the same value everywhere; the GIMP dialog starts from the table's
 * default for them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "options.h"           /* cli/ */
#include "rb_magick_options.h" /* plugin-magick/ */
#include "rbg_vals.h"          /* plugin-gimp/ */
#include "recblur.h"

/* What a text front end must be told for each op, as KEY and VALUE. */
static const struct {
    rb_op_id op;
    const char *key, *value;
} required[] = {
    {RB_OP_BLUR, "sigma", "7"},
    {RB_OP_FILTER, "signature", "0.3: 0.7"},
    {RB_OP_BSPLINE, NULL, NULL},
    {RB_OP_SAT, NULL, NULL},
    {RB_OP_BOX, "size", "3"},
    {RB_OP_DEBLUR, "psf-sigma", "2"},
};

static void required_of(rb_op_id op, const char **key, const char **value)
{
    *key = *value = NULL;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (required[i].op == op) {
            *key = required[i].key;
            *value = required[i].value;
        }
}

/* The table's defaults, with the required setting given when text is true. */
static rb_settings reference(rb_op_id id, int text)
{
    rb_settings s;
    rb_settings_init(&s, rb_op_get(id));
    const char *key, *value;
    required_of(id, &key, &value);
    if (text && key)
        assert_int_equal(rb_settings_set(NULL, &s, key, value), RB_OK);
    return s;
}

/* got and want resolve every setting of the op the same; skip_host: leave
 * out the settings a host may start from its own convention. */
static void assert_same_settings(const rb_settings *got, const rb_settings *want, const char *front,
                                 int skip_host)
{
    const rb_op_desc *op = want->op;
    if (got->op != op)
        fail_msg("%s, op %s: the front end runs op %s", front, op->name, got->op ? got->op->name : "?");
    for (int i = 0; i < op->n_settings; i++) {
        const rb_setting_desc *d = op->settings[i];
        if (skip_host && (d->flags & RB_SETTING_HOST_DEFAULT))
            continue;
        int same;
        if (d->type == RB_SETTING_TEXT)
            same = !strcmp(rb_settings_text(got, d->key), rb_settings_text(want, d->key));
        else if (d->type == RB_SETTING_BOUNDARY) {
            rb_boundary a = rb_settings_boundary(got), b = rb_settings_boundary(want);
            same = a.mode == b.mode && a.value == b.value;
        } else
            same = rb_settings_number(got, d->key) == rb_settings_number(want, d->key);
        if (!same && d->type == RB_SETTING_BOUNDARY)
            fail_msg("%s, op %s: boundary is %s, the table says %s", front, op->name,
                     rb_boundary_name(rb_settings_boundary(got).mode),
                     rb_boundary_name(rb_settings_boundary(want).mode));
        if (!same)
            fail_msg("%s, op %s: %s is %g/'%s', the table says %g/'%s'", front, op->name, d->key,
                     rb_settings_number(got, d->key), rb_settings_text(got, d->key),
                     rb_settings_number(want, d->key), rb_settings_text(want, d->key));
    }
}

/* One text front end told only an op and its required setting (key NULL:
 * none): the settings it resolves, into out; a refusal fails the test. */
typedef void (*front_end_settings)(rb_context *ctx, const rb_op_desc *op, const char *key,
                                   const char *value, rb_settings *out);

static void cli_settings_of(rb_context *ctx, const rb_op_desc *op, const char *key, const char *value,
                            rb_settings *out)
{
    char option[64];
    snprintf(option, sizeof option, "--%s", key ? key : "");
    char *argv[] = {"recblur", (char *)op->name, option, (char *)value, "in.png", "out.png"};
    int argc = 6;
    if (!key) {
        argv[2] = "in.png";
        argv[3] = "out.png";
        argc = 4;
    }
    cli_options o;
    cli_settings s;
    char err[512] = "";
    if (cli_parse_options(op, argc, argv, 2, &o, err, sizeof err) ||
        cli_resolve_settings(ctx, &o, &s, err, sizeof err))
        fail_msg("CLI %s: %s", op->name, err);
    *out = s.op;
}

static void preset_settings_of(rb_context *ctx, const rb_op_desc *op, const char *key,
                               const char *value, rb_settings *out)
{
    char text[256];
    if (key)
        snprintf(text, sizeof text, "op = %s\n%s = %s\n", op->name, key, value);
    else
        snprintf(text, sizeof text, "op = %s\n", op->name);
    rb_preset p;
    if (rb_preset_parse_text(ctx, text, "defaults.preset", &p) != RB_OK)
        fail_msg("preset %s: %s", op->name, rb_context_error(ctx));
    *out = p.settings;
}

static void magick_settings_of(rb_context *ctx, const rb_op_desc *op, const char *key,
                               const char *value, rb_settings *out)
{
    char op_word[64], required_word[128];
    snprintf(op_word, sizeof op_word, "op=%s", op->name);
    snprintf(required_word, sizeof required_word, "%s=%s", key ? key : "", value ? value : "");
    const char *words[] = {op_word, required_word};
    rb_magick_options o;
    char err[4096] = "";
    if (rb_magick_options_parse(ctx, NULL, 0, key ? 2 : 1, words, &o, err, sizeof err))
        fail_msg("ImageMagick %s: %s", op->name, err);
    assert_int_equal(o.channels, RB_MAGICK_CH_ALL);
    *out = o.settings;
}

/* Each of the n ops through one front end resolves to the table's defaults. */
static void check_front_end(const char *front, const rb_op_id *ops, size_t n,
                            front_end_settings settings_of)
{
    for (size_t i = 0; i < n; i++) {
        const char *key, *value;
        required_of(ops[i], &key, &value);
        rb_context *ctx;
        assert_int_equal(rb_context_create(&ctx), RB_OK);
        rb_settings got;
        settings_of(ctx, rb_op_get(ops[i]), key, value, &got);
        rb_settings want = reference(ops[i], 1);
        assert_same_settings(&got, &want, front, 0);
        rb_context_destroy(ctx);
    }
}

static void test_cli_defaults(void **state)
{
    (void)state;
    static const rb_op_id ops[] = {RB_OP_BLUR, RB_OP_FILTER, RB_OP_BSPLINE, RB_OP_SAT, RB_OP_BOX,
                                   RB_OP_DEBLUR};
    check_front_end("CLI", ops, sizeof ops / sizeof ops[0], cli_settings_of);
}

static void test_preset_defaults(void **state)
{
    (void)state;
    static const rb_op_id ops[] = {RB_OP_BLUR, RB_OP_FILTER, RB_OP_BSPLINE, RB_OP_SAT, RB_OP_BOX};
    check_front_end("preset", ops, sizeof ops / sizeof ops[0], preset_settings_of);
}

static void test_magick_defaults(void **state)
{
    (void)state;
    static const rb_op_id ops[] = {RB_OP_BLUR, RB_OP_FILTER, RB_OP_BSPLINE, RB_OP_BOX, RB_OP_DEBLUR};
    check_front_end("ImageMagick", ops, sizeof ops / sizeof ops[0], magick_settings_of);
}

static void test_gimp_defaults(void **state)
{
    (void)state;
    static const int operations[] = {RBG_OP_GAUSSIAN, RBG_OP_SIGNATURE, RBG_OP_BSPLINE3};
    for (size_t i = 0; i < sizeof operations / sizeof operations[0]; i++) {
        RbgVals v;
        rbg_vals_defaults_for(&v, operations[i]);
        rb_context *ctx;
        rb_settings s;
        assert_int_equal(rb_context_create(&ctx), RB_OK);
        if (rbg_vals_to_settings(ctx, &v, &s) != RB_OK)
            fail_msg("GIMP operation %d: %s", operations[i], rb_context_error(ctx));
        rb_settings want = reference(rbg_operation_op(operations[i])->id, 0);
        assert_same_settings(&s, &want, "GIMP", 1);
        rb_context_destroy(ctx);
    }
    /* the one exemption is linear light, GIMP's own convention (README) */
    for (int i = 0; i < rb_op_count(); i++) {
        const rb_op_desc *op = rb_op_get((rb_op_id)i);
        for (int k = 0; k < op->n_settings; k++)
            if (op->settings[k]->flags & RB_SETTING_HOST_DEFAULT)
                assert_string_equal(op->settings[k]->key, "linear");
    }
}

/* The table itself: every default lies in its range and parses back. */
static void test_table_defaults_valid(void **state)
{
    (void)state;
    for (int i = 0; i < rb_op_count(); i++) {
        const rb_op_desc *op = rb_op_get((rb_op_id)i);
        assert_true(op->n_settings <= RB_OP_MAX_SETTINGS);
        rb_settings s;
        rb_settings_init(&s, op);
        for (int k = 0; k < op->n_settings; k++) {
            const rb_setting_desc *d = op->settings[k];
            char text[128];
            rb_setting_default_text(op, d, text, sizeof text);
            if (d->type == RB_SETTING_TEXT && !text[0])
                continue;
            if (rb_settings_set(NULL, &s, d->key, text) != RB_OK)
                fail_msg("op %s: the default of %s ('%s') is refused", op->name, d->key, text);
            assert_non_null(d->label);
            assert_non_null(d->help);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_defaults_valid),
        cmocka_unit_test(test_cli_defaults),
        cmocka_unit_test(test_preset_defaults),
        cmocka_unit_test(test_magick_defaults),
        cmocka_unit_test(test_gimp_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
