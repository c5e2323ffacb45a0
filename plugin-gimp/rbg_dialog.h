/* recblur GIMP plug-in: the dialog's state, shared by the dialog, its preview
 * and its preset menu. */
#ifndef RBG_DIALOG_H
#define RBG_DIALOG_H

#include "rbg.h"            /* libgimp/gimp.h must come before gimpui.h */
#include <libgimp/gimpui.h>
#include <stdarg.h>

/* Regions up to this many pixels are previewed exactly (the whole selection
 * box is filtered); larger ones filter only the visible area plus a margin. */
#define RBG_PREVIEW_EXACT_PIXELS (1 << 20)

typedef struct {
    gint32     drawable_id;
    RbgVals   *vals;
    GtkWidget *preview;
    GtkObject *sigma_x_adj, *sigma_y_adj, *constant_adj;
    GtkWidget *chain;
    GtkWidget *op_combo, *boundary_combo, *backend_combo, *direction_combo, *axes_combo;
    GtkWidget *mask_combo;
    GtkWidget *accurate_toggle, *linear_toggle;
    GtkWidget *signature_entry;
    GtkWidget *preset_combo;
    GtkWidget *backend_label, *status_label;
    gboolean   updating;   /* widgets are being set from vals: ignore their signals */
} RbgDialog;

/* "invalidated" handler of the preview: filter what is shown, draw it. */
void rbg_preview_invalidated(GimpPreview *preview, RbgDialog *d);

/* Filter the drawable's selection box with fn (whole when at most
 * RBG_PREVIEW_EXACT_PIXELS, else the visible area plus margin) in a worker
 * thread on a copy of vals (vals_size bytes, no pointers) and draw it when
 * done; a newer render or the preview's end cancels it. The labels show the
 * back end used or the engine's message. */
void rbg_preview_render(GimpPreview *preview, gint32 drawable_id, gboolean linear, gint margin,
                        RbgPixelsFn fn, const void *vals, gsize vals_size,
                        GtkWidget *backend_label, GtkWidget *status_label);

/* A combo box of the presets this plug-in can run; choosing one sets the widgets. */
GtkWidget *rbg_presets_menu_new(RbgDialog *d);
/* Show "(custom)" again after the user changed a widget by hand. */
void rbg_presets_menu_forget(RbgDialog *d);

/* vals -> widgets (after a preset was chosen), and widget sensitivity. */
void rbg_dialog_set_widgets(RbgDialog *d);

/* ---------------------------------------- widgets both dialogs share (rbg_widgets.c) */
/* "help; allowed values" of a table setting, for a tooltip (static storage:
 * use it before the next call). */
const char *rbg_setting_tooltip(const rb_setting_desc *d);
/* The dialog (Cancel/OK) with an hbox whose left holds the drawable's preview. */
GtkWidget *rbg_dialog_shell_new(const char *title, const char *proc, gint32 drawable_id,
                                gboolean preview_update, GtkWidget **hbox, GtkWidget **preview);

/* Int combos carry a pointer to the gint they set under this key; `changed`
 * (called with data) reads it back with g_object_get_data. */
#define RBG_FIELD_KEY "rbg-field"
/* A combo of (const char *label, gint value) pairs ended by NULL, showing *field. */
GtkWidget *rbg_int_combo_new(gint *field, GCallback changed, gpointer data,
                             const char *tooltip, ...);
GtkWidget *rbg_int_combo_valist(gint *field, GCallback changed, gpointer data,
                                const char *tooltip, va_list ap);
/* A combo of a table setting's choices (label shown, value stored in *field). */
GtkWidget *rbg_choice_combo_new(const rb_choice *choices, gint *field, GCallback changed,
                                gpointer data, const char *tooltip);
/* The boundary modes; the back ends (Auto, CPU, GPU): the table's choices. */
GtkWidget *rbg_boundary_combo_new(gint *field, GCallback changed, gpointer data,
                                  const char *tooltip);
GtkWidget *rbg_backend_combo_new(gint *field, GCallback changed, gpointer data);

/* A table for a dialog's options (rows x columns, the dialogs' spacing), packed
 * into box: beside the preview (a GtkBox) or inside an expander. */
GtkWidget *rbg_options_table_new(GtkWidget *box, int rows, int columns);

/* "changed" of either dialog's preset menu (entry 0 is "no preset"):
 * apply(name, vals, &error) loads the chosen preset into vals (left as they
 * were on failure); then refresh(dialog) shows the new values, the status line
 * is cleared and the preview redrawn, or the status line says why not.
 * FALSE, doing nothing, for entry 0. */
typedef gboolean (*RbgPresetApply)(const char *name, gpointer vals, gchar **error);
gboolean rbg_preset_menu_changed(GtkComboBox *combo, RbgPresetApply apply, gpointer vals,
                                 void (*refresh)(gpointer dialog), gpointer dialog,
                                 GtkWidget *status_label, GtkWidget *preview);

/* Show the dialog and wait for the user: TRUE for OK. *preview_update keeps the
 * preview toggle for the next run; the caller destroys the dialog. */
gboolean rbg_dialog_run(GtkWidget *dialog, GtkWidget *preview, gboolean *preview_update);

/* "Back end in use" and the status line, columns wide, at rows row and row + 1
 * of table; returns the next free row. */
int rbg_status_labels_attach(GtkTable *table, int row, int columns, GtkWidget **backend_label,
                             GtkWidget **status_label);

#endif /* RBG_DIALOG_H */
