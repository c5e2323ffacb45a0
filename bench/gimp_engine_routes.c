/* The engine's part of a GIMP 2.10 plug-in call, route by route (issue 17
 * item 2): rb_execute on the plug-in's benchmark image (6000 x 4000 RGB,
 * Gaussian sigma 20, clamp; bench/gimp_overhead.sh times the whole call) as
 * the plug-in hands it over:
 *   f32    babl's float, filtered in place (the route for linear light)
 *   u8     the drawable's own "R'G'B' u8" (the route for perceptual filtering)
 *   u8lin  the same with the engine's own linear light (rb_plan_set_linear_light)
 * with a progress callback, as the plug-in always sets one (GIMP's progress
 * bar), or without (-p 0: the engine's callback-free routes, cpu/cpu_sweep.c).
 * Random samples, fixed seed; prints each call's wall seconds and the median.
 *   gimp_engine_routes ROUTE [-p 0|1] [-r runs] [-w W] [-h H] [-s sigma]
 * RECBLUR_CPU_LANES (engine/src/api/switches.c) still applies. */
#define _POSIX_C_SOURCE 200809L
#include <recblur.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* getopt */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The plug-in's callback does a GIMP round trip once per percent; here it
 * only has to exist, which is what selects the engine's route. */
static int progress_noop(double fraction, void *user)
{
    (void)fraction;
    (void)user;
    return 0;
}

int main(int argc, char **argv)
{
    int W = 6000, H = 4000, runs = 3, progress = 1, opt;
    double sigma = 20.0;
    const char *route = argc > 1 ? argv[1] : "";
    optind = 2;
    while ((opt = getopt(argc, argv, "p:r:w:h:s:")) != -1) {
        switch (opt) {
        case 'p': progress = atoi(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 'w': W = atoi(optarg); break;
        case 'h': H = atoi(optarg); break;
        case 's': sigma = atof(optarg); break;
        default: return 2;
        }
    }
    int f32 = !strcmp(route, "f32"), lin = !strcmp(route, "u8lin");
    if ((!f32 && !lin && strcmp(route, "u8")) || runs < 1 || runs > 64 || W < 1 || H < 1) {
        fprintf(stderr, "usage: gimp_engine_routes f32|u8|u8lin [-p 0|1] [-r runs<=64] [-w W] [-h H] [-s sigma]\n");
        return 2;
    }
    rb_context *ctx = NULL;
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    rb_boundary clamp = {RB_BOUNDARY_CLAMP, 0.0f};
    if (rb_context_create(&ctx) != RB_OK)
        return 1;
    if (progress)
        rb_context_set_progress(ctx, progress_noop, NULL);
    if (rb_filter_gaussian(ctx, sigma, sigma, RB_GAUSSIAN_DEFAULT, &f) != RB_OK ||
        rb_plan_create(ctx, f, clamp, W, H, 3, &plan) != RB_OK ||
        (lin && rb_plan_set_linear_light(plan, 1) != RB_OK)) {
        fprintf(stderr, "gimp_engine_routes: %s\n", rb_context_error(ctx));
        return 1;
    }
    size_t n = (size_t)W * (size_t)H * 3;
    rb_image img = {0};
    img.width = W;
    img.height = H;
    img.channels = 3;
    img.memory = RB_MEMORY_HOST;
    img.format = f32 ? RB_F32 : RB_U8;
    img.srgb = !f32;
    img.data = malloc(n * (f32 ? sizeof(float) : 1));
    if (!img.data)
        return 1;
    srand(20261126);
    for (size_t i = 0; i < n; i++) {
        int v = rand() & 255;
        if (f32)
            ((float *)img.data)[i] = (float)v / 255.0f;
        else
            ((unsigned char *)img.data)[i] = (unsigned char)v;
    }
    double t[64];
    printf("%s, %dx%d RGB, sigma %g, progress callback %s:", route, W, H, sigma, progress ? "on" : "off");
    for (int k = 0; k < runs; k++) {
        double t0 = now();
        if (rb_execute(plan, &img, &img) != RB_OK) {
            fprintf(stderr, "gimp_engine_routes: %s\n", rb_context_error(ctx));
            return 1;
        }
        t[k] = now() - t0;
        printf(" %.3f", t[k]);
        fflush(stdout);
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_d);
    printf("  median %.3f s (%s)\n", t[runs / 2], rb_plan_backend_name(plan));
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    free(img.data);
    return 0;
}
