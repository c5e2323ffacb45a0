/* box: a normalised box (area) filter through running sums. */
#include "cli.h"

#include <stdio.h>

int cli_op_box(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               rb_image *out, cli_op_report *rep)
{
    (void)o;
    snprintf(rep->description, sizeof rep->description, "box %dx%d (running sums)", s->size_x,
             s->size_y);
    rep->backend = "cpu";
    double t0 = cli_now_ms();
    rb_status st = rb_box_filter(ctx, s->size_x, s->size_y, s->boundary, in, out);
    rep->execute_ms = cli_now_ms() - t0;
    return st == RB_OK ? 0 : -1;
}
