#!/usr/bin/env bash
# `recblur presets` lists both kinds of preset on the search path: NAME.preset
# (kind = its op) and NAME.deblur (kind deblur), each name once with the first
# directory on $RECBLUR_PRESET_PATH winning, sorted, hidden files left out, a
# broken file listed as unreadable; and every deblur name it lists loads with
# `recblur deblur --preset NAME` (rb_preset_list / rb_deblur_preset_list).
source "$(dirname "$0")/test_cli_lib.sh"
R="$RECBLUR"

# Two directories: A shadows B's "shared" of both kinds.
A="$T/a" B="$T/b"
mkdir -p "$A" "$B"
"$R" design-deblur --psf-sigma 1.2 --window 4 --out "$A/zeta.deblur" >/dev/null ||
  { echo "design-deblur failed"; exit 1; }
"$R" design-deblur --psf-sigma 2 --window 3 --out "$A/shared.deblur" >/dev/null
"$R" design-deblur --psf-sigma 3 --window 5 --out "$B/shared.deblur" >/dev/null
cp "$A/zeta.deblur" "$B/alpha.deblur"
cp "$A/zeta.deblur" "$A/.hidden.deblur"
printf 'recblur-deblur 1\nwindow = 2\n' >"$B/broken.deblur"
printf 'description = soft A\nop = blur\nsigma = 2\n' >"$A/shared.preset"
printf 'description = soft B\nop = blur\nsigma = 9\n' >"$B/shared.preset"
printf 'description = prefilter\nop = bspline\ndegree = 3\n' >"$B/spline.preset"

RECBLUR_PRESET_PATH="$A:$B" "$R" presets >"$T/list" 2>"$T/err"
rc=$?
cat "$T/list"
if [ $rc = 0 ] && [ ! -s "$T/err" ]; then pass "recblur presets exits 0 quietly"
else fail "recblur presets: exit $rc, stderr $(head -c 200 "$T/err")"; fi

# Rows from this test's directories only (the installed/source ones may add more).
mine() { awk -v k="$1" '$2 == k && ($1 == "alpha" || $1 == "broken" || $1 == "shared" ||
                                    $1 == "spline" || $1 == "zeta" || $1 ~ /hidden/) { print $1 }' "$T/list" | tr '\n' ' '; }
got=$(mine deblur)
if [ "$got" = "alpha broken shared zeta " ]; then pass "deblur presets: each name once, sorted, hidden left out"
else fail "deblur presets listed as '$got', expected 'alpha broken shared zeta '"; fi
got=$(mine blur)$(mine bspline)
if [ "$got" = "shared spline " ]; then pass "filter presets listed with their op"
else fail "filter presets listed as '$got', expected 'shared spline '"; fi
if grep -q "^shared .*soft A" "$T/list" && ! grep -q "soft B" "$T/list"; then
  pass "the first directory on the path wins (.preset)"
else fail "shadowed .preset: $(grep '^shared' "$T/list" | tr '\n' '|')"; fi
if grep -E "^shared +deblur" "$T/list" | grep -q "sigma 2, .*window 3:"; then
  pass "the first directory on the path wins (.deblur: the window 3 design)"
else fail "shadowed .deblur: $(grep -E '^shared +deblur' "$T/list")"; fi
if grep -E "^broken +deblur +\(unreadable: .*broken.deblur" "$T/list" >/dev/null; then
  pass "a broken .deblur is listed as unreadable, naming the file"
else fail "broken .deblur row: $(grep '^broken' "$T/list")"; fi

# Every deblur preset the listing names (shipped ones too) loads by that name.
printf 'PF\n6 5\n-1.0\n' >"$T/in.pfm"
head -c $((6 * 5 * 3 * 4)) /dev/urandom >>"$T/in.pfm"
"$R" blur --sigma 0 --depth 8 "$T/in.pfm" "$T/in.png"
n=0 bad=0
for name in $(awk '$2 == "deblur" && $1 != "broken" { print $1 }' "$T/list"); do
  n=$((n + 1))
  RECBLUR_PRESET_PATH="$A:$B" "$R" deblur --preset "$name" "$T/in.png" "$T/out.png" 2>"$T/err" ||
    { bad=1; echo "  $name: $(cat "$T/err")"; }
done
if [ $bad = 0 ] && [ $n -ge 3 ]; then pass "all $n listed deblur presets load by name"
else fail "listed deblur presets that do not load (of $n)"; fi

# The shipped presets: both kinds appear.
"$R" presets >"$T/shipped"
if grep -qE "^deblur-gauss-1\.5 +deblur " "$T/shipped" && grep -qE "^tileable-blur +blur " "$T/shipped"; then
  pass "shipped presets: deblur-gauss-1.5 (deblur) and tileable-blur (blur) listed"
else fail "shipped presets: $(tr '\n' '|' <"$T/shipped")"; fi

# --help names both kinds.
if "$R" presets --help | grep -q "NAME.deblur"; then pass "presets --help names .deblur files"
else fail "presets --help does not mention .deblur"; fi
finish
