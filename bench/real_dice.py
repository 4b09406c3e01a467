"""Pip dice on real photos: ``../shared/datasets/d6-photos/train`` (issue #7 §1).

    .venv/bin/python bench/real_dice.py [--part dev|test|all] [--show]

Protocol: the 310 webcam photos are split in two by a CRC-32 of their names: ``dev`` (looked at while
building the reader) and ``test`` (only measured, never looked at one by one). Only the reader's
verifier is trained, on ``dev`` alone (``python -m companion.vision.train_d6_verifier``). Each
photo's YOLO label file gives one box per die (class 0 = one pip … 5 = six pips); the box marks the
die's top face or the pips on it. A reading *matches* a labelled die when its centre lies in the box
grown by a third of its size on every side, or the box's centre lies in the reading's quad (one
reading per die, nearest first). Then a labelled die is

* *right* when the matching reading has its value,
* *wrong* when it has another value,
* *unread* when it is reported with ``value: null`` (honest: the top face could not be read),
* *missed* when no reading matches it;

and a reading that matches no labelled die is *spurious* (null readings counted apart).
The issue's target: ≥ 97 % right and ≤ 3 % spurious (per labelled die) on photos never seen.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "datasets" / "d6-photos" / "train"


def load_labels(path: Path, shape: tuple[int, int]) -> list[tuple[int, tuple[float, float, float, float]]]:
    """[(value 1..6, (x0, y0, x1, y1) px)] from a YOLO label file for an image of ``shape`` (h, w)."""
    h, w = shape
    out = []
    for line in path.read_text().split("\n"):
        if not line.strip():
            continue
        c, cx, cy, bw, bh = (float(v) for v in line.split())
        out.append((int(c) + 1, ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)))
    return out


def photos(part: str, data: Path = DATA) -> list[Path]:
    """The ``dev`` or ``test`` half of the photos (by a CRC-32 of the name), or ``all``, in name order."""
    every = sorted(data.glob("*.jpg"))
    if part == "all":
        return every
    return [p for p in every if (zlib.crc32(p.name.encode()) % 2 == 0) == (part == "dev")]


def _inside(pt, quad) -> bool:
    import cv2

    return cv2.pointPolygonTest(np.float32(quad), (float(pt[0]), float(pt[1])), False) >= 0


def match(readings, labels) -> tuple[dict[int, int], list[int]]:
    """(label index → reading index, unmatched reading indices), nearest centres first."""
    pairs = []
    for j, (_, (x0, y0, x1, y1)) in enumerate(labels):
        gx, gy = (x1 - x0) / 3, (y1 - y0) / 3
        lc = ((x0 + x1) / 2, (y0 + y1) / 2)
        for i, r in enumerate(readings):
            cx, cy = r.center
            if (x0 - gx <= cx <= x1 + gx and y0 - gy <= cy <= y1 + gy) or _inside(lc, r.quad):
                pairs.append((np.hypot(cx - lc[0], cy - lc[1]), j, i))
    used_l, used_r, m = set(), set(), {}
    for _, j, i in sorted(pairs):
        if j not in used_l and i not in used_r:
            m[j] = i
            used_l.add(j)
            used_r.add(i)
    return m, [i for i in range(len(readings)) if i not in used_r]


def evaluate(paths: list[Path], show: bool = False) -> dict:
    from companion.vision.dice_d6 import read_d6
    from companion.vision.imageio import read_image

    counts = dict(dice=0, right=0, wrong=0, unread=0, missed=0, spurious=0, spurious_null=0)
    ms, notes = [], []
    for p in paths:
        img = read_image(p)
        t0 = time.perf_counter()
        readings = read_d6(img)
        ms.append((time.perf_counter() - t0) * 1000)
        labels = load_labels(p.with_suffix(".txt"), img.shape[:2])
        m, extra = match(readings, labels)
        counts["dice"] += len(labels)
        for j, (value, _) in enumerate(labels):
            if j not in m:
                counts["missed"] += 1
                notes.append(f"{p.stem}: a {value} missed")
                continue
            got = readings[m[j]].value
            if got == value:
                counts["right"] += 1
            elif got is None:
                counts["unread"] += 1
                notes.append(f"{p.stem}: a {value} unread")
            else:
                counts["wrong"] += 1
                notes.append(f"{p.stem}: a {value} read {got}")
        for i in extra:
            key = "spurious_null" if readings[i].value is None else "spurious"
            counts[key] += 1
            notes.append(f"{p.stem}: spurious {readings[i].value} at ({readings[i].center[0]:.0f},{readings[i].center[1]:.0f})")
    if show:
        print("\n".join(notes))
    counts["photos"] = len(paths)
    counts["ms_median"] = float(np.median(ms)) if ms else 0.0
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("dev", "test", "all"), default="test")
    ap.add_argument("--show", action="store_true", help="list every miss")
    a = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"skipped: {DATA} is missing (the shared datasets sit beside the repo)", file=sys.stderr)
        return 0
    r = evaluate(photos(a.part), show=a.show)
    pct = lambda k: 100.0 * r[k] / max(r["dice"], 1)  # noqa: E731
    print(f"{a.part}: {r['photos']} photos, {r['dice']} dice: right {pct('right'):.1f} %, wrong {r['wrong']}, "
          f"unread {r['unread']}, missed {r['missed']}, spurious {pct('spurious'):.1f} % ({r['spurious']}"
          f" + {r['spurious_null']} unread), {r['ms_median']:.1f} ms per photo (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
