/* Small dense matrix helpers for the exact initial feedbacks (plan time). */
#include "rb_internal.h"
#include "matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rb_mat_identity(int r, rb_real *a)
{
    memset(a, 0, sizeof(rb_real) * (size_t)(r * r));
    for (int i = 0; i < r; i++)
        a[i * r + i] = 1.0;
}

void rb_mat_copy(int r, const rb_real *a, rb_real *out)
{
    memmove(out, a, sizeof(rb_real) * (size_t)(r * r));
}

void rb_mat_mul(int r, const rb_real *a, const rb_real *b, rb_real *out)
{
    rb_real t[RB_MAT_MAX];
    for (int i = 0; i < r; i++)
        for (int j = 0; j < r; j++) {
            rb_real s = 0.0;
            for (int k = 0; k < r; k++)
                s += a[i * r + k] * b[k * r + j];
            t[i * r + j] = s;
        }
    rb_mat_copy(r, t, out);
}

void rb_mat_sub(int r, const rb_real *a, const rb_real *b, rb_real *out)
{
    for (int i = 0; i < r * r; i++)
        out[i] = a[i] - b[i];
}

void rb_mat_pow(int r, const rb_real *a, unsigned long e, rb_real *out)
{
    rb_real base[RB_MAT_MAX], acc[RB_MAT_MAX];
    rb_mat_copy(r, a, base);
    rb_mat_identity(r, acc);
    while (e) {
        if (e & 1)
            rb_mat_mul(r, acc, base, acc);
        e >>= 1;
        if (e)
            rb_mat_mul(r, base, base, base);
    }
    rb_mat_copy(r, acc, out);
}

void rb_mat_vec(int r, const rb_real *a, const rb_real *x, rb_real *y)
{
    for (int i = 0; i < r; i++) {
        rb_real s = 0.0;
        for (int k = 0; k < r; k++)
            s += a[i * r + k] * x[k];
        y[i] = s;
    }
}

static void swap_rows(int n, rb_real *m, int a, int b)
{
    for (int j = 0; j < n; j++) {
        rb_real t = m[a * n + j];
        m[a * n + j] = m[b * n + j];
        m[b * n + j] = t;
    }
}

/* Partial pivoting in column c of the n x n m: the row p >= c of the largest
 * |m[p][c]| swapped into row c; p, or -1 when that is (numerically) zero:
 * singular */
static int partial_pivot(int n, rb_real *m, int c)
{
    int p = c;
    for (int i = c + 1; i < n; i++)
        if (fabsl(m[i * n + c]) > fabsl(m[p * n + c]))
            p = i;
    if (!(fabsl(m[p * n + c]) > 1e-300))
        return -1;
    if (p != c)
        swap_rows(n, m, c, p);
    return p;
}

/* row i -= f row c, columns from .. n-1 (the others are zero in row c) */
static void subtract_row_multiple(int n, rb_real *m, int i, int c, rb_real f, int from)
{
    for (int j = from; j < n; j++)
        m[i * n + j] -= f * m[c * n + j];
}

int rb_mat_inverse(int r, const rb_real *a, rb_real *out)
{
    rb_real m[RB_MAT_MAX], inv[RB_MAT_MAX];
    rb_mat_copy(r, a, m);
    rb_mat_identity(r, inv);
    for (int c = 0; c < r; c++) {
        const int p = partial_pivot(r, m, c);
        if (p < 0)
            return 0;
        if (p != c) /* the same row swap on the inverse being built */
            swap_rows(r, inv, c, p);
        rb_real piv = 1.0 / m[c * r + c];
        for (int j = 0; j < r; j++) {
            m[c * r + j] *= piv;
            inv[c * r + j] *= piv;
        }
        for (int i = 0; i < r; i++) {
            if (i == c)
                continue;
            rb_real f = m[i * r + c];
            if (f == 0.0)
                continue;
            subtract_row_multiple(r, m, i, c, f, 0);
            subtract_row_multiple(r, inv, i, c, f, 0);
        }
    }
    rb_mat_copy(r, inv, out);
    return 1;
}

int rb_lin_solve(int n, rb_real *m, rb_real *b)
{
    for (int c = 0; c < n; c++) {
        const int p = partial_pivot(n, m, c);
        if (p < 0)
            return 0;
        if (p != c) { /* and on the right-hand side */
            rb_real t = b[c]; b[c] = b[p]; b[p] = t;
        }
        for (int i = c + 1; i < n; i++) {
            rb_real f = m[i * n + c] / m[c * n + c];
            if (f == 0.0)
                continue;
            subtract_row_multiple(n, m, i, c, f, c);
            b[i] -= f * b[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        rb_real s = b[i];
        for (int j = i + 1; j < n; j++)
            s -= m[i * n + j] * b[j];
        b[i] = s / m[i * n + i];
    }
    return 1;
}

int rb_stein_solve(int r, const rb_real *a, const rb_real *b, const rb_real *c, rb_real *x)
{
    int n = r * r;
    rb_real *m = malloc(sizeof(rb_real) * (size_t)(n * n));
    if (!m)
        return 0;
    /* row (i,j), column (p,q): delta - A[i][p] B[q][j] */
    for (int i = 0; i < r; i++)
        for (int j = 0; j < r; j++)
            for (int p = 0; p < r; p++)
                for (int q = 0; q < r; q++)
                    m[(i * r + j) * n + p * r + q] =
                        (i == p && j == q ? 1.0 : 0.0) - a[i * r + p] * b[q * r + j];
    memcpy(x, c, sizeof(rb_real) * (size_t)n);
    int ok = rb_lin_solve(n, m, x);
    free(m);
    return ok;
}
