/* The float64 reference of a Gaussian blur for the host tests (ImageMagick
 * module, GIMP plug-in): what a host's output must be, computed without the
 * engine's execution path, pixel conversion or the host's option parsing. The
 * filter comes from the engine's designer (its public per-axis form); the
 * filtering from tests/reference.c, alpha by premultiplying here.
 *
 *   rb_host_reference blur SX SY BOUNDARY IN.pfm OUT.pfm [IN_ALPHA.pfm OUT_ALPHA.pfm]
 *       SX along the rows (x), SY along the columns (y). With the alpha
 *       planes: IN's straight colour is premultiplied by IN_ALPHA, colour and
 *       alpha are filtered, and OUT holds the filtered colour divided by the
 *       filtered alpha (straight again), OUT_ALPHA the filtered alpha.
 *   rb_host_reference compare A.pfm B.pfm TOL
 *       exit 0 when max |A - B| <= TOL, 1 when not, 2 on a read error or a
 *       size mismatch; prints the largest difference and where it is. */
#include "recblur.h"
#include "pfm_io.h"
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: see the top of tests/host_reference.c\n");
    return 2;
}

static double *to_double(const float *p, size_t n)
{
    double *d = malloc(n * sizeof *d);
    for (size_t i = 0; d && i < n; i++)
        d[i] = p[i];
    return d;
}

static int blur(int argc, char **argv)
{
    if (argc != 7 && argc != 9)
        return usage();
    double sx = atof(argv[2]), sy = atof(argv[3]);
    int with_alpha = argc == 9;
    rb_context *ctx = NULL;
    rb_filter *f = NULL;
    rb_boundary b;
    rb_axis_filter ax, ay;
    if (rb_context_create(&ctx) != RB_OK ||
        rb_filter_gaussian(ctx, sx, sy, RB_GAUSSIAN_DEFAULT, &f) != RB_OK ||
        rb_boundary_parse(ctx, argv[4], &b) != RB_OK || rb_filter_get_axis(f, 0, &ax) != RB_OK ||
        rb_filter_get_axis(f, 1, &ay) != RB_OK) {
        fprintf(stderr, "rb_host_reference: %s\n", ctx ? rb_context_error(ctx) : "no context");
        return 2;
    }
    int w, h, c, aw = 0, ah = 0, ac = 0;
    float *in = pfm_read(argv[5], &w, &h, &c), *alpha = NULL;
    if (!in)
        return 2;
    if (with_alpha) {
        alpha = pfm_read(argv[7], &aw, &ah, &ac);
        if (!alpha)
            return 2;
        if (aw != w || ah != h || ac != 1) {
            fprintf(stderr, "%s: %dx%dx%d, expected %dx%dx1\n", argv[7], aw, ah, ac, w, h);
            return 2;
        }
    }
    size_t px = (size_t)w * h, n = px * (size_t)c;
    double *col = to_double(in, n), *al = with_alpha ? to_double(alpha, px) : NULL;
    if (!col || (with_alpha && !al))
        return 2;
    if (with_alpha)
        for (size_t i = 0; i < n; i++)
            col[i] *= al[i / (size_t)c];
    const rb_axis_filter *fx = sx > 0 ? &ax : NULL, *fy = sy > 0 ? &ay : NULL;
    if (ref_filter_image(fx, fy, b, col, col, w, h, c) ||
        (with_alpha && ref_filter_image(fx, fy, b, al, al, w, h, 1)))
        return 2;
    for (size_t i = 0; i < n; i++) {
        double a = with_alpha ? al[i / (size_t)c] : 1.0;
        in[i] = (float)(a > 0 ? col[i] / a : 0.0);
    }
    int rc = pfm_write(argv[6], in, w, h, c, 0);
    if (with_alpha) {
        for (size_t i = 0; i < px; i++)
            alpha[i] = (float)al[i];
        rc |= pfm_write(argv[8], alpha, w, h, 1, 0);
    }
    free(in);
    free(alpha);
    free(col);
    free(al);
    rb_filter_destroy(f);
    rb_context_destroy(ctx);
    return rc ? 2 : 0;
}

static int compare(int argc, char **argv)
{
    if (argc != 5)
        return usage();
    int w, h, c, bw, bh, bc;
    float *a = pfm_read(argv[2], &w, &h, &c), *b = pfm_read(argv[3], &bw, &bh, &bc);
    if (!a || !b)
        return 2;
    if (bw != w || bh != h || bc != c) {
        fprintf(stderr, "%s is %dx%dx%d, %s is %dx%dx%d\n", argv[2], w, h, c, argv[3], bw, bh, bc);
        return 2;
    }
    double tol = atof(argv[4]), worst = 0;
    size_t at = 0, n = (size_t)w * h * c;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= worst)) { /* NaN counts as the worst */
            worst = d;
            at = i;
        }
    }
    size_t x = at / (size_t)c % (size_t)w, y = at / (size_t)c / (size_t)w;
    printf("max |diff| %.3g at x=%zu y=%zu channel %zu (%g vs %g), tolerance %g\n", worst, x, y,
           at % (size_t)c, a[at], b[at], tol);
    free(a);
    free(b);
    return worst <= tol ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "blur"))
        return blur(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "compare"))
        return compare(argc, argv);
    return usage();
}
