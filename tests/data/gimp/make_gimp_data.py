"""Makes the GIMP plug-in test images (committed; rerun only to change them).
rgb.png   61x47 opaque RGB: gradients, sharp edges and noise (odd sizes on purpose)
rgba.png  40x33 RGBA with alpha from 0 to 255
tile.png  64x64 tileable RGB texture (periodic sinusoids, not mirror-symmetric)
tile_shift.png  tile.png rolled by (32, 25)"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from pixel_files import write_png  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261122)

h, w = 47, 61
y, x = np.mgrid[0:h, 0:w]
rgb = np.zeros((h, w, 3))
rgb[..., 0] = x / (w - 1)
rgb[..., 1] = y / (h - 1)
rgb[..., 2] = ((x // 8 + y // 8) % 2) * 0.8 + 0.1
rgb[12:30, 20:35, :] = [0.95, 0.2, 0.05]
rgb += rng.normal(0, 0.05, rgb.shape)
write_png(os.path.join(here, "rgb.png"), np.clip(np.rint(rgb * 255), 0, 255).astype(np.uint8))

h, w = 33, 40
y, x = np.mgrid[0:h, 0:w]
rgba = np.zeros((h, w, 4))
rgba[..., 0] = 0.5 + 0.5 * np.sin(x / 5.0)
rgba[..., 1] = y / (h - 1)
rgba[..., 2] = rng.uniform(0, 1, (h, w))
rgba[..., 3] = np.clip(x / (w - 1) * 1.2 - 0.1, 0, 1)
rgba[20:, :, 3] = 1.0
write_png(os.path.join(here, "rgba.png"), np.clip(np.rint(rgba * 255), 0, 255).astype(np.uint8))

n = 64
y, x = np.mgrid[0:n, 0:n]
tile = np.full((n, n, 3), 0.5)
for c in range(3):
    for _ in range(5):
        kx, ky = rng.integers(-4, 5, 2)
        ph = rng.uniform(0, 2 * np.pi)
        tile[..., c] += 0.08 * np.sin(2 * np.pi * (kx * x + ky * y) / n + ph)
tile8 = np.clip(np.rint(tile * 255), 0, 255).astype(np.uint8)
write_png(os.path.join(here, "tile.png"), tile8)
# The same texture shifted by half a period: its wrap-around seam sits in the middle.
write_png(os.path.join(here, "tile_shift.png"), np.roll(tile8, (n // 2, n // 2 - 7), axis=(0, 1)))
