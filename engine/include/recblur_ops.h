/* recblur — the operation table: every operation the front ends offer and
 * each of its settings, declared once (in the manner of libvips' VIPS_ARG_*
 * declarations). The CLI's options and --help, the preset reader, the
 * ImageMagick module's words and -define keys, and the GIMP plug-in's PDB
 * arguments and dialog widgets are all mapped from this table; a new front
 * end (GEGL properties, ImageMagick 7) maps it too instead of declaring its
 * own copy.
 *
 *   const rb_op_desc *op = rb_op_find("blur", NULL);
 *   rb_settings s;
 *   rb_settings_init(&s, op);                     // the table's defaults
 *   rb_settings_set(ctx, &s, "sigma", "20");      // strict parsing, one place
 *   rb_settings_set(ctx, &s, "boundary", "periodic");
 *   rb_filter *f; rb_boundary b;
 *   rb_settings_filter(ctx, &s, &f, &b);          // what every front end runs
 *
 * Error messages name the key, the value and what is allowed:
 *   "bad sigma '2x': not a number (0, or 0.5 to 100000 pixels)".
 */
#ifndef RECBLUR_OPS_H
#define RECBLUR_OPS_H

#include "recblur.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RB_SETTING_NUMBER = 0,  /* a finite decimal number in [min, max] */
    RB_SETTING_INTEGER,     /* a whole number in [min, max] */
    RB_SETTING_BOOL,        /* yes|no, true|false, on|off, 1|0 */
    RB_SETTING_CHOICE,      /* one of `choices` (by name) */
    RB_SETTING_TEXT,        /* free text (a signature, a description) */
    RB_SETTING_BOUNDARY     /* zero|constant=V|clamp|periodic|mirror|none */
} rb_setting_type;

/* Flags of a setting. */
enum {
    RB_SETTING_ADVANCED = 1u << 0,     /* engine terms: GUIs put it under "Advanced" */
    RB_SETTING_REQUIRED = 1u << 1,     /* text front ends must be given it (or a key of its
                                          axis pair); GUIs start from the default */
    RB_SETTING_ZERO_OFF = 1u << 2,     /* 0 is allowed below min and means "off" */
    RB_SETTING_PERCENT = 1u << 3,      /* "0.5%" is read as 0.005 */
    RB_SETTING_MIN_EXCLUSIVE = 1u << 4,/* min itself is not allowed (a positive number) */
    RB_SETTING_BOTH_AXES = 1u << 5,    /* shorthand: sets `x_key` and `y_key` together */
    RB_SETTING_HOST_DEFAULT = 1u << 6, /* a host may start from its own convention (see help) */
    RB_SETTING_OR_FILE = 1u << 7       /* CHOICE: text front ends may give a file name instead of
                                          a choice: the value is then `off`, the name is the
                                          setting's text (GUIs offer the choices only) */
};

/* One named value of a choice setting. */
typedef struct {
    const char *name;   /* what is typed: "causal" */
    int value;          /* what the engine takes: RB_DIRECTION_CAUSAL */
    const char *label;  /* what a GUI shows: "Causal only" */
} rb_choice;

typedef struct {
    const char *key;          /* "sigma-x": CLI --sigma-x, preset and -define key */
    rb_setting_type type;
    double min, max;          /* NUMBER, INTEGER: allowed range */
    double ui_min, ui_max;    /* NUMBER, INTEGER: a slider's range (both 0: min..max), as
                                 GEGL's ui_range; typing may go up to max */
    double def;               /* NUMBER, INTEGER, BOOL, CHOICE (the value): the default */
    const char *def_text;     /* TEXT, BOUNDARY: the default */
    const rb_choice *choices; /* CHOICE: ended by {NULL}; BOUNDARY: the modes (a GUI's
                                 list; text gives the constant as constant=V) */
    const char *unit;         /* "pixels", "" */
    const char *label;        /* artist-facing: "Blur radius (sigma)" */
    const char *help;         /* one line */
    unsigned flags;           /* RB_SETTING_* */
    /* an axis pair: the shorthand (BOTH_AXES) names its x and y keys; each
     * axis key names its shorthand in x_key. An axis left out while the other
     * is given takes `off` (sigma 0: unfiltered; size 1: unchanged). */
    const char *x_key, *y_key;
    double off;
} rb_setting_desc;

typedef enum {
    RB_OP_BLUR = 0,
    RB_OP_FILTER,
    RB_OP_BSPLINE,
    RB_OP_SAT,
    RB_OP_BOX,
    RB_OP_DEBLUR,
    RB_OP_DESIGN_DEBLUR,
    RB_OP_COUNT
} rb_op_id;

#define RB_OP_MAX_SETTINGS 16

typedef struct {
    rb_op_id id;
    const char *name;     /* "blur": CLI command, preset op */
    const char *label;    /* "Gaussian blur" */
    const char *summary;  /* one line */
    int n_settings;
    const rb_setting_desc *const *settings;  /* its own settings first, then the shared ones */
    rb_boundary_mode default_boundary;       /* when it has a boundary setting */
} rb_op_desc;

int rb_op_count(void);
const rb_op_desc *rb_op_get(rb_op_id id);
/* By name or alias ("gaussian", "bspline3", "sat-box"); NULL if unknown. An
 * alias may fix a setting (bspline3: degree 3): fixed_key and fixed_value get it
 * (NULL when none; fixed may be NULL). */
const rb_op_desc *rb_op_find(const char *name, const char **fixed_key, const char **fixed_value);
/* The op's setting with this key (case-insensitive), or NULL. */
const rb_setting_desc *rb_op_setting(const rb_op_desc *op, const char *key);
/* Any operation's setting with this key (the first declared), or NULL. */
const rb_setting_desc *rb_setting_find(const char *key);
/* Index of key in op->settings, or -1. */
int rb_op_setting_index(const rb_op_desc *op, const char *key);
/* "0, or 0.5 to 100000 pixels", "3 or 5", "yes or no": what the setting allows. */
const char *rb_setting_allowed(const rb_setting_desc *d, char *buf, size_t len);
/* The default as text ("5", "no", "clamp", "both"); op picks a boundary's default. */
const char *rb_setting_default_text(const rb_op_desc *op, const rb_setting_desc *d, char *buf,
                                    size_t len);

/* --------------------------------------------------------- strict parsing */
/* The one number parser of every front end: a finite decimal number and
 * nothing else ("2x", "", " 2", "nan", "0x10" are refused). 0 on success. */
int rb_parse_number(const char *text, double *out);
/* A whole decimal number in [lo, hi]. 0 on success. */
int rb_parse_integer(const char *text, long lo, long hi, long *out);
/* yes|no, true|false, on|off, 1|0 (any case). 0 on success. */
int rb_parse_bool(const char *text, int *out);

/* ---------------------------------------------------------- setting sets */
#define RB_SETTING_TEXT_MAX 512

typedef struct {
    double number;                 /* NUMBER, INTEGER, BOOL, CHOICE (the choice's value) */
    char text[RB_SETTING_TEXT_MAX];/* TEXT */
    rb_boundary boundary;          /* BOUNDARY */
} rb_setting_value;

/* The values of one operation's settings, filled from text. */
typedef struct {
    const rb_op_desc *op;
    rb_setting_value value[RB_OP_MAX_SETTINGS];
    unsigned char given[RB_OP_MAX_SETTINGS];    /* set by the user in any layer */
    unsigned char in_layer[RB_OP_MAX_SETTINGS]; /* set in the current layer */
} rb_settings;

/* Every setting of op at its default. */
void rb_settings_init(rb_settings *s, const rb_op_desc *op);
/* Start a layer that overrides the previous ones (a preset, then the command
 * line): within a layer an axis key wins over its shorthand whatever the
 * order; across layers the later layer wins. */
void rb_settings_new_layer(rb_settings *s);
/* Parse text for key. Errors (RB_ERR_ARGUMENT: key unknown or not of this op;
 * RB_ERR_PARSE: bad value) leave s unchanged and name the key, the value and
 * what is allowed: "bad sigma '2x': not a number (0, or 0.5 to 100000 pixels)". */
rb_status rb_settings_set(rb_context *ctx, rb_settings *s, const char *key, const char *text);
/* Typed setters for front ends whose widgets hold typed values (GUIs); the
 * same range checks and messages. */
rb_status rb_settings_set_number(rb_context *ctx, rb_settings *s, const char *key, double v);
rb_status rb_settings_set_boundary(rb_context *ctx, rb_settings *s, rb_boundary b);

/* Whether the user gave key (in any layer); and the resolved values. An axis
 * key left out while its pair was given resolves to the pair's `off`. */
int rb_settings_given(const rb_settings *s, const char *key);
double rb_settings_number(const rb_settings *s, const char *key);
int rb_settings_int(const rb_settings *s, const char *key);
const char *rb_settings_text(const rb_settings *s, const char *key);
rb_boundary rb_settings_boundary(const rb_settings *s);

/* The first required setting not given (its key), or NULL when all are. */
const char *rb_settings_missing(const rb_settings *s);

/* The filter and boundary these settings describe (blur, filter, bspline;
 * a blur with both sigmas 0 is the identity). The successor of
 * rb_preset_filter: every front end calls it. boundary may be NULL. */
rb_status rb_settings_filter(rb_context *ctx, const rb_settings *s, rb_filter **filter,
                             rb_boundary *boundary);

/* Runs the operation these settings describe on one image (blur, filter,
 * bspline: design, plan, execute; box; sat; deblur: design from the PSF, plan,
 * execute). in == out allowed where the operation allows it. For front ends
 * that hold only a setting set and an image (the GEGL operations). */
rb_status rb_settings_run(rb_context *ctx, const rb_settings *s, const rb_image *in, rb_image *out);

/* ------------------------------------------------------------------ presets */

/* A preset: plain text, one `key = value` per line, `#` comments. Keys: `op`
 * (blur | filter | bspline | sat | box; blur when absent), `description`
 * (free text), and the op's settings from the table above, e.g.
 *   op = blur
 *   sigma = 8
 *   boundary = periodic
 * Each key at most once; unknown keys, keys of another op and bad values are
 * RB_ERR_PRESET naming the file and line. */
typedef struct {
    char name[128];
    char description[256];
    rb_settings settings;      /* settings.op: the operation */
} rb_preset;

/* name_or_path: a file path (contains '/' or ends in ".preset"), or a NAME looked up as
 * NAME.preset in $RECBLUR_PRESET_PATH (colon-separated), then the installed presets
 * directory, then the source tree's presets/. */
rb_status rb_preset_load(rb_context *ctx, const char *name_or_path, rb_preset *out);
rb_status rb_preset_parse_text(rb_context *ctx, const char *text, const char *origin,
                               rb_preset *out);
/* Names of the presets found on the search path, for menus. Returns count; fills up to max. */
int rb_preset_list(char names[][128], int max);

#ifdef __cplusplus
}
#endif

#endif /* RECBLUR_OPS_H */
