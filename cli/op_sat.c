/* sat: summed-area table, written as 32-bit float. Alpha is summed like any
 * other channel: a table of sums has no colour to protect. */
#include "cli.h"

#include <stdio.h>

int cli_op_sat(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               rb_image *out, cli_op_report *rep)
{
    (void)o;
    rb_image src = *in;
    src.alpha = RB_ALPHA_NONE;
    snprintf(rep->description, sizeof rep->description, "summed-area table%s",
             in->format == RB_F32 ? "" : " (sums of integer sample values)");
    /* rb_sat runs on CUDA for host images only when the context asks for it */
    rep->backend = rb_settings_int(&s->op, "backend") == RB_BACKEND_CUDA ? "cuda" : "cpu";
    double t0 = cli_now_ms();
    rb_status st = rb_sat(ctx, &src, out);
    rep->execute_ms = cli_now_ms() - t0;
    return st == RB_OK ? 0 : -1;
}
