# Sourced by the host tests that drive a real host from its command line
# (tests/test_magick_*.sh: ImageMagick's convert; tests/test_gegl_cli.sh: the
# gegl command): a fresh work directory, the check counters, the comparison of
# a host's output with the recblur CLI's, and the verdict.
# The caller sets CLI (the recblur binary) and PIXDIFF (tests/test_magick_pixdiff)
# before calling cli_agrees.

# host_workdir DIR: empty DIR and work in it.
host_workdir() {
    rm -rf "$1"
    mkdir -p "$1" || exit 1
    cd "$1" || exit 1
}

# host_images CONVERT [PNG-OPTION...]: the inputs both hosts' tests share, made
# by ImageMagick itself: odd sizes, 16-bit values that are not multiples of 257
# (resize in Q16), an alpha ramp that never reaches 0, and an 8-bit rose.
# PNG-OPTIONs go on every colour image written (e.g. chunks to leave out).
host_images() {
    cv=$1
    shift
    "$cv" rose: -resize '61x43!' -depth 16 "$@" rgb16.png || exit 1
    "$cv" rose: -resize '61x43!' -colorspace gray -depth 16 "$@" gray16.png || exit 1
    "$cv" -size 43x61 gradient:gray95-gray15 -rotate 90 -colorspace gray -depth 16 alpha16.png || exit 1
    "$cv" rgb16.png alpha16.png -alpha off -compose copy_opacity -composite -depth 16 "$@" rgba16.png || exit 1
    "$cv" rose: "$@" rgb8.png || exit 1
}

fails=0
checks=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# cli_agrees NAME INPUT TOL HOST_OUT CLI-ARGS...: after the host wrote HOST_OUT
# from INPUT, the CLI (CLI-ARGS then INPUT and cli_NAME.png) must give the same
# pixels within TOL 16-bit steps, and HOST_OUT must differ from INPUT (a host
# that silently skipped the filter would otherwise agree with an identity).
# Counts a failure and returns 1, or sets out to pixdiff's report.
cli_agrees() {
    name=$1 in=$2 tol=$3 host_out=$4
    shift 4
    if ! "$CLI" "$@" "$in" "cli_$name.png" 2>"cli_$name.err"; then
        bad "$name: recblur $* failed: $(cat "cli_$name.err")"
        return 1
    fi
    if ! out=$("$PIXDIFF" "$host_out" "cli_$name.png" "$tol"); then
        bad "$name: host and CLI differ: $out"
        return 1
    fi
    if ! "$PIXDIFF" "$host_out" "$in" 1 --differ >/dev/null; then
        bad "$name: output equals the input (nothing was filtered)"
        return 1
    fi
}

# host_done: the count, and the exit status of the test.
host_done() {
    echo "$checks checks, $fails failures"
    [ $fails = 0 ]
}
