/* sat: summed-area table, written as 32-bit float. Alpha is summed like any
 * other channel: a table of sums has no colour to protect. */
#include "cli.h"

#include <stdio.h>

int cli_op_sat(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               rb_image *out, cli_op_report *rep)
{
    (void)o;
    (void)s;
    rb_image src = *in;
    src.alpha = RB_ALPHA_NONE;
    snprintf(rep->description, sizeof rep->description, "summed-area table%s",
             in->format == RB_F32 ? "" : " (sums of integer sample values)");
    rep->backend = "cpu";
    double t0 = cli_now_ms();
    rb_status st = rb_sat(ctx, &src, out);
    rep->execute_ms = cli_now_ms() - t0;
    return st == RB_OK ? 0 : -1;
}
