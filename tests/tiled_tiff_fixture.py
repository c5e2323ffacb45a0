#!/usr/bin/python3
"""Writes an uncompressed tiled 8-bit gray TIFF from a binary PGM (P5), with
tile sizes and faults that tiffcp will not write, for the strip route's tests
(tests/test_cli_stream_tiled.sh):

    tiled_tiff_fixture.py IN.pgm OUT.tif TILE_W TILE_H [ok|truncated|few]

ok: a plain file (any tile size: 24 is not the multiple of 16 the TIFF spec
asks of writers, which libtiff reads with a warning); truncated: the last
tile starts half its size before the end of the file; few: one tile fewer in the tile
tables than the image needs. Classic little-endian TIFF, tiles first, the
directory last (as libtiff writes it).
"""
import struct
import sys


def read_pgm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P5" or int(fields[3]) != 255:
        sys.exit("an 8-bit binary PGM (P5) is needed")
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    w, h, px = read_pgm(sys.argv[1])
    tw, th = int(sys.argv[3]), int(sys.argv[4])
    fault = sys.argv[5] if len(sys.argv) > 5 else "ok"
    across, down = (w + tw - 1) // tw, (h + th - 1) // th
    tiles = []
    for ty in range(down):
        for tx in range(across):
            t = bytearray(tw * th)  # edge tiles padded with zeros
            for y in range(th):
                sy = ty * th + y
                if sy >= h:
                    break
                x0, x1 = tx * tw, min(w, tx * tw + tw)
                t[y * tw:y * tw + x1 - x0] = px[sy * w + x0:sy * w + x1]
            tiles.append(bytes(t))
    offsets, pos = [], 8
    for t in tiles:
        offsets.append(pos)
        pos += len(t)
    counts = [len(t) for t in tiles]
    body = b"".join(tiles)
    if fault == "few":
        offsets, counts = offsets[:-1], counts[:-1]
    pos += pos & 1
    n = len(offsets)
    extra_at = pos + 2 + 11 * 12 + 4  # after the directory: the two tile tables
    if fault == "truncated":
        # the last tile starts half its size before the end of the file
        end = extra_at + (8 * n if n > 1 else 0)
        offsets[-1] = end - counts[-1] // 2
    entries = [
        (256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
        (277, 3, 1, 1), (284, 3, 1, 1), (322, 4, 1, tw), (323, 4, 1, th),
        (324, 4, n, offsets[0] if n == 1 else extra_at),
        (325, 4, n, counts[0] if n == 1 else extra_at + 4 * n),
    ]
    ifd = struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        packed = struct.pack("<H", value) + b"\0\0" if typ == 3 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, typ, count) + packed
    ifd += struct.pack("<I", 0)
    tables = b"" if n == 1 else struct.pack("<%dI" % n, *offsets) + struct.pack("<%dI" % n, *counts)
    with open(sys.argv[2], "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", pos))
        f.write(body)
        f.write(b"\0" * (pos - 8 - len(body)))
        f.write(ifd + tables)


if __name__ == "__main__":
    main()
