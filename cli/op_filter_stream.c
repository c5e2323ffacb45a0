/* blur, filter and bspline on a TIFF or PNG larger than the memory they may
 * use: the engine's strip route (rb_stream_*, issue 18). IN is read twice, a
 * band of rows at a time (whole strips or rows of tiles of a TIFF; a PNG is
 * decoded twice from its start, cli/rows_source.c) (pass 1 gathers the column carries,
 * pass 2 produces the final rows), and OUT (TIFF in strips, or PNG row
 * after row: cli/rows_sink.c) is written once, band by band, into a
 * temporary file renamed into place at the end. Working memory: a few bands
 * plus the carries, whatever the image height.
 *
 * The file work overlaps the filtering: while the engine runs band i, a
 * second thread reads band i + 1 (and, in pass 2, first writes band i - 1).
 * Two band buffers do it in the memory that one buffer each way (in, out)
 * took: pass 2 leaves a band's output over its input (the engine reads a
 * strip whole before it writes), and the thread writes a buffer out before
 * it reads the next band into it. Only that thread calls libtiff while it
 * runs. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Rows per band: whole strips or rows of tiles of IN (rps 1 for a PNG), the
 * count that takes least memory in all (the stream's working set, its
 * carries included, and the band buffers: two of `buf_row` bytes a row, one
 * when a band is the image), with the carries in memory (*carry_mem
 * SIZE_MAX). Where that is more than `limit` (the carries grow with width x
 * height: 1 GB at 100000^2), they go to a temporary file, an eighth of the
 * limit left to them (the close reads them back in ranges of columns that
 * large), and the band is the tallest that keeps the limit (fewer strips,
 * fewer carries), or the one that takes least when none does. The total
 * into *bytes. */
static uint32_t band_rows(const rb_plan *plan, uint32_t H, size_t buf_row, uint32_t rps,
                          uint64_t limit, size_t *bytes, size_t *carry_mem)
{
    uint32_t best = H, tallest = 0;
    size_t least = SIZE_MAX, fits = 0;
    size_t cm = SIZE_MAX;
    for (int file = 0; file < 2; file++) {
        for (uint32_t rows = rps; ; rows += rps) {
            const uint32_t r = rows < H ? rows : H;
            const size_t b = rb_stream_working_bytes_capped(plan, (int)r, cm) +
                             buf_row * r * (r < H ? 2 : 1);
            if (b < least) {
                least = b;
                best = r;
            }
            if (file && b <= limit) {
                tallest = r;
                fits = b;
            }
            if (r == H)
                break;
        }
        if (least <= limit || file)
            break;
        cm = (size_t)(limit / 8);
        least = SIZE_MAX;
    }
    *carry_mem = cm;
    *bytes = tallest ? fits : least;
    return tallest ? tallest : best;
}

/* One step of the file thread: write band `wy` (wrows rows from wbuf; none
 * when wrows is 0), then read band `ry` (rrows rows into rbuf; none when 0). */
typedef struct {
    cli_rows_source *rd;
    cli_rows_sink *wr;
    uint32_t ry, rrows, wy, wrows;
    void *rbuf;
    const void *wbuf;
    int rc;
    char err[CLI_ERR_LEN];
    double ms; /* how long the step took */
} file_step;

/* Where the wall time of a run goes, said by --verbose: whether the file
 * thread or the engine is the one waited for. */
typedef struct {
    double pass1_ms, pass2_ms; /* each pass, first read to last write */
    double file_ms;            /* the file steps' own time, in all */
    double waited_ms;          /* the calling thread waiting for the file thread */
} stream_times;

static void *file_step_run(void *arg)
{
    file_step *f = arg;
    const double t0 = cli_now_ms();
    f->rc = 0;
    if (f->wrows && cli_rows_sink_write(f->wr, f->wy, f->wrows, f->wbuf, f->err, sizeof f->err))
        f->rc = -1;
    else if (f->rrows && cli_rows_source_read(f->rd, f->ry, f->rrows, f->rbuf, f->err, sizeof f->err))
        f->rc = -1;
    f->ms = cli_now_ms() - t0;
    return NULL;
}

/* Start a step on its thread (or run it here when no thread can start). */
static int file_step_start(file_step *f, pthread_t *th)
{
    if (pthread_create(th, NULL, file_step_run, f) == 0)
        return 1;
    file_step_run(f);
    return 0;
}

/* Run a step on this thread; its status, its message into err. */
static int file_step_here(file_step *f, char *err, size_t errlen)
{
    file_step_run(f);
    if (f->rc)
        snprintf(err, errlen, "%s", f->err);
    return f->rc;
}

/* Wait for a started step; its status, its message into err; the time
 * waited and the step's own into tm. */
static int file_step_wait(file_step *f, pthread_t th, int started, stream_times *tm, char *err,
                          size_t errlen)
{
    const double t0 = cli_now_ms();
    if (started)
        pthread_join(th, NULL);
    /* a step no thread could take ran here, before the filter: all waited */
    tm->waited_ms += started ? cli_now_ms() - t0 : f->ms;
    tm->file_ms += f->ms;
    if (f->rc)
        snprintf(err, errlen, "%s", f->err);
    return f->rc;
}

int cli_op_filter_stream(rb_context *ctx, const cli_settings *s, const char *in_path,
                         const char *out_path, cli_file_type out_type, rb_format out_fmt,
                         const cli_codec *codec,
                         uint64_t limit, cli_op_report *rep, char *err, size_t errlen)
{
    cli_image hdr;
    uint32_t rps = 0;
    cli_rows_source *rd = cli_rows_source_open(in_path, &hdr, &rps, err, errlen);
    if (!rd)
        return -1;
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    rb_stream *st = NULL;
    cli_rows_sink *wr = NULL;
    char *tmp = NULL;
    void *buf[2] = {NULL, NULL};
    int rc = -1, engine = 0, started = 0;
    pthread_t th;
    file_step step = {0};
    stream_times tm = {0};
    rb_boundary boundary;
    const rb_image *g = &hdr.img;
    const uint32_t H = (uint32_t)g->height;
    uint32_t band = 0;
    size_t band_bytes = 0;
    rb_image out_geom = *g;
    out_geom.format = out_fmt;
    out_geom.srgb = g->srgb && out_fmt != RB_F32;
    out_geom.stride = (size_t)g->width * g->channels * cli_sample_size(out_fmt);
    /* a band's buffer holds its input, then (rb_stream_produce reads the
     * whole input before it writes) its output: the wider of the two rows */
    const size_t buf_row = g->stride > out_geom.stride ? g->stride : out_geom.stride;
    double t0 = cli_now_ms();
    if (rb_settings_filter(ctx, &s->op, &f, &boundary) != RB_OK ||
        rb_plan_create(ctx, f, boundary, g->width, g->height, g->channels, &plan) != RB_OK ||
        (rb_settings_int(&s->op, "linear") && rb_plan_set_linear_light(plan, 1) != RB_OK)) {
        engine = 1;
        goto done;
    }
    snprintf(rep->description, sizeof rep->description, "%s", rb_filter_describe(f));
    double t1 = cli_now_ms();
    rb_status sc = rb_stream_create(plan, &st);
    if (sc != RB_OK) {
        engine = 1;
        if (sc == RB_ERR_UNSUPPORTED)
            rc = 1; /* the caller runs it in memory */
        goto done;
    }
    /* the reader's own buffer (a tile, a plane's strip) whatever the band */
    char layout[160];
    const size_t reader = cli_rows_source_layout(rd, layout, sizeof layout);
    size_t carry_mem;
    band = band_rows(plan, H, buf_row, rps, limit > reader ? limit - reader : 0, &band_bytes,
                     &carry_mem);
    band_bytes += reader;
    if (rb_stream_set_carry_memory(st, carry_mem) != RB_OK) {
        engine = 1;
        goto done;
    }
    /* a band of one strip of IN and the close's least range of columns may
     * still be more than the limit (a very wide image): say so, and go on */
    if (band_bytes > limit)
        cli_warn("the strips of this %dx%d image need about %.1f MiB even with their column carries "
                 "in a temporary file, more than the %.1f MiB memory limit: going on with that",
                 g->width, g->height, band_bytes / 1048576.0, limit / 1048576.0);
    const uint32_t nb = (H + band - 1) / band;
    /* two band buffers (one when a band is the image): while the engine
     * works on one, the file thread writes the band before it out of the
     * other and then reads the band after it in */
    for (uint32_t b = 0; b < (nb > 1 ? 2u : 1u); b++)
        if (!(buf[b] = malloc(buf_row * band))) {
            snprintf(err, errlen, "out of memory for bands of %u rows", (unsigned)band);
            goto done;
        }
    if (nb == 1)
        buf[1] = buf[0];
#define BAND_Y(i) ((i) * band)
#define BAND_N(i) (H - BAND_Y(i) < band ? H - BAND_Y(i) : band)
    rb_image in_band = *g, out_band = out_geom;
    /* pass 1: the carries; band i + 1 is read while band i is gathered, and
     * band 0 again (for pass 2) while the last one is */
    double tp = cli_now_ms();
    step = (file_step){rd, NULL, 0, BAND_N(0), 0, 0, buf[0], NULL, 0, {0}, 0.0};
    if (file_step_here(&step, err, errlen))
        goto done;
    tm.file_ms += step.ms;
    tm.waited_ms += step.ms; /* the first band's read runs alone */
    for (uint32_t i = 0; i < nb; i++) {
        const uint32_t next = i + 1 < nb ? i + 1 : 0;
        const int ahead = nb > 1;
        if (ahead) {
            step = (file_step){rd, NULL, BAND_Y(next), BAND_N(next), 0, 0, buf[(i + 1) % 2],
                               NULL, 0, {0}, 0.0};
            started = file_step_start(&step, &th);
        }
        in_band.height = (int)BAND_N(i);
        in_band.data = buf[i % 2];
        rb_status gs = rb_stream_gather(st, &in_band, (int)BAND_Y(i));
        if (gs == RB_OK && i + 1 == nb)
            gs = rb_stream_close_carries(st);
        if (ahead && file_step_wait(&step, th, started, &tm, err, errlen))
            goto done;
        if (gs != RB_OK) {
            engine = 1;
            goto done;
        }
    }
    tm.pass1_ms = cli_now_ms() - tp;
    tp = cli_now_ms();
    if (!(tmp = cli_temp_beside(out_path, err, errlen)) ||
        !(wr = cli_rows_sink_create(out_type, tmp, out_path, &out_geom, codec, band, err, errlen)))
        goto done;
    /* pass 2: band 0 is in buffer nb % 2; while band i is produced in its
     * buffer (its output over its input), the file thread writes band
     * i - 1 out of the other buffer and then reads band i + 1 into it */
    const uint32_t b0 = nb % 2;
    for (uint32_t i = 0; i < nb; i++) {
        const int more = i + 1 < nb, prev = i > 0;
        void *mine = buf[(b0 + i) % 2], *other = buf[(b0 + i + 1) % 2];
        if (more || prev) {
            step = (file_step){rd, wr, more ? BAND_Y(i + 1) : 0, more ? BAND_N(i + 1) : 0,
                               prev ? BAND_Y(i - 1) : 0, prev ? BAND_N(i - 1) : 0,
                               other, other, 0, {0}, 0.0};
            started = file_step_start(&step, &th);
        }
        in_band.height = out_band.height = (int)BAND_N(i);
        in_band.data = mine;
        out_band.data = mine;
        rb_status ps = rb_stream_produce(st, &in_band, &out_band, (int)BAND_Y(i));
        if ((more || prev) && file_step_wait(&step, th, started, &tm, err, errlen))
            goto done;
        if (ps != RB_OK) {
            engine = 1;
            goto done;
        }
    }
    const double tw = cli_now_ms();
    if (cli_rows_sink_write(wr, BAND_Y(nb - 1), BAND_N(nb - 1), buf[(b0 + nb - 1) % 2], err, errlen))
        goto done;
    tm.file_ms += cli_now_ms() - tw;
    tm.waited_ms += cli_now_ms() - tw; /* the last band's write runs alone */
#undef BAND_Y
#undef BAND_N
    const double tc = cli_now_ms();
    rc = cli_rows_sink_close(wr, 1, err, errlen);
    wr = NULL;
    tm.file_ms += cli_now_ms() - tc;
    tm.waited_ms += cli_now_ms() - tc; /* the file's close too */
    tm.pass2_ms = cli_now_ms() - tp;
    if (rc == 0 && rename(tmp, out_path) != 0) {
        snprintf(err, errlen, "cannot write %s: rename failed", out_path);
        rc = -1;
    }
    rep->plan_ms = t1 - t0;
    rep->execute_ms = cli_now_ms() - t1; /* the reads and the writes included */
    rb_stream_carry_info ci;
    char carries[160] = "";
    if (rb_stream_carries(st, &ci) == RB_OK && ci.in_file)
        snprintf(carries, sizeof carries, "; the carries in a temporary file in %s: %.1f MiB, "
                 "%.1f MiB written, %.1f MiB read", ci.dir, ci.bytes / 1048576.0,
                 ci.written / 1048576.0, ci.read / 1048576.0);
    else if (ci.bytes)
        snprintf(carries, sizeof carries, "; the carries in memory: %.1f MiB", ci.bytes / 1048576.0);
    static char backend[640];
    snprintf(backend, sizeof backend, "%s, in bands of %u rows (about %zu MiB in all%s); pass 1 "
             "%.0f ms, pass 2 %.0f ms, file work %.0f ms, of which the filter waited %.0f ms%s%s%s%s",
             rb_plan_backend_name(plan), (unsigned)band, band_bytes >> 20,
             nb > 1 ? ", file work overlapped" : "", tm.pass1_ms, tm.pass2_ms, tm.file_ms,
             tm.waited_ms,
             cli_rows_source_decodes(rd) > 1 ? "; IN decoded twice (PNG)" : "",
             layout[0] ? "; " : "", layout, carries);
    rep->backend = backend;
done:
    if (engine)
        snprintf(err, errlen, "%s", cli_engine_message(ctx));
    if (wr)
        cli_rows_sink_close(wr, 0, NULL, 0);
    if (tmp && rc != 0)
        unlink(tmp);
    free(tmp);
    cli_rows_source_close(rd);
    free(buf[0]);
    if (buf[1] != buf[0])
        free(buf[1]);
    rb_stream_destroy(st);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    return rc;
}
