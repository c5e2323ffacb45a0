#!/usr/bin/env bash
# The CLI's `--backend cuda` against its `--backend cpu` on all cores, one
# machine, whole commands (issue 17 item 3: the cuda execute at least 5x the
# CPU's). For fresh random N x N RGB images, 8-bit and float, uncompressed TIFF
# in and out (bench/cli_cuda_vs_cpu.py writes them with numpy alone), runs
# `recblur blur --sigma 10 --boundary clamp --verbose` RUNS times per back end,
# alternating which goes first; prints the medians of the CLI's own split
# (read / plan / execute / write), of the whole command's wall time, and its
# peak memory; checks that the two back ends' outputs agree; then one run with
# RECBLUR_CUDA_PROFILE=1 for the GPU's steps (that run turns the overlap of
# copies and kernels off: its sum is not the execute time) and one with
# CUDA_MODULE_LOADING=EAGER (the kernels loaded with the context, in the
# plan, instead of at their first launch, in the execute).
#
#   bash bench/cli_cuda_vs_cpu.sh [RECBLUR] [N] [RUNS]
#     RECBLUR  the recblur binary (default build/cli/recblur), built with CUDA
#              and libtiff; N image side (default 8192); RUNS (default 5)
#   env: THREADS  the cpu back end's --threads (default: all cores)
#        FORMATS  "u8 f32" (default both)
#        MEMORY   --memory in MiB (default 8192): an 8192^2 RGB float image
#                 needs 1.8 GB in memory, past the default 1 GiB, and would
#                 take the strip route, which the cuda back end does not run
#        LOGS     directory that keeps every run's --verbose output
#        PY       python3 with numpy; TIME_BIN GNU time (default /usr/bin/time)
# The H100 machines have no libtiff, and the optimised CPU sweep takes them
# > 7 min to build: build here, carry the stripped binary with Debian's
# libtiff and its libraries under LD_LIBRARY_PATH (bench/RESULTS.md,
# 2026-11-27, helper "clicuda").
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
R="${1:-$root/build/cli/recblur}"
N="${2:-8192}"
RUNS="${3:-5}"
THREADS="${THREADS:-$(nproc)}"
FORMATS="${FORMATS:-u8 f32}"
MEMORY="${MEMORY:-8192}"
PY="${PY:-python3}"
TIME_BIN="${TIME_BIN:-/usr/bin/time}"
rb_need_exe "$R" "build recblur with -DRECBLUR_CUDA=ON first"
rb_need_exe "$TIME_BIN" "GNU time: set TIME_BIN"
rb_scratch clicuda
LOGS="${LOGS:-$T/logs}"
mkdir -p "$LOGS"

rb_machine_line
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/# GPU: /'
echo "# $("$R" --version | head -1); sigma 10 clamp; cpu: --threads $THREADS; --memory $MEMORY; $RUNS runs each, alternating"

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# one FMT BACKEND TAG [env...]: one timed run; a row "fmt be wall_ms peak_MB read plan execute write
# minor_faults user_s sys_s" in $T/rows (not for the extra runs, TAG profile or eager). A failed run is said and left out; the others go on.
one() {
  local fmt=$1 be=$2 tag=$3; shift 3
  local args=(blur --sigma 10 --boundary clamp --verbose --memory "$MEMORY" --backend "$be")
  [ "$be" = cpu ] && args+=(--threads "$THREADS")
  local out="$T/out-$fmt-$be.tif" log="$LOGS/$fmt-$be-$tag.log" t0 t1
  rm -f "$out"
  t0=$(date +%s%N)
  env "$@" "$TIME_BIN" -f '%e %M %U %S %R' -o "$T/tv" "$R" "${args[@]}" "$T/in-$fmt.tif" "$out" 2>"$log" ||
    { echo "# FAILED: $fmt $be $tag:"; tail -3 "$log"; return 0; }
  t1=$(date +%s%N)
  local split; split=$(grep -o 'time: read .*' "$log" | tr -dc '0-9. \n' | awk '{print $1, $2, $3, $4}' || true)
  grep -q "back end: $be" "$log" || { echo "# $fmt $be $tag: ran on $(grep -o 'back end: .*' "$log")"; return 0; }
  case $tag in profile | eager) return 0 ;; esac  # not the route as shipped
  echo "$fmt $be $(( (t1 - t0) / 1000000 )) $(awk '{printf "%.0f", $2 / 1024}' "$T/tv") $split $(awk '{print $5, $3, $4}' "$T/tv")" >>"$T/rows"
}

: >"$T/rows"
for fmt in $FORMATS; do
  "$PY" "$root/bench/cli_cuda_vs_cpu.py" make "$fmt" "$N" "$T/in-$fmt.tif" | sed 's/^/# /'
  for ((k = 1; k <= RUNS; k++)); do
    if ((k % 2)); then one "$fmt" cuda "$k"; one "$fmt" cpu "$k"; else one "$fmt" cpu "$k"; one "$fmt" cuda "$k"; fi
  done
  echo "# $fmt: $(grep -o 'back end: .*' "$LOGS/$fmt-cuda-1.log" || true); $(grep -o 'back end: .*' "$LOGS/$fmt-cpu-1.log" || true); $(grep -o 'filter: .*' "$LOGS/$fmt-cpu-1.log" || true)"
  echo "# $fmt outputs, cuda against cpu: $("$PY" "$root/bench/cli_cuda_vs_cpu.py" compare "$T/out-$fmt-cuda.tif" "$T/out-$fmt-cpu.tif")"
  one "$fmt" cuda profile RECBLUR_CUDA_PROFILE=1
  echo "# $fmt, RECBLUR_CUDA_PROFILE=1: $(grep -o 'cuda steps.*' "$LOGS/$fmt-cuda-profile.log")"
  echo "#   that run's split: $(grep -o 'time: read .*' "$LOGS/$fmt-cuda-profile.log")"
  one "$fmt" cuda eager CUDA_MODULE_LOADING=EAGER
  echo "# $fmt, CUDA_MODULE_LOADING=EAGER, split: $(grep -o 'time: read .*' "$LOGS/$fmt-cuda-eager.log")"
  rm -f "$T/in-$fmt.tif"
done

echo
echo "| image | back end | read ms | plan ms | execute ms | write ms | whole command ms | peak MB |"
echo "|---|---|---|---|---|---|---|---|"
col() { awk -v f="$1" -v b="$2" -v c="$3" '$1 == f && $2 == b {print $c}' "$T/rows" | median; }
for fmt in $FORMATS; do
  for be in cuda cpu; do
    echo "| ${N}² RGB $fmt | $be | $(col $fmt $be 5) | $(col $fmt $be 6) | $(col $fmt $be 7) | $(col $fmt $be 8) | $(col $fmt $be 3) | $(awk -v f=$fmt -v b=$be '$1 == f && $2 == b {print $4}' "$T/rows" | sort -g | tail -1) |"
  done
  awk -v f="$fmt" -v g="$(col $fmt cuda 7)" -v c="$(col $fmt cpu 7)" -v wg="$(col $fmt cuda 3)" -v wc="$(col $fmt cpu 3)" \
    'BEGIN {if (g > 0 && wg > 0) printf "# %s: execute cpu / cuda = %.2f; whole command cpu / cuda = %.2f\n", f, c / g, wc / wg}'
  echo "# $fmt: minor page faults, median: cuda $(col $fmt cuda 9), cpu $(col $fmt cpu 9)"
done
echo "# every run (fmt, back end, wall ms, peak MB, read, plan, execute, write, minor faults, user s, sys s):"
sed 's/^/#   /' "$T/rows"
