#!/usr/bin/env bash
# Install the dependencies, build, and blur the bundled tileable texture with
# a periodic boundary: the result tiles as seamlessly as the input.
#   in:  samples/texture.png       out: out/texture-blur20-periodic.png
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$root/scripts/deps.sh"
recblur_install_deps
# Without a GPU the CUDA back end cannot run here, and compiling its kernels is
# most of a first build (over 30 minutes on 2 cores, against ~2 without them):
# build the CLI without it then. RECBLUR_CUDA=AUTO (or ON) builds it anyway;
# scripts/test.sh builds with AUTO, so the tests still build and check it.
if [ -z "${RECBLUR_CUDA:-}" ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "sample: no NVIDIA GPU found (nvidia-smi -L): building the CLI without the CUDA back end" \
       "(RECBLUR_CUDA=AUTO bash scripts/sample.sh builds it anyway)"
  export RECBLUR_CUDA=OFF
fi
RECBLUR_BUILD_TARGETS=recblur_cli bash "$root/scripts/build.sh"   # only the CLI is needed here
mkdir -p "$root/out"
"${RECBLUR_BUILD_DIR:-$root/build}/cli/recblur" blur --sigma 20 --boundary periodic --verbose \
  "$root/samples/texture.png" "$root/out/texture-blur20-periodic.png"
echo "wrote $root/out/texture-blur20-periodic.png"
