#!/usr/bin/python3
"""Writes a large 8-bit test TIFF for the strip route's benchmark (issue 18),
not shipped: N x N, gray (1 channel) or RGB (3), uncompressed, in strips.

Made a band of rows at a time (the image never sits in memory): Gaussian
noise (sigma 40) over a diagonal ramp per channel, so neither axis is flat
and nothing compresses away. Written as a PNM beside OUT, then converted to
TIFF by libvips (`vips copy`, which streams; its default layout: strips,
no compression), and the PNM removed. Seeded: the same N gives the same
bytes.

    make_stream_tiff.py OUT.tif N [CHANNELS]
"""
import os
import subprocess
import sys

import numpy as np


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, n = sys.argv[1], int(sys.argv[2])
    ch = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    if ch not in (1, 3):
        sys.exit("CHANNELS: 1 or 3")
    pnm = out + ".pnm"
    rng = np.random.default_rng(18)
    x = np.arange(n, dtype=np.float32)
    band = max(1, (64 << 20) // (n * ch * 4))
    with open(pnm, "wb") as f:
        f.write(b"P%d\n%d %d\n255\n" % (5 if ch == 1 else 6, n, n))
        for y0 in range(0, n, band):
            y = np.arange(y0, min(n, y0 + band), dtype=np.float32)[:, None]
            ramp = 64.0 + 128.0 * (x[None, :] + y) / (2 * n)
            rows = np.stack([ramp + 24.0 * c for c in range(ch)], axis=-1)
            rows += rng.normal(0.0, 40.0, rows.shape).astype(np.float32)
            f.write(np.clip(np.rint(rows), 0, 255).astype(np.uint8).tobytes())
    try:
        subprocess.run(["vips", "copy", pnm, out], check=True)
    finally:
        os.remove(pnm)


if __name__ == "__main__":
    main()
