/* Options of the recblur plug-in -> engine filter. No math here: the engine
 * designs every filter (rb_filter_gaussian, rb_filter_bspline, rb_filter_parse). */
#include <string.h>
#include "rbg.h"

void rbg_vals_defaults(RbgVals *v)
{
    memset(v, 0, sizeof *v);
    v->sigma_x = 5.0;
    v->sigma_y = 5.0;
    v->operation = RBG_OP_GAUSSIAN;
    v->boundary = RB_BOUNDARY_CLAMP;      /* what a photo needs: no dark frame */
    v->constant = 0.0;
    v->accurate = FALSE;
    v->backend = RB_BACKEND_AUTO;
    /* unit DC gain example: b / (1 - a) = 1 per pass */
    g_strlcpy(v->signature, "0.25: 0.75", sizeof v->signature);
    v->direction = RB_DIRECTION_BOTH;
    v->axes = RB_AXES_BOTH;
    v->linear = TRUE;                     /* like GIMP 2.10's own blurs */
    v->lock_sigma = TRUE;
    v->preview = TRUE;
}

gchar *rbg_vals_check(const RbgVals *v)
{
    if (v->operation < 0 || v->operation >= RBG_N_OPS)
        return g_strdup_printf("recblur: operation %d: must be 0 (gaussian), 1 (b-spline cubic), "
                               "2 (b-spline quintic) or 3 (signature)", v->operation);
    if (v->boundary < RB_BOUNDARY_ZERO || v->boundary > RB_BOUNDARY_NONE)
        return g_strdup_printf("recblur: boundary %d: must be 0 (zero), 1 (constant), 2 (clamp), "
                               "3 (periodic/tileable), 4 (mirror) or 5 (none)", v->boundary);
    if (v->backend < RB_BACKEND_AUTO || v->backend > RB_BACKEND_CUDA)
        return g_strdup_printf("recblur: backend %d: must be 0 (auto), 1 (cpu) or 2 (gpu/cuda)",
                               v->backend);
    if (v->direction < RB_DIRECTION_BOTH || v->direction > RB_DIRECTION_ANTICAUSAL)
        return g_strdup_printf("recblur: direction %d: must be 0 (both), 1 (causal) or "
                               "2 (anticausal)", v->direction);
    if (v->axes < RB_AXES_BOTH || v->axes > RB_AXES_Y)
        return g_strdup_printf("recblur: axes %d: must be 0 (both), 1 (x) or 2 (y)", v->axes);
    return NULL;
}

rb_status rbg_make_filter(rb_context *ctx, const RbgVals *v, rb_filter **out)
{
    switch (v->operation) {
    case RBG_OP_GAUSSIAN:
        return rb_filter_gaussian(ctx, v->sigma_x, v->sigma_y,
                                  v->accurate ? RB_GAUSSIAN_ACCURATE : RB_GAUSSIAN_DEFAULT, out);
    case RBG_OP_BSPLINE3:
        return rb_filter_bspline(ctx, 3, out);
    case RBG_OP_BSPLINE5:
        return rb_filter_bspline(ctx, 5, out);
    default:
        return rb_filter_parse(ctx, v->signature, (rb_direction)v->direction,
                               (rb_axes)v->axes, out);
    }
}

gboolean rbg_apply_preset(const char *name, RbgVals *v, gchar **error)
{
    rb_preset p;
    gboolean ok = FALSE;
    rb_context *ctx = rbg_context_new(NULL, NULL, error);

    if (!ctx)
        return FALSE;
    rb_status st = rb_preset_load(ctx, name, &p);
    if (st != RB_OK) {
        gchar *what = g_strdup_printf("preset \"%s\"", name);
        *error = rbg_engine_error(ctx, st, what);
        g_free(what);
        goto done;
    }
    if (p.op[0] == '\0' || strcmp(p.op, "blur") == 0) {
        v->operation = RBG_OP_GAUSSIAN;
        if (p.sigma_x >= 0.0) v->sigma_x = p.sigma_x;
        if (p.sigma_y >= 0.0) v->sigma_y = p.sigma_y;
        v->accurate = p.accurate != 0;
    } else if (strcmp(p.op, "filter") == 0) {
        v->operation = RBG_OP_SIGNATURE;
        g_strlcpy(v->signature, p.signature, sizeof v->signature);
        v->direction = p.direction;
        v->axes = p.axes;
    } else if (strcmp(p.op, "bspline") == 0) {
        v->operation = p.degree == 5 ? RBG_OP_BSPLINE5 : RBG_OP_BSPLINE3;
    } else {
        *error = g_strdup_printf("recblur: preset \"%s\": op %s is not a filter the GIMP "
                                 "plug-in runs (use the recblur command)", name, p.op);
        goto done;
    }
    if (p.has_boundary) {
        v->boundary = p.boundary.mode;
        v->constant = p.boundary.value;
    }
    ok = TRUE;
done:
    rb_context_destroy(ctx);
    return ok;
}
