/* Deblur presets (*.deblur): a designed quadrant filter saved as text, so
 * every front end can apply it without re-running the designer.
 *
 *   # comment
 *   recblur-deblur 1                 (first non-comment line: format and version)
 *   description = free text
 *   window = M
 *   boundary = mirror                (optional)
 *   a0 = v v v ...                   (M*M numbers, row-major r1*M + r2)
 *   ... a1 a2 a3 b0 b1 b2 b3         (all eight required; b?(0,0) must be 0)
 *
 * Values are written with 17 significant digits (exact round trip). The
 * filter goes through rb_deblur_filter_create, so an unstable or NaN preset
 * is refused with the same errors as the API (plus the file name). */
#include "deblur_internal.h"
#include "preset_path.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0) {
            buf = malloc((size_t)n + 1);
            if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
                buf[n] = 0;
                *len = n;
            } else {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    return buf;
}

/* Resolve NAME to a readable path on the preset search path. */
/* A path (contains '/' or ends in ".deblur") is taken as is; a NAME is looked
 * up as NAME.deblur along the shared preset search order. */
static int find_preset(const char *name, char *path, size_t len)
{
    size_t l = strlen(name);
    if (strchr(name, '/') || (l > 7 && !strcmp(name + l - 7, ".deblur"))) {
        snprintf(path, len, "%s", name);
        return 1;
    }
    return rb_preset_find(name, "deblur", path, len);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

rb_status rb_deblur_preset_load(rb_context *ctx, const char *name_or_path, rb_deblur_filter **out,
                                rb_boundary *boundary, int *has_boundary)
{
    if (!name_or_path || !out)
        return rb_error(ctx, RB_ERR_NULL, "deblur preset: NULL argument");
    *out = NULL;
    if (has_boundary)
        *has_boundary = 0;
    char path[4400];
    if (!find_preset(name_or_path, path, sizeof path))
        return rb_error(ctx, RB_ERR_PRESET,
                        "deblur preset \"%s\" not found (looked for %s.deblur in "
                        "$RECBLUR_PRESET_PATH, %s and %s)",
                        name_or_path, name_or_path, RECBLUR_PRESET_DIR, RECBLUR_SOURCE_PRESET_DIR);
    long len = 0;
    char *text = slurp(path, &len);
    if (!text)
        return rb_error(ctx, RB_ERR_IO, "deblur preset %s: cannot read (%s)", path, strerror(errno));
    rb_status st = RB_OK;
    int m = 0, seen_header = 0, lineno = 0;
    double *coef[8] = {0};
    char desc[256] = "";
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    int got_bd = 0;
    for (char *line = text, *next; line && st == RB_OK; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = trim(line);
        if (!*s)
            continue;
        if (!seen_header) {
            if (strcmp(s, "recblur-deblur 1"))
                st = rb_error(ctx, RB_ERR_PRESET,
                              "deblur preset %s:%d: expected the header \"recblur-deblur 1\", "
                              "found \"%.40s\"",
                              path, lineno, s);
            seen_header = 1;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s:%d: expected key = value", path,
                          lineno);
            break;
        }
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        if (!strcmp(key, "description")) {
            snprintf(desc, sizeof desc, "%s", val);
        } else if (!strcmp(key, "window")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || v < RB_DEBLUR_MIN_WINDOW || v > RB_DEBLUR_MAX_WINDOW || m)
                st = rb_error(ctx, RB_ERR_PRESET,
                              "deblur preset %s:%d: window \"%s\" must be one integer %d..%d, "
                              "given once",
                              path, lineno, val, RB_DEBLUR_MIN_WINDOW, RB_DEBLUR_MAX_WINDOW);
            m = (int)v;
        } else if (!strcmp(key, "boundary")) {
            if (rb_boundary_parse(ctx, val, &bd) != RB_OK)
                st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s:%d: bad boundary \"%s\"", path,
                              lineno, val);
            got_bd = 1;
        } else if ((key[0] == 'a' || key[0] == 'b') && key[1] >= '0' && key[1] <= '3' && !key[2]) {
            int slot = (key[0] == 'b') * 4 + (key[1] - '0');
            if (!m) {
                st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s:%d: %s before window", path,
                              lineno, key);
                break;
            }
            if (coef[slot]) {
                st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s:%d: %s given twice", path,
                              lineno, key);
                break;
            }
            coef[slot] = malloc(sizeof(double) * m * m);
            if (!coef[slot]) {
                st = rb_error(ctx, RB_ERR_NOMEM, "deblur preset: out of memory");
                break;
            }
            char *p = val;
            for (int k = 0; k < m * m; k++) {
                char *end;
                errno = 0;
                double v = strtod(p, &end);
                if (end == p) {
                    st = rb_error(ctx, RB_ERR_PRESET,
                                  "deblur preset %s:%d: %s has %d numbers, expected %d (window %d)",
                                  path, lineno, key, k, m * m, m);
                    break;
                }
                if (!isfinite(v)) {
                    st = rb_error(ctx, RB_ERR_NAN, "deblur preset %s:%d: %s value %d is not finite",
                                  path, lineno, key, k);
                    break;
                }
                coef[slot][k] = v;
                p = end;
            }
            if (st == RB_OK && *trim(p))
                st = rb_error(ctx, RB_ERR_PRESET,
                              "deblur preset %s:%d: %s has more than %d numbers (or junk \"%.20s\")",
                              path, lineno, key, m * m, trim(p));
        } else {
            st = rb_error(ctx, RB_ERR_PRESET,
                          "deblur preset %s:%d: unknown key \"%s\" (description, window, "
                          "boundary, a0..a3, b0..b3)",
                          path, lineno, key);
        }
    }
    if (st == RB_OK && !seen_header)
        st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s: empty file", path);
    if (st == RB_OK && !m)
        st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s: no window = M line", path);
    for (int k = 0; k < 8 && st == RB_OK; k++)
        if (!coef[k])
            st = rb_error(ctx, RB_ERR_PRESET, "deblur preset %s: missing %c%d", path,
                          k < 4 ? 'a' : 'b', k % 4);
    if (st == RB_OK) {
        st = rb_deblur_filter_create(ctx, m, (const double *const *)coef,
                                     (const double *const *)(coef + 4), out);
        if (st != RB_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", rb_context_error(ctx));
            const char *m2 = strncmp(msg, "recblur: ", 9) ? msg : msg + 9;
            rb_error(ctx, st, "deblur preset %s: %s", path, m2);
        } else if (desc[0]) {
            snprintf((*out)->description, sizeof (*out)->description, "%s", desc);
        }
    }
    if (st == RB_OK) {
        if (boundary && got_bd)
            *boundary = bd;
        if (has_boundary)
            *has_boundary = got_bd;
    }
    for (int k = 0; k < 8; k++)
        free(coef[k]);
    free(text);
    return st;
}

rb_status rb_deblur_preset_save(rb_context *ctx, const rb_deblur_filter *f, const char *description,
                                const rb_boundary *boundary, const char *path)
{
    if (!f || !path)
        return rb_error(ctx, RB_ERR_NULL, "deblur preset: NULL argument");
    /* Write beside the target and rename, so a failed write leaves no half file. */
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *o = fopen(tmp, "w");
    if (!o)
        return rb_error(ctx, RB_ERR_IO, "deblur preset %s: cannot write (%s)", path, strerror(errno));
    const char *d = description && *description ? description : f->description;
    fprintf(o, "# recblur deblur preset: the quadrant 2D IIR filter (recblur_deblur.h)\n");
    fprintf(o, "recblur-deblur 1\n");
    fprintf(o, "description = ");
    for (const char *c = d; *c; c++)
        fputc(*c == '\n' || *c == '#' ? ' ' : *c, o);
    fprintf(o, "\nwindow = %d\n", f->m);
    if (boundary && boundary->mode == RB_BOUNDARY_CONSTANT)
        fprintf(o, "boundary = constant=%.9g\n", boundary->value);
    else if (boundary)
        fprintf(o, "boundary = %s\n", rb_boundary_name(boundary->mode));
    for (int k = 0; k < 8; k++) {
        const double *c = k < 4 ? f->a[k] : f->b[k - 4];
        fprintf(o, "%c%d =", k < 4 ? 'a' : 'b', k % 4);
        for (int i = 0; i < f->m * f->m; i++)
            fprintf(o, " %.17g", c[i]);
        fputc('\n', o);
    }
    int bad = ferror(o);
    bad |= fclose(o) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return rb_error(ctx, RB_ERR_IO, "deblur preset %s: write failed (%s)", path, strerror(errno));
    }
    return RB_OK;
}

_Static_assert(RB_PRESET_NAME_LEN == 128, "rb_deblur_preset_list's names are char[][128]");

/* Hidden files (".x.deblur") are not offered. */
static int listable(const char *name) { return name[0] != '.'; }

int rb_deblur_preset_list(char names[][128], int max)
{
    return rb_preset_names("deblur", listable, names, max);
}
