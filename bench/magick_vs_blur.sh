#!/bin/sh
# Whole-command time of the recblur ImageMagick module against ImageMagick's own
# Gaussian blur, on a 4096x4096 RGB TIFF:
#   convert in.tif -process 'recblur sigma=S' out.tif   vs   convert in.tif -blur 0xS out.tif
# Median of RUNS runs (RUNS_SLOW for -blur at sigma >= 50, which takes tens of seconds).
# Also prints the RMSE between the two outputs (same clamp-to-edge boundary: IM's
# default virtual-pixel "edge"), to show both compute the same blur.
#
# usage: bench/magick_vs_blur.sh [BUILD_DIR] [SIGMAS...]
#   BUILD_DIR holds plugin-magick/recblur.so (default: build); SIGMAS default 2 10 50.
#   Env: RUNS (default 5), RUNS_SLOW (default 3), SIZE (default 4096), CONVERT.
set -eu
BUILD=${1:-build}
[ $# -gt 0 ] && shift
SIGMAS=${*:-2 10 50}
RUNS=${RUNS:-5}
RUNS_SLOW=${RUNS_SLOW:-3}
SIZE=${SIZE:-4096}
CONVERT=${CONVERT:-/usr/bin/convert}
MODDIR=$(cd "$BUILD/plugin-magick" && pwd)
[ -f "$MODDIR/recblur.so" ] || { echo "no $MODDIR/recblur.so: build first" >&2; exit 1; }
export MAGICK_CODER_FILTER_PATH="$MODDIR"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Real picture content (the rose, scaled up), 8-bit RGB, uncompressed TIFF.
"$CONVERT" rose: -resize "${SIZE}x${SIZE}!" -depth 8 -compress none "$TMP/in.tif"

now() { date +%s.%N; }
# median_time N CMD...: run CMD N times, print the median wall time in seconds.
median_time() {
    n=$1
    shift
    : >"$TMP/times"
    i=0
    while [ $i -lt "$n" ]; do
        t0=$(now)
        "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
        t1=$(now)
        echo "$t1 - $t0" | bc -l >>"$TMP/times"
        i=$((i + 1))
    done
    sort -g "$TMP/times" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'
}

echo "ImageMagick $("$CONVERT" -version | sed -n 's/^Version: ImageMagick \([^ ]*\).*/\1/p'), $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "image ${SIZE}x${SIZE} RGB 8-bit TIFF; whole-command wall time, median"
base=$(median_time "$RUNS" "$CONVERT" "$TMP/in.tif" "$TMP/copy.tif")
echo "baseline, no filter (convert in.tif out.tif: read + write only): ${base} s"
echo
echo "| sigma | recblur module (s) | runs | convert -blur 0xS (s) | runs | speed-up | RMSE between outputs |"
echo "|------:|-------------------:|-----:|----------------------:|-----:|---------:|---------------------:|"
for s in $SIGMAS; do
    tr=$(median_time "$RUNS" "$CONVERT" "$TMP/in.tif" -process "recblur sigma=$s" "$TMP/rec.tif")
    nb=$RUNS
    if [ "$(echo "$s >= 50" | bc -l)" = 1 ]; then nb=$RUNS_SLOW; fi
    tb=$(median_time "$nb" "$CONVERT" "$TMP/in.tif" -blur "0x$s" "$TMP/blur.tif")
    rmse=$("$CONVERT" "$TMP/rec.tif" "$TMP/blur.tif" -metric RMSE -compare -format '%[distortion]' info: 2>/dev/null || echo "?")
    speed=$(echo "$tb / $tr" | bc -l | awk '{printf "%.1fx", $1}')
    echo "| $s | $tr | $RUNS | $tb | $nb | $speed | $(printf '%.5f' "$rmse" 2>/dev/null || echo "$rmse") |"
done
