/* Option parsing for the recblur CLI: `--KEY VALUE` for every setting of the
 * command's operation in the engine's table, plus the CLI's own options
 * below. Values are checked by the engine's one parser (rb_settings_set), so
 * the CLI, presets and the plug-ins accept and refuse the same words. */
#include "options.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

const char *cli_command_name(cli_command cmd)
{
    const rb_op_desc *op = (unsigned)cmd < CLI_N_COMMANDS ? rb_op_get((rb_op_id)cmd) : NULL;
    return op ? op->name : "?";
}

int cli_command_from_name(const char *name)
{
    for (int i = 0; i < CLI_N_COMMANDS; i++)
        if (!strcmp(name, rb_op_get((rb_op_id)i)->name))
            return i;
    return -1;
}

/* The CLI's own options: files and output, not operation settings. To add
 * one, add a row here and a case in apply_cli_option. */
enum { CO_PRESET, CO_DEPTH, CO_MEMORY, CO_PSF, CO_OUT, CO_VERBOSE, CO_HELP };
#define OP(id) (1u << (id))
#define OPS_IMAGE (OP(RB_OP_BLUR) | OP(RB_OP_FILTER) | OP(RB_OP_BSPLINE) | OP(RB_OP_SAT) | OP(RB_OP_BOX))
#define OPS_FILTERING (OP(RB_OP_BLUR) | OP(RB_OP_FILTER) | OP(RB_OP_BSPLINE) | OP(RB_OP_BOX))
#define OPS_DEBLUR (OP(RB_OP_DEBLUR) | OP(RB_OP_DESIGN_DEBLUR))
#define OPS_ALL (OPS_IMAGE | OPS_DEBLUR)

static const struct {
    const char *name, *alias, *metavar;
    int id;
    unsigned ops;
    const char *help;
} cli_own[] = {
    {"--preset", NULL, "P", CO_PRESET, OPS_IMAGE,
     "a preset NAME (see `recblur presets`) or a preset FILE; options given on the command line "
     "override its values"},
    {"--preset", NULL, "NAME", CO_PRESET, OP(RB_OP_DEBLUR),
     "a designed filter (NAME.deblur on the preset path, or a path)"},
    {"--psf", NULL, "FILE", CO_PSF, OPS_DEBLUR,
     "PSF kernel: an image (PNG/TIFF/PFM; colour is averaged) or a text file of numbers, one "
     "kernel row per line; odd sides, centre sample = origin, normalised to sum 1"},
    {"--out", NULL, "PRESET", CO_OUT, OP(RB_OP_DESIGN_DEBLUR), "file to write, e.g. my.deblur"},
    {"--depth", NULL, "D", CO_DEPTH, OPS_FILTERING,
     "output samples: 8, 16 or float (default: the input's, or 16 for float input written as "
     "PNG, float for PFM)"},
    {"--memory", NULL, "MIB", CO_MEMORY, OP(RB_OP_BLUR) | OP(RB_OP_FILTER) | OP(RB_OP_BSPLINE),
     "memory the image may take, in MiB: a TIFF (in strips) or non-interlaced PNG to TIFF or PNG "
     "that needs more is filtered a band of rows at a time, reading IN twice (default: 1024, or "
     "half the physical memory if less; on the cpu back end, no usable GPU or --backend cpu, "
     CLI_STR(CLI_TIFF_CPU_MIB) " for an 8-bit TIFF without alpha and " CLI_STR(CLI_PNG_CPU_MIB)
     " for such a PNG, where the strips are as fast and take a quarter of the memory or less)"},
    {"--verbose", "-v", NULL, CO_VERBOSE, OPS_ALL,
     "print the back end, image size, channels, format, filter and times to stderr"},
    {"--help", "-h", NULL, CO_HELP, OPS_ALL, "this help"},
};
#define N_OWN ((int)(sizeof cli_own / sizeof cli_own[0]))

static int own_option(const char *name, size_t len, const rb_op_desc *op, int *any)
{
    *any = 0;
    for (int k = 0; k < N_OWN; k++) {
        int match = (strlen(cli_own[k].name) == len && !strncmp(cli_own[k].name, name, len)) ||
                    (cli_own[k].alias && strlen(cli_own[k].alias) == len &&
                     !strncmp(cli_own[k].alias, name, len));
        if (!match)
            continue;
        *any = 1;
        if (cli_own[k].ops & OP(op->id))
            return k;
    }
    return -1;
}

/* The engine's messages start with "recblur: "; ours add that when printed. */
static void copy_engine_error(rb_context *ctx, char *err, size_t errlen, const char *prefix)
{
    const char *m = rb_context_error(ctx);
    if (!strncmp(m, "recblur: ", 9))
        m += 9;
    snprintf(err, errlen, "%s%s", prefix, m[0] ? m : "engine error");
}

int cli_parse_options(const rb_op_desc *op, int argc, char **argv, int first, cli_options *o,
                      char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->op = op;
    o->cmd = op->id < RB_OP_DEBLUR ? (cli_command)op->id : CLI_N_COMMANDS;
    const char *positional[2];
    int n_pos = 0, options_done = 0;
    const char *cname = op->name;
    /* values are checked now, so a typo is a usage error before any file is read */
    rb_context *check = NULL;
    if (rb_context_create(&check) != RB_OK) {
        snprintf(err, errlen, "cannot create the engine context (out of memory?)");
        return -1;
    }
    rb_settings scratch;
    rb_settings_init(&scratch, op);
    int rc = -1;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || !arg[1]) {
            if (n_pos == 2) {
                snprintf(err, errlen, "%s: unexpected argument \"%s\" (expected only IN and OUT)", cname, arg);
                goto done;
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
        int long_form = arg[1] == '-';
        size_t name_len = eq && long_form ? (size_t)(eq - arg) : strlen(arg);
        char key[64] = "";
        if (long_form && name_len - 2 < sizeof key)
            snprintf(key, sizeof key, "%.*s", (int)(name_len - 2), arg + 2);
        const rb_setting_desc *d = long_form ? rb_op_setting(op, key) : NULL;
        int own_any;
        int own = d ? -1 : own_option(arg, name_len, op, &own_any);
        if (!d && own < 0) {
            /* the file options (--compress, --level) are output_options.c's */
            int used = cli_output_option_parse(cname, argc, argv, &i, &o->output, err, errlen);
            if (used < 0)
                goto done;
            if (used)
                continue;
            if (own_any || (long_form && rb_setting_find(key)))
                snprintf(err, errlen, "%s: option %.*s does not apply to %s (see recblur %s --help)", cname,
                         (int)name_len, arg, cname, cname);
            else
                snprintf(err, errlen, "%s: unknown option \"%.*s\" (see recblur %s --help)", cname,
                         (int)name_len, arg, cname);
            goto done;
        }
        int takes_value = d ? d->type != RB_SETTING_BOOL : cli_own[own].metavar != NULL;
        const char *val = NULL;
        if (takes_value) {
            if (eq && long_form)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                snprintf(err, errlen, "%s: option %.*s needs a value", cname, (int)name_len, arg);
                goto done;
            }
            if (!val[0]) {
                snprintf(err, errlen, "%s: option %.*s needs a value (got an empty string)", cname,
                         (int)name_len, arg);
                goto done;
            }
        } else if (eq && long_form) {
            snprintf(err, errlen, "%s: option %.*s takes no value", cname, (int)name_len, arg);
            goto done;
        }
        if (d) {
            if (o->n_words == CLI_MAX_WORDS) {
                snprintf(err, errlen, "%s: too many options", cname);
                goto done;
            }
            if (!val)
                val = "yes"; /* a flag */
            if (rb_settings_set(check, &scratch, d->key, val) != RB_OK) {
                char prefix[80];
                snprintf(prefix, sizeof prefix, "%s: ", cname);
                copy_engine_error(check, err, errlen, prefix);
                goto done;
            }
            o->words[o->n_words].key = d->key;
            o->words[o->n_words].value = val;
            o->n_words++;
            continue;
        }
        switch (cli_own[own].id) {
        case CO_PRESET: o->preset = val; break;
        case CO_PSF: o->psf_file = val; break;
        case CO_OUT: o->out_preset = val; break;
        case CO_DEPTH:
            if (strcmp(val, "8") && strcmp(val, "16") && strcmp(val, "float")) {
                snprintf(err, errlen, "%s: --depth \"%s\" is not valid (8, 16 or float)", cname, val);
                goto done;
            }
            o->depth_text = val;
            break;
        case CO_MEMORY: {
            char *end = NULL;
            long long mib = strtoll(val, &end, 10);
            if (!end || end == val || *end || mib < 1 || mib > (1LL << 30)) {
                snprintf(err, errlen, "%s: --memory \"%s\" is not valid (a whole number of MiB, "
                         "1 to 1073741824)", cname, val);
                goto done;
            }
            o->memory_mib = mib;
            break;
        }
        case CO_VERBOSE: o->verbose = 1; break;
        case CO_HELP: o->help = 1; break;
        }
    }
    if (o->help) {
        rc = 0;
        goto done;
    }
    if (op->id == RB_OP_DESIGN_DEBLUR) {
        if (n_pos) {
            snprintf(err, errlen, "%s: takes no IN/OUT images (got \"%s\"); use --out PRESET", cname,
                     positional[0]);
            goto done;
        }
    } else if (n_pos < 2) {
        snprintf(err, errlen, "%s: needs IN and OUT images (%s; usage: recblur %s [options] IN OUT; see recblur %s --help)",
                 cname, n_pos == 0 ? "missing input and output files" : "missing output file", cname, cname);
        goto done;
    } else {
        o->in = positional[0];
        o->out = positional[1];
    }
    rc = 0;
done:
    rb_context_destroy(check);
    return rc;
}

int cli_resolve_settings(rb_context *ctx, const cli_options *o, cli_settings *s, char *err,
                         size_t errlen)
{
    memset(s, 0, sizeof *s);
    const char *cname = o->op->name;
    rb_settings_init(&s->op, o->op);
    /* an image command's preset (deblur presets are designed filters: cmd_deblur.c) */
    if (o->preset && o->op->id < RB_OP_DEBLUR) {
        rb_preset p;
        if (rb_preset_load(ctx, o->preset, &p) != RB_OK) {
            copy_engine_error(ctx, err, errlen, "");
            return -1;
        }
        if (p.settings.op != o->op) {
            const char *op = p.settings.op->name;
            snprintf(err, errlen, "preset \"%s\" is a %s preset; run it as: recblur %s --preset %s IN OUT",
                     o->preset, op, op, o->preset);
            return -1;
        }
        s->op = p.settings;
    }
    rb_settings_new_layer(&s->op);
    for (int i = 0; i < o->n_words; i++)
        if (rb_settings_set(ctx, &s->op, o->words[i].key, o->words[i].value) != RB_OK) {
            char prefix[80];
            snprintf(prefix, sizeof prefix, "%s: ", cname);
            copy_engine_error(ctx, err, errlen, prefix);
            return -1;
        }
    const char *missing = o->op->id < RB_OP_DEBLUR ? rb_settings_missing(&s->op) : NULL;
    if (missing) {
        const rb_setting_desc *d = rb_op_setting(o->op, missing);
        if (d->flags & RB_SETTING_BOTH_AXES)
            snprintf(err, errlen, "%s needs --%s (or --%s/--%s, or a --preset)", cname, d->key, d->x_key,
                     d->y_key);
        else
            snprintf(err, errlen, "%s needs --%s (or a --preset)", cname, d->key);
        return -1;
    }
    if (o->depth_text) {
        s->have_depth = 1;
        s->depth = !strcmp(o->depth_text, "8") ? RB_U8 : !strcmp(o->depth_text, "16") ? RB_U16 : RB_F32;
    }
    return 0;
}

/* The settings a context takes. */
int cli_apply_context_settings(rb_context *ctx, const rb_settings *s)
{
    if (rb_context_set_backend(ctx, (rb_backend)rb_settings_int(s, "backend")) != RB_OK)
        return -1;
    if (rb_context_set_nan_mode(ctx, (rb_nan_mode)rb_settings_int(s, "nan")) != RB_OK) /* missing without it */
        return -1;
    if (rb_settings_given(s, "threads") && rb_context_set_threads(ctx, rb_settings_int(s, "threads")) != RB_OK)
        return -1;
    return 0;
}

/* "  --sigma-x SIGMA_X" padded to the help column, then the text wrapped. */
static void print_option(const char *name, const char *alias, const char *metavar, const char *text)
{
    char head[64];
    if (alias)
        snprintf(head, sizeof head, "  %s, %s%s%s", alias, name, metavar ? " " : "", metavar ? metavar : "");
    else
        snprintf(head, sizeof head, "  %s%s%s", name, metavar ? " " : "", metavar ? metavar : "");
    const int col = 22, width = 80;
    int at = printf("%s", head);
    if (at >= col) {
        putchar('\n');
        at = 0;
    }
    /* wrap text at spaces */
    const char *p = text;
    while (*p) {
        printf("%*s", col - at, "");
        at = col;
        const char *line_end = p;
        const char *last_space = NULL;
        while (*line_end && at + (line_end - p) < width) {
            if (*line_end == ' ')
                last_space = line_end;
            line_end++;
        }
        if (*line_end && last_space)
            line_end = last_space;
        printf("%.*s\n", (int)(line_end - p), p);
        at = 0;
        p = line_end;
        while (*p == ' ')
            p++;
    }
}

void cli_print_options(const rb_op_desc *op)
{
    printf("Options:\n");
    for (int i = 0; i < op->n_settings; i++) {
        const rb_setting_desc *d = op->settings[i];
        char name[72], metavar[64], allowed[160], def[64], text[600];
        snprintf(name, sizeof name, "--%s", d->key);
        /* what to type: N for numbers, the choices when they are few */
        if (d->type == RB_SETTING_CHOICE) {
            size_t at = 0;
            metavar[0] = 0;
            for (const rb_choice *c = d->choices; c->name && at < sizeof metavar; c++)
                at += (size_t)snprintf(metavar + at, sizeof metavar - at, "%s%s", c == d->choices ? "" : "|",
                                       c->name);
            if ((d->flags & RB_SETTING_OR_FILE) && at < sizeof metavar)
                snprintf(metavar + at, sizeof metavar - at, "|FILE");
        } else {
            snprintf(metavar, sizeof metavar, "%s",
                     d->type == RB_SETTING_BOUNDARY ? "MODE" : d->type == RB_SETTING_TEXT ? "TEXT" : "N");
        }
        rb_setting_allowed(d, allowed, sizeof allowed);
        rb_setting_default_text(op, d, def, sizeof def);
        int axis = d->x_key && !(d->flags & RB_SETTING_BOTH_AXES);
        if (d->type == RB_SETTING_BOOL)
            snprintf(text, sizeof text, "%s", d->help);
        else if (d->type == RB_SETTING_CHOICE) /* the metavar lists the values */
            snprintf(text, sizeof text, "%s (default %s)", d->help, def);
        else if (d->type == RB_SETTING_TEXT || d->type == RB_SETTING_BOUNDARY)
            snprintf(text, sizeof text, "%s%s%s%s", d->help,
                     d->flags & RB_SETTING_REQUIRED || !def[0] ? "" : " (default ",
                     d->flags & RB_SETTING_REQUIRED || !def[0] ? "" : def,
                     d->flags & RB_SETTING_REQUIRED || !def[0] ? "" : ")");
        else if (d->flags & RB_SETTING_REQUIRED || axis)
            snprintf(text, sizeof text, "%s; %s", d->help, allowed);
        else
            snprintf(text, sizeof text, "%s; %s (default %s)", d->help, allowed, def);
        print_option(name, NULL, d->type == RB_SETTING_BOOL ? NULL : metavar, text);
    }
    for (int k = 0; k < N_OWN; k++)
        if (cli_own[k].ops & OP(op->id))
            print_option(cli_own[k].name, cli_own[k].alias, cli_own[k].metavar, cli_own[k].help);
}
