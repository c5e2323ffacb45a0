#!/bin/sh
# The GEGL operations through the real `gegl` command against the recblur CLI
# on the same input: every operation, every boundary, RGB, gray and alpha,
# 8- and 16-bit. Pixels must agree to one 16-bit step (the same engine; the
# step allows for babl's conversions), each result must differ from its input,
# and a value the engine refuses leaves the image as it was, with the engine's
# message.
#
# usage: test_gegl_cli.sh GEGL RECBLUR_CLI PIXDIFF CONVERT WORKDIR
# GEGL_PATH must list the directory with recblur.so, then GEGL's own.
set -u
GEGL=$1
CLI=$2
PIXDIFF=$3
CONVERT=$4
W=$5
. "$(dirname "$0")/test_host_lib.sh"
host_workdir "$W"

# Inputs without colour chunks: GEGL would read gAMA/cHRM as another space,
# the CLI reads the encoded values; both then mean the same numbers.
host_images "$CONVERT" -define png:exclude-chunk=gAMA,cHRM,sRGB,bKGD,date,tIME

# same NAME INPUT "GEGL OP AND PROPERTIES" CLI-ARGS...: the operation's output equals the CLI's.
same() {
    name=$1 in=$2 gargs=$3
    shift 3
    checks=$((checks + 1))
    # shellcheck disable=SC2086
    if ! "$GEGL" "$in" -o "gegl_$name.png" -- $gargs 2>"gegl_$name.err"; then
        bad "$name: gegl -- $gargs failed: $(cat "gegl_$name.err")"
        return
    fi
    cli_agrees "$name" "$in" 1 "gegl_$name.png" "$@" --depth 16 && echo "ok $name"
}

for b in zero clamp periodic mirror none; do
    same "blur_$b" rgb16.png "recblur:gaussian-blur sigma-x=6 sigma-y=2.5 boundary=$b linear=false" \
        blur --sigma-x 6 --sigma-y 2.5 --boundary $b
    same "box_$b" gray16.png "recblur:box size-x=7 size-y=4 boundary=$b" \
        box --size-x 7 --size-y 4 --boundary $b
done
same blur_constant rgba16.png "recblur:gaussian-blur sigma-x=4 sigma-y=4 boundary=constant constant=0.7 linear=false" \
    blur --sigma 4 --boundary constant=0.7
same blur_linear_alpha rgba16.png "recblur:gaussian-blur sigma-x=9 sigma-y=3 boundary=mirror" \
    blur --sigma-x 9 --sigma-y 3 --boundary mirror --linear
same blur_accurate_8bit rgb8.png "recblur:gaussian-blur sigma-x=3 sigma-y=3 accurate=true linear=false" \
    blur --sigma 3 --accurate
same bspline3 rgb16.png "recblur:bspline degree=3 linear=false" bspline --degree 3
same bspline5_periodic gray16.png "recblur:bspline degree=5 boundary=periodic linear=false" \
    bspline --degree 5 --boundary periodic
# a signature of DC gain 1.6 (a unit gain would hide a dropped one)
same filter_gain rgba16.png "recblur:filter signature=0.4:0.75 boundary=clamp linear=false" \
    filter --signature "0.4: 0.75" --boundary clamp
same filter_causal_x gray16.png "recblur:filter signature=0.5:0.5 direction=causal axes=x boundary=periodic linear=false" \
    filter --signature "0.5: 0.5" --direction causal --axes x --boundary periodic
same box_even_alpha rgba16.png "recblur:box size-x=6 size-y=1 boundary=mirror" \
    box --size-x 6 --size-y 1 --boundary mirror
# the table's mask choice as a GEGL property: the layer's alpha as the weights
same blur_mask_alpha rgba16.png "recblur:gaussian-blur sigma-x=3 sigma-y=3 boundary=clamp mask=alpha linear=false" \
    blur --sigma 3 --boundary clamp --mask alpha
same box_mask_alpha rgba16.png "recblur:box size-x=5 size-y=5 boundary=zero mask=alpha" \
    box --size 5 --boundary zero --mask alpha

# An unstable signature: the engine refuses it, the image is left as it was and
# the engine's message is shown.
checks=$((checks + 1))
"$GEGL" rgb16.png -o refused.png -- recblur:filter signature=0.5:1.5 2>refused.err
if ! grep -q "unstable" refused.err; then
    bad "refused: no engine message on stderr: $(cat refused.err)"
elif ! out=$("$PIXDIFF" refused.png rgb16.png 0); then
    bad "refused: the image changed: $out"
else
    echo "ok refused signature leaves the image unchanged"
fi

# NaN samples of a float buffer (issue 20): missing data by default (no NaN
# out), IEEE spreading with nan=propagate (NaN out). A float TIFF made from
# PFM by the CLI; the NaN counted back through PFM.
nan_count() {
    "$CLI" blur --sigma 0 "$1" "$1.pfm" && python3 -c '
import math, struct, sys
b = open(sys.argv[1], "rb").read(); p = b.split(maxsplit=4); n = int(p[1]) * int(p[2])
print(sum(1 for s in struct.unpack("<%df" % n, b[len(b) - 4 * n:]) if math.isnan(s)))' "$1.pfm"
}
python3 -c '
import struct
w = h = 40
v = [float("nan") if (x * 31 + y * 17) % 97 == 0 else ((x * 7 + y * 13) % 17) / 16.0 for y in range(h) for x in range(w)]
open("nan.pfm", "wb").write(b"Pf\n40 40\n-1.0\n" + struct.pack("<%df" % (w * h), *v))'
"$CLI" blur --sigma 0 nan.pfm nan.tif || bad "nan: no float TIFF"
for mode in missing propagate; do
    checks=$((checks + 1))
    if ! "$GEGL" nan.tif -o "nan_$mode.tif" -- recblur:gaussian-blur sigma-x=3 sigma-y=3 nan=$mode 2>"nan_$mode.err"; then
        bad "nan=$mode: gegl failed: $(cat "nan_$mode.err")"
        continue
    fi
    n=$(nan_count "nan_$mode.tif")
    if [ "$mode" = missing ] && [ "$n" = 0 ]; then echo "ok nan=missing: no NaN out"
    elif [ "$mode" = propagate ] && [ "$n" -gt 0 ]; then echo "ok nan=propagate: $n NaN samples out (IEEE)"
    else bad "nan=$mode: $n NaN samples out"; fi
done

host_done
