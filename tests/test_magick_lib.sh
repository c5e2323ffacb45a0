# Sourced by the ImageMagick module tests (tests/test_magick_*.sh): a fresh
# work directory, the check counters and the verdict.
# MAGICK_CODER_FILTER_PATH must point at the directory with recblur.so/.la.

# magick_workdir DIR: empty DIR and work in it.
magick_workdir() {
    rm -rf "$1"
    mkdir -p "$1" || exit 1
    cd "$1" || exit 1
}

fails=0
checks=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# magick_done: the count, and the exit status of the test.
magick_done() {
    echo "$checks checks, $fails failures"
    [ $fails = 0 ]
}
