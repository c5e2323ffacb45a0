#!/usr/bin/env bash
# --backend cuda with an image over the in-memory limit (issue 17 item 3): the
# strip route that would bound it runs on the cpu only, so the command stops
# before any filtering with one line that says how much the image needs, what
# the limit is, and the two ways on (--memory N: in memory on cuda;
# --backend auto: strips). The way it names works: with that --memory the
# in-memory route runs (on a GPU machine it filters on cuda; without one it
# meets the ordinary "no GPU" refusal, not the strips' one); --backend auto
# takes the strips. Runs with or without a GPU.
source "$(dirname "$0")/test_cli_lib.sh"
: "${CLI_REF:?}"
R="$RECBLUR"
if ! have_tiff; then skip "recblur built without libtiff: no TIFF strips"; finish; fi

"$CLI_REF" gen 700 1001 1 31 "$T/f.pfm" le
"$R" blur --sigma 0 "$T/f.pfm" "$T/f32.tif" || fail "float TIFF made"
O="$T/out.tif"

rm -f "$O"
"$R" blur -v --sigma 3 --backend cuda --memory 1 "$T/f32.tif" "$O" 2>"$T/err"
rc=$?
msg=$(grep '^recblur: ' "$T/err" || true)
[ "$rc" -eq 1 ] && pass "over --memory with --backend cuda: exit 1" || fail "exit $rc, wanted 1: $(cat "$T/err")"
[ "$(grep -c '^recblur: ' "$T/err")" -eq 1 ] && pass "one error line" || fail "error lines: $(cat "$T/err")"
need=$(sed -n 's/.*needs about \([0-9]*\) MiB in memory, more than the 1 MiB --memory allows.*/\1/p' <<<"$msg")
if [ -n "$need" ] && [ "$need" -gt 1 ]; then pass "says the need ($need MiB) and the limit (1 MiB)"
else fail "need and limit not said: $msg"; fi
for want in "strip route" "cpu back end only" "--memory $need (or more)" "on cuda" "--backend auto"; do
  grep -qF -- "$want" <<<"$msg" && pass "says '$want'" || fail "no '$want' in: $msg"
done
# early: before any plan (no solver chosen, no stream refused)
if grep -q "cuda solver\|rb_stream_create\|a band of rows\|back end:" "$T/err"; then fail "not early: $(cat "$T/err")"
else pass "stops before planning"; fi
[ -e "$O" ] && fail "OUT written" || pass "OUT not written"

# the way on it names: --memory NEED runs in memory
"$R" blur -v --sigma 3 --backend cuda --memory "${need:-8}" "$T/f32.tif" "$O" 2>"$T/err2"
rc=$?
if "$R" --version | grep -q "cuda (available)"; then
  [ "$rc" -eq 0 ] && grep -q "back end: cuda" "$T/err2" && ! grep -q "band of rows" "$T/err2" &&
    pass "--memory $need: in memory on cuda" || fail "--memory $need on a GPU: exit $rc: $(cat "$T/err2")"
else
  if [ "$rc" -eq 1 ] && grep -q "the cuda back end was requested, but" "$T/err2" &&
     ! grep -q "strip" "$T/err2"; then pass "--memory $need: the in-memory route (no GPU here: $(grep -o 'but .*' "$T/err2" | head -c 60))"
  else fail "--memory $need without a GPU: exit $rc: $(cat "$T/err2")"; fi
fi
# and --backend auto takes the strips
rm -f "$O"
if "$R" blur -v --sigma 3 --backend auto --memory 1 "$T/f32.tif" "$O" 2>"$T/err3" && grep -q "a band of rows at a time" "$T/err3"; then
  pass "--backend auto --memory 1: strips"
else fail "--backend auto --memory 1: $(tail -2 "$T/err3")"; fi
finish
