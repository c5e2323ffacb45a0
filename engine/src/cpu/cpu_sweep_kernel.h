/* The kernels of the sweep route (cpu_sweep.c), written once for both lane
 * types: cpu_sweep_lanes_d.c includes this file with SW_V = v4d (4 doubles,
 * SW_NV = 2 of them per group of 8 lanes), cpu_sweep_lanes_f.c with SW_V =
 * v8f (8 floats, SW_NV = 1), where SW_N(x) names the copy and SW_C(x) picks
 * the axis coefficients in that precision. SW_ROWS: the unit compiles the
 * row kernel (line_strip), SW_COLS: the column kernels and the team
 * member that runs both (sweep_main); the float lanes have both in one
 * unit, the double lanes (twice the code) one unit each. Everything here is
 * static except those two entry points (cpu_sweep_internal.h declares
 * them). Not a header of its own: no guard.
 *
 * A group of 8 lanes is SW_N(grp), SW_NV vectors of 32 bytes, and every
 * lane operation is written as a loop over them (SW_HV). The group was one
 * 64-byte vector (v8d) before: without AVX-512 (the x86-64-v3 clone, Zen 1
 * to 3) GCC has no register mode for it, so every v8d lived on the stack,
 * each operation loading and storing it in 16-byte pieces, and the loads
 * of what had just been stored in other widths missed store forwarding
 * (bench/RESULTS.md, 2026-11-26: 3x the CPU time of float lanes). Each lane
 * sees the same operations in the same order as before: the same bits. */

/* 8 source samples as rb_pixels_load makes them (u8/u16 scaled to [0,1]).
 * Bytes are widened by a shuffle with zeros first: GCC 12 turns a direct
 * u8 -> int conversion of a vector into byte-by-byte scalar code. */
typedef struct {
    SW_V v[SW_NV];
} SW_N(grp);
#define SW_G SW_N(grp)
#define SW_L (8 / SW_NV) /* lanes per vector */
#define SW_HV for (int h_ = 0; h_ < SW_NV; h_++)
/* lane l of group g (an lvalue) */
#define SW_GL(g, l) ((g).v[(l) / SW_L][(l) % SW_L])

static inline __attribute__((always_inline)) SW_G SW_N(gsub)(SW_G a, SW_G b)
{
    SW_HV a.v[h_] -= b.v[h_];
    return a;
}

static inline __attribute__((always_inline)) SW_G SW_N(gadd)(SW_G a, SW_G b)
{
    SW_HV a.v[h_] += b.v[h_];
    return a;
}

static inline __attribute__((always_inline)) SW_G SW_N(gscale)(SW_G a, SW_E k)
{
    SW_HV a.v[h_] = a.v[h_] * k;
    return a;
}

static inline __attribute__((always_inline)) SW_G SW_N(gzero)(void)
{
    SW_G a;
    SW_HV a.v[h_] = (SW_V){0};
    return a;
}

/* 8 floats -> a group, and back (rounded to float lane by lane) */
static inline __attribute__((always_inline)) SW_G SW_N(from8f)(v8f x)
{
    SW_G g;
#if SW_NV == 2
    g.v[0] = __builtin_convertvector(__builtin_shufflevector(x, x, 0, 1, 2, 3), SW_V);
    g.v[1] = __builtin_convertvector(__builtin_shufflevector(x, x, 4, 5, 6, 7), SW_V);
#else
    g.v[0] = __builtin_convertvector(x, SW_V);
#endif
    return g;
}

static inline __attribute__((always_inline)) v8f SW_N(to8f)(SW_G g)
{
#if SW_NV == 2
    v4f lo = __builtin_convertvector(g.v[0], v4f), hi = __builtin_convertvector(g.v[1], v4f);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
#else
    return __builtin_convertvector(g.v[0], v8f);
#endif
}

#if SW_NV == 2
/* 4 source samples -> 4 doubles: the same float value as the 8-wide form
 * ((float)i / scale, then widened), by halves so that GCC 12 emits one
 * vcvtps2pd per half (it splits a v8f -> 2 x v4d conversion into 2-lane
 * pieces through the stack). */
static inline __attribute__((always_inline)) SW_V SW_N(cvt4)(const unsigned char *s, rb_format f)
{
    v4i iv;
    float scale;
    v4f x;
    if (f == RB_U8) {
        uint32_t u;
        memcpy(&u, s, sizeof u);
        v16u8 b = (v16u8)(v4i){(int32_t)u, 0, 0, 0};
        iv = (v4i)__builtin_shufflevector(b, (v16u8){0}, 0, 16, 16, 16, 1, 16, 16, 16, 2, 16, 16, 16,
                                          3, 16, 16, 16);
        scale = 255.0f;
    } else if (f == RB_U16) {
        uint64_t u;
        memcpy(&u, s, sizeof u);
        v8u16 b = (v8u16)(v4i){(int32_t)(uint32_t)u, (int32_t)(uint32_t)(u >> 32), 0, 0};
        iv = (v4i)__builtin_shufflevector(b, (v8u16){0}, 0, 8, 1, 8, 2, 8, 3, 8);
        scale = 65535.0f;
    } else {
        memcpy(&x, s, sizeof x);
        goto widen;
    }
    x = __builtin_convertvector(iv, v4f) / scale;
widen:;
    SW_V r; /* element by element: GCC 12 makes this one vcvtps2pd */
    for (int l = 0; l < 4; l++)
        r[l] = x[l];
    return r;
}
#endif

static inline __attribute__((always_inline)) SW_G SW_N(cvt8)(const unsigned char *s, rb_format f)
{
#if SW_NV == 2
    SW_G g;
    const size_t es = rb_format_size(f);
    g.v[0] = SW_N(cvt4)(s, f);
    g.v[1] = SW_N(cvt4)(s + 4 * es, f);
    return g;
#else
    v8i iv;
    float scale;
    if (f == RB_U8) {
        uint64_t u; /* one 8-byte load (a partial store into a zeroed vector missed forwarding) */
        memcpy(&u, s, sizeof u);
        v16u8 b = (v16u8)(v2u64){u, 0};
        v16u8 w = __builtin_shufflevector(b, (v16u8){0}, /* GCC 12 and clang both have it */
                                          0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7, 16);
        iv = __builtin_convertvector((v8u16)w, v8i);
        scale = 255.0f;
    } else if (f == RB_U16) {
        v8u16 h;
        memcpy(&h, s, sizeof h);
        iv = __builtin_convertvector(h, v8i);
        scale = 65535.0f;
    } else {
        v8f x;
        memcpy(&x, s, sizeof x);
        return SW_N(from8f)(x);
    }
    v8f x = __builtin_convertvector(iv, v8f) / scale;
    return SW_N(from8f)(x);
#endif
}

/* Lanes g0 .. g0+nl-1 of source row i (lanes past nl read as 0). */
static inline __attribute__((always_inline)) SW_G SW_N(load8)(const sw_pass *p, long i, long g0, int nl)
{
    const size_t es = rb_format_size(p->sfmt);
    const unsigned char *s = p->alt && i >= p->alt_from && i < p->alt_to
                                 ? p->alt + (size_t)(i - p->alt_from) * p->alt_row
                                 : p->src + (size_t)i * p->srow;
    s += (size_t)g0 * es;
    if (p->lut && nl == 8) {
        /* the same table look-ups as rb_sweep_load_converted's first case,
         * in registers: its call and the reload of the 8 floats it stores
         * one by one (a missed store forwarding) cost more than the
         * look-ups. 8-bit only: each inlined copy adds compile time. */
        const float *d = p->dec;
        const v8f x = {d[s[0]], d[s[1]], d[s[2]], d[s[3]], d[s[4]], d[s[5]], d[s[6]], d[s[7]]};
        return SW_N(from8f)(x);
    }
    if (p->conv) {
        float xs[8];
        v8f x;
        rb_sweep_load_converted(p, s, g0, nl, xs);
        memcpy(&x, xs, sizeof x);
        return SW_N(from8f)(x);
    }
    if (nl == 8)
        return SW_N(cvt8)(s, p->sfmt);
    unsigned char tmp[32] = {0};
    memcpy(tmp, s, (size_t)nl * es);
    return SW_N(cvt8)(tmp, p->sfmt);
}

/* Rows of a column strip are a page or more apart, so the hardware
 * prefetchers (which stay inside a 4 KiB page) miss every one of them: ask
 * for the row PF steps ahead. */
#define SW_PF 12
static inline __attribute__((always_inline)) void SW_N(prefetch_row)(const sw_pass *p, long i, long g0)
{
    if (i >= 0 && i < p->ax->n)
        __builtin_prefetch(p->src + (size_t)i * p->srow + (size_t)g0 * rb_format_size(p->sfmt));
}

/* Result of step i for nl lanes -> the destination, rounded as rb_pixels_store
 * (x * max + 0.5, clamped, NaN -> 0, truncated), computed 8 wide. */
static inline __attribute__((always_inline)) void SW_N(store8)(const sw_pass *p, long i,
                                                         const size_t *doff, int nl, SW_G v)
{
    const size_t es = rb_format_size(p->dfmt);
    unsigned char *d = p->dst + (size_t)i * (size_t)p->ch * es;
    v8f f = SW_N(to8f)(v);
    if (p->enc8) { /* the same code as rb_srgb_encode_u8 of the staged float */
        const rb_srgb_runs r = *p->enc8;
        for (int l = 0; l < nl; l++) {
            d[doff[l]] = rb_srgb_code_u8(&r, f[l]);
            __asm__("" ::: "memory"); /* no scatter (see below) */
        }
        return;
    }
    /* The empty asm keeps this loop scalar: GCC makes an AVX-512 scatter of
     * it, which is microcoded and slow (Zen 4: 40 % of a band's samples). */
    if (p->dfmt == RB_F32) {
        if (nl == 8) { /* a constant count: no compare and branch per lane */
            for (int l = 0; l < 8; l++) {
                float fl = f[l];
                memcpy(d + doff[l], &fl, sizeof fl);
                __asm__("" ::: "memory");
            }
            return;
        }
        for (int l = 0; l < nl; l++) {
            float fl = f[l]; /* a copy: clang refuses the address of a vector element */
            memcpy(d + doff[l], &fl, sizeof fl);
            __asm__("" ::: "memory");
        }
        return;
    }
    const float top = p->dfmt == RB_U8 ? 255.0f : 65535.0f;
    v8f x = f * top + 0.5f, mx = (v8f){0} + top;
    v8i above0 = x > (v8f){0}, below = x < mx, xi, mi;
    memcpy(&xi, &x, sizeof xi);
    memcpy(&mi, &mx, sizeof mi);
    v8i sel = above0 & ((below & xi) | (~below & mi)); /* NaN fails both tests: 0 */
    v8f c;
    memcpy(&c, &sel, sizeof c);
    v8i q = __builtin_convertvector(c, v8i);
    if (p->dfmt == RB_U8 && nl == 8)
        for (int l = 0; l < 8; l++) {
            d[doff[l]] = (unsigned char)q[l];
            __asm__("" ::: "memory");
        }
    else if (p->dfmt == RB_U8)
        for (int l = 0; l < nl; l++)
            d[doff[l]] = (unsigned char)q[l];
    else
        for (int l = 0; l < nl; l++) {
            uint16_t u = (uint16_t)q[l];
            memcpy(d + doff[l], &u, sizeof u);
        }
}

/* The causal pass (FIR fused, state s in registers, s[0] = y_{j-1}) over
 * domain steps [j0, j1) (step j is sample i = j - D). Y: outputs Y[j - j0],
 * or NULL. save: the state before steps first, first + B, ... (nsave of
 * them) goes to save[k * sstride + 0..R-1]. R is a constant at each call. */
/* Sample i of the line, extended (x - mean on it; c0 before, c1 after;
 * periodic and mirror read the line itself, wrapped: the padded route). */
static inline __attribute__((always_inline)) SW_G SW_N(xext)(const sw_pass *p, long i, long g0, int nl,
                                                       SW_G mean, SW_G c0, SW_G c1)
{
    const sw_axis *a = p->ax;
    if (i < 0 || i >= a->n) {
        if (a->wrap)
            return SW_N(gsub)(SW_N(load8)(p, sw_wrap(a, i), g0, nl), mean);
        return i < 0 ? c0 : c1;
    }
    return SW_N(gsub)(SW_N(load8)(p, i, g0, nl), mean);
}

static inline __attribute__((always_inline)) void SW_N(causal)(const sw_pass *p, long g0, int nl,
                                                         SW_G mean, SW_G c0, SW_G c1, SW_G *s,
                                                         long j0, long j1, SW_G *Y, SW_G *save,
                                                         long first, long B, long nsave,
                                                         size_t sstride, const int R, const int TP)
{
    const sw_axis *a = p->ax;
    const long D = a->D, lo = a->lo;
    const int taps = TP ? TP : a->taps;
    int rs = 1;
    while (rs < taps)
        rs <<= 1;
    const long mask = rs - 1;
    /* the converted samples of the FIR window: a ring in L1, written and read
     * one 32-byte vector at a time (a sliding window of groups was copied
     * in 16-byte pieces, and those loads missed store forwarding). TP: the
     * tap count as a constant (the FIR loop unrolled). */
    SW_V ring[SW_MAX_TAPS][SW_NV];
    for (long q = j0; q < j0 + taps - 1; q++) {
        SW_G x = SW_N(xext)(p, q - D + lo, g0, nl, mean, c0, c1);
        SW_HV ring[q & mask][h_] = x.v[h_];
    }
    long next = save && nsave > 0 ? first : -1, k = 0;
    for (long j = j0; j < j1; j++) {
        if (save && j == next) {
            for (int r = 0; r < R; r++)
                SW_HV save[(size_t)k * sstride + (size_t)r].v[h_] = s[r].v[h_];
            k++;
            next = k < nsave ? next + B : -1;
        }
        long q = j + taps - 1;
        SW_N(prefetch_row)(p, q - D + lo + SW_PF, g0);
        SW_G u;
        {
            SW_G x = SW_N(xext)(p, q - D + lo, g0, nl, mean, c0, c1);
            SW_HV ring[q & mask][h_] = x.v[h_];
        }
        if (TP) {
            /* two partial sums: half the latency of one chain */
            SW_HV {
                SW_V u0 = a->SW_C(f)[0] * ring[j & mask][h_], u1 = (SW_V){0};
                for (int t = 1; t < TP; t++) {
                    if (t & 1)
                        u1 += a->SW_C(f)[t] * ring[(j + t) & mask][h_];
                    else
                        u0 += a->SW_C(f)[t] * ring[(j + t) & mask][h_];
                }
                u.v[h_] = u0 + u1;
            }
        } else {
            SW_HV {
                SW_V uu = a->SW_C(f)[0] * ring[j & mask][h_];
                for (int t = 1; t < taps; t++)
                    uu += a->SW_C(f)[t] * ring[(j + t) & mask][h_];
                u.v[h_] = uu;
            }
        }
        SW_G acc;
        SW_HV {
            SW_V aa = u.v[h_];
            for (int kk = R - 1; kk >= 0; kk--)
                aa -= a->SW_C(dc)[kk] * s[kk].v[h_];
            acc.v[h_] = aa;
        }
        for (int kk = R - 1; kk > 0; kk--)
            SW_HV s[kk].v[h_] = s[kk - 1].v[h_];
        SW_HV s[0].v[h_] = acc.v[h_];
        if (Y)
            SW_HV Y[j - j0].v[h_] = acc.v[h_];
    }
}

/* The anticausal start after a causal pass that ended in state s: (44)
 * z_{m+k} = sum_j M44[k][j] y_{m-r+j} + v44[k] c1 fsum (taken relative to the
 * steady states and in backward differences where the plan's probe asked for it: see
 * line_solver.c's epilogue_lanes), or the padded route's steady state. z[0] = z_m. */
static inline __attribute__((always_inline)) void SW_N(anti_start)(const sw_axis *a, const SW_G *s,
                                                             SW_G c1, SW_G *z, const int R)
{
    if (a->padded) {
        for (int k = 0; k < R; k++)
            z[k] = SW_N(gscale)(c1, a->SW_C(epi));
        return;
    }
    SW_G C1 = SW_N(gscale)(c1, a->SW_C(fsum));
    /* summed in long double, lane by lane (once per line): for poles near 1 the
     * terms cancel by six digits (|M44| 4e13 against states of 8e-9 for a Gaussian
     * of sigma 210 on 97 samples), and the double rounding left in z grew across
     * the line to 1e-5 of the input (docs/RELIABILITY.md, seed 14) */
    for (int k = 0; k < R; k++) {
        SW_G acc = C1;
        for (int l = 0; l < 8; l++) {
            long double t;
            if (a->steady) {
                const long double ys = (long double)a->prologue_dc * SW_GL(C1, l);
                long double c[RB_MAX_ORDER]; /* y_{-1} - ys, then backward differences */
                for (int tt = 0; tt < R; tt++)
                    c[tt] = SW_GL(s[tt], l);
                for (int q = 1; q < R; q++)
                    for (int tt = R - 1; tt >= q; tt--)
                        c[tt] = c[tt - 1] - c[tt];
                c[0] -= ys;
                t = (long double)a->anticausal_dc * ys;
                for (int jj = 0; jj < R; jj++)
                    t += (long double)a->M44d[k * R + jj] * c[jj];
            } else {
                t = (long double)a->SW_C(v44)[k] * SW_GL(C1, l);
                for (int jj = 0; jj < R; jj++)
                    t += (long double)a->SW_C(M44)[k * R + jj] * SW_GL(s[R - 1 - jj], l);
            }
            SW_GL(acc, l) = (SW_E)t;
        }
        z[k] = acc;
    }
}

/* One anticausal step: z_j = y_j - sum da_k z_{j+1+k}; z shifts by one. */
static inline __attribute__((always_inline)) SW_G SW_N(anticausal_step)(const SW_E *da, SW_G y, SW_G *z,
                                                                  const int R)
{
    SW_HV {
        SW_V yy = y.v[h_];
        for (int k = R - 1; k >= 0; k--)
            yy -= da[k] * z[k].v[h_];
        y.v[h_] = yy;
    }
    for (int k = R - 1; k > 0; k--)
        SW_HV z[k].v[h_] = z[k - 1].v[h_];
    SW_HV z[0].v[h_] = y.v[h_];
    return y;
}

/* The anticausal pass from state z (z[0] = z_{j1}) over steps j1-1 down to
 * j0, reading Y[j - j0]; the results of steps [j0, o1) are stored (plus off)
 * at destination step j - j0, or into tile[j - j0] (float) when tile is set. */
static inline __attribute__((always_inline)) void SW_N(anticausal)(const sw_pass *p, const SW_G *Y,
                                                             long j0, long j1, SW_G *z, long o1,
                                                             const size_t *doff, int nl, SW_G off,
                                                             v8f *tile, const int R)
{
    const SW_E *da = p->ax->SW_C(da);
    long j = j1 - 1;
    for (; j >= o1; j--)
        SW_N(anticausal_step)(da, Y[j - j0], z, R);
    for (; j >= j0; j--) {
        SW_G acc = SW_N(gadd)(SW_N(anticausal_step)(da, Y[j - j0], z, R), off);
        if (tile) /* one vector store; sw_tile_store transposes 8 steps at a time */
            tile[j - j0] = SW_N(to8f)(acc);
        else
            SW_N(store8)(p, j - j0, doff, nl, acc);
    }
}

/* Per block of 8 lanes: the mean shift and the boundary values. */
typedef struct {
    SW_G mean, c0, c1, off;
} SW_N(sw_blk);

/* always_inline: a 64-byte vector must never cross a call between a clone
 * and default-target code (their ABIs pass it differently) */
static inline __attribute__((always_inline)) void SW_N(block_setup)(const sw_pass *p, long gb, int nl,
                                                              SW_G sum, SW_N(sw_blk) *bk, size_t *doff)
{
    const sw_axis *a = p->ax;
    SW_G mean = SW_N(gzero)(), c0 = SW_N(gzero)(), c1 = SW_N(gzero)(), off = SW_N(gzero)();
    for (int l = 0; l < 8; l++) {
        long g = gb + (l < nl ? l : 0);
        if (p->planar) /* lane g: row g % planar, channel g / planar */
            doff[l] = (size_t)(g % p->planar) * p->drow + (size_t)(g / p->planar) * rb_format_size(p->dfmt);
        else
            doff[l] = (size_t)(g / p->ch) * p->drow + (size_t)(g % p->ch) * rb_format_size(p->dfmt);
    }
    if (a->shift)
        SW_HV mean.v[h_] = sum.v[h_] / (SW_E)a->n;
    if (a->mode == RB_BOUNDARY_CLAMP) {
        c0 = SW_N(gsub)(SW_N(load8)(p, 0, gb, nl), mean);
        c1 = SW_N(gsub)(SW_N(load8)(p, a->n - 1, gb, nl), mean);
    } else if (a->mode == RB_BOUNDARY_CONSTANT) {
        for (int l = 0; l < 8; l++)
            SW_GL(c0, l) = p->cval[p->planar ? (gb + l) / p->planar % p->ch : (gb + l) % p->ch];
        c0 = SW_N(gsub)(c0, mean);
        c1 = c0;
    }
    if (a->shift)
        for (int l = 0; l < 8; l++)
            SW_GL(off, l) = (SW_E)(a->gain * SW_GL(mean, l));
    bk->mean = mean;
    bk->c0 = c0;
    bk->c1 = c1;
    bk->off = off;
}

/* Per-lane sums of the ns (<= 64) lanes from g0 over all n steps. */
static inline __attribute__((always_inline)) void SW_N(strip_sums)(const sw_pass *p, long g0, long ns,
                                                             SW_G *sum)
{
    const int nb = (int)((ns + 7) / 8);
    for (int b = 0; b < nb; b++)
        sum[b] = SW_N(gzero)();
    if (!p->ax->shift)
        return;
    for (long i = 0; i < p->ax->n; i++) {
        SW_N(prefetch_row)(p, i + SW_PF, g0);
        for (int b = 0; b < nb; b++) {
            long nl = ns - b * 8 < 8 ? ns - b * 8 : 8;
            sum[b] = SW_N(gadd)(sum[b], SW_N(load8)(p, i, g0 + b * 8, (int)nl));
        }
    }
}

#if SW_ROWS
/* A whole line per block (the row pass over a band): sums, causal, (44),
 * anticausal, stored. Y: n + 2D vectors. Not static: the double lanes
 * compile it in a unit of its own (cpu_sweep_rows_d.c), and cpu_sweep.c's
 * probe_error calls it. */
SW_CLONES void SW_N(rb_sweep_line_strip)(const sw_pass *p, long g0, long ns, void *Ymem)
{
    const sw_axis *a = p->ax;
    const long n = a->n, D = a->D, m = n + 2 * D;
    SW_G *Y = Ymem, sum[8];
    SW_N(strip_sums)(p, g0, ns, sum);
    for (int b = 0; b < (int)((ns + 7) / 8); b++) {
        const long gb = g0 + b * 8;
        const int nl = (int)(ns - b * 8 < 8 ? ns - b * 8 : 8);
        SW_N(sw_blk) bk;
        size_t doff[8];
        SW_N(block_setup)(p, gb, nl, sum[b], &bk, doff);
        SW_G s[RB_MAX_ORDER], z[RB_MAX_ORDER];
        switch (a->r) {
#define CASE(R)                                                                                    \
    case R:                                                                                        \
        for (int k = 0; k < R; k++)                                                                \
            s[k] = SW_N(gscale)(bk.c0, a->SW_C(pro)); /* (35) */                                   \
        if (a->taps == 1)                                                                  \
            SW_N(causal)(p, gb, nl, bk.mean, bk.c0, bk.c1, s, 0, m, Y, NULL, 0, 0, 0, 0, R, 1);         \
        else if (a->taps == 7)                                                                          \
            SW_N(causal)(p, gb, nl, bk.mean, bk.c0, bk.c1, s, 0, m, Y, NULL, 0, 0, 0, 0, R, 7);         \
        else                                                                                       \
            SW_N(causal)(p, gb, nl, bk.mean, bk.c0, bk.c1, s, 0, m, Y, NULL, 0, 0, 0, 0, R, 0);         \
        SW_N(anti_start)(a, s, bk.c1, z, R);                                                             \
        SW_N(anticausal)(p, Y + D, D, m, z, D + n, doff, nl, bk.off, NULL, R);                                 \
        break;
            CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        }
    }
}

#endif

#if SW_COLS
/* Column sums of rows [i0, i1) for the mean shift, read row by row (the
 * sequential reads the prefetchers follow), added to acc. */
SW_CLONES static void SW_N(col_sums)(const sw_pass *p, long i0, long i1, SW_G *acc, long nblocks)
{
    for (long i = i0; i < i1; i++)
        for (long k = 0; k < nblocks; k++) {
            long nl = p->lanes - k * 8 < 8 ? p->lanes - k * 8 : 8;
            acc[k] = SW_N(gadd)(acc[k], SW_N(load8)(p, i, k * 8, (int)nl));
        }
}

/* Phase A over a strip of ns (<= 64) lanes from g0, in chunks of
 * SW_A_BANDS bands down the column, every block of the strip through one
 * chunk before the next chunk: a block walked the whole column alone
 * before, one new page per row (a row is W * ch samples, pages apart), so
 * with more rows than the TLB holds every step of every block missed it,
 * and each block read the strip's cache lines again from L2. A chunk's
 * rows are now read once from memory and by the other blocks from L1.
 * The causal pass resumes from the block's state at the chunk's first
 * step (the FIR window refilled from the same samples): the same
 * operations in the same order, the same bits. */
#define SW_A_BANDS 4
SW_CLONES static void SW_N(cols_phase_a)(const sw_pass *p, const sw_cols *cs, long g0, long ns)
{
    const sw_axis *a = p->ax;
    const long m = a->n + 2 * a->D, D = a->D;
    const int R = a->r;
    const int nb = (int)((ns + 7) / 8);
    const size_t sstride = (size_t)cs->nblocks * (size_t)R;
    SW_G st[8][RB_MAX_ORDER]; /* each block's causal state between chunks */
    for (int b = 0; b < nb; b++) {
        const long gb = g0 + b * 8, blk = gb / 8;
        const int nl = (int)(ns - b * 8 < 8 ? ns - b * 8 : 8);
        SW_N(sw_blk) *bk = &((SW_N(sw_blk) *)cs->blk)[blk];
        size_t doff[8];
        SW_G sum = SW_N(gzero)();
        for (int t = 0; t < cs->nsums; t++)
            sum = SW_N(gadd)(sum, ((const SW_G *)cs->sums)[(size_t)t * (size_t)cs->nblocks + (size_t)blk]);
        SW_N(block_setup)(p, gb, nl, sum, bk, doff);
        for (int k = 0; k < R; k++)
            st[b][k] = SW_N(gscale)(bk->c0, a->SW_C(pro)); /* (35) */
    }
    for (long c0 = 0; c0 < cs->nbands; c0 += SW_A_BANDS) {
        const long c1 = c0 + SW_A_BANDS < cs->nbands ? c0 + SW_A_BANDS : cs->nbands;
        const long j0 = c0 == 0 ? 0 : D + c0 * cs->B, j1 = c1 == cs->nbands ? m : D + c1 * cs->B;
        for (int b = 0; b < nb; b++) {
            const long gb = g0 + b * 8, blk = gb / 8;
            const int nl = (int)(ns - b * 8 < 8 ? ns - b * 8 : 8);
            const SW_N(sw_blk) *bk = &((const SW_N(sw_blk) *)cs->blk)[blk];
            /* the states of bands c0 .. c1-1 */
            SW_G *save = (SW_G *)cs->st + (size_t)blk * (size_t)R + (size_t)c0 * sstride;
            SW_G s[RB_MAX_ORDER]; /* a local copy: registers in the step loop */
            for (int k = 0; k < R; k++)
                SW_HV s[k].v[h_] = st[b][k].v[h_];
            switch (R) {
#define CASE(R)                                                                                    \
    case R:                                                                                        \
        if (a->taps == 1)                                                                          \
            SW_N(causal)(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, NULL, save, D + c0 * cs->B, \
                         cs->B, c1 - c0, sstride, R, 1);                                           \
        else if (a->taps == 7)                                                                     \
            SW_N(causal)(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, NULL, save, D + c0 * cs->B, \
                         cs->B, c1 - c0, sstride, R, 7);                                           \
        else                                                                                       \
            SW_N(causal)(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, NULL, save, D + c0 * cs->B, \
                         cs->B, c1 - c0, sstride, R, 0);                                           \
        break;
                CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
            }
            for (int k = 0; k < R; k++)
                SW_HV st[b][k].v[h_] = s[k].v[h_];
        }
    }
    for (int b = 0; b < nb; b++) {
        const long blk = (g0 + b * 8) / 8;
        const SW_N(sw_blk) *bk = &((const SW_N(sw_blk) *)cs->blk)[blk];
        SW_N(anti_start)(a, st[b], bk->c1, (SW_G *)cs->z + (size_t)blk * R, R);
    }
}

/* Band `band` of the column pass for blocks [k0, k1): results into p->dst
 * (the band buffer). Y: B + D vectors. */
SW_CLONES static void SW_N(cols_band)(const sw_pass *p, const sw_cols *cs, long band, long k0, long k1,
                                void *Ymem)
{
    SW_G *Y = Ymem;
    const sw_axis *a = p->ax;
    const long n = a->n, D = a->D, m = n + 2 * D;
    const int R = a->r;
    const long j0 = D + band * cs->B;
    const long j1 = band == cs->nbands - 1 ? m : j0 + cs->B;
    const long o1 = j1 < D + n ? j1 : D + n, rows = o1 - j0;
    v8f tile[SW_BAND];
    for (long blk = k0; blk < k1; blk++) {
        const long gb = blk * 8;
        const int nl = (int)(p->lanes - gb < 8 ? p->lanes - gb : 8);
        const SW_N(sw_blk) *bk = &((const SW_N(sw_blk) *)cs->blk)[blk];
        /* band buffer, channel-planar per image column: BB[x][c * rows + j] */
        size_t doff[8];
        for (int l = 0; l < 8; l++) {
            long g = gb + (l < nl ? l : 0);
            doff[l] = (size_t)(g / p->ch) * p->drow + (size_t)(g % p->ch) * (size_t)rows * sizeof(float);
        }
        SW_G s[RB_MAX_ORDER];
        const SW_G *st = (const SW_G *)cs->st + ((size_t)band * (size_t)cs->nblocks + (size_t)blk) * (size_t)R;
        SW_G *zc = (SW_G *)cs->z + (size_t)blk * (size_t)R;
        switch (R) {
#define CASE(R)                                                                                    \
    case R: {                                                                                      \
        SW_G z[R];                                                                                 \
        for (int k = 0; k < R; k++) {                                                              \
            s[k] = st[k];                                                                          \
            z[k] = zc[k];                                                                          \
        }                                                                                          \
        if (a->taps == 1)                                                                  \
            SW_N(causal)(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, Y, NULL, 0, 0, 0, 0, R, 1);    \
        else if (a->taps == 7)                                                                          \
            SW_N(causal)(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, Y, NULL, 0, 0, 0, 0, R, 7);    \
        else                                                                                       \
            SW_N(causal)(p, gb, nl, bk->mean, bk->c0, bk->c1, s, j0, j1, Y, NULL, 0, 0, 0, 0, R, 0);    \
        SW_N(anticausal)(p, Y, j0, j1, z, o1, doff, nl, bk->off, tile, R);                               \
        for (int k = 0; k < R; k++)                                                                \
            zc[k] = z[k];                                                                          \
        break;                                                                                     \
    }
            CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
        }
        sw_tile_store(tile, rows, p->dst, doff, nl);
    }
}

/* One member of the sweep's thread team (cpu_sweep.c's sweep_member). */
void SW_N(rb_sweep_main)(sw_thread *th)
{
    sw_shared *sh = th->sh;
    rb_sweep_barrier_wait(&sh->bar); /* every party known */
    const int t = th->t;
    const sw_cols *cs = &sh->cs;
    double t0 = th->t == 0 && sh->tphase ? sw_cpu() : 0.0, trow = 0.0;
    /* progress: member 0 (the calling thread, rb_parallel_team) reports,
     * before any output row is written a cancel stops the call (rb_sweep_report) */
    if (t == 0)
        rb_sweep_report(sh, 0.0, 1);

    /* column sums (mean shift): a fixed share of the rows per thread, each
     * into its array, added in thread order: the same sums, so the same
     * bits, whichever thread runs when (test_threads) */
    const sw_pass *p1 = sh->p1;
    atomic_long *ctr = sh->ctr;
    long k, c0;
    if (p1->ax->shift) {
        const long n = p1->ax->n, r0 = n * t / sh->nt, r1 = n * (t + 1) / sh->nt;
        if (r1 > r0 && !atomic_load(&sh->cancel))
            SW_N(col_sums)(p1, r0, r1, (SW_G *)cs->sums + (size_t)t * (size_t)cs->nblocks, cs->nblocks);
        rb_sweep_barrier_wait(&sh->bar);
        if (t == 0)
            rb_sweep_report(sh, sh->w_sums, 1);
    }
    /* phase A: strips of 64 bytes of input, in sh->achunks chunks (more than
     * one only with a progress callback: a report and a chance to cancel
     * after each, all members past the barrier before the next) */
    const long strip = 64 / (long)rb_format_size(p1->sfmt);
    const long nstrips = (p1->lanes + strip - 1) / strip;
    for (int q = 0; q < sh->achunks; q++) {
        const long k0 = nstrips * q / sh->achunks, k1 = nstrips * (q + 1) / sh->achunks;
        while (!atomic_load(&sh->cancel) && (k = k0 + atomic_fetch_add(&ctr[SW_CTR_A + q], 1)) < k1) {
            long g0 = k * strip;
            SW_N(cols_phase_a)(p1, cs, g0, p1->lanes - g0 < strip ? p1->lanes - g0 : strip);
        }
        rb_sweep_barrier_wait(&sh->bar);
        if (sh->progress) {
            /* the cancel flag, set by member 0 only before this barrier, is
             * the same for every member after it */
            if (t == 0)
                rb_sweep_report(sh, sh->w_sums + sh->w_a * (double)(q + 1) / (double)sh->achunks, 1);
            rb_sweep_barrier_wait(&sh->bar);
            if (atomic_load(&sh->cancel))
                return; /* phase A writes no output: the image is untouched */
        }
    }
    double t1 = th->t == 0 && sh->tphase ? sw_cpu() : 0.0;

    /* bands, bottom-up; the row pass of band b overlaps the column pass of
     * band b - 1 (the other band buffer). Any thread may take any block: the
     * carried anticausal states live in cs->z, and the barrier orders bands.
     * From here on output rows are written: a cancel is no longer honoured
     * (the call finishes; recblur.h). With a staged output (sh->ob) the row
     * pass of band b + 1 writes float rows, stored into the image one band
     * later (b + 2 below), as rb_pixels_store_rows does. */
    const long CB = 32; /* column blocks per claim */
    const long last = sh->ob[0] ? -2 : -1;
    for (long b = cs->nbands - 1; b >= last; b--) {
        if (sh->ob[0] && b + 2 < cs->nbands && b + 2 >= 0) { /* store band b + 2 */
            const long y0 = (b + 2) * cs->B, rows = sh->H - y0 < cs->B ? sh->H - y0 : cs->B;
            const size_t rowf = (size_t)sh->outim->width * (size_t)sh->outim->channels;
            while ((k = atomic_fetch_add(&ctr[SW_CTR_STORE(cs->nbands, b + 2)], 1)) < rows)
                rb_pixels_store_rows(sh->ob[(b + 2) & 1] + (size_t)k * rowf, sh->outim, (int)(y0 + k), 1,
                                     sh->lin);
        }
        if (b + 1 < cs->nbands && b + 1 >= 0) { /* rows of band b + 1 */
            double tr = th->t == 0 && sh->tphase ? sw_cpu() : 0.0;
            long y0 = (b + 1) * cs->B, rows = sh->H - y0 < cs->B ? sh->H - y0 : cs->B;
            sw_pass p2 = *sh->p2;
            p2.src = (const unsigned char *)sh->bb[(b + 1) & 1];
            p2.srow = sh->bbrow;
            p2.lanes = rows * p2.ch;
            p2.planar = rows;
            if (sh->ob[0])
                p2.dst = (unsigned char *)sh->ob[(b + 1) & 1];
            else
                p2.dst = sh->out + (size_t)y0 * sh->ostride;
            p2.strip = 16;
            p2.nstrips = (p2.lanes + 15) / 16;
            while ((k = atomic_fetch_add(&ctr[SW_CTR_ROWS(b + 1)], 1)) < p2.nstrips) {
                long g0 = k * 16;
                SW_N(rb_sweep_line_strip)(&p2, g0, p2.lanes - g0 < 16 ? p2.lanes - g0 : 16, th->Y);
            }
            if (th->t == 0 && sh->tphase)
                trow += sw_cpu() - tr;
        }
        if (b >= 0) { /* columns of band b */
            sw_pass pc = *p1;
            pc.dst = (unsigned char *)sh->bb[b & 1];
            pc.drow = sh->bbrow;
            if (sh->heads && b + 1 < cs->nbands) {
                pc.alt = sh->heads + (size_t)(b + 1) * (size_t)sh->nhead * sh->headrow;
                pc.alt_from = (b + 1) * cs->B;
                pc.alt_to = pc.alt_from + sh->nhead;
                pc.alt_row = sh->headrow;
            }
            while ((c0 = atomic_fetch_add(&ctr[SW_CTR_COLS(b)], CB)) < cs->nblocks)
                SW_N(cols_band)(&pc, cs, b, c0, c0 + CB < cs->nblocks ? c0 + CB : cs->nblocks, th->Y);
        }
        rb_sweep_barrier_wait(&sh->bar);
        if (t == 0 && sh->progress) /* the share of the bands whose output is stored */
            rb_sweep_report(sh, sh->w_sums + sh->w_a +
                                    (1.0 - sh->w_sums - sh->w_a) * (double)(cs->nbands - b) /
                                        (double)(cs->nbands - last), 0);
    }
    if (th->t == 0 && sh->tphase) {
        double t2 = sw_cpu();
        sh->tphase[0] = t1 - t0;
        sh->tphase[1] = t2 - t1 - trow;
        sh->tphase[2] = trow;
    }
}

#endif /* SW_COLS */

#undef SW_G
#undef SW_L
#undef SW_HV
#undef SW_GL
