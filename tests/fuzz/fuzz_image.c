/* Fuzz target: the CLI's image readers (cli/image_io_*.c), one build per
 * format: RB_FUZZ_FORMAT 1 = PNG (cli_png_read), 2 = PFM (cli_pfm_read),
 * 3 = TIFF (cli_tiff_read). The bytes go to a temporary file so the readers'
 * file-size checks against lying headers run as they do for real files.
 * An image that reads is checked (every byte touched, sane geometry) and,
 * when small, written back in the same format and read again: the pixels
 * must survive bit for bit (every format we write is lossless). */
#include "fuzz_util.h"
#include "image_io.h"

#ifndef RB_FUZZ_FORMAT
#error "define RB_FUZZ_FORMAT (1 PNG, 2 PFM, 3 TIFF)"
#endif

static const char *const ext_of[4] = {"", "png", "pfm", "tif"};

static int read_as(const char *path, cli_image *im, char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
#if RB_FUZZ_FORMAT == 3
    return cli_tiff_read(path, im, err, errlen);
#else
    FILE *f = fopen(path, "rb");
    if (!f)
        abort();
    int rc = RB_FUZZ_FORMAT == 1 ? cli_png_read(f, path, im, err, errlen)
                                 : cli_pfm_read(f, path, im, err, errlen);
    fclose(f);
    if (rc)
        cli_image_free(im);
    return rc;
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (4u << 20))
        return 0;
    char path[512], path2[600], err[CLI_ERR_LEN] = "";
    rb_fuzz_write_temp(data, size, ext_of[RB_FUZZ_FORMAT], path, sizeof path);
    cli_image im;
    if (read_as(path, &im, err, sizeof err) != 0) {
        RB_FUZZ_CHECK(err[0], "refused without a message");
        cli_image_free(&im);
        unlink(path);
        return 0;
    }
    rb_image *g = &im.img;
    RB_FUZZ_CHECK(g->data && g->width > 0 && g->height > 0 && g->channels >= 1 && g->channels <= 4,
                  "geometry %dx%dx%d", g->width, g->height, g->channels);
    size_t row = (size_t)g->width * (size_t)g->channels * cli_sample_size(g->format);
    RB_FUZZ_CHECK(g->stride == row, "stride %zu, row %zu", g->stride, row);
    size_t total = row * (size_t)g->height;
    unsigned sum = 0;
    for (size_t i = 0; i < total; i++)   /* ASan: the whole buffer is ours */
        sum += ((const unsigned char *)g->data)[i];
    (void)sum;
    cli_file_type type = RB_FUZZ_FORMAT == 1 ? CLI_FILE_PNG : RB_FUZZ_FORMAT == 2 ? CLI_FILE_PFM
                                                                                 : CLI_FILE_TIFF;
    const char *why;
    if ((size_t)g->width * (size_t)g->height <= 4096 &&
        cli_file_can_store(type, g->format, g->channels, &why)) {
        snprintf(path2, sizeof path2, "%s.again.%s", path, ext_of[RB_FUZZ_FORMAT]);
        RB_FUZZ_CHECK(cli_image_write(path2, type, g, NULL, err, sizeof err) == 0, "write back: %s", err);
        cli_image back;
        RB_FUZZ_CHECK(read_as(path2, &back, err, sizeof err) == 0, "read back: %s", err);
        RB_FUZZ_CHECK(back.img.width == g->width && back.img.height == g->height &&
                          back.img.channels == g->channels && back.img.format == g->format,
                      "geometry changed in the round trip");
        RB_FUZZ_CHECK(!memcmp(back.img.data, g->data, total), "pixels changed in the round trip");
        cli_image_free(&back);
        unlink(path2);
    }
    cli_image_free(&im);
    unlink(path);
    return 0;
}
