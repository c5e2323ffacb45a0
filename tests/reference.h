/* Independent float64 reference of recblur's filtering, for tests (the CPU
 * and GPU suites both use it). It shares nothing with the engine but the
 * public rb_axis_filter struct: it extends the signal by a long padding per
 * boundary mode (long enough for the impulse responses to die below 1e-15)
 * and runs the filter in its original signature form, causal then
 * anticausal, in long double; `none` is implemented from its definition.
 *
 *   ref_filter_line(&ax, RB_BOUNDARY_MIRROR, 0.0, x, y, n);
 *   ref_filter_image(&fx, &fy, boundary, in, out, w, h, ch);   // columns, then rows
 *
 * Images are interleaved doubles (y*w + x)*ch + c. A NULL axis is the
 * identity. Functions return 0 on success, -1 on allocation failure. */
#ifndef RB_TEST_REFERENCE_H
#define RB_TEST_REFERENCE_H

#include "recblur.h"

/* Padding (samples each side) the reference uses for this axis. */
long ref_padding(const rb_axis_filter *ax);

/* One line of n samples; cval is the outside value for RB_BOUNDARY_CONSTANT.
 * out may equal in. */
int ref_filter_line(const rb_axis_filter *ax, rb_boundary_mode mode, double cval, const double *in,
                    double *out, long n);

/* The infinite extension of the 2D image filtered by fy over columns, then by
 * fx over rows, sampled on the image (separable; the row pass of a constant
 * extension sees the column-filtered constant). out may equal in. */
int ref_filter_image(const rb_axis_filter *fx, const rb_axis_filter *fy, rb_boundary b,
                     const double *in, double *out, int w, int h, int ch);

/* Relative RMS difference sqrt(sum (a-b)^2 / sum b^2) (absolute when b is all 0). */
double ref_rel_rms(const double *a, const double *b, size_t count);

#endif
