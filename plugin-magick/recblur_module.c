/* The ImageMagick filter module `recblur`: `convert in.tif -process 'recblur 20' out.tif`
 * (IM6) or `magick in.tif -process recblur out.tif` with -define recblur:sigma=20 (IM7).
 *
 * Three phases, so that a bad argument or a failing engine leaves every image of
 * the list unchanged: (1) parse the words and defines, build the filter and one
 * plan per image; (2) read and filter every image into private buffers;
 * (3) only then write the results back. All filtering math is in the engine. */
#include "rb_magick_host.h"
#include "rb_magick_options.h"
#include "rb_magick_pixels.h"
#include "recblur_deblur.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_MAGICK_PROGRESS_TAG "recblur/Image"
#define RB_MAGICK_ERR_LEN 2048

typedef struct {
    Image *image;
    rb_magick_buffer buf;
    rb_plan *plan;        /* NULL for sat-box and deblur */
    rb_deblur_plan *dplan;  /* deblur only */
    int owns_plan;        /* plans are shared between images of equal size and layout */
} rb_magick_job;

typedef struct {
    const Image *image;
} rb_magick_progress;

/* Engine progress -> ImageMagick's progress monitor; a monitor returning false cancels. */
static int on_progress(double fraction, void *user)
{
    const rb_magick_progress *p = user;
    if (!p->image)
        return 0;
    MagickBooleanType go = rb_magick_set_progress(p->image, RB_MAGICK_PROGRESS_TAG,
                                            (MagickOffsetType)(fraction * 999.0), 1000);
    return go == MagickFalse;
}

/* Appends key unless d already holds it; -1 when out of memory. */
static int add_define_key(rb_magick_define **d, int *n, int *cap, const char *key)
{
    if (LocaleNCompare(key, "recblur:", 8) != 0)
        return 0;
    for (int i = 0; i < *n; i++)
        if (!LocaleCompare((*d)[i].key, key))
            return 0;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        rb_magick_define *grown = realloc(*d, (size_t)*cap * sizeof **d);
        if (!grown)
            return -1;
        *d = grown;
    }
    (*d)[*n].key = key;
    (*d)[*n].value = NULL;
    (*n)++;
    return 0;
}

/* The "recblur:KEY" defines of the first image. IM6 hands -define to the
 * image as artifacts; IM7 keeps them in image->image_info's options, which
 * the artifact iterator does not see, so both are walked (an artifact wins).
 * Keys first, values after the walks: a lookup reorganises the splay tree an
 * iterator walks. */
static int collect_defines(const Image *image, rb_magick_define **out)
{
    int n = 0, cap = 0, bad = 0;
    rb_magick_define *d = NULL;
    ResetImageArtifactIterator(image);
    for (const char *key = GetNextImageArtifact(image); key && !bad; key = GetNextImageArtifact(image))
        bad = add_define_key(&d, &n, &cap, key);
#if RB_IM7
    const ImageInfo *info = image->image_info;
    if (info) {
        ResetImageOptionIterator(info);
        for (const char *key = GetNextImageOption(info); key && !bad; key = GetNextImageOption(info))
            bad = add_define_key(&d, &n, &cap, key);
    }
#endif
    if (bad) {
        free(d);
        *out = NULL;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        d[i].value = GetImageArtifact(image, d[i].key);
#if RB_IM7
        if (!d[i].value && image->image_info)
            d[i].value = GetImageOption(image->image_info, d[i].key);
#endif
        d[i].key += 8;
    }
    *out = d;
    return n;
}

/* No boundary= given but -virtual-pixel set: follow it, like IM's own filters. */
static rb_boundary boundary_from_image(const Image *image)
{
    rb_boundary b = { RB_BOUNDARY_CLAMP, 0.0f };
    switch (GetImageVirtualPixelMethod(image)) {
    case TileVirtualPixelMethod: b.mode = RB_BOUNDARY_PERIODIC; break;
    case MirrorVirtualPixelMethod: b.mode = RB_BOUNDARY_MIRROR; break;
    case BlackVirtualPixelMethod:
    case TransparentVirtualPixelMethod: b.mode = RB_BOUNDARY_ZERO; break;
    case WhiteVirtualPixelMethod: b.mode = RB_BOUNDARY_CONSTANT; b.value = 1.0f; break;
    default: break;
    }
    return b;
}

/* op=deblur: the filter `recblur deblur` would run with the same settings. */
static rb_status make_deblur_filter(rb_context *ctx, const rb_magick_options *o,
                                    rb_deblur_filter **f)
{
    *f = NULL;
    if (o->deblur_preset[0]) {
        rb_boundary unused;
        int has;
        return rb_deblur_preset_load(ctx, o->deblur_preset, f, &unused, &has);
    }
    rb_deblur_psf psf = { RB_DEBLUR_PSF_GAUSSIAN, rb_settings_number(&o->settings, "psf-sigma"), 0, 0, NULL };
    return rb_deblur_design(ctx, &psf, rb_settings_number(&o->settings, "noise"),
                            rb_settings_int(&o->settings, "window"),
                            rb_settings_int(&o->settings, "fir-only") ? RB_DEBLUR_DESIGN_FIR_ONLY : 0, f);
}

static ExceptionType severity_of(rb_status st)
{
    switch (st) {
    case RB_ERR_NOMEM: return ResourceLimitError;
    case RB_ERR_BACKEND:
    case RB_ERR_DEVICE: return ModuleError;
    case RB_ERR_CANCELLED: return ImageError;
    default: return OptionError;
    }
}

/* mask=FILE (-define recblur:mask=FILE): the weights, a gray image read by
 * ImageMagick itself (any format it reads), in the buffer the engine takes.
 * 0, or non-zero with a message in err. */
static int read_mask(const char *path, rb_magick_buffer *mb, ExceptionInfo *exception, char *err,
                     size_t err_len)
{
    ImageInfo *info = AcquireImageInfo();
    if (!info) {
        snprintf(err, err_len, "recblur: out of memory");
        return 1;
    }
    snprintf(info->filename, sizeof info->filename, "%s", path);
    ExceptionInfo *own = AcquireExceptionInfo(); /* a missing file is our one-line error */
    Image *m = ReadImage(info, own);
    DestroyImageInfo(info);
    if (!m) {
        snprintf(err, err_len, "recblur: mask %.300s: cannot be read (%.200s)", path,
                 own->reason ? own->reason : "no such image");
        DestroyExceptionInfo(own);
        return 1;
    }
    DestroyExceptionInfo(own);
    int rc = rb_magick_buffer_plan(m, mb, err, err_len);
    if (!rc && mb->layout != RB_MAGICK_GRAY) {
        snprintf(err, err_len, "recblur: mask %.300s: %d channels; a mask is a gray image (one "
                 "channel, black = unknown, white = valid)", path, mb->channels);
        rc = 1;
    }
    if (!rc && rb_magick_buffer_read(m, mb, exception, err, err_len) == MagickFalse)
        rc = 1;
    DestroyImage(m);
    return rc;
}

/* Phases 2 and 3 for a list whose jobs are planned. Returns 0, or non-zero with
 * the exception thrown and no image written. */
static int filter_and_write(rb_context *ctx, const rb_magick_options *o, rb_boundary boundary,
                            const rb_weights *weights, rb_magick_job *jobs, size_t njobs,
                            ExceptionInfo *exception)
{
    char err[RB_MAGICK_ERR_LEN];
    rb_magick_progress progress = { NULL };
    rb_context_set_progress(ctx, on_progress, &progress);
    for (size_t i = 0; i < njobs; i++) {
        rb_magick_job *j = &jobs[i];
        err[0] = '\0';
        if (rb_magick_buffer_read(j->image, &j->buf, exception, err, sizeof err) == MagickFalse) {
            if (err[0])
                rb_magick_throw(exception, ResourceLimitError, err);
            return 1;
        }
        progress.image = j->image;
        (void)rb_magick_set_progress(j->image, RB_MAGICK_PROGRESS_TAG, 0, 1000);
        rb_image img = rb_magick_buffer_image(&j->buf);
        rb_status st;
        if (o->settings.op->id == RB_OP_BOX)
            st = rb_box_filter_weighted(ctx, rb_settings_int(&o->settings, "size-x"),
                                        rb_settings_int(&o->settings, "size-y"), boundary, &img,
                                        weights, &img);
        else if (o->settings.op->id == RB_OP_DEBLUR)
            st = rb_deblur_execute(j->dplan, &img, &img);
        else
            st = rb_execute_weighted(j->plan, &img, weights, &img);
        if (st != RB_OK) {
            rb_magick_throw(exception, severity_of(st), rb_context_error(ctx));
            return 1;
        }
        (void)rb_magick_set_progress(j->image, RB_MAGICK_PROGRESS_TAG, 999, 1000);
    }
    rb_context_set_progress(ctx, NULL, NULL);
    for (size_t i = 0; i < njobs; i++) {
        int mask = o->channels;
        if (rb_magick_buffer_write(jobs[i].image, &jobs[i].buf, mask, exception) == MagickFalse) {
            rb_magick_throw(exception, CacheError, "recblur: could not write the filtered pixels");
            return 1;
        }
    }
    return 0;
}

ModuleExport size_t recblurImage(Image **images, const int argc, const char **argv,
                                 ExceptionInfo *exception);

ModuleExport size_t recblurImage(Image **images, const int argc, const char **argv,
                                 ExceptionInfo *exception)
{
    char err[RB_MAGICK_ERR_LEN];
    if (!images || !*images || !exception)
        return MagickImageFilterSignature;
    if (!rb_magick_host_matches(err, sizeof err)) {
        rb_magick_throw(exception, ModuleError, err);
        return MagickImageFilterSignature;
    }

    rb_context *ctx = NULL;
    rb_filter *filter = NULL;
    rb_deblur_filter *dfilter = NULL;
    rb_magick_define *defines = NULL;
    rb_magick_job *jobs = NULL;
    size_t njobs = 0;
    rb_magick_options o;
    rb_magick_buffer mask_buf = {0};

    if (rb_context_create(&ctx) != RB_OK) {
        rb_magick_throw(exception, ResourceLimitError, "recblur: cannot create an engine context");
        return MagickImageFilterSignature;
    }
    int ndefines = collect_defines(*images, &defines);
    if (ndefines < 0) {
        rb_magick_throw(exception, ResourceLimitError, "recblur: out of memory");
        goto done;
    }
    if (rb_magick_options_parse(ctx, defines, ndefines, argc, argv, &o, err, sizeof err)) {
        rb_magick_throw(exception, OptionError, err);
        goto done;
    }
    rb_op_id op = o.settings.op->id;
    int linear = rb_settings_int(&o.settings, "linear"); /* 0 for ops without it */
    rb_status st = rb_context_set_backend(ctx, (rb_backend)rb_settings_int(&o.settings, "backend"));
    if (st == RB_OK) /* nan=missing|propagate (HDRI builds hold NaN; Q16 non-HDRI never does) */
        st = rb_context_set_nan_mode(ctx, (rb_nan_mode)rb_settings_int(&o.settings, "nan"));
    /* threads=N, else ImageMagick's thread limit (-limit thread N, MAGICK_THREAD_LIMIT). */
    MagickSizeType threads = GetMagickResourceLimit(ThreadResource);
    if (st == RB_OK && rb_settings_given(&o.settings, "threads"))
        st = rb_context_set_threads(ctx, rb_settings_int(&o.settings, "threads"));
    else if (st == RB_OK && threads > 0 && threads < 1024)
        st = rb_context_set_threads(ctx, (int)threads);
    /* the filter every front end makes from these settings */
    rb_boundary given_boundary;
    if (st == RB_OK && op != RB_OP_BOX && op != RB_OP_DEBLUR)
        st = rb_settings_filter(ctx, &o.settings, &filter, &given_boundary);
    if (st == RB_OK && op == RB_OP_DEBLUR)
        st = make_deblur_filter(ctx, &o, &dfilter);
    if (st != RB_OK) {
        rb_magick_throw(exception, severity_of(st), rb_context_error(ctx));
        goto done;
    }
    /* boundary= (or a preset's), else an explicit -virtual-pixel, else the
     * operation's default in the table (as the CLI's) */
    rb_boundary boundary = o.has_boundary || GetImageVirtualPixelMethod(*images) == UndefinedVirtualPixelMethod
                               ? rb_settings_boundary(&o.settings)
                               : boundary_from_image(*images);

    /* Phase 1: a layout and a plan for every image before any pixel is read. */
    njobs = GetImageListLength(*images);
    jobs = calloc(njobs, sizeof *jobs);
    if (!jobs) {
        rb_magick_throw(exception, ResourceLimitError, "recblur: out of memory");
        goto done;
    }
    Image *image = *images;
    for (size_t i = 0; i < njobs && image; i++, image = GetNextImageInList(image)) {
        rb_magick_job *j = &jobs[i];
        j->image = image;
        if (rb_magick_buffer_plan(image, &j->buf, err, sizeof err)) {
            rb_magick_throw(exception, OptionError, err);
            goto done;
        }
        if (op == RB_OP_BOX)
            continue;
        const rb_magick_job *prev = i > 0 ? &jobs[i - 1] : NULL;
        if (prev && prev->buf.width == j->buf.width && prev->buf.height == j->buf.height &&
            prev->buf.channels == j->buf.channels) {
            j->plan = prev->plan;
            j->dplan = prev->dplan;
            continue;
        }
        if (op == RB_OP_DEBLUR) {
            st = rb_deblur_plan_create(ctx, dfilter, boundary, j->buf.width, j->buf.height,
                                       j->buf.channels, &j->dplan);
            if (st != RB_OK) {
                rb_magick_throw(exception, severity_of(st), rb_context_error(ctx));
                goto done;
            }
            j->owns_plan = 1;
            continue;
        }
        st = rb_plan_create(ctx, filter, boundary, j->buf.width, j->buf.height, j->buf.channels,
                            &j->plan);
        if (st == RB_OK && linear)
            st = rb_plan_set_linear_light(j->plan, 1);
        if (st != RB_OK) {
            rb_magick_throw(exception, severity_of(st), rb_context_error(ctx));
            goto done;
        }
        j->owns_plan = 1;
    }
    /* mask=alpha: the image's alpha weighs its colour; mask=FILE: a gray
     * image of each image's size (0 for ops without the setting) */
    rb_weights weights = {(rb_weights_source)rb_settings_int(&o.settings, "mask"), NULL};
    rb_image mask_img;
    if (weights.source == RB_WEIGHTS_IMAGE) {
        if (read_mask(rb_settings_text(&o.settings, "mask"), &mask_buf, exception, err, sizeof err)) {
            rb_magick_throw(exception, OptionError, err);
            goto done;
        }
        mask_img = rb_magick_buffer_image(&mask_buf);
        weights.image = &mask_img;
    }
    (void)filter_and_write(ctx, &o, boundary, &weights, jobs, njobs, exception);

done:
    for (size_t i = 0; jobs && i < njobs; i++) {
        rb_magick_buffer_free(&jobs[i].buf);
        if (jobs[i].owns_plan) {
            rb_plan_destroy(jobs[i].plan);
            rb_deblur_plan_destroy(jobs[i].dplan);
        }
    }
    free(jobs);
    rb_magick_buffer_free(&mask_buf);
    free(defines);
    rb_filter_destroy(filter);
    rb_deblur_filter_destroy(dfilter);
    rb_context_destroy(ctx);
    return MagickImageFilterSignature;
}
