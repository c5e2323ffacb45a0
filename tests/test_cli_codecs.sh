#!/usr/bin/env bash
# Output compression through the real binary:
# - every TIFF compression recblur writes (none, deflate, lzw, packbits, zstd,
#   lzma) at 8, 16 and 32-bit float, gray to RGBA, reads back with the same
#   pixels (ImageMagick as the independent reader; float also bit for bit
#   through PFM), and the file says that compression (tiffinfo);
# - --level reaches the codec (deflate 9 and zstd 19 files are smaller than
#   level 1 on a compressible image, and read back the same);
# - the output keeps the input's compression: uncompressed in, uncompressed out;
#   LZW in, LZW out; deflate with predictor in, the same out; PNG in -> deflate
#   TIFF; PFM in -> uncompressed TIFF;
# - PNG at deflate levels 1 and 9 and stored (--compress none) round-trips at
#   8 and 16 bits, gray to RGBA;
# - TIFFs in strips of any height, in tiles and in separate planes read right;
# - bad values (--compress foo, a level out of range, a method the format
#   cannot hold) exit 2 with one line and leave OUT as it was.
source "$(dirname "$0")/test_cli_lib.sh"
: "${CLI_REF:?}"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff: no TIFF compression to test"; finish; fi
if ! have_magick; then skip "ImageMagick ($CONVERT) not found: no independent reader"; finish; fi
TIFFINFO="${TIFFINFO:-$(command -v tiffinfo || true)}"

# The compression tag as tiffinfo names it ("None", "AdobeDeflate", ...) and the predictor.
tiff_scheme() { "$TIFFINFO" "$1" 2>/dev/null | sed -n 's/^ *Compression Scheme: *//p' | head -1; }
tiff_predictor() { "$TIFFINFO" "$1" 2>/dev/null | sed -n 's/^ *Predictor: *\([a-z ]*\).*/\1/p' | head -1 | sed 's/ *$//'; }
expect_scheme() { # file expected-scheme what
  if [ -z "$TIFFINFO" ]; then return 0; fi
  local got; got=$(tiff_scheme "$1")
  if [ "$got" = "$2" ]; then pass "$3: compression $got"
  else fail "$3: compression is '$got', expected '$2'"; fi
}
[ -n "$TIFFINFO" ] || skip "tiffinfo (libtiff-tools) not found: compression tags are not checked"

# A compressible test picture (gradient + shapes + mild noise, as photos are)
# with an alpha that never reaches 0, 131 x 97: several strips at 16 bits.
"$CONVERT" -size 131x97 gradient:'#204060-#e0c080' -fill '#c03030' -draw 'circle 60,50 60,20' \
  -fill '#30a040' -draw 'rectangle 5,60 40,90' -seed 3 -attenuate 0.15 +noise Gaussian "$T/rgb.miff"
"$CONVERT" -size 131x97 gradient:'gray(10%)-white' -rotate 90 -resize 131x97! "$T/alpha.miff"
"$CONVERT" "$T/rgb.miff" "$T/alpha.miff" -alpha off -compose CopyOpacity -composite "$T/rgba.miff"
make_input() {  # kind depth ext [extra convert options]
  local kind=$1 depth=$2 ext=$3 out="$T/$1-$2.$3"; shift 3
  case $kind in
    gray)  "$CONVERT" "$T/rgb.miff" -colorspace gray -type Grayscale -depth "$depth" "$@" "$out" ;;
    graya) "$CONVERT" "$T/rgba.miff" -colorspace gray -type GrayscaleAlpha -depth "$depth" "$@" "$out" ;;
    rgb)   "$CONVERT" "$T/rgb.miff" -type TrueColor -depth "$depth" "$@" "$out" ;;
    rgba)  "$CONVERT" "$T/rgba.miff" -type TrueColorAlpha -depth "$depth" "$@" "$out" ;;
  esac
  echo "$out"
}

# --- every TIFF compression, every depth, round trip ------------------------------
declare -A scheme=([none]=None [deflate]=AdobeDeflate [lzw]=LZW [packbits]=PackBits [zstd]=ZSTD [lzma]=LZMA)
"$CLI_REF" gen 131 97 3 21 "$T/f32.pfm" le
"$CLI_REF" gen 131 97 1 22 "$T/f32g.pfm" le
for method in none deflate lzw packbits zstd lzma; do
  if ! "$R" blur --sigma 0 --compress $method "$(make_input rgb 8 png)" "$T/probe.tif" 2>"$T/err"; then
    if grep -q "cannot write it" "$T/err"; then skip "TIFF $method: this libtiff cannot write it"
    else fail "TIFF $method: $(cat "$T/err")"; fi
    continue
  fi
  for depth in 8 16; do
    for kind in gray graya rgb rgba; do
      in=$(make_input $kind $depth png)
      out="$T/c-$method-$kind-$depth.tif"
      if ! "$R" blur --sigma-x 0 --sigma-y 0 --compress $method "$in" "$out" 2>"$T/err"; then
        fail "TIFF $method $depth-bit $kind: recblur failed: $(cat "$T/err")"; continue
      fi
      ae=$(magick_ae "$in" "$out")
      d_in=$("$IDENTIFY" -format '%z %[channels]' "$in"); d_out=$("$IDENTIFY" -format '%z %[channels]' "$out")
      if [ "$ae" = 0 ] && [ "$d_in" = "$d_out" ]; then pass "TIFF $method $depth-bit $kind round trip ($d_out)"
      else fail "TIFF $method $depth-bit $kind: $ae pixels differ; in '$d_in' out '$d_out'"; fi
    done
  done
  expect_scheme "$T/c-$method-rgba-16.tif" "${scheme[$method]}" "TIFF --compress $method"
  for src in f32 f32g; do
    if "$R" blur --sigma 0 --compress $method "$T/$src.pfm" "$T/$src-$method.tif" &&
       "$R" blur --sigma 0 "$T/$src-$method.tif" "$T/$src-$method-back.pfm" &&
       cmp -s "$T/$src.pfm" "$T/$src-$method-back.pfm" &&
       [ "$(magick_ae -fuzz 0.01% "$T/$src-$method.tif" "$T/$src.pfm")" = 0 ]; then
      pass "TIFF $method float ($src) round trip is bit for bit, and ImageMagick agrees"
    else fail "TIFF $method float ($src) round trip"; fi
  done
done
if [ -n "$TIFFINFO" ]; then
  p8=$(tiff_predictor "$T/c-deflate-rgb-8.tif"); pf=$(tiff_predictor "$T/f32-deflate.tif")
  if [ "$p8" = "horizontal differencing" ] && [ "$pf" = "floating point predictor" ]; then
    pass "--compress deflate uses the horizontal predictor (8-bit) and the floating-point one (float)"
  else fail "predictors: 8-bit '$p8', float '$pf'"; fi
fi

# --- levels reach the codec --------------------------------------------------------
# (on a noiseless picture: noise leaves a higher level nothing to find)
"$CONVERT" -size 400x300 gradient:'#103050-#f0d0a0' -fill '#c03030' -draw 'circle 200,150 200,60' \
  -fill '#30a040' -draw 'rectangle 20,200 120,280' -fill black -pointsize 40 -draw "text 150,280 'recblur'" \
  -type TrueColor -depth 8 "$T/smooth.png"
in="$T/smooth.png"
for pair in "deflate 1 9" "zstd 1 19"; do
  read -r method lo hi <<<"$pair"
  if "$R" blur --sigma 2 --compress $method --level "$lo" "$in" "$T/lv-lo.tif" &&
     "$R" blur --sigma 2 --compress=$method --level="$hi" "$in" "$T/lv-hi.tif"; then
    s_lo=$(stat -c %s "$T/lv-lo.tif"); s_hi=$(stat -c %s "$T/lv-hi.tif")
    ae=$(magick_ae "$T/lv-lo.tif" "$T/lv-hi.tif")
    if [ "$s_hi" -lt "$s_lo" ] && [ "$ae" = 0 ]; then
      pass "$method level $hi ($s_hi bytes) is smaller than level $lo ($s_lo), same pixels"
    else fail "$method levels: $lo -> $s_lo bytes, $hi -> $s_hi bytes, $ae pixels differ"; fi
  else fail "$method --level $lo/$hi: recblur failed"; fi
done

# --- the output keeps the input's compression ---------------------------------------
keep() { # input-convert-options expected-scheme expected-predictor what
  local opts=$1 want=$2 want_pred=$3 what=$4
  # shellcheck disable=SC2086
  "$CONVERT" "$T/rgb.miff" -type TrueColor -depth 8 $opts "$T/keep-in.tif"
  if ! "$R" blur --sigma 1.5 "$T/keep-in.tif" "$T/keep-out.tif" 2>"$T/err"; then
    fail "$what: recblur failed: $(cat "$T/err")"; return
  fi
  expect_scheme "$T/keep-out.tif" "$want" "$what"
  if [ -n "$TIFFINFO" ] && [ -n "$want_pred" ]; then
    local got; got=$(tiff_predictor "$T/keep-out.tif")
    if [ "$got" = "$want_pred" ]; then pass "$what: predictor kept ($got)"
    else fail "$what: predictor '$got', expected '$want_pred'"; fi
  fi
}
keep "-compress none" None "" "uncompressed TIFF in -> uncompressed out"
keep "-compress lzw" LZW "" "LZW TIFF in -> LZW out"
keep "-compress zip -define tiff:predictor=2" AdobeDeflate "horizontal differencing" \
  "deflate+predictor TIFF in -> the same out"
keep "-compress rle" PackBits "" "PackBits TIFF in -> PackBits out"
"$R" blur --sigma 0 "$(make_input rgb 8 png)" "$T/from-png.tif" && expect_scheme "$T/from-png.tif" AdobeDeflate "PNG in -> deflate TIFF"
"$R" blur --sigma 0 "$T/f32.pfm" "$T/from-pfm.tif" && expect_scheme "$T/from-pfm.tif" None "PFM in -> uncompressed TIFF"
"$CONVERT" "$T/rgb.miff" -type TrueColor -depth 8 -compress none "$T/none.tif"
"$R" blur --sigma 0 --compress lzw "$T/none.tif" "$T/asked.tif" && expect_scheme "$T/asked.tif" LZW "--compress overrides the input's"
s_none=$(stat -c %s "$T/none.tif"); s_copy=0
"$R" blur --sigma 0 "$T/none.tif" "$T/none-copy.tif" && s_copy=$(stat -c %s "$T/none-copy.tif")
if [ "$s_copy" -ge $((131 * 97 * 3)) ] && [ "$(magick_ae "$T/none.tif" "$T/none-copy.tif")" = 0 ]; then
  pass "uncompressed copy holds every byte ($s_copy bytes; input $s_none) and the same pixels"
else fail "uncompressed copy: $s_copy bytes"; fi

# --- PNG levels and stored -------------------------------------------------------------
for depth in 8 16; do
  for kind in gray graya rgb rgba; do
    in=$(make_input $kind $depth png)
    ok=1
    for c in "--level 1" "--level 9" "--compress deflate --level 6" "--compress none"; do
      # shellcheck disable=SC2086
      if ! "$R" blur --sigma 0 $c "$in" "$T/p.png" 2>"$T/err" || [ "$(magick_ae "$in" "$T/p.png")" != 0 ] ||
         [ "$("$IDENTIFY" -format '%z %[channels]' "$in")" != "$("$IDENTIFY" -format '%z %[channels]' "$T/p.png")" ]; then
        ok=0; fail "PNG $depth-bit $kind with $c: $(cat "$T/err")"
      fi
    done
    [ $ok = 1 ] && pass "PNG $depth-bit $kind round-trips at deflate 1, 6, 9 and stored"
  done
done
in=$(make_input rgb 8 png)
"$R" blur --sigma 0 --compress none "$in" "$T/stored.png"; "$R" blur --sigma 0 "$in" "$T/deflated.png"
s_st=$(stat -c %s "$T/stored.png"); s_df=$(stat -c %s "$T/deflated.png")
if [ "$s_st" -gt $((131 * 97 * 3)) ] && [ "$s_df" -lt "$s_st" ]; then
  pass "PNG --compress none stores the rows ($s_st bytes); the default deflates ($s_df bytes)"
else fail "PNG stored $s_st bytes, default $s_df bytes"; fi

# --- TIFF layouts on reading ---------------------------------------------------------
ref=$(make_input rgba 16 png)
for layout in "-define tiff:rows-per-strip=1" "-define tiff:rows-per-strip=7" "-define tiff:rows-per-strip=1000" \
              "-define tiff:tile-geometry=32x48" "-interlace plane" "-interlace plane -define tiff:rows-per-strip=5" \
              "-compress zip -define tiff:rows-per-strip=9" "-endian MSB -compress lzw"; do
  # shellcheck disable=SC2086
  "$CONVERT" "$ref" $layout "$T/layout.tif"
  if "$R" blur --sigma 0 "$T/layout.tif" "$T/layout-out.png" 2>"$T/err" &&
     [ "$(magick_ae "$ref" "$T/layout-out.png")" = 0 ]; then pass "TIFF read: $layout"
  else fail "TIFF read: $layout: $(cat "$T/err")"; fi
done

# --- bad values: exit 2, one line, OUT as it was -------------------------------------
in=$(make_input rgb 8 tif -compress none)
printf 'previous contents\n' >"$T/keep.tif"; cp "$T/keep.tif" "$T/keep.png"; cp "$T/keep.tif" "$T/keep.pfm"
bad() { # what, out, args...
  local what=$1 out=$2; shift 2
  local rc=0
  "$R" blur --sigma 1 "$in" "$out" "$@" >"$T/out" 2>"$T/err" || rc=$?
  if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] && cmp -s "$out" "$T/keep.tif"; then
    pass "$what: exit 2, one line: $(cat "$T/err")"
  else fail "$what: exit $rc, stderr: $(cat "$T/err"), OUT $(cmp -s "$out" "$T/keep.tif" && echo kept || echo changed)"; fi
}
bad "--compress foo" "$T/keep.tif" --compress foo
bad "--compress with no value" "$T/keep.tif" --compress
bad "--level 10 for deflate" "$T/keep.tif" --compress deflate --level 10
bad "--level 0 for deflate" "$T/keep.tif" --compress deflate --level 0
bad "--level 23" "$T/keep.tif" --compress zstd --level 23
bad "--level abc" "$T/keep.tif" --level abc
bad "--level for lzw" "$T/keep.tif" --compress lzw --level 3
bad "--level on an uncompressed input kept" "$T/keep.tif" --level 3
bad "--compress lzw for PNG" "$T/keep.png" --compress lzw
bad "--compress deflate for PFM" "$T/keep.pfm" --compress deflate
bad "--level for PFM" "$T/keep.pfm" --level 2
finish
