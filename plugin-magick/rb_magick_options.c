/* Parsing of the `recblur` filter's words and -define settings; see rb_magick_options.h.
 * Order of precedence: -process words > -define recblur:KEY > preset > defaults.
 * Every key but op, preset and channel is a setting of the engine's operation
 * table, parsed by the engine (rb_settings_set): this file only maps words. */
#include "rb_magick_options.h"
#include "recblur_deblur.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VALUE_MAX 600
#define MAX_WORDS 64

/* The operations this module runs (sat and design-deblur write no image). */
static const rb_op_id module_ops[] = {RB_OP_BLUR, RB_OP_FILTER, RB_OP_BSPLINE, RB_OP_BOX, RB_OP_DEBLUR};
#define N_MODULE_OPS ((int)(sizeof module_ops / sizeof module_ops[0]))

/* The module's own keys (not operation settings). */
static const char *const own_keys[] = {"op", "preset", "channel"};

typedef struct {
    char key[64];
    char value[VALUE_MAX];
    int layer;        /* 0: -define, 1: -process word */
} word;

typedef struct {
    int n;
    word w[MAX_WORDS];
} words;

const char *rb_magick_usage(void)
{
    /* generated once from the table: the keys each operation takes */
    static char usage[2048];
    if (usage[0])
        return usage;
    size_t at = (size_t)snprintf(usage, sizeof usage,
                                 "usage: -process 'recblur SIGMA [BOUNDARY]' or -process 'recblur KEY=VALUE ...' "
                                 "with op=blur|filter|bspline|box|deblur and its keys:");
    for (int i = 0; i < N_MODULE_OPS && at < sizeof usage; i++) {
        const rb_op_desc *op = rb_op_get(module_ops[i]);
        at += (size_t)snprintf(usage + at, sizeof usage - at, " op=%s:", op->name);
        for (int k = 0; k < op->n_settings && at < sizeof usage; k++) {
            const rb_setting_desc *d = op->settings[k];
            /* the keys every op shares are listed once, at the end */
            if (rb_op_setting(rb_op_get(RB_OP_SAT), d->key) || !strcmp(d->key, "boundary") ||
                !strcmp(d->key, "linear"))
                continue;
            at += (size_t)snprintf(usage + at, sizeof usage - at, " %s", d->key);
        }
        if (at < sizeof usage)
            at += (size_t)snprintf(usage + at, sizeof usage - at, ";");
    }
    if (at < sizeof usage)
        snprintf(usage + at, sizeof usage - at,
                 " any op: boundary=zero|constant=V|clamp|periodic|mirror|none, backend=auto|cpu|cuda, "
                 "threads=N, linear=yes|no (blur, filter, bspline), preset=NAME (a .preset, or a .deblur for op=deblur), channel=RGBAK letters; "
                 "the same keys as -define recblur:KEY=VALUE");
    return usage;
}

static int fail(char *err, size_t err_len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "recblur: <problem>; usage: ..." so a user sees the fix next to the mistake. */
static int fail(char *err, size_t err_len, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && err_len)
        snprintf(err, err_len, "recblur: %s; %s", msg, rb_magick_usage());
    return 1;
}

/* Engine errors already read "recblur: ..."; keep them and add the usage. */
static int fail_engine(char *err, size_t err_len, rb_context *ctx)
{
    if (err && err_len)
        snprintf(err, err_len, "%s; %s", rb_context_error(ctx), rb_magick_usage());
    return 1;
}

static int known_key(const char *key)
{
    for (size_t i = 0; i < sizeof own_keys / sizeof own_keys[0]; i++)
        if (!strcasecmp(key, own_keys[i]))
            return 1;
    return rb_setting_find(key) != NULL;
}

/* The last value given for key (words override defines), or NULL. */
static const word *last(const words *ws, const char *key)
{
    const word *found = NULL;
    for (int i = 0; i < ws->n; i++)
        if (!strcasecmp(ws->w[i].key, key) && (!found || ws->w[i].layer >= found->layer))
            found = &ws->w[i];
    return found;
}

/* Copy value, dropping one pair of surrounding quotes ("..." or '...'). */
static int add(words *ws, const char *key, size_t klen, const char *value, size_t len, int layer,
               char *err, size_t err_len)
{
    if (len >= 2 && (value[0] == '"' || value[0] == '\'') && value[len - 1] == value[0]) {
        value++;
        len -= 2;
    }
    if (ws->n == MAX_WORDS)
        return fail(err, err_len, "too many settings");
    word *w = &ws->w[ws->n];
    if (klen >= sizeof w->key)
        return fail(err, err_len, "unknown key '%.*s'", (int)(klen > 60 ? 60 : klen), key);
    memcpy(w->key, key, klen);
    w->key[klen] = 0;
    if (len >= VALUE_MAX)
        return fail(err, err_len, "value of %s is too long (%zu characters)", w->key, len);
    memcpy(w->value, value, len);
    w->value[len] = '\0';
    w->layer = layer;
    ws->n++;
    return 0;
}

/* Channel letters: R G B A K (C M Y are R G B of a CMYK image; "gray" = R). */
static int parse_channels(const char *text, int *out)
{
    int mask = 0;
    if (strcasecmp(text, "all") == 0) { *out = RB_MAGICK_CH_ALL; return 1; }
    if (strcasecmp(text, "gray") == 0) { *out = RB_MAGICK_CH_RED; return 1; }
    if (!*text)
        return 0;
    for (const char *p = text; *p; p++) {
        switch (tolower((unsigned char)*p)) {
        case 'r': case 'c': mask |= RB_MAGICK_CH_RED; break;
        case 'g': case 'm': mask |= RB_MAGICK_CH_GREEN; break;
        case 'b': case 'y': mask |= RB_MAGICK_CH_BLUE; break;
        case 'a': case 'o': mask |= RB_MAGICK_CH_ALPHA; break;
        case 'k': mask |= RB_MAGICK_CH_BLACK; break;
        case ',': break;
        default: return 0;
        }
    }
    *out = mask;
    return mask != 0;
}

/* An op this module runs, by name or alias; NULL when none. */
static const rb_op_desc *module_op(const char *name, const char **fixed_key, const char **fixed_value)
{
    const rb_op_desc *op = rb_op_find(name, fixed_key, fixed_value);
    for (int i = 0; op && i < N_MODULE_OPS; i++)
        if (op->id == module_ops[i])
            return op;
    return NULL;
}

/* Split "KEY=VALUE" words; a value opened with a quote that ImageMagick split at
 * spaces (it groups quotes only at the start of a word) is joined back. */
static int collect_words(int argc, const char **argv, words *ws, char *err, size_t err_len)
{
    int positional = 0;
    for (int i = 0; i < argc; i++) {
        const char *w = argv[i];
        if (!w)
            return fail(err, err_len, "argument %d is missing", i + 1);
        if (!*w)
            continue;
        const char *eq = strchr(w, '=');
        if (!eq) {
            if (positional == 0) {
                double sigma;
                if (rb_parse_number(w, &sigma))
                    return fail(err, err_len,
                                "'%s' is not a number (the first plain word is SIGMA, the second "
                                "BOUNDARY; other settings are KEY=VALUE)", w);
                if (add(ws, "sigma", 5, w, strlen(w), 1, err, err_len))
                    return 1;
            } else if (positional == 1) {
                if (add(ws, "boundary", 8, w, strlen(w), 1, err, err_len))
                    return 1;
            } else {
                return fail(err, err_len,
                            "unexpected word '%s' (plain words are SIGMA then BOUNDARY; "
                            "other settings are KEY=VALUE)", w);
            }
            positional++;
            continue;
        }
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(eq - w), w);
        if ((size_t)(eq - w) >= sizeof key || !known_key(key))
            return fail(err, err_len, "unknown key '%.*s'", (int)(eq - w), w);
        const char *value = eq + 1;
        char joined[VALUE_MAX];
        size_t vlen = strlen(value);
        if ((value[0] == '"' || value[0] == '\'') && (vlen < 2 || value[vlen - 1] != value[0])) {
            /* rejoin "0.2: 0.8" that arrived as two words */
            char quote = value[0];
            int n = snprintf(joined, sizeof joined, "%s", value);
            int closed = 0;
            while (!closed && i + 1 < argc && n > 0 && (size_t)n < sizeof joined) {
                const char *next = argv[++i];
                n += snprintf(joined + n, sizeof joined - (size_t)n, " %s", next ? next : "");
                size_t nl = next ? strlen(next) : 0;
                closed = nl > 0 && next[nl - 1] == quote;
            }
            if (!closed)
                return fail(err, err_len, "unterminated quote in %s", key);
            value = joined;
            vlen = strlen(joined);
        }
        if (add(ws, key, strlen(key), value, vlen, 1, err, err_len))
            return 1;
    }
    return 0;
}

/* The operation the keys imply: each setting that belongs to one of this
 * module's ops only names that op. NULL (and *mixed) when they disagree. */
static const rb_op_desc *implied_op(const words *ws, int *mixed)
{
    const rb_op_desc *implied = NULL;
    *mixed = 0;
    for (int i = 0; i < ws->n; i++) {
        const rb_op_desc *only = NULL;
        int owners = 0;
        for (int k = 0; k < N_MODULE_OPS; k++)
            if (rb_op_setting(rb_op_get(module_ops[k]), ws->w[i].key)) {
                owners++;
                only = rb_op_get(module_ops[k]);
            }
        if (owners != 1)
            continue;
        if (implied && implied != only)
            *mixed = 1;
        implied = only;
    }
    return *mixed ? NULL : implied;
}

/* preset=NAME: a .deblur preset (a designed deblur filter) or a .preset of
 * one of the module's ops. On success *op and *preset are set, or deblur. */
static int load_preset(rb_context *ctx, const char *name, const rb_op_desc *want, rb_magick_options *o,
                       rb_preset *preset, int *have_preset, char *err, size_t err_len)
{
    size_t nl = strlen(name);
    int deblur = (want && want->id == RB_OP_DEBLUR) ||
                 (!want && nl > 7 && strcmp(name + nl - 7, ".deblur") == 0);
    char first_err[1024] = "";
    *have_preset = 0;
    if (!deblur) {
        if (rb_preset_load(ctx, name, preset) == RB_OK) {
            if (!module_op(preset->settings.op->name, NULL, NULL))
                return fail(err, err_len, "preset '%s' has op '%s', which this module cannot run", name,
                            preset->settings.op->name);
            *have_preset = 1;
            return 0;
        }
        snprintf(first_err, sizeof first_err, "%s", rb_context_error(ctx));
        if (want)
            return fail_engine(err, err_len, ctx);
        /* perhaps NAME.deblur */
    }
    rb_deblur_filter *df = NULL;
    rb_boundary db;
    int has_db = 0;
    if (rb_deblur_preset_load(ctx, name, &df, &db, &has_db) != RB_OK) {
        if (first_err[0] && err && err_len)
            snprintf(err, err_len, "%s; no deblur preset '%s.deblur' either; %s", first_err, name,
                     rb_magick_usage());
        return first_err[0] ? 1 : fail_engine(err, err_len, ctx);
    }
    rb_deblur_filter_destroy(df);
    rb_settings_init(&o->settings, rb_op_get(RB_OP_DEBLUR));
    snprintf(o->deblur_preset, sizeof o->deblur_preset, "%s", name);
    if (has_db) {
        rb_settings_set_boundary(ctx, &o->settings, db);
        o->has_boundary = 1;
    }
    return 0;
}

/* rb_magick_options_parse with the words' storage. */
static int parse(rb_context *ctx, const rb_magick_define *defines, int ndefines, int argc,
                 const char **argv, words *ws, rb_magick_options *out, char *err, size_t err_len)
{
    for (int i = 0; i < ndefines; i++) {
        const char *key = defines[i].key ? defines[i].key : "";
        const char *value = defines[i].value ? defines[i].value : "";
        if (!known_key(key))
            return fail(err, err_len, "unknown define 'recblur:%s'", key);
        if (add(ws, key, strlen(key), value, strlen(value), 0, err, err_len))
            return 1;
    }
    if (collect_words(argc, argv, ws, err, err_len))
        return 1;

    rb_magick_options o;
    memset(&o, 0, sizeof o);
    o.channels = RB_MAGICK_CH_ALL;

    /* The operation: op=, else implied by the keys given, else the preset's, else blur. */
    const char *fixed_key = NULL, *fixed_value = NULL;
    const rb_op_desc *op = NULL;
    const word *op_word = last(ws, "op");
    if (op_word && !(op = module_op(op_word->value, &fixed_key, &fixed_value)))
        return fail(err, err_len, "unknown op '%s'", op_word->value);
    int mixed = 0;
    const rb_op_desc *implied = implied_op(ws, &mixed);
    if (!op && mixed)
        return fail(err, err_len, "sigma, signature, size and psf-sigma belong to different "
                                  "operations: give one of them (or op=)");

    /* Preset first: everything the user sets explicitly overrides it. */
    const word *preset_word = last(ws, "preset");
    rb_preset preset;
    int have_preset = 0;
    if (preset_word) {
        if (load_preset(ctx, preset_word->value, op, &o, &preset, &have_preset, err, err_len))
            return 1;
        if (!have_preset && !op)
            op = o.settings.op; /* a .deblur preset */
    }
    if (!op)
        op = implied ? implied : have_preset ? preset.settings.op : rb_op_get(RB_OP_BLUR);
    if (have_preset && preset.settings.op == op) {
        o.settings = preset.settings;
        o.has_boundary = rb_settings_given(&o.settings, "boundary");
    } else if (!o.deblur_preset[0] || op->id != RB_OP_DEBLUR) {
        if (have_preset)
            return fail(err, err_len, "preset '%s' is a %s preset, not op=%s", preset_word->value,
                        preset.settings.op->name, op->name);
        if (o.deblur_preset[0])
            return fail(err, err_len, "preset '%s' is a deblur preset, not op=%s", preset_word->value, op->name);
        rb_settings_init(&o.settings, op);
    }
    if (op->id == RB_OP_DEBLUR && preset_word && !o.deblur_preset[0])
        return fail(err, err_len, "op=deblur takes a .deblur preset; '%s' is not one", preset_word->value);

    /* Keys that do not belong to the chosen operation are a mistake, not a no-op. */
    for (int i = 0; i < ws->n; i++)
        if (rb_setting_find(ws->w[i].key) && !rb_op_setting(op, ws->w[i].key))
            return fail(err, err_len, "%s does not apply to op=%s", ws->w[i].key, op->name);

    /* defines, then words: each a layer over the one before */
    if (fixed_key && rb_settings_set(ctx, &o.settings, fixed_key, fixed_value) != RB_OK)
        return fail_engine(err, err_len, ctx);
    for (int layer = 0; layer < 2; layer++) {
        rb_settings_new_layer(&o.settings);
        for (int i = 0; i < ws->n; i++) {
            const word *w = &ws->w[i];
            if (w->layer != layer)
                continue;
            if (!strcasecmp(w->key, "channel")) {
                if (!parse_channels(w->value, &o.channels))
                    return fail(err, err_len, "channel '%s' is not letters of RGBAK (or CMYK, all, gray)",
                                w->value);
                o.has_channels = 1;
                continue;
            }
            if (!rb_setting_find(w->key))
                continue; /* op, preset */
            if (rb_settings_set(ctx, &o.settings, w->key, w->value) != RB_OK)
                return fail_engine(err, err_len, ctx);
            if (!strcasecmp(w->key, "boundary"))
                o.has_boundary = 1;
        }
    }

    /* what each op needs */
    const char *missing = rb_settings_missing(&o.settings);
    if (op->id == RB_OP_DEBLUR) {
        int designs = rb_settings_given(&o.settings, "psf-sigma") || rb_settings_given(&o.settings, "noise") ||
                      rb_settings_given(&o.settings, "window") || rb_settings_given(&o.settings, "fir-only");
        if (o.deblur_preset[0] && designs)
            return fail(err, err_len, "psf-sigma/noise/window design a filter; preset '%s' is "
                                      "already designed", o.deblur_preset);
        if (!o.deblur_preset[0] && missing)
            return fail(err, err_len, "op=deblur needs psf-sigma=S (a Gaussian PSF) or "
                                      "preset=NAME (a .deblur preset)");
    } else if (missing && op->id == RB_OP_BLUR) {
        return fail(err, err_len, "no sigma given (e.g. -process 'recblur 20')");
    } else if (missing) {
        const rb_setting_desc *d = rb_op_setting(op, missing);
        char allowed[160];
        return fail(err, err_len, "op=%s needs %s=VALUE (%s)", op->name, d->key,
                    d->type == RB_SETTING_TEXT ? d->help : rb_setting_allowed(d, allowed, sizeof allowed));
    }
    *out = o;
    return 0;
}

int rb_magick_options_parse(rb_context *ctx, const rb_magick_define *defines, int ndefines,
                            int argc, const char **argv, rb_magick_options *out,
                            char *err, size_t err_len)
{
    if (err && err_len)
        err[0] = '\0';
    if (!out)
        return fail(err, err_len, "internal error: no options to fill");
    /* 40 KB: off the stack of ImageMagick's thread */
    words *ws = calloc(1, sizeof *ws);
    if (!ws)
        return fail(err, err_len, "out of memory");
    int rc = parse(ctx, defines, ndefines, argc, argv, ws, out, err, err_len);
    free(ws);
    return rc;
}
