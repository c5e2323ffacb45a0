/* The CPU sweep's input decode (cpu_sweep_internal.h): sRGB to linear light
 * and straight alpha premultiplied, sample by sample, as rb_pixels_load_rows
 * does it. A unit of its own: both kernel copies call it out of line. */
#include "cpu_sweep_internal.h"
#include "srgb_tables.h"

/* One stored sample as rb_pixels_load_rows reads it before any decode. */
static inline float sw_sample(const unsigned char *e, rb_format f, unsigned *code)
{
    if (f == RB_U8) {
        *code = e[0];
        return (float)e[0] / 255.0f;
    }
    if (f == RB_U16) {
        uint16_t u;
        memcpy(&u, e, sizeof u);
        *code = u;
        return (float)u / 65535.0f;
    }
    float v;
    memcpy(&v, e, sizeof v);
    *code = 0;
    return v;
}

void rb_sweep_load_converted(const sw_pass *p, const unsigned char *s, long g0, int nl, float x[8])
{
    const size_t es = rb_format_size(p->sfmt);
    const int ch = p->ch;
    for (int l = nl; l < 8; l++)
        x[l] = 0.0f;
    if (p->dec && !p->alpha && !p->premul) { /* every lane a colour code: the plug-in's case */
        if (p->sfmt == RB_U8)
            for (int l = 0; l < nl; l++)
                x[l] = p->dec[s[l]];
        else
            for (int l = 0; l < nl; l++) {
                uint16_t u;
                memcpy(&u, s + 2 * (size_t)l, sizeof u);
                x[l] = p->dec[u];
            }
        return;
    }
    int c = (int)(g0 % ch);
    for (int l = 0; l < nl; l++) {
        const int is_alpha = p->alpha && c == ch - 1;
        const unsigned char *e = s + (size_t)l * es;
        unsigned code;
        float v = sw_sample(e, p->sfmt, &code);
        if (p->lin && !is_alpha)
            v = p->dec ? p->dec[code] : rb_srgb_decode(v);
        if (p->premul && !is_alpha)
            v *= sw_sample(e + (size_t)(ch - 1 - c) * es, p->sfmt, &code);
        x[l] = v;
        if (++c == ch)
            c = 0;
    }
}
