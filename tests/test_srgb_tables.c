/* The sRGB tables (engine/src/api/srgb_tables.c) give the codes and values of
 * the formula they replace (rb_srgb_decode / rb_srgb_encode with the store's
 * rounding): every code decoded, the floats on both sides of every step of
 * the 8- and 16-bit encoders, random floats over the whole range, and the
 * values outside it (negative, NaN, above 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_main.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pixel_convert.h"
#include "srgb_tables.h"
#include "test_util.h"

/* the formula, as rb_pixels_store_rows rounded before the tables */
static unsigned formula_code(float v, float scale)
{
    float s = rb_srgb_encode(v) * scale + 0.5f;
    s = s > 0.0f ? (s < scale ? s : scale) : 0.0f;
    return (unsigned)s;
}

static void test_decode_every_code(void **state)
{
    (void)state;
    const float *t8 = rb_srgb_decode_table_u8(), *t16 = rb_srgb_decode_table_u16();
    for (int i = 0; i < 256; i++) {
        const float want = rb_srgb_decode((float)i / 255.0f);
        assert_memory_equal(&t8[i], &want, sizeof want);
    }
    for (int i = 0; i < 65536; i++) {
        const float want = rb_srgb_decode((float)i / 65535.0f);
        assert_memory_equal(&t16[i], &want, sizeof want);
    }
}

static void check(float v, int bits)
{
    if (bits == 8) {
        unsigned char got;
        rb_srgb_encode_u8(&v, &got, 1, 1);
        if (got != formula_code(v, 255.0f))
            fail_msg("8-bit code of %.9g: table %u, formula %u", v, got, formula_code(v, 255.0f));
    } else {
        uint16_t got;
        rb_srgb_encode_u16(&v, &got, 1, 1);
        if (got != formula_code(v, 65535.0f))
            fail_msg("16-bit code of %.9g: table %u, formula %u", v, got, formula_code(v, 65535.0f));
    }
}

/* Both sides of every step: from the decoded half-code, walk to where the
 * formula's code changes and check the floats around it. */
static void test_encode_steps(void **state)
{
    (void)state;
    for (int bits = 8; bits <= 16; bits += 8) {
        const unsigned top = bits == 8 ? 255 : 65535;
        for (unsigned k = 1; k <= top; k++) {
            float v = rb_srgb_decode(((float)k - 0.5f) / (float)top);
            for (int n = 0; n < 64 && formula_code(v, (float)top) >= k; n++)
                v = nextafterf(v, 0.0f);
            for (int n = 0; n < 64 && formula_code(v, (float)top) < k; n++)
                v = nextafterf(v, INFINITY);
            float u = v;
            for (int d = 0; d < 3; d++)
                u = nextafterf(u, 0.0f);
            for (int d = 0; d < 7; d++, u = nextafterf(u, INFINITY))
                check(u, bits);
        }
    }
}

static void test_encode_random_and_outside(void **state)
{
    (void)state;
    for (int i = 0; i < 2000000; i++) {
        float v = (float)(tu_uniform() * 1.1);
        check(v, 8);
        check(v, 16);
        float tiny = (float)ldexp(tu_uniform(), -(int)(tu_uniform() * 120)); /* near zero */
        check(tiny, 8);
        check(tiny, 16);
    }
    const float odd[] = {0.0f, -0.0f, -1e-30f, -0.5f, 1.0f, 1.0000001f, 7.0f, INFINITY, -INFINITY, NAN,
                         1e-45f, 0.0031308f, 0.04045f};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        check(odd[i], 8);
        check(odd[i], 16);
    }
    /* strided: one channel of three */
    float v[9] = {0.2f, -1, -1, 0.5f, -1, -1, 0.9f, -1, -1};
    unsigned char out[9];
    memset(out, 77, sizeof out);
    rb_srgb_encode_u8(v, out, 3, 3);
    assert_int_equal(out[0], formula_code(0.2f, 255.0f));
    assert_int_equal(out[3], formula_code(0.5f, 255.0f));
    assert_int_equal(out[6], formula_code(0.9f, 255.0f));
    assert_int_equal(out[1], 77);
    assert_int_equal(out[8], 77);
}

int main(void)
{
    tu_seed("test_srgb_tables");
    TU_RUN_TESTS(cmocka_unit_test(test_decode_every_code), cmocka_unit_test(test_encode_steps),
                 cmocka_unit_test(test_encode_random_and_outside));
}
