/* Fuzz target: the recblur CLI's option parsers, in process.
 * Byte 0 picks the command: blur, filter, bspline, sat, box, deblur or
 * design-deblur (cli/options.c: cli_parse_options, then cli_resolve_settings,
 * which loads presets and parses every value through the engine's table; for
 * the deblur commands cli/cmd_deblur.c's parse_args, reached by including
 * that file). The rest, split at NUL bytes,
 * is argv. Nothing is read or written but presets: no image is processed. */
#include "fuzz_util.h"

/* parse_args is static in cmd_deblur.c: compile that file into this harness. */
#include "cmd_deblur.c"

#include "options.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 16384)
        return 0;
    rb_fuzz_once();
    int which = data[0] % 7;
    char *args[MAX_ARGS + 2], *buf;
    int n = rb_fuzz_split(data + 1, size - 1, args + 2, MAX_ARGS, &buf);
    char *argv[MAX_ARGS + 2];
    argv[0] = "recblur";
    for (int i = 0; i < n; i++)
        argv[i + 2] = args[i + 2];
    int argc = n + 2;
    if (which < CLI_N_COMMANDS) {
        argv[1] = (char *)cli_command_name((cli_command)which);
        cli_options o;
        char err[CLI_ERR_LEN] = "";
        if (cli_parse_options(rb_op_get((rb_op_id)which), argc, argv, 2, &o, err, sizeof err) != 0) {
            RB_FUZZ_CHECK(err[0], "usage error without a message");
        } else if (!o.help) {
            RB_FUZZ_CHECK(o.in && o.out, "parse succeeded without IN and OUT");
            (void)cli_file_type_from_name(o.in);
            (void)cli_file_type_from_name(o.out);
            rb_context *ctx = NULL;
            RB_FUZZ_CHECK(rb_context_create(&ctx) == RB_OK, "context");
            cli_settings s;
            if (cli_resolve_settings(ctx, &o, &s, err, sizeof err) != 0)
                RB_FUZZ_CHECK(err[0], "settings refused without a message");
            else if (o.cmd == CLI_BOX)
                RB_FUZZ_CHECK(rb_settings_int(&s.op, "size-x") >= 1 && rb_settings_int(&s.op, "size-y") >= 1,
                              "box size %d %d", rb_settings_int(&s.op, "size-x"), rb_settings_int(&s.op, "size-y"));
            rb_context_destroy(ctx);
        }
    } else {
        int design = which == 6;
        argv[1] = design ? "design-deblur" : "deblur";
        cli_options a;
        cli_settings s;
        rb_context *ctx = NULL;
        RB_FUZZ_CHECK(rb_context_create(&ctx) == RB_OK, "context");
        int rc = parse_args(argc - 1, argv + 1, design, &a, &s, ctx);
        RB_FUZZ_CHECK(rc == 0 || rc == CLI_EXIT_USAGE, "parse_args returned %d", rc);
        if (rc == 0 && !a.help) {
            int window = rb_settings_int(&s.op, "window");
            RB_FUZZ_CHECK(design ? a.out_preset != NULL : (a.in && a.out), "missing files");
            RB_FUZZ_CHECK(window >= RB_DEBLUR_MIN_WINDOW && window <= RB_DEBLUR_MAX_WINDOW, "window %d", window);
        }
        rb_context_destroy(ctx);
    }
    free(buf);
    return 0;
}
