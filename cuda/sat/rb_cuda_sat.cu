/* Summed-area tables on the GPU (rb_sat through ops->sat): the route
 * (RECBLUR_CUDA_SAT, rb_cuda_sat.cuh's rb_sat_route), the staging every
 * one-pass kernel shares, and the multi-pass path. Default: the look-back
 * kernel of rb_cuda_sat_rebuild.cu (U8/U16/F32 input), else that of
 * rb_cuda_sat_lookback.cu in its default shape; =lookback the latter's
 * 2026-11-27 shape, =tiles the tile kernel of rb_cuda_scan_sat.cu,
 * =multipass the path below; test_gpu_1d_sat checks all four. Multi-pass: samples to double
 * (U8/U16 in integer units, so sums of up to 2^53 are exact), a column scan
 * (one thread per column lane, coalesced), a row scan (one warp per row and
 * channel, shuffle scans in 32-pixel chunks), and one rounding to the output
 * format (F64, or F32 rounded once). */
#include "rb_cuda_check.h"
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_scan.cuh"
#include "rb_cuda_sat.cuh"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void rb_sat_load(const unsigned char *raw, size_t pitch, int fmt, int w, int h, int ch,
                            double *D)
{
    size_t n = (size_t)w * ch, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * h) return;
    size_t y = i / n, k = i % n;
    const unsigned char *row = raw + y * pitch;
    double v;
    switch (fmt) {
    case RB_U8: v = row[k]; break;
    case RB_U16: v = ((const unsigned short *)row)[k]; break;
    case RB_F64: v = ((const double *)row)[k]; break;
    default: v = ((const float *)row)[k]; break;
    }
    D[i] = v;
}

__global__ void rb_sat_cols(double *D, size_t lanes, int h)
{
    size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= lanes) return;
    double run = 0.0;
    for (int y = 0; y < h; ++y) {
        run += D[(size_t)y * lanes + l];
        D[(size_t)y * lanes + l] = run;
    }
}

/* one warp per (row, channel) */
__global__ void rb_sat_rows(double *D, int w, int h, int ch)
{
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= (size_t)h * ch) return;
    size_t y = warp / ch;
    int c = (int)(warp % ch);
    double *row = D + y * (size_t)w * ch + c;
    double carry = 0.0;
    for (int x0 = 0; x0 < w; x0 += 32) {
        int x = x0 + lane;
        double v = x < w ? row[(size_t)x * ch] : 0.0;
        for (int o = 1; o < 32; o <<= 1) {
            double t = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += t;
        }
        v += carry;
        if (x < w) row[(size_t)x * ch] = v;
        carry = __shfl_sync(0xffffffffu, v, 31);
    }
}

__global__ void rb_sat_store(const double *D, int w, int h, int ch, int fmt, unsigned char *raw,
                             size_t pitch)
{
    size_t n = (size_t)w * ch, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * h) return;
    size_t y = i / n, k = i % n;
    unsigned char *row = raw + y * pitch;
    if (fmt == RB_F64) ((double *)row)[k] = D[i];
    else ((float *)row)[k] = (float)D[i];
}

#define RB_SAT_CU(call, what) RB_CU_CHECK(done, "cuda sat", call, what)

static rb_status rb_cuda_sat_multipass(rb_context *ctx, const rb_image *in, rb_image *out);

extern "C" rb_status rb_cuda_sat(rb_context *ctx, const rb_image *in, rb_image *out)
{
    rb_cuda_alloc_use(&ctx->sw);
    const rb_sat_route route = (rb_sat_route)ctx->sw.cuda_sat_route; /* switches.c's word index */
    if (route == RB_SAT_ROUTE_MULTIPASS) return rb_cuda_sat_multipass(ctx, in, out);
    return rb_cuda_sat_onepass_with(ctx, in, out, route);
}

/* The context's look-back scratch (rb_sat_scratch): kept from call to call so
 * that a call makes no allocation and zeroes no flags (the rebuilding kernel's
 * epochs); freed with the context's cached plans (rb_context_drop_cached_plans:
 * a switch, the back end or threads changed, an image plan made, the context
 * destroyed) and after a failed call. */
static void rb_cuda_sat_scratch_free(void *p)
{
    rb_sat_scratch *k = (rb_sat_scratch *)p;
    if (!k) return;
    rb_cuda_free(k->work);
    free(k);
}

static void rb_cuda_sat_scratch_drop(rb_context *ctx)
{
    rb_cuda_sat_scratch_free(ctx->sat_scratch);
    ctx->sat_scratch = NULL;
}

/* ctx's scratch of at least `bytes` on the calling thread's device: the one kept,
 * else a new one (epoch 0: its first call zeroes the flags) */
static cudaError_t rb_cuda_sat_scratch_get(rb_context *ctx, size_t bytes, rb_sat_scratch **out)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    rb_sat_scratch *k = (rb_sat_scratch *)ctx->sat_scratch;
    if (k && k->device == dev && k->bytes >= bytes) {
        *out = k;
        return cudaSuccess;
    }
    rb_cuda_sat_scratch_drop(ctx);
    k = (rb_sat_scratch *)calloc(1, sizeof *k);
    if (!k) return cudaErrorMemoryAllocation;
    if ((e = rb_cuda_malloc(&k->work, bytes)) != cudaSuccess) {
        free(k);
        return e;
    }
    k->bytes = bytes;
    k->device = dev;
    ctx->sat_scratch = k;
    ctx->sat_scratch_free = rb_cuda_sat_scratch_free;
    *out = k;
    return cudaSuccess;
}

/* rb_sat through a one-pass kernel, the route's */
extern "C" rb_status rb_cuda_sat_onepass_with(rb_context *ctx, const rb_image *in, rb_image *out,
                                              rb_sat_route route)
{
    rb_status st = RB_OK;
    const int w = in->width, h = in->height, ch = in->channels;
    const size_t n = (size_t)w * ch;
    const size_t in_row = n * rb_format_size(in->format), out_row = n * rb_format_size(out->format);
    const int tiles = route == RB_SAT_ROUTE_TILES;
    const rb_sat_shape shape = route == RB_SAT_ROUTE_LOOKBACK ? rb_sat_shape_lookback : rb_sat_shape_default;
    void *work = NULL, *sin = NULL, *sout = NULL;
    rb_sat_scratch *k = NULL;
    cudaError_t e;
    /* the calling thread's default stream: a fresh stream per call costs about as much
     * as the kernel at 4096^2; staging (and the tile kernel's scratch) stream-ordered */
    cudaStream_t q = cudaStreamPerThread;
    const void *src = in->data;
    void *dst = out->data;
    size_t src_pitch = rb_image_stride(in), dst_pitch = rb_image_stride(out);
    if (tiles)
        RB_SAT_CU(rb_cuda_malloc_async(&work, rb_cuda_sat_tiles_work_bytes(w, h, ch), q), "cudaMalloc (carries)");
    else
        RB_SAT_CU(rb_cuda_sat_scratch_get(ctx, rb_cuda_sat_shape_work_bytes(shape, w, h, ch), &k),
                  "cudaMalloc (carries)");
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
        RB_SAT_CU(rb_cuda_sat_shape_run(shape, src, src_pitch, in->format, dst, dst_pitch, out->format, w, h, ch,
                                        k, q, ctx->sw.hook_scan_delay_ns),
                  "summed-area table kernel");
    if (out->memory == RB_MEMORY_HOST)
        RB_SAT_CU(cudaMemcpy2DAsync(out->data, rb_image_stride(out), sout, out_row, out_row, h,
                                    cudaMemcpyDeviceToHost, q), "copying the table to the host");
done:
    /* stream-ordered frees after the work queued, then one wait (a free queued after
     * the wait cost a second one) */
    rb_cuda_free_async(work, q);
    rb_cuda_free_async(sin, q);
    rb_cuda_free_async(sout, q);
    e = cudaStreamSynchronize(q);
    if (st == RB_OK && e != cudaSuccess)
        st = rb_error(ctx, RB_ERR_DEVICE, "cuda sat: computing the table: %s", cudaGetErrorString(e));
    /* a failed call's flags and ticket are unknown: the next call starts a new scratch */
    if (st != RB_OK) rb_cuda_sat_scratch_drop(ctx);
    return st;
}

static rb_status rb_cuda_sat_multipass(rb_context *ctx, const rb_image *in, rb_image *out)
{
    rb_status st = RB_OK;
    const int w = in->width, h = in->height, ch = in->channels;
    const size_t n = (size_t)w * ch, total = n * h;
    const size_t in_row = n * rb_format_size(in->format), out_row = n * rb_format_size(out->format);
    double *D = NULL;
    void *stage = NULL;
    cudaStream_t q = NULL;
    const unsigned bs = 256;
    unsigned gb = (unsigned)((total + bs - 1) / bs);
    const void *src = in->data;
    size_t src_pitch = rb_image_stride(in);
    /* blocking: ordered after the caller's legacy-stream copies (see rb_cuda_backend.cu) */
    RB_SAT_CU(cudaStreamCreateWithFlags(&q, cudaStreamDefault), "cudaStreamCreate");
    RB_SAT_CU(rb_cuda_malloc((void **)&D, total * sizeof(double)), "cudaMalloc (sums)");
    if (in->memory == RB_MEMORY_HOST || out->memory == RB_MEMORY_HOST) {
        size_t sz = in_row > out_row ? in_row : out_row;
        RB_SAT_CU(rb_cuda_malloc(&stage, sz * h), "cudaMalloc (staging)");
    }
    if (in->memory == RB_MEMORY_HOST) {
        RB_SAT_CU(cudaMemcpy2DAsync(stage, in_row, in->data, src_pitch, in_row, h,
                                    cudaMemcpyHostToDevice, q), "copying the input to the device");
        src = stage;
        src_pitch = in_row;
    }
    rb_sat_load<<<gb, bs, 0, q>>>((const unsigned char *)src, src_pitch, in->format, w, h, ch, D);
    RB_SAT_CU(rb_cuda_launch_check(), "load kernel");
    rb_sat_cols<<<(unsigned)((n + 127) / 128), 128, 0, q>>>(D, n, h);
    RB_SAT_CU(rb_cuda_launch_check(), "column scan");
    {
        size_t warps = (size_t)h * ch;
        rb_sat_rows<<<(unsigned)((warps * 32 + 255) / 256), 256, 0, q>>>(D, w, h, ch);
        RB_SAT_CU(rb_cuda_launch_check(), "row scan");
    }
    if (out->memory == RB_MEMORY_HOST) {
        rb_sat_store<<<gb, bs, 0, q>>>(D, w, h, ch, out->format, (unsigned char *)stage, out_row);
        RB_SAT_CU(rb_cuda_launch_check(), "store kernel");
        RB_SAT_CU(cudaMemcpy2DAsync(out->data, rb_image_stride(out), stage, out_row, out_row, h,
                                    cudaMemcpyDeviceToHost, q), "copying the table to the host");
    } else {
        rb_sat_store<<<gb, bs, 0, q>>>(D, w, h, ch, out->format, (unsigned char *)out->data,
                                       rb_image_stride(out));
        RB_SAT_CU(rb_cuda_launch_check(), "store kernel");
    }
    RB_SAT_CU(cudaStreamSynchronize(q), "computing the table");
done:
    if (q) cudaStreamSynchronize(q);
    rb_cuda_free(D);
    rb_cuda_free(stage);
    if (q) cudaStreamDestroy(q);
    return st;
}
