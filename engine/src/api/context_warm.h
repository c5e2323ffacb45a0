/* rb_context_warm_up with the work given (api/context_warm.c): the tests
 * start a slow stand-in to check who waits for it, and no back end is needed. */
#ifndef RB_CONTEXT_WARM_H
#define RB_CONTEXT_WARM_H

#include "rb_internal.h"

typedef void (*rb_warm_fn)(void);

/* Start run() on the context's warm-up thread (nothing when one runs, or run
 * is NULL); RB_OK, or RB_ERR_NULL without a context. */
rb_status rb_context_warm_up_with(rb_context *ctx, rb_warm_fn run);

#endif
