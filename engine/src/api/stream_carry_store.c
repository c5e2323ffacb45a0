/* The strips' carries in a temporary file (stream_carry_store.h). Plain
 * POSIX: mkstemp in $TMPDIR and unlink at once (nothing is left behind, not
 * even on a crash), then pread/pwrite at the records' offsets; the callers
 * read and write whole records or column ranges of them, so each call moves
 * kilobytes to megabytes and no buffer of its own is kept here. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, pread, pwrite */
#include "stream_carry_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rb_carry_file {
    rb_context *ctx;
    int fd;
    uint64_t size, written, read;
    char dir[4096];
};

rb_status rb_carry_file_open(rb_context *ctx, rb_carry_file **out)
{
    *out = NULL;
    rb_carry_file *f = calloc(1, sizeof *f);
    if (!f)
        return rb_error(ctx, RB_ERR_NOMEM, "out of memory for the strips' carry file");
    const char *dir = rb_switch_tmpdir();
    if (!dir || !*dir)
        dir = "/tmp";
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/recblur-carries-XXXXXX", f->dir);
    f->ctx = ctx;
    f->fd = mkstemp(path);
    if (f->fd < 0) {
        const int e = errno;
        rb_status s = rb_error(ctx, RB_ERR_IO, "cannot make a temporary file for the strips' carries "
                               "in %s (TMPDIR, else /tmp): %s", f->dir, strerror(e));
        free(f);
        return s;
    }
    unlink(path); /* the file lives on through fd only */
    *out = f;
    return RB_OK;
}

rb_status rb_carry_file_write(rb_carry_file *f, uint64_t off, const void *p, size_t n)
{
    const char *c = p;
    for (size_t done = 0; done < n;) {
        const ssize_t w = pwrite(f->fd, c + done, n - done, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return rb_error(f->ctx, RB_ERR_IO, "cannot write the strips' carries to their temporary "
                            "file in %s: %s", f->dir, w < 0 ? strerror(errno) : "nothing written");
        done += (size_t)w;
        f->written += (uint64_t)w;
    }
    if (n && off + n > f->size)
        f->size = off + n;
    return RB_OK;
}

rb_status rb_carry_file_read(rb_carry_file *f, uint64_t off, void *p, size_t n)
{
    char *c = p;
    for (size_t done = 0; done < n;) {
        const ssize_t r = pread(f->fd, c + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return rb_error(f->ctx, RB_ERR_IO, "cannot read the strips' carries back from their "
                            "temporary file in %s: %s", f->dir,
                            r < 0 ? strerror(errno) : "the file is shorter than written");
        done += (size_t)r;
        f->read += (uint64_t)r;
    }
    return RB_OK;
}

uint64_t rb_carry_file_size(const rb_carry_file *f)
{
    return f ? f->size : 0;
}

uint64_t rb_carry_file_written(const rb_carry_file *f)
{
    return f ? f->written : 0;
}

uint64_t rb_carry_file_read_bytes(const rb_carry_file *f)
{
    return f ? f->read : 0;
}

const char *rb_carry_file_dir(const rb_carry_file *f)
{
    return f ? f->dir : "";
}

void rb_carry_file_close(rb_carry_file *f)
{
    if (!f)
        return;
    close(f->fd);
    free(f);
}
