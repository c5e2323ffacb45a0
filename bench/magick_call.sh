#!/bin/sh
# The ImageMagick module's per-image time against what it cannot avoid: the
# engine's own time plus ImageMagick's own pixel access (issue 17 item 2).
#
# Four whole commands on one image, alternated round by round (A B C A B C ...)
# so that a drifting machine moves them together; per command the median wall:
#   none     convert IN OUT                               ImageMagick's read + write
#   process  convert IN -process 'recblur sigma=S' OUT    the same + the module's call
#   pass     convert IN -evaluate multiply 1 OUT          the same + one pass of
#                                                         ImageMagick's own over every pixel
# and the engine's wall inside the module's call (RECBLUR_CPU_TIMES: the CPU
# sweep's own line on stderr). Then
#   module call        = process - none
#   IM's pixel access  = pass - none     (read and write every pixel through its cache)
#   target             = module call <= 1.3 x (engine + IM's pixel access)
#
# usage: bench/magick_call.sh [BUILD_DIR] [SIGMA]
#   BUILD_DIR holds plugin-magick/recblur.so (default build), SIGMA default 10.
#   Env: RUNS (default 7), SIZE (default 4096), CONVERT (default /usr/bin/convert-im6.q16,
#   the real ImageMagick 6; for ImageMagick 7 give CONVERT=magick, or run
#   bench/magick7_call.sh, which runs this script in the Debian 13 root).
set -eu
BUILD=${1:-build}
SIGMA=${2:-10}
RUNS=${RUNS:-7}
SIZE=${SIZE:-4096}
CONVERT=${CONVERT:-/usr/bin/convert-im6.q16}
MODDIR=$(cd "$BUILD/plugin-magick" && pwd)
[ -f "$MODDIR/recblur.so" ] || { echo "no $MODDIR/recblur.so: build with RECBLUR_MAGICK=ON first" >&2; exit 1; }
export MAGICK_CODER_FILTER_PATH="$MODDIR"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# random 8-bit RGB samples (not a flat image: the filter must do real work),
# uncompressed TIFF, so that the codec is cheap and the same for every command
"$CONVERT" -size "${SIZE}x${SIZE}" xc:white +noise Random -type TrueColor -depth 8 -compress none "$TMP/in.tif"
# (IM6 prints "srgb TrueColor", IM7 "srgb  3.0 TrueColor")
"$CONVERT" "$TMP/in.tif" -format '%[channels] %[type]' info: | grep -q '^srgb .*TrueColor' ||
    { echo "the input is not RGB: $("$CONVERT" "$TMP/in.tif" -format '%[channels] %[type]' info:)" >&2; exit 1; }

now() { date +%s.%N; }
: >"$TMP/none"; : >"$TMP/process"; : >"$TMP/pass"; : >"$TMP/engine"
run() { # run NAME CMD...: one timed run, wall seconds appended to $TMP/NAME
    name=$1; shift
    t0=$(now)
    "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$TMP/$name"
}
i=0
while [ $i -le "$RUNS" ]; do   # round 0 is the warm-up (page cache, module load)
    run none "$CONVERT" "$TMP/in.tif" "$TMP/out_none.tif"
    RECBLUR_CPU_TIMES=1 run process "$CONVERT" "$TMP/in.tif" -process "recblur sigma=$SIGMA" "$TMP/out_rb.tif"
    sed -n 's/^recblur cpu sweep: \([0-9.]*\) s wall.*/\1/p' "$TMP/err" >>"$TMP/engine"
    run pass "$CONVERT" "$TMP/in.tif" -evaluate multiply 1 "$TMP/out_pass.tif"
    if [ $i -eq 0 ]; then
        for f in none process pass engine; do : >"$TMP/$f"; done
    fi
    i=$((i + 1))
done
[ -s "$TMP/engine" ] || { echo "no engine time: did the module run the CPU sweep? (stderr:)" >&2; cat "$TMP/err" >&2; exit 1; }
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
none=$(median "$TMP/none"); process=$(median "$TMP/process"); pass=$(median "$TMP/pass")
engine=$(median "$TMP/engine")
echo "# $("$CONVERT" -version | head -1 | cut -c10-50); ${SIZE}x${SIZE} RGB 8-bit uncompressed TIFF, sigma $SIGMA;"
echo "# $RUNS rounds (after one warm-up), medians of wall seconds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| step | seconds |"
echo "|---|---|"
f3() { printf '%.3f' "$1"; }
echo "| convert IN OUT (read + write) | $(f3 "$none") |"
echo "| convert IN -process 'recblur sigma=$SIGMA' OUT | $(f3 "$process") |"
echo "| convert IN -evaluate multiply 1 OUT | $(f3 "$pass") |"
calc() { awk "BEGIN { printf \"%.${1}f\", $2 }"; }   # calc DIGITS EXPR (no bc in the Debian 13 root)
echo "| module call = process - none | $(calc 3 "$process - $none") |"
echo "| engine inside the call (CPU sweep wall) | $(f3 "$engine") |"
echo "| ImageMagick's pixel access = pass - none | $(calc 3 "$pass - $none") |"
echo "| ratio module call / (engine + pixel access) | $(calc 2 "($process - $none) / ($engine + $pass - $none)") |"
