/* rb_context: back-end choice, threads, callbacks and the last error. */
#include "rb_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

rb_status rb_context_create(rb_context **out)
{
    if (!out)
        return RB_ERR_NULL;
    rb_context *ctx = calloc(1, sizeof *ctx);
    *out = ctx;
    if (!ctx)
        return RB_ERR_NOMEM;
    ctx->backend = RB_BACKEND_AUTO;
    rb_switches_read(&ctx->sw);
    return RB_OK;
}

void rb_context_drop_cached_plans(rb_context *ctx)
{
    if (ctx && ctx->oned_plan) {
        rb_plan_destroy(ctx->oned_plan);
        ctx->oned_plan = NULL;
    }
    if (ctx && ctx->sat_scratch) {
        ctx->sat_scratch_free(ctx->sat_scratch);
        ctx->sat_scratch = NULL;
    }
}

void rb_context_destroy(rb_context *ctx)
{
    rb_context_warm_wait(ctx); /* no thread outlives its context */
    rb_context_drop_cached_plans(ctx);
    free(ctx);
}

rb_status rb_context_set_backend(rb_context *ctx, rb_backend backend)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (backend != RB_BACKEND_AUTO && backend != RB_BACKEND_CPU && backend != RB_BACKEND_CUDA)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown back end %d (auto, cpu or cuda)",
                        (int)backend);
    rb_context_drop_cached_plans(ctx);
    ctx->backend = backend;
    return RB_OK;
}

rb_status rb_context_set_threads(rb_context *ctx, int threads)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (threads < 0 || threads > 4096)
        return rb_error(ctx, RB_ERR_ARGUMENT, "thread count %d out of range (0 = all cores, up to 4096)",
                        threads);
    rb_context_drop_cached_plans(ctx);
    ctx->threads = threads;
    return RB_OK;
}

rb_status rb_context_set_nan_mode(rb_context *ctx, rb_nan_mode mode)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (mode != RB_NAN_MISSING && mode != RB_NAN_PROPAGATE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown NaN mode %d (missing or propagate)", (int)mode);
    ctx->nan_mode = mode;
    return RB_OK;
}

void rb_context_set_progress(rb_context *ctx, rb_progress_fn fn, void *user)
{
    if (!ctx)
        return;
    ctx->progress = fn;
    ctx->progress_user = user;
}

void rb_context_set_log(rb_context *ctx, rb_log_fn fn, void *user)
{
    if (!ctx)
        return;
    ctx->log = fn;
    ctx->log_user = user;
}

const char *rb_context_error(const rb_context *ctx) { return ctx ? ctx->error : ""; }

int rb_context_thread_count(const rb_context *ctx)
{
    if (ctx && ctx->threads > 0)
        return ctx->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > 256)
        n = 256;
    return (int)n;
}

rb_status rb_backend_parse(rb_context *ctx, const char *text, rb_backend *out)
{
    if (!text || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_backend_parse: NULL argument");
    if (!strcasecmp(text, "auto"))
        *out = RB_BACKEND_AUTO;
    else if (!strcasecmp(text, "cpu"))
        *out = RB_BACKEND_CPU;
    else if (!strcasecmp(text, "cuda") || !strcasecmp(text, "gpu"))
        *out = RB_BACKEND_CUDA;
    else
        return rb_error(ctx, RB_ERR_PARSE, "back end \"%s\": unknown (use auto, cpu or cuda)", text);
    return RB_OK;
}

int rb_cuda_available(char *why, size_t why_len)
{
    const rb_backend_ops *cuda = rb_backend_cuda();
    if (!cuda) {
        if (why && why_len)
            snprintf(why, why_len, "recblur was built without the CUDA back end");
        return 0;
    }
    char tmp[256] = "";
    rb_status s = cuda->probe ? cuda->probe(tmp, sizeof tmp) : RB_ERR_BACKEND;
    if (why && why_len)
        snprintf(why, why_len, "%s", s == RB_OK ? "" : tmp);
    return s == RB_OK;
}
