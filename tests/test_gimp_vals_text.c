/* The GIMP plug-in's saved settings (rbg_vals_to_text / rbg_vals_from_text,
 * plugin-gimp/rbg_vals.c): what one session writes the next reads back to the
 * same values for every operation, boundary and back end; a garbled file, an
 * op the plug-in does not run, or a value out of the table's range is refused
 * with the values left as they were (the plug-in then uses its defaults). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_main.h"

#include <string.h>

#include "rbg_vals.h"
#include "recblur.h"

static void assert_same_filter(const RbgVals *a, const RbgVals *b)
{
    assert_int_equal(a->operation, b->operation);
    assert_int_equal(a->boundary, b->boundary);
    if (a->boundary == RB_BOUNDARY_CONSTANT)
        assert_true((float)a->constant == (float)b->constant);
    assert_int_equal(a->backend, b->backend);
    assert_int_equal(a->linear, b->linear);
    assert_int_equal(a->nan, b->nan);
    assert_int_equal(a->mask, b->mask);
    if (a->operation == RBG_OP_GAUSSIAN) {
        assert_true(a->sigma_x == b->sigma_x);
        assert_true(a->sigma_y == b->sigma_y);
        assert_int_equal(a->accurate, b->accurate);
    }
    if (a->operation == RBG_OP_SIGNATURE) {
        assert_string_equal(a->signature, b->signature);
        assert_int_equal(a->direction, b->direction);
        assert_int_equal(a->axes, b->axes);
    }
}

/* v -> text -> a fresh defaults value of another operation -> v again. */
static void round_trip(rb_context *ctx, const RbgVals *v)
{
    char text[4096];
    assert_int_equal(rbg_vals_to_text(ctx, v, text, sizeof text), RB_OK);
    assert_non_null(strstr(text, "op = "));
    RbgVals back;
    rbg_vals_defaults_for(&back, v->operation == RBG_OP_SIGNATURE ? RBG_OP_GAUSSIAN
                                                                  : RBG_OP_SIGNATURE);
    assert_int_equal(rbg_vals_from_text(ctx, text, "saved", &back), RB_OK);
    assert_same_filter(v, &back);
}

static void every_operation_and_boundary(void **state)
{
    (void)state;
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    static const int boundaries[] = {RB_BOUNDARY_ZERO, RB_BOUNDARY_CONSTANT, RB_BOUNDARY_CLAMP,
                                     RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    for (int op = 0; op < RBG_N_OPS; op++)
        for (size_t b = 0; b < sizeof boundaries / sizeof boundaries[0]; b++) {
            RbgVals v;
            rbg_vals_defaults_for(&v, op);
            v.boundary = boundaries[b];
            v.constant = 0.3125 + 0.1 * (double)b;
            v.sigma_x = 12.345678901234567;   /* all 17 digits must survive */
            v.sigma_y = 0.75;
            v.accurate = (int)(b & 1);
            v.linear = (int)!(b & 1);
            v.backend = RB_BACKEND_CPU;
            v.direction = RB_DIRECTION_CAUSAL;
            v.axes = RB_AXES_X;
            v.mask = (b & 1) ? RB_WEIGHTS_ALPHA : RB_WEIGHTS_NONE;
            strcpy(v.signature, "0.4: 0.6");
            round_trip(ctx, &v);
        }
    rb_context_destroy(ctx);
}

/* Each bad file: refused, the values untouched. */
static void bad_files_leave_values(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "op = blur\nsigma-x = 3x\n",              /* garbled number */
        "op = blur\nsigma-x = -4\n",              /* out of the table's range */
        "op = blur\nboundary = sideways\n",       /* unknown choice */
        "op = blur\nsize = 3\n",                  /* a key of another op */
        "op = box\nsize = 3\n",                   /* an op the plug-in does not run */
        "this is not a preset\n",
    };
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RbgVals v, before;
        rbg_vals_defaults(&v);
        v.sigma_x = v.sigma_y = 9.5;
        before = v;
        assert_int_not_equal(rbg_vals_from_text(ctx, bad[i], "saved", &v), RB_OK);
        assert_memory_equal(&v, &before, sizeof v);
    }
    rb_context_destroy(ctx);
}

/* A value that cannot be written as one line is refused, not half written. */
static void unwritable_values_refused(void **state)
{
    (void)state;
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    RbgVals v;
    rbg_vals_defaults_for(&v, RBG_OP_SIGNATURE);
    strcpy(v.signature, "0.4:\n0.6");
    char text[4096];
    assert_int_not_equal(rbg_vals_to_text(ctx, &v, text, sizeof text), RB_OK);
    rbg_vals_defaults(&v);
    assert_int_equal(rbg_vals_to_text(ctx, &v, text, 8), RB_ERR_SIZE);
    rb_context_destroy(ctx);
}

int main(void)
{
    TU_RUN_TESTS(cmocka_unit_test(every_operation_and_boundary),
                 cmocka_unit_test(bad_files_leave_values),
                 cmocka_unit_test(unwritable_values_refused));
}
