/* The CPU back end's fast route (issue 8): both axes of a zero/constant/clamp
 * filter (closed form (35)/(44) or the padded route), or periodic/mirror (the
 * padded route on the wrapped line, where the padding fits), as two register-blocked
 * sweeps that convert the image samples on the fly and keep only a float32
 * intermediate, stored transposed so that both passes walk down columns. */
#ifndef RB_CPU_SWEEP_H
#define RB_CPU_SWEEP_H

#include "rb_internal.h"

/* 1 when rb_cpu_sweep_execute can run this plan on these images (host
 * memory, no straight alpha, no sRGB decoding, no progress callback, both
 * axes active with both passes, zero/constant/clamp boundaries or periodic/
 * mirror with transients shorter than the line (periodic not in place),
 * short FIR). */
int rb_cpu_sweep_ok(const rb_plan *plan, const rb_image *in, const rb_image *out);

/* Filter in -> out with nt threads. ccol, crow: the constant boundary per
 * channel in working units for the column and the row pass
 * (rb_plan_constants), ignored by other modes. */
rb_status rb_cpu_sweep_execute(rb_plan *plan, const rb_image *in, rb_image *out, int nt,
                               const float *ccol, const float *crow);

#endif
