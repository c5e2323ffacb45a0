#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/) with clang, ASan and UBSan, and
# runs each for a bounded time from its committed seed corpus.
#
#   bash scripts/fuzz.sh                 # every harness, 60 s each
#   FUZZ_TIME=300 bash scripts/fuzz.sh preset signature
#
# Environment: FUZZ_TIME (seconds per harness, default 60), FUZZ_RSS_MB
# (memory limit, default 2048; one allocation above it counts as a crash),
# FUZZ_BUILD_DIR (default build-fuzz), FUZZ_WORK_DIR (default
# $FUZZ_BUILD_DIR/fuzz-work: grown corpora and crash files), CC (default clang-14).
# Exit status: 0 when no harness crashed; 1 otherwise, after printing each
# reproducer (path, bytes, and the command that replays it). A crash input
# belongs in tests/fuzz/regressions/NAME/ once fixed: ctest replays it there.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
work="${FUZZ_WORK_DIR:-$build/fuzz-work}"
time_each="${FUZZ_TIME:-60}"
rss="${FUZZ_RSS_MB:-2048}"
cc="${CC:-clang-14}"
command -v "$cc" >/dev/null || cc=clang
all=(signature preset deblur_preset magick_options cli_options psf image_png image_pfm image_tiff)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# longest input each harness is given (bytes)
max_len_of() {
  case "$1" in
    image_*|deblur_preset|psf) echo 16384 ;;
    *) echo 4096 ;;
  esac
}

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="-g -O1 -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" \
  -DRECBLUR_FUZZ=ON -DRECBLUR_CUDA=OFF -DRECBLUR_GIMP=OFF -DRECBLUR_MAGICK=OFF >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "fuzz_$t"); done
cmake --build "$build" -j "$(nproc)" "${build_targets[@]}"

export RECBLUR_PRESET_PATH="$root/presets"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$work"
export TMPDIR="$work"
failed=()
total_runs=0
printf '%-16s %10s %8s %s\n' harness runs corpus result
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t"
  seeds="$root/tests/fuzz/corpus/$t"
  grown="$work/$t/corpus"
  mkdir -p "$grown" "$work/$t/artifacts"
  log="$work/$t/fuzz.log"
  rc=0
  # grown corpus first (new inputs are written there), the committed seeds read only
  "$bin" -max_total_time="$time_each" -max_len="$(max_len_of "$t")" -rss_limit_mb="$rss" \
    -malloc_limit_mb="$rss" -timeout=20 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$work/$t/artifacts/" "$grown" "$seeds" >"$log" 2>&1 || rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  runs=${runs:-0}
  total_runs=$((total_runs + runs))
  ncorp=$(find "$grown" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    printf '%-16s %10s %8s %s\n' "$t" "$runs" "$ncorp" ok
    continue
  fi
  printf '%-16s %10s %8s %s\n' "$t" "$runs" "$ncorp" "CRASH (exit $rc)"
  failed+=("$t")
  echo "---- $t: last lines of $log"
  grep -E 'ERROR|SUMMARY|fuzz check|runtime error|#[0-9]+ 0x' "$log" | head -40 || tail -40 "$log"
  for a in "$work/$t/artifacts"/*; do
    [ -f "$a" ] || continue
    echo "---- reproducer: $a ($(stat -c %s "$a") bytes)"
    od -An -c "$a" | head -20
    echo "replay: $bin $a"
    echo "        (or in a normal build: build/tests/fuzz/fuzz_$t $a)"
  done
done
echo "fuzz: ${#targets[@]} harnesses x ${time_each}s, $total_runs executions in all"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: CRASHED: ${failed[*]} (inputs and logs in $work)" >&2
  exit 1
fi
echo "fuzz: no crashes"
