/* PNG through libpng: 8- and 16-bit gray, gray+alpha, RGB and RGBA. Palette,
 * low-bit gray and tRNS are expanded on reading. libpng reports errors by
 * longjmp; the handler copies its message so the caller prints one line. */
#include "image_io_png_shared.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void cli_png_on_error(png_structp png, png_const_charp msg)
{
    cli_png_err_state *st = png_get_error_ptr(png);
    snprintf(st->msg, sizeof st->msg, "%s", msg);
    png_longjmp(png, 1);
}

void cli_png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* warnings (e.g. unknown chunks) do not stop us and stay quiet */
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* Deflate cannot compress better than about 1032:1, so a header whose raw
 * size exceeds that many times the file's size is lying: refuse it before
 * allocating gigabytes for it. */
#define CLI_DEFLATE_MAX_RATIO 1100u

int cli_png_read_setup(png_structp png, png_infop info, FILE *f, const char *path, cli_image *hdr,
                       int *interlaced, char *err, size_t errlen)
{
    memset(hdr, 0, sizeof *hdr);
    /* Skip every chunk but IHDR, PLTE, tRNS, IDAT and IEND (num_chunks -1):
     * libpng mallocs a text chunk's declared length before reading it, with
     * no cap in 1.6.39, so a 291-byte file claiming a 1.9 GB tEXt allocated
     * 1.9 GB (fuzz_image_png). Skipped chunks are read through a small
     * buffer, and we use none of them. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    /* and libpng's own cap on any one chunk's buffer, for the chunks it still
     * reads (PLTE, tRNS are small; IDAT streams), should a future libpng
     * handle another chunk itself */
    png_set_chunk_malloc_max(png, (png_alloc_size_t)8 << 20);
    png_init_io(png, f);
    png_read_info(png, info);

    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    int color = png_get_color_type(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (bit_depth == 16 && host_is_little_endian())
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info);
    rb_format format = png_get_bit_depth(png, info) == 16 ? RB_U16 : RB_U8;
    if (w > (png_uint_32)RB_MAX_SIDE || h > (png_uint_32)RB_MAX_SIDE) {
        snprintf(err, errlen, "%s: PNG of %lux%lu is larger than recblur accepts (%d per side)", path,
                 (unsigned long)w, (unsigned long)h, RB_MAX_SIDE);
        return -1;
    }
    long long fsize = cli_file_size(f);
    uint64_t raw = ((uint64_t)w * (uint64_t)channels * cli_sample_size(format) + 1u) * (uint64_t)h;
    if (fsize > 0 && raw / CLI_DEFLATE_MAX_RATIO > (uint64_t)fsize) {
        snprintf(err, errlen, "%s: bad PNG: header says %lux%lu, far more than a %lld-byte file can hold",
                 path, (unsigned long)w, (unsigned long)h, fsize);
        return -1;
    }
    if (interlaced)
        *interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    hdr->img.width = (int)w;
    hdr->img.height = (int)h;
    hdr->img.channels = channels;
    hdr->img.format = format;
    hdr->img.stride = (size_t)w * (size_t)channels * cli_sample_size(format);
    hdr->img.memory = RB_MEMORY_HOST;
    hdr->img.alpha = (channels == 2 || channels == 4) ? RB_ALPHA_STRAIGHT : RB_ALPHA_NONE;
    hdr->img.srgb = 1;
    hdr->type = CLI_FILE_PNG;
    hdr->codec.method = CLI_COMPRESS_DEFLATE; /* every PNG is; its level is not recorded */
    if (png_get_rowbytes(png, info) != hdr->img.stride)
        png_error(png, "unexpected row size after transformations");
    return 0;
}

int cli_png_read(FILE *f, const char *path, cli_image *out, char *err, size_t errlen)
{
    cli_png_err_state st = {{0}};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &st, cli_png_on_error, cli_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *volatile rows = NULL;   /* volatile: assigned after setjmp, freed after longjmp */
    if (!png || !info) {
        png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
        snprintf(err, errlen, "%s: out of memory starting the PNG reader", path);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        if (feof(f))
            snprintf(err, errlen, "%s: truncated PNG (the file ends before the image does)", path);
        else
            snprintf(err, errlen, "%s: bad PNG: %s", path, st.msg[0] ? st.msg : "read error");
        return -1;
    }
    cli_image hdr;
    if (cli_png_read_setup(png, info, f, path, &hdr, NULL, err, errlen)) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    const png_uint_32 h = (png_uint_32)hdr.img.height;
    if (cli_image_alloc(&out->img, hdr.img.width, hdr.img.height, hdr.img.channels, hdr.img.format,
                        err, errlen)) {
        char tmp[CLI_ERR_LEN];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    rows = malloc(sizeof *rows * h);
    if (!rows)
        png_error(png, "out of memory for row pointers");
    for (png_uint_32 y = 0; y < h; y++)
        rows[y] = (png_bytep)out->img.data + (size_t)y * out->img.stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);

    out->img.alpha = hdr.img.alpha;
    out->img.srgb = hdr.img.srgb;
    out->codec = hdr.codec;
    return 0;
}

int cli_png_level(const cli_codec *codec, rb_format format)
{
    cli_codec cd = codec ? *codec : cli_codec_default(CLI_FILE_PNG, format);
    return cd.method == CLI_COMPRESS_NONE ? 0 : cd.level;
}

void cli_png_write_setup(png_structp png, png_infop info, FILE *f, const rb_image *geom, int level)
{
    static const int color_of[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    int depth = geom->format == RB_U16 ? 16 : 8;
    png_init_io(png, f);
    png_set_compression_level(png, level);
    /* Level 1, the fast default, is zlib's run-length strategy: after the Sub
     * filter it is as fast as zlib level 1 and smaller (blurred 4096^2 photo:
     * 0.58 s CPU, 6.4 MB, against 0.55 s, 7.6 MB; bench/RESULTS.md). */
    if (level == 1)
        png_set_compression_strategy(png, Z_RLE);
    /* One filter for every row instead of libpng's default search over all
     * five per row, which doubles the time (for 1 % fewer bytes at level 1,
     * 14 % with RLE; measured as above); stored output (level 0) is not
     * filtered at all. */
    png_set_filter(png, PNG_FILTER_TYPE_BASE, level == 0 ? PNG_FILTER_NONE : PNG_FILTER_SUB);
    png_set_IHDR(png, info, (png_uint_32)geom->width, (png_uint_32)geom->height, depth,
                 color_of[geom->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (depth == 16 && host_is_little_endian())
        png_set_swap(png);
}

int cli_png_write(FILE *f, const char *path, const rb_image *img, const cli_codec *codec, char *err,
                  size_t errlen)
{
    const int level = cli_png_level(codec, img->format);
    cli_png_err_state st = {{0}};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st, cli_png_on_error, cli_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *volatile rows = NULL;   /* volatile: assigned after setjmp, freed after longjmp */
    if (!png || !info) {
        png_destroy_write_struct(png ? &png : NULL, NULL);
        snprintf(err, errlen, "cannot write %s: out of memory starting the PNG writer", path);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_write_struct(&png, &info);
        snprintf(err, errlen, "cannot write %s: %s", path,
                 st.msg[0] ? st.msg : strerror(errno));
        return -1;
    }
    cli_png_write_setup(png, info, f, img, level);
    size_t stride = img->stride ? img->stride
                                : (size_t)img->width * (size_t)img->channels * cli_sample_size(img->format);
    rows = malloc(sizeof *rows * (size_t)img->height);
    if (!rows)
        png_error(png, "out of memory for row pointers");
    for (int y = 0; y < img->height; y++)
        rows[y] = (png_bytep)img->data + (size_t)y * stride;
    png_write_image(png, rows);
    png_write_end(png, NULL);
    free(rows);
    png_destroy_write_struct(&png, &info);
    return 0;
}
