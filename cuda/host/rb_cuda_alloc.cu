/* Counted device allocations with test-only fault injection (rb_cuda_alloc.h). */
#include "rb_cuda_alloc.h"
extern "C" {
#include "rb_internal.h"
}
#include "host_memory.h"
#include <mutex>
#include <stdlib.h>
#include <unordered_map>

namespace {
std::mutex g_lock;
std::unordered_map<void *, size_t> g_device, g_host;
size_t g_device_bytes = 0, g_host_bytes = 0;
/* the switches of the context whose call runs (rb_cuda_alloc_use) */
size_t g_device_limit = (size_t)-1, g_host_limit = (size_t)-1;
bool g_fail_launch = false;

/* Under g_lock: may `bytes` more be taken without passing the limit? */
bool within(size_t held, size_t bytes, size_t limit)
{
    return bytes <= limit && held <= limit - bytes;
}

/* Under g_lock: count a successful allocation, or clear *ptr after a failed one. */
cudaError_t count(cudaError_t e, void **ptr, size_t bytes, std::unordered_map<void *, size_t> &m,
                  size_t &total)
{
    if (e != cudaSuccess) {
        *ptr = NULL;
        return e;
    }
    m[*ptr] = bytes;
    total += bytes;
    return cudaSuccess;
}

/* Under g_lock: stop counting ptr (unknown pointers are ignored). */
void forget(void *ptr, std::unordered_map<void *, size_t> &m, size_t &total)
{
    auto it = m.find(ptr);
    if (it != m.end()) {
        total -= it->second;
        m.erase(it);
    }
}
}  // namespace

extern "C" cudaError_t rb_cuda_malloc(void **ptr, size_t bytes)
{
    *ptr = NULL;
    std::lock_guard<std::mutex> hold(g_lock);
    if (!within(g_device_bytes, bytes, g_device_limit)) return cudaErrorMemoryAllocation;
    return count(cudaMalloc(ptr, bytes), ptr, bytes, g_device, g_device_bytes);
}

extern "C" cudaError_t rb_cuda_malloc_async(void **ptr, size_t bytes, cudaStream_t s)
{
    *ptr = NULL;
    std::lock_guard<std::mutex> hold(g_lock);
    if (!within(g_device_bytes, bytes, g_device_limit)) return cudaErrorMemoryAllocation;
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
    return count(cudaMallocAsync(ptr, bytes, s), ptr, bytes, g_device, g_device_bytes);
}

extern "C" void rb_cuda_free_async(void *ptr, cudaStream_t s)
{
    if (!ptr) return;
    std::lock_guard<std::mutex> hold(g_lock);
    forget(ptr, g_device, g_device_bytes);
    cudaFreeAsync(ptr, s);
}

extern "C" cudaError_t rb_cuda_malloc_host(void **ptr, size_t bytes)
{
    *ptr = NULL;
    std::lock_guard<std::mutex> hold(g_lock);
    if (!within(g_host_bytes, bytes, g_host_limit)) return cudaErrorMemoryAllocation;
    return count(cudaMallocHost(ptr, bytes), ptr, bytes, g_host, g_host_bytes);
}

extern "C" void rb_cuda_free(void *ptr)
{
    if (!ptr) return;
    std::lock_guard<std::mutex> hold(g_lock);
    forget(ptr, g_device, g_device_bytes);
    cudaFree(ptr);
}

extern "C" void rb_cuda_free_host(void *ptr)
{
    if (!ptr) return;
    std::lock_guard<std::mutex> hold(g_lock);
    forget(ptr, g_host, g_host_bytes);
    cudaFreeHost(ptr);
}

extern "C" void rb_cuda_alloc_use(const rb_switches *sw)
{
    std::lock_guard<std::mutex> hold(g_lock);
    g_device_limit = sw->cuda_alloc_limit;
    g_host_limit = sw->cuda_pinned_limit;
    g_fail_launch = sw->hook_fail_launch != 0;
}

extern "C" cudaError_t rb_cuda_launch_check(void)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && g_fail_launch) return cudaErrorLaunchFailure;
    return e;
}

extern "C" size_t rb_cuda_device_room(void)
{
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
        cudaGetLastError();
        free_b = 0;
    }
    const size_t margin = free_b / 16 > ((size_t)64 << 20) ? free_b / 16 : (size_t)64 << 20;
    size_t room = free_b > margin ? free_b - margin : 0;
    std::lock_guard<std::mutex> hold(g_lock);
    if (g_device_limit != (size_t)-1) {
        const size_t left = g_device_limit > g_device_bytes ? g_device_limit - g_device_bytes : 0;
        if (left < room) room = left;
    }
    return room;
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

/* host_memory.h: a caller's pages locked in place for rb_context_host_alloc,
 * counted and limited as the staging's pinned memory; the limit's room is
 * taken first so that the slow locking runs without the lock */
extern "C" int rb_cuda_host_register(void *p, size_t bytes, const rb_switches *sw)
{
    {
        std::lock_guard<std::mutex> hold(g_lock);
        if (!within(g_host_bytes, bytes, sw->cuda_pinned_limit)) return -1;
        g_host_bytes += bytes;
    }
    const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    std::lock_guard<std::mutex> hold(g_lock);
    if (e != cudaSuccess) {
        cudaGetLastError();
        g_host_bytes -= bytes;
        return -1;
    }
    g_host[p] = bytes;
    return 0;
}

extern "C" void rb_cuda_host_unregister(void *p)
{
    if (!p) return;
    {
        std::lock_guard<std::mutex> hold(g_lock);
        forget(p, g_host, g_host_bytes);
    }
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}
