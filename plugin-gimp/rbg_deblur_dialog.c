/* The "Deblur (2D IIR)" dialog (gimpui-2.0, GTK 2): preview on the left; on the
 * right a menu of the designed .deblur presets, or the PSF (Gaussian sigma),
 * the noise level and the window the engine designs a filter from, and the
 * boundary and back end. Widgets write into RbgDeblurVals; the engine does the rest. */
#include <string.h>
#include "rbg_dialog.h"

#define RBG_MAX_DEBLUR_PRESETS 128

typedef struct {
    gint32         drawable_id;
    RbgDeblurVals *vals;
    GtkWidget     *preview;
    GtkObject     *sigma_adj, *noise_adj, *window_adj, *constant_adj;
    GtkWidget     *preset_combo, *boundary_combo, *backend_combo, *linear_toggle;
    GtkWidget     *backend_label, *status_label;
    gboolean       updating;
} RbgDeblurDialog;

static void update_sensitivity(RbgDeblurDialog *d)
{
    gboolean design = d->vals->preset[0] == '\0';
    gimp_scale_entry_set_sensitive(d->sigma_adj, design);
    gimp_scale_entry_set_sensitive(d->noise_adj, design);
    gimp_scale_entry_set_sensitive(d->window_adj, design);
    gimp_scale_entry_set_sensitive(d->constant_adj, d->vals->boundary == RB_BOUNDARY_CONSTANT);
}

static void set_widgets(RbgDeblurDialog *d)
{
    const RbgDeblurVals *v = d->vals;
    d->updating = TRUE;
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->sigma_adj), v->psf_sigma);
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->noise_adj), v->noise);
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->window_adj), v->window);
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->constant_adj), v->constant);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->boundary_combo), v->boundary);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->backend_combo), v->backend);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(d->linear_toggle), v->linear);
    d->updating = FALSE;
    update_sensitivity(d);
}

static void invalidate(RbgDeblurDialog *d)
{
    update_sensitivity(d);
    if (!d->updating)
        gimp_preview_invalidate(GIMP_PREVIEW(d->preview));
}

static void preview_invalidated(GimpPreview *preview, RbgDeblurDialog *d)
{
    /* Past 1 megapixel only the visible area is filtered: the window plus a
     * generous decay length keeps the crop's own edges out of sight. */
    rbg_preview_render(preview, d->drawable_id, d->vals->linear, 64 + 2 * d->vals->window,
                       rbg_deblur_pixels, d->vals, sizeof *d->vals, d->backend_label,
                       d->status_label);
}

static void adj_changed(GtkAdjustment *adj, RbgDeblurDialog *d)
{
    if (d->updating)
        return;
    gdouble value = gtk_adjustment_get_value(adj);
    if ((GtkObject *)adj == d->sigma_adj)
        d->vals->psf_sigma = value;
    else if ((GtkObject *)adj == d->noise_adj)
        d->vals->noise = value;
    else if ((GtkObject *)adj == d->window_adj)
        d->vals->window = (gint)(value + 0.5);
    else
        d->vals->constant = value;
    invalidate(d);
}

/* Boundary and back end: the combo carries its gint field (RBG_FIELD_KEY). */
static void int_combo_changed(GtkWidget *combo, RbgDeblurDialog *d)
{
    gint *field = g_object_get_data(G_OBJECT(combo), RBG_FIELD_KEY);
    gint value;
    if (d->updating || !gimp_int_combo_box_get_active(GIMP_INT_COMBO_BOX(combo), &value))
        return;
    *field = value;
    invalidate(d);
}

static void linear_toggled(GtkToggleButton *toggle, RbgDeblurDialog *d)
{
    if (d->updating)
        return;
    d->vals->linear = gtk_toggle_button_get_active(toggle);
    invalidate(d);
}

static gboolean apply_preset(const char *name, gpointer vals, gchar **error)
{
    return rbg_deblur_apply_preset(name, vals, error);
}

static void show_vals(gpointer d)
{
    set_widgets(d);
}

/* Entry 0 designs from the PSF; the others load a preset (its window and
 * boundary show in the widgets). */
static void preset_changed(GtkComboBox *combo, RbgDeblurDialog *d)
{
    if (d->updating || rbg_preset_menu_changed(combo, apply_preset, d->vals, show_vals, d,
                                               d->status_label, d->preview))
        return;
    /* entry 0: design from the PSF widgets again */
    d->vals->preset[0] = '\0';
    gtk_label_set_text(GTK_LABEL(d->status_label), "");
    invalidate(d);
}

static GtkWidget *presets_menu_new(RbgDeblurDialog *d)
{
    static char names[RBG_MAX_DEBLUR_PRESETS][128];
    GtkWidget *combo = gtk_combo_box_text_new();
    int n = rb_deblur_preset_list(names, RBG_MAX_DEBLUR_PRESETS);
    int active = 0;

    gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(combo), "(design from the PSF below)");
    for (int i = 0; i < n; i++) {
        gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(combo), names[i]);
        if (d->vals->preset[0] && strcmp(d->vals->preset, names[i]) == 0)
            active = i + 1;
    }
    if (d->vals->preset[0] && !active)
        d->vals->preset[0] = '\0';   /* last run's preset is gone (or was a path) */
    gtk_combo_box_set_active(GTK_COMBO_BOX(combo), active);
    gimp_help_set_help_data(combo,
        "Designed filters (NAME.deblur) from $RECBLUR_PRESET_PATH and the installed "
        "presets directory, e.g. deblur-gauss-1.5 for a Gaussian blur of sigma 1.5 px; "
        "make your own with `recblur design-deblur`", NULL);
    g_signal_connect(combo, "changed", G_CALLBACK(preset_changed), d);
    return combo;
}

gboolean rbg_deblur_dialog(gint32 drawable_id, RbgDeblurVals *v)
{
    RbgDeblurDialog d;
    memset(&d, 0, sizeof d);
    d.drawable_id = drawable_id;
    d.vals = v;

    GtkWidget *hbox;
    GtkWidget *dialog = rbg_dialog_shell_new("Deblur (2D IIR)", RBG_DEBLUR_PROC, drawable_id,
                                             v->preview, &hbox, &d.preview);
    g_signal_connect(d.preview, "invalidated", G_CALLBACK(preview_invalidated), &d);

    GtkWidget *table = rbg_options_table_new(hbox, 10, 3);
    int row = 0;

    d.preset_combo = presets_menu_new(&d);
    /* Mnemonics: alt+p is the preview's toggle and alt+c Cancel. */
    gimp_table_attach_aligned(GTK_TABLE(table), 0, row++, "P_reset:", 0.0, 0.5,
                              d.preset_combo, 2, FALSE);

    /* ranges and tooltips from the engine's operation table */
    const rb_op_desc *op = rb_op_get(RB_OP_DEBLUR);
    const rb_setting_desc *ps = rb_op_setting(op, "psf-sigma"), *nz = rb_op_setting(op, "noise"),
                          *wn = rb_op_setting(op, "window");
    d.sigma_adj = gimp_scale_entry_new(GTK_TABLE(table), 0, row++, "PSF _sigma:", 160, 7,
                                       v->psf_sigma, ps->ui_min, 5.0, 0.1, 0.5, 2, FALSE, ps->ui_min,
                                       ps->ui_max, rbg_setting_tooltip(ps), NULL);
    d.noise_adj = gimp_scale_entry_new(GTK_TABLE(table), 0, row++, "_Noise:", 160, 7,
                                       v->noise, nz->min, 0.05, 0.001, 0.005, 4, FALSE, nz->min, nz->max,
                                       rbg_setting_tooltip(nz), NULL);
    d.window_adj = gimp_scale_entry_new(GTK_TABLE(table), 0, row++, "_Window:", 160, 7,
                                        v->window, wn->min, 31, 1.0, 4.0, 0, FALSE, wn->min, wn->max,
                                        rbg_setting_tooltip(wn), NULL);
    g_signal_connect(d.sigma_adj, "value-changed", G_CALLBACK(adj_changed), &d);
    g_signal_connect(d.noise_adj, "value-changed", G_CALLBACK(adj_changed), &d);
    g_signal_connect(d.window_adj, "value-changed", G_CALLBACK(adj_changed), &d);

    d.boundary_combo = rbg_boundary_combo_new(&v->boundary, G_CALLBACK(int_combo_changed), &d,
        "What lies outside the image (or the selection's bounding box)");
    gimp_table_attach_aligned(GTK_TABLE(table), 0, row++, "_Boundary:", 0.0, 0.5,
                              d.boundary_combo, 2, FALSE);
    d.constant_adj = gimp_scale_entry_new(GTK_TABLE(table), 0, row++, "Cons_tant:", 160, 7,
                                          v->constant, 0.0, 1.0, 0.01, 0.1, 3, TRUE, 0.0, 1.0,
                                          "Value outside the image for the Constant boundary",
                                          NULL);
    g_signal_connect(d.constant_adj, "value-changed", G_CALLBACK(adj_changed), &d);

    d.linear_toggle = gtk_check_button_new_with_mnemonic("_Linear light");
    gimp_help_set_help_data(d.linear_toggle,
        "Deblur linear-light values (where optical blur happens); off deblurs the stored "
        "gamma-encoded values, as `recblur deblur` does", NULL);
    g_signal_connect(d.linear_toggle, "toggled", G_CALLBACK(linear_toggled), &d);
    gtk_table_attach(GTK_TABLE(table), d.linear_toggle, 1, 3, row, row + 1, GTK_FILL, GTK_FILL,
                     0, 0);
    row++;

    d.backend_combo = rbg_backend_combo_new(&v->backend, G_CALLBACK(int_combo_changed), &d);
    gimp_table_attach_aligned(GTK_TABLE(table), 0, row++, "Back _end:", 0.0, 0.5,
                              d.backend_combo, 2, FALSE);
    row = rbg_status_labels_attach(GTK_TABLE(table), row, 3, &d.backend_label, &d.status_label);

    set_widgets(&d);
    gboolean ok = rbg_dialog_run(dialog, d.preview, &v->preview);
    gtk_widget_destroy(dialog);
    return ok;
}
