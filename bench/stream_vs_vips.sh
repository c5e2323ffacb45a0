#!/bin/sh
# Whole-command time and peak memory of recblur's strip route against
# libvips' gaussblur on the same TIFF (issue 18), run in pairs back to back
# (the machine may be shared: a pair sees the same load), medians printed.
#
#   stream_vs_vips.sh RECBLUR IN.tif SIGMA RUNS MEMORY_MIB [OUTDIR]
#
# recblur: blur --sigma SIGMA --boundary clamp --memory MEMORY_MIB
# --compress none; vips: gaussblur IN OUT SIGMA (its default: no
# compression). Both write uncompressed TIFF strips. The outputs are
# deleted after each run (they are as large as IN).
#
# env SETTLE=S: sleep S seconds after each delete, before the next command.
# On a VM whose kernel reports free pages to the host (virtio-balloon free
# page reporting: /sys/module/page_reporting), page-cache pages freed a few
# seconds ago come back from the host one fault at a time: writing 800 MB
# into them took 1.5 s of system time instead of 0.14. Without SETTLE the
# command that writes soonest after the previous delete (libvips, from its
# first rows) reuses warm pages, and one that writes later (recblur's strip
# route: after its first pass) gets cold ones; SETTLE=20 gives both cold.
set -eu
rb=$1 in=$2 sigma=$3 runs=$4 mem=$5 dir=${6:-$(dirname "$2")}
log=$(mktemp)
trap 'rm -f "$log" "$dir/sv_rb.tif" "$dir/sv_vips.tif"' EXIT
one() { # label command...: prints "label wall_s peak_MB cpu_s" (cpu: user + sys)
    label=$1
    shift
    /usr/bin/time -v "$@" 2>"$log" >/dev/null || { cat "$log" >&2; exit 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    usr=$(sed -n 's/.*User time (seconds): //p' "$log")
    sys=$(sed -n 's/.*System time (seconds): //p' "$log")
    echo "$label $wall $(echo "$rss / 1000" | bc) $(echo "$usr + $sys" | bc)"
}
res=$(mktemp)
i=0
while [ "$i" -lt "$runs" ]; do
    one recblur "$rb" blur --sigma "$sigma" --boundary clamp --memory "$mem" --compress none \
        "$in" "$dir/sv_rb.tif" | tee -a "$res"
    rm -f "$dir/sv_rb.tif"
    sleep "${SETTLE:-0}"
    one vips vips gaussblur "$in" "$dir/sv_vips.tif" "$sigma" | tee -a "$res"
    rm -f "$dir/sv_vips.tif"
    sleep "${SETTLE:-0}"
    i=$((i + 1))
done
median() { # who column
    awk -v w="$1" -v c="$2" '$1 == w { print $c }' "$res" | sort -n |
        awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
for who in recblur vips; do
    printf '%s: median wall %s s, median peak RSS %s MB, median CPU (user + sys) %s s\n' "$who" \
        "$(median $who 2)" "$(median $who 3)" "$(median $who 4)"
done
rm -f "$res"
