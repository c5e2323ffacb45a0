/* The pipeline of every image command: settings -> check OUT's name and
 * directory -> read IN -> pick the output sample format -> operate -> write
 * OUT atomically. Any failure prints one line and leaves OUT untouched. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_log(const char *message, void *user)
{
    (void)user;
    const char *m = strncmp(message, "recblur: ", 9) ? message : message + 9;
    fprintf(stderr, "recblur info: %s\n", m);
}

static int on_progress(double fraction, void *user)
{
    (void)user;
    fprintf(stderr, "\rrecblur info: progress %3.0f%%", fraction * 100.0);
    if (fraction >= 1.0)
        fputc('\n', stderr);
    return 0;
}

/* OUT's directory must exist before we spend time filtering. */
static int check_out_dir(const char *out, char *err, size_t errlen)
{
    const char *slash = strrchr(out, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == out)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "cannot write %s: directory %.300s: %s", out, dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: %.300s is not a directory", out, dir);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "cannot write %s: directory %.300s: %s", out, dir, strerror(errno));
        return -1;
    }
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a directory", out);
        return -1;
    }
    return 0;
}

/* The output keeps the input's sample format unless the file type cannot
 * store it (float -> PNG: 16-bit; integers -> PFM: float) or --depth says. */
static int choose_format(const cli_options *o, const cli_settings *s, cli_file_type out_type,
                         const rb_image *in, rb_format *fmt, char *err, size_t errlen)
{
    const char *why = NULL;
    if (o->cmd == CLI_SAT) {
        if (out_type == CLI_FILE_PNG) {
            snprintf(err, errlen, "cannot write %s: a summed-area table holds sums far beyond what "
                     "PNG's 8/16-bit samples can store; write .pfm or .tif (32-bit float)", o->out);
            return -1;
        }
        *fmt = RB_F32;
    } else if (s->have_depth) {
        *fmt = s->depth;
    } else if (cli_file_can_store(out_type, in->format, in->channels, &why)) {
        *fmt = in->format;
    } else {
        *fmt = out_type == CLI_FILE_PNG ? RB_U16 : RB_F32;
    }
    if (!cli_file_can_store(out_type, *fmt, in->channels, &why)) {
        snprintf(err, errlen, "cannot write %s: %s", o->out, why);
        return -1;
    }
    return 0;
}

/* Half the physical memory (1 GiB when unknown). */
static uint64_t half_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : (uint64_t)1 << 30;
}

/* The memory an image may take in memory without --memory: 1 GiB, or half
 * the physical memory if that is less. It is also what the strip route may
 * use for its bands and carries, whatever the threshold below. */
static uint64_t default_limit(void)
{
    const uint64_t gib = (uint64_t)1 << 30, half = half_physical();
    return half < gib ? half : gib;
}

/* Where the strip route starts (`threshold`: an image needing more is
 * filtered in strips), what the strips may use (`limit`), and why, for -v.
 * --memory sets both. On the cpu back end the strips no longer cost more
 * CPU time than the in-memory route (the "bigtiff_4g" section's 25 %
 * predates their speed-up): an 8-bit TIFF's are level at 4096^2 RGB and
 * 0.76-0.84x the wall at 8192^2, in 89 MiB against 503 (bench/RESULTS.md,
 * "memdefault", and the lead's section before it); a PNG's, decoded twice,
 * are level only from about 8192^2 RGB. So there they start at
 * CLI_TIFF_CPU_MIB / CLI_PNG_CPU_MIB of need (options.h). Only for 8-bit
 * samples in and out without alpha, whose two routes give the same bytes
 * but at rounding ties (1 sample of 201M at 8192^2): 16-bit and float
 * outputs differ in the last bit of some samples of every large image, and
 * straight alpha in the colour under alpha 0. Where the back end may be
 * cuda (--backend cuda, or auto with a usable GPU) the image stays in
 * memory up to the default limit: strips run on the cpu only. */
typedef struct {
    uint64_t threshold, limit;
    char why[320];
} mem_rule;

static void memory_rule(rb_context *ctx, const cli_options *o, const cli_settings *s, cli_file_type in_type,
                        const rb_image *in, rb_format out_fmt, uint64_t need, mem_rule *r)
{
    if (o->memory_mib > 0) {
        r->threshold = r->limit = (uint64_t)o->memory_mib << 20;
        snprintf(r->why, sizeof r->why, "--memory");
        return;
    }
    r->threshold = r->limit = default_limit();
    static const char whole[] = ": 1 GiB, or half the physical memory if less";
    const int backend = rb_settings_int(&s->op, "backend");
    const uint64_t cpu = (uint64_t)(in_type == CLI_FILE_PNG ? CLI_PNG_CPU_MIB : CLI_TIFF_CPU_MIB) << 20;
    char no_gpu[256] = "";
    if (backend == RB_BACKEND_CUDA)
        snprintf(r->why, sizeof r->why, "the default with --backend cuda%s", whole);
    else if (in->alpha != RB_ALPHA_NONE)
        snprintf(r->why, sizeof r->why, "the default for images with alpha%s", whole);
    else if (in->format != RB_U8 || out_fmt != RB_U8)
        snprintf(r->why, sizeof r->why, "the default for 16-bit and float samples%s", whole);
    else if (cpu >= r->limit || need > r->limit)
        snprintf(r->why, sizeof r->why, "the default%s", whole); /* strips whatever the back end */
    else if (backend == RB_BACKEND_AUTO && need > cpu &&
             (rb_context_warm_up(ctx), rb_cuda_available(no_gpu, sizeof no_gpu)))
        /* the route depends on the GPU: asked once the device's start (which the
         * in-memory route wants) is under way */
        snprintf(r->why, sizeof r->why, "the default with a usable GPU (--backend auto; strips run on the "
                 "cpu only)%s", whole);
    else {
        /* --backend cpu, or auto without a usable GPU (not asked when the image
         * is within this least default anyway) */
        snprintf(r->why, sizeof r->why, "the default for an 8-bit %s without alpha on the cpu back end%s%s",
                 in_type == CLI_FILE_PNG ? "PNG" : "TIFF", no_gpu[0] ? "; no usable GPU: " : "", no_gpu);
        r->threshold = cpu;
    }
}

/* The memory the in-memory route takes for an image of px samples, W
 * row_samples a row (columns x channels), from in_size-byte to out_size-byte
 * samples. IN and OUT are whole images. blur and bspline run the CPU sweep
 * (engine/src/cpu/cpu_sweep.c), which keeps no whole-image float copy: only
 * its column states at the top of every 64-row band (r doubles for 8
 * samples: r / 8 bytes a sample, at most 1 for r <= 8) and two pairs of band
 * buffers (64 rows of floats each). Measured peaks (bench/RESULTS.md,
 * "streamrgb": 8-bit, 16-bit and float, gray and RGB, 4096^2 and 8192^2,
 * sigma 10) grow by IN + OUT + 0.55 bytes a sample, plus 8 MiB of code and
 * libraries; 1 byte a sample is the states' bound, the margin. A `filter`
 * may be one the sweep does not take (a causal-only pass, a long FIR), whose
 * route works on a float copy of the image: 4 bytes a sample. */
static uint64_t in_memory_bytes(cli_command cmd, uint64_t px, uint64_t row_samples, size_t in_size,
                                size_t out_size)
{
    const uint64_t images = px * (in_size + out_size);
    if (cmd == CLI_BLUR || cmd == CLI_BSPLINE)
        return images + px + 4 * 64 * row_samples * sizeof(float);
    return images + px * sizeof(float);
}

/* blur/filter/bspline from a TIFF (strips or tiles) or a non-interlaced PNG to a
 * TIFF or PNG, when the image would take more memory than it may
 * (in_memory_bytes): the strip route. Returns the exit status when it ran
 * (or failed), -1 when the in-memory route is to run instead. */
static int try_strips(rb_context *ctx, const cli_options *o, const cli_settings *s,
                      cli_file_type out_type)
{
    char err[CLI_ERR_LEN];
    if (o->cmd == CLI_SAT || o->cmd == CLI_BOX)
        return -1;
    cli_image hdr;
    uint32_t rps = 0;
    char not_rows[CLI_ERR_LEN] = "";
    cli_rows_source *rd = cli_rows_source_open(o->in, &hdr, &rps, err, sizeof err);
    if (!rd) {
        if (!strstr(err, "not read in rows"))
            return -1; /* the in-memory route reads it, or says what is wrong */
        /* Adam7: the header is read; said below if over the limit */
        snprintf(not_rows, sizeof not_rows, "%s", err);
    }
    const cli_file_type in_type = rd ? cli_rows_source_type(rd) : hdr.type;
    cli_rows_source_close(rd);
    rb_format fmt;
    cli_codec codec;
    if (choose_format(o, s, out_type, &hdr.img, &fmt, err, sizeof err) ||
        cli_output_codec(&o->output, &hdr, out_type, o->out, &codec, err, sizeof err))
        return -1; /* the in-memory route says it */
    const uint64_t px = (uint64_t)hdr.img.width * (uint64_t)hdr.img.height * hdr.img.channels;
    const uint64_t need = in_memory_bytes(o->cmd, px, (uint64_t)hdr.img.width * hdr.img.channels,
                                          cli_sample_size(hdr.img.format), cli_sample_size(fmt));
    mem_rule rule;
    memory_rule(ctx, o, s, in_type, &hdr.img, fmt, need, &rule);
    const uint64_t limit = rule.limit;
    if (need <= rule.threshold) {
        cli_info(o, "input %s: needs about %llu MiB in memory, within the %llu MiB limit (%s): "
                 "filtered in memory", o->in, (unsigned long long)(need >> 20),
                 (unsigned long long)(rule.threshold >> 20), rule.why);
        return -1;
    }
    if (not_rows[0]) {
        cli_info(o, "%s; the in-memory route runs", not_rows);
        return -1;
    }
    if (out_type != CLI_FILE_TIFF && out_type != CLI_FILE_PNG) {
        /* the strip route writes TIFF and PNG only */
        cli_info(o, "input %s: needs about %llu MiB in memory, more than the %llu MiB it may take, but "
                 "the strip route writes TIFF and PNG only: %s output is filtered in memory whatever "
                 "the limit", o->in, (unsigned long long)(need >> 20), (unsigned long long)(rule.threshold >> 20),
                 cli_file_type_name(out_type));
        return -1;
    }
    if (rb_settings_int(&s->op, "backend") == RB_BACKEND_CUDA) {
        /* strips run on the cpu only. The default's 1 GiB cap keeps the
         * footprint small where strips can bound it; with cuda asked for
         * they cannot, so the default is half the physical memory (the part
         * of the rule that keeps the machine out of swap) */
        if (o->memory_mib <= 0 && need <= half_physical()) {
            cli_info(o, "input %s: needs about %llu MiB in memory, more than the default %llu MiB; "
                     "--backend cuda: filtered in memory (strips run on the cpu only; --memory "
                     "bounds it)", o->in, (unsigned long long)(need >> 20),
                     (unsigned long long)(limit >> 20));
            return -1;
        }
        return cli_fail(CLI_EXIT_FAIL, "%s needs about %llu MiB in memory, more than the %llu MiB %s, "
                        "and the strip route that would bound it runs on the cpu back end only: give "
                        "--memory %llu (or more) to filter it in memory on cuda, or --backend auto to "
                        "filter it in strips", o->in, (unsigned long long)((need + (1u << 20) - 1) >> 20),
                        (unsigned long long)(limit >> 20),
                        o->memory_mib > 0 ? "--memory allows" : "half the physical memory allows",
                        (unsigned long long)((need + (1u << 20) - 1) >> 20));
    }
    cli_info(o, "input %s: %dx%d, %d channel%s, %s %s: needs about %llu MiB in memory, more than "
             "the %llu MiB it may take (%s): filtered a band of rows at a time", o->in, hdr.img.width,
             hdr.img.height, hdr.img.channels, hdr.img.channels == 1 ? "" : "s",
             cli_format_name(hdr.img.format), cli_file_type_name(in_type), (unsigned long long)(need >> 20),
             (unsigned long long)(rule.threshold >> 20), rule.why);
    cli_op_report rep = {0};
    int rc = cli_op_filter_stream(ctx, s, o->in, o->out, out_type, fmt, &codec, limit, &rep, err, sizeof err);
    if (rc == 1) {
        cli_info(o, "%s; the in-memory route runs", err);
        return -1;
    }
    if (rc)
        return cli_fail(CLI_EXIT_FAIL, "%s", err);
    cli_info(o, "filter: %s", rep.description);
    cli_info(o, "back end: %s", rep.backend ? rep.backend : "?");
    cli_info(o, "output %s: %s %s, compression %s", o->out, cli_format_name(fmt),
             cli_file_type_name(out_type), cli_compression_name(codec.method));
    cli_info(o, "time: plan %.3f ms, read + filter + write %.3f ms", rep.plan_ms, rep.execute_ms);
    return 0;
}

/* The output image allocated and its pages touched on a thread while IN is
 * read, when the back end may be cuda: the first touch of a fresh buffer
 * costs page faults (the kernel zeroing it: 22 ms for an 8192^2 RGB 8-bit
 * output, 71 ms float, on the H100 machine), which the GPU's execute would
 * otherwise pay on its critical path as its copies write the output. The
 * engine's host memory (rb_context_host_alloc) also locks the pages once the
 * warm-up has made the device's context, so that the result comes down by
 * DMA instead of through the staging's CPU copies. Only for input the strip
 * route reads in rows (TIFF in strips or tiles, non-interlaced PNG):
 * cli_rows_source_open gives its header without the pixels. */
typedef struct {
    rb_image img;      /* the output's geometry; data NULL until the thread made it */
    rb_context *ctx;
    pthread_t thread;
    int running;
} prefault;

static void *prefault_main(void *arg)
{
    prefault *pf = arg;
    pf->img.data = rb_context_host_alloc(pf->ctx, pf->img.stride * (size_t)pf->img.height);
    return NULL;
}

static void prefault_start(prefault *pf, rb_context *ctx, const cli_options *o, const cli_settings *s,
                           cli_file_type out_type)
{
    char err[CLI_ERR_LEN];
    cli_image hdr;
    uint32_t rps = 0;
    rb_format fmt;
    memset(pf, 0, sizeof *pf);
    if (o->cmd == CLI_SAT)
        return;
    cli_rows_source *rd = cli_rows_source_open(o->in, &hdr, &rps, err, sizeof err);
    if (!rd)
        return; /* not a file read in rows: the output is made after the read */
    cli_rows_source_close(rd);
    const int w = hdr.img.width, h = hdr.img.height, c = hdr.img.channels;
    /* cli_image_alloc's limits; outside them the in-memory route says why */
    if (choose_format(o, s, out_type, &hdr.img, &fmt, err, sizeof err) || w <= 0 || h <= 0 ||
        w > RB_MAX_SIDE || h > RB_MAX_SIDE || (uint64_t)w * (uint64_t)h > RB_MAX_PIXELS || c < 1 || c > 4)
        return;
    pf->img.width = w;
    pf->img.height = h;
    pf->img.channels = c;
    pf->img.format = fmt;
    pf->img.stride = (size_t)w * (size_t)c * cli_sample_size(fmt);
    pf->img.memory = RB_MEMORY_HOST;
    pf->ctx = ctx;
    pf->running = pthread_create(&pf->thread, NULL, prefault_main, pf) == 0;
}

/* Join the thread; 0 with the output in *out (engine host memory: free it
 * with rb_context_host_free) when it fits IN's geometry. */
static int prefault_take(prefault *pf, const rb_image *in, rb_format fmt, rb_image *out)
{
    if (pf->running)
        pthread_join(pf->thread, NULL);
    pf->running = 0;
    if (!pf->img.data)
        return -1;
    if (pf->img.width != in->width || pf->img.height != in->height ||
        pf->img.channels != in->channels || pf->img.format != fmt) {
        rb_context_host_free(pf->ctx, pf->img.data);
        pf->img.data = NULL;
        return -1;
    }
    *out = pf->img;
    pf->img.data = NULL;
    return 0;
}

/* Whether the command's back end may be cuda: asked for, or `auto` for the
 * filters (sat and box in host memory run on the cpu under auto). */
static int may_use_cuda(const cli_options *o, const cli_settings *s)
{
    const int b = rb_settings_int(&s->op, "backend");
    return b == RB_BACKEND_CUDA ||
           (b == RB_BACKEND_AUTO && o->cmd != CLI_SAT && o->cmd != CLI_BOX);
}

int cli_run(const cli_options *o)
{
    char err[CLI_ERR_LEN];
    rb_context *ctx = NULL;
    if (rb_context_create(&ctx) != RB_OK)
        return cli_fail(CLI_EXIT_FAIL, "cannot create the engine context (out of memory?)");
    int status = CLI_EXIT_FAIL;
    cli_image in = {0}, mask = {0};
    rb_image out = {0};
    cli_settings s;
    prefault pf = {0};
    int out_engine = 0; /* out.data is rb_context_host_alloc's */

    if (o->verbose)
        rb_context_set_log(ctx, on_log, NULL);
    if (cli_resolve_settings(ctx, o, &s, err, sizeof err)) {
        status = cli_fail(CLI_EXIT_USAGE, "%s", err);
        goto done;
    }
    if (cli_apply_context_settings(ctx, &s.op)) {
        status = cli_fail(CLI_EXIT_USAGE, "%s", cli_engine_message(ctx));
        goto done;
    }
    cli_file_type out_type = cli_file_type_from_name(o->out);
    if (out_type == CLI_FILE_UNKNOWN) {
        status = cli_fail(CLI_EXIT_USAGE, "cannot write %s: unsupported output format (use .png, .tif, .tiff or .pfm)",
                          o->out);
        goto done;
    }
    if (out_type == CLI_FILE_TIFF && !cli_have_tiff()) {
        status = cli_fail(CLI_EXIT_FAIL, "cannot write %s: this recblur was built without libtiff "
                          "(install libtiff-dev and rebuild)", o->out);
        goto done;
    }
    cli_codec codec;
    if (cli_output_codec(&o->output, NULL, out_type, o->out, &codec, err, sizeof err)) {
        status = cli_fail(CLI_EXIT_USAGE, "%s", err);
        goto done;
    }
    if (check_out_dir(o->out, err, sizeof err)) {
        cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }

    /* a mask is a whole image beside the input: the in-memory route */
    int strips = rb_settings_int(&s.op, "mask") != RB_WEIGHTS_NONE ? -1 : try_strips(ctx, o, &s, out_type);
    if (strips >= 0) {
        status = strips;
        goto done;
    }
    double t0 = cli_now_ms();
    /* the device's start (the CUDA context: 220-330 ms on the H100 machine)
     * and the output's page faults overlap the read */
    if (may_use_cuda(o, &s)) {
        rb_context_warm_up(ctx);
        prefault_start(&pf, ctx, o, &s, out_type);
    }
    if (cli_image_read(o->in, &in, err, sizeof err)) {
        cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    double t_read = cli_now_ms() - t0;
    static const char *const alpha_names[] = {"no alpha", "straight alpha", "premultiplied alpha"};
    cli_info(o, "input %s: %dx%d, %d channel%s (%s), %s %s, compression %s", o->in, in.img.width,
             in.img.height, in.img.channels, in.img.channels == 1 ? "" : "s", alpha_names[in.img.alpha],
             cli_format_name(in.img.format), cli_file_type_name(in.type),
             cli_compression_name(in.codec.method));

    if (cli_output_codec(&o->output, &in, out_type, o->out, &codec, err, sizeof err)) {
        status = cli_fail(CLI_EXIT_USAGE, "%s", err);
        goto done;
    }
    rb_weights weights;
    if (cli_mask_load(&s, &in.img, &mask, &weights, err, sizeof err)) {
        cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    rb_format fmt;
    if (choose_format(o, &s, out_type, &in.img, &fmt, err, sizeof err)) {
        cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    const int pf_started = pf.running;
    double t_pf = cli_now_ms();
    out_engine = prefault_take(&pf, &in.img, fmt, &out) == 0;
    if (pf_started)
        cli_info(o, "output made while IN was read (pages %s): waited %.3f ms for it after the read",
                 out_engine && rb_context_host_locked(out.data) ? "locked" : "plain", cli_now_ms() - t_pf);
    if (!out_engine &&
        cli_image_alloc(&out, in.img.width, in.img.height, in.img.channels, fmt, err, sizeof err)) {
        cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    out.alpha = o->cmd == CLI_SAT ? RB_ALPHA_NONE : in.img.alpha;
    out.srgb = in.img.srgb && fmt != RB_F32;

    if (o->verbose && isatty(2) && (uint64_t)in.img.width * in.img.height >= 4000000u)
        rb_context_set_progress(ctx, on_progress, NULL);
    cli_op_report rep = {0};
    int rc;
    switch (o->cmd) {
    case CLI_SAT: rc = cli_op_sat(ctx, o, &s, &in.img, &out, &rep); break;
    case CLI_BOX: rc = cli_op_box(ctx, o, &s, &in.img, &weights, &out, &rep); break;
    default: rc = cli_op_filter(ctx, o, &s, &in.img, &weights, &out, &rep); break;
    }
    if (rc) {
        cli_fail(CLI_EXIT_FAIL, "%s", cli_engine_message(ctx));
        goto done;
    }
    cli_info(o, "filter: %s", rep.description);
    rb_boundary boundary = rb_settings_boundary(&s.op);
    if (o->cmd != CLI_SAT) {
        cli_info(o, "boundary: %s%s", rb_boundary_name(boundary.mode),
                 boundary.mode == RB_BOUNDARY_CONSTANT ? " (value below)" : "");
        if (boundary.mode == RB_BOUNDARY_CONSTANT)
            cli_info(o, "boundary constant: %g", (double)boundary.value);
    }
    cli_info(o, "back end: %s", rep.backend ? rep.backend : "?");

    double t1 = cli_now_ms();
    if (cli_image_write(o->out, out_type, &out, &codec, err, sizeof err)) {
        cli_fail(CLI_EXIT_FAIL, "%s", err);
        goto done;
    }
    double t_write = cli_now_ms() - t1;
    char level[32] = "";
    if (codec.level > 0 || codec.method == CLI_COMPRESS_LZMA)
        snprintf(level, sizeof level, " level %d", codec.level);
    cli_info(o, "output %s: %dx%d, %d channel%s, %s %s, compression %s%s%s", o->out, out.width,
             out.height, out.channels, out.channels == 1 ? "" : "s", cli_format_name(out.format),
             cli_file_type_name(out_type), cli_compression_name(codec.method), level,
             codec.predictor && codec.method != CLI_COMPRESS_NONE ? " with predictor" : "");
    cli_info(o, "time: read %.3f ms, plan %.3f ms, execute %.3f ms, write %.3f ms", t_read,
             rep.plan_ms, rep.execute_ms, t_write);
    status = 0;
done:
    if (pf.running)
        pthread_join(pf.thread, NULL);
    rb_context_host_free(ctx, pf.img.data);
    if (out_engine)
        rb_context_host_free(ctx, out.data);
    else
        free(out.data);
    cli_image_free(&in);
    cli_image_free(&mask);
    rb_context_destroy(ctx);
    return status;
}
