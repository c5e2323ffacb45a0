/* Widgets both dialogs (Recursive Blur, Deblur) build the same way: the
 * dialog shell with its preview, int combos bound to a gint field (boundary,
 * back end), and the back-end / status labels under the options. */
#include <stdarg.h>
#include <stdio.h>
#include "rbg_dialog.h"

const char *rbg_setting_tooltip(const rb_setting_desc *d)
{
    static char text[512];
    char allowed[160];
    snprintf(text, sizeof text, "%s; %s", d->help, rb_setting_allowed(d, allowed, sizeof allowed));
    return text;
}

GtkWidget *rbg_dialog_shell_new(const char *title, const char *proc, gint32 drawable_id,
                                gboolean preview_update, GtkWidget **hbox, GtkWidget **preview)
{
    gimp_ui_init(RBG_BINARY, TRUE);
    GtkWidget *dialog = gimp_dialog_new(title, RBG_BINARY, NULL, 0,
                                        gimp_standard_help_func, proc,
                                        "_Cancel", GTK_RESPONSE_CANCEL,
                                        "_OK", GTK_RESPONSE_OK,
                                        NULL);
    gtk_dialog_set_alternative_button_order(GTK_DIALOG(dialog), GTK_RESPONSE_OK,
                                            GTK_RESPONSE_CANCEL, -1);
    gimp_window_set_transient(GTK_WINDOW(dialog));

    *hbox = gtk_hbox_new(FALSE, 12);
    gtk_container_set_border_width(GTK_CONTAINER(*hbox), 12);
    gtk_box_pack_start(GTK_BOX(gtk_dialog_get_content_area(GTK_DIALOG(dialog))), *hbox,
                       TRUE, TRUE, 0);

    *preview = gimp_drawable_preview_new_from_drawable_id(drawable_id);
    gtk_widget_set_size_request(*preview, 300, -1);
    gimp_preview_set_update(GIMP_PREVIEW(*preview), preview_update);
    gtk_box_pack_start(GTK_BOX(*hbox), *preview, TRUE, TRUE, 0);
    return dialog;
}

GtkWidget *rbg_int_combo_valist(gint *field, GCallback changed, gpointer data,
                                const char *tooltip, va_list ap)
{
    GtkListStore *store = gimp_int_store_new();
    const char *label;

    while ((label = va_arg(ap, const char *)) != NULL) {
        gint value = va_arg(ap, gint);
        GtkTreeIter iter;
        gtk_list_store_append(store, &iter);
        gtk_list_store_set(store, &iter, GIMP_INT_STORE_VALUE, value,
                           GIMP_INT_STORE_LABEL, label, -1);
    }
    GtkWidget *combo = g_object_new(GIMP_TYPE_INT_COMBO_BOX, "model", store, NULL);
    g_object_unref(store);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(combo), *field);
    g_object_set_data(G_OBJECT(combo), RBG_FIELD_KEY, field);
    g_signal_connect(combo, "changed", changed, data);
    gimp_help_set_help_data(combo, tooltip, NULL);
    return combo;
}

GtkWidget *rbg_int_combo_new(gint *field, GCallback changed, gpointer data,
                             const char *tooltip, ...)
{
    va_list ap;
    va_start(ap, tooltip);
    GtkWidget *combo = rbg_int_combo_valist(field, changed, data, tooltip, ap);
    va_end(ap);
    return combo;
}

GtkWidget *rbg_boundary_combo_new(gint *field, GCallback changed, gpointer data,
                                  const char *tooltip)
{
    return rbg_int_combo_new(field, changed, data, tooltip,
                             "Clamp (repeat edge)", RB_BOUNDARY_CLAMP,
                             "Mirror", RB_BOUNDARY_MIRROR,
                             "Tileable (periodic)", RB_BOUNDARY_PERIODIC,
                             "Zero", RB_BOUNDARY_ZERO,
                             "Constant value", RB_BOUNDARY_CONSTANT,
                             "None (zero start)", RB_BOUNDARY_NONE, NULL);
}

GtkWidget *rbg_backend_combo_new(gint *field, GCallback changed, gpointer data)
{
    return rbg_int_combo_new(field, changed, data,
                             "Where to filter: Auto uses the GPU when usable",
                             "Auto", RB_BACKEND_AUTO, "CPU", RB_BACKEND_CPU,
                             "GPU (CUDA)", RB_BACKEND_CUDA, NULL);
}

int rbg_status_labels_attach(GtkTable *table, int row, int columns, GtkWidget **backend_label,
                             GtkWidget **status_label)
{
    *backend_label = gtk_label_new("Back end in use: (not run yet)");
    gtk_misc_set_alignment(GTK_MISC(*backend_label), 0.0, 0.5);
    gtk_table_attach(table, *backend_label, 0, columns, row, row + 1,
                     GTK_FILL, GTK_FILL, 0, 0);
    row++;
    *status_label = gtk_label_new("");
    gtk_label_set_line_wrap(GTK_LABEL(*status_label), TRUE);
    gtk_widget_set_size_request(*status_label, 360, -1);
    gtk_misc_set_alignment(GTK_MISC(*status_label), 0.0, 0.0);
    gtk_table_attach(table, *status_label, 0, columns, row, row + 1,
                     GTK_FILL, GTK_FILL, 0, 0);
    return row + 1;
}
