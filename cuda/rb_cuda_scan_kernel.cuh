/* The single-pass scan kernel of rb_cuda_scan.cu, shared by the per-order
 * compilation units rb_cuda_scan_k<R>.cu (one order per file, so the build
 * compiles them in parallel). */
#ifndef RB_CUDA_SCAN_KERNEL_CUH
#define RB_CUDA_SCAN_KERNEL_CUH

#include "rb_cuda_scan.cuh"
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

#define RB_SC_THREADS 256
#define RB_SC_ITEMS 16
#define RB_SC_TILE (RB_SC_THREADS * RB_SC_ITEMS)
#define RB_SC_WARPS (RB_SC_THREADS / 32)
/* tables per pass: Lpow[l] = A^(ITEMS*l), Tpow[l] = A^(TILE*l), l = 0..32 */
#define RB_SC_NPOW 33

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
    const float *init;       /* R floats, or NULL = zero state */
    float *fin;              /* the state after the last logical sample, or NULL */
    const float *tab;        /* Lpow then Tpow, R*R floats each */
    int *flags;              /* per tile: 0 nothing, 1 aggregate, 2 inclusive */
    unsigned *ticket;
    float *agg, *inc;        /* per tile R floats */
    float d[RB_MAX_ORDER];
} rb_sc_args;

static __device__ __forceinline__ float rb_sc_xext(const float *x, long long j, int n, int mode,
                                                   float cval)
{
    if (j >= 0 && j < n) return x[j];
    switch (mode) {
    case RB_BOUNDARY_CONSTANT: return cval;
    case RB_BOUNDARY_CLAMP: return x[j < 0 ? 0 : n - 1];
    case RB_BOUNDARY_PERIODIC: {
        long long k = j % n;
        return x[k < 0 ? k + n : k];
    }
    case RB_BOUNDARY_MIRROR: {
        long long p = 2LL * n, k = j % p;
        if (k < 0) k += p;
        return x[k >= n ? p - 1 - k : k];
    }
    default: return 0.0f; /* zero, none */
    }
}

static __device__ __forceinline__ float rb_sc_fetch(const rb_sc_args &a, long long p)
{
    if (a.src == RB_SC_SRC_BUF) return a.buf[p];
    if (a.src == RB_SC_SRC_ZERO) return 0.0f;
    long long j = a.s0 + p;
    if (a.ntaps == 0) return rb_sc_xext(a.x, j, a.n, a.mode, a.cval);
    float acc = 0.0f;
    long long b = j + a.fir_lo;
    if (b >= 0 && b + a.ntaps <= a.n)
        for (int t = 0; t < a.ntaps; ++t) acc += a.fir[t] * a.x[b + t];
    else
        for (int t = 0; t < a.ntaps; ++t) acc += a.fir[t] * rb_sc_xext(a.x, b + t, a.n, a.mode, a.cval);
    return acc;
}

/* out += M v (M row-major R x R) */
template <int R>
static __device__ __forceinline__ void rb_sc_mv(const float *__restrict__ M, const float *v, float *out)
{
#pragma unroll
    for (int i = 0; i < R; ++i) {
        float acc = out[i];
#pragma unroll
        for (int j = 0; j < R; ++j) acc = fmaf(__ldg(M + i * R + j), v[j], acc);
        out[i] = acc;
    }
}

template <int R>
static __device__ __forceinline__ void rb_sc_step(float *s, float &v, const float *d)
{
    float w = v;
#pragma unroll
    for (int k = 0; k < R; ++k) w = fmaf(-d[k], s[k], w);
#pragma unroll
    for (int k = R - 1; k > 0; --k) s[k] = s[k - 1];
    s[0] = w;
    v = w;
}

/* Thread 0: the tile's aggregate, its look-back, and every warp's true initial
 * state (out of line: it runs once per tile, and inlined it multiplies the
 * kernel's compile time) */
template <int R>
static __device__ __noinline__ void rb_sc_tile_carry(const rb_sc_args &a, long long k,
                                                     const float (*s_tot)[R], float (*s_wp)[R],
                                                     const float *Lpow, const float *Tpow)
{
    const float *P32 = Lpow + 32 * R * R; /* A^(ITEMS*32): one warp */
    float agg[R], carry[R];
#pragma unroll
    for (int i = 0; i < R; ++i) agg[i] = 0.0f;
#pragma unroll 1
    for (int ww = 0; ww < RB_SC_WARPS; ++ww) {
        float nx[R];
#pragma unroll
        for (int i = 0; i < R; ++i) nx[i] = s_tot[ww][i];
        rb_sc_mv<R>(P32, agg, nx);
#pragma unroll
        for (int i = 0; i < R; ++i) agg[i] = nx[i];
    }
    volatile int *vf = a.flags;
    if (k == 0) {
#pragma unroll
        for (int i = 0; i < R; ++i) carry[i] = a.init ? a.init[i] : 0.0f;
    } else {
#pragma unroll
        for (int i = 0; i < R; ++i) a.agg[k * R + i] = agg[i];
        __threadfence();
        vf[k] = 1;
        /* look back: carry = agg_{k-1} + A^T agg_{k-2} + ... + A^(qT) inc_{k-1-q} */
#pragma unroll
        for (int i = 0; i < R; ++i) carry[i] = 0.0f;
        long long j = k - 1;
        for (int q = 0;; ++q, --j) {
            int f;
            do {
                f = vf[j];
            } while (f == 0 || (q == 32 && f != 2));
            __threadfence();
            const volatile float *src = (f == 2 ? a.inc : a.agg) + j * R;
            float val[R];
#pragma unroll
            for (int i = 0; i < R; ++i) val[i] = src[i];
            rb_sc_mv<R>(Tpow + q * R * R, val, carry);
            if (f == 2) break;
        }
    }
    {
        float incl[R];
#pragma unroll
        for (int i = 0; i < R; ++i) incl[i] = agg[i];
        rb_sc_mv<R>(Tpow + R * R, carry, incl);
#pragma unroll
        for (int i = 0; i < R; ++i) a.inc[k * R + i] = incl[i];
        __threadfence();
        vf[k] = 2;
    }
    /* each warp's true initial state */
#pragma unroll 1
    for (int ww = 0; ww < RB_SC_WARPS; ++ww) {
        float nx[R];
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

template <int R, bool fwd>
__global__ void __launch_bounds__(RB_SC_THREADS) rb_sc_kernel(const rb_sc_args a)
{
    typedef cub::BlockLoad<float, RB_SC_THREADS, RB_SC_ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> BL;
    typedef cub::BlockStore<float, RB_SC_THREADS, RB_SC_ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> BS;
    __shared__ union {
        typename BL::TempStorage l;
        typename BS::TempStorage s;
    } tmp;
    __shared__ float s_tot[RB_SC_WARPS][R], s_wp[RB_SC_WARPS][R];
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
    const float *Lpow = a.tab, *Tpow = a.tab + RB_SC_NPOW * R * R;
    float d[R];
#pragma unroll
    for (int i = 0; i < R; ++i) d[i] = a.d[i];

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
    float s[R];
#pragma unroll
    for (int i = 0; i < R; ++i) s[i] = 0.0f;
#pragma unroll
    for (int ii = 0; ii < RB_SC_ITEMS; ++ii) {
        float u = v[fwd ? ii : RB_SC_ITEMS - 1 - ii];
        rb_sc_step<R>(s, u, d);
    }
    /* warp inclusive scan in logical lane order: incl_l = sum_{j<=l} A^(ITEMS(l-j)) s_j */
    float inc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) inc[i] = s[i];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        float up[R];
#pragma unroll
        for (int i = 0; i < R; ++i)
            up[i] = fwd ? __shfl_up_sync(0xffffffffu, inc[i], o) : __shfl_down_sync(0xffffffffu, inc[i], o);
        if (llane >= o) rb_sc_mv<R>(Lpow + o * R * R, up, inc);
    }
    float ex[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
        float e = fwd ? __shfl_up_sync(0xffffffffu, inc[i], 1) : __shfl_down_sync(0xffffffffu, inc[i], 1);
        ex[i] = llane == 0 ? 0.0f : e;
    }
    if (llane == 31)
#pragma unroll
        for (int i = 0; i < R; ++i) s_tot[lw][i] = inc[i];
    __syncthreads();

    if (t == 0) rb_sc_tile_carry<R>(a, k, s_tot, s_wp, Lpow, Tpow);
    __syncthreads();

    /* the thread's true initial state, then the recurrence from it */
    {
        float wp[R];
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
            for (int r = 0; r < R; ++r) a.fin[r] = ex[r];
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
