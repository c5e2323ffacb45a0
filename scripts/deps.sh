#!/usr/bin/env bash
# The ONE list of Debian 12 packages recblur needs to build and test (the CLI,
# the engine tests, the ImageMagick module and its host tests, the GIMP
# plug-in and its headless tests, the GEGL operations and the gegl command
# that tests them, the fuzzers and the sanitizer build: clang-14 and its
# libFuzzer/ASan runtimes). Sourced by scripts/*.sh and .ci/run; run
# directly (as root) it installs whatever is missing.
RECBLUR_DEPS=(
  build-essential cmake pkg-config
  libpng-dev libtiff-dev libtiff-tools libcmocka-dev
  imagemagick libmagickcore-6.q16-dev libmagickwand-6.q16-dev
  gimp libgimp2.0-dev
  libgegl-dev gegl
  xvfb xauth x11-apps xdotool
  python3 python3-numpy python3-scipy
  clang-14 libclang-rt-14-dev
)

# Installs the missing packages; skips apt entirely when all are present.
recblur_install_deps() {
  local missing=() p
  for p in "${RECBLUR_DEPS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all ${#RECBLUR_DEPS[@]} packages already installed"
    return 0
  fi
  echo "deps: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q "${missing[@]}" </dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  recblur_install_deps
fi
