/* sRGB for 8- and 16-bit samples by table: decoding a stored code is a table
 * read (the table holds rb_srgb_decode of each code, so the bits are those of
 * the direct call), and encoding a working value to a code is a search in the
 * values where the stored code steps up. A powf per sample made linear light
 * on integer images cost more than the filter itself (2.4 s of a 6000x4000
 * RGB call against 1.9 s of filtering, bench/RESULTS.md). */
#include "srgb_tables.h"
#include "pixel_convert.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static uint32_t bits_of(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static float float_of(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static float decode_u8[256];
static float decode_u16[65536];
/* up_u8[k]: the least float v > 0 whose code is k or more (k = 1..255);
 * up_u16 the same for 16 bits. A code is 1 + the index of the last step at
 * or below v. */
static float up_u8[256];
static float up_u16[65536]; /* made at the first 16-bit encode */

/* The code where each run of 2^shift floats starts, from the first step on:
 * steps lie further apart than a run (checked when made), so a value's code
 * is its run's start code or the next, one comparison instead of a search.
 * start NULL: the search (search_steps) stands in. Every table is static
 * storage, not malloc: the engine lives inside modules that hosts unload
 * (ImageMagick's dlclose), and a table made once per process would leak
 * with each unload. */
typedef struct {
    rb_srgb_runs pub;    /* first, shift, up; start: mem once made, NULL until then */
    size_t n;            /* runs */
    uint16_t *mem;
    size_t cap;          /* runs mem holds */
} step_runs;
static uint16_t runs_u8_mem[1 << 12], runs_u16_mem[1 << 20]; /* 1664 and 680315 used */
static step_runs runs_u8 = {{0, 16, NULL, NULL}, 0, runs_u8_mem, 1 << 12},
                 runs_u16 = {{0, 8, NULL, NULL}, 0, runs_u16_mem, 1 << 20};
static pthread_once_t once_u8 = PTHREAD_ONCE_INIT, once_u16 = PTHREAD_ONCE_INIT;
static pthread_once_t once_dec16 = PTHREAD_ONCE_INIT;

static unsigned search_steps(const float *up, unsigned n, float v);

/* The runs of `r` over the steps up[1..top]; left empty (the search) when two
 * steps fall in one run or the runs would not fit r->mem. */
static void make_runs(step_runs *r, const float *up, unsigned top)
{
    for (unsigned k = 2; k <= top; k++)
        if (bits_of(up[k]) - bits_of(up[k - 1]) <= (1u << r->pub.shift))
            return;
    rb_srgb_runs *p = &r->pub;
    p->first = bits_of(up[1]);
    p->up = up;
    r->n = ((bits_of(up[top]) - p->first) >> p->shift) + 1;
    if (r->n > r->cap)
        return;
    for (size_t i = 0; i < r->n; i++)
        r->mem[i] = (uint16_t)search_steps(up, top + 1, float_of(p->first + (uint32_t)(i << p->shift)));
    p->start = r->mem;
}

/* The stored code of working value v, as rb_pixels_store_rows rounds it:
 * encode, scale, add a half, clamp (NaN to 0), truncate. */
static unsigned code_of(float v, float scale)
{
    float s = rb_srgb_encode(v) * scale + 0.5f;
    s = s > 0.0f ? (s < scale ? s : scale) : 0.0f;
    return (unsigned)s;
}

/* The least positive float whose code is at least k: from the inverse as a
 * guess, stepped one float at a time to the exact step (the code is a
 * non-decreasing function of v), by bisection if the guess is far off. */
static float step_up(unsigned k, float scale)
{
    float v = rb_srgb_decode(((float)k - 0.5f) / scale);
    int n = 0;
    while (n < 64 && code_of(v, scale) >= k && v > 0.0f)
        v = nextafterf(v, 0.0f), n++;
    while (n < 128 && code_of(v, scale) < k)
        v = nextafterf(v, INFINITY), n++;
    if (n < 128 && code_of(v, scale) >= k && (v == 0.0f || code_of(nextafterf(v, 0.0f), scale) < k))
        return v;
    float lo = 0.0f, hi = 2.0f; /* code(lo) < k <= code(hi) */
    while (nextafterf(lo, INFINITY) < hi) {
        float mid = lo + (hi - lo) * 0.5f;
        if (mid <= lo || mid >= hi)
            mid = nextafterf(lo, INFINITY);
        if (code_of(mid, scale) >= k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static void make_u8(void)
{
    for (int i = 0; i < 256; i++)
        decode_u8[i] = rb_srgb_decode((float)i / 255.0f);
    up_u8[0] = 0.0f;
    for (unsigned k = 1; k < 256; k++)
        up_u8[k] = step_up(k, 255.0f);
    make_runs(&runs_u8, up_u8, 255);
}

static void make_decode_u16(void)
{
    for (int i = 0; i < 65536; i++)
        decode_u16[i] = rb_srgb_decode((float)i / 65535.0f);
}

static void make_encode_u16(void)
{
    float *t = up_u16;
    t[0] = 0.0f;
    for (unsigned k = 1; k < 65536; k++)
        t[k] = step_up(k, 65535.0f);
    make_runs(&runs_u16, up_u16, 65535);
}

const float *rb_srgb_decode_table_u8(void)
{
    pthread_once(&once_u8, make_u8);
    return decode_u8;
}

const float *rb_srgb_decode_table_u16(void)
{
    pthread_once(&once_dec16, make_decode_u16);
    return decode_u16;
}

/* 1 + the last k in 1..n-1 with up[k] <= v (0 when none): the code of v > 0 */
static unsigned search_steps(const float *up, unsigned n, float v)
{
    unsigned lo = 0, hi = n; /* up[lo] <= v < up[hi], up[n] taken as +inf */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (up[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const rb_srgb_runs *rb_srgb_encoder_u8(void)
{
    pthread_once(&once_u8, make_u8);
    return runs_u8.pub.start ? &runs_u8.pub : NULL;
}

void rb_srgb_encode_u8(const float *v, unsigned char *out, size_t n, size_t step)
{
    const rb_srgb_runs *r = rb_srgb_encoder_u8();
    for (size_t i = 0; i < n; i++) {
        const float x = v[i * step];
        out[i * step] = r ? rb_srgb_code_u8(r, x)
                      : !(x > 0.0f) ? 0 /* NaN too */
                                    : (unsigned char)search_steps(up_u8, 256, x);
    }
}

void rb_srgb_encode_u16(const float *v, uint16_t *out, size_t n, size_t step)
{
    pthread_once(&once_u16, make_encode_u16);
    for (size_t i = 0; i < n; i++) {
        const float x = v[i * step];
        out[i * step] = runs_u16.pub.start ? (uint16_t)rb_srgb_code_by_runs(&runs_u16.pub, 65535, x)
                        : !(x > 0.0f)       ? 0 /* NaN too */
                                            : (uint16_t)search_steps(up_u16, 65536, x);
    }
}
