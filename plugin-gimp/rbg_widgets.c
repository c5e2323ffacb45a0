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
    rb_choice choices[16];
    int n = 0;
    const char *label;
    while ((label = va_arg(ap, const char *)) != NULL) {
        gint value = va_arg(ap, gint);
        if (n < (int)G_N_ELEMENTS(choices) - 1)
            choices[n++] = (rb_choice){label, value, label};
    }
    choices[n] = (rb_choice){NULL, 0, NULL};
    return rbg_choice_combo_new(choices, field, changed, data, tooltip);
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

GtkWidget *rbg_choice_combo_new(const rb_choice *choices, gint *field, GCallback changed,
                                gpointer data, const char *tooltip)
{
    GtkListStore *store = gimp_int_store_new();
    for (const rb_choice *c = choices; c->name; c++) {
        GtkTreeIter iter;
        gtk_list_store_append(store, &iter);
        gtk_list_store_set(store, &iter, GIMP_INT_STORE_VALUE, c->value, GIMP_INT_STORE_LABEL, c->label, -1);
    }
    GtkWidget *combo = g_object_new(GIMP_TYPE_INT_COMBO_BOX, "model", store, NULL);
    g_object_unref(store);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(combo), *field);
    g_object_set_data(G_OBJECT(combo), RBG_FIELD_KEY, field);
    g_signal_connect(combo, "changed", changed, data);
    gimp_help_set_help_data(combo, tooltip, NULL);
    return combo;
}

/* the modes and back ends, and their labels, from the engine's operation table */
GtkWidget *rbg_boundary_combo_new(gint *field, GCallback changed, gpointer data,
                                  const char *tooltip)
{
    const rb_setting_desc *d = rb_op_setting(rb_op_get(RB_OP_BLUR), "boundary");
    return rbg_choice_combo_new(d->choices, field, changed, data, tooltip);
}

GtkWidget *rbg_backend_combo_new(gint *field, GCallback changed, gpointer data)
{
    const rb_setting_desc *d = rb_op_setting(rb_op_get(RB_OP_BLUR), "backend");
    return rbg_choice_combo_new(d->choices, field, changed, data, d->help);
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

GtkWidget *rbg_options_table_new(GtkWidget *box, int rows, int columns)
{
    GtkWidget *table = gtk_table_new(rows, columns, FALSE);
    gtk_table_set_col_spacings(GTK_TABLE(table), 6);
    gtk_table_set_row_spacings(GTK_TABLE(table), 4);
    if (GTK_IS_BOX(box))
        gtk_box_pack_start(GTK_BOX(box), table, FALSE, FALSE, 0);
    else
        gtk_container_add(GTK_CONTAINER(box), table);
    return table;
}

gboolean rbg_preset_menu_changed(GtkComboBox *combo, RbgPresetApply apply, gpointer vals,
                                 void (*refresh)(gpointer dialog), gpointer dialog,
                                 GtkWidget *status_label, GtkWidget *preview)
{
    if (gtk_combo_box_get_active(combo) <= 0)
        return FALSE;
    gchar *name = gtk_combo_box_text_get_active_text(GTK_COMBO_BOX_TEXT(combo));
    gchar *err = NULL;
    gboolean ok = apply(name, vals, &err);
    if (ok)
        refresh(dialog);
    gtk_label_set_text(GTK_LABEL(status_label), ok ? "" : err);
    if (ok)
        gimp_preview_invalidate(GIMP_PREVIEW(preview));
    g_free(err);
    g_free(name);
    return TRUE;
}

gboolean rbg_dialog_run(GtkWidget *dialog, GtkWidget *preview, gboolean *preview_update)
{
    gtk_widget_show_all(dialog);
    gboolean ok = gimp_dialog_run(GIMP_DIALOG(dialog)) == GTK_RESPONSE_OK;
    *preview_update = gimp_preview_get_update(GIMP_PREVIEW(preview));
    return ok;
}
