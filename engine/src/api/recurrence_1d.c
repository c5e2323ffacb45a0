/* rb_recurrence_1d: a 1D signal through the same exact solver (x axis of the
 * filter only), on the back end route.c picks: under auto the CPU for host
 * memory (the CUDA back end avoids host signals), CUDA for device memory. */
#include "plan_build.h"

#include <limits.h>
#include <string.h>

rb_status rb_recurrence_1d(rb_context *ctx, const rb_filter *filter, rb_boundary boundary,
                           const float *in, float *out, size_t n, rb_memory mem)
{
    rb_status s;
    if (!ctx)
        return RB_ERR_NULL;
    if (!filter || !in || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_recurrence_1d: NULL filter or signal");
    if (n < 1 || n > (size_t)INT_MAX / 2 - 2 * RB_MAX_FIR_TAPS)
        return rb_error(ctx, RB_ERR_SIZE, "1D signal of %zu samples (1 to %d)", n,
                        INT_MAX / 2 - 2 * RB_MAX_FIR_TAPS);
    if ((unsigned)mem > RB_MEMORY_DEVICE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown memory kind %d", (int)mem);
    if ((s = rb_check_boundary(ctx, boundary)) != RB_OK)
        return s;
    if (in != out && (const char *)in < (const char *)(out + n) && (const char *)out < (const char *)(in + n))
        return rb_error(ctx, RB_ERR_ARGUMENT, "1D input and output overlap without being the same buffer");
    /* x axis only */
    rb_filter fx = *filter;
    memset(&fx.axis[1], 0, sizeof fx.axis[1]);
    rb_plan *p = NULL;
    if ((s = rb_plan_build(ctx, &fx, boundary, (int)n, 1, 1, RB_WORK_RECURRENCE_1D, mem, &p)) != RB_OK)
        return s;
    const rb_backend_ops *ops = p->backend;
    s = ops->recurrence_1d ? ops->recurrence_1d(p, in, out, n, mem)
                           : rb_error(ctx, RB_ERR_UNSUPPORTED, "the %s back end has no 1D recurrence",
                                      ops->name);
    rb_plan_destroy(p);
    return s;
}
