/* Small dense r x r matrices, row-major (r <= RB_MAX_ORDER; the Stein solve
 * uses an r^2 x r^2 system). For plan-time work only. They work in long
 * rb_real (x87 extended on x86-64): for clustered poles near the unit circle
 * the companion-form matrices are ill-conditioned and rb_real alone lost up to
 * 1e-3 of the result. The plan stores the final matrices in rb_real. */
#ifndef RB_MATRIX_H
#define RB_MATRIX_H

typedef long double rb_real;

#define RB_MAT_MAX (RB_MAX_ORDER * RB_MAX_ORDER)

void rb_mat_identity(int r, rb_real *a);
void rb_mat_copy(int r, const rb_real *a, rb_real *out);
/* out = a * b; out may alias a or b. */
void rb_mat_mul(int r, const rb_real *a, const rb_real *b, rb_real *out);
/* out = a - b (any alias). */
void rb_mat_sub(int r, const rb_real *a, const rb_real *b, rb_real *out);
/* out = a^e by squaring (e >= 0); out may alias a. */
void rb_mat_pow(int r, const rb_real *a, unsigned long e, rb_real *out);
/* out = a^-1 (Gauss-Jordan with partial pivoting); returns 0 when singular. */
int rb_mat_inverse(int r, const rb_real *a, rb_real *out);
/* y = a x (y must not alias x). */
void rb_mat_vec(int r, const rb_real *a, const rb_real *x, rb_real *y);
/* Solve the n x n system m x = b in place (b becomes x); m is destroyed. 0 when singular. */
int rb_lin_solve(int n, rb_real *m, rb_real *b);
/* Stein equation X - A X B = C (eq. (43) of the 2016 paper) through the r^2 x r^2
 * system (I - A (x) B^T) vec_row(X) = vec_row(C). Returns 0 when singular. */
int rb_stein_solve(int r, const rb_real *a, const rb_real *b, const rb_real *c, rb_real *x);

#endif
