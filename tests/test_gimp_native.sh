#!/bin/bash
# The plug-in's own-format route in a real, headless GIMP 2.10: 8/16-bit sRGB
# drawables filtered perceptually, and linear-precision ones in linear light,
# go to the engine as stored (no babl conversion) and the engine premultiplies
# GIMP's straight alpha; gamma-encoded ones in linear light still go through
# babl's float (plugin-gimp/rbg_pixels.c says why). RGB, RGBA and gray + alpha
# at 8 and 16 bits, perceptual and in linear light, and RGBA u16 linear, each
# compared sample by sample with the recblur CLI (--linear for linear light on
# gamma-encoded samples) on the input GIMP held: one step of the file's depth,
# colour where alpha >= 0.1 (below, straight colour from premultiplied values
# is coarse; on babl's route at 16 bits, where babl divides float32
# premultiplied colour by alpha, the rounding error reaches 3 steps at alpha
# 0.1, so 0.2 there). A wrong stride, swapped channels or dropped alpha on
# either route moves samples by many steps.
# usage: test_gimp_native.sh PLUGIN CLI TESTS_SRC_DIR WORK_DIR
set -u
PLUGIN=$1 CLI=$2 T=$3 W=$4
. "$T/test_gimp_lib.sh"
gimp_setup

gimp_batch "(recblur-test-native \"$D\" \"$O\")"
gimp_verdict "ok"

n=0
for src in rgb rgba graya; do
    for bits in 8 16; do
        for light in p l; do
            name=n_${src}_${bits}_${light}
            extra=()
            [ "$light" = l ] && extra=(--linear)
            alpha_min=()
            [ "$src" != rgb ] && alpha_min=(0.1)
            [ "$src" != rgb ] && [ "$bits$light" = 16l ] && alpha_min=(0.2)
            [ -e "$O/${name}_out.png" ] || { echo "FAIL: GIMP saved no $name"; rc=1; continue; }
            cli blur --sigma-x 3 --sigma-y 2 --boundary mirror "${extra[@]}" \
                "$O/${name}_in.png" "$O/${name}_ref.png"
            run $CHECK close8 "$O/${name}_out.png" "$O/${name}_ref.png" "${alpha_min[@]}"
            run $CHECK changed "$O/${name}_out.png" "$O/${name}_in.png" 0.5
            n=$((n + 1))
        done
    done
done
[ "$n" = 12 ] || { echo "FAIL: $n of 12 cases compared"; rc=1; }

# Linear storage (RGBA u16, linear precision) in linear light: the own-format
# route with no decode; GIMP's PNG keeps the linear samples, so the CLI filters
# them as stored (no --linear).
name=n_rgba_16lin_l
cli blur --sigma-x 3 --sigma-y 2 --boundary mirror "$O/${name}_in.png" "$O/${name}_ref.png"
run $CHECK close8 "$O/${name}_out.png" "$O/${name}_ref.png" 0.1
run $CHECK changed "$O/${name}_out.png" "$O/${name}_in.png" 0.5

gimp_done test_gimp_native
