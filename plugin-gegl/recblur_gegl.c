/* recblur's GEGL operations: recblur:gaussian-blur, recblur:filter,
 * recblur:bspline, recblur:box and recblur:deblur.
 *
 * One GObject type per operation of the engine's table (recblur_ops.h); each
 * type's properties are generated from that table at class_init, so a setting
 * has one declaration whatever the front end. The operations are thin: GEGL
 * pixels to an rb_image, the settings to engine calls, nothing else.
 *
 * A recursive filter with exact boundaries needs whole lines, so each
 * operation asks GEGL for the whole input (get_required_for_output) and
 * computes the whole output once (get_cached_region), as GEGL's own IIR
 * gblur-1d does. Pixels are filtered in linear light by default (GEGL's own
 * blurs' choice: no dark halos) or perceptual with "linear" off, and always
 * premultiplied (no bleeding from transparent pixels).
 *
 * In GIMP 3 the operations appear in the Filters menu through the
 * "gimp:menu-path" key and get GIMP's own filter dialog (on-canvas preview,
 * split view, presets, blending); in GIMP 2.10 through the GEGL Operation
 * tool; and from the `gegl` command line. */
#include <gegl.h>
#include <gegl-plugin.h>
#include <math.h>
#include <string.h>

#include "recblur.h"
#include "recblur_ops.h"

/* The GEGL face of each engine operation. */
typedef struct {
    rb_op_id op;
    const char *gegl_name;     /* "recblur:gaussian-blur" */
    const char *type_name;     /* GType name */
    const char *title;
    const char *categories;
    const char *menu_path;     /* GIMP 3 */
    const char *menu_label;
} rbgegl_info;

static const rbgegl_info infos[] = {
    {RB_OP_BLUR, "recblur:gaussian-blur", "RecblurGeglGaussianBlur", "Recursive Gaussian Blur",
     "blur", "<Image>/Filters/Blur", "Recursive Gaussian Blur..."},
    {RB_OP_BOX, "recblur:box", "RecblurGeglBox", "Exact Box Blur", "blur", "<Image>/Filters/Blur",
     "Exact Box Blur..."},
    {RB_OP_FILTER, "recblur:filter", "RecblurGeglFilter", "Recursive Filter (signature)",
     "generic", "<Image>/Filters/Generic", "Recursive Filter..."},
    {RB_OP_BSPLINE, "recblur:bspline", "RecblurGeglBspline", "B-spline Prefilter", "generic",
     "<Image>/Filters/Generic", "B-spline Prefilter..."},
    {RB_OP_DEBLUR, "recblur:deblur", "RecblurGeglDeblur", "Recursive Deblur", "enhance",
     "<Image>/Filters/Enhance", "Recursive Deblur..."},
};
#define N_INFOS ((int)(sizeof infos / sizeof infos[0]))

/* Property ids: PROP_SETTING0 + the setting's index in the op's table; the
 * boundary's constant value gets an id of its own. */
enum { PROP_0, PROP_CONSTANT, PROP_SETTING0 };

typedef struct {
    GeglOperationFilter parent_instance;
    rb_settings settings;
    double constant;           /* boundary constant, [0,1] units */
} RecblurGegl;

typedef struct {
    GeglOperationFilterClass parent_class;
    const rbgegl_info *info;
    const rb_op_desc *op;
} RecblurGeglClass;

static GTypeModule *module_for_enums;

/* A choice setting becomes a GEnum registered with the module (types of a
 * loadable module must be registered through it). Values stay for the
 * module's lifetime, as GType requires. */
static GType choice_enum_type(const rbgegl_info *info, const rb_setting_desc *d)
{
    int n = 0;
    while (d->choices[n].name)
        n++;
    GEnumValue *values = g_new0(GEnumValue, n + 1);
    for (int i = 0; i < n; i++) {
        values[i].value = d->choices[i].value;
        values[i].value_name = d->choices[i].label;
        values[i].value_nick = d->choices[i].name;
    }
    gchar *name = g_strdup_printf("%s_%s", info->type_name, d->key);
    for (gchar *c = name; *c; c++)
        if (*c == '-')
            *c = '_';
    GType t = g_type_module_register_enum(module_for_enums, name, values);
    g_free(name);
    return t;
}

static GParamSpec *setting_pspec(const rbgegl_info *info, const rb_op_desc *op,
                                 const rb_setting_desc *d)
{
    const GParamFlags fl = G_PARAM_READWRITE | G_PARAM_CONSTRUCT | GEGL_PARAM_PAD_INPUT;
    GParamSpec *p = NULL;
    double lo = d->flags & RB_SETTING_ZERO_OFF ? 0.0 : d->min;
    double ui_lo = d->ui_min != 0.0 || d->ui_max != 0.0 ? d->ui_min : lo;
    double ui_hi = d->ui_max != 0.0 ? d->ui_max : d->max;
    switch (d->type) {
    case RB_SETTING_NUMBER:
        p = gegl_param_spec_double(d->key, d->label, d->help, lo, d->max, d->def, ui_lo, ui_hi, 1.0,
                                   fl);
        break;
    case RB_SETTING_INTEGER:
        p = gegl_param_spec_int(d->key, d->label, d->help, (int)lo, (int)d->max, (int)d->def,
                                (int)ui_lo, (int)ui_hi, 1.0, fl);
        break;
    case RB_SETTING_BOOL:
        /* a host default: GEGL's blurs work in linear light, so "linear" starts on */
        p = g_param_spec_boolean(d->key, d->label, d->help,
                                 (d->flags & RB_SETTING_HOST_DEFAULT) ? TRUE : d->def != 0.0, fl);
        break;
    case RB_SETTING_CHOICE:
        p = gegl_param_spec_enum(d->key, d->label, d->help, choice_enum_type(info, d), (int)d->def, fl);
        break;
    case RB_SETTING_TEXT:
        p = g_param_spec_string(d->key, d->label, d->help, d->def_text, fl);
        break;
    case RB_SETTING_BOUNDARY:
        p = gegl_param_spec_enum(d->key, d->label, d->help, choice_enum_type(info, d),
                              (int)op->default_boundary, fl);
        break;
    }
    if (p && d->unit && !strcmp(d->unit, "pixels"))
        gegl_param_spec_set_property_key(p, "unit", "pixel-distance");
    /* an axis pair is shown as GIMP shows its own blur's (a chain between x and y) */
    if (p && d->x_key && !(d->flags & RB_SETTING_BOTH_AXES)) {
        size_t n = strlen(d->key);
        gegl_param_spec_set_property_key(p, "axis", d->key[n - 1] == 'x' ? "x" : "y");
    }
    return p;
}

/* Settings a GEGL operation shows: the axis pair instead of its shorthand
 * (GIMP chains x and y itself), and none of the text-only front ends' keys. */
static gboolean shown_in_gegl(const rb_setting_desc *d)
{
    return !(d->flags & RB_SETTING_BOTH_AXES) && strcmp(d->key, "description") != 0;
}

/* The table entry behind property id (ids from PROP_SETTING0 on), or NULL
 * with GObject's warning for an id the class never installed. */
static const rb_setting_desc *property_setting(GObject *object, guint id, GParamSpec *pspec)
{
    const rb_op_desc *op = ((RecblurGeglClass *)G_OBJECT_GET_CLASS(object))->op;
    int i = (int)id - PROP_SETTING0;
    if (i < 0 || i >= op->n_settings) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return NULL;
    }
    return op->settings[i];
}

/* A numeric setting (number, integer, bool, choice) is one double in the
 * settings and a double, int, boolean or enum GValue in its property: the two
 * conversions, for set_property and get_property. */
static double gvalue_number(const GValue *v)
{
    if (G_VALUE_HOLDS_DOUBLE(v))
        return g_value_get_double(v);
    if (G_VALUE_HOLDS_INT(v))
        return g_value_get_int(v);
    if (G_VALUE_HOLDS_BOOLEAN(v))
        return g_value_get_boolean(v);
    return g_value_get_enum(v);
}

static void gvalue_set_number(GValue *v, double x)
{
    if (G_VALUE_HOLDS_DOUBLE(v))
        g_value_set_double(v, x);
    else if (G_VALUE_HOLDS_INT(v))
        g_value_set_int(v, (int)lround(x));
    else if (G_VALUE_HOLDS_BOOLEAN(v))
        g_value_set_boolean(v, x != 0);
    else
        g_value_set_enum(v, (int)lround(x));
}

static void set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    RecblurGegl *self = (RecblurGegl *)object;
    if (id == PROP_CONSTANT) {
        self->constant = g_value_get_double(value);
        rb_boundary b = rb_settings_boundary(&self->settings);
        if (b.mode == RB_BOUNDARY_CONSTANT) {
            b.value = (float)self->constant;
            rb_settings_set_boundary(NULL, &self->settings, b);
        }
        return;
    }
    const rb_setting_desc *d = property_setting(object, id, pspec);
    if (!d)
        return;
    /* GParamSpec validation has kept the value in range; the engine checks the rest */
    switch (d->type) {
    case RB_SETTING_TEXT: {
        const char *t = g_value_get_string(value);
        rb_settings_set(NULL, &self->settings, d->key, t ? t : "");
        break;
    }
    case RB_SETTING_BOUNDARY: {
        rb_boundary b = {(rb_boundary_mode)g_value_get_enum(value), (float)self->constant};
        rb_settings_set_boundary(NULL, &self->settings, b);
        break;
    }
    default:
        rb_settings_set_number(NULL, &self->settings, d->key, gvalue_number(value));
        break;
    }
}

static void get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    RecblurGegl *self = (RecblurGegl *)object;
    if (id == PROP_CONSTANT) {
        g_value_set_double(value, self->constant);
        return;
    }
    const rb_setting_desc *d = property_setting(object, id, pspec);
    if (!d)
        return;
    switch (d->type) {
    case RB_SETTING_TEXT:
        g_value_set_string(value, rb_settings_text(&self->settings, d->key));
        break;
    case RB_SETTING_BOUNDARY:
        g_value_set_enum(value, (int)rb_settings_boundary(&self->settings).mode);
        break;
    default:
        gvalue_set_number(value, rb_settings_number(&self->settings, d->key));
        break;
    }
}

/* The working format: float in the input's space, gray or RGB and with alpha
 * as the input has them (straight: the engine premultiplies, filters and
 * un-premultiplies, as for the CLI's files, so a constant edge means the same); the table's "linear" setting picks
 * linear light or the encoded values (an operation without it works on the
 * encoded values, as the CLI does). */
static const Babl *work_format(GeglOperation *operation)
{
    RecblurGegl *self = (RecblurGegl *)operation;
    const rb_op_desc *op = ((RecblurGeglClass *)G_OBJECT_GET_CLASS(operation))->op;
    const Babl *space = gegl_operation_get_source_space(operation, "input");
    const Babl *src = gegl_operation_get_source_format(operation, "input");
    int linear = rb_op_setting(op, "linear") ? rb_settings_int(&self->settings, "linear") : 0;
    int alpha = src ? babl_format_has_alpha(src) : 1;
    int gray = src && babl_format_get_n_components(src) <= 2;
    static const char *const names[2][2][2] = {
        /* [gray][alpha][linear] */
        {{"R'G'B' float", "RGB float"}, {"R'G'B'A float", "RGBA float"}},
        {{"Y' float", "Y float"}, {"Y'A float", "YA float"}}};
    return babl_format_with_space(names[gray][alpha][linear != 0], space);
}

static void prepare(GeglOperation *operation)
{
    const Babl *f = work_format(operation);
    gegl_operation_set_format(operation, "input", f);
    gegl_operation_set_format(operation, "output", f);
}

static GeglRectangle whole_input(GeglOperation *operation)
{
    const GeglRectangle *in = gegl_operation_source_get_bounding_box(operation, "input");
    GeglRectangle none = {0, 0, 0, 0};
    return in ? *in : none;
}

static GeglRectangle get_required_for_output(GeglOperation *operation, const gchar *pad,
                                             const GeglRectangle *roi)
{
    (void)pad;
    (void)roi;
    return whole_input(operation);
}

static GeglRectangle get_cached_region(GeglOperation *operation, const GeglRectangle *roi)
{
    (void)roi;
    return whole_input(operation);
}

typedef struct {
    GeglOperation *operation;
} progress_target;

static int on_progress(double fraction, void *user)
{
    progress_target *t = user;
    gegl_operation_progress(t->operation, fraction, (gchar *)"");
    return 0;
}

/* Runs the engine on the whole image in place; RB_OK or the engine's status
 * with its message in ctx. */
static rb_status run_engine(rb_context *ctx, const rb_settings *s, rb_image *img)
{
    rb_status st = RB_OK;
    if (rb_op_setting(s->op, "backend"))
        st = rb_context_set_backend(ctx, (rb_backend)rb_settings_int(s, "backend"));
    if (st == RB_OK) /* 0 (missing) for ops without the setting */
        st = rb_context_set_nan_mode(ctx, (rb_nan_mode)rb_settings_int(s, "nan"));
    if (st == RB_OK && rb_op_setting(s->op, "threads"))
        st = rb_context_set_threads(ctx, rb_settings_int(s, "threads"));
    if (st != RB_OK)
        return st;
    return rb_settings_run(ctx, s, img, img);
}

static gboolean process(GeglOperation *operation, GeglBuffer *input, GeglBuffer *output,
                        const GeglRectangle *result, gint level)
{
    (void)level;
    RecblurGegl *self = (RecblurGegl *)operation;
    const GeglRectangle whole = whole_input(operation);
    const Babl *format = gegl_operation_get_format(operation, "output");
    if (whole.width <= 0 || whole.height <= 0)
        return TRUE;
    const int ch = babl_format_get_n_components(format);
    const int alpha = babl_format_has_alpha(format);
    const size_t row = (size_t)whole.width * ch;
    float *pixels = g_try_malloc(row * (size_t)whole.height * sizeof(float));
    if (!pixels) {
        g_warning("recblur: out of memory for a %dx%d image", whole.width, whole.height);
        return FALSE;
    }
    gegl_buffer_get(input, &whole, 1.0, format, pixels, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);

    rb_context *ctx = NULL;
    rb_status st = rb_context_create(&ctx);
    progress_target target = {operation};
    if (st == RB_OK) {
        rb_context_set_progress(ctx, on_progress, &target);
        rb_image img = {whole.width, whole.height, ch, 0, RB_F32, RB_MEMORY_HOST,
                        alpha ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE, 0, pixels};
        st = run_engine(ctx, &self->settings, &img);
        if (st != RB_OK) {
            /* the engine writes nothing when it refuses; leave the image as it was */
            g_warning("%s", rb_context_error(ctx)[0] ? rb_context_error(ctx)
                                                     : rb_status_string(st));
            gegl_buffer_get(input, &whole, 1.0, format, pixels, GEGL_AUTO_ROWSTRIDE,
                            GEGL_ABYSS_NONE);
        }
    }
    rb_context_destroy(ctx);
    const float *first = pixels + (size_t)(result->y - whole.y) * row + (size_t)(result->x - whole.x) * ch;
    gegl_buffer_set(output, result, 0, format, first, (gint)(row * sizeof(float)));
    g_free(pixels);
    return TRUE;
}

static void instance_init(GTypeInstance *instance, gpointer klass)
{
    RecblurGegl *self = (RecblurGegl *)instance;
    rb_settings_init(&self->settings, ((RecblurGeglClass *)klass)->op);
    self->constant = 0.0;
}

static void class_init(gpointer klass, gpointer class_data)
{
    const rbgegl_info *info = class_data;
    RecblurGeglClass *rc = klass;
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GeglOperationClass *operation_class = GEGL_OPERATION_CLASS(klass);
    GeglOperationFilterClass *filter_class = GEGL_OPERATION_FILTER_CLASS(klass);
    rc->info = info;
    rc->op = rb_op_get(info->op);

    object_class->set_property = set_property;
    object_class->get_property = get_property;
    for (int i = 0; i < rc->op->n_settings; i++) {
        const rb_setting_desc *d = rc->op->settings[i];
        if (!shown_in_gegl(d))
            continue;
        GParamSpec *p = setting_pspec(info, rc->op, d);
        if (p)
            g_object_class_install_property(object_class, PROP_SETTING0 + i, p);
        if (d->type == RB_SETTING_BOUNDARY) {
            GParamSpec *c = gegl_param_spec_double(
                "constant", "Edge value", "the value beyond the edges when Edges is Constant (0 to 1)",
                0.0, 1.0, 0.0, 0.0, 1.0, 1.0,
                G_PARAM_READWRITE | G_PARAM_CONSTRUCT | GEGL_PARAM_PAD_INPUT);
            gegl_param_spec_set_property_key(c, "visible", "boundary {constant}");
            g_object_class_install_property(object_class, PROP_CONSTANT, c);
        }
    }

    operation_class->prepare = prepare;
    operation_class->get_required_for_output = get_required_for_output;
    operation_class->get_cached_region = get_cached_region;
    operation_class->threaded = FALSE; /* the engine runs its own threads on the whole image */
    filter_class->process = process;
    gegl_operation_class_set_keys(operation_class,
                                  "name", info->gegl_name,
                                  "title", info->title,
                                  "categories", info->categories,
                                  "description", rc->op->summary,
                                  "gimp:menu-path", info->menu_path,
                                  "gimp:menu-label", info->menu_label,
                                  NULL);
}

static const GeglModuleInfo modinfo = {GEGL_MODULE_ABI_VERSION};

G_MODULE_EXPORT const GeglModuleInfo *gegl_module_query(GTypeModule *module);
G_MODULE_EXPORT gboolean gegl_module_register(GTypeModule *module);

G_MODULE_EXPORT const GeglModuleInfo *gegl_module_query(GTypeModule *module)
{
    (void)module;
    return &modinfo;
}

G_MODULE_EXPORT gboolean gegl_module_register(GTypeModule *module)
{
    module_for_enums = module;
    for (int i = 0; i < N_INFOS; i++) {
        const GTypeInfo type_info = {
            sizeof(RecblurGeglClass), NULL, NULL, class_init, NULL, &infos[i],
            sizeof(RecblurGegl), 0, instance_init, NULL};
        gegl_module_register_type(module, GEGL_TYPE_OPERATION_FILTER, infos[i].type_name,
                                  &type_info, 0);
    }
    return TRUE;
}
