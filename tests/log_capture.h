/* Tests that check what the engine says: a context whose log lines collect in
 * `logbuf` (emptied by new_ctx), for asserting on fall-back and staging
 * messages. Include after cmocka.h. */
#ifndef RB_LOG_CAPTURE_H
#define RB_LOG_CAPTURE_H

#include "recblur.h"

#include <stdio.h>
#include <string.h>

static char logbuf[16384];

static void on_log(const char *m, void *user)
{
    (void)user;
    size_t n = strlen(logbuf);
    snprintf(logbuf + n, sizeof logbuf - n, "%s\n", m);
}

/* A context on back end `b` that logs into logbuf. */
static rb_context *new_ctx(rb_backend b)
{
    rb_context *ctx = NULL;
    assert_int_equal(rb_context_create(&ctx), RB_OK);
    assert_int_equal(rb_context_set_backend(ctx, b), RB_OK);
    rb_context_set_log(ctx, on_log, NULL);
    logbuf[0] = 0;
    return ctx;
}

#endif
