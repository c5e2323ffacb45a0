#!/usr/bin/env bash
# The Debian 13 host tests in one command: ImageMagick 7 (`magick`) and the
# GEGL operations in GIMP 3.0, in a Debian 13 root on this Debian 12 machine
# (scripts/debian13_root.sh; run as root).
#
#   bash scripts/test_debian13.sh [CTEST-ARGS...]
#
# 1. makes the root when missing (mmdebstrap, then the packages; idempotent),
# 2. builds the project inside it (CUDA off) in $RECBLUR_TRIXIE_BUILD
#    (default build-trixie/, relative to the source tree),
# 3. runs the ImageMagick 7 and GIMP 3 tests there (ctest -R below, plus
#    CTEST-ARGS),
# 4. installs with `cmake --install` inside the root, checks `magick -list
#    module` lists recblur (ImageMagick 7's FILTER_PATH) and the GEGL
#    operations are in GEGL's folder, and removes what it installed;
# and prints how long each stage took.
# The root lives in $RECBLUR_TRIXIE_ROOT (default /var/cache/recblur/trixie).
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RECBLUR_TRIXIE_BUILD:-build-trixie}"
root_script="$src/scripts/debian13_root.sh"
# Every test of the two hosts; the engine's own tests run on the host machine.
tests='magick|gimp3|gegl'

stage_names=()
stage_secs=()
stage() {
    local name=$1 t0
    shift
    echo "=== $name"
    t0=$(date +%s)
    "$@"
    stage_names+=("$name")
    stage_secs+=($(($(date +%s) - t0)))
}
summary() {
    echo "=== Debian 13 host tests: time per stage"
    for i in "${!stage_names[@]}"; do
        printf '%-8s %5d s\n' "${stage_names[$i]}" "${stage_secs[$i]}"
    done
}
trap summary EXIT

stage root bash "$root_script" make
stage build bash "$root_script" run bash -c \
    "cmake -S /src -B '$build' -DRECBLUR_CUDA=OFF -DRECBLUR_MAGICK=ON -DRECBLUR_GEGL=ON >/dev/null &&
     cmake --build '$build' -j \"\$(nproc)\""
stage tests bash "$root_script" run ctest --test-dir "$build" -R "$tests" --output-on-failure "$@"
stage install bash "$root_script" run bash -c "
    cmake --install '$build' >/dev/null &&
    { magick -list module | grep -qx recblur || { echo 'magick -list module does not list recblur' >&2; false; }; } &&
    { ls \"\$(pkg-config --variable=pluginsdir gegl-0.4)/recblur.so\" >/dev/null; } && echo 'installed: magick -list module lists recblur; GEGL operations in place'
    rc=\$?; xargs rm -f <'$build/install_manifest.txt'; exit \$rc"
