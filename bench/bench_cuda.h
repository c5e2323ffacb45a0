/* What the GPU benchmarks share: checked CUDA and engine calls (a failure
 * ends the benchmark: no number is printed from a failed run), CUDA-event
 * timing of one call, and medians. */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include "recblur.h"
#include <cuda_runtime.h>
#include <algorithm>
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
