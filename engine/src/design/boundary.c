/* Boundary modes: names, parsing, and the one C copy of the line extension. */
#include "rb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

long rb_extend_index(long k, long n, rb_boundary_mode mode)
{
    if (k >= 0 && k < n)
        return k;
    switch (mode) {
    case RB_BOUNDARY_CLAMP:
        return k < 0 ? 0 : n - 1;
    case RB_BOUNDARY_PERIODIC:
        k %= n;
        return k < 0 ? k + n : k;
    case RB_BOUNDARY_MIRROR: /* period 2n, the edge sample repeated (half-sample symmetric) */
        k %= 2 * n;
        if (k < 0)
            k += 2 * n;
        return k < n ? k : 2 * n - 1 - k;
    case RB_BOUNDARY_ZERO:
    case RB_BOUNDARY_CONSTANT:
    case RB_BOUNDARY_NONE:
        break;
    }
    return -1;
}

static const char *const valid_forms =
    "zero, constant=V, clamp, periodic (or tileable), mirror, none";

const char *rb_boundary_name(rb_boundary_mode mode)
{
    switch (mode) {
    case RB_BOUNDARY_ZERO: return "zero";
    case RB_BOUNDARY_CONSTANT: return "constant";
    case RB_BOUNDARY_CLAMP: return "clamp";
    case RB_BOUNDARY_PERIODIC: return "periodic";
    case RB_BOUNDARY_MIRROR: return "mirror";
    case RB_BOUNDARY_NONE: return "none";
    }
    return "unknown";
}

rb_status rb_boundary_parse(rb_context *ctx, const char *text, rb_boundary *out)
{
    if (!text || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_boundary_parse: NULL argument");
    while (isspace((unsigned char)*text))
        text++;
    size_t len = strlen(text);
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    rb_boundary b = {RB_BOUNDARY_ZERO, 0.0f};
#define IS(word) (len == strlen(word) && !strncasecmp(text, word, len))
    if (IS("zero"))
        b.mode = RB_BOUNDARY_ZERO;
    else if (IS("clamp"))
        b.mode = RB_BOUNDARY_CLAMP;
    else if (IS("periodic") || IS("tileable"))
        b.mode = RB_BOUNDARY_PERIODIC;
    else if (IS("mirror"))
        b.mode = RB_BOUNDARY_MIRROR;
    else if (IS("none"))
        b.mode = RB_BOUNDARY_NONE;
    else if (len > 9 && !strncasecmp(text, "constant=", 9)) {
        char buf[64];
        size_t vl = len - 9;
        if (vl >= sizeof buf)
            return rb_error(ctx, RB_ERR_PARSE, "boundary \"%.*s\": value too long", (int)len, text);
        memcpy(buf, text + 9, vl);
        buf[vl] = 0;
        char *end = NULL;
        errno = 0;
        double v = strtod(buf, &end);
        while (end && isspace((unsigned char)*end))
            end++;
        if (end == buf || !end || *end)
            return rb_error(ctx, RB_ERR_PARSE, "boundary \"%.*s\": \"%s\" is not a number (valid: %s)",
                            (int)len, text, buf, valid_forms);
        if (!isfinite(v) || fabs(v) > 3.4e38)
            return rb_error(ctx, RB_ERR_PARSE,
                            "boundary \"%.*s\": the constant must be a finite float (valid: %s)",
                            (int)len, text, valid_forms);
        b.mode = RB_BOUNDARY_CONSTANT;
        b.value = (float)v;
    } else
        return rb_error(ctx, RB_ERR_PARSE, "boundary \"%.*s\": unknown (valid: %s)", (int)len, text,
                        valid_forms);
#undef IS
    *out = b;
    return RB_OK;
}
