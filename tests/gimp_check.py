"""Checks for the GIMP plug-in tests: compare what GIMP saved with the recblur
CLI's output on the same input. Each subcommand prints one line with its
numbers and exits 1 when the check fails.

  close8 GIMP.png REF.png [ALPHA_MIN]   8/16-bit: max |diff| <= 1 step (pixels
                                        with alpha >= ALPHA_MIN when given)
  closef GIMP.pfm REF.pfm               float: max |diff| / max |ref| <= 1e-5
  srgb2lin IN.png OUT.pfm               decode sRGB to linear light (float64 math)
  lin2close8 GIMP.png REF_LINEAR.pfm    encode REF to sRGB 8-bit; max |diff| <= 1
  premul IN.png PREFIX                  RGBA 8-bit -> linear light, premultiplied:
                                        PREFIX{0,1,2,3}.pfm (R*A, G*A, B*A, A)
  unpremul8 GIMP.png PREFIX             rebuild from PREFIXf{0..3}.pfm (filtered),
                                        divide, encode, compare where alpha >= 0.1
  crop IN.png X Y W H OUT.pfm           crop, as float v/255
  planes IN.png PREFIX                  as float v/steps: PREFIX.pfm (colour, straight)
                                        and, with alpha, PREFIX_a.pfm
  near8 GIMP.png REF.pfm [REF_A.pfm ALPHA_MIN]   within 1 step of the float
                                        reference (rb_host_reference), alpha
                                        too, colour where alpha >= ALPHA_MIN
  selection GIMP.png IN.png X Y W H REF.pfm   inside the box within 1 step of REF,
                                        outside identical to IN
  shift A.png B.png DY DX               roll(A, (DY, DX)) within 1 step of B
  seam IMG.png MAX|MIN RATIO            tile 2x2; max jump next to the seams /
                                        max jump elsewhere <= RATIO (MAX) or >= (MIN)
  changed A.png B.png MIN               mean |A - B| >= MIN (the filter did something)
  same A.png B.png                      identical pixels
"""
import sys

import numpy as np

from pixel_files import linear_to_srgb, read_pfm, read_png, srgb_to_linear, write_pfm


def steps(img):
    return 65535.0 if img.dtype == np.uint16 else 255.0


def report(ok, text):
    print(("ok   " if ok else "FAIL ") + text)
    return 0 if ok else 1


def close8(a_path, b_path, alpha_min=None):
    a, b = read_png(a_path), read_png(b_path)
    if a.shape != b.shape or a.dtype != b.dtype:
        return report(False, f"{a_path} {a.shape} {a.dtype} vs {b_path} {b.shape} {b.dtype}")
    d = np.abs(a.astype(np.int64) - b.astype(np.int64))
    if alpha_min is not None:
        keep = b[..., -1] >= float(alpha_min) * steps(b)
        d = d[keep]
    return report(d.max() <= 1, f"{a_path}: max diff {d.max()} steps, mean {d.mean():.4f} "
                                f"({(d > 0).mean() * 100:.2f}% of samples differ)")


def closef(a_path, b_path):
    a, b = read_pfm(a_path), read_pfm(b_path)
    if a.shape != b.shape:
        return report(False, f"{a_path} {a.shape} vs {b_path} {b.shape}")
    rel = float(np.abs(a.astype(np.float64) - b).max() / np.abs(b).max())
    return report(rel <= 1e-5, f"{a_path}: max |diff| / max |ref| = {rel:.3g} (limit 1e-5)")


def srgb2lin(in_path, out_path):
    a = read_png(in_path)
    write_pfm(out_path, srgb_to_linear(a / steps(a)))
    return 0


def lin2close8(a_path, ref_path):
    a = read_png(a_path)
    ref = np.clip(np.rint(linear_to_srgb(read_pfm(ref_path)) * 255.0), 0, 255)
    d = np.abs(a.astype(np.int64) - ref.astype(np.int64))
    return report(d.max() <= 1, f"{a_path}: linear light vs the reference on decoded input: max diff "
                                f"{d.max()} steps, mean {d.mean():.4f}")


def premul(in_path, prefix):
    a = read_png(in_path) / 255.0
    alpha = a[..., 3]
    for c in range(3):
        write_pfm(f"{prefix}{c}.pfm", srgb_to_linear(a[..., c]) * alpha)
    write_pfm(f"{prefix}3.pfm", alpha)
    return 0


def unpremul8(g_path, prefix):
    g = read_png(g_path)
    planes = [read_pfm(f"{prefix}f{c}.pfm")[..., 0].astype(np.float64) for c in range(4)]
    alpha = planes[3]
    safe = np.where(alpha > 0, alpha, 1.0)
    ref = np.zeros(g.shape)
    for c in range(3):
        ref[..., c] = np.clip(np.rint(linear_to_srgb(planes[c] / safe) * 255.0), 0, 255)
    ref[..., 3] = np.clip(np.rint(alpha * 255.0), 0, 255)
    keep = ref[..., 3] >= 0.1 * 255
    d = np.abs(g.astype(np.int64) - ref.astype(np.int64))[keep]
    return report(d.max() <= 1, f"{g_path}: linear light, premultiplied, vs the reference per plane: max diff "
                                f"{d.max()} steps, mean {d.mean():.4f} ({keep.mean() * 100:.0f}% of "
                                f"pixels have alpha >= 0.1)")


def crop(in_path, x, y, w, h, out_path):
    a = read_png(in_path)
    write_pfm(out_path, a[y:y + h, x:x + w] / steps(a))
    return 0


def planes(in_path, prefix):
    a = read_png(in_path)
    colour = a[..., :3] if a.shape[2] >= 3 else a[..., :1]
    write_pfm(f"{prefix}.pfm", colour / steps(a))
    if a.shape[2] in (2, 4):
        write_pfm(f"{prefix}_a.pfm", a[..., -1] / steps(a))
    return 0


def near8(g_path, ref_path, ref_alpha_path=None, alpha_min=None):
    g = read_png(g_path)
    top = steps(g)
    ref = read_pfm(ref_path).astype(np.float64)
    if ref_alpha_path is not None:
        ref = np.concatenate([ref, read_pfm(ref_alpha_path).astype(np.float64)], axis=2)
    ref = np.clip(np.rint(ref * top), 0, top)
    if g.shape != ref.shape:
        return report(False, f"{g_path} {g.shape} vs reference {ref.shape}")
    d = np.abs(g.astype(np.int64) - ref.astype(np.int64))
    if alpha_min is not None:
        d = d[ref[..., -1] >= float(alpha_min) * top]
    return report(d.max() <= 1, f"{g_path}: vs the float64 reference: max diff {d.max()} steps, "
                                f"mean {d.mean():.4f}")


def selection(g_path, in_path, x, y, w, h, ref_path):
    g, a = read_png(g_path), read_png(in_path)
    ref = np.clip(np.rint(read_pfm(ref_path) * 255.0), 0, 255)
    inside = np.abs(g[y:y + h, x:x + w].astype(np.int64) - ref.astype(np.int64))
    mask = np.ones(a.shape[:2], bool)
    mask[y:y + h, x:x + w] = False
    outside = np.abs(g[mask].astype(np.int64) - a[mask].astype(np.int64))
    changed = np.abs(g[y:y + h, x:x + w].astype(np.int64) - a[y:y + h, x:x + w]).mean()
    ok = inside.max() <= 1 and outside.max() == 0 and changed > 1.0
    return report(ok, f"{g_path}: in the box max diff vs CLI on the crop {inside.max()} steps; "
                      f"outside max change {outside.max()}; mean change inside {changed:.2f}")


def shift(a_path, b_path, dy, dx):
    a, b = read_png(a_path), read_png(b_path)
    d = np.abs(np.roll(a, (dy, dx), axis=(0, 1)).astype(np.int64) - b.astype(np.int64))
    return report(d.max() <= 1, f"roll({a_path}) vs {b_path}: max diff {d.max()} steps")


def seam_ratio(img):
    t = np.tile(img.astype(np.float64), (2, 2, 1))
    h, w = img.shape[:2]

    def ratio(axis, n):
        # jump between sample j and j+1 along axis; the seam is between n-1 and n
        jump = np.abs(np.diff(t, axis=axis)).max(axis=(1 - axis, 2))
        near = np.zeros(jump.shape, bool)
        near[n - 3:n + 2] = True
        return jump[near].max() / jump[~near].max()

    return max(ratio(1, w), ratio(0, h))


def seam(path, kind, limit):
    r = seam_ratio(read_png(path))
    ok = r <= limit if kind == "MAX" else r >= limit
    return report(ok, f"{path}: tiled 2x2, max jump at the seams / max jump inside = {r:.3f} "
                      f"({'<=' if kind == 'MAX' else '>='} {limit})")


def changed(a_path, b_path, minimum):
    a, b = read_png(a_path), read_png(b_path)
    m = np.abs(a.astype(np.float64) - b).mean()
    return report(m >= minimum, f"{a_path} vs {b_path}: mean |diff| {m:.3f} (>= {minimum})")


def same(a_path, b_path):
    a, b = read_png(a_path), read_png(b_path)
    ok = a.shape == b.shape and np.array_equal(a, b)
    return report(ok, f"{a_path} identical to {b_path}: {ok}")


def main(argv):
    cmd, args = argv[1], argv[2:]
    ints = lambda xs: [int(v) for v in xs]  # noqa: E731
    commands = {
        "close8": close8, "closef": closef, "srgb2lin": srgb2lin, "lin2close8": lin2close8,
        "premul": premul, "unpremul8": unpremul8, "planes": planes, "near8": near8,
        "changed": lambda a, b, m: changed(a, b, float(m)), "same": same,
        "crop": lambda p, *r: crop(p, *ints(r[:4]), r[4]),
        "selection": lambda g, i, *r: selection(g, i, *ints(r[:4]), r[4]),
        "shift": lambda a, b, *r: shift(a, b, *ints(r)),
        "seam": lambda p, k, lim: seam(p, k, float(lim)),
    }
    if cmd not in commands:
        raise SystemExit(f"gimp_check.py: unknown command {cmd}")
    return commands[cmd](*args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
