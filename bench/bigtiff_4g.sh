#!/bin/sh
# Issue 18, item 4: an output past 4 GiB, end to end. A W x H gray 8-bit
# image (68000 x 64000 by default: 4.05 GiB, made here, not shipped) is
# blurred twice, by the strip route (--memory 256) and by the in-memory route
# (--memory large enough to hold it: about 10 GB of memory in use, 3 W H
# bytes asked for), both uncompressed. Checked:
#   - both outputs are BigTIFF (version 43 in the header; classic TIFF's
#     32-bit offsets cannot address them);
#   - libvips reads every pixel of both back, and the two pixel streams are
#     equal (md5 of `vips rawsave`: the two routes write strips of other
#     heights, so the files themselves differ);
#   - wall, CPU (user + sys) and peak RSS of each command (/usr/bin/time -v).
#
#   bigtiff_4g.sh RECBLUR DIR [W] [H] [SIGMA]
#
# Disk: 3 W H bytes at the peak (12.2 GB by default). Every file made is
# removed on exit. Run it at low priority on a shared machine:
#   nice -n 19 bench/bigtiff_4g.sh build/cli/recblur /var/tmp/big
set -eu
rb=$1 dir=$2 w=${3:-68000} h=${4:-64000} sigma=${5:-10}
mkdir -p "$dir"
trap 'rm -f "$dir/b4_in.pgm" "$dir/b4_in.tif" "$dir/b4_str.tif" "$dir/b4_mem.tif" \
  "$dir/b4_str.log" "$dir/b4_mem.log"' EXIT

echo "making the ${w}x${h} input ($(date -u +%H:%M:%S) UTC)"
{ printf 'P5\n%s %s\n255\n' "$w" "$h"; head -c $((w * h)) /dev/urandom; } >"$dir/b4_in.pgm"
vips copy "$dir/b4_in.pgm" "$dir/b4_in.tif[bigtiff]"
rm -f "$dir/b4_in.pgm"

# run NAME MEMORY_MIB: one blur, its figures on one line
run() {
    /usr/bin/time -v "$rb" blur -v --sigma "$sigma" --boundary clamp --memory "$2" \
        --compress none "$dir/b4_in.tif" "$dir/b4_$1.tif" 2>"$dir/b4_$1.log" >/dev/null ||
        { cat "$dir/b4_$1.log" >&2; exit 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/b4_$1.log")
    user=$(sed -n 's/.*User time (seconds): //p' "$dir/b4_$1.log")
    sys=$(sed -n 's/.*System time (seconds): //p' "$dir/b4_$1.log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/b4_$1.log")
    route=$(grep -m1 -o 'in bands of [0-9]* rows' "$dir/b4_$1.log" || echo "in memory")
    size=$(stat -c %s "$dir/b4_$1.tif")
    echo "$1: --memory $2: wall $wall, CPU $(echo "$user + $sys" | bc) s, peak $((rss / 1024)) MiB," \
        "output $size bytes ($route)"
    # bytes 2-3 of the header: 42 classic TIFF, 43 BigTIFF (little-endian)
    ver=$(od -An -tu2 -j2 -N2 "$dir/b4_$1.tif" | tr -d ' ')
    [ "$ver" = 43 ] || { echo "$1: not BigTIFF (version $ver)" >&2; exit 1; }
}

echo "strip route ($(date -u +%H:%M:%S) UTC)"
run str 256
echo "in-memory route ($(date -u +%H:%M:%S) UTC)"
# the CLI streams unless the limit holds IN, OUT and 1 byte a sample of the
# CPU sweep's states (cli/run.c, in_memory_bytes)
run mem $(((w * h * 3 >> 20) + 1024))
grep -q 'in bands of' "$dir/b4_mem.log" && { echo "mem: the strip route ran" >&2; exit 1; }
echo "reading both back ($(date -u +%H:%M:%S) UTC)"
a=$(vips rawsave "$dir/b4_str.tif" /dev/stdout | md5sum | cut -d' ' -f1)
b=$(vips rawsave "$dir/b4_mem.tif" /dev/stdout | md5sum | cut -d' ' -f1)
n=$(vips rawsave "$dir/b4_str.tif" /dev/stdout | wc -c)
[ "$n" = $((w * h)) ] || { echo "read back $n bytes, expected $((w * h))" >&2; exit 1; }
if [ "$a" = "$b" ]; then
    echo "both BigTIFF, every one of the $n pixels read back, strip route == in-memory route (md5 $a)"
else
    echo "FAILED: the strip route's pixels differ from the in-memory route's ($a, $b)" >&2
    exit 1
fi
