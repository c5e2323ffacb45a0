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

/* One setting's resolved value as the text its parser reads back. */
static int value_text(const rb_settings *s, const rb_setting_desc *d, char *buf, size_t len)
{
    switch (d->type) {
    case RB_SETTING_NUMBER:
        return snprintf(buf, len, "%.17g", rb_settings_number(s, d->key));
    case RB_SETTING_INTEGER:
        return snprintf(buf, len, "%d", rb_settings_int(s, d->key));
    case RB_SETTING_BOOL:
        return snprintf(buf, len, "%s", rb_settings_int(s, d->key) ? "yes" : "no");
    case RB_SETTING_CHOICE:
        for (const rb_choice *c = d->choices; c->name; c++)
            if (c->value == rb_settings_int(s, d->key))
                return snprintf(buf, len, "%s", c->name);
        return -1;
    case RB_SETTING_TEXT:
        /* one line per setting: a line break cannot be written back */
        if (strpbrk(rb_settings_text(s, d->key), "\r\n"))
            return -1;
        return snprintf(buf, len, "%s", rb_settings_text(s, d->key));
    case RB_SETTING_BOUNDARY: {
        rb_boundary b = rb_settings_boundary(s);
        if (b.mode == RB_BOUNDARY_CONSTANT)
            return snprintf(buf, len, "%s=%.9g", rb_boundary_name(b.mode), b.value);
        return snprintf(buf, len, "%s", rb_boundary_name(b.mode));
    }
    }
    return -1;
}

rb_status rbg_vals_to_text(rb_context *ctx, const RbgVals *v, char *buf, size_t len)
{
    rb_settings s;
    rb_status st = rbg_vals_to_settings(ctx, v, &s);
    if (st != RB_OK)
        return st;
    size_t used = 0;
    int n = snprintf(buf, len, "op = %s\n", s.op->name);
    if (n < 0 || (size_t)n >= len)
        return RB_ERR_SIZE;
    used = (size_t)n;
    for (int i = 0; i < s.op->n_settings; i++) {
        const rb_setting_desc *d = s.op->settings[i];
        if (!rb_settings_given(&s, d->key))
            continue;   /* not mapped (threads) or a shorthand of keys written */
        char value[RB_SETTING_TEXT_MAX + 32];
        n = value_text(&s, d, value, sizeof value);
        if (n < 0 || (size_t)n >= sizeof value)
            return RB_ERR_ARGUMENT;
        n = snprintf(buf + used, len - used, "%s = %s\n", d->key, value);
        if (n < 0 || (size_t)n >= len - used)
            return RB_ERR_SIZE;
        used += (size_t)n;
    }
    return RB_OK;
}

rb_status rbg_vals_from_text(rb_context *ctx, const char *text, const char *origin, RbgVals *v)
{
    rb_preset p;
    rb_status st = rb_preset_parse_text(ctx, text, origin, &p);
    if (st != RB_OK)
        return st;
    RbgVals out = *v;
    st = rbg_vals_from_settings(&p.settings, &out);
    if (st == RB_OK)
        *v = out;
    return st;
}
