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

#endif
