/* Options of the recblur plug-in -> engine filter. No math and no defaults
 * here: the values map onto the engine's operation table (rbg_vals.c) and
 * the engine makes the filter (rb_settings_filter), as for every front end. */
#include <string.h>
#include "rbg.h"

/* The operation is the plug-in's own PDB enum; every other value is checked
 * by the engine's table when the filter is made (rbg_make_filter). */
gchar *rbg_vals_check(const RbgVals *v)
{
    if (!rbg_operation_op(v->operation))
        return g_strdup_printf("recblur: operation %d: must be 0 (gaussian), 1 (b-spline cubic), "
                               "2 (b-spline quintic) or 3 (signature)", v->operation);
    return NULL;
}

rb_status rbg_make_filter(rb_context *ctx, const RbgVals *v, rb_filter **out, rb_boundary *boundary)
{
    rb_settings s;
    rb_status st = rbg_vals_to_settings(ctx, v, &s);
    return st == RB_OK ? rb_settings_filter(ctx, &s, out, boundary) : st;
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
    st = rbg_vals_from_settings(&p.settings, v);
    if (st == RB_ERR_UNSUPPORTED) {
        *error = g_strdup_printf("recblur: preset \"%s\": mask %s: the GIMP plug-in takes "
                                 "mask = alpha only (mask files: the recblur command)", name,
                                 rb_settings_text(&p.settings, "mask"));
        goto done;
    }
    if (st != RB_OK) {
        *error = g_strdup_printf("recblur: preset \"%s\": op %s is not a filter the GIMP "
                                 "plug-in runs (use the recblur command)", name, p.settings.op->name);
        goto done;
    }
    ok = TRUE;
done:
    rb_context_destroy(ctx);
    return ok;
}
