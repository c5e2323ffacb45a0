#!/bin/bash
# The plug-in's dialog, for real: GIMP under Xvfb runs plug-in-recblur
# RUN-INTERACTIVE; we wait for the "Recursive Blur" window, let the preview
# render, take a screenshot (WORK_DIR/gimp-dialog.png, the artifact behind
# docs/gimp-dialog.png), press OK, and check that the defaults were applied
# (Gaussian sigma 5, clamp, linear light) against the CLI on the decoded input.
# usage: test_gimp_dialog.sh PLUGIN CLI TESTS_SRC_DIR WORK_DIR IMAGE
set -u
if [ -z "${RB_IN_XVFB:-}" ]; then
    exec env RB_IN_XVFB=1 timeout 300 xvfb-run -a -s "-screen 0 1024x768x24" bash "$0" "$@"
fi
PLUGIN=$1 CLI=$2 T=$3 W=$4 IN=$5
. "$T/test_gimp_lib.sh"
O=$W/out
CHECK="$PY $T/gimp_check.py"
gimp_profile "$W/profile" "$PLUGIN"
rm -rf "$O" && mkdir -p "$O"

gimp_run -b "(begin (load \"$T/test_gimp.scm\") (recblur-test-dialog \"$IN\" \"$O/dialog.png\"))" \
         -b '(gimp-quit 0)' >"$W/gimp.log" 2>&1 &
GIMP_PID=$!

WID=$(timeout 60 xdotool search --sync --name '^Recursive Blur$' 2>/dev/null | head -1)
if [ -z "$WID" ]; then
    kill "$GIMP_PID" 2>/dev/null
    cat "$W/gimp.log"
    fail "no 'Recursive Blur' window within 60 s"
fi
sleep 3   # the preview updates 200 ms after the last change; give it time to filter
import -window "$WID" -define png:color-type=2 "$W/gimp-dialog.png" || fail "screenshot failed"
echo "screenshot: $W/gimp-dialog.png ($(identify -format '%wx%h' "$W/gimp-dialog.png"))"
# Press OK (alt+o: the "_OK" mnemonic); without a window manager a key can
# get lost, so try again while GIMP still runs.
for try in 1 2 3; do
    xdotool key --window "$WID" alt+o 2>/dev/null
    for i in $(seq 20); do kill -0 "$GIMP_PID" 2>/dev/null && sleep 0.5; done
    kill -0 "$GIMP_PID" 2>/dev/null || break
done
wait "$GIMP_PID"
grep -E "^batch command|recblur" "$W/gimp.log"
grep -q "^batch command executed successfully" "$W/gimp.log" || fail "the interactive batch did not succeed"

rc=0
$CHECK srgb2lin "$IN" "$O/in_lin.pfm" || rc=1
"$CLI" blur --sigma 5 --boundary clamp "$O/in_lin.pfm" "$O/ref_lin.pfm" || rc=1
$CHECK changed "$O/dialog.png" "$IN" 1.0 || rc=1
$CHECK lin2close8 "$O/dialog.png" "$O/ref_lin.pfm" || rc=1
[ $rc = 0 ] && echo "test_gimp_dialog: all checks passed"
exit $rc
