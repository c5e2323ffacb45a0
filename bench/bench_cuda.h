/* What the GPU benchmarks share: checked CUDA and engine calls (a failure
 * ends the benchmark: no number is printed from a failed run), CUDA-event
 * timing of one call, and medians. */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include "recblur.h"
#include <cuda_runtime.h>
#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

/* A failed call ends the benchmark: where, which call, and why. */
static inline void bench_fail(const char *file, int line, const char *call, const char *why)
{
    fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, why);
    exit(2);
}
#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) bench_fail(__FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    } while (0)
#define RK(ctx, call)                                                                   \
    do {                                                                                \
        if ((call) != RB_OK) bench_fail(__FILE__, __LINE__, #call, rb_context_error(ctx)); \
    } while (0)

/* Uniform [0, 1) from a xorshift64 generator: the benchmarks' inputs, the same
 * on every run for a given seed (bench_seed). */
static uint64_t bench_rng = 0x9E3779B97F4A7C15ull;
static inline void bench_seed(uint64_t seed) { bench_rng = seed; }
static inline double bench_urand(void)
{
    bench_rng ^= bench_rng << 13;
    bench_rng ^= bench_rng >> 7;
    bench_rng ^= bench_rng << 17;
    return (double)(bench_rng >> 11) / 9007199254740992.0;
}

/* Fresh pseudo-random floats in [0, 1) on the device, from a hash of index and
 * seed (a new seed a run: the timed calls never see the same input). */
static __global__ void bench_fill_kernel(float *p, size_t n, unsigned seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((unsigned long long)seed << 32 | seed);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    p[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
}
static inline void bench_fill(float *d, size_t n, unsigned seed)
{
    bench_fill_kernel<<<(unsigned)((n + 255) / 256), 256>>>(d, n, seed);
    CK(cudaGetLastError());
}

/* The benchmarks' symmetric filter of order r: poles 0.8 (real) and pairs
 * 0.7 e^{+-i 0.6}, 0.6 e^{+-i 1.3}, ... multiplied out into feedbacks. */
static inline rb_filter *bench_filter(rb_context *ctx, int r)
{
    rb_axis_filter f;
    memset(&f, 0, sizeof f);
    double d[RB_MAX_ORDER + 3] = {1.0};
    int deg = 0;
    static const double rad[4] = {0.7, 0.6, 0.5, 0.4}, th[4] = {0.6, 1.3, 2.0, 2.6};
    int pair = 0;
    while (deg < r) {
        double c1, c2;
        int step;
        if ((r - deg) % 2 == 1) { c1 = -0.8; c2 = 0; step = 1; }
        else { c1 = -2 * rad[pair] * cos(th[pair]); c2 = rad[pair] * rad[pair]; step = 2; pair++; }
        double t[RB_MAX_ORDER + 3] = {0};
        for (int k = 0; k <= deg + step; ++k) {
            double v = k <= deg ? d[k] : 0;
            if (k >= 1 && k - 1 <= deg) v += c1 * d[k - 1];
            if (k >= 2 && k - 2 <= deg) v += c2 * d[k - 2];
            t[k] = v;
        }
        memcpy(d, t, sizeof d);
        deg += step;
    }
    f.causal_order = f.anticausal_order = r;
    for (int k = 0; k < r; ++k) f.causal[k] = f.anticausal[k] = -d[k + 1];
    rb_filter *out;
    RK(ctx, rb_filter_create(ctx, &f, &f, &out));
    return out;
}

/* Milliseconds of call() between two CUDA events on `stream` (the legacy
 * stream by default); the events are made once and kept. */
template <class Call>
static float bench_event_ms(Call call, cudaStream_t stream = 0)
{
    static cudaEvent_t e0, e1;
    if (!e0) {
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
    }
    CK(cudaEventRecord(e0, stream));
    call();
    CK(cudaEventRecord(e1, stream));
    CK(cudaEventSynchronize(e1));
    float ms = 0.0f;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
}

/* an n x n image of ch channels at data, packed */
static inline rb_image bench_square_image(int n, int ch, rb_format fmt, rb_memory mem, void *data)
{
    rb_image im;
    memset(&im, 0, sizeof im);
    im.width = im.height = n;
    im.channels = ch;
    im.format = fmt;
    im.memory = mem;
    im.data = data;
    return im;
}

/* the median (the mean of the middle two for an even count) */
template <class T>
static T bench_median(std::vector<T> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (T)0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
