/* recblur GIMP 2.10 plug-in: shared types.
 *
 * The plug-in holds no filtering math: it maps the dialog / PDB options to
 * engine calls (rbg_options.c) and GeglBuffer pixels to rb_image (rbg_pixels.c).
 */
#ifndef RBG_H
#define RBG_H

#include <libgimp/gimp.h>
#include "recblur.h"

#define RBG_PROC   "plug-in-recblur"
#define RBG_BINARY "recblur"
#define RBG_SIGNATURE_MAX 512
#define RBG_PRESET_MAX 128

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
 * rb_direction and axes an rb_axes: the PDB uses the engine's numbering. */
typedef struct {
    gdouble sigma_x, sigma_y;
    gint    operation;
    gint    boundary;
    gdouble constant;
    gint    accurate;
    gint    backend;
    gchar   signature[RBG_SIGNATURE_MAX];
    gint    direction;
    gint    axes;
    gint    linear;        /* filter in linear light ("RaGaBaA float") */
    gint    lock_sigma;    /* dialog only: chain button state */
    gint    preview;       /* dialog only: preview toggle */
} RbgVals;

void rbg_vals_defaults(RbgVals *v);

/* Range checks the engine cannot do (enum values): NULL when fine, else a
 * newly allocated message naming the bad value. */
gchar *rbg_vals_check(const RbgVals *v);

/* The engine filter these options describe. */
rb_status rbg_make_filter(rb_context *ctx, const RbgVals *v, rb_filter **out);

/* Load preset `name` (a name on the preset path or a file) into v. Presets of
 * op blur/filter/bspline apply; others (sat, box) are refused with a message. */
gboolean rbg_apply_preset(const char *name, RbgVals *v, gchar **error);

/* Pixel layout of a drawable: the float babl format (in the drawable's colour
 * space), its channel count, and how the engine must treat alpha. */
typedef struct {
    const Babl *format;      /* float, what the engine filters */
    const Babl *preview_u8;  /* 8-bit gamma, what GimpPreviewArea draws */
    int channels;
    rb_alpha alpha;
} RbgLayout;

void rbg_layout(gint32 drawable_id, gboolean linear, RbgLayout *out);

/* Filter `pixels` (w x h, layout->channels floats per pixel) in place.
 * progress may be NULL. On success *backend (if not NULL) gets a copy of the
 * back end's name; on failure *error gets the engine's message. */
gboolean rbg_filter_pixels(const RbgVals *v, const RbgLayout *layout, float *pixels,
                           int w, int h, rb_progress_fn progress, void *user,
                           gchar **backend, gchar **error);

/* Full run on the drawable's selection box: read, filter, shadow, merge. */
gboolean rbg_filter_drawable(gint32 drawable_id, const RbgVals *v, gboolean show_progress,
                             gchar **error);

/* Interactive dialog; TRUE when the user pressed OK (v updated). */
gboolean rbg_dialog(gint32 drawable_id, RbgVals *v);

#endif /* RBG_H */
