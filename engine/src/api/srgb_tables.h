/* sRGB decode and encode of 8- and 16-bit codes by table (srgb_tables.c):
 * the same codes and values as rb_srgb_decode / rb_srgb_encode with
 * rb_pixels_store_rows' rounding, without a powf per sample. Thread-safe;
 * the tables are made at first use. */
#ifndef RB_SRGB_TABLES_H
#define RB_SRGB_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* rb_srgb_decode(code / 255), and of code / 65535, for every code */
const float *rb_srgb_decode_table_u8(void);
const float *rb_srgb_decode_table_u16(void);
/* out[i*step] = the stored code of working value v[i*step] (linear light,
 * premultiplication undone): round(255 * rb_srgb_encode(v)) clamped to
 * 0..255 (NaN 0), for i = 0..n-1; and the same to 0..65535. */
void rb_srgb_encode_u8(const float *v, unsigned char *out, size_t n, size_t step);
void rb_srgb_encode_u16(const float *v, uint16_t *out, size_t n, size_t step);

/* An encode's tables, for a caller that encodes inside its own loop (the
 * CPU sweep's row pass stores 8-bit codes as it makes them): the values
 * where the code steps up, and the code at the start of each run of
 * 2^shift floats from the first step on (steps lie more than a run apart, so
 * a value's code is its run's code or the next). */
typedef struct {
    uint32_t first;          /* bits of up[1], the least float with code 1 */
    int shift;
    const uint16_t *start;   /* code at each run's first float */
    const float *up;         /* up[k]: the least float whose code is k (k = 1..top) */
} rb_srgb_runs;
/* The 8-bit runs; NULL when they could not be made (rb_srgb_encode_u8 then searches) */
const rb_srgb_runs *rb_srgb_encoder_u8(void);

/* The code of v from the runs of an encode whose highest code is top (255 or
 * 65535): 0 for v <= 0 and NaN, top at and above up[top]. */
static inline unsigned rb_srgb_code_by_runs(const rb_srgb_runs *r, unsigned top, float v)
{
    uint32_t b;
    __builtin_memcpy(&b, &v, sizeof b);
    if (!(v > 0.0f) || b < r->first) /* NaN too */
        return 0;
    if (v >= r->up[top])
        return top;
    const unsigned c = r->start[(b - r->first) >> r->shift];
    return c + (v >= r->up[c + 1]);
}

/* One code of rb_srgb_encode_u8, from its runs */
static inline unsigned char rb_srgb_code_u8(const rb_srgb_runs *r, float v)
{
    return (unsigned char)rb_srgb_code_by_runs(r, 255, v);
}

#endif
