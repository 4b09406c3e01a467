"""What the feature cross-check costs and does on the real photos (issue #6, ``cross53``).

    .venv/bin/python bench/cross_looks.py [--seed 0] [--part dev|test|all] [--show] [--looks]

Runs ``bench/real_cards.py``'s protocol (same enrolment draw, same held-out photos, same counts,
printed on the same line) and, on the side, records every look of
:func:`companion.vision.cards._crossed_by_features`: the reading's name, its whole-card score, its
margin over the best other label, what the features said, the look's time, and the card's rank where
the reading lies on a fully visible labelled card (IoU ≥ 0.5). Prints the looks per photo, their
share of the reading time, and every look whose features named another label (a name turned
"unknown": right names lost, wrong names caught); ``--looks`` lists every look, so a gate on the
score or the margin (``cards.CROSS_SCORE``) can be read off one run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_cards as rc  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--per-rank", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--part", choices=("dev", "test", "all"), default="test")
    p.add_argument("--show", action="store_true", help="list every miss (as bench/real_cards.py)")
    p.add_argument("--looks", action="store_true", help="list every look of the cross-check")
    a = p.parse_args(argv)
    if not rc.DATA.is_dir():
        print(f"skipped: {rc.DATA} is missing (the shared datasets sit beside the repo)", file=sys.stderr)
        return 0
    from companion.vision import cards, imageio

    boxes = rc.load_boxes()
    chosen, held = rc.split(boxes, a.per_rank, a.seed)
    deck = rc.enrol(boxes, chosen)
    state = {"name": None, "on": False}
    looks: list[dict] = []
    read_ms: list[float] = []
    real_read, real_cross, real_feature = imageio.read_image, cards._crossed_by_features, type(deck).feature_label
    real_read_cards = cards.read_cards

    def read_image(path, *args, **kw):
        state["name"] = Path(path).name
        return real_read(path, *args, **kw)

    def crossed(frame, d, readings):
        state["on"], state["readings"] = True, readings
        try:
            return real_cross(frame, d, readings)
        finally:
            state["on"] = False

    def feature_label(self, image, quad, labels=None):
        t0 = time.perf_counter()
        out = real_feature(self, image, quad, labels)
        if state["on"]:
            q = np.asarray(quad, np.float32)
            r = min(state["readings"], key=lambda r: float(np.abs(cards.order_quad(np.asarray(r.quad, np.float32)) - q).sum()))
            own = deck.labels.index(r.label)
            others = np.asarray(r.scores, np.float64).copy()
            others[own] = -np.inf
            looks.append({"photo": state["name"], "label": r.label, "score": float(r.score),
                          "margin": float(r.scores[own] - others.max()), "rival": deck.labels[int(np.argmax(others))],
                          "features": deck.labels[out[0]] if out[0] >= 0 else "-",
                          "ms": (time.perf_counter() - t0) * 1000, "quad": q, "truth": None})
        return out

    def read_cards(frame, d, *args, **kw):
        t0 = time.perf_counter()
        out = real_read_cards(frame, d, *args, **kw)
        read_ms.append((time.perf_counter() - t0) * 1000)
        return out

    imageio.read_image = read_image
    cards._crossed_by_features = crossed
    type(deck).feature_label = feature_label
    cards.read_cards = read_cards
    photos = rc.part_of(held, a.part)
    r = rc.evaluate(deck, boxes, photos, show=a.show)
    pct = lambda k: 100.0 * r[k] / max(r["cards"], 1)  # noqa: E731
    print(f"{a.part}: held-out photos {r['photos']}, fully visible cards {r['cards']}: found {pct('found'):.1f} %, "
          f"right {pct('right'):.1f} %, wrong {r['wrong']}, unknown {r['unknown']}, spurious {r['spurious']}, "
          f"named twice {r['twice']}, named off the labels {r['off']}, unknown on no card {r['stray']}, "
          f"{r['ms_median']:.0f} ms per photo (median)")
    for lk in looks:  # the card under the look, where it is a fully visible labelled one
        truth = boxes[lk["photo"]]
        q = lk["quad"]
        ob = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
        ious = [rc.iou(ob, b) for _, b in truth]
        j = int(np.argmax(ious)) if ious else -1
        if j >= 0 and ious[j] >= 0.5:
            lk["truth"] = truth[j][0]
    look_ms = sum(lk["ms"] for lk in looks)
    print(f"cross-check: {len(looks)} looks on {len(photos)} photos ({len(looks) / max(len(photos), 1):.2f} a photo), "
          f"{np.median([lk['ms'] for lk in looks]) if looks else 0:.0f} ms a look (median), "
          f"{look_ms / 1000:.1f} s of {sum(read_ms) / 1000:.1f} s reading ({100 * look_ms / max(sum(read_ms), 1):.1f} %)")
    for lk in sorted(looks, key=lambda lk: lk["score"]):
        if a.looks or lk["features"] not in ("-", lk["label"]):
            turned = lk["features"] not in ("-", lk["label"])
            verdict = ("wrong name caught" if lk["truth"] and lk["truth"] != lk["label"] else
                       "RIGHT NAME LOST" if lk["truth"] == lk["label"] else "off the boxes") if turned else ""
            print(f"  {lk['photo']}: {lk['label']} score {lk['score']:.3f} margin {lk['margin']:.3f} "
                  f"(rival {lk['rival']}), features {lk['features']}, truth {lk['truth']}, {lk['ms']:.0f} ms {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
