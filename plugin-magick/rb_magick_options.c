/* Parsing of the `recblur` filter's words and -define settings; see rb_magick_options.h.
 * Order of precedence: -process words > -define recblur:KEY > preset > defaults. */
#include "rb_magick_options.h"
#include "recblur_deblur.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    K_SIGMA, K_SIGMA_X, K_SIGMA_Y, K_BOUNDARY, K_OP, K_SIGNATURE, K_DIRECTION, K_AXES,
    K_SIZE, K_SIZE_X, K_SIZE_Y, K_PRESET, K_BACKEND, K_LINEAR, K_ACCURATE, K_CHANNEL,
    K_PSF_SIGMA, K_NOISE, K_WINDOW,
    K_COUNT
};

static const char *const key_names[K_COUNT] = {
    "sigma", "sigma-x", "sigma-y", "boundary", "op", "signature", "direction", "axes",
    "size", "size-x", "size-y", "preset", "backend", "linear", "accurate", "channel",
    "psf-sigma", "noise", "window"
};

#define VALUE_MAX 600

typedef struct {
    int set[K_COUNT];
    char value[K_COUNT][VALUE_MAX];
} settings;

const char *rb_magick_usage(void)
{
    return "usage: -process 'recblur SIGMA [BOUNDARY]' or -process 'recblur KEY=VALUE ...' "
           "with keys sigma, sigma-x, sigma-y, boundary=zero|constant=V|clamp|periodic|mirror|none, "
           "op=blur|bspline3|bspline5|filter|sat-box|deblur, signature=\"b0,...: a1,...\", "
           "direction=both|causal|anticausal, axes=both|x|y, size, size-x, size-y, preset=NAME, "
           "psf-sigma=S noise=N window=M (op=deblur: Gaussian PSF sigma 0.3..20, noise 0..0.5 "
           "default 0.005, window 2..64 default 8; or preset=NAME of a .deblur preset), "
           "backend=auto|cpu|cuda, linear=yes|no, accurate=yes|no, channel=RGBAK letters; "
           "the same keys as -define recblur:KEY=VALUE";
}

const char *rb_magick_op_name(rb_magick_op op)
{
    switch (op) {
    case RB_MAGICK_OP_BLUR: return "blur";
    case RB_MAGICK_OP_BSPLINE3: return "bspline3";
    case RB_MAGICK_OP_BSPLINE5: return "bspline5";
    case RB_MAGICK_OP_FILTER: return "filter";
    case RB_MAGICK_OP_SAT_BOX: return "sat-box";
    case RB_MAGICK_OP_DEBLUR: return "deblur";
    }
    return "?";
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

static int find_key(const char *key, size_t len)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strlen(key_names[k]) == len && strncasecmp(key_names[k], key, len) == 0)
            return k;
    return -1;
}

/* Copy value, dropping one pair of surrounding quotes ("..." or '...'). */
static int store(settings *s, int k, const char *value, size_t len, char *err, size_t err_len)
{
    if (len >= 2 && (value[0] == '"' || value[0] == '\'') && value[len - 1] == value[0]) {
        value++;
        len -= 2;
    }
    if (len >= VALUE_MAX)
        return fail(err, err_len, "value of %s is too long (%zu characters)", key_names[k], len);
    memcpy(s->value[k], value, len);
    s->value[k][len] = '\0';
    s->set[k] = 1;
    return 0;
}

static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static int parse_int(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v < -2147483647L || v > 2147483647L)
        return 0;
    *out = (int)v;
    return 1;
}

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = { "yes", "true", "on", "1" };
    static const char *const no[] = { "no", "false", "off", "0" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0) { *out = 1; return 1; }
        if (strcasecmp(text, no[i]) == 0) { *out = 0; return 1; }
    }
    return 0;
}

/* A noise level as `recblur deblur --noise` takes it: 0.005 or 0.5%. */
static int parse_noise(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return 0;
    if (*end == '%') {
        v /= 100.0;
        end++;
    }
    if (*end != '\0' || v < 0.0 || v > 0.5)
        return 0;
    *out = v;
    return 1;
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

static int parse_op(const char *text, rb_magick_op *out)
{
    static const struct { const char *name; rb_magick_op op; } ops[] = {
        { "blur", RB_MAGICK_OP_BLUR }, { "gaussian", RB_MAGICK_OP_BLUR },
        { "bspline3", RB_MAGICK_OP_BSPLINE3 }, { "bspline5", RB_MAGICK_OP_BSPLINE5 },
        { "filter", RB_MAGICK_OP_FILTER },
        { "sat-box", RB_MAGICK_OP_SAT_BOX }, { "box", RB_MAGICK_OP_SAT_BOX },
        { "deblur", RB_MAGICK_OP_DEBLUR },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcasecmp(text, ops[i].name) == 0) { *out = ops[i].op; return 1; }
    return 0;
}

static int parse_direction(const char *text, rb_direction *out)
{
    if (strcasecmp(text, "both") == 0) *out = RB_DIRECTION_BOTH;
    else if (strcasecmp(text, "causal") == 0) *out = RB_DIRECTION_CAUSAL;
    else if (strcasecmp(text, "anticausal") == 0) *out = RB_DIRECTION_ANTICAUSAL;
    else return 0;
    return 1;
}

static int parse_axes(const char *text, rb_axes *out)
{
    if (strcasecmp(text, "both") == 0) *out = RB_AXES_BOTH;
    else if (strcasecmp(text, "x") == 0) *out = RB_AXES_X;
    else if (strcasecmp(text, "y") == 0) *out = RB_AXES_Y;
    else return 0;
    return 1;
}

/* Split "KEY=VALUE" words; a value opened with a quote that ImageMagick split at
 * spaces (it groups quotes only at the start of a word) is joined back. */
static int collect_words(int argc, const char **argv, settings *s, char *err, size_t err_len)
{
    int positional = 0;
    for (int i = 0; i < argc; i++) {
        const char *word = argv[i];
        if (!word)
            return fail(err, err_len, "argument %d is missing", i + 1);
        if (!*word)
            continue;
        const char *eq = strchr(word, '=');
        if (!eq) {
            if (positional == 0) {
                double sigma;
                if (!parse_double(word, &sigma))
                    return fail(err, err_len,
                                "'%s' is not a number (the first plain word is SIGMA, the second "
                                "BOUNDARY; other settings are KEY=VALUE)", word);
                if (store(s, K_SIGMA, word, strlen(word), err, err_len))
                    return 1;
            } else if (positional == 1) {
                if (store(s, K_BOUNDARY, word, strlen(word), err, err_len))
                    return 1;
            } else {
                return fail(err, err_len,
                            "unexpected word '%s' (plain words are SIGMA then BOUNDARY; "
                            "other settings are KEY=VALUE)", word);
            }
            positional++;
            continue;
        }
        int k = find_key(word, (size_t)(eq - word));
        if (k < 0)
            return fail(err, err_len, "unknown key '%.*s'", (int)(eq - word), word);
        const char *value = eq + 1;
        char joined[VALUE_MAX];
        size_t vlen = strlen(value);
        if ((value[0] == '"' || value[0] == '\'') &&
            (vlen < 2 || value[vlen - 1] != value[0])) {
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
                return fail(err, err_len, "unterminated quote in %s", key_names[k]);
            value = joined;
            vlen = strlen(joined);
        }
        if (store(s, k, value, vlen, err, err_len))
            return 1;
    }
    return 0;
}

static rb_magick_op op_from_preset(const rb_preset *p, int *ok)
{
    *ok = 1;
    if (!p->op[0] || strcasecmp(p->op, "blur") == 0)
        return RB_MAGICK_OP_BLUR;
    if (strcasecmp(p->op, "filter") == 0)
        return RB_MAGICK_OP_FILTER;
    if (strcasecmp(p->op, "bspline") == 0)
        return p->degree == 5 ? RB_MAGICK_OP_BSPLINE5 : RB_MAGICK_OP_BSPLINE3;
    if (strcasecmp(p->op, "box") == 0 || strcasecmp(p->op, "sat") == 0)
        return RB_MAGICK_OP_SAT_BOX;
    *ok = 0;
    return RB_MAGICK_OP_BLUR;
}

int rb_magick_options_parse(rb_context *ctx, const rb_magick_define *defines, int ndefines,
                            int argc, const char **argv, rb_magick_options *out,
                            char *err, size_t err_len)
{
    settings s;
    memset(&s, 0, sizeof s);
    if (err && err_len)
        err[0] = '\0';
    if (!out)
        return fail(err, err_len, "internal error: no options to fill");

    for (int i = 0; i < ndefines; i++) {
        const char *key = defines[i].key ? defines[i].key : "";
        const char *value = defines[i].value ? defines[i].value : "";
        int k = find_key(key, strlen(key));
        if (k < 0)
            return fail(err, err_len, "unknown define 'recblur:%s'", key);
        if (store(&s, k, value, strlen(value), err, err_len))
            return 1;
    }
    if (collect_words(argc, argv, &s, err, err_len))
        return 1;

    rb_magick_options o;
    memset(&o, 0, sizeof o);
    o.op = RB_MAGICK_OP_BLUR;
    o.sigma_x = o.sigma_y = -1.0;
    o.direction = RB_DIRECTION_BOTH;
    o.axes = RB_AXES_BOTH;
    o.backend = RB_BACKEND_AUTO;
    o.channels = RB_MAGICK_CH_ALL;
    int have_op = 0;

    /* Preset first: everything the user sets explicitly overrides it. A .deblur
     * preset (op=deblur, a name ending in .deblur, or a NAME with no .preset but a
     * NAME.deblur) is a designed deblur filter; it is loaded here only to check it
     * and to read its boundary, and again by the module. */
    if (s.set[K_PRESET]) {
        const char *name = s.value[K_PRESET];
        rb_magick_op want = RB_MAGICK_OP_BLUR;
        int op_given = s.set[K_OP] && parse_op(s.value[K_OP], &want);
        size_t nl = strlen(name);
        int deblur = (op_given && want == RB_MAGICK_OP_DEBLUR) ||
                     (!op_given && nl > 7 && strcmp(name + nl - 7, ".deblur") == 0);
        rb_preset p;
        char first_err[1024] = "";
        if (!deblur && rb_preset_load(ctx, name, &p) != RB_OK) {
            snprintf(first_err, sizeof first_err, "%s", rb_context_error(ctx));
            if (op_given)
                return fail_engine(err, err_len, ctx);
            deblur = 1;   /* perhaps NAME.deblur */
        }
        if (deblur) {
            rb_deblur_filter *df = NULL;
            rb_boundary db;
            int has_db = 0;
            if (rb_deblur_preset_load(ctx, name, &df, &db, &has_db) != RB_OK) {
                if (first_err[0] && err && err_len)
                    snprintf(err, err_len, "%s; no deblur preset '%s.deblur' either; %s",
                             first_err, name, rb_magick_usage());
                return first_err[0] ? 1 : fail_engine(err, err_len, ctx);
            }
            rb_deblur_filter_destroy(df);
            o.op = RB_MAGICK_OP_DEBLUR;
            have_op = 1;
            snprintf(o.deblur_preset, sizeof o.deblur_preset, "%s", name);
            if (has_db) {
                o.has_boundary = 1;
                o.boundary = db;
            }
        } else {
            int ok;
            o.op = op_from_preset(&p, &ok);
            if (!ok)
                return fail(err, err_len, "preset '%s' has op '%s', which this module cannot run",
                            name, p.op);
            have_op = 1;
            o.sigma_x = p.sigma_x;
            o.sigma_y = p.sigma_y;
            o.accurate = p.accurate;
            snprintf(o.signature, sizeof o.signature, "%s", p.signature);
            o.direction = p.direction;
            o.axes = p.axes;
            o.size_x = p.size_x;
            o.size_y = p.size_y;
            if (p.has_boundary) {
                o.has_boundary = 1;
                o.boundary = p.boundary;
            }
        }
    }

    /* The operation: op=, else implied by the keys given, else the preset's, else blur. */
    int user_blur = s.set[K_SIGMA] || s.set[K_SIGMA_X] || s.set[K_SIGMA_Y] || s.set[K_ACCURATE];
    int user_filter = s.set[K_SIGNATURE] || s.set[K_DIRECTION] || s.set[K_AXES];
    int user_box = s.set[K_SIZE] || s.set[K_SIZE_X] || s.set[K_SIZE_Y];
    int user_deblur = s.set[K_PSF_SIGMA] || s.set[K_NOISE] || s.set[K_WINDOW];
    if (s.set[K_OP]) {
        if (!parse_op(s.value[K_OP], &o.op))
            return fail(err, err_len, "unknown op '%s'", s.value[K_OP]);
    } else if (user_blur + user_filter + user_box + user_deblur > 1) {
        return fail(err, err_len, "sigma, signature, size and psf-sigma belong to different "
                                  "operations: give one of them (or op=)");
    } else if (user_deblur) {
        o.op = RB_MAGICK_OP_DEBLUR;
    } else if (user_filter) {
        o.op = RB_MAGICK_OP_FILTER;
    } else if (user_box) {
        o.op = RB_MAGICK_OP_SAT_BOX;
    } else if (user_blur || !have_op) {
        o.op = RB_MAGICK_OP_BLUR;
    }

    /* Keys that do not belong to the chosen operation are a mistake, not a no-op. */
    static const struct { int key; rb_magick_op op; } belongs[] = {
        { K_SIGMA, RB_MAGICK_OP_BLUR }, { K_SIGMA_X, RB_MAGICK_OP_BLUR },
        { K_SIGMA_Y, RB_MAGICK_OP_BLUR }, { K_ACCURATE, RB_MAGICK_OP_BLUR },
        { K_SIGNATURE, RB_MAGICK_OP_FILTER }, { K_DIRECTION, RB_MAGICK_OP_FILTER },
        { K_AXES, RB_MAGICK_OP_FILTER },
        { K_SIZE, RB_MAGICK_OP_SAT_BOX }, { K_SIZE_X, RB_MAGICK_OP_SAT_BOX },
        { K_SIZE_Y, RB_MAGICK_OP_SAT_BOX },
        { K_PSF_SIGMA, RB_MAGICK_OP_DEBLUR }, { K_NOISE, RB_MAGICK_OP_DEBLUR },
        { K_WINDOW, RB_MAGICK_OP_DEBLUR },
    };
    for (size_t i = 0; i < sizeof belongs / sizeof belongs[0]; i++)
        if (s.set[belongs[i].key] && belongs[i].op != o.op)
            return fail(err, err_len, "%s does not apply to op=%s", key_names[belongs[i].key],
                        rb_magick_op_name(o.op));

    /* blur: a preset's sigma is -1 when absent; the user's is taken as given (the
     * engine names a negative or too small sigma). */
    int have_x = o.sigma_x >= 0, have_y = o.sigma_y >= 0;
    if (s.set[K_SIGMA]) {
        double v;
        if (!parse_double(s.value[K_SIGMA], &v))
            return fail(err, err_len, "sigma '%s' is not a number", s.value[K_SIGMA]);
        o.sigma_x = o.sigma_y = v;
        have_x = have_y = 1;
    }
    if (s.set[K_SIGMA_X]) {
        if (!parse_double(s.value[K_SIGMA_X], &o.sigma_x))
            return fail(err, err_len, "sigma-x '%s' is not a number", s.value[K_SIGMA_X]);
        if (!have_y && !s.set[K_SIGMA_Y]) {
            o.sigma_y = 0.0;   /* only x given: blur along rows only */
            have_y = 1;
        }
        have_x = 1;
    }
    if (s.set[K_SIGMA_Y]) {
        if (!parse_double(s.value[K_SIGMA_Y], &o.sigma_y))
            return fail(err, err_len, "sigma-y '%s' is not a number", s.value[K_SIGMA_Y]);
        if (!have_x) {
            o.sigma_x = 0.0;
            have_x = 1;
        }
        have_y = 1;
    }
    if (s.set[K_ACCURATE] && !parse_bool(s.value[K_ACCURATE], &o.accurate))
        return fail(err, err_len, "accurate '%s' is not yes or no", s.value[K_ACCURATE]);
    if (o.op == RB_MAGICK_OP_BLUR) {
        if (!have_x && !have_y)
            return fail(err, err_len, "no sigma given (e.g. -process 'recblur 20')");
        if (!have_x) o.sigma_x = o.sigma_y;
        if (!have_y) o.sigma_y = o.sigma_x;
    }

    /* filter */
    if (s.set[K_SIGNATURE]) {
        size_t len = strlen(s.value[K_SIGNATURE]);
        if (len >= sizeof o.signature)
            return fail(err, err_len, "signature is too long (%zu characters)", len);
        memcpy(o.signature, s.value[K_SIGNATURE], len + 1);
    }
    if (s.set[K_DIRECTION] && !parse_direction(s.value[K_DIRECTION], &o.direction))
        return fail(err, err_len, "direction '%s' is not both, causal or anticausal",
                    s.value[K_DIRECTION]);
    if (s.set[K_AXES] && !parse_axes(s.value[K_AXES], &o.axes))
        return fail(err, err_len, "axes '%s' is not both, x or y", s.value[K_AXES]);
    if (o.op == RB_MAGICK_OP_FILTER && !o.signature[0])
        return fail(err, err_len, "op=filter needs signature=\"b0,...: a1,...\"");

    /* sat-box */
    if (s.set[K_SIZE]) {
        if (!parse_int(s.value[K_SIZE], &o.size_x))
            return fail(err, err_len, "size '%s' is not a whole number", s.value[K_SIZE]);
        o.size_y = o.size_x;
    }
    if (s.set[K_SIZE_X] && !parse_int(s.value[K_SIZE_X], &o.size_x))
        return fail(err, err_len, "size-x '%s' is not a whole number", s.value[K_SIZE_X]);
    if (s.set[K_SIZE_Y] && !parse_int(s.value[K_SIZE_Y], &o.size_y))
        return fail(err, err_len, "size-y '%s' is not a whole number", s.value[K_SIZE_Y]);
    if (o.op == RB_MAGICK_OP_SAT_BOX) {
        if (o.size_x <= 0 && o.size_y <= 0)
            return fail(err, err_len, "op=sat-box needs size=N (or size-x/size-y)");
        if (o.size_x <= 0) o.size_x = s.set[K_SIZE_X] ? o.size_x : 1;
        if (o.size_y <= 0) o.size_y = s.set[K_SIZE_Y] ? o.size_y : 1;
        if (o.size_x < 1 || o.size_y < 1)
            return fail(err, err_len, "box size %dx%d: sizes must be at least 1", o.size_x,
                        o.size_y);
    }

    /* deblur: the checks and messages of `recblur deblur`; sigma's range (0.3..20)
     * is the designer's to name. */
    o.psf_sigma = -1.0;
    o.noise = RB_MAGICK_DEBLUR_NOISE;
    o.window = RB_MAGICK_DEBLUR_WINDOW;
    if (s.set[K_PSF_SIGMA] && (!parse_double(s.value[K_PSF_SIGMA], &o.psf_sigma) ||
                               o.psf_sigma <= 0.0))
        return fail(err, err_len, "psf-sigma '%s' is not a positive number", s.value[K_PSF_SIGMA]);
    if (s.set[K_NOISE] && !parse_noise(s.value[K_NOISE], &o.noise))
        return fail(err, err_len, "noise '%s' must be a standard deviation 0..0.5 (e.g. 0.005 "
                                  "or 0.5%%)", s.value[K_NOISE]);
    if (s.set[K_WINDOW] && (!parse_int(s.value[K_WINDOW], &o.window) ||
                            o.window < RB_DEBLUR_MIN_WINDOW || o.window > RB_DEBLUR_MAX_WINDOW))
        return fail(err, err_len, "window '%s' must be an integer %d..%d", s.value[K_WINDOW],
                    RB_DEBLUR_MIN_WINDOW, RB_DEBLUR_MAX_WINDOW);
    if (o.op == RB_MAGICK_OP_DEBLUR) {
        if (o.deblur_preset[0] && user_deblur)
            return fail(err, err_len, "psf-sigma/noise/window design a filter; preset '%s' is "
                                      "already designed", o.deblur_preset);
        if (!o.deblur_preset[0] && s.set[K_PRESET])
            return fail(err, err_len, "op=deblur takes a .deblur preset; '%s' is not one",
                        s.value[K_PRESET]);
        if (!o.deblur_preset[0] && !s.set[K_PSF_SIGMA])
            return fail(err, err_len, "op=deblur needs psf-sigma=S (a Gaussian PSF) or "
                                      "preset=NAME (a .deblur preset)");
    }

    /* common */
    if (s.set[K_BOUNDARY]) {
        if (rb_boundary_parse(ctx, s.value[K_BOUNDARY], &o.boundary) != RB_OK)
            return fail_engine(err, err_len, ctx);
        o.has_boundary = 1;
    }
    if (s.set[K_BACKEND] && rb_backend_parse(ctx, s.value[K_BACKEND], &o.backend) != RB_OK)
        return fail_engine(err, err_len, ctx);
    if (s.set[K_LINEAR] && !parse_bool(s.value[K_LINEAR], &o.linear))
        return fail(err, err_len, "linear '%s' is not yes or no", s.value[K_LINEAR]);
    if (s.set[K_CHANNEL]) {
        if (!parse_channels(s.value[K_CHANNEL], &o.channels))
            return fail(err, err_len, "channel '%s' is not letters of RGBAK (or CMYK, all, gray)",
                        s.value[K_CHANNEL]);
        o.has_channels = 1;
    }

    *out = o;
    return 0;
}
