/* The dialog's preset menu, filled from the engine's preset search path
 * (rb_preset_list); choosing an entry loads it (rb_preset_load) into the widgets. */
#include <string.h>
#include "rbg_dialog.h"

#define RBG_MAX_PRESETS 128

static gboolean apply_preset(const char *name, gpointer vals, gchar **error)
{
    return rbg_apply_preset(name, vals, error);
}

static void show_vals(gpointer d)
{
    rbg_dialog_set_widgets(d);
}

static void preset_changed(GtkComboBox *combo, RbgDialog *d)
{
    if (!d->updating)
        rbg_preset_menu_changed(combo, apply_preset, d->vals, show_vals, d, d->status_label,
                                d->preview);
}

GtkWidget *rbg_presets_menu_new(RbgDialog *d)
{
    static char names[RBG_MAX_PRESETS][128];
    GtkWidget *combo = gtk_combo_box_text_new();
    int n = rb_preset_list(names, RBG_MAX_PRESETS);
    int shown = 0;

    gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(combo), "(custom)");
    for (int i = 0; i < n && i < RBG_MAX_PRESETS; i++) {
        RbgVals probe;
        gchar *err = NULL;
        rbg_vals_defaults(&probe);
        /* Only presets this plug-in can run (not sat/box) go in the menu. */
        if (rbg_apply_preset(names[i], &probe, &err)) {
            gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(combo), names[i]);
            shown++;
        }
        g_free(err);
    }
    gtk_combo_box_set_active(GTK_COMBO_BOX(combo), 0);
    gtk_widget_set_sensitive(combo, shown > 0);
    gimp_help_set_help_data(combo,
        "Presets from $RECBLUR_PRESET_PATH and the installed presets directory; "
        "choosing one sets the filter and boundary below", NULL);
    g_signal_connect(combo, "changed", G_CALLBACK(preset_changed), d);
    return combo;
}

void rbg_presets_menu_forget(RbgDialog *d)
{
    if (d->updating || gtk_combo_box_get_active(GTK_COMBO_BOX(d->preset_combo)) <= 0)
        return;
    d->updating = TRUE;
    gtk_combo_box_set_active(GTK_COMBO_BOX(d->preset_combo), 0);
    d->updating = FALSE;
}
