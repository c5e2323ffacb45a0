/* rb_plan: validation, the per-axis matrices, and back-end dispatch (the
 * route comes from route.c; a CUDA device failure under AUTO falls back to
 * the CPU and says so). */
#include "plan_build.h"
#include "missing_data.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rb_status rb_check_boundary(rb_context *ctx, rb_boundary b)
{
    if ((unsigned)b.mode > RB_BOUNDARY_NONE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown boundary mode %d", (int)b.mode);
    if (b.mode == RB_BOUNDARY_CONSTANT && !isfinite(b.value))
        return rb_error(ctx, RB_ERR_NAN, "boundary constant is not a finite number");
    return RB_OK;
}

static void set_default_name(rb_plan *p)
{
    if (!p->backend_name[0])
        snprintf(p->backend_name, sizeof p->backend_name, "%s", p->backend->name);
}

rb_status rb_plan_build(rb_context *ctx, const rb_filter *filter, rb_boundary boundary,
                        int width, int height, int channels, rb_work work, rb_memory memory,
                        rb_plan **out)
{
    rb_status s;
    rb_plan *p = calloc(1, sizeof *p);
    if (!p)
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for a plan");
    p->ctx = ctx;
    p->boundary = boundary;
    p->width = width;
    p->height = height;
    p->channels = channels;
    if ((s = rb_filter_copy(ctx, filter, &p->filter)) != RB_OK)
        goto fail;
    if ((s = rb_axis_plan_init(ctx, &p->filter.axis[1], boundary.mode, height, &p->cols)) != RB_OK)
        goto fail;
    if ((s = rb_axis_plan_init(ctx, &p->filter.axis[0], boundary.mode, width, &p->rows)) != RB_OK)
        goto fail;
    /* the route, from what the axes turned out to need (padding, FIR taps) */
    const rb_route_request req = {work, p, NULL, NULL, memory, width, height, channels};
    if ((s = rb_route_choose(ctx, &req, &p->backend)) != RB_OK)
        goto fail;
    s = p->backend->plan_init(p);
    if (s != RB_OK && p->backend != &rb_backend_cpu && ctx->backend == RB_BACKEND_AUTO) {
        char why[256] = "";
        if (rb_backend_cpu.can_run(&req, why, sizeof why) == RB_ROUTE_YES) {
            rb_log(ctx, "recblur: cuda plan failed (%s), falling back to the cpu back end", ctx->error);
            p->backend_state = NULL;
            p->backend_name[0] = 0;
            p->backend = &rb_backend_cpu;
            s = p->backend->plan_init(p);
            if (s == RB_OK)
                ctx->error[0] = 0; /* the fall-back worked: no error to report */
        }
    }
    if (s != RB_OK) {
        p->backend = NULL;
        goto fail;
    }
    set_default_name(p);
    *out = p;
    return RB_OK;
fail:
    rb_filter_clear(&p->filter);
    free(p);
    return s;
}

rb_status rb_plan_create(rb_context *ctx, const rb_filter *filter, rb_boundary boundary, int width,
                         int height, int channels, rb_plan **out)
{
    rb_status s;
    if (!ctx)
        return RB_ERR_NULL;
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "rb_plan_create: NULL output pointer");
    *out = NULL;
    if (!filter)
        return rb_error(ctx, RB_ERR_NULL, "rb_plan_create: NULL filter");
    if (width <= 0 || height <= 0 || width > RB_MAX_SIDE || height > RB_MAX_SIDE)
        return rb_error(ctx, RB_ERR_SIZE, "image size %dx%d out of range (1..%d per side)", width,
                        height, RB_MAX_SIDE);
    if ((uint64_t)width * (uint64_t)height > RB_MAX_PIXELS)
        return rb_error(ctx, RB_ERR_SIZE, "image %dx%d has more than %llu pixels", width, height,
                        (unsigned long long)RB_MAX_PIXELS);
    if (channels < 1 || channels > 4)
        return rb_error(ctx, RB_ERR_ARGUMENT, "%d channels: must be 1 to 4", channels);
    if ((s = rb_check_boundary(ctx, boundary)) != RB_OK)
        return s;
    rb_context_drop_cached_plans(ctx); /* the 1D call's GPU buffers, if any */
    s = rb_plan_build(ctx, filter, boundary, width, height, channels, RB_WORK_FILTER_2D,
                      RB_MEMORY_HOST, out);
    if (s == RB_OK)
        rb_log(ctx, "recblur: %dx%d, %s boundary, on %s", width, height,
               rb_boundary_name(boundary.mode), (*out)->backend_name);
    return s;
}

rb_status rb_plan_set_linear_light(rb_plan *plan, int enable)
{
    if (!plan)
        return RB_ERR_NULL;
    plan->linear_light = enable != 0;
    return RB_OK;
}

const char *rb_plan_backend_name(const rb_plan *plan)
{
    return plan ? plan->backend_name : "";
}

void rb_plan_destroy(rb_plan *plan)
{
    if (!plan)
        return;
    rb_missing_cache_free(plan);
    if (plan->backend && plan->backend->plan_fini)
        plan->backend->plan_fini(plan);
    rb_filter_clear(&plan->filter);
    free(plan);
}

static rb_status check_exec_image(rb_plan *plan, const rb_image *img, const char *what)
{
    rb_context *ctx = plan->ctx;
    rb_status s = rb_image_check(ctx, img, plan->width, plan->height, plan->channels, what);
    if (s != RB_OK)
        return s;
    if (img->format == RB_F64)
        return rb_error(ctx, RB_ERR_UNSUPPORTED, "%s image: F64 samples are only an rb_sat output",
                        what);
    if (img->memory == RB_MEMORY_DEVICE && plan->backend == &rb_backend_cpu)
        return rb_error(ctx, RB_ERR_UNSUPPORTED,
                        "%s image is in device memory, but the plan runs on the cpu back end", what);
    return RB_OK;
}

/* Whether the two images share any byte without being the same buffer and layout. */
static int partial_overlap(const rb_image *a, const rb_image *b)
{
    const char *a0 = a->data, *b0 = b->data;
    size_t la = rb_image_stride(a) * (size_t)(a->height - 1) +
                (size_t)a->width * a->channels * rb_format_size(a->format);
    size_t lb = rb_image_stride(b) * (size_t)(b->height - 1) +
                (size_t)b->width * b->channels * rb_format_size(b->format);
    if (a0 == b0)
        return 0; /* in place (the CPU path reads everything before writing) */
    return a0 < b0 + lb && b0 < a0 + la;
}

/* A plan, and the images an execute takes: each the plan's size and
 * channels, host images either the same buffer or apart. */
static rb_status check_exec_pair(rb_plan *plan, const rb_image *in, const rb_image *out)
{
    if (!plan)
        return RB_ERR_NULL;
    rb_status s;
    if ((s = check_exec_image(plan, in, "input")) != RB_OK)
        return s;
    if ((s = check_exec_image(plan, out, "output")) != RB_OK)
        return s;
    if (in->memory == RB_MEMORY_HOST && out->memory == RB_MEMORY_HOST && partial_overlap(in, out))
        return rb_error(plan->ctx, RB_ERR_ARGUMENT,
                        "input and output images overlap without being the same buffer");
    return RB_OK;
}

/* Whether the back end may count the input's NaNs as it reads it, the
 * missing-data route then following only if one turned up: it needs a back
 * end with such a pass, a host float32 input that would be counted at all,
 * and an input the execute does not overwrite (in place, the count comes
 * first). */
static int count_while_executing(const rb_plan *plan, const rb_image *in, const rb_image *out)
{
    return plan->backend->execute_counting && plan->ctx->nan_mode == RB_NAN_MISSING &&
           in->format == RB_F32 && in->memory == RB_MEMORY_HOST &&
           !(out->memory == RB_MEMORY_HOST && out->data == in->data);
}

rb_status rb_execute(rb_plan *plan, const rb_image *in, rb_image *out)
{
    rb_status s = check_exec_pair(plan, in, out);
    if (s != RB_OK)
        return s;
    rb_context *ctx = plan->ctx;
    uint64_t n_missing;
    rb_nan_tally tally = {0, 0};
    const int counting = count_while_executing(plan, in, out);
    if (!counting && (n_missing = rb_missing_count(ctx, in)) > 0)
        return rb_missing_execute(plan, in, NULL, out, n_missing);
    s = counting ? plan->backend->execute_counting(plan, in, out, &tally)
                 : plan->backend->execute(plan, in, out);
    if (s == RB_ERR_DEVICE && plan->backend != &rb_backend_cpu && ctx->backend == RB_BACKEND_AUTO &&
        in->memory == RB_MEMORY_HOST && out->memory == RB_MEMORY_HOST) {
        rb_log(ctx, "recblur: the GPU failed (%s); falling back to the cpu back end", ctx->error);
        /* the device buffers go now (nothing leaks), and the plan stays on the
         * cpu for its later runs: a GPU that failed once is not trusted again */
        if (plan->backend->plan_fini)
            plan->backend->plan_fini(plan);
        plan->backend_state = NULL;
        plan->backend_name[0] = 0;
        plan->backend = &rb_backend_cpu;
        s = rb_backend_cpu.plan_init(plan);
        set_default_name(plan);
        /* the cpu has no pass to count in: count first, as for it always */
        if (s == RB_OK && counting && (n_missing = rb_missing_count(ctx, in)) > 0)
            return rb_missing_execute(plan, in, NULL, out, n_missing);
        tally = (rb_nan_tally){0, 0};
        if (s == RB_OK)
            s = plan->backend->execute(plan, in, out);
    }
    /* NaNs seen on the way: the output just made propagated them; filter the
     * (untouched) input again as missing data */
    if (s == RB_OK && counting) {
        n_missing = tally.uncounted ? rb_missing_count(ctx, in) : tally.count;
        if (n_missing > 0)
            return rb_missing_execute(plan, in, NULL, out, n_missing);
    }
    if (s == RB_OK)
        ctx->error[0] = 0;
    return s;
}

rb_status rb_execute_weighted(rb_plan *plan, const rb_image *in, const rb_weights *weights,
                              rb_image *out)
{
    if (!weights || weights->source == RB_WEIGHTS_NONE)
        return rb_execute(plan, in, out);
    rb_status s = check_exec_pair(plan, in, out);
    if (s != RB_OK)
        return s;
    rb_context *ctx = plan->ctx;
    if (in->memory != RB_MEMORY_HOST || out->memory != RB_MEMORY_HOST)
        return rb_error(ctx, RB_ERR_UNSUPPORTED,
                        "weighted filtering takes images in host memory (the filtering itself "
                        "runs on the plan's back end)");
    if ((s = rb_weights_check(ctx, weights, in)) != RB_OK)
        return s;
    const uint64_t n_missing = rb_missing_count(ctx, in);
    s = rb_missing_execute(plan, in, weights, out, n_missing);
    if (s == RB_OK)
        ctx->error[0] = 0;
    return s;
}
