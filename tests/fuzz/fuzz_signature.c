/* Fuzz target: filter signatures "b0, b1, ...: a1, a2, ..." (rb_filter_parse),
 * plus the boundary and back-end words that share the string parsers.
 * Byte 0 picks the direction, the axes and the boundary; the rest is the text.
 * A signature that parses is also planned and run on a small image (CPU, one
 * thread), so whatever the parser lets through must be safe to execute. */
#include "fuzz_util.h"
#include "recblur.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    rb_fuzz_once();
    rb_direction dir = (rb_direction)(data[0] % 3);
    rb_axes axes = (rb_axes)((data[0] / 3) % 3);
    rb_boundary_mode mode = (rb_boundary_mode)((data[0] / 9) % 6);
    char *text = rb_fuzz_strndup(data + 1, size - 1);

    rb_context *ctx = NULL;
    RB_FUZZ_CHECK(rb_context_create(&ctx) == RB_OK, "context");
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    rb_context_set_threads(ctx, 1);

    rb_boundary b;
    if (rb_boundary_parse(ctx, text, &b) != RB_OK)
        RB_FUZZ_CHECK(rb_context_error(ctx)[0], "boundary refused without a message");
    rb_backend be;
    if (rb_backend_parse(ctx, text, &be) != RB_OK)
        RB_FUZZ_CHECK(rb_context_error(ctx)[0], "backend refused without a message");

    rb_filter *f = NULL;
    rb_status st = rb_filter_parse(ctx, text, dir, axes, &f);
    if (st != RB_OK) {
        RB_FUZZ_CHECK(f == NULL, "failed parse left a filter");
        RB_FUZZ_CHECK(rb_context_error(ctx)[0], "signature refused without a message (status %d)", st);
    } else {
        RB_FUZZ_CHECK(f != NULL, "parse succeeded without a filter");
        const char *d = rb_filter_describe(f);
        RB_FUZZ_CHECK(d && strlen(d) < 4096, "describe");
        for (int a = 0; a < 2; a++) {
            rb_axis_filter ax;
            RB_FUZZ_CHECK(rb_filter_get_axis(f, a, &ax) == RB_OK, "get_axis");
            RB_FUZZ_CHECK(ax.causal_order >= 0 && ax.causal_order <= RB_MAX_ORDER &&
                              ax.anticausal_order >= 0 && ax.anticausal_order <= RB_MAX_ORDER,
                          "orders %d %d", ax.causal_order, ax.anticausal_order);
            RB_FUZZ_CHECK(ax.fir_hi - ax.fir_lo + 1 <= RB_MAX_FIR_TAPS, "fir taps");
        }
        /* run it: 13x7, 2 channels, float, in place */
        enum { W = 13, H = 7, C = 2 };
        float px[W * H * C];
        for (int i = 0; i < W * H * C; i++)
            px[i] = (float)((i * 37) % 101) / 100.0f;
        rb_boundary bd = {mode, 0.25f};
        rb_plan *plan = NULL;
        st = rb_plan_create(ctx, f, bd, W, H, C, &plan);
        if (st == RB_OK) {
            rb_image img = {W, H, C, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, px};
            if (rb_execute(plan, &img, &img) != RB_OK)
                RB_FUZZ_CHECK(rb_context_error(ctx)[0], "execute failed without a message");
            rb_plan_destroy(plan);
        } else {
            RB_FUZZ_CHECK(rb_context_error(ctx)[0], "plan refused without a message (status %d)", st);
        }
        rb_filter_destroy(f);
    }
    rb_context_destroy(ctx);
    free(text);
    return 0;
}
