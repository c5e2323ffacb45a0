#!/usr/bin/env bash
# --mask through the CLI (issue 20): weights of the input's samples for
# missing-data filtering.
#  - --mask FILE with weights 0 and 1 is the same computation as NaN at the
#    weight-0 pixels: the two outputs are the same bytes (cmp); the garbage
#    under the mask reaches no output.
#  - --mask alpha: transparent pixels are unknown, filled from the opaque
#    ones: the colour matches NaN-at-transparent filtering (to 8-bit
#    rounding) and the output is opaque.
#  - a mask of another size, or of more than one channel, is a one-line error
#    and no output; a mask of zeros gives an all-NaN output and says so.
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"
px() { PYTHONPATH="$SRC/tests" "$PY" - "$@"; }
if ! "$PY" -c "import numpy" 2>/dev/null; then
  skip "python3-numpy is missing (scripts/deps.sh installs it)"; exit 77
fi

px "$T" <<'PYEOF' || { fail "making the test images"; finish; }
import sys, numpy as np
from pixel_files import write_pfm, write_png
t = sys.argv[1]
rng = np.random.default_rng(7)
h, w = 40, 56
img = rng.uniform(0.0, 1.0, (h, w)).astype(np.float32)
mask = np.ones((h, w), np.float32)
mask[10:18, 20:31] = 0.0                       # a hole
mask[rng.uniform(size=(h, w)) < 0.03] = 0.0    # scattered dead pixels
mask[:, 0] = 0.0                               # a whole edge column
bad = img.copy(); bad[mask == 0] = 1e6         # garbage where the mask says unknown
nan = img.copy(); nan[mask == 0] = np.nan
write_pfm(f"{t}/bad.pfm", bad); write_pfm(f"{t}/nan.pfm", nan)
write_pfm(f"{t}/mask.pfm", mask); write_png(f"{t}/mask.png", (mask * 255).astype(np.uint8))
write_pfm(f"{t}/zeros.pfm", np.zeros((h, w), np.float32))
write_pfm(f"{t}/small.pfm", mask[:-1, :])
write_png(f"{t}/rgb_mask.png", np.dstack([(mask * 255).astype(np.uint8)] * 3))
rgb = rng.uniform(0.0, 0.4, (h, w, 3))
rgba = np.dstack([np.round(rgb * 255), mask * 255]).astype(np.uint8)
rgba[mask == 0, :3] = 255                      # white garbage under transparent pixels
write_png(f"{t}/rgba.png", rgba)
c = (rgba[:, :, :3] / 255.0).astype(np.float32); c[mask == 0] = np.nan
write_pfm(f"{t}/rgb_nan.pfm", c)
PYEOF

# --mask FILE (float PFM, 8-bit PNG) == NaN at the weight-0 pixels, byte for byte
for m in mask.pfm mask.png; do
  for b in clamp zero constant=0.25 periodic mirror none; do
    if "$R" blur --sigma 3 --boundary "$b" --mask "$T/$m" "$T/bad.pfm" "$T/m.pfm" 2>"$T/err" &&
       "$R" blur --sigma 3 --boundary "$b" "$T/nan.pfm" "$T/n.pfm" 2>>"$T/err"; then
      if cmp -s "$T/m.pfm" "$T/n.pfm"; then pass "--mask $m, $b: the bytes of NaN-at-weight-0 filtering"
      else fail "--mask $m, $b: differs from NaN-at-weight-0 filtering"; fi
    else fail "--mask $m, $b: $(cat "$T/err")"; fi
  done
done
px "$T" <<'PYEOF' && pass "--mask: the 1e6 garbage under the mask reaches no output" || fail "--mask: garbage leaked"
import sys, numpy as np
from pixel_files import read_pfm
o = read_pfm(sys.argv[1] + "/m.pfm")
sys.exit(0 if np.isfinite(o).all() and o.max() <= 1.0 + 1e-5 else 1)
PYEOF
# without the mask the garbage spreads (the check above can fail)
"$R" blur --sigma 3 "$T/bad.pfm" "$T/nomask.pfm" 2>"$T/err" || fail "no mask: $(cat "$T/err")"
px "$T" <<'PYEOF' && pass "without --mask the garbage spreads (the check can fail)" || fail "without --mask: no garbage seen"
import sys, numpy as np
from pixel_files import read_pfm
sys.exit(0 if read_pfm(sys.argv[1] + "/nomask.pfm").max() > 10 else 1)
PYEOF
# box takes the mask too
if "$R" box --size 5 --mask "$T/mask.pfm" "$T/bad.pfm" "$T/bm.pfm" 2>"$T/err" &&
   "$R" box --size 5 "$T/nan.pfm" "$T/bn.pfm" 2>>"$T/err" && cmp -s "$T/bm.pfm" "$T/bn.pfm"; then
  pass "box --mask FILE: the bytes of NaN-at-weight-0 filtering"
else fail "box --mask: $(cat "$T/err")"; fi

# --mask alpha: colour from the opaque pixels, output opaque
if "$R" blur --sigma 2.5 --mask alpha "$T/rgba.png" "$T/a.png" 2>"$T/err" &&
   "$R" blur --sigma 2.5 "$T/rgb_nan.pfm" "$T/a_ref.pfm" 2>>"$T/err"; then
  if px "$T" <<'PYEOF'
import sys, numpy as np
from pixel_files import read_png, read_pfm
t = sys.argv[1]
o = read_png(t + "/a.png").astype(np.float64)
ref = read_pfm(t + "/a_ref.pfm")
err = np.abs(o[:, :, :3] / 255.0 - ref).max()
print(f"     alpha as weights: colour within {err * 255:.2f}/255 of NaN-at-transparent, alpha {o[:, :, 3].min():.0f}..{o[:, :, 3].max():.0f}")
sys.exit(0 if err <= 0.51 / 255 and (o[:, :, 3] == 255).all() else 1)
PYEOF
  then pass "--mask alpha: the transparent pixels' white is ignored, the output is opaque"
  else fail "--mask alpha: colour or alpha wrong"; fi
else fail "--mask alpha: $(cat "$T/err")"; fi
rm -f "$T/x.pfm"
if "$R" blur --sigma 2 --mask alpha "$T/bad.pfm" "$T/x.pfm" 2>"$T/err"; then fail "--mask alpha on a gray float image ran"
elif [ "$(wc -l <"$T/err")" = 1 ] && grep -q "no alpha channel" "$T/err" && [ ! -e "$T/x.pfm" ]; then
  pass "--mask alpha without alpha refused: $(cat "$T/err")"
else fail "--mask alpha without alpha: $(cat "$T/err")"; fi

# errors: another size, more than one channel, a missing file: one line, no output
for m in small.pfm rgb_mask.png nosuch.png; do
  rm -f "$T/x.pfm"
  if "$R" blur --sigma 2 --mask "$T/$m" "$T/bad.pfm" "$T/x.pfm" 2>"$T/err"; then fail "--mask $m accepted"
  elif [ "$(wc -l <"$T/err")" = 1 ] && [ ! -e "$T/x.pfm" ]; then pass "--mask $m refused: $(cat "$T/err")"
  else fail "--mask $m: $(cat "$T/err"), output $(ls "$T/x.pfm" 2>&1)"; fi
done
grep -q "is 56x39, the input 56x40" <("$R" blur --sigma 2 --mask "$T/small.pfm" "$T/bad.pfm" "$T/x.pfm" 2>&1) &&
  pass "the size mismatch names both sizes" || fail "the size mismatch message names no sizes"

# a mask of zeros: all NaN, and --verbose says so
if "$R" blur --sigma 2 --mask "$T/zeros.pfm" --verbose "$T/bad.pfm" "$T/z.pfm" 2>"$T/err"; then
  if px "$T" <<'PYEOF'
import sys, numpy as np
from pixel_files import read_pfm
sys.exit(0 if np.isnan(read_pfm(sys.argv[1] + "/z.pfm")).all() else 1)
PYEOF
  then pass "mask of zeros: all NaN out"; else fail "mask of zeros: not all NaN"; fi
  grep -q "every sample is missing (NaN or weight 0)" "$T/err" && pass "mask of zeros: $(grep -o "every sample[^;]*" "$T/err")" ||
    fail "mask of zeros: no message: $(cat "$T/err")"
else fail "mask of zeros: $(cat "$T/err")"; fi

# bspline (negative lobes) refuses a mask
if "$R" bspline --mask "$T/mask.pfm" "$T/bad.pfm" "$T/x.pfm" 2>"$T/err"; then fail "bspline with a mask ran"
elif grep -q "negative lobes" "$T/err"; then pass "bspline --mask refused: $(cat "$T/err")"
else fail "bspline --mask: $(cat "$T/err")"; fi
finish
