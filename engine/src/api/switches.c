/* The run-time switches (switches.h): the one place that reads the
 * environment. Each switch is one row of `table`: its name, its field, and how
 * its text becomes the field's value. */
#include "rb_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    SW_SET,    /* int: 1 when the variable is set at all */
    SW_WORD,   /* int: index of the value among `words` (0, the default, when unset or unknown) */
    SW_COUNT,  /* int: a positive integer, else 0 (automatic) */
    SW_BYTES,  /* size_t: a positive integer, else 0 (automatic) */
    SW_LIMIT,  /* size_t: a whole decimal number, else SIZE_MAX (no limit) */
    SW_UINT    /* unsigned: a decimal number, else 0 */
} sw_kind;

typedef struct {
    const char *name;
    int test_hook;             /* 1: never read from the environment (rb_switch_set only) */
    sw_kind kind;
    size_t offset;             /* of the field in rb_switches */
    const char *words[5];      /* SW_WORD: words[0] is the default */
} sw_def;

#define F(field) offsetof(rb_switches, field)
static const sw_def table[] = {
    {"RECBLUR_CPU_NO_SWEEP", 0, SW_SET, F(cpu_no_sweep), {0}},
    {"RECBLUR_CPU_LANES", 0, SW_WORD, F(cpu_lanes), {"double", "auto", "float"}},
    {"RECBLUR_CPU_TIMES", 0, SW_SET, F(cpu_times), {0}},
    {"RECBLUR_CPU_PADDED", 0, SW_SET, F(cpu_padded), {0}},
    {"RECBLUR_CUDA_SAT", 0, SW_WORD, F(cuda_sat_route), {"auto", "multipass", "lookback", "tiles"}},
    {"RECBLUR_CUDA_FUSE", 0, SW_WORD, F(cuda_fuse), {"auto", "off", "on", "both", "cross"}},
    {"RECBLUR_CUDA_CARRY", 0, SW_WORD, F(cuda_carry), {"auto", "float", "double"}},
    {"RECBLUR_CUDA_INBLOCK", 0, SW_WORD, F(cuda_inblock_double), {"auto", "double"}},
    {"RECBLUR_CUDA_S1", 0, SW_WORD, F(cuda_s1_recursion), {"dot", "rec"}},
    {"RECBLUR_CUDA_CHAIN", 0, SW_WORD, F(cuda_chain_seq), {"auto", "seq"}},
    {"RECBLUR_CUDA_FIR", 0, SW_WORD, F(cuda_fir_direct), {"tile", "direct"}},
    {"RECBLUR_CUDA_PERIODIC", 0, SW_WORD, F(cuda_periodic_padded), {"wrap", "padded"}},
    {"RECBLUR_CUDA_PROFILE", 0, SW_WORD, F(cuda_profile), {"0", "1"}},
    /* "0" is a second spelling of off: any nonzero index turns the staging off */
    {"RECBLUR_CUDA_STAGING", 0, SW_WORD, F(cuda_staging_off), {"on", "off", "0"}},
    {"RECBLUR_CUDA_STAGING_COPY", 0, SW_WORD, F(cuda_staging_memcpy), {"stream", "memcpy"}},
    {"RECBLUR_CUDA_STAGING_SLOT", 0, SW_BYTES, F(cuda_staging_slot), {0}},
    {"RECBLUR_CUDA_STAGING_THREADS", 0, SW_COUNT, F(cuda_staging_threads), {0}},
    {"RECBLUR_CUDA_STAGING_STRIPS", 0, SW_COUNT, F(cuda_staging_strips), {0}},
    {"RECBLUR_CUDA_STAGING_BANDS", 0, SW_COUNT, F(cuda_staging_bands), {0}},
    {"RECBLUR_CUDA_HOST_ALLOC", 0, SW_WORD, F(cuda_host_pageable), {"pinned", "pageable"}},
    {"RECBLUR_CUDA_ALLOC_LIMIT", 0, SW_LIMIT, F(cuda_alloc_limit), {0}},
    {"RECBLUR_CUDA_PINNED_LIMIT", 0, SW_LIMIT, F(cuda_pinned_limit), {0}},
    {"test:fail_launch", 1, SW_SET, F(hook_fail_launch), {0}},
    {"test:scan_delay_ns", 1, SW_UINT, F(hook_scan_delay_ns), {0}},
    {"test:deblur_grid", 1, SW_COUNT, F(hook_deblur_grid), {0}},
    {"test:cross_grid", 1, SW_COUNT, F(hook_cross_grid), {0}},
};
#undef F
#define TABLE_SIZE (sizeof table / sizeof table[0])

/* Whole decimal number (no sign, no trailing text) into *v. */
static int parse_decimal(const char *text, unsigned long long *v)
{
    if (!text || *text < '0' || *text > '9')
        return 0;
    char *end = NULL;
    *v = strtoull(text, &end, 10);
    return end && *end == '\0';
}

/* value NULL: the switch's default. */
static void apply(rb_switches *sw, const sw_def *d, const char *value)
{
    char *field = (char *)sw + d->offset;
    unsigned long long v = 0;
    switch (d->kind) {
    case SW_SET:
        *(int *)field = value != NULL;
        break;
    case SW_WORD: {
        int idx = 0;
        for (int k = 1; value && k < 5 && d->words[k]; k++)
            if (!strcmp(value, d->words[k]))
                idx = k;
        *(int *)field = idx;
        break;
    }
    case SW_COUNT:
        *(int *)field = parse_decimal(value, &v) && v > 0 && v < 1000000 ? (int)v : 0;
        break;
    case SW_BYTES:
        *(size_t *)field = parse_decimal(value, &v) && v > 0 ? (size_t)v : 0;
        break;
    case SW_LIMIT:
        *(size_t *)field = parse_decimal(value, &v) ? (size_t)v : SIZE_MAX;
        break;
    case SW_UINT:
        *(unsigned *)field = parse_decimal(value, &v) && v <= 0xffffffffull ? (unsigned)v : 0u;
        break;
    }
}

void rb_switches_read(rb_switches *sw)
{
    memset(sw, 0, sizeof *sw);
    for (size_t i = 0; i < TABLE_SIZE; i++)
        apply(sw, &table[i], table[i].test_hook ? NULL : getenv(table[i].name));
}

rb_status rb_switch_set(rb_context *ctx, const char *name, const char *value)
{
    if (!ctx || !name)
        return RB_ERR_NULL;
    for (size_t i = 0; i < TABLE_SIZE; i++)
        if (!strcmp(table[i].name, name)) {
            rb_context_drop_cached_plans(ctx);
            apply(&ctx->sw, &table[i], value);
            return RB_OK;
        }
    return rb_error(ctx, RB_ERR_ARGUMENT, "unknown run-time switch \"%s\"", name);
}

const char *rb_switch_preset_path(void) { return getenv("RECBLUR_PRESET_PATH"); }

const char *rb_switch_tmpdir(void) { return getenv("TMPDIR"); }
