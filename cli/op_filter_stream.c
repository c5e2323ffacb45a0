/* blur, filter and bspline on a TIFF larger than the memory they may use:
 * the engine's strip route (rb_stream_*, issue 18). IN is read twice, a band
 * of whole TIFF strips at a time (pass 1 gathers the column carries, pass 2
 * produces the final rows), and OUT is written once, band by band, into a
 * temporary file renamed into place at the end. Working memory: a few bands
 * plus the carries, whatever the image height. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Rows per band: whole strips of IN, the count that takes least memory in
 * all (the stream's working set, its carries included, and the two band
 * buffers of the file's samples); its total into *bytes. */
static uint32_t band_rows(const rb_plan *plan, const rb_image *in, const rb_image *out,
                          uint32_t rps, size_t *bytes)
{
    const uint32_t H = (uint32_t)in->height;
    const size_t per_row = in->stride + out->stride;
    uint32_t best = H;
    size_t least = SIZE_MAX;
    for (uint32_t rows = rps; ; rows += rps) {
        const uint32_t r = rows < H ? rows : H;
        const size_t b = rb_stream_working_bytes(plan, (int)r) + per_row * r;
        if (b < least) {
            least = b;
            best = r;
        }
        if (r == H)
            break;
    }
    *bytes = least;
    return best;
}

int cli_op_filter_stream(rb_context *ctx, const cli_settings *s, const char *in_path,
                         const char *out_path, rb_format out_fmt, const cli_codec *codec,
                         cli_op_report *rep, char *err, size_t errlen)
{
    cli_image hdr;
    uint32_t rps = 0;
    cli_tiff_rows *rd = cli_tiff_rows_open(in_path, &hdr, &rps, err, errlen);
    if (!rd)
        return -1;
    rb_filter *f = NULL;
    rb_plan *plan = NULL;
    rb_stream *st = NULL;
    cli_tiff_rows *wr = NULL;
    char *tmp = NULL;
    void *inbuf = NULL, *outbuf = NULL;
    int rc = -1, engine = 0;
    rb_boundary boundary;
    const rb_image *g = &hdr.img;
    const uint32_t H = (uint32_t)g->height;
    uint32_t band = 0;
    size_t band_bytes = 0;
    rb_image out_geom = *g;
    out_geom.format = out_fmt;
    out_geom.srgb = g->srgb && out_fmt != RB_F32;
    out_geom.stride = (size_t)g->width * g->channels * cli_sample_size(out_fmt);
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
    band = band_rows(plan, g, &out_geom, rps, &band_bytes);
    inbuf = malloc(g->stride * band);
    outbuf = malloc(out_geom.stride * band);
    if (!inbuf || !outbuf) {
        snprintf(err, errlen, "out of memory for bands of %u rows", (unsigned)band);
        goto done;
    }
    rb_image in_band = *g, out_band = out_geom;
    in_band.data = inbuf;
    out_band.data = outbuf;
    for (uint32_t y = 0; y < H; y += band) { /* pass 1: the carries */
        in_band.height = (int)(H - y < band ? H - y : band);
        if (cli_tiff_rows_read(rd, y, (uint32_t)in_band.height, inbuf, err, errlen))
            goto done;
        if (rb_stream_gather(st, &in_band, (int)y) != RB_OK) {
            engine = 1;
            goto done;
        }
    }
    if (rb_stream_close_carries(st) != RB_OK) {
        engine = 1;
        goto done;
    }
    if (!(tmp = cli_temp_beside(out_path, err, errlen)) ||
        !(wr = cli_tiff_rows_create(tmp, out_path, &out_geom, codec, band, err, errlen)))
        goto done;
    for (uint32_t y = 0; y < H; y += band) { /* pass 2: the final rows */
        in_band.height = out_band.height = (int)(H - y < band ? H - y : band);
        if (cli_tiff_rows_read(rd, y, (uint32_t)in_band.height, inbuf, err, errlen))
            goto done;
        if (rb_stream_produce(st, &in_band, &out_band, (int)y) != RB_OK) {
            engine = 1;
            goto done;
        }
        if (cli_tiff_rows_write(wr, y, (uint32_t)out_band.height, outbuf, err, errlen))
            goto done;
    }
    rc = cli_tiff_rows_close(wr, 1, err, errlen);
    wr = NULL;
    if (rc == 0 && rename(tmp, out_path) != 0) {
        snprintf(err, errlen, "cannot write %s: rename failed", out_path);
        rc = -1;
    }
    rep->plan_ms = t1 - t0;
    rep->execute_ms = cli_now_ms() - t1; /* the reads and the writes included */
    static char backend[192];
    snprintf(backend, sizeof backend, "%s, in bands of %u rows (about %zu MiB in all)",
             rb_plan_backend_name(plan), (unsigned)band, band_bytes >> 20);
    rep->backend = backend;
done:
    if (engine)
        snprintf(err, errlen, "%s", cli_engine_message(ctx));
    if (wr)
        cli_tiff_rows_close(wr, 0, NULL, 0);
    if (tmp && rc != 0)
        unlink(tmp);
    free(tmp);
    cli_tiff_rows_close(rd, 0, NULL, 0);
    free(inbuf);
    free(outbuf);
    rb_stream_destroy(st);
    rb_plan_destroy(plan);
    rb_filter_destroy(f);
    return rc;
}
