/* rb_filter_parse: a filter from its signature "b0, b1, ...: a1, a2, ..."
 * (the notation of Maleki & Burtscher 2018, PLR), mapped to the engine's
 * form FIR -> causal feedback -> anticausal feedback.
 *
 * Decisions: the colon is required (no colon is an error, so "0.5" is never
 * silently read as a gain or a feedback); an empty b side means b = [1]; one
 * pair of enclosing parentheses "(1: 1)" is accepted as in the paper; trailing
 * zero feedbacks are dropped, so "1: 0" is a pure FIR. */
#include "rb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_PARSE_MAX_B 64

/* Parse one comma-separated list of numbers in [s, e). Empty list allowed when
 * allow_empty. Returns RB_OK and the count, or an error quoting the text. */
static rb_status parse_list(rb_context *ctx, const char *sig, const char *s, const char *e,
                            double *vals, int max, int *count, int allow_empty, const char *side)
{
    const char *p = s;
    int n = 0;
    while (p < e && isspace((unsigned char)*p))
        p++;
    if (p == e) {
        if (allow_empty) {
            *count = 0;
            return RB_OK;
        }
        return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": no %s coefficients after ':'", sig, side);
    }
    for (;;) {
        while (p < e && isspace((unsigned char)*p))
            p++;
        if (p == e || *p == ',')
            return rb_error(ctx, RB_ERR_PARSE,
                            "signature \"%s\": missing number at column %d (in the %s coefficients)",
                            sig, (int)(p - sig) + 1, side);
        /* strtod needs a terminated string: copy the token */
        const char *q = p;
        while (q < e && *q != ',' && !isspace((unsigned char)*q))
            q++;
        char tok[128];
        size_t tl = (size_t)(q - p);
        if (tl >= sizeof tok)
            return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": number at column %d is too long", sig,
                            (int)(p - sig) + 1);
        memcpy(tok, p, tl);
        tok[tl] = 0;
        char *end = NULL;
        errno = 0;
        double v = strtod(tok, &end);
        if (end == tok || *end || strchr(tok, 'x') || strchr(tok, 'X'))
            return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": \"%s\" at column %d is not a number",
                            sig, tok, (int)(p - sig) + 1);
        if (!isfinite(v))
            return rb_error(ctx, RB_ERR_NAN,
                            "signature \"%s\": %s coefficient \"%s\" at column %d is not finite", sig,
                            side, tok, (int)(p - sig) + 1);
        if (n == max)
            return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": more than %d %s coefficients", sig,
                            max, side);
        vals[n++] = v;
        p = q;
        while (p < e && isspace((unsigned char)*p))
            p++;
        if (p == e)
            break;
        if (*p != ',')
            return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": unexpected '%c' at column %d", sig,
                            *p, (int)(p - sig) + 1);
        p++; /* past ',' */
    }
    *count = n;
    return RB_OK;
}

static const char *direction_name(rb_direction d)
{
    return d == RB_DIRECTION_CAUSAL ? "causal" : d == RB_DIRECTION_ANTICAUSAL ? "anticausal" : "both directions";
}

static const char *axes_name(rb_axes a) { return a == RB_AXES_X ? "x only" : a == RB_AXES_Y ? "y only" : "both axes"; }

rb_status rb_filter_parse(rb_context *ctx, const char *signature, rb_direction direction, rb_axes axes,
                          rb_filter **out)
{
    if (!signature || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_filter_parse: NULL argument");
    *out = NULL;
    if (direction != RB_DIRECTION_BOTH && direction != RB_DIRECTION_CAUSAL &&
        direction != RB_DIRECTION_ANTICAUSAL)
        return rb_error(ctx, RB_ERR_ARGUMENT, "rb_filter_parse: unknown direction %d", (int)direction);
    if (axes != RB_AXES_BOTH && axes != RB_AXES_X && axes != RB_AXES_Y)
        return rb_error(ctx, RB_ERR_ARGUMENT, "rb_filter_parse: unknown axes %d", (int)axes);
    if (strlen(signature) > 4000)
        return rb_error(ctx, RB_ERR_PARSE, "signature of %zu characters is too long",
                        strlen(signature));

    const char *s = signature, *e = signature + strlen(signature);
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (s == e)
        return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\" is empty (expected \"b0, b1, ...: a1, a2, ...\")",
                        signature);
    if (*s == '(' || e[-1] == ')') {
        if (!(*s == '(' && e[-1] == ')'))
            return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": unbalanced parenthesis", signature);
        s++;
        e--;
    }
    const char *colon = memchr(s, ':', (size_t)(e - s));
    if (!colon)
        return rb_error(ctx, RB_ERR_PARSE,
                        "signature \"%s\": missing ':' between the b and the a coefficients "
                        "(\"b0, b1, ...: a1, a2, ...\"; \": a1\" means b = 1)",
                        signature);
    if (memchr(colon + 1, ':', (size_t)(e - colon - 1)))
        return rb_error(ctx, RB_ERR_PARSE, "signature \"%s\": more than one ':'", signature);

    double b[RB_PARSE_MAX_B], a[RB_MAX_ORDER];
    int nb = 0, na = 0;
    rb_status st = parse_list(ctx, signature, s, colon, b, RB_PARSE_MAX_B, &nb, 1, "b");
    if (st != RB_OK)
        return st;
    st = parse_list(ctx, signature, colon + 1, e, a, RB_MAX_ORDER, &na, 0, "a");
    if (st != RB_OK)
        return st;
    if (nb == 0) {
        b[0] = 1.0;
        nb = 1;
    }
    int allzero = 1;
    for (int k = 0; k < nb; k++)
        if (b[k] != 0.0)
            allzero = 0;
    if (allzero)
        return rb_error(ctx, RB_ERR_ARGUMENT, "signature \"%s\": every b coefficient is zero (the output would be zero)",
                        signature);
    while (na > 0 && a[na - 1] == 0.0)
        na--;

    /* Our own stability check first, so the message quotes the signature. */
    double d[RB_MAX_ORDER], pole = 0.0;
    for (int k = 0; k < na; k++)
        d[k] = -a[k];
    if (!rb_feedback_is_stable(d, na, &pole))
        return rb_error(ctx, RB_ERR_UNSTABLE,
                        "signature \"%s\": unstable filter (largest pole modulus %.6g, on or outside the unit circle)",
                        signature, pole);

    /* FIR part in the engine's offsets: u[i] = sum fir[k - lo] x[i + k]. */
    double fir[2 * RB_PARSE_MAX_B - 1];
    rb_axis_filter ax;
    memset(&ax, 0, sizeof ax);
    if (direction == RB_DIRECTION_BOTH) {
        /* c = b * reverse(b): causal b then anticausal b, zero phase */
        int r = nb - 1;
        for (int m = -r; m <= r; m++) {
            int am = m < 0 ? -m : m;
            double acc = 0.0;
            for (int k = 0; k + am < nb; k++)
                acc += b[k] * b[k + am];
            fir[m + r] = acc;
        }
        ax.fir_lo = -r;
        ax.fir_hi = r;
        ax.causal_order = ax.anticausal_order = na;
        for (int k = 0; k < na; k++)
            ax.causal[k] = ax.anticausal[k] = a[k];
    } else if (direction == RB_DIRECTION_CAUSAL) {
        /* offset -j carries b_j */
        for (int j = 0; j < nb; j++)
            fir[nb - 1 - j] = b[j];
        ax.fir_lo = -(nb - 1);
        ax.fir_hi = 0;
        ax.causal_order = na;
        for (int k = 0; k < na; k++)
            ax.causal[k] = a[k];
    } else {
        for (int j = 0; j < nb; j++)
            fir[j] = b[j];
        ax.fir_lo = 0;
        ax.fir_hi = nb - 1;
        ax.anticausal_order = na;
        for (int k = 0; k < na; k++)
            ax.anticausal[k] = a[k];
    }
    int taps = ax.fir_hi - ax.fir_lo + 1;
    ax.fir = (taps == 1 && fir[0] == 1.0) ? NULL : fir;
    if (!ax.fir)
        ax.fir_lo = ax.fir_hi = 0;
    if (!ax.fir && na == 0)
        return rb_error(ctx, RB_ERR_ARGUMENT, "signature \"%s\" is the identity (b = 1, no feedback)", signature);

    rb_filter *f = NULL;
    st = rb_filter_create(ctx, axes == RB_AXES_Y ? NULL : &ax, axes == RB_AXES_X ? NULL : &ax, &f);
    if (st != RB_OK)
        return st;
    char what[64];
    if (na && ax.fir)
        snprintf(what, sizeof what, "order %d + %d-tap FIR", na, taps);
    else if (na)
        snprintf(what, sizeof what, "order %d", na);
    else
        snprintf(what, sizeof what, "%d-tap FIR", taps);
    snprintf(f->description, sizeof f->description, "signature \"%.120s\" (%s, %s): %s", signature,
             direction_name(direction), axes_name(axes), what);
    *out = f;
    return RB_OK;
}
