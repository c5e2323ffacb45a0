#!/bin/sh
# The ImageMagick module through the real `convert` against the recblur CLI on the
# same input: every boundary, every op, positional and -define forms, multi-image
# lists, alpha, gray, 8- and 16-bit input. Pixels must agree to one 16-bit step
# (both run the same engine; the step allows for a different rounding path), and
# each result must differ from its input (the filter really ran).
#
# usage: test_magick_cli.sh CONVERT RECBLUR_CLI PIXDIFF WORKDIR
# MAGICK_CODER_FILTER_PATH must point at the directory with recblur.so/.la.
set -u
CONVERT=$1
CLI=$2
PIXDIFF=$3
W=$4
. "$(dirname "$0")/test_host_lib.sh"
host_workdir "$W"

# libltdl loads LIBDIR/recblur.so first: the build tree's .la must name its own
# directory, or an installed (older) module would be tested instead of this one.
checks=$((checks + 1))
la="${MAGICK_CODER_FILTER_PATH:-}/recblur.la"
if grep -qx "libdir='${MAGICK_CODER_FILTER_PATH:-}'" "$la" 2>/dev/null; then
    echo "ok recblur.la names its own directory"
else
    bad "$la does not say libdir='${MAGICK_CODER_FILTER_PATH:-}'"
fi

host_images "$CONVERT"
"$CONVERT" rose: -resize '37x29!' -depth 16 small16.png || exit 1

# against_cli TOL NAME INPUT "MODULE ARGS" CLI-ARGS...: the module's output
# equals the CLI's to TOL 16-bit steps, and differs from its input.
against_cli() {
    tol=$1 name=$2 in=$3 margs=$4
    shift 4
    checks=$((checks + 1))
    if ! "$CONVERT" "$in" -process "recblur $margs" -depth 16 "im_$name.png" 2>"im_$name.err"; then
        bad "$name: convert -process 'recblur $margs' failed: $(cat "im_$name.err")"
        return
    fi
    cli_agrees "$name" "$in" "$tol" "im_$name.png" "$@" && echo "ok $name ($out)"
}

# same NAME INPUT "MODULE ARGS" CLI-ARGS...: within one 16-bit step of the CLI
# (both run the same engine; the step allows for a different rounding path).
same() { against_cli 1 "$@"; }

for b in zero constant=0.25 clamp periodic mirror none; do
    same "blur_$b" rgb16.png "sigma=3.5 boundary=$b" blur --sigma 3.5 --boundary "$b"
done
same blur_xy rgb16.png "sigma-x=6 sigma-y=1.5 boundary=mirror" blur --sigma-x 6 --sigma-y 1.5 --boundary mirror
same blur_big rgb16.png "sigma=40 boundary=periodic" blur --sigma 40 --boundary periodic
same blur_accurate rgb16.png "sigma=2 accurate=yes boundary=clamp" blur --sigma 2 --accurate --boundary clamp
same positional rgb16.png "5 periodic" blur --sigma 5 --boundary periodic
same positional_sigma small16.png "2.5 clamp" blur --sigma 2.5 --boundary clamp
for b in zero clamp periodic mirror; do
    same "bspline3_$b" rgb16.png "op=bspline3 boundary=$b" bspline --degree 3 --boundary "$b"
    same "bspline5_$b" rgb16.png "op=bspline5 boundary=$b" bspline --degree 5 --boundary "$b"
done
for b in zero constant=0.5 clamp periodic mirror none; do
    same "filter_$b" rgb16.png "signature=\"0.2: 0.7\" boundary=$b" filter --signature "0.2: 0.7" --boundary "$b"
done
same filter_order2 rgb16.png "op=filter signature=0.16:1.2,-0.36 boundary=mirror" filter --signature "0.16: 1.2, -0.36" --boundary mirror
for b in zero constant=0.75 clamp periodic mirror; do
    same "box_$b" rgb16.png "op=sat-box size=7 boundary=$b" box --size 7 --boundary "$b"
done
same box_xy rgb16.png "size-x=9 size-y=4 boundary=clamp" box --size-x 9 --size-y 4 --boundary clamp
same alpha rgba16.png "sigma=4 boundary=clamp" blur --sigma 4 --boundary clamp
same alpha_periodic rgba16.png "sigma=2 boundary=periodic" blur --sigma 2 --boundary periodic
# masks: the alpha channel as the colour's weights, and a gray mask file (the
# alpha ramp, of rgb16's size), as a word and as a -define
same mask_alpha rgba16.png "sigma=3 mask=alpha boundary=clamp" blur --sigma 3 --mask alpha --boundary clamp
same mask_file rgb16.png "sigma=3 mask=alpha16.png boundary=mirror" blur --sigma 3 --mask alpha16.png --boundary mirror
same mask_box rgb16.png "op=box size=5 mask=alpha16.png boundary=zero" box --size 5 --mask alpha16.png --boundary zero
checks=$((checks + 1))
if "$CONVERT" rgb16.png -define recblur:mask=alpha16.png -process "recblur sigma=3 boundary=mirror" -depth 16 \
       im_mask_define.png 2>im_mask_define.err &&
   "$PIXDIFF" im_mask_define.png im_mask_file.png 0 >/dev/null; then
    echo "ok -define recblur:mask=FILE is mask=FILE"
else
    bad "-define recblur:mask=FILE: $(cat im_mask_define.err)"
fi
same gray gray16.png "sigma=3 boundary=mirror" blur --sigma 3 --boundary mirror
same gray_box gray16.png "size=5 boundary=zero" box --size 5 --boundary zero
same linear rgb16.png "sigma=4 linear=yes boundary=clamp" blur --sigma 4 --linear --boundary clamp
same linear_alpha rgba16.png "sigma=4 linear=yes boundary=mirror" blur --sigma 4 --linear --boundary mirror
same linear_gray gray16.png "sigma=3 linear=yes boundary=periodic" blur --sigma 3 --linear --boundary periodic
checks=$((checks + 1))
"$CLI" blur --sigma 4 --boundary clamp rgb16.png cli_nonlinear.png
"$PIXDIFF" im_linear.png cli_nonlinear.png 1 --differ >/dev/null && echo "ok linear differs from linear=no" ||
    bad "linear=yes gives the same pixels as linear=no"
same rgb8 rgb8.png "sigma=2 boundary=clamp" blur --sigma 2 --boundary clamp --depth 16

# op=deblur: the same engine calls as `recblur deblur`, so the same 16-bit
# samples, bit for bit (tolerance 0). Defaults (window 8, noise 0.005, mirror)
# must be the CLI's: the first case gives no window, noise or boundary.
exact() {
    name=$1 in=$2 margs=$3
    shift 3
    against_cli 0 "$name" "$in" "$margs" deblur "$@"
}
# channel_r NAME TOL "MODULE ARGS" CLI-ARGS...: with channel=R, red is filtered
# like the CLI's (to TOL 16-bit steps), green, blue and alpha untouched.
channel_r() {
    name=$1 tol=$2 margs=$3
    shift 3
    checks=$((checks + 1))
    "$CONVERT" rgba16.png -process "recblur $margs channel=R" -depth 16 "im_$name.png" 2>"im_$name.err" ||
        bad "$name: convert failed: $(cat "im_$name.err")"
    "$CLI" "$@" rgba16.png "cli_$name.png"
    "$CONVERT" "im_$name.png" -channel R -separate "${name}_r_im.png"
    "$CONVERT" "cli_$name.png" -channel R -separate "${name}_r_cli.png"
    "$CONVERT" "im_$name.png" -channel GBA -separate "${name}_gba_im_%d.png"
    "$CONVERT" rgba16.png -channel GBA -separate "${name}_gba_in_%d.png"
    ok=1
    "$PIXDIFF" "${name}_r_im.png" "${name}_r_cli.png" "$tol" >/dev/null || { ok=0; bad "$name: red differs from the CLI"; }
    for i in 0 1 2; do
        "$PIXDIFF" "${name}_gba_im_$i.png" "${name}_gba_in_$i.png" 0 >/dev/null ||
            { ok=0; bad "$name: channel $i of GBA changed"; }
    done
    [ $ok = 1 ] && echo "ok $name"
}

exact deblur_defaults rgb16.png "op=deblur psf-sigma=1.5" --psf-sigma 1.5
exact deblur_implied_op rgb16.png "psf-sigma=2 noise=0.01" --psf-sigma 2 --noise 0.01
for b in zero constant=0.25 clamp periodic mirror none; do
    exact "deblur_$b" rgb16.png "op=deblur psf-sigma=1.5 boundary=$b" --psf-sigma 1.5 --boundary "$b"
done
exact deblur_window3 rgb16.png "op=deblur psf-sigma=1 window=3 noise=0.5%" --psf-sigma 1 --window 3 --noise 0.5%
exact deblur_window15 small16.png "op=deblur psf-sigma=3 window=15 noise=0.002 boundary=periodic" \
    --psf-sigma 3 --window 15 --noise 0.002 --boundary periodic
exact deblur_alpha rgba16.png "op=deblur psf-sigma=1.5 boundary=clamp" --psf-sigma 1.5 --boundary clamp
exact deblur_gray gray16.png "op=deblur psf-sigma=2 window=6" --psf-sigma 2 --window 6
npre=0
for f in "${RECBLUR_PRESET_PATH:-/nonexistent}"/deblur-*.deblur; do
    [ -f "$f" ] || continue
    p=$(basename "$f" .deblur)
    exact "deblur_preset_$p" rgb16.png "preset=$p" --preset "$p"
    npre=$((npre + 1))
done
checks=$((checks + 1))
[ $npre -ge 1 ] && echo "ok $npre deblur presets compared" || bad "no deblur-*.deblur presets in RECBLUR_PRESET_PATH"
# A preset by path, with op=deblur and its boundary overridden.
"$CLI" design-deblur --psf-sigma 1.2 --window 5 --noise 0.003 --out my.deblur 2>design.err ||
    bad "design-deblur failed: $(cat design.err)"
exact deblur_preset_path rgb16.png "op=deblur preset=$W/my.deblur boundary=zero" --preset "$W/my.deblur" --boundary zero
# 8-bit input: ImageMagick Q16 holds it as v*257, the CLI as v; both go to the
# same float v/255, so the 8-bit results agree to one 8-bit rounding step.
checks=$((checks + 1))
"$CONVERT" rgb8.png -process 'recblur op=deblur psf-sigma=1.5' im_deblur8.png 2>im_deblur8.err ||
    bad "deblur8: convert failed: $(cat im_deblur8.err)"
"$CLI" deblur --psf-sigma 1.5 rgb8.png cli_deblur8.png || bad "deblur8: CLI failed"
out=$("$PIXDIFF" im_deblur8.png cli_deblur8.png 257) && echo "ok deblur8 ($out)" || bad "deblur8: differs: $out"
# -define form, and -virtual-pixel naming the boundary when boundary= is absent.
checks=$((checks + 1))
"$CONVERT" rgb16.png -define recblur:op=deblur -define recblur:psf-sigma=2 -define recblur:window=4 \
    -process recblur -depth 16 im_deblur_define.png 2>im_deblur_define.err ||
    bad "deblur define: convert failed: $(cat im_deblur_define.err)"
"$CLI" deblur --psf-sigma 2 --window 4 rgb16.png cli_deblur_define.png || bad "deblur define: CLI failed"
out=$("$PIXDIFF" im_deblur_define.png cli_deblur_define.png 0) && echo "ok deblur define ($out)" ||
    bad "deblur define: differs: $out"
checks=$((checks + 1))
"$CONVERT" rgb16.png -virtual-pixel tile -process 'recblur psf-sigma=1.5' -depth 16 im_deblur_vp.png 2>im_deblur_vp.err ||
    bad "deblur virtual-pixel: convert failed: $(cat im_deblur_vp.err)"
"$CLI" deblur --psf-sigma 1.5 --boundary periodic rgb16.png cli_deblur_vp.png || bad "deblur vp: CLI failed"
out=$("$PIXDIFF" im_deblur_vp.png cli_deblur_vp.png 0) && echo "ok deblur virtual-pixel tile = periodic ($out)" ||
    bad "deblur virtual-pixel: differs: $out"
# Two images of different sizes in one list, each as the CLI does it alone.
checks=$((checks + 1))
if "$CONVERT" rgb16.png gray16.png small16.png -process 'recblur psf-sigma=1.5 boundary=clamp' -depth 16 \
        dmulti_%d.png 2>dmulti.err; then
    i=0
    for f in rgb16.png gray16.png small16.png; do
        "$CLI" deblur --psf-sigma 1.5 --boundary clamp "$f" "cli_dmulti_$i.png"
        o=$("$PIXDIFF" "dmulti_$i.png" "cli_dmulti_$i.png" 0) || bad "deblur multi: image $i differs: $o"
        i=$((i + 1))
    done
    echo "ok deblur multi"
else
    bad "deblur multi: convert failed: $(cat dmulti.err)"
fi
channel_r deblur_channel 0 "op=deblur psf-sigma=1.5" deblur --psf-sigma 1.5

# -define recblur:KEY=VALUE, and -process words overriding defines.
checks=$((checks + 1))
"$CONVERT" rgb16.png -define recblur:sigma=4 -define recblur:boundary=mirror -process recblur \
    -depth 16 im_define.png 2>im_define.err || bad "define: convert failed: $(cat im_define.err)"
"$CLI" blur --sigma 4 --boundary mirror rgb16.png cli_define.png || bad "define: CLI failed"
out=$("$PIXDIFF" im_define.png cli_define.png 1) && echo "ok define ($out)" || bad "define: differs: $out"
checks=$((checks + 1))
"$CONVERT" rgb16.png -define recblur:sigma=9 -define recblur:boundary=zero \
    -process 'recblur sigma=4 boundary=mirror' -depth 16 im_override.png 2>im_override.err ||
    bad "override: convert failed: $(cat im_override.err)"
out=$("$PIXDIFF" im_override.png cli_define.png 1) && echo "ok override ($out)" || bad "override: differs: $out"

# -virtual-pixel picks the boundary when boundary= is not given (tile = periodic).
checks=$((checks + 1))
"$CONVERT" rgb16.png -virtual-pixel tile -process 'recblur 3' -depth 16 im_vp.png 2>im_vp.err ||
    bad "virtual-pixel: convert failed: $(cat im_vp.err)"
"$CLI" blur --sigma 3 --boundary periodic rgb16.png cli_vp.png || bad "virtual-pixel: CLI failed"
out=$("$PIXDIFF" im_vp.png cli_vp.png 1) && echo "ok virtual-pixel ($out)" || bad "virtual-pixel: differs: $out"

# Two images in one command: both processed, each as the CLI does it alone.
checks=$((checks + 1))
if "$CONVERT" rgb16.png gray16.png -process 'recblur sigma=2.5 boundary=periodic' -depth 16 \
        multi_%d.png 2>multi.err; then
    "$CLI" blur --sigma 2.5 --boundary periodic rgb16.png cli_multi_0.png
    "$CLI" blur --sigma 2.5 --boundary periodic gray16.png cli_multi_1.png
    out0=$("$PIXDIFF" multi_0.png cli_multi_0.png 1) || bad "multi: first image differs: $out0"
    out1=$("$PIXDIFF" multi_1.png cli_multi_1.png 1) || bad "multi: second image differs: $out1"
    echo "ok multi ($out0; $out1)"
else
    bad "multi: convert failed: $(cat multi.err)"
fi

channel_r channel 1 "sigma=3 boundary=clamp" blur --sigma 3 --boundary clamp

# A blur preset, when the source tree ships one (RECBLUR_PRESET_PATH from ctest).
if [ -n "${RECBLUR_PRESET_PATH:-}" ]; then
    for f in "$RECBLUR_PRESET_PATH"/*.preset; do
        [ -f "$f" ] || continue
        grep -Eq '^[[:space:]]*op[[:space:]]*=' "$f" && ! grep -Eq '^[[:space:]]*op[[:space:]]*=[[:space:]]*blur' "$f" && continue
        p=$(basename "$f" .preset)
        same "preset_$p" rgb16.png "preset=$p" blur --preset "$p"
        break
    done
fi

host_done
