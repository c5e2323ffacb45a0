/* Internal pieces of the quadrant 2D IIR deblur filter shared by its files:
 * the filter object, the stability/decay check, the CPU wavefront. */
#ifndef RB_DEBLUR_INTERNAL_H
#define RB_DEBLUR_INTERNAL_H

#include "rb_internal.h"
#include "recblur_deblur.h"

/* Side of the grid on which the recursive impulse response must decay. */
#define RB_DEBLUR_DECAY_GRID 512
/* Outer-half L1 / total L1 above this: unstable (or too slowly decaying). */
#define RB_DEBLUR_DECAY_REJECT 1e-6
/* The margin keeps the part of the response whose tail L1 is above this. */
#define RB_DEBLUR_DECAY_MARGIN 1e-6

struct rb_deblur_filter {
    int m;
    double *a[4], *b[4];         /* m*m each, owned */
    int decay[4];                /* decay radius of 1/B_q (pixels) */
    double fit_error;            /* designer's relative L2 fit error, -1 if none */
    char description[320];
};

/* A plan: what any back end needs to run the filter. */
typedef struct {
    int ra, ca;                  /* used extent of a: rows, columns */
    int rb, cb;                  /* used extent of b (the origin excluded) */
    float *a, *b;                /* ra x ca and rb x cb, row-major, as in the filter */
} rb_deblur_quad_coef;

struct rb_deblur_plan {
    rb_context *ctx;
    int m, width, height, channels;
    rb_boundary boundary;
    int margin;                  /* leading-side extension, see recblur_deblur.h */
    rb_deblur_quad_coef qc[4];
    const rb_backend_ops *backend; /* rb_backend_cpu: the wavefront of deblur_cpu.c; another:
                                      its deblur entry (cuda: rb_cuda_deblur_run) */
    char backend_name[64];
};

/* Quadrant q's scan signs: rows si, columns sj (+1: from the top / left). */
static inline int rb_deblur_si(int q) { return (q & 2) ? -1 : 1; }
static inline int rb_deblur_sj(int q) { return (q & 1) ? -1 : 1; }

/* Impulse response of 1/B (recursive part, b over an m x m window, b[0] ignored)
 * on the G x G quadrant grid: checks finiteness and decay; *radius gets the
 * Chebyshev radius past which the tail L1 is below RB_DEBLUR_DECAY_MARGIN of
 * the total. *outer gets the outer-half ratio. Returns 1 when stable. */
int rb_deblur_decay_check(const double *b, int m, int *radius, double *outer);

/* The CUDA back end's deblur entry (cuda/deblur/rb_cuda_deblur.cu; its
 * rb_backend_ops.deblur): work = the loaded input (interleaved floats, the plan's size),
 * cval = the constant boundary's working value per channel, acc = the sum of
 * the four quadrants (interleaved floats). RB_ERR_DEVICE with a message on
 * any CUDA error, with every device buffer freed. */
rb_status rb_cuda_deblur_run(rb_deblur_plan *p, const float *work, const float *cval, float *acc);

#endif
