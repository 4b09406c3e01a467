"""Train the pip reader's verifier (:mod:`companion.vision.dice_verify`) from the shared webcam photos.

    python -m companion.vision.train_d6_verifier [--data DIR] [--out FILE]

Only the ``dev`` half of ``../shared/datasets/d6-photos/train`` is used (the photos whose name's
CRC-32 is even: the split of ``bench/real_dice.py``); the ``test`` half is never opened. Every
photo is read with no verifier, and every face reading the reader's rules let through, or refused
only for want of an outline or for sharing its face with other pips (faint ones, mostly), becomes a
training example:

* *positive* when its centre lies in a labelled die's box and it reads that die's value;
* *negative* when it reads another value than the box it lies in, or lies outside every box grown
  by a third of its size on every side (a reading on no die);
* left out when it lies between (near a die but not on its top face: a side face).

The model is an L2-regularised logistic regression (Newton's method, so the same photos always give
the same file: nothing is random). Its regularisation and the least probability a reading is kept at
are chosen by 5-fold cross-validation over the dev photos (folds by a CRC-32 of the name): for each
setting, each fold's photos are read end to end with a verifier trained on the other four folds,
and the setting with the best ``right − spurious − 3 × wrong`` is taken (a wrong value costs most),
the lower threshold on a tie. The final model is trained on all dev photos with that setting and
written as JSON (no pickle). Prints what each setting scored.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "datasets" / "d6-photos" / "train"
OUT = REPO / "companion" / "data" / "d6_verifier.json"
#: Regularisation strengths tried (the L2 penalty on the standardised weights).
LAMBDAS = (0.3, 1.0, 3.0, 10.0, 30.0)
#: Least kept probabilities tried.
THRESHOLDS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
FOLDS = 5
#: Refusals after which a reading is still an example (the verifier sees only readings nothing else
#: refused; these two add faint ones and specks to learn from).
EXAMPLE_REFUSALS = (None, "outline", "shares")


def dev_photos(data: Path) -> list[Path]:
    """The ``dev`` half (CRC-32 of the name even), name order, as ``bench/real_dice.py`` splits it."""
    return [p for p in sorted(data.glob("*.jpg")) if zlib.crc32(p.name.encode()) % 2 == 0]


def fold_of(path: Path) -> int:
    """The cross-validation fold (0 … FOLDS − 1) of a dev photo: from the CRC-32's other bits."""
    return (zlib.crc32(path.name.encode()) // 2) % FOLDS


def load_labels(path: Path, shape: tuple[int, int]) -> list[tuple[int, tuple[float, float, float, float]]]:
    """[(value 1..6, (x0, y0, x1, y1) px)] from a YOLO label file (``class cx cy w h`` normalised,
    class 0 = one pip) for an image of ``shape`` (h, w)."""
    h, w = shape
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            c, cx, cy, bw, bh = (float(v) for v in line.split())
            out.append((int(c) + 1, ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)))
    return out


def label_of(center: tuple[float, float], value: int, labels) -> int | None:
    """1 (positive), 0 (negative) or None (left out) for a reading of ``value`` at ``center`` px."""
    cx, cy = center
    near = False
    for v, (x0, y0, x1, y1) in labels:
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            return int(v == value)
        gx, gy = (x1 - x0) / 3, (y1 - y0) / 3
        near |= x0 - gx <= cx <= x1 + gx and y0 - gy <= cy <= y1 + gy
    return None if near else 0


def examples(photos: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, photo_index)``: (N, F) float64 measures, (N,) 0/1 labels, (N,) int index into
    ``photos`` of every example reading (read with no verifier)."""
    from companion.vision.dice_d6 import _read_d6
    from companion.vision.dice_verify import FEATURES, features
    from companion.vision.imageio import read_image, to_original_px

    xs, ys, idx = [], [], []
    for i, p in enumerate(photos):
        img = read_image(p)
        trace: list = []
        _read_d6(img, None, trace)
        labels = load_labels(p.with_suffix(".txt"), img.shape[:2])
        scale = trace[0][1]
        for kind, f, value, margin, why in trace[1:]:
            if kind != "hypothesis" or value is None or why not in EXAMPLE_REFUSALS:
                continue
            c = to_original_px(np.array([f.center], np.float64), scale)[0]
            y = label_of((float(c[0]), float(c[1])), value, labels)
            if y is not None:
                xs.append(features(f, value, margin))
                ys.append(y)
                idx.append(i)
    return (np.array(xs, np.float64).reshape(-1, len(FEATURES)), np.array(ys, np.float64),
            np.array(idx, np.int64))


def fit(X: np.ndarray, y: np.ndarray, lam: float, threshold: float):
    """A :class:`~companion.vision.dice_verify.Verifier` fitted by Newton's method (L2 penalty
    ``lam`` on the standardised weights, none on the bias)."""
    from companion.vision.dice_verify import Verifier

    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)  # a constant measure (polarity on ivory dice) stays 0
    Z = np.c_[(X - mean) / scale, np.ones(len(X))]
    w = np.zeros(Z.shape[1])
    penalty = np.r_[np.full(Z.shape[1] - 1, lam), 0.0]
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -50, 50)))
        grad = Z.T @ (p - y) + penalty * w
        hess = Z.T @ (Z * (p * (1 - p))[:, None]) + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return Verifier(mean, scale, w[:-1], w[-1], threshold)


def score_photos(photos: list[Path], verifier) -> dict[str, int]:
    """Read ``photos`` with ``verifier`` and count right, wrong, missed and spurious dice (a reading
    matches a labelled die when its centre lies in the box grown by a third, nearest first; null
    readings are neither right nor spurious)."""
    from companion.vision.dice_d6 import _read_d6
    from companion.vision.imageio import read_image

    n = dict(right=0, wrong=0, missed=0, spurious=0)
    for p in photos:
        img = read_image(p)
        readings = _read_d6(img, verifier, None)
        labels = load_labels(p.with_suffix(".txt"), img.shape[:2])
        pairs = []
        for j, (_, (x0, y0, x1, y1)) in enumerate(labels):
            gx, gy = (x1 - x0) / 3, (y1 - y0) / 3
            for i, r in enumerate(readings):
                cx, cy = r.center
                if x0 - gx <= cx <= x1 + gx and y0 - gy <= cy <= y1 + gy:
                    pairs.append((np.hypot(cx - (x0 + x1) / 2, cy - (y0 + y1) / 2), j, i))
        used_l, used_r = set(), set()
        for _, j, i in sorted(pairs):
            if j not in used_l and i not in used_r:
                used_l.add(j)
                used_r.add(i)
                face = readings[i].face
                if face is not None:
                    n["right" if int(face) == labels[j][0] else "wrong"] += 1
        n["missed"] += len(labels) - len(used_l)
        n["spurious"] += sum(1 for i, r in enumerate(readings) if i not in used_r and r.face is not None)
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the d6-photos train folder (photos and YOLO labels)")
    ap.add_argument("--out", type=Path, default=OUT, help="where to write the model (JSON)")
    a = ap.parse_args(argv)
    photos = dev_photos(a.data)
    if not photos:
        print(f"no photos in {a.data}", file=sys.stderr)
        return 2
    X, y, idx = examples(photos)
    print(f"{len(photos)} dev photos: {int(y.sum())} positive and {int(len(y) - y.sum())} negative readings")
    folds = np.array([fold_of(p) for p in photos])
    best = None
    for lam in LAMBDAS:
        models = [fit(X[folds[idx] != k], y[folds[idx] != k], lam, 0.0) for k in range(FOLDS)]
        for t in THRESHOLDS:
            total = dict(right=0, wrong=0, missed=0, spurious=0)
            for k, m in enumerate(models):
                m.threshold = t
                for key, v in score_photos([p for p, f in zip(photos, folds) if f == k], m).items():
                    total[key] += v
            objective = total["right"] - total["spurious"] - 3 * total["wrong"]
            print(f"lambda {lam:g} threshold {t:g}: {total} objective {objective}")
            if best is None or objective > best[0]:
                best = (objective, lam, t)
    _, lam, t = best
    model = fit(X, y, lam, t)
    a.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"chose lambda {lam:g}, threshold {t:g}: wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
