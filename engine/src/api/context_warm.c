/* rb_context_warm_up: the back end's one-time start (the CUDA device's
 * context: 220-330 ms on an H100) made on a thread while the caller does
 * something else (reads its image), instead of inside the first plan. The
 * thread is the context's: the first call that may reach a device joins it
 * (rb_context_warm_wait), and so does rb_context_destroy; nothing outlives the
 * context. */
#include "context_warm.h"

#include <pthread.h>
#include <stdlib.h>

struct rb_warm {
    pthread_t thread;
    rb_warm_fn run;
};

static void *warm_main(void *arg)
{
    ((struct rb_warm *)arg)->run();
    return NULL;
}

/* The back end the context may plan on that has something to start: cuda for
 * CUDA and AUTO (AUTO takes it whenever a device is usable), none for CPU. */
static rb_warm_fn warm_hook(const rb_context *ctx)
{
    if (ctx->backend == RB_BACKEND_CPU)
        return NULL;
    const rb_backend_ops *cuda = rb_backend_cuda();
    return cuda ? cuda->warm_up : NULL;
}

rb_status rb_context_warm_up(rb_context *ctx)
{
    return ctx ? rb_context_warm_up_with(ctx, warm_hook(ctx)) : RB_ERR_NULL;
}

rb_status rb_context_warm_up_with(rb_context *ctx, rb_warm_fn run)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (ctx->warm || !run)
        return RB_OK; /* already under way, or nothing to start */
    struct rb_warm *w = malloc(sizeof *w);
    if (!w)
        return RB_OK; /* the plan makes it then, as without warm-up */
    w->run = run;
    if (pthread_create(&w->thread, NULL, warm_main, w) != 0) {
        free(w);
        return RB_OK;
    }
    ctx->warm = w;
    return RB_OK;
}

void rb_context_warm_wait(rb_context *ctx)
{
    if (!ctx || !ctx->warm)
        return;
    pthread_join(ctx->warm->thread, NULL);
    free(ctx->warm);
    ctx->warm = NULL;
}
