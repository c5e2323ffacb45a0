/* Replay driver for the normal (gcc, no libFuzzer) build: feeds every file
 * named on the command line, and every file in every directory named, to
 * LLVMFuzzerTestOneInput once. A crash or a failed check aborts the process,
 * so ctest reports the regression; inputs that pass print nothing. This is
 * how tests/fuzz/regressions/ and the seed corpora run on every CI build. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf)
            abort();
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    fclose(f);
    /* an exact-size copy, so ASan sees reads past the input's end */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact)
        abort();
    memcpy(exact, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += replay_file(argv[i]) != 0;
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            bad++;
            continue;
        }
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[nn] = malloc(len);
            if (!names || !names[nn])
                abort();
            snprintf(names[nn], len, "%s/%s", argv[i], e->d_name);
            nn++;
        }
        closedir(d);
        if (nn)   /* same order on every machine */
            qsort(names, nn, sizeof *names, cmp_str);
        for (size_t k = 0; k < nn; k++) {
            bad += replay_file(names[k]) != 0;
            count++;
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs, %d unreadable\n", count, bad);
    return bad ? 1 : 0;
}
