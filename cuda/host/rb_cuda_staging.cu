/* Pinned staging for host images (rb_cuda_staging.h): a ring of pinned slots,
 * CPU threads that copy the caller's rows into / out of them, and DMAs on a
 * copy stream of its own so the CPU copy of one chunk overlaps the DMA of the
 * next and, on the way out, the filtering of the following strip. */
#include "rb_cuda_staging.h"
#include "rb_cuda_alloc.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* below this a chunk is copied by the calling thread alone (waking the pool costs
 * tens of microseconds, the copy of 1 MB about as much) */
#define RB_STAGE_PARALLEL_BYTES ((size_t)1 << 20)
#define RB_STAGE_MAX_THREADS 16
/* the context's threads, up to this: on the H100 machine's 16 cores the
 * copies of an 8192^2 RGB float image up and down took 43.7 ms with 8 threads
 * and 29.6 ms with 16, the pinned DMA's own 29.4 (bench/RESULTS.md) */
#define RB_STAGE_DEFAULT_THREADS 16

namespace {
struct rb_copy_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t dst_stride, src_stride, row_bytes, rows;
    int nt;          /* streaming (non-temporal) stores */
    int count_nan;   /* the rows are float32: count their NaNs while they pass */
};

/* NaN float32 samples among n bytes at s (n a multiple of 4; s need not be aligned) */
uint64_t rb_count_nan_bytes(const unsigned char *s, size_t n)
{
    uint64_t count = 0;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        float v;
        memcpy(&v, s + i, sizeof v);
        count += v != v;
    }
    return count;
}

/* memcpy, or with non-temporal stores: the bytes are not read again soon (the
 * DMA engine reads a slot, the caller reads its output later), so a streaming
 * store saves the read-for-ownership of every destination line (a third of
 * the memory traffic of a plain copy). With `nan` the float32 NaNs of the
 * source are added to *nan on the way (the engine's missing-data check, at no
 * extra pass over the caller's image). */
void rb_copy_bytes(unsigned char *d, const unsigned char *s, size_t n, int nt, uint64_t *nan)
{
#if defined(__SSE2__)
    if (nt && n >= 4096) {
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        uint64_t count = nan ? rb_count_nan_bytes(s, head) : 0;
        d += head;
        s += head;
        n -= head;
        size_t i = 0;
        for (; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
            _mm_stream_si128((__m128i *)(d + i), a);
            _mm_stream_si128((__m128i *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(d + i + 48), e);
            if (nan) {
                /* unordered with itself: NaN; one bit per lane */
                __m128 fa = _mm_castsi128_ps(a), fb = _mm_castsi128_ps(b);
                __m128 fc = _mm_castsi128_ps(c), fe = _mm_castsi128_ps(e);
                count += __builtin_popcount(_mm_movemask_ps(_mm_cmpunord_ps(fa, fa)) |
                                            _mm_movemask_ps(_mm_cmpunord_ps(fb, fb)) << 4 |
                                            _mm_movemask_ps(_mm_cmpunord_ps(fc, fc)) << 8 |
                                            _mm_movemask_ps(_mm_cmpunord_ps(fe, fe)) << 12);
            }
        }
        memcpy(d + i, s + i, n - i);
        if (nan) *nan += count + rb_count_nan_bytes(s + i, n - i);
        return;
    }
#endif
    (void)nt;
    memcpy(d, s, n);
    if (nan) *nan += rb_count_nan_bytes(s, n);
}

/* Part `part` of `parts` of the job's bytes (rows laid end to end), cut at
 * 64-byte boundaries so two threads never write one cache line. */
uint64_t rb_copy_part(const rb_copy_job &j, int part, int parts)
{
    uint64_t nan = 0;
    const size_t total = j.rows * j.row_bytes;
    size_t b0 = part == 0 ? 0 : (total / parts * part) & ~(size_t)63;
    size_t b1 = part == parts - 1 ? total : (total / parts * (part + 1)) & ~(size_t)63;
    while (b0 < b1) {
        size_t r = b0 / j.row_bytes, o = b0 % j.row_bytes;
        size_t n = j.row_bytes - o < b1 - b0 ? j.row_bytes - o : b1 - b0;
        rb_copy_bytes(j.dst + r * j.dst_stride + o, j.src + r * j.src_stride + o, n, j.nt,
                      j.count_nan ? &nan : NULL);
        b0 += n;
    }
#if defined(__SSE2__)
    if (j.nt) _mm_sfence();  /* streaming stores visible before the DMA or the caller reads */
#endif
    return nan;
}
}  // namespace

struct rb_cuda_stage_pool {
    std::mutex m;
    std::condition_variable go, done;
    std::vector<std::thread> th;
    unsigned long gen = 0;
    int pending = 0;
    bool quit = false;
    rb_copy_job job{};
    int parts = 1;
    uint64_t nan[RB_STAGE_MAX_THREADS] = {};  /* each part's NaN count */
};

static void rb_stage_worker(rb_cuda_stage_pool *p, int idx)
{
    unsigned long seen = 0;
    for (;;) {
        rb_copy_job j;
        int parts;
        {
            std::unique_lock<std::mutex> lk(p->m);
            p->go.wait(lk, [&] { return p->quit || p->gen != seen; });
            if (p->quit) return;
            seen = p->gen;
            j = p->job;
            parts = p->parts;
        }
        const uint64_t nan = rb_copy_part(j, idx, parts);
        std::lock_guard<std::mutex> lk(p->m);
        p->nan[idx] = nan;
        if (--p->pending == 0) p->done.notify_one();
    }
}

static void rb_stage_pool_free(rb_cuda_stage_pool *p)
{
    if (!p) return;
    {
        std::lock_guard<std::mutex> lk(p->m);
        p->quit = true;
    }
    p->go.notify_all();
    for (auto &t : p->th) t.join();
    delete p;
}

/* The pool of threads - 1 helpers (the caller copies a part too); NULL when
 * no thread could be started (the caller then copies alone). */
static rb_cuda_stage_pool *rb_stage_pool_new(int threads)
{
    rb_cuda_stage_pool *p = new (std::nothrow) rb_cuda_stage_pool;
    if (!p) return NULL;
    try {
        for (int i = 1; i < threads; ++i) p->th.emplace_back(rb_stage_worker, p, i);
    } catch (...) {
    }
    if (p->th.empty()) {
        delete p;
        return NULL;
    }
    return p;
}

/* Copy rows, with the pool when the chunk is large enough to pay for it;
 * returns the chunk's NaN count when the job counts them (0 otherwise). */
static uint64_t rb_stage_copy(rb_cuda_staging *st, const rb_copy_job &j)
{
    if (j.rows * j.row_bytes >= RB_STAGE_PARALLEL_BYTES && st->threads > 1 && !st->pool) {
        st->pool = rb_stage_pool_new(st->threads);
        if (!st->pool) st->threads = 1;
    }
    rb_cuda_stage_pool *p = st->pool;
    if (!p || j.rows * j.row_bytes < RB_STAGE_PARALLEL_BYTES) return rb_copy_part(j, 0, 1);
    const int parts = (int)p->th.size() + 1;
    {
        std::lock_guard<std::mutex> lk(p->m);
        p->job = j;
        p->parts = parts;
        p->pending = parts - 1;
        p->gen++;
    }
    p->go.notify_all();
    uint64_t nan = rb_copy_part(j, 0, parts);
    std::unique_lock<std::mutex> lk(p->m);
    p->done.wait(lk, [&] { return p->pending == 0; });
    for (int k = 1; k < parts; ++k) nan += p->nan[k];
    return nan;
}

extern "C" int rb_cuda_staging_wanted(const rb_switches *sw)
{
    return !sw->cuda_staging_off;
}

extern "C" void rb_cuda_staging_drain(rb_cuda_staging *st)
{
    if (st && st->copy) cudaStreamSynchronize(st->copy);
}

extern "C" void rb_cuda_staging_fini(rb_cuda_staging *st)
{
    if (!st) return;
    rb_cuda_staging_drain(st);
    rb_stage_pool_free(st->pool);
    st->pool = NULL;
    for (int k = 0; k < RB_STAGE_SLOTS; ++k) {
        rb_cuda_free_host(st->slot[k]);
        if (st->slot_free[k]) cudaEventDestroy(st->slot_free[k]);
    }
    for (int k = 0; k < RB_STAGE_MAX_STRIPS; ++k)
        if (st->strip_done[k]) cudaEventDestroy(st->strip_done[k]);
    if (st->up_done) cudaEventDestroy(st->up_done);
    if (st->copy) cudaStreamDestroy(st->copy);
    memset(st, 0, sizeof *st);
}

extern "C" void rb_cuda_staging_config(rb_cuda_staging *st, size_t image_bytes, size_t row_bytes_max,
                                       int threads, const rb_switches *sw)
{
    memset(st, 0, sizeof *st);
    /* small images get small slots (pinned allocations are slow), big ones
     * RB_STAGE_SLOT_BYTES; a slot always holds one whole row */
    size_t bytes = (image_bytes / 4 + 65535) & ~(size_t)65535;
    if (bytes > RB_STAGE_SLOT_BYTES) bytes = RB_STAGE_SLOT_BYTES;
    if (bytes < 65536) bytes = 65536;
    if (sw->cuda_staging_slot > 0) bytes = sw->cuda_staging_slot;  /* tests: many small chunks */
    if (bytes < row_bytes_max) bytes = row_bytes_max;
    st->slot_bytes = bytes;
    if (sw->cuda_staging_threads > 0)
        threads = sw->cuda_staging_threads;
    else if (threads > RB_STAGE_DEFAULT_THREADS)
        threads = RB_STAGE_DEFAULT_THREADS;
    st->nt = !sw->cuda_staging_memcpy;
    st->strips = sw->cuda_staging_strips;
    if (st->strips > RB_STAGE_MAX_STRIPS) st->strips = RB_STAGE_MAX_STRIPS;
    st->bands = sw->cuda_staging_bands;
    if (st->bands > 64) st->bands = 64;
    st->threads = threads < 1 ? 1 : threads > RB_STAGE_MAX_THREADS ? RB_STAGE_MAX_THREADS : threads;
}

extern "C" cudaError_t rb_cuda_staging_alloc(rb_cuda_staging *st)
{
    const size_t bytes = st->slot_bytes;
    cudaError_t e = cudaStreamCreateWithFlags(&st->copy, cudaStreamNonBlocking);
    if (e != cudaSuccess) goto fail;
    if ((e = cudaEventCreateWithFlags(&st->up_done, cudaEventDisableTiming)) != cudaSuccess) goto fail;
    for (int k = 0; k < RB_STAGE_MAX_STRIPS; ++k)
        if ((e = cudaEventCreateWithFlags(&st->strip_done[k], cudaEventDisableTiming)) != cudaSuccess) goto fail;
    for (int k = 0; k < RB_STAGE_SLOTS; ++k) {
        if ((e = cudaEventCreateWithFlags(&st->slot_free[k], cudaEventDisableTiming)) != cudaSuccess) goto fail;
        if ((e = rb_cuda_malloc_host((void **)&st->slot[k], bytes)) != cudaSuccess) goto fail;
    }
    /* the copy threads too, when chunks will be large enough to share
     * (rb_stage_copy), so that the first execute starts none */
    if (st->threads > 1 && st->slot_bytes >= RB_STAGE_PARALLEL_BYTES && !st->pool) {
        st->pool = rb_stage_pool_new(st->threads);
        if (!st->pool) st->threads = 1;
    }
    return cudaSuccess;
fail:
    cudaGetLastError();
    rb_cuda_staging_fini(st);
    return e;
}

extern "C" int rb_cuda_host_is_pinned(const void *p, size_t bytes)
{
    const void *ends[2] = {p, (const unsigned char *)p + (bytes ? bytes - 1 : 0)};
    for (int i = 0; i < 2; ++i) {
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, ends[i]) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        if (a.type != cudaMemoryTypeHost) return 0;
    }
    return 1;
}

/* Rows between a slot (packed) and the device; one linear copy when the device
 * rows are packed too. */
static cudaError_t rb_stage_dma(void *dst, size_t dpitch, const void *src, size_t spitch, size_t row_bytes,
                                size_t rows, cudaMemcpyKind kind, cudaStream_t s)
{
    if (dpitch == row_bytes && spitch == row_bytes) return cudaMemcpyAsync(dst, src, row_bytes * rows, kind, s);
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, row_bytes, rows, kind, s);
}

/* The next slot of the ring, once its last DMA is done (the CPU writes it or
 * reads it next). */
static cudaError_t rb_stage_take(rb_cuda_staging *st, int *k)
{
    *k = st->next;
    st->next = (st->next + 1) % RB_STAGE_SLOTS;
    if (!st->slot_used[*k]) return cudaSuccess;
    return cudaEventSynchronize(st->slot_free[*k]);
}

extern "C" cudaError_t rb_cuda_stage_up(rb_cuda_staging *st, void *dev, size_t dev_pitch, const void *host,
                                        size_t host_stride, size_t row_bytes, size_t rows, cudaStream_t q,
                                        rb_nan_tally *nan)
{
    cudaError_t e;
    if (!st) {
        if (nan) nan->uncounted = 1;
        return cudaMemcpy2DAsync(dev, dev_pitch, host, host_stride, row_bytes, rows, cudaMemcpyHostToDevice, q);
    }
    const size_t span = host_stride * (rows - 1) + row_bytes;
    if (row_bytes > st->slot_bytes || rb_cuda_host_is_pinned(host, span)) {
        /* pinned already: DMA straight from the caller's buffer (no CPU pass to count in) */
        if (nan) nan->uncounted = 1;
        e = cudaMemcpy2DAsync(dev, dev_pitch, host, host_stride, row_bytes, rows, cudaMemcpyHostToDevice,
                              st->copy);
        return e != cudaSuccess ? e : cudaEventRecord(st->up_done, st->copy);
    }
    const size_t per = st->slot_bytes / row_bytes;
    for (size_t r0 = 0; r0 < rows; r0 += per) {
        const size_t n = rows - r0 < per ? rows - r0 : per;
        int k;
        if ((e = rb_stage_take(st, &k)) != cudaSuccess) return e;
        rb_copy_job j = {st->slot[k], (const unsigned char *)host + r0 * host_stride, row_bytes, host_stride,
                         row_bytes, n, st->nt, nan != NULL};
        const uint64_t found = rb_stage_copy(st, j);
        if (nan) nan->count += found;
        e = rb_stage_dma((unsigned char *)dev + r0 * dev_pitch, dev_pitch, st->slot[k], row_bytes, row_bytes, n,
                         cudaMemcpyHostToDevice, st->copy);
        if (e != cudaSuccess) return e;
        if ((e = cudaEventRecord(st->slot_free[k], st->copy)) != cudaSuccess) return e;
        st->slot_used[k] = 1;
    }
    return cudaEventRecord(st->up_done, st->copy);
}

namespace {
/* Walks the download's chunks: strip by strip, at most `per` rows each. */
struct rb_chunker {
    size_t rows, strip_rows, per;
    size_t y;       /* first row of the next chunk */
    int strip;      /* strip of the next chunk */
    bool next(size_t *y0, size_t *n, int *strip_of, bool *first)
    {
        if (y >= rows) return false;
        size_t end = (size_t)(strip + 1) * strip_rows;
        if (end > rows) end = rows;
        *first = y == (size_t)strip * strip_rows;
        *y0 = y;
        *n = end - y < per ? end - y : per;
        *strip_of = strip;
        y += *n;
        if (y == end) strip++;
        return true;
    }
};
}  // namespace

extern "C" cudaError_t rb_cuda_stage_down(rb_cuda_staging *st, void *host, size_t host_stride, const void *dev,
                                          size_t dev_pitch, size_t row_bytes, size_t rows, size_t strip_rows,
                                          const cudaEvent_t *ready, int nstrips)
{
    cudaError_t e;
    const unsigned char *d = (const unsigned char *)dev;
    unsigned char *h = (unsigned char *)host;
    const size_t span = host_stride * (rows - 1) + row_bytes;
    if (row_bytes > st->slot_bytes || rb_cuda_host_is_pinned(host, span)) {
        /* pinned already: one DMA per strip, each after its strip is filtered */
        for (int j = 0; j < nstrips; ++j) {
            size_t y0 = (size_t)j * strip_rows, n = rows - y0 < strip_rows ? rows - y0 : strip_rows;
            if ((e = cudaStreamWaitEvent(st->copy, ready[j], 0)) != cudaSuccess) return e;
            e = cudaMemcpy2DAsync(h + y0 * host_stride, host_stride, d + y0 * dev_pitch, dev_pitch, row_bytes, n,
                                  cudaMemcpyDeviceToHost, st->copy);
            if (e != cudaSuccess) return e;
        }
        return cudaStreamSynchronize(st->copy);
    }
    /* up to RB_STAGE_SLOTS chunks in flight; the CPU empties the oldest while
     * the DMA engine fills the others */
    struct {
        size_t y0, n;
        int k;
    } fly[RB_STAGE_SLOTS];
    int head = 0, count = 0;
    rb_chunker ch = {rows, strip_rows, st->slot_bytes / row_bytes, 0, 0};
    for (;;) {
        size_t y0, n;
        int strip;
        bool first;
        while (count < RB_STAGE_SLOTS && ch.next(&y0, &n, &strip, &first)) {
            int k;
            /* the slot's previous DMA (an upload) runs on the same stream, before this one */
            k = st->next;
            st->next = (st->next + 1) % RB_STAGE_SLOTS;
            if (first && strip < nstrips && (e = cudaStreamWaitEvent(st->copy, ready[strip], 0)) != cudaSuccess)
                return e;
            e = rb_stage_dma(st->slot[k], row_bytes, d + y0 * dev_pitch, dev_pitch, row_bytes, n,
                             cudaMemcpyDeviceToHost, st->copy);
            if (e != cudaSuccess) return e;
            if ((e = cudaEventRecord(st->slot_free[k], st->copy)) != cudaSuccess) return e;
            st->slot_used[k] = 1;
            int at = (head + count) % RB_STAGE_SLOTS;
            fly[at].y0 = y0;
            fly[at].n = n;
            fly[at].k = k;
            count++;
        }
        if (count == 0) break;
        int k = fly[head].k;
        if ((e = cudaEventSynchronize(st->slot_free[k])) != cudaSuccess) return e;
        rb_copy_job j = {h + fly[head].y0 * host_stride, st->slot[k], host_stride, row_bytes, row_bytes,
                         fly[head].n, st->nt, 0};
        rb_stage_copy(st, j);
        head = (head + 1) % RB_STAGE_SLOTS;
        count--;
    }
    return cudaSuccess;
}
