#!/bin/sh
# recblur deblur / design-deblur from the command line: designs, presets,
# PSF files, and one-line errors that leave OUT untouched.
# usage: test_deblur_cli.sh RECBLUR_BINARY DATA_DIR
set -u
BIN=$1
DATA=$2
T=$(mktemp -d /tmp/rb-deblur-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# expect STATUS NEEDLE -- command...: exit status and a one-line stderr containing NEEDLE
expect() {
    want=$1 needle=$2
    shift 3
    "$@" >"$T/out.txt" 2>"$T/err.txt"
    rc=$?
    lines=$(wc -l <"$T/err.txt")
    if [ "$rc" -eq "$want" ] && grep -qF -- "$needle" "$T/err.txt" && [ "$lines" -eq 1 ]; then
        ok "exit $want, \"$needle\": $*"
    else
        bad "expected exit $want with \"$needle\" (one line), got $rc: $(cat "$T/err.txt") :: $*"
    fi
}

IN=$DATA/deblur/camera.png
"$BIN" deblur --psf-sigma 1.5 --window 6 "$IN" "$T/a.png" && [ -s "$T/a.png" ] && ok "deblur --psf-sigma" || bad "deblur --psf-sigma"
"$BIN" design-deblur --psf-sigma 1.5 --window 6 --out "$T/g.deblur" && ok "design-deblur" || bad "design-deblur"
"$BIN" deblur --preset "$T/g.deblur" "$IN" "$T/b.png" && cmp -s "$T/a.png" "$T/b.png" \
    && ok "a saved design gives the same pixels" || bad "preset result differs from the design"
"$BIN" deblur --preset "$T/g.deblur" --threads 1 "$IN" "$T/c.png" && cmp -s "$T/a.png" "$T/c.png" \
    && ok "1 thread gives the same pixels" || bad "thread count changed the pixels"
RECBLUR_PRESET_PATH=$T "$BIN" deblur --preset g "$IN" "$T/d.png" && cmp -s "$T/a.png" "$T/d.png" \
    && ok "preset by name" || bad "preset by name"
"$BIN" deblur --psf-sigma 1.5 --window 6 --fir-only "$IN" "$T/e.png" && ! cmp -s "$T/a.png" "$T/e.png" \
    && ok "--fir-only is a different filter" || bad "--fir-only"
# PFM keeps floats; PSF as a text file and as an image
printf '0 1 0\n1 4 1\n0 1 0\n' >"$T/psf.txt"
"$BIN" deblur --psf "$T/psf.txt" "$IN" "$T/f.pfm" && head -c 2 "$T/f.pfm" | grep -q Pf && ok "--psf text, PFM out" || bad "--psf text"
# the same 3x3 PSF as a PFM image (0.5 ring, 1 centre; little-endian floats) and as text
H='\000\000\000\077' O='\000\000\200\077'
{ printf 'Pf\n3 3\n-1.0\n'; printf "$H$H$H$H$O$H$H$H$H"; } >"$T/psf.pfm"
printf '0.5 0.5 0.5\n0.5 1 0.5\n0.5 0.5 0.5\n' >"$T/psf2.txt"
"$BIN" deblur --psf "$T/psf.pfm" "$IN" "$T/p1.png" && "$BIN" deblur --psf "$T/psf2.txt" "$IN" "$T/p2.png" \
    && cmp -s "$T/p1.png" "$T/p2.png" && ok "--psf PFM image = --psf text" || bad "--psf PFM image vs text"
"$BIN" deblur --psf "$DATA/deblur/../deblur/camera.png" --window 2 "$IN" "$T/x.png" 2>"$T/err.txt"
grep -q "odd" "$T/err.txt" && ok "--psf image with even sides refused" || bad "--psf even image: $(cat "$T/err.txt")"

# errors: one line, right status, OUT untouched
echo keep >"$T/keep.png"
expect 1 "sigma 0.1 out of range" -- "$BIN" deblur --psf-sigma 0.1 "$IN" "$T/keep.png"
grep -q keep "$T/keep.png" && ok "OUT untouched after a failed design" || bad "OUT was overwritten"
expect 2 "bad window '99'" -- "$BIN" deblur --psf-sigma 1 --window 99 "$IN" "$T/keep.png"
expect 2 "exactly one of" -- "$BIN" deblur --psf-sigma 1 --psf "$T/psf.txt" "$IN" "$T/keep.png"
expect 2 "needs IN and OUT" -- "$BIN" deblur --psf-sigma 1 "$IN"
expect 2 "bad noise 'lots'" -- "$BIN" deblur --psf-sigma 1 --noise lots "$IN" "$T/keep.png"
expect 2 "unknown option" -- "$BIN" deblur --psf-sigma 1 --frobnicate "$IN" "$T/keep.png"
expect 2 "--out PRESET is required" -- "$BIN" design-deblur --psf-sigma 1
expect 1 "no-such.png" -- "$BIN" deblur --psf-sigma 1 "$T/no-such.png" "$T/keep.png"
printf '0 1 0\n1 -4 1\n0 1 0\n' >"$T/neg.txt"
expect 1 "negative" -- "$BIN" deblur --psf "$T/neg.txt" "$IN" "$T/keep.png"
printf '0 1 0\n1 4\n' >"$T/ragged.txt"
expect 1 "first row had 3" -- "$BIN" deblur --psf "$T/ragged.txt" "$IN" "$T/keep.png"
printf 'recblur-deblur 1\nwindow = 2\na0 = 1 0 0 0\na1 = 0 0 0 0\na2 = 0 0 0 0\na3 = 0 0 0 0\nb0 = 0 0.6 0.6 0\nb1 = 0 0 0 0\nb2 = 0 0 0 0\nb3 = 0 0 0 0\n' >"$T/unstable.deblur"
expect 1 "unstable.deblur: deblur filter: quadrant 0 recursive part is unstable" -- "$BIN" deblur --preset "$T/unstable.deblur" "$IN" "$T/keep.png"
expect 1 "not found" -- "$BIN" deblur --preset no-such-preset "$IN" "$T/keep.png"
grep -q keep "$T/keep.png" && ok "OUT still untouched" || bad "OUT was overwritten"

[ "$fails" -eq 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" -eq 0 ]
