/* PFM (portable float map) reading and writing for the test helpers, written
 * here rather than taken from the CLI so that a CLI codec bug cannot hide
 * behind the same bug in the check. "PF" holds 3 channels, "Pf" 1; rows are
 * stored bottom to top; a negative scale means little-endian samples. */
#ifndef RB_TEST_PFM_IO_H
#define RB_TEST_PFM_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pfm_put32(unsigned char *b, float v, int big)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int k = 0; k < 4; k++)
        b[big ? 3 - k : k] = (unsigned char)(u >> (8 * k));
}

static float pfm_get32(const unsigned char *b, int big)
{
    uint32_t u = 0;
    for (int k = 0; k < 4; k++)
        u |= (uint32_t)b[big ? 3 - k : k] << (8 * k);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* Write w x h x c (c = 1 or 3) interleaved floats, top row first in p. */
static int pfm_write(const char *path, const float *p, int w, int h, int c, int big)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "%s\n%d %d\n%s\n", c == 3 ? "PF" : "Pf", w, h, big ? "1.0" : "-1.0");
    unsigned char b[4];
    for (int y = h - 1; y >= 0; y--)
        for (int i = 0; i < w * c; i++) {
            pfm_put32(b, p[(size_t)y * w * c + i], big);
            fwrite(b, 1, 4, f);
        }
    return fclose(f) != 0;
}

/* Read a PFM; malloc'd samples, top row first, or NULL with a message. */
static float *pfm_read(const char *path, int *w, int *h, int *c)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    char magic[3] = {0};
    double scale;
    if (fscanf(f, "%2s %d %d %lf", magic, w, h, &scale) != 4 || fgetc(f) == EOF ||
        (strcmp(magic, "PF") && strcmp(magic, "Pf")) || *w < 1 || *h < 1) {
        fprintf(stderr, "%s: bad PFM header\n", path);
        fclose(f);
        return NULL;
    }
    *c = magic[1] == 'F' ? 3 : 1;
    size_t n = (size_t)*w * *h * *c;
    float *p = malloc(n * sizeof *p);
    unsigned char b[4];
    for (int y = *h - 1; p && y >= 0; y--)
        for (int i = 0; i < *w * *c; i++) {
            if (fread(b, 1, 4, f) != 4) {
                fprintf(stderr, "%s: short PFM\n", path);
                free(p);
                p = NULL;
                break;
            }
            p[(size_t)y * *w * *c + i] = pfm_get32(b, scale > 0);
        }
    fclose(f);
    return p;
}

#endif
