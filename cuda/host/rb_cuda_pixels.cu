/* Pixel plumbing on the device: stored samples <-> packed float32 working
 * images. */
#include "rb_cuda.h"
#include "rb_cuda_staging.h" /* rb_cuda_pixels_warm */

/* Same functions as the CPU's pixel_convert.c (odd-symmetric for negatives). */
static __device__ __forceinline__ float rb_srgb_decode(float v)
{
    float a = fabsf(v);
    float r = a <= 0.04045f ? a / 12.92f : powf((a + 0.055f) / 1.055f, 2.4f);
    return v < 0 ? -r : r;
}

static __device__ __forceinline__ float rb_srgb_encode(float v)
{
    float a = fabsf(v);
    float r = a <= 0.0031308f ? a * 12.92f : 1.055f * powf(a, 1.0f / 2.4f) - 0.055f;
    return v < 0 ? -r : r;
}

static __device__ __forceinline__ float rb_read_sample(const unsigned char *row, int format, int i)
{
    switch (format) {
    case RB_U8: return (float)row[i] / 255.0f;
    case RB_U16: return (float)((const unsigned short *)row)[i] / 65535.0f;
    case RB_F64: return (float)((const double *)row)[i];
    default: return ((const float *)row)[i];
    }
}

static __device__ __forceinline__ void rb_write_sample(unsigned char *row, int format, int i, float v)
{
    switch (format) {
    /* round half up and clamp, NaN -> 0, as the CPU does */
    case RB_U8: {
        float t = v * 255.0f + 0.5f;
        t = t > 0.0f ? (t < 255.0f ? t : 255.0f) : 0.0f;
        row[i] = (unsigned char)t;
        break;
    }
    case RB_U16: {
        float t = v * 65535.0f + 0.5f;
        t = t > 0.0f ? (t < 65535.0f ? t : 65535.0f) : 0.0f;
        ((unsigned short *)row)[i] = (unsigned short)t;
        break;
    }
    case RB_F64: ((double *)row)[i] = v; break;
    default: ((float *)row)[i] = v;
    }
}

__global__ void rb_load_kernel(const rb_cuda_pixels p, const unsigned char *raw, float *dst)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t npix = (size_t)p.width * p.height;
    if (idx >= npix) return;
    int yy = (int)(idx / p.width), xx = (int)(idx % p.width);
    const unsigned char *row = raw + (size_t)yy * p.pitch;
    int c = p.channels;
    int has_alpha = p.alpha != RB_ALPHA_NONE;
    int ncol = has_alpha ? c - 1 : c;
    float *d = dst + (size_t)yy * (p.ld ? p.ld : (size_t)p.width * c) + (size_t)xx * c;
    float v[4];
    for (int k = 0; k < c; ++k) v[k] = rb_read_sample(row, p.format, xx * c + k);
    if (p.linear)
        for (int k = 0; k < ncol; ++k) v[k] = rb_srgb_decode(v[k]);
    if (p.alpha == RB_ALPHA_STRAIGHT)
        for (int k = 0; k < ncol; ++k) v[k] *= v[c - 1];
    for (int k = 0; k < c; ++k) d[k] = v[k];
}

__global__ void rb_store_kernel(const rb_cuda_pixels p, const float *src, unsigned char *raw)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t npix = (size_t)p.width * p.height;
    if (idx >= npix) return;
    int yy = (int)(idx / p.width), xx = (int)(idx % p.width);
    unsigned char *row = raw + (size_t)yy * p.pitch;
    int c = p.channels;
    int has_alpha = p.alpha != RB_ALPHA_NONE;
    int ncol = has_alpha ? c - 1 : c;
    const float *q = src + (size_t)yy * (p.ld ? p.ld : (size_t)p.width * c) + (size_t)xx * c;
    float v[4];
    for (int k = 0; k < c; ++k) v[k] = q[k];
    if (p.alpha == RB_ALPHA_STRAIGHT) {
        float a = v[c - 1];
        float inv = a > RB_ALPHA_FLOOR ? 1.0f / a : 0.0f;
        for (int k = 0; k < ncol; ++k) v[k] *= inv;
    }
    if (p.linear)
        for (int k = 0; k < ncol; ++k) v[k] = rb_srgb_encode(v[k]);
    for (int k = 0; k < c; ++k) rb_write_sample(row, p.format, xx * c + k, v[k]);
}

static unsigned rb_blocks(size_t n, int bs) { return (unsigned)((n + bs - 1) / bs); }

extern "C" cudaError_t rb_cuda_load(const rb_cuda_pixels *p, const void *raw, float *dst,
                                    cudaStream_t s)
{
    size_t n = (size_t)p->width * p->height;
    rb_load_kernel<<<rb_blocks(n, 256), 256, 0, s>>>(*p, (const unsigned char *)raw, dst);
    return cudaGetLastError();
}

extern "C" cudaError_t rb_cuda_store(const rb_cuda_pixels *p, const float *src, void *raw,
                                     cudaStream_t s)
{
    size_t n = (size_t)p->width * p->height;
    rb_store_kernel<<<rb_blocks(n, 256), 256, 0, s>>>(*p, src, (unsigned char *)raw);
    return cudaGetLastError();
}

/* rb_cuda_staging.h: load this module's kernels now (cudaFuncGetAttributes
 * loads a lazily loaded kernel); on the warm-up's thread, errors are ignored */
extern "C" void rb_cuda_pixels_warm(void)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, rb_load_kernel) != cudaSuccess || cudaFuncGetAttributes(&a, rb_store_kernel) != cudaSuccess)
        cudaGetLastError();
}
