#!/bin/bash
# The plug-in's dialog, for real: GIMP under Xvfb runs plug-in-recblur
# RUN-INTERACTIVE. We wait for the "Recursive Blur" window, choose the preset
# "tileable-blur" (sigma 8, periodic, accurate) in the preset menu, take a
# screenshot (WORK_DIR/gimp-dialog.png, the source of docs/gimp-dialog.png),
# type sigma 12 into Sigma X (the chain button is locked, so Y follows), press
# OK. Checks: the result is the CLI's sigma 12 periodic accurate blur of the
# decoded input (the dialog filters in linear light by default), and a
# RUN-WITH-LAST-VALS call afterwards repeats it exactly, in the same session
# and in a new one (the values saved in the profile); a garbled saved file is
# ignored with a message.
# Clicks are at fixed offsets in the dialog (Debian 12's GTK 2 theme and fonts).
# usage: test_gimp_dialog.sh PLUGIN CLI TESTS_SRC_DIR WORK_DIR IMAGE
set -u
PLUGIN=$1 CLI=$2 T=$3 W=$4 IN=$5
. "$T/test_gimp_lib.sh"
gimp_xvfb 300 "$0" "$@"
gimp_setup "$W/gimp-dialog.png"

# Menu entry of tileable-blur: "(custom)", then the presets the plug-in can
# run (blur/filter/bspline).
N=$(gimp_preset_position "blur|filter|bspline" tileable-blur) || exit 1
gimp_start "(recblur-test-dialog \"$IN\" \"$O\")"

WID=$(timeout 60 xdotool search --sync --name '^Recursive Blur$' 2>/dev/null | head -1)
if [ -z "$WID" ]; then
    kill "$GIMP_PID" 2>/dev/null
    cat "$W/gimp.log"
    fail "no 'Recursive Blur' window within 60 s"
fi
sleep 2
# Preset menu (opens a popup on "(custom)"; Down N times, Return).
xdotool mousemove --window "$WID" 550 28 click 1
sleep 1
for i in $(seq "$N"); do xdotool key Down; done
xdotool key Return
sleep 3    # the preview updates 200 ms after the last change, then filters
# Without a window manager the area under the closed popup is repainted only
# when the pointer passes over it.
xdotool mousemove --window "$WID" 500 62 sleep 0.3 mousemove --window "$WID" 600 62 sleep 0.3 \
        mousemove --window "$WID" 100 440
sleep 1
import -window "$WID" -define png:color-type=2 "$W/gimp-dialog.png" || fail "screenshot failed"
echo "screenshot: $W/gimp-dialog.png ($(identify -format '%wx%h' "$W/gimp-dialog.png"))"
# Sigma X: select the text, type 12, Tab to commit.
xdotool mousemove --window "$WID" 607 92 click --repeat 3 1
sleep 0.5
xdotool key ctrl+a
xdotool type "12"
xdotool key Tab
sleep 1
# OK (alt+o: the "_OK" mnemonic); without a window manager a key can get lost,
# so try again while the dialog is still there.
for try in 1 2 3; do
    xdotool key --window "$WID" alt+o 2>/dev/null
    sleep 2
    xdotool search --name '^Recursive Blur$' >/dev/null 2>&1 || break
done
wait "$GIMP_PID"
gimp_verdict "ok"

run $CHECK srgb2lin "$IN" "$O/in_lin.pfm"
cli blur --sigma 12 --accurate --boundary periodic "$O/in_lin.pfm" "$O/ref_lin.pfm"
run $CHECK changed "$O/dialog.png" "$IN" 1.0
run $CHECK lin2close8 "$O/dialog.png" "$O/ref_lin.pfm"
run $CHECK same "$O/last_vals.png" "$O/dialog.png"

# Across a restart: OK saved the values in the profile as preset text; a new
# GIMP session's RUN-WITH-LAST-VALS reads them and repeats the result.
SAVED=$W/profile/gimp2/recblur-last.preset
echo "--- $SAVED"; cat "$SAVED"
grep -qx "sigma-x = 12" "$SAVED" || { echo "FAIL: $SAVED does not hold sigma-x = 12"; rc=1; }
gimp_batch "(recblur-test-last-vals \"$IN\" \"$O/restarted.png\")"
gimp_verdict "ok"
run $CHECK same "$O/restarted.png" "$O/dialog.png"
# A garbled file: ignored with a message naming it, the table's defaults used
# (sigma 5, the blur's default edges, linear light).
printf 'op = blur\nsigma-x = 12x\n' >"$SAVED"
gimp_batch "(recblur-test-last-vals \"$IN\" \"$O/garbled.png\")"
gimp_verdict "ok"
grep -q "ignoring the saved settings.*recblur-last.preset" "$W/gimp.log" ||
    { echo "FAIL: no message about the garbled settings file"; rc=1; }
cli blur --sigma 5 "$O/in_lin.pfm" "$O/ref_default.pfm"
run $CHECK lin2close8 "$O/garbled.png" "$O/ref_default.pfm"
gimp_done test_gimp_dialog
