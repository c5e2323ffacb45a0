/* The measurements behind the CLI's writer defaults: CPU time (this
 * process's, so a loaded machine inflates it less than wall time) and file
 * size of one RGB 8-bit image written
 *   - as TIFF, through TIFFWriteEncodedStrip as cli/image_io_tiff.c does:
 *     none, deflate levels 1 and 6 with and without the horizontal predictor,
 *     strips of 8 KiB (libtiff's default size) to 1 MiB, lzw, zstd, packbits;
 *   - as PNG, row by row through libpng: zlib levels 1, 3 and 6 and zlib's
 *     RLE strategy, each with libpng's five-filter search and with one filter.
 * Each line is the best of REPEATS runs. It also checks that libtiff's
 * predictor leaves the caller's buffer as it was (the writer relies on it).
 *
 *   codec_write_choices IMAGE.ppm [OUT_DIR]      (binary PPM, P6, 8-bit)
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <time.h>
#include <zlib.h>

#define REPEATS 3

static int W, H;
static unsigned char *img;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1048576.0 : -1.0;
}

/* One header number of a PPM, skipping white space and # comments (vips
 * writes one). */
static int ppm_number(FILE *f)
{
    int c = fgetc(f);
    while (c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        if (c == '#')
            while (c != '\n' && c != EOF)
                c = fgetc(f);
        c = fgetc(f);
    }
    int v = 0, digits = 0;
    for (; c >= '0' && c <= '9' && v < 1000000; c = fgetc(f), digits++)
        v = v * 10 + (c - '0');
    return digits ? v : -1; /* the byte after the number (one white space) is consumed */
}

static int read_ppm(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f || fgetc(f) != 'P' || fgetc(f) != '6')
        return -1;
    W = ppm_number(f);
    H = ppm_number(f);
    if (W <= 0 || H <= 0 || ppm_number(f) != 255)
        return -1;
    size_t n = (size_t)W * (size_t)H * 3;
    img = malloc(n);
    int ok = img && fread(img, 1, n, f) == n;
    fclose(f);
    return ok ? 0 : -1;
}

static void write_png(const char *path, int level, int strategy, int filter)
{
    FILE *f = fopen(path, "wb");
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(p);
    if (!f || setjmp(png_jmpbuf(p))) {
        fprintf(stderr, "PNG write failed\n");
        exit(1);
    }
    png_init_io(p, f);
    png_set_compression_level(p, level);
    png_set_compression_strategy(p, strategy);
    if (filter >= 0)
        png_set_filter(p, PNG_FILTER_TYPE_BASE, filter);
    png_set_IHDR(p, info, (png_uint_32)W, (png_uint_32)H, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    for (int y = 0; y < H; y++)
        png_write_row(p, img + (size_t)y * (size_t)W * 3);
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    fclose(f);
}

static void write_tiff(const char *path, uint16_t compression, int level, int predictor, size_t strip_bytes)
{
    TIFF *t = TIFFOpen(path, "w");
    if (!t) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    size_t row = (size_t)W * 3;
    uint32_t rps = strip_bytes / row ? (uint32_t)(strip_bytes / row) : 1;
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)W);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)H);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, compression);
    if (compression != COMPRESSION_NONE && compression != COMPRESSION_PACKBITS)
        TIFFSetField(t, TIFFTAG_PREDICTOR, predictor ? PREDICTOR_HORIZONTAL : PREDICTOR_NONE);
    if (compression == COMPRESSION_ADOBE_DEFLATE)
        TIFFSetField(t, TIFFTAG_ZIPQUALITY, level);
    if (compression == COMPRESSION_ZSTD)
        TIFFSetField(t, TIFFTAG_ZSTD_LEVEL, level);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rps);
    for (uint32_t s = 0, y = 0; y < (uint32_t)H; s++, y += rps) {
        uint32_t rows = (uint32_t)H - y < rps ? (uint32_t)H - y : rps;
        TIFFWriteEncodedStrip(t, s, img + (size_t)y * row, (tmsize_t)(rows * row));
    }
    TIFFClose(t);
}

/* One way of writing the image: TIFF (compression, level, predictor, strip
 * bytes) when png is 0, else PNG (zlib level and strategy, row filter). */
typedef struct {
    int png;
    uint16_t compression;
    int level, predictor, strategy, filter;
    size_t strip;
} write_choice;

/* The least CPU time of REPEATS writes to path (the machine is shared: the
 * minimum is the choice's own cost). */
static double best_cpu_seconds(const char *path, const write_choice *c)
{
    double best = 1e30;
    for (int r = 0; r < REPEATS; r++) {
        double t0 = cpu_seconds();
        if (c->png)
            write_png(path, c->level, c->strategy, c->filter);
        else
            write_tiff(path, c->compression, c->level, c->predictor, c->strip);
        double t = cpu_seconds() - t0;
        best = t < best ? t : best;
    }
    return best;
}

static unsigned long long checksum(void)
{
    unsigned long long s = 0;
    for (size_t k = 0; k < (size_t)W * (size_t)H * 3; k++)
        s = s * 31u + img[k];
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2 || read_ppm(argv[1])) {
        fprintf(stderr, "usage: codec_write_choices IMAGE.ppm [OUT_DIR] (binary P6, 8-bit)\n");
        return 2;
    }
    char out_tif[4096], out_png[4096];
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    snprintf(out_tif, sizeof out_tif, "%s/codec_choice.tif", dir);
    snprintf(out_png, sizeof out_png, "%s/codec_choice.png", dir);
    unsigned long long before = checksum();
    printf("%dx%d RGB 8-bit, best of %d, CPU seconds of this process\n\n", W, H, REPEATS);
    printf("| TIFF | strip | CPU s | MB |\n|---|---|---|---|\n");
    /* each codec at the strip sizes (bytes, 0 ends the list) worth comparing */
    static const struct {
        const char *name;
        uint16_t compression;
        int level, predictor;
        size_t strips[5];
    } tiffs[] = {
        {"none", COMPRESSION_NONE, 0, 0, {8192, 262144}},
        {"deflate 6 + predictor", COMPRESSION_ADOBE_DEFLATE, 6, 1, {8192, 262144}},
        {"deflate 1 + predictor", COMPRESSION_ADOBE_DEFLATE, 1, 1, {8192, 65536, 262144, 1048576}},
        {"deflate 1", COMPRESSION_ADOBE_DEFLATE, 1, 0, {262144}},
        {"lzw + predictor", COMPRESSION_LZW, 0, 1, {262144}},
        {"zstd 1 + predictor", COMPRESSION_ZSTD, 1, 1, {262144}},
        {"packbits", COMPRESSION_PACKBITS, 0, 0, {262144}},
    };
    for (size_t k = 0; k < sizeof tiffs / sizeof tiffs[0]; k++) {
        if (!TIFFIsCODECConfigured(tiffs[k].compression))
            continue;
        for (const size_t *strip = tiffs[k].strips; *strip; strip++) {
            write_choice c = {0, tiffs[k].compression, tiffs[k].level, tiffs[k].predictor, 0, 0, *strip};
            double best = best_cpu_seconds(out_tif, &c);
            printf("| %s | %zu KiB | %.3f | %.1f |\n", tiffs[k].name, *strip / 1024, best, file_mb(out_tif));
            fflush(stdout);
        }
    }
    printf("\n| PNG | filter | CPU s | MB |\n|---|---|---|---|\n");
    static const struct {
        const char *name;
        int level, strategy;
    } zs[] = {{"zlib 1", 1, Z_DEFAULT_STRATEGY}, {"zlib 1, RLE", 1, Z_RLE},
              {"zlib 3", 3, Z_DEFAULT_STRATEGY}, {"zlib 6", 6, Z_DEFAULT_STRATEGY}};
    static const struct {
        const char *name;
        int filter;
    } fs[] = {{"five-filter search (libpng default)", -1}, {"none", PNG_FILTER_NONE},
              {"sub", PNG_FILTER_SUB}, {"up", PNG_FILTER_UP}, {"paeth", PNG_FILTER_PAETH}};
    for (size_t a = 0; a < sizeof zs / sizeof zs[0]; a++)
        for (size_t b = 0; b < sizeof fs / sizeof fs[0]; b++) {
            write_choice c = {1, 0, zs[a].level, 0, zs[a].strategy, fs[b].filter, 0};
            double best = best_cpu_seconds(out_png, &c);
            printf("| %s | %s | %.3f | %.1f |\n", zs[a].name, fs[b].name, best, file_mb(out_png));
            fflush(stdout);
        }
    printf("\nlibtiff's predictor %s the caller's buffer\n", checksum() == before ? "left" : "CHANGED");
    remove(out_tif);
    remove(out_png);
    return checksum() == before ? 0 : 1;
}
