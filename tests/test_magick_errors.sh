#!/bin/sh
# Every misuse of the ImageMagick module through the real `convert`: non-zero exit,
# a message naming the problem on stderr, and (IM6 still writes the output file)
# output pixels equal to the input's.
#
# usage: test_magick_errors.sh CONVERT PIXDIFF WORKDIR [MISMATCH_MODULE_DIR]
# MAGICK_CODER_FILTER_PATH must point at the directory with recblur.so/.la.
set -u
CONVERT=$1
PIXDIFF=$2
W=$3
MISMATCH=${4:-}
rm -rf "$W"
mkdir -p "$W" || exit 1
cd "$W" || exit 1

fails=0
checks=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$CONVERT" rose: -resize '41x29!' -depth 16 in.png || exit 1
"$CONVERT" -size 23x17 gradient:gray90-gray10 -colorspace gray -depth 16 in2.png || exit 1

# refused NAME "EXPECTED TEXT" CONVERT-ARGS... (the input is in.png, output out_NAME.png)
refused() {
    name=$1 want=$2
    shift 2
    checks=$((checks + 1))
    "$CONVERT" in.png "$@" "out_$name.png" 2>"err_$name.txt"
    rc=$?
    if [ $rc = 0 ]; then
        bad "$name: convert exited 0"
    elif ! grep -qF -- "$want" "err_$name.txt"; then
        bad "$name: stderr lacks \"$want\": $(cat "err_$name.txt")"
    elif [ ! -f "out_$name.png" ]; then
        bad "$name: no output written (cannot check it is unchanged)"
    elif ! out=$("$PIXDIFF" "out_$name.png" in.png 0); then
        bad "$name: output pixels changed: $out"
    else
        echo "ok $name: $(head -n 1 "err_$name.txt")"
    fi
}

refused no_args "no sigma given" -process 'recblur'
refused unknown_key "unknown key 'foo'" -process 'recblur sigma=3 foo=1'
refused bad_sigma "sigma 'abc' is not a number" -process 'recblur sigma=abc'
refused bad_positional "'abc' is not a number" -process 'recblur abc'
refused extra_word "unexpected word 'extra'" -process 'recblur 3 clamp extra'
refused bad_boundary "wobbly" -process 'recblur 5 wobbly'
refused bad_constant "constant=x" -process 'recblur 5 boundary=constant=x'
refused small_sigma "sigma" -process 'recblur sigma=0.2'
refused negative_sigma "sigma" -process 'recblur sigma=-3'
refused unstable "unstable" -process 'recblur signature="0.5: 1.5"'
refused garbled_signature "signature" -process 'recblur signature=0.5:abc'
refused unknown_preset "nosuchpreset" -process 'recblur preset=nosuchpreset'
refused mixed_ops "different operations" -process 'recblur sigma=3 size=5'
refused wrong_op_key "size does not apply to op=blur" -process 'recblur op=blur sigma=2 size=5'
refused unknown_op "unknown op 'sharpen'" -process 'recblur op=sharpen'
refused box_size "size" -process 'recblur op=sat-box size=0'
refused box_linear "linear=yes is not available with op=sat-box" -process 'recblur size=3 linear=yes'
refused bad_backend "warp" -process 'recblur 3 backend=warp'
refused bad_linear "linear 'maybe'" -process 'recblur 3 linear=maybe'
refused bad_accurate "accurate 'perhaps'" -process 'recblur 3 accurate=perhaps'
refused bad_channel "channel 'Q'" -process 'recblur 3 channel=Q'
refused filter_no_sig "needs signature" -process 'recblur op=filter'
refused unknown_define "unknown define 'recblur:bogus'" -define recblur:bogus=1 -process 'recblur 3'
refused bad_define_value "sigma 'lots' is not a number" -define recblur:sigma=lots -process 'recblur'
refused usage_shown "usage: -process 'recblur SIGMA [BOUNDARY]'" -process 'recblur wrong=1'

# Two images, bad argument: neither is changed.
checks=$((checks + 1))
"$CONVERT" in.png in2.png -process 'recblur sigma=3 foo=1' multi_%d.png 2>err_multi.txt
if [ $? = 0 ]; then
    bad "multi: convert exited 0"
elif ! "$PIXDIFF" multi_0.png in.png 0 >/dev/null || ! "$PIXDIFF" multi_1.png in2.png 0 >/dev/null; then
    bad "multi: an image was changed"
else
    echo "ok multi: both images unchanged"
fi

# A module built with the opposite HDRI setting refuses instead of corrupting memory.
if [ -n "$MISMATCH" ]; then
    checks=$((checks + 1))
    MAGICK_CODER_FILTER_PATH=$MISMATCH "$CONVERT" in.png -process 'recblur 3' out_mismatch.png 2>err_mismatch.txt
    rc=$?
    if [ $rc = 0 ]; then
        bad "mismatch: convert exited 0"
    elif [ $rc -gt 128 ]; then
        bad "mismatch: convert crashed (status $rc)"
    elif ! grep -q "module built for ImageMagick Q16" err_mismatch.txt; then
        bad "mismatch: stderr lacks the explanation: $(cat err_mismatch.txt)"
    elif ! "$PIXDIFF" out_mismatch.png in.png 0 >/dev/null; then
        bad "mismatch: output pixels changed"
    else
        echo "ok mismatch: $(head -n 1 err_mismatch.txt)"
    fi
fi

echo "$checks checks, $fails failures"
[ $fails = 0 ]
