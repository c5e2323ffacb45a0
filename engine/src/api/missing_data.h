/* Missing data (NaN samples) filtered by normalised convolution: the one
 * place that knows how (missing_data.c). rb_execute, rb_box_filter and the
 * deblur filter call it when the context's NaN mode is RB_NAN_MISSING. */
#ifndef RB_MISSING_DATA_H
#define RB_MISSING_DATA_H

#include "rb_internal.h"

/* Below this fraction of the filter's DC gain the filtered validity weight
 * F(w) is "no valid data in reach": the output is NaN. F(w) is computed in
 * float32 with an absolute error of a few ulp of the DC gain (~1e-7 of it);
 * at 1e-5 the quotient F(w x)/F(w) is still good to about 1 %, below it the
 * quotient would be mostly rounding noise. */
#define RB_MISSING_MIN_WEIGHT 1e-5

/* A sample of the impulse response below -RB_MISSING_NEGATIVE_LOBE times its
 * peak makes a filter "not positive": normalised filtering is refused. The
 * true Gaussian is positive, but its recursive designs dip slightly in the
 * tail (measured: -1.31e-4 of the peak at about 5.4 sigma for the default
 * design, -1.4e-6 for the accurate one), an artefact within the design's
 * L1 error budget of 1e-3, which is this tolerance. The cubic B-spline
 * prefilter's first lobe is -0.27 of its peak, "1: -0.5" -0.5. */
#define RB_MISSING_NEGATIVE_LOBE 1e-3

/* Number of NaN samples of img to filter as missing data: 0 when the
 * context propagates NaN or img is not F32 in host memory (U8/U16 hold no
 * NaN, device memory is not scanned). Every execute pays this read of the
 * input, so it runs on the context's threads. */
uint64_t rb_missing_count(const rb_context *ctx, const rb_image *img);

/* Filter img (F32, host, no alpha, no sRGB, no NaN) in place with the
 * caller's linear filter and boundary b. */
typedef rb_status (*rb_missing_filter_fn)(void *user, rb_boundary b, rb_image *img);

typedef struct {
    rb_missing_filter_fn run;
    void *user;
    rb_boundary boundary;     /* the boundary the user asked for */
    double dc_gain;           /* the 2D filter's response to a constant 1 */
    int linear_light;         /* decode sRGB input as rb_execute would */
    const float *extension;   /* zero / constant: G = F_1(0) (one value per pixel) when the
                                 caller keeps it (a plan's cache); NULL: computed here */
} rb_missing_filter;

/* Check weights (not RB_WEIGHTS_NONE) against the input `in`: an image of
 * one channel and in's size in host memory with samples in [0,1], or an
 * input with an alpha channel. RB_OK or an error naming the problem. */
rb_status rb_weights_check(rb_context *ctx, const rb_weights *weights, const rb_image *in);

/* out = F(w x) / F(w) per channel (w: the validity, 1 for a number and 0 for
 * NaN (RB_NAN_MISSING), times the weights' value for the pixel; straight
 * alpha is premultiplied first, as the ordinary path does), with the
 * boundary conventions of docs/RELIABILITY.md: clamp, mirror and periodic
 * extend w x and w alike; zero and constant=c extend the data by 0 or c with
 * weight 1; none leaves both 0 outside. weights: NULL for NaN only (checked
 * by rb_weights_check otherwise). n_missing: rb_missing_count(ctx, in)
 * (0 in RB_NAN_PROPAGATE mode). */
rb_status rb_missing_filter_image(rb_context *ctx, const rb_missing_filter *f, const rb_image *in,
                                  const rb_weights *weights, rb_image *out, uint64_t n_missing);

/* rb_execute's missing-data route (and rb_execute_weighted's): refuses
 * filters with negative lobes, else rb_missing_filter_image with the plan's
 * filter. The plan's cache (rb_plan.missing) keeps the impulse-response
 * check, the sibling plans of the zero and constant-1 runs and G, so a plan
 * executed again pays only the filtering. */
rb_status rb_missing_execute(rb_plan *plan, const rb_image *in, const rb_weights *weights,
                             rb_image *out, uint64_t n_missing);
/* Frees plan->missing (rb_plan_destroy). */
void rb_missing_cache_free(rb_plan *plan);

/* rb_box_filter's missing-data route (a box is positive, DC gain 1). */
rb_status rb_missing_box(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                         const rb_image *in, const rb_weights *weights, rb_image *out,
                         uint64_t n_missing);

/* The refusal for an operation whose filter has negative lobes (`what`
 * names it) given NaN input in RB_NAN_MISSING mode. */
rb_status rb_missing_refuse(rb_context *ctx, const char *what, uint64_t n_missing);

/* Whether one axis' impulse response (FIR, causal, anticausal) has no
 * sample below -RB_MISSING_NEGATIVE_LOBE of its peak (computed in double
 * on a line long enough for its poles to decay). */
int rb_axis_is_positive(const rb_axis *ax);

#endif
