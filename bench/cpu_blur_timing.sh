#!/usr/bin/env bash
# CPU timing of `recblur blur` on a 4096x4096 RGB 8-bit random image:
# sigma 2, 10 and 50, five runs each, --threads $(nproc), --backend cpu.
# Reports medians of the engine's own time (plan + execute, from --verbose)
# and of the whole command (which adds PNG decode/encode of ~48 MB of noise).
#   bash bench/cpu_blur_timing.sh [path/to/recblur]
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
R="${1:-$root/build/cli/recblur}"
PY=/usr/bin/python3
rb_scratch bench
N=4096
threads=$(nproc)

# Random 8-bit RGB PNG (zlib level 1: noise does not compress anyway).
"$PY" - "$T/rand.png" "$N" <<'PYEOF'
import struct, sys, zlib
import numpy as np
path, n = sys.argv[1], int(sys.argv[2])
img = np.random.default_rng(1).integers(0, 256, size=(n, n, 3), dtype=np.uint8)
raw = np.concatenate([np.zeros((n, 1), np.uint8), img.reshape(n, 3 * n)], axis=1).tobytes()
def chunk(k, d): return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xffffffff)
with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
PYEOF

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "recblur blur, ${N}x${N} RGB 8-bit PNG in and out, --backend cpu --threads $threads, 5 runs, medians"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
printf '| sigma | engine plan+execute (ms) | execute only (ms) | engine Mpixel/s | whole command (s) |\n'
printf '|------:|-------------------------:|------------------:|----------------:|------------------:|\n'
for sigma in 2 10 50; do
  : >"$T/eng"; : >"$T/exe"; : >"$T/wall"
  for run in 1 2 3 4 5; do
    t0=$(date +%s.%N)
    "$R" blur --sigma "$sigma" --boundary clamp --backend cpu --threads "$threads" --verbose \
      "$T/rand.png" "$T/out.png" 2>"$T/log"
    t1=$(date +%s.%N)
    line=$(grep 'recblur info: time:' "$T/log")
    plan=$(sed -E 's/.*plan ([0-9.]+) ms.*/\1/' <<<"$line")
    exe=$(sed -E 's/.*execute ([0-9.]+) ms.*/\1/' <<<"$line")
    awk -v a="$plan" -v b="$exe" 'BEGIN {print a + b}' >>"$T/eng"
    echo "$exe" >>"$T/exe"
    awk -v a="$t1" -v b="$t0" 'BEGIN {print a - b}' >>"$T/wall"
  done
  eng=$(median <"$T/eng"); exe=$(median <"$T/exe"); wall=$(median <"$T/wall")
  mpx=$(awk -v n="$N" -v t="$eng" 'BEGIN {print n * n / (t * 1000)}')
  printf '| %5s | %24.1f | %17.1f | %15.1f | %17.2f |\n' "$sigma" "$eng" "$exe" "$mpx" "$wall"
done
grep -E 'back end|filter:' "$T/log" | sed 's/^/# last run: /'
