/* blur, filter and bspline: the filter the settings describe (the engine's
 * rb_settings_filter, as every front end), plan, execute. */
#include "cli.h"

#include <stdio.h>

int cli_op_filter(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
                  const rb_weights *weights, rb_image *out, cli_op_report *rep)
{
    (void)o;
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    rb_boundary boundary;
    if (rb_settings_filter(ctx, &s->op, &f, &boundary) != RB_OK)
        return -1;
    snprintf(rep->description, sizeof rep->description, "%s", rb_filter_describe(f));
    double t0 = cli_now_ms();
    rb_status st = rb_plan_create(ctx, f, boundary, in->width, in->height, in->channels, &plan);
    double t1 = cli_now_ms();
    /* 8/16-bit PNG/TIFF samples are sRGB-encoded (img.srgb); floats are linear */
    if (st == RB_OK && rb_settings_int(&s->op, "linear"))
        st = rb_plan_set_linear_light(plan, 1);
    if (st == RB_OK) {
        st = rb_execute_weighted(plan, in, weights, out);
        /* after execute: a GPU failure under --backend auto moves the plan to the cpu */
        rep->backend = rb_plan_backend_name(plan);
    }
    double t2 = cli_now_ms();
    rep->plan_ms = t1 - t0;
    rep->execute_ms = t2 - t1;
    /* the back-end name lives in the plan: keep a copy past its destruction */
    static char backend[128];
    if (rep->backend) {
        snprintf(backend, sizeof backend, "%s", rep->backend);
        rep->backend = backend;
    }
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    return st == RB_OK ? 0 : -1;
}
