#!/bin/sh
# ImageMagick's own -channel setting with -process recblur: only the selected
# channels are filtered. The result must equal the module's channel= key on the
# same input (test_magick_cli.sh checks that key against the CLI and that the
# other channels stay as they were), and must differ from the input. IM7's
# `magick` only: IM6 keeps -channel in its ImageInfo, which a filter module never
# receives (there `convert -channel R -process recblur` filters every channel).
#
# usage: test_magick_channel.sh CONVERT PIXDIFF WORKDIR
# MAGICK_CODER_FILTER_PATH must point at the directory with recblur.so/.la.
set -u
CONVERT=$1
PIXDIFF=$2
W=$3
. "$(dirname "$0")/test_host_lib.sh"
host_workdir "$W"

"$CONVERT" rose: -resize '41x29!' -depth 16 rgb16.png || exit 1
"$CONVERT" -size 29x41 gradient:gray95-gray15 -rotate 90 -colorspace gray -depth 16 alpha16.png || exit 1
"$CONVERT" rgb16.png alpha16.png -alpha off -compose copy_opacity -composite -depth 16 rgba16.png || exit 1

# selected NAME INPUT CHANNEL-OPTION LETTERS: `-channel CHANNEL-OPTION` gives what
# channel=LETTERS gives.
selected() {
    name=$1 in=$2 opt=$3 letters=$4
    checks=$((checks + 1))
    args="recblur sigma=4 boundary=mirror"
    if ! "$CONVERT" "$in" -channel "$opt" -process "$args" +channel -depth 16 "ch_$name.png" 2>"ch_$name.err"; then
        bad "$name: -channel $opt -process '$args' failed: $(cat "ch_$name.err")"
    elif ! "$CONVERT" "$in" -process "$args channel=$letters" -depth 16 "key_$name.png" 2>"key_$name.err"; then
        bad "$name: -process '$args channel=$letters' failed: $(cat "key_$name.err")"
    elif ! out=$("$PIXDIFF" "ch_$name.png" "key_$name.png" 0); then
        bad "$name: -channel $opt and channel=$letters differ: $out"
    elif ! "$PIXDIFF" "ch_$name.png" "$in" 1 --differ >/dev/null; then
        bad "$name: -channel $opt left the image as it was"
    else
        echo "ok $name: -channel $opt = channel=$letters"
    fi
}

selected red rgb16.png Red R
selected green_blue rgb16.png Green,Blue GB
selected red_with_alpha rgba16.png R R
selected colour_not_alpha rgba16.png RGB RGB
selected alpha_only rgba16.png A A

host_done
