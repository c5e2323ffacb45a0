#!/bin/sh
# Every misuse of the ImageMagick module through the real `convert`: non-zero exit,
# a message naming the problem on stderr, and (IM6 still writes the output file)
# output pixels equal to the input's. IM7's `magick` writes no output file at
# all when -process fails ($RB_MAGICK_MAJOR 7): that is checked instead.
#
# usage: test_magick_errors.sh CONVERT PIXDIFF WORKDIR [MISMATCH_MODULE_DIR]
# MAGICK_CODER_FILTER_PATH must point at the directory with recblur.so/.la.
set -u
CONVERT=$1
PIXDIFF=$2
W=$3
MISMATCH=${4:-}
. "$(dirname "$0")/test_host_lib.sh"
host_workdir "$W"

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
    elif [ "${RB_MAGICK_MAJOR:-6}" -ge 7 ] && [ ! -e "out_$name.png" ]; then
        echo "ok $name (no output written): $(head -n 1 "err_$name.txt")"
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
refused bad_sigma "bad sigma 'abc': not a number" -process 'recblur sigma=abc'
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
refused box_linear "linear does not apply to op=box" -process 'recblur size=3 linear=yes'
refused bad_backend "warp" -process 'recblur 3 backend=warp'
refused bad_linear "linear 'maybe'" -process 'recblur 3 linear=maybe'
refused bad_accurate "accurate 'perhaps'" -process 'recblur 3 accurate=perhaps'
refused bad_channel "channel 'Q'" -process 'recblur 3 channel=Q'
refused filter_no_sig "needs signature" -process 'recblur op=filter'
refused unknown_define "unknown define 'recblur:bogus'" -define recblur:bogus=1 -process 'recblur 3'
refused bad_define_value "bad sigma 'lots': not a number" -define recblur:sigma=lots -process 'recblur'
refused usage_shown "usage: -process 'recblur SIGMA [BOUNDARY]'" -process 'recblur wrong=1'

# op=deblur: the messages of `recblur deblur`, the image untouched.
printf 'recblur-deblur 1\nwindow = 2\na0 = 1 0 0 0\na1 = 0 0 0\n' >garbled.deblur
printf 'recblur-deblur 1\nwindow = 2\na0 = 1 0 0 0\na1 = 0 0 0 0\na2 = 0 0 0 0\na3 = 0 0 0 0\nb0 = 0 1.2 0 0\nb1 = 0 0 0 0\nb2 = 0 0 0 0\nb3 = 0 0 0 0\n' >unstable.deblur
refused deblur_small_sigma "PSF sigma 0.1 out of range" -process 'recblur op=deblur psf-sigma=0.1'
refused deblur_large_sigma "PSF sigma 25 out of range" -process 'recblur psf-sigma=25'
refused deblur_negative_sigma "bad psf-sigma '-2': out of range" -process 'recblur psf-sigma=-2'
refused mask_size "weight image is 23x17, expected 41x29" -process 'recblur sigma=2 mask=in2.png'
refused mask_missing_file "mask nosuch.png: cannot be read" -process 'recblur sigma=2 mask=nosuch.png'
refused mask_no_alpha "the input has no alpha channel" -process 'recblur sigma=2 mask=alpha'
refused deblur_nan_sigma "bad psf-sigma 'nan': not a number" -process 'recblur psf-sigma=nan'
refused deblur_inf_sigma "bad psf-sigma 'inf': not a number" -process 'recblur psf-sigma=inf'
refused deblur_nan_noise "bad noise 'nan': not a number" -process 'recblur psf-sigma=1.5 noise=nan'
refused deblur_big_noise "bad noise '0.9': out of range" -process 'recblur psf-sigma=1.5 noise=0.9'
refused deblur_small_window "bad window '1': out of range (a whole number 2 to 64" -process 'recblur psf-sigma=1.5 window=1'
refused deblur_large_window "bad window '65': out of range" -process 'recblur psf-sigma=1.5 window=65'
refused deblur_frac_window "bad window '3.5': not a whole number" -process 'recblur psf-sigma=1.5 window=3.5'
refused deblur_no_psf "op=deblur needs psf-sigma=S" -process 'recblur op=deblur'
refused deblur_no_psf_noise "op=deblur needs psf-sigma=S" -process 'recblur noise=0.01'
refused deblur_unknown_preset "deblur preset \"nosuchdeblur\" not found" -process 'recblur op=deblur preset=nosuchdeblur'
refused deblur_unknown_preset_noop "no deblur preset 'nosuchdeblur.deblur' either" -process 'recblur preset=nosuchdeblur'
refused deblur_preset_and_sigma "already designed" -process 'recblur preset=deblur-gauss-1.5 psf-sigma=2'
refused deblur_blur_preset "gaussian-soft" -process 'recblur op=deblur preset=gaussian-soft'
refused deblur_garbled_preset "garbled.deblur" -process "recblur preset=$W/garbled.deblur"
refused deblur_unstable_preset "unstable" -process "recblur preset=$W/unstable.deblur"
refused deblur_linear "linear does not apply to op=deblur" -process 'recblur psf-sigma=1.5 linear=yes'
refused deblur_mixed "different operations" -process 'recblur sigma=3 psf-sigma=1.5'
refused deblur_key_on_blur "window does not apply to op=blur" -process 'recblur op=blur sigma=2 window=5'
refused deblur_sigma_on_deblur "sigma does not apply to op=deblur" -process 'recblur op=deblur psf-sigma=2 sigma=3'
refused deblur_bad_boundary "wobbly" -process 'recblur psf-sigma=1.5 boundary=wobbly'
refused deblur_bad_define "bad psf-sigma 'x': not a number" -define recblur:psf-sigma=x -process 'recblur'
refused deblur_usage "op=deblur: psf-sigma noise window" -process 'recblur op=deblur'

# Two images, bad argument: neither is changed.
checks=$((checks + 1))
"$CONVERT" in.png in2.png -process 'recblur sigma=3 foo=1' multi_%d.png 2>err_multi.txt
if [ $? = 0 ]; then
    bad "multi: convert exited 0"
elif [ "${RB_MAGICK_MAJOR:-6}" -ge 7 ] && ls multi_*.png >/dev/null 2>&1; then
    bad "multi: magick wrote an output after the failure"
elif [ "${RB_MAGICK_MAJOR:-6}" -lt 7 ] &&
     { ! "$PIXDIFF" multi_0.png in.png 0 >/dev/null || ! "$PIXDIFF" multi_1.png in2.png 0 >/dev/null; }; then
    bad "multi: an image was changed"
else
    echo "ok multi: both images unchanged"
fi

# Deblur over a list whose third image is refused (CMYK with alpha): no image
# of the list is changed, although the first two could be deblurred.
checks=$((checks + 1))
"$CONVERT" in.png -colorspace cmyk -alpha set in_cmyka.miff || exit 1
"$CONVERT" in.png in2.png in_cmyka.miff -process 'recblur psf-sigma=1.5' dmulti_%d.miff 2>err_dmulti.txt
if [ $? = 0 ]; then
    bad "deblur multi: convert exited 0"
elif ! grep -q "CMYK" err_dmulti.txt; then
    bad "deblur multi: stderr lacks the reason: $(cat err_dmulti.txt)"
elif [ "${RB_MAGICK_MAJOR:-6}" -ge 7 ] && ls dmulti_*.miff >/dev/null 2>&1; then
    bad "deblur multi: magick wrote an output after the failure"
elif [ "${RB_MAGICK_MAJOR:-6}" -lt 7 ] &&
     { ! "$PIXDIFF" dmulti_0.miff in.png 0 >/dev/null || ! "$PIXDIFF" dmulti_1.miff in2.png 0 >/dev/null; }; then
    bad "deblur multi: an image was changed"
else
    echo "ok deblur multi: no image changed"
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
    elif [ "${RB_MAGICK_MAJOR:-6}" -ge 7 ] && [ -e out_mismatch.png ]; then
        bad "mismatch: magick wrote an output after the failure"
    elif [ "${RB_MAGICK_MAJOR:-6}" -lt 7 ] && ! "$PIXDIFF" out_mismatch.png in.png 0 >/dev/null; then
        bad "mismatch: output pixels changed"
    else
        echo "ok mismatch: $(head -n 1 err_mismatch.txt)"
    fi
fi

host_done
