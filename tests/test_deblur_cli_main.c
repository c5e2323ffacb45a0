/* A stand-alone `recblur` with only the deblur commands, so the deblur CLI
 * and its shell tests build even before cli/recblur_main.c dispatches them:
 *   recblur-deblur deblur ... | recblur-deblur design-deblur ... */
#include "cmd_deblur.h"
#include "cli.h"

#include <string.h>

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "deblur"))
        return rb_cli_deblur(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "design-deblur"))
        return rb_cli_design_deblur(argc - 1, argv + 1);
    return cli_fail(CLI_EXIT_USAGE, "usage: %s deblur|design-deblur ...", argv[0]);
}
