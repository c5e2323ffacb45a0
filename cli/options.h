/* Command-line options of the recblur CLI. Every operation setting is an
 * option `--KEY VALUE` (a bool is a flag `--KEY`) taken from the engine's
 * operation table (recblur_ops.h); the options that are the CLI's own (files,
 * output depth, verbosity) are one small table in options.c. Strict: "--sigma
 * 2x" or a missing value is an error naming the option, never a silent
 * default. Options given on the command line override a --preset's values. */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include "output_options.h"
#include "recblur.h"
#include <stddef.h>

/* The image commands run by cli_run, in the table's order. */
typedef enum { CLI_BLUR = RB_OP_BLUR, CLI_FILTER = RB_OP_FILTER, CLI_BSPLINE = RB_OP_BSPLINE,
               CLI_SAT = RB_OP_SAT, CLI_BOX = RB_OP_BOX, CLI_N_COMMANDS } cli_command;

#define CLI_MAX_WORDS 64

/* Without --memory, the need (MiB) past which an 8-bit TIFF / PNG without
 * alpha is filtered in strips when the back end is the cpu (cli/run.c,
 * memory_rule; bench/RESULTS.md, "memdefault"); otherwise 1 GiB. */
#define CLI_TIFF_CPU_MIB 128
#define CLI_PNG_CPU_MIB 512
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

typedef struct {
    cli_command cmd;
    const rb_op_desc *op;
    const char *in, *out;
    /* the operation settings given, in order: applied over the preset */
    int n_words;
    struct {
        const char *key;
        const char *value;
    } words[CLI_MAX_WORDS];
    /* the CLI's own options */
    const char *preset;
    const char *depth_text;
    long long memory_mib;      /* --memory: 0 = the default (cli/run.c, memory_rule) */
    const char *psf_file;      /* deblur, design-deblur: --psf FILE */
    const char *out_preset;    /* design-deblur: --out PRESET */
    cli_output_request output;   /* --compress, --level (output_options.c) */
    int verbose;
    int help;
} cli_options;

/* What the command will run, after the defaults, the preset and the options. */
typedef struct {
    rb_settings op;            /* every setting of the command's operation */
    int have_depth;
    rb_format depth;
} cli_settings;

const char *cli_command_name(cli_command cmd);
/* cmd from its name; -1 if unknown. */
int cli_command_from_name(const char *name);

/* Parses argv[first..argc-1] for operation `op` (an image command, deblur or
 * design-deblur). Returns 0 on success (opts->help set when --help was
 * given), -1 with a message in err on a usage error. */
int cli_parse_options(const rb_op_desc *op, int argc, char **argv, int first, cli_options *opts,
                      char *err, size_t errlen);

/* The table's defaults, then the preset's settings (if any, an image command's
 * .preset), then the options given. Returns 0, or -1 with a message in err. */
int cli_resolve_settings(rb_context *ctx, const cli_options *opts, cli_settings *out, char *err,
                         size_t errlen);

/* The settings a context takes (backend, threads); -1 with the engine's message in ctx. */
int cli_apply_context_settings(rb_context *ctx, const rb_settings *s);

/* The option list of op's --help, generated from the table and the CLI's own
 * options. */
void cli_print_options(const rb_op_desc *op);

#endif /* CLI_OPTIONS_H */
