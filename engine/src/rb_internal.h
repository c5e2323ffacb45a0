/* Internal engine interface: what the front door (plan/execute), the filter
 * designers, the CPU back end and the CUDA back end share. Includable from
 * C11 and from CUDA C++ (cuda/ includes it inside extern "C"). */
#ifndef RB_INTERNAL_H
#define RB_INTERNAL_H

#include "recblur.h"
#include "switches.h"
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
    rb_nan_mode nan_mode;        /* what NaN samples mean (api/missing_data.c) */
    rb_switches sw;              /* the run-time switches, read at creation (switches.h) */
    char error[1024];
    /* rb_recurrence_1d's plan from its last call (api/recurrence_1d.c), reused by
     * the next call with the same filter, boundary, length and memory kind: the
     * plan's matrices and, on the GPU, its buffers are made once per size. Dropped
     * when the back end, threads or a switch change, by rb_plan_create (so that
     * it holds no GPU memory an image's plan needs) and by rb_context_destroy. */
    struct rb_plan *oned_plan;
    rb_memory oned_memory;
    /* rb_sat's device scratch on the CUDA back end (cuda/sat/rb_cuda_sat.cu): kept
     * from call to call, so that a call allocates nothing and zeroes no flags;
     * freed by sat_scratch_free with the cached plans, and after a failed call */
    void *sat_scratch;
    void (*sat_scratch_free)(void *);
    /* rb_context_warm_up's thread while it runs (api/context_warm.c); NULL otherwise */
    struct rb_warm *warm;
};

/* Wait for rb_context_warm_up's thread, if one runs (a no-op otherwise). Every
 * call that may reach a device waits first: rb_route_choose and
 * rb_context_destroy. */
void rb_context_warm_wait(rb_context *ctx);

/* Free the context's cached 1D plan and rb_sat scratch (GPU memory included); a no-op without them. */
void rb_context_drop_cached_plans(rb_context *ctx);

/* Set one run-time switch of ctx by its name (switches.c's table: an
 * environment variable's name, or a "test:" hook) from its text as the
 * environment would give it; value NULL restores the default. For tests and
 * benchmarks that compare routes within one process. */
rb_status rb_switch_set(rb_context *ctx, const char *name, const char *value);

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
 * no GPU solver takes longer FIRs, so the CUDA back end's can_run answers no
 * for them (cuda/plan/rb_cuda_backend.cu): `auto` runs them on the CPU. Here
 * for the tests. */
#define RB_CUDA_TILED_TAPS 64

/* Straight alpha out: colour is divided by the filtered alpha only where that
 * alpha is above this floor (babl's BABL_ALPHA_FLOOR, 1/65536: below half a
 * 16-bit step, so no stored alpha code tells it from 0); elsewhere the colour
 * is 0. A filtered alpha of 0 comes out as rounding noise of either sign
 * (-5.6e-17 from one route, a denormal 3e-43 from the strips), and dividing
 * by a tiny positive one made inf colour. CPU (pixel_convert.c) and CUDA
 * (rb_cuda_pixels.cu) stores use it alike. */
#define RB_ALPHA_FLOOR (1.0f / 65536.0f)

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
    int steady_epilogue;         /* constant modes with `padded` set: (44) taken relative to
                                    the steady states and in backward differences,
                                    zs + M44d [y_-1 - ys, D y_-1, .., D^(r-1) y_-1], agreed with
                                    the padded route on the probe, so the CPU routes run it
                                    instead of the padding (O(r^2) a line, not O(pad)); `padded`
                                    and `pad` stay for the back ends that run (44) as is. */

    /* constant / clamp / zero (35), (44): with C = boundary value times sum(fir),
     *   p(Y) = prologue_dc * C (every slot), e(Z) = M44 e_{-1}(Y) + v44 * C */
    double prologue_dc;          /* 1 / (1 + sum dc) */
    double M44[RB_MAX_ORDER * RB_MAX_ORDER];   /* S_RF A_F^r */
    double v44[RB_MAX_ORDER];                  /* (S_R Abar_R - S_RF A_F^r) S_F Abar_F 1 */
    double anticausal_dc;        /* 1 / (1 + sum da): anticausal-only constant epilogue */
    double M44d[RB_MAX_ORDER * RB_MAX_ORDER];  /* M44 in backward differences (steady_epilogue) */

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
struct rb_deblur_plan;

/* What a back end is asked whether it can run (rb_backend_ops.can_run). */
typedef enum {
    RB_WORK_FILTER_2D,           /* rb_plan_create: a separable 2D filter */
    RB_WORK_SAT,                 /* rb_sat: a summed-area table */
    RB_WORK_RECURRENCE_1D,       /* rb_recurrence_1d: one signal */
    RB_WORK_DEBLUR               /* rb_deblur_plan_create: the quadrant 2D IIR deblur */
} rb_work;

typedef struct {
    rb_work work;
    const struct rb_plan *plan;  /* FILTER_2D, RECURRENCE_1D: the planned axes (sizes, orders,
                                    FIR taps, padding); NULL otherwise */
    const rb_image *in, *out;    /* SAT: sizes, formats, memory kinds; NULL otherwise */
    rb_memory memory;            /* RECURRENCE_1D: where the signal lives (host for the others;
                                    a 2D plan learns its images' memory only at execute) */
    int width, height, channels; /* the image (the signal: n x 1 x 1) */
} rb_route_request;

/* A back end's answer; `why` says why whenever it is not RB_ROUTE_YES. */
typedef enum {
    RB_ROUTE_YES = 0,            /* it runs this, as exactly and about as fast as any */
    RB_ROUTE_AVOID = 1,          /* it runs this, but less exactly or slower than the cpu:
                                    `auto` goes elsewhere, an explicit request runs it */
    RB_ROUTE_NO = 2              /* it cannot run this */
} rb_route_verdict;

struct rb_plan {
    rb_context *ctx;
    rb_filter filter;            /* deep copy, owned */
    rb_boundary boundary;
    int width, height, channels;
    int linear_light;
    rb_axis_plan cols;           /* y axis, line length = height (runs first) */
    rb_axis_plan rows;           /* x axis, line length = width */
    const rb_backend_ops *backend;
    void *backend_state;
    char backend_name[160];
    struct rb_missing_cache *missing; /* what missing-data runs reuse (api/missing_data.c):
                                         made by the first, freed with the plan */
};

/* NaN samples a back end counted as it read a host float32 input
 * (rb_backend_ops.execute_counting); `uncounted`: some of the input went by a
 * route without a CPU pass over it (the engine then counts them itself). */
typedef struct {
    uint64_t count;
    int uncounted;
} rb_nan_tally;

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
    /* The one route predicate: can this back end run `req`, and if not (or not
     * well), why. It includes probe. Every operation's back end is chosen from
     * these answers, in one place (api/route.c). */
    rb_route_verdict (*can_run)(const rb_route_request *req, char *why, size_t why_len);
    /* The deblur filter on the loaded image (deblur/deblur_internal.h says what
     * work, cval and acc hold); NULL for the cpu, whose route is the deblur
     * module's own wavefront (deblur_cpu.c). */
    rb_status (*deblur)(struct rb_deblur_plan *p, const float *work, const float *cval, float *acc);
    /* execute, counting the NaNs of a host float32 input into *nan on the way
     * (the CUDA back end's staging copy reads every sample anyway), so that the
     * missing-data check costs no pass of its own; NULL where the back end has
     * no such pass (the engine counts first, api/plan.c). */
    rb_status (*execute_counting)(rb_plan *plan, const rb_image *in, rb_image *out, rb_nan_tally *nan);
    /* rb_context_warm_up's work, run on a thread of its own: make what the
     * first plan would otherwise make per process (the device's context).
     * Errors are ignored here: the plan meets them again and reports them.
     * NULL where there is nothing to start (cpu). */
    void (*warm_up)(void);
};

extern const rb_backend_ops rb_backend_cpu;
/* NULL when the CUDA back end is not compiled in. */
const rb_backend_ops *rb_backend_cuda(void);
/* Device bytes the CUDA back end holds now (0 without CUDA): tests check that
 * nothing leaks after an error (cuda/host/rb_cuda_alloc.h). */
size_t rb_cuda_device_bytes_in_use(void);

/* ----------------------------------------------------------------- helpers */
/* The sample of a line of n samples that stands at index k (any integer) of
 * its extension by `mode`: clamp repeats the end samples, periodic wraps with
 * period n, mirror reflects with the edge sample repeated (... 1 0 | 0 1 ..
 * n-1 | n-1 n-2 ..., period 2n); -1 for zero, constant and none, whose
 * extension is a value, not a sample. The one C copy (design/boundary.c):
 * the line solver, the box filter and the deblur filter call it. */
long rb_extend_index(long k, long n, rb_boundary_mode mode);
/* The constant boundary in working units per channel, for the column pass
 * (col) and for the row pass (row: what the row pass sees beyond the image,
 * the column pass' output of the constant, i.e. col times the column axis'
 * DC gain: FORMULAS.md, 2D). Zeros for other modes. The one place that
 * computes them for a plan (pixel_convert.c); both back ends call it. */
void rb_plan_constants(const rb_plan *plan, const rb_image *in, float col[4], float row[4]);
/* bytes per sample (inline: the CPU sweep's kernels call it per sample) */
static inline size_t rb_format_size(rb_format f)
{
    return f == RB_U8 ? 1 : f == RB_U16 ? 2 : f == RB_F32 ? 4 : f == RB_F64 ? 8 : 0;
}
size_t rb_image_stride(const rb_image *img);   /* stride, or packed stride when 0 */
/* Validate an image against a size/channel expectation; message names `what`. */
rb_status rb_image_check(rb_context *ctx, const rb_image *img, int width, int height,
                         int channels, const char *what);
/* The input and output of an operation that runs on the CPU only (op names it
 * in the messages): both checked as above, in host memory, not F64. */
rb_status rb_host_images_check(rb_context *ctx, const rb_image *in, const rb_image *out, int width, int height,
                               int channels, const char *op);

#ifdef __cplusplus
}
#endif

#endif /* RB_INTERNAL_H */
