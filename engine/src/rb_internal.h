/* Internal engine interface: what the front door (plan/execute), the filter
 * designers, the CPU back end and the CUDA back end share. Includable from
 * C11 and from CUDA C++ (cuda/ includes it inside extern "C"). */
#ifndef RB_INTERNAL_H
#define RB_INTERNAL_H

#include "recblur.h"
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ context */
struct rb_context {
    rb_backend backend;
    int threads;                 /* 0 = all cores */
    rb_progress_fn progress;
    void *progress_user;
    rb_log_fn log;
    void *log_user;
    char error[1024];
};

/* Record a "recblur: ..." message in ctx (ctx may be NULL) and return status. */
rb_status rb_error(rb_context *ctx, rb_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Send an informational line to the context's log callback (if any). */
void rb_log(rb_context *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Number of worker threads to use for this context (>= 1). */
int rb_context_thread_count(const rb_context *ctx);

/* FIR taps per axis the CUDA tiled solver takes (cuda/tiled/: RB_TILED_TAPS);
 * the CUDA back end refuses longer FIRs at plan time, and `auto` runs them on
 * the CPU (plan.c). */
#define RB_CUDA_TILED_TAPS 64

/* ---------------------------------------------------------- filter (1 axis) */
/* The engine's form of one axis, FORMULAS.md conventions:
 *   u = FIR(x_ext) on offsets fir_lo..fir_hi,
 *   causal     y_i = u_i - sum_{k=1..r} dc[k-1] y_{i-k}
 *   anticausal z_i = y_i - sum_{k=1..r} da[k-1] z_{i+k}
 * with dc = -a (causal signature feedbacks), da = -a' (anticausal).
 * Both passes are padded to the common order r = max(orders) with zeros, so
 * the r x r matrices of the 2016 paper have one size per axis. */
typedef struct {
    int active;                  /* 0: axis left unfiltered */
    int fir_lo, fir_hi;          /* fir == NULL: identity */
    double *fir;                 /* owned, fir_hi - fir_lo + 1 taps */
    int causal_order, anticausal_order;
    int r;                       /* max(causal_order, anticausal_order) */
    double dc[RB_MAX_ORDER];
    double da[RB_MAX_ORDER];
    int symmetric;               /* FIR even (lo = -hi, mirrored taps) and dc == da:
                                    the mirror closed forms (67)/(72) apply */
    double dc_gain;              /* sum(fir) / ((1 + sum dc)(1 + sum da)) */
} rb_axis;

struct rb_filter {
    rb_axis axis[2];             /* [0] = x (rows), [1] = y (columns) */
    char description[256];
};

/* Deep copy (fir taps duplicated). */
rb_status rb_filter_copy(rb_context *ctx, const rb_filter *src, rb_filter *dst);
void rb_filter_clear(rb_filter *f);  /* frees taps of an embedded filter */
/* Build an rb_axis from the public form; checks NaN/Inf and stability (|pole| < 1). */
rb_status rb_axis_from_public(rb_context *ctx, const rb_axis_filter *pub, rb_axis *out,
                              const char *what);
/* 1 when all roots of 1 + sum d_k z^-k lie strictly inside the unit circle.
 * *max_pole gets the largest pole modulus (for messages). */
int rb_feedback_is_stable(const double *d, int r, double *max_pole);

/* ----------------------------------------------- per-axis plan (precomputed) */
/* Matrices (row-major r x r, double) for the exact initial feedbacks of the
 * 2016 paper, computed at plan time for one axis and one line length n. */
typedef struct {
    rb_axis ax;                  /* shallow copy; taps owned by the plan's filter */
    int n;                       /* line length (height for columns, width for rows) */
    rb_boundary_mode mode;
    int fir_ext;                 /* max(-fir_lo, fir_hi, 0): FIR reach */
    int mirror_via_periodic;     /* mirror: use the 2n-periodic route (49)/(51) on the mirrored
                                    2n line. Set for non-symmetric axes, and for symmetric ones
                                    whose (67)/(72) matrices fail a probe (ill-conditioned,
                                    poles near the unit circle): test this flag, not symmetric.
                                    For mirror, Pf/Pr (length 2n) are always filled. */
    int padded;                  /* the closed forms are ill-conditioned for this filter and
                                    length (poles very near 1, e.g. wide Gaussians: a probe line
                                    disagreed): run the passes over an explicit extension of
                                    `pad` samples each side instead (start-up transients
                                    below 1e-13 of the impulse response's peak);
                                    mirror_via_periodic is then 0. Both back ends; `auto` keeps
                                    pads over 12288 samples on the CPU (plan.c). */
    int pad;                     /* padding of the padded route (transients' decay + FIR reach) */
    long pad_need;               /* the padding that route needs, set whether it runs or not
                                    (the CPU sweep pads wrapped lines by it) */

    /* constant / clamp / zero (35), (44): with C = boundary value times sum(fir),
     *   p(Y) = prologue_dc * C (every slot), e(Z) = M44 e_{-1}(Y) + v44 * C */
    double prologue_dc;          /* 1 / (1 + sum dc) */
    double M44[RB_MAX_ORDER * RB_MAX_ORDER];   /* S_RF A_F^r */
    double v44[RB_MAX_ORDER];                  /* (S_R Abar_R - S_RF A_F^r) S_F Abar_F 1 */
    double anticausal_dc;        /* 1 / (1 + sum da): anticausal-only constant epilogue */

    /* periodic (49), (51); for mirror_via_periodic built with length 2n */
    double Pf[RB_MAX_ORDER * RB_MAX_ORDER];    /* (I - A_F^h)^-1 */
    double Pr[RB_MAX_ORDER * RB_MAX_ORDER];    /* (I - A_R^h)^-1 */

    /* mirror (67), (72) as in FORMULAS.md (corrected (67)) */
    double M67z[RB_MAX_ORDER * RB_MAX_ORDER];  /* (I - A_F^2h)^-1 K Abar_F^-1 (I - A_F^r A_R^r) */
    double M67y[RB_MAX_ORDER * RB_MAX_ORDER];  /* (I - A_F^2h)^-1 (A_F^h + K A_R^h Abar_F^-1 A_F^r Abar_R) */
    double AFh[RB_MAX_ORDER * RB_MAX_ORDER];   /* A_F^h */
    double M72[RB_MAX_ORDER * RB_MAX_ORDER];   /* (K - A_R^r)^-1 Abar_R */
} rb_axis_plan;

/* Fill an axis plan (matrices in double). */
rb_status rb_axis_plan_init(rb_context *ctx, const rb_axis *ax, rb_boundary_mode mode, int n,
                            rb_axis_plan *out);

/* ---------------------------------------------------------------- back ends */
typedef struct rb_backend_ops rb_backend_ops;

struct rb_plan {
    rb_context *ctx;
    rb_filter filter;            /* deep copy, owned */
    rb_boundary boundary;
    int width, height, channels;
    int linear_light;
    rb_axis_plan cols;           /* y axis, line length = height (runs first) */
    rb_axis_plan rows;           /* x axis, line length = width */
    float row_constant;          /* constant for the row pass: value * DC gain of column pass */
    const rb_backend_ops *backend;
    void *backend_state;
    char backend_name[160];
};

/* The one internal interface both back ends implement. */
struct rb_backend_ops {
    const char *name;                                      /* "cpu", "cuda" */
    /* RB_OK when usable; otherwise a status and a reason in why. */
    rb_status (*probe)(char *why, size_t why_len);
    rb_status (*plan_init)(rb_plan *plan);                 /* may set backend_state */
    void (*plan_fini)(rb_plan *plan);
    /* in/out validated by the engine (size, channels, formats, memory kinds). */
    rb_status (*execute)(rb_plan *plan, const rb_image *in, rb_image *out);
    rb_status (*sat)(rb_context *ctx, const rb_image *in, rb_image *out);
    rb_status (*recurrence_1d)(rb_plan *plan, const float *in, float *out, size_t n,
                               rb_memory mem);
};

extern const rb_backend_ops rb_backend_cpu;
/* NULL when the CUDA back end is not compiled in. */
const rb_backend_ops *rb_backend_cuda(void);
/* Device bytes the CUDA back end holds now (0 without CUDA): tests check that
 * nothing leaks after an error (cuda/rb_cuda_alloc.h). */
size_t rb_cuda_device_bytes_in_use(void);

/* ----------------------------------------------------------------- helpers */
size_t rb_format_size(rb_format f);            /* bytes per sample */
size_t rb_image_stride(const rb_image *img);   /* stride, or packed stride when 0 */
/* Validate an image against a size/channel expectation; message names `what`. */
rb_status rb_image_check(rb_context *ctx, const rb_image *img, int width, int height,
                         int channels, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* RB_INTERNAL_H */
