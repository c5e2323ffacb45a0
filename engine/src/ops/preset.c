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
/* op, description, and at most every setting of the op */
#define RB_PRESET_MAX_KEYS (RB_OP_MAX_SETTINGS + 2)

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

/* The engine's message without its "recblur: " (it is wrapped in ours). */
static const char *bare(const rb_context *tmp)
{
    const char *m = tmp->error;
    return strncmp(m, "recblur: ", 9) ? m : m + 9;
}

/* A .preset runs one of the image operations; deblur filters are .deblur files. */
static int preset_op(const rb_op_desc *op) { return op && op->id <= RB_OP_BOX; }

typedef struct {
    char key[64];
    char value[RB_PRESET_MAX_LINE + 1];
    int line;
} preset_line;

/* Split text into key/value lines: comments, blanks, quotes, limits. */
static rb_status read_lines(rb_context *ctx, const char *text, const char *org, preset_line *lines,
                            int *n_lines)
{
    const char *s = text;
    int line = 0, n = 0;
    while (*s) {
        line++;
        const char *e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        size_t len = (size_t)(e - s);
        if (len > RB_PRESET_MAX_LINE)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: line longer than %d bytes", org, line,
                            RB_PRESET_MAX_LINE);
        char buf[RB_PRESET_MAX_LINE + 1];
        memcpy(buf, s, len);
        buf[len] = 0;
        s = *e ? e + 1 : e;
        for (size_t i = 0; i < len; i++)
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
        int known = !strcasecmp(b, "op") || !strcasecmp(b, "description") || rb_setting_find(b);
        if (!known || strlen(b) >= sizeof lines[0].key)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: unknown key '%.60s'", org, line, b);
        for (int i = 0; i < n; i++)
            if (!strcasecmp(lines[i].key, b))
                return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: key '%s' repeated (first on line %d)",
                                org, line, lines[i].key, lines[i].line);
        if (!*v && strcasecmp(b, "description"))
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: key '%s' has no value", org, line, b);
        if (n == RB_PRESET_MAX_KEYS)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: too many keys", org, line);
        snprintf(lines[n].key, sizeof lines[n].key, "%s", b);
        snprintf(lines[n].value, sizeof lines[n].value, "%s", v);
        lines[n].line = line;
        n++;
    }
    *n_lines = n;
    return RB_OK;
}

static const preset_line *find_line(const preset_line *lines, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(lines[i].key, key))
            return &lines[i];
    return NULL;
}

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

    preset_line lines[RB_PRESET_MAX_KEYS];
    int n = 0;
    rb_status st = read_lines(ctx, text, org, lines, &n);
    if (st != RB_OK)
        return st;

    rb_preset p;
    memset(&p, 0, sizeof p);
    name_from_origin(origin, p.name, sizeof p.name);

    /* op first (blur when absent): the other keys are the op's settings */
    const rb_op_desc *op = rb_op_get(RB_OP_BLUR);
    const preset_line *op_line = find_line(lines, n, "op");
    const char *fixed_key = NULL, *fixed_value = NULL;
    if (op_line) {
        op = rb_op_find(op_line->value, &fixed_key, &fixed_value);
        if (!preset_op(op))
            return rb_error(ctx, RB_ERR_PRESET,
                            "preset '%s' line %d: unknown op '%.60s' (blur, filter, bspline, sat or box)", org,
                            op_line->line, op_line->value);
    }
    rb_settings_init(&p.settings, op);
    rb_context tmp;
    memset(&tmp, 0, sizeof tmp);
    if (fixed_key)
        rb_settings_set(&tmp, &p.settings, fixed_key, fixed_value);
    for (int i = 0; i < n; i++) {
        const preset_line *l = &lines[i];
        if (!strcasecmp(l->key, "op"))
            continue;
        if (!strcasecmp(l->key, "description")) {
            if (strlen(l->value) >= sizeof p.description)
                return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: description longer than %zu characters",
                                org, l->line, sizeof p.description - 1);
            snprintf(p.description, sizeof p.description, "%s", l->value);
            continue;
        }
        const rb_setting_desc *d = rb_op_setting(op, l->key);
        if (!d)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: key '%s' does not apply to op '%s'", org,
                            l->line, l->key, op->name);
        /* each value once: a shorthand and one of its axes would say it twice */
        if (d->flags & RB_SETTING_BOTH_AXES) {
            const preset_line *ax = find_line(lines, n, d->x_key);
            if (!ax)
                ax = find_line(lines, n, d->y_key);
            if (ax)
                return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: give either '%s' or '%s'/'%s'", org,
                                ax->line, d->key, d->x_key, d->y_key);
        }
        if (rb_settings_set(&tmp, &p.settings, l->key, l->value) != RB_OK)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: %s", org, l->line, bare(&tmp));
    }

    const char *missing = rb_settings_missing(&p.settings);
    if (missing) {
        const rb_setting_desc *d = rb_op_setting(op, missing);
        if (d->flags & RB_SETTING_BOTH_AXES)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s': op %s needs '%s' (or '%s'/'%s')", org, op->name,
                            d->key, d->x_key, d->y_key);
        return rb_error(ctx, RB_ERR_PRESET, "preset '%s': op %s needs '%s'", org, op->name, d->key);
    }
    /* a signature is parsed now, so a garbled one is reported with its line */
    if (op->id == RB_OP_FILTER) {
        rb_filter *f = NULL;
        if (rb_settings_filter(&tmp, &p.settings, &f, NULL) != RB_OK)
            return rb_error(ctx, RB_ERR_PRESET, "preset '%s' line %d: %s", org,
                            find_line(lines, n, "signature")->line, bare(&tmp));
        rb_filter_destroy(f);
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

/* Fills up to max distinct names (the first directory on the path wins), sorted;
 * returns how many were filled. */
int rb_preset_list(char names[][128], int max)
{
    return rb_preset_names("preset", valid_name, names, max);
}
