/* Small dense r x r matrices in double, row-major (r <= RB_MAX_ORDER; the
 * Stein solve uses an r^2 x r^2 system). For plan-time work only. */
#ifndef RB_MATRIX_H
#define RB_MATRIX_H

#define RB_MAT_MAX (RB_MAX_ORDER * RB_MAX_ORDER)

void rb_mat_identity(int r, double *a);
void rb_mat_copy(int r, const double *a, double *out);
/* out = a * b; out may alias a or b. */
void rb_mat_mul(int r, const double *a, const double *b, double *out);
/* out = a - b (any alias). */
void rb_mat_sub(int r, const double *a, const double *b, double *out);
/* out = a^e by squaring (e >= 0); out may alias a. */
void rb_mat_pow(int r, const double *a, unsigned long e, double *out);
/* out = a^-1 (Gauss-Jordan with partial pivoting); returns 0 when singular. */
int rb_mat_inverse(int r, const double *a, double *out);
/* y = a x (y must not alias x). */
void rb_mat_vec(int r, const double *a, const double *x, double *y);
/* Solve the n x n system m x = b in place (b becomes x); m is destroyed. 0 when singular. */
int rb_lin_solve(int n, double *m, double *b);
/* Stein equation X - A X B = C (eq. (43) of the 2016 paper) through the r^2 x r^2
 * system (I - A (x) B^T) vec_row(X) = vec_row(C). Returns 0 when singular. */
int rb_stein_solve(int r, const double *a, const double *b, const double *c, double *x);

#endif
