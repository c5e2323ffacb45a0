# Shared helpers of the CLI shell tests (sourced). Environment from cli.cmake:
#   RECBLUR   the recblur binary        CLI_REF  the test_cli_ref helper
#   SRC       the source tree           CONVERT  ImageMagick's convert (real one)
set -uo pipefail
: "${RECBLUR:?}" "${SRC:?}"
CONVERT="${CONVERT:-/usr/bin/convert}"
COMPARE="${COMPARE:-/usr/bin/compare}"
IDENTIFY="${IDENTIFY:-/usr/bin/identify}"
PY="${PY:-/usr/bin/python3}"
T="$(mktemp -d /tmp/recblur-cli-test.XXXXXX)"
trap 'rm -rf "$T"' EXIT
FAILS=0
CHECKS=0

pass() { CHECKS=$((CHECKS + 1)); echo "ok   $*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "FAIL $*"; }
skip() { echo "skip $*"; }
finish() {
  echo "$((CHECKS - FAILS)) of $CHECKS checks passed"
  [ "$FAILS" -eq 0 ]
  exit $?
}

have_tiff() { "$RECBLUR" --version | grep -q "TIFF (yes)"; }
have_magick() { [ -x "$CONVERT" ] && "$CONVERT" -version 2>/dev/null | grep -q ImageMagick; }

# Number of pixels that differ between two images, as ImageMagick counts them.
magick_ae() { "$COMPARE" -metric AE "$@" null: 2>&1 >/dev/null | awk '{print $1}'; }
