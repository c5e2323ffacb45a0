/* Summed-area tables in one pass, the look-back kernel that keeps only the
 * input in registers and rebuilds the tile's table while it writes it. The
 * carries are those of rb_cuda_sat_lookback.cu (S = L + Hc(y) + Vc(x) + C, the
 * 2011 paper's algorithm SAT with its stages 2-4 folded into the pass; three
 * chains H, V, B by decoupled look-back); what differs is what a tile holds
 * while it waits for them. The earlier kernel held its whole table L (32-bit
 * sums, or doubles for float input: 128 registers a thread, 2 tiles a
 * multiprocessor); this one holds the input as stored (packed bytes for
 * 8/16-bit samples) and only the tile's row and column totals, which are all
 * the chains need: H's aggregate is the prefix over the tile's rows of the row
 * totals, V's the column totals. The table is formed row by row at the end
 * (running column sums, a lane's prefix, a warp scan), so tiles are taller for
 * the same registers: 64 x 256 samples (half the tiles, half the look-backs and
 * records a pixel of the earlier 32 x 256), 4 a multiprocessor for 8-bit input,
 * 3 for 16-bit, 2 for floats. Float tiles of one or two channels are 128 x 256
 * (half the tiles and carries a pixel again): each warp holds 8 of its 16 rows
 * in registers and parks the other 8 in shared memory (copied there by
 * cp.async, no registers in flight), 2 tiles a multiprocessor.
 *
 * V's records are column sums, not prefixes across the tile: for 8/16-bit
 * input they fit 32 bits (h * 65535 < 2^32: the dispatcher checks), so the
 * records V's look-back reads are half the bytes; the tile forms its prefix
 * Vc(x) from them once. Precision: integer tiles sum in 32 bits (64 x 256 x
 * 65535 < 2^32), H, B and Vc in double (integers below 2^53: exact), one
 * rounding to F32; float input sums in double throughout and rounds once.
 *
 * The scratch is kept from call to call (rb_sat_scratch: the context's): the
 * flags carry the call's epoch (rb_lb_ready) and the 64-bit ticket counter runs
 * on from the last call's count, so a call zeroes nothing (no memset launch)
 * unless the scratch is new, failed, or its flags grow over bytes that held
 * records. */
#include "rb_cuda_check.h"
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_sat.cuh"
#include "rb_cuda_sat_lb.cuh"
#include <atomic>
#include <stdint.h>
#include <type_traits>

#define RB_RB_WARPS 8
#define RB_RB_THREADS (32 * RB_RB_WARPS)

/* planted faults, built only to show that test_gpu_1d_sat fails (bench/RESULTS.md):
 * RB_SAT_PLANT=3 reads V's records from the tile column to the right, =4 drops
 * a row (the tile's last) from the running column sums of the table, =5 the
 * same with the tile's last row but one (parked in shared memory in the 128-row
 * float tiles),
 * =6 parks a row at the slot of the warp's next (another row's samples),
 * =7 runs a call with the last call's epoch (its flags taken for this call's),
 * =8 adds to a row the carry Hc of the row below (a carry from the wrong row) */
#if RB_SAT_PLANT == 3
#define RB_RB_PLANT_V 1
#else
#define RB_RB_PLANT_V 0
#endif
#if RB_SAT_PLANT == 6
#define RB_RB_PLANT_PARK 1
#else
#define RB_RB_PLANT_PARK 0
#endif
#if RB_SAT_PLANT == 7
#define RB_RB_PLANT_EPOCH 0
#else
#define RB_RB_PLANT_EPOCH 1
#endif
#if RB_SAT_PLANT == 8
#define RB_RB_PLANT_HROW 1
#else
#define RB_RB_PLANT_HROW 0
#endif

/* epochs of a kept scratch: the flag holds epoch * 4 + state in 32 bits */
#define RB_RB_EPOCHS (1u << 30)

typedef struct {
    const unsigned char *in;
    unsigned char *out;
    size_t in_pitch, out_pitch;
    long long n; /* samples per row */
    long long tiles;
    int h, tiles_x;
    int vec_in, vec_out;
    unsigned delay_ns; /* test hook: inclusive records published late */
    int *hflag, *vflag, *bflag;
    unsigned tag;                   /* the call's epoch * 4 (rb_lb_ready) */
    unsigned long long *ticket;     /* runs on from call to call: */
    unsigned long long ticket_base; /* its value when this call starts */
    double *hagg, *hinc, *bagg, *binc;
    void *vagg, *vinc; /* column sums: 32-bit for 8/16-bit input, else double */
    int pf_mode;          /* rb_sat_shape.prefetch as chosen: 0 none, 1-3 */
    long long pf_ahead;   /* tickets ahead: the blocks resident on the device */
} rb_rb_args;

/* tile sums: 32-bit integers for 8/16-bit input, double for floats */
template <typename T> struct rb_rb_acc { typedef double type; };
template <> struct rb_rb_acc<unsigned char> { typedef unsigned type; };
template <> struct rb_rb_acc<unsigned short> { typedef unsigned type; };

/* sample j of a row held as 32-bit words (bytes and halves packed) */
template <typename T>
static __device__ __forceinline__ typename rb_rb_acc<T>::type rb_rb_get(const unsigned *w, int j)
{
    if (sizeof(T) == 1) return (w[j >> 2] >> (8 * (j & 3))) & 0xffu;
    if (sizeof(T) == 2) return (w[j >> 1] >> (16 * (j & 1))) & 0xffffu;
    return (typename rb_rb_acc<T>::type)__uint_as_float(w[j]);
}

/* P samples of a row at gx into W words, by vector loads where aligned */
template <typename T, int P>
static __device__ __forceinline__ void rb_rb_load(const unsigned char *row, long long gx, long long n, bool vec,
                                                  unsigned *w)
{
    constexpr int B = P * (int)sizeof(T), W = (B + 3) / 4;
    const T *r = (const T *)row + gx;
    if (B % 8 == 0 && vec && gx + P <= n) {
        if (B % 16 == 0) {
#pragma unroll
            for (int g = 0; g < B / 16; ++g) {
                const uint4 u = __ldcs((const uint4 *)r + g);
                w[4 * g] = u.x;
                w[4 * g + 1] = u.y;
                w[4 * g + 2] = u.z;
                w[4 * g + 3] = u.w;
            }
        } else {
#pragma unroll
            for (int g = 0; g < B / 8; ++g) {
                const uint2 u = __ldcs((const uint2 *)r + g);
                w[2 * g] = u.x;
                w[2 * g + 1] = u.y;
            }
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < W; ++i) w[i] = 0u;
#pragma unroll
    for (int j = 0; j < P; ++j)
        if (gx + j < n) {
            if (sizeof(T) == 1) w[j >> 2] |= (unsigned)__ldcs((const unsigned char *)r + j) << (8 * (j & 3));
            else if (sizeof(T) == 2) w[j >> 1] |= (unsigned)__ldcs((const unsigned short *)r + j) << (16 * (j & 1));
            else w[j] = __float_as_uint(__ldcs((const float *)r + j));
        }
}

/* P samples of the table at gx, by vector stores where aligned */
template <typename T, int P>
static __device__ __forceinline__ void rb_rb_store(unsigned char *row, long long gx, long long n, bool vec,
                                                   const T *o)
{
    T *r = (T *)row + gx;
    if (P % 4 == 0 && vec && gx + P <= n) {
#pragma unroll
        for (int g = 0; g < P / 4; ++g) {
            if (sizeof(T) == 4) {
                __stcs((float4 *)r + g, make_float4(o[4 * g], o[4 * g + 1], o[4 * g + 2], o[4 * g + 3]));
            } else {
                __stcs((double2 *)r + 2 * g, make_double2(o[4 * g], o[4 * g + 1]));
                __stcs((double2 *)r + 2 * g + 1, make_double2(o[4 * g + 2], o[4 * g + 3]));
            }
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < P; ++j)
        if (gx + j < n) r[j] = o[j];
}

/* one row's words parked in shared memory: lane-minor groups of four words, so a
 * warp's 16-byte accesses meet no bank conflict */
template <int W>
static __device__ __forceinline__ uint4 *rb_rb_park(uint4 *park, int slot, int lane)
{
    return park + (size_t)slot * ((W + 3) / 4) * 32 + lane;
}

/* L2 prefetch of the input of tile kn (the one a block of the next wave takes):
 * a hint that keeps the memory reading while this wave looks back; rows past the
 * image are skipped, so every address asked for is the input's */
template <typename TIn, int TH, int TW>
static __device__ __forceinline__ void rb_rb_prefetch(const rb_rb_args &a, long long kn, int tid)
{
    if (kn >= a.tiles) return;
    /* 32-bit index arithmetic (tiles < 2^31): a 64-bit division spilled the float tile */
    const int kk = (int)kn, txi = a.tiles_x, tin = kk / txi, sin = kk - tin * txi;
    constexpr int LINES = (TW * (int)sizeof(TIn) + 127) / 128; /* 128-byte lines a tile row */
    constexpr int LP = LINES <= 2 ? LINES : LINES <= 4 ? 4 : 8; /* a power of two: a thread keeps its line */
    constexpr int STEP = RB_RB_THREADS / LP;                    /* rows a pass */
    static_assert(LINES <= 8, "a tile row in 8 lines");
    const int l = tid % LP, r0 = tid / LP, rows = a.pf_mode == 4 ? TH / 2 : TH; /* 4: the top half */
    const long long bytes = (a.n - (long long)sin * TW) * (long long)sizeof(TIn);
    if (l >= LINES || (long long)l * 128 >= bytes) return;
    int y = tin * TH + r0;
    const unsigned char *p = a.in + (size_t)y * a.in_pitch + (size_t)sin * TW * sizeof(TIn) + (size_t)l * 128;
    const size_t stride = (size_t)STEP * a.in_pitch;
#pragma unroll
    for (int i = 0; i < (TH + STEP - 1) / STEP; ++i, y += STEP, p += stride) {
        if (r0 + i * STEP >= rows || y >= a.h) break;
        if (a.pf_mode == 2) asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p));
        else asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
    }
}

/* column x's total over the tile, from the warps' sums (recomputed where needed:
 * fewer registers held across the look-back) */
template <typename A, int TW>
static __device__ __forceinline__ A rb_rb_coltotal(const A (*s_col)[TW], int x)
{
    A t = (A)0;
#pragma unroll
    for (int w = 0; w < RB_RB_WARPS; ++w) t += s_col[w][x];
    return t;
}

/* Tiles of TH rows x 32 P samples, a block of 8 warps each; NC: the carries
 * skipped (not a table: the benchmark's floor); SR: the rows of each warp's
 * TH / 8 parked in shared memory (dynamic: SR x 8 KB a block for floats; 8:
 * 88-90 KB a block with the static arrays). Blocks a multiprocessor: 4 for
 * 8-bit input, 3 for 16-bit (85 registers: no spills), 2 for floats (128
 * registers; 3 for the benchmark's tiles of 32 rows, and of 128 rows of bytes). */
template <int CH, typename TIn, typename TOut, typename R, int TH, int P, bool NC, int SR>
__global__ void __launch_bounds__(RB_RB_THREADS, TH == 128 ? (sizeof(TIn) == 1 ? 3 : 2) : sizeof(TIn) == 1 ? 4 : sizeof(TIn) == 2 || TH == 32 ? 3 : 2)
    rb_rb_kernel(const rb_rb_args a)
{
    typedef typename rb_rb_acc<TIn>::type A;
    /* the table's prefixes across the tile: 64-bit for integer input (h * 65535 * 256 may pass 2^32) */
    typedef typename std::conditional<sizeof(TIn) <= 2, unsigned long long, double>::type U;
    constexpr int TW = 32 * P, RPW = TH / RB_RB_WARPS, W = (P * (int)sizeof(TIn) + 3) / 4;
    constexpr int HS = TH * CH, NPH = RB_RB_THREADS / HS, RPL = TH / 32; /* H: rows a lane */
    constexpr int RR = RPW - SR, G = (W + 3) / 4; /* rows a warp holds in registers; 16-byte groups a row */
    static_assert(SR >= 0 && SR < RPW, "a warp keeps a row in registers");
    static_assert(TW <= RB_RB_THREADS && TW > RB_RB_THREADS / 2, "one V share: a thread per column");
    static_assert(HS <= RB_RB_THREADS && TH % 32 == 0 && P % CH == 0, "tile shape");
    __shared__ A s_col[RB_RB_WARPS][TW];  /* the warps' column sums */
    __shared__ A s_rt[TH][CH];            /* row totals */
    __shared__ double s_hA[TH][CH], s_Hc[TH][CH], s_B[CH], s_C[CH];
    __shared__ double s_pH[NPH][HS];
    __shared__ R s_V[TW];                 /* column sums above the tile */
    __shared__ int s_win[4];
    __shared__ long long s_k;
    __shared__ unsigned s_tag;
    extern __shared__ uint4 s_park[]; /* [warp][row - RR][G][32 lanes] */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) {
        s_k = (long long)(atomicAdd(a.ticket, 1ull) - a.ticket_base);
        s_tag = a.tag; /* read where polled: held in a register, 20 bytes of the F32 tile spilled */
    }
    __syncthreads();
    const long long k = s_k, tx = a.tiles_x;
    const int ti = (int)(k / tx), si = (int)(k % tx);
    const long long gx = (long long)si * TW + lane * P;
    const int yw = ti * TH + warp * RPW; /* the warp's first row */
    /* integer input alone: for floats it measured no faster at 4096^2, 1.15x slower at 8192^2
     * (their 128 KB tiles crowd L2), and its code spilled the float tile */
    if constexpr (sizeof(TIn) <= 2)
        if (a.pf_mode == 3) rb_rb_prefetch<TIn, TH, TW>(a, k + a.pf_ahead, tid);
    unsigned raw[RR > 0 ? RR : 1][W];
#pragma unroll
    for (int r = 0; r < RR; ++r) {
        if (yw + r < a.h) rb_rb_load<TIn, P>(a.in + (size_t)(yw + r) * a.in_pitch, gx, a.n, a.vec_in, raw[r]);
        else
#pragma unroll
            for (int i = 0; i < W; ++i) raw[r][i] = 0u;
    }
    /* the parked rows: copied global -> shared without registers where whole
     * 16-byte groups are aligned, else loaded and stored (edges, odd pitches) */
#pragma unroll
    for (int r = RR; r < RPW; ++r) {
        uint4 *d = rb_rb_park<W>(s_park, warp * SR + r - RR + (RB_RB_PLANT_PARK && r == RR), lane);
        const unsigned char *row = a.in + (size_t)(yw + r) * a.in_pitch;
        if (W % 4 == 0 && yw + r < a.h && a.vec_in && gx + P <= a.n) {
#pragma unroll
            for (int g = 0; g < G; ++g)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(d + 32 * g)),
                             "l"((const uint4 *)((const TIn *)row + gx) + g)
                             : "memory");
        } else {
            unsigned t[4 * G];
#pragma unroll
            for (int i = 0; i < 4 * G; ++i) t[i] = 0u;
            if (yw + r < a.h) rb_rb_load<TIn, P>(row, gx, a.n, a.vec_in, t);
#pragma unroll
            for (int g = 0; g < G; ++g) d[32 * g] = make_uint4(t[4 * g], t[4 * g + 1], t[4 * g + 2], t[4 * g + 3]);
        }
    }
    if (SR) asm volatile("cp.async.wait_all;" ::: "memory"); /* a lane reads only what it copied */
    /* row r's words: registers, or the parked copy */
    auto row_words = [&](int r, unsigned *w) {
        if (r < RR) {
#pragma unroll
            for (int i = 0; i < W; ++i) w[i] = raw[r < RR ? r : 0][i];
        } else {
            const uint4 *d = rb_rb_park<W>(s_park, warp * SR + r - RR, lane);
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const uint4 u = d[32 * g];
                if (4 * g < W) w[4 * g] = u.x;
                if (4 * g + 1 < W) w[4 * g + 1] = u.y;
                if (4 * g + 2 < W) w[4 * g + 2] = u.z;
                if (4 * g + 3 < W) w[4 * g + 3] = u.w;
            }
        }
    };

    /* 1. the totals the chains need: the warp's column sums, every row's total */
    {
        A col[P];
#pragma unroll
        for (int j = 0; j < P; ++j) col[j] = (A)0;
#pragma unroll
        for (int r = 0; r < RPW; ++r) {
            A t[CH];
            unsigned wr[W];
            row_words(r, wr);
#pragma unroll
            for (int c = 0; c < CH; ++c) t[c] = (A)0;
#pragma unroll
            for (int j = 0; j < P; ++j) {
                const A x = rb_rb_get<TIn>(wr, j);
                col[j] += x;
                t[j % CH] += x;
            }
#pragma unroll
            for (int c = 0; c < CH; ++c) {
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) t[c] += __shfl_xor_sync(RB_LB_FULL, t[c], o);
            }
            if (lane == 0)
#pragma unroll
                for (int c = 0; c < CH; ++c) s_rt[warp * RPW + r][c] = t[c];
        }
#pragma unroll
        for (int j = 0; j < P; ++j) s_col[warp][lane * P + j] = col[j];
    }
    /* the tile's samples are in: the next wave's reads start while this one looks back */
    if constexpr (sizeof(TIn) <= 2)
        if (a.pf_mode == 1 || a.pf_mode == 2 || a.pf_mode == 4) rb_rb_prefetch<TIn, TH, TW>(a, k + a.pf_ahead, tid);
    __syncthreads();
    /* H's aggregate L(y, right edge): the prefix of the row totals (warp 0, RPL rows a lane) */
    if (warp == 0) {
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            A p[RPL];
#pragma unroll
            for (int i = 0; i < RPL; ++i) p[i] = s_rt[lane * RPL + i][c] + (i ? p[i - 1] : (A)0);
            const A incl = rb_lb_wscan(p[RPL - 1], lane);
            A excl = __shfl_up_sync(RB_LB_FULL, incl, 1);
            if (lane == 0) excl = (A)0;
#pragma unroll
            for (int i = 0; i < RPL; ++i) {
                const double v = (double)(p[i] + excl);
                s_hA[lane * RPL + i][c] = v;
                if (!NC && si > 0) __stcg(a.hagg + k * HS + (lane * RPL + i) * CH + c, v);
            }
        }
        if (!NC && si > 0) rb_lb_publish(a.hflag + k, (int)(a.tag | 1u), lane, false);
    }
    /* V's aggregate: the tile's column sums (the last warp, P columns a lane) */
    if (!NC && warp == RB_RB_WARPS - 1 && ti > 0) {
#pragma unroll
        for (int j = 0; j < P; ++j) __stcg((R *)a.vagg + k * TW + lane * P + j, rb_rb_coltotal(s_col, lane * P + j));
        rb_lb_publish(a.vflag + k, (int)(a.tag | 1u), lane, false);
    }

    /* 2. the look-backs (rb_cuda_sat_lookback.cu's): warp 0 polls H's window, the
     * last warp V's; every thread reads a share of the records found */
    const int eh = tid % HS, ph = tid / HS, ev = tid;
    double hsum = 0.0;
    R vsum = (R)0;
    long long baseH = k - 1, baseV = k - tx;
    int leftH = NC ? 0 : si, leftV = NC ? 0 : ti;
    for (;;) {
        if (warp == 0) {
            bool incl = true;
            const int d = leftH > 0 ? rb_lb_window(a.hflag, baseH, 1, leftH, lane, &incl, false, 32, *(volatile unsigned *)&s_tag) : 0;
            if (lane == 0) {
                s_win[0] = d;
                s_win[1] = incl;
            }
        } else if (warp == RB_RB_WARPS - 1) {
            bool incl = true;
            const int d = leftV > 0 ? rb_lb_window(a.vflag, baseV, tx, leftV, lane, &incl, false, 32, *(volatile unsigned *)&s_tag) : 0;
            if (lane == 0) {
                s_win[2] = d;
                s_win[3] = incl;
            }
        }
        __syncthreads();
        const int dH = s_win[0], dV = s_win[2];
        const bool iH = s_win[1], iV = s_win[3];
        constexpr int U = sizeof(TIn) <= 2 || TH == 64 ? 8 : 4; /* loads in flight: fewer where registers are short */
        for (int q0 = 0; q0 * NPH < dH || q0 < dV; q0 += U) {
            double th[U];
            R tv[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int qh = ph + NPH * (q0 + u), qv = q0 + u;
                const double *sh = (iH && qh == dH - 1 ? a.hinc : a.hagg) + (baseH - qh) * HS + eh;
                const R *sv = (const R *)(iV && qv == dV - 1 ? a.vinc : a.vagg) +
                              (baseV - (long long)qv * tx + RB_RB_PLANT_V) * TW + ev;
                th[u] = qh < dH && ph < NPH ? __ldcg(sh) : 0.0;
                tv[u] = qv < dV && ev < TW ? __ldcg(sv) : (R)0;
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
    if (ev < TW) s_V[ev] = vsum;
    __syncthreads();
    if (warp == 0) {
        /* H along the band: RPL rows a lane */
#pragma unroll
        for (int i = 0; i < RPL; ++i) {
            const int y = lane * RPL + i;
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                double hc = 0.0;
#pragma unroll
                for (int q = 0; q < NPH; ++q) hc += s_pH[q][y * CH + c];
                s_Hc[y][c] = hc;
            }
        }
        if (!NC) {
            rb_lb_delay(a.delay_ns, k);
#pragma unroll
            for (int i = 0; i < RPL; ++i)
#pragma unroll
                for (int c = 0; c < CH; ++c) {
                    const int y = lane * RPL + i;
                    __stcg(a.hinc + k * HS + y * CH + c, s_Hc[y][c] + s_hA[y][c]);
                }
            rb_lb_publish(a.hflag + k, (int)(a.tag | 2u), lane, false);
        }
        /* B = Hc at the bottom row: the band's sum left of the tile */
        __syncwarp();
        if (lane == 31) {
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                const double hb = s_Hc[TH - 1][c];
                s_B[c] = hb;
                if (!NC) __stcg((ti > 0 && si > 0 ? a.bagg : a.binc) + k * CH + c, hb);
            }
        }
        __syncwarp();
        if (!NC) rb_lb_publish(a.bflag + k, (int)(a.tag | (ti > 0 && si > 0 ? 1u : 2u)), lane, false);
    } else if (warp == 1) {
        /* the corner: B of the tiles above, 32 at a time */
        double cc[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) cc[c] = 0.0;
        if (!NC && ti > 0 && si > 0) rb_lb_corner<CH>(a.bflag, a.binc, a.bagg, k, tx, ti, lane, false, 32, cc, a.tag);
        if (lane < CH)
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (c == lane) s_C[c] = cc[c];
    } else if (warp == RB_RB_WARPS - 1) {
        /* V up the tile column: the inclusive column sums */
        if (!NC) {
            rb_lb_delay(a.delay_ns, k + 1);
#pragma unroll
            for (int j = 0; j < P; ++j)
                __stcg((R *)a.vinc + k * TW + lane * P + j, (R)(s_V[lane * P + j] + rb_rb_coltotal(s_col, lane * P + j)));
            rb_lb_publish(a.vflag + k, (int)(a.tag | 2u), lane, false);
        }
    }
    __syncthreads();
    /* B's inclusive record: the sum left of the tile over every row down to its bottom */
    if (!NC && warp == 0 && ti > 0 && si > 0) {
        rb_lb_delay(a.delay_ns, k + 2);
        if (lane < CH)
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (c == lane) __stcg(a.binc + k * CH + c, s_C[c] + s_B[c]);
        rb_lb_publish(a.bflag + k, (int)(a.tag | 2u), lane, false);
    }

    /* 3. the table, row by row: running column sums cs from the top of the image
     * (the sums above the tile, V's, and the tile's rows above the warp's, the other
     * warps'), their prefix across the lane and the warp in 64 bits or double: that
     * is L(y, x) + Vc(x); S = that + Hc(y) + C, the row's carry the running sum's
     * start (integers: exact in 64 bits, then one rounding; floats: one add a
     * sample fewer in double) */
    /* the raw words as if new: else the compiler keeps phase 1's unpacked or
     * converted samples alive across the look-back (4-8x the registers) */
#pragma unroll
    for (int r = 0; r < RR; ++r)
#pragma unroll
        for (int i = 0; i < W; ++i) asm volatile("" : "+r"(raw[r][i]));
    /* the row's carry Hc + C as the running sum's start (one add a sample fewer; for
     * bytes one rounding of the exact 64-bit sum instead of two conversions), except
     * for 16-bit samples: their 2-channel tile then spilled 104 bytes (ptxas) */
    constexpr bool FOLD = sizeof(TIn) != 2;
    A cs[P];
#pragma unroll
    for (int j = 0; j < P; ++j) {
        A o = (A)s_V[lane * P + j];
        for (int w = 0; w < warp; ++w) o += s_col[w][lane * P + j];
        cs[j] = o;
    }
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        const int y = warp * RPW + r;
        if (yw + r >= a.h) break;
        unsigned wr[W];
        row_words(r, wr);
#if RB_SAT_PLANT == 4
        if (y != TH - 1)
#elif RB_SAT_PLANT == 5
        if (y != TH - 2) /* a parked row (the warp's last but one) */
#endif
#pragma unroll
            for (int j = 0; j < P; ++j) cs[j] += rb_rb_get<TIn>(wr, j);
        U run[CH];
        double hc[CH];
        const int yh = RB_RB_PLANT_HROW && y + 1 < TH ? y + 1 : y;
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            run[c] = (U)0;
            hc[c] = FOLD ? 0.0 : s_Hc[yh][c] + s_C[c];
        }
#pragma unroll
        for (int j = 0; j < P; ++j) run[j % CH] += (U)cs[j];
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            const U incl = rb_lb_wscan(run[c], lane);
            const U excl = __shfl_up_sync(RB_LB_FULL, incl, 1); /* the lanes to the left */
            run[c] = lane ? excl : (U)0;
            /* Hc + C: whole numbers below 2^53 for integer input, so exact as U */
            if (FOLD) run[c] += (U)(s_Hc[yh][c] + s_C[c]);
        }
        TOut o[P]; /* rounded at once: fewer registers than P doubles */
#pragma unroll
        for (int j = 0; j < P; ++j) {
            run[j % CH] += (U)cs[j];
            o[j] = FOLD ? (TOut)run[j % CH] : (TOut)((double)run[j % CH] + hc[j % CH]);
        }
        rb_rb_store<TOut, P>(a.out + (size_t)(yw + r) * a.out_pitch, gx, a.n, a.vec_out, o);
    }
}

/* rows of a tile: 64 (1.3x the speed of 32 for floats, 1.4x for bytes on the H100);
 * 128 for floats of one or two channels (1.08x / 1.15x the 64 rows at 4096^2 / 8192^2;
 * H's share: 128 x ch rows <= a thread each) */
static int rb_rb_th(rb_sat_shape shape, rb_format in_fmt, int ch)
{
    if (shape.rows) return shape.rows;
    return in_fmt == RB_F32 && ch <= 2 && shape.park == 0 ? 128 : 64;
}

/* the L2 prefetch of the next wave's tiles (rb_sat_shape.prefetch) for 8/16-bit input:
 * 1.10x at 8192^2, 1.03-1.05x at 4096^2 on the H100 (bench/RESULTS.md); none for floats
 * (no faster at 4096^2, 1.15x slower at 8192^2) nor the floor */
static int rb_rb_pf(rb_sat_shape shape, rb_format in_fmt)
{
    if (shape.nocarry || shape.prefetch < 0 || (in_fmt != RB_U8 && in_fmt != RB_U16)) return 0;
    return shape.prefetch ? shape.prefetch : 1;
}

/* the 64-bit ticket, the flags (3 per tile), then the six records (V's as doubles:
 * room for either type); *flag_bytes: the ticket's and flags' bytes */
static size_t rb_rb_layout(int w, int h, int ch, int th, char *base, rb_rb_args *a, size_t *flag_bytes = NULL)
{
    const int tw = ch == 3 ? 192 : 256;
    const long long n = (long long)w * ch;
    const size_t tx = (size_t)((n + tw - 1) / tw), ty = (size_t)((h + th - 1) / th);
    const size_t tiles = tx * ty, hs = (size_t)th * ch;
    const size_t sizes[6] = {hs, hs, (size_t)tw, (size_t)tw, (size_t)ch, (size_t)ch};
    const size_t fb = sizeof(unsigned long long) + 3 * tiles * sizeof(int);
    size_t off = rb_sat_align(fb);
    if (flag_bytes) *flag_bytes = fb;
    void *p[6];
    for (int i = 0; i < 6; ++i) {
        p[i] = base + off;
        off += rb_sat_align(tiles * sizes[i] * sizeof(double));
    }
    if (a) {
        a->ticket = (unsigned long long *)base;
        a->hflag = (int *)(base + sizeof(unsigned long long));
        a->vflag = a->hflag + tiles;
        a->bflag = a->vflag + tiles;
        a->tiles_x = (int)tx;
        a->tiles = (long long)tiles;
        a->hagg = (double *)p[0];
        a->hinc = (double *)p[1];
        a->vagg = p[2];
        a->vinc = p[3];
        a->bagg = (double *)p[4];
        a->binc = (double *)p[5];
    }
    return off;
}

extern "C" int rb_cuda_sat_rebuild_fits(rb_sat_shape shape, rb_format in_fmt, int h)
{
    (void)shape;
    /* V's 32-bit column sums: h * the largest sample below 2^32 */
    if (in_fmt == RB_U8) return (unsigned long long)h * 255u <= 0xffffffffull;
    if (in_fmt == RB_U16) return (unsigned long long)h * 65535u <= 0xffffffffull;
    return in_fmt == RB_F32;
}

extern "C" long long rb_cuda_sat_default_tiles(rb_format in_fmt, int w, int h, int ch)
{
    const rb_sat_shape shape = rb_sat_shape_default;
    if (ch < 1 || ch > 4 || !rb_cuda_sat_rebuild_fits(shape, in_fmt, h)) return -1;
    const long long tw = ch == 3 ? 192 : 256, th = rb_rb_th(shape, in_fmt, ch); /* rb_rb_layout's */
    return (((long long)w * ch + tw - 1) / tw) * ((h + th - 1) / th);
}

extern "C" size_t rb_cuda_sat_rebuild_work_bytes(rb_sat_shape shape, rb_format in_fmt, int w, int h, int ch)
{
    return rb_rb_layout(w, h, ch, rb_rb_th(shape, in_fmt, ch), NULL, NULL);
}

template <int CH, typename TIn, typename TOut, int TH, bool NC, int SR = 0>
static cudaError_t rb_rb_go(const rb_rb_args &a, cudaStream_t s)
{
    typedef typename std::conditional<sizeof(TIn) <= 2, unsigned, double>::type R;
    constexpr int P = CH == 3 ? 6 : 8, G = (P * (int)sizeof(TIn) + 15) / 16;
    const int park = RB_RB_WARPS * SR * G * 32 * 16;
    auto k = rb_rb_kernel<CH, TIn, TOut, R, TH, P, NC, SR>;
    /* the blocks resident on the device (the prefetch's distance in tickets), once a
     * device and instance, like the attributes (past 32 devices, every call) */
    static std::atomic<int> resident[32];
    rb_rb_args b = a;
    if (SR || a.pf_mode) {
        int dev = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e != cudaSuccess) return e;
        int res = dev < 32 ? resident[dev].load(std::memory_order_acquire) : 0;
        if (!res) {
            /* over 48 KB a block with the static arrays: opted in; shared memory first (L1
             * serves no reuse here). A function's attribute on a device holds for the process */
            if (SR) {
                e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, park);
                if (e == cudaSuccess)
                    e = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxShared);
                if (e != cudaSuccess) return e;
            }
            int per_sm = 0, sms = 0;
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, RB_RB_THREADS, park);
            if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
            if (e != cudaSuccess) return e;
            res = per_sm * sms > 0 ? per_sm * sms : 1;
            if (dev < 32) resident[dev].store(res, std::memory_order_release);
        }
        b.pf_ahead = res;
    }
    k<<<(unsigned)b.tiles, RB_RB_THREADS, park, s>>>(b);
    return cudaSuccess;
}

/* the dispatcher's callee */
template <bool NC> struct rb_rb_launcher {
    const rb_rb_args *a;
    cudaStream_t s;
    int th, park;
    template <int CH, typename TIn, typename TOut> cudaError_t go() const
    {
        /* F64 input is not this kernel's; the floor is built for one channel to F32 alone */
        if constexpr (sizeof(TIn) > 4 || (NC && (CH != 1 || sizeof(TOut) != 4))) {
            return cudaErrorInvalidValue;
        } else {
            if (th == 64) return rb_rb_go<CH, TIn, TOut, 64, NC>(*a, s);
            /* floats of 1-2 channels: 128 rows, 8 of a warp's 16 parked in shared memory */
            if constexpr (sizeof(TIn) == 4 && CH <= 2)
                if (th == 128) return rb_rb_go<CH, TIn, TOut, 128, NC, 8>(*a, s);
            /* measured only: 128 rows of one channel of bytes (bench/RESULTS.md) */
            if constexpr (sizeof(TIn) == 1 && CH == 1 && sizeof(TOut) == 4)
                if (th == 128) return rb_rb_go<CH, TIn, TOut, 128, NC>(*a, s);
            if (th != 32) return cudaErrorInvalidValue;
            return rb_rb_go<CH, TIn, TOut, 32, NC>(*a, s);
        }
    }
};

static int rb_rb_vec(const void *p, size_t pitch, size_t bytes)
{
    const size_t al = bytes > 16 ? 16 : bytes;
    return ((uintptr_t)p % al) == 0 && pitch % al == 0;
}

extern "C" cudaError_t rb_cuda_sat_rebuild_run(rb_sat_shape shape, const void *in, size_t in_pitch,
                                               rb_format in_fmt, void *out, size_t out_pitch, rb_format out_fmt,
                                               int w, int h, int ch, rb_sat_scratch *ks, cudaStream_t s,
                                               unsigned delay_ns)
{
    if (ch < 1 || ch > 4 || !rb_cuda_sat_rebuild_fits(shape, in_fmt, h)) return cudaErrorInvalidValue;
    const int th = rb_rb_th(shape, in_fmt, ch), p = ch == 3 ? 6 : 8;
    rb_rb_args a;
    size_t fb = 0;
    rb_rb_layout(w, h, ch, th, (char *)ks->work, &a, &fb);
    a.in = (const unsigned char *)in;
    a.out = (unsigned char *)out;
    a.in_pitch = in_pitch;
    a.out_pitch = out_pitch;
    a.n = (long long)w * ch;
    a.h = h;
    a.delay_ns = delay_ns;
    a.pf_mode = rb_rb_pf(shape, in_fmt);
    a.pf_ahead = 0;
    a.vec_in = ch != 3 && rb_rb_vec(in, in_pitch, (size_t)p * rb_format_size(in_fmt));
    a.vec_out = ch != 3 && rb_rb_vec(out, out_pitch, (size_t)4 * rb_format_size(out_fmt));
    if (a.tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
    cudaError_t e = cudaSuccess;
    /* zeroed only where the flags may hold what this call could take for its own:
     * a new or failed scratch, wrapped epochs, or flags now over bytes that held records */
    if (ks->epoch == 0 || ks->epoch + 1 >= RB_RB_EPOCHS || fb > ks->flag_bytes) {
        ks->epoch = 0; /* until the memset is queued */
        e = cudaMemsetAsync(ks->work, 0, fb, s);
        if (e != cudaSuccess) return e;
        ks->ticket = 0;
    }
    ks->flag_bytes = fb; /* this call's records follow */
    ks->epoch += RB_RB_PLANT_EPOCH || ks->epoch == 0;
    a.tag = ks->epoch << 2;
    a.ticket_base = ks->ticket;
    ks->ticket += (unsigned long long)a.tiles; /* a ticket a block, whatever it computes */
    e = shape.nocarry ? rb_sat_dispatch(rb_rb_launcher<true>{&a, s, th, shape.park}, ch, in_fmt, out_fmt)
                      : rb_sat_dispatch(rb_rb_launcher<false>{&a, s, th, shape.park}, ch, in_fmt, out_fmt);
    if (e == cudaSuccess) e = rb_cuda_launch_check();
    if (e != cudaSuccess) ks->epoch = 0; /* tickets taken and flags set: unknown */
    return e;
}
