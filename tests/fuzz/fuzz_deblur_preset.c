/* Fuzz target: deblur presets (*.deblur) through rb_deblur_preset_load (it
 * reads a file, so the bytes go to a temporary one). A preset that loads is
 * saved and loaded again: the round trip must give the same coefficients
 * bit for bit (they are written with 17 significant digits). */
#include "fuzz_util.h"
#include "recblur_deblur.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    char path[512], path2[600];
    rb_fuzz_write_temp(data, size, "deblur", path, sizeof path);
    rb_context *ctx = NULL;
    RB_FUZZ_CHECK(rb_context_create(&ctx) == RB_OK, "context");
    rb_deblur_filter *f = NULL;
    rb_boundary bd;
    int has_bd = 0;
    rb_status st = rb_deblur_preset_load(ctx, path, &f, &bd, &has_bd);
    if (st != RB_OK) {
        RB_FUZZ_CHECK(f == NULL, "failed load left a filter");
        RB_FUZZ_CHECK(rb_context_error(ctx)[0], "deblur preset refused without a message (status %d)", st);
    } else {
        int m = rb_deblur_filter_window(f);
        RB_FUZZ_CHECK(m >= RB_DEBLUR_MIN_WINDOW && m <= RB_DEBLUR_MAX_WINDOW, "window %d", m);
        (void)rb_deblur_filter_describe(f);
        snprintf(path2, sizeof path2, "%s.again.deblur", path);
        st = rb_deblur_preset_save(ctx, f, "fuzz round trip", has_bd ? &bd : NULL, path2);
        RB_FUZZ_CHECK(st == RB_OK, "save: %s", rb_context_error(ctx));
        rb_deblur_filter *g = NULL;
        st = rb_deblur_preset_load(ctx, path2, &g, &bd, &has_bd);
        RB_FUZZ_CHECK(st == RB_OK, "reload of a saved preset: %s", rb_context_error(ctx));
        RB_FUZZ_CHECK(rb_deblur_filter_window(g) == m, "window changed");
        for (int q = 0; q < 4; q++) {
            const double *a1, *b1, *a2, *b2;
            RB_FUZZ_CHECK(rb_deblur_filter_get(f, q, &a1, &b1) == RB_OK, "get");
            RB_FUZZ_CHECK(rb_deblur_filter_get(g, q, &a2, &b2) == RB_OK, "get");
            RB_FUZZ_CHECK(!memcmp(a1, a2, sizeof *a1 * (size_t)m * m) &&
                              !memcmp(b1, b2, sizeof *b1 * (size_t)m * m),
                          "quadrant %d changed in the save/load round trip", q);
        }
        rb_deblur_filter_destroy(g);
        rb_deblur_filter_destroy(f);
        unlink(path2);
    }
    rb_context_destroy(ctx);
    unlink(path);
    return 0;
}
