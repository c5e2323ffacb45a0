/* The one-pass summed-area kernels side by side, kept for before/after
 * comparisons in one binary, and the one dispatcher from an image's channels
 * and formats to a kernel instance. rb_sat's route (RECBLUR_CUDA_SAT, the
 * word's index in switches.c): the default look-back shape, the multi-pass
 * path, the 2026-11-27 look-back kernel (rb_sat_shape_lookback), the tile kernel. */
#ifndef RB_CUDA_SAT_CUH
#define RB_CUDA_SAT_CUH

#include "recblur.h"
#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RB_SAT_ROUTE_DEFAULT = 0,   /* RECBLUR_CUDA_SAT unset: rb_sat_shape_default */
    RB_SAT_ROUTE_MULTIPASS = 1, /* =multipass: column and row scans in double, four passes */
    RB_SAT_ROUTE_LOOKBACK = 2,  /* =lookback: rb_sat_shape_lookback */
    RB_SAT_ROUTE_TILES = 3      /* =tiles: the tile kernel, warp 0 computes every carry */
} rb_sat_route;

/* The look-back kernel's shapes (rb_cuda_sat_lookback.cu): wide: tiles of 32 x 256
 * samples (32 x 192 for 3 channels) instead of 32 x 128 (96); scfence: the
 * 2026-11-27 kernel's sequentially consistent fences instead of release/acquire
 * flags; nocarry: the carries skipped (not a table: the benchmark's floor of the
 * tiles' own loads, scans and stores); dense: wide tiles of 8/16-bit input 3 blocks
 * a multiprocessor instead of 2; nap_ns: a poll's pause (0: 32 ns); rebuild: the
 * kernel of rb_cuda_sat_rebuild.cu (the input kept, the table rebuilt at the end)
 * where it applies (U8/U16 input with h * max < 2^32, F32 input), the others
 * above (nocarry too) elsewhere; rows: its tiles' rows (0: 64; 32, or 128 for
 * one channel of U8 to F32, measured only; F32 input of 1-2 channels: 128);
 * park: 0 F32 input of 1-2 channels in tiles of 128 rows, half of each warp's
 * rows parked in shared memory; -1: 64 rows in registers (the 11:47 kernel).
 * prefetch (rebuild, 8/16-bit input only): a block asks L2 for the input of the tile a block of the
 * next wave will take (ticket + the blocks resident), so the memory reads while the
 * wave looks back; 0 the default's choice, -1 none, 1 after the block's totals,
 * 2 the same marked evict_last, 3 at the block's start, 4 as 1 but the tiles' top
 * halves. A hint: never a result. */
typedef struct {
    int wide, scfence, nocarry, dense, nap_ns, rebuild, rows, park, prefetch;
} rb_sat_shape;
static const rb_sat_shape rb_sat_shape_lookback = {0, 1, 0, 0, 0, 0, 0, 0, 0};
/* the 2026-11-27 08:40 default (1.1-1.3x the shape above on the H100) where the
 * rebuilding kernel does not apply, that kernel elsewhere (bench/RESULTS.md) */
static const rb_sat_shape rb_sat_shape_default = {1, 0, 0, 1, 0, 1, 0, 0, 0};

size_t rb_cuda_sat_shape_work_bytes(rb_sat_shape shape, int w, int h, int ch);

/* The look-back kernels' device scratch (flags, ticket, records), kept from call
 * to call by its owner (the context's, rb_cuda_sat.cu; the benchmark's). The
 * rebuilding kernel tags its flags with the call's epoch and runs its 64-bit
 * ticket counter on from the last call's count, so it zeroes nothing while the
 * epochs advance: the flags are zeroed (one memset) only where the scratch is
 * new, the epochs wrap, the flags grow into bytes that held records, another
 * kernel used it, or a call failed (its owner sets epoch 0). */
typedef struct {
    void *work;
    size_t bytes;              /* at least rb_cuda_sat_shape_work_bytes of the call */
    int device;                /* the device it lives on */
    unsigned epoch;            /* the last call's epoch; 0: zero the flags before the next call */
    size_t flag_bytes;         /* bytes from work that hold only the ticket and tagged flags */
    unsigned long long ticket; /* the ticket counter after the last call */
} rb_sat_scratch;

/* in/out device pointers with row pitches in bytes (in == out with one layout
 * allowed); k: the scratch (k->work of k->bytes; a fresh one: epoch 0);
 * delay_ns: the test hook "test:scan_delay_ns" (tiles publish their
 * inclusive records after pseudo-random delays below it; 0: none) */
cudaError_t rb_cuda_sat_shape_run(rb_sat_shape shape, const void *in, size_t in_pitch, rb_format in_fmt,
                                  void *out, size_t out_pitch, rb_format out_fmt, int w, int h, int ch,
                                  rb_sat_scratch *k, cudaStream_t s, unsigned delay_ns);

/* the rebuilding kernel (rb_cuda_sat_rebuild.cu), which rb_cuda_sat_shape_run calls
 * for shape.rebuild where rb_cuda_sat_rebuild_fits */
int rb_cuda_sat_rebuild_fits(rb_sat_shape shape, rb_format in_fmt, int h);
size_t rb_cuda_sat_rebuild_work_bytes(rb_sat_shape shape, rb_format in_fmt, int w, int h, int ch);
/* the tiles rb_sat's default route cuts such an image into (the rebuilding kernel's;
 * -1 where another kernel runs): for the tests, which declare it themselves */
long long rb_cuda_sat_default_tiles(rb_format in_fmt, int w, int h, int ch);
cudaError_t rb_cuda_sat_rebuild_run(rb_sat_shape shape, const void *in, size_t in_pitch, rb_format in_fmt,
                                    void *out, size_t out_pitch, rb_format out_fmt, int w, int h, int ch,
                                    rb_sat_scratch *k, cudaStream_t s, unsigned delay_ns);

/* the tile kernel: tiles of 32 x 128, warp 0 computes every carry */
size_t rb_cuda_sat_tiles_work_bytes(int w, int h, int ch);
cudaError_t rb_cuda_sat_tiles_run(const void *in, size_t in_pitch, rb_format in_fmt, void *out,
                                  size_t out_pitch, rb_format out_fmt, int w, int h, int ch, void *work,
                                  cudaStream_t s);

/* rb_sat through a one-pass route (host or device images, staged as needed) */
rb_status rb_cuda_sat_onepass_with(rb_context *ctx, const rb_image *in, rb_image *out, rb_sat_route route);

#ifdef __cplusplus
}

/* records and flags start on 256-byte boundaries */
static inline size_t rb_sat_align(size_t b) { return (b + 255) & ~(size_t)255; }

/* The one dispatcher: L::go<CH, TIn, TOut>() for the image's channels (1-4),
 * input format (U8, U16, F32, F64) and output format (F32, F64). */
template <int CH, typename TIn, typename L>
static cudaError_t rb_sat_dispatch_out(const L &l, rb_format of)
{
    return of == RB_F64 ? l.template go<CH, TIn, double>() : l.template go<CH, TIn, float>();
}

template <int CH, typename L>
static cudaError_t rb_sat_dispatch_in(const L &l, rb_format inf, rb_format of)
{
    switch (inf) {
    case RB_U8: return rb_sat_dispatch_out<CH, unsigned char>(l, of);
    case RB_U16: return rb_sat_dispatch_out<CH, unsigned short>(l, of);
    case RB_F64: return rb_sat_dispatch_out<CH, double>(l, of);
    default: return rb_sat_dispatch_out<CH, float>(l, of);
    }
}

template <typename L>
static cudaError_t rb_sat_dispatch(const L &l, int ch, rb_format inf, rb_format of)
{
    switch (ch) {
    case 1: return rb_sat_dispatch_in<1>(l, inf, of);
    case 2: return rb_sat_dispatch_in<2>(l, inf, of);
    case 3: return rb_sat_dispatch_in<3>(l, inf, of);
    case 4: return rb_sat_dispatch_in<4>(l, inf, of);
    default: return cudaErrorInvalidValue;
    }
}
#endif
#endif
