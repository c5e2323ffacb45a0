/* Settings -> pixels: one call runs an image operation of the table on one
 * image (design, plan, execute), for front ends that hold a setting set and an
 * image and nothing else to say (the GEGL operations). The filter comes from
 * rb_settings_filter, so the same settings give the same pixels as the CLI. */
#include "rb_internal.h"
#include "recblur_deblur.h"
#include "recblur_ops.h"

/* The weights the "mask" setting names: none or alpha; a file needs a front
 * end that reads images (the CLI, ImageMagick), which calls the engine
 * itself. */
static rb_status mask_weights(rb_context *ctx, const rb_settings *s, rb_weights *w)
{
    w->source = rb_op_setting(s->op, "mask") ? (rb_weights_source)rb_settings_int(s, "mask")
                                             : RB_WEIGHTS_NONE;
    w->image = NULL;
    if (w->source == RB_WEIGHTS_IMAGE)
        return rb_error(ctx, RB_ERR_UNSUPPORTED,
                        "mask '%.200s': this front end reads no mask files; use mask=alpha "
                        "(the alpha channel as weights)",
                        rb_settings_text(s, "mask"));
    return RB_OK;
}

static rb_status run_separable(rb_context *ctx, const rb_settings *s, const rb_image *in,
                               rb_image *out)
{
    rb_weights weights;
    rb_status mst = mask_weights(ctx, s, &weights);
    if (mst != RB_OK)
        return mst;
    rb_filter *f = NULL;
    rb_plan *p = NULL;
    rb_boundary b;
    rb_status st = rb_settings_filter(ctx, s, &f, &b);
    if (st == RB_OK)
        st = rb_plan_create(ctx, f, b, in->width, in->height, in->channels, &p);
    if (st == RB_OK && rb_op_setting(s->op, "linear"))
        st = rb_plan_set_linear_light(p, rb_settings_int(s, "linear"));
    if (st == RB_OK)
        st = rb_execute_weighted(p, in, &weights, out);
    rb_plan_destroy(p);
    rb_filter_destroy(f);
    return st;
}

static rb_status run_deblur(rb_context *ctx, const rb_settings *s, const rb_image *in,
                            rb_image *out)
{
    rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, rb_settings_number(s, "psf-sigma"), 0, 0, NULL};
    rb_deblur_filter *f = NULL;
    rb_deblur_plan *p = NULL;
    rb_status st = rb_deblur_design(ctx, &psf, rb_settings_number(s, "noise"),
                                    rb_settings_int(s, "window"),
                                    rb_settings_int(s, "fir-only") ? RB_DEBLUR_DESIGN_FIR_ONLY : 0u,
                                    &f);
    if (st == RB_OK)
        st = rb_deblur_plan_create(ctx, f, rb_settings_boundary(s), in->width, in->height,
                                   in->channels, &p);
    if (st == RB_OK)
        st = rb_deblur_execute(p, in, out);
    rb_deblur_plan_destroy(p);
    rb_deblur_filter_destroy(f);
    return st;
}

rb_status rb_settings_run(rb_context *ctx, const rb_settings *s, const rb_image *in, rb_image *out)
{
    if (!s || !s->op || !in || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_settings_run: NULL argument");
    switch (s->op->id) {
    case RB_OP_BLUR:
    case RB_OP_FILTER:
    case RB_OP_BSPLINE:
        return run_separable(ctx, s, in, out);
    case RB_OP_BOX: {
        rb_weights weights;
        rb_status st = mask_weights(ctx, s, &weights);
        return st != RB_OK ? st
                           : rb_box_filter_weighted(ctx, rb_settings_int(s, "size-x"),
                                                    rb_settings_int(s, "size-y"),
                                                    rb_settings_boundary(s), in, &weights, out);
    }
    case RB_OP_SAT:
        return rb_sat(ctx, in, out);
    case RB_OP_DEBLUR:
        return run_deblur(ctx, s, in, out);
    default:
        return rb_error(ctx, RB_ERR_ARGUMENT, "op '%s' does not filter an image", s->op->name);
    }
}
