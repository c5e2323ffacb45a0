# Sourced by every GIMP plug-in test (tests/test_gimp_*.sh): a throwaway GIMP
# 2.10 profile with the freshly built plug-in in it, a headless gimp-console
# runner, and the harness around it (set-up, batch verdict, pixel checks).
# GIMP always exits 0: callers read stderr and check the pixels. The timeout
# is generous: a loaded 2-core machine makes each plug-in start take seconds
# (the deblur batch: 30 s of CPU, 110 s wall at load 10). timeout -k:
# a plug-in that crashed can hang in libgimp's SIGTERM handler; KILL ends it.

GIMP_CONSOLE=${GIMP_CONSOLE:-/usr/bin/gimp-console-2.10}
PY=${PY:-/usr/bin/python3}

# gimp_profile DIR PLUGIN: create the profile first (GIMP skips profile setup
# when plug-ins/ already exists), then install the plug-in the way users do.
gimp_profile() {
    GH=$1
    rm -rf "$GH"
    mkdir -p "$GH/config" "$GH/cache" "$GH/data" "$GH/run" "$GH/gimp2"
    chmod 700 "$GH/run"
    gimp_run -b "(gimp-quit 0)" >"$GH/profile.log" 2>&1
    # writable data folders GIMP complains about when missing
    mkdir -p "$GH/gimp2/gradients" "$GH/gimp2/brushes" "$GH/gimp2/patterns" "$GH/gimp2/palettes"
    mkdir -p "$GH/gimp2/plug-ins/recblur"
    cp "$2" "$GH/gimp2/plug-ins/recblur/recblur"
}

# gimp_run ARGS...: gimp-console in a clean environment on profile $GH.
gimp_run() {
    env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$GH" \
        XDG_CONFIG_HOME="$GH/config" XDG_CACHE_HOME="$GH/cache" XDG_DATA_HOME="$GH/data" \
        XDG_RUNTIME_DIR="$GH/run" GIMP2_DIRECTORY="$GH/gimp2" \
        RECBLUR_PRESET_PATH="${RECBLUR_PRESET_PATH:-}" \
        ${DISPLAY:+DISPLAY="$DISPLAY"} ${XAUTHORITY:+XAUTHORITY="$XAUTHORITY"} \
        timeout -k 10 "${GIMP_TIMEOUT:-240}" "$GIMP_CONSOLE" -i -d -f "$@"
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# gimp_setup: after PLUGIN, T (tests source dir) and W (work dir) are set: D
# (test images), O (outputs, emptied), CHECK (numpy comparisons, gimp_check.py)
# and a fresh profile in $W/profile with the plug-in.
# gimp_setup [FILE...]: the FILEs (last run's screenshots) are removed too.
gimp_setup() {
    D=$T/data/gimp
    O=$W/out
    CHECK="$PY $T/gimp_check.py"
    gimp_profile "$W/profile" "$PLUGIN"
    rm -rf "$O" "$@" && mkdir -p "$O"
}

# The dialog tests. gimp_xvfb SECONDS "$0" "$@": run this script again (once)
# under a virtual X server, killed after SECONDS.
gimp_xvfb() {
    [ -n "${RB_IN_XVFB:-}" ] && return 0
    local limit=$1
    shift
    exec env RB_IN_XVFB=1 timeout "$limit" xvfb-run -a -s "-screen 0 1024x768x24" bash "$@"
}

# gimp_preset_position KINDS NAME: NAME's place among the presets of KINDS (a
# regex on the kind column of `recblur presets`, the engine's list order), so
# its entry in a dialog's preset menu after entry 0. Fails when it is missing.
gimp_preset_position() {
    local n
    n=$("$CLI" presets | awk -v k="^($1)\$" -v p="$2" '$2 ~ k { n++; if ($1 == p) { print n; exit } }')
    [ -n "$n" ] || fail "preset $2 not found by '$CLI presets'"
    echo "$n"
}

# gimp_batch CALL...: one GIMP start runs each CALL (from test_gimp.scm) as a
# batch command of its own (definitions from a load do not outlive their batch
# command: each loads), then quits; its log in $W/gimp.log.
gimp_batch() {
    local args=() c
    for c in "$@"; do
        args+=(-b "(begin (load \"$T/test_gimp.scm\") $c)")
    done
    gimp_run "${args[@]}" -b '(gimp-quit 0)' >"$W/gimp.log" 2>&1
}

# gimp_start CALL: GIMP runs CALL (from test_gimp.scm) in the background,
# GIMP_PID, its log in $W/gimp.log.
gimp_start() {
    gimp_run -b "(begin (load \"$T/test_gimp.scm\") $1)" -b '(gimp-quit 0)' >"$W/gimp.log" 2>&1 &
    GIMP_PID=$!
}

# gimp_verdict "ok err ...": GIMP exits 0 whatever happened, so the order of
# the batch results in $W/gimp.log (one per -b command but the quit) is the verdict.
gimp_verdict() {
    echo "--- gimp log: $W/gimp.log"
    grep -E "^batch command|recblur" "$W/gimp.log"
    local got
    got=$(grep -oE "^batch command (executed successfully|experienced an execution error)" "$W/gimp.log" |
          sed -e 's/.*executed successfully/ok/' -e 's/.*execution error/err/' | tr '\n' ' ')
    [ "$got" = "$1 " ] || fail "batch results were '$got', expected '$1 '"
}

# gimp_with_errors FIRST LAST [ERROR_CALL MESSAGE]...: one GIMP start runs the
# CALL FIRST, each ERROR_CALL, then LAST; FIRST and LAST must succeed, each
# ERROR_CALL must fail with its MESSAGE (a fixed string) in the log.
gimp_with_errors() {
    local calls=("$1") last=$2 expect="ok" msgs=() m
    shift 2
    while [ $# -ge 2 ]; do
        calls+=("$1") msgs+=("$2") expect+=" err"
        shift 2
    done
    gimp_batch "${calls[@]}" "$last"
    gimp_verdict "$expect ok"
    for m in "${msgs[@]}"; do
        grep -qF -- "$m" "$W/gimp.log" || fail "a failed call's message does not say '$m'"
    done
}

# The pixel checks: run CMD / cli ARGS (the recblur CLI) record a failure in
# rc and go on, so one run reports every mismatch; gimp_done NAME exits with it.
rc=0
run() { "$@" || rc=1; }
cli() { "$CLI" "$@" || { echo "FAIL: $CLI $*" >&2; rc=1; }; }
gimp_done() {
    [ $rc = 0 ] && echo "$1: all checks passed"
    exit $rc
}

# gimp_unchanged N: the failed calls left N images open (err_*.png, saved by
# recblur-test-save-open), each equal to the input it was given.
gimp_unchanged() {
    local n=0 f
    for f in "$O"/err_*.png; do
        [ -e "$f" ] || break
        run $CHECK same "$f" "$D/rgb.png"
        n=$((n + 1))
    done
    [ "$n" = "$1" ] || { echo "FAIL: expected $1 images left open by the failed calls, found $n"; rc=1; }
}
