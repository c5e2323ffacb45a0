/* Plan construction shared by rb_plan_create and rb_recurrence_1d. */
#ifndef RB_PLAN_BUILD_H
#define RB_PLAN_BUILD_H

#include "rb_internal.h"

/* The back end for ctx: AUTO = CUDA when usable, else CPU (logged). */
rb_status rb_choose_backend(rb_context *ctx, const rb_backend_ops **ops);
/* Boundary mode known and constant finite. */
rb_status rb_check_boundary(rb_context *ctx, rb_boundary b);
/* Build a plan without the public size limits (callers check sizes); force:
 * use this back end instead of choosing. */
rb_status rb_plan_build(rb_context *ctx, const rb_filter *filter, rb_boundary boundary, int width,
                        int height, int channels, const rb_backend_ops *force, rb_plan **out);

#endif
