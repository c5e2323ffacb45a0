#!/usr/bin/env bash
# Where a GIMP 2.10 plug-in call's time goes, paired with GIMP's own Gaussian
# Blur on the same image in the same GIMP run (issue 16 item 4). One headless
# gimp-console start makes a 6000 x 4000 RGB 8-bit image (plasma), then
# alternates RUNS calls of plug-in-recblur (sigma SIGMA, clamp, linear light
# like GIMP's blur, or perceptual with LINEAR 0) with RUNS calls of
# plug-in-gauss (GIMP's own Gaussian
# Blur: gegl:gaussian-blur in linear light, clamped edges), each call between
# two gimp-message marks. A reader stamps each mark as it arrives on GIMP's
# stderr, so a call's time is the whole PDB call as a script sees it: plug-in
# start, tile transfer, conversions, engine, shadow merge and undo. A plug-in
# built with -DRECBLUR_GIMP_STAGE_TIMES=ON also prints its own stage split
# (plugin-gimp/rbg_stage_times.c), summarised beside it.
#
#   bash bench/gimp_overhead.sh PLUGIN [RUNS] [SIGMA] [W] [H] [LINEAR]
#     PLUGIN  the built plug-in (build/plugin-gimp/plug-ins/recblur/recblur)
#     LINEAR  1 (default): recblur in linear light; 0: on the stored sRGB values
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLUGIN=$(realpath "$1")
RUNS=${2:-3} SIGMA=${3:-20} W=${4:-6000} H=${5:-4000} LINEAR=${6:-1}
T=$here/../tests
work=$(mktemp -d /tmp/rb-gimp-overhead.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$T/test_gimp_lib.sh"
export GIMP_TIMEOUT=${GIMP_TIMEOUT:-900}
gimp_profile "$work/profile" "$PLUGIN"

scm="(let* ((img (car (gimp-image-new $W $H RGB)))
            (drw (car (gimp-layer-new img $W $H RGB-IMAGE \"bg\" 100 LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer img drw 0 0)
  (plug-in-plasma RUN-NONINTERACTIVE img drw 7 2.0)
  (let loop ((i 0))
    (when (< i $RUNS)
      (gimp-message \"MARK recblur-begin\")
      (plug-in-recblur RUN-NONINTERACTIVE img drw $SIGMA $SIGMA 0 2 0 0 0 \"\" 0 0 $LINEAR \"\")
      (gimp-message \"MARK recblur-end\")
      (gimp-message \"MARK gimp-begin\")
      (plug-in-gauss RUN-NONINTERACTIVE img drw $SIGMA $SIGMA 0)
      (gimp-message \"MARK gimp-end\")
      (loop (+ i 1)))))"

# plug-in-gauss is given SIGMA as its size argument: GEGL's IIR Gaussian
# (its choice above std dev 1) takes the same time for any size, so the
# pairing is fair on time whatever GIMP's size-to-sigma mapping is.
gimp_run_env() {
    env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$GH" \
        XDG_CONFIG_HOME="$GH/config" XDG_CACHE_HOME="$GH/cache" XDG_DATA_HOME="$GH/data" \
        XDG_RUNTIME_DIR="$GH/run" GIMP2_DIRECTORY="$GH/gimp2" \
        timeout -k 10 "$GIMP_TIMEOUT" "$GIMP_CONSOLE" -i -d -f "$@"
}
gimp_run_env -b "$scm" -b '(gimp-quit 0)' 2>&1 | python3 -u -c '
import re, sys, time, statistics
start = {}
spans = {"recblur": [], "gimp": []}
stages = []
for line in sys.stdin:
    now = time.monotonic()
    m = re.search(r"MARK (\w+)-(begin|end)", line)
    if m:
        if m.group(2) == "begin":
            start[m.group(1)] = now
        else:
            spans[m.group(1)].append(now - start[m.group(1)])
        continue
    if line.startswith("recblur-times"):
        stages.append(dict(kv.split("=") for kv in line.split()[2:]))
        print(line.rstrip())
    elif "batch command" in line or "rror" in line:
        print(line.rstrip())
for k, v in spans.items():
    print("%-8s calls: %s  median %.3f s" % (k, " ".join("%.3f" % x for x in v),
          statistics.median(v) if v else float("nan")))
if stages:
    print("recblur stage medians: " + " ".join("%s=%.3f" % (k, statistics.median(float(s[k]) for s in stages))
                                               for k in stages[0]))
'
