/* recblur GIMP 2.10 plug-in: PDB registration and run (2.10 API: GimpPlugInInfo,
 * query/run). Filters > Blur > Recursive Blur…, procedure plug-in-recblur, and
 * Filters > Enhance > Deblur (2D IIR)…, procedure plug-in-recblur-deblur. */
#include <string.h>
#include "rbg.h"

static void query(void);
static void run(const gchar *name, gint nparams, const GimpParam *param,
                gint *nreturn_vals, GimpParam **return_vals);

const GimpPlugInInfo PLUG_IN_INFO = { NULL, NULL, query, run };

MAIN()

static const GimpParamDef rbg_args[] = {
    { GIMP_PDB_INT32,    "run-mode",  "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }" },
    { GIMP_PDB_IMAGE,    "image",     "Input image" },
    { GIMP_PDB_DRAWABLE, "drawable",  "Input drawable" },
    { GIMP_PDB_FLOAT,    "sigma-x",   "(from the operation table)" },
    { GIMP_PDB_FLOAT,    "sigma-y",   "(from the operation table)" },
    { GIMP_PDB_INT32,    "operation", "{ GAUSSIAN (0), BSPLINE-CUBIC prefilter (1), BSPLINE-QUINTIC prefilter (2), SIGNATURE (3) }" },
    { GIMP_PDB_INT32,    "boundary",  "{ ZERO (0), CONSTANT (1), CLAMP (2), PERIODIC/tileable (3), MIRROR (4), NONE (5) }" },
    { GIMP_PDB_FLOAT,    "constant",  "Value outside the image for CONSTANT, 0..1, applied to every channel (alpha too)" },
    { GIMP_PDB_INT32,    "accurate",  "(from the operation table)" },
    { GIMP_PDB_INT32,    "backend",   "(from the operation table)" },
    { GIMP_PDB_STRING,   "signature", "(from the operation table)" },
    { GIMP_PDB_INT32,    "direction", "(from the operation table)" },
    { GIMP_PDB_INT32,    "axes",      "(from the operation table)" },
    { GIMP_PDB_INT32,    "linear",    "(from the operation table)" },
    { GIMP_PDB_STRING,   "preset",    "Preset name or file; when not empty it sets the filter and boundary, overriding the arguments above" },
};

static const GimpParamDef rbg_deblur_args[] = {
    { GIMP_PDB_INT32,    "run-mode",  "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }" },
    { GIMP_PDB_IMAGE,    "image",     "Input image" },
    { GIMP_PDB_DRAWABLE, "drawable",  "Input drawable" },
    { GIMP_PDB_FLOAT,    "psf-sigma", "(from the operation table)" },
    { GIMP_PDB_FLOAT,    "noise",     "(from the operation table)" },
    { GIMP_PDB_INT32,    "window",    "(from the operation table)" },
    { GIMP_PDB_INT32,    "boundary",  "{ ZERO (0), CONSTANT (1), CLAMP (2), PERIODIC/tileable (3), MIRROR (4, the CLI's default), NONE (5) }" },
    { GIMP_PDB_FLOAT,    "constant",  "Value outside the image for CONSTANT, 0..1" },
    { GIMP_PDB_INT32,    "linear",    "Deblur linear-light values (TRUE) or the stored gamma-encoded values like the CLI (FALSE)" },
    { GIMP_PDB_INT32,    "backend",   "(from the operation table)" },
    { GIMP_PDB_STRING,   "preset",    "A .deblur preset (name on the preset path, or a file); when not empty it replaces psf-sigma, noise and window, and its boundary (if it names one) replaces the boundary argument" },
};

/* The description of a PDB argument that is a setting of the engine's table
 * (its name is the table's key): label, help, and the values it takes, choices
 * numbered as the PDB passes them. NULL for the plug-in's own arguments. */
static gchar *table_description(const char *key)
{
    static const rb_op_id ops[] = {RB_OP_BLUR, RB_OP_FILTER, RB_OP_DEBLUR};
    const rb_setting_desc *d = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(ops) && !d; i++)
        d = rb_op_setting(rb_op_get(ops[i]), key);
    if (!d || d->type == RB_SETTING_BOUNDARY)
        return NULL;
    GString *text = g_string_new(NULL);
    g_string_printf(text, "%s: %s", d->label, d->help);
    if (d->type == RB_SETTING_CHOICE) {
        g_string_append(text, " {");
        for (const rb_choice *c = d->choices; c->name; c++)
            g_string_append_printf(text, "%s %s (%d)", c == d->choices ? "" : ",", c->name, c->value);
        g_string_append(text, " }");
    } else if (d->type == RB_SETTING_BOOL) {
        g_string_append(text, " (TRUE, FALSE)");
    } else if (d->type != RB_SETTING_TEXT) {
        char allowed[160];
        g_string_append_printf(text, "; %s", rb_setting_allowed(d, allowed, sizeof allowed));
    }
    return g_string_free(text, FALSE);
}

/* args with the descriptions of table settings taken from the table. */
static GimpParamDef *described(const GimpParamDef *args, gsize n)
{
    GimpParamDef *out = g_new(GimpParamDef, n);
    for (gsize i = 0; i < n; i++) {
        out[i] = args[i];
        gchar *d = table_description(args[i].name);
        if (d)
            out[i].description = d;
    }
    return out;
}

/* One PDB procedure: the plug-in's author, date, image types and error
 * return, the arguments described from the operation table, and its menu entry. */
static void install(const char *proc, const char *blurb, const char *help, const char *menu_label,
                    const GimpParamDef *args, gsize n_args, const char *menu_path)
{
    static const GimpParamDef rets[] = {
        { GIMP_PDB_STRING, "error", "The engine's message when the call failed" },
    };
    gimp_install_procedure(proc, blurb, help, "recblur authors", "recblur authors", "2026",
                           menu_label, "RGB*, GRAY*", GIMP_PLUGIN, n_args, G_N_ELEMENTS(rets),
                           described(args, n_args), rets);
    gimp_plugin_menu_register(proc, menu_path);
}

static void query(void)
{
    install(RBG_PROC, "Exact, fast recursive (IIR) blur and filters with exact boundaries",
        "Gaussian blur of any sigma in time independent of sigma, B-spline "
        "interpolation prefilters, or any recursive filter given as a signature "
        "\"b0, b1, ...: a1, a2, ...\", with the boundary the picture needs: "
        "zero, constant, clamp, periodic (tileable: stays seamless) or mirror. "
        "Boundaries are exact (the result equals filtering the infinite extension), "
        "not padded. With a selection, the selection's bounding box on the drawable "
        "is filtered as if it were the whole image (its edges are the boundary) and "
        "the selection mask is blended in. Works on RGB and gray drawables of every "
        "precision; pixels are filtered as premultiplied float, in linear light when "
        "'linear' is TRUE. Errors (bad sigma, garbled or unstable signature, "
        "unknown preset, no GPU) fail with GIMP_PDB_EXECUTION_ERROR and the engine's "
        "message; the image is left unchanged.",
        "_Recursive Blur...", rbg_args, G_N_ELEMENTS(rbg_args), "<Image>/Filters/Blur");
    install(RBG_DEBLUR_PROC, "Deblur with a non-separable 2D IIR filter (four quadrant filters)",
        "Undo a Gaussian blur of known sigma: the engine designs a Wiener-type inverse "
        "of the point-spread function for the given noise level and runs it as the sum "
        "of four recursive quadrant filters, each scanning from one corner over an m x m "
        "window, or runs a designed .deblur preset (e.g. deblur-gauss-1.5). The same "
        "engine calls and defaults as `recblur deblur`, so the same pixels. With a "
        "selection, the selection's bounding box is deblurred as if it were the whole "
        "image and the mask is blended in. Errors (PSF sigma out of 0.3..20, noise out "
        "of 0..0.5, window out of 2..64, unknown or broken preset) fail with "
        "GIMP_PDB_EXECUTION_ERROR or GIMP_PDB_CALLING_ERROR and the engine's message; "
        "the image is left unchanged.",
        "_Deblur (2D IIR)...", rbg_deblur_args, G_N_ELEMENTS(rbg_deblur_args),
        "<Image>/Filters/Enhance");
}

/* Argument i as a preset name, or NULL when it is left out or empty. */
static const char *preset_arg(gint nparams, const GimpParam *p, gint i)
{
    return nparams > i && p[i].data.d_string && p[i].data.d_string[0] ? p[i].data.d_string : NULL;
}

/* The verdict on arguments read into vals: bad is the check's message (taken). */
static GimpPDBStatusType checked(gchar *bad, gchar **error)
{
    if (!bad)
        return GIMP_PDB_SUCCESS;
    *error = bad;
    return GIMP_PDB_CALLING_ERROR;
}

/* A call with fewer arguments than proc requires (named in required). */
static GimpPDBStatusType too_few(const char *proc, const char *required, gint nparams, gchar **error)
{
    *error = g_strdup_printf("recblur: %s needs at least %s (got %d arguments)", proc, required, nparams);
    return GIMP_PDB_CALLING_ERROR;
}

/* Deblur arguments -> vals; trailing ones may be left out (defaults). */
static GimpPDBStatusType read_deblur_args(gint nparams, const GimpParam *p, RbgDeblurVals *v,
                                          gchar **error)
{
    if (nparams < 4)
        return too_few(RBG_DEBLUR_PROC, "run-mode, image, drawable and psf-sigma", nparams, error);
    v->psf_sigma = p[3].data.d_float;
    if (nparams > 4)  v->noise    = p[4].data.d_float;
    if (nparams > 5)  v->window   = p[5].data.d_int32;
    if (nparams > 6)  v->boundary = p[6].data.d_int32;
    if (nparams > 7)  v->constant = p[7].data.d_float;
    if (nparams > 8)  v->linear   = p[8].data.d_int32 != 0;
    if (nparams > 9)  v->backend  = p[9].data.d_int32;
    const char *preset = preset_arg(nparams, p, 10);
    if (preset && !rbg_deblur_apply_preset(preset, v, error))
        return GIMP_PDB_EXECUTION_ERROR;
    return checked(rbg_deblur_check(v), error);
}

/* Non-interactive arguments -> vals. Trailing arguments may be left out
 * (older scripts); they keep their defaults. */
static GimpPDBStatusType read_args(gint nparams, const GimpParam *p, RbgVals *v,
                                   gchar **error)
{
    if (nparams < 5)
        return too_few(RBG_PROC, "run-mode, image, drawable, sigma-x and sigma-y", nparams, error);
    v->sigma_x = p[3].data.d_float;
    v->sigma_y = p[4].data.d_float;
    if (nparams > 5)  v->operation = p[5].data.d_int32;
    if (nparams <= 6 && rbg_operation_op(v->operation)) {
        /* boundary left out: the operation's default (the table's) */
        RbgVals d;
        rbg_vals_defaults_for(&d, v->operation);
        v->boundary = d.boundary;
        v->constant = d.constant;
    }
    if (nparams > 6)  v->boundary  = p[6].data.d_int32;
    if (nparams > 7)  v->constant  = p[7].data.d_float;
    if (nparams > 8)  v->accurate  = p[8].data.d_int32 != 0;
    if (nparams > 9)  v->backend   = p[9].data.d_int32;
    if (nparams > 10 && p[10].data.d_string)
        g_strlcpy(v->signature, p[10].data.d_string, sizeof v->signature);
    if (nparams > 11) v->direction = p[11].data.d_int32;
    if (nparams > 12) v->axes      = p[12].data.d_int32;
    if (nparams > 13) v->linear    = p[13].data.d_int32 != 0;
    const char *preset = preset_arg(nparams, p, 14);
    if (preset && !rbg_apply_preset(preset, v, error))
        return GIMP_PDB_EXECUTION_ERROR;
    return checked(rbg_vals_check(v), error);
}

/* The options for this run of either procedure (deblur: dvals, else vals):
 * from the dialog, the arguments, or the last run (GIMP keeps each
 * procedure's under its name; data of another size is another version's). */
static GimpPDBStatusType get_vals(GimpRunMode run_mode, gboolean deblur, gint32 drawable_id,
                                  gint nparams, const GimpParam *param, RbgVals *vals,
                                  RbgDeblurVals *dvals, gchar **error)
{
    const char *proc = deblur ? RBG_DEBLUR_PROC : RBG_PROC;
    gpointer data = deblur ? (gpointer)dvals : (gpointer)vals;
    gint size = deblur ? (gint)sizeof *dvals : (gint)sizeof *vals;
    switch (run_mode) {
    case GIMP_RUN_INTERACTIVE:
    case GIMP_RUN_WITH_LAST_VALS:
        /* this session's last values, else the last session's (blur only) */
        if (gimp_get_data_size(proc) == size)
            gimp_get_data(proc, data);
        else if (!deblur)
            rbg_last_vals_load(vals);
        if (run_mode == GIMP_RUN_WITH_LAST_VALS)
            return GIMP_PDB_SUCCESS;
        return (deblur ? rbg_deblur_dialog(drawable_id, dvals) : rbg_dialog(drawable_id, vals))
                   ? GIMP_PDB_SUCCESS : GIMP_PDB_CANCEL;
    case GIMP_RUN_NONINTERACTIVE:
        return deblur ? read_deblur_args(nparams, param, dvals, error)
                      : read_args(nparams, param, vals, error);
    default:
        *error = g_strdup("recblur: unknown run mode");
        return GIMP_PDB_CALLING_ERROR;
    }
}

static void run(const gchar *name, gint nparams, const GimpParam *param,
                gint *nreturn_vals, GimpParam **return_vals)
{
    static GimpParam values[2];
    static gchar *last_error = NULL;
    GimpRunMode run_mode = nparams > 0 ? param[0].data.d_int32 : GIMP_RUN_NONINTERACTIVE;
    gint32 drawable_id = nparams > 2 ? param[2].data.d_drawable : -1;
    GimpPDBStatusType status = GIMP_PDB_SUCCESS;
    gchar *error = NULL;
    RbgVals vals;
    RbgDeblurVals dvals;
    gboolean deblur = name && strcmp(name, RBG_DEBLUR_PROC) == 0;

    rbg_stage_times_process_start();
    /* GEGL (and babl) start only where they are used: the dialog's preview
     * and the routes that convert (rbg_gegl_ensure); the drawable as stored
     * needs neither (rbg_tiles.c). */
    if (run_mode == GIMP_RUN_INTERACTIVE)
        rbg_gegl_ensure();
    rbg_vals_defaults(&vals);
    rbg_deblur_defaults(&dvals);

    *nreturn_vals = 1;
    *return_vals = values;
    values[0].type = GIMP_PDB_STATUS;

    if (nparams < 3 || !gimp_item_is_drawable(drawable_id)) {
        status = GIMP_PDB_CALLING_ERROR;
        error = g_strdup("recblur: no drawable to filter");
    } else if (gimp_item_is_group(drawable_id)) {
        status = GIMP_PDB_EXECUTION_ERROR;
        error = g_strdup("recblur: cannot filter a layer group; select one of its layers");
    }

    if (status == GIMP_PDB_SUCCESS)
        status = get_vals(run_mode, deblur, drawable_id, nparams, param, &vals, &dvals, &error);

    if (status == GIMP_PDB_SUCCESS) {
        /* the deblur engine filters every channel as is: babl's premultiplied float */
        gboolean ok = deblur ? rbg_process_drawable(drawable_id, dvals.linear, FALSE,
                                                    "Deblur (2D IIR)", rbg_deblur_pixels, &dvals,
                                                    TRUE, &error)
                             : rbg_filter_drawable(drawable_id, &vals, TRUE, &error);
        if (ok) {
            if (run_mode != GIMP_RUN_NONINTERACTIVE)
                gimp_displays_flush();
            if (run_mode == GIMP_RUN_INTERACTIVE) {
                gimp_set_data(deblur ? RBG_DEBLUR_PROC : RBG_PROC,
                              deblur ? (gpointer)&dvals : (gpointer)&vals,
                              deblur ? sizeof dvals : sizeof vals);
                if (!deblur)
                    rbg_last_vals_save(&vals);
            }
        } else {
            status = GIMP_PDB_EXECUTION_ERROR;
        }
    }

    values[0].data.d_status = status;
    if (error) {
        /* GIMP shows (interactive) or passes on (Script-Fu) this message. */
        g_free(last_error);
        last_error = error;
        values[1].type = GIMP_PDB_STRING;
        values[1].data.d_string = last_error;
        *nreturn_vals = 2;
    }
}
