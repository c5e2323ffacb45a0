/* Summed-area tables on the GPU in one pass, carries by decoupled look-back that
 * no warp waits on another for. One kernel, its shapes in rb_cuda_sat.cuh
 * (rb_cuda_sat_rebuild.cu's kernel, with the same carries, is rb_sat's default
 * where it applies: this one is the default for F64 input and for 8/16-bit
 * images of h * max >= 2^32): tiles of 32 x 256 samples whose flags are published by
 * release stores and read by acquire loads (3 blocks a multiprocessor for
 * 8/16-bit input, 2 for floats); and the 2026-11-27 kernel
 * (RECBLUR_CUDA_SAT=lookback), tiles of 32 x 128 and a sequentially consistent
 * fence in every lane at every publication and window. On the H100 the
 * carries, not the bytes, set the pace: without them the same tiles run at
 * 0.7-0.95 of the copy, with them 0.39-0.51 (bench/RESULTS.md, 2026-11-27).
 *
 * The image (n = w * ch samples a row) is cut into tiles of 32 rows by TW =
 * 32 P samples (P samples a lane: 4 or 8, or 3 or 6 for 3 channels: whole
 * pixels). Each tile is taken by ticket (tiles in row-major order, so every
 * tile it waits on has started), read once into registers and given its own
 * table L (rows by warp shuffles, columns in registers and across warps in
 * shared memory). With, per channel,
 *   Hc(y) = sum of the band's rows y0..y left of the tile,
 *   Vc(x) = sum of the rows above the tile over the tile's columns x0..x,
 *   C     = sum of everything above and left of the tile,
 * the table is S(y, x) = L(y, x) + Hc(y) + Vc(x) + C (the 2011 paper's
 * algorithm SAT, its stages 2-4 folded into the pass). Each is a chain with
 * an aggregate known from the tile alone, so none waits on another:
 *   H: along the band, aggregate L(y, right edge); inclusive Hc(y) + that;
 *   V: up the tile column, aggregate L(bottom, x); inclusive Vc(x) + that;
 *   B: up the tile column, aggregate Hc(bottom) (the band's sum left of the
 *      tile, known once H is resolved); C = sum of B over the tiles above.
 * Warp 0 polls H's window, the last warp V's, warp 1 the corner's; each polls
 * the flags of 32 predecessors at once (lane q: the one q + 1 back), finds the
 * nearest inclusive record, and the records found are summed by every thread
 * (Merrill & Garland's single-pass scan, a window of 32 per step). The table
 * is written once, from registers.
 *
 * Precision: U8/U16 tiles sum in 32-bit integers (32 x 256 x 65535 < 2^32),
 * carries in double (integers below 2^53: exact), so the output is the exact
 * table rounded once to F32 (or exact in F64); F32/F64 input sums in double
 * throughout and rounds once. */
#include "rb_cuda_check.h"
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_scan.cuh"
#include "rb_cuda_sat.cuh"
#include "rb_cuda_sat_lb.cuh"
#include <stdint.h>
#include <stdio.h>

#define RB_LB_TH 32                        /* rows of a tile */
#define RB_LB_WARPS 8
#define RB_LB_RPW (RB_LB_TH / RB_LB_WARPS) /* rows per warp */
#define RB_LB_THREADS (32 * RB_LB_WARPS)
static_assert(RB_LB_TH == 32, "the H look-back takes a lane per row");

/* planted faults, built only to show that test_gpu_1d_sat's delayed look-back
 * test fails (bench/RESULTS.md): RB_SAT_PLANT=1 reads V's records from the tile
 * column to the right, =2 drops the corner C */
#if RB_SAT_PLANT == 1
#define RB_SAT_PLANT_V 1
#else
#define RB_SAT_PLANT_V 0
#endif
#if RB_SAT_PLANT == 2
#define RB_SAT_PLANT_C 0.0
#else
#define RB_SAT_PLANT_C 1.0
#endif

typedef struct {
    const unsigned char *in;
    unsigned char *out;
    size_t in_pitch, out_pitch;
    long long n;               /* samples per row */
    long long tiles;
    int h, tiles_x;
    int vec_in, vec_out;       /* rows aligned for one vector access per lane */
    int nocarry;               /* measurement only: no carries (not a SAT), the tiles' own floor */
    int scfence;               /* the 2026-11-27 kernel's fences (rb_lb_publish) */
    unsigned nap_ns;           /* a poll's pause before it reads a flag again */
    unsigned delay_ns;         /* test hook: inclusive records published late */
    int *hflag, *vflag, *bflag;
    unsigned *ticket;
    double *hagg, *hinc, *vagg, *vinc, *bagg, *binc;
} rb_lb_args;

/* integer inputs sum exactly in 32 bits inside a tile; floats in double */
template <typename T> struct rb_lb_acc { typedef double type; };
template <> struct rb_lb_acc<unsigned char> { typedef unsigned type; };
template <> struct rb_lb_acc<unsigned short> { typedef unsigned type; };

/* 4 samples at r by one vector access */
template <typename T>
static __device__ __forceinline__ void rb_lb_load4(const T *r, T *v)
{
    if (sizeof(T) == 1) {
        const unsigned u = __ldcs((const unsigned *)r);
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = (T)((u >> (8 * j)) & 0xffu);
    } else if (sizeof(T) == 2) {
        const uint2 u = __ldcs((const uint2 *)r);
        v[0] = (T)(u.x & 0xffffu);
        v[1] = (T)(u.x >> 16);
        v[2] = (T)(u.y & 0xffffu);
        v[3] = (T)(u.y >> 16);
    } else if (sizeof(T) == 4) {
        const float4 u = __ldcs((const float4 *)r);
        v[0] = (T)u.x;
        v[1] = (T)u.y;
        v[2] = (T)u.z;
        v[3] = (T)u.w;
    } else {
        const double2 a = __ldcs((const double2 *)r), b = __ldcs((const double2 *)r + 1);
        v[0] = (T)a.x;
        v[1] = (T)a.y;
        v[2] = (T)b.x;
        v[3] = (T)b.y;
    }
}

/* P samples of a row at gx, as stored (vector accesses where the rows are aligned) */
template <typename T, int P>
static __device__ __forceinline__ void rb_lb_load(const unsigned char *row, long long gx, long long n, bool vec,
                                                  T *v)
{
    const T *r = (const T *)row + gx;
    if (P % 4 == 0 && vec && gx + P <= n) {
        if (sizeof(T) == 1 && P == 8) { /* 8 bytes at once */
            const uint2 u = __ldcs((const uint2 *)r);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                v[j] = (T)((u.x >> (8 * j)) & 0xffu);
                v[4 + j] = (T)((u.y >> (8 * j)) & 0xffu);
            }
        } else {
#pragma unroll
            for (int g = 0; g < P / 4; ++g) rb_lb_load4<T>(r + 4 * g, v + 4 * g);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < P; ++j) v[j] = gx + j < n ? __ldcs(r + j) : (T)0;
}

/* the warp's RPW rows of tile k, as stored (zeros off the image) */
template <typename TIn, int P>
static __device__ __forceinline__ void rb_lb_fetch(const rb_lb_args &a, long long k, int lane, int warp,
                                                   TIn (*raw)[P])
{
    constexpr int TW = 32 * P;
    const int ti = (int)(k / a.tiles_x), si = (int)(k % a.tiles_x);
    const long long gx = (long long)si * TW + lane * P;
    const int yw = ti * RB_LB_TH + warp * RB_LB_RPW;
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r) {
        if (yw + r < a.h) rb_lb_load<TIn, P>(a.in + (size_t)(yw + r) * a.in_pitch, gx, a.n, a.vec_in, raw[r]);
        else
#pragma unroll
            for (int j = 0; j < P; ++j) raw[r][j] = (TIn)0;
    }
}

/* blocks a multiprocessor: 4 of 32 x 128 tiles; 2 wide ones of doubles (128 registers
 * a thread), DENSE: 3 wide ones of integers (their sums in 32 bits) */
template <int CH, typename TIn, typename TOut, int P, bool DENSE>
__global__ void __launch_bounds__(RB_LB_THREADS, P <= 4 ? 4 : DENSE && sizeof(TIn) <= 2 ? 3 : 2)
    rb_lb_kernel(const rb_lb_args a)
{
    typedef typename rb_lb_acc<TIn>::type A;
    constexpr int TW = 32 * P;
    constexpr int HS = RB_LB_TH * CH;  /* H record: per row, per channel */
    constexpr int NPH = RB_LB_THREADS / HS, NPV = RB_LB_THREADS / TW; /* shares per element */
    static_assert(NPV >= 1, "a thread per V element");
    __shared__ A s_tot[RB_LB_WARPS][TW];
    __shared__ double s_hA[RB_LB_TH][CH], s_Hc[RB_LB_TH][CH], s_Vc[TW], s_B[CH], s_C[CH];
    /* the tile, while the records are read (frees registers for the loads in flight); a
     * wide tile stays in registers (2 blocks a multiprocessor: 128 of them a thread) */
    constexpr bool PARK = P <= 4;
    __shared__ A s_park[PARK ? RB_LB_RPW * P : 1][PARK ? RB_LB_THREADS : 1];
    __shared__ double s_pH[NPH][HS], s_pV[NPV][TW];
    __shared__ int s_win[4];                            /* H's and V's windows: depth, inclusive */
    __shared__ long long s_k;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const bool nc = a.nocarry, sc = a.scfence;
    const unsigned nap = a.nap_ns;
    if (tid == 0) s_k = (long long)atomicAdd(a.ticket, 1u);
    __syncthreads();
    const long long k = s_k, tx = a.tiles_x;
    TIn raw[RB_LB_RPW][P];
    rb_lb_fetch<TIn, P>(a, k, lane, warp, raw);
    const int ti = (int)(k / tx), si = (int)(k % tx);
    const long long gx = (long long)si * TW + lane * P;
    const int yw = ti * RB_LB_TH + warp * RB_LB_RPW; /* the warp's first row */

    /* 1. rows: in-lane running sums per channel, then the warp's scan of the lane totals */
    A v[RB_LB_RPW][P];
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r) {
#pragma unroll
        for (int j = 0; j < P; ++j) v[r][j] = (A)raw[r][j];
#pragma unroll
        for (int j = CH; j < P; ++j) v[r][j] += v[r][j - CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            const A t = v[r][P - CH + c];
            const A incl = rb_lb_wscan(t, lane);
            A excl = __shfl_up_sync(RB_LB_FULL, incl, 1);
            if (lane == 0) excl = (A)0;
#pragma unroll
            for (int j = c; j < P; j += CH) v[r][j] += excl;
        }
    }
    /* 2. columns: down the warp's rows in registers, then across warps */
#pragma unroll
    for (int r = 1; r < RB_LB_RPW; ++r)
#pragma unroll
        for (int j = 0; j < P; ++j) v[r][j] += v[r - 1][j];
#pragma unroll
    for (int j = 0; j < P; ++j) s_tot[warp][lane * P + j] = v[RB_LB_RPW - 1][j];
    __syncthreads();
    {
        A off[P];
#pragma unroll
        for (int j = 0; j < P; ++j) off[j] = (A)0;
        for (int w = 0; w < warp; ++w)
#pragma unroll
            for (int j = 0; j < P; ++j) off[j] += s_tot[w][lane * P + j];
#pragma unroll
        for (int r = 0; r < RB_LB_RPW; ++r)
#pragma unroll
            for (int j = 0; j < P; ++j) v[r][j] += off[j];
    }
    if (lane == 31)
#pragma unroll
        for (int r = 0; r < RB_LB_RPW; ++r)
#pragma unroll
            for (int c = 0; c < CH; ++c) s_hA[warp * RB_LB_RPW + r][c] = (double)v[r][P - CH + c];
    __syncthreads();

    /* 3. the carries. Warp 0 publishes H's aggregate and polls H's window, the
     * last warp V's; then every thread reads a share of the records the windows
     * found (loads in flight at once, the tile parked in shared memory meanwhile);
     * then warp 0 and the last warp sum the shares in a fixed order and publish
     * the inclusive records while warp 1 resolves the corner. */
    const int eh = tid % HS, ph = tid / HS, ev = tid % TW, pv = tid / TW;
    if (!nc && warp == 0 && si > 0) {
#pragma unroll
        for (int c = 0; c < CH; ++c) __stcg(a.hagg + k * HS + lane * CH + c, s_hA[lane][c]);
        rb_lb_publish(a.hflag + k, 1, lane, sc);
    } else if (!nc && warp == RB_LB_WARPS - 1 && ti > 0) {
#pragma unroll
        for (int j = 0; j < P; ++j) __stcg(a.vagg + k * TW + lane * P + j, (double)v[RB_LB_RPW - 1][j]);
        rb_lb_publish(a.vflag + k, 1, lane, sc);
    }
    if (PARK)
#pragma unroll
        for (int r = 0; r < RB_LB_RPW; ++r)
#pragma unroll
            for (int j = 0; j < P; ++j) s_park[r * P + j][tid] = v[r][j];
    double hsum = 0.0, vsum = 0.0; /* this thread's shares */
    long long baseH = k - 1, baseV = k - tx;
    int leftH = nc ? 0 : si, leftV = nc ? 0 : ti;
    for (;;) {
        if (warp == 0) {
            bool incl = true;
            const int d = leftH > 0 ? rb_lb_window(a.hflag, baseH, 1, leftH, lane, &incl, sc, nap) : 0;
            if (lane == 0) {
                s_win[0] = d;
                s_win[1] = incl;
            }
        } else if (warp == RB_LB_WARPS - 1) {
            bool incl = true;
            const int d = leftV > 0 ? rb_lb_window(a.vflag, baseV, tx, leftV, lane, &incl, sc, nap) : 0;
            if (lane == 0) {
                s_win[2] = d;
                s_win[3] = incl;
            }
        }
        __syncthreads();
        const int dH = s_win[0], dV = s_win[2];
        const bool iH = s_win[1], iV = s_win[3];
        /* share q of H: records ph, ph + NPH, ...; of V: pv, pv + NPV, ... */
        constexpr int U = 8;
        for (int q0 = 0; q0 * NPH < dH || q0 * NPV < dV; q0 += U) {
            double th[U], tv[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int qh = ph + NPH * (q0 + u), qv = pv + NPV * (q0 + u);
                const double *sh = (iH && qh == dH - 1 ? a.hinc : a.hagg) + (baseH - qh) * HS + eh;
                const double *sv =
                    (iV && qv == dV - 1 ? a.vinc : a.vagg) + (baseV - (long long)qv * tx + RB_SAT_PLANT_V) * TW + ev;
                th[u] = qh < dH && ph < NPH ? __ldcg(sh) : 0.0;
                tv[u] = qv < dV && pv < NPV ? __ldcg(sv) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                hsum += th[u];
                vsum += tv[u];
            }
        }
        baseH -= 32;
        leftH -= 32;
        baseV -= 32 * tx;
        leftV -= 32;
        if (iH && iV) break;
        __syncthreads(); /* s_win is rewritten */
        if (iH) leftH = 0;
        if (iV) leftV = 0;
    }
    if (ph < NPH) s_pH[ph][eh] = hsum;
    if (pv < NPV) s_pV[pv][ev] = vsum;
    __syncthreads();
    if (warp == 0) {
        /* H along the band: lane = row */
        double agg[CH], hc[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            agg[c] = s_hA[lane][c];
            hc[c] = 0.0;
#pragma unroll
            for (int q = 0; q < NPH; ++q) hc[c] += s_pH[q][lane * CH + c];
        }
        if (!nc) {
            rb_lb_delay(a.delay_ns, k);
#pragma unroll
            for (int c = 0; c < CH; ++c) __stcg(a.hinc + k * HS + lane * CH + c, hc[c] + agg[c]);
            rb_lb_publish(a.hflag + k, 2, lane, sc);
        }
#pragma unroll
        for (int c = 0; c < CH; ++c) s_Hc[lane][c] = hc[c];
        /* B = Hc at the bottom row: the band's sum left of the tile. Where no tile
         * lies above (or none to the left) it is already inclusive. */
        if (lane == 31) {
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                s_B[c] = hc[c];
                if (!nc) __stcg((ti > 0 && si > 0 ? a.bagg : a.binc) + k * CH + c, hc[c]);
            }
        }
        __syncwarp();
        if (!nc) rb_lb_publish(a.bflag + k, ti > 0 && si > 0 ? 1 : 2, lane, sc);
    } else if (warp == 1) {
        /* the corner: B of the tiles above, 32 at a time. Here, not before the block's
         * barrier above: a tile publishes B's aggregate after that barrier, so a corner
         * resolved before it would chain every tile to the one above. */
        double cc[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) cc[c] = 0.0;
        if (!nc && ti > 0 && si > 0) rb_lb_corner<CH>(a.bflag, a.binc, a.bagg, k, tx, ti, lane, sc, nap, cc);
        if (lane < CH)
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (c == lane) s_C[c] = cc[c];
    } else if (warp == RB_LB_WARPS - 1) {
        /* V up the tile column: lane = P columns */
        if (!nc) rb_lb_delay(a.delay_ns, k + 1);
#pragma unroll
        for (int j = 0; j < P; ++j) {
            const int x = lane * P + j;
            double vc = 0.0;
#pragma unroll
            for (int q = 0; q < NPV; ++q) vc += s_pV[q][x];
            const A bottom = PARK ? s_park[(RB_LB_RPW - 1) * P + j][tid] : v[RB_LB_RPW - 1][j];
            if (!nc) __stcg(a.vinc + k * TW + x, vc + (double)bottom);
            s_Vc[x] = vc;
        }
        if (!nc) rb_lb_publish(a.vflag + k, 2, lane, sc);
    }
    __syncthreads();
    /* B's inclusive record: the sum left of the tile over every row down to its bottom */
    if (!nc && warp == 0 && ti > 0 && si > 0) {
        rb_lb_delay(a.delay_ns, k + 2);
        if (lane < CH)
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (c == lane) __stcg(a.binc + k * CH + c, s_C[c] + s_B[c]);
        rb_lb_publish(a.bflag + k, 2, lane, sc);
    }
    if (PARK)
#pragma unroll
        for (int r = 0; r < RB_LB_RPW; ++r)
#pragma unroll
            for (int j = 0; j < P; ++j) v[r][j] = s_park[r * P + j][tid];

    /* 4. the table, from registers: S = L + Hc(y) + Vc(x) + C */
    double vcol[P];
#pragma unroll
    for (int j = 0; j < P; ++j) vcol[j] = s_Vc[lane * P + j] + RB_SAT_PLANT_C * s_C[j % CH];
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r) {
        const int y = warp * RB_LB_RPW + r;
        if (yw + r >= a.h) break;
        double s[P];
#pragma unroll
        for (int j = 0; j < P; ++j) s[j] = (double)v[r][j] + s_Hc[y][j % CH] + vcol[j];
        rb_lb_store<TOut, P>(a.out + (size_t)(yw + r) * a.out_pitch, gx, a.n, a.vec_out, s);
    }
}

/* flags (3 per tile and the ticket), then the six records */
static size_t rb_lb_layout(int w, int h, int ch, int tw, char *base, rb_lb_args *a)
{
    const long long n = (long long)w * ch;
    const size_t tx = (size_t)((n + tw - 1) / tw), ty = (size_t)((h + RB_LB_TH - 1) / RB_LB_TH);
    const size_t tiles = tx * ty, hs = (size_t)RB_LB_TH * ch;
    const size_t sizes[6] = {hs, hs, (size_t)tw, (size_t)tw, (size_t)ch, (size_t)ch};
    size_t off = rb_sat_align((3 * tiles + 1) * sizeof(int));
    double **rec[6];
    if (a) {
        a->hflag = (int *)base;
        a->vflag = a->hflag + tiles;
        a->bflag = a->vflag + tiles;
        a->ticket = (unsigned *)(a->bflag + tiles);
        a->tiles_x = (int)tx;
        a->tiles = (long long)tiles;
        rec[0] = &a->hagg;
        rec[1] = &a->hinc;
        rec[2] = &a->vagg;
        rec[3] = &a->vinc;
        rec[4] = &a->bagg;
        rec[5] = &a->binc;
    }
    for (int i = 0; i < 6; ++i) {
        if (a) *rec[i] = (double *)(base + off);
        off += rb_sat_align(tiles * sizes[i] * sizeof(double));
    }
    return off;
}

/* samples a lane takes from a row: 4 or 8 (3 or 6 for 3 channels: whole pixels) */
static int rb_lb_p(rb_sat_shape shape, int ch)
{
    const int wide = shape.wide;
    return ch == 3 ? (wide ? 6 : 3) : (wide ? 8 : 4);
}

/* room for either kernel: the input's format, which picks, is not known here */
extern "C" size_t rb_cuda_sat_shape_work_bytes(rb_sat_shape shape, int w, int h, int ch)
{
    const size_t b = rb_lb_layout(w, h, ch, 32 * rb_lb_p(shape, ch), NULL, NULL);
    if (!shape.rebuild) return b;
    const size_t r = rb_cuda_sat_rebuild_work_bytes(shape, RB_F32, w, h, ch),
                 r8 = rb_cuda_sat_rebuild_work_bytes(shape, RB_U8, w, h, ch); /* taller tiles: larger H records */
    return r > b ? (r > r8 ? r : r8) : (b > r8 ? b : r8);
}

/* the dispatcher's callee: a block per tile */
template <int P, bool DENSE> struct rb_lb_launcher {
    const rb_lb_args *a;
    cudaStream_t s;
    template <int CH, typename TIn, typename TOut> cudaError_t go() const
    {
        rb_lb_kernel<CH, TIn, TOut, (CH == 3 ? P / 4 * 3 : P), DENSE><<<(unsigned)a->tiles, RB_LB_THREADS, 0, s>>>(*a);
        return cudaSuccess;
    }
};

/* a lane's P samples at aligned vector accesses: every row start aligned */
static int rb_lb_vec(const void *p, size_t pitch, size_t bytes)
{
    const size_t al = bytes > 16 ? 16 : bytes;
    return ((uintptr_t)p % al) == 0 && pitch % al == 0;
}

extern "C" cudaError_t rb_cuda_sat_shape_run(rb_sat_shape shape, const void *in, size_t in_pitch, rb_format in_fmt,
                                             void *out, size_t out_pitch, rb_format out_fmt, int w, int h, int ch,
                                             rb_sat_scratch *k, cudaStream_t s, unsigned delay_ns)
{
    if (ch < 1 || ch > 4) return cudaErrorInvalidValue;
    if (shape.rebuild && rb_cuda_sat_rebuild_fits(shape, in_fmt, h))
        return rb_cuda_sat_rebuild_run(shape, in, in_pitch, in_fmt, out, out_pitch, out_fmt, w, h, ch, k, s,
                                       delay_ns);
    const int p = rb_lb_p(shape, ch);
    rb_lb_args a;
    rb_lb_layout(w, h, ch, 32 * p, (char *)k->work, &a);
    k->epoch = 0; /* untagged flags, zeroed here: the rebuilding kernel's next call zeroes its own */
    a.in = (const unsigned char *)in;
    a.out = (unsigned char *)out;
    a.in_pitch = in_pitch;
    a.out_pitch = out_pitch;
    a.n = (long long)w * ch;
    a.h = h;
    a.delay_ns = delay_ns;
    a.nocarry = shape.nocarry;
    a.scfence = shape.scfence;
    a.nap_ns = shape.nap_ns ? (unsigned)shape.nap_ns : 32u;
    a.vec_in = ch != 3 && rb_lb_vec(in, in_pitch, (size_t)p * rb_format_size(in_fmt));
    a.vec_out = ch != 3 && rb_lb_vec(out, out_pitch, (size_t)4 * rb_format_size(out_fmt));
    if (a.tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(a.hflag, 0, (3 * (size_t)a.tiles + 1) * sizeof(int), s);
    if (e != cudaSuccess) return e;
    if (shape.wide && shape.dense) e = rb_sat_dispatch(rb_lb_launcher<8, true>{&a, s}, ch, in_fmt, out_fmt);
    else if (shape.wide) e = rb_sat_dispatch(rb_lb_launcher<8, false>{&a, s}, ch, in_fmt, out_fmt);
    else e = rb_sat_dispatch(rb_lb_launcher<4, false>{&a, s}, ch, in_fmt, out_fmt);
    if (e != cudaSuccess) return e;
    return rb_cuda_launch_check();
}
