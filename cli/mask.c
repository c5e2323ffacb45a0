/* --mask: the weights of missing-data filtering (docs/RELIABILITY.md,
 * "Masks"): none, the input's alpha channel, or a gray image file of the
 * input's size read like any input (PNG, TIFF, PFM; 8/16-bit or float). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_mask_load(const cli_settings *s, const rb_image *in, cli_image *file, rb_weights *w,
                  char *err, size_t errlen)
{
    memset(file, 0, sizeof *file);
    w->image = NULL;
    w->source = rb_op_setting(s->op.op, "mask") ? (rb_weights_source)rb_settings_int(&s->op, "mask")
                                                : RB_WEIGHTS_NONE;
    if (w->source != RB_WEIGHTS_IMAGE)
        return 0;
    const char *path = rb_settings_text(&s->op, "mask");
    if (cli_image_read(path, file, err, errlen))
        return -1;
    const rb_image *m = &file->img;
    if (m->channels != 1) {
        snprintf(err, errlen, "--mask %.300s: %d channels; a mask is a gray image (one channel, "
                 "0 = unknown, 1 = valid)", path, m->channels);
        cli_image_free(file);
        return -1;
    }
    if (m->width != in->width || m->height != in->height) {
        snprintf(err, errlen, "--mask %.300s is %dx%d, the input %dx%d: they must be the same size",
                 path, m->width, m->height, in->width, in->height);
        cli_image_free(file);
        return -1;
    }
    w->image = m;
    return 0;
}
