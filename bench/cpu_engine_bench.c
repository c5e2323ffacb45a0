/* In-process timing of recblur's CPU back end (issue 8): rb_execute on an
 * RGB 8-bit image, median of R runs, plus per-pass times (the same Gaussian
 * on the columns only and on the rows only, each a full U8 -> U8 call).
 *   cpu_engine_bench [-n N] [-s sigma,...] [-b boundary] [-t threads] [-r runs]
 *                    [-i in.ppm] [-o out_prefix] [-P 0|1] [-f u8|u16|f32]
 *                    [-k gauss|bspline3|bspline5|sat]
 * Without -i a random N x N RGB image (fixed seed) is used. With -o the
 * result of each sigma is written to <out_prefix><sigma>.ppm (binary P6), for
 * the error column of cpu_peers.sh. -P 0 skips the one-axis timings (printed
 * as 0). Prints one table row per sigma. -k bspline3/bspline5: the B-spline
 * prefilter instead of the Gaussian (one row; use -b mirror, its usual
 * boundary); -k sat: rb_sat into F32 (one row; the format's samples in, F32
 * sums out). "min CPU s" is the least CPU time of one call: on a loaded
 * machine other jobs add to it but never take from it. */
#define _POSIX_C_SOURCE 200809L
#include <recblur.h>

#include <stdint.h>
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

/* CPU seconds of the whole process (all threads): on a shared, loaded
 * machine this is the figure that does not depend on the other jobs. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double last_cpu; /* median CPU seconds of the last time_filter */
static double min_cpu;  /* least CPU seconds of one call (a loaded machine adds, never takes) */
static int bspline_degree; /* -k bspline3/5: that prefilter instead of the Gaussian */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static unsigned char *read_ppm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    int maxv = 0;
    if (fscanf(f, "P6 %d %d %d", w, h, &maxv) != 3 || maxv != 255 || fgetc(f) == EOF) {
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)*w * (size_t)*h * 3;
    unsigned char *p = malloc(n);
    if (p && fread(p, 1, n, f) != n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

static int write_ppm(const char *path, const unsigned char *p, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    size_t n = (size_t)w * (size_t)h * 3;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* One timed engine call: a plan's rb_execute or rb_sat. */
struct call {
    enum { CALL_EXECUTE, CALL_SAT } kind;
    rb_context *ctx;
    rb_plan *plan;
    rb_image *in, *out;
};

/* Median wall seconds of `runs` calls (at most 64); the median and least CPU
 * seconds go to last_cpu / min_cpu. Exits on an engine error. */
static double time_calls(const struct call *c, int runs)
{
    double t[64], tc[64];
    if (runs > 64)
        runs = 64;
    for (int k = 0; k < runs; k++) {
        double c0 = cpu_now(), t0 = now();
        rb_status st = c->kind == CALL_SAT ? rb_sat(c->ctx, c->in, c->out) : rb_execute(c->plan, c->in, c->out);
        if (st != RB_OK) {
            fprintf(stderr, "cpu_engine_bench: %s\n", rb_context_error(c->ctx));
            exit(1);
        }
        t[k] = now() - t0;
        tc[k] = cpu_now() - c0;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_d);
    qsort(tc, (size_t)runs, sizeof tc[0], cmp_d);
    last_cpu = tc[runs / 2];
    min_cpu = tc[0];
    return t[runs / 2];
}

/* Median seconds of `runs` calls of rb_execute for this filter. */
static double time_filter(rb_context *ctx, double sx, double sy, rb_boundary bd, rb_image *in,
                          rb_image *out, int runs, char *desc, size_t desc_len)
{
    rb_filter *f = NULL;
    rb_plan *p = NULL;
    rb_status fs = bspline_degree ? rb_filter_bspline(ctx, bspline_degree, &f)
                                  : rb_filter_gaussian(ctx, sx, sy, RB_GAUSSIAN_DEFAULT, &f);
    if (fs != RB_OK ||
        rb_plan_create(ctx, f, bd, in->width, in->height, in->channels, &p) != RB_OK) {
        fprintf(stderr, "cpu_engine_bench: %s\n", rb_context_error(ctx));
        exit(1);
    }
    if (desc)
        snprintf(desc, desc_len, "%s", rb_filter_describe(f));
    struct call c = {CALL_EXECUTE, ctx, p, in, out};
    double med = time_calls(&c, runs);
    rb_plan_destroy(p);
    rb_filter_destroy(f);
    return med;
}

/* Median seconds of `runs` rb_sat calls (in -> F32 sums); CPU as time_filter. */
static double time_sat(rb_context *ctx, rb_image *in, rb_image *out, int runs)
{
    struct call c = {CALL_SAT, ctx, NULL, in, out};
    return time_calls(&c, runs);
}

int main(int argc, char **argv)
{
    int N = 4096, threads = 0, runs = 3, per_pass = 1;
    const char *sigmas = "2,10,50", *bname = "clamp", *inpath = NULL, *outpre = NULL, *fname = "u8";
    const char *kind = "gauss";
    int opt;
    while ((opt = getopt(argc, argv, "n:s:b:t:r:i:o:P:f:k:")) != -1) {
        switch (opt) {
        case 'n': N = atoi(optarg); break;
        case 's': sigmas = optarg; break;
        case 'b': bname = optarg; break;
        case 't': threads = atoi(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 'i': inpath = optarg; break;
        case 'o': outpre = optarg; break;
        case 'P': per_pass = atoi(optarg); break;
        case 'f': fname = optarg; break;
        case 'k': kind = optarg; break;
        default: return 2; /* getopt named the option */
        }
    }
    const int sat = !strcmp(kind, "sat");
    if (!strcmp(kind, "bspline3") || !strcmp(kind, "bspline5"))
        bspline_degree = kind[7] - '0';
    else if (!sat && strcmp(kind, "gauss")) {
        fprintf(stderr, "cpu_engine_bench: unknown -k '%s' (gauss, bspline3, bspline5, sat)\n", kind);
        return 2;
    }
    if (bspline_degree || sat)
        sigmas = kind; /* one row */
    rb_context *ctx;
    if (rb_context_create(&ctx) != RB_OK)
        return 1;
    rb_context_set_backend(ctx, RB_BACKEND_CPU);
    rb_context_set_threads(ctx, threads);
    rb_boundary bd;
    if (rb_boundary_parse(ctx, bname, &bd) != RB_OK) {
        fprintf(stderr, "cpu_engine_bench: %s\n", rb_context_error(ctx));
        return 2;
    }
    int W = N, H = N;
    unsigned char *src;
    if (inpath) {
        src = read_ppm(inpath, &W, &H);
        if (!src) {
            fprintf(stderr, "cpu_engine_bench: cannot read binary 8-bit PPM '%s'\n", inpath);
            return 1;
        }
    } else {
        size_t n = (size_t)W * (size_t)H * 3;
        src = malloc(n);
        uint64_t s = 0x9E3779B97F4A7C15u;
        for (size_t i = 0; i < n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            src[i] = (unsigned char)(s >> 24);
        }
    }
    /* -f u16 / f32: the same 8-bit samples widened (in and out in that format) */
    rb_format fmt = !strcmp(fname, "u16") ? RB_U16 : !strcmp(fname, "f32") ? RB_F32 : RB_U8;
    size_t es = fmt == RB_U8 ? 1 : fmt == RB_U16 ? 2 : 4, ns = (size_t)W * (size_t)H * 3;
    if (fmt != RB_U8) {
        unsigned char *wide = malloc(ns * es);
        for (size_t i = 0; i < ns; i++) {
            if (fmt == RB_U16)
                ((uint16_t *)wide)[i] = (uint16_t)(src[i] * 257);
            else
                ((float *)wide)[i] = src[i] / 255.0f;
        }
        free(src);
        src = wide;
    }
    unsigned char *dst = malloc(ns * (sat ? sizeof(float) : es));
    rb_image in = {W, H, 3, 0, fmt, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, src};
    rb_image out = in;
    out.data = dst;
    double mpx = (double)W * (double)H * 1e-6;
    printf("# recblur engine in-process, %dx%d RGB %s -> %s, boundary %s, %d runs (median)\n", W, H,
           fname, sat ? "f32 (rb_sat)" : fname, bname, runs);
    printf("| sigma | both axes (s) | Mpx/s | CPU s (all threads) | min CPU s | columns only (s) | rows only (s) | filter |\n");
    printf("|------:|--------------:|------:|--------------------:|----------:|-----------------:|--------------:|--------|\n");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sigmas);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        double sg = atof(tok);
        char desc[256];
        double tb;
        if (sat) {
            out.format = RB_F32;
            tb = time_sat(ctx, &in, &out, runs);
            snprintf(desc, sizeof desc, "summed-area table (rb_sat), F32 out");
        } else
            tb = time_filter(ctx, sg, sg, bd, &in, &out, runs, desc, sizeof desc);
        double cb = last_cpu, cm = min_cpu;
        if (outpre && fmt == RB_U8) {
            char path[1024];
            snprintf(path, sizeof path, "%s%s.ppm", outpre, tok);
            if (write_ppm(path, dst, W, H)) {
                fprintf(stderr, "cpu_engine_bench: cannot write '%s'\n", path);
                return 1;
            }
        }
        /* axis x = along rows (the row pass), axis y = down columns */
        if (sat || bspline_degree)
            per_pass = 0;
        double tc = per_pass ? time_filter(ctx, 0.0, sg, bd, &in, &out, runs, NULL, 0) : 0.0;
        double tr = per_pass ? time_filter(ctx, sg, 0.0, bd, &in, &out, runs, NULL, 0) : 0.0;
        printf("| %5s | %13.3f | %5.0f | %19.3f | %9.3f | %16.3f | %13.3f | %s |\n", tok, tb, mpx / tb, cb,
               cm, tc, tr, desc);
        fflush(stdout);
    }
    printf("# backend: threads %d (0 = all cores)\n", threads);
    free(src);
    free(dst);
    rb_context_destroy(ctx);
    return 0;
}
