/* The "Recursive Blur" dialog (gimpui-2.0, GTK 2): preview on the left, the
 * options on the right. Every widget writes straight into RbgVals and asks the
 * preview to update; filter design is left to the engine. */
#include <stdio.h>
#include <string.h>
#include "rbg_dialog.h"

static void update_sensitivity(RbgDialog *d);

/* Labels, tooltips and ranges come from the engine's operation table. */
static const rb_setting_desc *setting(rb_op_id op, const char *key)
{
    return rb_op_setting(rb_op_get(op), key);
}

/* "Blur radius (sigma):" with a mnemonic on its first letter. */
static const char *label(const rb_setting_desc *d)
{
    static char text[128];
    snprintf(text, sizeof text, "_%s:", d->label);
    return text;
}

static void invalidate(RbgDialog *d)
{
    update_sensitivity(d);
    if (!d->updating) {
        rbg_presets_menu_forget(d);
        gimp_preview_invalidate(GIMP_PREVIEW(d->preview));
    }
}

static void sigma_changed(GtkAdjustment *adj, RbgDialog *d)
{
    if (d->updating)
        return;
    gdouble value = gtk_adjustment_get_value(adj);
    gboolean is_x = (GtkObject *)adj == d->sigma_x_adj;
    if (is_x) d->vals->sigma_x = value; else d->vals->sigma_y = value;
    if (gimp_chain_button_get_active(GIMP_CHAIN_BUTTON(d->chain))) {
        /* Locked: the other sigma follows (without re-entering here). */
        d->updating = TRUE;
        gtk_adjustment_set_value(GTK_ADJUSTMENT(is_x ? d->sigma_y_adj : d->sigma_x_adj), value);
        d->updating = FALSE;
        d->vals->sigma_x = d->vals->sigma_y = value;
    }
    invalidate(d);
}

static void chain_toggled(GimpChainButton *chain, RbgDialog *d)
{
    d->vals->lock_sigma = gimp_chain_button_get_active(chain);
}

static void constant_changed(GtkAdjustment *adj, RbgDialog *d)
{
    if (d->updating)
        return;
    d->vals->constant = gtk_adjustment_get_value(adj);
    invalidate(d);
}

/* Combos and toggles carry a pointer to their gint field in RbgVals. */
static void int_combo_changed(GtkWidget *combo, RbgDialog *d)
{
    gint *field = g_object_get_data(G_OBJECT(combo), RBG_FIELD_KEY);
    gint value;
    if (d->updating || !gimp_int_combo_box_get_active(GIMP_INT_COMBO_BOX(combo), &value))
        return;
    if (field == &d->vals->operation) {
        /* the boundary follows the operation's default until the user picks one */
        RbgVals before, after;
        rbg_vals_defaults_for(&before, *field);
        rbg_vals_defaults_for(&after, value);
        if (d->vals->boundary == before.boundary && before.boundary != after.boundary) {
            d->vals->boundary = after.boundary;
            d->updating = TRUE;
            gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->boundary_combo), after.boundary);
            d->updating = FALSE;
        }
    }
    *field = value;
    invalidate(d);
}

static void toggle_changed(GtkToggleButton *toggle, RbgDialog *d)
{
    gint *field = g_object_get_data(G_OBJECT(toggle), RBG_FIELD_KEY);
    if (d->updating)
        return;
    *field = gtk_toggle_button_get_active(toggle);
    invalidate(d);
}

static void signature_changed(GtkEntry *entry, RbgDialog *d)
{
    if (d->updating)
        return;
    g_strlcpy(d->vals->signature, gtk_entry_get_text(entry), sizeof d->vals->signature);
    invalidate(d);
}

static GtkWidget *int_combo(RbgDialog *d, gint *field, const char *tooltip, ...)
{
    va_list ap;
    va_start(ap, tooltip);
    GtkWidget *combo = rbg_int_combo_valist(field, G_CALLBACK(int_combo_changed), d, tooltip, ap);
    va_end(ap);
    return combo;
}

static GtkWidget *toggle(RbgDialog *d, const char *label, gint *field, const char *tooltip)
{
    GtkWidget *t = gtk_check_button_new_with_mnemonic(label);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(t), *field);
    g_object_set_data(G_OBJECT(t), RBG_FIELD_KEY, field);
    g_signal_connect(t, "toggled", G_CALLBACK(toggle_changed), d);
    gimp_help_set_help_data(t, tooltip, NULL);
    return t;
}

/* A table of options and its next free row. */
typedef struct {
    GtkWidget *table;
    int row;
} Rows;

/* Where a setting goes: the table's flag, not a list here, decides. */
static Rows *rows_for(Rows *main_rows, Rows *advanced, const rb_setting_desc *desc)
{
    return desc->flags & RB_SETTING_ADVANCED ? advanced : main_rows;
}

/* The check button of a bool setting on the next row of r, labelled as the table says. */
static GtkWidget *table_toggle(RbgDialog *d, Rows *r, const rb_setting_desc *desc, gint *field)
{
    char text[128];
    snprintf(text, sizeof text, "_%s", desc->label);
    GtkWidget *t = toggle(d, text, field, desc->help);
    gtk_table_attach(GTK_TABLE(r->table), t, 1, 4, r->row, r->row + 1, GTK_FILL, GTK_FILL, 0, 0);
    r->row++;
    return t;
}

/* A combo of a choice setting's values, labelled as the table labels them,
 * in the main table or the advanced one as the setting's flag says. */
static GtkWidget *table_choice(RbgDialog *d, Rows *main_rows, Rows *advanced,
                               const rb_setting_desc *desc, gint *field)
{
    Rows *r = rows_for(main_rows, advanced, desc);
    GtkWidget *combo = rbg_choice_combo_new(desc->choices, field, G_CALLBACK(int_combo_changed),
                                            d, desc->help);
    gimp_table_attach_aligned(GTK_TABLE(r->table), 0, r->row++, label(desc), 0.0, 0.5, combo, 3,
                              FALSE);
    return combo;
}

void rbg_dialog_set_widgets(RbgDialog *d)
{
    const RbgVals *v = d->vals;

    d->updating = TRUE;   /* the widgets' signals must not write back half-set values */
    if (v->sigma_x != v->sigma_y)
        gimp_chain_button_set_active(GIMP_CHAIN_BUTTON(d->chain), FALSE);
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->sigma_x_adj), v->sigma_x);
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->sigma_y_adj), v->sigma_y);
    gtk_adjustment_set_value(GTK_ADJUSTMENT(d->constant_adj), v->constant);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->op_combo), v->operation);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->boundary_combo), v->boundary);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->backend_combo), v->backend);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->mask_combo), v->mask);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->direction_combo), v->direction);
    gimp_int_combo_box_set_active(GIMP_INT_COMBO_BOX(d->axes_combo), v->axes);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(d->accurate_toggle), v->accurate);
    gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(d->linear_toggle), v->linear);
    gtk_entry_set_text(GTK_ENTRY(d->signature_entry), v->signature);
    d->updating = FALSE;
    update_sensitivity(d);
}

static void update_sensitivity(RbgDialog *d)
{
    const RbgVals *v = d->vals;
    gboolean gauss = v->operation == RBG_OP_GAUSSIAN;
    gboolean sig = v->operation == RBG_OP_SIGNATURE;

    gimp_scale_entry_set_sensitive(d->sigma_x_adj, gauss);
    gimp_scale_entry_set_sensitive(d->sigma_y_adj, gauss);
    gtk_widget_set_sensitive(d->chain, gauss);
    gtk_widget_set_sensitive(d->accurate_toggle, gauss);
    gtk_widget_set_sensitive(d->signature_entry, sig);
    gtk_widget_set_sensitive(d->direction_combo, sig);
    gtk_widget_set_sensitive(d->axes_combo, sig);
    gimp_scale_entry_set_sensitive(d->constant_adj, v->boundary == RB_BOUNDARY_CONSTANT);
}

gboolean rbg_dialog(gint32 drawable_id, RbgVals *v)
{
    RbgDialog d;
    memset(&d, 0, sizeof d);
    d.drawable_id = drawable_id;
    d.vals = v;

    GtkWidget *hbox;
    GtkWidget *dialog = rbg_dialog_shell_new("Recursive Blur", RBG_PROC, drawable_id, v->preview,
                                             &hbox, &d.preview);
    gimp_help_set_help_data(gimp_preview_get_area(GIMP_PREVIEW(d.preview)),
        "Regions up to 1 megapixel are previewed exactly. Larger ones filter only the "
        "visible area plus a margin: there the preview of periodic/mirror boundaries "
        "near the image edge, and of long-tailed custom filters, is approximate. "
        "The final result is always exact.", NULL);
    g_signal_connect(d.preview, "invalidated", G_CALLBACK(rbg_preview_invalidated), &d);

    /* Options ------------------------------------------------------------ */
    /* Artist words in the main table; the settings the operation table flags
     * RB_SETTING_ADVANCED (engine terms) in the "Advanced" expander. */
    Rows main_rows = {rbg_options_table_new(hbox, 14, 4), 0};
    GtkWidget *expander = gtk_expander_new_with_mnemonic("_Advanced");
    Rows adv_rows = {rbg_options_table_new(expander, 5, 4), 0};
    GtkWidget *table = main_rows.table;
    int row = 0;

    d.preset_combo = rbg_presets_menu_new(&d);
    gimp_table_attach_aligned(GTK_TABLE(table), 0, main_rows.row++, "_Preset:", 0.0, 0.5,
                              d.preset_combo, 3, FALSE);

    d.op_combo = int_combo(&d, &v->operation, "What to compute",
                           rb_op_get(RB_OP_BLUR)->label, RBG_OP_GAUSSIAN,
                           "B-spline prefilter, cubic", RBG_OP_BSPLINE3,
                           "B-spline prefilter, quintic", RBG_OP_BSPLINE5,
                           rb_op_get(RB_OP_FILTER)->label, RBG_OP_SIGNATURE, NULL);
    gimp_table_attach_aligned(GTK_TABLE(table), 0, main_rows.row++, "O_peration:", 0.0, 0.5,
                              d.op_combo, 3, FALSE);

    const rb_setting_desc *sx = setting(RB_OP_BLUR, "sigma-x"), *sy = setting(RB_OP_BLUR, "sigma-y");
    Rows *r = rows_for(&main_rows, &adv_rows, sx);
    row = r->row;
    d.sigma_x_adj = gimp_scale_entry_new(GTK_TABLE(r->table), 0, r->row++, label(sx), 160, 7,
                                         v->sigma_x, 0.0, sx->ui_max, 0.5, 5.0, 2, FALSE,
                                         0.0, sx->max, rbg_setting_tooltip(sx), NULL);
    d.sigma_y_adj = gimp_scale_entry_new(GTK_TABLE(r->table), 0, r->row++, label(sy), 160, 7,
                                         v->sigma_y, 0.0, sy->ui_max, 0.5, 5.0, 2, FALSE,
                                         0.0, sy->max, rbg_setting_tooltip(sy), NULL);
    d.chain = gimp_chain_button_new(GIMP_CHAIN_RIGHT);
    gimp_chain_button_set_active(GIMP_CHAIN_BUTTON(d.chain), v->lock_sigma);
    gtk_table_attach(GTK_TABLE(r->table), d.chain, 3, 4, row, row + 2, GTK_SHRINK, GTK_FILL, 0, 0);
    g_signal_connect(d.chain, "toggled", G_CALLBACK(chain_toggled), &d);
    g_signal_connect(d.sigma_x_adj, "value-changed", G_CALLBACK(sigma_changed), &d);
    g_signal_connect(d.sigma_y_adj, "value-changed", G_CALLBACK(sigma_changed), &d);

    const rb_setting_desc *bd = setting(RB_OP_BLUR, "boundary");
    r = rows_for(&main_rows, &adv_rows, bd);
    d.boundary_combo = rbg_boundary_combo_new(&v->boundary, G_CALLBACK(int_combo_changed), &d,
        "What lies outside the image (or the selection's bounding box). Exact, not padded.");
    gimp_table_attach_aligned(GTK_TABLE(r->table), 0, r->row++, label(bd), 0.0, 0.5,
                              d.boundary_combo, 3, FALSE);
    d.constant_adj = gimp_scale_entry_new(GTK_TABLE(r->table), 0, r->row++, "Edge co_lor:", 160, 7,
                                          v->constant, 0.0, 1.0, 0.01, 0.1, 3, TRUE, 0.0, 1.0,
                                          "The value beyond the edges for the Color edge, 0..1, "
                                          "used for every channel (alpha too)", NULL);
    g_signal_connect(d.constant_adj, "value-changed", G_CALLBACK(constant_changed), &d);

    d.linear_toggle = table_toggle(&d, rows_for(&main_rows, &adv_rows, setting(RB_OP_BLUR, "linear")),
                                   setting(RB_OP_BLUR, "linear"), &v->linear);
    d.accurate_toggle = table_toggle(&d, rows_for(&main_rows, &adv_rows, setting(RB_OP_BLUR, "accurate")),
                                     setting(RB_OP_BLUR, "accurate"), &v->accurate);

    const rb_setting_desc *sig = setting(RB_OP_FILTER, "signature");
    r = rows_for(&main_rows, &adv_rows, sig);
    d.signature_entry = gtk_entry_new();
    gtk_entry_set_max_length(GTK_ENTRY(d.signature_entry), RBG_SIGNATURE_MAX - 1);
    gtk_entry_set_text(GTK_ENTRY(d.signature_entry), v->signature);
    gimp_help_set_help_data(d.signature_entry, sig->help, NULL);
    g_signal_connect(d.signature_entry, "changed", G_CALLBACK(signature_changed), &d);
    gimp_table_attach_aligned(GTK_TABLE(r->table), 0, r->row++, label(sig), 0.0, 0.5,
                              d.signature_entry, 3, FALSE);

    d.direction_combo = table_choice(&d, &main_rows, &adv_rows, setting(RB_OP_FILTER, "direction"),
                                     &v->direction);
    d.axes_combo = table_choice(&d, &main_rows, &adv_rows, setting(RB_OP_FILTER, "axes"), &v->axes);
    d.mask_combo = table_choice(&d, &main_rows, &adv_rows, setting(RB_OP_BLUR, "mask"), &v->mask);
    d.backend_combo = table_choice(&d, &main_rows, &adv_rows, setting(RB_OP_BLUR, "backend"),
                                   &v->backend);

    gtk_table_attach(GTK_TABLE(table), expander, 0, 4, main_rows.row, main_rows.row + 1,
                     GTK_FILL, GTK_FILL, 0, 0);
    main_rows.row++;
    rbg_status_labels_attach(GTK_TABLE(table), main_rows.row, 4, &d.backend_label, &d.status_label);

    rbg_dialog_set_widgets(&d);
    gboolean ok = rbg_dialog_run(dialog, d.preview, &v->preview);
    v->lock_sigma = gimp_chain_button_get_active(GIMP_CHAIN_BUTTON(d.chain));
    gtk_widget_destroy(dialog);
    return ok;
}
