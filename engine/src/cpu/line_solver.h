/* The exact 1D solver of one axis on a bundle of L lanes (lines solved side
 * by side): element i of lane l lives at buf[i*L + l], so every inner loop
 * runs over lanes and vectorises. Used by the CPU back end for columns and
 * rows alike, and by rb_recurrence_1d. */
#ifndef RB_LINE_SOLVER_H
#define RB_LINE_SOLVER_H

#include "rb_internal.h"

#include <stddef.h>

/* Lanes per bundle the callers use at most (the solver itself has no limit). */
#define RB_LINE_MAX_LANES 4096
/* Steps per chunk of the homogeneous corrections, and the per-lane
 * temporaries the solver keeps at the end of the work buffer. */
#define CHUNK 32
#define RB_LINE_TMP (RB_MAX_ORDER + CHUNK + 4 + 3 * RB_MAX_ORDER)

/* Samples inside a bundle: double, so the recurrences keep float32 accuracy
 * even for clustered poles close to the unit circle. */
typedef double rb_lane;

typedef struct {
    long lead;     /* elements stored before sample 0 in the input buffer */
    long in_len;   /* elements in the input buffer */
    long work_len; /* elements in the work buffer (always > 0: temporaries) */
} rb_line_layout;

void rb_line_layout_get(const rb_axis_plan *ap, rb_line_layout *lay);

/* x: lay.in_len * L rb_lanes; the caller stores the n samples of each lane at
 * x[(lay.lead + i) * L + l]. work: lay.work_len * L rb_lanes.
 * cval: per-lane value outside the line for CONSTANT (NULL = 0; ignored by
 * other modes). Both buffers are clobbered. Returns where the n results are
 * (stride L), inside x or work. */
rb_lane *rb_line_solve(const rb_axis_plan *ap, int L, rb_lane *x, rb_lane *work, const rb_lane *cval);
/* rb_line_solve for callers that fuse their gather and scatter with it (the
 * same results, two sweeps fewer). sum (NULL: computed here): per-lane sums
 * of the n samples, added in order i = 0..n-1 as the solver would.
 * offset (NULL: added here): receives the per-lane constant the caller must
 * add to every result (0 where there is none), instead of the solver adding it. */
/* sink (NULL: none): called once per result i = 0..n-1 with its L lanes
 * (offset not added), where the mode allows right as the anticausal pass
 * produces it (i descending, while the row is in L1), else after the solve;
 * needs offset. */
typedef void (*rb_line_sink)(void *user, ptrdiff_t i, const rb_lane *lanes);
rb_lane *rb_line_solve_ex(const rb_axis_plan *ap, int L, rb_lane *x, rb_lane *work,
                          const rb_lane *cval, const rb_lane *sum, rb_lane *offset,
                          rb_line_sink sink, void *user);

#endif
