/* Settings -> the engine's filter and boundary: the one place that knows
 * which designer each operation calls (the successor of rb_preset_filter).
 * Every front end calls it, so the same words give the same pixels. */
#include "rb_internal.h"
#include "recblur_ops.h"

rb_status rb_settings_filter(rb_context *ctx, const rb_settings *s, rb_filter **filter,
                             rb_boundary *boundary)
{
    if (!s || !s->op || !filter)
        return rb_error(ctx, RB_ERR_NULL, "rb_settings_filter: NULL argument");
    *filter = NULL;
    rb_status st;
    switch (s->op->id) {
    case RB_OP_BLUR: {
        double sx = rb_settings_number(s, "sigma-x"), sy = rb_settings_number(s, "sigma-y");
        /* sigma 0 on both axes is a plain copy: the Gaussian designer wants
         * something to filter, the generic one does not */
        if (sx == 0.0 && sy == 0.0)
            st = rb_filter_create(ctx, NULL, NULL, filter);
        else
            st = rb_filter_gaussian(ctx, sx, sy,
                                    rb_settings_int(s, "accurate") ? RB_GAUSSIAN_ACCURATE
                                                                   : RB_GAUSSIAN_DEFAULT,
                                    filter);
        break;
    }
    case RB_OP_FILTER:
        st = rb_filter_parse(ctx, rb_settings_text(s, "signature"),
                             (rb_direction)rb_settings_int(s, "direction"),
                             (rb_axes)rb_settings_int(s, "axes"), filter);
        break;
    case RB_OP_BSPLINE:
        st = rb_filter_bspline(ctx, rb_settings_int(s, "degree"), filter);
        break;
    default:
        return rb_error(ctx, RB_ERR_ARGUMENT,
                        "op '%s' is not a separable filter (use rb_sat, rb_box_filter or rb_deblur_*)",
                        s->op->name);
    }
    if (st == RB_OK && boundary)
        *boundary = rb_settings_boundary(s);
    return st;
}
