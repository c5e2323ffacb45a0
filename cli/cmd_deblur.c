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

static const char deblur_intro[] =
    "usage: recblur deblur (--psf-sigma S | --psf FILE | --preset NAME) [options] IN OUT\n"
    "       recblur design-deblur (--psf-sigma S | --psf FILE) [options] --out PRESET\n"
    "\n"
    "Deblur with a non-separable 2D IIR filter: four quadrant filters, each scanning\n"
    "from one corner, summed; designed as a Wiener-type inverse of the PSF. The CUDA\n"
    "quadrant kernel is not written yet: --backend auto runs on the CPU.\n";

void rb_cli_deblur_help(void)
{
    cli_print_op_help(rb_op_get(RB_OP_DEBLUR), deblur_intro);
    printf("\ndesign-deblur takes the same options, and:\n");
    cli_print_options(rb_op_get(RB_OP_DESIGN_DEBLUR));
}

/* The options of `recblur deblur` / `design-deblur`, through the table, and
 * the rules between them: one source of PSF, no design settings with a
 * designed preset. Returns 0, or the exit status after printing the error. */
static int parse_args(int argc, char **argv, int design, cli_options *a, cli_settings *s,
                      rb_context *ctx)
{
    char err[CLI_ERR_LEN];
    const rb_op_desc *op = rb_op_get(design ? RB_OP_DESIGN_DEBLUR : RB_OP_DEBLUR);
    const char *cmd = op->name;
    if (cli_parse_options(op, argc, argv, 1, a, err, sizeof err))
        return cli_fail(CLI_EXIT_USAGE, "%s", err);
    if (a->help)
        return 0;
    if (cli_resolve_settings(ctx, a, s, err, sizeof err))
        return cli_fail(CLI_EXIT_USAGE, "%s", err);
    int psf_sigma = rb_settings_given(&s->op, "psf-sigma");
    int nsrc = psf_sigma + (a->psf_file != NULL) + (!design && a->preset != NULL);
    if (nsrc != 1)
        return cli_fail(CLI_EXIT_USAGE, "%s: give exactly one of --psf-sigma, --psf%s", cmd,
                        design ? "" : ", --preset");
    if (a->preset && (rb_settings_given(&s->op, "window") || rb_settings_given(&s->op, "noise") ||
                      rb_settings_given(&s->op, "fir-only")))
        return cli_fail(CLI_EXIT_USAGE,
                        "%s: --window/--noise/--fir-only design a filter; a --preset is already "
                        "designed",
                        cmd);
    if (design && !a->out_preset)
        return cli_fail(CLI_EXIT_USAGE, "%s: --out PRESET is required", cmd);
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
            /* one number: up to the next space or comma, read by the engine's parser */
            char *end = p;
            while (*end && !isspace((unsigned char)*end) && *end != ',')
                end++;
            char token[64];
            double x;
            int bad = (size_t)(end - p) >= sizeof token;
            if (!bad) {
                memcpy(token, p, (size_t)(end - p));
                token[end - p] = 0;
                bad = rb_parse_number(token, &x) != 0;
            }
            if (bad) {
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

static int make_filter(rb_context *ctx, const cli_options *a, const rb_settings *s,
                       rb_deblur_filter **f, rb_boundary *bd, int *has_bd)
{
    *has_bd = 0;
    if (a->preset) {
        if (rb_deblur_preset_load(ctx, a->preset, f, bd, has_bd) != RB_OK)
            return cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
        return 0;
    }
    rb_deblur_psf psf = {RB_DEBLUR_PSF_GAUSSIAN, rb_settings_number(s, "psf-sigma"), 0, 0, NULL};
    double *k = NULL;
    if (a->psf_file) {
        int rc = load_psf_file(a->psf_file, &k, &psf.kw, &psf.kh);
        if (rc)
            return rc;
        psf.kind = RB_DEBLUR_PSF_KERNEL;
        psf.kernel = k;
    }
    rb_status st = rb_deblur_design(ctx, &psf, rb_settings_number(s, "noise"),
                                    rb_settings_int(s, "window"),
                                    rb_settings_int(s, "fir-only") ? RB_DEBLUR_DESIGN_FIR_ONLY : 0, f);
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

/* The boundary: --boundary, else the preset's, else the table's (mirror). */
static rb_boundary pick_boundary(const rb_settings *s, rb_boundary preset_bd, int has_bd)
{
    return rb_settings_given(s, "boundary") || !has_bd ? rb_settings_boundary(s) : preset_bd;
}

/* What both deblur commands work from: the parsed command line, its context,
 * and the deblur filter with the boundary it runs with. */
typedef struct {
    cli_options a;
    cli_settings s;
    rb_context *ctx;
    rb_deblur_filter *f;
    rb_boundary bd;
} deblur_job;

/* The context of a deblur command: options parsed, the log and the back end
 * set. NULL when the command is done: --help printed (*rc 0) or an error
 * printed (*rc the exit status). */
static rb_context *start(int argc, char **argv, int design, deblur_job *j, int *rc)
{
    j->f = NULL;
    j->ctx = NULL;
    if (rb_context_create(&j->ctx) != RB_OK) {
        *rc = cli_fail(CLI_EXIT_FAIL, "out of memory");
        return NULL;
    }
    *rc = parse_args(argc, argv, design, &j->a, &j->s, j->ctx);
    if (!*rc && j->a.help) {
        rb_cli_deblur_help();
    } else if (!*rc) {
        if (j->a.verbose)
            rb_context_set_log(j->ctx, on_log, NULL);
        if (!cli_apply_context_settings(j->ctx, &j->s.op))
            return j->ctx;
        *rc = cli_fail(CLI_EXIT_USAGE, "%s", cli_engine_message(j->ctx));
    }
    rb_context_destroy(j->ctx);
    j->ctx = NULL;
    return NULL;
}

/* The job's filter (designed, or read from --preset) and its boundary
 * (pick_boundary); with --verbose, what it is and how long it took. */
static int job_filter(deblur_job *j)
{
    int has_bd = 0;
    j->bd = (rb_boundary){RB_BOUNDARY_MIRROR, 0};
    double t0 = cli_now_ms();
    int rc = make_filter(j->ctx, &j->a, &j->s.op, &j->f, &j->bd, &has_bd);
    if (rc)
        return rc;
    j->bd = pick_boundary(&j->s.op, j->bd, has_bd);
    cli_info_if(j->a.verbose, "%s (%s in %.0f ms)", rb_deblur_filter_describe(j->f),
                j->a.preset ? "read" : "designed", cli_now_ms() - t0);
    return 0;
}

static void job_end(deblur_job *j)
{
    rb_deblur_filter_destroy(j->f);
    rb_context_destroy(j->ctx);
}

int rb_cli_design_deblur(int argc, char **argv)
{
    deblur_job j;
    int rc;
    if (!start(argc, argv, 1, &j, &rc))
        return rc;
    rc = job_filter(&j);
    if (!rc) {
        const char *description = rb_settings_text(&j.s.op, "description");
        if (rb_deblur_preset_save(j.ctx, j.f, description[0] ? description : NULL,
                                  rb_settings_given(&j.s.op, "boundary") ? &j.bd : NULL,
                                  j.a.out_preset) != RB_OK)
            rc = cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(j.ctx));
    }
    job_end(&j);
    return rc;
}

int rb_cli_deblur(int argc, char **argv)
{
    deblur_job j;
    int rc;
    if (!start(argc, argv, 0, &j, &rc))
        return rc;
    const cli_options *a = &j.a;
    rb_context *ctx = j.ctx;
    cli_file_type otype = cli_file_type_from_name(a->out);
    if (otype == CLI_FILE_UNKNOWN) {
        job_end(&j);
        return cli_fail(CLI_EXIT_USAGE, "deblur: cannot tell the format of OUT \"%s\" from its "
                                        "name (use .png, .tif, .tiff or .pfm)", a->out);
    }
    rb_deblur_plan *p = NULL;
    cli_image in = {0};
    rb_image out = {0};
    char err[CLI_ERR_LEN];
    rc = job_filter(&j);
    if (rc)
        goto done;
    const rb_deblur_filter *f = j.f;
    const rb_boundary bd = j.bd;
    if (cli_image_read(a->in, &in, err, sizeof err)) {
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
        rc = cli_fail(CLI_EXIT_FAIL, "cannot write %s: %s", a->out, why);
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
    cli_info_if(a->verbose, "deblurred %dx%d x%d on %s, boundary %s (margin %d px) in %.1f ms", in.img.width,
         in.img.height, in.img.channels, rb_deblur_plan_backend_name(p), rb_boundary_name(bd.mode),
         rb_deblur_plan_margin(p), cli_now_ms() - t2);
    /* the input's compression, kept as the other commands keep it */
    cli_output_request keep = {0};
    cli_codec codec;
    if (cli_output_codec(&keep, &in, otype, a->out, &codec, err, sizeof err))
        rc = cli_fail(CLI_EXIT_USAGE, "%s", err);
    else if (cli_image_write(a->out, otype, &out, &codec, err, sizeof err))
        rc = cli_fail(CLI_EXIT_FAIL, "%s", err);
done:
    free(out.data);
    cli_image_free(&in);
    rb_deblur_plan_destroy(p);
    job_end(&j);
    return rc;
}
