/* recblur GIMP 2.10 plug-in: shared types.
 *
 * The plug-in holds no filtering math: it maps the dialog / PDB options to
 * engine calls (rbg_options.c) and GeglBuffer pixels to rb_image (rbg_pixels.c).
 */
#ifndef RBG_H
#define RBG_H

#include <libgimp/gimp.h>
#include "recblur.h"
#include "recblur_deblur.h"
#include "rbg_vals.h"   /* RbgVals and the table mapping, GIMP-free */

#define RBG_PROC   "plug-in-recblur"
#define RBG_DEBLUR_PROC "plug-in-recblur-deblur"
#define RBG_BINARY "recblur"
#define RBG_PRESET_MAX 128

/* The check the engine's table cannot do (the PDB operation enum): NULL when
 * fine, else a newly allocated message naming the bad value. */
gchar *rbg_vals_check(const RbgVals *v);

/* The engine filter and boundary these options describe (rb_settings_filter). */
rb_status rbg_make_filter(rb_context *ctx, const RbgVals *v, rb_filter **out,
                          rb_boundary *boundary);

/* Load preset `name` (a name on the preset path or a file) into v. Presets of
 * op blur/filter/bspline apply; others (sat, box) are refused with a message,
 * v left as it was. */
gboolean rbg_apply_preset(const char *name, RbgVals *v, gchar **error);

/* The dialog's last values across GIMP sessions (rbg_last_vals.c): load into
 * v (TRUE when a saved file was read; a bad one is reported with g_message
 * and v is left as it was), and save after an interactive OK. */
gboolean rbg_last_vals_load(RbgVals *v);
void rbg_last_vals_save(const RbgVals *v);

/* Pixel layout of a drawable as the engine gets it: the babl format read and
 * written (float in the drawable's colour space, or the drawable's own 8/16-bit
 * format), the engine's sample format for it, its channel count and how the
 * engine must treat alpha. */
typedef struct {
    const Babl *format;      /* what gegl_buffer_get/set move: what the engine filters */
    const Babl *preview_u8;  /* 8-bit gamma, what GimpPreviewArea draws */
    rb_format sample;        /* RB_F32, or RB_U8/RB_U16 for the drawable's own format */
    int channels;
    rb_alpha alpha;
    int srgb;                /* the samples are sRGB-encoded (rb_image.srgb) */
} RbgLayout;

/* The float layout: babl converts from whatever the drawable holds. */
void rbg_layout(gint32 drawable_id, gboolean linear, RbgLayout *out);
/* The drawable's own format, when the engine filters it as stored: 8/16-bit
 * RGB or gray, with or without alpha, sRGB space, gamma-encoded samples when
 * filtering perceptually and linear ones when filtering in linear light. TRUE
 * and *out filled; else FALSE. */
gboolean rbg_layout_native(gint32 drawable_id, gboolean linear, RbgLayout *out);
/* The one rule of both stored routes (rbg_layout_native from the babl format,
 * rbg_layout_stored from the image's precision): storage of `sample` (U8 or
 * U16), gray or RGB, with or without alpha, gamma-encoded or linear, filtered
 * in linear light or not. FALSE where the engine cannot filter it as stored;
 * else sample, channels, alpha and srgb of *out set (format and preview_u8
 * are the caller's). */
gboolean rbg_layout_as_stored(rb_format sample, gboolean gray, gboolean alpha, gboolean gamma,
                              gboolean linear, RbgLayout *out);
/* Bytes of one pixel of a stored layout (channels x 1 or 2) */
size_t rbg_layout_stored_pixel_bytes(const RbgLayout *layout);

/* libgimp's tiles without babl or GEGL (rbg_tiles.c). rbg_layout_stored: the
 * drawable as stored when the engine can filter it so and the image has no
 * assigned profile (TRUE, *out filled, out->format NULL); rbg_tiles_read /
 * rbg_tiles_write_shadow move the box x,y,w,h of its own bytes (the write
 * goes to the shadow tiles and flushes them). rbg_gegl_ensure: gegl_init once,
 * for the routes and the dialog that use GeglBuffer or babl. */
gboolean rbg_layout_stored(gint32 drawable_id, gboolean linear, RbgLayout *out);
gboolean rbg_tiles_read(gint32 drawable_id, int x, int y, int w, int h, const RbgLayout *layout,
                        void *pixels, gchar **error);
void rbg_tiles_write_shadow(gint32 drawable_id, int x, int y, int w, int h, const void *pixels);
void rbg_gegl_ensure(void);

/* Engine plumbing shared by the blur and the deblur procedures (rbg_pixels.c). */
/* A fresh engine context reporting to progress (may be NULL); NULL with
 * *error set when it cannot be created. */
rb_context *rbg_context_new(rb_progress_fn progress, void *user, gchar **error);
/* The engine's message for a failed call on ctx, newly allocated; when the
 * engine left none, "recblur: WHAT: <status>". */
gchar *rbg_engine_error(rb_context *ctx, rb_status st, const char *what);

/* The steps of one engine run that differ between blur and deblur. */
typedef struct {
    const char *what;   /* "blur", "deblur": names the run in messages */
    /* Filter and plan for w x h x channels from vals (both freed by destroy). */
    rb_status (*plan)(rb_context *ctx, const void *vals, int w, int h, int channels,
                      void **filter, void **plan);
    /* Filter img in place; *backend_name: the back end that ran (static). */
    rb_status (*execute)(void *plan, rb_image *img, const char **backend_name);
    void (*destroy)(void *filter, void *plan);
} RbgEngineRun;

/* An RbgPixelsFn's body: vals checked (bad: the check's message, taken over,
 * or NULL), a context on `backend`, the run's plan executed in place on
 * pixels (w x h, layout->channels samples of layout->sample per pixel). */
gboolean rbg_run_pixels(const RbgEngineRun *run, const void *vals, gchar *bad, int backend,
                        const RbgLayout *layout, void *pixels, int w, int h,
                        rb_progress_fn progress, void *user, gchar **backend_name,
                        gchar **error);

/* Filter `pixels` (w x h, layout->channels samples per pixel) in place.
 * progress may be NULL. On success *backend (if not NULL) gets a copy of the
 * back end's name; on failure *error gets the engine's message. */
gboolean rbg_filter_pixels(const RbgVals *v, const RbgLayout *layout, void *pixels,
                           int w, int h, rb_progress_fn progress, void *user,
                           gchar **backend, gchar **error);

/* Full run on the drawable's selection box: read, filter, shadow, merge. */
gboolean rbg_filter_drawable(gint32 drawable_id, const RbgVals *v, gboolean show_progress,
                             gchar **error);

/* One engine run on w x h pixels of `layout` in place (rbg_filter_pixels and
 * rbg_deblur_pixels have this shape, with their own vals). */
typedef gboolean (*RbgPixelsFn)(const void *vals, const RbgLayout *layout, void *pixels,
                                int w, int h, rb_progress_fn progress, void *user,
                                gchar **backend, gchar **error);

/* Read the drawable's selection box (linear or perceptual), run fn, and only
 * when it succeeds write the shadow buffer and merge it: a failing run leaves
 * the drawable unchanged. native: fn's engine run takes straight alpha, so the
 * drawable's own format goes to it where rbg_layout_native allows; otherwise
 * (and always when FALSE) babl's float. */
gboolean rbg_process_drawable(gint32 drawable_id, gboolean linear, gboolean native,
                              const char *title, RbgPixelsFn fn, const void *vals, gboolean show_progress,
                              gchar **error);

/* Where a call's time goes (rbg_stage_times.c): in a build with the CMake
 * option RECBLUR_GIMP_STAGE_TIMES, each full run prints its stages' wall
 * times (init, read, engine, write, flush, merge, update) to stderr, for
 * bench/gimp_overhead.sh. Otherwise it does nothing. */
typedef struct {
    gboolean on;
    gint64 last;
    GString *line;
} RbgStageTimes;
void rbg_stage_times_start(RbgStageTimes *t);
void rbg_stage_times_mark(RbgStageTimes *t, const char *stage);
void rbg_stage_times_report(RbgStageTimes *t, int w, int h);
/* Called first thing in run(): the process's start as the plug-in sees it. */
void rbg_stage_times_process_start(void);
/* Called right after gegl_init (rbg_gegl_ensure); a run without GEGL never calls it. */
void rbg_stage_times_init_done(void);

/* ------------------------------------------------------------ deblur */
/* plug-in-recblur-deblur: Filters > Enhance > Deblur (2D IIR). The engine
 * designs the filter (rb_deblur_design) or loads a .deblur preset; defaults
 * are those of `recblur deblur`. */

typedef struct {
    gdouble psf_sigma;     /* Gaussian PSF standard deviation, 0.3 .. 20 */
    gdouble noise;         /* noise standard deviation in [0,1] units, 0 .. 0.5 */
    gint    window;        /* quadrant window side, 2 .. 64 */
    gint    boundary;      /* rb_boundary_mode */
    gdouble constant;
    gint    linear;        /* FALSE (default): the stored values, as the CLI */
    gint    backend;       /* rb_backend */
    gchar   preset[RBG_PRESET_MAX];  /* a .deblur preset name or path; "" = design */
    gint    preview;       /* dialog only */
} RbgDeblurVals;

void rbg_deblur_defaults(RbgDeblurVals *v);
/* NULL when fine, else a newly allocated message naming the bad value. */
gchar *rbg_deblur_check(const RbgDeblurVals *v);
/* The filter: the preset's, or designed from the PSF. *boundary gets the
 * preset's boundary when it has one (*has_boundary), for the caller to apply. */
rb_status rbg_deblur_make_filter(rb_context *ctx, const RbgDeblurVals *v,
                                 rb_deblur_filter **out, rb_boundary *boundary,
                                 int *has_boundary);
/* Load the preset into v (name, and its boundary if it has one); on failure v
 * is left as it was. */
gboolean rbg_deblur_apply_preset(const char *name, RbgDeblurVals *v, gchar **error);
/* RbgPixelsFn for RbgDeblurVals. */
gboolean rbg_deblur_pixels(const void *vals, const RbgLayout *layout, void *pixels, int w,
                           int h, rb_progress_fn progress, void *user, gchar **backend,
                           gchar **error);
/* Interactive dialog; TRUE when the user pressed OK (v updated). */
gboolean rbg_deblur_dialog(gint32 drawable_id, RbgDeblurVals *v);

/* Interactive dialog; TRUE when the user pressed OK (v updated). */
gboolean rbg_dialog(gint32 drawable_id, RbgVals *v);

#endif /* RBG_H */
