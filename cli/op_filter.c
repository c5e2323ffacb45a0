/* blur, filter and bspline: design the filter, plan, execute. */
#include "cli.h"

#include <stdio.h>

int cli_op_filter(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
                  rb_image *out, cli_op_report *rep)
{
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    rb_status st;
    switch (o->cmd) {
    case CLI_BLUR:
        /* sigma 0 on both axes is a plain copy (or format conversion): the
         * Gaussian designer wants something to filter, the generic one does not */
        if (s->sigma_x == 0.0 && s->sigma_y == 0.0)
            st = rb_filter_create(ctx, NULL, NULL, &f);
        else
            st = rb_filter_gaussian(ctx, s->sigma_x, s->sigma_y, s->quality, &f);
        break;
    case CLI_FILTER:
        st = rb_filter_parse(ctx, s->signature, s->direction, s->axes, &f);
        break;
    default:
        st = rb_filter_bspline(ctx, s->degree, &f);
        break;
    }
    if (st != RB_OK)
        return -1;
    snprintf(rep->description, sizeof rep->description, "%s", rb_filter_describe(f));
    double t0 = cli_now_ms();
    st = rb_plan_create(ctx, f, s->boundary, in->width, in->height, in->channels, &plan);
    double t1 = cli_now_ms();
    /* 8/16-bit PNG/TIFF samples are sRGB-encoded (img.srgb); floats are linear */
    if (st == RB_OK && o->linear)
        st = rb_plan_set_linear_light(plan, 1);
    if (st == RB_OK) {
        st = rb_execute(plan, in, out);
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
