/* recblur deblur IN OUT / recblur design-deblur --out PRESET: design (or
 * load) a quadrant deblur filter and run it. One-line errors; OUT is only
 * written (atomically) when everything before succeeded. */
#define _POSIX_C_SOURCE 200809L
#include "cmd_deblur.h"
#include "cli.h"
#include "recblur_deblur.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double psf_sigma;          /* < 0: not given */
    const char *psf_file, *preset, *out_preset, *description;
    int window;                /* 0: default */
    double noise;              /* < 0: default */
    const char *boundary, *backend;
    int threads, fir_only, verbose, help;
    const char *in, *out;
} deblur_args;

#define DEFAULT_WINDOW 8
#define DEFAULT_NOISE 0.005

void rb_cli_deblur_help(void)
{
    printf("usage: recblur deblur (--psf-sigma S | --psf FILE | --preset NAME) [options] IN OUT\n"
           "       recblur design-deblur (--psf-sigma S | --psf FILE) [options] --out PRESET\n"
           "\n"
           "Deblur with a non-separable 2D IIR filter: four quadrant filters, each scanning\n"
           "from one corner, summed; designed as a Wiener-type inverse of the PSF.\n"
           "\n"
           "  --psf-sigma S     Gaussian point-spread function of standard deviation S pixels\n"
           "  --psf FILE        PSF kernel: an image (PNG/TIFF/PFM; colour is averaged) or a\n"
           "                    text file of numbers, one kernel row per line; odd sides,\n"
           "                    centre sample = origin, normalised to sum 1\n"
           "  --preset NAME     a designed filter (NAME.deblur on the preset path, or a path)\n"
           "  --window M        quadrant window side, 2..64 (default %d)\n"
           "  --noise N         noise standard deviation in [0,1] units, e.g. 0.005 or 0.5%%\n"
           "                    (default %g); larger = smoother, fewer artefacts\n"
           "  --fir-only        no recursive part (b = 0): a pure FIR, for comparison\n"
           "  --boundary B      zero|constant=V|clamp|mirror|periodic|none (default mirror)\n"
           "  --threads T       CPU threads (default: all cores)\n"
           "  --backend B       auto|cpu (the CUDA quadrant kernel is not written yet)\n"
           "  --description T   (design-deblur) text stored in the preset\n"
           "  --out PRESET      (design-deblur) file to write, e.g. my.deblur\n"
           "  -v, --verbose     say what was designed and how long it took\n",
           DEFAULT_WINDOW, DEFAULT_NOISE);
}

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || errno || !isfinite(*v))
        return -1;
    if (*end == '%') {
        *v /= 100.0;
        end++;
    }
    return *end ? -1 : 0;
}

static int parse_args(int argc, char **argv, int design, deblur_args *a)
{
    memset(a, 0, sizeof *a);
    a->psf_sigma = -1;
    a->noise = -1;
    const char *cmd = design ? "design-deblur" : "deblur";
    const char *pos[2] = {0};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *val = NULL;
        char name[64];
        /* --opt=value or --opt value */
        const char *eq = strncmp(o, "--", 2) ? NULL : strchr(o, '=');
        if (eq && (size_t)(eq - o) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - o), o);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%.63s", o);
        }
        int takes = !strcmp(name, "--psf-sigma") || !strcmp(name, "--psf") ||
                    !strcmp(name, "--preset") || !strcmp(name, "--window") ||
                    !strcmp(name, "--noise") || !strcmp(name, "--boundary") ||
                    !strcmp(name, "--threads") || !strcmp(name, "--backend") ||
                    !strcmp(name, "--out") || !strcmp(name, "--description");
        if (takes && !val) {
            if (i + 1 >= argc)
                return cli_fail(CLI_EXIT_USAGE, "%s: %s needs a value", cmd, name);
            val = argv[++i];
        }
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            a->help = 1;
        } else if (!strcmp(name, "-v") || !strcmp(name, "--verbose")) {
            a->verbose = 1;
        } else if (!strcmp(name, "--fir-only")) {
            a->fir_only = 1;
        } else if (!strcmp(name, "--psf-sigma")) {
            if (parse_double(val, &a->psf_sigma) || a->psf_sigma <= 0)
                return cli_fail(CLI_EXIT_USAGE, "%s: --psf-sigma \"%s\" is not a positive number",
                                cmd, val);
        } else if (!strcmp(name, "--psf")) {
            a->psf_file = val;
        } else if (!strcmp(name, "--preset")) {
            a->preset = val;
        } else if (!strcmp(name, "--window")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || end == val || v < RB_DEBLUR_MIN_WINDOW || v > RB_DEBLUR_MAX_WINDOW)
                return cli_fail(CLI_EXIT_USAGE, "%s: --window \"%s\" must be an integer %d..%d",
                                cmd, val, RB_DEBLUR_MIN_WINDOW, RB_DEBLUR_MAX_WINDOW);
            a->window = (int)v;
        } else if (!strcmp(name, "--noise")) {
            if (parse_double(val, &a->noise) || a->noise < 0 || a->noise > 0.5)
                return cli_fail(CLI_EXIT_USAGE,
                                "%s: --noise \"%s\" must be a standard deviation 0..0.5 (e.g. "
                                "0.005 or 0.5%%)",
                                cmd, val);
        } else if (!strcmp(name, "--boundary")) {
            a->boundary = val;
        } else if (!strcmp(name, "--threads")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || end == val || v < 0 || v > 4096)
                return cli_fail(CLI_EXIT_USAGE, "%s: --threads \"%s\" must be 0..4096", cmd, val);
            a->threads = (int)v;
        } else if (!strcmp(name, "--backend")) {
            a->backend = val;
        } else if (!strcmp(name, "--out") && design) {
            a->out_preset = val;
        } else if (!strcmp(name, "--description") && design) {
            a->description = val;
        } else if (o[0] == '-' && o[1]) {
            return cli_fail(CLI_EXIT_USAGE, "%s: unknown option \"%s\" (try: recblur %s --help)",
                            cmd, o, cmd);
        } else {
            if (npos >= 2)
                return cli_fail(CLI_EXIT_USAGE, "%s: unexpected argument \"%s\"", cmd, o);
            pos[npos++] = o;
        }
    }
    if (a->help)
        return 0;
    int nsrc = (a->psf_sigma > 0) + (a->psf_file != NULL) + (!design && a->preset != NULL);
    if (nsrc != 1)
        return cli_fail(CLI_EXIT_USAGE, "%s: give exactly one of --psf-sigma, --psf%s", cmd,
                        design ? "" : ", --preset");
    if (a->preset && (a->window || a->noise >= 0 || a->fir_only))
        return cli_fail(CLI_EXIT_USAGE,
                        "%s: --window/--noise/--fir-only design a filter; a --preset is already "
                        "designed",
                        cmd);
    if (design) {
        if (npos)
            return cli_fail(CLI_EXIT_USAGE, "%s: takes no IN/OUT images (got \"%s\"); use --out PRESET",
                            cmd, pos[0]);
        if (!a->out_preset)
            return cli_fail(CLI_EXIT_USAGE, "%s: --out PRESET is required", cmd);
    } else {
        if (npos != 2)
            return cli_fail(CLI_EXIT_USAGE, "%s: needs IN and OUT images (try: recblur deblur --help)",
                            cmd);
        a->in = pos[0];
        a->out = pos[1];
    }
    return 0;
}

/* A PSF from an image file (colour averaged, alpha refused) or a text matrix. */
static int load_psf_file(const char *path, double **k, int *kw, int *kh)
{
    char err[CLI_ERR_LEN];
    if (cli_file_type_from_name(path) != CLI_FILE_UNKNOWN) {
        cli_image im;
        if (cli_image_read(path, &im, err, sizeof err))
            return cli_fail(CLI_EXIT_FAIL, "--psf %s", err);
        const rb_image *g = &im.img;
        int ch = g->channels;
        if (ch == 2 || ch == 4) {
            cli_image_free(&im);
            return cli_fail(CLI_EXIT_FAIL, "--psf %s: has an alpha channel; give a gray or RGB kernel",
                            path);
        }
        *kw = g->width;
        *kh = g->height;
        *k = malloc(sizeof(double) * g->width * g->height);
        if (!*k) {
            cli_image_free(&im);
            return cli_fail(CLI_EXIT_FAIL, "out of memory");
        }
        for (int i = 0; i < g->width * g->height; i++) {
            double s = 0;
            for (int c = 0; c < ch; c++) {
                size_t at = (size_t)i * ch + c;
                s += g->format == RB_U8    ? ((const unsigned char *)g->data)[at]
                     : g->format == RB_U16 ? ((const unsigned short *)g->data)[at]
                                           : ((const float *)g->data)[at];
            }
            (*k)[i] = s / ch;
        }
        cli_image_free(&im);
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_fail(CLI_EXIT_FAIL, "--psf %s: cannot open (%s)", path, strerror(errno));
    size_t cap = 256, n = 0;
    double *v = malloc(sizeof(double) * cap);
    int rows = 0, cols = -1, lineno = 0;
    char line[65536];
    while (v && fgets(line, sizeof line, f)) {
        lineno++;
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        int c = 0;
        char *p = line;
        for (;;) {
            while (isspace((unsigned char)*p) || *p == ',')
                p++;
            if (!*p)
                break;
            char *end;
            double x = strtod(p, &end);
            if (end == p) {
                fclose(f);
                free(v);
                return cli_fail(CLI_EXIT_FAIL, "--psf %s:%d: \"%.20s\" is not a number", path,
                                lineno, p);
            }
            if (n == cap) {
                double *nv = realloc(v, sizeof(double) * (cap *= 2));
                if (!nv)
                    break;
                v = nv;
            }
            v[n++] = x;
            c++;
            p = end;
        }
        if (!c)
            continue;
        if (cols >= 0 && c != cols) {
            fclose(f);
            free(v);
            return cli_fail(CLI_EXIT_FAIL, "--psf %s:%d: %d numbers, but the first row had %d", path,
                            lineno, c, cols);
        }
        cols = c;
        rows++;
    }
    fclose(f);
    if (!v || rows == 0) {
        free(v);
        return cli_fail(CLI_EXIT_FAIL, "--psf %s: no numbers found", path);
    }
    *k = v;
    *kw = cols;
    *kh = rows;
    return 0;
}

static int make_filter(rb_context *ctx, const deblur_args *a, rb_deblur_filter **f,
                       rb_boundary *bd, int *has_bd)
{
    *has_bd = 0;
    if (a->preset) {
        if (rb_deblur_preset_load(ctx, a->preset, f, bd, has_bd) != RB_OK)
            return cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
        return 0;
    }
    rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, a->psf_sigma, 0, 0, NULL};
    double *k = NULL;
    if (a->psf_file) {
        int rc = load_psf_file(a->psf_file, &k, &psf.kw, &psf.kh);
        if (rc)
            return rc;
        psf.kind = RB_DEBLUR_PSF_KERNEL;
        psf.kernel = k;
    }
    rb_status st = rb_deblur_design(ctx, &psf, a->noise >= 0 ? a->noise : DEFAULT_NOISE,
                                    a->window ? a->window : DEFAULT_WINDOW,
                                    a->fir_only ? RB_DEBLUR_DESIGN_FIR_ONLY : 0, f);
    free(k);
    if (st != RB_OK)
        return a->psf_file ? cli_fail(CLI_EXIT_FAIL, "--psf %s: %s", a->psf_file,
                                      cli_engine_message(ctx))
                           : cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
    return 0;
}

static void on_log(const char *message, void *user)
{
    (void)user;
    fprintf(stderr, "recblur info: %s\n", strncmp(message, "recblur: ", 9) ? message : message + 9);
}

static int setup_ctx(const deblur_args *a, rb_context **ctx)
{
    if (rb_context_create(ctx) != RB_OK)
        return cli_fail(CLI_EXIT_FAIL, "out of memory");
    if (a->verbose)
        rb_context_set_log(*ctx, on_log, NULL);
    if (a->threads)
        rb_context_set_threads(*ctx, a->threads);
    if (a->backend) {
        rb_backend b;
        if (rb_backend_parse(*ctx, a->backend, &b) != RB_OK) {
            int rc = cli_fail(CLI_EXIT_USAGE, "--backend: %s", cli_engine_message(*ctx));
            rb_context_destroy(*ctx);
            return rc;
        }
        rb_context_set_backend(*ctx, b);
    }
    return 0;
}

int rb_cli_design_deblur(int argc, char **argv)
{
    deblur_args a;
    int rc = parse_args(argc, argv, 1, &a);
    if (rc)
        return rc;
    if (a.help) {
        rb_cli_deblur_help();
        return 0;
    }
    rb_context *ctx;
    if ((rc = setup_ctx(&a, &ctx)))
        return rc;
    rb_deblur_filter *f = NULL;
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    int has_bd = 0;
    double t0 = cli_now_ms();
    rc = make_filter(ctx, &a, &f, &bd, &has_bd);
    if (!rc && a.boundary && rb_boundary_parse(ctx, a.boundary, &bd) != RB_OK)
        rc = cli_fail(CLI_EXIT_USAGE, "--boundary: %s", cli_engine_message(ctx));
    if (!rc) {
        cli_info_if(a.verbose, "%s (designed in %.0f ms)", rb_deblur_filter_describe(f), cli_now_ms() - t0);
        if (rb_deblur_preset_save(ctx, f, a.description, a.boundary ? &bd : NULL, a.out_preset) !=
            RB_OK)
            rc = cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
    }
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
    return rc;
}

int rb_cli_deblur(int argc, char **argv)
{
    deblur_args a;
    int rc = parse_args(argc, argv, 0, &a);
    if (rc)
        return rc;
    if (a.help) {
        rb_cli_deblur_help();
        return 0;
    }
    cli_file_type otype = cli_file_type_from_name(a.out);
    if (otype == CLI_FILE_UNKNOWN)
        return cli_fail(CLI_EXIT_USAGE, "deblur: cannot tell the format of OUT \"%s\" from its "
                                        "name (use .png, .tif, .tiff or .pfm)", a.out);
    rb_context *ctx;
    if ((rc = setup_ctx(&a, &ctx)))
        return rc;
    rb_deblur_filter *f = NULL;
    rb_deblur_plan *p = NULL;
    cli_image in = {0};
    rb_image out = {0};
    char err[CLI_ERR_LEN];
    rb_boundary bd = {RB_BOUNDARY_MIRROR, 0};
    int has_bd = 0;
    double t0 = cli_now_ms();
    rc = make_filter(ctx, &a, &f, &bd, &has_bd);
    if (rc)
        goto done;
    if (a.boundary && rb_boundary_parse(ctx, a.boundary, &bd) != RB_OK) {
        rc = cli_fail(CLI_EXIT_USAGE, "--boundary: %s", cli_engine_message(ctx));
        goto done;
    }
    double t1 = cli_now_ms();
    cli_info_if(a.verbose, "%s (%.0f ms)", rb_deblur_filter_describe(f), t1 - t0);
    if (cli_image_read(a.in, &in, err, sizeof err)) {
        rc = cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    rb_format ofmt = in.img.format;
    if (otype == CLI_FILE_PFM)
        ofmt = RB_F32;
    else if (otype == CLI_FILE_PNG && ofmt == RB_F32)
        ofmt = RB_U16;
    const char *why = "";
    if (!cli_file_can_store(otype, ofmt, in.img.channels, &why)) {
        rc = cli_fail(CLI_EXIT_FAIL, "cannot write %s: %s", a.out, why);
        goto done;
    }
    if (rb_deblur_plan_create(ctx, f, bd, in.img.width, in.img.height, in.img.channels, &p) != RB_OK) {
        rc = cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
        goto done;
    }
    if (cli_image_alloc(&out, in.img.width, in.img.height, in.img.channels, ofmt, err, sizeof err)) {
        rc = cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    /* as run.c: the output's alpha is the input's, so straight alpha leaves the
     * engine unpremultiplied (not as the premultiplied working values) */
    out.alpha = in.img.alpha;
    double t2 = cli_now_ms();
    if (rb_deblur_execute(p, &in.img, &out) != RB_OK) {
        rc = cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
        goto done;
    }
    cli_info_if(a.verbose, "deblurred %dx%d x%d on %s, boundary %s (margin %d px) in %.1f ms", in.img.width,
         in.img.height, in.img.channels, rb_deblur_plan_backend_name(p), rb_boundary_name(bd.mode),
         rb_deblur_plan_margin(p), cli_now_ms() - t2);
    /* the input's compression, kept as the other commands keep it */
    cli_output_request keep = {0};
    cli_codec codec;
    if (cli_output_codec(&keep, &in, otype, a.out, &codec, err, sizeof err))
        rc = cli_fail(CLI_EXIT_USAGE, "%s", err);
    else if (cli_image_write(a.out, otype, &out, &codec, err, sizeof err))
        rc = cli_fail(CLI_EXIT_FAIL, "%s", err);
done:
    free(out.data);
    cli_image_free(&in);
    rb_deblur_plan_destroy(p);
    rb_deblur_filter_destroy(f);
    rb_context_destroy(ctx);
    return rc;
}
