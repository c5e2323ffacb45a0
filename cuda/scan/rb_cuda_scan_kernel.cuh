/* The single-pass scan kernel of rb_cuda_scan.cu, shared by the per-order
 * compilation units rb_cuda_scan_k<R>.cu (one order per file, so the build
 * compiles them in parallel). Orders 1-2 keep float states; orders 3-8 recur,
 * scan and carry in double (the samples stay float). */
#ifndef RB_CUDA_SCAN_KERNEL_CUH
#define RB_CUDA_SCAN_KERNEL_CUH

#include "rb_cuda_scan.cuh"
#include "rb_cuda_extend.cuh"
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <type_traits>

#define RB_SC_THREADS 256
#define RB_SC_ITEMS 16
#define RB_SC_TILE (RB_SC_THREADS * RB_SC_ITEMS)
#define RB_SC_WARPS (RB_SC_THREADS / 32)
/* tables per pass: Lpow[l] = A^(ITEMS*l), Tpow[l] = A^(TILE*l), l = 0..32 */
#define RB_SC_NPOW 33
/* Orders from here up recur, scan and carry in double: float states gave up to
 * 1.1e-4 rel RMS for orders 3-8 (H100, test_gpu_1d_sat), orders 1-2 stay below 1e-7 */
#define RB_SC_DOUBLE_FROM 3

enum { RB_SC_SRC_BUF = 0, RB_SC_SRC_X, RB_SC_SRC_ZERO };

typedef struct {
    int dir;                 /* +1 forward (causal), -1 backward (anticausal) */
    long long m, L;          /* domain length; logical samples processed (the first L in dir) */
    int src;                 /* RB_SC_SRC_* */
    const float *buf;        /* SRC_BUF: buf[p] */
    const float *x;          /* SRC_X: x on its extension at j = s0 + p, then the FIR */
    int n, mode, ntaps, fir_lo;
    long long s0;
    float cval;
    const float *fir;
    float *dst;              /* dst[p + dst_off] when in [0, dst_n) */
    long long dst_off, dst_n;
    int add;                 /* add to dst instead of storing */
    const double *init;      /* R doubles, or NULL = zero state */
    double *fin;             /* the state after the last logical sample, or NULL */
    const void *tab;         /* Lpow then Tpow, R*R states each (float or double) */
    /* per tile: the aggregate's and the inclusive state's words. A word holds 32 bits
     * of a state value and, in its high half, the pass's tag (0 = not yet written), so
     * a reader needs no flag and no fence: a value is there when all its words carry
     * the tag (Merrill & Garland 2016 pack status and value the same way).
     * Invariant that makes this order-independent: (1) each word is stored at most
     * once per pass, with its final value, by one aligned 64-bit store, so a word
     * that carries the tag holds that value; (2) the tag is unique to the pass in
     * its run and the words are zeroed (stream-ordered memset) before every run on
     * a scratch buffer no other run uses, so no older word carries it; (3) a state
     * is taken only when all its words carry the tag; (4) an inclusive state is
     * computed only from the tile's own aggregate and states taken under (3), so it
     * is final when stored. How deep a look-back goes (timing) changes only the
     * order of the double sums, not the value. */
    unsigned long long *agg, *inc;
    unsigned *ticket;
    unsigned tag;
    /* test hook ("test:scan_delay_ns", rb_cuda_rec1d_set_delay): when nonzero, each tile
     * sleeps a pseudo-random time below delay_ns/8 before it publishes its aggregate
     * and below delay_ns before its inclusive state, so successors look back over
     * aggregates in orders the normal schedule never produces */
    unsigned delay_ns, delay_seed;
    double d[RB_MAX_ORDER];
} rb_sc_args;
static __device__ __forceinline__ float rb_sc_fetch(const rb_sc_args &a, long long p)
{
    if (a.src == RB_SC_SRC_BUF) return a.buf[p];
    if (a.src == RB_SC_SRC_ZERO) return 0.0f;
    long long j = a.s0 + p;
    if (a.ntaps == 0) return rb_ext_sample(a.x, 1, j, a.n, a.mode, a.cval);
    float acc = 0.0f;
    long long b = j + a.fir_lo;
    if (b >= 0 && b + a.ntaps <= a.n)
        for (int t = 0; t < a.ntaps; ++t) acc += a.fir[t] * a.x[b + t];
    else
        for (int t = 0; t < a.ntaps; ++t) acc += a.fir[t] * rb_ext_sample(a.x, 1, b + t, a.n, a.mode, a.cval);
    return acc;
}

/* The state type of order R: float up to order 2, double above (RB_SC_DOUBLE_FROM). */
template <int R>
using rb_sc_S = typename std::conditional<(R >= RB_SC_DOUBLE_FROM), double, float>::type;

/* A state value as tagged 64-bit words (see rb_sc_args.agg): float in one word,
 * double in two (low half, high half), each valid on its own. */
static __device__ __forceinline__ void rb_sc_put(unsigned long long *w, float v, unsigned tag)
{
    *(volatile unsigned long long *)w = ((unsigned long long)tag << 32) | __float_as_uint(v);
}
static __device__ __forceinline__ void rb_sc_put(unsigned long long *w, double v, unsigned tag)
{
    volatile unsigned long long *vw = w;
    const unsigned long long b = (unsigned long long)__double_as_longlong(v), t = (unsigned long long)tag << 32;
    vw[0] = t | (b & 0xffffffffull);
    vw[1] = t | (b >> 32);
}
static __device__ __forceinline__ bool rb_sc_get(const unsigned long long *w, float &v, unsigned tag)
{
    const unsigned long long x = *(const volatile unsigned long long *)w;
    v = __uint_as_float((unsigned)x);
    return (unsigned)(x >> 32) == tag;
}
static __device__ __forceinline__ bool rb_sc_get(const unsigned long long *w, double &v, unsigned tag)
{
    const volatile unsigned long long *vw = w;
    const unsigned long long lo = vw[0], hi = vw[1];
    v = __longlong_as_double((long long)((hi << 32) | (lo & 0xffffffffull)));
    return (unsigned)(lo >> 32) == tag && (unsigned)(hi >> 32) == tag;
}

/* the test knob's sleep: a hash of (tile, pass, run, which) below max_ns */
static __device__ __forceinline__ void rb_sc_delay(const rb_sc_args &a, long long k, unsigned which,
                                                   unsigned max_ns)
{
    if (!max_ns) return;
    unsigned h = (unsigned)k * 0x9E3779B1u ^ (a.tag * 0x85EBCA77u) ^ (a.delay_seed * 0xC2B2AE3Du) ^ which;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    unsigned ns = h % max_ns;
    /* __nanosleep takes at most ~1 ms per call */
    for (; ns > 500000u; ns -= 500000u) __nanosleep(500000u);
    __nanosleep(ns);
}

/* out += M v (M row-major R x R) */
template <int R, typename S>
static __device__ __forceinline__ void rb_sc_mv(const S *__restrict__ M, const S *v, S *out)
{
#pragma unroll
    for (int i = 0; i < R; ++i) {
        S acc = out[i];
#pragma unroll
        for (int j = 0; j < R; ++j) acc = fma(__ldg(M + i * R + j), v[j], acc);
        out[i] = acc;
    }
}

/* one sample of the recurrence, the state in S, the sample in float */
template <int R, typename S>
static __device__ __forceinline__ void rb_sc_step(S *s, float &v, const S *d)
{
    S w = (S)v;
#pragma unroll
    for (int k = 0; k < R; ++k) w = fma(-d[k], s[k], w);
#pragma unroll
    for (int k = R - 1; k > 0; --k) s[k] = s[k - 1];
    s[0] = w;
    v = (float)w;
}

/* Warp 0: the tile's aggregate, its look-back, and every warp's true initial
 * state. The look-back reads 32 predecessors at once (lane q: tile k-1-q), and
 * sums A^(qT) v_q up to the nearest one whose inclusive state is there, by
 * shuffles; with none among the 32 it goes on 32 further back (PLR phase 2,
 * Maleki et al. 2018; CUB's warp-wide look-back). Out of line: it runs once per
 * tile, and inlined it multiplies the kernel's compile time. */
template <int R, typename S>
static __device__ __noinline__ void rb_sc_tile_carry(const rb_sc_args &a, long long k,
                                                     const S (*s_tot)[R], S (*s_wp)[R],
                                                     const S *Lpow, const S *Tpow)
{
    constexpr int W = sizeof(S) / 4;
    const int lane = threadIdx.x & 31;
    const S *P32 = Lpow + 32 * R * R; /* A^(ITEMS*32): one warp */
    S agg[R], carry[R];
#pragma unroll
    for (int i = 0; i < R; ++i) agg[i] = 0;
#pragma unroll 1
    for (int ww = 0; ww < RB_SC_WARPS; ++ww) {
        S nx[R];
#pragma unroll
        for (int i = 0; i < R; ++i) nx[i] = s_tot[ww][i];
        rb_sc_mv<R>(P32, agg, nx);
#pragma unroll
        for (int i = 0; i < R; ++i) agg[i] = nx[i];
    }
    if (k == 0) {
#pragma unroll
        for (int i = 0; i < R; ++i) carry[i] = a.init ? (S)a.init[i] : (S)0;
    } else {
        if (lane == 0) {
            if (a.delay_ns) rb_sc_delay(a, k, 1u, a.delay_ns / 8 + 1);
#pragma unroll
            for (int i = 0; i < R; ++i) rb_sc_put(a.agg + (k * R + i) * W, agg[i], a.tag);
        }
        /* carry = sum_q A^(qT) v_{k-1-q}: v the aggregates up to the first inclusive state */
        S M[R * R]; /* A^(32 T w) for window w */
#pragma unroll
        for (int i = 0; i < R; ++i) {
            carry[i] = 0;
#pragma unroll
            for (int j = 0; j < R; ++j) M[i * R + j] = i == j ? (S)1 : (S)0;
        }
#pragma unroll 1
        for (long long base = k - 1;; base -= 32) {
            const long long j = base - lane;
            S v[R];
            bool incl = true;
            if (j < 0) {
#pragma unroll
                for (int i = 0; i < R; ++i) v[i] = 0;
            } else {
                for (;;) {
                    bool ok = true;
#pragma unroll
                    for (int i = 0; i < R; ++i) ok &= rb_sc_get(a.inc + (j * R + i) * W, v[i], a.tag);
                    if (ok) break;
                    ok = true;
#pragma unroll
                    for (int i = 0; i < R; ++i) ok &= rb_sc_get(a.agg + (j * R + i) * W, v[i], a.tag);
                    if (ok) {
                        incl = false;
                        break;
                    }
                }
            }
            const unsigned im = __ballot_sync(0xffffffffu, incl);
            const int stop = im ? __ffs(im) - 1 : 31;
            S c[R];
#pragma unroll
            for (int i = 0; i < R; ++i) c[i] = 0;
            if (lane <= stop) rb_sc_mv<R>(Tpow + lane * R * R, v, c);
#pragma unroll
            for (int i = 0; i < R; ++i)
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) c[i] += __shfl_xor_sync(0xffffffffu, c[i], o);
            {
                /* carry += M c */
#pragma unroll
                for (int i = 0; i < R; ++i) {
                    S acc = carry[i];
#pragma unroll
                    for (int jj = 0; jj < R; ++jj) acc = fma(M[i * R + jj], c[jj], acc);
                    carry[i] = acc;
                }
            }
            if (im) break;
            S nm[R * R];
            const S *T32 = Tpow + 32 * R * R;
#pragma unroll
            for (int i = 0; i < R; ++i)
#pragma unroll
                for (int jj = 0; jj < R; ++jj) {
                    S acc = 0;
#pragma unroll
                    for (int q = 0; q < R; ++q) acc = fma(M[i * R + q], __ldg(T32 + q * R + jj), acc);
                    nm[i * R + jj] = acc;
                }
#pragma unroll
            for (int i = 0; i < R * R; ++i) M[i] = nm[i];
        }
    }
    if (lane != 0) return;
    if (a.delay_ns) rb_sc_delay(a, k, 2u, a.delay_ns);
    {
        S incl[R];
#pragma unroll
        for (int i = 0; i < R; ++i) incl[i] = agg[i];
        rb_sc_mv<R>(Tpow + R * R, carry, incl);
#pragma unroll
        for (int i = 0; i < R; ++i) rb_sc_put(a.inc + (k * R + i) * W, incl[i], a.tag);
    }
    /* each warp's true initial state */
#pragma unroll 1
    for (int ww = 0; ww < RB_SC_WARPS; ++ww) {
        S nx[R];
#pragma unroll
        for (int i = 0; i < R; ++i) {
            s_wp[ww][i] = carry[i];
            nx[i] = s_tot[ww][i];
        }
        rb_sc_mv<R>(P32, carry, nx);
#pragma unroll
        for (int i = 0; i < R; ++i) carry[i] = nx[i];
    }
}

/* __grid_constant__: rb_sc_tile_carry takes the parameters by reference, which
 * would otherwise copy them to every thread's stack */
template <int R, bool fwd>
__global__ void __launch_bounds__(RB_SC_THREADS) rb_sc_kernel(const __grid_constant__ rb_sc_args a)
{
    typedef rb_sc_S<R> S;
    typedef cub::BlockLoad<float, RB_SC_THREADS, RB_SC_ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> BL;
    typedef cub::BlockStore<float, RB_SC_THREADS, RB_SC_ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> BS;
    __shared__ union {
        typename BL::TempStorage l;
        typename BS::TempStorage s;
    } tmp;
    __shared__ S s_tot[RB_SC_WARPS][R], s_wp[RB_SC_WARPS][R];
    __shared__ long long s_tile;
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    const int lt = fwd ? t : RB_SC_THREADS - 1 - t;
    const int llane = fwd ? lane : 31 - lane;
    const int lw = fwd ? w : RB_SC_WARPS - 1 - w;
    if (t == 0) s_tile = (long long)atomicAdd(a.ticket, 1u);
    __syncthreads();
    const long long k = s_tile, T = RB_SC_TILE;
    const long long mb = fwd ? k * T : a.m - k * T - T;      /* first position of the tile */
    const long long lo = fwd ? 0 : a.m - a.L, hi = fwd ? a.L : a.m;
    const bool full = mb >= lo && mb + T <= hi;
    const S *Lpow = (const S *)a.tab, *Tpow = Lpow + RB_SC_NPOW * R * R;
    S d[R];
#pragma unroll
    for (int i = 0; i < R; ++i) d[i] = (S)a.d[i];

    float v[RB_SC_ITEMS];
    if (full && a.src == RB_SC_SRC_BUF) {
        BL(tmp.l).Load(a.buf + mb, v);
    } else if (full && a.src == RB_SC_SRC_X && a.ntaps == 0 && mb + a.s0 >= 0 && mb + a.s0 + T <= a.n) {
        BL(tmp.l).Load(a.x + a.s0 + mb, v);
    } else {
#pragma unroll
        for (int i = 0; i < RB_SC_ITEMS; ++i) {
            long long p = mb + (long long)t * RB_SC_ITEMS + i;
            v[i] = (p >= lo && p < hi) ? rb_sc_fetch(a, p) : 0.0f;
        }
    }

    /* the thread's zero-initialised end state */
    S s[R];
#pragma unroll
    for (int i = 0; i < R; ++i) s[i] = 0;
#pragma unroll
    for (int ii = 0; ii < RB_SC_ITEMS; ++ii) {
        float u = v[fwd ? ii : RB_SC_ITEMS - 1 - ii];
        rb_sc_step<R>(s, u, d);
    }
    /* warp inclusive scan in logical lane order: incl_l = sum_{j<=l} A^(ITEMS(l-j)) s_j */
    S inc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) inc[i] = s[i];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        S up[R];
#pragma unroll
        for (int i = 0; i < R; ++i)
            up[i] = fwd ? __shfl_up_sync(0xffffffffu, inc[i], o) : __shfl_down_sync(0xffffffffu, inc[i], o);
        if (llane >= o) rb_sc_mv<R>(Lpow + o * R * R, up, inc);
    }
    S ex[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
        S e = fwd ? __shfl_up_sync(0xffffffffu, inc[i], 1) : __shfl_down_sync(0xffffffffu, inc[i], 1);
        ex[i] = llane == 0 ? (S)0 : e;
    }
    if (llane == 31)
#pragma unroll
        for (int i = 0; i < R; ++i) s_tot[lw][i] = inc[i];
    __syncthreads();

    if (w == 0) rb_sc_tile_carry<R, S>(a, k, s_tot, s_wp, Lpow, Tpow);
    __syncthreads();

    /* the thread's true initial state, then the recurrence from it */
    {
        S wp[R];
#pragma unroll
        for (int i = 0; i < R; ++i) wp[i] = s_wp[lw][i];
        rb_sc_mv<R>(Lpow + llane * R * R, wp, ex);
    }
    const long long q0 = k * T + (long long)lt * RB_SC_ITEMS;
#pragma unroll
    for (int ii = 0; ii < RB_SC_ITEMS; ++ii) {
        const int i = fwd ? ii : RB_SC_ITEMS - 1 - ii;
        rb_sc_step<R>(ex, v[i], d);
        if (a.fin && q0 + ii == a.L - 1)
#pragma unroll
            for (int r = 0; r < R; ++r) a.fin[r] = (double)ex[r];
    }

    const long long j0 = mb + a.dst_off;
    if (full && !a.add && j0 >= 0 && j0 + T <= a.dst_n) {
        BS(tmp.s).Store(a.dst + j0, v);
    } else {
#pragma unroll
        for (int i = 0; i < RB_SC_ITEMS; ++i) {
            long long p = mb + (long long)t * RB_SC_ITEMS + i, j = p + a.dst_off;
            if (p >= lo && p < hi && j >= 0 && j < a.dst_n) {
                if (a.add) a.dst[j] += v[i];
                else a.dst[j] = v[i];
            }
        }
    }
}

template <int R>
cudaError_t rb_sc_launch_order(const rb_sc_args &a, unsigned grid, cudaStream_t s)
{
    if (a.dir > 0) rb_sc_kernel<R, true><<<grid, RB_SC_THREADS, 0, s>>>(a);
    else rb_sc_kernel<R, false><<<grid, RB_SC_THREADS, 0, s>>>(a);
    return cudaSuccess;
}
cudaError_t rb_sc_launch_1(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_2(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_3(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_4(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_5(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_6(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_7(const rb_sc_args &a, unsigned grid, cudaStream_t s);
cudaError_t rb_sc_launch_8(const rb_sc_args &a, unsigned grid, cudaStream_t s);

#endif
