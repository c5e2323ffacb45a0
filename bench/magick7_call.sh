#!/bin/sh
# bench/magick_call.sh under ImageMagick 7 (issue 17 item 2): the same four
# commands and the same decomposition (module call = process - none, against
# the engine's wall inside it + ImageMagick's own pixel pass), with `magick`
# and the module built for it, in the Debian 13 root (scripts/debian13_root.sh;
# ImageMagick 7.1.1 Q16, no HDRI). Run as root.
#
#   sh bench/magick7_call.sh [SIGMA...]        (default: 2 10 50)
#   env: RUNS, SIZE as for magick_call.sh; RECBLUR_TRIXIE_BUILD (default
#   build-trixie, relative to the source tree) is configured and the module
#   built there when missing, as scripts/test_debian13.sh does (Release).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${RECBLUR_TRIXIE_BUILD:-build-trixie}
sigmas=${*:-2 10 50}
bash "$src/scripts/debian13_root.sh" run sh -c "
  set -e
  [ -f '$build/plugin-magick/recblur.so' ] ||
    { cmake -S /src -B '$build' -DCMAKE_BUILD_TYPE=Release -DRECBLUR_CUDA=OFF -DRECBLUR_MAGICK=ON \
        -DRECBLUR_GEGL=OFF -DRECBLUR_GIMP=OFF -DRECBLUR_TESTS=OFF >/dev/null &&
      cmake --build '$build' --target recblur_magick -j2 >/dev/null; }
  for s in $sigmas; do
    RUNS=${RUNS:-7} SIZE=${SIZE:-4096} CONVERT=magick sh bench/magick_call.sh '$build' \$s
    echo
  done"
