/* rb_recurrence_1d: a 1D signal through the same exact solver (x axis of the
 * filter only), on the back end route.c picks: under auto the CPU for host
 * memory (the CUDA back end avoids host signals), CUDA for device memory.
 * The plan is kept in the context for the next call of the same filter,
 * boundary, length and memory (a plan-once, execute-many use, as FFTW's). */
#include "plan_build.h"

#include <limits.h>
#include <string.h>

/* Whether two x axes are the same filter, value by value (taps included). */
static int same_axis(const rb_axis *a, const rb_axis *b)
{
    if (a->active != b->active || a->r != b->r || a->causal_order != b->causal_order ||
        a->anticausal_order != b->anticausal_order || a->fir_lo != b->fir_lo || a->fir_hi != b->fir_hi ||
        (a->fir == NULL) != (b->fir == NULL))
        return 0;
    for (int k = 0; k < a->r; k++)
        if (a->dc[k] != b->dc[k] || a->da[k] != b->da[k])
            return 0;
    for (int t = 0; a->fir && t <= a->fir_hi - a->fir_lo; t++)
        if (a->fir[t] != b->fir[t])
            return 0;
    return 1;
}

/* Whether the cached plan p (made for memory kind pmem) runs this call as a new plan would. */
static int same_request(const rb_plan *p, rb_memory pmem, const rb_filter *fx, rb_boundary boundary,
                        size_t n, rb_memory mem)
{
    return pmem == mem && (size_t)p->width == n && p->boundary.mode == boundary.mode &&
           (boundary.mode != RB_BOUNDARY_CONSTANT || p->boundary.value == boundary.value) &&
           same_axis(&p->filter.axis[0], &fx->axis[0]);
}

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
    rb_plan *p = ctx->oned_plan;
    if (!p || !same_request(p, ctx->oned_memory, &fx, boundary, n, mem)) {
        rb_context_drop_cached_plans(ctx);
        if ((s = rb_plan_build(ctx, &fx, boundary, (int)n, 1, 1, RB_WORK_RECURRENCE_1D, mem, &p)) != RB_OK)
            return s;
        ctx->oned_plan = p;
        ctx->oned_memory = mem;
    }
    const rb_backend_ops *ops = p->backend;
    s = ops->recurrence_1d ? ops->recurrence_1d(p, in, out, n, mem)
                           : rb_error(ctx, RB_ERR_UNSUPPORTED, "the %s back end has no 1D recurrence",
                                      ops->name);
    if (s != RB_OK) /* a failed call leaves nothing behind (GPU memory included) */
        rb_context_drop_cached_plans(ctx);
    return s;
}
