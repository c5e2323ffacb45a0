/* The quadrant deblur filter on the GPU: one persistent kernel for all four
 * quadrants and every channel, with the "flexible allocation" of Nikonorov,
 * Fursov, Yakimov (listing 3 and conditions (9)-(10)): a block does not own
 * a fixed column strip; it takes a ticket from an atomic counter, works on
 * the strip the ticket names, and takes another when done. Tickets are handed
 * out in strip order (lanes interleaved), so the left neighbour of a claimed
 * strip was claimed earlier by a block that is already running: whatever the
 * grid size and the order in which the hardware starts blocks, the lowest
 * unfinished strip can always advance, and nothing deadlocks. Geometry and
 * the skewed step are described in rb_cuda_deblur.cuh. */
#include "rb_cuda_check.h"
#include "rb_cuda_deblur.cuh"
#include "rb_cuda_alloc.h"
extern "C" {
#include "pixel_convert.h"
}
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A strip gives up (and flags sync[1]) after waiting this many polls for its
 * left neighbour: a hang becomes a clear error instead of a frozen GPU. */
#define RB_DQ_SPIN_LIMIT (1u << 24)

__device__ __forceinline__ void rb_dq_store_release(int *p, int v)
{
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Wait (thread 0) until *left shows at least `need` finished steps; polls
 * with volatile loads (an acquire load on every poll would keep invalidating
 * the L1 of the spinning SM) and fences once when the count is there. */
__device__ __forceinline__ void rb_dq_wait(const int *left, int need, int *sync)
{
    unsigned spins = 0;
    while (*(volatile const int *)left < need) {
        if (++spins > RB_DQ_SPIN_LIMIT || *(volatile int *)&sync[1]) {
            atomicExch(&sync[1], 1); /* give up: the host reports the flag */
            return;
        }
        __nanosleep(32);
    }
    __threadfence(); /* the neighbour's y stores are visible after its count */
}

template <int S, int G>
__global__ void __launch_bounds__(S *G) rb_dq_flexible_kernel(const rb_dq_args A,
                                                              const float *__restrict__ img,
                                                              float *Y, int *sync)
{
    extern __shared__ float sm[];
    __shared__ int s_ticket;
    const int RW = S + A.halo, mask = A.R - 1, halo = A.halo, K = RB_DQ_BATCH;
    float *xs = sm, *ys = sm + A.R * RW, *part = ys + A.R * RW, *cs = part + G * S;
    const int tid = threadIdx.x, t = tid % S, g = tid / S;
    int *progress = sync + 2;
    const int units = A.lanes * A.nstrips;
    const size_t plane = (size_t)A.Hp * A.Wp;
    for (;;) {
        __syncthreads(); /* everyone is done with s_ticket, the rings, the coefficients */
        if (tid == 0) s_ticket = atomicAdd(&sync[0], 1);
        __syncthreads();
        const int k = s_ticket;
        if (k >= units) return;
        const int lane = k % A.lanes, s = k / A.lanes, q = lane & 3, cc = lane >> 2;
        const int ca = A.ca[q], cb = A.cb[q], lda = rb_dq_pad4(ca), ldb = rb_dq_pad4(cb);
        const int na = A.ra[q] * lda, nb = A.rb[q] * ldb;
        for (int e = tid; e < 2 * A.R * RW; e += S * G) sm[e] = 0.f; /* zero state */
        /* the quadrant's taps, rows padded to 4 for the float4 broadcast loads */
        for (int e = tid; e < na + nb; e += S * G) {
            const bool isa = e < na;
            const int f = isa ? e : e - na, ld = isa ? lda : ldb, n = isa ? ca : cb;
            const int r = f / ld, c = f % ld;
            cs[e] = c < n ? A.coef[(isa ? A.aoff[q] : A.boff[q]) + r * n + c] : 0.f;
        }
        const int j0 = s * S;
        const int *left = s > 0 ? &progress[lane * A.nstrips + s - 1] : nullptr;
        int *mine = &progress[lane * A.nstrips + s];
        float *Yl = Y + lane * plane;
        /* this column's input pixel of the next step, loaded a step early */
        float xnext = 0.f;
        if (g == 0 && t == 0 && j0 < A.Wp) xnext = rb_dq_x(A, img, q, cc, 0, j0);
        __syncthreads();
        for (int tau = 0; tau < A.nsteps; tau++) {
            /* Every K steps: rows tau .. tau + K - 1 of the halo (x and y of
             * the left neighbour's last columns), once it has finished them. */
            if (left && tau % K == 0 && tau < A.Hp) {
                const int last = min(tau + K - 1, A.Hp - 1);
                if (tid == 0) rb_dq_wait(left, last + S, sync);
                __syncthreads();
                const int n = (last - tau + 1) * halo;
                for (int e = tid; e < n; e += S * G) {
                    const int row = tau + e / halo, c = e % halo, j = j0 - halo + c;
                    xs[(row & mask) * RW + c] = rb_dq_x(A, img, q, cc, row, j);
                    ys[(row & mask) * RW + c] = __ldcg(&Yl[(size_t)row * A.Wp + j]);
                }
            }
            if (g == 0) {
                const int i = tau - t, j = j0 + t;
                xs[(i & mask) * RW + halo + t] = xnext;
                const int in = i + 1;
                xnext = (in >= 0 && in < A.Hp && j < A.Wp) ? rb_dq_x(A, img, q, cc, in, j) : 0.f;
            }
            __syncthreads();
            const int i = tau - t;
            const bool valid = i >= 0 && i < A.Hp;
            float p = 0.f;
            if (valid) {
                const int col = halo + t;
                p = rb_dq_partial<true>(
                    cs, lda, cs + na, ldb, A.ra[q], ca, A.rb[q], cb, g, G,
                    [&](int r) { return (const float *)xs + ((i - r) & mask) * RW + col; },
                    [&](int r) { return (const float *)ys + ((i - r) & mask) * RW + col; });
            }
            if (G > 1) {
                part[g * S + t] = p;
                __syncthreads();
            }
            if (g == 0) {
                float y = p;
                for (int h = 1; h < G; h++) y += part[h * S + t];
                if (!valid) y = 0.f;
                ys[(i & mask) * RW + halo + t] = y;
                if (valid && j0 + t < A.Wp) Yl[(size_t)i * A.Wp + j0 + t] = y;
            }
            if ((tau + 1) % K == 0 || tau + 1 == A.nsteps) {
                /* The barrier orders the block's y stores before thread 0's
                 * fence, which (cumulative, as in cooperative groups' grid
                 * sync) makes them visible GPU-wide before the new count. */
                __syncthreads();
                if (tid == 0) {
                    __threadfence();
                    rb_dq_store_release(mine, tau + 1);
                }
            }
        }
    }
}

__global__ void rb_dq_combine_kernel(const rb_dq_args A, const float *__restrict__ Y, size_t plane,
                                     size_t pitch, int off, float *out)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c >= A.W) return;
    for (int cc = 0; cc < A.ch; cc++) {
        float s = 0.f;
        for (int q = 0; q < 4; q++) { /* the CPU's order: quadrant 0, 1, 2, 3 */
            const int i = A.P + ((q & 2) ? A.H - 1 - r : r) + off;
            const int j = A.P + ((q & 1) ? A.W - 1 - c : c) + off;
            s += Y[(size_t)(cc * 4 + q) * plane + (size_t)i * pitch + j];
        }
        out[((size_t)r * A.W + c) * A.ch + cc] = s;
    }
}

/* ------------------------------------------------------------------ host */
static int rb_dq_max_extent(const rb_deblur_plan *p)
{
    int mx = 1;
    for (int q = 0; q < 4; q++) {
        const rb_deblur_quad_coef *c = &p->qc[q];
        int e[4] = {c->ra, c->ca, c->rb, c->cb};
        for (int k = 0; k < 4; k++) mx = e[k] > mx ? e[k] : mx;
    }
    return mx;
}

size_t rb_cuda_deblur_coef_count(const rb_deblur_plan *p)
{
    size_t n = 0;
    for (int q = 0; q < 4; q++)
        n += (size_t)p->qc[q].ra * p->qc[q].ca + (size_t)p->qc[q].rb * p->qc[q].cb;
    return n ? n : 1;
}

void rb_cuda_deblur_pack(const rb_deblur_plan *p, float *host)
{
    size_t o = 0;
    for (int q = 0; q < 4; q++) {
        const rb_deblur_quad_coef *c = &p->qc[q];
        memcpy(host + o, c->a, sizeof(float) * c->ra * c->ca);
        o += (size_t)c->ra * c->ca;
        memcpy(host + o, c->b, sizeof(float) * c->rb * c->cb);
        o += (size_t)c->rb * c->cb;
    }
}

void rb_cuda_deblur_args(const rb_deblur_plan *p, const float *coef, const float cval[4],
                         rb_dq_args *a)
{
    memset(a, 0, sizeof *a);
    a->W = p->width;
    a->H = p->height;
    a->ch = p->channels;
    a->P = p->margin;
    a->mode = (int)p->boundary.mode;
    for (int c = 0; c < 4; c++) a->cval[c] = cval ? cval[c] : 0.f;
    a->Hp = p->margin + p->height;
    a->Wp = p->margin + p->width;
    const int mm = rb_dq_max_extent(p);
    a->halo = mm - 1;
    a->S = a->halo <= 32 ? 32 : 64;
    /* Groups split the window's rows: enough to keep the per-step chain short,
     * few enough that the two barriers per step stay cheap. */
    a->G = mm <= 4 ? 1 : mm <= 8 ? 2 : mm <= 16 ? 4 : 8;
    a->R = 1;
    while (a->R < 2 * mm + RB_DQ_BATCH) a->R *= 2;
    a->nstrips = (a->Wp + a->S - 1) / a->S;
    a->lanes = 4 * p->channels;
    a->nsteps = a->Hp + a->S - 1;
    size_t o = 0;
    for (int q = 0; q < 4; q++) {
        const rb_deblur_quad_coef *c = &p->qc[q];
        a->ra[q] = c->ra, a->ca[q] = c->ca, a->rb[q] = c->rb, a->cb[q] = c->cb;
        a->aoff[q] = (int)o;
        o += (size_t)c->ra * c->ca;
        a->boff[q] = (int)o;
        o += (size_t)c->rb * c->cb;
        int nq = c->ra * rb_dq_pad4(c->ca) + c->rb * rb_dq_pad4(c->cb);
        a->cmax = nq > a->cmax ? nq : a->cmax;
    }
    a->coef = coef;
}

size_t rb_cuda_deblur_smem(const rb_dq_args *a)
{
    return sizeof(float) *
           ((size_t)2 * a->R * (a->S + a->halo) + (size_t)a->G * a->S + (size_t)a->cmax);
}

size_t rb_cuda_deblur_sync_count(const rb_dq_args *a)
{
    return 2 + (size_t)a->lanes * a->nstrips;
}

typedef void (*rb_dq_kernel_fn)(const rb_dq_args, const float *, float *, int *);

static rb_dq_kernel_fn rb_dq_pick(const rb_dq_args *a)
{
#define RB_DQ_CASE(S_, G_) \
    if (a->S == S_ && a->G == G_) return rb_dq_flexible_kernel<S_, G_>;
    RB_DQ_CASE(32, 1) RB_DQ_CASE(32, 2) RB_DQ_CASE(32, 4) RB_DQ_CASE(32, 8)
    RB_DQ_CASE(64, 1) RB_DQ_CASE(64, 2) RB_DQ_CASE(64, 4) RB_DQ_CASE(64, 8)
#undef RB_DQ_CASE
    return nullptr;
}

static cudaError_t rb_dq_prepare(const rb_dq_args *a, rb_dq_kernel_fn *fn)
{
    *fn = rb_dq_pick(a);
    if (!*fn) return cudaErrorInvalidValue;
    size_t smem = rb_cuda_deblur_smem(a);
    if (smem > 48 * 1024)
        return cudaFuncSetAttribute(*fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    return cudaSuccess;
}

cudaError_t rb_cuda_deblur_grid(const rb_dq_args *a, int *grid)
{
    rb_dq_kernel_fn fn;
    cudaError_t e = rb_dq_prepare(a, &fn);
    if (e != cudaSuccess) return e;
    int dev = 0, sms = 0, per = 0;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return e;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fn, a->S * a->G,
                                                      rb_cuda_deblur_smem(a));
    if (e != cudaSuccess) return e;
    long g = (long)(per > 0 ? per : 1) * sms, units = (long)a->lanes * a->nstrips;
    *grid = (int)(g < units ? g : units);
    return cudaSuccess;
}

cudaError_t rb_cuda_deblur_flexible(const rb_dq_args *a, const float *img, float *Y, int *sync,
                                    int grid, cudaStream_t s)
{
    rb_dq_kernel_fn fn;
    cudaError_t e = rb_dq_prepare(a, &fn);
    if (e != cudaSuccess) return e;
    fn<<<grid < 1 ? 1 : grid, a->S * a->G, rb_cuda_deblur_smem(a), s>>>(*a, img, Y, sync);
    return rb_cuda_launch_check();
}

cudaError_t rb_cuda_deblur_combine(const rb_dq_args *a, const float *Y, size_t plane, size_t pitch,
                                   int off, float *out, cudaStream_t s)
{
    dim3 blk(128), grd((a->W + 127) / 128, a->H);
    rb_dq_combine_kernel<<<grd, blk, 0, s>>>(*a, Y, plane, pitch, off, out);
    return rb_cuda_launch_check();
}

/* ------------------------------------------------------ engine entry point */
#define RB_DQ_CU(call, what) RB_CU_CHECK(done, "deblur (cuda)", call, what)

extern "C" rb_status rb_cuda_deblur_run(rb_deblur_plan *p, const float *work, const float *cval,
                                        float *acc)
{
    rb_context *ctx = p->ctx;
    rb_status st = RB_OK;
    float *d_img = NULL, *d_Y = NULL, *d_out = NULL, *d_coef = NULL;
    int *d_sync = NULL, flag = 0, grid = 0;
    const size_t n = (size_t)p->width * p->height * p->channels;
    const size_t nc = rb_cuda_deblur_coef_count(p);
    float *hc = (float *)calloc(nc, sizeof(float));
    rb_dq_args a;
    size_t ybytes;
    if (!hc) return rb_error(ctx, RB_ERR_NOMEM, "deblur (cuda): out of memory");
    rb_cuda_alloc_use(&ctx->sw);
    rb_cuda_deblur_pack(p, hc);
    rb_cuda_deblur_args(p, NULL, cval, &a);
    ybytes = sizeof(float) * (size_t)a.lanes * a.Hp * a.Wp;
    RB_DQ_CU(rb_cuda_malloc((void **)&d_coef, sizeof(float) * nc), "allocating the coefficients");
    a.coef = d_coef;
    RB_DQ_CU(rb_cuda_malloc((void **)&d_img, sizeof(float) * n), "allocating the input image");
    RB_DQ_CU(rb_cuda_malloc((void **)&d_out, sizeof(float) * n), "allocating the output image");
    RB_DQ_CU(rb_cuda_malloc((void **)&d_Y, ybytes), "allocating the quadrant outputs");
    RB_DQ_CU(rb_cuda_malloc((void **)&d_sync, sizeof(int) * rb_cuda_deblur_sync_count(&a)),
             "allocating the progress counters");
    RB_DQ_CU(cudaMemcpy(d_coef, hc, sizeof(float) * nc, cudaMemcpyHostToDevice),
             "copying the coefficients");
    RB_DQ_CU(cudaMemcpy(d_img, work, sizeof(float) * n, cudaMemcpyHostToDevice),
             "copying the input image");
    RB_DQ_CU(cudaMemset(d_sync, 0, sizeof(int) * rb_cuda_deblur_sync_count(&a)),
             "clearing the progress counters");
    RB_DQ_CU(rb_cuda_deblur_grid(&a, &grid), "sizing the grid");
    /* test hook "test:deblur_grid" (switches.h): the flexible kernel with n blocks
     * (tests use 1, 2, 3 ... to show that no grid size deadlocks) */
    if (ctx->sw.hook_deblur_grid > 0) grid = ctx->sw.hook_deblur_grid;
    RB_DQ_CU(rb_cuda_deblur_flexible(&a, d_img, d_Y, d_sync, grid, 0), "launching the wavefront kernel");
    RB_DQ_CU(rb_cuda_deblur_combine(&a, d_Y, (size_t)a.Hp * a.Wp, (size_t)a.Wp, 0, d_out, 0),
             "launching the quadrant sum");
    RB_DQ_CU(cudaMemcpy(&flag, d_sync + 1, sizeof(int), cudaMemcpyDeviceToHost),
             "running the wavefront kernel");
    if (flag) {
        st = rb_error(ctx, RB_ERR_DEVICE,
                      "deblur (cuda): a column strip waited too long for its left neighbour "
                      "(wavefront stalled)");
        goto done;
    }
    RB_DQ_CU(cudaMemcpy(acc, d_out, sizeof(float) * n, cudaMemcpyDeviceToHost),
             "copying the result back");
    snprintf(p->backend_name, sizeof p->backend_name,
             "cuda (flexible wavefront, %d blocks x %d threads)", grid, a.S * a.G);
done:
    rb_cuda_free(d_coef);
    rb_cuda_free(d_img);
    rb_cuda_free(d_out);
    rb_cuda_free(d_Y);
    rb_cuda_free(d_sync);
    free(hc);
    return st;
}
