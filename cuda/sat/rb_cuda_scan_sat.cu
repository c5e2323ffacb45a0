/* Summed-area tables on the GPU in one pass over the image: the input is read
 * once and the table written once (RECBLUR_CUDA_SAT=tiles; rb_sat's default
 * is the look-back kernel of rb_cuda_sat_lookback.cu).
 *
 * The image (w * ch samples per row) is cut into tiles of 32 rows by TW
 * samples (TW = 128, or 96 for 3 channels, so a tile holds whole pixels). With
 * the tile's local table L (rows, then columns), the table is
 *   S(y, x) = L(y, x) + V(x) + H(y) + C                      (per channel)
 *   V(x): sum of column x above the tile,
 *   H(y): sum of the tile's band rows y0..y left of the tile,
 *   C:    sum of everything above and left of the tile.
 * V comes by decoupled look-back up the tile column (aggregates: the tile's
 * column sums), H by look-back along the band (aggregates: row sums), and C
 * rides with V: each tile adds to its column record the band-left total
 * B = sum_y of its row carries, and C = sum of B over the tiles above. This is
 * the 2011 paper's algorithm SAT (stages 1-4: block sums, carries along rows
 * and columns, corner, final block) with the carries fused into the single
 * pass by look-back (Merrill & Garland 2016), 32 predecessors per step (lane q
 * polls the tile q + 1 back). Tiles take tickets in row-major order, so every
 * tile waited on started before the waiting one.
 *
 * Precision: every sum is a double; U8/U16 sums (< 2^53) are exact and the
 * output is the exact table, rounded once for F32 (as the CPU's sat.c). F32
 * input: double accumulation throughout, rounded once. */
#include "rb_cuda_check.h"
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_scan.cuh"
#include "rb_cuda_sat.cuh"
#include <stdio.h>

#define RB_SAT_TH 32
#define RB_SAT_THREADS 256

typedef struct {
    const unsigned char *in;
    unsigned char *out;
    size_t in_pitch, out_pitch;
    long long n;             /* samples per row */
    int h, tiles_x;
    int *hflag, *vflag;
    unsigned *ticket;
    double *hagg, *hinc, *vagg, *vinc;
} rb_sat_args;

template <typename T>
static __device__ __forceinline__ double rb_sat_ld(const unsigned char *row, long long i)
{
    return (double)((const T *)row)[i];
}

/* After the warp wrote tile k's record: make it visible, then flag it (1:
 * the tile's aggregate, 2: its inclusive record) */
static __device__ __forceinline__ void rb_sat_publish(volatile int *flags, long long k, int state, int lane)
{
    __threadfence();
    __syncwarp();
    if (lane == 0) flags[k] = state;
}

/* One round of a decoupled look-back, by the whole warp: a lane whose
 * predecessor is in range (within) polls its flag at index i until it is
 * published; *incl: the lanes that found an inclusive record (flag 2). */
static __device__ __forceinline__ int rb_sat_poll(volatile int *flags, long long i, bool within, unsigned *incl)
{
    int f = 2;
    if (within)
        do {
            f = flags[i];
        } while (f == 0);
    *incl = __ballot_sync(0xffffffffu, f == 2);
    __threadfence();
    return f;
}

template <int CH, typename TIn, typename TOut>
__global__ void __launch_bounds__(RB_SAT_THREADS) rb_sat_kernel(const rb_sat_args a)
{
    constexpr int P = CH == 3 ? 3 : 4;      /* samples per lane in a row */
    constexpr int TW = 32 * P;              /* samples per tile row */
    constexpr int HS = RB_SAT_TH * CH;      /* row record: per row, per channel */
    constexpr int VS = TW + CH;             /* column record: column sums, then B */
    __shared__ double tile[RB_SAT_TH][TW + 1];
    __shared__ double s_rowsum[RB_SAT_TH][CH], s_H[RB_SAT_TH][CH], s_V[TW], s_C[CH];
    __shared__ long long s_k;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) s_k = (long long)atomicAdd(a.ticket, 1u);
    __syncthreads();
    const long long k = s_k;
    const int ti = (int)(k / a.tiles_x), si = (int)(k % a.tiles_x);
    const long long x0 = (long long)si * TW;
    const int y0 = ti * RB_SAT_TH;

    /* 1. load and scan rows: each warp 4 rows, each lane P samples (whole pixels) */
    for (int rr = 0; rr < RB_SAT_TH / 8; ++rr) {
        const int y = warp * (RB_SAT_TH / 8) + rr, gy = y0 + y;
        const unsigned char *row = a.in + (size_t)gy * a.in_pitch;
        double v[P], run[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) run[c] = 0.0;
#pragma unroll
        for (int j = 0; j < P; ++j) {
            long long gx = x0 + lane * P + j;
            v[j] = (gy < a.h && gx < a.n) ? rb_sat_ld<TIn>(row, gx) : 0.0;
            run[j % CH] += v[j];
            v[j] = run[j % CH];
        }
        double inc[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) inc[c] = run[c];
#pragma unroll
        for (int o = 1; o < 32; o <<= 1)
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                double t = __shfl_up_sync(0xffffffffu, inc[c], o);
                if (lane >= o) inc[c] += t;
            }
#pragma unroll
        for (int j = 0; j < P; ++j) tile[y][lane * P + j] = v[j] + (inc[j % CH] - run[j % CH]);
        if (lane == 31)
#pragma unroll
            for (int c = 0; c < CH; ++c) s_rowsum[y][c] = inc[c];
    }
    __syncthreads();
    /* 2. scan columns: two threads per column, 16 rows each */
    if (tid < 2 * TW) {
        const int x = tid % TW, r0 = (tid / TW) * (RB_SAT_TH / 2);
        for (int r = 1; r < RB_SAT_TH / 2; ++r) tile[r0 + r][x] += tile[r0 + r - 1][x];
    }
    __syncthreads();
    if (tid >= TW && tid < 2 * TW) {
        const int x = tid - TW;
        const double add = tile[RB_SAT_TH / 2 - 1][x];
        for (int r = RB_SAT_TH / 2; r < RB_SAT_TH; ++r) tile[r][x] += add;
    }
    __syncthreads();

    /* 3. carries, by warp 0 */
    if (warp == 0) {
        /* along the band: lane = row */
        volatile int *hf = a.hflag, *vf = a.vflag;
        double acc[CH], agg[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            agg[c] = s_rowsum[lane][c];
            acc[c] = 0.0;
        }
        if (si > 0) {
#pragma unroll
            for (int c = 0; c < CH; ++c) a.hagg[k * HS + lane * CH + c] = agg[c];
            rb_sat_publish(hf, k, 1, lane);
            /* 32 predecessors at once (lane q: distance base + q), up to the nearest
             * inclusive record; the band's first tile always publishes one */
            for (int base = 1;; base += 32) {
                unsigned im;
                const int f = rb_sat_poll(hf, k - (base + lane), base + lane <= si, &im);
                const int stop = im ? __ffs(im) - 1 : 31;
                for (int q = 0; q <= stop && base + q <= si; ++q) {
                    const int fq = __shfl_sync(0xffffffffu, f, q);
                    const double *src = (fq == 2 ? a.hinc : a.hagg) + (k - base - q) * HS + lane * CH;
#pragma unroll
                    for (int c = 0; c < CH; ++c) acc[c] += __ldcg(src + c);
                }
                if (im) break;
            }
        }
#pragma unroll
        for (int c = 0; c < CH; ++c) a.hinc[k * HS + lane * CH + c] = acc[c] + agg[c];
        rb_sat_publish(hf, k, 2, lane);
        /* H = prefix of the row carries down the band; B = their total */
        double B[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            double p = acc[c];
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                double t = __shfl_up_sync(0xffffffffu, p, o);
                if (lane >= o) p += t;
            }
            s_H[lane][c] = p;
            B[c] = __shfl_sync(0xffffffffu, p, 31);
        }
        /* up the tile column: element e = lane + 32 j: column sums (e < TW), then B */
        double cv[P + 1], ca[P + 1];
#pragma unroll
        for (int j = 0; j <= P; ++j) {
            const int e = lane + 32 * j;
            double v = 0.0;
            if (e < TW) v = tile[RB_SAT_TH - 1][e] - (e >= CH ? tile[RB_SAT_TH - 1][e - CH] : 0.0);
            else if (e < VS) {
#pragma unroll
                for (int c = 0; c < CH; ++c)
                    if (e - TW == c) v = B[c];
            }
            cv[j] = v;
            ca[j] = 0.0;
        }
        if (ti > 0) {
#pragma unroll
            for (int j = 0; j <= P; ++j)
                if (lane + 32 * j < VS) a.vagg[k * VS + lane + 32 * j] = cv[j];
            rb_sat_publish(vf, k, 1, lane);
            for (int base = 1;; base += 32) {
                unsigned im;
                const int f = rb_sat_poll(vf, k - (long long)(base + lane) * a.tiles_x, base + lane <= ti, &im);
                const int stop = im ? __ffs(im) - 1 : 31;
                for (int q = 0; q <= stop && base + q <= ti; ++q) {
                    const int fq = __shfl_sync(0xffffffffu, f, q);
                    const double *src = (fq == 2 ? a.vinc : a.vagg) + (k - (long long)(base + q) * a.tiles_x) * VS;
#pragma unroll
                    for (int j = 0; j <= P; ++j)
                        if (lane + 32 * j < VS) ca[j] += __ldcg(src + lane + 32 * j);
                }
                if (im) break;
            }
        }
#pragma unroll
        for (int j = 0; j <= P; ++j)
            if (lane + 32 * j < VS) a.vinc[k * VS + lane + 32 * j] = ca[j] + cv[j];
        rb_sat_publish(vf, k, 2, lane);
        /* V(x) = sum above the tile over the tile's columns x0..x of x's channel: a
         * scan of the column carries along the tile row, 32 elements at a time */
        double run[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) run[c] = 0.0;
#pragma unroll
        for (int j = 0; j < P; ++j) {
            double v = ca[j];
            const int ce = (lane + 32 * j) % CH;
#pragma unroll
            for (int o = CH; o < 32; o <<= 1) { /* same-channel elements are CH apart */
                double t = __shfl_up_sync(0xffffffffu, v, o);
                if (lane >= o) v += t;
            }
            double before = 0.0;
#pragma unroll
            for (int c = 0; c < CH; ++c)
                if (ce == c) before = run[c];
            s_V[lane + 32 * j] = v + before;
#pragma unroll
            for (int c = 0; c < CH; ++c) { /* the chunk's last element of channel c */
                const int last = 31 - (((31 + 32 * j) % CH - c + CH) % CH);
                run[c] += __shfl_sync(0xffffffffu, v, last);
            }
        }
        if (lane < CH) s_C[lane] = ca[P];   /* element TW + lane: the corner */
    }
    __syncthreads();

    /* 4. the table: coalesced along rows */
    for (int idx = tid; idx < RB_SAT_TH * TW; idx += RB_SAT_THREADS) {
        const int y = idx / TW, x = idx % TW, c = x % CH, gy = y0 + y;
        const long long gx = x0 + x;
        if (gy < a.h && gx < a.n)
            ((TOut *)(a.out + (size_t)gy * a.out_pitch))[gx] =
                (TOut)(tile[y][x] + s_V[x] + s_H[y][c] + s_C[c]);
    }
}

static int rb_sat_tw(int ch) { return ch == 3 ? 96 : 128; }

/* flags (2 per tile and the ticket), then the four records */
static size_t rb_sat_layout(int w, int h, int ch, char *base, rb_sat_args *a)
{
    const long long n = (long long)w * ch;
    const int tw = rb_sat_tw(ch);
    const size_t tx = (size_t)((n + tw - 1) / tw), ty = (size_t)((h + RB_SAT_TH - 1) / RB_SAT_TH);
    const size_t tiles = tx * ty, hs = (size_t)RB_SAT_TH * ch, vs = (size_t)tw + ch;
    size_t off = 0, flags = rb_sat_align((2 * tiles + 1) * sizeof(int));
    if (a) {
        a->hflag = (int *)base;
        a->vflag = a->hflag + tiles;
        a->ticket = (unsigned *)(a->vflag + tiles);
        a->tiles_x = (int)tx;
    }
    off += flags;
    if (a) a->hagg = (double *)(base + off);
    off += rb_sat_align(tiles * hs * sizeof(double));
    if (a) a->hinc = (double *)(base + off);
    off += rb_sat_align(tiles * hs * sizeof(double));
    if (a) a->vagg = (double *)(base + off);
    off += rb_sat_align(tiles * vs * sizeof(double));
    if (a) a->vinc = (double *)(base + off);
    off += rb_sat_align(tiles * vs * sizeof(double));
    return off;
}

extern "C" size_t rb_cuda_sat_tiles_work_bytes(int w, int h, int ch)
{
    return rb_sat_layout(w, h, ch, NULL, NULL);
}

/* the dispatcher's callee: a block per tile */
struct rb_sat_tiles_launcher {
    const rb_sat_args *a;
    unsigned grid;
    cudaStream_t s;
    template <int CH, typename TIn, typename TOut> cudaError_t go() const
    {
        rb_sat_kernel<CH, TIn, TOut><<<grid, RB_SAT_THREADS, 0, s>>>(*a);
        return cudaSuccess;
    }
};

extern "C" cudaError_t rb_cuda_sat_tiles_run(const void *in, size_t in_pitch, rb_format in_fmt, void *out,
                                       size_t out_pitch, rb_format out_fmt, int w, int h, int ch,
                                       void *work, cudaStream_t s)
{
    rb_sat_args a;
    rb_sat_layout(w, h, ch, (char *)work, &a);
    a.in = (const unsigned char *)in;
    a.out = (unsigned char *)out;
    a.in_pitch = in_pitch;
    a.out_pitch = out_pitch;
    a.n = (long long)w * ch;
    a.h = h;
    const size_t ty = (size_t)((h + RB_SAT_TH - 1) / RB_SAT_TH), tiles = ty * (size_t)a.tiles_x;
    cudaError_t e = cudaMemsetAsync(a.hflag, 0, (2 * tiles + 1) * sizeof(int), s);
    if (e != cudaSuccess) return e;
    e = rb_sat_dispatch(rb_sat_tiles_launcher{&a, (unsigned)tiles, s}, ch, in_fmt, out_fmt);
    if (e != cudaSuccess) return e;
    return rb_cuda_launch_check();
}
