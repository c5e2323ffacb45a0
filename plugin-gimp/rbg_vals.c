/* The plug-in's values <-> the engine's operation table (rbg_vals.h). The
 * table holds every default and range; this file only maps field names. */
#include "rbg_vals.h"

#include <stdio.h>
#include <string.h>

const rb_op_desc *rbg_operation_op(int operation)
{
    switch (operation) {
    case RBG_OP_GAUSSIAN: return rb_op_get(RB_OP_BLUR);
    case RBG_OP_BSPLINE3:
    case RBG_OP_BSPLINE5: return rb_op_get(RB_OP_BSPLINE);
    case RBG_OP_SIGNATURE: return rb_op_get(RB_OP_FILTER);
    }
    return NULL;
}

static double def(const char *op, const char *key)
{
    rb_settings s;
    rb_settings_init(&s, rb_op_find(op, NULL, NULL));
    return rb_settings_number(&s, key);
}

void rbg_vals_defaults_for(RbgVals *v, int operation)
{
    memset(v, 0, sizeof *v);
    v->operation = operation;
    v->sigma_x = def("blur", "sigma-x");
    v->sigma_y = def("blur", "sigma-y");
    v->accurate = (int)def("blur", "accurate");
    rb_settings filter;
    rb_settings_init(&filter, rb_op_get(RB_OP_FILTER));
    snprintf(v->signature, sizeof v->signature, "%s", rb_settings_text(&filter, "signature"));
    v->direction = (int)def("filter", "direction");
    v->axes = (int)def("filter", "axes");
    const rb_op_desc *op = rbg_operation_op(operation);
    rb_settings s;
    rb_settings_init(&s, op ? op : rb_op_get(RB_OP_BLUR));
    rb_boundary b = rb_settings_boundary(&s);
    v->boundary = b.mode;
    v->constant = b.value;
    v->backend = rb_settings_int(&s, "backend");
    v->nan = rb_settings_int(&s, "nan");
    v->mask = rb_settings_int(&s, "mask");
    /* RB_SETTING_HOST_DEFAULT: GIMP's own blurs filter linear light */
    v->linear = 1;
    v->lock_sigma = 1;
    v->preview = 1;
}

void rbg_vals_defaults(RbgVals *v)
{
    rbg_vals_defaults_for(v, RBG_OP_GAUSSIAN);
}

rb_status rbg_vals_to_settings(rb_context *ctx, const RbgVals *v, rb_settings *s)
{
    const rb_op_desc *op = rbg_operation_op(v->operation);
    if (!op) /* the plug-in's own enum: rbg_vals_check names it */
        return RB_ERR_ARGUMENT;
    rb_settings_init(s, op);
    rb_status st = RB_OK;
#define SET(key, x) if (st == RB_OK && rb_op_setting(op, key)) st = rb_settings_set_number(ctx, s, key, x)
    SET("sigma-x", v->sigma_x);
    SET("sigma-y", v->sigma_y);
    SET("accurate", v->accurate != 0);
    SET("direction", v->direction);
    SET("axes", v->axes);
    SET("degree", v->operation == RBG_OP_BSPLINE5 ? 5 : 3);
    SET("backend", v->backend);
    SET("linear", v->linear != 0);
    SET("nan", v->nan);
    SET("mask", v->mask);
#undef SET
    if (st == RB_OK && rb_op_setting(op, "signature"))
        st = rb_settings_set(ctx, s, "signature", v->signature);
    if (st == RB_OK) {
        rb_boundary b = {(rb_boundary_mode)v->boundary, (float)v->constant};
        st = rb_settings_set_boundary(ctx, s, b);
    }
    return st;
}

rb_status rbg_vals_from_settings(const rb_settings *s, RbgVals *v)
{
    switch (s->op->id) {
    case RB_OP_BLUR:
        v->operation = RBG_OP_GAUSSIAN;
        v->sigma_x = rb_settings_number(s, "sigma-x");
        v->sigma_y = rb_settings_number(s, "sigma-y");
        v->accurate = rb_settings_int(s, "accurate");
        break;
    case RB_OP_FILTER:
        v->operation = RBG_OP_SIGNATURE;
        snprintf(v->signature, sizeof v->signature, "%s", rb_settings_text(s, "signature"));
        v->direction = rb_settings_int(s, "direction");
        v->axes = rb_settings_int(s, "axes");
        break;
    case RB_OP_BSPLINE:
        v->operation = rb_settings_int(s, "degree") == 5 ? RBG_OP_BSPLINE5 : RBG_OP_BSPLINE3;
        break;
    default: /* sat, box, deblur: the caller says so */
        return RB_ERR_ARGUMENT;
    }
    /* a preset's boundary applies when it gives one; the back end always */
    if (rb_settings_given(s, "boundary")) {
        rb_boundary b = rb_settings_boundary(s);
        v->boundary = b.mode;
        v->constant = b.value;
    }
    if (rb_settings_given(s, "backend"))
        v->backend = rb_settings_int(s, "backend");
    if (rb_settings_given(s, "nan"))
        v->nan = rb_settings_int(s, "nan");
    if (rb_settings_given(s, "mask")) {
        if (rb_settings_int(s, "mask") == RB_WEIGHTS_IMAGE)
            return RB_ERR_UNSUPPORTED;
        v->mask = rb_settings_int(s, "mask");
    }
    if (rb_settings_given(s, "linear"))
        v->linear = rb_settings_int(s, "linear");
    return RB_OK;
}
