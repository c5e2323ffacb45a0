#!/bin/sh
# Issue 18, "Done when" line 2: an N x N gray 8-bit image (N = 100000 by
# default: 10 GB, made here, not shipped) blurred with the periodic boundary
# by the strip route within a bounded working set; wall time, CPU time
# (user + sys) and peak RSS of the command, from /usr/bin/time -v.
#
#   stream_periodic_huge.sh RECBLUR DIR [N] [MEMORY_MIB] [SIGMA]
#
# First a check on a small image (2000 x 1500, the same recipe): the
# streamed periodic result must equal the in-memory one (the largest
# difference of the two outputs' pixels, by libvips; tests/test_cli_stream.sh
# checks the same on its own pictures).
# Then the big input: uniform random bytes (nothing compresses or filters
# away) as a PGM, converted to an uncompressed BigTIFF by libvips (`vips
# copy`, which streams), the PGM removed; then
#   recblur blur --sigma SIGMA --boundary periodic --memory MEMORY_MIB
#                --compress none IN OUT
# Disk: 2 N^2 bytes at the peak (IN and OUT; 20 GB for N = 100000), plus
# the column carries when they do not fit beside the bands: a file
# in $TMPDIR (else /tmp), unlinked as soon as it is made, 44 bytes a column
# per band (1.6 GB for N = 100000 at 256 MiB: bands of 256 rows); -v's line
# says its size and the bytes written to and read from it. Every file made
# is removed on exit. Run it at low priority on a shared machine:
#   nice -n 19 bench/stream_periodic_huge.sh build/cli/recblur /var/tmp/big
set -eu
rb=$1 dir=$2 n=${3:-100000} mem=${4:-256} sigma=${5:-10}
mkdir -p "$dir"
log=$dir/sph_time.log
trap 'rm -f "$dir/sph_small.pgm" "$dir/sph_small.tif" "$dir/sph_small_mem.tif" \
  "$dir/sph_small_str.tif" "$dir/sph_diff.v" "$dir/sph_absdiff.v" "$dir/sph_in.pgm" \
  "$dir/sph_in.tif" "$dir/sph_out.tif" "$log"' EXIT

# make W H OUT.tif: uniform random 8-bit gray, uncompressed (BigTIFF)
make() {
    pgm=${3%.tif}.pgm
    { printf 'P5\n%s %s\n255\n' "$1" "$2"; head -c $(($1 * $2)) /dev/urandom; } >"$pgm"
    vips copy "$pgm" "$3[bigtiff]"
    rm -f "$pgm"
}

make 2000 1500 "$dir/sph_small.tif"
"$rb" blur --sigma "$sigma" --boundary periodic --compress none "$dir/sph_small.tif" \
    "$dir/sph_small_mem.tif"
"$rb" blur --sigma "$sigma" --boundary periodic --memory 1 --compress none \
    "$dir/sph_small.tif" "$dir/sph_small_str.tif"
# the pixels, not the files (the two routes write strips of other heights)
vips subtract "$dir/sph_small_mem.tif" "$dir/sph_small_str.tif" "$dir/sph_diff.v"
vips abs "$dir/sph_diff.v" "$dir/sph_absdiff.v"
maxdiff=$(vips max "$dir/sph_absdiff.v")
if [ "$(echo "$maxdiff == 0" | bc)" = 1 ]; then
    echo "small check: streamed periodic == in-memory periodic (2000x1500, --memory 1)"
else
    echo "small check FAILED: streamed periodic differs from in-memory by up to $maxdiff" >&2
    exit 1
fi

echo "making the ${n}x${n} input in $dir ($(date -u +%H:%M:%S) UTC)"
make "$n" "$n" "$dir/sph_in.tif"
echo "blurring ($(date -u +%H:%M:%S) UTC): $rb blur --sigma $sigma --boundary periodic" \
    "--memory $mem --compress none"
/usr/bin/time -v "$rb" blur -v --sigma "$sigma" --boundary periodic --memory "$mem" \
    --compress none "$dir/sph_in.tif" "$dir/sph_out.tif" 2>"$log" >/dev/null ||
    { cat "$log" >&2; exit 1; }
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
usr=$(sed -n 's/.*User time (seconds): //p' "$log")
sys=$(sed -n 's/.*System time (seconds): //p' "$log")
grep -E "bands of|time:|File system (in|out)puts" "$log" || true
echo "${n}x${n} gray 8-bit, periodic, sigma $sigma, --memory $mem: wall $wall s," \
    "CPU (user + sys) $(echo "$usr + $sys" | bc) s, peak RSS $((rss / 1000)) MB"
