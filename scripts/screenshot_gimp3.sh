#!/usr/bin/env bash
# Makes docs/gimp3-recblur-split-view.png: GIMP 3's own filter dialog for the
# recblur:gaussian-blur GEGL operation (Filters ▸ Blur ▸ Recursive Gaussian
# Blur…) over samples/texture.png, with the on-canvas preview in Split view
# (left half filtered, right half the original).
#
#   sudo bash scripts/screenshot_gimp3.sh [OUT.png]     # default docs/gimp3-recblur-split-view.png
#
# Runs as root on a Debian 12 machine with the Debian 13 root of
# scripts/debian13_root.sh ($RECBLUR_TRIXIE_ROOT; it holds GIMP 3.0 and GEGL)
# and, on the machine itself, Xvfb, xdotool and ImageMagick's import/convert.
# Steps: build the GEGL module inside the root ($RECBLUR_TRIXIE_BUILD, default
# build-trixie in the tree); start Xvfb on a free display (-displayfd) at
# 1600x1000; start the real GIMP 3 GUI inside the root on that display with a
# throwaway profile (HOME in the root's /tmp) and the module in
# ~/.local/share/gegl-0.4/plug-ins; open the filter through GIMP's action
# search ("/", the menu label, Enter); set Radius 20 (RECBLUR_SHOT_SIGMA) and
# Edges "Wrap (tileable)" (the texture tiles) with clicks and keys at fixed
# offsets in the dialog; tick "Split view" (alt+v); grab the screen, crop it
# to the image window and the dialog, and save a 256-colour PNG. There is no
# window manager: windows sit where GTK puts them, and xdotool moves them.
# The first start of a fresh profile shows GIMP's welcome dialog even with
# show-welcome-dialog off; it is closed with Escape.
# Like every `debian13_root.sh run`, it bind-mounts the tree at the root's
# /src: don't run it while another command uses the same root.
# This is GUI automation and may break with another GIMP version, theme or
# font: it waits for windows by name where it can, every step is time-limited,
# and it stops the Xvfb and GIMP it started. Not part of the tests or CI.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root_dir="${RECBLUR_TRIXIE_ROOT:-/var/cache/recblur/trixie}"
build="${RECBLUR_TRIXIE_BUILD:-build-trixie}"
out="${1:-$src/docs/gimp3-recblur-split-view.png}"
sigma="${RECBLUR_SHOT_SIGMA:-20}"
failed_shot="${TMPDIR:-/tmp}/screenshot_gimp3-failed.png"
for tool in Xvfb xdotool import convert timeout; do
    command -v "$tool" >/dev/null || { echo "screenshot_gimp3.sh: $tool is not installed" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "screenshot_gimp3.sh: run as root (it chroots into the Debian 13 root)" >&2; exit 1; }

in_root=(env RECBLUR_TRIXIE_ROOT="$root_dir" bash "$src/scripts/debian13_root.sh" run)

echo "== building the GEGL module in $root_dir ($build)"
timeout 900 "${in_root[@]}" bash -c "cmake -S /src -B $build -DRECBLUR_CUDA=OFF -DRECBLUR_MAGICK=OFF \
    -DRECBLUR_GEGL=ON -DRECBLUR_TESTS=OFF >/dev/null && cmake --build $build -j2 --target recblur_gegl"
module="$src/$build/plugin-gegl/plug-ins/recblur.so"
[ -f "$module" ] || { echo "screenshot_gimp3.sh: no $module after the build" >&2; exit 1; }

# A throwaway profile inside the root (GIMP sees it as /tmp/NAME).
work=$(mktemp -d "$root_dir/tmp/recblur-shot.XXXXXX")
home_in_root=/tmp/$(basename "$work")
mkdir -p "$work/.local/share/gegl-0.4/plug-ins" "$work/.config/GIMP/3.0" "$work/run"
chmod 700 "$work/run"
cp "$module" "$work/.local/share/gegl-0.4/plug-ins/"
cp "$src/samples/texture.png" "$work/texture.png"
# No welcome dialog, no tips, no update check; GIMP 3's default single-window
# mode makes the canvas one known window.
cat >"$work/.config/GIMP/3.0/gimprc" <<'EOF'
(show-welcome-dialog no)
(show-tips no)
(check-updates no)
EOF

xvfb_pid="" root_pid=""
cleanup() {
    # GIMP first (its timeout's pid, written from inside the root: the root
    # shares the machine's process ids), then the chroot wrapper, which
    # unmounts what it mounted once GIMP is gone.
    if [ -s "$work/gimp.pid" ]; then
        kill -TERM "$(cat "$work/gimp.pid")" 2>/dev/null || true
    fi
    if [ -n "$root_pid" ]; then
        timeout 20 tail --pid="$root_pid" -f /dev/null || kill -KILL "$(cat "$work/gimp.pid")" 2>/dev/null || true
        wait "$root_pid" 2>/dev/null || true
    fi
    if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; wait "$xvfb_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM HUP   # a signal, too, runs cleanup (through the EXIT trap)

echo "== Xvfb"
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { echo "screenshot_gimp3.sh: Xvfb did not start" >&2; cat "$work/xvfb.log" >&2; exit 1; }
export DISPLAY=:$(head -1 "$work/display")
echo "   DISPLAY=$DISPLAY"

echo "== GIMP 3 (log: $work/gimp.log)"
"${in_root[@]}" bash -c "echo \$\$ >$home_in_root/gimp.pid; exec env DISPLAY=$DISPLAY HOME=$home_in_root \
    XDG_RUNTIME_DIR=$home_in_root/run timeout 600 gimp-3.0 --no-splash $home_in_root/texture.png" \
    >"$work/gimp.log" 2>&1 &
root_pid=$!

wait_window() { # NAME-REGEX SECONDS: the window id, or fail
    local id
    id=$(timeout "$2" xdotool search --sync --onlyvisible --name "$1" 2>/dev/null | head -1) || true
    if [ -z "$id" ]; then
        timeout 30 import -window root "$failed_shot" 2>/dev/null || true
        echo "screenshot_gimp3.sh: no window named /$1/ within $2 s (the screen: $failed_shot; GIMP's log:)" >&2
        tail -20 "$work/gimp.log" >&2
        exit 1
    fi
    echo "$id"
}
snap() { timeout 30 import -window root "$1"; }
xdo() { timeout 20 xdotool "$@"; }   # a --sync that never returns must not hang the script

image_win=$(wait_window 'texture.*GIMP' 240)
echo "   image window $image_win"
# A first start shows the welcome dialog whatever gimprc says; close it.
welcome=$(timeout 20 xdotool search --sync --onlyvisible --name '^Welcome to GIMP' 2>/dev/null | head -1) || true
if [ -n "$welcome" ]; then
    xdo windowfocus --sync "$welcome" key Escape
    sleep 1
fi
# Room for the canvas at 100 % (the image is 512x512) with the dialog beside it.
xdo windowsize "$image_win" 1100 900
sleep 2

echo "== Filters ▸ Blur ▸ Recursive Gaussian Blur… through the action search"
xdo windowfocus --sync "$image_win" key slash
search_win=$(wait_window '^Search Actions$' 30)
xdo windowfocus --sync "$search_win" key ctrl+a
xdo type --delay 40 "Recursive Gaussian Blur"
sleep 2   # the result list fills after the typing stops; Return runs the first entry
xdo key Return
dialog=$(wait_window '^Recursive Gaussian Blur' 60)
echo "   dialog $dialog"
xdo windowmove "$dialog" 1110 60
xdo windowfocus --sync "$dialog"
eval "$(xdo getwindowgeometry --shell "$dialog")"   # WIDTH, HEIGHT of the dialog
echo "   ${WIDTH}x${HEIGHT}"
sleep 2

# The dialog's rows (GIMP 3.0.4's default theme and fonts): Presets, Radius X,
# Radius Y (chained to X), Extra accuracy, Edges, ... Split view near the
# bottom. Clicks are on the value text of Radius X and on the Edges combo box,
# at offsets from the dialog's top-left corner.
radius_x=(410 90) edges=(380 168)
echo "== Radius $sigma, Edges: Wrap (tileable), Split view"
xdo mousemove --window "$dialog" "${radius_x[@]}" click 1
sleep 0.5
xdo key ctrl+a
xdo type "$sigma"
xdo key Tab Tab   # commit; leave Radius Y (chained, now 20 too) unselected
sleep 1
# Edges: Extend (repeat edge) is the default; the choices run clamp, mirror,
# periodic, so two scroll steps down pick Wrap (tileable).
xdo mousemove --window "$dialog" "${edges[@]}" click 5
sleep 0.3
xdo click 5
sleep 1
xdo key alt+v   # "Split _view"
sleep 1
# The image window takes the screen's width, and the dialog (it grows with
# its longest choice label) sits at the right edge, over the brushes dock and
# beside the canvas, leaving the layers dock's filter icon in view.
xdo windowsize "$image_win" 1600 900
eval "$(xdo getwindowgeometry --shell "$dialog")"
xdo windowmove "$dialog" $((1600 - WIDTH)) 60
xdo mousemove 1599 999   # no tooltip in the picture
sleep 5   # the preview is filtered again after the last change

echo "== $out"
snap "$work/screen.png"
bottom=$((900 > 60 + HEIGHT ? 900 : 60 + HEIGHT))
# Palette PNG (256 colours): the UI is flat and the blurred half smooth, so
# it stays readable at a fraction of the size of a truecolour file.
convert "$work/screen.png" -crop "1600x${bottom}+0+0" +repage -dither FloydSteinberg -colors 256 \
    -define png:compression-level=9 -strip "$out"
echo "   $(identify -format '%wx%h' "$out"), $(($(stat -c %s "$out") / 1024)) KB"
