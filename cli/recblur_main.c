/* recblur: command-line front end of the recblur engine.
 * recblur COMMAND [options] IN OUT   (see cli_print_help) */
#include "cli.h"
#include "cmd_deblur.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_fail(CLI_EXIT_USAGE, "no command given (try: recblur --help)");
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h")) {
        cli_print_help(-1);
        return 0;
    }
    if (!strcmp(c, "--version") || !strcmp(c, "-V")) {
        cli_print_version();
        return 0;
    }
    if (!strcmp(c, "help")) {
        if (argc == 2) {
            cli_print_help(-1);
            return 0;
        }
        if (!strcmp(argv[2], "deblur") || !strcmp(argv[2], "design-deblur")) {
            rb_cli_deblur_help();
            return 0;
        }
        int cmd = cli_command_from_name(argv[2]);
        if (cmd < 0 && strcmp(argv[2], "presets"))
            return cli_fail(CLI_EXIT_USAGE, "help: unknown command \"%s\" (try: recblur --help)", argv[2]);
        if (cmd < 0) {
            char *args[] = {argv[0], "presets", "--help"};
            return cli_run_presets(3, args, 2);
        }
        cli_print_help(cmd);
        return 0;
    }
    if (!strcmp(c, "presets"))
        return cli_run_presets(argc, argv, 2);
    /* the deblur commands parse their own options (cli/cmd_deblur.c) */
    if (!strcmp(c, "deblur"))
        return rb_cli_deblur(argc - 1, argv + 1);
    if (!strcmp(c, "design-deblur"))
        return rb_cli_design_deblur(argc - 1, argv + 1);
    int cmd = cli_command_from_name(c);
    if (cmd < 0)
        return cli_fail(CLI_EXIT_USAGE, "unknown command \"%s\" (commands: blur, filter, bspline, sat, box, deblur, design-deblur, presets; "
                        "try: recblur --help)", c);
    cli_options o;
    char err[CLI_ERR_LEN];
    if (cli_parse_options(rb_op_get((rb_op_id)cmd), argc, argv, 2, &o, err, sizeof err))
        return cli_fail(CLI_EXIT_USAGE, "%s", err);
    if (o.help) {
        cli_print_help(cmd);
        return 0;
    }
    return cli_run(&o);
}
