#!/usr/bin/env bash
# Whole commands, as a user waits for them: for one photo-like N x N RGB 8-bit
# image (bench/make_bench_image.py: gradients, shapes, texture, noise), saved as
# an uncompressed TIFF and as a PNG, each tool reads the file, blurs it and
# writes the same format. Per tool and sigma: median wall time of RUNS runs,
# median CPU time (user + system: on a shared machine it moves less than the
# wall time), peak memory (/usr/bin/time's maximum resident set) and the
# output's size;
# for recblur also the median --verbose split into read / plan / execute /
# write, and what share of the whole command read + write take.
#
#   bash bench/whole_command.sh [RECBLUR] [N] [SIGMAS] [FORMATS]
#     RECBLUR  the recblur binary (default build/cli/recblur)
#     N        image side (default 4096); SIGMAS default "10 50"; FORMATS "tif png"
#   env: BEFORE=path/to/another/recblur  adds its rows ("recblur before")
#        RUNS (default 3), PEER_RUNS (default RUNS), PEERS (default
#        "vips gegl gmic magick"), MAGICK_RUNS (default PEER_RUNS;
#        ImageMagick is the slow one), SLOW_LIMIT seconds a peer run may take
#        before it is stopped and reported as "> limit" (default 120),
#        IMAGES=dir keeps the generated in-N.tif / in-N.png there for reuse
#        HOST_BENCH=path/to/gpu_host_bench (default build/bench/gpu_host_bench):
#        where it exists and a GPU answers, the GPU round trip of issue 17's
#        8192^2 RGB 8-bit image against its pinned-copy floor is printed last
# Peers: libvips `vips gaussblur` (its defaults: integer precision for 8-bit,
# min_ampl 0.2), GEGL's `gegl` with gegl:gaussian-blur (clamp), G'MIC `blur S`
# (Neumann boundary, Gaussian), ImageMagick 6 `convert -blur 0xS` (its separable
# Gaussian; -gaussian-blur is a 2D kernel that takes minutes at sigma 10).
# Peers that are not installed are listed and skipped.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
R="${1:-$root/build/cli/recblur}"
N="${2:-4096}"
SIGMAS="${3:-10 50}"
FORMATS="${4:-tif png}"
RUNS="${RUNS:-3}"
PEER_RUNS="${PEER_RUNS:-$RUNS}"
MAGICK_RUNS="${MAGICK_RUNS:-$PEER_RUNS}"
PEERS="${PEERS:-vips gegl gmic magick}"
SLOW_LIMIT="${SLOW_LIMIT:-120}"
CONVERT="${CONVERT:-/usr/bin/convert}"   # the real ImageMagick 6, not a wrapper on PATH
PY=/usr/bin/python3
rb_need_exe "$R" "build recblur first"
rb_scratch whole

rb_machine_line
if [ -n "${IMAGES:-}" ] && [ -s "$IMAGES/in-$N.tif" ] && [ -s "$IMAGES/in-$N.png" ]; then
  cp "$IMAGES/in-$N.tif" "$T/in.tif"; cp "$IMAGES/in-$N.png" "$T/in.png"
else
  "$PY" "$root/bench/make_bench_image.py" "$T/in.ppm" "$N"
  "$CONVERT" "$T/in.ppm" -compress none "$T/in.tif"
  "$CONVERT" "$T/in.ppm" "$T/in.png"
  if [ -n "${IMAGES:-}" ]; then mkdir -p "$IMAGES"; cp "$T/in.tif" "$IMAGES/in-$N.tif"; cp "$T/in.png" "$IMAGES/in-$N.png"; fi
fi
echo "# input: ${N}x${N} RGB 8-bit; in.tif uncompressed $(stat -c %s "$T/in.tif") bytes, in.png $(stat -c %s "$T/in.png") bytes"

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# run_timed RUNS OUT cmd...: prints "median_seconds max_peak_kB out_bytes median_cpu_s", or
# "> limit" when a run passed SLOW_LIMIT, "failed" when the command failed.
run_timed() {
  local runs=$1 out=$2; shift 2
  local k t0 t1 rc
  : >"$T/times"; : >"$T/peaks"; : >"$T/cpus"
  for ((k = 0; k < runs; k++)); do
    rm -f "$out"
    t0=$(date +%s.%N)
    rc=0
    timeout "$SLOW_LIMIT" /usr/bin/time -f '%M %U %S' -o "$T/peak" "$@" >"$T/cmd.out" 2>"$T/cmd.err" || rc=$?
    t1=$(date +%s.%N)
    if [ "$rc" = 124 ]; then echo ">${SLOW_LIMIT}s - - -"; return; fi
    if [ "$rc" != 0 ] || [ ! -s "$out" ]; then echo "failed - - -"; sed 's/^/#   /' "$T/cmd.err" | tail -3 >&2; return; fi
    awk -v a="$t1" -v b="$t0" 'BEGIN{printf "%.3f\n", a-b}' >>"$T/times"
    tail -1 "$T/peak" | awk '{print $1}' >>"$T/peaks"
    tail -1 "$T/peak" | awk '{printf "%.2f\n", $2 + $3}' >>"$T/cpus"
    cat "$T/cmd.err" >>"$T/verbose.all"
  done
  echo "$(median <"$T/times") $(sort -g "$T/peaks" | tail -1) $(stat -c %s "$out") $(median <"$T/cpus")"
}

row() { # tool, format, sigma, "time peak bytes cpu", split
  local t p b c; read -r t p b c <<<"$4"
  local mb="-"; [ "$p" != "-" ] && mb=$(awk -v k="$p" 'BEGIN{printf "%.0f", k/1024}')
  local sz="-"; [ "$b" != "-" ] && sz=$(awk -v x="$b" 'BEGIN{printf "%.1f", x/1048576}')
  printf '| %s | %s → %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$2" "$3" "$t" "${c:--}" "$mb" "$sz" "${5:-}"
}

recblur_row() { # label binary fmt sigma
  local label=$1 bin=$2 fmt=$3 s=$4 res split
  : >"$T/verbose.all"
  res=$(run_timed "$RUNS" "$T/out.$fmt" "$bin" blur --sigma "$s" --backend cpu --verbose "$T/in.$fmt" "$T/out.$fmt")
  # "time: read A ms, plan B ms, execute C ms, write D ms" -> medians
  split=$(grep -o "time: read .*" "$T/verbose.all" | awk -v tot="${res%% *}" '
    { gsub(/,/, ""); r[NR]=$3; p[NR]=$6; e[NR]=$9; w[NR]=$12 }
    function med(a, n,   i, j, t, b) { for (i = 1; i <= n; i++) b[i] = a[i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
      return (n % 2) ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2 }
    END { if (NR == 0) exit
      R = med(r, NR); P = med(p, NR); E = med(e, NR); W = med(w, NR)
      printf "read %.0f, plan %.0f, execute %.0f, write %.0f ms; read+write %.0f %% of the command",
             R, P, E, W, 100 * (R + W) / (1000 * tot) }')
  local how; how=$(grep -o 'compression [a-z]*[^,]*$' "$T/verbose.all" | tail -1 || true)
  row "$label" "$fmt" "$s" "$res" "$split${how:+ (out: $how)}"
}

peer_cmd() { # tool fmt sigma -> CMD=(the command), empty when not installed
  local tool=$1 fmt=$2 s=$3 in="$T/in.$2" out="$T/out.$2"
  CMD=()
  case $tool in
    vips)   command -v vips >/dev/null && CMD=(vips gaussblur "$in" "$out" "$s") ;;
    gegl)   command -v gegl >/dev/null || return 0
            # 8-bit out as the others (GEGL would write float TIFF, 16-bit PNG)
            if [ "$fmt" = png ]; then
              CMD=(gegl "$in" -- gaussian-blur "std-dev-x=$s" "std-dev-y=$s" abyss-policy=clamp
                   png-save "path=$out" bitdepth=8)
            else
              CMD=(gegl "$in" -o "$out" -- gaussian-blur "std-dev-x=$s" "std-dev-y=$s" abyss-policy=clamp
                   convert-format "format=R'G'B' u8")
            fi ;;
    gmic)   command -v gmic >/dev/null || return 0
            if [ "$fmt" = png ]; then CMD=(gmic -v -1 "$in" blur "$s,1,1" -o "$out")
            else CMD=(gmic -v -1 "$in" blur "$s,1,1" -o "$out,uchar"); fi ;;
    magick) [ -x "$CONVERT" ] && CMD=("$CONVERT" "$in" -blur "0x$s" "$out") ;;
  esac
  return 0
}

echo
echo "| tool | files | σ | whole command s (median of $RUNS; peers $PEER_RUNS, ImageMagick $MAGICK_RUNS) | CPU s | peak MB | output MB | recblur's split (medians) |"
echo "|---|---|---|---|---|---|---|---|"
for fmt in $FORMATS; do
  for s in $SIGMAS; do
    [ -n "${BEFORE:-}" ] && recblur_row "recblur before" "$BEFORE" "$fmt" "$s"
    recblur_row "recblur" "$R" "$fmt" "$s"
    for tool in $PEERS; do
      peer_cmd "$tool" "$fmt" "$s"
      if [ ${#CMD[@]} = 0 ]; then echo "# $tool: not installed, skipped" >&2; continue; fi
      runs=$PEER_RUNS; [ "$tool" = magick ] && runs=$MAGICK_RUNS
      row "$tool" "$fmt" "$s" "$(run_timed "$runs" "$T/out.$fmt" "${CMD[@]}")"
    done
  done
done
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# The GPU round trip against its floor (rb_execute on host images vs pinned
# cudaMemcpy up + down of the same bytes), where this machine has a GPU.
HOST_BENCH="${HOST_BENCH:-$root/build/bench/gpu_host_bench}"
if [ -x "$HOST_BENCH" ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo
  echo "GPU round trip ($HOST_BENCH --rgb --no-cpu):"
  "$HOST_BENCH" --rgb --no-cpu
else
  echo "# GPU round trip: skipped (no GPU here, or no $HOST_BENCH: build with -DRECBLUR_CUDA=ON)"
fi
