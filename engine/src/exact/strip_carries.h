/* The column pass of a strip-streamed plan (api/stream.c): the block
 * carries of the 2011 paper (algorithms 4/5: zero-initialised passes inside
 * each block, then the blocks joined through r-vectors and the matrices
 * A_FB = A_F^b, A_RB = A_R^b) closed at the image's top and bottom with the
 * exact initial feedbacks of the 2016 paper (FORMULAS.md conventions).
 *
 * A "segment" is the part of a column's feedback domain one strip owns. The
 * domain is [-D, n + D): D = the FIR reach for zero/constant/clamp (u is
 * constant only beyond it, as in the line solver; the padded route's padding
 * beyond it is run at the close), 0 otherwise. Segment k is [b_k, b_k + len_k); the first
 * starts at -D, the last ends at n + D.
 *
 * Per lane (one column of one channel), states follow FORMULAS.md: a causal
 * state is [y_{b-r} .. y_{b-1}] before a segment, an anticausal state is
 * [z_e .. z_{e+r-1}] after it. Lanes are interleaved: value j of lane l at
 * v[j*L + l]. */
#ifndef RB_STRIP_CARRIES_H
#define RB_STRIP_CARRIES_H

#include "rb_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RB_STRIP_EXT = 0,        /* zero / constant / clamp: (35), (44) */
    RB_STRIP_EXT_PADDED,     /* the same on the padded route: steady states at +-pad */
    RB_STRIP_NONE,           /* zero states at both ends */
    RB_STRIP_PERIODIC,       /* (49), (51) */
    RB_STRIP_MIRROR          /* symmetric axis: (67) corrected, (72) */
} rb_strip_kind;

/* How a column axis plan streams; -1 with a reason in *why when it cannot. */
int rb_strip_kind_of(const rb_axis_plan *ap, const char **why);
/* D of the header comment for that kind. */
long rb_strip_domain_ext(const rb_axis_plan *ap, rb_strip_kind kind);

typedef struct {
    const rb_axis_plan *ap;
    rb_strip_kind kind;
    long L;                  /* lanes: width * channels */
    int K;                   /* segments */
    const long *seg_len;     /* K lengths (domain rows) */
    double *carry;           /* K * r * L: in, the head p_1 of each segment's zero-initialised
                                anticausal pass over the zero-initialised causal pass Yhat
                                (pass 1); out, the true anticausal state after each segment */
    const double *yend;      /* r * L: e_{-1}(Yhat), Yhat = F(0, u) over the whole domain */
    const double *C0, *C1;   /* EXT kinds: the FIR of the extension value at the top and the
                                bottom, fsum * c (per lane, mean-shifted like the samples) */
    const double *delta;     /* PERIODIC: the s0 first rows' input left out of pass 1 (their
                                FIR reaches across the top, to the bottom rows); NULL if s0 = 0 */
    long s0;
    double *p;               /* out: p(Y), the causal state at the domain's start, r * L */
} rb_strip_close_args;

/* Chain the carries (pass 1's heads) into the anticausal states the second
 * pass starts each segment from, and give p(Y). */
rb_status rb_strip_close(rb_context *ctx, rb_strip_close_args *a);

#ifdef __cplusplus
}
#endif

#endif
