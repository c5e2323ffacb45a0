/* recblur deblur / recblur design-deblur: the quadrant 2D IIR deblur filter
 * from the command line. argv[0] is the command name ("deblur" or
 * "design-deblur"), options follow; the dispatcher calls
 * rb_cli_deblur(argc - 1, argv + 1). Return the exit status (0, 1 failure,
 * 2 usage). */
#ifndef CLI_CMD_DEBLUR_H
#define CLI_CMD_DEBLUR_H

int rb_cli_deblur(int argc, char **argv);
int rb_cli_design_deblur(int argc, char **argv);
/* Help text of both commands. */
void rb_cli_deblur_help(void);

#endif
