#!/usr/bin/env bash
# Configure and build recblur in build/ (or $RECBLUR_BUILD_DIR) with all cores.
# The CUDA back end is built when nvcc is found (/usr/local/cuda/bin is added
# to PATH); extra CMake options can be passed as arguments.
# RECBLUR_BUILD_TARGETS="t1 t2" builds only those targets (default: all).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build="${RECBLUR_BUILD_DIR:-$root/build}"
if [ -d /usr/local/cuda/bin ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
cmake -S "$root" -B "$build" -DRECBLUR_CUDA="${RECBLUR_CUDA:-AUTO}" "$@"
targets=()
for t in ${RECBLUR_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
