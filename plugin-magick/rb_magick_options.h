/* Options of the ImageMagick `recblur` filter: the words after `-process 'recblur ...'`
 * and the `-define recblur:KEY=VALUE` settings, parsed into one request.
 * Pure C on the public engine API (no ImageMagick types), so it is testable alone. */
#ifndef RB_MAGICK_OPTIONS_H
#define RB_MAGICK_OPTIONS_H

#include "recblur.h"

typedef enum {
    RB_MAGICK_OP_BLUR = 0,
    RB_MAGICK_OP_BSPLINE3,
    RB_MAGICK_OP_BSPLINE5,
    RB_MAGICK_OP_FILTER,
    RB_MAGICK_OP_SAT_BOX,
    RB_MAGICK_OP_DEBLUR           /* quadrant 2D IIR inverse of a PSF (recblur_deblur.h) */
} rb_magick_op;

/* Which channels are written back (the others keep their values). */
enum {
    RB_MAGICK_CH_RED = 1, RB_MAGICK_CH_GREEN = 2, RB_MAGICK_CH_BLUE = 4,
    RB_MAGICK_CH_ALPHA = 8, RB_MAGICK_CH_BLACK = 16,
    RB_MAGICK_CH_ALL = 31
};

typedef struct {
    rb_magick_op op;
    double sigma_x, sigma_y;      /* blur */
    int accurate;                 /* blur: RB_GAUSSIAN_ACCURATE */
    char signature[512];          /* filter */
    rb_direction direction;       /* filter */
    rb_axes axes;                 /* filter */
    int size_x, size_y;           /* sat-box */
    int has_boundary;             /* 0: the caller picks (from the image's virtual-pixel method) */
    rb_boundary boundary;
    rb_backend backend;
    int linear;                   /* filter sRGB-encoded colour in linear light */
    int channels;                 /* RB_MAGICK_CH_* mask */
    int has_channels;             /* channel= was given */
    /* deblur: a Gaussian PSF designed here, or a designed .deblur preset */
    double psf_sigma;             /* > 0 unless deblur_preset is set */
    double noise;                 /* noise standard deviation, [0,1] units */
    int window;                   /* quadrant window side m */
    char deblur_preset[512];      /* NAME or path of a .deblur preset; "" = design */
} rb_magick_options;

/* The `recblur deblur` command's defaults, which op=deblur mirrors. */
#define RB_MAGICK_DEBLUR_WINDOW 8
#define RB_MAGICK_DEBLUR_NOISE 0.005

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

/* "blur", "bspline3", ... */
const char *rb_magick_op_name(rb_magick_op op);

#endif /* RB_MAGICK_OPTIONS_H */
