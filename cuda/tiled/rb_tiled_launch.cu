/* Tiled exact solver, one axis in three launches (see rb_tiled_block.cuh):
 *   stage 1: read the input once, write Tbar, Hbar (R floats each) and the
 *            block sum per (lane, block of 32 samples);
 *   chain:   one thread per lane walks the small carry arrays (mean, boundary
 *            feedbacks of the 2016 paper, true states entering every block);
 *   final:   read the input again, write the output once.
 * Columns (lanes = consecutive floats of a row) read and write global memory
 * directly, coalesced. Rows go through 32-row tiles in shared memory, so a
 * warp's loads and stores stay contiguous and no transpose is needed; the
 * tile is 32 pixels by all channels, so interleaved channels need no passes
 * of their own.
 * The kernels and their launches are templates over the order in
 * rb_tiled_launch.cuh, compiled one order per translation unit; this file
 * dispatches on the run-time order. */
#include "rb_tiled_orders.h"
#include "rb_tiled_cols_rows.cuh" /* rb_tiled_fir_span_of */
#include <type_traits>

/* fn(std::integral_constant<int, R>) for the axis' order R (1 .. 8): the
 * kernels are compiled per order (every order but in benchmark builds that
 * set RECBLUR_CUDA_TILED_ORDERS, cuda/CMakeLists.txt) */
template <class Fn>
static cudaError_t rb_tiled_by_order(int r, Fn fn)
{
    switch (r) {
#ifdef RB_TILED_HAVE_ORDER_1
    case 1: return fn(std::integral_constant<int, 1>());
#endif
#ifdef RB_TILED_HAVE_ORDER_2
    case 2: return fn(std::integral_constant<int, 2>());
#endif
#ifdef RB_TILED_HAVE_ORDER_3
    case 3: return fn(std::integral_constant<int, 3>());
#endif
#ifdef RB_TILED_HAVE_ORDER_4
    case 4: return fn(std::integral_constant<int, 4>());
#endif
#ifdef RB_TILED_HAVE_ORDER_5
    case 5: return fn(std::integral_constant<int, 5>());
#endif
#ifdef RB_TILED_HAVE_ORDER_6
    case 6: return fn(std::integral_constant<int, 6>());
#endif
#ifdef RB_TILED_HAVE_ORDER_7
    case 7: return fn(std::integral_constant<int, 7>());
#endif
#ifdef RB_TILED_HAVE_ORDER_8
    case 8: return fn(std::integral_constant<int, 8>());
#endif
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t rb_cuda_tiled_axis(const rb_cuda_tiled *f, const float *in, float *out,
                                           float *carry, size_t lanes, cudaStream_t s, cudaEvent_t *ev)
{
    return rb_tiled_by_order(f->b.ax.r, [&](auto R) {
        return rb_tiled_launch_ct<decltype(R)::value>(f, in, out, carry, lanes, s, ev);
    });
}

/* ---- columns with the row stage 1 fused into their final stage ---------- */

/* Whether the fused FIR route (rb_tiled_final_cols_s1_fir) covers the rows:
 * their in-line blocks take the FIR from a tile (rb_tiled_fir_tiled), the
 * halo fits the fifth warp, and some row block is left for it to make. */
static int rb_tiled_can_fuse_fir(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr)
{
    const rb_cuda_axis &ra = fr->b.ax;
    if (fc->dbl != fr->dbl || (!fc->dbl && (!fc->fin || !fr->fin))) return 0;
    if (!fr->fir_tile || ra.ntaps > RB_TILED_HALO + 1 || ra.fir_lo > 0 || ra.fir_lo + ra.ntaps <= 0) return 0;
    if (ra.s0 > 0 || ra.via_periodic) return 0;
    const rb_tiled_fir_span sp = rb_tiled_fir_span_of(*fr);
    return (sp.hl + sp.hr) * fr->c <= RB_TILED_B && sp.qhi > sp.qlo;
}

/* Whether the fused route covers this pair of axes: the same order, 1, 2 or
 * 4 channels, and for rows without a FIR (rb_tiled_final_cols_s1) float
 * carries and float recursion on both and row blocks from pixel 0 over the
 * bare line (no padding, no 2n-periodic mirror); rows with a FIR:
 * rb_tiled_can_fuse_fir. */
extern "C" int rb_cuda_tiled_can_fuse(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr)
{
    const rb_cuda_axis &a = fc->b.ax, &ra = fr->b.ax;
    if (fc->rows || !fr->rows || fc->c != fr->c) return 0;
    if (fc->c != 1 && fc->c != 2 && fc->c != 4) return 0;
    if (a.r != ra.r || a.r < 1 || a.r > RB_TILED_MAX_ORDER) return 0;
    if (ra.ntaps != 0) return rb_tiled_can_fuse_fir(fc, fr);
    if (fc->dbl || fr->dbl || !fc->fin || !fr->fin) return 0;
    if (ra.via_periodic) return 0;
    if (ra.padded) return ra.s0 <= 0 && (-ra.s0) % RB_TILED_B == 0 && ra.m == ra.n - 2 * ra.s0;
    return ra.s0 == 0 && ra.m == ra.n;
}

/* Whether the fused route runs: RECBLUR_CUDA_FUSE=off never (the three-kernel
 * route on both axes), =on and by default wherever it covers the axes. The
 * exceptions measured earlier (padded mirror rows above order 1, order 3 below
 * 2^27 samples: bench/RESULTS.md, helper "fuse") were a per-execute host cost,
 * the sizing of the row carries, now made at plan time (helper "gfuse"); with
 * it gone the fused route measured faster everywhere on the H100: plain order
 * 1 / 3 / 5 at 4096^2 9-13 %, order 4 at 8192^2 clamp / periodic / mirror
 * 8-10 %, RGBA 10 %, Gaussian rows 2-6 % (sigma 2-100, 1 and 4 channels); the
 * lead's merged check re-times default, =off and =on in one run (gpu_bench
 * --focus, every boundary, orders 1 / 3 / 5, 4096^2 and 8192^2).
 * Since the chains got faster (helper chain3), FIR rows with double carries
 * (the Gaussian from sigma 4) measured 1.5-4 % faster unfused from 2^25
 * samples (8192^2 sigma 8 / 30 / 100, 1 and 4 channels; 4096^2 RGBA), even at
 * 4096^2 one channel, and sigma = n/6 periodic at 4096^2 faster fused (its
 * fused kernel 0.171 ms against 0.184 for the two it replaces) (H100,
 * bench/RESULTS.md, "gboth" and the lead's 2026-11-27 checks): the fused
 * kernel's double recursion and FIR are issue-bound, so at large sizes the
 * transfer it saves does not pay; there the default is unfused. */
extern "C" int rb_cuda_tiled_fuse_wanted(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, int force)
{
    if (!rb_cuda_tiled_can_fuse(fc, fr)) return 0;
    const double samples = (double)fc->b.ax.n * fr->b.ax.n * fc->c;
    if (force == RB_FORCE_AUTO && fr->b.ax.ntaps != 0 && (fc->dbl || fr->dbl) && samples >= 33554432.0) return 0;
    return force != RB_FORCE_OFF;
}

/* Columns in -> mid, with the row carries into rcarry (the row pass's own
 * scratch, distinct from ccarry); then rb_cuda_tiled_rows_from_carries finishes. */
extern "C" cudaError_t rb_cuda_tiled_cols_making_row_carries(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                                float *mid, float *ccarry, float *rcarry, size_t lanes,
                                                size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (!rb_cuda_tiled_can_fuse(fc, fr)) return cudaErrorInvalidValue;
    return rb_tiled_by_order(fc->b.ax.r, [&](auto R) {
        return rb_tiled_launch_cols_s1<decltype(R)::value>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev, 0);
    });
}

/* ---- the final stage of both axes (rb_tiled_final_both.cuh) -------------- */

/* Whether it covers the pair: what the fused route covers: rows without a
 * FIR (rb_tiled_final_cols_s1: float carries and recursion, 1, 2 or 4
 * channels, row blocks from pixel 0; rb_tiled_final_both) and rows with one
 * (rb_tiled_can_fuse_fir, the Gaussian's: rb_tiled_final_both_fir). */
extern "C" int rb_cuda_tiled_can_final_both(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr)
{
    return rb_cuda_tiled_can_fuse(fc, fr);
}

/* Whether a thread block of rb_tiled_final_both reads only its own tile's
 * input, so that the output may overwrite it: column blocks without a FIR
 * that read no extension across the line's end (a padded column axis whose
 * last block is cut by the line's end reads reflected rows of the block
 * above it). */
extern "C" int rb_cuda_tiled_final_both_in_place(const rb_cuda_tiled *fc)
{
    const rb_cuda_axis &a = fc->b.ax;
    return a.ntaps == 0 && (!a.padded || a.n % RB_TILED_B == 0);
}

/* Whether it runs: RECBLUR_CUDA_FUSE=both wherever it covers, =on (the fused
 * route alone) and =off never; by default where it measured faster than the
 * fused route (H100, gpu_bench --focus, bench/RESULTS.md, helper alg5): order
 * 1 (4096^2 one channel 3-5 %), and from 2^25 samples (8192^2 one channel
 * 3-8 %, 4096^2 RGBA 3-7 %); order 3 and 5 on 4096^2 one channel were even
 * to 3 % slower (the kernel that makes the row carries is bound by its two
 * recursions, not by its writes, and the final of both axes does both). */
extern "C" int rb_cuda_tiled_final_both_wanted(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, int force)
{
    if (!rb_cuda_tiled_can_final_both(fc, fr)) return 0;
    if (force == RB_FORCE_BOTH || force == RB_FORCE_CROSS) return 1;
    if (fr->b.ax.ntaps != 0) return 0; /* FIR rows: only when asked (measured slower: helper gboth) */
    /* the three-transfer route runs on this one's row chain and final */
    if (rb_cuda_tiled_cross_wanted(fc, fr, force)) return 1;
    const double samples = (double)fc->b.ax.n * fr->b.ax.n * fc->c;
    return force == RB_FORCE_AUTO && (fc->b.ax.r == 1 || samples >= 33554432.0);
}

/* Columns: stage 1 and chain, then the fused kernel without its pixel writes
 * (but the edge pixels the rows read, into mid): the row carries into rcarry. */
extern "C" cudaError_t rb_cuda_tiled_cols_row_carries_only(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr,
                                                          const float *in, float *mid, float *ccarry, float *rcarry,
                                                          size_t lanes, size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (!rb_cuda_tiled_can_final_both(fc, fr)) return cudaErrorInvalidValue;
    return rb_tiled_by_order(fc->b.ax.r, [&](auto R) {
        return rb_tiled_launch_cols_s1<decltype(R)::value>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev, 1);
    });
}

/* ---- the route in three image transfers (rb_tiled_cross.cuh) ------------ */

/* Whether it covers the pair: what rb_tiled_final_both covers, on rows
 * without padding (the padding's row blocks read column output beyond the
 * rows' end pixels, which the cross terms do not make) and without a FIR
 * (its kernels take plain row blocks only) */
extern "C" int rb_cuda_tiled_can_cross(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr)
{
    return rb_cuda_tiled_can_final_both(fc, fr) && !fr->b.ax.padded && fr->b.ax.ntaps == 0;
}

/* Whether it runs: RECBLUR_CUDA_FUSE=cross wherever it covers, and by
 * default wherever it covers (rb_cuda_tiled_final_both_wanted then takes it
 * too): with the cross kernel at the rate of its carries' traffic and the
 * plain blocks' stage 1 on registers it measured faster than the default
 * route at orders 1, 3 and 5 (H100, gpu_bench --focus, bench/RESULTS.md,
 * helper cross2) */
extern "C" int rb_cuda_tiled_cross_wanted(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, int force)
{
    if (!rb_cuda_tiled_can_cross(fc, fr)) return 0;
    return force == RB_FORCE_CROSS || force == RB_FORCE_AUTO;
}

extern "C" void rb_cuda_tiled_plan_chain(rb_cuda_tiled *f, size_t lanes)
{
    f->split_chain = (f->dbl || f->seq_chain) && rb_tiled_chain_splits(lanes);
}

extern "C" void rb_cuda_tiled_plan_cross(rb_cuda_tiled *fc)
{
    int n = 0;
    rb_tiled_by_order(fc->b.ax.r, [&](auto R) {
        n = rb_tiled_cross_fit<decltype(R)::value>(fc);
        return cudaSuccess;
    });
    fc->cross_blocks = n;
}

/* Columns: stage 1 with the x-part of the row carries, the chain, the cross
 * terms: the row carries into rcarry, the rows' end pixels into mid, as
 * rb_cuda_tiled_cols_row_carries_only leaves them */
extern "C" cudaError_t rb_cuda_tiled_cols_row_carries_cross(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr,
                                                           const float *in, float *mid, float *ccarry, float *rcarry,
                                                           size_t lanes, size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (!rb_cuda_tiled_can_cross(fc, fr)) return cudaErrorInvalidValue;
    return rb_tiled_by_order(fc->b.ax.r, [&](auto R) {
        return rb_tiled_launch_cols_cross<decltype(R)::value>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev);
    });
}

/* Then the row chain and the final stage of both axes: in -> out. */
extern "C" cudaError_t rb_cuda_tiled_final_both(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                                const float *mid, float *out, float *ccarry, float *rcarry,
                                                size_t lanes, size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (!rb_cuda_tiled_can_final_both(fc, fr)) return cudaErrorInvalidValue;
    return rb_tiled_by_order(fc->b.ax.r, [&](auto R) {
        return rb_tiled_launch_final_both<decltype(R)::value>(fc, fr, in, mid, out, ccarry, rcarry, lanes, rlanes, s,
                                                              ev);
    });
}

extern "C" cudaError_t rb_cuda_tiled_rows_from_carries(const rb_cuda_tiled *fr, const float *mid, float *out, float *rcarry,
                                                size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    return rb_tiled_by_order(fr->b.ax.r, [&](auto R) {
        return rb_tiled_launch_rows_rest<decltype(R)::value>(fr, mid, out, rcarry, rlanes, s, ev);
    });
}
