/* Fuzz target: the ImageMagick module's argument parser
 * (plugin-magick/rb_magick_options.c: rb_magick_options_parse), in process,
 * without ImageMagick. Byte 0 gives how many of the NUL-separated strings
 * that follow are `-define recblur:KEY=VALUE` settings (split at their first
 * '='); the rest are the words of -process 'recblur ...'. */
#include "fuzz_util.h"
#include "rb_magick_options.h"

#include <math.h>

#define MAX_WORDS 48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 16384)
        return 0;
    rb_fuzz_once();
    char *words[MAX_WORDS], *buf;
    int n = rb_fuzz_split(data + 1, size - 1, words, MAX_WORDS, &buf);
    int nd = data[0] % 8;
    if (nd > n)
        nd = n;
    rb_magick_define defs[8];
    for (int i = 0; i < nd; i++) {
        char *eq = strchr(words[i], '=');
        if (eq)
            *eq = 0;
        defs[i].key = words[i];
        defs[i].value = eq ? eq + 1 : "";
    }
    rb_context *ctx = NULL;
    RB_FUZZ_CHECK(rb_context_create(&ctx) == RB_OK, "context");
    rb_magick_options opt;
    char err[2048] = "";
    int rc = rb_magick_options_parse(ctx, defs, nd, n - nd, (const char **)(words + nd), &opt, err,
                                     sizeof err);
    if (rc != 0) {
        RB_FUZZ_CHECK(err[0], "refused without a message");
    } else {
        RB_FUZZ_CHECK(memchr(rb_settings_text(&opt.settings, "signature"), 0, RB_SETTING_TEXT_MAX),
                      "unterminated signature");
        RB_FUZZ_CHECK(opt.settings.op != NULL && opt.settings.op->name != NULL, "op name");
        RB_FUZZ_CHECK(!isnan(rb_settings_number(&opt.settings, "sigma-x")) &&
                          !isnan(rb_settings_number(&opt.settings, "sigma-y")),
                      "NaN sigma accepted");
    }
    rb_context_destroy(ctx);
    free(buf);
    return 0;
}
