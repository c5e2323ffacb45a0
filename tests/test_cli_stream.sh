#!/usr/bin/env bash
# The strip route of the CLI (issue 18 item 2, TIFF): a TIFF that would need
# more memory than --memory allows is blurred a band of rows at a time (IN
# read twice, OUT written once), with the same pixels as the in-memory route:
# - 8-bit gray, 16-bit RGBA (straight alpha), 32-bit float gray; every
#   boundary; strips of odd heights in IN; --depth changing the output format;
# - the route is the strip route (verbose says so, with bands shorter than
#   the image), and the in-memory one without --memory;
# - a tiled TIFF streams too (the rest in test_cli_stream_tiled.sh);
# - --memory garbage exits 2 with one line; a broken IN exits 1 and leaves OUT as it was.
source "$(dirname "$0")/test_cli_lib.sh"
: "${CLI_REF:?}"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff: no TIFF strips"; finish; fi
if ! have_magick; then skip "ImageMagick ($CONVERT) not found: no test pictures"; finish; fi

"$CONVERT" -size 900x1100 gradient:'gray(10%)-gray(90%)' -seed 4 -attenuate 0.5 +noise Gaussian \
  -type Grayscale -depth 8 -define tiff:rows-per-strip=7 "$T/g8.tif"
"$CONVERT" -size 611x977 gradient:'#204060-#e0c080' -seed 3 -attenuate 0.3 +noise Gaussian \
  \( -size 611x977 gradient:'gray(20%)-white' \) -alpha off -compose CopyOpacity -composite \
  -type TrueColorAlpha -depth 16 -define tiff:rows-per-strip=5 "$T/rgba16.tif"
"$CLI_REF" gen 700 1001 1 31 "$T/f.pfm" le
"$R" blur --sigma 0 "$T/f.pfm" "$T/f32.tif" || fail "float TIFF made"

# same_pixels A B what [fuzz]: identical samples (within fuzz, ImageMagick's units)
same_pixels() {
  local ae; ae=$(magick_ae -fuzz "${4:-0}" "$1" "$2")
  if [ "$ae" = "0" ]; then pass "$3"; else fail "$3: $ae pixels differ"; fi
}

for img in g8 rgba16 f32; do
  for b in zero constant=0.3 clamp periodic mirror; do
    "$R" blur --sigma 7 --boundary $b "$T/$img.tif" "$T/mem.tif" 2>"$T/err_mem" || fail "$img $b in memory: $(cat "$T/err_mem")"
    if ! "$R" blur -v --sigma 7 --boundary $b --memory 1 "$T/$img.tif" "$T/str.tif" 2>"$T/err"; then
      fail "$img $b strips: $(tail -1 "$T/err")"; continue
    fi
    if grep -q "a band of rows at a time" "$T/err" && grep -q "in bands of" "$T/err"; then
      rows=$(sed -n 's/.*in bands of \([0-9]*\) rows.*/\1/p' "$T/err")
      h=$("$IDENTIFY" -format %h "$T/$img.tif")
      if [ "$rows" -lt "$h" ]; then pass "$img $b: bands of $rows rows of $h"
      else fail "$img $b: one band of $rows rows, not strips"; fi
    else
      fail "$img $b: the strip route did not run: $(cat "$T/err")"
    fi
    # float: equal to float rounding (relative 1e-6 of the range); integers: identical
    if [ "$img" = f32 ]; then same_pixels "$T/mem.tif" "$T/str.tif" "$img $b: streamed == in memory (fuzz 1e-6)" 0.0001%
    else same_pixels "$T/mem.tif" "$T/str.tif" "$img $b: streamed == in memory"; fi
  done
done

# the reads and writes overlap the filtering (two band buffers, a band's
# output over its input), with the same pixels, at any limit
for img in g8:3 rgba16:12; do
  mem=${img#*:}; img=${img%:*}
  for b in clamp periodic; do
    "$R" blur --sigma 7 --boundary $b "$T/$img.tif" "$T/mem.tif"
    "$R" blur -v --sigma 7 --boundary $b --memory $mem "$T/$img.tif" "$T/str.tif" 2>"$T/err" || fail "$img $b overlapped: $(tail -1 "$T/err")"
    grep -q "in bands of .*file work overlapped" "$T/err" && pass "$img $b: file work overlapped" || fail "$img $b: not overlapped: $(grep bands "$T/err")"
    same_pixels "$T/mem.tif" "$T/str.tif" "$img $b overlapped: streamed == in memory"
  done
done
"$R" blur -v --sigma 7 --memory 1 "$T/g8.tif" "$T/str.tif" 2>"$T/err"
grep -q "file work overlapped" "$T/err" && pass "--memory 1: file work overlapped" || fail "--memory 1: not overlapped: $(grep bands "$T/err")"
# a limit that fits says nothing (one that no band keeps: the wide image below)
"$R" blur --sigma 7 --memory 3 "$T/g8.tif" "$T/str.tif" 2>"$T/err"
[ -s "$T/err" ] && fail "--memory 3: said something: $(cat "$T/err")" || pass "--memory 3: kept, nothing said"
# there the carries fit beside the bands: they stay in memory
"$R" blur -v --sigma 7 --memory 3 "$T/g8.tif" "$T/str.tif" 2>"$T/err"
grep -q "in bands of .*; the carries in memory: [0-9.]* MiB" "$T/err" && pass "--memory 3: the carries in memory" \
  || fail "--memory 3: the carries not in memory: $(grep "back end" "$T/err")"

# the carries in a temporary file: a wide image whose carries alone pass
# --memory 1 says where they went (TMPDIR, unlinked at once: the directory
# stays empty), with the pixels of the in-memory route; a TMPDIR that cannot
# take them stops the command with one line naming it, OUT as it was
"$CONVERT" -size 5000x240 gradient:'gray(5%)-gray(95%)' -seed 5 -attenuate 0.6 +noise Gaussian \
  -type Grayscale -depth 8 -define tiff:rows-per-strip=3 "$T/wide.tif"
mkdir -p "$T/carries"
for b in clamp periodic mirror; do
  "$R" blur --sigma 6 --boundary $b "$T/wide.tif" "$T/mem.tif"
  TMPDIR="$T/carries" "$R" blur -v --sigma 6 --boundary $b --memory 1 "$T/wide.tif" "$T/str.tif" 2>"$T/err" \
    || fail "wide $b --memory 1: $(tail -1 "$T/err")"
  if grep -q "the carries in a temporary file in $T/carries: [0-9.]* MiB, [0-9.]* MiB written, [0-9.]* MiB read" "$T/err"; then
    pass "wide $b --memory 1: the carries went to a file ($(sed -n 's/.*the carries in a temporary file in [^:]*: //p' "$T/err"))"
  else
    fail "wide $b --memory 1: not said that the carries went to a file: $(grep "back end" "$T/err")"
  fi
  same_pixels "$T/mem.tif" "$T/str.tif" "wide $b: carries in a file, streamed == in memory"
done
# 1 MiB is less than one band of this width needs even so (the rows kept
# for the FIR's reach): said in one warning line, and the blur went on
grep -q "^recblur: warning: .*even with their column carries in a temporary file, more than the 1.0 MiB memory limit" "$T/err" \
  && pass "wide --memory 1: the limit not kept is said" || fail "wide --memory 1: no warning that the limit is not kept: $(cat "$T/err")"
[ -z "$(ls -A "$T/carries")" ] && pass "the carries' file left nothing behind" || fail "left in TMPDIR: $(ls "$T/carries")"
echo keep > "$T/keep.tif"
TMPDIR="$T/no/such/dir" "$R" blur --sigma 6 --memory 1 "$T/wide.tif" "$T/keep.tif" 2>"$T/err"; rc=$?
# (one error line after the warning that 1 MiB cannot be kept)
if [ $rc = 1 ] && [ "$(grep -vc "^recblur: warning:" "$T/err")" = 1 ] \
   && grep -q "temporary file for the strips' carries in $T/no/such/dir" "$T/err" \
   && [ "$(cat "$T/keep.tif")" = keep ]; then pass "unwritable TMPDIR: exit 1, one line, OUT untouched"
else fail "unwritable TMPDIR: exit $rc, $(cat "$T/err")"; fi

# the in-memory estimate (cli/run.c in_memory_bytes): blur and bspline run
# the CPU sweep, IN + OUT + at most 1 byte a sample of column states (+ band
# buffers): 3.7 MiB for this 900x1100 8-bit image, which then stays in memory
# under --memory 5 (IN + OUT + a float copy would say 5.7 MiB and stream);
# a filter that the sweep may not take keeps the float copy: strips
"$R" blur -v --sigma 7 --memory 5 "$T/g8.tif" "$T/mem5.tif" 2>"$T/err"
if grep -q "a band of rows" "$T/err"; then fail "blur --memory 5: strips ran: $(grep needs "$T/err")"; else pass "blur --memory 5: in memory"; fi
"$R" bspline -v --memory 4 "$T/g8.tif" "$T/mem5.tif" 2>"$T/err"
if grep -q "a band of rows" "$T/err"; then fail "bspline --memory 4: strips ran: $(grep needs "$T/err")"; else pass "bspline --memory 4: in memory"; fi
"$R" blur -v --sigma 7 --memory 3 "$T/g8.tif" "$T/mem5.tif" 2>"$T/err"
grep -q "needs about 3 MiB in memory, more than the 3 MiB.*a band of rows" "$T/err" && pass "blur --memory 3: needs 3 MiB, strips" \
  || fail "blur --memory 3: $(grep -i "needs\|band" "$T/err")"
"$R" filter --signature "0.3: 0.7" -v --memory 5 "$T/g8.tif" "$T/mem5.tif" 2>"$T/err"
grep -q "needs about 5 MiB in memory.*a band of rows" "$T/err" && pass "filter --memory 5: the float copy counted, strips" \
  || fail "filter --memory 5: $(grep -i "needs\|band" "$T/err")"

# without --memory (and far below 1 GiB) the in-memory route runs
"$R" blur -v --sigma 3 "$T/g8.tif" "$T/mem.tif" 2>"$T/err"
if grep -q "a band of rows" "$T/err"; then fail "no --memory: strips ran"; else pass "no --memory: in memory"; fi

# the output format may differ from the input's
"$R" blur --sigma 4 --depth 16 "$T/g8.tif" "$T/mem.tif"
"$R" blur --sigma 4 --depth 16 --memory 1 "$T/g8.tif" "$T/str.tif"
same_pixels "$T/mem.tif" "$T/str.tif" "8-bit in, 16-bit out: streamed == in memory"
[ "$("$IDENTIFY" -format %z "$T/str.tif")" = 16 ] && pass "--depth 16 reached the strips" || fail "--depth 16 lost"

# a tiled TIFF (ImageMagick's tiles) streams too: tests/test_cli_stream_tiled.sh has the rest
"$CONVERT" "$T/g8.tif" -define tiff:tile-geometry=128x128 "$T/tiled.tif"
"$R" blur -v --sigma 5 --memory 1 "$T/tiled.tif" "$T/str.tif" 2>"$T/err"
"$R" blur --sigma 5 "$T/tiled.tif" "$T/mem.tif"
grep -q "IN in 128x128 tiles" "$T/err" && pass "tiled: streamed" || fail "tiled: $(cat "$T/err")"
same_pixels "$T/mem.tif" "$T/str.tif" "tiled: streamed == in memory"

# a filter the engine cannot run in strips (mirror with a causal-only column
# pass: its exact route runs the mirrored 2h line): said, and run in memory
"$R" filter --signature "0.3: 0.7" --direction causal --boundary mirror -v --memory 1 "$T/g8.tif" "$T/str.tif" 2>"$T/err"
"$R" filter --signature "0.3: 0.7" --direction causal --boundary mirror "$T/g8.tif" "$T/mem.tif"
grep -q "strips cannot run this plan.*the in-memory route runs" "$T/err" && pass "not streamable: said" || fail "not streamable: $(cat "$T/err")"
same_pixels "$T/mem.tif" "$T/str.tif" "not streamable: in memory all the same"

# --memory garbage: usage error, one line
for bad in 0 -5 abc 12x ""; do
  "$R" blur --sigma 2 --memory "$bad" "$T/g8.tif" "$T/x.tif" 2>"$T/err"; rc=$?
  if [ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q -- "--memory" "$T/err"; then pass "--memory '$bad': exit 2, one line"
  else fail "--memory '$bad': exit $rc: $(cat "$T/err")"; fi
done

# a TIFF cut short: exit 1, one line, OUT as it was
head -c 400000 "$T/g8.tif" > "$T/cut.tif"
echo keep > "$T/keep.tif"
"$R" blur --sigma 2 --memory 1 "$T/cut.tif" "$T/keep.tif" 2>"$T/err"; rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && [ "$(cat "$T/keep.tif")" = keep ]; then pass "cut TIFF: exit 1, OUT untouched"
else fail "cut TIFF: exit $rc, $(cat "$T/err")"; fi
ls -a "$T" | grep -q recblur- && fail "a temporary file was left behind" || pass "no temporary left behind"
finish
