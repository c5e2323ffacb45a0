#!/bin/bash
# The GIMP plug-in's deblur procedure in a real, headless GIMP 2.10:
# plug-in-recblur-deblur through the PDB from Script-Fu (RUN-NONINTERACTIVE)
# on every boundary, presets (by name and by path), RGBA, gray, 8/16-bit,
# float gamma and linear, linear light and a selection; each result compared
# with `recblur deblur` on the same input. Then four PDB error cases that must
# fail with the engine's message and leave the image unchanged.
# usage: test_gimp_deblur.sh PLUGIN CLI TESTS_SRC_DIR WORK_DIR
set -u
PLUGIN=$1 CLI=$2 T=$3 W=$4
. "$T/test_gimp_lib.sh"
gimp_setup
"$CLI" design-deblur --psf-sigma 1.2 --window 5 --noise 0.003 --boundary periodic \
    --out "$O/my.deblur" || fail "design-deblur failed"

# One GIMP start: the deblur batch, four failing calls (PSF sigma, window and
# noise out of range, an unknown preset: each message names the culprit), then
# save what they left open.
gimp_with_errors "(recblur-test-deblur \"$D\" \"$O\" \"$O/my.deblur\")" "(recblur-test-save-open \"$O\")" \
    "(recblur-test-deblur-error \"$D\" 0.1 0.005 8 \"\")" "PSF sigma 0.1 out of range" \
    "(recblur-test-deblur-error \"$D\" 1.5 0.005 99 \"\")" "bad window '99': out of range (a whole number 2 to 64" \
    "(recblur-test-deblur-error \"$D\" 1.5 0.9 8 \"\")" "bad noise '0.9': out of range" \
    "(recblur-test-deblur-error \"$D\" 1.5 0.005 8 \"nosuchdeblur\")" "nosuchdeblur"

# 8-bit: GIMP filters float and rounds, the CLI reads and rounds 8-bit: one step.
cli deblur --psf-sigma 1.5 "$D/rgb.png" "$O/ref_default.png"
run $CHECK close8 "$O/d_default.png" "$O/ref_default.png"
run $CHECK changed "$O/d_default.png" "$D/rgb.png" 0.5
for b in zero "constant=0.3" clamp periodic none; do
    n=${b%%=*}
    cli deblur --psf-sigma 2 --noise 0.01 --window 5 --boundary "$b" "$D/rgb.png" "$O/ref_$n.png"
    run $CHECK close8 "$O/d_$n.png" "$O/ref_$n.png"
done
cli deblur --preset deblur-gauss-1 "$D/rgb.png" "$O/ref_preset.png"
run $CHECK close8 "$O/d_preset.png" "$O/ref_preset.png"
cli deblur --preset "$O/my.deblur" "$D/rgb.png" "$O/ref_mypreset.png"
run $CHECK close8 "$O/d_mypreset.png" "$O/ref_mypreset.png"
cli deblur --psf-sigma 1.5 --window 6 --boundary clamp "$D/rgba.png" "$O/ref_rgba.png"
run $CHECK close8 "$O/d_rgba.png" "$O/ref_rgba.png" 0.1
cli deblur --psf-sigma 1.5 "$O/d_in_gray.png" "$O/ref_gray.png"
run $CHECK close8 "$O/d_out_gray.png" "$O/ref_gray.png"
cli deblur --psf-sigma 3 --noise 0.002 --window 12 --boundary clamp "$O/d_in16.png" "$O/ref16.png"
run $CHECK close8 "$O/d_out16.png" "$O/ref16.png"

# Linear light on 8-bit: the CLI deblurs the decoded input; we encode its result.
run $CHECK srgb2lin "$D/rgb.png" "$O/rgb_lin.pfm"
cli deblur --psf-sigma 1.5 "$O/rgb_lin.pfm" "$O/ref_lin8.pfm"
run $CHECK lin2close8 "$O/d_lin8.png" "$O/ref_lin8.pfm"

# Float TIFF written by GIMP (gamma and linear): same float values to 1e-5.
cli deblur --psf-sigma 1.5 --boundary periodic "$O/d_in_fg.tif" "$O/ref_fg.pfm"
cli box --size 1 "$O/d_out_fg.tif" "$O/d_out_fg.pfm"
run $CHECK closef "$O/d_out_fg.pfm" "$O/ref_fg.pfm"
cli deblur --psf-sigma 1 --noise 0.003 --window 4 --boundary constant=0.3 "$O/d_in_fl.tif" "$O/ref_fl.pfm"
cli box --size 1 "$O/d_out_fl.tif" "$O/d_out_fl.pfm"
run $CHECK closef "$O/d_out_fl.pfm" "$O/ref_fl.pfm"

# Selection: the box is deblurred as an image of its own, the rest untouched.
run $CHECK crop "$D/rgb.png" 10 8 30 20 "$O/crop.pfm"
cli deblur --psf-sigma 1.5 --boundary clamp "$O/crop.pfm" "$O/ref_crop.pfm"
run $CHECK selection "$O/d_sel.png" "$D/rgb.png" 10 8 30 20 "$O/ref_crop.pfm"

# The four failed calls left their images unchanged.
gimp_unchanged 4

gimp_done test_gimp_deblur
