/* recblur presets: the presets on the search path (.preset filters and .deblur
 * designs), with their kind and descriptions. */
#include "cli.h"
#include "recblur_deblur.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PRESETS = 256 };

/* Filter presets (NAME.preset): their op (blur, filter, bspline, sat, box). */
static int list_filter_presets(rb_context *ctx, char (*names)[128])
{
    int n = rb_preset_list(names, MAX_PRESETS);
    for (int i = 0; i < n; i++) {
        rb_preset p;
        if (rb_preset_load(ctx, names[i], &p) == RB_OK)
            printf("%-24s %-8s %s\n", names[i], p.settings.op->name, p.description);
        else
            printf("%-24s %-8s (unreadable: %s)\n", names[i], "?", cli_engine_message(ctx));
    }
    return n;
}

/* Deblur presets (NAME.deblur): kind "deblur", for `recblur deblur --preset`. */
static int list_deblur_presets(rb_context *ctx, char (*names)[128])
{
    int n = rb_deblur_preset_list(names, MAX_PRESETS);
    for (int i = 0; i < n; i++) {
        rb_deblur_filter *f = NULL;
        if (rb_deblur_preset_load(ctx, names[i], &f, NULL, NULL) == RB_OK)
            printf("%-24s %-8s %s\n", names[i], "deblur", rb_deblur_filter_describe(f));
        else
            printf("%-24s %-8s (unreadable: %s)\n", names[i], "deblur", cli_engine_message(ctx));
        rb_deblur_filter_destroy(f);
    }
    return n;
}

int cli_run_presets(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("Usage: recblur presets\n\n"
                   "Lists the presets found (NAME.preset and NAME.deblur files in\n"
                   "$RECBLUR_PRESET_PATH, the installed presets directory and the source tree's\n"
                   "presets/): name, kind and description. The kind of a .preset is its\n"
                   "operation: use it with recblur OP --preset NAME IN OUT. Kind deblur is a\n"
                   "designed deblur filter: recblur deblur --preset NAME IN OUT.\n");
            return 0;
        }
        return cli_fail(CLI_EXIT_USAGE, "presets: unexpected argument \"%s\"", argv[i]);
    }
    char (*names)[128] = calloc(MAX_PRESETS, sizeof *names);
    if (!names)
        return cli_fail(CLI_EXIT_FAIL, "out of memory");
    rb_context *ctx = NULL;
    if (rb_context_create(&ctx) != RB_OK) {
        free(names);
        return cli_fail(CLI_EXIT_FAIL, "cannot create the engine context (out of memory?)");
    }
    /* Listing goes on past a broken preset; using it reports the error. */
    int n = list_filter_presets(ctx, names);
    n += list_deblur_presets(ctx, names);
    if (n <= 0)
        printf("no presets found (set RECBLUR_PRESET_PATH to a directory of NAME.preset or "
               "NAME.deblur files)\n");
    rb_context_destroy(ctx);
    free(names);
    return 0;
}
