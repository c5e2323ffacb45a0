/* The look-back's device pieces shared by the one-pass SAT kernels
 * (rb_cuda_sat_lookback.cu, rb_cuda_sat_rebuild.cu): flags published by
 * release stores and polled by acquire loads, a window of 32 predecessors
 * polled at once, the test hook's delays, warp scans and the table's stores. */
#ifndef RB_CUDA_SAT_LB_CUH
#define RB_CUDA_SAT_LB_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#define RB_LB_FULL 0xffffffffu

static __device__ __forceinline__ int rb_lb_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Flags hold a call's tag (its epoch times 4, rb_cuda_sat_rebuild.cu; 0 for
 * kernels whose flags are zeroed before each call) plus a state: 1 aggregate,
 * 2 inclusive. A flag of another tag, or state 0, is not yet published: a
 * scratch kept between calls needs no zeroing while its epochs advance. */
static __device__ __forceinline__ bool rb_lb_ready(int f, unsigned tag)
{
    return ((unsigned)f ^ tag) - 1u <= 1u;
}

/* After the warp's lanes stored a record: make it visible, then flag it
 * (tag | 1: aggregate, tag | 2: inclusive). sc (the 2026-11-27 kernel): every lane's
 * sequentially consistent fence (fence.sc.gpu, the costly one), then a plain
 * store; else the warp's barrier (which orders its lanes' stores before lane
 * 0's) and one release store of the flag, cumulative over them (PTX memory
 * model: release patterns). */
static __device__ __forceinline__ void rb_lb_publish(int *flag, int state, int lane, bool sc)
{
    if (sc) {
        __threadfence();
        __syncwarp();
        if (lane == 0) *(volatile int *)flag = state;
        return;
    }
    __syncwarp();
    if (lane == 0) asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(state) : "memory");
}

/* One look-back window: lane q polls predecessor q (flag index base - q * stride)
 * for q < left. Returns how many records to sum, base's first: up to and with
 * the nearest inclusive one (*incl), else all of the window. Lane q's acquire
 * orders its own reads of record q; other threads read the records after a
 * block barrier that follows it (sc: a fence in every lane as well). tag: the
 * call's (rb_lb_ready). */
static __device__ __forceinline__ int rb_lb_window(const int *flags, long long base, long long stride, int left,
                                                   int lane, bool *incl, bool sc, unsigned nap, unsigned tag = 0u)
{
    const bool within = lane < left;
    int f = 0;
    if (within) {
        const int *p = flags + (base - (long long)lane * stride);
        while (!rb_lb_ready(f = rb_lb_acquire(p), tag)) __nanosleep(nap);
    }
    const unsigned m = __ballot_sync(RB_LB_FULL, within && (f & 3) == 2);
    if (sc) __threadfence(); /* the records other lanes' flags announced, for every lane */
    *incl = m != 0;
    return m ? __ffs(m) : (left < 32 ? left : 32);
}

/* The corner of tile k, whose band column has ti tiles above it (tx tiles a
 * tile row): the B records of the tiles above, 32 at a time, each window up to
 * its nearest inclusive record, added into cc and summed over the warp (every
 * lane ends with the total). */
template <int CH>
static __device__ __forceinline__ void rb_lb_corner(const int *bflag, const double *binc, const double *bagg,
                                                    long long k, long long tx, int ti, int lane, bool sc,
                                                    unsigned nap, double cc[CH], unsigned tag = 0u)
{
    long long base = k - tx;
    int left = ti;
    for (;;) {
        bool incl;
        const int d = rb_lb_window(bflag, base, tx, left, lane, &incl, sc, nap, tag);
        if (lane < d) {
            const double *src = (incl && lane == d - 1 ? binc : bagg) + (base - (long long)lane * tx) * CH;
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

template <typename T, int P>
static __device__ __forceinline__ void rb_lb_store(unsigned char *row, long long gx, long long n, bool vec,
                                                   const double *s)
{
    T *r = (T *)row + gx;
    if (P % 4 == 0 && vec && gx + P <= n) {
#pragma unroll
        for (int g = 0; g < P / 4; ++g) {
            const double *q = s + 4 * g;
            if (sizeof(T) == 4) {
                __stcs((float4 *)r + g, make_float4((float)q[0], (float)q[1], (float)q[2], (float)q[3]));
            } else {
                __stcs((double2 *)r + 2 * g, make_double2(q[0], q[1]));
                __stcs((double2 *)r + 2 * g + 1, make_double2(q[2], q[3]));
            }
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

#endif
