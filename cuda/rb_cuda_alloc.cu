/* Counted device allocations with test-only fault injection (rb_cuda_alloc.h). */
#include "rb_cuda_alloc.h"
extern "C" {
#include "rb_internal.h"
}
#include <mutex>
#include <stdlib.h>
#include <unordered_map>

namespace {
std::mutex g_lock;
std::unordered_map<void *, size_t> g_device, g_host;
size_t g_device_bytes = 0, g_host_bytes = 0;

size_t env_limit(const char *name = "RECBLUR_CUDA_ALLOC_LIMIT")
{
    const char *e = getenv(name);
    if (!e || !*e) return (size_t)-1;
    char *end = NULL;
    unsigned long long v = strtoull(e, &end, 10);
    return (end && *end == '\0') ? (size_t)v : (size_t)-1;
}
}  // namespace

extern "C" cudaError_t rb_cuda_malloc(void **ptr, size_t bytes)
{
    *ptr = NULL;
    std::lock_guard<std::mutex> hold(g_lock);
    size_t limit = env_limit();
    if (bytes > limit || g_device_bytes > limit - bytes) return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess) {
        *ptr = NULL;
        return e;
    }
    g_device[*ptr] = bytes;
    g_device_bytes += bytes;
    return cudaSuccess;
}

extern "C" cudaError_t rb_cuda_malloc_async(void **ptr, size_t bytes, cudaStream_t s)
{
    *ptr = NULL;
    std::lock_guard<std::mutex> hold(g_lock);
    size_t limit = env_limit();
    if (bytes > limit || g_device_bytes > limit - bytes) return cudaErrorMemoryAllocation;
    static int pool_set = -1;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) dev = 0;
    if (pool_set != dev) { /* keep freed blocks for the next call instead of returning them */
        cudaMemPool_t pool;
        if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
            unsigned long long keep = 64ull << 20;
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        }
        pool_set = dev;
    }
    cudaError_t e = cudaMallocAsync(ptr, bytes, s);
    if (e != cudaSuccess) {
        *ptr = NULL;
        return e;
    }
    g_device[*ptr] = bytes;
    g_device_bytes += bytes;
    return cudaSuccess;
}

extern "C" void rb_cuda_free_async(void *ptr, cudaStream_t s)
{
    if (!ptr) return;
    std::lock_guard<std::mutex> hold(g_lock);
    auto it = g_device.find(ptr);
    if (it != g_device.end()) {
        g_device_bytes -= it->second;
        g_device.erase(it);
    }
    cudaFreeAsync(ptr, s);
}

extern "C" cudaError_t rb_cuda_malloc_host(void **ptr, size_t bytes)
{
    *ptr = NULL;
    std::lock_guard<std::mutex> hold(g_lock);
    size_t limit = env_limit("RECBLUR_CUDA_PINNED_LIMIT");
    if (bytes > limit || g_host_bytes > limit - bytes) return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMallocHost(ptr, bytes);
    if (e != cudaSuccess) {
        *ptr = NULL;
        return e;
    }
    g_host[*ptr] = bytes;
    g_host_bytes += bytes;
    return cudaSuccess;
}

extern "C" void rb_cuda_free(void *ptr)
{
    if (!ptr) return;
    std::lock_guard<std::mutex> hold(g_lock);
    auto it = g_device.find(ptr);
    if (it != g_device.end()) {
        g_device_bytes -= it->second;
        g_device.erase(it);
    }
    cudaFree(ptr);
}

extern "C" void rb_cuda_free_host(void *ptr)
{
    if (!ptr) return;
    std::lock_guard<std::mutex> hold(g_lock);
    auto it = g_host.find(ptr);
    if (it != g_host.end()) {
        g_host_bytes -= it->second;
        g_host.erase(it);
    }
    cudaFreeHost(ptr);
}

extern "C" cudaError_t rb_cuda_launch_check(void)
{
    cudaError_t e = cudaGetLastError();
    const char *f = getenv("RECBLUR_CUDA_FAIL_LAUNCH");
    if (e == cudaSuccess && f && *f && *f != '0') return cudaErrorLaunchFailure;
    return e;
}

/* rb_internal.h: for tests that check nothing leaks after an error. */
extern "C" size_t rb_cuda_device_bytes_in_use(void)
{
    std::lock_guard<std::mutex> hold(g_lock);
    return g_device_bytes;
}

/* rb_cuda_alloc.h: pinned host bytes held now (the staging's leak check). */
extern "C" size_t rb_cuda_host_bytes_in_use(void)
{
    std::lock_guard<std::mutex> hold(g_lock);
    return g_host_bytes;
}
