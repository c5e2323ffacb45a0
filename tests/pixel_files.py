"""Pixel file helpers for the GIMP plug-in tests and bench/deblur_quality.py: a
small PNG reader/writer (8/16-bit gray, gray+alpha, RGB, RGBA; no palette, no
interlace) and PFM read/write, in numpy only, so the checks do not depend on
our own image IO (and need no imaging package)."""
import struct
import zlib

import numpy as np

_CHANNELS = {0: 1, 4: 2, 2: 3, 6: 4}


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if ctype not in _CHANNELS or interlace or depth not in (8, 16):
        raise ValueError(f"{path}: unsupported PNG (type {ctype}, depth {depth}, interlace {interlace})")
    ch = _CHANNELS[ctype]
    bpp = ch * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    out = np.zeros((h, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, dtype=np.int32)
        for x in range(stride):
            a = cur[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 0:
                p = 0
            elif ft == 1:
                p = a
            elif ft == 2:
                p = b
            elif ft == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
            cur[x] = (line[x] + p) & 0xFF
        out[y] = cur
        prev = cur
    if depth == 16:
        out = out[:, 0::2] * 256 + out[:, 1::2]
        return out.reshape(h, w, ch).astype(np.uint16)
    return out.reshape(h, w, ch).astype(np.uint8)


def write_png(path, img):
    img = np.asarray(img)
    if img.ndim == 2:
        img = img[:, :, None]
    h, w, ch = img.shape
    ctype = {v: k for k, v in _CHANNELS.items()}[ch]
    depth = 16 if img.dtype == np.uint16 else 8
    rows = img.astype(">u2" if depth == 16 else np.uint8).reshape(h, -1)
    raw = b"".join(b"\x00" + r.tobytes() for r in rows)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def read_pfm(path):
    data = open(path, "rb").read()
    parts, pos = [], 0
    while len(parts) < 4:   # "PF" w h scale, whitespace separated
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        parts.append(data[start:pos].decode())
    pos += 1
    ch = 3 if parts[0] == "PF" else 1
    w, h, scale = int(parts[1]), int(parts[2]), float(parts[3])
    arr = np.frombuffer(data, dtype="<f4" if scale < 0 else ">f4", count=w * h * ch, offset=pos)
    return arr.reshape(h, w, ch)[::-1].astype(np.float32)   # PFM rows run bottom-up


def write_pfm(path, img):
    img = np.asarray(img, dtype=np.float32)
    if img.ndim == 2:
        img = img[:, :, None]
    h, w, ch = img.shape
    with open(path, "wb") as f:
        f.write(f"{'PF' if ch == 3 else 'Pf'}\n{w} {h}\n-1.0\n".encode())
        f.write(img[::-1].astype("<f4").tobytes())


def srgb_to_linear(v):
    v = np.asarray(v, dtype=np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(np.asarray(v, dtype=np.float64), 0.0, None)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)
