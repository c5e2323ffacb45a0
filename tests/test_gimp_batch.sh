#!/bin/bash
# The GIMP plug-in in a real, headless GIMP 2.10: plug-in-recblur through the
# PDB from Script-Fu (RUN-NONINTERACTIVE) on every boundary, operation,
# precision (8/16/32-bit, gamma and linear), gray, RGBA, a selection and a
# preset; results compared with the recblur CLI on the same input, and the
# Gaussian cases (boundaries, straight and premultiplied alpha, linear light,
# x and y sigmas that differ on a non-square image) with the float64
# reference (rb_host_reference, $HREF), which shares no code path with the
# engine's execution. Then the tileable check and three PDB error cases that
# must leave the image unchanged.
# usage: test_gimp_batch.sh PLUGIN CLI TESTS_SRC_DIR WORK_DIR
set -u
PLUGIN=$1 CLI=$2 T=$3 W=$4
. "$T/test_gimp_lib.sh"
gimp_setup
printf 'description = test preset\nop = blur\nsigma = 2.5\nboundary = mirror\n' >"$O/t.preset"

# One GIMP start: the batch, three failing calls (an unstable signature, a
# sigma below range, a garbled signature: each message names the culprit),
# then save what they left open.
gimp_with_errors "(recblur-test-batch \"$D\" \"$O\")" "(recblur-test-save-open \"$O\")" \
    "(recblur-test-error \"$D\" 3.0 3 \"1: 1.5\")" "unstable" \
    "(recblur-test-error \"$D\" 0.3 0 \"\")" "0.3" \
    "(recblur-test-error \"$D\" 3.0 3 \"0.5, x: 0.5\")" "0.5, x: 0.5"

# Every boundary, sigma 3 x 2 on 61x47 (x and y must not be swapped), against
# the reference.
run $CHECK planes "$D/rgb.png" "$O/rgb"
for b in zero "constant=0.3" clamp periodic mirror; do
    n=${b%%=*}
    run "$HREF" blur 3 2 "$b" "$O/rgb.pfm" "$O/ref_$n.pfm"
    run $CHECK near8 "$O/b_$n.png" "$O/ref_$n.pfm"
done
cli bspline --degree 3 --boundary mirror "$D/rgb.png" "$O/ref_bspline3.png"
run $CHECK close8 "$O/op_bspline3.png" "$O/ref_bspline3.png"
cli filter --signature "0.4: 0.6" --direction causal --axes x --boundary clamp "$D/rgb.png" "$O/ref_signature.png"
run $CHECK close8 "$O/op_signature.png" "$O/ref_signature.png"
# Straight alpha in the file: the reference premultiplies, filters, divides.
run $CHECK planes "$D/rgba.png" "$O/rgba"
run "$HREF" blur 2.5 2.5 clamp "$O/rgba.pfm" "$O/ref_rgba.pfm" "$O/rgba_a.pfm" "$O/ref_rgba_a.pfm"
run $CHECK near8 "$O/rgba_clamp.png" "$O/ref_rgba.pfm" "$O/ref_rgba_a.pfm" 0.1
cli blur --sigma-x 2 --sigma-y 3 --boundary periodic "$O/in_graya.png" "$O/ref_graya.png"
run $CHECK close8 "$O/out_graya.png" "$O/ref_graya.png" 0.1
cli blur --sigma 2.5 --boundary mirror "$D/rgb.png" "$O/ref_preset.png"
run $CHECK close8 "$O/preset.png" "$O/ref_preset.png"
cli blur --sigma 3 --boundary clamp "$O/in_gray.png" "$O/ref_gray.png"
run $CHECK close8 "$O/out_gray.png" "$O/ref_gray.png"
cli blur --sigma 4 --accurate --boundary mirror "$O/in16.png" "$O/ref16.png"
run $CHECK close8 "$O/out16.png" "$O/ref16.png"

# Linear light on 8-bit: the reference filters the decoded input; numpy
# encodes its result.
run $CHECK srgb2lin "$D/rgb.png" "$O/rgb_lin.pfm"
run "$HREF" blur 3 2 clamp "$O/rgb_lin.pfm" "$O/ref_lin8.pfm"
run $CHECK lin2close8 "$O/lin8.png" "$O/ref_lin8.pfm"

# RGBA in linear light, sigma 2.5 x 1.5 on 40x33: GIMP filters premultiplied
# linear values; the reference filters each premultiplied plane, numpy divides.
run $CHECK premul "$D/rgba.png" "$O/rgba_p"
for c in 0 1 2 3; do
    run "$HREF" blur 2.5 1.5 mirror "$O/rgba_p$c.pfm" "$O/rgba_pf$c.pfm"
done
run $CHECK unpremul8 "$O/rgba_lin.png" "$O/rgba_p"

# Float TIFF written by GIMP (gamma and linear): the CLI converts it to PFM for
# numpy with a 1x1 box (a copy; the CLI refuses sigma 0 on both axes).
cli blur --sigma-x 5 --sigma-y 3 --boundary periodic "$O/in_fg.tif" "$O/ref_fg.pfm"
cli box --size 1 "$O/out_fg.tif" "$O/out_fg.pfm"
run $CHECK closef "$O/out_fg.pfm" "$O/ref_fg.pfm"
cli blur --sigma-x 2 --sigma-y 7 --accurate --boundary constant=0.3 "$O/in_fl.tif" "$O/ref_fl.pfm"
cli box --size 1 "$O/out_fl.tif" "$O/out_fl.pfm"
run $CHECK closef "$O/out_fl.pfm" "$O/ref_fl.pfm"

# Selection: the box is filtered as an image of its own, the rest untouched.
run $CHECK crop "$D/rgb.png" 10 8 30 20 "$O/crop.pfm"
cli blur --sigma 2 --boundary clamp "$O/crop.pfm" "$O/ref_crop.pfm"
run $CHECK selection "$O/sel.png" "$D/rgb.png" 10 8 30 20 "$O/ref_crop.pfm"

# Larger than one tile: the plug-in moves the drawable's tiles itself
# (plugin-gimp/rbg_tiles.c): a selection across tile edges, and RGBA u16 in
# linear light over 3 x 3 tiles. A tile put at the wrong place or a row off by
# one moves samples by many steps.
run $CHECK crop "$O/big_in.png" 37 21 150 120 "$O/big_crop.pfm"
cli blur --sigma 3 --boundary clamp "$O/big_crop.pfm" "$O/big_ref_crop.pfm"
run $CHECK selection "$O/big_sel.png" "$O/big_in.png" 37 21 150 120 "$O/big_ref_crop.pfm"
cli blur --sigma-x 4 --sigma-y 2.5 --boundary mirror --linear "$O/big16_in.png" "$O/big16_ref.png"
run $CHECK close8 "$O/big16_out.png" "$O/big16_ref.png" 0.1
run $CHECK changed "$O/big16_out.png" "$O/big16_in.png" 0.5

# Tileable: blurring the half-period shift = shifting the blur (the wrap-around
# seam is filtered like the interior), and tiled 2x2 there is no visible seam;
# the zero boundary shows the seam check can fail.
run $CHECK shift "$O/tile_periodic.png" "$O/tile_shift_periodic.png" 32 25
run $CHECK seam "$O/tile_periodic.png" MAX 1.2
run $CHECK seam "$O/tile_zero.png" MIN 1.5

# The three failed calls left their images unchanged.
gimp_unchanged 3

gimp_done test_gimp_batch
