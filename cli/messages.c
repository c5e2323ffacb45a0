/* One-line errors and --verbose info lines. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int cli_fail(int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)   /* the promise is ONE line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "recblur: %s\n", msg);
    return status;
}

void cli_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "recblur: warning: %s\n", msg);
}

const char *cli_engine_message(const rb_context *ctx)
{
    const char *m = ctx ? rb_context_error(ctx) : "";
    if (!strncmp(m, "recblur: ", 9))
        m += 9;
    return m[0] ? m : "engine error (no message)";
}

static void vinfo(int verbose, const char *fmt, va_list ap)
{
    if (!verbose)
        return;
    fputs("recblur info: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_info(const cli_options *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vinfo(o->verbose, fmt, ap);
    va_end(ap);
}

void cli_info_if(int verbose, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vinfo(verbose, fmt, ap);
    va_end(ap);
}

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
