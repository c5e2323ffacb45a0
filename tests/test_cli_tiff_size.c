/* TIFF output past classic TIFF's 4 GiB is BigTIFF (issue 18 item 4): the
 * CLI's choice for the sizes around the limit, and the header of a file the
 * strip writer really opens for a 70000 x 70000 image (the header is written
 * when the file is opened, so no pixels need to go in to see it). */
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

int main(void)
{
    TU_RUN_TESTS(cmocka_unit_test(test_choice_by_size), cmocka_unit_test(test_writer_header));
}
