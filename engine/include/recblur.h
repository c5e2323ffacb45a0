/* recblur — exact, fast recursive (IIR) image filtering.
 *
 * Public C API. Plan/execute like FFTW and cuFFT: rb_plan_create() does the
 * expensive, reusable work (feedback matrices in double, device buffers),
 * rb_execute() is cheap and repeatable.
 *
 *   rb_context *ctx;  rb_filter *f;  rb_plan *plan;
 *   rb_context_create(&ctx);
 *   rb_filter_gaussian(ctx, 20.0, 20.0, RB_GAUSSIAN_DEFAULT, &f);
 *   rb_boundary b = { RB_BOUNDARY_PERIODIC, 0.0f };
 *   rb_plan_create(ctx, f, b, w, h, 3, &plan);
 *   rb_execute(plan, &in, &out);          // in == out allowed
 *   printf("%s\n", rb_plan_backend_name(plan));
 *   rb_plan_destroy(plan); rb_filter_destroy(f); rb_context_destroy(ctx);
 *
 * Every call returns rb_status. On error the context keeps a one-line,
 * human-readable message (rb_context_error) naming the problem, libvips
 * style: "recblur: signature \"0.2: 1.5\": unstable filter (pole 1.5 on or
 * outside the unit circle)". Nothing is written to the output image when a
 * call fails before filtering started.
 *
 * Conventions
 * - Pixels are float32 in flight. U8 and U16 samples are mapped to [0,1]
 *   (v/255, v/65535) on the way in and rounded+clamped on the way out; F32
 *   is taken as is (no clamping). Boundary constants are in those units.
 * - Separable filters run over columns (the y axis) first, then rows (x).
 * - The engine keeps no global state and leaves no thread running after a
 *   call returns (it is loaded and unloaded by ImageMagick on every use).
 *   Separate contexts/plans may be used from separate threads at once; one
 *   plan must not be executed from two threads at the same time.
 */
#ifndef RECBLUR_H
#define RECBLUR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RECBLUR_VERSION_STRING "0.1.0"
#define RECBLUR_VERSION_MAJOR 0
#define RECBLUR_VERSION_MINOR 1
#define RECBLUR_VERSION_PATCH 0

/* Largest recursive order per pass, and largest FIR support, we accept. */
#define RB_MAX_ORDER 8
#define RB_MAX_FIR_TAPS 4097
/* Largest side and pixel count we accept (overflow guard, not a memory promise). */
#define RB_MAX_SIDE 1048576
#define RB_MAX_PIXELS ((uint64_t)1 << 34)

typedef enum {
    RB_OK = 0,
    RB_ERR_NULL,          /* a required pointer was NULL */
    RB_ERR_ARGUMENT,      /* an argument is out of range or malformed */
    RB_ERR_SIZE,          /* image size zero, negative, too large, or mismatched */
    RB_ERR_UNSTABLE,      /* a recursive pass has a pole with |p| >= 1 */
    RB_ERR_NAN,           /* NaN or Inf in coefficients or parameters */
    RB_ERR_PARSE,         /* a signature / option / boundary string is garbled */
    RB_ERR_PRESET,        /* unknown preset, or a bad line in a preset file */
    RB_ERR_NOMEM,         /* host memory allocation failed */
    RB_ERR_IO,            /* a file could not be read or written */
    RB_ERR_BACKEND,       /* the requested back end is not available (e.g. no GPU) */
    RB_ERR_DEVICE,        /* a GPU call failed (out of memory, launch failure, ...) */
    RB_ERR_UNSUPPORTED,   /* a valid request this back end/format cannot do */
    RB_ERR_CANCELLED      /* the progress callback asked to stop */
} rb_status;

/* Short generic text for a status ("unstable filter"). */
const char *rb_status_string(rb_status status);

/* ------------------------------------------------------------------ context */

typedef struct rb_context rb_context;

typedef enum {
    RB_BACKEND_AUTO = 0,  /* CUDA when a device is usable, else CPU */
    RB_BACKEND_CPU,
    RB_BACKEND_CUDA
} rb_backend;

/* Return non-zero to cancel. fraction in [0,1], never decreasing, 1.0 last when
 * the call succeeds. Called from the calling thread only.
 * A cancel is honoured only while the output is untouched: rb_execute then
 * returns RB_ERR_CANCELLED and the output is as it was. Routes that write the
 * output as they go (the CPU back end's band sweep writes its first output rows
 * after about a third of the work) ignore a cancel that comes later: the call
 * finishes and returns RB_OK, the image whole: never left half filtered. */
typedef int (*rb_progress_fn)(double fraction, void *user);
/* Informational messages (back end chosen, fall-backs). */
typedef void (*rb_log_fn)(const char *message, void *user);

rb_status rb_context_create(rb_context **out);
void rb_context_destroy(rb_context *ctx);
rb_status rb_context_set_backend(rb_context *ctx, rb_backend backend);
rb_status rb_context_set_threads(rb_context *ctx, int threads); /* 0 = all cores */
void rb_context_set_progress(rb_context *ctx, rb_progress_fn fn, void *user);
void rb_context_set_log(rb_context *ctx, rb_log_fn fn, void *user);
/* What NaN samples of a float image mean (docs/RELIABILITY.md, "Missing data").
 * MISSING (the default): a NaN is an unknown sample of its channel. rb_execute
 * and rb_box_filter filter the data with those samples set to 0 and the
 * validity weights (1 known, 0 missing) the same way, and divide (normalised
 * convolution): every output with valid data within the filter's reach is
 * finite; one with none (weights' filter below 1e-5 of the filter's DC gain)
 * is NaN. Images without NaN run the ordinary path (a scan only). Filters
 * whose impulse response goes negative (B-spline prefilters, some
 * signatures, deblur) refuse NaN input in this mode: the division means
 * nothing there. +-Inf are data, not missing.
 * PROPAGATE: IEEE arithmetic, as the filter computes it (one NaN reaches the
 * whole line of a recursive filter). Images in device memory and
 * rb_recurrence_1d always run this way. */
typedef enum { RB_NAN_MISSING = 0, RB_NAN_PROPAGATE } rb_nan_mode;
rb_status rb_context_set_nan_mode(rb_context *ctx, rb_nan_mode mode);
/* Start, on a thread of its own, what the context's back end needs before its
 * first plan, and return at once: for CUDA (and AUTO, when CUDA is compiled
 * in) the device's context, which the first rb_plan_create would otherwise
 * make (220-330 ms on an H100); nothing for CPU. Call it after choosing the
 * back end and before slow work of your own (reading the image) to overlap
 * the two. The first call that may reach a device (rb_plan_create, rb_sat,
 * rb_recurrence_1d, rb_deblur_plan_create) waits for that thread, and so
 * does rb_context_destroy: no thread outlives the context (the one exception
 * to "no thread left running", above). Results do not change; a device
 * failure is reported by the call that waits, as without warm-up (AUTO then
 * runs on the CPU). CUDA: the runtime's device 0 (as CUDA_VISIBLE_DEVICES
 * numbers them), which a thread that has not called cudaSetDevice plans on.
 * Calling it again while a warm-up runs does nothing. Returns RB_OK, or
 * RB_ERR_NULL without a context. */
rb_status rb_context_warm_up(rb_context *ctx);
/* Host memory for the caller's images, page-locked when the context's back
 * end may be cuda (CUDA, or AUTO with CUDA compiled in) and a device takes
 * it: the GPU then moves the image by DMA, with no CPU copy through the
 * staging (as fftw_malloc / cudaHostAlloc). Otherwise, or when the pages
 * cannot be locked, plain memory: every back end reads and writes both, with
 * the same results. Page-aligned, `bytes` long, every page resident (faulted
 * in here, not by the first filter that writes it), contents undefined (as
 * malloc); NULL for bytes 0, no context, or no memory. Locking costs about
 * what one copy of the bytes does, paid here: it pays where the buffer is
 * made while other work runs (the CLI makes its output while it reads IN).
 * Free it with rb_context_host_free (not free), before rb_context_destroy or
 * after: the memory is not the context's. Thread-safe for distinct contexts
 * and with a warm-up running on this one. */
void *rb_context_host_alloc(rb_context *ctx, size_t bytes);
/* Free what rb_context_host_alloc gave (NULL: nothing); ctx may be NULL. */
void rb_context_host_free(rb_context *ctx, void *p);
/* Whether a block of rb_context_host_alloc is page-locked (0 for NULL). */
int rb_context_host_locked(const void *p);
/* The last error message of this context ("" when none). */
const char *rb_context_error(const rb_context *ctx);
/* Parse "auto" | "cpu" | "cuda". */
rb_status rb_backend_parse(rb_context *ctx, const char *text, rb_backend *out);
/* Whether the CUDA back end is compiled in and a device is usable; why not in `why`. */
int rb_cuda_available(char *why, size_t why_len);

/* ------------------------------------------------------------------ filters */

/* One axis of a separable filter, in the form the engine runs:
 *   u[i] = sum_{k=fir_lo..fir_hi} fir[k - fir_lo] * x[i + k]     (FIR on the extended input)
 *   y[i] = u[i] + sum_{k=1..causal_order} causal[k-1] * y[i-k]   (causal pass)
 *   z[i] = y[i] + sum_{k=1..anticausal_order} anticausal[k-1] * z[i+k]
 * Feedback coefficients use the signature sign convention (a_k, "+").
 * fir == NULL (or fir_lo == fir_hi == 0 with fir[0] = 1) is the identity FIR.
 * An axis with no FIR and both orders 0 leaves that axis unfiltered. */
typedef struct {
    int fir_lo, fir_hi;
    const double *fir;
    int causal_order;
    double causal[RB_MAX_ORDER];
    int anticausal_order;
    double anticausal[RB_MAX_ORDER];
} rb_axis_filter;

typedef struct rb_filter rb_filter;

typedef enum {
    RB_GAUSSIAN_DEFAULT = 0,  /* L1 kernel error <= 1e-3 for every sigma */
    RB_GAUSSIAN_ACCURATE      /* L1 kernel error <= 1e-4 */
} rb_gaussian_quality;

typedef enum { RB_DIRECTION_BOTH = 0, RB_DIRECTION_CAUSAL, RB_DIRECTION_ANTICAUSAL } rb_direction;
typedef enum { RB_AXES_BOTH = 0, RB_AXES_X, RB_AXES_Y } rb_axes;

/* Gaussian blur; sigma 0 leaves that axis unfiltered; sigma in [0.5, 1e5] otherwise
 * (0 < sigma < 0.5 is an error: such a kernel is a near-identity). */
rb_status rb_filter_gaussian(rb_context *ctx, double sigma_x, double sigma_y,
                             rb_gaussian_quality quality, rb_filter **out);
/* B-spline interpolation prefilter, degree 3 or 5, on both axes. */
rb_status rb_filter_bspline(rb_context *ctx, int degree, rb_filter **out);
/* Signature "b0, b1, ...: a1, a2, ..." (b may be empty: ": a1" means b = 1).
 * Causal pass  y[i] = sum_k b_k x[i-k] + sum_k a_k y[i-k];
 * anticausal   z[i] = sum_k b_k y[i+k] + sum_k a_k z[i+k].
 * Rejects empty/garbled text, NaN/Inf and unstable filters (|pole| >= 1). */
rb_status rb_filter_parse(rb_context *ctx, const char *signature, rb_direction direction,
                          rb_axes axes, rb_filter **out);
/* Generic: x and y axes (either may be NULL = unfiltered). Checks stability and NaN. */
rb_status rb_filter_create(rb_context *ctx, const rb_axis_filter *x, const rb_axis_filter *y,
                           rb_filter **out);
void rb_filter_destroy(rb_filter *filter);
/* Copy of one axis (0 = x, 1 = y); *fir points into the filter (valid while it lives). */
rb_status rb_filter_get_axis(const rb_filter *filter, int axis, rb_axis_filter *out);
/* One line describing the filter ("gaussian sigma 20x20: order 4 recursive + 9-tap FIR"). */
const char *rb_filter_describe(const rb_filter *filter);

/* ----------------------------------------------------------------- boundary */

typedef enum {
    RB_BOUNDARY_ZERO = 0,
    RB_BOUNDARY_CONSTANT,  /* value outside the image = `value` (in [0,1] units for U8/U16) */
    RB_BOUNDARY_CLAMP,     /* edge sample repeated to infinity */
    RB_BOUNDARY_PERIODIC,  /* image tiles the plane (seamless textures, panoramas) */
    RB_BOUNDARY_MIRROR,    /* even-periodic: ... x1 x0 | x0 x1 ... x(n-1) | x(n-1) x(n-2) ... */
    RB_BOUNDARY_NONE       /* input zero outside, every recursive pass starts from a zero state */
} rb_boundary_mode;

typedef struct {
    rb_boundary_mode mode;
    float value;           /* RB_BOUNDARY_CONSTANT only */
} rb_boundary;

/* Parse "zero" | "constant=V" | "clamp" | "periodic" | "mirror" | "none". */
rb_status rb_boundary_parse(rb_context *ctx, const char *text, rb_boundary *out);
const char *rb_boundary_name(rb_boundary_mode mode);

/* -------------------------------------------------------------------- image */

typedef enum { RB_U8 = 0, RB_U16, RB_F32, RB_F64 } rb_format; /* F64: rb_sat output only */
typedef enum { RB_MEMORY_HOST = 0, RB_MEMORY_DEVICE } rb_memory;
typedef enum {
    RB_ALPHA_NONE = 0,        /* every channel filtered independently */
    RB_ALPHA_STRAIGHT,        /* last channel is alpha, colour not premultiplied: the engine
                                 premultiplies, filters, un-premultiplies (no bleeding) */
    RB_ALPHA_PREMULTIPLIED    /* last channel is alpha, colour premultiplied: filtered as is */
} rb_alpha;

typedef struct {
    int width, height;
    int channels;        /* 1..4, interleaved */
    size_t stride;       /* bytes between rows; 0 = tightly packed */
    rb_format format;
    rb_memory memory;
    rb_alpha alpha;
    int srgb;            /* colour channels are sRGB-encoded; with rb_plan_set_linear_light
                            the engine filters in linear light */
    void *data;
} rb_image;

/* --------------------------------------------------------------------- plan */

typedef struct rb_plan rb_plan;

/* On the cuda back end the plan holds the image twice in device memory (float32)
 * when it fits. When it does not, the plan runs the image in pieces on the GPU
 * instead (one log line says so, with the counts): the columns in full-height
 * bands, then the rows in full-width strips, with the same result bit for bit.
 * Between the two passes the image waits as float32: in the output itself
 * when it is a float32 image (host or device), else in host memory, a buffer of
 * width x height x channels floats that the plan allocates at its first execute
 * (page-locked when it can be) and keeps until rb_plan_destroy (RB_ERR_NOMEM,
 * with the size, when that memory cannot be had). The plan takes at most half
 * of the device memory left; `auto` falls back to the cpu back end only when
 * not even one full-height column fits in that. */
rb_status rb_plan_create(rb_context *ctx, const rb_filter *filter, rb_boundary boundary,
                         int width, int height, int channels, rb_plan **out);
/* Filter in linear light when images say srgb (decode, filter, encode). Default off. */
rb_status rb_plan_set_linear_light(rb_plan *plan, int enable);
/* in and out must match the plan's size and channels; formats may differ; in == out allowed. */
rb_status rb_execute(rb_plan *plan, const rb_image *in, rb_image *out);

/* Weights of the input's samples for missing-data filtering (docs/RELIABILITY.md,
 * "Masks"): a weight in [0,1] per pixel, 0 = unknown, 1 = fully valid, between
 * = partial confidence, multiplying the NaN validity of every channel of that
 * pixel (RB_NAN_MISSING: a NaN is weight 0; RB_NAN_PROPAGATE: a NaN of non-zero
 * weight spreads as IEEE arithmetic does). The output is the normalised
 * convolution F(w x) / F(w) per channel, as for NaN, with the same boundary
 * conventions; where F(w) is below 1e-5 of the filter's DC gain it is NaN.
 * A sample of weight 0 contributes nothing, whatever its value.
 *   RB_WEIGHTS_IMAGE: `image`, one channel of the plan's size in host memory,
 *     U8/U16 (v/255, v/65535) or F32 in [0,1] (other floats, NaN included,
 *     are an error).
 *   RB_WEIGHTS_ALPHA: the input's alpha channel (in->alpha straight or
 *     premultiplied) weighs its colour channels: transparent pixels are
 *     unknown and get filled from their opaque neighbours. The output's alpha
 *     is 1 (opaque) wherever colour came out and 0 where no weight lay in
 *     reach (its colour 0 in straight output, NaN in premultiplied float).
 * Filters with negative lobes refuse weights (RB_ERR_UNSUPPORTED), as they
 * refuse NaN. Both images in host memory; the plan's back end runs the
 * filtering (the same rb_execute runs as for NaN input). The first weighted
 * or NaN execute of a plan caches what it can reuse (the impulse-response
 * check, sibling plans, the boundary's response); later ones reuse it. */
typedef enum { RB_WEIGHTS_NONE = 0, RB_WEIGHTS_ALPHA, RB_WEIGHTS_IMAGE } rb_weights_source;
typedef struct {
    rb_weights_source source;
    const rb_image *image;   /* RB_WEIGHTS_IMAGE only */
} rb_weights;
/* rb_execute with weights (NULL or RB_WEIGHTS_NONE: exactly rb_execute). */
rb_status rb_execute_weighted(rb_plan *plan, const rb_image *in, const rb_weights *weights,
                              rb_image *out);
void rb_plan_destroy(rb_plan *plan);
/* "cpu (2 threads)" or "cuda (NVIDIA H100 80GB HBM3)". */
const char *rb_plan_backend_name(const rb_plan *plan);

/* ------------------------------------------------------------------ strips */

/* Strip execution: a plan made for the whole width x height runs over an
 * image that arrives and leaves in horizontal strips, for images larger than
 * memory. The strips go through twice, top to bottom:
 *
 *   rb_stream *st;
 *   rb_stream_create(plan, &st);
 *   for each strip (rows y0 .. y0 + strip.height - 1, in order, covering the image):
 *       rb_stream_gather(st, &strip, y0);             // pass 1: the column carries
 *   rb_stream_close_carries(st);                      // the exact boundary closures
 *   for each strip again, the same split, in order:
 *       rb_stream_produce(st, &strip, &out_strip, y0); // pass 2: the final rows
 *   rb_stream_destroy(st);
 *
 * Rows are filtered inside each strip. Columns are joined through per-strip
 * carries (the 2011 paper's block carries, closed at the image's top and
 * bottom by the 2016 paper's exact initial feedbacks), so the result equals
 * rb_execute's to float rounding, for any strip heights (1 row included).
 * A strip is an rb_image of the plan's width and channels whose height is
 * the strip's rows; formats may differ between strips and between in and out
 * (in == out allowed in produce). Top-to-bottom twice is all a column needs:
 * the causal pass runs down with the strips, the anticausal pass runs up
 * inside each strip from the state the carries give it.
 *
 * Memory: one strip of width x channels floats (the strip being filtered;
 * the columns' doubles are walked in cache-sized blocks of lanes), plus per
 * strip (r + F) rows of width x channels (r doubles: the carry, r the column
 * filter's order; F floats: the rows the column FIR reaches into the next
 * strip, 0 without a FIR), plus a few rows at the image's top and bottom for
 * the FIR's reach. rb_stream_working_bytes says how much for a strip height,
 * so that a caller can pick the height that takes least: the carries shrink
 * with taller strips, the strip grows. The carries grow with width x height
 * (a 100000^2 image in strips of 896 rows: about 1 GB); past the memory
 * rb_stream_set_carry_memory allows them they go to a temporary file
 * instead (below). Strips run on the cpu back end whatever back end
 * runs the plan in memory (one log line says so; an explicit cuda request is
 * an error), on the context's threads (columns split across them, then rows).
 *
 * Not streamable (RB_ERR_UNSUPPORTED from rb_stream_create): periodic or
 * mirror boundary on a column filter that needs the padded route, and mirror
 * on a column filter that is not symmetric.
 * Errors: strips out of order, overlapping or of the wrong width/channels,
 * close before every row was gathered, produce before the close or with a
 * split other than the gathered one: RB_ERR_ARGUMENT / RB_ERR_SIZE with a
 * message, nothing written. */
typedef struct rb_stream rb_stream;

rb_status rb_stream_create(rb_plan *plan, rb_stream **out);
rb_status rb_stream_gather(rb_stream *stream, const rb_image *strip, int y0);
rb_status rb_stream_close_carries(rb_stream *stream);
rb_status rb_stream_produce(rb_stream *stream, const rb_image *in_strip, rb_image *out_strip, int y0);
void rb_stream_destroy(rb_stream *stream);
/* About the bytes a stream over plan takes in all (the carries of every
 * strip included, the caller's strip buffers not) when the strips are
 * strip_rows rows high (the last one may be shorter); 0 for a NULL plan or
 * strip_rows < 1. */
size_t rb_stream_working_bytes(const rb_plan *plan, int strip_rows);

/* The memory the carries may take (the per-strip rows of the paragraph
 * "Memory" above): while they fit in `bytes` they stay in memory (the
 * default, SIZE_MAX: always); past it (judged at each gather, the strips to
 * come taken as high as the current one) they go to a temporary file in
 * $TMPDIR (else /tmp), unlinked as soon as it is made, so that nothing is
 * left behind whatever happens. Pass 1 writes each strip's carries once
 * they are complete, the close reads them back a range of columns at a time
 * (all strips of about `bytes` worth of columns, at least 64 lanes) and
 * writes the closed ones back, pass 2 reads strip k's when it produces it:
 * the memory is then a strip's carries or so, plus the close's range. The
 * results are the same bits either way. Call before the first gather
 * (RB_ERR_ARGUMENT after). A file that cannot be made, written or read is
 * RB_ERR_IO from the gather, the close or the produce, with the directory
 * and the reason; the output strips are then not written. */
rb_status rb_stream_set_carry_memory(rb_stream *stream, size_t bytes);
/* rb_stream_working_bytes when the carries may take carry_memory bytes:
 * with them in a file where they would take more (what the stream does with
 * that setting, for strips of strip_rows rows). */
size_t rb_stream_working_bytes_capped(const rb_plan *plan, int strip_rows, size_t carry_memory);
/* Where a stream's carries are and how large they are, for a caller's
 * report: in_file 0 (in memory; bytes: their size) or 1 (bytes: the file's
 * size; written / read: the bytes moved to and from it so far). */
typedef struct {
    int in_file;
    unsigned long long bytes, written, read;
    const char *dir;         /* the file's directory ("" when in memory) */
} rb_stream_carry_info;
rb_status rb_stream_carries(const rb_stream *stream, rb_stream_carry_info *info);

/* ---------------------------------------------------------------- other ops */

/* Summed-area table S(i,j) = sum of in over rows <= i and columns <= j, per channel.
 * out->format F64: exact for U8/U16 input (double accumulation of integers);
 * F32: the exact sum for U8/U16 rounded once to float32 (relative error <= 2^-24);
 * for F32 input the sums are accumulated in double and rounded once.
 * U8/U16 input is summed in its integer units (0..255, 0..65535), not in [0,1]. */
rb_status rb_sat(rb_context *ctx, const rb_image *in, rb_image *out);

/* Box (area) filter of size_x x size_y (odd or even; centred, the extra sample of
 * an even size on the left/top), normalised, with the given boundary; O(1) per pixel
 * at any size, computed through running sums. */
rb_status rb_box_filter(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                        const rb_image *in, rb_image *out);
/* The box filter with weights (rb_execute_weighted says what they mean). */
rb_status rb_box_filter_weighted(rb_context *ctx, int size_x, int size_y, rb_boundary boundary,
                                 const rb_image *in, const rb_weights *weights, rb_image *out);

/* 1D recurrence on a signal of n samples (n up to 2^31), with the x axis of `filter`
 * (orders up to RB_MAX_ORDER), with exact boundary handling. in == out allowed.
 * mem says where in/out live. The context keeps the plan of the last call (on
 * the GPU: its buffers too, about 2n floats) and reuses it for the next call of
 * the same filter, boundary, n and mem, so filtering many signals of one length
 * plans once; it is freed by rb_plan_create, rb_context_set_backend / _threads
 * and rb_context_destroy. */
rb_status rb_recurrence_1d(rb_context *ctx, const rb_filter *filter, rb_boundary boundary,
                           const float *in, float *out, size_t n, rb_memory mem);

#ifdef __cplusplus
}
#endif

/* The operation table, setting sets and presets: recblur_ops.h (included
 * here so that one header is the whole public API). */
#include "recblur_ops.h"

#endif /* RECBLUR_H */
