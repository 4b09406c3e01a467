"""The enrolment's misfiled-picture check on real and drawn decks (issue #6, stop 56).

    .venv/bin/python bench/misfiled.py [--draws 0-23] [--symbol] [--styles]

:func:`companion.vision.deck.misfiled_examples` reports a picture that looks like another label's
card more than like its own label's. This bench counts what it reports where the answer is known:

* ``--draws``: the real deck (``../shared/datasets/edje-cards``) enrolled as ``bench/real_cards.py``
  enrols it (10 one-card photos a rank, enrolment draw N), once with the dataset's own labels, where
  IMG_2396 (a ten of diamonds) is labelled "nine" and must be reported on every draw that enrols it,
  and once with ``real_cards.ERRATA`` applied, where nothing may be reported;
* ``--symbol``: the symbol deck of ``bench/symbol_cards.py`` (81 cards, 5 photos each; look-alikes
  that differ in fill or colour alone): nothing may be reported;
* ``--styles``: the simulator's six card styles, three scans a label: nothing may be reported.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def draws(lo: int, hi: int) -> int:
    import real_cards as rc

    from companion.vision.deck import misfiled_examples

    if not rc.DATA.is_dir():
        print(f"{rc.DATA} is missing: no real draws")
        return 0
    errata = dict(rc.ERRATA)
    for fixed in (False, True):
        rc.ERRATA.clear()
        if fixed:
            rc.ERRATA.update(errata)
        boxes = rc.load_boxes()
        found_stray = enrolled_stray = other = 0
        for seed in range(lo, hi + 1):
            chosen, _ = rc.split(boxes, 10, seed)
            deck = rc.enrol(boxes, chosen)
            pics = [(m.label, chosen[m.label][m.index], m.other, chosen[m.other][m.other_index], m) for m in misfiled_examples(deck)]
            stray = not fixed and "IMG_2396.JPG" in chosen["nine"]
            enrolled_stray += stray
            hit = any("IMG_2396.JPG" in (p[1], p[3]) for p in pics)
            found_stray += stray and hit
            other += sum(1 for p in pics if not (stray and "IMG_2396.JPG" in (p[1], p[3])))
            text = ", ".join(f"{a}/{b} ~ {c}/{d} {m.score:.3f} (own {m.own:.3f}{', pair' if m.mutual else ''})"
                             for a, b, c, d, m in pics)
            print(f"{'erratum applied' if fixed else 'dataset labels'} draw {seed}: {text or 'nothing reported'}", flush=True)
        print(f"{'erratum applied' if fixed else 'dataset labels'}: IMG_2396 filed as a nine on {enrolled_stray} draws, "
              f"reported on {found_stray}; other reports {other}")
    return 0


def symbol() -> None:
    import symbol_cards as sc

    from companion.vision.deck import misfiled_examples

    deck = sc.enrolled_deck(sc.labels(), 5)
    print(f"symbol deck: {len(misfiled_examples(deck))} reported")


def styles() -> None:
    from companion.sim.faces import STYLES, write_deck_folder
    from companion.vision.deck import enroll_folder

    for style in STYLES:
        with tempfile.TemporaryDirectory() as tmp:
            write_deck_folder(Path(tmp), variants=3, style=style)
            found: list = []
            enroll_folder(Path(tmp), misfiled=found)
            print(f"style {style}, three scans a label: {len(found)} reported "
                  + " ".join(f"{a.relative_to(tmp)}~{b.relative_to(tmp)}" for a, b, _ in found))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--draws", default=None, help="enrolment draws of the real deck, e.g. 0-23")
    p.add_argument("--symbol", action="store_true")
    p.add_argument("--styles", action="store_true")
    a = p.parse_args(argv)
    if a.draws:
        lo, _, hi = a.draws.partition("-")
        draws(int(lo), int(hi or lo))
    if a.symbol:
        symbol()
    if a.styles:
        styles()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
