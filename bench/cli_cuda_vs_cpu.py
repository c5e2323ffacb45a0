#!/usr/bin/env python3
"""Random test images and output checks for bench/cli_cuda_vs_cpu.sh, with
numpy alone: the GPU machines have no libtiff, PIL or tifffile to lean on.

  cli_cuda_vs_cpu.py make u8|f32 N OUT.tif     fresh random N x N RGB image,
                                               uncompressed baseline TIFF
  cli_cuda_vs_cpu.py compare A.tif B.tif       how far two outputs differ

Only what the CLI writes for an uncompressed input is read back: strips,
chunky (interleaved) samples, no compression, no predictor."""
import struct
import sys

import numpy as np


def write_tiff(path, img):
    """img: H x W x C, uint8 or float32. Data right after the header, then
    the IFD and its arrays (little endian, 32-bit offsets: < 4 GiB)."""
    h, w, c = img.shape
    bits, fmt = (8, 1) if img.dtype == np.uint8 else (32, 3)
    row = w * c * img.itemsize
    rps = min(h, max(1, (1 << 20) // row))  # strips of about 1 MiB, as libtiff suggests
    nstrips = (h + rps - 1) // rps
    data_off = 8
    ifd_off = data_off + h * row
    ifd_off += ifd_off & 1
    entries = 11
    arr_off = ifd_off + 2 + 12 * entries + 4
    bps_off = arr_off
    sfmt_off = bps_off + 2 * c
    soff_off = sfmt_off + 2 * c
    scnt_off = soff_off + 4 * nstrips
    offsets = [data_off + k * rps * row for k in range(nstrips)]
    counts = [min(rps, h - k * rps) * row for k in range(nstrips)]

    def ent(tag, typ, n, val):
        return struct.pack('<HHI', tag, typ, n) + (struct.pack('<HH', val, 0) if typ == 3 and n == 1
                                                   else struct.pack('<I', val))
    ifd = [ent(256, 4, 1, w), ent(257, 4, 1, h), ent(258, 3, c, bps_off), ent(259, 3, 1, 1),
           ent(262, 3, 1, 2 if c >= 3 else 1),
           ent(273, 4, nstrips, soff_off) if nstrips > 1 else ent(273, 4, 1, offsets[0]),
           ent(277, 3, 1, c), ent(278, 4, 1, rps),
           ent(279, 4, nstrips, scnt_off) if nstrips > 1 else ent(279, 4, 1, counts[0]),
           ent(284, 3, 1, 1), ent(339, 3, c, sfmt_off)]
    assert len(ifd) == entries
    with open(path, 'wb') as f:
        f.write(b'II*\0' + struct.pack('<I', ifd_off))
        np.ascontiguousarray(img).tofile(f)
        f.write(b'\0' * (ifd_off - f.tell()))
        f.write(struct.pack('<H', entries) + b''.join(ifd) + struct.pack('<I', 0))
        f.write(struct.pack('<%dH' % c, *([bits] * c)) + struct.pack('<%dH' % c, *([fmt] * c)))
        f.write(struct.pack('<%dI' % nstrips, *offsets) + struct.pack('<%dI' % nstrips, *counts))


def read_tiff(path):
    """The first image of an uncompressed strip TIFF (either byte order, classic or BigTIFF)."""
    raw = np.memmap(path, dtype=np.uint8, mode='r')
    e = '<' if bytes(raw[:2]) == b'II' else '>'
    big = struct.unpack(e + 'H', bytes(raw[2:4]))[0] == 43
    sizes = {1: 1, 2: 1, 3: 2, 4: 4, 16: 8}
    codes = {1: 'B', 2: 'B', 3: 'H', 4: 'I', 16: 'Q'}
    if big:
        ifd = struct.unpack(e + 'Q', bytes(raw[8:16]))[0]
        n = struct.unpack(e + 'Q', bytes(raw[ifd:ifd + 8]))[0]
        p, esz, inline = ifd + 8, 20, 8
    else:
        ifd = struct.unpack(e + 'I', bytes(raw[4:8]))[0]
        n = struct.unpack(e + 'H', bytes(raw[ifd:ifd + 2]))[0]
        p, esz, inline = ifd + 2, 12, 4
    tags = {}
    for k in range(n):
        q = p + k * esz
        tag, typ = struct.unpack(e + 'HH', bytes(raw[q:q + 4]))
        cnt = struct.unpack(e + ('Q' if big else 'I'), bytes(raw[q + 4:q + 4 + (8 if big else 4)]))[0]
        v = q + (12 if big else 8)
        nbytes = sizes.get(typ, 1) * cnt
        if nbytes > inline:
            v = struct.unpack(e + ('Q' if big else 'I'), bytes(raw[v:v + inline]))[0]
        if typ in codes:
            tags[tag] = list(struct.unpack(e + codes[typ] * cnt, bytes(raw[v:v + nbytes])))
    w, h = tags[256][0], tags[257][0]
    c = tags.get(277, [1])[0]
    bits = tags[258][0]
    sfmt = tags.get(339, [1])[0]
    if tags.get(259, [1])[0] != 1 or tags.get(284, [1])[0] != 1:
        sys.exit('%s: compressed or planar TIFF: not read here' % path)
    dt = {(8, 1): 'u1', (16, 1): 'u2', (32, 3): 'f4'}[(bits, sfmt)]
    dt = np.dtype(dt).newbyteorder(e)
    parts = [raw[o:o + b] for o, b in zip(tags[273], tags[279])]
    buf = np.concatenate(parts) if len(parts) > 1 else np.asarray(parts[0])
    return buf.view(dt)[:w * h * c].reshape(h, w, c)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'make':
        kind, n, path = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        rng = np.random.default_rng()  # fresh every run: never zeros, never the same image
        if kind == 'u8':
            img = rng.integers(0, 256, size=(n, n, 3), dtype=np.uint8)
        else:
            img = rng.random(size=(n, n, 3), dtype=np.float32)
        write_tiff(path, img)
        print('%s: %dx%d RGB %s, mean %.4f' % (path, n, n, kind, float(img[::64, ::64].mean())))
    elif len(sys.argv) == 4 and sys.argv[1] == 'compare':
        a, b = read_tiff(sys.argv[2]), read_tiff(sys.argv[3])
        if a.shape != b.shape or a.dtype != b.dtype:
            sys.exit('compare: %s %s vs %s %s' % (a.shape, a.dtype, b.shape, b.dtype))
        if a.dtype.kind == 'u':
            d = np.abs(a.astype(np.int32) - b.astype(np.int32))
            print('compare: %s, max |diff| %d levels, %d of %d samples differ' %
                  (a.shape, int(d.max()), int(np.count_nonzero(d)), d.size))
        else:
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            rel = np.sqrt(np.mean((a64 - b64) ** 2) / np.mean(b64 ** 2))
            print('compare: %s float, rel RMS %.3g, max |diff| %.3g, NaN %d/%d' %
                  (a.shape, rel, float(np.abs(a64 - b64).max()), int(np.isnan(a64).sum()),
                   int(np.isnan(b64).sum())))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
