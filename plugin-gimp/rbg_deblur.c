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
    rb_settings s;
    rb_settings_init(&s, rb_op_get(RB_OP_DEBLUR));
    memset(v, 0, sizeof *v);
    v->psf_sigma = rb_settings_number(&s, "psf-sigma");
    v->noise = rb_settings_number(&s, "noise");
    v->window = rb_settings_int(&s, "window");
    rb_boundary b = rb_settings_boundary(&s);
    v->boundary = b.mode;
    v->constant = b.value;
    v->linear = FALSE;                    /* the stored values, as the CLI */
    v->backend = rb_settings_int(&s, "backend");
    v->preview = TRUE;
}

/* Every value through the engine's table (ranges and messages as the CLI's). */
gchar *rbg_deblur_check(const RbgDeblurVals *v)
{
    rb_context *ctx = NULL;
    if (rb_context_create(&ctx) != RB_OK)
        return g_strdup("recblur: deblur: out of memory");
    rb_settings s;
    rb_settings_init(&s, rb_op_get(RB_OP_DEBLUR));
    rb_boundary b = {(rb_boundary_mode)v->boundary, (float)v->constant};
    rb_status st = RB_OK;
    if (!v->preset[0]) {
        st = rb_settings_set_number(ctx, &s, "psf-sigma", v->psf_sigma);
        if (st == RB_OK)
            st = rb_settings_set_number(ctx, &s, "noise", v->noise);
        if (st == RB_OK)
            st = rb_settings_set_number(ctx, &s, "window", v->window);
    }
    if (st == RB_OK)
        st = rb_settings_set_boundary(ctx, &s, b);
    if (st == RB_OK)
        st = rb_settings_set_number(ctx, &s, "backend", v->backend);
    gchar *bad = st == RB_OK ? NULL : g_strdup_printf("recblur: deblur: %s", rb_context_error(ctx) + 9);
    rb_context_destroy(ctx);
    return bad;
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

gboolean rbg_deblur_pixels(const void *vals, const RbgLayout *layout, void *pixels, int w,
                           int h, rb_progress_fn progress, void *user, gchar **backend,
                           gchar **error)
{
    const RbgDeblurVals *v = vals;
    return rbg_run_pixels(&deblur_run, v, rbg_deblur_check(v), v->backend, layout, pixels, w, h,
                          progress, user, backend, error);
}
