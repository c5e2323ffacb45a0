/* The tiled solver's launches, as templates over the order R: included by
 * the per-order translation units that CMake generates from
 * rb_tiled_order.cu.in (one per R, so the 216 kernels compile in parallel),
 * which instantiate the three entries of rb_tiled_orders.h. */
#ifndef RB_TILED_LAUNCH_CUH
#define RB_TILED_LAUNCH_CUH
#include "rb_tiled_orders.h"
#include "rb_tiled_cols.cuh"
#include "rb_tiled_rows.cuh"
#include "rb_tiled_cols_rows.cuh"
#include "rb_tiled_final_both.cuh"
#include "rb_tiled_cross.cuh"
#include <atomic>
#include <type_traits>

template <int R, typename CT>
__global__ void __launch_bounds__(32)
rb_tiled_chain_k(const rb_cuda_tiled f, const float *__restrict__ in, CT *__restrict__ car1,
              CT *__restrict__ car2, const float *__restrict__ sums, float *__restrict__ mean,
              size_t lanes)
{
    size_t lane = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    rb_tiled_chain<R, CT>(f, in, car1, car2, sums, mean, lanes, lane);
}

/* the split chain (rb_tiled_chain.cuh): a lane's state over TPL threads of one
 * warp; the warp's live threads are a prefix of it (whole groups), the
 * shuffles' mask */
template <int R, typename CT>
__global__ void __launch_bounds__(32)
rb_tiled_chain_split_k(const rb_cuda_tiled f, const float *__restrict__ in, CT *__restrict__ car1,
                       CT *__restrict__ car2, const float *__restrict__ sums, float *__restrict__ mean, size_t lanes)
{
    constexpr int TPL = RB_TILED_TPL(R);
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= lanes * TPL) return;
    const size_t live = lanes * TPL - (size_t)blockIdx.x * blockDim.x;
    const rb_tiled_lg g = {lanes, tid / TPL, (int)(threadIdx.x % TPL), live >= 32 ? ~0u : (1u << live) - 1u};
    rb_tiled_chain_split<R, CT, TPL, 1>(f, in, car1, car2, sums, mean, g);
}

/* The parallel chain (rb_tiled_chain.cuh, phases 0-5): a thread block holds
 * 32 lanes x RB_TILED_NG groups; threadIdx.x is the lane (coalesced carries),
 * threadIdx.y the group; the group states meet in shared memory. MIR: an
 * instance of its own for mirror lines closed by (67)/(72): its p_1(Zhat)
 * walk took the one kernel from 62 to 78 registers at order 1 and spilled at
 * order 5, so the other boundaries keep their kernels. Order 1 is held to 64
 * registers, two thread blocks an SM: the build's order-1 unit gave even the
 * plain instance 80 (one block an SM; its chains 1.2-1.4x slower on the H100,
 * bench/RESULTS.md, helper mirror3), 64 spill nothing there. cap: the
 * blocks of each group whose carries stay in the dynamic shared memory
 * (rb_tiled_pcc; rb_tiled_pcc_plan sizes it). */
template <int R, typename CT, bool MIR = false>
__global__ void __launch_bounds__(32 * RB_TILED_NG, R == 1 ? 2 : 1)
rb_tiled_pchain_k(const rb_cuda_tiled f, const rb_tiled_grp gp, const float *__restrict__ in, CT *__restrict__ car1,
               CT *__restrict__ car2, const float *__restrict__ sums, float *__restrict__ mean, size_t lanes, int cap)
{
    __shared__ double sh[RB_TILED_NG * R * 32];
    __shared__ double se[R * 32];
    __shared__ double sm[RB_TILED_NG * 32];
    extern __shared__ __align__(16) unsigned char rb_tiled_pcc_sm[];
    const int l = threadIdx.x, g = threadIdx.y;
    const size_t lane = (size_t)blockIdx.x * 32 + l;
    const bool ok = lane < lanes;
    /* thread (l, g)'s entries a block's width apart: a warp's 32 lanes hit 32 banks */
    const rb_tiled_pcc<CT> c = {(CT *)rb_tiled_pcc_sm + g * 32 + l, 32 * RB_TILED_NG, cap};
    double mu = 0.0, v[R];
    if (f.b.ax.shift) {
        if (ok) sm[g * 32 + l] = rb_tiled_pc_sum(f, gp, g, sums, lanes, lane);
        __syncthreads();
        if (g == 0 && ok) {
            double s = 0.0;
            for (int q = 0; q < RB_TILED_NG; ++q) s += sm[q * 32 + l];
            const float mf = (float)(s / f.b.ax.n);
            mean[lane] = mf;
            se[l] = (double)mf * f.sumfird;
        }
        __syncthreads();
        mu = se[l];
        __syncthreads(); /* se is reused below */
    } else if (g == 0 && ok) {
        mean[lane] = 0.0f;
    }
    if (ok) {
        rb_tiled_pc_zero_c<R, CT, !MIR>(f, gp, g, car1, car2, c, mu, lanes, lane, v);
#pragma unroll
        for (int k = 0; k < R; ++k) sh[(g * R + k) * 32 + l] = v[k];
    }
    __syncthreads();
    if (g == 0 && ok) rb_tiled_pc_combine_c<R, CT, MIR>(f, gp, in, lane, mu, sh + l, 32, se + l, 32, car1, car2, lanes);
    __syncthreads();
    if (ok) {
        double S0[R];
#pragma unroll
        for (int k = 0; k < R; ++k) S0[k] = sh[(g * R + k) * 32 + l];
        rb_tiled_pc_run_c<R, CT, !MIR>(f, gp, g, car1, car2, c, mu, lanes, lane, S0, v);
#pragma unroll
        for (int k = 0; k < R; ++k) sh[(g * R + k) * 32 + l] = v[k];
    }
    __syncthreads();
    if (g == 0 && ok) rb_tiled_pc_combine_a<R>(f, gp, sh + l, 32, se + l, 32);
    __syncthreads();
    if (ok) {
#pragma unroll
        for (int k = 0; k < R; ++k) v[k] = sh[(g * R + k) * 32 + l];
        rb_tiled_pc_run_a<R, CT, !MIR>(f, gp, g, car2, c, lanes, lane, v);
    }
}


/* the carry arrays of one axis inside its scratch: car1, car2 ([blk][k][lane]), sums, mean */
template <typename CT>
struct rb_tiled_bufs {
    CT *car1, *car2;
    float *sums, *mean;
    rb_tiled_bufs(const rb_cuda_tiled *f, float *carry, size_t lanes, int R)
    {
        const int nb = f->b.nb;
        car1 = (CT *)carry;
        car2 = car1 + (size_t)nb * R * lanes;
        sums = (float *)(car2 + (size_t)nb * R * lanes);
        mean = sums + (size_t)nb * lanes;
    }
};

/* the shape of a stage-1 or final launch: n2 lane groups (columns) or row
 * tiles (rows) times nb blocks, bs threads a block */
struct rb_tiled_geom {
    unsigned grid, n2;
    int bs;
};

/* grid 0 if it does not fit */
static rb_tiled_geom rb_tiled_grid(const rb_cuda_tiled *f, size_t lanes)
{
    rb_tiled_geom g;
    if (f->rows) {
        g.n2 = (unsigned)((lanes / f->c + RB_TILED_TR(f->c) - 1) / RB_TILED_TR(f->c));
        g.bs = RB_TILED_TR(f->c) * f->c;
    } else {
        g.n2 = (unsigned)((lanes + RB_TILED_COL_THREADS - 1) / RB_TILED_COL_THREADS);
        g.bs = RB_TILED_COL_THREADS;
    }
    unsigned long long grid = (unsigned long long)g.n2 * f->b.nb;
    g.grid = grid > 0x7fffffffull || g.n2 == 0 ? 0 : (unsigned)grid;
    return g;
}

/* RGB and RGBA rows get their own instantiations (channel count known at
 * compile time, as c = 1) for float carries with float recursion and for
 * double carries with double recursion (the Gaussian's: with the run-time
 * count its RGBA row stages took 1.3x (stage 1) and 1.3x (final) the time of
 * four one-channel images, bench/RESULTS.md; RGB, the usual 8-bit image, took
 * the run-time count until the round-trip work of issue 17); float carries
 * with double recursion keep the run-time count (fewer kernels to compile) */
template <typename CT, typename IT>
static constexpr bool rb_tiled_fixed_c()
{
    return std::is_same<CT, IT>::value;
}

/* The dynamic shared memory rb_tiled_pchain_k<R, CT, MIR> may take for its
 * groups' carries (rb_tiled_pcc) on the current device, the attribute set: as
 * much as leaves the kernel's blocks per SM as they are without it (order 1's
 * two: its chains' speed, rb_tiled_pchain_k), once a device and instance (past
 * 32 devices, every call). 0 where the device refuses it: the loads from car1
 * and car2, as before. */
template <int R, typename CT, bool MIR>
static int rb_tiled_pcc_budget()
{
    static std::atomic<int> known[32]; /* budget + 1; 0: not yet */
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    int v = dev < 32 ? known[dev].load(std::memory_order_acquire) : 0;
    if (v) return v - 1;
    auto k = rb_tiled_pchain_k<R, CT, MIR>;
    const int threads = 32 * RB_TILED_NG;
    cudaFuncAttributes fa;
    int optin = 0, per_sm = 0, reserved = 0, n0 = 0, n = 0, want = 0;
    if (cudaFuncGetAttributes(&fa, k) == cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) == cudaSuccess &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n0, k, threads, 0) == cudaSuccess && n0 > 0) {
        want = per_sm / n0 - reserved - (int)fa.sharedSizeBytes;
        if (want > optin - (int)fa.sharedSizeBytes) want = optin - (int)fa.sharedSizeBytes;
        want &= ~1023;
        /* shared memory first: the chain streams its carries, L1 serves no reuse */
        if (want > 0 && (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, want) != cudaSuccess ||
                         cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                              cudaSharedmemCarveoutMaxShared) != cudaSuccess ||
                         cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, want) != cudaSuccess || n < n0))
            want = 0;
    }
    (void)cudaGetLastError(); /* a refusal is no error of the filter's: it runs without the cache */
    if (want < 0) want = 0;
    if (dev < 32) known[dev].store(want + 1, std::memory_order_release);
    return want;
}

/* the cached blocks a group (rb_tiled_pcc): all of them where the budget
 * holds them; bytes: the kernel's dynamic shared memory */
template <int R, typename CT, bool MIR>
static int rb_tiled_pcc_plan(const rb_tiled_grp &gp, size_t *bytes)
{
    if constexpr (MIR) { /* the mirror instance keeps main's loads (rb_tiled_pc_zero_c's CACHE) */
        *bytes = 0;
        return 0;
    }
    const size_t per_block = (size_t)2 * R * sizeof(CT) * 32 * RB_TILED_NG;
    size_t cap = (size_t)rb_tiled_pcc_budget<R, CT, MIR>() / per_block;
    if (cap > (size_t)gp.nbg) cap = (size_t)gp.nbg;
    *bytes = cap * per_block;
    return (int)cap;
}

template <int R, typename CT, bool MIR>
static void rb_tiled_pchain_launch(const rb_cuda_tiled *f, const float *in, const rb_tiled_bufs<CT> &m, size_t lanes,
                                   cudaStream_t s)
{
    rb_tiled_grp gp;
    rb_tiled_grp_init(f, &gp);
    size_t bytes;
    const int cap = rb_tiled_pcc_plan<R, CT, MIR>(gp, &bytes);
    rb_tiled_pchain_k<R, CT, MIR><<<(unsigned)((lanes + 31) / 32), dim3(32, RB_TILED_NG), bytes, s>>>(
        *f, gp, in, m.car1, m.car2, m.sums, m.mean, lanes, cap);
}

template <int R, typename CT>
static void rb_tiled_chain_launch(const rb_cuda_tiled *f, const float *in, const rb_tiled_bufs<CT> &m, size_t lanes,
                               cudaStream_t s)
{
    if (f->split_chain) { /* the plan's choice, not this launch's lanes (rb_cuda_tiled_plan_chain) */
        rb_tiled_chain_split_k<R, CT><<<(unsigned)((lanes * RB_TILED_TPL(R) + 31) / 32), 32, 0, s>>>(
            *f, in, m.car1, m.car2, m.sums, m.mean, lanes);
    } else if (f->dbl || f->seq_chain) {
        rb_tiled_chain_k<R, CT><<<(unsigned)((lanes + 31) / 32), 32, 0, s>>>(*f, in, m.car1, m.car2, m.sums, m.mean,
                                                                          lanes);
    } else if (f->b.mirror_closed) {
        rb_tiled_pchain_launch<R, CT, true>(f, in, m, lanes, s);
    } else {
        rb_tiled_pchain_launch<R, CT, false>(f, in, m, lanes, s);
    }
}

/* the row kernels' dynamic shared memory: the tile, wider for a FIR that
 * in-line blocks take from it (rb_tiled_fir_tiled) */
static size_t rb_tiled_row_smem(const rb_cuda_tiled *f)
{
    const int nt = f->b.ax.ntaps;
    return sizeof(float) * (f->fir_tile && nt > 0 && nt <= RB_TILED_HALO + 1 ? RB_TILED_SM_FLOATS_FIR : RB_TILED_SM_FLOATS);
}

/* the row stage 1 over the row tiles of g (g.grid: their blocks but the
 * nskip from skip0, which the fused route made) */
template <int R, typename CT, typename IT, bool MF = false>
static void rb_tiled_s1_rows_launch(const rb_cuda_tiled *f, const float *in, const rb_tiled_bufs<CT> &m, size_t lanes,
                                 const rb_tiled_geom &g, int skip0, int nskip, cudaStream_t s)
{
    if constexpr (!MF && std::is_same<IT, double>::value)
        if (rb_tiled_mirror_fir_axis<IT>(f->b.ax)) return rb_tiled_s1_rows_launch<R, CT, IT, true>(f, in, m, lanes, g, skip0, nskip, s);
    constexpr bool fc = rb_tiled_fixed_c<CT, IT>();
    if (f->c == 1)
        rb_tiled_s1_rows<R, CT, IT, 1, MF><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, m.car1, m.car2, m.sums, lanes, g.n2, skip0, nskip);
    else if (f->c == 3 && fc)
        rb_tiled_s1_rows<R, CT, IT, fc ? 3 : 0, MF><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, m.car1, m.car2, m.sums,
                                                                                     lanes, g.n2, skip0, nskip);
    else if (f->c == 4 && fc)
        rb_tiled_s1_rows<R, CT, IT, fc ? 4 : 0, MF><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, m.car1, m.car2, m.sums,
                                                                                     lanes, g.n2, skip0, nskip);
    else
        rb_tiled_s1_rows<R, CT, IT, 0, MF><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, m.car1, m.car2, m.sums, lanes, g.n2, skip0, nskip);
}

template <int R, typename CT, typename IT>
static void rb_tiled_final_launch(const rb_cuda_tiled *f, const float *in, float *out, const rb_tiled_bufs<CT> &m,
                               size_t lanes, const rb_tiled_geom &g, cudaStream_t s)
{
    constexpr bool fc = rb_tiled_fixed_c<CT, IT>();
    if (f->rows && f->c == 1)
        rb_tiled_final_rows<R, CT, IT, 1><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, out, m.car1, m.car2, m.mean, lanes, g.n2);
    else if (f->rows && f->c == 3 && fc)
        rb_tiled_final_rows<R, CT, IT, fc ? 3 : 0><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, out, m.car1, m.car2,
                                                                                        m.mean, lanes, g.n2);
    else if (f->rows && f->c == 4 && fc)
        rb_tiled_final_rows<R, CT, IT, fc ? 4 : 0><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, out, m.car1, m.car2,
                                                                                        m.mean, lanes, g.n2);
    else if (f->rows)
        rb_tiled_final_rows<R, CT, IT, 0><<<g.grid, g.bs, rb_tiled_row_smem(f), s>>>(*f, in, out, m.car1, m.car2, m.mean, lanes, g.n2);
    else rb_tiled_final_cols<R, CT, IT><<<g.grid, g.bs, 0, s>>>(*f, in, out, m.car1, m.car2, m.mean, lanes, g.n2);
}

/* the chain and the final stage of an axis whose stage 1 has run (events 0,
 * 1, 2 after stage 1, chain, final when profiling) */
template <int R, typename CT, typename IT>
static cudaError_t rb_tiled_chain_final(const rb_cuda_tiled *f, const float *in, float *out, const rb_tiled_bufs<CT> &m,
                                     size_t lanes, const rb_tiled_geom &g, cudaStream_t s, cudaEvent_t *ev)
{
    if (ev) cudaEventRecord(ev[0], s);
    rb_tiled_chain_launch<R, CT>(f, in, m, lanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    rb_tiled_final_launch<R, CT, IT>(f, in, out, m, lanes, g, s);
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

template <int R, typename CT, typename IT>
static cudaError_t rb_tiled_launch(const rb_cuda_tiled *f, const float *in, float *out, float *carry,
                                size_t lanes, cudaStream_t s, cudaEvent_t *ev)
{
    const rb_tiled_geom g = rb_tiled_grid(f, lanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    const rb_tiled_bufs<CT> m(f, carry, lanes, R);
    constexpr bool dbl = std::is_same<IT, double>::value; /* no MF instance for float recursions */
    if (f->rows) rb_tiled_s1_rows_launch<R, CT, IT>(f, in, m, lanes, g, 0, 0, s);
    else if (rb_tiled_mirror_fir_axis<IT>(f->b.ax))
        rb_tiled_s1_cols<R, CT, IT, dbl><<<g.grid, g.bs, 0, s>>>(*f, in, m.car1, m.car2, m.sums, lanes, g.n2);
    else rb_tiled_s1_cols<R, CT, IT><<<g.grid, g.bs, 0, s>>>(*f, in, m.car1, m.car2, m.sums, lanes, g.n2);
    return rb_tiled_chain_final<R, CT, IT>(f, in, out, m, lanes, g, s, ev);
}

template <int R>
cudaError_t rb_tiled_launch_ct(const rb_cuda_tiled *f, const float *in, float *out, float *carry,
                                   size_t lanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (f->dbl) return rb_tiled_launch<R, double, double>(f, in, out, carry, lanes, s, ev);
    return f->fin ? rb_tiled_launch<R, float, float>(f, in, out, carry, lanes, s, ev)
                  : rb_tiled_launch<R, float, double>(f, in, out, carry, lanes, s, ev);
}

/* the fused route for rows with a FIR (rb_tiled_final_cols_s1_fir): CT float
 * or double, the recursion in the same type */
/* The pixels of the column output that the FIR rows' route of
 * rb_tiled_final_both_fir reads (the fused kernel writes only these, x < *wlo
 * or x >= *whi): the edge blocks' (those the fused kernels leave: their
 * stage 1 and final read the column output) FIR reach inside the line, and
 * where their extension samples come from: clamp's pixel 0 and n - 1 (the
 * row chain's closed forms read them too), mirror's reflections and
 * periodic's wrap of the reach beyond either end. */
static void rb_tiled_fir_edge_window(const rb_cuda_tiled *fr, const rb_tiled_fir_span &sp, int *wlo, int *whi)
{
    const rb_cuda_axis &ra = fr->b.ax;
    const long long n = ra.n;
    const long long lo_in = (long long)sp.d0 + (long long)B * sp.qlo + ra.fir_lo + ra.ntaps - 1,
                    hi_in = (long long)sp.d0 + (long long)B * sp.qhi + ra.fir_lo;
    long long dl = -((long long)ra.s0 + ra.fir_lo), dr = (long long)ra.s0 + ra.m + ra.fir_lo + ra.ntaps - 1 - n;
    if (dl < 0) dl = 0;
    if (dr < 0) dr = 0;
    long long lo = 1, hi = n - 1;
    const long long los[3] = {lo_in, dl, dr}, his[3] = {hi_in, n - dl, n - dr};
    for (int i = 0; i < 3; ++i) {
        if (los[i] > lo) lo = los[i];
        if (his[i] < hi) hi = his[i];
    }
    if (lo > n) lo = n;
    *wlo = (int)lo;
    *whi = (int)(hi > lo ? hi : lo);
}

/* nowrite: the route of rb_tiled_final_both_fir (the column output only
 * where rb_tiled_fir_edge_window says), else the fused route (all of it) */
template <int R, typename CT>
static cudaError_t rb_tiled_launch_cols_s1_fir(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                               float *mid, float *ccarry, float *rcarry, size_t lanes,
                                               size_t rlanes, cudaStream_t s, cudaEvent_t *ev, int nowrite)
{
    const rb_tiled_geom g = rb_tiled_grid(fc, lanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    const rb_tiled_bufs<CT> m(fc, ccarry, lanes, R), rm(fr, rcarry, rlanes, R);
    const rb_tiled_fir_span sp = rb_tiled_fir_span_of(*fr);
    constexpr bool dbl = std::is_same<CT, double>::value; /* no MF instance for float recursions */
    if (rb_tiled_mirror_fir_axis<CT>(fc->b.ax))
        rb_tiled_s1_cols<R, CT, CT, dbl><<<g.grid, g.bs, 0, s>>>(*fc, in, m.car1, m.car2, m.sums, lanes, g.n2);
    else rb_tiled_s1_cols<R, CT, CT><<<g.grid, g.bs, 0, s>>>(*fc, in, m.car1, m.car2, m.sums, lanes, g.n2);
    if (ev) cudaEventRecord(ev[0], s);
    rb_tiled_chain_launch<R, CT>(fc, in, m, lanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    const int bs = RB_TILED_COL_THREADS + B;
    int wlo = 0, whi = 0;
    if (nowrite) rb_tiled_fir_edge_window(fr, sp, &wlo, &whi);
#define RB_TILED_F1(CC, WIN)                                                                                 \
    rb_tiled_final_cols_s1_fir<R, CT, CC, WIN><<<g.grid, bs, 0, s>>>(*fc, *fr, sp, in, mid, m.car1, m.car2,     \
                                                                     m.mean, lanes, g.n2, rm.car1, rm.car2,     \
                                                                     rm.sums, rlanes, wlo, whi)
    if (fc->c == 1) nowrite ? RB_TILED_F1(1, true) : RB_TILED_F1(1, false);
    else if (fc->c == 4) nowrite ? RB_TILED_F1(4, true) : RB_TILED_F1(4, false);
    else nowrite ? RB_TILED_F1(0, true) : RB_TILED_F1(0, false);
#undef RB_TILED_F1
    const int nf = sp.qhi - sp.qlo, nrest = fr->b.nb - nf;
    if (nrest > 0) {
        /* the edge blocks (their FIR reads the extension) and the padding's */
        rb_tiled_geom rg = rb_tiled_grid(fr, rlanes);
        if (!rg.grid) return cudaErrorInvalidConfiguration;
        rg.grid = rg.n2 * (unsigned)nrest;
        rb_tiled_s1_rows_launch<R, CT, CT>(fr, mid, rm, rlanes, rg, sp.qlo + sp.k0, nf, s);
    }
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

/* The pixels of the column output that the route of rb_tiled_final_both
 * reads (the fused kernel writes only these, x < *wlo or x >= *whi): the
 * row's first and last pixels (the row chain's clamp closed forms (35)/(44)
 * read them: rb_tiled_edges); on padded rows, those within the padding (plus
 * a block) of either end of the line, where the row stage 1 of the padding's
 * blocks and of the block across the line's end, and the extension samples
 * of the final, find their reflected or wrapped samples. */
static void rb_tiled_edge_window(const rb_cuda_tiled *fr, int *wlo, int *whi)
{
    const rb_cuda_axis &ra = fr->b.ax;
    const long long pad = ra.padded ? -(long long)ra.s0 + B : 1, lo = pad < ra.n ? pad : ra.n,
                    hi = ra.n - pad;
    *wlo = (int)lo;
    *whi = (int)(hi > lo ? hi : lo);
}

/* nowrite: the route of rb_tiled_final_both (the column output only where
 * rb_tiled_edge_window or, FIR rows, rb_tiled_fir_edge_window says), else
 * the fused route (all of it) */
template <int R>
cudaError_t rb_tiled_launch_cols_s1(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in, float *mid,
                                        float *ccarry, float *rcarry, size_t lanes, size_t rlanes,
                                        cudaStream_t s, cudaEvent_t *ev, int nowrite)
{
    if (fr->b.ax.ntaps != 0)
        return fr->dbl ? rb_tiled_launch_cols_s1_fir<R, double>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev,
                                                                nowrite)
                       : rb_tiled_launch_cols_s1_fir<R, float>(fc, fr, in, mid, ccarry, rcarry, lanes, rlanes, s, ev,
                                                               nowrite);
    const rb_tiled_geom g = rb_tiled_grid(fc, lanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    const rb_tiled_bufs<float> m(fc, ccarry, lanes, R), rm(fr, rcarry, rlanes, R);
    rb_tiled_s1_cols<R, float, float><<<g.grid, g.bs, 0, s>>>(*fc, in, m.car1, m.car2, m.sums, lanes, g.n2);
    if (ev) cudaEventRecord(ev[0], s);
    rb_tiled_chain_launch<R, float>(fc, in, m, lanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    int wlo = 0, whi = 0;
    if (nowrite) rb_tiled_edge_window(fr, &wlo, &whi);
    if (fc->c == 1)
        rb_tiled_final_cols_s1<R, 1><<<g.grid, g.bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.mean, lanes, g.n2,
                                                          rm.car1, rm.car2, rm.sums, rlanes, wlo, whi);
    else if (fc->c == 4)
        rb_tiled_final_cols_s1<R, 4><<<g.grid, g.bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.mean, lanes, g.n2,
                                                          rm.car1, rm.car2, rm.sums, rlanes, wlo, whi);
    else
        rb_tiled_final_cols_s1<R, 0><<<g.grid, g.bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.mean, lanes, g.n2,
                                                          rm.car1, rm.car2, rm.sums, rlanes, wlo, whi);
    const int nf = rb_tiled_fused_nb(*fr), nrest = fr->b.nb - nf;
    if (nrest > 0) {
        /* the row blocks of the padding and the one across the line's end */
        rb_tiled_geom rg = rb_tiled_grid(fr, rlanes);
        if (!rg.grid) return cudaErrorInvalidConfiguration;
        rg.grid = rg.n2 * (unsigned)nrest;
        rb_tiled_s1_rows_launch<R, float, float>(fr, mid, rm, rlanes, rg, (int)((-fr->b.ax.s0) / B), nf, s);
    }
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

template <int R>
cudaError_t rb_tiled_launch_rows_rest(const rb_cuda_tiled *fr, const float *mid, float *out, float *rcarry,
                                          size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    const rb_tiled_geom g = rb_tiled_grid(fr, rlanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    /* no row stage 1 of its own: rb_cuda_tiled_cols_making_row_carries made the carries
     * (double ones only on the FIR route: rb_cuda_tiled_can_fuse) */
    if (fr->dbl)
        return rb_tiled_chain_final<R, double, double>(fr, mid, out, rb_tiled_bufs<double>(fr, rcarry, rlanes, R),
                                                       rlanes, g, s, ev);
    return rb_tiled_chain_final<R, float, float>(fr, mid, out, rb_tiled_bufs<float>(fr, rcarry, rlanes, R), rlanes, g, s,
                                                 ev);
}

/* The FIR rows' route (rb_tiled_final_both_fir): the row chain, the final
 * of both axes over the fused row blocks, the edge blocks' row final from
 * mid; CT float or double, the recursion in the same type. Events as
 * rb_tiled_launch_final_both. */
template <int R, typename CT>
static cudaError_t rb_tiled_launch_final_both_fir(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                                  const float *mid, float *out, float *ccarry, float *rcarry,
                                                  size_t lanes, size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    const rb_tiled_geom g = rb_tiled_grid(fc, lanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    const rb_tiled_bufs<CT> m(fc, ccarry, lanes, R), rm(fr, rcarry, rlanes, R);
    const rb_tiled_fir_span sp = rb_tiled_fir_span_of(*fr);
    if (ev) cudaEventRecord(ev[0], s);
    rb_tiled_chain_launch<R, CT>(fr, mid, rm, rlanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    const int bs = RB_TILED_COL_THREADS + B;
#define RB_TILED_FB(CC)                                                                                      \
    rb_tiled_final_both_fir<R, CT, CC><<<g.grid, bs, 0, s>>>(*fc, *fr, sp, in, out, m.car1, m.car2, m.mean, lanes, \
                                                             g.n2, rm.car1, rm.car2, rm.mean, rlanes)
    if (fc->c == 1) RB_TILED_FB(1);
    else if (fc->c == 4) RB_TILED_FB(4);
    else RB_TILED_FB(0);
#undef RB_TILED_FB
    /* the edge blocks that reach the line: [k0, k0 + qlo) and [k0 + qhi, qb) */
    const rb_cuda_axis &ra = fr->b.ax;
    const int q1 = sp.k0 + sp.qhi, qb = (int)(((long long)ra.n - ra.s0 + B - 1) / B);
    const int nright = (qb < fr->b.nb ? qb : fr->b.nb) - q1, ne = sp.qlo + (nright > 0 ? nright : 0);
    if (ne > 0) {
        const unsigned long long nt = (unsigned long long)ne * rlanes;
        if ((nt + 127) / 128 > 0x7fffffffull) return cudaErrorInvalidConfiguration;
        rb_tiled_final_rows_edges<R, CT><<<(unsigned)((nt + 127) / 128), 128, 0, s>>>(
            *fr, mid, out, rm.car1, rm.car2, rm.mean, rlanes, sp.k0, sp.qlo, q1, ne);
    }
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

/* The plain tiles of rb_tiled_final_both_plain (rb_tiled_fb_split): column
 * blocks [b0, b1) whole and inside the line without a FIR, lane groups
 * lc < nlcp of 128 lanes whose 4 / c row blocks are whole and inside the
 * line (row blocks from pixel 0: block qg = ql + (-s0) / B of the feedback
 * domain). None (b0 = b1 = 0) if either range is empty. */
static rb_tiled_fb_split rb_tiled_fb_split_of(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, size_t lanes,
                                              unsigned nlc)
{
    const rb_cuda_axis &a = fc->b.ax, &ra = fr->b.ax;
    rb_tiled_fb_split sp = {nlc, nlc, 0, 0};
    if (a.ntaps != 0) return sp;
    /* j0 = s0 + blk B >= 0, j0 + B <= n and blk B + B <= m */
    const long long b0 = a.s0 < 0 ? (-(long long)a.s0 + B - 1) / B : 0;
    long long b1 = ((long long)a.n - a.s0) / B;
    if (b1 > a.m / B) b1 = a.m / B;
    if (b1 > fc->b.nb) b1 = fc->b.nb;
    /* row blocks ql < nq are whole and inside the line */
    const long long qs = (-(long long)ra.s0) / B;
    long long nq = ra.m / B - qs;
    if (nq > (ra.n + B - 1) / B) nq = (ra.n + B - 1) / B;
    if (nq > ra.n / B) nq = ra.n / B;
    const long long per = RB_TILED_COL_THREADS / (B * fr->c); /* row blocks a tile */
    long long nlcp = (long long)(lanes / RB_TILED_COL_THREADS);
    if (per < 1 || nq < 0) return sp;
    if (nlcp > nq / per) nlcp = nq / per;
    if (b1 <= b0 || nlcp <= 0) return sp;
    sp.nlcp = (unsigned)nlcp;
    sp.b0 = (int)b0;
    sp.b1 = (int)b1;
    return sp;
}

/* The route of rb_tiled_final_both, after rb_tiled_launch_cols_s1 (nowrite):
 * the row chain, then the final stage of both axes from in (the column
 * carries in ccarry, the row carries in rcarry) to out; mid: the column
 * output near the line's ends (padded rows; FIR rows: rb_tiled_launch_final_both_fir). Events as
 * rb_tiled_launch_rows_rest: none of a row stage 1, the chain, the final. */
template <int R>
cudaError_t rb_tiled_launch_final_both(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                       const float *mid, float *out, float *ccarry, float *rcarry, size_t lanes,
                                       size_t rlanes, cudaStream_t s, cudaEvent_t *ev)
{
    if (fr->b.ax.ntaps != 0)
        return fr->dbl ? rb_tiled_launch_final_both_fir<R, double>(fc, fr, in, mid, out, ccarry, rcarry, lanes, rlanes,
                                                                   s, ev)
                       : rb_tiled_launch_final_both_fir<R, float>(fc, fr, in, mid, out, ccarry, rcarry, lanes, rlanes,
                                                                  s, ev);
    const rb_tiled_geom g = rb_tiled_grid(fc, lanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    const rb_tiled_bufs<float> m(fc, ccarry, lanes, R), rm(fr, rcarry, rlanes, R);
    if (ev) cudaEventRecord(ev[0], s);
    rb_tiled_chain_launch<R, float>(fr, mid, rm, rlanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    const rb_tiled_fb_split spl = rb_tiled_fb_split_of(fc, fr, lanes, g.n2);
    const unsigned nplain = spl.nlcp * (unsigned)(spl.b1 - spl.b0), nborder = g.grid - nplain;
#define RB_TILED_FB(CC)                                                                                        \
    do {                                                                                                       \
        if (nplain)                                                                                            \
            rb_tiled_final_both_plain<R, CC><<<nplain, g.bs, 0, s>>>(*fc, *fr, in, out, m.car1, m.car2, m.mean, \
                                                                    lanes, spl, rm.car1, rm.car2, rm.mean, rlanes); \
        if (nborder)                                                                                           \
            rb_tiled_final_both<R, CC><<<nborder, g.bs, 0, s>>>(*fc, *fr, in, mid, out, m.car1, m.car2, m.mean,  \
                                                               lanes, spl, rm.car1, rm.car2, rm.mean, rlanes);   \
    } while (0)
    if (fc->c == 1) RB_TILED_FB(1);
    else if (fc->c == 4) RB_TILED_FB(4);
    else RB_TILED_FB(0);
#undef RB_TILED_FB
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

/* The route of RECBLUR_CUDA_FUSE=cross (rb_tiled_cross.cuh, three image
 * transfers): the column stage 1 with the x-part of the row carries, the
 * column chain, the cross terms; events 0, 1, 2 after them. Then
 * rb_tiled_launch_final_both as on the route of rb_tiled_final_both. */
template <int R>
cudaError_t rb_tiled_launch_cols_cross(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in, float *mid,
                                       float *ccarry, float *rcarry, size_t lanes, size_t rlanes, cudaStream_t s,
                                       cudaEvent_t *ev)
{
    const rb_tiled_geom g = rb_tiled_grid(fc, lanes);
    if (!g.grid) return cudaErrorInvalidConfiguration;
    const rb_tiled_bufs<float> m(fc, ccarry, lanes, R), rm(fr, rcarry, rlanes, R);
    int wlo, whi;
    rb_tiled_edge_window(fr, &wlo, &whi);
    /* the whole column blocks inside the line without a FIR, [p0, p1), by
     * the plain kernel; those before and after by the general one */
    const rb_cuda_axis &a = fc->b.ax;
    const int nb = fc->b.nb;
    int p0 = nb, p1 = nb;
    for (int b = 0; a.ntaps == 0 && b < nb; ++b) {
        const long long j0 = (long long)a.s0 + (long long)b * B, len = a.m - b * B < B ? a.m - b * B : B;
        if (len == B && j0 >= 0 && j0 + len <= a.n) {
            if (p0 == nb) p0 = b;
            p1 = b + 1;
        }
    }
    const int from[3] = {0, p0, p1}, to[3] = {p0, p1, nb};
    for (int i = 0; i < 3; ++i) {
        if (to[i] <= from[i]) continue;
        const unsigned gx = g.n2 * (unsigned)(to[i] - from[i]);
#define RB_TILED_X1(CC, P)                                                                                    \
    rb_tiled_s1_cols_x<R, CC, P><<<gx, g.bs, 0, s>>>(*fc, *fr, in, mid, m.car1, m.car2, m.sums, lanes, g.n2,    \
                                                     from[i], rm.car1, rm.car2, rm.sums, rlanes, wlo, whi)
        if (i == 1) {
            if (fc->c == 1) RB_TILED_X1(1, true);
            else if (fc->c == 4) RB_TILED_X1(4, true);
            else RB_TILED_X1(0, true);
        } else {
            if (fc->c == 1) RB_TILED_X1(1, false);
            else if (fc->c == 4) RB_TILED_X1(4, false);
            else RB_TILED_X1(0, false);
        }
#undef RB_TILED_X1
    }
    if (ev) cudaEventRecord(ev[0], s);
    rb_tiled_chain_launch<R, float>(fc, in, m, lanes, s);
    if (ev) cudaEventRecord(ev[1], s);
    /* the cross kernel's thread blocks walk the g.grid tiles, as many as fit
     * on the device at once (each stages the basis once): fc->cross_blocks */
    const unsigned nx = fc->cross_blocks > 0 ? (unsigned)fc->cross_blocks : g.grid, gx = g.grid < nx ? g.grid : nx;
#define RB_TILED_X3(CC)                                                                                        \
    rb_tiled_cross<R, CC><<<gx, g.bs, 0, s>>>(*fc, *fr, mid, m.car1, m.car2, m.mean, lanes, g.n2, g.grid,      \
                                              rm.car1, rm.car2, rm.sums, rlanes, wlo, whi)
    if (fc->c == 1) RB_TILED_X3(1);
    else if (fc->c == 4) RB_TILED_X3(4);
    else RB_TILED_X3(0);
#undef RB_TILED_X3
    if (ev) cudaEventRecord(ev[2], s);
    return cudaGetLastError();
}

/* The cross kernel's thread blocks that fit the current device at once, for
 * fc->cross_blocks (plan time); 0 where the device cannot be asked */
template <int R>
int rb_tiled_cross_fit(const rb_cuda_tiled *fc)
{
    int dev = 0, sms = 0, per = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        (void)cudaGetLastError(); /* not left for a later check to find: the plan goes on */
        return 0;
    }
    const int bs = RB_TILED_COL_THREADS;
    cudaError_t e = fc->c == 1   ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, rb_tiled_cross<R, 1>, bs, 0)
                    : fc->c == 4 ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, rb_tiled_cross<R, 4>, bs, 0)
                                 : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, rb_tiled_cross<R, 0>, bs, 0);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: the plan goes on with one block a tile */
        return 0;
    }
    return sms * (per > 0 ? per : 1);
}

/* the explicit instantiations of one order (rb_tiled_order.cu.in) */
#define RB_TILED_INSTANTIATE(R)                                                                           \
    template cudaError_t rb_tiled_launch_ct<R>(const rb_cuda_tiled *, const float *, float *, float *,      \
                                               size_t, cudaStream_t, cudaEvent_t *);                        \
    template cudaError_t rb_tiled_launch_cols_s1<R>(const rb_cuda_tiled *, const rb_cuda_tiled *,           \
                                                    const float *, float *, float *, float *, size_t,       \
                                                    size_t, cudaStream_t, cudaEvent_t *, int);              \
    template cudaError_t rb_tiled_launch_final_both<R>(const rb_cuda_tiled *, const rb_cuda_tiled *,        \
                                                       const float *, const float *, float *, float *,      \
                                                       float *, size_t, size_t, cudaStream_t, cudaEvent_t *); \
    template cudaError_t rb_tiled_launch_cols_cross<R>(const rb_cuda_tiled *, const rb_cuda_tiled *,        \
                                                       const float *, float *, float *, float *, size_t,     \
                                                       size_t, cudaStream_t, cudaEvent_t *);                \
    template int rb_tiled_cross_fit<R>(const rb_cuda_tiled *);                                              \
    template cudaError_t rb_tiled_launch_rows_rest<R>(const rb_cuda_tiled *, const float *, float *,        \
                                                      float *, size_t, cudaStream_t, cudaEvent_t *);
#endif
