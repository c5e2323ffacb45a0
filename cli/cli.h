/* Shared pieces of the recblur CLI: one-line errors, verbose info lines,
 * the read -> operate -> write pipeline and the per-command operations. */
#ifndef CLI_H
#define CLI_H

#include "image_io.h"
#include "options.h"
#include "recblur.h"

/* Exit statuses: 0 success, 1 failure (bad file, engine error), 2 usage error. */
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Prints exactly one line "recblur: <message>" to stderr (newlines in the
 * message become spaces) and returns `status`. */
int cli_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The context's last error as a one-line message (without a leading "recblur: "). */
const char *cli_engine_message(const rb_context *ctx);
/* With --verbose: "recblur info: ..." on stderr. */
/* "recblur info: ..." on stderr when verbose (for commands with their own options). */
void cli_info_if(int verbose, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cli_info(const cli_options *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "recblur: warning: ..." on stderr, always (one line): the command goes on. */
void cli_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
double cli_now_ms(void);

/* One operation on a loaded image. `out` is allocated by the caller with the
 * input's size and channels in the output format. Returns 0, or non-zero with
 * the error left in ctx (engine) or printed already (cli_fail). */
typedef struct {
    double plan_ms, execute_ms;
    const char *backend;        /* rb_plan_backend_name, or what the op used */
    char description[320];
} cli_op_report;

int cli_op_filter(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
                  const rb_weights *weights, rb_image *out, cli_op_report *rep);
int cli_op_box(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               const rb_weights *weights, rb_image *out, cli_op_report *rep);

/* The weights --mask names for the input `in` (cli/mask.c): none, alpha, or
 * a file read into `file` (free it with cli_image_free) that must be a gray
 * image of in's size. 0, or -1 with the message in err. */
int cli_mask_load(const cli_settings *s, const rb_image *in, cli_image *file, rb_weights *w,
                  char *err, size_t errlen);
int cli_op_sat(rb_context *ctx, const cli_options *o, const cli_settings *s, const rb_image *in,
               rb_image *out, cli_op_report *rep);

/* blur/filter/bspline on the TIFF or PNG in_path, a band of rows at a time (the
 * engine's strips), written to out_path (TIFF or PNG) in out_fmt: 0; 1 when the engine
 * cannot run this filter in strips (why in err; nothing written); -1 with
 * the message in err. The band height is the one that takes least memory
 * (the engine's carries shrink with taller bands, the bands grow), with
 * two band buffers: the file is read and written on a second thread while
 * the engine works on the other buffer. */
int cli_op_filter_stream(rb_context *ctx, const cli_settings *s, const char *in_path,
                         const char *out_path, cli_file_type out_type, rb_format out_fmt,
                         const cli_codec *codec,
                         uint64_t limit, cli_op_report *rep, char *err, size_t errlen);

/* blur/filter/bspline/sat/box: the whole command. Returns the exit status. */
int cli_run(const cli_options *o);
/* recblur presets */
int cli_run_presets(int argc, char **argv, int first);

/* Help and version texts. cmd < 0: overall help. */
void cli_print_help(int cmd);
/* intro (usage and what the command does), then op's options from the table. */
void cli_print_op_help(const rb_op_desc *op, const char *intro);
void cli_print_version(void);

#endif /* CLI_H */
