/* Fuzz target: the PSF files of `recblur deblur --psf FILE` (cli/cmd_deblur.c's
 * static load_psf_file, reached by including that file): a text matrix of
 * numbers, or an image (PNG/PFM/TIFF, by extension). Byte 0 picks the
 * extension of the temporary file the rest is written to. */
#include "fuzz_util.h"

#include "cmd_deblur.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    static const char *const ext[4] = {"txt", "png", "pfm", "tif"};
    char path[512];
    rb_fuzz_write_temp(data + 1, size - 1, ext[data[0] % 4], path, sizeof path);
    double *k = NULL;
    int kw = 0, kh = 0;
    int rc = load_psf_file(path, &k, &kw, &kh);
    RB_FUZZ_CHECK(rc == 0 || rc == CLI_EXIT_FAIL, "load_psf_file returned %d", rc);
    if (rc == 0) {
        RB_FUZZ_CHECK(k && kw >= 1 && kh >= 1, "kernel %dx%d", kw, kh);
        double s = 0;
        for (size_t i = 0; i < (size_t)kw * (size_t)kh; i++)   /* ASan: all of it is ours */
            s += k[i];
        (void)s;
        free(k);
    } else {
        RB_FUZZ_CHECK(k == NULL, "failed load returned a kernel");
    }
    unlink(path);
    return 0;
}
