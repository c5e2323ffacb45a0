#!/usr/bin/env bash
# Issue 8's CPU comparison: recblur's engine in-process (bench/cpu_engine_bench,
# per-pass times too) against the peers that are installed, on one random
# N x N RGB 8-bit PPM, clamp boundary ("edge"/"nearest"/"neumann"/replicate).
#   bash bench/cpu_peers.sh [build-dir] [N] [sigmas]
# Peer filter time = whole-command time - the same tool's no-op read/write
# time, median of 3 each; OpenCV is timed in memory (cv2.GaussianBlur,
# BORDER_REPLICATE). Max error: against a float64 reference (sampled Gaussian
# truncated at 8 sigma and normalised, edge-padded, oaconvolve), in [0,1]
# units; 8-bit output alone costs up to 0.5/255 = 0.00196.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
B="${1:-$root/build}"
N="${2:-4096}"
SIGMAS="${3:-2,10,50}"
ENG="$B/bench/cpu_engine_bench"
rb_need_exe "$ENG" "build the bench target cpu_engine_bench"
rb_scratch peers
rb_machine_line
/usr/bin/python3 - "$T/in.ppm" "$N" <<'PYEOF'
import sys, numpy as np
path, n = sys.argv[1], int(sys.argv[2])
img = np.random.default_rng(1).integers(0, 256, size=(n, n, 3), dtype=np.uint8)
with open(path, "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (n, n)); f.write(img.tobytes())
PYEOF
"$ENG" -i "$T/in.ppm" -s "$SIGMAS" -b clamp -t "$(nproc)" -r 3 -o "$T/recblur_" | tee "$T/engine.txt"
"$ENG" -i "$T/in.ppm" -s 10 -b periodic -t "$(nproc)" -r 3 | sed -n '4p' | sed 's/^/# periodic: /'
# the general bundle route (line_solver.c) on the same image, for before/after
RECBLUR_CPU_NO_SWEEP=1 "$ENG" -i "$T/in.ppm" -s "$SIGMAS" -b clamp -t "$(nproc)" -r 3 -P 0 |
  grep '^| *[0-9]' | sed 's/^/# bundle route (RECBLUR_CPU_NO_SWEEP=1): /'

med3() { # median wall time of 3 runs of "$@"
  local a=() t0 t1
  for k in 1 2 3; do t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || return 1; t1=$(date +%s.%N)
    a+=("$(awk -v a="$t1" -v b="$t0" 'BEGIN{print a-b}')"); done
  printf '%s\n' "${a[@]}" | sort -g | sed -n 2p; }

: >"$T/peers.txt"
peer() { # name, no-op command, then the blur command with @S@ for sigma and @O@ for the output
  local name="$1" noop="$2" cmd="$3" s t0 tb
  local tool="${noop%% *}"
  if ! command -v "$tool" >/dev/null; then echo "# $name: not installed ($tool), skipped" | tee -a "$T/skipped"; return; fi
  t0=$(med3 bash -c "$noop") || { echo "# $name: no-op command failed, skipped" | tee -a "$T/skipped"; return; }
  for s in ${SIGMAS//,/ }; do
    local c="${cmd//@S@/$s}"; c="${c//@O@/$T/${name}_$s.ppm}"
    tb=$(med3 bash -c "$c") || { echo "# $name sigma $s: command failed: $c" | tee -a "$T/skipped"; continue; }
    echo "$name $s $(awk -v a="$tb" -v b="$t0" 'BEGIN{d=a-b; print (d>0?d:0.001)}') $T/${name}_$s.ppm" >>"$T/peers.txt"
  done
  echo "# $name no-op read/write: $t0 s; blur: $cmd"; }
peer imagemagick "convert $T/in.ppm $T/noop.ppm" "convert $T/in.ppm -virtual-pixel edge -blur 0x@S@ @O@"
peer gegl "gegl $T/in.ppm -o $T/noop.ppm" "gegl $T/in.ppm -o @O@ -- gaussian-blur std-dev-x=@S@ std-dev-y=@S@ abyss-policy=clamp"
peer gmic "gmic $T/in.ppm -o $T/noop.ppm,uchar" "gmic $T/in.ppm blur @S@,1,1 -o @O@,uchar"
peer vips "vips copy $T/in.ppm $T/noop.ppm" "vips gaussblur $T/in.ppm @O@ @S@"

/usr/bin/python3 - "$T" "$SIGMAS" "$(nproc)" <<'PYEOF'
import sys, time, numpy as np
from scipy.signal import oaconvolve
T, sigmas, nproc = sys.argv[1], [s for s in sys.argv[2].split(",")], int(sys.argv[3])
def rppm(p):
    with open(p, "rb") as f:
        d = f.read()
    parts, pos = [], 0
    while len(parts) < 4:
        while d[pos:pos+1].isspace(): pos += 1
        if d[pos:pos+1] == b"#":
            pos = d.index(b"\n", pos); continue
        e = pos
        while not d[e:e+1].isspace(): e += 1
        parts.append(d[pos:e]); pos = e
    w, h, mx = int(parts[1]), int(parts[2]), int(parts[3])
    pos += 1
    dt = np.uint8 if mx < 256 else np.dtype(">u2")
    a = np.frombuffer(d, dt, count=w*h*3, offset=pos).reshape(h, w, 3).astype(np.float64)
    return a / mx
x = rppm(T + "/in.ppm")
def ref(img, s):
    R = int(np.ceil(8 * s)) + 1
    k = np.exp(-0.5 * (np.arange(-R, R + 1) / s) ** 2); k /= k.sum()
    for ax in (0, 1):
        pad = [(0, 0)] * 3; pad[ax] = (R, R)
        sh = [1, 1, 1]; sh[ax] = 2 * R + 1
        img = oaconvolve(np.pad(img, pad, mode="edge"), k.reshape(sh), mode="valid", axes=ax)
    return img
rows = {}
eng = {}
for line in open(T + "/engine.txt"):
    c = [v.strip() for v in line.split("|")]
    if len(c) > 3 and c[1] in sigmas:
        eng[c[1]] = float(c[2])
peers = [l.split() for l in open(T + "/peers.txt")]
try:
    import cv2
    cv2.setNumThreads(nproc)
    x8 = (x * 255 + 0.5).astype(np.uint8)
    for s in sigmas:
        ts = []
        for k in range(3):
            t0 = time.perf_counter(); o = cv2.GaussianBlur(x8, (0, 0), float(s), borderType=cv2.BORDER_REPLICATE); ts.append(time.perf_counter() - t0)
        np.save(T + "/opencv_%s.npy" % s, o)
        peers.append(["opencv-u8", s, str(sorted(ts)[1]), T + "/opencv_%s.npy" % s])
        xf = x.astype(np.float32); ts = []
        for k in range(3):
            t0 = time.perf_counter(); o = cv2.GaussianBlur(xf, (0, 0), float(s), borderType=cv2.BORDER_REPLICATE); ts.append(time.perf_counter() - t0)
        np.save(T + "/opencvf_%s.npy" % s, o)
        peers.append(["opencv-f32", s, str(sorted(ts)[1]), T + "/opencvf_%s.npy" % s])
except ImportError:
    print("# opencv: python3-opencv not installed, skipped")
N = x.shape[0] * x.shape[1]
print("| tool | sigma | seconds | Mpx/s | recblur speed-up vs tool | max error | mean error |")
print("|---|---:|---:|---:|---:|---:|---:|")
for s in sigmas:
    r = ref(x, float(s))
    allrows = [["recblur", s, str(eng[s]), T + "/recblur_%s.ppm" % s]] + [p for p in peers if p[1] == s]
    for name, _, t, path in allrows:
        t = float(t)
        if path.endswith(".npy"):
            o = np.load(path).astype(np.float64)
            if o.dtype != np.float32 and name.endswith("u8"): o = o / 255
        else:
            o = rppm(path)
        if name == "opencv-u8": o = np.load(path).astype(np.float64) / 255
        e = np.abs(o - r)
        print("| %s | %s | %.3f | %.0f | %.2f | %.2e | %.2e |" % (name, s, t, N / t * 1e-6, t / eng[s], e.max(), e.mean()))
    sys.stdout.flush()
PYEOF
cat "$T/skipped" 2>/dev/null || true
