#!/usr/bin/env bash
# Missing data through the CLI (issue 20): a float TIFF with NaN samples
# (made from PFM by the CLI itself: PFM and float TIFF are the float formats
# it reads), filtered with the default --nan missing (finite wherever valid
# data is in reach, --verbose counts the missing samples), with --nan
# propagate (IEEE: the NaN reaches the far corner), and refused for a filter
# with negative lobes (the cubic B-spline prefilter) with a one-line error
# naming --nan propagate and no output written.
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff"; finish; fi

pfm() {
  "$PY" - "$@" <<'PYEOF'
import math, struct, sys
cmd, path = sys.argv[1], sys.argv[2]
if cmd == "make":  # make PATH: 64x64 gray, NaN at (5,5) and at 1 % of the samples
    w = h = 64
    v = []
    for y in range(h):
        for x in range(w):
            s = ((x * 7 + y * 13) % 17) / 16.0
            if (x, y) == (5, 5) or (x * 31 + y * 17) % 97 == 0: s = float("nan")
            v.append(s)
    rows = [v[y * w:(y + 1) * w] for y in range(h)][::-1]
    open(path, "wb").write(b"Pf\n%d %d\n-1.0\n" % (w, h) + b"".join(struct.pack("<%df" % w, *r) for r in rows))
else:  # stats PATH: W H NaN-count far-corner-value
    b = open(path, "rb").read()
    parts = b.split(maxsplit=4)
    w, h, scale = int(parts[1]), int(parts[2]), float(parts[3])
    c = 3 if parts[0] == b"PF" else 1
    v = struct.unpack(("<" if scale < 0 else ">") + "%df" % (w * h * c), b[len(b) - w * h * c * 4:])
    # PFM rows run bottom-up: the far corner (w-1, h-1) is the first row's last sample
    print(w, h, sum(1 for s in v if math.isnan(s)), v[(w - 1) * c])
PYEOF
}

pfm make "$T/in.pfm"
read -r _ _ nans_in _ < <(pfm stats "$T/in.pfm")
"$R" blur --sigma 0 "$T/in.pfm" "$T/in.tif" 2>"$T/err" || fail "PFM -> float TIFF: $(cat "$T/err")"

# default: missing data
if "$R" filter --signature "1: 0.1" --verbose "$T/in.tif" "$T/out.tif" 2>"$T/err"; then
  "$R" blur --sigma 0 "$T/out.tif" "$T/out.pfm" 2>>"$T/err"
  read -r w h nans corner < <(pfm stats "$T/out.pfm")
  if [ "$nans" = 0 ] && [ "$w" = 64 ] && [ "$h" = 64 ]; then
    pass "float TIFF, $nans_in NaN samples, --nan missing (default): no NaN out, far corner $corner"
  else fail "--nan missing: $nans NaN samples out (${w}x$h), far corner $corner"; fi
  if grep -q "$nans_in of 4096 samples missing" "$T/err"; then pass "--verbose: $(grep -o "[0-9]* of 4096 samples missing[^;]*" "$T/err")"
  else fail "--verbose does not count the missing samples: $(cat "$T/err")"; fi
else fail "--nan missing: $(cat "$T/err")"; fi

# --nan propagate: IEEE, the NaN reaches the far corner
if "$R" filter --signature "1: 0.1" --nan propagate "$T/in.tif" "$T/prop.tif" 2>"$T/err" &&
   "$R" blur --sigma 0 "$T/prop.tif" "$T/prop.pfm" 2>>"$T/err"; then
  read -r _ _ nans corner < <(pfm stats "$T/prop.pfm")
  if [ "$corner" = nan ]; then pass "--nan propagate: IEEE spread, $nans NaN samples out, far corner NaN"
  else fail "--nan propagate: far corner $corner"; fi
else fail "--nan propagate: $(cat "$T/err")"; fi

# a bad value is refused naming the choices
if "$R" blur --sigma 2 --nan ignore "$T/in.tif" "$T/x.tif" 2>"$T/err"; then fail "--nan ignore accepted"
elif grep -q "missing or propagate" "$T/err"; then pass "--nan ignore refused: $(head -1 "$T/err")"
else fail "--nan ignore: unclear message: $(cat "$T/err")"; fi

# negative lobes: refused, one line, no output
rm -f "$T/bs.tif"
if "$R" bspline "$T/in.tif" "$T/bs.tif" 2>"$T/err"; then fail "bspline with NaN input ran in missing mode"
elif [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "--nan propagate" "$T/err" && [ ! -e "$T/bs.tif" ]; then
  pass "bspline with NaN input refused: $(cat "$T/err")"
else fail "bspline refusal: $(cat "$T/err"), output $(ls "$T/bs.tif" 2>&1)"; fi
if "$R" bspline --nan propagate "$T/in.tif" "$T/bs.tif" 2>"$T/err"; then pass "bspline --nan propagate runs"
else fail "bspline --nan propagate: $(cat "$T/err")"; fi
finish
