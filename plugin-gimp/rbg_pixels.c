/* GeglBuffer pixels <-> rb_image, two ways.
 *
 * The drawable's own format (rbg_layout_native), where the engine filters it
 * as stored: 8/16-bit integer RGB or gray, with or without alpha, in the sRGB
 * space, gamma-encoded ("R'G'B'A u8", "Y' u16"; in linear light the engine
 * decodes and encodes sRGB itself, rb_plan_set_linear_light) or linear when
 * filtering in linear light ("RGB u16"). gegl_buffer_get/set
 * then only copy tiles (no babl conversion), a quarter (8-bit) or half
 * (16-bit) of the float way's bytes, and the engine premultiplies GIMP's
 * straight alpha itself (RB_ALPHA_STRAIGHT), as babl did. The blur takes this
 * way; the deblur engine filters every channel as is, so it never does.
 *
 * Otherwise float in the drawable's own colour space, and babl converts from
 * whatever the image holds (other colour spaces, float precisions):
 *   linear light: "RaGaBaA float" / "YaA float" (premultiplied), "RGB float" / "Y float"
 *   perceptual:   "R'aG'aB'aA float" / "Y'A float", "R'G'B' float" / "Y' float"
 * Premultiplied because that is how GEGL filters (no colour bleeds in from
 * transparent pixels) and babl does the (un)premultiplication exactly, so the
 * engine filters every channel as is (RB_ALPHA_PREMULTIPLIED). Linear light by
 * default because GIMP 2.10's own blurs work there (no dark halos).
 * Exception: babl 0.1.98 writes past a buffer while building the fish
 * "Y'A u8" -> "Y'aA float" (heap corruption, found with valgrind), so
 * perceptual gray+alpha is fetched straight and the engine premultiplies
 * (RB_ALPHA_STRAIGHT: the same arithmetic).
 */
#include <string.h>
#include "rbg.h"

void rbg_layout(gint32 drawable_id, gboolean linear, RbgLayout *out)
{
    const Babl *space = gimp_drawable_get_format(drawable_id);
    gboolean alpha = gimp_drawable_has_alpha(drawable_id);
    const char *f, *p;
    gboolean straight = FALSE;

    if (gimp_drawable_is_gray(drawable_id)) {
        f = alpha ? (linear ? "YaA float" : "Y'A float") : (linear ? "Y float" : "Y' float");
        straight = alpha && !linear;   /* the babl bug above */
        p = alpha ? "Y'A u8" : "Y' u8";
        out->channels = alpha ? 2 : 1;
    } else {
        f = alpha ? (linear ? "RaGaBaA float" : "R'aG'aB'aA float")
                  : (linear ? "RGB float" : "R'G'B' float");
        p = alpha ? "R'G'B'A u8" : "R'G'B' u8";
        out->channels = alpha ? 4 : 3;
    }
    out->format = babl_format_with_space(f, space);
    out->preview_u8 = babl_format_with_space(p, space);
    out->sample = RB_F32;
    out->alpha = !alpha ? RB_ALPHA_NONE : straight ? RB_ALPHA_STRAIGHT : RB_ALPHA_PREMULTIPLIED;
    out->srgb = 0;                /* babl already delivered the encoding we filter in */
}

gboolean rbg_layout_as_stored(rb_format sample, gboolean gray, gboolean alpha, gboolean gamma,
                              gboolean linear, RbgLayout *out)
{
    /* Perceptual filtering of linear samples needs an encode first: babl's. */
    if (!gamma && !linear)
        return FALSE;
    out->sample = sample;
    out->channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
    out->alpha = alpha ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE;   /* straight in GIMP */
    /* gamma-encoded samples in linear light: the engine decodes and encodes
     * (by table, engine/src/api/srgb_tables.c) */
    out->srgb = gamma;
    return TRUE;
}

size_t rbg_layout_stored_pixel_bytes(const RbgLayout *layout)
{
    return (size_t)layout->channels * (layout->sample == RB_U16 ? 2 : 1);
}

/* The babl models of the storage rbg_layout_as_stored takes: gamma-encoded
 * (sRGB's curve) or linear, each with and without alpha. */
static const struct {
    const char *model;
    gboolean gray, alpha, gamma;
} native_models[] = {
    { "R'G'B'", FALSE, FALSE, TRUE }, { "R'G'B'A", FALSE, TRUE, TRUE },
    { "Y'", TRUE, FALSE, TRUE },      { "Y'A", TRUE, TRUE, TRUE },
    { "RGB", FALSE, FALSE, FALSE },   { "RGBA", FALSE, TRUE, FALSE },
    { "Y", TRUE, FALSE, FALSE },      { "YA", TRUE, TRUE, FALSE },
};

gboolean rbg_layout_native(gint32 drawable_id, gboolean linear, RbgLayout *out)
{
    const Babl *own = gimp_drawable_get_format(drawable_id);
    const Babl *type = babl_format_get_type(own, 0);
    rb_format sample;

    if (type == babl_type("u8"))
        sample = RB_U8;
    else if (type == babl_type("u16"))
        sample = RB_U16;
    else
        return FALSE;   /* float and half: babl's float route (no saving to make) */
    /* The engine's decode is sRGB's curve; other spaces' curves and primaries
     * are babl's to convert. */
    if (babl_format_get_space(own) != babl_space("sRGB"))
        return FALSE;
    const char *model = babl_get_name(babl_format_get_model(own));
    for (size_t i = 0; i < G_N_ELEMENTS(native_models); i++) {
        if (strcmp(model, native_models[i].model) != 0)
            continue;
        RbgLayout l;
        if (!rbg_layout_as_stored(sample, native_models[i].gray, native_models[i].alpha,
                                  native_models[i].gamma, linear, &l))
            return FALSE;
        rbg_layout(drawable_id, linear, out);   /* the preview format */
        l.format = own;
        l.preview_u8 = out->preview_u8;
        *out = l;
        return TRUE;
    }
    return FALSE;
}

rb_context *rbg_context_new(rb_progress_fn progress, void *user, gchar **error)
{
    rb_context *ctx = NULL;
    if (rb_context_create(&ctx) != RB_OK) {
        *error = g_strdup("recblur: out of memory creating the engine context");
        return NULL;
    }
    if (progress)
        rb_context_set_progress(ctx, progress, user);
    return ctx;
}

gchar *rbg_engine_error(rb_context *ctx, rb_status st, const char *what)
{
    const char *msg = rb_context_error(ctx);
    return msg && *msg ? g_strdup(msg)
                       : g_strdup_printf("recblur: %s: %s", what, rb_status_string(st));
}

gboolean rbg_run_pixels(const RbgEngineRun *run, const void *vals, gchar *bad, int backend,
                        const RbgLayout *layout, void *pixels, int w, int h,
                        rb_progress_fn progress, void *user, gchar **backend_name,
                        gchar **error)
{
    if (bad) {
        *error = bad;
        return FALSE;
    }
    rb_context *ctx = rbg_context_new(progress, user, error);
    if (!ctx)
        return FALSE;

    rb_image img = { 0 };
    img.width = w;
    img.height = h;
    img.channels = layout->channels;
    img.stride = 0;
    img.format = layout->sample;
    img.memory = RB_MEMORY_HOST;
    img.alpha = layout->alpha;
    img.srgb = layout->srgb;
    img.data = pixels;

    void *filter = NULL, *plan = NULL;
    const char *used = "";
    rb_status st = rb_context_set_backend(ctx, (rb_backend)backend);
    if (st == RB_OK)
        st = run->plan(ctx, vals, w, h, layout->channels, &filter, &plan);
    if (st == RB_OK)
        st = run->execute(plan, &img, &used);
    if (st != RB_OK)
        *error = rbg_engine_error(ctx, st, run->what);
    else if (backend_name)
        *backend_name = g_strdup(used);
    run->destroy(filter, plan);
    rb_context_destroy(ctx);
    return st == RB_OK;
}

/* The blur's plan and the weights its execute takes (the table's "mask":
 * none, or the layer's alpha). */
typedef struct {
    rb_plan *plan;
    rb_weights weights;
} blur_job;

static rb_status blur_plan(rb_context *ctx, const void *vals, int w, int h, int channels,
                           void **filter, void **plan)
{
    const RbgVals *v = vals;
    rb_boundary boundary;
    rb_filter *f = NULL;
    blur_job *job = g_new0(blur_job, 1);
    job->weights.source = (rb_weights_source)v->mask;
    rb_status st = rb_context_set_nan_mode(ctx, (rb_nan_mode)v->nan);
    if (st == RB_OK)
        st = rbg_make_filter(ctx, v, &f, &boundary);
    if (st == RB_OK)
        st = rb_plan_create(ctx, f, boundary, w, h, channels, &job->plan);
    /* applies to images marked sRGB only: the own-format route's gamma
     * samples (babl's float route arrives decoded, srgb 0) */
    if (st == RB_OK)
        st = rb_plan_set_linear_light(job->plan, v->linear);
    *filter = f;
    *plan = job;
    return st;
}

static void blur_destroy(void *filter, void *plan)
{
    blur_job *job = plan;
    if (job)
        rb_plan_destroy(job->plan);
    g_free(job);
    rb_filter_destroy(filter);
}

static rb_status blur_execute(void *plan, rb_image *img, const char **backend_name)
{
    blur_job *job = plan;
    *backend_name = rb_plan_backend_name(job->plan);
    return rb_execute_weighted(job->plan, img, &job->weights, img);
}

static const RbgEngineRun blur_run = { "blur", blur_plan, blur_execute, blur_destroy };

gboolean rbg_filter_pixels(const RbgVals *v, const RbgLayout *layout, void *pixels,
                           int w, int h, rb_progress_fn progress, void *user,
                           gchar **backend, gchar **error)
{
    return rbg_run_pixels(&blur_run, v, rbg_vals_check(v), v->backend, layout, pixels, w, h,
                          progress, user, backend, error);
}

/* Engine progress -> GIMP progress bar, at most once per percent (each update
 * is a round trip to GIMP). Never cancels: a cancelled or killed plug-in has
 * written only to the shadow buffer, so the image stays as it was. */
static int progress_cb(double fraction, void *user)
{
    int *last = user;
    int pct = (int)(fraction * 100.0);
    if (pct != *last) {
        *last = pct;
        gimp_progress_update(fraction);
    }
    return 0;
}

/* rbg_filter_pixels as an RbgPixelsFn. */
static gboolean filter_fn(const void *vals, const RbgLayout *layout, void *pixels, int w, int h,
                          rb_progress_fn progress, void *user, gchar **backend, gchar **error)
{
    return rbg_filter_pixels(vals, layout, pixels, w, h, progress, user, backend, error);
}

gboolean rbg_filter_drawable(gint32 drawable_id, const RbgVals *v, gboolean show_progress,
                             gchar **error)
{
    return rbg_process_drawable(drawable_id, v->linear, TRUE, "Recursive blur", filter_fn, v,
                                show_progress, error);
}

gboolean rbg_process_drawable(gint32 drawable_id, gboolean linear, gboolean native,
                              const char *title, RbgPixelsFn fn, const void *vals,
                              gboolean show_progress, gchar **error)
{
    gint x, y, w, h;
    RbgLayout layout;
    int last_pct = -1;

    /* The selection's bounding box on this drawable is the image the engine sees:
     * its edges are the filter's boundary; GIMP blends the selection mask in
     * gimp_drawable_merge_shadow. */
    if (!gimp_drawable_mask_intersect(drawable_id, &x, &y, &w, &h))
        return TRUE;  /* the selection misses this drawable: nothing to do */

    /* The drawable as stored, moved by libgimp's tiles without babl or GEGL
     * (rbg_tiles.c); else a GeglBuffer in the format rbg_layout* chose. */
    gboolean stored = native && rbg_layout_stored(drawable_id, linear, &layout);
    if (!stored) {
        rbg_gegl_ensure();
        if (!native || !rbg_layout_native(drawable_id, linear, &layout))
            rbg_layout(drawable_id, linear, &layout);
    }
    size_t pixel_bytes = stored ? rbg_layout_stored_pixel_bytes(&layout)
                                : (size_t)babl_format_get_bytes_per_pixel(layout.format);
    size_t bytes = (size_t)w * (size_t)h * pixel_bytes;
    /* One buffer, filtered in place (input and output share it); with a
     * progress callback, or 8/16-bit samples to convert, the blur adds its own
     * float working copy. The deblur engine holds two more region-sized float
     * buffers and two planes. */
    void *pixels = g_try_malloc(bytes);
    if (!pixels) {
        *error = g_strdup_printf("recblur: cannot allocate %.1f MiB for the %dx%d region",
                                 bytes / 1048576.0, w, h);
        return FALSE;
    }

    RbgStageTimes times;
    rbg_stage_times_start(&times);
    if (stored) {
        if (!rbg_tiles_read(drawable_id, x, y, w, h, &layout, pixels, error)) {
            g_free(pixels);
            return FALSE;
        }
    } else {
        GeglBuffer *src = gimp_drawable_get_buffer(drawable_id);
        gegl_buffer_get(src, GEGL_RECTANGLE(x, y, w, h), 1.0, layout.format, pixels,
                        GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
        g_object_unref(src);
    }
    rbg_stage_times_mark(&times, "read");

    if (show_progress)
        gimp_progress_init(title);
    gboolean ok = fn(vals, &layout, pixels, w, h, show_progress ? progress_cb : NULL, &last_pct,
                     NULL, error);
    rbg_stage_times_mark(&times, "engine");
    if (ok) {
        if (stored) {
            rbg_tiles_write_shadow(drawable_id, x, y, w, h, pixels);
            rbg_stage_times_mark(&times, "write+flush");
        } else {
            GeglBuffer *dst = gimp_drawable_get_shadow_buffer(drawable_id);
            gegl_buffer_set(dst, GEGL_RECTANGLE(x, y, w, h), 0, layout.format, pixels,
                            GEGL_AUTO_ROWSTRIDE);
            rbg_stage_times_mark(&times, "write");
            g_object_unref(dst);   /* flushes the shadow tiles to GIMP */
            rbg_stage_times_mark(&times, "flush");
        }
        gimp_drawable_merge_shadow(drawable_id, TRUE);
        rbg_stage_times_mark(&times, "merge");
        gimp_drawable_update(drawable_id, x, y, w, h);
        if (show_progress)
            gimp_progress_update(1.0);
        rbg_stage_times_mark(&times, "update");
    }
    g_free(pixels);
    rbg_stage_times_report(&times, w, h);
    return ok;
}
