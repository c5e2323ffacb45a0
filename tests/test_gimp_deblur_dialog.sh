#!/bin/bash
# The deblur dialog, for real: GIMP under Xvfb runs plug-in-recblur-deblur
# RUN-INTERACTIVE twice. First we design from a PSF: PSF sigma 2.5, window 6
# typed into the dialog (through the label mnemonics), screenshot
# (WORK_DIR/gimp-deblur-dialog.png), OK. Then we pick the preset
# deblur-gauss-2 from the preset menu and press OK. Checks: both results equal
# `recblur deblur` with those settings (within one 8-bit step), and a
# RUN-WITH-LAST-VALS call afterwards repeats the second exactly.
# Keys go through XTEST to the window under the pointer (no window manager).
# usage: test_gimp_deblur_dialog.sh PLUGIN CLI TESTS_SRC_DIR WORK_DIR IMAGE
set -u
PLUGIN=$1 CLI=$2 T=$3 W=$4 IN=$5
. "$T/test_gimp_lib.sh"
gimp_xvfb 400 "$0" "$@"
gimp_setup "$W/gimp-deblur-dialog.png"

# Menu entry of deblur-gauss-2: entry 0 designs, then the .deblur presets
# (rb_deblur_preset_list).
N=$(gimp_preset_position deblur deblur-gauss-2) || exit 1
gimp_start "(recblur-test-deblur-dialog \"$IN\" \"$O\")"

# wait_dialog: the id of a newly mapped "Deblur (2D IIR)" window.
wait_dialog() {
    local wid
    wid=$(timeout 120 xdotool search --sync --onlyvisible --name '^Deblur \(2D IIR\)$' 2>/dev/null | head -1)
    if [ -z "$wid" ]; then
        kill "$GIMP_PID" 2>/dev/null
        cat "$W/gimp.log" >&2
        fail "no 'Deblur (2D IIR)' window within 120 s"
    fi
    echo "$wid"
}
# press_ok WID: alt+o (the "_OK" mnemonic) until the window is gone.
press_ok() {
    for try in 1 2 3 4 5; do
        xdotool mousemove --window "$1" 100 100 key alt+o 2>/dev/null
        sleep 2
        xdotool search --onlyvisible --name '^Deblur \(2D IIR\)$' 2>/dev/null | grep -qx "$1" || return 0
    done
    fail "the dialog did not close on alt+o"
}
# type_field WID KEY TEXT: focus a field by its label's mnemonic, replace its text.
type_field() {
    xdotool mousemove --window "$1" 100 100 key "$2" sleep 0.3 key ctrl+a sleep 0.2 type "$3"
    xdotool key Tab
    sleep 0.5
}

WID=$(wait_dialog)
sleep 2
type_field "$WID" alt+s 2.5
type_field "$WID" alt+w 6
sleep 3    # the preview updates after the last change, then filters
import -window "$WID" -define png:color-type=2 "$W/gimp-deblur-dialog.png" || fail "screenshot failed"
echo "screenshot: $W/gimp-deblur-dialog.png ($(identify -format '%wx%h' "$W/gimp-deblur-dialog.png"))"
press_ok "$WID"

WID=$(wait_dialog)
sleep 2
xdotool mousemove --window "$WID" 100 100 key alt+r
sleep 0.5
for i in $(seq "$N"); do xdotool key Down; sleep 0.2; done
sleep 2
press_ok "$WID"

wait "$GIMP_PID"
gimp_verdict "ok"

cli deblur --psf-sigma 2.5 --window 6 "$IN" "$O/ref_design.png"
cli deblur --preset deblur-gauss-2 "$IN" "$O/ref_preset.png"
run $CHECK changed "$O/dialog_design.png" "$IN" 1.0
run $CHECK close8 "$O/dialog_design.png" "$O/ref_design.png"
run $CHECK close8 "$O/dialog_preset.png" "$O/ref_preset.png"
run $CHECK same "$O/last_vals.png" "$O/dialog_preset.png"
gimp_done test_gimp_deblur_dialog
