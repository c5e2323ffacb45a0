/* Helpers shared by the libFuzzer harnesses: turning the fuzzer's bytes into
 * C strings, argv vectors and temporary files, and the checks every harness
 * makes (a failed call must leave a message). Header-only so each harness is
 * one translation unit, built either with -fsanitize=fuzzer or with
 * replay_main.c (the regression replay in the normal build). */
#ifndef RB_FUZZ_UTIL_H
#define RB_FUZZ_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A report that libFuzzer (or the replay driver) turns into a failure. */
#define RB_FUZZ_CHECK(cond, ...)                                                    \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__, __LINE__, \
                    #cond);                                                         \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* NUL-terminated copy of the bytes (inner NULs end the string early, as they
 * would for any C caller). */
static inline char *rb_fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* Splits the bytes at NUL into at most max strings (the copy owns them).
 * Returns the count; *buf must be freed. */
static inline int rb_fuzz_split(const uint8_t *data, size_t size, char **out, int max, char **buf)
{
    char *b = malloc(size + 1);
    if (!b)
        abort();
    memcpy(b, data, size);
    b[size] = 0;
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < max; i++)
        if (b[i] == 0) {
            out[n++] = b + start;
            start = i + 1;
        }
    *buf = b;
    return n;
}

/* Once per process: stdin from /dev/null (a preset path "/dev/stdin" must not
 * block the run) and a private temporary directory name for file-based readers. */
static char rb_fuzz_tmpdir[256];

static inline void rb_fuzz_once(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    if (!freopen("/dev/null", "r", stdin))
        abort();
    const char *t = getenv("TMPDIR");
    snprintf(rb_fuzz_tmpdir, sizeof rb_fuzz_tmpdir, "%s", t && *t ? t : "/tmp");
}

/* Writes the bytes to TMPDIR/recblur-fuzz-PID.EXT (one file per process and
 * extension, rewritten for every input) and returns its path. */
static inline const char *rb_fuzz_write_temp(const uint8_t *data, size_t size, const char *ext,
                                             char *path, size_t path_len)
{
    rb_fuzz_once();
    snprintf(path, path_len, "%s/recblur-fuzz-%ld.%s", rb_fuzz_tmpdir, (long)getpid(), ext);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        abort();
    }
    if (size && fwrite(data, 1, size, f) != size) {
        perror(path);
        abort();
    }
    if (fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

#endif /* RB_FUZZ_UTIL_H */
