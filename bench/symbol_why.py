"""Why the symbol bench's cards that are not read right are not: the stage that refused each, with its
figures, and a count of the causes (issue #6).

    .venv/bin/python bench/symbol_why.py [--boards 0-29] [--deck DECK.npz] [--style classic]

The boards and the deck are those of ``bench/symbol_cards.py`` (all 81 cards, 5 photos each; with
``--deck`` the enrolment is read from that file if it exists, else made and written there: about two
minutes saved on each later run). Each board is read as ``read cards`` reads it
(``read_card_results`` and the covered-card pass) and its readings are matched to the cards as that
bench matches them. Each card not read right is then taken through :func:`classify_quads`' stages
one by one, at the outline it was read at and at its true outline, and the first stage that refuses
its best label is named:

* ``below threshold``: the whole-card score is under the deck's threshold;
* ``look-alikes undecided``: :meth:`Deck.settle_lookalikes` returned −1; the pattern look's
  correlations per candidate and the level look's unmixed leads are shown (``PATTERN_MARGIN``,
  ``LOOKALIKE_MARGIN``);
* ``marks``: the mark count refused the name (:meth:`Deck.marks_agree`);
* ``within examples``: the card lies too far from the label's examples, as a whole (``1 − ZNCC`` to
  the nearest against ``EXAMPLE_SPREAD_FACTOR`` times the spread) or place by place (peak ratio
  against ``LOCAL_FACTOR``);
* ``exposure look``: :meth:`Deck.exposure_apart` refused it; its rivals are listed in the order it
  judges them, ``+`` marking one with more of the label's ink and ``~`` any other, then the leads
  (``EXPOSURE_MARGIN``) in the order computed, up to the one that refused: two for a ``+`` rival
  (the fitted gain's, then the brighter gains'), one for any other;
* ``passes here``: every stage names it at this outline (the reading came from elsewhere: the
  window search, a split pair, a covered card).

A cause is counted once per card, by the outline it was read at. The figures are recorded by
wrapping the deck's private look functions for the run, so this tool follows ``deck.py`` closely and
must change with it; it changes no reading.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import symbol_cards as sc  # noqa: E402  (the bench beside this one)


@contextlib.contextmanager
def recording(deck_mod):
    """Wrap the look-alike stage's two looks and the exposure look's lead so their figures are kept
    in the yielded dict (``pattern``: [(label, ZNCC)], ``level``: [unmixed leads], ``leads``: [exposure
    leads]); the wrapped functions return what they always do, and are restored on exit."""
    rec: dict = {}
    deck_cls = deck_mod.Deck
    saved = (deck_mod._unmixed_lead, deck_mod._exposure_lead, deck_cls._by_pattern, deck_cls._by_level)
    unmixed, lead, by_pattern, by_level = saved

    def _unmixed(card, win, rival):
        v = unmixed(card, win, rival)
        rec.setdefault("level", []).append(v)
        return v

    def _lead(mine, theirs):
        v = lead(mine, theirs)
        rec.setdefault("leads", []).append(v)
        return v

    def _pattern(self, regions, region, cands):
        # The pattern look's correlation per candidate, as Deck._by_pattern computes it.
        crops = regions - regions.mean(axis=2, keepdims=True)
        crops = crops.reshape(len(regions), -1)
        crops /= np.maximum(np.linalg.norm(crops, axis=1, keepdims=True), 1e-6)
        out = []
        for k in cands:
            t = self.fine[self.fine_label == k][:, :, region]
            t = (t - t.mean(axis=2, keepdims=True)).reshape(len(t), -1)
            t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-6)
            out.append((self.labels[k], float((crops @ t.T).max())))
        rec["pattern"] = out
        return by_pattern(self, regions, region, cands)

    def _level(self, regions, region, centre, cands):
        rec["level"] = []
        return by_level(self, regions, region, centre, cands)

    deck_mod._unmixed_lead, deck_mod._exposure_lead = _unmixed, _lead
    deck_cls._by_pattern, deck_cls._by_level = _pattern, _level
    try:
        yield rec
    finally:
        deck_mod._unmixed_lead, deck_mod._exposure_lead, deck_cls._by_pattern, deck_cls._by_level = saved


def _within_figures(D, deck, image: np.ndarray, quad: np.ndarray, label: int) -> str:
    """The check on the label's examples' two figures, as :meth:`Deck.within_examples` computes them."""
    spread = deck._spread(label)
    raw = D.fine_patch(image, quad)
    aligned = deck._align(D._fine_lab(raw, deck.balanced, D.FINE_SHIFT), label)
    if spread is None or aligned is None:
        return "not judged (one example, or not aligned)"
    crops = np.stack([D._zero_mean(aligned[:, dy:dy + D.FINE_H, dx:dx + D.FINE_W]).reshape(-1)
                      for dy in range(3) for dx in range(3)])
    crops /= np.maximum(np.linalg.norm(crops, axis=1, keepdims=True), 1e-6)
    examples = deck._unit_examples(label)
    zncc = crops @ examples.T
    ci, ei = np.unravel_index(int(np.argmax(zncc)), zncc.shape)
    diff = ((crops[ci] - examples[ei]) ** 2).reshape(3, D.FINE_H, D.FINE_W).sum(axis=0)
    local = cv2.GaussianBlur(diff.astype(np.float32) * D._LOCAL_INNER, (0, 0), D.LOCAL_SIGMA)
    floor = D.LOCAL_FLOOR * 2.0 * D.SPREAD_FLOOR / diff.size
    ratio = float((local / (deck._local_spread(label) + floor)).max())
    limit = D.EXAMPLE_SPREAD_FACTOR * max(spread, D.SPREAD_FLOOR)
    return (f"nearest {1.0 - float(zncc.max()):.3f} (limit {limit:.3f}), "
            f"place by place {ratio:.2f} (limit {D.LOCAL_FACTOR})")


def _exposure_rivals(D, deck, scores: np.ndarray, label: int) -> list[str]:
    """The exposure look's rivals of ``label`` in the order it judges them, marked ``+`` (more of the
    label's ink) or ``~`` (another hue), as :meth:`Deck.exposure_apart` chooses them."""
    out = []
    for k in range(len(deck.labels)):
        if k == label or not deck._has_fine(k) or scores[k] < scores[label] - D.EXPOSURE_BAND:
            continue
        pair = (min(k, label), max(k, label))
        region = deck._regions[pair] if pair in deck._regions else deck._near_region(pair)
        more = deck._more_ink(label, k, region)
        if more or pair not in deck._regions:
            out.append(("+" if more else "~") + deck.labels[k])
    return out


def diagnose(deck, image: np.ndarray, quad: np.ndarray, truth: str) -> tuple[str, str]:
    """``(cause, figures)`` for one card at one outline (module doc)."""
    from companion.vision import deck as D
    from companion.vision.cards import order_quads

    q = order_quads(np.asarray(quad, np.float32)[None])[0]
    scores, turned = deck.match(D.describe(D.card_patches(image, [q]), deck.balanced))
    s = scores[0]
    order = [int(k) for k in np.argsort(s)[::-1]]
    best, ti = order[0], deck.labels.index(truth)
    text = (f"best {deck.labels[best]} {s[best]:.3f} (threshold {deck.threshold:.3f}), the card's own "
            f"{s[ti]:.3f} (rank {order.index(ti) + 1}); next "
            + ", ".join(f"{deck.labels[k]} {s[k]:.3f}" for k in order[1:3]))
    if s[best] < deck.threshold:
        return "below threshold", text
    if turned[0, best]:
        q = np.roll(q, -2, axis=0)
    with recording(D) as rec:
        settled = deck.settle_lookalikes(image, q, s, best)
        if "pattern" in rec:
            text += ("; look-alikes: pattern " + ", ".join(f"{n} {v:.3f}" for n, v in rec["pattern"])
                     + ", level leads " + ", ".join(f"{v:.2f}" for v in rec.get("level", [])))
        if settled < 0:
            return ("look-alikes undecided" if "pattern" in rec else "look-alikes: not aligned"), text
        text += f" -> {deck.labels[settled]}"
        if turned[0, settled] != turned[0, best]:
            q = np.roll(q, -2, axis=0)
        if not deck.marks_agree(image, q, s, settled):
            return "marks", text
        if not deck.within_examples(image, q, settled):
            return "within examples", text + "; " + _within_figures(D, deck, image, q, settled)
        rec["leads"] = []
        if not deck.exposure_apart(image, q, s, settled):
            return "exposure look", (text + "; exposure look: rivals " + " ".join(_exposure_rivals(D, deck, s, settled))
                                     + ", leads " + ", ".join(f"{v:.2f}" for v in rec["leads"]))
    return "passes here", text


def main(argv: list[str] | None = None) -> int:
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.cards import _with_covered, read_card_results
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", default="0-29")
    p.add_argument("--deck", help="DECK.npz: read if it exists, else the bench's enrolment is written there")
    p.add_argument("--style", default="classic", choices=sorted(sc.STYLES),
                   help="the deck's drawing (bench/symbol_cards.py's STYLES); each style its own --deck")
    a = p.parse_args(argv)
    sc.use_style(a.style)
    deck = sc.enrolled_deck(sc.labels(), 5, a.deck)
    lo, _, hi = a.boards.partition("-")
    causes: Counter = Counter()
    cards = 0
    for seed in range(int(lo), int(hi or lo) + 1):
        image, truth = sc.board(seed, sc.labels())
        readings = _with_covered(image, deck, read_card_results(image, deck))
        used: set[int] = set()
        for label, true_quad in truth:  # matched as bench/symbol_cards.py matches them
            cards += 1
            c, tol = true_quad.mean(axis=0), np.linalg.norm(true_quad[1] - true_quad[0]) / 3
            d = [np.hypot(*(r.quad.mean(axis=0) - c)) if i not in used else np.inf for i, r in enumerate(readings)]
            if not d or min(d) > tol:
                causes["not found"] += 1
                print(f"board {seed}: {label} not found")
                continue
            i = int(np.argmin(d))
            used.add(i)
            if readings[i].label == label:
                continue
            cause, text = diagnose(deck, image, readings[i].quad, label)
            true_cause, true_text = diagnose(deck, image, true_quad, label)
            kind = "unknown" if readings[i].label == UNKNOWN else "WRONG"
            causes[cause] += 1
            print(f"board {seed}: {label} read {readings[i].label} ({kind}): {cause}\n    as read: {text}\n"
                  f"    true outline [{true_cause}]: {true_text}")
    print(f"\nboards {a.boards}: {cards} cards, {sum(causes.values())} not read right; by the stage that refused them:")
    for cause, n in causes.most_common():
        print(f"  {cause}: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
