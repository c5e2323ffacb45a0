/* Live preview. The filtered region is the same one the full run filters (the
 * selection box), so small regions preview exactly. Regions over
 * RBG_PREVIEW_EXACT_PIXELS filter only the visible area plus a margin to stay
 * responsive: there the crop's edges act as the boundary, which is close for
 * a Gaussian (margin 4 sigma) but approximate for periodic/mirror near the
 * image edges and for long-tailed custom filters. The final run is exact. */
#include <math.h>
#include "rbg_dialog.h"

static gboolean filter_fn(const void *vals, const RbgLayout *layout, float *pixels, int w, int h,
                          rb_progress_fn progress, void *user, gchar **backend, gchar **error)
{
    return rbg_filter_pixels(vals, layout, pixels, w, h, progress, user, backend, error);
}

static gint preview_margin(const RbgVals *v)
{
    if (v->operation == RBG_OP_GAUSSIAN) {
        double s = MAX(v->sigma_x, v->sigma_y);
        return (gint)MIN(ceil(4.0 * s) + 8.0, 100000.0);
    }
    return 64;
}

void rbg_preview_invalidated(GimpPreview *preview, RbgDialog *d)
{
    rbg_preview_render(preview, d->drawable_id, d->vals->linear, preview_margin(d->vals),
                       filter_fn, d->vals, d->backend_label, d->status_label);
}

void rbg_preview_render(GimpPreview *preview, gint32 drawable_id, gboolean linear, gint margin,
                        RbgPixelsFn fn, const void *vals, GtkWidget *backend_label,
                        GtkWidget *status_label)
{
    gint px, py, pw, ph, rx, ry, rw, rh;
    gint cx0, cy0, cx1, cy1;
    gchar *backend = NULL, *err = NULL;
    RbgLayout layout;

    gimp_preview_get_position(preview, &px, &py);
    gimp_preview_get_size(preview, &pw, &ph);
    if (!gimp_drawable_mask_intersect(drawable_id, &rx, &ry, &rw, &rh))
        return;

    if ((gint64)rw * rh <= RBG_PREVIEW_EXACT_PIXELS) {
        cx0 = rx; cy0 = ry; cx1 = rx + rw; cy1 = ry + rh;
    } else {
        gint m = margin;
        cx0 = MAX(rx, px - m);
        cy0 = MAX(ry, py - m);
        cx1 = MIN(rx + rw, px + pw + m);
        cy1 = MIN(ry + rh, py + ph + m);
    }
    /* The crop always holds what is shown. */
    cx0 = MIN(cx0, px); cy0 = MIN(cy0, py);
    cx1 = MAX(cx1, px + pw); cy1 = MAX(cy1, py + ph);
    gint cw = cx1 - cx0, ch = cy1 - cy0;

    rbg_layout(drawable_id, linear, &layout);
    float *pixels = g_try_malloc((size_t)cw * ch * layout.channels * sizeof(float));
    if (!pixels) {
        gtk_label_set_text(GTK_LABEL(status_label), "recblur: preview: out of memory");
        gimp_preview_draw(preview);
        return;
    }
    GeglBuffer *src = gimp_drawable_get_buffer(drawable_id);
    gegl_buffer_get(src, GEGL_RECTANGLE(cx0, cy0, cw, ch), 1.0, layout.format, pixels,
                    GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
    g_object_unref(src);

    if (fn(vals, &layout, pixels, cw, ch, NULL, NULL, &backend, &err)) {
        int bpp = babl_format_get_bytes_per_pixel(layout.preview_u8);
        guchar *u8 = g_malloc((size_t)pw * ph * bpp);
        const Babl *fish = babl_fish(layout.format, layout.preview_u8);
        for (gint r = 0; r < ph; r++) {
            const float *row = pixels + ((size_t)(py - cy0 + r) * cw + (px - cx0)) * layout.channels;
            babl_process(fish, row, u8 + (size_t)r * pw * bpp, pw);
        }
        gimp_preview_draw_buffer(preview, u8, pw * bpp);
        g_free(u8);
        gchar *text = g_strdup_printf("Back end in use: %s", backend);
        gtk_label_set_text(GTK_LABEL(backend_label), text);
        gtk_label_set_text(GTK_LABEL(status_label), "");
        g_free(text);
        g_free(backend);
    } else {
        gimp_preview_draw(preview);   /* the unfiltered drawable */
        gtk_label_set_text(GTK_LABEL(backend_label), "Back end in use: (none)");
        gtk_label_set_text(GTK_LABEL(status_label), err);
        g_free(err);
    }
    g_free(pixels);
}
