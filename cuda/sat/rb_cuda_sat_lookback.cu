/* Summed-area tables on the GPU in one pass, carries by decoupled look-back that
 * no warp waits on another for (RECBLUR_CUDA_SAT=lookback). Exact, and on the
 * H100 (2026-11-27) exactly as fast as the tile kernel of rb_cuda_scan_sat.cu,
 * which stays rb_sat's default: both take ~32 ns a 32 x 128 tile device-wide,
 * U8 or F32 input alike, which suggests that neither the carries' organisation
 * nor the bytes set the pace (bench/RESULTS.md).
 *
 * The image (n = w * ch samples a row) is cut into tiles of 32 rows by TW
 * samples (TW = 128, or 96 for 3 channels: whole pixels). Each block takes a
 * tile by ticket (tiles in row-major order, so every tile it waits on has
 * started), reads it once into registers and builds the tile's own table L
 * (rows by warp shuffles, columns in registers and across warps in shared
 * memory). With, per channel,
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
 * Warp 0 resolves H, warp 1 the corner, the last warp V; each polls the
 * flags of 32 predecessors at once (lane q: the one q + 1 back), finds the
 * nearest inclusive record and sums the records up to it with all its lanes
 * (Merrill & Garland's single-pass scan, a window of 32 per step). The table
 * is written once, from registers.
 *
 * Precision: U8/U16 tiles sum in 32-bit integers (32 x 128 x 65535 < 2^32),
 * carries in double (integers below 2^53: exact), so the output is the exact
 * table rounded once to F32 (or exact in F64); F32/F64 input sums in double
 * throughout and rounds once. */
#include "rb_cuda_check.h"
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_scan.cuh"
#include "rb_cuda_sat.cuh"
#include <stdint.h>
#include <stdio.h>

#define RB_LB_TH 32                        /* rows of a tile */
#define RB_LB_WARPS 8
#define RB_LB_RPW (RB_LB_TH / RB_LB_WARPS) /* rows per warp */
#define RB_LB_THREADS (32 * RB_LB_WARPS)
#define RB_LB_FULL 0xffffffffu
static_assert(RB_LB_TH == 32, "the H look-back takes a lane per row");

typedef struct {
    const unsigned char *in;
    unsigned char *out;
    size_t in_pitch, out_pitch;
    long long n;               /* samples per row */
    int h, tiles_x;
    int vec_in, vec_out;       /* rows aligned for one vector access per lane */
    unsigned delay_ns;         /* test hook: inclusive records published late */
    int *hflag, *vflag, *bflag;
    unsigned *ticket;
    double *hagg, *hinc, *vagg, *vinc, *bagg, *binc;
} rb_lb_args;

/* integer inputs sum exactly in 32 bits inside a tile; floats in double */
template <typename T> struct rb_lb_acc { typedef double type; };
template <> struct rb_lb_acc<unsigned char> { typedef unsigned type; };
template <> struct rb_lb_acc<unsigned short> { typedef unsigned type; };

static __device__ __forceinline__ int rb_lb_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* After the warp's lanes stored a record: make it visible, then flag it
 * (1: aggregate, 2: inclusive). */
static __device__ __forceinline__ void rb_lb_publish(int *flag, int state, int lane)
{
    __threadfence();
    __syncwarp();
    if (lane == 0) *(volatile int *)flag = state;
}

/* One look-back window: lane q polls predecessor q (flag index base - q * stride)
 * for q < left. Returns how many records to sum, base's first: up to and with
 * the nearest inclusive one (*incl), else all of the window. */
static __device__ __forceinline__ int rb_lb_window(const int *flags, long long base, long long stride, int left,
                                                   int lane, bool *incl)
{
    const bool within = lane < left;
    int f = 0;
    if (within) {
        const int *p = flags + (base - (long long)lane * stride);
        while ((f = rb_lb_acquire(p)) == 0) __nanosleep(32);
    }
    const unsigned m = __ballot_sync(RB_LB_FULL, within && f == 2);
    __threadfence(); /* the records other lanes' flags announced, for every lane */
    *incl = m != 0;
    return m ? __ffs(m) : (left < 32 ? left : 32);
}

/* test hook: a tile waits before its inclusive records, so successors meet
 * aggregates and deep windows the normal schedule rarely makes */
static __device__ __forceinline__ void rb_lb_delay(unsigned delay_ns, long long k)
{
    if (!delay_ns) return;
    unsigned x = (unsigned)k * 2654435761u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    __nanosleep(x % delay_ns);
}

/* P samples of a row at gx (P = 4: one vector access where aligned) */
template <typename T, int P, typename A>
static __device__ __forceinline__ void rb_lb_load(const unsigned char *row, long long gx, long long n, bool vec,
                                                  A *v)
{
    const T *r = (const T *)row + gx;
    if (P == 4 && vec && gx + 4 <= n) {
        if (sizeof(T) == 1) {
            const unsigned u = __ldcs((const unsigned *)r);
#pragma unroll
            for (int j = 0; j < 4; ++j) v[j] = (A)((u >> (8 * j)) & 0xffu);
        } else if (sizeof(T) == 2) {
            const uint2 u = __ldcs((const uint2 *)r);
            v[0] = (A)(u.x & 0xffffu);
            v[1] = (A)(u.x >> 16);
            v[2] = (A)(u.y & 0xffffu);
            v[3] = (A)(u.y >> 16);
        } else if (sizeof(T) == 4) {
            const float4 u = __ldcs((const float4 *)r);
            v[0] = (A)u.x;
            v[1] = (A)u.y;
            v[2] = (A)u.z;
            v[3] = (A)u.w;
        } else {
            const double2 a = __ldcs((const double2 *)r), b = __ldcs((const double2 *)r + 1);
            v[0] = (A)a.x;
            v[1] = (A)a.y;
            v[2] = (A)b.x;
            v[3] = (A)b.y;
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < P; ++j) v[j] = gx + j < n ? (A)__ldcs(r + j) : (A)0;
}

template <typename T, int P>
static __device__ __forceinline__ void rb_lb_store(unsigned char *row, long long gx, long long n, bool vec,
                                                   const double *s)
{
    T *r = (T *)row + gx;
    if (P == 4 && vec && gx + 4 <= n) {
        if (sizeof(T) == 4) {
            __stcs((float4 *)r, make_float4((float)s[0], (float)s[1], (float)s[2], (float)s[3]));
        } else {
            __stcs((double2 *)r, make_double2(s[0], s[1]));
            __stcs((double2 *)r + 1, make_double2(s[2], s[3]));
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < P; ++j)
        if (gx + j < n) r[j] = (T)s[j];
}

/* warp inclusive scan (Kogge-Stone) */
template <typename A>
static __device__ __forceinline__ A rb_lb_wscan(A x, int lane)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const A t = __shfl_up_sync(RB_LB_FULL, x, o);
        if (lane >= o) x += t;
    }
    return x;
}

template <int CH, typename TIn, typename TOut>
__global__ void __launch_bounds__(RB_LB_THREADS, 4) rb_lb_kernel(const rb_lb_args a)
{
    typedef typename rb_lb_acc<TIn>::type A;
    constexpr int P = CH == 3 ? 3 : 4; /* samples per lane in a row: whole pixels */
    constexpr int TW = 32 * P;
    constexpr int HS = RB_LB_TH * CH;  /* H record: per row, per channel */
    __shared__ A s_tot[RB_LB_WARPS][TW];
    __shared__ double s_hA[RB_LB_TH][CH], s_Hc[RB_LB_TH][CH], s_Vc[TW], s_B[CH], s_C[CH];
    __shared__ A s_park[RB_LB_RPW * P][RB_LB_THREADS]; /* the tile, while the records are read */
    __shared__ double s_pH[RB_LB_THREADS / HS][HS], s_pV[RB_LB_THREADS / TW][TW];
    __shared__ int s_win[4];                            /* H's and V's windows: depth, inclusive */
    __shared__ long long s_k;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) s_k = (long long)atomicAdd(a.ticket, 1u);
    __syncthreads();
    const long long k = s_k, tx = a.tiles_x;
    const int ti = (int)(k / tx), si = (int)(k % tx);
    const long long gx = (long long)si * TW + lane * P;
    const int yw = ti * RB_LB_TH + warp * RB_LB_RPW; /* the warp's first row */

    /* 1. read the warp's rows, every load in flight before the first use */
    A v[RB_LB_RPW][P];
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r) {
        if (yw + r < a.h) rb_lb_load<TIn, P>(a.in + (size_t)(yw + r) * a.in_pitch, gx, a.n, a.vec_in, v[r]);
        else
#pragma unroll
            for (int j = 0; j < P; ++j) v[r][j] = (A)0;
    }
    /* 2. rows: in-lane running sums per channel, then the warp's scan of the lane totals */
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r) {
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
    /* 3. columns: down the warp's rows in registers, then across warps */
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

    /* 4. the carries. Warp 0 publishes H's aggregate and polls H's window, the
     * last warp V's; then every thread reads a share of the records the windows
     * found (loads in flight at once, the tile parked in shared memory meanwhile);
     * then warp 0 and the last warp sum the shares in a fixed order and publish
     * the inclusive records while warp 1 resolves the corner. */
    constexpr int NPH = RB_LB_THREADS / HS, NPV = RB_LB_THREADS / TW; /* shares per element */
    const int eh = tid % HS, ph = tid / HS, ev = tid % TW, pv = tid / TW;
    if (warp == 0 && si > 0) {
#pragma unroll
        for (int c = 0; c < CH; ++c) __stcg(a.hagg + k * HS + lane * CH + c, s_hA[lane][c]);
        rb_lb_publish(a.hflag + k, 1, lane);
    } else if (warp == RB_LB_WARPS - 1 && ti > 0) {
#pragma unroll
        for (int j = 0; j < P; ++j) __stcg(a.vagg + k * TW + lane * P + j, (double)v[RB_LB_RPW - 1][j]);
        rb_lb_publish(a.vflag + k, 1, lane);
    }
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r)
#pragma unroll
        for (int j = 0; j < P; ++j) s_park[r * P + j][tid] = v[r][j];
    double hsum = 0.0, vsum = 0.0; /* this thread's shares */
    long long baseH = k - 1, baseV = k - tx;
    int leftH = si, leftV = ti;
    for (;;) {
        if (warp == 0) {
            bool incl = true;
            const int d = leftH > 0 ? rb_lb_window(a.hflag, baseH, 1, leftH, lane, &incl) : 0;
            if (lane == 0) {
                s_win[0] = d;
                s_win[1] = incl;
            }
        } else if (warp == RB_LB_WARPS - 1) {
            bool incl = true;
            const int d = leftV > 0 ? rb_lb_window(a.vflag, baseV, tx, leftV, lane, &incl) : 0;
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
                const double *sv = (iV && qv == dV - 1 ? a.vinc : a.vagg) + (baseV - (long long)qv * tx) * TW + ev;
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
        rb_lb_delay(a.delay_ns, k);
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            __stcg(a.hinc + k * HS + lane * CH + c, hc[c] + agg[c]);
            s_Hc[lane][c] = hc[c];
        }
        rb_lb_publish(a.hflag + k, 2, lane);
        /* B = Hc at the bottom row: the band's sum left of the tile. Where no tile
         * lies above (or none to the left) it is already inclusive. */
        if (lane == 31) {
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                s_B[c] = hc[c];
                __stcg((ti > 0 && si > 0 ? a.bagg : a.binc) + k * CH + c, hc[c]);
            }
        }
        __syncwarp();
        rb_lb_publish(a.bflag + k, ti > 0 && si > 0 ? 1 : 2, lane);
    } else if (warp == 1) {
        /* the corner: B of the tiles above, 32 at a time. Here, not before the block's
         * barrier above: a tile publishes B's aggregate after that barrier, so a corner
         * resolved before it would chain every tile to the one above. */
        double cc[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) cc[c] = 0.0;
        if (ti > 0 && si > 0) {
            long long base = k - tx;
            int left = ti;
            for (;;) {
                bool incl;
                const int d = rb_lb_window(a.bflag, base, tx, left, lane, &incl);
                if (lane < d) {
                    const double *src =
                        (incl && lane == d - 1 ? a.binc : a.bagg) + (base - (long long)lane * tx) * CH;
#pragma unroll
                    for (int c = 0; c < CH; ++c) cc[c] += __ldcg(src + c);
                }
                if (incl) break;
                base -= 32 * tx;
                left -= 32;
            }
#pragma unroll
            for (int c = 0; c < CH; ++c)
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) cc[c] += __shfl_xor_sync(RB_LB_FULL, cc[c], o);
        }
        if (lane < CH)
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (c == lane) s_C[c] = cc[c];
    } else if (warp == RB_LB_WARPS - 1) {
        /* V up the tile column: lane = P columns */
        rb_lb_delay(a.delay_ns, k + 1);
#pragma unroll
        for (int j = 0; j < P; ++j) {
            const int x = lane * P + j;
            double vc = 0.0;
#pragma unroll
            for (int q = 0; q < NPV; ++q) vc += s_pV[q][x];
            __stcg(a.vinc + k * TW + x, vc + (double)s_park[(RB_LB_RPW - 1) * P + j][tid]);
            s_Vc[x] = vc;
        }
        rb_lb_publish(a.vflag + k, 2, lane);
    }
    __syncthreads();
    /* B's inclusive record: the sum left of the tile over every row down to its bottom */
    if (warp == 0 && ti > 0 && si > 0) {
        rb_lb_delay(a.delay_ns, k + 2);
        if (lane < CH)
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (c == lane) __stcg(a.binc + k * CH + c, s_C[c] + s_B[c]);
        rb_lb_publish(a.bflag + k, 2, lane);
    }
#pragma unroll
    for (int r = 0; r < RB_LB_RPW; ++r)
#pragma unroll
        for (int j = 0; j < P; ++j) v[r][j] = s_park[r * P + j][tid];

    /* 5. the table, from registers: S = L + Hc(y) + Vc(x) + C */
    double vcol[P];
#pragma unroll
    for (int j = 0; j < P; ++j) vcol[j] = s_Vc[lane * P + j] + s_C[j % CH];
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

static int rb_lb_tw(int ch) { return ch == 3 ? 96 : 128; }

static size_t rb_lb_al(size_t b) { return (b + 255) & ~(size_t)255; }

/* flags (3 per tile and the ticket), then the six records */
static size_t rb_lb_layout(int w, int h, int ch, char *base, rb_lb_args *a)
{
    const long long n = (long long)w * ch;
    const int tw = rb_lb_tw(ch);
    const size_t tx = (size_t)((n + tw - 1) / tw), ty = (size_t)((h + RB_LB_TH - 1) / RB_LB_TH);
    const size_t tiles = tx * ty, hs = (size_t)RB_LB_TH * ch;
    const size_t sizes[6] = {hs, hs, (size_t)tw, (size_t)tw, (size_t)ch, (size_t)ch};
    size_t off = rb_lb_al((3 * tiles + 1) * sizeof(int));
    double **rec[6];
    if (a) {
        a->hflag = (int *)base;
        a->vflag = a->hflag + tiles;
        a->bflag = a->vflag + tiles;
        a->ticket = (unsigned *)(a->bflag + tiles);
        a->tiles_x = (int)tx;
        rec[0] = &a->hagg;
        rec[1] = &a->hinc;
        rec[2] = &a->vagg;
        rec[3] = &a->vinc;
        rec[4] = &a->bagg;
        rec[5] = &a->binc;
    }
    for (int i = 0; i < 6; ++i) {
        if (a) *rec[i] = (double *)(base + off);
        off += rb_lb_al(tiles * sizes[i] * sizeof(double));
    }
    return off;
}

extern "C" size_t rb_cuda_sat_work_bytes(int w, int h, int ch)
{
    return rb_lb_layout(w, h, ch, NULL, NULL);
}

template <int CH, typename TIn>
static void rb_lb_launch_out(const rb_lb_args &a, rb_format of, unsigned grid, cudaStream_t s)
{
    if (of == RB_F64) rb_lb_kernel<CH, TIn, double><<<grid, RB_LB_THREADS, 0, s>>>(a);
    else rb_lb_kernel<CH, TIn, float><<<grid, RB_LB_THREADS, 0, s>>>(a);
}

template <int CH>
static void rb_lb_launch(const rb_lb_args &a, rb_format inf, rb_format of, unsigned grid, cudaStream_t s)
{
    switch (inf) {
    case RB_U8: rb_lb_launch_out<CH, unsigned char>(a, of, grid, s); break;
    case RB_U16: rb_lb_launch_out<CH, unsigned short>(a, of, grid, s); break;
    case RB_F64: rb_lb_launch_out<CH, double>(a, of, grid, s); break;
    default: rb_lb_launch_out<CH, float>(a, of, grid, s); break;
    }
}

/* a lane's P = 4 samples at one aligned vector access: every row start aligned */
static int rb_lb_vec(const void *p, size_t pitch, size_t bytes4)
{
    const size_t al = bytes4 > 16 ? 16 : bytes4;
    return ((uintptr_t)p % al) == 0 && pitch % al == 0;
}

extern "C" cudaError_t rb_cuda_sat_run_delay(const void *in, size_t in_pitch, rb_format in_fmt, void *out,
                                             size_t out_pitch, rb_format out_fmt, int w, int h, int ch,
                                             void *work, cudaStream_t s, unsigned delay_ns)
{
    rb_lb_args a;
    rb_lb_layout(w, h, ch, (char *)work, &a);
    a.in = (const unsigned char *)in;
    a.out = (unsigned char *)out;
    a.in_pitch = in_pitch;
    a.out_pitch = out_pitch;
    a.n = (long long)w * ch;
    a.h = h;
    a.delay_ns = delay_ns;
    a.vec_in = ch != 3 && rb_lb_vec(in, in_pitch, 4 * rb_format_size(in_fmt));
    a.vec_out = ch != 3 && rb_lb_vec(out, out_pitch, 4 * rb_format_size(out_fmt));
    const size_t ty = (size_t)((h + RB_LB_TH - 1) / RB_LB_TH), tiles = ty * (size_t)a.tiles_x;
    if (tiles > 0x7fffffffu) return cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(a.hflag, 0, (3 * tiles + 1) * sizeof(int), s);
    if (e != cudaSuccess) return e;
    const unsigned grid = (unsigned)tiles;
    switch (ch) {
    case 1: rb_lb_launch<1>(a, in_fmt, out_fmt, grid, s); break;
    case 2: rb_lb_launch<2>(a, in_fmt, out_fmt, grid, s); break;
    case 3: rb_lb_launch<3>(a, in_fmt, out_fmt, grid, s); break;
    case 4: rb_lb_launch<4>(a, in_fmt, out_fmt, grid, s); break;
    default: return cudaErrorInvalidValue;
    }
    return rb_cuda_launch_check();
}

extern "C" cudaError_t rb_cuda_sat_run(const void *in, size_t in_pitch, rb_format in_fmt, void *out,
                                       size_t out_pitch, rb_format out_fmt, int w, int h, int ch, void *work,
                                       cudaStream_t s)
{
    return rb_cuda_sat_run_delay(in, in_pitch, in_fmt, out, out_pitch, out_fmt, w, h, ch, work, s, 0);
}

#define RB_SAT_CU(call, what) RB_CU_CHECK(done, "cuda sat", call, what)

/* rb_sat through a one-pass kernel: this one, or (tiles) the earlier tile kernel */
extern "C" rb_status rb_cuda_sat_onepass_with(rb_context *ctx, const rb_image *in, rb_image *out, int tiles)
{
    rb_status st = RB_OK;
    const int w = in->width, h = in->height, ch = in->channels;
    const size_t n = (size_t)w * ch;
    const size_t in_row = n * rb_format_size(in->format), out_row = n * rb_format_size(out->format);
    void *work = NULL, *sin = NULL, *sout = NULL;
    /* the calling thread's default stream and stream-ordered scratch: a fresh stream
     * and cudaMalloc/cudaFree per call cost about as much as the kernel at 4096^2 */
    cudaStream_t q = cudaStreamPerThread;
    const void *src = in->data;
    void *dst = out->data;
    size_t src_pitch = rb_image_stride(in), dst_pitch = rb_image_stride(out);
    const size_t wb = tiles ? rb_cuda_sat_tiles_work_bytes(w, h, ch) : rb_cuda_sat_work_bytes(w, h, ch);
    RB_SAT_CU(rb_cuda_malloc_async(&work, wb, q), "cudaMalloc (carries)");
    if (in->memory == RB_MEMORY_HOST) {
        RB_SAT_CU(rb_cuda_malloc_async(&sin, in_row * h, q), "cudaMalloc (input staging)");
        RB_SAT_CU(cudaMemcpy2DAsync(sin, in_row, in->data, src_pitch, in_row, h,
                                    cudaMemcpyHostToDevice, q), "copying the input to the device");
        src = sin;
        src_pitch = in_row;
    }
    if (out->memory == RB_MEMORY_HOST) {
        RB_SAT_CU(rb_cuda_malloc_async(&sout, out_row * h, q), "cudaMalloc (output staging)");
        dst = sout;
        dst_pitch = out_row;
    }
    if (src == dst && (src_pitch != dst_pitch || rb_format_size(in->format) != rb_format_size(out->format))) {
        /* one device buffer, two layouts: a tile's table would overwrite other tiles' input */
        RB_SAT_CU(rb_cuda_malloc_async(&sin, in_row * h, q), "cudaMalloc (input copy)");
        RB_SAT_CU(cudaMemcpy2DAsync(sin, in_row, src, src_pitch, in_row, h, cudaMemcpyDeviceToDevice, q),
                  "copying the input");
        src = sin;
        src_pitch = in_row;
    }
    if (tiles)
        RB_SAT_CU(rb_cuda_sat_tiles_run(src, src_pitch, in->format, dst, dst_pitch, out->format, w, h, ch, work, q),
                  "summed-area table kernel");
    else
        RB_SAT_CU(rb_cuda_sat_run_delay(src, src_pitch, in->format, dst, dst_pitch, out->format, w, h, ch, work, q,
                                        ctx->sw.hook_scan_delay_ns),
                  "summed-area table kernel");
    if (out->memory == RB_MEMORY_HOST)
        RB_SAT_CU(cudaMemcpy2DAsync(out->data, rb_image_stride(out), sout, out_row, out_row, h,
                                    cudaMemcpyDeviceToHost, q), "copying the table to the host");
    RB_SAT_CU(cudaStreamSynchronize(q), "computing the table");
done:
    rb_cuda_free_async(work, q);
    rb_cuda_free_async(sin, q);
    rb_cuda_free_async(sout, q);
    cudaStreamSynchronize(q);
    return st;
}

/* rb_sat's default one-pass route: the tile kernel */
extern "C" rb_status rb_cuda_sat_onepass(rb_context *ctx, const rb_image *in, rb_image *out)
{
    return rb_cuda_sat_onepass_with(ctx, in, out, 1);
}
