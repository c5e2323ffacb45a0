/* The GIMP plug-in's values (stored as is with gimp_set_data, passed as PDB
 * arguments) and their mapping to and from the engine's operation table.
 * Plain C, no GIMP headers: the defaults test links this file alone. */
#ifndef RBG_VALS_H
#define RBG_VALS_H

#include "recblur.h"

#define RBG_SIGNATURE_MAX 512

/* PDB "operation" values. */
typedef enum {
    RBG_OP_GAUSSIAN = 0,
    RBG_OP_BSPLINE3,
    RBG_OP_BSPLINE5,
    RBG_OP_SIGNATURE,
    RBG_N_OPS
} RbgOperation;

/* Everything the filter needs; stored as is with gimp_set_data (no pointers).
 * boundary is an rb_boundary_mode, backend an rb_backend, direction an
 * rb_direction and axes an rb_axes: the PDB uses the engine's numbering.
 * (double and int are GIMP's gdouble and gint.) */
typedef struct {
    double sigma_x, sigma_y;
    int    operation;
    int    boundary;
    double constant;
    int    accurate;
    int    backend;
    char   signature[RBG_SIGNATURE_MAX];
    int    direction;
    int    axes;
    int    linear;        /* filter in linear light ("RaGaBaA float") */
    int    lock_sigma;    /* dialog only: chain button state */
    int    preview;       /* dialog only: preview toggle */
    int    nan;           /* an rb_nan_mode (table: "nan"); not a PDB argument: a float
                             layer's NaN is missing data unless a preset says otherwise */
    int    mask;          /* an rb_weights_source, none or alpha (table: "mask"): the dialog's
                             "Known-pixel mask" under Advanced, or a preset's mask = alpha; not
                             a PDB argument. Mask files are the CLI's and ImageMagick's */
} RbgVals;

/* The table's operation of a PDB operation value (NULL when out of range). */
const rb_op_desc *rbg_operation_op(int operation);

/* The defaults of the table for `operation` (its boundary included); linear
 * light starts on, GIMP's own convention (a RB_SETTING_HOST_DEFAULT setting). */
void rbg_vals_defaults_for(RbgVals *v, int operation);
/* rbg_vals_defaults_for(v, RBG_OP_GAUSSIAN). */
void rbg_vals_defaults(RbgVals *v);

/* v as the table's settings of its operation, range-checked by the engine's
 * one parser. RB_OK, or the engine's message in ctx naming the bad value
 * (RB_ERR_ARGUMENT without one for an operation out of range: rbg_vals_check). */
rb_status rbg_vals_to_settings(rb_context *ctx, const RbgVals *v, rb_settings *s);

/* A preset's settings into v (operation, its values, the boundary when the
 * preset gives one). RB_ERR_ARGUMENT when its op is not one the plug-in runs,
 * RB_ERR_UNSUPPORTED when it names a mask file (the plug-in takes alpha only). */
rb_status rbg_vals_from_settings(const rb_settings *s, RbgVals *v);

/* The values as preset text, one "key = value" line per setting of v's
 * operation that the mapping sets, keyed by the operation table (so a new
 * table setting the mapping sets is saved with no change here), "op" first.
 * The dialog-only fields (lock_sigma, preview) are not table settings and are
 * not written. RB_OK with the text in buf; RB_ERR_ARGUMENT with the engine's
 * message in ctx when v is not valid, RB_ERR_SIZE when buf is too small. */
rb_status rbg_vals_to_text(rb_context *ctx, const RbgVals *v, char *buf, size_t len);

/* Preset text (what rbg_vals_to_text writes, or any preset of an op the
 * plug-in runs) into v; `origin` names it in messages. On failure v is left
 * as it was: a bad line leaves the parser's message in ctx (naming origin
 * and line); an op the plug-in does not run is RB_ERR_ARGUMENT with none. */
rb_status rbg_vals_from_text(rb_context *ctx, const char *text, const char *origin, RbgVals *v);

#endif /* RBG_VALS_H */
