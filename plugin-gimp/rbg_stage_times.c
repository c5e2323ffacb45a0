/* Stage timing of a full run, for finding where a call's time goes outside
 * the engine (bench/gimp_overhead.sh). Compiled in only with the CMake option
 * RECBLUR_GIMP_STAGE_TIMES (RBG_STAGE_TIMES): the environment is the
 * engine's switches' alone (engine/src/api/switches.c). One line on
 * stderr per run: "recblur-times WxH init=I start=S read=R engine=E ..." in
 * seconds: init is gegl_init (babl and GEGL's set-up), start the time from
 * there to the first stage (options, selection, layout). */
#include "rbg.h"

static gint64 process_start, init_done;

void rbg_stage_times_process_start(void)
{
    process_start = g_get_monotonic_time();
}

void rbg_stage_times_init_done(void)
{
    init_done = g_get_monotonic_time();
}

void rbg_stage_times_start(RbgStageTimes *t)
{
#ifdef RBG_STAGE_TIMES
    t->on = TRUE;
#else
    t->on = FALSE;
#endif
    t->line = NULL;
    if (!t->on)
        return;
    t->last = g_get_monotonic_time();
    t->line = g_string_new(NULL);
    if (!init_done)
        init_done = process_start;   /* this run started no GEGL: init 0 */
    g_string_append_printf(t->line, " init=%.3f start=%.3f", (init_done - process_start) / 1e6,
                           (t->last - init_done) / 1e6);
}

void rbg_stage_times_mark(RbgStageTimes *t, const char *stage)
{
    if (!t->on)
        return;
    gint64 now = g_get_monotonic_time();
    g_string_append_printf(t->line, " %s=%.3f", stage, (now - t->last) / 1e6);
    t->last = now;
}

void rbg_stage_times_report(RbgStageTimes *t, int w, int h)
{
    if (!t->on)
        return;
    g_printerr("recblur-times %dx%d%s\n", w, h, t->line->str);
    g_string_free(t->line, TRUE);
}
