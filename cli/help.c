/* --help and --version texts. Defaults stated here are the ones options.c uses. */
#include "cli.h"

#include <stdio.h>

/* What the table's one-line help cannot say: the boundary modes in words, and
 * the files the CLI reads and writes. */
static const char boundary_help[] =
    "Boundary modes (--boundary):\n"
    "  zero        black (0) outside\n"
    "  constant=V  the value V outside (0..1 for 8/16-bit images)\n"
    "  clamp       edge pixels repeated outward\n"
    "  periodic    the image tiles the plane (seamless textures, 360-degree\n"
    "              panoramas stay seamless)\n"
    "  mirror      the image reflected at its edges\n"
    "  none        zero outside and every pass starts from rest (the classic,\n"
    "              inexact recursive filter)\n";

static const char files_help[] =
    "Files: PNG (8/16-bit), TIFF (8/16-bit, 32-bit float), PFM (float, gray or RGB).\n"
    "The output format follows OUT's extension; OUT is replaced only when the whole\n"
    "result was written. Alpha is handled without dark fringes (premultiplied\n"
    "while filtering). With --linear, 8/16-bit sRGB images are filtered in linear\n"
    "light; float files are taken as linear already. Exit status: 0 success,\n"
    "1 failure, 2 usage error.\n";

static const char *const cmd_help[CLI_N_COMMANDS] = {
    /* blur */
    "Usage: recblur blur --sigma S | --sigma-x SX --sigma-y SY [--accurate] [options] IN OUT\n"
    "\n"
    "Gaussian blur of standard deviation S pixels (0.5 up to 100000), in a time that\n"
    "does not depend on S. Sigma 0 leaves that axis unfiltered; an axis given no\n"
    "sigma (only --sigma-x or only --sigma-y) is left unfiltered too.\n"
    "\n"
    "Example: recblur blur --sigma 20 --boundary periodic texture.png soft.png\n",
    /* filter */
    "Usage: recblur filter --signature \"b0, b1, ...: a1, a2, ...\" [--direction D] [--axes A]\n"
    "                      [options] IN OUT\n"
    "\n"
    "Any recursive filter given by its signature: a causal pass\n"
    "  y[i] = b0 x[i] + b1 x[i-1] + ... + a1 y[i-1] + a2 y[i-2] + ...\n"
    "then the same filter anticausally (right to left, bottom to top), on columns\n"
    "and rows. An empty feedforward part (\": a1\") means b = 1. Unstable filters\n"
    "(a pole on or outside the unit circle) are refused.\n"
    "\n"
    "Example: recblur filter --signature \"0.2: 0.8\" --boundary mirror in.png out.png\n",
    /* bspline */
    "Usage: recblur bspline [--degree 3|5] [options] IN OUT\n"
    "\n"
    "B-spline interpolation prefilter (cubic or quintic): turns samples into\n"
    "B-spline coefficients for high-quality resampling. The output is usually\n"
    "wanted as float (.pfm or .tif with --depth float): coefficients overshoot 0..1.\n"
    "\n"
    "Example: recblur bspline --degree 3 photo.png coeffs.pfm\n",
    /* sat */
    "Usage: recblur sat [--backend B] [--threads N] [--verbose] IN OUT\n"
    "\n"
    "Summed-area table: each output pixel is the sum of all input pixels above and\n"
    "to the left of it (inclusive), per channel. 8/16-bit inputs are summed in their\n"
    "integer units (0..255, 0..65535). The output is 32-bit float, so OUT must be\n"
    ".pfm or .tif; PNG cannot hold such sums. Alpha is summed like any channel.\n"
    "\n"
    "Example: recblur sat photo.png table.tif\n",
    /* box */
    "Usage: recblur box --size N | --size-x X --size-y Y [options] IN OUT\n"
    "\n"
    "Box (area) filter: the average over an X by Y window, in constant time per\n"
    "pixel at any size (running sums). Even sizes put the extra sample on the\n"
    "left/top. An axis given no size is left unfiltered.\n"
    "\n"
    "Example: recblur box --size 15 in.png out.png\n",
};

void cli_print_op_help(const rb_op_desc *op, const char *intro)
{
    fputs(intro, stdout);
    fputc('\n', stdout);
    cli_print_options(op);
    if (rb_op_setting(op, "boundary")) {
        fputc('\n', stdout);
        fputs(boundary_help, stdout);
    }
    fputc('\n', stdout);
    fputs(files_help, stdout);
}

void cli_print_help(int cmd)
{
    if (cmd >= 0 && cmd < CLI_N_COMMANDS) {
        cli_print_op_help(rb_op_get((rb_op_id)cmd), cmd_help[cmd]);
    fputs(cli_output_options_help, stdout);
        return;
    }
    fputs("Usage: recblur COMMAND [options] IN OUT\n"
          "\n"
          "Exact, fast recursive (IIR) image filtering with exact boundaries.\n"
          "\n"
          "Commands:\n", stdout);
    for (int i = 0; i < rb_op_count(); i++) {
        const rb_op_desc *op = rb_op_get((rb_op_id)i);
        printf("  %-14s %s\n", op->name, op->summary);
    }
    fputs("  presets        list the presets found (.preset and .deblur), with kind and description\n"
          "  help CMD       help on one command (same as recblur CMD --help)\n"
          "\n"
          "  --version  print the version and the available back ends\n"
          "\n"
          "Each command's options: recblur COMMAND --help.\n"
          "\n", stdout);
    fputs(boundary_help, stdout);
    fputc('\n', stdout);
    fputs(files_help, stdout);
    fputs(cli_output_options_help, stdout);
    fputs("\nExamples:\n"
          "  recblur blur --sigma 20 --boundary periodic texture.png soft.png\n"
          "  recblur blur --sigma-x 30 --sigma-y 0 --boundary periodic pano.tif pano-blur.tif\n"
          "  recblur filter --signature \"0.2: 0.8\" in.pfm out.pfm\n"
          "  recblur blur --preset NAME in.png out.png\n", stdout);
}

void cli_print_version(void)
{
    char why[256] = "";
    int cuda = rb_cuda_available(why, sizeof why);
    printf("recblur %s\n", RECBLUR_VERSION_STRING);
    printf("back ends: cpu, cuda (%s)\n", cuda ? "available" : why[0] ? why : "not available");
    printf("files: PNG, PFM, TIFF (%s)\n", cli_have_tiff() ? "yes" : "no: built without libtiff");
}
