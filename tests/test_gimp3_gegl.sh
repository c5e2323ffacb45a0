#!/bin/bash
# The GEGL operations in a real, headless GIMP 3: installed where users put
# them (~/.local/share/gegl-0.4/plug-ins, a throwaway HOME), applied through
# gimp-drawable-merge-new-filter from Script-Fu on every operation, boundary,
# gray, RGB, RGBA, 8- and 16-bit, perceptual and linear light; GIMP's export
# compared with the recblur CLI on the same input (one 16-bit step, or one
# 8-bit step for an 8-bit image), the Gaussian cases also with the float64
# reference (rb_host_reference), which shares no code path with the engine's
# execution. Then two calls that must fail and leave the layer as it was: a
# property value outside its range (GIMP refuses the call) and a signature the
# engine refuses (its message in GIMP's log).
#
# usage: test_gimp3_gegl.sh GIMP_CONSOLE GEGL_MODULE CLI PIXDIFF REFERENCE CONVERT TESTS_SRC WORKDIR
# Exits 77 (ctest: skipped) when GIMP 3 or xvfb-run is not installed.
set -u
GIMP=$1 MODULE=$2 CLI=$3 PIXDIFF=$4 REF=$5 CONVERT=$6 T=$7 W=$8
if ! command -v "$GIMP" >/dev/null 2>&1 || ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: GIMP 3 (gimp-console-3.0) or xvfb-run is not installed (Debian 13: bash scripts/test_debian13.sh)"
    exit 77
fi
. "$T/test_host_lib.sh"
host_workdir "$W"
H=$W/home
mkdir -p "$H/.local/share/gegl-0.4/plug-ins" "$H/run" && chmod 700 "$H/run" || exit 1
cp "$MODULE" "$H/.local/share/gegl-0.4/plug-ins/" || exit 1

# Inputs as tests/test_gegl_cli.sh makes them: 16-bit values that are not
# multiples of 257, no colour chunks (GIMP and the CLI then read the same
# encoded values), an alpha ramp 0.95 to 0.15 (never 0).
plain="-define png:exclude-chunk=gAMA,cHRM,sRGB,bKGD,date,tIME"
host_images "$CONVERT" $plain

# case NAME INPUT OP "PROPS" CLI-ARGS...: GIMP's result equals the CLI's.
# The Script-Fu calls are collected in cases.scm and run by one GIMP start.
names=()
: >cases.scm
case_() {
    local name=$1 in=$2 op=$3 props=$4
    shift 4
    echo "(rb3-case \"$W/$in\" \"$W/gimp_$name.png\" \"$op\" (list $props))" >>cases.scm
    printf '%s\n' "$in" "$@" >"args_$name"
    names+=("$name")
}
for b in zero clamp periodic mirror none; do
    case_ "blur_$b" rgb16.png recblur:gaussian-blur "\"sigma-x\" 6.0 \"sigma-y\" 2.5 \"boundary\" \"$b\" \"linear\" FALSE" \
        blur --sigma-x 6 --sigma-y 2.5 --boundary $b
    case_ "box_$b" gray16.png recblur:box "\"size-x\" 7 \"size-y\" 4 \"boundary\" \"$b\"" \
        box --size-x 7 --size-y 4 --boundary $b
done
case_ blur_constant rgba16.png recblur:gaussian-blur \
    "\"sigma-x\" 4.0 \"sigma-y\" 4.0 \"boundary\" \"constant\" \"constant\" 0.7 \"linear\" FALSE" \
    blur --sigma 4 --boundary constant=0.7
case_ blur_linear_alpha rgba16.png recblur:gaussian-blur "\"sigma-x\" 9.0 \"sigma-y\" 3.0 \"boundary\" \"mirror\" \"linear\" TRUE" \
    blur --sigma-x 9 --sigma-y 3 --boundary mirror --linear
case_ blur_accurate_8bit rgb8.png recblur:gaussian-blur "\"sigma-x\" 3.0 \"sigma-y\" 3.0 \"accurate\" TRUE \"linear\" FALSE" \
    blur --sigma 3 --accurate
case_ bspline3 rgb16.png recblur:bspline "\"degree\" \"3\" \"linear\" FALSE" bspline --degree 3
case_ bspline5_periodic gray16.png recblur:bspline "\"degree\" \"5\" \"boundary\" \"periodic\" \"linear\" FALSE" \
    bspline --degree 5 --boundary periodic
# a signature of DC gain 1.6 (a unit gain would hide a dropped one)
case_ filter_gain rgba16.png recblur:filter "\"signature\" \"0.4:0.75\" \"boundary\" \"clamp\" \"linear\" FALSE" \
    filter --signature "0.4: 0.75" --boundary clamp
case_ filter_causal_x gray16.png recblur:filter \
    "\"signature\" \"0.5:0.5\" \"direction\" \"causal\" \"axes\" \"x\" \"boundary\" \"periodic\" \"linear\" FALSE" \
    filter --signature "0.5: 0.5" --direction causal --axes x --boundary periodic
case_ box_even_alpha rgba16.png recblur:box "\"size-x\" 6 \"size-y\" 1 \"boundary\" \"mirror\"" \
    box --size-x 6 --size-y 1 --boundary mirror
case_ deblur rgb16.png recblur:deblur "\"psf-sigma\" 1.5 \"noise\" 0.01 \"boundary\" \"mirror\"" \
    deblur --psf-sigma 1.5 --noise 0.01 --boundary mirror
# Must fail: sigma-x below its range (GIMP checks it against the property),
# and an unstable signature (the engine refuses it at run time).
echo "(rb3-refused \"range\" \"$W/rgb16.png\" \"$W/gimp_range.png\" \"recblur:gaussian-blur\" (list \"sigma-x\" -3.0))" >>cases.scm
echo "(rb3-refused \"unstable\" \"$W/rgb16.png\" \"$W/gimp_unstable.png\" \"recblur:filter\" (list \"signature\" \"0.5:1.5\"))" >>cases.scm

# One GIMP start. --quit: GIMP 3 stops at a failing batch command and then,
# without it, keeps running "as a background process" until killed.
env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$H" XDG_RUNTIME_DIR="$H/run" \
    RECBLUR_PRESET_PATH="${RECBLUR_PRESET_PATH:-}" \
    timeout -k 10 "${GIMP_TIMEOUT:-400}" xvfb-run -a "$GIMP" -i -n -d -f --quit \
    --batch-interpreter=plug-in-script-fu-eval \
    -b "(begin (load \"$T/test_gimp3_gegl.scm\") (load \"$W/cases.scm\") (gimp-message \"rb3 all cases ran\"))" \
    -b "(gimp-quit 0)" >gimp.log 2>&1
echo "--- GIMP's log: $W/gimp.log (exit $?)"
grep -E "rb3|batch command|recblur|unstable" gimp.log
checks=$((checks + 1))
grep -q "rb3 all cases ran" gimp.log || bad "the batch did not finish (see $W/gimp.log)"

for name in "${names[@]}"; do
    checks=$((checks + 1))
    mapfile -t a <"args_$name"
    in=${a[0]}
    # the CLI's output at the input's depth (deblur keeps it and takes no --depth)
    tol=1 depth=(--depth 16)
    case $in in *8.png) tol=257 depth=(--depth 8) ;; esac
    [ "${a[1]}" = deblur ] && depth=()
    if [ ! -s "gimp_$name.png" ]; then
        bad "$name: GIMP wrote no gimp_$name.png"
    elif ! "$CLI" "${a[@]:1}" "${depth[@]}" "$in" "cli_$name.png" 2>"cli_$name.err"; then
        bad "$name: recblur ${a[*]:1} failed: $(cat "cli_$name.err")"
    elif ! out=$("$PIXDIFF" "gimp_$name.png" "cli_$name.png" $tol); then
        bad "$name: GIMP and the CLI differ: $out"
    elif ! "$PIXDIFF" "gimp_$name.png" "$in" $tol --differ >/dev/null; then
        bad "$name: GIMP's result equals the input (nothing was filtered)"
    else
        echo "ok $name ($out)"
    fi
done

# The Gaussian cases on RGB against the float64 reference (2 16-bit steps:
# the engine works in float32, GIMP rounds to 16 bits).
for b in zero clamp periodic mirror none; do
    checks=$((checks + 1))
    if ! "$CONVERT" "gimp_blur_$b.png" "gimp_blur_$b.pfm" || ! "$CONVERT" rgb16.png in.pfm; then
        bad "blur_$b: no PFM planes"
    elif ! "$REF" blur 6 2.5 "$b" in.pfm "ref_$b.pfm"; then
        bad "blur_$b: the reference failed"
    elif ! out=$("$REF" compare "gimp_blur_$b.pfm" "ref_$b.pfm" 3.1e-5); then
        bad "blur_$b: GIMP's result differs from the float64 reference: $out"
    else
        echo "ok reference blur_$b ($out)"
    fi
done

# The refused calls: the layer as it was, and why.
for name in range unstable; do
    checks=$((checks + 1))
    if ! grep -q "rb3 $name: " gimp.log; then
        bad "$name: the case did not run"
    elif [ "$name" = range ] && ! grep -q "rb3 range: refused" gimp.log; then
        bad "range: GIMP accepted sigma-x -3"
    elif ! out=$("$PIXDIFF" "gimp_$name.png" rgb16.png 0); then
        bad "$name: the refused call changed the layer: $out"
    else
        echo "ok $name: refused (by GIMP: range; by the engine: unstable), layer unchanged"
    fi
done
checks=$((checks + 1))
grep -q "unstable" gimp.log || bad "unstable: no engine message in GIMP's log"

host_done
