/* Presets: small `key = value` text files shared by every front end.
 *
 * Format: one `key = value` per line; lines whose first non-blank character
 * is '#' are comments (a '#' later in a line is part of the value, so
 * descriptions may contain it); a value may be wrapped in double quotes.
 * Each key at most once; keys must fit the op. Errors name the file and line:
 *   recblur: preset 'x.preset' line 3: unknown key 'sigmaa'
 * Search for NAME: each directory of $RECBLUR_PRESET_PATH (colon-separated),
 * then the installed presets (RECBLUR_PRESET_DIR), then the source tree's
 * presets/ (RECBLUR_SOURCE_PRESET_DIR), so a build tree works uninstalled. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "rb_internal.h"
#include "preset_path.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


#define RB_PRESET_MAX_FILE (64 * 1024)
#define RB_PRESET_MAX_LINE 1024

enum {
    K_OP, K_SIGMA, K_SIGMA_X, K_SIGMA_Y, K_ACCURATE, K_SIGNATURE, K_DIRECTION, K_AXES, K_DEGREE,
    K_SIZE, K_SIZE_X, K_SIZE_Y, K_BOUNDARY, K_DESCRIPTION, K_COUNT
};
static const char *const key_names[K_COUNT] = {
    "op", "sigma", "sigma-x", "sigma-y", "accurate", "signature", "direction", "axes", "degree",
    "size", "size-x", "size-y", "boundary", "description"};

/* Which ops each key belongs to ("*" = any). */
static const char *const key_ops[K_COUNT] = {
    "*", "blur", "blur", "blur", "blur", "filter", "filter", "filter", "bspline",
    "box", "box", "box", "*", "*"};

static const char *const op_names[] = {"blur", "filter", "bspline", "sat", "box"};

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* origin's file name without directory and ".preset" into name. */
static void name_from_origin(const char *origin, char *name, size_t len)
{
    const char *b = base_name(origin);
    size_t n = strlen(b);
    if (n > 7 && !strcmp(b + n - 7, ".preset"))
        n -= 7;
    if (n >= len)
        n = len - 1;
    memcpy(name, b, n);
    name[n] = 0;
}

static int parse_double(const char *v, double *out)
{
    char *end = NULL;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || strchr(v, 'x') || strchr(v, 'X'))
        return 0;
    *out = d;
    return 1;
}

static int parse_int(const char *v, int *out)
{
    char *end = NULL;
    errno = 0;
    long l = strtol(v, &end, 10);
    if (end == v || *end || errno || l < -2147483647L || l > 2147483647L)
        return 0;
    *out = (int)l;
    return 1;
}

static int sigma_ok(double s) { return isfinite(s) && (s == 0.0 || (s >= 0.5 && s <= 1e5)); }

rb_status rb_preset_parse_text(rb_context *ctx, const char *text, const char *origin, rb_preset *out)
{
    if (!text || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_preset_parse_text: NULL argument");
    if (!origin)
        origin = "(text)";
    const char *org = base_name(origin);
    size_t tlen = strlen(text);
    if (tlen > RB_PRESET_MAX_FILE)
        return rb_error(ctx, RB_ERR_PRESET, "preset '%s': %zu bytes, larger than the %d-byte limit", org,
                        tlen, RB_PRESET_MAX_FILE);

    rb_preset p;
    memset(&p, 0, sizeof p);
    name_from_origin(origin, p.name, sizeof p.name);
    snprintf(p.op, sizeof p.op, "blur");
    p.sigma_x = p.sigma_y = -1.0;
    p.direction = RB_DIRECTION_BOTH;
    p.axes = RB_AXES_BOTH;

    int key_line[K_COUNT] = {0};
    char values[K_COUNT][RB_PRESET_MAX_LINE + 1];
    const char *s = text;
    int line = 0;
    while (*s) {
        line++;
        const char *e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        size_t n = (size_t)(e - s);
        if (n > RB_PRESET_MAX_LINE)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: line longer than %d bytes", org, line,
                            RB_PRESET_MAX_LINE);
        char buf[RB_PRESET_MAX_LINE + 1];
        memcpy(buf, s, n);
        buf[n] = 0;
        s = *e ? e + 1 : e;
        for (size_t i = 0; i < n; i++)
            if (buf[i] == '\0' || (iscntrl((unsigned char)buf[i]) && buf[i] != '\t' && buf[i] != '\r'))
                return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: control character in line", org,
                                line);
        char *b = buf;
        while (isspace((unsigned char)*b))
            b++;
        char *t = b + strlen(b);
        while (t > b && isspace((unsigned char)t[-1]))
            *--t = 0;
        if (!*b || *b == '#')
            continue;
        char *eq = strchr(b, '=');
        if (!eq)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: expected 'key = value', found '%.60s'",
                            org, line, b);
        char *kend = eq;
        while (kend > b && isspace((unsigned char)kend[-1]))
            kend--;
        *kend = 0;
        char *v = eq + 1;
        while (isspace((unsigned char)*v))
            v++;
        size_t vl = strlen(v);
        if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
            v[vl - 1] = 0;
            v++;
        }
        if (!*b)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: missing key before '='", org, line);
        int k;
        for (k = 0; k < K_COUNT; k++)
            if (!strcasecmp(b, key_names[k]))
                break;
        if (k == K_COUNT)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: unknown key '%.60s'", org, line, b);
        if (key_line[k])
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: key '%s' repeated (first on line %d)",
                            org, line, key_names[k], key_line[k]);
        if (!*v && k != K_DESCRIPTION)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: key '%s' has no value", org, line,
                            key_names[k]);
        key_line[k] = line;
        snprintf(values[k], sizeof values[k], "%s", v);
    }

    /* op first: the other keys are checked against it */
    if (key_line[K_OP]) {
        size_t i, nops = sizeof op_names / sizeof op_names[0];
        for (i = 0; i < nops; i++)
            if (!strcasecmp(values[K_OP], op_names[i]))
                break;
        if (i == nops)
            return rb_error(ctx, RB_ERR_PRESET,
                            "preset '%s' line %d: unknown op '%.60s' (blur, filter, bspline, sat or box)", org,
                            key_line[K_OP], values[K_OP]);
        snprintf(p.op, sizeof p.op, "%s", op_names[i]);
    }
    for (int k = 0; k < K_COUNT; k++)
        if (key_line[k] && strcmp(key_ops[k], "*") && strcmp(key_ops[k], p.op))
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: key '%s' does not apply to op '%s'", org,
                            key_line[k], key_names[k], p.op);

    int L;
    double d;
    if ((L = key_line[K_SIGMA])) {
        if (key_line[K_SIGMA_X] || key_line[K_SIGMA_Y])
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: give either 'sigma' or 'sigma-x'/'sigma-y'",
                            org, key_line[K_SIGMA_X] ? key_line[K_SIGMA_X] : key_line[K_SIGMA_Y]);
        if (!parse_double(values[K_SIGMA], &d) || !sigma_ok(d) || d == 0.0)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: bad sigma '%.60s' (a number in [0.5, 1e5])",
                            org, L, values[K_SIGMA]);
        p.sigma_x = p.sigma_y = d;
    }
    for (int k = K_SIGMA_X; k <= K_SIGMA_Y; k++)
        if ((L = key_line[k])) {
            if (!parse_double(values[k], &d) || !sigma_ok(d))
                return rb_error(ctx, RB_ERR_PRESET,
                                "preset '%s' line %d: bad %s '%.60s' (0, or a number in [0.5, 1e5])", org, L,
                                key_names[k], values[k]);
            if (k == K_SIGMA_X)
                p.sigma_x = d;
            else
                p.sigma_y = d;
        }
    if ((L = key_line[K_ACCURATE])) {
        const char *v = values[K_ACCURATE];
        if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
            p.accurate = 1;
        else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
            p.accurate = 0;
        else
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: bad accurate '%.60s' (yes or no)", org, L, v);
    }
    if ((L = key_line[K_SIGNATURE])) {
        if (strlen(values[K_SIGNATURE]) >= sizeof p.signature)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: signature too long", org, L);
        memcpy(p.signature, values[K_SIGNATURE], strlen(values[K_SIGNATURE]) + 1);
    }
    if ((L = key_line[K_DIRECTION])) {
        const char *v = values[K_DIRECTION];
        if (!strcasecmp(v, "both"))
            p.direction = RB_DIRECTION_BOTH;
        else if (!strcasecmp(v, "causal"))
            p.direction = RB_DIRECTION_CAUSAL;
        else if (!strcasecmp(v, "anticausal"))
            p.direction = RB_DIRECTION_ANTICAUSAL;
        else
            return rb_error(ctx, RB_ERR_PRESET,
                            "preset '%s' line %d: bad direction '%.60s' (both, causal or anticausal)", org, L, v);
    }
    if ((L = key_line[K_AXES])) {
        const char *v = values[K_AXES];
        if (!strcasecmp(v, "both"))
            p.axes = RB_AXES_BOTH;
        else if (!strcasecmp(v, "x"))
            p.axes = RB_AXES_X;
        else if (!strcasecmp(v, "y"))
            p.axes = RB_AXES_Y;
        else
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: bad axes '%.60s' (both, x or y)", org, L, v);
    }
    if ((L = key_line[K_DEGREE])) {
        if (!parse_int(values[K_DEGREE], &p.degree) || (p.degree != 3 && p.degree != 5))
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: bad degree '%.60s' (3 or 5)", org, L,
                            values[K_DEGREE]);
    }
    if ((L = key_line[K_SIZE]) && (key_line[K_SIZE_X] || key_line[K_SIZE_Y]))
        return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: give either 'size' or 'size-x'/'size-y'", org,
                        key_line[K_SIZE_X] ? key_line[K_SIZE_X] : key_line[K_SIZE_Y]);
    for (int k = K_SIZE; k <= K_SIZE_Y; k++)
        if ((L = key_line[k])) {
            int v;
            if (!parse_int(values[k], &v) || v < 1 || v > RB_MAX_SIDE)
                return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: bad %s '%.60s' (an integer 1..%d)", org,
                                L, key_names[k], values[k], RB_MAX_SIDE);
            if (k != K_SIZE_Y)
                p.size_x = v;
            if (k != K_SIZE_X)
                p.size_y = v;
        }
    if ((L = key_line[K_BOUNDARY])) {
        rb_context tmp;
        memset(&tmp, 0, sizeof tmp);
        if (rb_boundary_parse(&tmp, values[K_BOUNDARY], &p.boundary) != RB_OK) {
            const char *m = tmp.error;
            if (!strncmp(m, "recblur: ", 9))
                m += 9;
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: bad %s", org, L, m);
        }
        p.has_boundary = 1;
    }
    if ((L = key_line[K_DESCRIPTION])) {
        if (strlen(values[K_DESCRIPTION]) >= sizeof p.description)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: description longer than %zu characters",
                            org, L, sizeof p.description - 1);
        memcpy(p.description, values[K_DESCRIPTION], strlen(values[K_DESCRIPTION]) + 1);
    }

    /* what each op needs */
    if (!strcmp(p.op, "blur")) {
        if (p.sigma_x < 0 && p.sigma_y < 0)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s': op blur needs 'sigma' (or 'sigma-x'/'sigma-y')", org);
        if (p.sigma_x < 0)
            p.sigma_x = 0.0; /* only sigma-y given: x unfiltered */
        if (p.sigma_y < 0)
            p.sigma_y = 0.0;
        if (p.sigma_x == 0.0 && p.sigma_y == 0.0)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: both sigmas are 0 (nothing to do)", org,
                            key_line[K_SIGMA_X] ? key_line[K_SIGMA_X] : key_line[K_SIGMA_Y]);
    } else if (!strcmp(p.op, "filter")) {
        if (!key_line[K_SIGNATURE])
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s': op filter needs 'signature'", org);
        /* parse now, so a garbled signature is reported with its line */
        rb_context tmp;
        memset(&tmp, 0, sizeof tmp);
        rb_filter *f = NULL;
        if (rb_filter_parse(&tmp, p.signature, p.direction, p.axes, &f) != RB_OK) {
            const char *m = tmp.error;
            if (!strncmp(m, "recblur: ", 9))
                m += 9;
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: %s", org, key_line[K_SIGNATURE], m);
        }
        rb_filter_destroy(f);
    } else if (!strcmp(p.op, "bspline")) {
        if (!key_line[K_DEGREE])
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s': op bspline needs 'degree' (3 or 5)", org);
    } else if (!strcmp(p.op, "box")) {
        if (!p.size_x || !p.size_y)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s': op box needs 'size' (or both 'size-x' and 'size-y')",
                            org);
    }
    *out = p;
    return RB_OK;
}

static int valid_name(const char *name)
{
    if (!*name || strlen(name) > 100 || name[0] == '.')
        return 0;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
            return 0;
    return 1;
}

/* Read a whole (small) file; 1 on success, 0 when it does not exist; errors set status. */
static rb_status read_file(rb_context *ctx, const char *path, char **text, int *missing)
{
    *text = NULL;
    *missing = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        if (errno == ENOENT || errno == ENOTDIR) {
            *missing = 1;
            return RB_ERR_IO;
        }
        return rb_error(ctx, RB_ERR_IO, "preset '%s': cannot open: %s", path, strerror(errno));
    }
    char *buf = malloc(RB_PRESET_MAX_FILE + 2);
    if (!buf) {
        fclose(fp);
        return rb_error(ctx, RB_ERR_NOMEM, "preset '%s': out of memory", path);
    }
    size_t n = fread(buf, 1, RB_PRESET_MAX_FILE + 1, fp);
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        free(buf);
        return rb_error(ctx, RB_ERR_IO, "preset '%s': read error", path);
    }
    if (n > RB_PRESET_MAX_FILE) {
        free(buf);
        return rb_error(ctx, RB_ERR_PRESET, "preset '%s': larger than the %d-byte limit", base_name(path),
                        RB_PRESET_MAX_FILE);
    }
    if (memchr(buf, 0, n)) {
        free(buf);
        return rb_error(ctx, RB_ERR_PRESET, "preset '%s': not a text file (NUL byte)", base_name(path));
    }
    buf[n] = 0;
    *text = buf;
    return RB_OK;
}

rb_status rb_preset_load(rb_context *ctx, const char *name_or_path, rb_preset *out)
{
    if (!name_or_path || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_preset_load: NULL argument");
    size_t nl = strlen(name_or_path);
    char *text = NULL;
    int missing = 0;
    rb_status st;
    if (strchr(name_or_path, '/') || (nl > 7 && !strcmp(name_or_path + nl - 7, ".preset"))) {
        st = read_file(ctx, name_or_path, &text, &missing);
        if (missing)
            return rb_error(ctx, RB_ERR_IO, "preset file '%s' not found", name_or_path);
        if (st != RB_OK)
            return st;
        st = rb_preset_parse_text(ctx, text, name_or_path, out);
        free(text);
        return st;
    }
    if (!valid_name(name_or_path))
        return rb_error(ctx, RB_ERR_PRESET, "unknown preset '%.100s' (names are letters, digits, '-', '_', '.')",
                        name_or_path);
    char dirs[RB_PRESET_MAX_DIRS][RB_PRESET_DIR_LEN];
    int nd = rb_preset_search_dirs(dirs, RB_PRESET_MAX_DIRS);
    char searched[512] = "";
    size_t sl = 0;
    for (int i = 0; i < nd; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s.preset", dirs[i], name_or_path);
        st = read_file(ctx, path, &text, &missing);
        if (missing) {
            int w = snprintf(searched + sl, sizeof searched - sl, "%s%s", sl ? ":" : "", dirs[i]);
            if (w > 0 && sl + (size_t)w < sizeof searched)
                sl += (size_t)w;
            continue;
        }
        if (st != RB_OK)
            return st;
        st = rb_preset_parse_text(ctx, text, path, out);
        free(text);
        return st;
    }
    return rb_error(ctx, RB_ERR_PRESET, "unknown preset '%s' (searched %s)", name_or_path, searched);
}

rb_status rb_preset_filter(rb_context *ctx, const rb_preset *preset, rb_filter **out)
{
    if (!preset || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_preset_filter: NULL argument");
    *out = NULL;
    if (!strcmp(preset->op, "blur") || !preset->op[0])
        return rb_filter_gaussian(ctx, preset->sigma_x < 0 ? 0.0 : preset->sigma_x,
                                  preset->sigma_y < 0 ? 0.0 : preset->sigma_y,
                                  preset->accurate ? RB_GAUSSIAN_ACCURATE : RB_GAUSSIAN_DEFAULT, out);
    if (!strcmp(preset->op, "filter"))
        return rb_filter_parse(ctx, preset->signature, preset->direction, preset->axes, out);
    if (!strcmp(preset->op, "bspline"))
        return rb_filter_bspline(ctx, preset->degree ? preset->degree : 3, out);
    return rb_error(ctx, RB_ERR_ARGUMENT, "preset '%s': op '%s' is not a filter (use rb_sat / rb_box_filter)",
                    preset->name, preset->op);
}

/* Fills up to max distinct names (the first directory on the path wins), sorted;
 * returns how many were filled. */
int rb_preset_list(char names[][128], int max)
{
    return rb_preset_names("preset", valid_name, names, max);
}
