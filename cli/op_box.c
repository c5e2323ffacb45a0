/* box: a normalised box (area) filter through running sums. */
#include "cli.h"

#include <stdio.h>

int cli_op_box(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               rb_image *out, cli_op_report *rep)
{
    snprintf(rep->description, sizeof rep->description, "box %dx%d (running sums)", s->size_x,
             s->size_y);
    /* the engine's box filter is CPU-only (host memory) whatever the context asks */
    rb_backend b = RB_BACKEND_AUTO;
    if (o->backend_text)
        rb_backend_parse(ctx, o->backend_text, &b);
    rep->backend = b == RB_BACKEND_CUDA ? "cpu (the box filter has no CUDA version)" : "cpu";
    double t0 = cli_now_ms();
    rb_status st = rb_box_filter(ctx, s->size_x, s->size_y, s->boundary, in, out);
    rep->execute_ms = cli_now_ms() - t0;
    return st == RB_OK ? 0 : -1;
}
