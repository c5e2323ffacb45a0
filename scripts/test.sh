#!/usr/bin/env bash
# Install the dependencies, build, and run every test (ctest; cmocka unit
# tests, the CLI round trips, the host tests). GPU tests skip with a message
# when no GPU is present.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$root/scripts/deps.sh"
recblur_install_deps
bash "$root/scripts/build.sh"
cd "${RECBLUR_BUILD_DIR:-$root/build}"
# as many tests at once as cores: the suite ran serially in a quarter of
# CI's hour, most of it waiting on one GIMP at a time
ctest -j "$(nproc)" --output-on-failure
