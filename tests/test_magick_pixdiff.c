/* rb_magick_pixdiff A B TOL [--differ]: compare the pixels of two image files read by
 * ImageMagick (engine-free), as 16-bit RGBA samples.
 *   exit 0 when max |A - B| <= TOL (in 16-bit steps), else 1;
 *   with --differ: exit 0 when the images DO differ by more than TOL (the filter did
 *   something), else 1. Exit 2 on a read error or a size mismatch.
 * The colour of a pixel transparent (alpha 0) in both images is not compared: it
 * carries no information, and PNG writers are free to change it.
 * Prints "maxdiff N (channel C at x,y) of W x H" so a failing test shows by how much. */
#if RB_MAGICK_MAJOR >= 7
#include <MagickCore/MagickCore.h>
#else
#include <magick/MagickCore.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned short *read_rgba16(const char *path, size_t *w, size_t *h)
{
    ExceptionInfo *ex = AcquireExceptionInfo();
    ImageInfo *info = AcquireImageInfo();
    (void)CopyMagickString(info->filename, path, MaxTextExtent);
    Image *img = ReadImage(info, ex);
    unsigned short *px = NULL;
    if (!img) {
        fprintf(stderr, "pixdiff: cannot read %s: %s\n", path,
                ex->reason ? ex->reason : "unknown error");
    } else {
        *w = img->columns;
        *h = img->rows;
        px = malloc(*w * *h * 4 * sizeof *px);
        if (px && ExportImagePixels(img, 0, 0, *w, *h, "RGBA", ShortPixel, px, ex) == MagickFalse) {
            fprintf(stderr, "pixdiff: cannot export pixels of %s\n", path);
            free(px);
            px = NULL;
        }
        DestroyImage(img);
    }
    DestroyImageInfo(info);
    DestroyExceptionInfo(ex);
    return px;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s A B TOL [--differ]\n", argv[0]);
        return 2;
    }
    int differ = argc > 4 && strcmp(argv[4], "--differ") == 0;
    long tol = strtol(argv[3], NULL, 10);
    MagickCoreGenesis(argv[0], MagickFalse);
    size_t wa = 0, ha = 0, wb = 0, hb = 0;
    unsigned short *a = read_rgba16(argv[1], &wa, &ha);
    unsigned short *b = read_rgba16(argv[2], &wb, &hb);
    int rc = 2;
    if (a && b) {
        if (wa != wb || ha != hb) {
            fprintf(stderr, "pixdiff: sizes differ: %zux%zu vs %zux%zu\n", wa, ha, wb, hb);
        } else {
            long maxd = 0;
            size_t at = 0;
            for (size_t i = 0; i < wa * ha * 4; i++) {
                size_t alpha = i - i % 4 + 3;
                if (i % 4 != 3 && a[alpha] == 0 && b[alpha] == 0)
                    continue;
                long d = labs((long)a[i] - (long)b[i]);
                if (d > maxd) { maxd = d; at = i; }
            }
            printf("maxdiff %ld (channel %c at %zu,%zu) of %zu x %zu\n", maxd, "RGBA"[at % 4],
                   (at / 4) % wa, (at / 4) / wa, wa, ha);
            rc = differ ? (maxd > tol ? 0 : 1) : (maxd <= tol ? 0 : 1);
        }
    }
    free(a);
    free(b);
    MagickCoreTerminus();
    return rc;
}
