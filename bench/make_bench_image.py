#!/usr/bin/python3
"""Writes a photo-like N x N RGB 8-bit test image as binary PPM (P6).

Random noise alone compresses unlike any photograph (deflate finds nothing),
so the image is built from what photos hold: smooth lighting gradients, flat
and shaded shapes with hard edges, a patch of fine texture, and sensor-like
noise (Gaussian, 2.5 levels) over all of it. Seeded: the same N gives the
same bytes on every run.

    make_bench_image.py OUT.ppm [N]
"""
import sys

import numpy as np


def make(n, seed=17):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n].astype(np.float32) / n
    # lighting: a diagonal gradient per channel and a soft vignette
    img = np.stack([60 + 120 * x, 80 + 90 * y, 140 - 60 * (x + y) / 2], axis=-1)
    img *= (1.0 - 0.35 * ((x - 0.5) ** 2 + (y - 0.5) ** 2))[..., None]
    # flat and shaded discs and rectangles with hard edges
    for _ in range(60):
        cx, cy, r = rng.random(), rng.random(), 0.02 + 0.12 * rng.random()
        colour = rng.integers(0, 256, 3).astype(np.float32)
        if rng.random() < 0.5:
            mask = (x - cx) ** 2 + (y - cy) ** 2 < r * r
        else:
            mask = (np.abs(x - cx) < r) & (np.abs(y - cy) < r * (0.3 + rng.random()))
        shade = 0.75 + 0.25 * np.cos(6.0 * (x[mask] - cx))
        img[mask] = colour * shade[:, None]
    # fine texture (fabric-like stripes) in one quadrant
    q = (x > 0.55) & (y > 0.55)
    img[q] += (25 * np.sin(2 * np.pi * 90 * x[q]) * np.sin(2 * np.pi * 70 * y[q]))[:, None]
    img += rng.normal(0.0, 2.5, img.shape).astype(np.float32)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    img = make(n)
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (n, n))
        f.write(img.tobytes())


if __name__ == "__main__":
    main()
