#!/bin/sh
# The ImageMagick module through the real `convert` against the float64
# reference (rb_host_reference: tests/reference.c, alpha premultiplied there),
# not against the engine: non-square images, different x and y sigmas (a
# swap shows), straight alpha (the module must premultiply before filtering
# and divide after), gray, every boundary. Tolerance: 2 16-bit steps (the
# engine works in float32; its output is rounded to 16 bits).
#
# usage: test_magick_reference.sh CONVERT REFERENCE WORKDIR
set -u
CONVERT=$1
REF=$2
W=$3
. "$(dirname "$0")/test_host_lib.sh"
host_workdir "$W"
TOL=3.1e-5

# Inputs made by ImageMagick itself: 61x43, 16-bit values that are not
# multiples of 257, an alpha ramp from 0.95 down to 0.15 (never 0: the colour
# of a transparent pixel is not defined).
"$CONVERT" rose: -resize '61x43!' -depth 16 rgb16.png || exit 1
"$CONVERT" rose: -resize '61x43!' -colorspace gray -depth 16 gray16.png || exit 1
"$CONVERT" -size 43x61 gradient:gray95-gray15 -rotate 90 -colorspace gray -depth 16 alpha16.png || exit 1
"$CONVERT" rgb16.png alpha16.png -alpha off -compose copy_opacity -composite -depth 16 rgba16.png || exit 1

# planes IMAGE PREFIX: PREFIX.pfm (colour, straight) and, for an image with
# alpha, PREFIX_a.pfm.
planes() {
    "$CONVERT" "$1" -alpha off "$2.pfm" || return 1
    # %A: IM6 says True or False, IM7 the alpha trait (Blend, or Undefined for none)
    if ! "$CONVERT" "$1" -format '%A' info: | grep -qxE 'False|Undefined'; then
        "$CONVERT" "$1" -alpha extract "$2_a.pfm" || return 1
    fi
}

# against NAME INPUT SX SY BOUNDARY "MODULE ARGS": the module's output equals
# the reference of a Gaussian SX (along x) by SY (along y).
against() {
    name=$1 in=$2 sx=$3 sy=$4 b=$5 margs=$6
    checks=$((checks + 1))
    if ! "$CONVERT" "$in" -process "recblur $margs" -depth 16 "im_$name.png" 2>"im_$name.err"; then
        bad "$name: convert -process 'recblur $margs' failed: $(cat "im_$name.err")"
        return
    fi
    planes "$in" "in_$name" && planes "im_$name.png" "im_$name" || { bad "$name: no planes"; return; }
    if [ -f "in_$name"_a.pfm ]; then
        "$REF" blur "$sx" "$sy" "$b" "in_$name.pfm" "ref_$name.pfm" "in_${name}_a.pfm" "ref_${name}_a.pfm" ||
            { bad "$name: the reference failed"; return; }
        if ! out=$("$REF" compare "im_${name}_a.pfm" "ref_${name}_a.pfm" $TOL); then
            bad "$name: alpha differs from the reference: $out"
            return
        fi
    else
        "$REF" blur "$sx" "$sy" "$b" "in_$name.pfm" "ref_$name.pfm" || { bad "$name: the reference failed"; return; }
    fi
    if ! out=$("$REF" compare "im_$name.pfm" "ref_$name.pfm" $TOL); then
        bad "$name: differs from the reference: $out"
        return
    fi
    echo "ok $name ($out)"
}

for b in zero constant=0.25 clamp periodic mirror none; do
    against "rgb_$b" rgb16.png 6 1.5 "$b" "sigma-x=6 sigma-y=1.5 boundary=$b"
done
against gray gray16.png 1.5 4 mirror "sigma-x=1.5 sigma-y=4 boundary=mirror"
for b in clamp periodic mirror; do
    against "rgba_$b" rgba16.png 4 2 "$b" "sigma-x=4 sigma-y=2 boundary=$b"
done
against rgba_same_sigma rgba16.png 3 3 mirror "sigma=3 boundary=mirror"
against rgba_tall_sigma rgba16.png 2.5 5 clamp "sigma-x=2.5 sigma-y=5 boundary=clamp"

host_done
