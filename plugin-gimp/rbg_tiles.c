/* The drawable's stored bytes through libgimp's own tile transfer, without
 * babl or GEGL in the plug-in.
 *
 * A GeglBuffer from gimp_drawable_get_buffer moves the same tiles over the
 * same wire (libgimp's plug-in tile backend), but it needs gegl_init, and
 * gegl_init's babl_init builds babl's conversion tables: about 0.2-0.3 s of
 * every call, a fifth of GIMP's own Gaussian Blur on a 6000x4000 image
 * (bench/RESULTS.md, "GIMP 2.10 call"). When the engine filters the drawable
 * as stored (8/16-bit sRGB, rbg_layout_native's case) nothing needs babl, so
 * this route reads and writes the tiles with libgimp's pixel regions and the
 * plug-in starts GEGL only for the other routes (rbg_gegl_ensure).
 *
 * The layout is decided from the image's precision and the drawable's type,
 * which the PDB tells without babl. The space is sRGB when the image has no
 * colour profile assigned (GIMP's built-in sRGB; for layers libgimp makes the
 * format's space from an assigned profile, so such images keep the babl
 * route, where rbg_layout_native looks at the space itself).
 *
 * The pixel-region calls are deprecated in 2.10 in favour of GeglBuffer;
 * 2.10's API is frozen, and GIMP 3 takes the GEGL operations instead. */
#define GIMP_DISABLE_DEPRECATION_WARNINGS
#include <string.h>
#include "rbg.h"

static gboolean gegl_started;

void rbg_gegl_ensure(void)
{
    if (gegl_started)
        return;
    /* The plug-in uses GEGL's buffers and babl, never a GEGL operation: an
     * empty operation path spares loading GEGL's 48 operation modules. */
    g_setenv("GEGL_PATH", "", TRUE);
    gegl_init(NULL, NULL);
    gegl_started = TRUE;
    rbg_stage_times_init_done();
}

gboolean rbg_layout_stored(gint32 drawable_id, gboolean linear, RbgLayout *out)
{
    if (gimp_drawable_is_indexed(drawable_id))
        return FALSE;
    gint32 image_id = gimp_item_get_image(drawable_id);
    GimpColorProfile *profile = gimp_image_get_color_profile(image_id);
    if (profile) {
        g_object_unref(profile);
        return FALSE;   /* babl's space for the profile: the GEGL route decides */
    }
    rb_format sample;
    gboolean gamma;
    switch (gimp_image_get_precision(image_id)) {
    case GIMP_PRECISION_U8_GAMMA:   sample = RB_U8;  gamma = TRUE;  break;
    case GIMP_PRECISION_U8_LINEAR:  sample = RB_U8;  gamma = FALSE; break;
    case GIMP_PRECISION_U16_GAMMA:  sample = RB_U16; gamma = TRUE;  break;
    case GIMP_PRECISION_U16_LINEAR: sample = RB_U16; gamma = FALSE; break;
    default:
        return FALSE;   /* 32-bit, half and float: babl's float route */
    }
    out->format = NULL;       /* no babl: the tiles move as stored */
    out->preview_u8 = NULL;
    return rbg_layout_as_stored(sample, gimp_drawable_is_gray(drawable_id),
                                gimp_drawable_has_alpha(drawable_id), gamma, linear, out);
}

gboolean rbg_tiles_read(gint32 drawable_id, int x, int y, int w, int h, const RbgLayout *layout,
                        void *pixels, gchar **error)
{
    /* the drawable's own bytes per pixel, not GIMP's 8-bit compatibility format */
    gimp_plugin_enable_precision();
    GimpDrawable *d = gimp_drawable_get(drawable_id);
    size_t want = rbg_layout_stored_pixel_bytes(layout);
    if (!d || d->bpp != want) {
        *error = g_strdup_printf("recblur: the drawable has %u bytes per pixel where its "
                                 "precision says %zu", d ? d->bpp : 0, want);
        if (d)
            gimp_drawable_detach(d);
        return FALSE;
    }
    GimpPixelRgn rgn;
    gimp_pixel_rgn_init(&rgn, d, x, y, w, h, FALSE, FALSE);
    gimp_pixel_rgn_get_rect(&rgn, pixels, x, y, w, h);
    gimp_drawable_detach(d);
    return TRUE;
}

/* Tile by tile rather than gimp_pixel_rgn_set_rect: a shadow tile that the
 * box covers whole is started zeroed (gimp_tile_ref_zero) instead of being
 * fetched from GIMP only to be overwritten; a partly covered one is fetched
 * (its other pixels are GIMP's to keep). */
void rbg_tiles_write_shadow(gint32 drawable_id, int x, int y, int w, int h, const void *pixels)
{
    GimpDrawable *d = gimp_drawable_get(drawable_id);
    const int tw = (int)gimp_tile_width(), th = (int)gimp_tile_height();
    const size_t bpp = d->bpp, row = (size_t)w * bpp;
    for (int ty = y - y % th; ty < y + h; ty += th) {
        for (int tx = x - x % tw; tx < x + w; tx += tw) {
            GimpTile *tile = gimp_drawable_get_tile2(d, TRUE, tx, ty);
            /* the part of the box in this tile */
            const int x0 = MAX(x, tx), y0 = MAX(y, ty);
            const int x1 = MIN(x + w, tx + (int)tile->ewidth), y1 = MIN(y + h, ty + (int)tile->eheight);
            if (x0 == tx && y0 == ty && x1 == tx + (int)tile->ewidth && y1 == ty + (int)tile->eheight)
                gimp_tile_ref_zero(tile);
            else
                gimp_tile_ref(tile);
            for (int r = y0; r < y1; r++)
                memcpy(tile->data + ((size_t)(r - ty) * tile->ewidth + (size_t)(x0 - tx)) * bpp,
                       (const guchar *)pixels + (size_t)(r - y) * row + (size_t)(x0 - x) * bpp,
                       (size_t)(x1 - x0) * bpp);
            gimp_tile_unref(tile, TRUE);
        }
    }
    gimp_drawable_flush(d);   /* the shadow tiles go back to GIMP */
    gimp_drawable_detach(d);
}
