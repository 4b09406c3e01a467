"""Drawn cards in touching or overlapping pairs (and three harder tables), read card for card.

The second review of ``pat47`` (issue #6) drew these scenes to attack the window search's second
grid (a blob's windows at its own edges' turn, :func:`companion.vision.card_search._edge_turn`); this
is its script brought in unchanged in what it draws, so a seed gives the same photo as the review's
``adv.py``. Each scene: six pairs of cards (80 px short side, 1280 x 960, a slight perspective and
the photometric look of ``tests/test_vision_synth.py``); ``--kind``:

- ``touch``: the pair's cards 15-45° apart, touching or overlapping by 0-25 px;
- ``tilt``: the same at 10-15°;
- ``stripes``: pairs 25 px apart on a cloth of strong stripes at an angle;
- ``artcloth``: pairs apart on a cloth printed with borderless card art at an angle;
- ``textile``: pairs touching on a cloth of the ``pattern`` style's textile strips.

The table for ``touch`` / ``tilt`` is the synthetic scenes' six kinds in turn (seed mod 6).

Usage::

    python bench/touching_pairs.py --kind touch --style watercolour --seeds 3500-3535 [-v]

Prints, per seed with ``-v``, each card's outcome (ok, unk, WRONG=label, - for not found) and the
readings matching no card (extra); then the totals: cards, right, wrong, unknown, not found,
spurious (a name where no card is) and spurious "unknown".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# The package is the interpreter's own (a tree's .venv installs its tree), so one script measures
# main and a branch alike; only the scenes' helpers come from beside it.
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from seedargs import seed_list  # noqa: E402

KINDS = ("touch", "tilt", "stripes", "artcloth", "textile")
STYLES = ("flat", "illustrated", "noir", "pattern", "watercolour", "airbrush")
LABELS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
          "squid_nigiri", "pudding", "wasabi", "chopsticks"]
#: ``--labels maki_nigiri``: the look-alike draw of pat48's review (its tilted watercolour scenes
#: 13680-13699, where a squid nigiri was lost): only the three maki and three nigiri.
LABEL_SETS = {"all": list(LABELS), "maki_nigiri": ["maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
                                                   "squid_nigiri"]}
TABLES = ["plain", "dark", "felt", "wood", "checker", "blobs"]
#: The drawn card's short side, px (the long side at the game's 63:44), as the review drew them.
CW = 80
CH = CW * 63 / 44


def _rect(cx: float, cy: float, ang: float) -> np.ndarray:
    t = np.deg2rad(ang)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return (np.array([[-CW / 2, -CH / 2], [CW / 2, -CH / 2], [CW / 2, CH / 2], [-CW / 2, CH / 2]]) @ rot.T
            + [cx, cy]).astype(np.float32)


def _cloth(kind: str, style: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    import test_vision_synth as synth

    from companion.sim import faces
    if kind == "stripes":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = np.deg2rad(rng.uniform(15, 40))
        per = rng.uniform(8, 20)
        s = (np.sin((xx * np.cos(a) + yy * np.sin(a)) * 2 * np.pi / per) > 0).astype(np.float32)
        c1, c2 = rng.integers(40, 230, 3).astype(np.float32), rng.integers(40, 230, 3).astype(np.float32)
        return np.clip(c1 * s[..., None] + c2 * (1 - s[..., None]), 0, 255).astype(np.uint8)
    if kind == "artcloth":
        big = np.full((2 * h, 2 * w, 3), 180, np.uint8)
        tw = int(rng.integers(50, 110))
        for y, x in _tiles(big, tw, 6):
            f = faces.draw_card_face(str(rng.choice(LABELS)), tw, style=style)[4:-4, 4:-4]
            big[y + 4:y + 4 + f.shape[0], x + 4:x + 4 + f.shape[1]] = \
                f[:max(0, min(f.shape[0], 2 * h - y - 4)), :max(0, min(f.shape[1], 2 * w - x - 4))]
        return _turned_crop(big, w, h, rng)
    if kind == "textile":
        big = np.full((2 * h, 2 * w, 3), 190, np.uint8)
        tw = int(rng.integers(70, 130))
        th = int(tw * 63 / 44)
        for y, x in _tiles(big, tw, 8):
            f = faces.draw_card_face(str(rng.choice(LABELS)), tw, style="pattern")
            band = f[int(0.22 * f.shape[0]):int(0.30 * f.shape[0]), 6:-6]
            reps = int(np.ceil((th - 8) / band.shape[0])) + 1
            t = np.concatenate([band] * reps)[:th - 8]
            yy, xx = y + 4, x + 4
            hh, ww = min(t.shape[0], 2 * h - yy), min(t.shape[1], 2 * w - xx)
            if hh > 0 and ww > 0:
                big[yy:yy + hh, xx:xx + ww] = t[:hh, :ww]
        return _turned_crop(big, w, h, rng)
    return synth.background(kind, w, h, rng)


def _tiles(big: np.ndarray, tw: int, gap: int):
    """(y, x) px of each card-shaped tile (``tw`` px wide, 44 × 63 mm) laid row by row over ``big``
    with ``gap`` px between them."""
    th = int(tw * 63 / 44)
    for y in range(0, big.shape[0], th + gap):
        for x in range(0, big.shape[1], tw + gap):
            yield y, x


def _turned_crop(big: np.ndarray, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """The middle ``w`` × ``h`` px of ``big`` ((2h, 2w, 3) uint8) turned 15-40° (a cloth's print
    lies at no angle of the photo's), the corners filled by reflection."""
    import cv2

    m = cv2.getRotationMatrix2D((w, h), rng.uniform(15, 40), 1.0)
    m[:, 2] -= (w / 2, h / 2)
    return cv2.warpAffine(big, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def scene(kind: str, style: str, seed: int) -> tuple[np.ndarray, list[tuple[str, np.ndarray]], str]:
    """One scene: (960, 1280, 3) uint8 BGR photo, its 12 cards as (label, (4, 2) float32 quad in
    image px), and the table's name. The same draws, in the same order, as the review's ``adv.py``."""
    import cv2
    import test_vision_synth as synth

    from companion.sim import faces
    rng = np.random.default_rng(seed)
    w, h = 1280, 960
    table = kind if kind in ("stripes", "artcloth", "textile") else TABLES[seed % 6]
    flat = _cloth(table, style, w, h, rng)
    placed = []
    for cx, cy in [(x, y) for y in (250, 700) for x in (220, 640, 1060)]:
        a0 = rng.uniform(0, 360)
        if kind == "tilt":
            d = rng.choice([-1, 1]) * rng.uniform(10, 15)
        elif kind in ("touch", "textile"):
            d = rng.choice([-1, 1]) * rng.uniform(15, 45)
        else:
            d = rng.choice([-1, 1]) * rng.uniform(0, 45)
        a1 = a0 + d + rng.choice([0, 90])
        q0 = _rect(cx, cy, a0)
        dirn = rng.uniform(0, 2 * np.pi)
        u = np.array([np.cos(dirn), np.sin(dirn)])
        over = 0.0 if kind in ("stripes", "artcloth") else rng.choice([0, 0, 3, 8, 15, 25])
        dist = 200.0  # slide the second card in until it touches the first
        while dist > 0 and cv2.intersectConvexConvex(q0, _rect(cx + dist * u[0], cy + dist * u[1], a1))[0] <= 0:
            dist -= 1.0
        dist = dist + 25 if kind in ("stripes", "artcloth") else dist - over
        q1 = _rect(cx + dist * u[0], cy + dist * u[1], a1)
        placed += [(str(rng.choice(LABELS)), q0), (str(rng.choice(LABELS)), q1)]
    for lb, q in placed:
        synth.paste(flat, faces.draw_card_face(lb, 2 * CW, style=style), q[[0, 1, 2, 3]])
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = src + rng.uniform(0, 0.05, (4, 2)).astype(np.float32) * np.float32([[w, h], [-w, h], [-w, -h], [w, -h]])
    m = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(flat, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    truth = [(lb, cv2.perspectiveTransform(q[None], m)[0]) for lb, q in placed]
    return synth.photometric(img, rng), truth, table


def run(kind: str, style: str, seeds: list[int], verbose: bool = False) -> dict[str, float]:
    """Read each scene with ``read_cards``; the totals (cards, right, wrong, unknown, notfound,
    spurious, spur_unknown, read_cpu_s by ``time.process_time``)."""
    import test_vision_synth as synth

    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.sim.record import enroll_sim_deck
    from companion.vision.cards import read_cards
    deck = enroll_sim_deck(style=style)
    tot = dict(cards=0, right=0, wrong=0, unknown=0, notfound=0, spurious=0, spur_unknown=0, read_cpu_s=0.0)
    for seed in seeds:
        img, truth, table = scene(kind, style, seed)
        t0 = time.process_time()
        obs = read_cards(img, deck)
        tot["read_cpu_s"] += time.process_time() - t0
        pairs, extra = synth.match_truth(obs, truth)
        rec = []
        for i, (lb, _q, o) in enumerate(pairs):
            tot["cards"] += 1
            key, mark = (("notfound", "-") if o is None else ("right", "ok") if o.label == lb else
                         ("unknown", "unk") if o.label == UNKNOWN else ("wrong", f"WRONG={o.label}"))
            tot[key] += 1
            rec.append(f"{i}:{lb}:{mark}")
        tot["spurious"] += sum(o.label != UNKNOWN for o in extra)
        tot["spur_unknown"] += sum(o.label == UNKNOWN for o in extra)
        if verbose:
            ex = ",".join(f"{o.label}@{int(o.center[0])},{int(o.center[1])}" for o in extra)
            print(f"seed {seed} {table} | " + " ".join(rec) + " | extra " + ex, flush=True)
    tot["read_cpu_s"] = round(tot["read_cpu_s"], 2)
    return tot


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kind", choices=KINDS, default="touch")
    p.add_argument("--style", choices=STYLES, default="pattern")
    p.add_argument("--seeds", type=seed_list, default=seed_list("13000-13009"),
                   help="inclusive, e.g. 13000-13039 or 1-8,12")
    p.add_argument("--labels", choices=sorted(LABEL_SETS), default="all",
                   help="the labels drawn (maki_nigiri: the review's look-alike scenes)")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per scene")
    a = p.parse_args(argv)
    import companion
    print("package", Path(companion.__file__).parent, flush=True)
    LABELS[:] = LABEL_SETS[a.labels]  # the draws use the module's list, as the review's script did
    tot = run(a.kind, a.style, a.seeds, a.verbose)
    print("TOTAL", a.kind, a.style, json.dumps(tot), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
