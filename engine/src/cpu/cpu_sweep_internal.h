/* What the CPU sweep's translation units share (private to src/cpu/):
 * the flattened axis and pass descriptions, the shared state of a sweep's
 * thread team, and the small helpers its kernels inline.
 *
 * Why several units: cpu_sweep_kernel.h is compiled once per lane type,
 * each copy with three target clones at -O3, and the two copies in one file
 * took 8 minutes of a single core, the tail of every CI build. Each lane
 * type is now a unit of its own (cpu_sweep_lanes_d.c, cpu_sweep_lanes_f.c),
 * the double lanes' row kernel one more (cpu_sweep_rows_d.c: the double
 * copy is twice the float one's code), which a parallel build compiles side
 * by side; cpu_sweep.c keeps the setup,
 * the planning and the call (rb_cpu_sweep_execute); cpu_sweep_decode.c the
 * input's decode, called out of line by both. Every unit is compiled with
 * the same options (engine/CMakeLists.txt). */
#ifndef RB_CPU_SWEEP_INTERNAL_H
#define RB_CPU_SWEEP_INTERNAL_H

#include "srgb_tables.h"
#include "cpu_sweep.h"
#include "pixel_convert.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define SW_MAX_TAPS 64  /* ring of converted samples: the FIR reach must fit */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(RB_NO_CLONES)
#define SW_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SW_CLONES
#endif

/* Double lanes are 32-byte vectors, two per group of 8 lanes (see
 * cpu_sweep_kernel.h for why not one 64-byte v8d). */
typedef double v4d __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef uint64_t v2u64 __attribute__((vector_size(16)));
#define SW_GROUP_BYTES_D (8 * sizeof(double)) /* one group of 8 double lanes */
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));

/* One axis, flattened for the kernel. */
typedef struct {
    int r, taps, lo;
    long n, D;                   /* line length, feedback domain [-D, n + D) */
    int padded, shift;
    rb_boundary_mode mode;
    int wrap;                    /* periodic or mirror (padded, the line wrapped), else 0 */
    double f[SW_MAX_TAPS], dc[RB_MAX_ORDER], da[RB_MAX_ORDER];
    double pro;                  /* fsum * prologue_dc: causal slots per unit boundary (35) */
    double fsum;
    double epi;                  /* padded route: anticausal slots per unit boundary */
    int steady;                  /* (44) relative to the steady states (plan's steady_epilogue) */
    double prologue_dc, anticausal_dc; /* the steady-state gains it is taken relative to */
    double M44d[RB_MAX_ORDER * RB_MAX_ORDER]; /* M44 in backward differences */
    long double gain;            /* DC gain, for the mean shift */
    double M44[RB_MAX_ORDER * RB_MAX_ORDER], v44[RB_MAX_ORDER]; /* (44) */
    /* the same, rounded to float, for the float lanes */
    float f_f[SW_MAX_TAPS], dc_f[RB_MAX_ORDER], da_f[RB_MAX_ORDER];
    float pro_f, fsum_f, epi_f;
    float M44_f[RB_MAX_ORDER * RB_MAX_ORDER], v44_f[RB_MAX_ORDER];
} sw_axis;

/* One pass: source rows -> transposed destination. */
typedef struct {
    const sw_axis *ax;
    const unsigned char *src;
    size_t srow;                 /* bytes between source rows (steps) */
    rb_format sfmt;
    long lanes;                  /* lanes per source row */
    unsigned char *dst;
    size_t drow;                 /* bytes between destination rows (one per lane group of ch) */
    rb_format dfmt;
    int ch;
    double cval[4];              /* constant boundary per channel */
    long strip;                  /* lanes per strip (64 bytes of source) */
    /* in place: source rows [alt_from, alt_to) come from a saved copy (the
     * row pass of the band below has overwritten them) */
    const unsigned char *alt;
    long alt_from, alt_to;
    size_t alt_row;
    long planar;                 /* 0, or lane g is (row g % planar, channel g / planar): the
                                    row pass over the channel-planar band buffer */
    long nstrips;
    /* the input's decode, as rb_pixels_load_rows does it (conv: any of them):
     * lin: sRGB -> linear light of the colour channels (dec: the 8/16-bit
     * table, NULL for float: the formula); premul: straight alpha,
     * colour x alpha; alpha: the last channel is alpha (never decoded) */
    int conv, lin, premul, alpha;
    const float *dec;
    /* every lane an 8-bit colour code decoded by dec (sRGB, no alpha: the
     * GIMP plug-in's default): load8 looks the 8 codes up inline */
    int lut;
    /* the output's encode inside the store (store8): every lane an 8-bit
     * colour code of an sRGB image in linear light, no alpha (the GIMP
     * plug-in's default); NULL: stored as computed, or staged */
    const rb_srgb_runs *enc8;
} sw_pass;

/* CPU seconds of the calling thread (phase times on a loaded machine). */
static inline double sw_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The column pass' state between phase A and the bands. */
typedef struct {
    long B, nbands, nblocks;
    /* of the lane group type of this call (grp_d or grp_f): */
    void *blk;                   /* per block: mean shift and boundary values */
    void *st;                    /* causal state at each band top: [band][block][R] */
    void *z;                     /* anticausal state carried up: [block][R] */
    void *sums;                  /* per-lane column sums, [thread][block] (mean shift) */
    int nsums;                   /* threads that summed */
} sw_cols;

/* A barrier whose party count is fixed once every thread has started. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int parties, count;
    unsigned gen;
} sw_barrier;
void rb_sweep_barrier_wait(sw_barrier *b);

typedef struct {
    const sw_pass *p1, *p2;      /* column pass (dst unset), row pass template */
    sw_cols cs;
    float *bb[2];                /* band buffers, alternating */
    size_t bbrow;                /* bytes per band-buffer row (one image column) */
    long H;
    unsigned char *out;
    size_t ostride;
    sw_barrier bar;
    int nt;
    double *tphase;              /* thread 0's phase times, or NULL */
    /* work is claimed in chunks from these counters (one per phase and band):
     * on a loaded machine a thread that lost its core does not hold up the
     * other at every band's barrier */
    atomic_long *ctr;
    /* in place: the first nhead input rows of every band (the FIR reach of
     * the band above), saved before any output row is written */
    unsigned char *heads;
    long nhead;
    size_t headrow;
    /* progress: the context's callback (NULL: none), reported by member 0
     * only (the calling thread: recblur.h promises that); the shares of the
     * whole call the column sums and phase A take (the bands the rest); the
     * phase A chunks, each ended by a report; cancel: set by member 0, seen
     * by all after the next barrier */
    rb_progress_fn progress;
    void *progress_user;
    double w_sums, w_a;
    int achunks;
    atomic_int cancel;
    /* staged output (sRGB encode or un-premultiply on the way out): the row
     * pass writes float rows into ob[band & 1] and they are stored by
     * rb_pixels_store_rows, the general route's own store; ob[0] NULL: the
     * row pass writes the image directly */
    float *ob[2];
    rb_image *outim;
    int lin;
} sw_shared;

/* The claim counters in sw_shared.ctr: phase A's chunks, then per band the
 * row pass and the column pass, then per band the staged store. */
#define SW_A_CHUNKS 4
#define SW_CTR_A 0
#define SW_CTR_ROWS(b) (SW_A_CHUNKS + 2 * (b))
#define SW_CTR_COLS(b) (SW_A_CHUNKS + 2 * (b) + 1)
#define SW_CTR_STORE(nbands, b) (SW_A_CHUNKS + 2 * (nbands) + (b))
#define SW_NCTR(nbands) (SW_A_CHUNKS + 3 * (nbands))

/* Member 0's progress report: fraction f of the call, scaled to [0, 0.99]
 * as the general route does (1.0 comes once the call is done). may_cancel:
 * no output row has been written yet, so a cancel can still be honoured;
 * later the answer is ignored and the call finishes (recblur.h). */
void rb_sweep_report(sw_shared *sh, double f, int may_cancel);

typedef struct {
    sw_shared *sh;
    int t;
    void *Y;                     /* lane vectors of this call's type */
} sw_thread;

/* Sample index of extended index i for periodic and mirror (edge sample
 * repeated: period 2n, FORMULAS.md). */
static inline long sw_wrap(const sw_axis *a, long i)
{
    const long per = a->wrap == RB_BOUNDARY_MIRROR ? 2 * a->n : a->n;
    long k = i % per;
    if (k < 0)
        k += per;
    return k >= a->n ? per - 1 - k : k;
}

/* Rows per band (the band buffer holds 2 x SW_BAND rows). */
#define SW_BAND 64

/* tile[j][l] (j < rows, l < nl) -> dst + doff[l] + j * 4: lane l's column of
 * the tile, contiguous floats (the channel-planar band buffer). 8 steps at a
 * time through an in-register 8x8 transpose: 8 vector stores where scalar
 * stores took 64. */
static inline __attribute__((always_inline)) void sw_tile_store(const v8f *tile, long rows,
                                                             unsigned char *dst, const size_t *doff,
                                                             int nl)
{
    long j = 0;
    for (; j + 8 <= rows; j += 8) {
        const v8f *t = tile + j;
#define LO(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)   /* unpacklo */
#define HI(a, b) __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15) /* unpackhi */
#define S0(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define S1(a, b) __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define P0(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11)   /* low halves */
#define P1(a, b) __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15) /* high halves */
        v8f a0 = LO(t[0], t[1]), a1 = HI(t[0], t[1]), a2 = LO(t[2], t[3]), a3 = HI(t[2], t[3]);
        v8f a4 = LO(t[4], t[5]), a5 = HI(t[4], t[5]), a6 = LO(t[6], t[7]), a7 = HI(t[6], t[7]);
        v8f b0 = S0(a0, a2), b1 = S1(a0, a2), b2 = S0(a1, a3), b3 = S1(a1, a3);
        v8f b4 = S0(a4, a6), b5 = S1(a4, a6), b6 = S0(a5, a7), b7 = S1(a5, a7);
        v8f o[8] = {P0(b0, b4), P0(b1, b5), P0(b2, b6), P0(b3, b7),
                    P1(b0, b4), P1(b1, b5), P1(b2, b6), P1(b3, b7)};
#undef LO
#undef HI
#undef S0
#undef S1
#undef P0
#undef P1
        for (int l = 0; l < nl; l++)
            memcpy(dst + doff[l] + (size_t)j * sizeof(float), &o[l], sizeof o[l]);
    }
    for (; j < rows; j++)
        for (int l = 0; l < nl; l++) {
            float v = tile[j][l];
            memcpy(dst + doff[l] + (size_t)j * sizeof(float), &v, sizeof v);
        }
}

/* Lanes g0 .. g0+nl-1 of a source row (s: lane g0's sample) decoded as the
 * general route's load (rb_pixels_load_rows) does: sRGB codes to linear
 * light by the same tables (float by the same formula), alpha left as it
 * is, then colour times the pixel's alpha for straight alpha (alpha 0
 * makes colour 0). One lane at a time: the alpha sample of a lane's pixel
 * may lie outside the 8 lanes (pixels straddle lane groups). Into x, not
 * returned: a vector return outside the target clones changes the ABI.
 * Out of line: inlined into every load of every kernel copy it tripled
 * the sweep's compile time; one call per 8 samples costs little beside
 * the table look-ups. The channel is counted, not taken modulo per lane (a
 * 64-bit division per sample doubled the sweep's CPU time). */
void rb_sweep_load_converted(const sw_pass *p, const unsigned char *s, long g0, int nl, float x[8]);

/* The entry points of the two kernel copies (cpu_sweep_kernel.h): a member
 * of the sweep's thread team, and the row kernel (lanes g0 .. g0+ns-1 of
 * p, Y: n + 2D lane groups of scratch), which cpu_sweep.c also runs on
 * probe lines. The row kernel carries target clones: called from
 * default-target code through its resolver, as sweep_main calls the
 * column kernels. */
void rb_sweep_main_d(sw_thread *th);
void rb_sweep_main_f(sw_thread *th);
void rb_sweep_line_strip_d(const sw_pass *p, long g0, long ns, void *Y);
void rb_sweep_line_strip_f(const sw_pass *p, long g0, long ns, void *Y);

#endif
