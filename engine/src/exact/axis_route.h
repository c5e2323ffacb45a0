/* The route an axis plan's boundaries take (axis_plan.c decides it at plan
 * time), named for tests that assert it: the plan-time probe falls back to the
 * padded route silently (right pixels, far more work), so a closed form broken
 * by an edit shows only here. */
#ifndef RB_AXIS_ROUTE_H
#define RB_AXIS_ROUTE_H

#include "rb_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RB_AXIS_ROUTE_NONE,                /* axis inactive, or boundary mode none */
    RB_AXIS_ROUTE_CLOSED_FORM,         /* (35)/(44), (49)/(51) or mirror (67)/(72); a FIR
                                          alone reads its extension directly */
    RB_AXIS_ROUTE_MIRROR_VIA_PERIODIC, /* mirror as (49)/(51) on the mirrored 2n line */
    RB_AXIS_ROUTE_PADDED,              /* explicit extension of `pad` samples each side */
    RB_AXIS_ROUTE_STEADY_EPILOGUE      /* constant modes where (44) as is fails the probe: (35)
                                          and (44) relative to the steady states on the CPU
                                          (the plan keeps `pad` for the other back ends) */
} rb_axis_route;

rb_axis_route rb_axis_plan_route(const rb_axis_plan *ap);
const char *rb_axis_route_name(rb_axis_route route);

#ifdef __cplusplus
}
#endif

#endif
