/* Box (area) filters through running sums: O(1) per pixel at any size, on all
 * cores, with no whole-image working copy.
 * A window of size s covers offsets -(s/2) .. s-1-s/2 (centred; an even size
 * has its extra sample on the left/top); samples beyond the image come from
 * the boundary's extension. Each thread owns a band of output rows and keeps
 * one row of column-window sums, slid down a row at a time (the row entering
 * added, the row leaving subtracted, both converted as they are read); each
 * output row is then a window of that row's prefix sums. Sums are in double,
 * so 8- and 16-bit results land on the rounding floor. */
#include "missing_data.h"
#include "pixel_convert.h"
#include "parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static long floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* F(j) = sum of the extended line over [0, j) (negative j: minus the sum over
 * [j, 0)), from the prefix sums P[0..per] of one period (stride L between
 * entries); c0, c1: the constant values before and after the line. */
static double window_prefix(const double *P, long n, long j, rb_boundary_mode mode, double c0,
                            double c1, size_t L)
{
    switch (mode) {
    case RB_BOUNDARY_PERIODIC:
    case RB_BOUNDARY_MIRROR: {
        long per = mode == RB_BOUNDARY_MIRROR ? 2 * n : n;
        long q = floor_div(j, per), rm = j - q * per;
        return (double)q * P[(size_t)per * L] + P[(size_t)rm * L];
    }
    default:
        if (j < 0)
            return (double)j * c0;
        if (j > n)
            return P[(size_t)n * L] + (double)(j - n) * c1;
        return P[(size_t)j * L];
    }
}

typedef struct {
    const rb_image *in;
    rb_image *out;
    int w, h, ch;
    int sx, sy;
    rb_boundary_mode mode;
    float cch[4];               /* constant boundary in working units */
    const double *period_sum;   /* periodic/mirror, sy >= period: one period's column sums */
    int nbands;
    struct box_buffers *buffers; /* one set a band */
} box_job;

typedef struct box_buffers {
    float *row;                 /* one input row, converted */
    double *cs;                 /* column-window sums, one row */
    double *P;                  /* prefix sums of one row's extension period */
    float *orow;                /* one output row */
} box_buffers;

/* cs += weight * extended row k (a constant row where the extension is constant). */
static void add_row(const box_job *J, const box_buffers *B, long k, double weight)
{
    const size_t n = (size_t)J->w * J->ch;
    long j = rb_extend_index(k, J->h, J->mode); /* -1: a constant row */
    if (j < 0) {
        if (J->mode != RB_BOUNDARY_CONSTANT)
            return;
        for (size_t i = 0; i < n; i++)
            B->cs[i] += weight * J->cch[i % (size_t)J->ch];
        return;
    }
    rb_pixels_load_rows(J->in, (int)j, 1, B->row, 0);
    if (weight == 1.0)
        for (size_t i = 0; i < n; i++)
            B->cs[i] += B->row[i];
    else if (weight == -1.0)
        for (size_t i = 0; i < n; i++)
            B->cs[i] -= B->row[i];
    else
        for (size_t i = 0; i < n; i++)
            B->cs[i] += weight * B->row[i];
}

/* The column-window sums of output row y from scratch: whole periods at once
 * and clipped constant runs by count, so the cost is at most one period. */
static void init_window(const box_job *J, const box_buffers *B, long y)
{
    const size_t n = (size_t)J->w * J->ch;
    const long h = J->h, a = y - J->sy / 2, b = a + J->sy - 1;
    memset(B->cs, 0, n * sizeof(double));
    if (J->mode == RB_BOUNDARY_PERIODIC || J->mode == RB_BOUNDARY_MIRROR) {
        long per = J->mode == RB_BOUNDARY_MIRROR ? 2 * h : h;
        long q = J->sy / per, rest = J->sy % per;
        if (q)
            for (size_t i = 0; i < n; i++)
                B->cs[i] = (double)q * J->period_sum[i];
        for (long k = a; k < a + rest; k++)
            add_row(J, B, k, 1.0);
        return;
    }
    long below = a < 0 ? (b < 0 ? b : -1) - a + 1 : 0;
    long above = b >= h ? b - (a > h ? a : h) + 1 : 0;
    for (long k = a < 0 ? 0 : a; k <= (b < h ? b : h - 1); k++)
        add_row(J, B, k, 1.0);
    /* the constant rows: clamp repeats row 0 / row h-1, constant adds c, zero nothing */
    if (below)
        add_row(J, B, -1, (double)below);
    if (above)
        add_row(J, B, h, (double)above);
}

/* One output row from the column-window sums: the x window over the row's
 * extension, through prefix sums (interior samples read P directly). */
static void row_pass(const box_job *J, const box_buffers *B)
{
    const int w = J->w, ch = J->ch;
    const long per = J->mode == RB_BOUNDARY_MIRROR ? 2L * w : w;
    const long lo = -(J->sx / 2), hi = J->sx - 1 - J->sx / 2;
    const double inv_y = 1.0 / J->sy, inv_x = 1.0 / J->sx;
    for (int c = 0; c < ch; c++) {
        double *P = B->P + c;
        double acc = 0.0;
        P[0] = 0.0;
        for (long i = 0; i < per; i++) {
            long j = i < w ? i : 2L * w - 1 - i; /* one period: the line, then (mirror) its reflection */
            acc += B->cs[(size_t)j * ch + c] * inv_y;
            P[(size_t)(i + 1) * ch] = acc;
        }
        double c0 = 0.0, c1 = 0.0;
        if (J->mode == RB_BOUNDARY_CLAMP) {
            c0 = B->cs[c] * inv_y;
            c1 = B->cs[(size_t)(w - 1) * ch + c] * inv_y;
        } else if (J->mode == RB_BOUNDARY_CONSTANT)
            c0 = c1 = J->cch[c];
        for (long x = 0; x < w; x++) {
            long j0 = x + lo, j1 = x + hi + 1;
            double sum = (j0 >= 0 && j1 <= w)
                             ? P[(size_t)j1 * ch] - P[(size_t)j0 * ch]
                             : window_prefix(P, w, j1, J->mode, c0, c1, (size_t)ch) -
                                   window_prefix(P, w, j0, J->mode, c0, c1, (size_t)ch);
            B->orow[(size_t)x * ch + c] = (float)(sum * inv_x);
        }
    }
}

static void box_band(void *user, int band)
{
    box_job *J = user;
    const long h = J->h;
    const long y0 = h * band / J->nbands, y1 = h * (band + 1) / J->nbands;
    if (y0 >= y1)
        return;
    const box_buffers *B = &J->buffers[band];
    init_window(J, B, y0);
    for (long y = y0; y < y1; y++) {
        row_pass(J, B);
        rb_pixels_store_rows(B->orow, J->out, (int)y, 1, 0);
        if (y + 1 < y1) { /* slide: the row entering at the bottom in, the top one out */
            long a = y - J->sy / 2;
            add_row(J, B, a + J->sy, 1.0);
            add_row(J, B, a, -1.0);
        }
    }
}

static void free_buffers(box_buffers *B, int nbands)
{
    for (int i = 0; B && i < nbands; i++) {
        free(B[i].row);
        free(B[i].orow);
        free(B[i].cs);
        free(B[i].P);
    }
    free(B);
}

/* Every band's row buffers, made before any pixel is written (so running out
 * of memory leaves the output untouched). */
static box_buffers *alloc_buffers(int nbands, int w, int ch, rb_boundary_mode mode)
{
    const size_t n = (size_t)w * ch;
    const size_t per_x = mode == RB_BOUNDARY_MIRROR ? 2 * (size_t)w : (size_t)w;
    box_buffers *B = calloc((size_t)nbands, sizeof *B);
    int ok = B != NULL;
    for (int i = 0; ok && i < nbands; i++) {
        B[i].row = malloc(n * sizeof(float));
        B[i].orow = malloc(n * sizeof(float));
        B[i].cs = malloc(n * sizeof(double));
        B[i].P = malloc((per_x + 1) * (size_t)ch * sizeof(double));
        ok = B[i].row && B[i].orow && B[i].cs && B[i].P;
    }
    if (!ok) {
        free_buffers(B, nbands);
        return NULL;
    }
    return B;
}

/* Periodic/mirror windows taller than a period: the column sums of one period. */
static double *period_sums(const rb_image *in, rb_boundary_mode mode)
{
    const size_t n = (size_t)in->width * in->channels;
    double *sum = calloc(n, sizeof(double));
    float *row = malloc(n * sizeof(float));
    if (sum && row)
        for (int y = 0; y < in->height; y++) {
            rb_pixels_load_rows(in, y, 1, row, 0);
            for (size_t i = 0; i < n; i++)
                sum[i] += row[i];
        }
    if (sum && row && mode == RB_BOUNDARY_MIRROR)
        for (size_t i = 0; i < n; i++)
            sum[i] *= 2.0; /* the mirrored period holds every row twice */
    free(row);
    if (!row) {
        free(sum);
        return NULL;
    }
    return sum;
}

rb_status rb_box_filter(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                        const rb_image *in, rb_image *out)
{
    return rb_box_filter_weighted(ctx, size_x, size_y, boundary, in, NULL, out);
}

rb_status rb_box_filter_weighted(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                                 const rb_image *in, const rb_weights *weights, rb_image *out)
{
    if (!ctx)
        return RB_ERR_NULL;
    if (!in || !out)
        return rb_error(ctx, RB_ERR_NULL, "rb_box_filter: NULL image");
    if (size_x < 1 || size_y < 1 || size_x > 2 * RB_MAX_SIDE + 1 || size_y > 2 * RB_MAX_SIDE + 1)
        return rb_error(ctx, RB_ERR_ARGUMENT, "box size %dx%d out of range (1..%d)", size_x, size_y,
                        2 * RB_MAX_SIDE + 1);
    if ((unsigned)boundary.mode > RB_BOUNDARY_NONE)
        return rb_error(ctx, RB_ERR_ARGUMENT, "unknown boundary mode %d", (int)boundary.mode);
    if (boundary.mode == RB_BOUNDARY_CONSTANT && !isfinite(boundary.value))
        return rb_error(ctx, RB_ERR_NAN, "boundary constant is not a finite number");
    int w = in->width, h = in->height, ch = in->channels;
    if (w <= 0 || h <= 0 || w > RB_MAX_SIDE || h > RB_MAX_SIDE ||
        (uint64_t)w * (uint64_t)h > RB_MAX_PIXELS)
        return rb_error(ctx, RB_ERR_SIZE, "box filter: image size %dx%d out of range", w, h);
    if (ch < 1 || ch > 4)
        return rb_error(ctx, RB_ERR_ARGUMENT, "box filter: %d channels: must be 1 to 4", ch);
    rb_status s = rb_host_images_check(ctx, in, out, w, h, ch, "box filter");
    if (s != RB_OK)
        return s;
    if (weights && weights->source != RB_WEIGHTS_NONE) {
        if ((s = rb_weights_check(ctx, weights, in)) != RB_OK)
            return s;
        const uint64_t n = rb_missing_count(ctx, in);
        return rb_missing_box(ctx, size_x, size_y, boundary, in, weights, out, n);
    }
    uint64_t n_missing;
    if ((n_missing = rb_missing_count(ctx, in)) > 0)
        return rb_missing_box(ctx, size_x, size_y, boundary, in, NULL, out, n_missing);

    /* Bands write rows that other bands still read: filtering in place reads a
     * copy of the input in its own format (the only whole-image buffer). */
    rb_image src = *in;
    void *copy = NULL;
    const size_t in_bytes = rb_image_stride(in) * (size_t)h, out_bytes = rb_image_stride(out) * (size_t)h;
    const char *ia = in->data, *oa = out->data;
    if (ia < oa + out_bytes && oa < ia + in_bytes) {
        copy = malloc(in_bytes);
        if (!copy)
            return rb_error(ctx, RB_ERR_NOMEM, "box filter: out of memory for a copy of the input");
        memcpy(copy, in->data, in_bytes);
        src.data = copy;
    }
    box_job J;
    memset(&J, 0, sizeof J);
    J.in = &src;
    J.out = out;
    J.w = w;
    J.h = h;
    J.ch = ch;
    J.sx = size_x;
    J.sy = size_y;
    J.mode = boundary.mode == RB_BOUNDARY_NONE ? RB_BOUNDARY_ZERO : boundary.mode;
    if (boundary.mode == RB_BOUNDARY_CONSTANT)
        rb_pixel_constant(boundary.value, ch, in->alpha, 0, J.cch);
    double *psum = NULL;
    long per_y = J.mode == RB_BOUNDARY_MIRROR ? 2L * h : h;
    if ((J.mode == RB_BOUNDARY_PERIODIC || J.mode == RB_BOUNDARY_MIRROR) && size_y >= per_y) {
        psum = period_sums(&src, J.mode);
        if (!psum) {
            free(copy);
            return rb_error(ctx, RB_ERR_NOMEM, "box filter: out of memory for column sums");
        }
    }
    J.period_sum = psum;
    int nt = rb_context_thread_count(ctx);
    J.nbands = nt < h ? nt : h;
    J.buffers = alloc_buffers(J.nbands, w, ch, J.mode);
    const int have_buffers = J.buffers != NULL;
    if (have_buffers)
        rb_parallel_for(J.nbands, J.nbands, box_band, &J);
    free_buffers(J.buffers, J.nbands);
    free(psum);
    free(copy);
    if (!have_buffers)
        return rb_error(ctx, RB_ERR_NOMEM, "box filter: out of memory for row buffers");
    return RB_OK;
}
