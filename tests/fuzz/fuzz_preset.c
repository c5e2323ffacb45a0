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
        RB_FUZZ_CHECK(memchr(p.name, 0, sizeof p.name) && memchr(p.op, 0, sizeof p.op) &&
                          memchr(p.description, 0, sizeof p.description) &&
                          memchr(p.signature, 0, sizeof p.signature),
                      "unterminated string field");
        if (!strcmp(p.op, "blur") || !strcmp(p.op, "filter") || !strcmp(p.op, "bspline")) {
            rb_filter *f = NULL;
            st = rb_preset_filter(ctx, &p, &f);
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
