/* Streamed vs in-memory blur of a large gray F32 image (issue 18 item 1):
 *   stream_bench W H SIGMA BOUNDARY STRIP_ROWS      (STRIP_ROWS 0: in memory)
 * The image is made on the fly from a hash of (x, y), strip by strip when
 * streaming, so the process never holds it whole; the output strips are
 * summed and dropped. Prints the time and the output's sum (the two routes
 * must agree to float rounding). Peak memory: run under /usr/bin/time -v. */
#define _POSIX_C_SOURCE 200809L
#include "recblur.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static float pixel(uint32_t x, uint32_t y)
{
    uint32_t h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return (float)(h & 0xFFFF) / 65535.0f;
}

static void fill(float *buf, int w, int y0, int rows)
{
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < w; x++)
            buf[(size_t)y * w + x] = pixel((uint32_t)x, (uint32_t)(y0 + y));
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: stream_bench W H SIGMA BOUNDARY STRIP_ROWS(0 = in memory)\n");
        return 2;
    }
    const int w = atoi(argv[1]), h = atoi(argv[2]), sr = atoi(argv[5]);
    rb_context *ctx;
    rb_filter *f;
    rb_plan *plan;
    rb_boundary b;
    rb_context_create(&ctx);
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    if (rb_boundary_parse(ctx, argv[4], &b) != RB_OK ||
        rb_filter_gaussian(ctx, atof(argv[3]), atof(argv[3]), RB_GAUSSIAN_DEFAULT, &f) != RB_OK ||
        rb_plan_create(ctx, f, b, w, h, 1, &plan) != RB_OK) {
        fprintf(stderr, "%s\n", rb_context_error(ctx));
        return 1;
    }
    double sum = 0, t0 = now();
    if (sr <= 0) {
        float *img = malloc(sizeof(float) * (size_t)w * h);
        if (!img)
            return 1;
        fill(img, w, 0, h);
        t0 = now(); /* the blur only; making the image is not timed */
        rb_image im = {w, h, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, img};
        if (rb_execute(plan, &im, &im) != RB_OK) {
            fprintf(stderr, "%s\n", rb_context_error(ctx));
            return 1;
        }
        double t1 = now();
        for (size_t i = 0; i < (size_t)w * h; i++)
            sum += img[i];
        printf("in memory on %s: %.3f s, sum %.9g\n", rb_plan_backend_name(plan), t1 - t0, sum);
        free(img);
    } else {
        float *in = malloc(sizeof(float) * (size_t)w * sr), *out = malloc(sizeof(float) * (size_t)w * sr);
        rb_stream *st;
        double tf = 0; /* time spent making the input strips, not counted */
        if (!in || !out || rb_stream_create(plan, &st) != RB_OK)
            return 1;
        for (int pass = 0; pass < 2; pass++) {
            for (int y0 = 0; y0 < h; y0 += sr) {
                int n = h - y0 < sr ? h - y0 : sr;
                double a = now();
                fill(in, w, y0, n);
                tf += now() - a;
                rb_image si = {w, n, 1, 0, RB_F32, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, in}, so = si;
                so.data = out;
                rb_status s = pass == 0 ? rb_stream_gather(st, &si, y0) : rb_stream_produce(st, &si, &so, y0);
                if (s != RB_OK) {
                    fprintf(stderr, "%s\n", rb_context_error(ctx));
                    return 1;
                }
                if (pass == 1)
                    for (size_t i = 0; i < (size_t)w * n; i++)
                        sum += out[i];
            }
            if (pass == 0 && rb_stream_close_carries(st) != RB_OK) {
                fprintf(stderr, "%s\n", rb_context_error(ctx));
                return 1;
            }
        }
        double t1 = now();
        rb_stream_destroy(st);
        printf("strips of %d rows (cpu): %.3f s, sum %.9g\n", sr, t1 - t0 - tf, sum);
        free(in);
        free(out);
    }
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    return 0;
}
