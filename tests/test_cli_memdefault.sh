#!/usr/bin/env bash
# The default memory limit (cli/run.c, memory_rule): on the cpu back end an
# 8-bit TIFF without alpha needing more than 128 MiB is filtered in strips
# (512 MiB for a PNG, read twice there); 16-bit or float samples, alpha, and
# a back end that may be cuda keep the 1 GiB default. --memory overrides it.
# Images just over and under 128 MiB of need (6600^2 and 6400^2 gray); the
# two routes' outputs are the same bytes. Runs with or without a GPU.
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff: no TIFF strips"; finish; fi
if ! have_magick; then skip "ImageMagick ($CONVERT) not found: no test pictures"; finish; fi

"$CONVERT" -size 6600x6600 gradient:'gray(10%)-gray(90%)' -seed 4 -attenuate 0.5 +noise Gaussian \
  -type Grayscale -depth 8 -define tiff:rows-per-strip=16 "$T/big.tif"
"$CONVERT" "$T/big.tif" -crop 6400x6400+0+0 +repage -define tiff:rows-per-strip=16 "$T/small.tif"
[ -s "$T/big.tif" ] && [ -s "$T/small.tif" ] || { fail "test pictures made"; finish; }
O="$T/out.tif"

# route NAME ARGS...: runs `blur -v --sigma 6 ARGS IN OUT` (IN, OUT last in
# ARGS) and prints "strips" or "memory" from its -v lines; the lines in $T/err
route() {
  "$R" blur -v --sigma 6 "$@" 2>"$T/err"
  local rc=$?
  if grep -q "a band of rows at a time" "$T/err"; then echo strips
  elif grep -q "filtered in memory" "$T/err"; then echo memory
  else echo "none (exit $rc: $(tail -1 "$T/err"))"; fi
}
# the samples of two 8-bit gray images, byte for byte (TIFF layouts differ)
same_bytes() {
  "$CONVERT" "$1" gray:"$T/a.raw" && "$CONVERT" "$2" gray:"$T/b.raw" && cmp -s "$T/a.raw" "$T/b.raw"
}

# 8-bit gray TIFF, 131 MiB of need: strips by default on the cpu, in memory
# with --memory 200; the same bytes
r=$(route --backend cpu "$T/big.tif" "$T/strips.tif")
[ "$r" = strips ] && grep -q "more than the 128 MiB it may take (the default for an 8-bit TIFF without alpha on the cpu back end)" "$T/err" \
  && pass "6600^2 8-bit, --backend cpu: strips, past the 128 MiB default" || fail "6600^2 --backend cpu: $r: $(grep input "$T/err")"
r=$(route --backend cpu --memory 200 "$T/big.tif" "$T/mem.tif")
[ "$r" = memory ] && grep -q "within the 200 MiB limit (--memory)" "$T/err" \
  && pass "--memory 200: in memory" || fail "--memory 200: $r: $(grep input "$T/err")"
same_bytes "$T/strips.tif" "$T/mem.tif" && pass "strips == in memory, byte for byte" || fail "strips and in memory differ"

# auto: strips where no GPU is usable, in memory where one is
if "$R" --version | grep -q "cuda (available)"; then
  r=$(route "$T/big.tif" "$O")
  [ "$r" = memory ] && grep -q "usable GPU" "$T/err" && pass "auto with a GPU: in memory" || fail "auto with a GPU: $r"
else
  r=$(route "$T/big.tif" "$T/auto.tif")
  [ "$r" = strips ] && grep -q "no usable GPU" "$T/err" && pass "auto without a GPU: strips" \
    || fail "auto without a GPU: $r: $(grep input "$T/err")"
  same_bytes "$T/auto.tif" "$T/mem.tif" && pass "auto's strips == in memory" || fail "auto's strips differ"
fi
# --backend cuda keeps the 1 GiB default (strips run on the cpu only): in
# memory, whether or not a GPU then takes it
r=$(route --backend cuda "$T/big.tif" "$O")
[ "$r" = memory ] && grep -q "limit (the default with --backend cuda" "$T/err" \
  && pass "--backend cuda: in memory" || fail "--backend cuda: $r: $(grep input "$T/err")"

# under 128 MiB (6400^2: 123 MiB): in memory on the cpu too
r=$(route --backend cpu "$T/small.tif" "$O")
[ "$r" = memory ] && grep -q "within the 128 MiB limit" "$T/err" \
  && pass "6400^2 8-bit: in memory, under the default" || fail "6400^2: $r: $(grep input "$T/err")"

# outside the 8-bit class the default stays 1 GiB: 16-bit output, 16-bit
# input, straight alpha
r=$(route --backend cpu --depth 16 "$T/big.tif" "$O")
[ "$r" = memory ] && grep -q "MiB limit (the default for 16-bit and float samples" "$T/err" \
  && pass "16-bit output: in memory" || fail "16-bit output: $r: $(grep input "$T/err")"
"$R" blur --sigma 0 --depth 16 --memory 4000 "$T/big.tif" "$T/g16.tif" || fail "16-bit picture made"
r=$(route --backend cpu --depth 8 "$T/g16.tif" "$O")
[ "$r" = memory ] && pass "16-bit input, 8-bit output: in memory" || fail "16-bit input: $r: $(grep input "$T/err")"
"$CONVERT" "$T/small.tif" \( +clone -negate \) -alpha off -compose CopyOpacity -composite \
  -type GrayscaleAlpha -depth 8 -define tiff:rows-per-strip=16 "$T/ga.tif"
r=$(route --backend cpu "$T/ga.tif" "$O")
[ "$r" = memory ] && grep -q "the default for images with alpha" "$T/err" \
  && pass "8-bit with alpha (246 MiB): in memory" || fail "8-bit with alpha: $r: $(grep input "$T/err")"

# PNG: read twice on the strip route, so 512 MiB: the same 131 MiB in memory
"$R" blur --sigma 0 --memory 4000 "$T/big.tif" "$T/big.png" || fail "PNG picture made"
r=$(route --backend cpu "$T/big.png" "$T/out.png")
[ "$r" = memory ] && grep -q "within the 512 MiB limit (the default for an 8-bit PNG" "$T/err" \
  && pass "8-bit PNG, 131 MiB: in memory" || fail "8-bit PNG: $r: $(grep input "$T/err")"
r=$(route --backend cpu --memory 64 "$T/big.png" "$T/pstrips.png")
[ "$r" = strips ] && same_bytes "$T/pstrips.png" "$T/out.png" && pass "PNG --memory 64: strips, the same bytes" \
  || fail "PNG --memory 64: $r"
finish
