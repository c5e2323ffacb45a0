#!/usr/bin/env python3
"""Make samples/texture.png: a 512x512 RGB 8-bit TILEABLE texture, procedurally.

Everything is built on the torus, so the image tiles seamlessly by construction:
  - colour clouds: white noise shaped by a 1/f^1.6 spectrum through the FFT
    (the inverse FFT of any spectrum is periodic with the image size);
  - crisp cells: Voronoi (Worley) edges with wrap-around distances, so a blur
    has sharp features to soften and seams would show at once.
Deterministic (fixed seed); license-clean (made here, no outside data).
Usage: python3 scripts/make_sample_texture.py [OUT.png]
"""
import struct
import sys
import zlib

import numpy as np

N = 512
rng = np.random.default_rng(20261122)


def clouds(beta=1.6):
    fy = np.fft.fftfreq(N)[:, None]
    fx = np.fft.fftfreq(N)[None, :]
    f = np.sqrt(fx * fx + fy * fy)
    f[0, 0] = 1.0
    amp = f ** (-beta)
    amp[0, 0] = 0.0
    noise = rng.standard_normal((N, N))
    field = np.real(np.fft.ifft2(np.fft.fft2(noise) * amp))
    field -= field.min()
    return field / field.max()


def cell_edges(n_points=40):
    pts = rng.uniform(0, N, size=(n_points, 2))
    yy, xx = np.mgrid[0:N, 0:N].astype(np.float64)
    d1 = np.full((N, N), np.inf)
    d2 = np.full((N, N), np.inf)
    for py, px in pts:
        dy = np.abs(yy - py)
        dx = np.abs(xx - px)
        dy = np.minimum(dy, N - dy)  # wrap-around distance: periodic cells
        dx = np.minimum(dx, N - dx)
        d = np.sqrt(dx * dx + dy * dy)
        d2 = np.where(d < d1, d1, np.minimum(d2, d))
        d1 = np.minimum(d1, d)
    return np.clip((d2 - d1) / 3.0, 0.0, 1.0)  # 0 on the edges, 1 inside cells


def write_png(path, rgb8):
    h, w, _ = rgb8.shape
    raw = b"".join(b"\x00" + rgb8[y].tobytes() for y in range(h))

    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/texture.png"
    a, b, c = clouds(), clouds(1.2), clouds(2.2)
    # a warm/cool palette driven by three cloud fields
    r = 0.25 + 0.65 * a * (0.6 + 0.4 * c)
    g = 0.20 + 0.55 * (0.5 * a + 0.5 * b)
    bl = 0.30 + 0.60 * b * (1.0 - 0.5 * a)
    img = np.stack([r, g, bl], axis=-1)
    edges = cell_edges()[..., None]
    img = img * (0.35 + 0.65 * edges)  # dark crisp cell borders
    # a little fine grain so the blur has something to remove
    img += rng.normal(0.0, 0.02, size=img.shape)
    rgb8 = np.clip(np.rint(img * 255.0), 0, 255).astype(np.uint8)
    write_png(out, rgb8)


if __name__ == "__main__":
    main()
