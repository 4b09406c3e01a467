"""Card reading on real photos of a real deck: ``../shared/datasets/edje-cards`` (issue #6).

    .venv/bin/python bench/real_cards.py [--per-rank 10] [--seed 0] [--part dev|test|all] [--show] [--misses DIR]

Protocol (``../shared/README.md``): the deck is enrolled, as a user would, from a few photos of
each rank showing one card (``--per-rank`` of the 210 one-card photos, chosen by ``--seed``; the
photo is cropped to the labelled box plus a margin and ``companion enroll``'s own card finder
takes it from there). Every other photo is held out and read by ``read_cards`` (the finder and
classifier behind ``companion read cards``, no help from the labels). The held-out photos are split
in two by a hash of their names: ``dev`` (looked at while tuning) and ``test`` (only measured).
A labelled card counts when it is fully visible (its box overlaps no other labelled box and does
not touch the photo's border, where a card is cut off), and is

* *found* when a reading's bounding box has IoU ≥ 0.5 with it,
* *right* when that reading names its rank,
* *wrong* when that reading names another rank (an "unknown" is not wrong).

A reading that matches no labelled card and is not "unknown" is *spurious* (the photos hold
distractors: books, a game case, a keyboard; and cards overlapped by others, which are not scored
but may be read: a reading on an overlapped card's box is neither counted nor spurious). Such a
named reading is still judged: where the labelled box it matches best (by IoU) is under
``OFF_IOU`` or is of another rank, it is counted as *off the labels* (stop 42: an "ace" over an
overlapping ten and queen, IMG_2601, and a ten lying on a king read "nine", IMG_2622, were neither
wrong nor spurious to the counts above). A right covered card whose labelled box shows only a
sliver of it can count here too, so each such reading is listed with ``--show``.
An "unknown" reading on no labelled box is counted apart (*unknown on no card*: no wrong name, but
a thing on the table the reader reports as a card).
Two named readings that cover one place (their quads overlapping by half the smaller's area) are
counted as *twice*, scored or not: a card named twice is a fault, whatever the boxes say.

Labels give the rank only, so a rank's enrolment photos may miss a suit: the figure is a lower
bound of what a user who enrols all 24 faces would see.

``--recrop`` (stop 56) enrols as a user who heeds ``companion enroll``'s note "no card outline
found": such a photo (a card cut by a cable, a mouse or the photo's border; 39 of the 210 one-card
crops) is replaced by the rank's next one-card photo (:func:`split_recropped`). The held-out photos
then differ from the plain split's by the photos swapped. Draws 0 / 1: 10 / 9 photos replaced; dev
94.9 → 95.0 % and 90.4 → 93.8 %, test 85.2 → 83.9 % and 80.6 → 84.0 %, 0 wrong either way.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "datasets" / "edje-cards"


#: Labels in ``labels.csv`` that the photo contradicts: (image, label as given) → the card shown.
#: IMG_2396 shows a ten of diamonds (a "10" index, ten pips) labelled "nine"; enrolled as a nine,
#: it made every ten of diamonds a near tie between the two ranks. (Found by hand; since stop 56
#: ``companion enroll`` names it whenever it is enrolled: ``bench/misfiled.py``.)
ERRATA = {("IMG_2396.JPG", "nine"): "ten"}


def load_boxes(data: Path = DATA) -> dict[str, list[tuple[str, tuple[int, int, int, int]]]]:
    """image name → [(rank, (x0, y0, x1, y1) px)], with :data:`ERRATA` corrected."""
    boxes: dict[str, list] = defaultdict(list)
    with open(data / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            label = ERRATA.get((row["image"], row["label"]), row["label"])
            boxes[row["image"]].append(
                (label, tuple(int(row[k]) for k in ("x_min", "y_min", "x_max", "y_max")))
            )
    return dict(boxes)


def iou(a, b) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _singles(boxes) -> dict[str, list[str]]:
    """rank → the one-card photos of it, in name order."""
    singles: dict[str, list[str]] = defaultdict(list)
    for name, bs in sorted(boxes.items()):
        if len(bs) == 1:
            singles[bs[0][0]].append(name)
    return singles


def split(boxes, per_rank: int, seed: int) -> tuple[dict[str, list[str]], list[str]]:
    """(rank → enrolment photos, held-out photos)."""
    rng = np.random.default_rng(seed)
    enrol = {rank: sorted(rng.choice(names, per_rank, replace=False).tolist()) for rank, names in sorted(_singles(boxes).items())}
    used = {n for ns in enrol.values() for n in ns}
    return enrol, sorted(n for n in boxes if n not in used)


def enrolment_crop(boxes, name: str, data: Path = DATA) -> np.ndarray:
    """The one-card photo ``name`` cropped as a user would crop it for ``companion enroll``: its
    labelled box and 8 % of its long side round it, (H, W, 3) uint8 BGR."""
    from companion.vision.imageio import read_image

    img = read_image(data / "images" / name)
    x0, y0, x1, y1 = boxes[name][0][1]
    m = int(0.08 * max(x1 - x0, y1 - y0))
    h, w = img.shape[:2]
    return img[max(0, y0 - m) : min(h, y1 + m), max(0, x0 - m) : min(w, x1 + m)]


def split_recropped(boxes, per_rank: int, seed: int, data: Path = DATA) -> tuple[dict[str, list[str]], list[str], int]:
    """:func:`split` as a user who heeds ``companion enroll``'s note would enrol: a chosen photo in
    which enrolment finds no card outline (the note "no card outline found; the whole picture was
    enrolled as the card", ``deck._crop_quad``) is put back and the rank's next one-card photo (in
    an order drawn from ``seed``) is taken instead. Returns (rank → enrolment photos, held-out
    photos, photos put back)."""
    from companion.vision.deck import _crop_quad

    chosen, _ = split(boxes, per_rank, seed)
    rng = np.random.default_rng([seed, 1])
    singles = _singles(boxes)
    back = 0
    for rank, names in chosen.items():
        spare = [n for n in rng.permutation(singles[rank]).tolist() if n not in names]
        kept = []
        for n in names + spare:
            if len(kept) == per_rank:
                break
            if _crop_quad(enrolment_crop(boxes, n, data))[1]:
                kept.append(n)
            elif n in names:
                back += 1
        if len(kept) < per_rank:
            print(f"enrolment: only {len(kept)} {rank} photos with a card outline found, not {per_rank}", file=sys.stderr)
        chosen[rank] = sorted(kept)
    used = {n for ns in chosen.values() for n in ns}
    return chosen, sorted(n for n in boxes if n not in used), back


def enrol(boxes, chosen: dict[str, list[str]], data: Path = DATA):
    from companion.vision.deck import enroll_images

    return enroll_images({rank: [enrolment_crop(boxes, n, data) for n in names] for rank, names in chosen.items()})


def part_of(held: list[str], part: str) -> list[str]:
    """The ``dev`` or ``test`` half of the held-out photos (by a CRC-32 of the name), or ``all``."""
    if part == "all":
        return held
    return [n for n in held if (zlib.crc32(n.encode()) % 2 == 0) == (part == "dev")]


OFF_IOU = 0.3  # a named reading on an overlapped place must match its best labelled box this well


def _cut(box, shape) -> bool:
    """Whether a labelled box touches the photo's border (within 2 px): the card is cut off."""
    return box[0] <= 2 or box[1] <= 2 or box[2] >= shape[1] - 3 or box[3] >= shape[0] - 3


def _save_miss(out: Path, name: str, img: np.ndarray, box, truth, obs) -> None:
    """Write a crop round a card not found (its box plus a card's width of context) to ``out``:
    the labelled box green, every other labelled box blue, every reading's quad red. PNG."""
    import cv2

    x0, y0, x1, y1 = box
    m = max(x1 - x0, y1 - y0)
    h, w = img.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m)
    view = img.copy()
    for _, b in truth:
        if tuple(b) != tuple(box):
            cv2.rectangle(view, b[:2], b[2:], (255, 0, 0), 1)
    for o in obs:
        cv2.polylines(view, [np.int32(o.quad)], True, (0, 0, 255), 1)
    cv2.rectangle(view, (x0, y0), (x1, y1), (0, 255, 0), 1)
    out.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out / f"{Path(name).stem}_{x0}_{y0}.png"), np.hstack(
        [view[cy0:cy1, cx0:cx1], img[cy0:cy1, cx0:cx1]]))


def evaluate(deck, boxes, held: list[str], data: Path = DATA, show: bool = False,
             misses: Path | None = None) -> dict:
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.card_search import overlap_area
    from companion.vision.cards import read_cards
    from companion.vision.imageio import read_image

    n = found = right = wrong = spurious = unknown_reads = twice = off = stray = 0
    ms = []
    mistakes = []
    for name in held:
        img = read_image(data / "images" / name)
        t0 = time.perf_counter()
        obs = read_cards(img, deck)
        ms.append((time.perf_counter() - t0) * 1000)
        truth = boxes[name]
        named = [np.float32(o.quad) for o in obs if o.label != UNKNOWN]
        for a in range(len(named)):
            for b in range(a + 1, len(named)):
                if overlap_area(named[a], named[b]) > 0.5 * min(_area(named[a]), _area(named[b])):
                    twice += 1
                    mistakes.append(f"{name}: one place named twice")
        clear = [i for i, (_, b) in enumerate(truth)
                 if not _cut(b, img.shape) and not any(_overlaps(b, o) for j, (_, o) in enumerate(truth) if j != i)]
        used = set()
        for o in obs:
            q = np.array(o.quad)
            ob = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
            ious = [iou(ob, b) for _, b in truth]
            j = int(np.argmax(ious)) if ious else -1
            if j < 0 or ious[j] < 0.5 or j not in clear:  # not scored: judged only if named
                if o.label != UNKNOWN and not any(_overlaps(ob, b) for _, b in truth):
                    spurious += 1
                    mistakes.append(f"{name}: spurious {o.label}")
                elif o.label == UNKNOWN and not any(_overlaps(ob, b) for _, b in truth):
                    stray += 1  # an "unknown" on no card: no wrong name, but a thing the user sees
                    mistakes.append(f"{name}: unknown on no card at {[int(v) for v in ob]}")
                elif o.label != UNKNOWN and (ious[j] < OFF_IOU or o.label != truth[j][0]):
                    off += 1
                    mistakes.append(f"{name}: {o.label} named off the labels (best box {truth[j][0]}, "
                                    f"IoU {ious[j]:.2f}) at {[int(v) for v in ob]}")
                continue
            if j in used:
                continue
            used.add(j)
            found += 1
            if o.label == truth[j][0]:
                right += 1
            elif o.label == UNKNOWN:
                unknown_reads += 1
                mistakes.append(f"{name}: {truth[j][0]} read unknown")
            else:
                wrong += 1
                mistakes.append(f"{name}: {truth[j][0]} read {o.label}")
        n += len(clear)
        for j in clear:
            if j not in used:
                mistakes.append(f"{name}: {truth[j][0]} not found at {list(truth[j][1])}")
                if misses is not None:
                    _save_miss(misses, name, img, truth[j][1], truth, obs)
    if show:
        print("\n".join(mistakes))
    return {"cards": n, "found": found, "right": right, "wrong": wrong, "unknown": unknown_reads,
            "spurious": spurious, "twice": twice, "off": off, "stray": stray,
            "ms_median": float(np.median(ms)) if ms else 0.0, "photos": len(held)}


def _area(q: np.ndarray) -> float:
    import cv2

    return abs(float(cv2.contourArea(q)))


def _overlaps(a, b) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--per-rank", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--part", choices=("dev", "test", "all"), default="test")
    p.add_argument("--show", action="store_true", help="list every miss")
    p.add_argument("--recrop", action="store_true",
                   help="enrol as a user who heeds enroll's 'no card outline found' note: such a photo is "
                        "replaced by the rank's next one-card photo (split_recropped)")
    p.add_argument("--misses", type=Path, metavar="DIR",
                   help="save a PNG crop round every card not found (its box green, readings red) in DIR")
    a = p.parse_args(argv)
    if a.misses is not None and a.misses.exists() and not a.misses.is_dir():
        p.error(f"--misses: {a.misses} is not a folder")
    if not DATA.is_dir():
        print(f"skipped: {DATA} is missing (the shared datasets sit beside the repo)", file=sys.stderr)
        return 0
    boxes = load_boxes()
    if a.recrop:
        chosen, held, back = split_recropped(boxes, a.per_rank, a.seed)
        print(f"enrolment: {back} photos with no card outline found put back for the rank's next one")
    else:
        chosen, held = split(boxes, a.per_rank, a.seed)
    deck = enrol(boxes, chosen)
    r = evaluate(deck, boxes, part_of(held, a.part), show=a.show, misses=a.misses)
    pct = lambda k: 100.0 * r[k] / max(r["cards"], 1)  # noqa: E731
    print(f"{a.part}: held-out photos {r['photos']}, fully visible cards {r['cards']}: found {pct('found'):.1f} %, "
          f"right {pct('right'):.1f} %, wrong {r['wrong']}, unknown {r['unknown']}, spurious {r['spurious']}, "
          f"named twice {r['twice']}, named off the labels {r['off']}, unknown on no card {r['stray']}, {r['ms_median']:.0f} ms per photo (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
