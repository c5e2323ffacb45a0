/* 1D recurrences in one pass per direction with decoupled look-back: see
 * rb_cuda_scan.cuh for the algorithm. States follow the line solver's
 * convention: s[k] = w_{i-1-k} (most recent first) in the direction of the pass. */
#include "rb_cuda_scan.cuh"
#include "rb_cuda_alloc.h"
#include "rb_cuda_dd.cuh"
#include "rb_cuda_scan_kernel.cuh"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FIR only (order 0): out_j = u_j */
__global__ void rb_sc_map(const rb_sc_args a)
{
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < a.n;
         j += (long long)gridDim.x * blockDim.x)
        a.dst[j] = rb_sc_fetch(a, j);
}

/* The boundary steps, one thread: initial states from the closed forms. */
enum { RB_SC_BC_START = 0, RB_SC_BC_PERIODIC_C, RB_SC_BC_ANTI, RB_SC_BC_PERIODIC_A };
typedef struct {
    int kind, R, mode, has_c, const_like, n;
    float cval;
    double sumfir;
    double prologue_dc, anticausal_dc;
    double M44[RB_MAX_ORDER * RB_MAX_ORDER], v44[RB_MAX_ORDER];
    double Pf[RB_MAX_ORDER * RB_MAX_ORDER], Pr[RB_MAX_ORDER * RB_MAX_ORDER];
} rb_sc_bc;

/* small[]: [0] c0, [1] c1 (u far before / after the line); then R-vectors at 8, 16, 24, 32 */
#define RB_SC_C0 0
#define RB_SC_C1 1
#define RB_SC_INIT_C 8
#define RB_SC_FIN_C 16
#define RB_SC_INIT_A 24
#define RB_SC_FIN_A 32
#define RB_SC_SMALL 40

__global__ void rb_sc_bc_kernel(const rb_sc_bc b, const float *x, double *small)
{
    const int R = b.R;
    double ev[RB_MAX_ORDER], tv[RB_MAX_ORDER];
    switch (b.kind) {
    case RB_SC_BC_START: {
        double c0 = 0.0, c1 = 0.0;
        if (b.mode == RB_BOUNDARY_CONSTANT) c0 = c1 = (double)b.cval * b.sumfir;
        else if (b.mode == RB_BOUNDARY_CLAMP) {
            c0 = (double)x[0] * b.sumfir;
            c1 = (double)x[b.n - 1] * b.sumfir;
        }
        small[RB_SC_C0] = c0;
        small[RB_SC_C1] = c1;
        for (int k = 0; k < R; ++k) /* (35) of the 2016 paper */
            small[RB_SC_INIT_C + k] = b.const_like ? b.prologue_dc * c0 : 0.0;
        break;
    }
    case RB_SC_BC_PERIODIC_C: /* (49): p(Y) = Pf e_{-1}(Yhat), paper order reversed */
        for (int k = 0; k < R; ++k) ev[k] = small[RB_SC_FIN_C + R - 1 - k];
        for (int i = 0; i < R; ++i) {
            double acc = 0.0;
            for (int j = 0; j < R; ++j) acc += b.Pf[i * R + j] * ev[j];
            tv[i] = acc;
        }
        for (int k = 0; k < R; ++k) small[RB_SC_INIT_C + k] = tv[R - 1 - k];
        break;
    case RB_SC_BC_ANTI: { /* (44), or the anticausal-only DC response */
        double c1 = small[RB_SC_C1];
        for (int k = 0; k < R; ++k) ev[k] = small[RB_SC_FIN_C + R - 1 - k];
        if (b.const_like && b.has_c)
            rb_mv_dd(R, b.M44, ev, b.v44, c1, tv); /* its cancellation in double-double */
        for (int i = 0; i < R; ++i)
            small[RB_SC_INIT_A + i] = !b.const_like ? 0.0 : !b.has_c ? b.anticausal_dc * c1 : tv[i];
        break;
    }
    case RB_SC_BC_PERIODIC_A: /* (51): e(Z) = Pr [z_0 .. z_{r-1}] of the zero-initialised pass */
        for (int k = 0; k < R; ++k) ev[k] = small[RB_SC_FIN_A + k];
        for (int i = 0; i < R; ++i) {
            double acc = 0.0;
            for (int j = 0; j < R; ++j) acc += b.Pr[i * R + j] * ev[j];
            small[RB_SC_INIT_A + i] = acc;
        }
        break;
    }
}

struct rb_cuda_rec1d {
    int R, n, mode, ntaps, fir_lo, has_c, has_a, const_like, periodic_like;
    long long m, s0, Kc, Ka;
    float cval;
    double dc[RB_MAX_ORDER], da[RB_MAX_ORDER];
    rb_sc_bc bc;
    char *dev;                 /* tables (causal, anticausal; float or double) then FIR taps */
    const void *tab_c, *tab_a;
    const float *fir;
    unsigned delay_ns;         /* test hook: random publication delays (rb_sc_args.delay_ns) */
};

extern "C" void rb_cuda_rec1d_set_delay(rb_cuda_rec1d *p, unsigned delay_ns)
{
    if (p) p->delay_ns = delay_ns;
}

/* Lpow and Tpow of the state transition of feedbacks d, as the kernel's state type */
static int rb_sc_double(int r) { return r >= RB_SC_DOUBLE_FROM; }

/* Lpow[l] = A^(ITEMS l), l = 0..32, and Tpow[l] = A^(TILE l). Column j of A^k is
 * the zero-input response of the recurrence to the unit state e_j after k steps,
 * stepped here in long double up to k = TILE; Tpow[l >= 2] = Tpow[l-1] Tpow[1].
 * Not by repeated squaring: for clustered poles near 1 the entries of A^k grow
 * to ~1e5 before they decay (order 8, poles up to 0.99), so A^2048 = (A^1024)^2
 * loses everything to cancellation; A^4096 (true ~1e-11) came out ~1e-5, and a
 * CPU emulation of the kernel gave 0.2 rel RMS with those tables against 1.5e-7
 * with these (the "order 8, clamp, 2.9e-3" defect of docs/RELIABILITY.md). */
static void rb_sc_tables(const double *d, int r, void *tabv)
{
    float *tab = (float *)tabv;
    double *tabd = (double *)tabv;
    long double T1[RB_MAX_ORDER * RB_MAX_ORDER], P[RB_MAX_ORDER * RB_MAX_ORDER], t[RB_MAX_ORDER * RB_MAX_ORDER];
#define RB_SC_TAB(l, i, v)                                                                    \
    do {                                                                                      \
        if (rb_sc_double(r)) tabd[(size_t)(l) * r * r + (i)] = (double)(v);                   \
        else tab[(size_t)(l) * r * r + (i)] = (float)(v);                                     \
    } while (0)
    for (int j = 0; j < r; ++j) {
        long double s[RB_MAX_ORDER] = {0};
        s[j] = 1.0L;
        for (long k = 0; k <= RB_SC_TILE; ++k) {
            if (k % RB_SC_ITEMS == 0 && k / RB_SC_ITEMS < RB_SC_NPOW)
                for (int i = 0; i < r; ++i) RB_SC_TAB(k / RB_SC_ITEMS, i * r + j, s[i]);
            if (k == RB_SC_TILE)
                for (int i = 0; i < r; ++i) T1[i * r + j] = s[i];
            long double w = 0.0L;
            for (int q = 0; q < r; ++q) w -= (long double)d[q] * s[q];
            for (int q = r - 1; q > 0; --q) s[q] = s[q - 1];
            s[0] = w;
        }
    }
    for (int i = 0; i < r * r; ++i) P[i] = i % (r + 1) == 0 ? 1.0L : 0.0L;
    for (int l = 0; l < RB_SC_NPOW; ++l) {
        for (int i = 0; i < r * r; ++i) RB_SC_TAB(RB_SC_NPOW + l, i, P[i]);
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < r; ++j) {
                long double acc = 0.0L;
                for (int q = 0; q < r; ++q) acc += P[i * r + q] * T1[q * r + j];
                t[i * r + j] = acc;
            }
        memcpy(P, t, sizeof(long double) * r * r);
    }
#undef RB_SC_TAB
}

/* Samples after which the homogeneous response of a state is below 1e-12 of it. */
static long long rb_sc_reach(const double *d, int r, long long m)
{
    double mp = 0.0;
    rb_feedback_is_stable(d, r, &mp);
    if (mp <= 1e-300) return r < m ? r : m;
    if (mp >= 1.0 - 1e-7) return m;
    double k = log(1e-12) / log(mp);
    /* repeated poles grow like i^(r-1) first: generous margin */
    long long K = (long long)ceil(1.5 * k) + 64LL * r + RB_SC_TILE;
    return K < m ? K : m;
}

extern "C" cudaError_t rb_cuda_rec1d_create(const rb_axis_plan *ap, float cval, rb_cuda_rec1d **out)
{
    *out = NULL;
    rb_cuda_rec1d *p = (rb_cuda_rec1d *)calloc(1, sizeof *p);
    if (!p) return cudaErrorMemoryAllocation;
    const rb_axis *ax = &ap->ax;
    const int r = ax->r, n = ap->n;
    p->R = r;
    p->n = n;
    p->mode = ap->mode;
    p->cval = cval;
    p->has_c = ax->causal_order > 0;
    p->has_a = ax->anticausal_order > 0;
    p->ntaps = ax->fir ? ax->fir_hi - ax->fir_lo + 1 : 0;
    p->fir_lo = ax->fir_lo;
    double sf = 0.0;
    if (ax->fir)
        for (int t = 0; t < p->ntaps; ++t) sf += ax->fir[t];
    else
        sf = 1.0;
    for (int k = 0; k < r; ++k) {
        p->dc[k] = ax->dc[k];
        p->da[k] = ax->da[k];
    }
    const int mode = ap->mode;
    /* the domain the passes run over, as the tiled solver's rb_cuda_axis_from_plan */
    if (ap->padded) {
        p->m = (long long)n + 2LL * ap->pad;
        p->s0 = -ap->pad;
    } else if (mode == RB_BOUNDARY_ZERO || mode == RB_BOUNDARY_CONSTANT || mode == RB_BOUNDARY_CLAMP) {
        p->const_like = 1;
        p->m = (long long)n + 2LL * ap->fir_ext;
        p->s0 = -ap->fir_ext;
    } else if (mode == RB_BOUNDARY_MIRROR) {
        p->periodic_like = 1; /* the 2n-periodic route (49)/(51); Pf/Pr are built for 2n */
        p->m = 2LL * n;
    } else {
        p->periodic_like = mode == RB_BOUNDARY_PERIODIC;
        p->m = n;
    }
    p->Kc = rb_sc_reach(ax->dc, r, p->m);
    p->Ka = rb_sc_reach(ax->da, r, p->m);
    rb_sc_bc *b = &p->bc;
    b->R = r;
    b->mode = mode;
    b->has_c = p->has_c;
    b->const_like = p->const_like;
    b->n = n;
    b->cval = cval;
    b->sumfir = sf;
    b->prologue_dc = ap->prologue_dc;
    b->anticausal_dc = ap->anticausal_dc;
    memcpy(b->M44, ap->M44, sizeof b->M44);
    memcpy(b->v44, ap->v44, sizeof b->v44);
    memcpy(b->Pf, ap->Pf, sizeof b->Pf);
    memcpy(b->Pr, ap->Pr, sizeof b->Pr);

    /* bytes of one pass's tables, a multiple of 8 */
    size_t tabb = r > 0 ? (size_t)2 * RB_SC_NPOW * r * r * (rb_sc_double(r) ? 8 : 4) : 0;
    tabb = (tabb + 7) & ~(size_t)7;
    size_t total = 2 * tabb + ((size_t)p->ntaps + 1) * sizeof(float);
    char *host = (char *)calloc(total, 1);
    if (!host) {
        free(p);
        return cudaErrorMemoryAllocation;
    }
    if (r > 0) {
        rb_sc_tables(ax->dc, r, host);
        rb_sc_tables(ax->da, r, host + tabb);
    }
    for (int t = 0; t < p->ntaps; ++t) ((float *)(host + 2 * tabb))[t] = (float)ax->fir[t];
    cudaError_t e = rb_cuda_malloc((void **)&p->dev, total);
    if (e == cudaSuccess) e = cudaMemcpy(p->dev, host, total, cudaMemcpyHostToDevice);
    free(host);
    if (e != cudaSuccess) {
        rb_cuda_free(p->dev);
        free(p);
        return e;
    }
    p->tab_c = p->dev;
    p->tab_a = p->dev + tabb;
    p->fir = (const float *)(p->dev + 2 * tabb);
    *out = p;
    return cudaSuccess;
}

extern "C" void rb_cuda_rec1d_destroy(rb_cuda_rec1d *p)
{
    if (!p) return;
    rb_cuda_free(p->dev);
    free(p);
}

static size_t rb_sc_al(size_t b) { return (b + 255) & ~(size_t)255; }

/* Scratch: the tiles' tagged state words (aggregate, inclusive), the passes'
 * tickets and the boundary states (all zeroed by one memset per run; each pass
 * tags its words with its own number), then the causal pass's output Y and, in
 * place, a copy X of the input. */
typedef struct {
    unsigned long long *agg, *inc;
    unsigned *tickets;  /* 4: one per pass */
    double *small;
    size_t zero_bytes;  /* from agg up to the end of small */
    float *Y, *X;
    size_t tiles;
} rb_sc_work;

static int rb_sc_needs_xcopy(const rb_cuda_rec1d *p)
{
    /* in place, a pass that reads x outside its own tile (FIR, mirror, padded) must read a copy */
    return p->ntaps > 0 || p->mode == RB_BOUNDARY_MIRROR || p->m != p->n;
}

static size_t rb_sc_layout(const rb_cuda_rec1d *p, int in_place, char *base, rb_sc_work *w)
{
    size_t tiles = (size_t)((p->m + RB_SC_TILE - 1) / RB_SC_TILE), off = 0;
    const size_t R = p->R > 0 ? p->R : 1, words = tiles * R * (rb_sc_double(p->R) ? 2 : 1);
#define RB_SC_PUT(field, type, count)                                        \
    do {                                                                     \
        if (w) w->field = (type *)(base + off);                              \
        off += rb_sc_al(sizeof(type) * (count));                             \
    } while (0)
    RB_SC_PUT(agg, unsigned long long, words);
    RB_SC_PUT(inc, unsigned long long, words);
    RB_SC_PUT(tickets, unsigned, 4);
    RB_SC_PUT(small, double, RB_SC_SMALL);
    if (w) w->zero_bytes = off;
    if (p->has_c && p->has_a) RB_SC_PUT(Y, float, (size_t)p->m);
    else if (w) w->Y = NULL;
    if (in_place && rb_sc_needs_xcopy(p)) RB_SC_PUT(X, float, (size_t)p->n);
    else if (w) w->X = NULL;
#undef RB_SC_PUT
    if (w) w->tiles = tiles;
    return off;
}

extern "C" size_t rb_cuda_rec1d_work_bytes(const rb_cuda_rec1d *p, int in_place)
{
    return rb_sc_layout(p, in_place, NULL, NULL);
}

extern "C" int rb_cuda_rec1d_passes(const rb_cuda_rec1d *p)
{
    return p->R == 0 ? 1 : p->has_c + p->has_a;
}

static cudaError_t rb_sc_launch(const rb_cuda_rec1d *p, rb_sc_args a, cudaStream_t s)
{
    unsigned grid = (unsigned)((a.L + RB_SC_TILE - 1) / RB_SC_TILE);
    if (grid == 0) return cudaSuccess;
    switch (p->R) {
#define RB_SC_CASE(R) case R: rb_sc_launch_##R(a, grid, s); break;
    RB_SC_CASE(1) RB_SC_CASE(2) RB_SC_CASE(3) RB_SC_CASE(4)
    RB_SC_CASE(5) RB_SC_CASE(6) RB_SC_CASE(7) RB_SC_CASE(8)
#undef RB_SC_CASE
    default: return cudaErrorInvalidValue;
    }
    return rb_cuda_launch_check();
}

extern "C" cudaError_t rb_cuda_rec1d_run(const rb_cuda_rec1d *p, const float *in, float *out,
                                         void *work, cudaStream_t s)
{
    const int in_place = in == out;
    rb_sc_work w;
    cudaError_t e;
    rb_sc_layout(p, in_place, (char *)work, &w);
    const float *x = in;
    if (w.X) {
        if ((e = cudaMemcpyAsync(w.X, in, (size_t)p->n * sizeof(float), cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
            return e;
        x = w.X;
    }
    rb_sc_args a;
    memset(&a, 0, sizeof a);
    a.x = x;
    a.n = p->n;
    a.mode = p->mode;
    a.ntaps = p->ntaps;
    a.fir_lo = p->fir_lo;
    a.s0 = p->s0;
    a.cval = p->cval;
    a.fir = p->fir;
    a.m = p->m;
    {
        /* test knob: random publication delays (rb_sc_args.delay_ns), a fresh pattern per run */
        static unsigned runs;
        a.delay_ns = p->delay_ns;
        a.delay_seed = ++runs;
    }
    if (p->R == 0) {
        a.src = RB_SC_SRC_X;
        a.dst = out;
        unsigned grid = (unsigned)((p->n + 255) / 256);
        if (grid > 65535u * 16) grid = 65535u * 16;
        rb_sc_map<<<grid, 256, 0, s>>>(a);
        return rb_cuda_launch_check();
    }
    if ((e = cudaMemsetAsync(w.agg, 0, w.zero_bytes, s)) != cudaSuccess) return e;
    int region = 0;
#define RB_SC_REGION(args)                                                     \
    do {                                                                       \
        (args).ticket = w.tickets + region;                                    \
        (args).tag = (unsigned)region + 1;                                     \
        (args).agg = w.agg;                                                    \
        (args).inc = w.inc;                                                    \
        ++region;                                                              \
    } while (0)
    rb_sc_bc b = p->bc;
    /* periodic: the true initial state of pass c by (49)/(51), in one thread,
     * then its homogeneous response superposed over the L samples it reaches */
    auto periodic_correction = [&](rb_sc_args c, decltype(b.kind) kind, long long L, int init) {
        b.kind = kind;
        rb_sc_bc_kernel<<<1, 1, 0, s>>>(b, x, w.small);
        cudaError_t ce = rb_cuda_launch_check();
        if (ce != cudaSuccess) return ce;
        c.src = RB_SC_SRC_ZERO;
        c.L = L;
        c.add = 1;
        c.init = w.small + init;
        c.fin = NULL;
        RB_SC_REGION(c);
        return rb_sc_launch(p, c, s);
    };
    if (p->const_like && p->mode != RB_BOUNDARY_ZERO) {
        /* otherwise c0 = c1 = 0 and a zero initial state: the memset wrote them */
        b.kind = RB_SC_BC_START;
        rb_sc_bc_kernel<<<1, 1, 0, s>>>(b, x, w.small);
        if ((e = rb_cuda_launch_check()) != cudaSuccess) return e;
    }

    /* the pass over the m samples in direction dir, from the state in slot init
     * (constant-like boundaries; zero otherwise), its final state to slot fin */
    auto pass_args = [&](int dir, int init, int fin, const void *tab, const double *d) {
        rb_sc_args c = a;
        c.dir = dir;
        c.L = p->m;
        c.init = p->const_like ? w.small + init : NULL;
        c.fin = w.small + fin;
        c.tab = tab;
        memcpy(c.d, d, sizeof c.d);
        return c;
    };
    if (p->has_c) {
        rb_sc_args c = pass_args(1, RB_SC_INIT_C, RB_SC_FIN_C, p->tab_c, p->dc);
        c.src = RB_SC_SRC_X;
        if (p->has_a) {
            c.dst = w.Y;
            c.dst_off = 0;
            c.dst_n = p->m;
        } else {
            c.dst = out;
            c.dst_off = p->s0;
            c.dst_n = p->n;
        }
        RB_SC_REGION(c);
        if ((e = rb_sc_launch(p, c, s)) != cudaSuccess) return e;
        if (p->periodic_like && (e = periodic_correction(c, RB_SC_BC_PERIODIC_C, p->Kc, RB_SC_INIT_C)) != cudaSuccess)
            return e;
    }
    if (p->has_a) {
        if (p->const_like) {
            b.kind = RB_SC_BC_ANTI;
            rb_sc_bc_kernel<<<1, 1, 0, s>>>(b, x, w.small);
            if ((e = rb_cuda_launch_check()) != cudaSuccess) return e;
        }
        rb_sc_args c = pass_args(-1, RB_SC_INIT_A, RB_SC_FIN_A, p->tab_a, p->da);
        if (p->has_c) {
            c.src = RB_SC_SRC_BUF;
            c.buf = w.Y;
        } else
            c.src = RB_SC_SRC_X;
        c.dst = out;
        c.dst_off = p->s0;
        c.dst_n = p->n;
        RB_SC_REGION(c);
        if ((e = rb_sc_launch(p, c, s)) != cudaSuccess) return e;
        /* the anticausal correction reaches positions m-Ka .. m-1: only when they hit the output */
        if (p->periodic_like && p->m - p->Ka + p->s0 < p->n &&
            (e = periodic_correction(c, RB_SC_BC_PERIODIC_A, p->Ka, RB_SC_INIT_A)) != cudaSuccess)
            return e;
    }
#undef RB_SC_REGION
    return cudaSuccess;
}
