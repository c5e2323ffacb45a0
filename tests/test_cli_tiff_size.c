/* TIFF sizes. Output past classic TIFF's 4 GiB is BigTIFF (issue 18 item 4):
 * the CLI's choice for the sizes around the limit, and the header of a file
 * the strip writer really opens for a 70000 x 70000 image (the header is
 * written when the file is opened, so no pixels need to go in to see it).
 * Input tiles: a header asking for a tile far larger than its image is
 * refused before anything is allocated, ordinary tiles larger than a small
 * image still read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_main.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image_io.h"

#if __has_include(<tiffio.h>)
#include <tiffio.h>
#define HAVE_TIFFIO 1
#endif

static rb_image geometry(int w, int h, int c, rb_format f)
{
    rb_image g = {w, h, c, 0, f, RB_MEMORY_HOST, RB_ALPHA_NONE, 0, NULL};
    return g;
}

static void test_choice_by_size(void **state)
{
    (void)state;
    rb_image g;
    g = geometry(30000, 30000, 1, RB_U8); /* 0.9 GB */
    assert_false(cli_tiff_needs_bigtiff(&g));
    g = geometry(16384, 16384, 3, RB_U8); /* 0.8 GB */
    assert_false(cli_tiff_needs_bigtiff(&g));
    g = geometry(65536, 65536, 1, RB_U8); /* 4 GiB exactly: no room for the tags */
    assert_true(cli_tiff_needs_bigtiff(&g));
    g = geometry(100000, 100000, 1, RB_U8); /* 10 GB */
    assert_true(cli_tiff_needs_bigtiff(&g));
    g = geometry(16384, 16384, 4, RB_F32); /* 4 GiB of float RGBA */
    assert_true(cli_tiff_needs_bigtiff(&g));
    g = geometry(16384, 16383, 4, RB_U16); /* 2 GiB */
    assert_false(cli_tiff_needs_bigtiff(&g));
    /* either side of the limit (4 GiB less 64 MiB), one row of 1 MiB apart */
    g = geometry(1 << 20, 4032, 1, RB_U8);
    assert_false(cli_tiff_needs_bigtiff(&g));
    g = geometry(1 << 20, 4033, 1, RB_U8);
    assert_true(cli_tiff_needs_bigtiff(&g));
    /* width x height beyond 32 bits is counted in 64 */
    g = geometry(2000000000, 3, 1, RB_U8);
    assert_true(cli_tiff_needs_bigtiff(&g));
}

/* The version word of the header the strip writer wrote: 42 classic, 43 BigTIFF. */
static int header_version(int w, int h)
{
    char tmp[] = "/tmp/rb_tiff_sizeXXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    rb_image g = geometry(w, h, 1, RB_U8);
    cli_codec codec = {CLI_COMPRESS_NONE, 0, 0};
    char err[256] = "";
    cli_tiff_rows *s = cli_tiff_rows_create(tmp, "out.tif", &g, &codec, 64, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    unsigned char hdr[4] = {0};
    FILE *f = fopen(tmp, "rb");
    assert_non_null(f);
    size_t got = fread(hdr, 1, 4, f);
    fclose(f);
    cli_tiff_rows_close(s, 0, err, sizeof err);
    unlink(tmp);
    assert_int_equal(got, 4);
    /* byte order mark, then the version in that order */
    return hdr[0] == 'I' ? hdr[2] | hdr[3] << 8 : hdr[3] | hdr[2] << 8;
}

static void test_writer_header(void **state)
{
    (void)state;
    if (!cli_have_tiff())
        skip();
    assert_int_equal(header_version(3000, 2000), 42);
    assert_int_equal(header_version(70000, 70000), 43);
    printf("TIFF header: 3000x2000 gray 8-bit classic (42), 70000x70000 BigTIFF (43)\n");
}

/* A 253-byte TIFF the fuzzer found: a 5x3 gray image whose TileWidth and
 * TileLength ask for a 22.7 GB tile; the reader allocated it (2.4 GB of it
 * touched under ASan). tests/fuzz/regressions/image_tiff/ holds it too. */
static const unsigned char lying_tiles[] = {
    0x49, 0x49, 0x2a, 0x00, 0x26, 0x00, 0x00, 0x00, 0x36, 0xff, 0x36, 0xff,
    0x36, 0xff, 0x36, 0xff, 0x36, 0xff, 0x24, 0xff, 0x24, 0xff, 0x24, 0xff,
    0x24, 0xff, 0x24, 0xff, 0x12, 0xff, 0x12, 0xff, 0x12, 0xff, 0x12, 0xff,
    0x12, 0xff, 0x0e, 0x00, 0x00, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x05, 0x00, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x02, 0x01, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x08, 0x00, 0x03, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x06, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x0a, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x11, 0x01, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x00, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x15, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x16, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x42, 0x01, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x1e, 0x00, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1,
    0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1,
    0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1,
    0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0xe1, 0x00, 0x00, 0x1c, 0x01, 0x03,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x29, 0x01, 0x03,
    0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x52, 0x01, 0x03,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00};

static char *write_temp(const unsigned char *bytes, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/rb_tiff_tilesXXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, n), (ssize_t)n);
    close(fd);
    return path;
}

static void test_tile_larger_than_reason(void **state)
{
    (void)state;
    if (!cli_have_tiff())
        skip();
    char *path = write_temp(lying_tiles, sizeof lying_tiles);
    cli_image im;
    memset(&im, 0, sizeof im);
    char err[256] = "";
    assert_int_equal(cli_tiff_read(path, &im, err, sizeof err), -1);
    cli_image_free(&im);
    unlink(path);
    printf("refused: %s\n", err);
    assert_non_null(strstr(err, "tiles of"));
    assert_non_null(strstr(err, "for a 5x3 image"));
}

/* 256x256 tiles (libtiff's own default) on a 5x3 RGB image: a tile larger
 * than the image, but an ordinary one; its pixels come back. */
static void test_ordinary_tiles_on_a_small_image(void **state)
{
    (void)state;
#ifdef HAVE_TIFFIO
    if (!cli_have_tiff())
        skip();
    char path[] = "/tmp/rb_tiff_tiles_okXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    const uint32_t w = 5, h = 3, tw = 256, th = 256;
    TIFF *t = TIFFOpen(path, "w");
    assert_non_null(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_TILEWIDTH, tw);
    TIFFSetField(t, TIFFTAG_TILELENGTH, th);
    unsigned char *tile = calloc((size_t)tw * th * 3, 1);
    assert_non_null(tile);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w * 3; x++)
            tile[(size_t)y * tw * 3 + x] = (unsigned char)(7 * y + 11 * x + 1);
    assert_true(TIFFWriteTile(t, tile, 0, 0, 0, 0) > 0);
    TIFFClose(t);
    cli_image im;
    memset(&im, 0, sizeof im);
    char err[256] = "";
    int rc = cli_tiff_read(path, &im, err, sizeof err);
    unlink(path);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(im.img.width, 5);
    assert_int_equal(im.img.height, 3);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w * 3; x++)
            assert_int_equal(((unsigned char *)im.img.data)[(size_t)y * im.img.stride + x],
                             (unsigned char)(7 * y + 11 * x + 1));
    cli_image_free(&im);
    free(tile);
#else
    skip();
#endif
}

int main(void)
{
    TU_RUN_TESTS(cmocka_unit_test(test_choice_by_size), cmocka_unit_test(test_writer_header),
                 cmocka_unit_test(test_tile_larger_than_reason),
                 cmocka_unit_test(test_ordinary_tiles_on_a_small_image));
}
