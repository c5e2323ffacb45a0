/* ImageMagick pixels <-> interleaved samples; see rb_magick_pixels.h. */
#include "rb_magick_pixels.h"
#include "rb_magick_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_gray(const Image *image)
{
    return image->colorspace == GRAYColorspace || image->colorspace == LinearGRAYColorspace;
}

static int has_alpha(const Image *image)
{
#if RB_IM7
    return image->alpha_trait != UndefinedPixelTrait;
#else
    return image->matte != MagickFalse;
#endif
}

int rb_magick_buffer_plan(const Image *image, rb_magick_buffer *buf, char *err, size_t err_len)
{
    memset(buf, 0, sizeof *buf);
    buf->width = (int)image->columns;
    buf->height = (int)image->rows;
    if (image->columns == 0 || image->rows == 0 || image->columns > RB_MAX_SIDE ||
        image->rows > RB_MAX_SIDE) {
        snprintf(err, err_len, "recblur: image size %zux%zu is out of range",
                 (size_t)image->columns, (size_t)image->rows);
        return 1;
    }
    int alpha = has_alpha(image);
    if (image->colorspace == CMYKColorspace) {
        if (alpha) {
            snprintf(err, err_len, "recblur: CMYK images with alpha (5 channels) are not "
                                   "supported; use -alpha off or convert to sRGB first");
            return 1;
        }
        buf->layout = RB_MAGICK_CMYK;
        buf->channels = 4;
    } else if (is_gray(image)) {
        buf->layout = alpha ? RB_MAGICK_GRAY_ALPHA : RB_MAGICK_GRAY;
        buf->channels = alpha ? 2 : 1;
    } else {
        buf->layout = alpha ? RB_MAGICK_RGB_ALPHA : RB_MAGICK_RGB;
        buf->channels = alpha ? 4 : 3;
    }
    /* Only non-linear encodings have a linear-light decode to apply. */
    buf->srgb = image->colorspace == sRGBColorspace || image->colorspace == GRAYColorspace;
    return 0;
}

rb_image rb_magick_buffer_image(const rb_magick_buffer *buf)
{
    rb_image img;
    memset(&img, 0, sizeof img);
    img.width = buf->width;
    img.height = buf->height;
    img.channels = buf->channels;
    img.stride = 0;
    img.format = RB_MAGICK_FORMAT;
    img.memory = RB_MEMORY_HOST;
    img.alpha = (buf->layout == RB_MAGICK_GRAY_ALPHA || buf->layout == RB_MAGICK_RGB_ALPHA)
                    ? RB_ALPHA_STRAIGHT
                    : RB_ALPHA_NONE;
    img.srgb = buf->srgb;
    img.data = buf->data;
    return img;
}

void rb_magick_buffer_free(rb_magick_buffer *buf)
{
    free(buf->data);
    buf->data = NULL;
}

MagickBooleanType rb_magick_buffer_read(Image *image, rb_magick_buffer *buf,
                                        ExceptionInfo *exception, char *err, size_t err_len)
{
    size_t w = (size_t)buf->width, h = (size_t)buf->height, c = (size_t)buf->channels;
    buf->data = malloc(w * h * c * sizeof(rb_magick_sample));
    if (!buf->data) {
        snprintf(err, err_len, "recblur: out of memory for a %zux%zu image", w, h);
        return MagickFalse;
    }
    CacheView *view = AcquireVirtualCacheView(image, exception);
    MagickBooleanType ok = MagickTrue;
    for (size_t y = 0; y < h && ok; y++) {
        rb_magick_sample *d = buf->data + y * w * c;
#if RB_IM7
        const Quantum *p = GetCacheViewVirtualPixels(view, 0, (ssize_t)y, w, 1, exception);
        if (!p) { ok = MagickFalse; break; }
        for (size_t x = 0; x < w; x++, d += c, p += GetPixelChannels(image)) {
            switch (buf->layout) {
            case RB_MAGICK_GRAY_ALPHA: d[1] = RB_MAGICK_TO_SAMPLE(GetPixelAlpha(image, p)); /* fall through */
            case RB_MAGICK_GRAY: d[0] = RB_MAGICK_TO_SAMPLE(GetPixelGray(image, p)); break;
            case RB_MAGICK_RGB_ALPHA: d[3] = RB_MAGICK_TO_SAMPLE(GetPixelAlpha(image, p)); /* fall through */
            case RB_MAGICK_RGB:
                d[0] = RB_MAGICK_TO_SAMPLE(GetPixelRed(image, p));
                d[1] = RB_MAGICK_TO_SAMPLE(GetPixelGreen(image, p));
                d[2] = RB_MAGICK_TO_SAMPLE(GetPixelBlue(image, p));
                break;
            case RB_MAGICK_CMYK:
                d[0] = RB_MAGICK_TO_SAMPLE(GetPixelCyan(image, p));
                d[1] = RB_MAGICK_TO_SAMPLE(GetPixelMagenta(image, p));
                d[2] = RB_MAGICK_TO_SAMPLE(GetPixelYellow(image, p));
                d[3] = RB_MAGICK_TO_SAMPLE(GetPixelBlack(image, p));
                break;
            }
        }
#else
        const PixelPacket *p = GetCacheViewVirtualPixels(view, 0, (ssize_t)y, w, 1, exception);
        if (!p) { ok = MagickFalse; break; }
        const IndexPacket *idx = GetCacheViewVirtualIndexQueue(view);
        if (buf->layout == RB_MAGICK_CMYK && !idx) { ok = MagickFalse; break; }
        for (size_t x = 0; x < w; x++, d += c, p++) {
            switch (buf->layout) {
            case RB_MAGICK_GRAY_ALPHA: d[1] = RB_MAGICK_TO_SAMPLE(GetPixelAlpha(p)); /* fall through */
            case RB_MAGICK_GRAY: d[0] = RB_MAGICK_TO_SAMPLE(GetPixelRed(p)); break;
            case RB_MAGICK_RGB_ALPHA: d[3] = RB_MAGICK_TO_SAMPLE(GetPixelAlpha(p)); /* fall through */
            case RB_MAGICK_RGB:
                d[0] = RB_MAGICK_TO_SAMPLE(GetPixelRed(p));
                d[1] = RB_MAGICK_TO_SAMPLE(GetPixelGreen(p));
                d[2] = RB_MAGICK_TO_SAMPLE(GetPixelBlue(p));
                break;
            case RB_MAGICK_CMYK:
                d[0] = RB_MAGICK_TO_SAMPLE(GetPixelCyan(p));
                d[1] = RB_MAGICK_TO_SAMPLE(GetPixelMagenta(p));
                d[2] = RB_MAGICK_TO_SAMPLE(GetPixelYellow(p));
                d[3] = RB_MAGICK_TO_SAMPLE(GetPixelIndex(idx + x));
                break;
            }
        }
#endif
    }
    view = DestroyCacheView(view);
    if (!ok) {
        snprintf(err, err_len, "recblur: could not read the pixels of image %s", image->filename);
        rb_magick_buffer_free(buf);
    }
    return ok;
}

MagickBooleanType rb_magick_buffer_write(Image *image, const rb_magick_buffer *buf, int mask,
                                         ExceptionInfo *exception)
{
    size_t w = (size_t)buf->width, h = (size_t)buf->height, c = (size_t)buf->channels;
    int r = (mask & RB_MAGICK_CH_RED) != 0, g = (mask & RB_MAGICK_CH_GREEN) != 0,
        b = (mask & RB_MAGICK_CH_BLUE) != 0, a = (mask & RB_MAGICK_CH_ALPHA) != 0,
        k = (mask & RB_MAGICK_CH_BLACK) != 0;
#if RB_IM7
    /* -channel reaches IM7 modules as the pixel channels' update traits. */
    if (buf->layout == RB_MAGICK_GRAY || buf->layout == RB_MAGICK_GRAY_ALPHA) {
        r = r && (GetPixelGrayTraits(image) & UpdatePixelTrait) != 0;
    } else {
        r = r && (GetPixelRedTraits(image) & UpdatePixelTrait) != 0;
        g = g && (GetPixelGreenTraits(image) & UpdatePixelTrait) != 0;
        b = b && (GetPixelBlueTraits(image) & UpdatePixelTrait) != 0;
    }
    if (buf->layout == RB_MAGICK_CMYK)
        k = k && (GetPixelBlackTraits(image) & UpdatePixelTrait) != 0;
    if (buf->layout == RB_MAGICK_GRAY_ALPHA || buf->layout == RB_MAGICK_RGB_ALPHA)
        a = a && (GetPixelAlphaTraits(image) & UpdatePixelTrait) != 0;
    if (SetImageStorageClass(image, DirectClass, exception) == MagickFalse)
        return MagickFalse;
    CacheView *view = AcquireAuthenticCacheView(image, exception);
#else
    if (SetImageStorageClass(image, DirectClass) == MagickFalse) {
        InheritException(exception, &image->exception);
        return MagickFalse;
    }
    CacheView *view = AcquireAuthenticCacheView(image, exception);
#endif
    MagickBooleanType ok = MagickTrue;
    for (size_t y = 0; y < h && ok; y++) {
        const rb_magick_sample *s = buf->data + y * w * c;
#if RB_IM7
        Quantum *q = GetCacheViewAuthenticPixels(view, 0, (ssize_t)y, w, 1, exception);
        if (!q) { ok = MagickFalse; break; }
        for (size_t x = 0; x < w; x++, s += c, q += GetPixelChannels(image)) {
            switch (buf->layout) {
            case RB_MAGICK_GRAY_ALPHA: if (a) SetPixelAlpha(image, RB_MAGICK_TO_QUANTUM(s[1]), q); /* fall through */
            case RB_MAGICK_GRAY: if (r) SetPixelGray(image, RB_MAGICK_TO_QUANTUM(s[0]), q); break;
            case RB_MAGICK_RGB_ALPHA: if (a) SetPixelAlpha(image, RB_MAGICK_TO_QUANTUM(s[3]), q); /* fall through */
            case RB_MAGICK_RGB:
                if (r) SetPixelRed(image, RB_MAGICK_TO_QUANTUM(s[0]), q);
                if (g) SetPixelGreen(image, RB_MAGICK_TO_QUANTUM(s[1]), q);
                if (b) SetPixelBlue(image, RB_MAGICK_TO_QUANTUM(s[2]), q);
                break;
            case RB_MAGICK_CMYK:
                if (r) SetPixelCyan(image, RB_MAGICK_TO_QUANTUM(s[0]), q);
                if (g) SetPixelMagenta(image, RB_MAGICK_TO_QUANTUM(s[1]), q);
                if (b) SetPixelYellow(image, RB_MAGICK_TO_QUANTUM(s[2]), q);
                if (k) SetPixelBlack(image, RB_MAGICK_TO_QUANTUM(s[3]), q);
                break;
            }
        }
#else
        PixelPacket *q = GetCacheViewAuthenticPixels(view, 0, (ssize_t)y, w, 1, exception);
        if (!q) { ok = MagickFalse; break; }
        IndexPacket *idx = GetCacheViewAuthenticIndexQueue(view);
        if (buf->layout == RB_MAGICK_CMYK && !idx) { ok = MagickFalse; break; }
        for (size_t x = 0; x < w; x++, s += c, q++) {
            switch (buf->layout) {
            case RB_MAGICK_GRAY_ALPHA: if (a) SetPixelAlpha(q, RB_MAGICK_TO_QUANTUM(s[1])); /* fall through */
            case RB_MAGICK_GRAY:
                /* IM6 keeps gray as R = G = B */
                if (r) SetPixelGray(q, RB_MAGICK_TO_QUANTUM(s[0]));
                break;
            case RB_MAGICK_RGB_ALPHA: if (a) SetPixelAlpha(q, RB_MAGICK_TO_QUANTUM(s[3])); /* fall through */
            case RB_MAGICK_RGB:
                if (r) SetPixelRed(q, RB_MAGICK_TO_QUANTUM(s[0]));
                if (g) SetPixelGreen(q, RB_MAGICK_TO_QUANTUM(s[1]));
                if (b) SetPixelBlue(q, RB_MAGICK_TO_QUANTUM(s[2]));
                break;
            case RB_MAGICK_CMYK:
                if (r) SetPixelCyan(q, RB_MAGICK_TO_QUANTUM(s[0]));
                if (g) SetPixelMagenta(q, RB_MAGICK_TO_QUANTUM(s[1]));
                if (b) SetPixelYellow(q, RB_MAGICK_TO_QUANTUM(s[2]));
                if (k) SetPixelIndex(idx + x, RB_MAGICK_TO_QUANTUM(s[3]));
                break;
            }
        }
#endif
        if (SyncCacheViewAuthenticPixels(view, exception) == MagickFalse)
            ok = MagickFalse;
    }
    view = DestroyCacheView(view);
    return ok;
}
