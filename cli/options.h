/* Command-line options of the recblur CLI: parsing (strict: every number must
 * be a whole, finite number) and merging with a preset (options given on the
 * command line override the preset's values). */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include "output_options.h"
#include "recblur.h"
#include <stddef.h>

typedef enum { CLI_BLUR = 0, CLI_FILTER, CLI_BSPLINE, CLI_SAT, CLI_BOX, CLI_N_COMMANDS } cli_command;

typedef struct {
    cli_command cmd;
    const char *in, *out;
    /* blur */
    int have_sigma, have_sigma_x, have_sigma_y;
    double sigma, sigma_x, sigma_y;
    int accurate;
    int linear;          /* --linear: filter in linear light (8/16-bit sRGB files) */
    /* filter */
    const char *signature;
    const char *direction_text, *axes_text;
    /* bspline */
    int have_degree, degree;
    /* box */
    int have_size, have_size_x, have_size_y;
    int size, size_x, size_y;
    /* common */
    const char *boundary_text;
    const char *backend_text;
    const char *preset;
    const char *depth_text;
    int have_threads, threads;
    cli_output_request output;   /* --compress, --level (output_options.c) */
    int verbose;
    int help;
} cli_options;

/* What the command will run, after the preset and the defaults are applied. */
typedef struct {
    double sigma_x, sigma_y;
    rb_gaussian_quality quality;
    const char *signature;
    rb_direction direction;
    rb_axes axes;
    int degree;
    int size_x, size_y;
    rb_boundary boundary;
    int have_depth;
    rb_format depth;
    char preset_signature[512];   /* storage for a signature taken from the preset */
} cli_settings;

const char *cli_command_name(cli_command cmd);
/* cmd from its name; -1 if unknown. */
int cli_command_from_name(const char *name);

/* Parses argv[first..argc-1] for `cmd`. Returns 0 on success (opts->help set when
 * --help was given), -1 with a message in err on a usage error. */
int cli_parse_options(cli_command cmd, int argc, char **argv, int first, cli_options *opts,
                      char *err, size_t errlen);

/* Loads the preset (if any), applies defaults and explicit options, parses
 * boundary/direction/axes. Returns 0, or -1 with a message in err. */
int cli_resolve_settings(rb_context *ctx, const cli_options *opts, cli_settings *out, char *err,
                         size_t errlen);

/* Default boundary of each command (documented in --help and README). */
rb_boundary_mode cli_default_boundary(cli_command cmd);

#endif /* CLI_OPTIONS_H */
