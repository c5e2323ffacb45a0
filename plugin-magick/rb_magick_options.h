/* Options of the ImageMagick `recblur` filter: the words after `-process 'recblur ...'`
 * and the `-define recblur:KEY=VALUE` settings, parsed into one request.
 * Pure C on the public engine API (no ImageMagick types), so it is testable alone. */
#ifndef RB_MAGICK_OPTIONS_H
#define RB_MAGICK_OPTIONS_H

#include "recblur.h"

/* Which channels are written back (the others keep their values). */
enum {
    RB_MAGICK_CH_RED = 1, RB_MAGICK_CH_GREEN = 2, RB_MAGICK_CH_BLUE = 4,
    RB_MAGICK_CH_ALPHA = 8, RB_MAGICK_CH_BLACK = 16,
    RB_MAGICK_CH_ALL = 31
};

typedef struct {
    /* The operation (blur, filter, bspline, box or deblur) and its settings,
     * keys and values as the engine's operation table declares them. */
    rb_settings settings;
    int has_boundary;             /* 0: the caller picks (from the image's virtual-pixel method) */
    int channels;                 /* RB_MAGICK_CH_* mask */
    int has_channels;             /* channel= was given */
    char deblur_preset[512];      /* op deblur: NAME or path of a .deblur preset; "" = design */
} rb_magick_options;

/* One `-define recblur:KEY=VALUE`, KEY without the "recblur:" prefix. */
typedef struct {
    const char *key;
    const char *value;
} rb_magick_define;

/* Parse defines (applied first) and then the -process words (which override them).
 * ctx is used for the engine's own parsers (boundary, backend, presets).
 * On failure returns non-zero and writes a one-line message naming the bad word
 * (followed by the usage) into err. */
int rb_magick_options_parse(rb_context *ctx, const rb_magick_define *defines, int ndefines,
                            int argc, const char **argv, rb_magick_options *out,
                            char *err, size_t err_len);

/* The usage text shown with every argument error. */
const char *rb_magick_usage(void);


#endif /* RB_MAGICK_OPTIONS_H */
