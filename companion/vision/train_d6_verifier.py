"""Train the pip reader's verifier (:mod:`companion.vision.dice_verify`) from the shared webcam photos.

    python -m companion.vision.train_d6_verifier [--data DIR] [--out FILE] [--sim A:B] [--gem A:B] [--cache DIR]

Only the ``dev`` half of ``../shared/datasets/d6-photos/train`` is used (the photos whose name's
CRC-32 is even: the split of ``bench/real_dice.py``); the ``test`` half is never opened. Every
photo is read with no verifier, and every face reading the reader's rules let through, or refused
only for want of an outline or for sharing its face with other pips (faint ones, mostly), becomes a
training example:

* *positive* when its centre lies in a labelled die's box and it reads that die's value;
* *negative* when it reads another value than the box it lies in, or lies outside every box grown
  by a third of its size on every side (a reading on no die);
* left out when it lies between (near a die but not on its top face: a side face).

With ``--sim`` / ``--gem`` the simulated photos of those benches are read too (rendered, or taken
from ``--cache``), labelled by their known top faces (:func:`label_sim`), and folded by seed.
Settings are scored by replaying one traced reading of each photo with each fold's verifier
(:func:`companion.vision.dice_d6.select_readings`), which reads as the reader would.

The model is an L2-regularised logistic regression (Newton's method, so the same photos always give
the same file: nothing is random). Its regularisation and the least probability a reading is kept at
are chosen by 5-fold cross-validation over the dev photos (folds by a CRC-32 of the name): for each
setting, each fold's photos are read (replayed) with a verifier trained on the other four folds,
and the setting with the best ``right − spurious − 3 × wrong`` is taken (a wrong value costs most;
real photos count ``--real-weight`` times, as in the fit), the lower threshold on a tie. The final model is trained on all dev photos with that setting and
written as JSON (no pickle). Prints what each setting scored.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import zlib
from dataclasses import dataclass
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
EXAMPLE_REFUSALS = (None, "outline", "shares", "paired")
#: Simulated photos to learn from besides the real ones, FIRST:END ("" for none): ``bench/sim_d6.py``
#: (coloured and black dice with light pips; its looked-at seeds are 0:100) and ``bench/gem_d6.py``
#: (clear dyed dice; 0:60). None by default: with them (and the measures ``light``, least roundness
#: and pip size ratio, real photos weighted 4×) the verifier read about as many dice out of fold as
#: the shipped one with the reflection rule kept, and with the rule dropped it still let a wrong value
#: through (README, *Dice*).
SIM_SEEDS = ""
GEM_SEEDS = ""
#: How many times a real photo's example counts against a simulated one's in the fit.
REAL_WEIGHT = 1.0
#: What a wrong value costs in the cross-validation's objective, in dice right.
WRONG_COST = 3


def _bench(name: str):
    """A module of the repo's ``bench/`` folder (``real_dice``, ``sim_d6``, ``gem_d6``): the training
    reads the photos and labels exactly as the benches that measure the reader do."""
    if str(REPO / "bench") not in sys.path:
        sys.path.insert(0, str(REPO / "bench"))
    return importlib.import_module(name)


def seed_range(text: str) -> range | None:
    """``FIRST:END`` (END excluded) as a range, ``""`` as None; anything else is refused by name
    (argparse.ArgumentTypeError, which argparse reports as a usage error)."""
    if not text:
        return None
    first, sep, end = text.partition(":")
    if not (sep and first.isdigit() and end.isdigit() and int(first) < int(end)):
        raise argparse.ArgumentTypeError(f"seeds are FIRST:END with 0 <= FIRST < END (END excluded), not {text!r}")
    return range(int(first), int(end))


def dev_photos(data: Path) -> list[Path]:
    """The ``dev`` half of the photos in ``data``, name order: ``bench/real_dice.py``'s split."""
    return _bench("real_dice").photos("dev", data)


def fold_of(path: Path) -> int:
    """The cross-validation fold (0 … FOLDS − 1) of a dev photo: from the CRC-32's other bits."""
    return (zlib.crc32(path.name.encode()) // 2) % FOLDS


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


@dataclass
class Photo:
    """One photo read once, with no verifier, and its truth.

    Attributes:
        name: ``real/<file>``, ``sim/<seed>`` or ``gem/<seed>``.
        fold: its cross-validation fold, 0 … FOLDS − 1.
        trace: :func:`companion.vision.dice_d6._read_d6`'s trace, faces in working-image px.
        boxes: real photos: [(value 1..6, (x0, y0, x1, y1))] labelled dice boxes, working px; else None.
        quads: simulated photos: [(value 1..6, (4, 2) float64 top face)], working px; else None.
    """

    name: str
    fold: int
    trace: list
    boxes: list | None = None
    quads: list | None = None

    @property
    def set(self) -> str:
        return self.name.split("/")[0]


def read_real(photos: list[Path]) -> list[Photo]:
    """The dev photos read once (their labels taken to working px)."""
    from companion.vision.dice_d6 import _read_d6
    from companion.vision.imageio import read_image

    out = []
    for p in photos:
        img = read_image(p)
        trace: list = []
        _read_d6(img, None, trace)
        s = trace[0][1]
        boxes = [(v, tuple((c + 0.5) * s - 0.5 for c in box)) for v, box in _bench("real_dice").load_labels(p.with_suffix(".txt"), img.shape[:2])]
        out.append(Photo(f"real/{p.name}", fold_of(p), trace, boxes=boxes))
    return out


def simulated(kind: str, seed: int, cache: Path | None) -> tuple[np.ndarray, list]:
    """The photo of ``bench/sim_d6.py`` (``kind`` "sim") or ``bench/gem_d6.py`` ("gem", 4032×3024)
    for ``seed``, as the reader's working copy ((H, W, 3) uint8 BGR, long side ≤ 1280) with its
    dice's top faces [(value, (4, 2) float64 working px)]. With ``cache`` a folder, the copy is
    kept there as ``KIND_SEED.png`` (lossless) with its truth as ``KIND_SEED.json`` and read back
    next time: a gem photo takes seconds to render."""
    import cv2

    from companion.vision.dice_d6 import WORK_SIDE
    from companion.vision.imageio import working_copy

    if cache is not None and (cache / f"{kind}_{seed}.png").is_file():
        truth = json.loads((cache / f"{kind}_{seed}.json").read_text())["dice"]
        img = cv2.imread(str(cache / f"{kind}_{seed}.png"), cv2.IMREAD_COLOR)
        return img, [(int(v), np.array(q, np.float64)) for v, q in truth]
    shot = _bench("sim_d6").scene(seed) if kind == "sim" else _bench("gem_d6").scene(seed, (4032, 3024))
    img, s = working_copy(shot.image, WORK_SIDE)
    truth = [(int(v), (np.asarray(q, np.float64) + 0.5) * s - 0.5) for _, v, q in shot.dice]
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / f"{kind}_{seed}.json").write_text(json.dumps({"scale": s, "dice": [(v, q.tolist()) for v, q in truth]}))
        cv2.imwrite(str(cache / f"{kind}_{seed}.png"), img)
    return img, truth


def read_simulated(kind: str, seeds: range, cache: Path | None) -> list[Photo]:
    """The simulated photos of ``seeds`` read once (fold: the seed mod FOLDS)."""
    from companion.vision.dice_d6 import _read_d6

    out = []
    for seed in seeds:
        img, quads = simulated(kind, seed, cache)
        trace: list = []
        _read_d6(img, None, trace)
        out.append(Photo(f"{kind}/{seed}", seed % FOLDS, trace, quads=quads))
    return out


def _in_quad(q: np.ndarray, c: tuple[float, float], grow: float = 1.0) -> bool:
    """Whether point ``c`` lies in quad ``q`` (4, 2) grown ``grow`` times about its centre."""
    import cv2

    m = q.mean(axis=0)
    return cv2.pointPolygonTest(np.float32(m + grow * (q - m)), (float(c[0]), float(c[1])), False) >= 0


def label_sim(center: tuple[float, float], value: int, quads) -> int | None:
    """:func:`label_of` for a simulated photo: 1 on a die's top face with its value, 0 on a top face
    with another value or far from every die, None near one (within 1.6 times its top face: a side
    face, which the reader's choice of the roundest face settles)."""
    for v, q in quads:
        if _in_quad(q, center):
            return int(v == value)
    return None if any(_in_quad(q, center, 1.6) for _, q in quads) else 0


def examples(photos: list[Photo]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, photo_index)``: (N, F) float64 measures, (N,) 0/1 labels, (N,) int index into
    ``photos`` of every example reading (the hypotheses the rules let through, or refused only for
    one of :data:`EXAMPLE_REFUSALS`)."""
    from companion.vision.dice_verify import FEATURES, features

    xs, ys, idx = [], [], []
    for i, p in enumerate(photos):
        for kind, f, value, margin, why in p.trace[1:]:  # after the ("scale", s) entry
            if kind != "hypothesis" or value is None or why not in EXAMPLE_REFUSALS:
                continue
            c = f.center
            y = label_of(c, value, p.boxes) if p.boxes is not None else label_sim(c, value, p.quads)
            if y is not None:
                xs.append(features(f, value, margin))
                ys.append(y)
                idx.append(i)
    return (np.array(xs, np.float64).reshape(-1, len(FEATURES)), np.array(ys, np.float64),
            np.array(idx, np.int64))


def fit(X: np.ndarray, y: np.ndarray, lam: float, threshold: float, weight: np.ndarray | None = None):
    """A :class:`~companion.vision.dice_verify.Verifier` fitted by Newton's method (L2 penalty
    ``lam`` on the standardised weights, none on the bias; ``weight`` (N,) each example's weight in
    the likelihood, default 1)."""
    from companion.vision.dice_verify import Verifier

    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)  # a constant measure (polarity on ivory dice) stays 0
    Z = np.c_[(X - mean) / scale, np.ones(len(X))]
    w = np.zeros(Z.shape[1])
    penalty = np.r_[np.full(Z.shape[1] - 1, lam), 0.0]
    weight = np.ones(len(X)) if weight is None else np.asarray(weight, np.float64)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -50, 50)))
        grad = Z.T @ (weight * (p - y)) + penalty * w
        hess = Z.T @ (Z * (weight * p * (1 - p))[:, None]) + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return Verifier(mean, scale, w[:-1], w[-1], threshold)


def score_photo(p: Photo, readings: list[tuple[int | None, tuple[float, float]]]) -> dict[str, int]:
    """Right, wrong, unread, missed and spurious dice of one photo's ``readings`` [(value or None,
    centre working px)]. Real photos as ``bench/real_dice.py`` (a reading matches a labelled die
    when its centre lies in the box grown by a third, nearest first; null readings are neither right
    nor spurious); simulated ones as ``bench/sim_d6.py`` (a reading counts for the first die not yet
    counted whose top face holds its centre; any other reading is spurious)."""
    n = dict(right=0, wrong=0, unread=0, missed=0, spurious=0)
    if p.boxes is not None:
        pairs = []
        for j, (_, (x0, y0, x1, y1)) in enumerate(p.boxes):
            gx, gy = (x1 - x0) / 3, (y1 - y0) / 3
            for i, (_, (cx, cy)) in enumerate(readings):
                if x0 - gx <= cx <= x1 + gx and y0 - gy <= cy <= y1 + gy:
                    pairs.append((np.hypot(cx - (x0 + x1) / 2, cy - (y0 + y1) / 2), j, i))
        used_l, used_r = set(), set()
        for _, j, i in sorted(pairs):
            if j not in used_l and i not in used_r:
                used_l.add(j)
                used_r.add(i)
                value = readings[i][0]
                n["unread" if value is None else "right" if value == p.boxes[j][0] else "wrong"] += 1
        n["missed"] = len(p.boxes) - len(used_l)
        n["spurious"] = sum(1 for i, (v, _) in enumerate(readings) if i not in used_r and v is not None)
        return n
    used: set[int] = set()
    for value, c in readings:
        hit = [k for k, (_, q) in enumerate(p.quads) if k not in used and _in_quad(q, c)]
        if not hit:
            n["spurious"] += 1
            continue
        used.add(hit[0])
        truth = p.quads[hit[0]][0]
        n["unread" if value is None else "right" if value == truth else "wrong"] += 1
    n["missed"] = len(p.quads) - len(used)
    return n


def score_photos(photos: list[Photo], keeps) -> dict[str, dict[str, int]]:
    """Per set (``real``, ``sim``, ``gem``) the summed :func:`score_photo` of ``photos`` read with
    ``keeps(photo_index, face, value, margin) -> bool`` as the verifier (replayed from each photo's
    trace by :func:`companion.vision.dice_d6.select_readings`)."""
    from companion.vision.dice_d6 import select_readings

    total: dict[str, dict[str, int]] = {}
    for i, p in enumerate(photos):
        kept = select_readings(p.trace, lambda f, v, m, i=i: keeps(i, f, v, m))
        n = score_photo(p, [(v, f.center) for v, f in kept])
        t = total.setdefault(p.set, dict.fromkeys(n, 0))
        for k, v in n.items():
            t[k] += v
    return total


def asked_readings(photos: list[Photo], features) -> dict[tuple[int, int], list[float]]:
    """``{(photo index, id(face)): features(face, value, margin)}`` for every reading of every
    photo's trace that the replay (:func:`companion.vision.dice_d6.select_readings`) asks the
    verifier about (:func:`companion.vision.dice_d6.asks_verifier`): each measured once, so each
    fold's model answers the replay from a table."""
    from companion.vision.dice_d6 import asks_verifier

    asked = {}
    for i, p in enumerate(photos):
        for kind, f, value, margin, why in p.trace[1:]:
            if asks_verifier(kind, value, why):
                asked[(i, id(f))] = features(f, value, margin)
    return asked


def objective(total: dict[str, dict[str, int]], real_weight: float = 1.0) -> float:
    """What cross-validation maximises: dice right − spurious readings − WRONG_COST × wrong values,
    summed over the sets, the real photos' counted ``real_weight`` times (as in the fit)."""
    return sum((real_weight if s == "real" else 1.0) * (t["right"] - t["spurious"] - WRONG_COST * t["wrong"])
               for s, t in total.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the d6-photos train folder (photos and YOLO labels)")
    ap.add_argument("--out", type=Path, default=OUT, help="where to write the model (JSON)")
    ap.add_argument("--sim", type=seed_range, default=SIM_SEEDS, help="bench/sim_d6.py seeds FIRST:END to learn from too ('' for none)")
    ap.add_argument("--gem", type=seed_range, default=GEM_SEEDS, help="bench/gem_d6.py seeds FIRST:END to learn from too ('' for none)")
    ap.add_argument("--real-weight", type=float, default=REAL_WEIGHT,
                    help="each real photo's reading counts this many times a simulated one's")
    ap.add_argument("--cache", type=Path, help="keep the rendered simulated photos here (PNG and JSON) and reuse them")
    a = ap.parse_args(argv)
    from companion.vision.dice_verify import features

    paths = dev_photos(a.data)
    if not paths:
        print(f"no photos in {a.data}", file=sys.stderr)
        return 2
    photos = read_real(paths)
    for kind, seeds in (("sim", a.sim), ("gem", a.gem)):
        if seeds:
            photos += read_simulated(kind, seeds, a.cache)
    X, y, idx = examples(photos)
    print(f"{len(photos)} photos: {int(y.sum())} positive and {int(len(y) - y.sum())} negative readings")
    folds = np.array([p.fold for p in photos])
    weight = np.where([photos[i].set == "real" for i in idx], a.real_weight, 1.0)
    # Every reading the verifier would be asked about, measured once: the reader asks
    # ``keeps(face, value, margin)``, answered here from the probability of the photo's fold model.
    asked = asked_readings(photos, features)
    keys = list(asked)
    A = np.array([asked[k] for k in keys], np.float64).reshape(-1, X.shape[1])
    fold_of_key = folds[[i for i, _ in keys]]
    best = None
    for lam in LAMBDAS:
        prob = np.zeros(len(keys))
        for k in range(FOLDS):
            m = fit(X[folds[idx] != k], y[folds[idx] != k], lam, 0.0, weight[folds[idx] != k])
            prob[fold_of_key == k] = m.probability(A[fold_of_key == k])
        p_of = dict(zip(keys, prob.tolist()))
        for t in THRESHOLDS:
            total = score_photos(photos, lambda i, f, v, m, t=t: p_of[(i, id(f))] >= t)
            obj = objective(total, a.real_weight)
            print(f"lambda {lam:g} threshold {t:g}: objective {obj}  " + "  ".join(
                f"{s} {n}" for s, n in total.items()))
            if best is None or obj > best[0]:
                best = (obj, lam, t)
    _, lam, t = best
    model = fit(X, y, lam, t, weight)
    a.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"chose lambda {lam:g}, threshold {t:g}: wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
