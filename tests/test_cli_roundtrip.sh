#!/usr/bin/env bash
# CLI round trips through the real binary:
# - PFM float in -> PFM out equals the engine's in-process result bit for bit
#   (both byte orders, gray and RGB, a symmetric blur and an asymmetric causal
#   filter, which would expose a row-order mistake that a symmetric one hides);
# - PNG 8/16-bit and TIFF 8/16-bit/float through an identity filter
#   (sigma 0 on both axes) come back pixel-identical in the same format,
#   checked with ImageMagick as the independent reader;
# - the PFM row order agrees with ImageMagick's PFM reader.
source "$(dirname "$0")/test_cli_lib.sh"
: "${CLI_REF:?}"
R="$RECBLUR"

# --- PFM: bit for bit against the in-process engine ---------------------------
"$CLI_REF" gen 61 37 3 11 "$T/rgb_le.pfm" le
"$CLI_REF" gen 61 37 3 11 "$T/rgb_be.pfm" be
"$CLI_REF" gen 45 29 1 12 "$T/gray_be.pfm" be
for src in rgb_le rgb_be; do
  if "$R" blur --sigma 3.5 --boundary periodic "$T/$src.pfm" "$T/$src-blur.pfm" &&
     "$CLI_REF" check "$T/$src-blur.pfm" 61 37 3 11 blur 3.5 3.5 periodic; then
    pass "PFM $src blur sigma 3.5 periodic is bit-exact"
  else fail "PFM $src blur sigma 3.5 periodic"; fi
done
if "$R" blur --sigma-x 2 --sigma-y 7 --boundary mirror "$T/gray_be.pfm" "$T/gray-blur.pfm" &&
   "$CLI_REF" check "$T/gray-blur.pfm" 45 29 1 12 blur 2 7 mirror; then
  pass "PFM gray (big-endian in) blur 2x7 mirror is bit-exact"
else fail "PFM gray blur 2x7 mirror"; fi
# signatures of DC gain 1.6 and 0.7 (not 1: a unit gain hides a dropped one)
if "$R" filter --signature "0.8: 0.5" --direction causal --axes y --boundary zero \
     "$T/gray_be.pfm" "$T/gray-causal.pfm" &&
   "$CLI_REF" check "$T/gray-causal.pfm" 45 29 1 12 filter "0.8: 0.5" causal y zero; then
  pass "PFM gray causal column filter is bit-exact (row order right)"
else fail "PFM gray causal column filter"; fi
if "$R" filter --signature "0.21: 0.7" --direction anticausal --axes x --boundary clamp \
     "$T/rgb_le.pfm" "$T/rgb-anti.pfm" &&
   "$CLI_REF" check "$T/rgb-anti.pfm" 61 37 3 11 filter "0.21: 0.7" anticausal x clamp; then
  pass "PFM RGB anticausal row filter is bit-exact"
else fail "PFM RGB anticausal row filter"; fi
# --threads changes the split of work, never the numbers
"$R" blur --sigma 4.5 --boundary mirror --threads 1 "$T/rgb_le.pfm" "$T/t1.pfm" &&
"$R" blur --sigma 4.5 --boundary mirror --threads 3 "$T/rgb_le.pfm" "$T/t3.pfm" &&
"$R" blur --sigma 4.5 --boundary mirror --threads 0 "$T/rgb_le.pfm" "$T/t0.pfm"
if cmp -s "$T/t1.pfm" "$T/t3.pfm" && cmp -s "$T/t1.pfm" "$T/t0.pfm"; then
  pass "--threads 1, 3 and all cores give identical files"
else fail "--threads changes the result"; fi
# identity keeps every float, including those outside [0,1]
if "$R" blur --sigma-x 0 --sigma-y 0 "$T/rgb_le.pfm" "$T/rgb-id.pfm" &&
   "$CLI_REF" check "$T/rgb-id.pfm" 61 37 3 11 blur 0 0 clamp &&
   cmp -s "$T/rgb_le.pfm" "$T/rgb-id.pfm"; then
  pass "PFM identity: output file byte-identical to the input (no clamping)"
else fail "PFM identity copy"; fi

# presets: values from the file, explicit options override them
printf 'description = CLI test\nop = blur\nsigma = 2\nboundary = periodic\n' >"$T/blur.preset"
"$R" blur --preset "$T/blur.preset" "$T/rgb_le.pfm" "$T/p1.pfm" &&
"$R" blur --sigma 2 --boundary periodic "$T/rgb_le.pfm" "$T/p2.pfm" &&
"$R" blur --preset "$T/blur.preset" --sigma 3 "$T/rgb_le.pfm" "$T/p3.pfm" &&
"$R" blur --sigma 3 --boundary periodic "$T/rgb_le.pfm" "$T/p4.pfm" &&
"$R" blur --preset "$T/blur.preset" --boundary mirror "$T/rgb_le.pfm" "$T/p5.pfm" &&
"$R" blur --sigma 2 --boundary mirror "$T/rgb_le.pfm" "$T/p6.pfm"
if cmp -s "$T/p1.pfm" "$T/p2.pfm" && cmp -s "$T/p3.pfm" "$T/p4.pfm" && cmp -s "$T/p5.pfm" "$T/p6.pfm" &&
   ! cmp -s "$T/p1.pfm" "$T/p3.pfm" && ! cmp -s "$T/p1.pfm" "$T/p5.pfm"; then
  pass "preset values apply; --sigma and --boundary override them"
else fail "preset merge"; fi

if ! have_magick; then
  skip "PNG/TIFF round trips: ImageMagick ($CONVERT) not found"
  finish
fi

# --- PFM row order agrees with ImageMagick ---------------------------------------
"$R" blur --sigma 0 "$T/rgb_le.pfm" "$T/rgb16.png"
"$CONVERT" "$T/rgb_le.pfm" -depth 16 "$T/rgb16-im.png"
ae=$(magick_ae -fuzz 0.01% "$T/rgb16.png" "$T/rgb16-im.png")
if [ "$ae" = "0" ]; then pass "PFM -> 16-bit PNG matches ImageMagick's reading of the PFM"
else fail "PFM orientation/conversion vs ImageMagick: $ae pixels differ"; fi
if [ "$("$IDENTIFY" -format %z "$T/rgb16.png")" = 16 ]; then pass "float in, PNG out -> 16-bit PNG"
else fail "float -> PNG depth: $("$IDENTIFY" -format %z "$T/rgb16.png")"; fi

# --- PNG / TIFF identity round trips ------------------------------------------------
# Colour: seeded noise; alpha: a gradient that never reaches 0 (colour under
# alpha 0 is undefined after premultiplication).
"$CONVERT" -seed 5 -size 53x41 xc: +noise Random "$T/rgb.miff"
"$CONVERT" -size 53x41 gradient:'gray(8%)-white' "$T/alpha.miff"
"$CONVERT" "$T/rgb.miff" "$T/alpha.miff" -alpha off -compose CopyOpacity -composite "$T/rgba.miff"
make_input() {  # kind depth ext
  local kind=$1 depth=$2 ext=$3 out="$T/$1-$2.$3"
  case $kind in
    gray)  "$CONVERT" "$T/rgb.miff" -colorspace gray -type Grayscale -depth "$depth" "$out" ;;
    graya) "$CONVERT" "$T/rgba.miff" -colorspace gray -type GrayscaleAlpha -depth "$depth" "$out" ;;
    rgb)   "$CONVERT" "$T/rgb.miff" -type TrueColor -depth "$depth" "$out" ;;
    rgba)  "$CONVERT" "$T/rgba.miff" -type TrueColorAlpha -depth "$depth" "$out" ;;
  esac
  echo "$out"
}
formats="png"
if have_tiff; then formats="png tif"; else skip "TIFF round trips: recblur built without libtiff"; fi
for ext in $formats; do
  for depth in 8 16; do
    for kind in gray graya rgb rgba; do
      in=$(make_input $kind $depth $ext)
      out="$T/out-$kind-$depth.$ext"
      if ! "$R" blur --sigma-x 0 --sigma-y 0 "$in" "$out" 2>"$T/err"; then
        fail "$ext $depth-bit $kind: recblur failed: $(cat "$T/err")"; continue
      fi
      ae=$(magick_ae "$in" "$out")
      d_in=$("$IDENTIFY" -format '%z %[channels]' "$in")
      d_out=$("$IDENTIFY" -format '%z %[channels]' "$out")
      if [ "$ae" = "0" ] && [ "$d_in" = "$d_out" ]; then pass "$ext $depth-bit $kind identity round trip ($d_out)"
      else fail "$ext $depth-bit $kind: $ae pixels differ; in '$d_in' out '$d_out'"; fi
    done
  done
done

if have_tiff; then
  # float TIFF: PFM -> TIFF float -> PFM is lossless, and ImageMagick reads the TIFF
  "$R" blur --sigma 0 "$T/rgb_le.pfm" "$T/f32.tif" &&
  "$R" blur --sigma 0 "$T/f32.tif" "$T/f32-back.pfm"
  if cmp -s "$T/rgb_le.pfm" "$T/f32-back.pfm"; then pass "float TIFF round trip is lossless (PFM -> TIFF -> PFM)"
  else fail "float TIFF round trip changed samples"; fi
  if [ "$("$IDENTIFY" -format '%z' "$T/f32.tif")" = 32 ] &&
     [ "$(magick_ae -fuzz 0.01% "$T/f32.tif" "$T/rgb_le.pfm")" = 0 ]; then
    pass "float TIFF is 32-bit and ImageMagick reads the same pixels"
  else fail "float TIFF as read by ImageMagick"; fi
  # 16-bit TIFF blurred == 16-bit PNG blurred (same engine, different codecs)
  in16=$(make_input rgba 16 png)
  "$CONVERT" "$in16" "$T/rgba16.tif"
  "$R" blur --sigma 2.5 "$in16" "$T/b16.png" && "$R" blur --sigma 2.5 "$T/rgba16.tif" "$T/b16.tif"
  if [ "$(magick_ae "$T/b16.png" "$T/b16.tif")" = 0 ]; then pass "16-bit RGBA blur: TIFF and PNG paths agree"
  else fail "16-bit RGBA blur differs between TIFF and PNG"; fi
fi

# --linear: a black|white edge blurred symmetrically. Pixels 63 and 64 mirror
# each other, so their values sum to 1 in the space the filter ran in:
# encoded values without --linear, linear-light values (sRGB decoded) with it.
"$CONVERT" -size 64x8 xc:black -size 64x8 xc:white +append -type Grayscale -depth 8 "$T/edge.png"
"$R" blur --sigma 5 "$T/edge.png" "$T/edge-gamma.png" && "$R" blur --sigma 5 --linear "$T/edge.png" "$T/edge-lin.png"
pair_sums() {  # prints: encoded sum, linear sum
  local a b
  a=$("$CONVERT" "$1" -format '%[fx:p{63,4}.r]' info:); b=$("$CONVERT" "$1" -format '%[fx:p{64,4}.r]' info:)
  awk -v a="$a" -v b="$b" 'function lin(v) { return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ^ 2.4 }
    BEGIN { printf "%.4f %.4f\n", a + b, lin(a) + lin(b) }'
}
read -r g_enc g_lin <<<"$(pair_sums "$T/edge-gamma.png")"
read -r l_enc l_lin <<<"$(pair_sums "$T/edge-lin.png")"
if awk -v ge="$g_enc" -v gl="$g_lin" -v le="$l_enc" -v ll="$l_lin" 'function abs(x) { return x < 0 ? -x : x }
     BEGIN { exit !(abs(ge - 1) < 0.01 && abs(ll - 1) < 0.01 && abs(gl - 1) > 0.05 && abs(le - 1) > 0.05) }'; then
  pass "--linear filters in linear light (edge pair sums: gamma $g_enc encoded, linear $l_lin decoded)"
else fail "--linear: gamma run sums $g_enc (encoded) $g_lin (linear); linear run $l_enc / $l_lin"; fi

# 8-bit PNG -> PFM holds v/255 exactly as ImageMagick reads it
in8=$(make_input rgb 8 png)
if "$R" blur --sigma 0 "$in8" "$T/rgb8.pfm" && [ "$(magick_ae "$in8" "$T/rgb8.pfm")" = 0 ]; then
  pass "8-bit PNG -> PFM keeps the values"
else fail "8-bit PNG -> PFM"; fi
# --depth converts on request
if "$R" blur --sigma 0 --depth 8 "$T/rgb16.png" "$T/rgb8-from16.png" &&
   [ "$("$IDENTIFY" -format %z "$T/rgb8-from16.png")" = 8 ]; then pass "--depth 8 writes 8-bit"
else fail "--depth 8"; fi
finish
