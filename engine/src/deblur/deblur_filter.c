/* rb_deblur_filter: the four quadrants' coefficient windows, checked for
 * NaN/Inf and for stability (decay of the recursive impulse response). */
#include "deblur_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rb_deblur_decay_check(const double *b, int m, int *radius, double *outer)
{
    const int G = RB_DEBLUR_DECAY_GRID;
    /* Sparse tap list: designed filters use a 3 x 3 corner of the window. */
    int nt = 0, *k1 = malloc(sizeof(int) * (size_t)m * m), *k2 = malloc(sizeof(int) * (size_t)m * m);
    double *bv = malloc(sizeof(double) * (size_t)m * m);
    double *g = calloc((size_t)G * G, sizeof(double));
    double *shell = calloc((size_t)G, sizeof(double));
    int ok = 0;
    if (!k1 || !k2 || !bv || !g || !shell)
        goto done;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            if ((i || j) && b[i * m + j] != 0.0) {
                k1[nt] = i;
                k2[nt] = j;
                bv[nt++] = b[i * m + j];
            }
    /* g = delta + sum b(k) g(. - k): the quadrant recursion driven by a unit impulse. */
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            double s = (i == 0 && j == 0) ? 1.0 : 0.0;
            for (int t = 0; t < nt; t++) {
                int ii = i - k1[t], jj = j - k2[t];
                if (ii >= 0 && jj >= 0)
                    s += bv[t] * g[(size_t)ii * G + jj];
            }
            if (!isfinite(s) || fabs(s) > 1e150)
                goto done;  /* blew up: certainly unstable */
            g[(size_t)i * G + j] = s;
            int r = i > j ? i : j;
            shell[r] += fabs(s);
        }
    double total = 0, tail = 0;
    for (int r = 0; r < G; r++)
        total += shell[r];
    for (int r = G / 2; r < G; r++)
        tail += shell[r];
    *outer = tail / total;
    if (!(*outer <= RB_DEBLUR_DECAY_REJECT))
        goto done;
    tail = 0;
    int rad = G - 1;
    for (int r = G - 1; r >= 0; r--) {
        tail += shell[r];
        if (tail > RB_DEBLUR_DECAY_MARGIN * total)
            break;
        rad = r;
    }
    *radius = rad;
    ok = 1;
done:
    if (!ok && outer && !(*outer > 0))
        *outer = INFINITY;
    free(k1);
    free(k2);
    free(bv);
    free(g);
    free(shell);
    return ok;
}

rb_status rb_deblur_filter_create(rb_context *ctx, int m, const double *const a[4],
                                  const double *const b[4], rb_deblur_filter **out)
{
    if (!out)
        return rb_error(ctx, RB_ERR_NULL, "deblur filter: NULL output pointer");
    *out = NULL;
    if (!a || !b)
        return rb_error(ctx, RB_ERR_NULL, "deblur filter: NULL coefficient array");
    if (m < RB_DEBLUR_MIN_WINDOW || m > RB_DEBLUR_MAX_WINDOW)
        return rb_error(ctx, RB_ERR_ARGUMENT, "deblur filter: window %d out of range (%d..%d)", m,
                        RB_DEBLUR_MIN_WINDOW, RB_DEBLUR_MAX_WINDOW);
    for (int q = 0; q < 4; q++) {
        if (!a[q] || !b[q])
            return rb_error(ctx, RB_ERR_NULL, "deblur filter: quadrant %d has NULL coefficients", q);
        for (int k = 0; k < m * m; k++) {
            if (!isfinite(a[q][k]))
                return rb_error(ctx, RB_ERR_NAN, "deblur filter: quadrant %d FIR tap a(%d,%d) is %g",
                                q, k / m, k % m, a[q][k]);
            if (!isfinite(b[q][k]))
                return rb_error(ctx, RB_ERR_NAN,
                                "deblur filter: quadrant %d recursive tap b(%d,%d) is %g", q, k / m,
                                k % m, b[q][k]);
        }
        if (b[q][0] != 0.0)
            return rb_error(ctx, RB_ERR_ARGUMENT,
                            "deblur filter: quadrant %d recursive tap b(0,0) is %g; it must be 0 "
                            "(the recursion excludes the origin)",
                            q, b[q][0]);
    }
    rb_deblur_filter *f = calloc(1, sizeof *f);
    if (!f)
        return rb_error(ctx, RB_ERR_NOMEM, "deblur filter: out of memory");
    f->m = m;
    f->fit_error = -1;
    for (int q = 0; q < 4; q++) {
        f->a[q] = malloc(sizeof(double) * (size_t)m * m);
        f->b[q] = malloc(sizeof(double) * (size_t)m * m);
        if (!f->a[q] || !f->b[q]) {
            rb_deblur_filter_destroy(f);
            return rb_error(ctx, RB_ERR_NOMEM, "deblur filter: out of memory");
        }
        memcpy(f->a[q], a[q], sizeof(double) * (size_t)m * m);
        memcpy(f->b[q], b[q], sizeof(double) * (size_t)m * m);
    }
    for (int q = 0; q < 4; q++) {
        int same = -1;
        for (int p = 0; p < q && same < 0; p++)
            if (!memcmp(f->b[p], f->b[q], sizeof(double) * (size_t)m * m))
                same = p;
        if (same >= 0) {
            f->decay[q] = f->decay[same];
            continue;
        }
        double outer = 0;
        if (!rb_deblur_decay_check(f->b[q], m, &f->decay[q], &outer)) {
            rb_deblur_filter_destroy(f);
            return rb_error(ctx, RB_ERR_UNSTABLE,
                            "deblur filter: quadrant %d recursive part is unstable: its impulse "
                            "response does not decay on a %dx%d grid (outer-half L1 ratio %g, "
                            "limit %g)",
                            q, RB_DEBLUR_DECAY_GRID, RB_DEBLUR_DECAY_GRID, outer,
                            RB_DEBLUR_DECAY_REJECT);
        }
    }
    int nzb = 0;
    for (int q = 0; q < 4; q++)
        for (int k = 1; k < m * m; k++)
            nzb += f->b[q][k] != 0.0;
    snprintf(f->description, sizeof f->description, "deblur quadrant filter %dx%d: %s", m, m,
             nzb ? "FIR + recursive (IIR)" : "pure FIR (b = 0)");
    *out = f;
    return RB_OK;
}

void rb_deblur_filter_destroy(rb_deblur_filter *f)
{
    if (!f)
        return;
    for (int q = 0; q < 4; q++) {
        free(f->a[q]);
        free(f->b[q]);
    }
    free(f);
}

int rb_deblur_filter_window(const rb_deblur_filter *f) { return f ? f->m : 0; }

rb_status rb_deblur_filter_get(const rb_deblur_filter *f, int q, const double **a, const double **b)
{
    if (!f || !a || !b)
        return RB_ERR_NULL;
    if (q < 0 || q > 3)
        return RB_ERR_ARGUMENT;
    *a = f->a[q];
    *b = f->b[q];
    return RB_OK;
}

int rb_deblur_filter_decay(const rb_deblur_filter *f, int q)
{
    return (f && q >= 0 && q < 4) ? f->decay[q] : -1;
}

const char *rb_deblur_filter_describe(const rb_deblur_filter *f) { return f ? f->description : ""; }

double rb_deblur_filter_fit_error(const rb_deblur_filter *f) { return f ? f->fit_error : -1; }
