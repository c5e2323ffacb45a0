#!/usr/bin/env bash
# Regenerates the committed seed corpora in tests/fuzz/corpus/ (small valid
# and near-valid inputs for each harness). Needs ImageMagick 6 (convert-im6.q16)
# for the PNG and TIFF seeds. Run from anywhere; overwrites the seeds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
c="$here/corpus"
IM="$(command -v convert-im6.q16 || command -v convert)"
mkdir -p "$c"/{signature,preset,deblur_preset,cli_options,magick_options,psf,image_png,image_pfm,image_tiff}

# signature: byte 0 = direction + 3*axes + 9*boundary, then the text
sig() { printf "\\x$(printf %02x "$1")%s" "$2" >"$c/signature/$3"; }
sig 0 "0.2: 0.8" plain
sig 1 "(1: 1)" paren-unstable
sig 2 "1, 2, 1: 1.6, -0.64" order2-anticausal
sig 3 ": 0.5" empty-b-x
sig 13 "0.5, 0.5: 0" fir-only
sig 22 "1:" missing-a
sig 31 "0.3,0.4 : -0.1 , 0.05,0.01" order3-periodic
sig 40 "1e-3: 0.999" edge-of-stability
sig 49 "0.1: 0.5, -0.25, 0.125, -0.0625, 0.03125, -0.015625, 0.0078125, -0.00390625" order8
sig 4 "nan: 0.5" nan
sig 5 "0x10: 0.5" hex
sig 6 "constant=0.5" boundary-word
sig 7 "cuda" backend-word
sig 8 "((0.2: 0.8))" double-paren

# presets: the shipped ones plus near-misses
for p in "$root"/presets/*.preset; do cp "$p" "$c/preset/"; done
printf 'op = filter\nsignature = "0.2: 0.8"\ndirection = causal\naxes = x\nboundary = constant=0.25\n' >"$c/preset/filter-causal.preset"
printf 'op = box\nsize-x = 5\nsize-y = 3\nboundary = periodic\n' >"$c/preset/box.preset"
printf 'op = sat\n# comment\n\n' >"$c/preset/sat.preset"
printf 'sigma = 1e9\n' >"$c/preset/huge-sigma.preset"
printf 'sigma = 2\nsigma = 3\n' >"$c/preset/duplicate-key.preset"
printf 'op = bspline\ndegree = 4\n' >"$c/preset/bad-degree.preset"

# deblur presets: the shipped ones, a minimal window-2 one and near-misses
cp "$root"/presets/deblur-gauss-1.deblur "$c/deblur_preset/"
{
  echo "recblur-deblur 1"; echo "description = minimal"; echo "window = 2"; echo "boundary = clamp"
  for q in 0 1 2 3; do echo "a$q = 0.25 0 0 0"; done
  for q in 0 1 2 3; do echo "b$q = 0 0.1 0.1 0"; done
} >"$c/deblur_preset/window2.deblur"
{
  echo "recblur-deblur 1"; echo "window = 2"
  for q in 0 1 2 3; do echo "a$q = 0.25 0 0 0"; done
  for q in 0 1 2 3; do echo "b$q = 0 0.9 0.9 0"; done
} >"$c/deblur_preset/unstable.deblur"
printf 'recblur-deblur 2\nwindow = 2\n' >"$c/deblur_preset/bad-version.deblur"

# CLI options: byte 0 = command (0 blur .. 4 box, 5 deblur, 6 design-deblur), argv split at NUL
cli() { local f="$1"; shift; printf "\\x$(printf %02x "$1")" >"$c/cli_options/$f"; shift
        for a in "$@"; do printf '%s\0' "$a" >>"$c/cli_options/$f"; done; }
cli blur 0 --sigma 2.5 --boundary periodic in.png out.png
cli blur-xy 0 --sigma-x=3 --sigma-y 0 --accurate --linear --depth 16 --threads 2 -v in.tif out.pfm
cli blur-preset 0 --preset gaussian-soft --backend cpu in.png out.png
cli filter 1 --signature "0.2: 0.8" --direction causal --axes y in.png out.png
cli filter-preset 1 --preset tileable-blur in.png out.png
cli bspline 2 --degree 5 --boundary mirror -- -in.png out.png
cli sat 3 --depth float in.png out.tif
cli box 4 --size 7 --size-y=3 --boundary constant=0.5 in.png out.png
cli deblur 5 --psf-sigma 1.5 --window 6 --noise 0.5% --boundary mirror in.png out.png
cli deblur-preset 5 --preset deblur-gauss-1 --threads 1 in.png out.png
cli design 6 --psf-sigma 2 --fir-only --out x.deblur --description "test"
cli help 0 --help

# ImageMagick words: byte 0 = number of defines first (KEY=VALUE), then -process words
mag() { local f="$1"; shift; printf "\\x$(printf %02x "$1")" >"$c/magick_options/$f"; shift
        for a in "$@"; do printf '%s\0' "$a" >>"$c/magick_options/$f"; done; }
mag sigma 0 5
mag sigma-boundary 0 3.5 periodic
mag keys 0 sigma-x=2 sigma-y=0 boundary=constant=0.5 accurate=yes channel=RGB backend=cpu
mag filter 0 op=filter '"signature=0.2:' '0.8"' direction=causal axes=x
mag filter-quoted 0 op=filter "signature='0.2: 0.8'"
mag bspline 0 op=bspline5 boundary=mirror
mag box 0 op=sat-box size=5 size-y=3
mag preset 0 preset=gaussian-wide
mag defines 2 sigma=4 linear=true 2
mag deblur 0 op=deblur preset=deblur-gauss-1
mag bad 0 sigma=abc

# PFM: header + raw floats (little endian with scale -1, big endian with 1)
python3 - "$c/image_pfm" <<'PY'
import struct, sys
d = sys.argv[1]
def pfm(name, tag, w, h, ch, scale, vals, endian, head_extra=b""):
    hdr = b"%s\n%s%d %d\n%s\n" % (tag, head_extra, w, h, scale)
    body = b"".join(struct.pack(endian + "f", v) for v in vals)
    open(f"{d}/{name}", "wb").write(hdr + body)
pfm("rgb-le.pfm", b"PF", 3, 2, 3, b"-1.0", [i / 17 for i in range(18)], "<")
pfm("gray-be.pfm", b"Pf", 4, 3, 1, b"1.0", [i / 11 - 0.3 for i in range(12)], ">")
pfm("gray-nan-inf.pfm", b"Pf", 2, 2, 1, b"-1", [float("nan"), float("inf"), -float("inf"), 0.5], "<")
pfm("comment.pfm", b"Pf", 1, 1, 1, b"-1.0", [0.25], "<", b"# made by make_seeds.sh\n")
open(f"{d}/truncated.pfm", "wb").write(b"PF\n100 100\n-1.0\n" + b"\0" * 40)
open(f"{d}/lying.pfm", "wb").write(b"Pf\n1048576 1048576\n-1.0\n" + b"\0" * 16)
PY

# PNG and TIFF: tiny images in every layout the readers handle
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$IM" -size 5x3 gradient:red-blue "$tmp/rgb.ppm"
"$IM" "$tmp/rgb.ppm" -depth 8 "PNG24:$c/image_png/rgb8.png"
"$IM" "$tmp/rgb.ppm" -depth 16 "PNG48:$c/image_png/rgb16.png"
"$IM" "$tmp/rgb.ppm" -alpha set -channel A -fx 'i/w' +channel "PNG32:$c/image_png/rgba8.png"
"$IM" "$tmp/rgb.ppm" -alpha set -channel A -fx 'j/h' +channel -depth 16 "PNG64:$c/image_png/rgba16.png"
"$IM" "$tmp/rgb.ppm" -colorspace gray -depth 8 "PNG8:$c/image_png/palette.png"
"$IM" "$tmp/rgb.ppm" -colorspace gray -depth 16 -define png:color-type=0 "$c/image_png/gray16.png"
"$IM" "$tmp/rgb.ppm" -colorspace gray -alpha set -define png:color-type=4 "$c/image_png/gray-alpha.png"
"$IM" -size 9x4 pattern:checkerboard -monochrome -define png:bit-depth=1 -define png:color-type=0 "$c/image_png/gray1.png"
"$IM" "$tmp/rgb.ppm" -interlace PNG "PNG24:$c/image_png/interlaced.png"
"$IM" "$tmp/rgb.ppm" -transparent red "$c/image_png/trns.png"
head -c 60 "$c/image_png/rgb8.png" >"$c/image_png/truncated.png"

"$IM" "$tmp/rgb.ppm" -depth 8 -compress none "$c/image_tiff/rgb8-strip.tif"
"$IM" "$tmp/rgb.ppm" -depth 16 -compress zip "$c/image_tiff/rgb16-zip.tif"
"$IM" "$tmp/rgb.ppm" -alpha set -depth 8 -compress lzw "$c/image_tiff/rgba8-lzw.tif"
"$IM" "$tmp/rgb.ppm" -colorspace gray -depth 32 -define quantum:format=floating-point -compress zip -define tiff:predictor=1 "$c/image_tiff/gray-float.tif"
"$IM" "$tmp/rgb.ppm" -depth 8 -interlace plane "$c/image_tiff/rgb8-planar.tif"
"$IM" -size 20x18 gradient: -depth 16 -define tiff:tile-geometry=16x16 "$c/image_tiff/gray16-tiled.tif"
"$IM" "$tmp/rgb.ppm" -colorspace gray -alpha set -depth 8 -compress none "$c/image_tiff/gray-alpha.tif"
head -c 100 "$c/image_tiff/rgb16-zip.tif" >"$c/image_tiff/truncated.tif"

# PSF files of deblur --psf: byte 0 = extension (0 txt, 1 png, 2 pfm, 3 tif), then the file
printf '\x00# 3x3 box\n1 1 1\n1 1 1\n1 1 1\n' >"$c/psf/box3.txt"
printf '\x00 0, 0.25, 0\n0.25, 1, 0.25\n0 0.25 0\n' >"$c/psf/commas.txt"
printf '\x00 1 2\n3\n' >"$c/psf/ragged.txt"
printf '\x00nan 1e400 -1\n' >"$c/psf/nonfinite.txt"
(printf '\x01'; cat "$c/image_png/gray16.png") >"$c/psf/gray16.png"
(printf '\x01'; cat "$c/image_png/rgba8.png") >"$c/psf/alpha.png"
(printf '\x02'; cat "$c/image_pfm/gray-be.pfm") >"$c/psf/gray.pfm"
(printf '\x03'; cat "$c/image_tiff/gray-float.tif") >"$c/psf/gray.tif"
ls -la "$c"/*/ | wc -l
