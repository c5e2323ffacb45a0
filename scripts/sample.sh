#!/usr/bin/env bash
# Install the dependencies, build, and blur the bundled tileable texture with
# a periodic boundary: the result tiles as seamlessly as the input.
#   in:  samples/texture.png       out: out/texture-blur20-periodic.png
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$root/scripts/deps.sh"
recblur_install_deps
RECBLUR_BUILD_TARGETS=recblur_cli bash "$root/scripts/build.sh"   # only the CLI is needed here
mkdir -p "$root/out"
"${RECBLUR_BUILD_DIR:-$root/build}/cli/recblur" blur --sigma 20 --boundary periodic --verbose \
  "$root/samples/texture.png" "$root/out/texture-blur20-periodic.png"
echo "wrote $root/out/texture-blur20-periodic.png"
