/* The dialog's last values across GIMP restarts. gimp_set_data keeps them for
 * one session only, so each OK also writes them as preset text (rbg_vals.c:
 * the operation table's keys, no second list of fields) to
 * <gimp_directory()>/recblur-last.preset, read when a session has none. A
 * missing file is a first run; an unreadable, garbled or older file is
 * ignored with a message and the table's defaults are used. */
#include <string.h>
#include "rbg.h"

#define RBG_LAST_VALS_FILE "recblur-last.preset"

static gchar *last_vals_path(void)
{
    return g_build_filename(gimp_directory(), RBG_LAST_VALS_FILE, NULL);
}

gboolean rbg_last_vals_load(RbgVals *v)
{
    gchar *path = last_vals_path(), *text = NULL;
    GError *gerr = NULL;
    gboolean ok = FALSE;

    if (!g_file_get_contents(path, &text, NULL, &gerr)) {
        if (!g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            g_message("recblur: ignoring the saved settings: %s", gerr->message);
        g_clear_error(&gerr);
        g_free(path);
        return FALSE;
    }
    gchar *error = NULL;
    rb_context *ctx = rbg_context_new(NULL, NULL, &error);
    if (ctx) {
        rb_status st = rbg_vals_from_text(ctx, text, path, v);
        const char *msg = rb_context_error(ctx);
        if (st == RB_OK)
            ok = TRUE;
        else
            error = st == RB_ERR_ARGUMENT && !(msg && *msg)
                        ? g_strdup_printf("%s: not a filter the GIMP plug-in runs", path)
                        : rbg_engine_error(ctx, st, "saved settings");
        rb_context_destroy(ctx);
    }
    if (!ok) {
        g_message("recblur: ignoring the saved settings (defaults used): %s", error);
        g_free(error);
    }
    g_free(text);
    g_free(path);
    return ok;
}

void rbg_last_vals_save(const RbgVals *v)
{
    gchar *error = NULL;
    rb_context *ctx = rbg_context_new(NULL, NULL, &error);
    if (!ctx) {
        g_message("recblur: settings not saved: %s", error);
        g_free(error);
        return;
    }
    gchar *path = last_vals_path();
    static const char head[] = "# recblur GIMP plug-in: the dialog's last values (a preset)\n";
    char text[4096];
    memcpy(text, head, sizeof head);
    rb_status st = rbg_vals_to_text(ctx, v, text + sizeof head - 1, sizeof text - sizeof head + 1);
    GError *gerr = NULL;
    if (st != RB_OK) {
        error = rbg_engine_error(ctx, st, "saving settings");
        g_message("recblur: settings not saved: %s", error);
        g_free(error);
    } else if (!g_file_set_contents(path, text, -1, &gerr)) {
        /* the filter ran; only the memory of its settings is lost */
        g_message("recblur: settings not saved: %s", gerr->message);
        g_clear_error(&gerr);
    }
    g_free(path);
    rb_context_destroy(ctx);
}
