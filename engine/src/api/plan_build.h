/* Plan construction shared by rb_plan_create and rb_recurrence_1d. */
#ifndef RB_PLAN_BUILD_H
#define RB_PLAN_BUILD_H

#include "rb_internal.h"

/* The back end that runs req for ctx (route.c): the context's wish applied to
 * each back end's can_run; `auto` logs why it left CUDA, once. ctx may be NULL
 * (the cpu). */
rb_status rb_route_choose(rb_context *ctx, const rb_route_request *req, const rb_backend_ops **ops);
/* Boundary mode known and constant finite. */
rb_status rb_check_boundary(rb_context *ctx, rb_boundary b);
/* Build a plan without the public size limits (callers check sizes), for
 * `work` (RB_WORK_FILTER_2D or RB_WORK_RECURRENCE_1D) on data in `memory`:
 * the axes are planned first, then the route is chosen from them. */
rb_status rb_plan_build(rb_context *ctx, const rb_filter *filter, rb_boundary boundary, int width,
                        int height, int channels, rb_work work, rb_memory memory, rb_plan **out);

#endif
