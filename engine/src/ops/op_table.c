/* The operation table: each operation and each of its settings, declared once.
 * Every front end (CLI options and --help, presets, ImageMagick words and
 * -define keys, GIMP PDB arguments and dialog widgets) is mapped from here;
 * see recblur_ops.h. Ranges are the engine's: sigma as rb_filter_gaussian
 * takes it, window as rb_deblur_design takes it. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "recblur_ops.h"
#include "recblur_deblur.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- blur */
static const rb_setting_desc s_sigma = {
    .key = "sigma", .type = RB_SETTING_NUMBER, .min = 0.5, .max = 1e5, .ui_max = 200, .def = 5.0, .unit = "pixels",
    .label = "Blur radius (sigma)",
    .help = "the same sigma on both axes (0 leaves the image as is)",
    .flags = RB_SETTING_REQUIRED | RB_SETTING_ZERO_OFF | RB_SETTING_BOTH_AXES,
    .x_key = "sigma-x", .y_key = "sigma-y"};
static const rb_setting_desc s_sigma_x = {
    .key = "sigma-x", .type = RB_SETTING_NUMBER, .min = 0.5, .max = 1e5, .ui_max = 200, .def = 5.0, .unit = "pixels",
    .label = "Radius X", .help = "horizontal sigma (0: rows unfiltered)",
    .flags = RB_SETTING_ZERO_OFF, .x_key = "sigma", .off = 0.0};
static const rb_setting_desc s_sigma_y = {
    .key = "sigma-y", .type = RB_SETTING_NUMBER, .min = 0.5, .max = 1e5, .ui_max = 200, .def = 5.0, .unit = "pixels",
    .label = "Radius Y", .help = "vertical sigma (0: columns unfiltered)",
    .flags = RB_SETTING_ZERO_OFF, .x_key = "sigma", .off = 0.0};
static const rb_setting_desc s_accurate = {
    .key = "accurate", .type = RB_SETTING_BOOL, .def = 0,
    .label = "Extra accuracy (slower)",
    .help = "higher-order design: kernel error <= 1e-4 instead of 1e-3",
    .flags = RB_SETTING_ADVANCED};

/* -------------------------------------------------------------- filter */
static const rb_choice direction_choices[] = {
    {"both", RB_DIRECTION_BOTH, "Causal + anticausal"},
    {"causal", RB_DIRECTION_CAUSAL, "Causal only"},
    {"anticausal", RB_DIRECTION_ANTICAUSAL, "Anticausal only"},
    {NULL, 0, NULL}};
static const rb_choice axes_choices[] = {
    {"both", RB_AXES_BOTH, "X and Y"}, {"x", RB_AXES_X, "X only (rows)"},
    {"y", RB_AXES_Y, "Y only (columns)"}, {NULL, 0, NULL}};
static const rb_setting_desc s_signature = {
    .key = "signature", .type = RB_SETTING_TEXT, .def_text = "0.25: 0.75",
    .label = "Filter signature",
    .help = "the filter \"b0, b1, ...: a1, a2, ...\", e.g. \"0.2: 0.8\" (a first-order smoother)",
    .flags = RB_SETTING_REQUIRED | RB_SETTING_ADVANCED};
static const rb_setting_desc s_direction = {
    .key = "direction", .type = RB_SETTING_CHOICE, .def = RB_DIRECTION_BOTH,
    .choices = direction_choices, .label = "Passes",
    .help = "which passes of the signature run", .flags = RB_SETTING_ADVANCED};
static const rb_setting_desc s_axes = {
    .key = "axes", .type = RB_SETTING_CHOICE, .def = RB_AXES_BOTH, .choices = axes_choices,
    .label = "Axes", .help = "which axes the signature filters", .flags = RB_SETTING_ADVANCED};

/* ------------------------------------------------------------- bspline */
static const rb_choice degree_choices[] = {
    {"3", 3, "Cubic"}, {"5", 5, "Quintic"}, {NULL, 0, NULL}};
static const rb_setting_desc s_degree = {
    .key = "degree", .type = RB_SETTING_CHOICE, .def = 3, .choices = degree_choices,
    .label = "Spline degree", .help = "the spline's degree: cubic or quintic"};

/* ----------------------------------------------------------------- box */
static const rb_setting_desc s_size = {
    .key = "size", .type = RB_SETTING_INTEGER, .min = 1, .max = RB_MAX_SIDE, .ui_min = 1, .ui_max = 200, .def = 5, .unit = "pixels",
    .label = "Box size", .help = "the same window size on both axes",
    .flags = RB_SETTING_REQUIRED | RB_SETTING_BOTH_AXES, .x_key = "size-x", .y_key = "size-y"};
static const rb_setting_desc s_size_x = {
    .key = "size-x", .type = RB_SETTING_INTEGER, .min = 1, .max = RB_MAX_SIDE, .ui_min = 1, .ui_max = 200, .def = 5, .unit = "pixels",
    .label = "Box width", .help = "window width (1: rows unfiltered)", .x_key = "size", .off = 1};
static const rb_setting_desc s_size_y = {
    .key = "size-y", .type = RB_SETTING_INTEGER, .min = 1, .max = RB_MAX_SIDE, .ui_min = 1, .ui_max = 200, .def = 5, .unit = "pixels",
    .label = "Box height", .help = "window height (1: columns unfiltered)", .x_key = "size", .off = 1};

/* -------------------------------------------------------------- deblur */
static const rb_setting_desc s_psf_sigma = {
    .key = "psf-sigma", .type = RB_SETTING_NUMBER, .min = 0.0, .max = 1e5, .ui_min = 0.3, .ui_max = 20, .def = 1.5, .unit = "pixels",
    .label = "Blur to undo (sigma)",
    .help = "Gaussian point-spread function of standard deviation S (the designer takes 0.3 to 20)",
    .flags = RB_SETTING_REQUIRED | RB_SETTING_MIN_EXCLUSIVE};
static const rb_setting_desc s_noise = {
    .key = "noise", .type = RB_SETTING_NUMBER, .min = 0.0, .max = 0.5, .def = 0.005,
    .label = "Noise level",
    .help = "noise standard deviation in [0,1] units, e.g. 0.005 or 0.5%; larger = smoother, fewer artefacts",
    .flags = RB_SETTING_PERCENT};
static const rb_setting_desc s_window = {
    .key = "window", .type = RB_SETTING_INTEGER, .min = RB_DEBLUR_MIN_WINDOW,
    .max = RB_DEBLUR_MAX_WINDOW, .def = 8, .unit = "pixels", .label = "Filter window",
    .help = "quadrant window side", .flags = RB_SETTING_ADVANCED};
static const rb_setting_desc s_fir_only = {
    .key = "fir-only", .type = RB_SETTING_BOOL, .def = 0, .label = "No recursive part",
    .help = "b = 0: a pure FIR, for comparison", .flags = RB_SETTING_ADVANCED};
static const rb_setting_desc s_description = {
    .key = "description", .type = RB_SETTING_TEXT, .def_text = "",
    .label = "Description", .help = "text stored in the preset"};

/* --------------------------------------------------- shared by the ops */
/* the modes as GUIs list them (text takes constant=V; rb_boundary_parse reads it) */
static const rb_choice boundary_choices[] = {
    {"clamp", RB_BOUNDARY_CLAMP, "Extend (repeat edge)"},
    {"mirror", RB_BOUNDARY_MIRROR, "Mirror"},
    {"periodic", RB_BOUNDARY_PERIODIC, "Wrap (tileable)"},
    {"zero", RB_BOUNDARY_ZERO, "Transparent (zero)"},
    {"constant", RB_BOUNDARY_CONSTANT, "Color (constant)"},
    {"none", RB_BOUNDARY_NONE, "None (zero start)"},
    {NULL, 0, NULL}};
static const rb_setting_desc s_boundary = {
    .key = "boundary", .type = RB_SETTING_BOUNDARY, .def_text = NULL /* the op's */,
    .choices = boundary_choices,
    .label = "Edges",
    .help = "what lies beyond the image edges: zero, constant=V, clamp, periodic, mirror or none"};
static const rb_choice backend_choices[] = {
    {"auto", RB_BACKEND_AUTO, "Auto (GPU when usable)"}, {"cpu", RB_BACKEND_CPU, "CPU"},
    {"cuda", RB_BACKEND_CUDA, "GPU (CUDA)"}, {NULL, 0, NULL}};
static const rb_setting_desc s_backend = {
    .key = "backend", .type = RB_SETTING_CHOICE, .def = RB_BACKEND_AUTO, .choices = backend_choices,
    .label = "Back end", .help = "where the engine runs (auto: CUDA when a GPU is usable, else the CPU)",
    .flags = RB_SETTING_ADVANCED};
static const rb_setting_desc s_threads = {
    .key = "threads", .type = RB_SETTING_INTEGER, .min = 0, .max = 4096, .def = 0,
    .label = "CPU threads", .help = "CPU threads (0 = all cores)", .flags = RB_SETTING_ADVANCED};
static const rb_choice nan_choices[] = {
    {"missing", RB_NAN_MISSING, "Missing data (filled from neighbours)"},
    {"propagate", RB_NAN_PROPAGATE, "Propagate (IEEE)"},
    {NULL, 0, NULL}};
static const rb_setting_desc s_nan = {
    .key = "nan", .type = RB_SETTING_CHOICE, .def = RB_NAN_MISSING, .choices = nan_choices,
    .label = "NaN samples",
    .help = "float NaN samples: missing (filtered as unknown data, from the valid samples in reach) "
            "or propagate (IEEE: a NaN spreads along the filter's reach)",
    .flags = RB_SETTING_ADVANCED};
static const rb_choice mask_choices[] = {
    {"none", RB_WEIGHTS_NONE, "None"},
    {"alpha", RB_WEIGHTS_ALPHA, "Alpha channel (transparent = unknown, filled in)"},
    {NULL, 0, NULL}};
static const rb_setting_desc s_mask = {
    .key = "mask", .type = RB_SETTING_CHOICE, .def = RB_WEIGHTS_NONE, .choices = mask_choices,
    .label = "Known-pixel mask",
    .help = "weights of the samples as missing data (0 unknown, 1 valid, between partial): none, "
            "alpha (the alpha channel weighs the colour; the output is opaque where colour came "
            "out) or a gray image FILE of the input's size",
    .flags = RB_SETTING_ADVANCED | RB_SETTING_OR_FILE, .off = RB_WEIGHTS_IMAGE};
static const rb_setting_desc s_linear = {
    .key = "linear", .type = RB_SETTING_BOOL, .def = 0, .label = "Linear light",
    .help = "filter sRGB-encoded colour in linear light (decode, filter, encode)",
    /* GIMP starts with it on, like its own blurs (README: the dialog) */
    .flags = RB_SETTING_HOST_DEFAULT};

static const rb_setting_desc *const blur_settings[] = {
    &s_sigma, &s_sigma_x, &s_sigma_y, &s_accurate, &s_boundary, &s_nan, &s_mask, &s_linear, &s_backend,
    &s_threads};
static const rb_setting_desc *const filter_settings[] = {
    &s_signature, &s_direction, &s_axes, &s_boundary, &s_nan, &s_mask, &s_linear, &s_backend,
    &s_threads};
static const rb_setting_desc *const bspline_settings[] = {
    &s_degree, &s_boundary, &s_nan, &s_mask, &s_linear, &s_backend, &s_threads};
static const rb_setting_desc *const sat_settings[] = {&s_backend, &s_threads};
static const rb_setting_desc *const box_settings[] = {
    &s_size, &s_size_x, &s_size_y, &s_boundary, &s_nan, &s_mask, &s_backend, &s_threads};
static const rb_setting_desc *const deblur_settings[] = {
    &s_psf_sigma, &s_noise, &s_window, &s_fir_only, &s_boundary, &s_nan, &s_backend, &s_threads};
static const rb_setting_desc *const design_deblur_settings[] = {
    &s_psf_sigma, &s_noise, &s_window, &s_fir_only, &s_description, &s_boundary, &s_backend,
    &s_threads};

#define N(a) ((int)(sizeof a / sizeof a[0]))
static const rb_op_desc ops[RB_OP_COUNT] = {
    {RB_OP_BLUR, "blur", "Gaussian blur", "Gaussian blur of any sigma in constant time",
     N(blur_settings), blur_settings, RB_BOUNDARY_CLAMP},
    {RB_OP_FILTER, "filter", "Custom recursive filter",
     "any recursive filter given by its signature", N(filter_settings), filter_settings,
     RB_BOUNDARY_CLAMP},
    /* mirror: the standard extension for B-spline interpolation */
    {RB_OP_BSPLINE, "bspline", "B-spline prefilter",
     "cubic/quintic B-spline interpolation prefilter", N(bspline_settings), bspline_settings,
     RB_BOUNDARY_MIRROR},
    {RB_OP_SAT, "sat", "Summed-area table", "summed-area table (float output)", N(sat_settings),
     sat_settings, RB_BOUNDARY_ZERO},
    {RB_OP_BOX, "box", "Box blur", "box (area) filter of any size", N(box_settings), box_settings,
     RB_BOUNDARY_CLAMP},
    {RB_OP_DEBLUR, "deblur", "Deblur (2D IIR)",
     "deblur with a 2D IIR filter designed from a point-spread function", N(deblur_settings),
     deblur_settings, RB_BOUNDARY_MIRROR},
    {RB_OP_DESIGN_DEBLUR, "design-deblur", "Design a deblur filter",
     "design a deblur filter once and save it as a preset", N(design_deblur_settings),
     design_deblur_settings, RB_BOUNDARY_MIRROR},
};

/* Other spellings front ends have used; an alias may fix one setting. */
static const struct {
    const char *alias;
    rb_op_id op;
    const char *key, *value;
} aliases[] = {
    {"gaussian", RB_OP_BLUR, NULL, NULL},
    {"bspline3", RB_OP_BSPLINE, "degree", "3"},
    {"bspline5", RB_OP_BSPLINE, "degree", "5"},
    {"sat-box", RB_OP_BOX, NULL, NULL},
};

int rb_op_count(void) { return RB_OP_COUNT; }

const rb_op_desc *rb_op_get(rb_op_id id)
{
    return (unsigned)id < RB_OP_COUNT ? &ops[id] : NULL;
}

const rb_op_desc *rb_op_find(const char *name, const char **fixed_key, const char **fixed_value)
{
    const char *k = NULL, *v = NULL;
    const rb_op_desc *found = NULL;
    if (name) {
        for (int i = 0; i < RB_OP_COUNT && !found; i++)
            if (!strcasecmp(name, ops[i].name))
                found = &ops[i];
        for (int i = 0; i < N(aliases) && !found; i++)
            if (!strcasecmp(name, aliases[i].alias)) {
                found = &ops[aliases[i].op];
                k = aliases[i].key;
                v = aliases[i].value;
            }
    }
    if (fixed_key)
        *fixed_key = k;
    if (fixed_value)
        *fixed_value = v;
    return found;
}

int rb_op_setting_index(const rb_op_desc *op, const char *key)
{
    if (!op || !key)
        return -1;
    for (int i = 0; i < op->n_settings; i++)
        if (!strcasecmp(key, op->settings[i]->key))
            return i;
    return -1;
}

const rb_setting_desc *rb_op_setting(const rb_op_desc *op, const char *key)
{
    int i = rb_op_setting_index(op, key);
    return i < 0 ? NULL : op->settings[i];
}

const rb_setting_desc *rb_setting_find(const char *key)
{
    for (int i = 0; i < RB_OP_COUNT; i++) {
        const rb_setting_desc *d = rb_op_setting(&ops[i], key);
        if (d)
            return d;
    }
    return NULL;
}

const char *rb_setting_allowed(const rb_setting_desc *d, char *buf, size_t len)
{
    const char *unit = d->unit && d->unit[0] ? " " : "";
    const char *u = d->unit ? d->unit : "";
    switch (d->type) {
    case RB_SETTING_NUMBER:
    case RB_SETTING_INTEGER: {
        const char *what = d->type == RB_SETTING_INTEGER ? "a whole number" : "a number";
        const char *zero = d->flags & RB_SETTING_ZERO_OFF ? "0, or " : "";
        if ((d->flags & RB_SETTING_MIN_EXCLUSIVE) && d->max >= 1e5)
            snprintf(buf, len, "%s above %g%s%s", what, d->min, unit, u);
        else
            snprintf(buf, len, "%s%s %g to %g%s%s%s", zero, what, d->min, d->max, unit, u,
                     d->flags & RB_SETTING_PERCENT ? ", or a percentage" : "");
        break;
    }
    case RB_SETTING_BOOL:
        snprintf(buf, len, "yes or no");
        break;
    case RB_SETTING_CHOICE: {
        size_t n = 0, at = 0;
        while (d->choices[n].name)
            n++;
        buf[0] = 0;
        for (size_t i = 0; i < n && at < len; i++) {
            int w = snprintf(buf + at, len - at, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                             d->choices[i].name);
            if (w < 0)
                break;
            at += (size_t)w;
        }
        if ((d->flags & RB_SETTING_OR_FILE) && at < len)
            snprintf(buf + at, len - at, ", or a file name");
        break;
    }
    case RB_SETTING_TEXT:
        snprintf(buf, len, "text");
        break;
    case RB_SETTING_BOUNDARY:
        snprintf(buf, len, "zero, constant=V, clamp, periodic, mirror or none");
        break;
    }
    return buf;
}

const char *rb_setting_default_text(const rb_op_desc *op, const rb_setting_desc *d, char *buf,
                                    size_t len)
{
    switch (d->type) {
    case RB_SETTING_NUMBER:
    case RB_SETTING_INTEGER:
        snprintf(buf, len, "%g", d->def);
        break;
    case RB_SETTING_BOOL:
        snprintf(buf, len, "%s", d->def != 0.0 ? "yes" : "no");
        break;
    case RB_SETTING_CHOICE:
        buf[0] = 0;
        for (const rb_choice *c = d->choices; c->name; c++)
            if (c->value == (int)d->def)
                snprintf(buf, len, "%s", c->name);
        break;
    case RB_SETTING_TEXT:
        snprintf(buf, len, "%s", d->def_text ? d->def_text : "");
        break;
    case RB_SETTING_BOUNDARY:
        snprintf(buf, len, "%s", rb_boundary_name(op ? op->default_boundary : RB_BOUNDARY_CLAMP));
        break;
    }
    return buf;
}
