#!/usr/bin/env bash
# Sanitizer stage: builds the whole tree with AddressSanitizer + UndefinedBehavior-
# Sanitizer (-fno-sanitize-recover=all: any report fails the test) in build-asan
# (or $RECBLUR_ASAN_BUILD_DIR), CUDA off, the plug-ins as found (AUTO, as CI builds
# them), and runs the whole ctest suite:
#   1. every test of our own code (engine, CLI, fuzz replays, the in-process
#      ImageMagick module test, ...) with leak detection on;
#   2. the tests that drive real hosts: `convert` (ImageMagick 6) and `gegl`
#      load our sanitized modules, so the ASan runtime is preloaded into them (LD_PRELOAD;
#      an instrumented .so cannot be dlopen'ed into an uninstrumented process
#      otherwise); the GIMP plug-in is our own executable, sanitized itself,
#      started by an uninstrumented GIMP. Leak checking is off in this pass only:
#      it would report the hosts' own allocations (ImageMagick, GLib/GTK) that
#      they never free at exit, not ours.
# Passes 2 and 3 run their tests side by side, as scripts/test.sh does: each
# GIMP test has its own profile and work folder, the dialog tests their own
# X server (xvfb-run -a); run one after another they took 2 + 6 of this
# stage's 23 minutes in CI (session 20's run).
# Extra arguments go to ctest (e.g. -R engine).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build="${RECBLUR_ASAN_BUILD_DIR:-$root/build-asan}"
cc="${CC:-gcc}"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
# RB_NO_CLONES: the CPU kernels (sweep, line solver, strips) in one copy, not
# three (target_clones for AVX-512, AVX2 and the baseline compile the same source
# three times; under -O1 and the sanitizers the sweep's was this stage's longest
# compile). The sanitizers check the source's memory and arithmetic rules,
# which the copies share.
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="-O1 -g -fno-omit-frame-pointer -DRB_NO_CLONES $san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" \
  -DCMAKE_MODULE_LINKER_FLAGS="$san" -DRECBLUR_CUDA=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"

cd "$build"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
asan_common="abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1"
# Host tests: ImageMagick's `convert` loading our module (test_magick_* but the
# in-process test_magick_module) and the GIMP tests (label gimp).
count() { ctest -N "$@" | grep -c 'Test *#' || true; }

echo "sanitize: pass 1: our own code, ASan+UBSan, leak checking on"
ASAN_OPTIONS="$asan_common:strict_string_checks=1:detect_leaks=1" \
  ctest -j "$(nproc)" --output-on-failure -LE gimp -E '^(test_magick_|test_gegl_cli$)' "$@"
if [ "$(count -R '^test_magick_module$')" -gt 0 ]; then
  ASAN_OPTIONS="$asan_common:strict_string_checks=1:detect_leaks=1" \
    ctest --output-on-failure -R '^test_magick_module$' "$@"
fi

hosts='^(test_magick_|test_gegl_cli$)'
if [ "$(count -R "$hosts" -E '^test_magick_module$')" -gt 0 ]; then
  libasan="$("$cc" -print-file-name=libasan.so)"
  [ -f "$libasan" ] || { echo "sanitize: no libasan.so for $cc" >&2; exit 1; }
  echo "sanitize: pass 2: ImageMagick and GEGL host tests, $libasan preloaded into convert and gegl, leak checking off"
  LD_PRELOAD="$libasan" ASAN_OPTIONS="$asan_common:detect_leaks=0" \
    ctest -j "$(nproc)" --output-on-failure -R "$hosts" -E '^test_magick_module$' "$@"
fi
if [ "$(count -L gimp)" -gt 0 ]; then
  echo "sanitize: pass 3: GIMP host tests (the plug-in executable is sanitized), leak checking off"
  ASAN_OPTIONS="$asan_common:detect_leaks=0" ctest -j "$(nproc)" --output-on-failure -L gimp "$@"
fi
echo "sanitize: all tests passed under AddressSanitizer + UndefinedBehaviorSanitizer"
