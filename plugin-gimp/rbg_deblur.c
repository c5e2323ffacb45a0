/* Options of the deblur procedure -> engine calls. No math here: the engine
 * designs the quadrant filter (rb_deblur_design), loads presets
 * (rb_deblur_preset_load) and runs it (rb_deblur_execute). Checks and messages
 * follow `recblur deblur` (cli/cmd_deblur.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rbg.h"

void rbg_deblur_defaults(RbgDeblurVals *v)
{
    memset(v, 0, sizeof *v);
    v->psf_sigma = 1.5;
    v->noise = RBG_DEBLUR_NOISE;
    v->window = RBG_DEBLUR_WINDOW;
    v->boundary = RB_BOUNDARY_MIRROR;     /* the CLI's default */
    v->constant = 0.0;
    v->linear = FALSE;                    /* the stored values, as the CLI */
    v->backend = RB_BACKEND_AUTO;
    v->preview = TRUE;
}

gchar *rbg_deblur_check(const RbgDeblurVals *v)
{
    if (!v->preset[0] && !(isfinite(v->psf_sigma) && v->psf_sigma > 0.0))
        return g_strdup_printf("recblur: deblur: psf-sigma %g is not a positive number",
                               v->psf_sigma);
    if (!v->preset[0] && !(isfinite(v->noise) && v->noise >= 0.0 && v->noise <= 0.5))
        return g_strdup_printf("recblur: deblur: noise %g must be a standard deviation 0..0.5 "
                               "(e.g. 0.005 for 0.5%%)", v->noise);
    if (!v->preset[0] && (v->window < RB_DEBLUR_MIN_WINDOW || v->window > RB_DEBLUR_MAX_WINDOW))
        return g_strdup_printf("recblur: deblur: window %d must be an integer %d..%d", v->window,
                               RB_DEBLUR_MIN_WINDOW, RB_DEBLUR_MAX_WINDOW);
    if (v->boundary < RB_BOUNDARY_ZERO || v->boundary > RB_BOUNDARY_NONE)
        return g_strdup_printf("recblur: deblur: boundary %d: must be 0 (zero), 1 (constant), "
                               "2 (clamp), 3 (periodic/tileable), 4 (mirror) or 5 (none)",
                               v->boundary);
    if (!isfinite(v->constant))
        return g_strdup_printf("recblur: deblur: constant %g is not a number", v->constant);
    if (v->backend < RB_BACKEND_AUTO || v->backend > RB_BACKEND_CUDA)
        return g_strdup_printf("recblur: deblur: backend %d: must be 0 (auto), 1 (cpu) or "
                               "2 (gpu/cuda)", v->backend);
    return NULL;
}

rb_status rbg_deblur_make_filter(rb_context *ctx, const RbgDeblurVals *v, rb_deblur_filter **out,
                                 rb_boundary *boundary, int *has_boundary)
{
    *has_boundary = 0;
    if (v->preset[0])
        return rb_deblur_preset_load(ctx, v->preset, out, boundary, has_boundary);
    rb_deblur_psf psf = { RB_DEBLUR_PSF_GAUSSIAN, v->psf_sigma, 0, 0, NULL };
    return rb_deblur_design(ctx, &psf, v->noise, v->window, 0, out);
}

gboolean rbg_deblur_apply_preset(const char *name, RbgDeblurVals *v, gchar **error)
{
    rb_deblur_filter *f = NULL;
    rb_boundary b;
    int has_b = 0;
    rb_context *ctx = rbg_context_new(NULL, NULL, error);

    if (!ctx)
        return FALSE;
    rb_status st = rb_deblur_preset_load(ctx, name, &f, &b, &has_b);
    if (st != RB_OK) {
        gchar *what = g_strdup_printf("deblur preset \"%s\"", name);
        *error = rbg_engine_error(ctx, st, what);
        g_free(what);
        rb_context_destroy(ctx);
        return FALSE;
    }
    g_strlcpy(v->preset, name, sizeof v->preset);
    v->window = rb_deblur_filter_window(f);
    if (has_b) {
        v->boundary = b.mode;
        v->constant = b.value;
    }
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
    return TRUE;
}

/* v->boundary already holds a preset's boundary (rbg_deblur_apply_preset, called
 * by the PDB and the dialog when a preset is chosen): the preset's is not reapplied. */
static rb_status deblur_plan(rb_context *ctx, const void *vals, int w, int h, int channels,
                             void **filter, void **plan)
{
    const RbgDeblurVals *v = vals;
    rb_boundary boundary = { (rb_boundary_mode)v->boundary, (float)v->constant }, unused;
    int has_unused;
    rb_deblur_filter *f = NULL;
    rb_deblur_plan *p = NULL;
    rb_status st = rbg_deblur_make_filter(ctx, v, &f, &unused, &has_unused);
    if (st == RB_OK)
        st = rb_deblur_plan_create(ctx, f, boundary, w, h, channels, &p);
    *filter = f;
    *plan = p;
    return st;
}

static rb_status deblur_execute(void *plan, rb_image *img, const char **backend_name)
{
    *backend_name = rb_deblur_plan_backend_name(plan);
    return rb_deblur_execute(plan, img, img);
}

static void deblur_destroy(void *filter, void *plan)
{
    rb_deblur_plan_destroy(plan);
    rb_deblur_filter_destroy(filter);
}

static const RbgEngineRun deblur_run = { "deblur", deblur_plan, deblur_execute, deblur_destroy };

gboolean rbg_deblur_pixels(const void *vals, const RbgLayout *layout, float *pixels, int w,
                           int h, rb_progress_fn progress, void *user, gchar **backend,
                           gchar **error)
{
    const RbgDeblurVals *v = vals;
    return rbg_run_pixels(&deblur_run, v, rbg_deblur_check(v), v->backend, layout, pixels, w, h,
                          progress, user, backend, error);
}
