/* recblur — deblurring with a non-separable 2D IIR filter: the sum of four
 * quadrant filters (Nikonorov, Fursov, Yakimov; see
 * /work/shared/papers/nikonorov-flexible-allocation-2d-iir-gpu-ru.txt).
 *
 *   rb_deblur_psf psf = { RB_DEBLUR_PSF_GAUSSIAN, 1.5 };
 *   rb_deblur_filter *f;  rb_deblur_plan *p;
 *   rb_deblur_design(ctx, &psf, 0.005, 8, 0, &f);         // Wiener-type inverse
 *   rb_boundary b = { RB_BOUNDARY_MIRROR, 0.0f };
 *   rb_deblur_plan_create(ctx, f, b, w, h, channels, &p);
 *   rb_deblur_execute(p, &in, &out);                      // in == out allowed
 *   rb_deblur_plan_destroy(p); rb_deblur_filter_destroy(f);
 *
 * The filter. Quadrant q (0..3) scans the image from one corner: q = 0 from
 * the top-left, 1 top-right, 2 bottom-left, 3 bottom-right. With (si, sj) =
 * (+1,+1), (+1,-1), (-1,+1), (-1,-1) for q = 0..3 and an m x m window,
 *
 *   y_q(i,j) = sum_{r1,r2=0..m-1} a_q(r1,r2) x(i - si r1, j - sj r2)
 *            + sum_{k1,k2=0..m-1, (k1,k2) != (0,0)} b_q(k1,k2) y_q(i - si k1, j - sj k2)
 *
 *   out(i,j) = y_0 + y_1 + y_2 + y_3          (i = row, j = column)
 *
 * The origin tap a_q(0,0) and the axis taps a_q(0,r2), a_q(r1,0) act on
 * pixels that two or four quadrants share; the engine simply sums, and the
 * designer splits the shared weights evenly (a quarter of the centre tap to
 * each quadrant, half of each axis tap to each of the two quadrants on it).
 * b_q(0,0) must be 0 (the recursion excludes the origin).
 *
 * Boundary. The recursion of each quadrant starts from a zero state `margin`
 * pixels before the image on its two leading sides; inside that margin the
 * input is the boundary extension of the image (rb_boundary: zero/none,
 * constant, clamp, mirror, periodic). The margin is chosen at plan time as
 * the window reach (m - 1) plus the radius past which the recursive part's
 * impulse response has decayed below 1e-7 of its L1 norm, so the result
 * equals filtering the infinite extension to that accuracy (exactly, for
 * zero/none, where the margin is 0).
 *
 * Stability. rb_deblur_filter_create rejects (RB_ERR_UNSTABLE) coefficient
 * sets whose recursive impulse response 1/B_q does not decay on a large grid
 * (the L1 norm of its outer half must be below 1e-6 of the whole), and
 * RB_ERR_NAN for NaN/Inf. The designer draws each B_q from a family that is
 * stable by construction (a product A(z1) A(z2) of two 1D polynomials whose
 * roots the Schur-Cohn test puts strictly inside the unit circle) and then
 * passes the same check.
 */
#ifndef RECBLUR_DEBLUR_H
#define RECBLUR_DEBLUR_H

#include "recblur.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Window side m: 2 .. RB_DEBLUR_MAX_WINDOW. */
#define RB_DEBLUR_MIN_WINDOW 2
#define RB_DEBLUR_MAX_WINDOW 64

typedef struct rb_deblur_filter rb_deblur_filter;
typedef struct rb_deblur_plan rb_deblur_plan;

/* a[q], b[q]: m*m doubles each, row-major, index r1*m + r2 (r1 along rows i,
 * r2 along columns j). b[q][0] must be 0. Copies the coefficients. */
rb_status rb_deblur_filter_create(rb_context *ctx, int m, const double *const a[4],
                                  const double *const b[4], rb_deblur_filter **out);
void rb_deblur_filter_destroy(rb_deblur_filter *filter);
int rb_deblur_filter_window(const rb_deblur_filter *filter);
/* Pointers into the filter (valid while it lives) to quadrant q's a and b windows. */
rb_status rb_deblur_filter_get(const rb_deblur_filter *filter, int q, const double **a,
                               const double **b);
/* Decay radius (pixels) of quadrant q's recursive part, found by the stability check. */
int rb_deblur_filter_decay(const rb_deblur_filter *filter, int q);
/* One line ("deblur gaussian psf sigma 1.5, noise 0.005: m=8, IIR poles ...") */
const char *rb_deblur_filter_describe(const rb_deblur_filter *filter);

/* ---------------------------------------------------------------- design */
typedef enum {
    RB_DEBLUR_PSF_GAUSSIAN = 0,   /* sampled, normalised Gaussian exp(-(x^2+y^2)/(2 sigma^2)),
                                     support |x|,|y| <= ceil(4 sigma) */
    RB_DEBLUR_PSF_KERNEL          /* kw x kh samples, odd sides, centre at (kw/2, kh/2),
                                     normalised to sum 1 by the designer */
} rb_deblur_psf_kind;

typedef struct {
    rb_deblur_psf_kind kind;
    double sigma;                 /* GAUSSIAN: 0.3 .. 20 */
    int kw, kh;                   /* KERNEL: odd, 1 .. 127 */
    const double *kernel;         /* KERNEL: row-major kh x kw, non-negative sum > 0 */
} rb_deblur_psf;

/* Design flags. */
#define RB_DEBLUR_DESIGN_FIR_ONLY 1u  /* b = 0: a pure (quadrant-split) FIR, for comparison */

/* Wiener-type inverse W = conj(H) / (|H|^2 + K), K = (noise / 0.1)^2, of the
 * PSF's transfer function H on a 256 x 256 grid (noise is the standard
 * deviation of white noise in [0,1] units, 0 .. 0.5; the 0.1 is the assumed
 * signal contrast). Its centred impulse response is split into quadrants and
 * each quadrant is fitted over the whole quadrant by a_q / B_q with
 * B_q(z1,z2) = A(z1) A(z2), A from a family of 1D denominators of order <= 2
 * with roots inside |z| <= 0.9 (stable by construction), plus A = 1, the pure
 * FIR; the candidate with the smallest residual wins. The residual is
 * weighted like the mean squared restoration error on natural images
 * (separable Markov correlation 0.95^(|dx|+|dy|) plus a white term), which
 * keeps the low frequencies, where images have their energy, right.
 * RB_DEBLUR_DESIGN_FIR_ONLY keeps only A = 1 (b = 0). */
rb_status rb_deblur_design(rb_context *ctx, const rb_deblur_psf *psf, double noise, int m,
                           unsigned flags, rb_deblur_filter **out);
/* Relative L2 error of the fitted impulse response against the Wiener inverse
 * (from the last design of this filter; -1 for filters not made by the designer). */
double rb_deblur_filter_fit_error(const rb_deblur_filter *filter);

/* ------------------------------------------------------------------ plan */
rb_status rb_deblur_plan_create(rb_context *ctx, const rb_deblur_filter *filter,
                                rb_boundary boundary, int width, int height, int channels,
                                rb_deblur_plan **out);
/* in, out: host images of the plan's size and channels; formats may differ;
 * in == out allowed. Every channel (alpha too) is filtered; U8/U16 output is
 * rounded and clamped. */
rb_status rb_deblur_execute(rb_deblur_plan *plan, const rb_image *in, rb_image *out);
void rb_deblur_plan_destroy(rb_deblur_plan *plan);
/* Margin (pixels) the plan extends the input by on each quadrant's leading sides. */
int rb_deblur_plan_margin(const rb_deblur_plan *plan);
const char *rb_deblur_plan_backend_name(const rb_deblur_plan *plan);

/* --------------------------------------------------------------- presets */
/* Deblur preset file (*.deblur), plain text:
 *   # comment
 *   recblur-deblur 1
 *   description = free text
 *   window = M
 *   boundary = mirror              (optional)
 *   a0 = v v v ...                 (m*m numbers, row-major) ... a3, b0 .. b3
 * name_or_path: a path (contains '/' or ends in ".deblur"), or NAME looked up as
 * NAME.deblur in $RECBLUR_PRESET_PATH, then the installed and source presets dirs.
 * Errors name the file and line. */
rb_status rb_deblur_preset_load(rb_context *ctx, const char *name_or_path,
                                rb_deblur_filter **out, rb_boundary *boundary, int *has_boundary);
rb_status rb_deblur_preset_save(rb_context *ctx, const rb_deblur_filter *filter,
                                const char *description, const rb_boundary *boundary,
                                const char *path);
/* Names of the .deblur presets on the search path (a name in an earlier
 * directory hides the same name later), sorted, for menus and listings, as
 * rb_preset_list does for .preset files. Returns the count; fills up to max. */
int rb_deblur_preset_list(char names[][128], int max);

#ifdef __cplusplus
}
#endif

#endif /* RECBLUR_DEBLUR_H */
