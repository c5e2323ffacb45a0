#!/usr/bin/env bash
# The strip route from a PNG (issue 18 item 2): a non-interlaced PNG that
# would need more memory than --memory allows is decoded a band of rows at a
# time, twice (PNG cannot seek: pass 2 decodes it again), into a TIFF or PNG, with
# the same pixels as the in-memory route:
# - 8-bit gray, 2-bit gray, 16-bit RGBA, a palette PNG with tRNS (expanded to
#   RGBA), odd sizes; several boundaries; bands of any height;
# - a --sigma 0 copy streamed equals the PNG as ImageMagick reads it (the
#   samples themselves, not only the two routes agreeing);
# - an interlaced PNG is not read in rows: said, and it runs in memory;
# - PNG output streams too (from PNG or TIFF), the same file byte for byte
#   as the in-memory writer's; PFM output over the limit: said, in memory;
# - a PNG cut short: exit 1, OUT untouched, no temporary left.
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff: the strip route writes TIFF"; finish; fi
if ! have_magick; then skip "ImageMagick ($CONVERT) not found: no test pictures"; finish; fi

"$CONVERT" -size 901x1103 gradient:'gray(10%)-gray(90%)' -seed 4 -attenuate 0.5 +noise Gaussian \
  -type Grayscale -depth 8 "$T/g8.png"
"$CONVERT" -size 1333x917 gradient:'gray(5%)-gray(95%)' -seed 5 -attenuate 0.5 +noise Gaussian \
  -type Grayscale -depth 2 "$T/g2.png"
"$CONVERT" -size 611x977 gradient:'#204060-#e0c080' -seed 3 -attenuate 0.3 +noise Gaussian \
  \( -size 611x977 gradient:'gray(20%)-white' \) -alpha off -compose CopyOpacity -composite \
  -type TrueColorAlpha -depth 16 "$T/rgba16.png"
"$CONVERT" -size 503x701 gradient:'#802020-#20a0f0' -seed 6 -attenuate 0.4 +noise Gaussian \
  \( -size 503x701 xc:white -fill black -draw 'rectangle 100,100 300,400' \) -alpha off \
  -compose CopyOpacity -composite -colors 60 "PNG8:$T/pal.png"
"$CONVERT" "$T/g8.png" -interlace PNG "$T/inter.png"
# the pictures are what they claim (libpng's header: bit depth, colour type, interlace)
hdr() { od -An -tu1 -j24 -N5 "$1" | tr -s ' ' | sed 's/^ //'; }
[ "$(hdr "$T/g8.png")" = "8 0 0 0 0" ] && pass "g8.png: 8-bit gray" || fail "g8.png: $(hdr "$T/g8.png")"
[ "$(hdr "$T/g2.png")" = "2 0 0 0 0" ] && pass "g2.png: 2-bit gray" || fail "g2.png: $(hdr "$T/g2.png")"
[ "$(hdr "$T/rgba16.png")" = "16 6 0 0 0" ] && pass "rgba16.png: 16-bit RGBA" || fail "rgba16.png: $(hdr "$T/rgba16.png")"
[ "$(hdr "$T/pal.png" | cut -d' ' -f2)" = 3 ] && grep -q tRNS "$T/pal.png" && pass "pal.png: palette with tRNS" \
  || fail "pal.png: $(hdr "$T/pal.png")"
[ "$(hdr "$T/inter.png" | cut -d' ' -f5)" = 1 ] && pass "inter.png: Adam7" || fail "inter.png: $(hdr "$T/inter.png")"

# same_pixels A B what: identical samples
same_pixels() {
  local ae; ae=$(magick_ae "$1" "$2")
  if [ "$ae" = "0" ]; then pass "$3"; else fail "$3: $ae pixels differ"; fi
}

for img in g8 g2 rgba16 pal; do
  for b in zero clamp periodic mirror; do
    "$R" blur --sigma 7 --boundary $b "$T/$img.png" "$T/mem.tif" 2>"$T/err_mem" || fail "$img $b in memory: $(cat "$T/err_mem")"
    if ! "$R" blur -v --sigma 7 --boundary $b --memory 1 "$T/$img.png" "$T/str.tif" 2>"$T/err"; then
      fail "$img $b streamed: $(tail -1 "$T/err")"; continue
    fi
    if grep -q "PNG: needs about .*a band of rows at a time" "$T/err" && grep -q "in bands of .*IN decoded twice (PNG)" "$T/err"; then
      rows=$(sed -n 's/.*in bands of \([0-9]*\) rows.*/\1/p' "$T/err")
      h=$("$IDENTIFY" -format %h "$T/$img.png")
      if [ "$rows" -lt "$h" ]; then pass "$img $b: bands of $rows rows of $h"
      else fail "$img $b: one band of $rows rows"; fi
    else
      fail "$img $b: the strip route did not run from the PNG: $(cat "$T/err")"
    fi
    same_pixels "$T/mem.tif" "$T/str.tif" "$img $b: streamed == in memory"
  done
done

# other band heights (any height: no strips to align to), the file work overlapped
for img in g8:3 rgba16:12 pal:5; do
  mem=${img#*:}; img=${img%:*}
  "$R" blur --sigma 4 --boundary clamp "$T/$img.png" "$T/mem.tif"
  "$R" blur -v --sigma 4 --boundary clamp --memory $mem "$T/$img.png" "$T/str.tif" 2>"$T/err" || fail "$img --memory $mem: $(tail -1 "$T/err")"
  grep -q "in bands of .*file work overlapped" "$T/err" && pass "$img --memory $mem: $(sed -n 's/.*\(in bands of [0-9]* rows\).*/\1/p' "$T/err"), overlapped" \
    || fail "$img --memory $mem: $(grep -i "bands\|needs" "$T/err")"
  same_pixels "$T/mem.tif" "$T/str.tif" "$img --memory $mem: streamed == in memory"
done

# the samples themselves: a --sigma 0 copy streamed is the PNG as ImageMagick reads it
for img in g8 rgba16 pal; do
  "$R" blur -v --sigma 0 --memory 1 "$T/$img.png" "$T/copy.tif" 2>"$T/err" || fail "$img copy: $(tail -1 "$T/err")"
  grep -q "a band of rows" "$T/err" || fail "$img copy: not streamed: $(cat "$T/err")"
  same_pixels "$T/$img.png" "$T/copy.tif" "$img: streamed --sigma 0 copy == the PNG"
done

# interlaced: not read in rows, said, and the in-memory route runs
"$R" blur -v --sigma 5 --memory 1 "$T/inter.png" "$T/str.tif" 2>"$T/err"
"$R" blur --sigma 5 "$T/g8.png" "$T/mem.tif"
grep -q "interlaced PNG, not read in rows; the in-memory route runs" "$T/err" && pass "interlaced: said" || fail "interlaced: $(cat "$T/err")"
same_pixels "$T/mem.tif" "$T/str.tif" "interlaced: in memory, same pixels as the plain PNG"
"$R" blur -v --sigma 5 "$T/inter.png" "$T/str.tif" 2>"$T/err"
grep -q "not read in rows" "$T/err" && fail "interlaced under the limit: said needlessly" || pass "interlaced under the limit: nothing said"

# PNG output streamed too, row after row with the in-memory writer's
# settings: the same file, byte for byte (level, strategy, filter, 16-bit order)
for img in g8 rgba16 pal; do
  for c in "" "--compress none" "--level 6"; do
    "$R" blur --sigma 5 $c "$T/$img.png" "$T/mem.png"
    "$R" blur -v --sigma 5 $c --memory 1 "$T/$img.png" "$T/str.png" 2>"$T/err" || fail "$img PNG out $c: $(tail -1 "$T/err")"
    grep -q "a band of rows" "$T/err" && grep -q "output .*PNG" "$T/err" || fail "$img PNG out $c: not streamed: $(cat "$T/err")"
    if [ $img = pal ]; then
      # the routes differ in the colour under alpha 0 (TIFF out as well: the
      # strip route's own unpremultiply), which ImageMagick's count ignores
      same_pixels "$T/mem.png" "$T/str.png" "$img PNG out ${c:-default}: streamed == in memory"
    else
      cmp -s "$T/mem.png" "$T/str.png" && pass "$img PNG out ${c:-default}: streamed file == in-memory file" \
        || fail "$img PNG out ${c:-default}: the files differ"
    fi
  done
done
# the written samples themselves: a streamed --sigma 0 copy, PNG to PNG, is the PNG
for img in g8 rgba16; do
  "$R" blur -v --sigma 0 --memory 1 "$T/$img.png" "$T/copy.png" 2>"$T/err" || fail "$img PNG copy: $(tail -1 "$T/err")"
  grep -q "a band of rows" "$T/err" || fail "$img PNG copy: not streamed"
  same_pixels "$T/$img.png" "$T/copy.png" "$img: streamed --sigma 0 PNG copy == the PNG"
done
# TIFF in, PNG out (16-bit)
"$CONVERT" "$T/rgba16.png" -define tiff:rows-per-strip=9 "$T/rgba16.tif"
"$R" blur --sigma 6 "$T/rgba16.tif" "$T/mem.png"
"$R" blur -v --sigma 6 --memory 1 "$T/rgba16.tif" "$T/str.png" 2>"$T/err" || fail "TIFF to PNG: $(tail -1 "$T/err")"
grep -q "a band of rows" "$T/err" || fail "TIFF to PNG: not streamed"
cmp -s "$T/mem.png" "$T/str.png" && pass "TIFF in, 16-bit PNG out: streamed file == in-memory file" || fail "TIFF to PNG: the files differ"
# PFM output is written whole: said, in memory
"$R" blur -v --sigma 5 --memory 1 "$T/g8.png" "$T/str.pfm" 2>"$T/err"
"$R" blur --sigma 5 "$T/g8.png" "$T/mem.pfm"
grep -q "the strip route writes TIFF and PNG only: PFM output is filtered in memory" "$T/err" && pass "PFM out: said" || fail "PFM out: $(cat "$T/err")"
cmp -s "$T/mem.pfm" "$T/str.pfm" && pass "PFM out: in memory, same file" || fail "PFM out: differs"

# a PNG cut short: exit 1, one line, OUT as it was, no temporary left
head -c 300000 "$T/g8.png" > "$T/cut.png"
echo keep > "$T/keep.tif"
"$R" blur --sigma 2 --memory 2 "$T/cut.png" "$T/keep.tif" 2>"$T/err"; rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && [ "$(cat "$T/keep.tif")" = keep ] && grep -q "truncated PNG" "$T/err"; then
  pass "cut PNG: exit 1, one line, OUT untouched"
else fail "cut PNG: exit $rc, $(cat "$T/err")"; fi
"$R" blur -v --sigma 2 --memory 2 "$T/cut.png" "$T/keep.tif" 2>"$T/err"
grep -q "a band of rows" "$T/err" && pass "cut PNG: it was the strip route" || fail "cut PNG: not streamed: $(cat "$T/err")"
ls -a "$T" | grep -q recblur- && fail "a temporary file was left behind" || pass "no temporary left behind"
finish
