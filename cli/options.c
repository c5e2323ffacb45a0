/* Option parsing for the recblur CLI. Strict on purpose: "--sigma 2x" or a
 * missing value is an error naming the option, never a silent default. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const command_names[CLI_N_COMMANDS] = {"blur", "filter", "bspline", "sat", "box"};

const char *cli_command_name(cli_command cmd)
{
    return (unsigned)cmd < CLI_N_COMMANDS ? command_names[cmd] : "?";
}

int cli_command_from_name(const char *name)
{
    for (int i = 0; i < CLI_N_COMMANDS; i++)
        if (!strcmp(name, command_names[i]))
            return i;
    return -1;
}

rb_boundary_mode cli_default_boundary(cli_command cmd)
{
    /* clamp: edges keep their colour (what artists expect of a blur);
     * mirror: the standard extension for B-spline interpolation */
    return cmd == CLI_BSPLINE ? RB_BOUNDARY_MIRROR : RB_BOUNDARY_CLAMP;
}

#define M(c) (1u << (c))
#define M_FILTERING (M(CLI_BLUR) | M(CLI_FILTER) | M(CLI_BSPLINE) | M(CLI_BOX))
#define M_ALL (M_FILTERING | M(CLI_SAT))

enum {
    O_SIGMA, O_SIGMA_X, O_SIGMA_Y, O_ACCURATE, O_SIGNATURE, O_DIRECTION, O_AXES, O_DEGREE,
    O_SIZE, O_SIZE_X, O_SIZE_Y, O_BOUNDARY, O_BACKEND, O_PRESET, O_THREADS, O_DEPTH,
    O_VERBOSE, O_HELP, O_LINEAR
};

typedef struct {
    const char *name;
    int id;
    int takes_value;
    unsigned commands;
} option_def;

static const option_def options[] = {
    {"--sigma", O_SIGMA, 1, M(CLI_BLUR)},
    {"--sigma-x", O_SIGMA_X, 1, M(CLI_BLUR)},
    {"--sigma-y", O_SIGMA_Y, 1, M(CLI_BLUR)},
    {"--accurate", O_ACCURATE, 0, M(CLI_BLUR)},
    {"--signature", O_SIGNATURE, 1, M(CLI_FILTER)},
    {"--direction", O_DIRECTION, 1, M(CLI_FILTER)},
    {"--axes", O_AXES, 1, M(CLI_FILTER)},
    {"--degree", O_DEGREE, 1, M(CLI_BSPLINE)},
    {"--size", O_SIZE, 1, M(CLI_BOX)},
    {"--size-x", O_SIZE_X, 1, M(CLI_BOX)},
    {"--size-y", O_SIZE_Y, 1, M(CLI_BOX)},
    {"--boundary", O_BOUNDARY, 1, M_FILTERING},
    {"--backend", O_BACKEND, 1, M_ALL},
    {"--preset", O_PRESET, 1, M_ALL},
    {"--threads", O_THREADS, 1, M_ALL},
    {"--depth", O_DEPTH, 1, M_FILTERING},
    {"--linear", O_LINEAR, 0, M(CLI_BLUR) | M(CLI_FILTER) | M(CLI_BSPLINE)},
    {"--verbose", O_VERBOSE, 0, M_ALL},
    {"-v", O_VERBOSE, 0, M_ALL},
    {"--help", O_HELP, 0, M_ALL},
    {"-h", O_HELP, 0, M_ALL},
};

/* A finite decimal number and nothing else ("2x", "", " 2", "nan" are errors). */
static int parse_double(const char *text, double *out)
{
    if (!text[0] || isspace((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *text, long lo, long hi, int *out)
{
    if (!text[0] || isspace((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int cli_parse_options(cli_command cmd, int argc, char **argv, int first, cli_options *o,
                      char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    const char *positional[2];
    int n_pos = 0, options_done = 0;
    const char *cname = cli_command_name(cmd);
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || !arg[1]) {
            if (n_pos == 2) {
                snprintf(err, errlen, "%s: unexpected argument \"%s\" (expected only IN and OUT)",
                         cname, arg);
                return -1;
            }
            positional[n_pos++] = arg;
            continue;
        }
        if (!strcmp(arg, "--")) {
            options_done = 1;
            continue;
        }
        /* --name=value or --name value */
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const option_def *def = NULL;
        for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
            if (strlen(options[k].name) == name_len && !strncmp(options[k].name, arg, name_len)) {
                def = &options[k];
                break;
            }
        if (!def) {
            int used = cli_output_option_parse(cname, argc, argv, &i, &o->output, err, errlen);
            if (used < 0)
                return -1;
            if (used)
                continue;
            snprintf(err, errlen, "%s: unknown option \"%.*s\" (see recblur %s --help)", cname,
                     (int)name_len, arg, cname);
            return -1;
        }
        if (!(def->commands & M(cmd))) {
            snprintf(err, errlen, "%s: option %s does not apply to %s (see recblur %s --help)", cname,
                     def->name, cname, cname);
            return -1;
        }
        const char *val = NULL;
        if (def->takes_value) {
            if (eq && arg[1] == '-')
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                snprintf(err, errlen, "%s: option %s needs a value", cname, def->name);
                return -1;
            }
            if (!val[0]) {
                snprintf(err, errlen, "%s: option %s needs a value (got an empty string)", cname,
                         def->name);
                return -1;
            }
        } else if (eq && arg[1] == '-') {
            snprintf(err, errlen, "%s: option %s takes no value", cname, def->name);
            return -1;
        }
        switch (def->id) {
        case O_SIGMA:
        case O_SIGMA_X:
        case O_SIGMA_Y: {
            double v;
            if (parse_double(val, &v) || v < 0.0) {
                snprintf(err, errlen, "%s: %s \"%s\" is not a valid sigma (a number >= 0, in pixels)",
                         cname, def->name, val);
                return -1;
            }
            if (def->id == O_SIGMA) { o->have_sigma = 1; o->sigma = v; }
            else if (def->id == O_SIGMA_X) { o->have_sigma_x = 1; o->sigma_x = v; }
            else { o->have_sigma_y = 1; o->sigma_y = v; }
            break;
        }
        case O_ACCURATE: o->accurate = 1; break;
        case O_SIGNATURE: o->signature = val; break;
        case O_DIRECTION: o->direction_text = val; break;
        case O_AXES: o->axes_text = val; break;
        case O_DEGREE:
            if (parse_int(val, 0, 1000, &o->degree) || (o->degree != 3 && o->degree != 5)) {
                snprintf(err, errlen, "%s: --degree \"%s\" is not supported (3 or 5)", cname, val);
                return -1;
            }
            o->have_degree = 1;
            break;
        case O_SIZE:
        case O_SIZE_X:
        case O_SIZE_Y: {
            int v;
            if (parse_int(val, 1, RB_MAX_SIDE, &v)) {
                snprintf(err, errlen, "%s: %s \"%s\" is not a valid box size (a whole number of pixels, 1 to %d)",
                         cname, def->name, val, RB_MAX_SIDE);
                return -1;
            }
            if (def->id == O_SIZE) { o->have_size = 1; o->size = v; }
            else if (def->id == O_SIZE_X) { o->have_size_x = 1; o->size_x = v; }
            else { o->have_size_y = 1; o->size_y = v; }
            break;
        }
        case O_BOUNDARY: o->boundary_text = val; break;
        case O_BACKEND: o->backend_text = val; break;
        case O_PRESET: o->preset = val; break;
        case O_THREADS:
            if (parse_int(val, 0, 4096, &o->threads)) {
                snprintf(err, errlen, "%s: --threads \"%s\" is not valid (0 = all cores, or 1 to 4096)",
                         cname, val);
                return -1;
            }
            o->have_threads = 1;
            break;
        case O_DEPTH:
            if (strcmp(val, "8") && strcmp(val, "16") && strcmp(val, "float")) {
                snprintf(err, errlen, "%s: --depth \"%s\" is not valid (8, 16 or float)", cname, val);
                return -1;
            }
            o->depth_text = val;
            break;
        case O_VERBOSE: o->verbose = 1; break;
        case O_LINEAR: o->linear = 1; break;
        case O_HELP: o->help = 1; break;
        }
    }
    if (o->help)
        return 0;
    if (n_pos < 2) {
        snprintf(err, errlen, "%s: %s (usage: recblur %s [options] IN OUT; see recblur %s --help)", cname,
                 n_pos == 0 ? "missing input and output files" : "missing output file", cname, cname);
        return -1;
    }
    o->in = positional[0];
    o->out = positional[1];
    return 0;
}

/* The engine's messages start with "recblur: "; ours add that when printed. */
static void copy_engine_error(rb_context *ctx, char *err, size_t errlen)
{
    const char *m = rb_context_error(ctx);
    if (!strncmp(m, "recblur: ", 9))
        m += 9;
    snprintf(err, errlen, "%s", m[0] ? m : "engine error");
}

int cli_resolve_settings(rb_context *ctx, const cli_options *o, cli_settings *s, char *err,
                         size_t errlen)
{
    memset(s, 0, sizeof *s);
    const char *cname = cli_command_name(o->cmd);
    rb_preset p;
    int have_preset = 0;
    if (o->preset) {
        if (rb_preset_load(ctx, o->preset, &p) != RB_OK) {
            copy_engine_error(ctx, err, errlen);
            return -1;
        }
        const char *op = p.op[0] ? p.op : "blur";
        if (strcmp(op, cname)) {
            snprintf(err, errlen, "preset \"%s\" is a %s preset; run it as: recblur %s --preset %s IN OUT",
                     o->preset, op, op, o->preset);
            return -1;
        }
        have_preset = 1;
    }

    s->boundary.mode = cli_default_boundary(o->cmd);
    s->boundary.value = 0.0f;
    if (have_preset && p.has_boundary)
        s->boundary = p.boundary;
    if (o->boundary_text && rb_boundary_parse(ctx, o->boundary_text, &s->boundary) != RB_OK) {
        copy_engine_error(ctx, err, errlen);
        return -1;
    }

    if (o->depth_text) {
        s->have_depth = 1;
        s->depth = !strcmp(o->depth_text, "8") ? RB_U8 : !strcmp(o->depth_text, "16") ? RB_U16 : RB_F32;
    }

    switch (o->cmd) {
    case CLI_BLUR: {
        double sx = -1.0, sy = -1.0;
        int accurate = 0;
        if (have_preset) {
            sx = p.sigma_x;
            sy = p.sigma_y;
            accurate = p.accurate;
        }
        if (o->have_sigma)
            sx = sy = o->sigma;
        if (o->have_sigma_x)
            sx = o->sigma_x;
        if (o->have_sigma_y)
            sy = o->sigma_y;
        if (sx < 0.0 && sy < 0.0) {
            snprintf(err, errlen, "blur needs --sigma S (or --sigma-x/--sigma-y, or a --preset)");
            return -1;
        }
        /* an axis given no sigma is left unfiltered (sigma 0) */
        s->sigma_x = sx < 0.0 ? 0.0 : sx;
        s->sigma_y = sy < 0.0 ? 0.0 : sy;
        s->quality = (accurate || o->accurate) ? RB_GAUSSIAN_ACCURATE : RB_GAUSSIAN_DEFAULT;
        break;
    }
    case CLI_FILTER:
        s->direction = have_preset ? p.direction : RB_DIRECTION_BOTH;
        s->axes = have_preset ? p.axes : RB_AXES_BOTH;
        if (o->signature)
            s->signature = o->signature;
        else if (have_preset && p.signature[0]) {
            snprintf(s->preset_signature, sizeof s->preset_signature, "%s", p.signature);
            s->signature = s->preset_signature;
        } else {
            snprintf(err, errlen, "filter needs --signature \"b0, b1, ...: a1, a2, ...\" (or a --preset)");
            return -1;
        }
        if (o->direction_text) {
            if (!strcmp(o->direction_text, "both")) s->direction = RB_DIRECTION_BOTH;
            else if (!strcmp(o->direction_text, "causal")) s->direction = RB_DIRECTION_CAUSAL;
            else if (!strcmp(o->direction_text, "anticausal")) s->direction = RB_DIRECTION_ANTICAUSAL;
            else {
                snprintf(err, errlen, "filter: --direction \"%s\" is not valid (both, causal or anticausal)",
                         o->direction_text);
                return -1;
            }
        }
        if (o->axes_text) {
            if (!strcmp(o->axes_text, "both")) s->axes = RB_AXES_BOTH;
            else if (!strcmp(o->axes_text, "x")) s->axes = RB_AXES_X;
            else if (!strcmp(o->axes_text, "y")) s->axes = RB_AXES_Y;
            else {
                snprintf(err, errlen, "filter: --axes \"%s\" is not valid (both, x or y)", o->axes_text);
                return -1;
            }
        }
        break;
    case CLI_BSPLINE:
        s->degree = 3;
        if (have_preset && p.degree)
            s->degree = p.degree;
        if (o->have_degree)
            s->degree = o->degree;
        break;
    case CLI_BOX: {
        int sx = 0, sy = 0;
        if (have_preset) {
            sx = p.size_x;
            sy = p.size_y;
        }
        if (o->have_size)
            sx = sy = o->size;
        if (o->have_size_x)
            sx = o->size_x;
        if (o->have_size_y)
            sy = o->size_y;
        if (sx <= 0 && sy <= 0) {
            snprintf(err, errlen, "box needs --size N (or --size-x/--size-y, or a --preset)");
            return -1;
        }
        /* an axis given no size is left as is (size 1) */
        s->size_x = sx > 0 ? sx : 1;
        s->size_y = sy > 0 ? sy : 1;
        break;
    }
    case CLI_SAT:
    case CLI_N_COMMANDS:
        break;
    }
    return 0;
}
