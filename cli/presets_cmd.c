/* recblur presets: the presets on the search path, with their descriptions. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_run_presets(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("Usage: recblur presets\n\n"
                   "Lists the presets found (NAME.preset files in $RECBLUR_PRESET_PATH, the\n"
                   "installed presets directory and the source tree's presets/), with their\n"
                   "operation and description. Use one with: recblur OP --preset NAME IN OUT\n");
            return 0;
        }
        return cli_fail(CLI_EXIT_USAGE, "presets: unexpected argument \"%s\"", argv[i]);
    }
    enum { MAX_PRESETS = 256 };
    char (*names)[128] = calloc(MAX_PRESETS, sizeof *names);
    if (!names)
        return cli_fail(CLI_EXIT_FAIL, "out of memory");
    int n = rb_preset_list(names, MAX_PRESETS);
    if (n > MAX_PRESETS)
        n = MAX_PRESETS;
    rb_context *ctx = NULL;
    if (rb_context_create(&ctx) != RB_OK) {
        free(names);
        return cli_fail(CLI_EXIT_FAIL, "cannot create the engine context (out of memory?)");
    }
    if (n <= 0)
        printf("no presets found (set RECBLUR_PRESET_PATH to a directory of NAME.preset files)\n");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        rb_preset p;
        if (rb_preset_load(ctx, names[i], &p) == RB_OK)
            printf("%-24s %-8s %s\n", names[i], p.op[0] ? p.op : "blur", p.description);
        else {
            printf("%-24s %-8s (unreadable: %s)\n", names[i], "?", cli_engine_message(ctx));
            bad = 1;
        }
    }
    rb_context_destroy(ctx);
    free(names);
    (void)bad; /* listing goes on past a broken preset; using it reports the error */
    return 0;
}
