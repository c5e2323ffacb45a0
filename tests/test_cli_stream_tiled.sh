#!/usr/bin/env bash
# The strip route from a tiled TIFF (issue 18 item 2): a TIFF in tiles (or in
# separate planes) that would need more memory than --memory allows is read a
# row of tiles at a time, twice, with the same pixels as the in-memory route:
# - random images of odd sizes (widths and heights not multiples of the
#   tiles), 8-bit gray, 16-bit RGB, float RGBA, 8-bit RGB; tiles of 16x16,
#   64x32, 32x48, 256x256 made by tiffcp; no compression, deflate (with the
#   horizontal and the floating-point predictor), LZW; separate planes in
#   tiles and in strips (8-bit: tiffcp makes no other);
# - streamed == the in-memory route on the same file; a streamed --sigma 0
#   copy == the untiled source as ImageMagick reads it (the samples and their
#   places themselves); streamed from tiles == in memory from strips;
# - tiles of 24x24 (not the multiple of 16 the spec asks of writers; libtiff
#   and the in-memory route read them): streamed all the same;
# - a tile cut short, tile tables one short, a corrupt deflate tile: exit 1,
#   one line, OUT untouched, no temporary left.
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff: no TIFF tiles"; finish; fi
if ! have_magick; then skip "ImageMagick ($CONVERT) not found: no test pictures"; finish; fi
TIFFCP="${TIFFCP:-$(command -v tiffcp)}"
TIFFINFO="${TIFFINFO:-$(command -v tiffinfo)}"
if [ -z "$TIFFCP" ] || [ -z "$TIFFINFO" ]; then skip "tiffcp/tiffinfo (libtiff-tools) not found: no tiled pictures"; finish; fi
FIX="$SRC/tests/tiled_tiff_fixture.py"

# random samples (uniform noise), odd sizes, in strips; every channel its own
# noise (noise on one gray picture is the same in R, G and B, which would
# hide a sample put in the wrong channel)
noise() { echo "( -size $1 xc:gray -seed $2 +noise Random )"; }
"$CONVERT" $(noise 701x503 11) -type Grayscale -depth 8 "$T/g8.tif"
"$CONVERT" $(noise 301x203 12) $(noise 301x203 22) $(noise 301x203 32) -combine -type TrueColor -depth 16 "$T/rgb16.tif"
"$CONVERT" $(noise 301x203 13) $(noise 301x203 23) $(noise 301x203 33) -combine $(noise 301x203 14) -alpha off \
  -compose CopyOpacity -composite -type TrueColorAlpha -define quantum:format=floating-point -depth 32 \
  "$T/rgbaf.tif" 2>/dev/null # (its "Unknown tag 317": the file is whole)
"$CONVERT" $(noise 517x613 15) $(noise 517x613 25) $(noise 517x613 35) -combine -type TrueColor -depth 8 "$T/rgb8.tif"
# the channels differ (R against G, G against B)
for img in rgb16 rgbaf rgb8; do
  d=$("$CONVERT" "$T/$img.tif" -alpha off -format '%[fx:mean.r == mean.g || p{0,0}.r == p{0,0}.g || p{1,0}.g == p{1,0}.b]' info:)
  [ "$d" = 0 ] && pass "$img.tif: its channels differ" || fail "$img.tif: channels alike"
done

# tiled (and planar) copies by libtiff's own tiffcp: name source tiffcp-options
tiles=(
  "g8_16 g8 -t -w 16 -l 16"
  "g8_64x32z g8 -c zip -t -w 64 -l 32"
  "rgb16_64x32z rgb16 -c zip:2 -t -w 64 -l 32"
  "rgb16_16lzw rgb16 -c lzw -t -w 16 -l 16"
  "rgbaf_64x32z rgbaf -c zip:3 -t -w 64 -l 32"
  "rgbaf_32x48 rgbaf -t -w 32 -l 48"
  "rgb8_256z rgb8 -c zip -t -w 256 -l 256"
  "rgb8_sep64x32z rgb8 -p separate -c zip -t -w 64 -l 32"
  "rgb8_sep7 rgb8 -p separate -c lzw -r 7"
)
for t in "${tiles[@]}"; do
  set -- $t
  name=$1 src=$2; shift 2
  "$TIFFCP" "$@" "$T/$src.tif" "$T/$name.tif" || fail "tiffcp $* $src.tif"
done
# the pictures are what they claim (libtiff's own tiffinfo)
info() { "$TIFFINFO" "$T/$1.tif" 2>/dev/null; }
claim() { # name grep-pattern what
  if info "$1" | grep -q "$2"; then pass "$1.tif: $3"; else fail "$1.tif: not $3: $(info "$1" | tr '\n' ' ')"; fi
}
claim g8_16 "Tile Width: 16 Tile Length: 16" "16x16 tiles"
claim rgb16_64x32z "Tile Width: 64 Tile Length: 32" "64x32 tiles"
claim rgb16_64x32z "Compression Scheme: AdobeDeflate" "deflate"
claim rgb16_64x32z "Bits/Sample: 16" "16-bit"
claim rgb16_16lzw "Compression Scheme: LZW" "LZW"
claim rgbaf_64x32z "Sample Format: IEEE floating point" "float"
claim rgbaf_64x32z "Samples/Pixel: 4" "4 samples a pixel"
claim rgbaf_64x32z "Predictor: floating point" "with the floating-point predictor"
claim rgb8_256z "Tile Width: 256 Tile Length: 256" "256x256 tiles"
claim rgb8_sep64x32z "Planar Configuration: separate" "separate planes"
claim rgb8_sep7 "Planar Configuration: separate" "separate planes"
claim rgb8_sep7 "Rows/Strip: 7" "strips of 7 rows"

# same_pixels A B what [fuzz]: identical samples (within fuzz, ImageMagick's units)
same_pixels() {
  local ae; ae=$(magick_ae -fuzz "${4:-0}" "$1" "$2")
  if [ "$ae" = "0" ]; then pass "$3"; else fail "$3: $ae pixels differ"; fi
}
height() { "$IDENTIFY" -format '%h' "$1[0]" 2>/dev/null; }

# stream NAME ARGS...: blur NAME.tif in strips into str.tif; checks that the
# strip route ran, in bands shorter than the image when it has more than
# one row of tiles, and says how it read IN
stream() {
  local name=$1; shift
  if ! "$R" blur -v "$@" --memory 1 "$T/$name.tif" "$T/str.tif" 2>"$T/err"; then
    fail "$name $*: streamed: $(tail -1 "$T/err")"; return 1
  fi
  if ! grep -q "a band of rows at a time" "$T/err"; then
    fail "$name $*: the strip route did not run: $(cat "$T/err")"; return 1
  fi
  local rows h tl
  rows=$(sed -n 's/.*in bands of \([0-9]*\) rows.*/\1/p' "$T/err")
  h=$(height "$T/$name.tif")
  tl=$(info "$name" | sed -n 's/.*Tile Length: \([0-9]*\).*/\1/p')
  if [ -n "$tl" ] && [ "$tl" -lt "$h" ] && [ "$rows" -ge "$h" ]; then
    fail "$name $*: one band of $rows rows for $h rows of $tl-row tiles"; return 1
  fi
  if [ -n "$tl" ] && ! grep -q "IN in [0-9]*x$tl tiles.*a row of tiles at a time" "$T/err"; then
    fail "$name $*: -v does not say it read tiles: $(grep "back end" "$T/err")"; return 1
  fi
  return 0
}

for t in "${tiles[@]}"; do
  set -- $t
  name=$1 src=$2
  for b in clamp periodic; do
    "$R" blur --sigma 5 --boundary $b "$T/$name.tif" "$T/mem.tif" 2>"$T/err_mem" || fail "$name $b in memory: $(cat "$T/err_mem")"
    stream "$name" --sigma 5 --boundary $b || continue
    rows=$(sed -n 's/.*in bands of \([0-9]*\) rows.*/\1/p' "$T/err")
    # float: equal to float rounding (relative 1e-6 of the range); integers: identical
    if [ "$src" = rgbaf ]; then same_pixels "$T/mem.tif" "$T/str.tif" "$name $b (bands of $rows): streamed == in memory (fuzz 1e-6)" 0.0001%
    else same_pixels "$T/mem.tif" "$T/str.tif" "$name $b (bands of $rows): streamed == in memory"; fi
  done
  # the samples in their places: a streamed copy is the untiled source as ImageMagick reads it
  stream "$name" --sigma 0 && same_pixels "$T/$src.tif" "$T/str.tif" "$name: streamed --sigma 0 copy == $src.tif (untiled)"
done

# from tiles in strips == from strips in memory (the tile reader against the strip reader)
"$R" blur --sigma 9 --boundary mirror "$T/rgb16.tif" "$T/mem.tif"
stream rgb16_64x32z --sigma 9 --boundary mirror && same_pixels "$T/mem.tif" "$T/str.tif" "rgb16: streamed from 64x32 tiles == in memory from strips"
"$R" blur --sigma 9 --boundary zero "$T/rgb8.tif" "$T/mem.tif"
stream rgb8_256z --sigma 9 --boundary zero && same_pixels "$T/mem.tif" "$T/str.tif" "rgb8: streamed from 256x256 tiles == in memory from strips"
# -v says the tile buffer, counted in the band's memory
stream rgb8_256z --sigma 3
grep -q "IN in 256x256 tiles, read a row of tiles at a time into the band (a 192 KiB tile buffer)" "$T/err" \
  && pass "rgb8_256z -v: $(sed -n 's/.*\(IN in .*\)/\1/p' "$T/err")" || fail "rgb8_256z -v: $(grep "back end" "$T/err")"

# tiles of 24x24 (not a multiple of 16), written by tests/tiled_tiff_fixture.py
"$CONVERT" "$T/g8.tif" "$T/g8.pgm"
"$PY" "$FIX" "$T/g8.pgm" "$T/g8_24.tif" 24 24 || fail "fixture g8_24"
"$R" blur --sigma 5 "$T/g8_24.tif" "$T/mem.tif" 2>"$T/err_mem" || fail "g8_24 in memory: $(cat "$T/err_mem")"
stream g8_24 --sigma 5 && same_pixels "$T/mem.tif" "$T/str.tif" "g8_24 (24x24 tiles): streamed == in memory"
stream g8_24 --sigma 0 && same_pixels "$T/g8.tif" "$T/str.tif" "g8_24: streamed --sigma 0 copy == g8.tif"

# broken files: exit 1, one error line that names the fault (the tile: the
# strip route's reader; --memory 1 adds a warning that the limit is not
# kept), OUT as it was, no temporary left
broken() { # file what pattern
  echo keep > "$T/keep.tif"
  "$R" blur --sigma 2 --memory 1 "$T/$1" "$T/keep.tif" 2>"$T/err"; local rc=$?
  grep -v "^recblur: warning: the strips of" "$T/err" > "$T/err1"
  if [ $rc = 1 ] && [ "$(wc -l < "$T/err1")" = 1 ] && [ "$(cat "$T/keep.tif")" = keep ] && grep -q "$3" "$T/err1"; then
    pass "$2: exit 1, one line, OUT untouched: $(cat "$T/err1")"
  else fail "$2: exit $rc, $(cat "$T/err")"; fi
}
"$PY" "$FIX" "$T/g8.pgm" "$T/cut.tif" 32 32 truncated
broken cut.tif "last tile cut short" "bad TIFF: tile .*x 672, y 480"
# tile tables one short: libtiff pads them with a tile of no bytes, which it
# refuses when asked to check (uncompressed, read with a size, it read the
# file's header as the tile)
"$PY" "$FIX" "$T/g8.pgm" "$T/few.tif" 32 32 few
broken few.tif "a tile missing from the tables" "bad TIFF: tile 351 (x 672, y 480): .*Invalid tile byte count"
# a deflate tile's bytes overwritten in the middle of the tile data
cp "$T/g8_64x32z.tif" "$T/bad.tif"
printf '\377%.0s' $(seq 400) | dd of="$T/bad.tif" bs=1 seek=20000 conv=notrunc status=none
broken bad.tif "a corrupt deflate tile" "bad TIFF: tile"
ls -a "$T" | grep -q recblur- && fail "a temporary file was left behind" || pass "no temporary left behind"
finish
