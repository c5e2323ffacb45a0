/* The one route choice: which back end runs a piece of work. Each back end
 * answers for itself (rb_backend_ops.can_run: yes, avoid, or no, and why);
 * this file only applies the context's wish to the answers:
 *   cpu   the CPU back end, or an error when it cannot (device memory);
 *   cuda  the CUDA back end when it can (an `avoid` is logged and run), else
 *         a clear RB_ERR_BACKEND naming why;
 *   auto  CUDA when it answers yes, else the CPU, with one log line saying why
 *         (nothing to say when CUDA is not compiled in). */
#include "plan_build.h"

#include <stdio.h>

/* How the work is named at the start of a message ("" for 2D filters, whose
 * messages have always been plain). */
static const char *work_prefix(rb_work w)
{
    switch (w) {
    case RB_WORK_SAT: return "rb_sat: ";
    case RB_WORK_RECURRENCE_1D: return "rb_recurrence_1d: ";
    case RB_WORK_DEBLUR: return "deblur: ";
    case RB_WORK_FILTER_2D: break;
    }
    return "";
}

/* The CPU, if it can take the work; `cuda_why` (may be empty) says why CUDA did not. */
static rb_status take_cpu(rb_context *ctx, const rb_route_request *req, const char *cuda_why,
                          const rb_backend_ops **ops)
{
    char why[256] = "";
    if (rb_backend_cpu.can_run(req, why, sizeof why) == RB_ROUTE_NO) {
        if (ctx && ctx->backend == RB_BACKEND_CPU)
            return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s%s, but the cpu back end was requested",
                            work_prefix(req->work), why);
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s%s, which is not available%s%s", work_prefix(req->work),
                        why, cuda_why[0] ? ": " : "", cuda_why);
    }
    *ops = &rb_backend_cpu;
    return RB_OK;
}

rb_status rb_route_choose(rb_context *ctx, const rb_route_request *req, const rb_backend_ops **ops)
{
    const rb_backend_ops *cuda = rb_backend_cuda();
    const rb_backend wish = ctx ? ctx->backend : RB_BACKEND_CPU;
    char why[256] = "";
    /* a warm-up under way finishes first: the device is asked next, and its
     * failures, if any, are reported here as without warm-up */
    rb_context_warm_wait(ctx);
    if (wish == RB_BACKEND_CPU)
        return take_cpu(ctx, req, "", ops);
    if (wish != RB_BACKEND_CUDA && wish != RB_BACKEND_AUTO)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown back end %d", (int)wish);
    if (!cuda) {
        if (wish == RB_BACKEND_CUDA)
            return rb_error(ctx, RB_ERR_BACKEND, "%sthe cuda back end was requested, but recblur was "
                                                 "built without CUDA", work_prefix(req->work));
        return take_cpu(ctx, req, "recblur was built without CUDA", ops);
    }
    const rb_route_verdict v = cuda->can_run(req, why, sizeof why);
    if (wish == RB_BACKEND_CUDA) {
        if (v == RB_ROUTE_NO)
            return rb_error(ctx, RB_ERR_BACKEND, "%sthe cuda back end was requested, but %s",
                            work_prefix(req->work), why);
        if (v == RB_ROUTE_AVOID)
            rb_log(ctx, "recblur: %s%s; on the cuda back end as requested", work_prefix(req->work), why);
        *ops = cuda;
        return RB_OK;
    }
    if (v == RB_ROUTE_YES) {
        *ops = cuda;
        return RB_OK;
    }
    rb_status s = take_cpu(ctx, req, why, ops);
    if (s == RB_OK)
        rb_log(ctx, "recblur: %s%s, using the cpu back end", work_prefix(req->work), why);
    return s;
}
