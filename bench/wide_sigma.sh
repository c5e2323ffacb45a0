#!/usr/bin/env bash
# Execute time of `recblur blur` for wide Gaussians, before/after in one run:
# each case runs with RECBLUR_CPU_PADDED=1 (the padded route, whose work grows
# with sigma) and without (the boundary formula taken from the steady states),
# the two alternating, REPS times; prints the median execute and plan times.
# Usage: bench/wide_sigma.sh RECBLUR_BINARY [REPS] [CASE...]
#   CASE: WIDTHxHEIGHT:SIGMA:BOUNDARY (default: the issue's table)
set -euo pipefail
bin=${1:?usage: wide_sigma.sh RECBLUR_BINARY [REPS] [CASE...]}
reps=${2:-3}
shift $(( $# >= 2 ? 2 : 1 ))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(600x400:20:clamp 600x400:200:clamp 600x400:2000:clamp
                                 600x400:2000:periodic 1500x1000:2000:zero 1500x1000:2000:clamp
                                 1500x1000:2000:periodic 1500x1000:2000:mirror 1500x1000:2000:none)
src=$(cd "$(dirname "$0")/.." && pwd)/samples/texture.png
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
times() { # prints "plan execute" in ms from one verbose run
    "$@" 2>&1 >/dev/null | sed -n 's/.*plan \([0-9.]*\) ms, execute \([0-9.]*\) ms.*/\1 \2/p'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '| image | sigma | boundary | execute before (padded), ms | execute after, ms | plan before, ms | plan after, ms |\n'
printf '|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
    IFS=: read -r size sigma boundary <<<"$c"
    img=$tmp/in_$size.png
    [ -f "$img" ] || convert "$src" -colorspace gray -resize "$size!" -depth 8 "$img"
    : >"$tmp/b" ; : >"$tmp/a"
    for ((i = 0; i < reps; i++)); do
        RECBLUR_CPU_PADDED=1 times "$bin" blur --sigma "$sigma" --boundary "$boundary" --verbose "$img" "$tmp/o.png" >>"$tmp/b"
        times "$bin" blur --sigma "$sigma" --boundary "$boundary" --verbose "$img" "$tmp/o.png" >>"$tmp/a"
    done
    printf '| %s gray 8-bit | %s | %s | %s | %s | %s | %s |\n' "$size" "$sigma" "$boundary" \
        "$(cut -d' ' -f2 "$tmp/b" | median)" "$(cut -d' ' -f2 "$tmp/a" | median)" \
        "$(cut -d' ' -f1 "$tmp/b" | median)" "$(cut -d' ' -f1 "$tmp/a" | median)"
done
