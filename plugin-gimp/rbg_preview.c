/* Live preview, computed off the UI loop. The filtered region is the same one
 * the full run filters (the selection box), so small regions preview exactly.
 * Regions over RBG_PREVIEW_EXACT_PIXELS filter only the visible area plus a
 * margin to stay responsive: there the crop's edges act as the boundary,
 * which is close for a Gaussian (margin 4 sigma) but approximate for
 * periodic/mirror near the image edges and for long-tailed custom filters.
 * The final run is exact.
 *
 * Each render reads its crop in the UI thread (libgimp's tile transfer is not
 * thread-safe), then filters it in a worker thread whose engine progress
 * callback cancels the run as soon as a newer render or the dialog's end
 * supersedes it (a generation counter); the result reaches the preview widget
 * from an idle handler, in the UI thread, only when it is still the newest.
 * So OK, Cancel and every widget answer while the engine works. */
#include <math.h>
#include "rbg_dialog.h"

/* What the preview's renders share; it outlives the widget while a worker
 * still holds it. */
typedef struct {
    gint refs;            /* atomic */
    gint generation;      /* atomic: the newest render's number */
    gboolean alive;       /* UI thread: the preview widget still exists */
    GimpPreview *preview;
    GtkWidget *backend_label, *status_label;
    GThread *latest;      /* UI thread: the newest render's worker */
} PreviewState;

/* One render: the crop, its copy of the options, and the worker's verdict. */
typedef struct {
    PreviewState *state;
    gint generation;
    RbgPixelsFn fn;
    gpointer vals;        /* a copy: the dialog keeps editing its own */
    RbgLayout layout;
    float *pixels;
    gint cw, ch;          /* the crop filtered */
    gint ox, oy, pw, ph;  /* the shown area inside the crop */
    gboolean ok;
    gchar *backend, *error;
} PreviewJob;

#define STATE_KEY "rbg-preview-state"

static void state_unref(PreviewState *s)
{
    if (g_atomic_int_dec_and_test(&s->refs))
        g_free(s);
}

static gboolean superseded(const PreviewJob *job)
{
    return g_atomic_int_get(&job->state->generation) != job->generation;
}

/* Engine progress: non-zero cancels the run (RB_ERR_CANCELLED). */
static int cancel_when_superseded(double fraction, void *user)
{
    (void)fraction;
    return superseded(user);
}

static void job_free(PreviewJob *job)
{
    state_unref(job->state);
    g_free(job->vals);
    g_free(job->pixels);
    g_free(job->backend);
    g_free(job->error);
    g_free(job);
}

/* Idle handler, UI thread: draw the newest render's result, drop older ones. */
static gboolean deliver(gpointer data)
{
    PreviewJob *job = data;
    PreviewState *s = job->state;
    if (!s->alive || superseded(job) || !gimp_preview_get_update(s->preview)) {
        job_free(job);
        return G_SOURCE_REMOVE;
    }
    if (job->ok) {
        int bpp = babl_format_get_bytes_per_pixel(job->layout.preview_u8);
        guchar *u8 = g_malloc((size_t)job->pw * job->ph * bpp);
        const Babl *fish = babl_fish(job->layout.format, job->layout.preview_u8);
        for (gint r = 0; r < job->ph; r++) {
            const float *row = job->pixels +
                ((size_t)(job->oy + r) * job->cw + job->ox) * job->layout.channels;
            babl_process(fish, row, u8 + (size_t)r * job->pw * bpp, job->pw);
        }
        gimp_preview_draw_buffer(s->preview, u8, job->pw * bpp);
        g_free(u8);
        gchar *text = g_strdup_printf("Back end in use: %s", job->backend);
        gtk_label_set_text(GTK_LABEL(s->backend_label), text);
        gtk_label_set_text(GTK_LABEL(s->status_label), "");
        g_free(text);
    } else {
        gimp_preview_draw(s->preview);   /* the unfiltered drawable */
        gtk_label_set_text(GTK_LABEL(s->backend_label), "Back end in use: (none)");
        gtk_label_set_text(GTK_LABEL(s->status_label), job->error);
    }
    job_free(job);
    return G_SOURCE_REMOVE;
}

/* Worker thread: the engine only (no GTK, no libgimp). */
static gpointer work(gpointer data)
{
    PreviewJob *job = data;
    job->ok = job->fn(job->vals, &job->layout, job->pixels, job->cw, job->ch,
                      cancel_when_superseded, job, &job->backend, &job->error);
    g_idle_add(deliver, job);
    return NULL;
}

/* The preview widget is going (the dialog closed): cancel the running render
 * and wait for it, so no engine run outlives the dialog into the full run. */
static void preview_gone(GtkWidget *widget, PreviewState *s)
{
    s->alive = FALSE;
    g_atomic_int_inc(&s->generation);
    if (s->latest)
        g_thread_join(s->latest);
    s->latest = NULL;
    state_unref(s);
}

static PreviewState *preview_state(GimpPreview *preview, GtkWidget *backend_label,
                                   GtkWidget *status_label)
{
    PreviewState *s = g_object_get_data(G_OBJECT(preview), STATE_KEY);
    if (!s) {
        s = g_new0(PreviewState, 1);
        s->refs = 1;   /* the widget's, dropped in preview_gone */
        s->alive = TRUE;
        s->preview = preview;
        s->backend_label = backend_label;
        s->status_label = status_label;
        g_object_set_data(G_OBJECT(preview), STATE_KEY, s);
        g_signal_connect(preview, "destroy", G_CALLBACK(preview_gone), s);
    }
    return s;
}

static gboolean filter_fn(const void *vals, const RbgLayout *layout, void *pixels, int w, int h,
                          rb_progress_fn progress, void *user, gchar **backend, gchar **error)
{
    return rbg_filter_pixels(vals, layout, pixels, w, h, progress, user, backend, error);
}

static gint preview_margin(const RbgVals *v)
{
    if (v->operation == RBG_OP_GAUSSIAN) {
        double s = MAX(v->sigma_x, v->sigma_y);
        return (gint)MIN(ceil(4.0 * s) + 8.0, 100000.0);
    }
    return 64;
}

void rbg_preview_invalidated(GimpPreview *preview, RbgDialog *d)
{
    rbg_preview_render(preview, d->drawable_id, d->vals->linear, preview_margin(d->vals),
                       filter_fn, d->vals, sizeof *d->vals, d->backend_label, d->status_label);
}

void rbg_preview_render(GimpPreview *preview, gint32 drawable_id, gboolean linear, gint margin,
                        RbgPixelsFn fn, const void *vals, gsize vals_size,
                        GtkWidget *backend_label, GtkWidget *status_label)
{
    gint px, py, pw, ph, rx, ry, rw, rh;
    gint cx0, cy0, cx1, cy1;
    PreviewState *s = preview_state(preview, backend_label, status_label);
    /* from here on every running render is stale: its next progress call cancels it */
    gint generation = g_atomic_int_add(&s->generation, 1) + 1;

    gimp_preview_get_position(preview, &px, &py);
    gimp_preview_get_size(preview, &pw, &ph);
    if (!gimp_drawable_mask_intersect(drawable_id, &rx, &ry, &rw, &rh))
        return;

    if ((gint64)rw * rh <= RBG_PREVIEW_EXACT_PIXELS) {
        cx0 = rx; cy0 = ry; cx1 = rx + rw; cy1 = ry + rh;
    } else {
        gint m = margin;
        cx0 = MAX(rx, px - m);
        cy0 = MAX(ry, py - m);
        cx1 = MIN(rx + rw, px + pw + m);
        cy1 = MIN(ry + rh, py + ph + m);
    }
    /* The crop always holds what is shown. */
    cx0 = MIN(cx0, px); cy0 = MIN(cy0, py);
    cx1 = MAX(cx1, px + pw); cy1 = MAX(cy1, py + ph);

    PreviewJob *job = g_new0(PreviewJob, 1);
    job->generation = generation;
    job->fn = fn;
    job->vals = g_memdup(vals, vals_size);
    job->cw = cx1 - cx0;
    job->ch = cy1 - cy0;
    job->ox = px - cx0;
    job->oy = py - cy0;
    job->pw = pw;
    job->ph = ph;
    rbg_layout(drawable_id, linear, &job->layout);
    job->pixels = g_try_malloc((size_t)job->cw * job->ch * job->layout.channels * sizeof(float));
    g_atomic_int_inc(&s->refs);
    job->state = s;
    if (!job->pixels) {
        job_free(job);
        gtk_label_set_text(GTK_LABEL(status_label), "recblur: preview: out of memory");
        gimp_preview_draw(preview);
        return;
    }
    GeglBuffer *src = gimp_drawable_get_buffer(drawable_id);
    gegl_buffer_get(src, GEGL_RECTANGLE(cx0, cy0, job->cw, job->ch), 1.0, job->layout.format,
                    job->pixels, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
    g_object_unref(src);

    GError *gerr = NULL;
    GThread *thread = g_thread_try_new("recblur-preview", work, job, &gerr);
    if (!thread) {
        gchar *text = g_strdup_printf("recblur: preview: %s", gerr->message);
        gtk_label_set_text(GTK_LABEL(status_label), text);
        g_free(text);
        g_clear_error(&gerr);
        job_free(job);
        return;
    }
    gtk_label_set_text(GTK_LABEL(status_label), "Computing the preview…");
    /* an older worker was told to stop (generation); it cleans up after itself */
    if (s->latest)
        g_thread_unref(s->latest);
    s->latest = thread;
}
