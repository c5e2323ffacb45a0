/* The run-time switches: every environment variable the engine, the CUDA back
 * end and the front ends obey, parsed once into one struct when a context is
 * created (rb_context_create), so a route never changes under a plan, and the
 * list lives in one place (switches.c; README "Run-time switches" is checked
 * against it by scripts/check_switches.sh).
 *
 * None is needed in normal use: they compare routes (A/B), tune the staging,
 * time phases, or simulate a small GPU. The test hooks at the end (a failing
 * kernel launch, delayed scan tiles, a forced deblur grid) break things on
 * purpose; they are never read from the environment: only the tests set them,
 * through rb_switch_set. Includable from C11 and CUDA C++. */
#ifndef RB_SWITCHES_H
#define RB_SWITCHES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Word-valued switches hold the index of their word in switches.c's table; 0
 * is always the default. */
enum { RB_LANES_DOUBLE = 0, RB_LANES_AUTO = 1, RB_LANES_FLOAT = 2 };
/* RECBLUR_CUDA_FUSE: off, the three kernels per axis; on, the fused column final
 * + row stage 1; both, the final stage of both axes in one kernel (four image
 * transfers, cuda/tiled/rb_tiled_final_both.cuh) where it covers, else on;
 * cross, the same with the row carries from the column stage 1 and cross
 * terms (three transfers, cuda/tiled/rb_tiled_cross.cuh) where it covers, else both */
enum { RB_FORCE_AUTO = 0, RB_FORCE_OFF = 1, RB_FORCE_ON = 2, RB_FORCE_BOTH = 3, RB_FORCE_CROSS = 4 };
enum { RB_CARRY_AUTO = 0, RB_CARRY_FLOAT = 1, RB_CARRY_DOUBLE = 2 }; /* RECBLUR_CUDA_CARRY */

typedef struct rb_switches {
    /* CPU back end */
    int cpu_no_sweep;            /* RECBLUR_CPU_NO_SWEEP (any value): the general line route */
    int cpu_lanes;               /* RECBLUR_CPU_LANES: RB_LANES_* */
    int cpu_times;               /* RECBLUR_CPU_TIMES (any value): per-phase seconds on stderr */
    int cpu_padded;              /* RECBLUR_CPU_PADDED (any value): the padded route where (44)
                                    from the steady states would do (before/after timings) */
    /* CUDA routes, for comparisons */
    int cuda_sat_route;          /* RECBLUR_CUDA_SAT: rb_sat_route (cuda/sat/rb_cuda_sat.cuh) */
    int cuda_fuse;               /* RECBLUR_CUDA_FUSE: RB_FORCE_* */
    int cuda_carry;              /* RECBLUR_CUDA_CARRY: RB_CARRY_* */
    int cuda_inblock_double;     /* RECBLUR_CUDA_INBLOCK=double */
    int cuda_s1_recursion;       /* RECBLUR_CUDA_S1=rec */
    int cuda_chain_seq;          /* RECBLUR_CUDA_CHAIN=seq */
    int cuda_fir_direct;         /* RECBLUR_CUDA_FIR=direct: no FIR from tiles (comparisons) */
    int cuda_periodic_padded;    /* RECBLUR_CUDA_PERIODIC=padded: wide periodic axes padded, not
                                    closed by wrapping the carry chain (comparisons) */
    int cuda_profile;            /* RECBLUR_CUDA_PROFILE=1 */
    /* CUDA staging of host images (cuda/host/rb_cuda_staging.h), for tuning */
    int cuda_staging_off;        /* RECBLUR_CUDA_STAGING=off (or 0) */
    int cuda_staging_memcpy;     /* RECBLUR_CUDA_STAGING_COPY=memcpy */
    size_t cuda_staging_slot;    /* RECBLUR_CUDA_STAGING_SLOT bytes; 0: automatic */
    int cuda_staging_threads;    /* RECBLUR_CUDA_STAGING_THREADS; 0: automatic */
    int cuda_staging_strips;     /* RECBLUR_CUDA_STAGING_STRIPS; 0: automatic */
    int cuda_staging_bands;      /* RECBLUR_CUDA_STAGING_BANDS; 0: automatic */
    int cuda_host_pageable;      /* RECBLUR_CUDA_HOST_ALLOC=pageable: rb_context_host_alloc locks no
                                    pages (benchmarks: the whole command without it) */
    /* a GPU with less memory than this one (cuda/host/rb_cuda_alloc.h) */
    size_t cuda_alloc_limit;     /* RECBLUR_CUDA_ALLOC_LIMIT bytes; SIZE_MAX: none */
    size_t cuda_pinned_limit;    /* RECBLUR_CUDA_PINNED_LIMIT bytes; SIZE_MAX: none */
    /* test hooks (rb_switch_set only) */
    int hook_fail_launch;        /* "test:fail_launch": every kernel launch check fails */
    unsigned hook_scan_delay_ns; /* "test:scan_delay_ns": 1D scan tiles publish late */
    int hook_deblur_grid;        /* "test:deblur_grid": blocks of the deblur kernel; 0: automatic */
    int hook_cross_grid;         /* "test:cross_grid": thread blocks of the 2D cross kernel (each walks
                                    several tiles); 0: as many as fit the device, sized at plan time */
} rb_switches;

/* The defaults, then every switch found in the environment. */
void rb_switches_read(rb_switches *sw);

/* RECBLUR_PRESET_PATH (NULL when unset). Presets are looked up outside any
 * context (rb_preset_find), so this one is read at each look-up. */
const char *rb_switch_preset_path(void);
/* TMPDIR (NULL when unset): where a stream's carries go when they pass the
 * memory allowed (api/stream_carry_store.c), read when the file is made. */
const char *rb_switch_tmpdir(void);

#ifdef __cplusplus
}
#endif
#endif /* RB_SWITCHES_H */
