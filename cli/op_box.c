/* box: a normalised box (area) filter through running sums. */
#include "cli.h"

#include <stdio.h>

int cli_op_box(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               const rb_weights *weights, rb_image *out, cli_op_report *rep)
{
    (void)o;
    int sx = rb_settings_int(&s->op, "size-x"), sy = rb_settings_int(&s->op, "size-y");
    snprintf(rep->description, sizeof rep->description, "box %dx%d (running sums)", sx, sy);
    /* the engine's box filter is CPU-only (host memory) whatever the context asks */
    rep->backend = rb_settings_int(&s->op, "backend") == RB_BACKEND_CUDA
                       ? "cpu (the box filter has no CUDA version)"
                       : "cpu";
    double t0 = cli_now_ms();
    rb_status st = rb_box_filter_weighted(ctx, sx, sy, rb_settings_boundary(&s->op), in, weights, out);
    rep->execute_ms = cli_now_ms() - t0;
    return st == RB_OK ? 0 : -1;
}
