# Sourced by the GIMP plug-in tests: a throwaway GIMP 2.10 profile with the
# freshly built plug-in in it, and a headless gimp-console runner.
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
