/* Reference helper for the CLI tests: makes deterministic float images as
 * PFM (its own writer, either byte order) and checks that a PFM the CLI wrote
 * equals the engine's in-process result bit for bit (its own reader, so a
 * CLI codec bug cannot hide behind the same bug in the check).
 *
 *   test_cli_ref gen W H C SEED OUT.pfm [le|be]
 *   test_cli_ref check CLI_OUT.pfm W H C SEED blur SX SY BOUNDARY
 *   test_cli_ref check CLI_OUT.pfm W H C SEED filter SIGNATURE DIRECTION AXES BOUNDARY
 *
 * The generated samples lie in [-0.25, 1.25): outside [0,1] on purpose, so
 * any clamping or quantisation on the PFM path shows. */
#include "recblur.h"
#include "pfm_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *make_image(int w, int h, int c, unsigned seed)
{
    size_t n = (size_t)w * h * c;
    float *p = malloc(n * sizeof *p);
    uint64_t s = 0x9E3779B97F4A7C15ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;   /* xorshift64 */
        p[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 1.5 - 0.25);
    }
    return p;
}

static int gen(int w, int h, int c, unsigned seed, const char *path, int big)
{
    float *p = make_image(w, h, c, seed);
    int rc = pfm_write(path, p, w, h, c, big);
    free(p);
    return rc;
}

static int fail_engine(rb_context *ctx)
{
    fprintf(stderr, "engine: %s\n", rb_context_error(ctx));
    return 1;
}

static int check(int argc, char **argv)
{
    const char *path = argv[2];
    int w = atoi(argv[3]), h = atoi(argv[4]), c = atoi(argv[5]);
    unsigned seed = (unsigned)atoi(argv[6]);
    const char *op = argv[7];
    rb_context *ctx;
    rb_filter *f = NULL;
    rb_boundary b;
    rb_context_create(&ctx);
    if (!strcmp(op, "blur") && argc == 11) {
        double sx = atof(argv[8]), sy = atof(argv[9]);
        rb_status st = sx == 0.0 && sy == 0.0 ? rb_filter_create(ctx, NULL, NULL, &f)
                                              : rb_filter_gaussian(ctx, sx, sy, RB_GAUSSIAN_DEFAULT, &f);
        if (st || rb_boundary_parse(ctx, argv[10], &b))
            return fail_engine(ctx);
    } else if (!strcmp(op, "filter") && argc == 12) {
        rb_direction d = !strcmp(argv[9], "causal") ? RB_DIRECTION_CAUSAL
                         : !strcmp(argv[9], "anticausal") ? RB_DIRECTION_ANTICAUSAL : RB_DIRECTION_BOTH;
        rb_axes a = !strcmp(argv[10], "x") ? RB_AXES_X : !strcmp(argv[10], "y") ? RB_AXES_Y : RB_AXES_BOTH;
        if (rb_filter_parse(ctx, argv[8], d, a, &f) || rb_boundary_parse(ctx, argv[11], &b))
            return fail_engine(ctx);
    } else {
        fprintf(stderr, "usage: see the top of test_cli_ref.c\n");
        return 2;
    }
    float *in = make_image(w, h, c, seed);
    float *ref = malloc((size_t)w * h * c * sizeof *ref);
    rb_image iin = {w, h, c, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in};
    rb_image iout = iin;
    iout.data = ref;
    rb_plan *plan;
    if (rb_plan_create(ctx, f, b, w, h, c, &plan) || rb_execute(plan, &iin, &iout))
        return fail_engine(ctx);
    int ow, oh, oc;
    float *got = pfm_read(path, &ow, &oh, &oc);
    if (!got)
        return 1;
    if (ow != w || oh != h || oc != c) {
        fprintf(stderr, "%s: %dx%dx%d, expected %dx%dx%d\n", path, ow, oh, oc, w, h, c);
        return 1;
    }
    size_t n = (size_t)w * h * c, bad = 0, first = 0;
    double maxdiff = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &ref[i], 4)) {
            if (!bad++)
                first = i;
            double d = got[i] > ref[i] ? got[i] - ref[i] : ref[i] - got[i];
            if (d > maxdiff)
                maxdiff = d;
        }
    if (bad) {
        fprintf(stderr, "%s: %zu of %zu samples differ from the in-process result (first at %zu: %.9g vs %.9g, max |diff| %.3g)\n",
                path, bad, n, first, got[first], ref[first], maxdiff);
        return 1;
    }
    printf("%s: %zu samples equal the in-process result bit for bit\n", path, n);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    free(in); free(ref); free(got);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 7 && !strcmp(argv[1], "gen"))
        return gen(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), (unsigned)atoi(argv[5]), argv[6],
                   argc > 7 && !strcmp(argv[7], "be"));
    if (argc >= 8 && !strcmp(argv[1], "check"))
        return check(argc, argv);
    fprintf(stderr, "usage: see the top of test_cli_ref.c\n");
    return 2;
}
