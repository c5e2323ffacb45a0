#!/usr/bin/env bash
# Every error exits non-zero with ONE line "recblur: ..." on stderr, writes
# nothing to stdout, and leaves a pre-existing OUT byte-identical (and no
# temporary files behind). --help and --version exit 0.
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"

# A valid small PNG input (written by recblur itself from a PFM made here).
printf 'PF\n4 3\n-1.0\n' >"$T/in.pfm"
head -c $((4 * 3 * 3 * 4)) /dev/zero >>"$T/in.pfm"
"$R" blur --sigma 0 "$T/in.pfm" "$T/in.png" || { echo "cannot make a test PNG"; exit 1; }
"$R" blur --sigma 0 --depth 16 "$T/in.pfm" "$T/in16.png"
big_png() {  # a 300x200 noisy PNG to truncate
  "${CLI_REF:?}" gen 300 200 3 3 "$T/big.pfm" le && "$R" blur --sigma 0 --depth 8 "$T/big.pfm" "$T/big.png"
}
big_png
sz=$(stat -c %s "$T/big.png")
head -c $((sz / 2)) "$T/big.png" >"$T/trunc.png"
head -c 40 "$T/big.png" >"$T/trunc-header.png"
head -c 100 "$T/big.pfm" >"$T/trunc.pfm"
printf 'PF\n100000 100000\n-1.0\n0000' >"$T/lying.pfm"
printf 'PF\n-5 3\n-1.0\n' >"$T/negative.pfm"
printf 'PF\n4 3\nabc\n' >"$T/badscale.pfm"
: >"$T/empty.png"
echo "hello, not an image" >"$T/text.png"
# PNG whose IHDR claims 60000x60000 pixels in a ~100-byte file
"$PY" - "$T/lying.png" <<'PYEOF'
import struct, sys, zlib
def chunk(k, d): return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xffffffff)
data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)) \
     + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(data)
PYEOF
"$R" blur --sigma 0 "$T/in.png" "$T/rgba-src.png"
if have_magick; then "$CONVERT" -size 4x3 'xc:rgba(10,20,30,0.5)' "PNG32:$T/rgba.png"; fi
mkdir -p "$T/dir.png"
echo "a file" >"$T/file"

printf 'description = CLI test: blur sigma 2, periodic\nop = blur\nsigma = 2\nboundary = periodic\n' >"$T/blur.preset"
SENTINEL="$T/sentinel.bin"
printf 'existing OUT file: must survive every failed run\n' >"$SENTINEL"

# expect_error DESCRIPTION OUT ARGS... : OUT is pre-filled with the sentinel
expect_error() {
  local what=$1 out=$2; shift 2
  local dir; dir=$(dirname "$out")
  if [ -d "$dir" ] && [ ! -d "$out" ]; then cp "$SENTINEL" "$out"; fi
  "$R" "$@" >"$T/stdout" 2>"$T/stderr"
  local rc=$?
  local lines; lines=$(wc -l <"$T/stderr")
  local problems=""
  [ $rc -ne 0 ] || problems+=" exit status 0;"
  [ "$lines" -eq 1 ] || problems+=" $lines stderr lines;"
  head -n1 "$T/stderr" | grep -q '^recblur: .' || problems+=" stderr does not start with 'recblur: ';"
  [ ! -s "$T/stdout" ] || problems+=" wrote to stdout;"
  if [ -d "$dir" ] && [ ! -d "$out" ]; then cmp -s "$SENTINEL" "$out" || problems+=" OUT was modified;"; fi
  if [ -d "$dir" ] && ls -A "$dir" | grep -q '\.recblur-'; then problems+=" temporary file left;"; fi
  if [ -z "$problems" ]; then pass "$what -> rc $rc: $(head -n1 "$T/stderr")"
  else fail "$what:$problems stderr: $(head -c 300 "$T/stderr")"; fi
}

O="$T/out.png"
expect_error "no arguments" "$O"
expect_error "unknown command" "$O" frobnicate "$T/in.png" "$O"
expect_error "unknown option" "$O" blur --sigmaa 3 "$T/in.png" "$O"
expect_error "option of another command" "$O" sat --sigma 3 "$T/in.png" "$T/out.pfm"
expect_error "missing value at the end" "$O" blur "$T/in.png" "$O" --sigma
expect_error "empty value" "$O" blur --sigma= "$T/in.png" "$O"
expect_error "malformed sigma 2x" "$O" blur --sigma 2x "$T/in.png" "$O"
expect_error "negative sigma" "$O" blur --sigma -1 "$T/in.png" "$O"
expect_error "sigma nan" "$O" blur --sigma nan "$T/in.png" "$O"
expect_error "sigma 0.2 (below 0.5)" "$O" blur --sigma 0.2 "$T/in.png" "$O"
expect_error "blur without sigma" "$O" blur "$T/in.png" "$O"
expect_error "bad boundary" "$O" blur --sigma 2 --boundary wrap "$T/in.png" "$O"
expect_error "bad constant boundary" "$O" blur --sigma 2 --boundary constant=x "$T/in.png" "$O"
expect_error "bad backend" "$O" blur --sigma 2 --backend quantum "$T/in.png" "$O"
expect_error "bad threads" "$O" blur --sigma 2 --threads -1 "$T/in.png" "$O"
expect_error "bad depth" "$O" blur --sigma 2 --depth 12 "$T/in.png" "$O"
expect_error "unknown preset" "$O" blur --preset no-such-preset-xyz "$T/in.png" "$O"
expect_error "missing preset file" "$O" blur --preset "$T/nope.preset" "$T/in.png" "$O"
expect_error "unstable signature" "$O" filter --signature "1: 1.5" "$T/in.png" "$O"
expect_error "garbled signature" "$O" filter --signature "0.2: zz" "$T/in.png" "$O"
expect_error "filter without signature" "$O" filter "$T/in.png" "$O"
expect_error "bad direction" "$O" filter --signature "0.2: 0.8" --direction up "$T/in.png" "$O"
expect_error "bad axes" "$O" filter --signature "0.2: 0.8" --axes z "$T/in.png" "$O"
expect_error "bspline degree 4" "$O" bspline --degree 4 "$T/in.png" "$O"
expect_error "box size 0" "$O" box --size 0 "$T/in.png" "$O"
expect_error "box size 3.5" "$O" box --size 3.5 "$T/in.png" "$O"
expect_error "missing output" "$O" blur --sigma 2 "$T/in.png"
expect_error "extra argument" "$O" blur --sigma 2 "$T/in.png" "$O" extra
expect_error "missing input file" "$O" blur --sigma 2 "$T/does-not-exist.png" "$O"
expect_error "input is a directory" "$O" blur --sigma 2 "$T" "$O"
expect_error "empty input" "$O" blur --sigma 2 "$T/empty.png" "$O"
expect_error "text file as input" "$O" blur --sigma 2 "$T/text.png" "$O"
expect_error "truncated PNG (half the data)" "$O" blur --sigma 2 "$T/trunc.png" "$O"
expect_error "truncated PNG (header only)" "$O" blur --sigma 2 "$T/trunc-header.png" "$O"
expect_error "PNG header lying about its size" "$O" blur --sigma 2 "$T/lying.png" "$O"
expect_error "truncated PFM" "$O" blur --sigma 2 "$T/trunc.pfm" "$O"
expect_error "PFM header lying about its size" "$O" blur --sigma 2 "$T/lying.pfm" "$O"
expect_error "PFM negative width" "$O" blur --sigma 2 "$T/negative.pfm" "$O"
expect_error "PFM bad scale" "$O" blur --sigma 2 "$T/badscale.pfm" "$O"
expect_error "unsupported output extension" "$T/out.jpg" blur --sigma 2 "$T/in.png" "$T/out.jpg"
expect_error "no output extension" "$T/out" blur --sigma 2 "$T/in.png" "$T/out"
expect_error "output directory missing" "$T/no/such/dir/out.png" blur --sigma 2 "$T/in.png" "$T/no/such/dir/out.png"
expect_error "output under a regular file" "$T/file/out.png" blur --sigma 2 "$T/in.png" "$T/file/out.png"
expect_error "output is a directory" "$T/dir.png" blur --sigma 2 "$T/in.png" "$T/dir.png"
expect_error "sat written as PNG" "$O" sat "$T/in.png" "$O"
expect_error "sat with --boundary" "$T/out.pfm" sat --boundary zero "$T/in.png" "$T/out.pfm"
expect_error "preset of another operation" "$O" sat --preset "$T/blur.preset" "$T/in.png" "$T/out.pfm"
if have_magick; then
  expect_error "alpha image written as PFM" "$T/out.pfm" blur --sigma 2 "$T/rgba.png" "$T/out.pfm"
fi
if ! "$R" --version | grep -q "cuda (available)"; then
  expect_error "--backend cuda without a usable GPU" "$O" blur --sigma 2 --backend cuda "$T/in.png" "$O"
fi
if have_tiff; then
  "$R" blur --sigma 0 --depth 16 "$T/big.pfm" "$T/big.tif"
  tsz=$(stat -c %s "$T/big.tif")
  head -c $((tsz / 2)) "$T/big.tif" >"$T/trunc.tif"
  expect_error "truncated TIFF" "$O" blur --sigma 2 "$T/trunc.tif" "$O"
  head -c 16 "$T/big.tif" >"$T/trunc-header.tif"
  expect_error "TIFF cut inside its header" "$O" blur --sigma 2 "$T/trunc-header.tif" "$O"
else
  expect_error "TIFF output without libtiff" "$T/out.tif" blur --sigma 2 "$T/in.png" "$T/out.tif"
fi

# --- a successful run does replace OUT, and leaves no temporary behind ------------
cp "$SENTINEL" "$O"
if "$R" blur --sigma 1 "$T/in.png" "$O" 2>"$T/stderr" && ! cmp -s "$SENTINEL" "$O" &&
   [ ! -s "$T/stderr" ] && ! ls -A "$T" | grep -q '\.recblur-'; then
  pass "successful run replaces OUT quietly"
else fail "successful run: $(cat "$T/stderr")"; fi

# --- help and version ------------------------------------------------------------
for args in "--help" "-h" "help" "--version" "help blur" "blur --help" "filter --help" \
            "bspline --help" "sat --help" "box --help" "presets --help" "presets"; do
  # shellcheck disable=SC2086
  if "$R" $args >"$T/stdout" 2>"$T/stderr" && [ -s "$T/stdout" ] && [ ! -s "$T/stderr" ]; then
    pass "recblur $args -> exit 0"
  else fail "recblur $args: stderr $(head -c 200 "$T/stderr")"; fi
done
if "$R" --version | grep -q "^recblur [0-9]"; then pass "--version names the version"
else fail "--version output"; fi
finish
