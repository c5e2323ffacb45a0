/* Fuzz target: preset text (rb_preset_parse_text, the parser behind every
 * rb_preset_load) and the filter a parsed preset describes. */
#include "fuzz_util.h"
#include "recblur.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (2u << 20))
        return 0;
    rb_fuzz_once();
    char *text = rb_fuzz_strndup(data, size);
    rb_context *ctx = NULL;
    RB_FUZZ_CHECK(rb_context_create(&ctx) == RB_OK, "context");
    rb_preset p;
    rb_status st = rb_preset_parse_text(ctx, text, "fuzz/input.preset", &p);
    if (st != RB_OK) {
        RB_FUZZ_CHECK(rb_context_error(ctx)[0], "preset refused without a message (status %d)", st);
    } else {
        RB_FUZZ_CHECK(memchr(p.name, 0, sizeof p.name) && memchr(p.description, 0, sizeof p.description) &&
                          memchr(rb_settings_text(&p.settings, "signature"), 0, RB_SETTING_TEXT_MAX),
                      "unterminated string field");
        rb_op_id op = p.settings.op->id;
        if (op == RB_OP_BLUR || op == RB_OP_FILTER || op == RB_OP_BSPLINE) {
            rb_filter *f = NULL;
            st = rb_settings_filter(ctx, &p.settings, &f, NULL);
            if (st == RB_OK) {
                RB_FUZZ_CHECK(f != NULL, "preset filter");
                (void)rb_filter_describe(f);
                rb_filter_destroy(f);
            } else {
                RB_FUZZ_CHECK(rb_context_error(ctx)[0], "preset filter refused without a message");
            }
        }
    }
    rb_context_destroy(ctx);
    free(text);
    return 0;
}
