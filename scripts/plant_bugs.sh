#!/usr/bin/env bash
# Plant one bug at a time in a scratch copy of the tree, build it (CUDA off,
# as CI does; incremental after the first build) and run the fast part of the
# test suite; report which bugs the tests catch and which survive. Every
# planted bug must be caught: the exit status is 0 only then.
#
#   scripts/plant_bugs.sh              every bug in the list below
#   scripts/plant_bugs.sh ID...        only those (e.g. periodic_period_off_by_one)
#   scripts/plant_bugs.sh --list       the list, without building anything
#
# PLANT_DIR (default /tmp/recblur_plant) holds the scratch copy and its build;
# it is refreshed from the working tree (tracked and new files) on every run,
# so the first run builds everything once and later runs only what changed.
#
# Each bug is one perl substitution on one file that must match exactly once.
# When code moves and a pattern no longer matches (or matches twice), the bug
# is reported as PATTERN NOT FOUND and the run fails: re-aim the pattern at the
# behaviour its comment names; never count it as caught or survived.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
set +e # a failing build or test is a verdict here, not the end of the run
scratch="${PLANT_DIR:-/tmp/recblur_plant}"
build="$scratch/build"
jobs="$(nproc)"

# The fast suites: the engine against the float64 reference, the CLI, the
# ImageMagick module against the reference. Each bug names its subset; ctest
# stops at the first failure (a caught bug needs no more).
ENGINE='^(test_exact_boundaries|test_hostile|test_engine_api|test_sat_box|test_bspline)$'
SAT='^(test_sat_box|test_engine_api)$'
CLI='^(cli_roundtrip|cli_hostile)$'
MAGICK='^(test_magick_reference)$'

# id @@ file @@ perl substitution (whole file, must match exactly once) @@ ctest regex
# A comment above each says what the bug breaks.
BUGS=(
# The constant boundary's value seen by the row pass must be the value times
# the column pass' DC gain; rb_plan_constants is its one home, for the general
# CPU route, the sweep and both CUDA routes.
"const_row_value_no_column_gain @@ engine/src/api/pixel_convert.c @@ s/const float g = plan->cols\.ax\.active \? \(float\)plan->cols\.ax\.dc_gain : 1\.0f;/const float g = 1.0f;/ @@ $ENGINE"
# The sweep filters x - mean and adds the DC gain times the mean back: a gain
# forced to 1 is wrong for every filter whose DC gain is not 1.
"sweep_mean_shift_gain_forced_to_1 @@ engine/src/cpu/cpu_sweep.c @@ s/a->gain = fs \/ \(sc \* sa\);/a->gain = 1.0L;/ @@ $ENGINE"
# The sweep's FIR loses its last tap (an off-by-one in the tap count).
"sweep_fir_last_tap_dropped @@ engine/src/cpu/cpu_sweep.c @@ s/a->taps = ax->fir_hi - ax->fir_lo \+ 1;/a->taps = ax->fir_hi - ax->fir_lo;/ @@ $ENGINE"
# The periodic closed form (49)/(51) summed with period n + 1: the plan-time
# probe then falls back to the padded route silently (right pixels, far more
# work); only an assertion on the route catches it.
"periodic_period_off_by_one @@ engine/src/exact/axis_plan.c @@ s/2ul \* \(unsigned long\)n : \(unsigned long\)n;/2ul * (unsigned long)n : (unsigned long)n + 1;/ @@ $ENGINE"
# The mirror closed form (67): M67y = S2 (A_F^h + ...) with the sign of A_F^h
# flipped (the probe falls back to the 2n-periodic route).
"mirror_closed_form_sign @@ engine/src/exact/axis_plan.c @@ s/t\[i\] \+= AFh\[i\];/t[i] -= AFh[i];/ @@ $ENGINE"
# The anticausal-only constant epilogue 1 / (1 + sum da) built from the
# causal coefficients instead (a causal/anticausal swap).
"anticausal_dc_from_causal_sum @@ engine/src/exact/axis_plan.c @@ s/out->anticausal_dc = \(double\)\(1\.0L \/ sa\);/out->anticausal_dc = (double)(1.0L \/ sc);/ @@ $ENGINE"
# Line solver, (44): the constant tail C = boundary value times sum(fir)
# without the FIR's gain.
"line_solver_tail_drops_fir_gain @@ engine/src/cpu/line_solver.c @@ s/C1\[l\] = c1\[l\] \* fsum;/C1[l] = c1[l];/ @@ $ENGINE"
# Line solver, mirror closed form: e_{-1}(Y) = A_F^h p(Y) + e_{-1}(Yhat) with
# the sign of the second term flipped.
"line_solver_mirror_state_sign @@ engine/src/cpu/line_solver.c @@ s/st2\[i\] \+= st\[i\];/st2[i] -= st[i];/ @@ $ENGINE"
# Line solver, periodic (51): the anticausal state read one sample late.
"line_solver_periodic_state_off_by_one @@ engine/src/cpu/line_solver.c @@ s/read_state\(y, 0, r, L, st\);/read_state(y, 1, r, L, st);/ @@ $ENGINE"
# Line solver: the mean shift adds back the mean without the DC gain.
"line_solver_mean_shift_gain_forced_to_1 @@ engine/src/cpu/line_solver.c @@ s/gain = fs \/ \(sc \* sa\);/gain = 1.0L;/ @@ $ENGINE"
# Box filter: the window one sample wider on the right (off-by-one).
"box_window_off_by_one @@ engine/src/cpu/box_filter.c @@ s/hi = J->sx - 1 - J->sx \/ 2;/hi = J->sx - J->sx \/ 2;/ @@ $SAT"
# Summed-area table: the column sums not accumulated (each row's running sum
# alone).
"sat_rows_not_accumulated @@ engine/src/api/sat.c @@ s/col\[x \* ch \+ c\] \+= run;/col[x * ch + c] = run;/ @@ $SAT"
# Pixel conversion: straight alpha filtered premultiplied and not divided by
# the filtered alpha afterwards.
"alpha_not_unpremultiplied @@ engine/src/api/pixel_convert.c @@ s/float inv = a > 0\.0f \? 1\.0f \/ a : 0\.0f;/float inv = 1.0f;/ @@ $ENGINE"
# Settings to filter (every front end goes through rb_settings_filter): sigma
# x and sigma y swapped on the way to the designer.
"settings_sigma_xy_swapped @@ engine/src/ops/settings_filter.c @@ s/double sx = rb_settings_number\(s, \x22sigma-x\x22\), sy = rb_settings_number\(s, \x22sigma-y\x22\);/double sy = rb_settings_number(s, \x22sigma-x\x22), sx = rb_settings_number(s, \x22sigma-y\x22);/ @@ $CLI"
# ImageMagick front end: the image's alpha handed over as if it were not
# alpha (colour bleeds in from transparent pixels).
"magick_alpha_not_straight @@ plugin-magick/rb_magick_pixels.c @@ s/\? RB_ALPHA_STRAIGHT/? RB_ALPHA_NONE/ @@ $MAGICK"
)

field() { awk -F' @@ ' -v k="$2" '{print $k}' <<<"$1"; }

# matches FILE SUBST: how many times the substitution's pattern matches FILE.
matches() {
    SUBST="$2" perl -0777 -ne 'my $s = $ENV{SUBST}; my ($pat) = $s =~ m{^s/((?:\\.|[^/\\])*)/};
                               my $n = () = /$pat/g; print $n' "$1"
}

if [ "${1:-}" = --list ]; then # the list, and how often each pattern matches the working tree
    for b in "${BUGS[@]}"; do
        f="$root/$(field "$b" 2)"
        printf '%-42s %-34s %s\n' "$(field "$b" 1)" "$(field "$b" 2)" \
            "$([ -f "$f" ] && matches "$f" "$(field "$b" 3)" || echo 0) match(es)"
    done
    exit 0
fi

echo "plant_bugs: scratch copy in $scratch"
mkdir -p "$scratch/src"
# refresh the scratch copy: tracked and new (not ignored) files of the working tree
# (only files whose content differs are copied: unchanged ones keep their
# mtimes, so the build stays incremental)
while IFS= read -r -d '' f; do
    [ -f "$root/$f" ] || continue
    if ! cmp -s "$root/$f" "$scratch/src/$f"; then
        mkdir -p "$(dirname "$scratch/src/$f")" && cp "$root/$f" "$scratch/src/$f" ||
            { echo "plant_bugs: copy of $f failed"; exit 2; }
    fi
done < <(cd "$root" && git ls-files -z --cached --others --exclude-standard)
# -O1: the planted bugs are about numbers, not speed, and cpu_sweep.c's
# kernels take minutes to compile at -O3 (twice per bug planted there).
cmake -S "$scratch/src" -B "$build" -DRECBLUR_CUDA=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" >"$scratch/configure.log" 2>&1 ||
    { echo "plant_bugs: configure failed (see $scratch/configure.log)"; exit 2; }
echo "plant_bugs: building the clean tree (the first run builds everything)"
cmake --build "$build" -j "$jobs" >"$scratch/build.log" 2>&1 ||
    { echo "plant_bugs: the clean tree does not build (see $scratch/build.log)"; exit 2; }

selected=("$@")
declare -a rows
caught=0 survived=0 broken=0
for b in "${BUGS[@]}"; do
    id=$(field "$b" 1) file=$(field "$b" 2) subst=$(field "$b" 3) subset=$(field "$b" 4)
    if [ ${#selected[@]} -gt 0 ] && [[ " ${selected[*]} " != *" $id "* ]]; then
        continue
    fi
    target="$scratch/src/$file"
    n=$( [ -f "$target" ] && matches "$target" "$subst" || echo 0)
    if [ "$n" != 1 ]; then
        echo "!!! $id: PATTERN NOT FOUND in $file (matched $n times): re-aim it"
        rows+=("$(printf '%-42s %-34s %s' "$id" "$file" "PATTERN NOT FOUND ($n matches)")")
        broken=$((broken + 1))
        continue
    fi
    # The clean objects of this file are kept and put back afterwards with
    # the source's own mtime, so that undoing a bug costs a relink, not a
    # recompile (cpu_sweep.c takes minutes).
    objs=$(find "$build" -path '*CMakeFiles*' -name "$(basename "$file").o")
    for o in $objs; do cp -p "$o" "$o.clean"; done
    cp -p "$target" "$scratch/pristine"
    SUBST="$subst" perl -0777 -pi -e 'eval "\$_ =~ $ENV{SUBST}; 1" or die $@' "$target"
    start=$(date +%s)
    verdict=""
    if ! cmake --build "$build" -j "$jobs" >"$scratch/build_$id.log" 2>&1; then
        verdict="caught (does not build)"
    else
        if ctest --test-dir "$build" -R "$subset" -j "$jobs" --timeout 600 --stop-on-failure \
                >"$scratch/ctest_$id.log" 2>&1; then
            verdict="SURVIVED"
        else
            failed=$(grep -E '^\s+[0-9]+ - ' "$scratch/ctest_$id.log" | sed -E 's/^\s+[0-9]+ - ([^ ]+).*/\1/' |
                     paste -sd, -)
            verdict="caught by ${failed:-?}"
        fi
    fi
    cp -p "$scratch/pristine" "$target"
    for o in $objs; do mv "$o.clean" "$o" && touch "$o"; done # newer than the library: relinked
    secs=$(($(date +%s) - start))
    [ "$verdict" = SURVIVED ] && survived=$((survived + 1)) || caught=$((caught + 1))
    echo "--- $id: $verdict (${secs}s)"
    rows+=("$(printf '%-42s %-34s %s' "$id" "$file" "$verdict")")
done

echo
printf '%-42s %-34s %s\n' "bug" "file" "verdict"
printf '%s\n' "${rows[@]}"
echo
echo "plant_bugs: $caught caught, $survived survived, $broken patterns not found"
[ "$survived" = 0 ] && [ "$broken" = 0 ]
