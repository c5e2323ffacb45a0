/* Status texts and the context's error/log channels. */
#include "rb_internal.h"

#include <stdio.h>
#include <string.h>

const char *rb_status_string(rb_status status)
{
    switch (status) {
    case RB_OK: return "success";
    case RB_ERR_NULL: return "required pointer is NULL";
    case RB_ERR_ARGUMENT: return "invalid argument";
    case RB_ERR_SIZE: return "invalid image size";
    case RB_ERR_UNSTABLE: return "unstable filter";
    case RB_ERR_NAN: return "NaN or infinite value";
    case RB_ERR_PARSE: return "cannot parse text";
    case RB_ERR_PRESET: return "bad preset";
    case RB_ERR_NOMEM: return "out of memory";
    case RB_ERR_IO: return "input/output error";
    case RB_ERR_BACKEND: return "back end not available";
    case RB_ERR_DEVICE: return "GPU error";
    case RB_ERR_UNSUPPORTED: return "not supported";
    case RB_ERR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

rb_status rb_error(rb_context *ctx, rb_status status, const char *fmt, ...)
{
    if (ctx) {
        static const char prefix[] = "recblur: ";
        size_t np = sizeof prefix - 1;
        memcpy(ctx->error, prefix, np);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->error + np, sizeof ctx->error - np, fmt, ap);
        va_end(ap);
    }
    return status;
}

void rb_log(rb_context *ctx, const char *fmt, ...)
{
    if (!ctx || !ctx->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ctx->log(line, ctx->log_user);
}
