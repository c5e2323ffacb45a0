/* Setting sets: the values of one operation's settings, filled from text by
 * the one parser every front end shares, checked against the table's ranges,
 * with the table's defaults for what was not given (recblur_ops.h). */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "rb_internal.h"
#include "recblur_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void rb_settings_init(rb_settings *s, const rb_op_desc *op)
{
    memset(s, 0, sizeof *s);
    s->op = op;
    for (int i = 0; op && i < op->n_settings; i++) {
        const rb_setting_desc *d = op->settings[i];
        rb_setting_value *v = &s->value[i];
        v->number = d->def;
        if (d->type == RB_SETTING_TEXT && d->def_text)
            snprintf(v->text, sizeof v->text, "%s", d->def_text);
        v->boundary.mode = op->default_boundary;
        v->boundary.value = 0.0f;
    }
}

void rb_settings_new_layer(rb_settings *s)
{
    memset(s->in_layer, 0, sizeof s->in_layer);
}

/* Whether v lies in d's range (ZERO_OFF: 0 too; MIN_EXCLUSIVE: above min). */
static int in_range(const rb_setting_desc *d, double v)
{
    if ((d->flags & RB_SETTING_ZERO_OFF) && v == 0.0)
        return 1;
    if (d->flags & RB_SETTING_MIN_EXCLUSIVE)
        return v > d->min && v <= d->max;
    return v >= d->min && v <= d->max;
}

static rb_status bad(rb_context *ctx, const rb_setting_desc *d, const char *text, const char *why)
{
    char allowed[160];
    rb_setting_allowed(d, allowed, sizeof allowed);
    return rb_error(ctx, RB_ERR_PARSE, "bad %s '%.60s': %s (%s)", d->key, text, why, allowed);
}

/* text -> value by d's type; RB_OK or the one message of every front end. */
static rb_status parse_value(rb_context *ctx, const rb_setting_desc *d, const char *text,
                             rb_setting_value *v)
{
    switch (d->type) {
    case RB_SETTING_NUMBER: {
        double x;
        char buf[80];
        size_t n = strlen(text);
        int percent = (d->flags & RB_SETTING_PERCENT) && n > 1 && n < sizeof buf && text[n - 1] == '%';
        if (percent) {
            memcpy(buf, text, n - 1);
            buf[n - 1] = 0;
        }
        if (rb_parse_number(percent ? buf : text, &x))
            return bad(ctx, d, text, "not a number");
        if (percent)
            x /= 100.0;
        if (!in_range(d, x))
            return bad(ctx, d, text, "out of range");
        v->number = x;
        return RB_OK;
    }
    case RB_SETTING_INTEGER: {
        long x;
        if (rb_parse_integer(text, -2147483647L, 2147483647L, &x))
            return bad(ctx, d, text, "not a whole number");
        if (!in_range(d, (double)x))
            return bad(ctx, d, text, "out of range");
        v->number = (double)x;
        return RB_OK;
    }
    case RB_SETTING_BOOL: {
        int b;
        if (rb_parse_bool(text, &b))
            return rb_error(ctx, RB_ERR_PARSE, "bad %s '%.60s': not yes or no", d->key, text);
        v->number = b;
        return RB_OK;
    }
    case RB_SETTING_CHOICE:
        for (const rb_choice *c = d->choices; c->name; c++)
            if (!strcasecmp(text, c->name)) {
                v->number = c->value;
                return RB_OK;
            }
        /* "gpu" for the back end: the engine's own parser knows its aliases */
        if (!strcmp(d->key, "backend")) {
            rb_backend b;
            rb_context tmp;
            memset(&tmp, 0, sizeof tmp);
            if (rb_backend_parse(&tmp, text, &b) == RB_OK) {
                v->number = b;
                return RB_OK;
            }
        }
        if ((d->flags & RB_SETTING_OR_FILE) && text[0]) {
            if (strlen(text) >= sizeof v->text)
                return rb_error(ctx, RB_ERR_PARSE, "bad %s: file name longer than %zu characters",
                                d->key, sizeof v->text - 1);
            v->number = d->off;
            snprintf(v->text, sizeof v->text, "%s", text);
            return RB_OK;
        }
        return bad(ctx, d, text, "not allowed");
    case RB_SETTING_TEXT:
        if (strlen(text) >= sizeof v->text)
            return rb_error(ctx, RB_ERR_PARSE, "bad %s: longer than %zu characters", d->key,
                            sizeof v->text - 1);
        snprintf(v->text, sizeof v->text, "%s", text);
        return RB_OK;
    case RB_SETTING_BOUNDARY: {
        rb_context tmp;
        memset(&tmp, 0, sizeof tmp);
        if (rb_boundary_parse(&tmp, text, &v->boundary) != RB_OK) {
            const char *m = tmp.error;
            if (!strncmp(m, "recblur: ", 9))
                m += 9;
            return rb_error(ctx, RB_ERR_PARSE, "bad %s", m);
        }
        return RB_OK;
    }
    }
    return rb_error(ctx, RB_ERR_ARGUMENT, "setting %s: unknown type", d->key);
}

static void mark(rb_settings *s, int i)
{
    s->given[i] = 1;
    s->in_layer[i] = 1;
}

/* Store v at i; a shorthand fills the axes its layer has not set itself. */
static void store(rb_settings *s, int i, const rb_setting_value *v)
{
    const rb_setting_desc *d = s->op->settings[i];
    s->value[i] = *v;
    mark(s, i);
    if (d->flags & RB_SETTING_BOTH_AXES) {
        const char *axes[2] = {d->x_key, d->y_key};
        for (int a = 0; a < 2; a++) {
            int j = rb_op_setting_index(s->op, axes[a]);
            if (j >= 0 && !s->in_layer[j]) {
                s->value[j] = *v;
                s->given[j] = 1;
            }
        }
    }
}

static int find(rb_context *ctx, const rb_settings *s, const char *key, rb_status *st)
{
    if (!s || !s->op || !key) {
        *st = rb_error(ctx, RB_ERR_NULL, "rb_settings: NULL argument");
        return -1;
    }
    int i = rb_op_setting_index(s->op, key);
    if (i < 0)
        *st = rb_setting_find(key)
                  ? rb_error(ctx, RB_ERR_ARGUMENT, "key '%.60s' does not apply to op '%s'", key, s->op->name)
                  : rb_error(ctx, RB_ERR_ARGUMENT, "unknown key '%.60s'", key);
    return i;
}

rb_status rb_settings_set(rb_context *ctx, rb_settings *s, const char *key, const char *text)
{
    rb_status st = RB_OK;
    int i = find(ctx, s, key, &st);
    if (i < 0)
        return st;
    if (!text)
        return rb_error(ctx, RB_ERR_NULL, "rb_settings_set: NULL value for %s", key);
    rb_setting_value v = s->value[i];
    st = parse_value(ctx, s->op->settings[i], text, &v);
    if (st == RB_OK)
        store(s, i, &v);
    return st;
}

rb_status rb_settings_set_number(rb_context *ctx, rb_settings *s, const char *key, double x)
{
    rb_status st = RB_OK;
    int i = find(ctx, s, key, &st);
    if (i < 0)
        return st;
    const rb_setting_desc *d = s->op->settings[i];
    char text[64];
    snprintf(text, sizeof text, "%.15g", x); /* 0.3, not 0.29999999999999999 */
    double back;
    if (rb_parse_number(text, &back) == 0 && back != x)
        snprintf(text, sizeof text, "%.17g", x);
    if (d->type == RB_SETTING_CHOICE) {
        for (const rb_choice *c = d->choices; c->name; c++)
            if (c->value == x)
                return rb_settings_set(ctx, s, key, c->name);
        return bad(ctx, d, text, "not allowed");
    }
    if (d->type == RB_SETTING_BOOL)
        return rb_settings_set(ctx, s, key, x != 0.0 ? "yes" : "no");
    if (d->type != RB_SETTING_NUMBER && d->type != RB_SETTING_INTEGER)
        return rb_error(ctx, RB_ERR_ARGUMENT, "setting %s is not a number", key);
    if (!isfinite(x))
        return bad(ctx, d, text, "not a number");
    if (d->type == RB_SETTING_INTEGER && x != floor(x))
        return bad(ctx, d, text, "not a whole number");
    if (!in_range(d, x))
        return bad(ctx, d, text, "out of range");
    rb_setting_value v = s->value[i];
    v.number = x;
    store(s, i, &v);
    return RB_OK;
}

rb_status rb_settings_set_boundary(rb_context *ctx, rb_settings *s, rb_boundary b)
{
    rb_status st = RB_OK;
    int i = find(ctx, s, "boundary", &st);
    if (i < 0)
        return st;
    if ((unsigned)b.mode > RB_BOUNDARY_NONE)
        return rb_error(ctx, RB_ERR_PARSE, "bad boundary %d (zero, constant, clamp, periodic, mirror or none)",
                        (int)b.mode);
    if (!isfinite(b.value))
        return rb_error(ctx, RB_ERR_PARSE, "bad boundary constant: not a finite number");
    rb_setting_value v = s->value[i];
    v.boundary = b;
    store(s, i, &v);
    return RB_OK;
}

int rb_settings_given(const rb_settings *s, const char *key)
{
    int i = rb_op_setting_index(s ? s->op : NULL, key);
    return i >= 0 && s->given[i];
}

/* The value of key as resolved: an axis left out while its pair was given
 * takes the pair's `off`. NULL when the op has no such setting. */
static const rb_setting_value *resolved(const rb_settings *s, const char *key, double *off_value,
                                        int *is_off)
{
    *is_off = 0;
    int i = rb_op_setting_index(s ? s->op : NULL, key);
    if (i < 0)
        return NULL;
    const rb_setting_desc *d = s->op->settings[i];
    if (!s->given[i] && d->x_key && !(d->flags & RB_SETTING_BOTH_AXES)) {
        const rb_setting_desc *pair = rb_op_setting(s->op, d->x_key);
        const char *other = pair && !strcasecmp(pair->x_key, key) ? pair->y_key : pair ? pair->x_key : NULL;
        if (other && rb_settings_given(s, other)) {
            *is_off = 1;
            *off_value = d->off;
        }
    }
    return &s->value[i];
}

double rb_settings_number(const rb_settings *s, const char *key)
{
    double off;
    int is_off;
    const rb_setting_value *v = resolved(s, key, &off, &is_off);
    return !v ? 0.0 : is_off ? off : v->number;
}

int rb_settings_int(const rb_settings *s, const char *key)
{
    return (int)lround(rb_settings_number(s, key));
}

const char *rb_settings_text(const rb_settings *s, const char *key)
{
    double off;
    int is_off;
    const rb_setting_value *v = resolved(s, key, &off, &is_off);
    return v ? v->text : "";
}

rb_boundary rb_settings_boundary(const rb_settings *s)
{
    double off;
    int is_off;
    const rb_setting_value *v = resolved(s, "boundary", &off, &is_off);
    rb_boundary zero = {RB_BOUNDARY_ZERO, 0.0f};
    return v ? v->boundary : zero;
}

const char *rb_settings_missing(const rb_settings *s)
{
    for (int i = 0; s && s->op && i < s->op->n_settings; i++) {
        const rb_setting_desc *d = s->op->settings[i];
        if (!(d->flags & RB_SETTING_REQUIRED) || s->given[i])
            continue;
        /* an axis pair is given when either axis is */
        if ((d->flags & RB_SETTING_BOTH_AXES) &&
            (rb_settings_given(s, d->x_key) || rb_settings_given(s, d->y_key)))
            continue;
        return d->key;
    }
    return NULL;
}
