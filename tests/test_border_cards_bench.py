"""``bench/border_cards.py``'s scenes are what its doc says: a card wholly inside the photo and a
thing cut a little by the photo's border (issue #6, stop 54). Drawn faces and a plain table stand
in for the real photos, so this runs without ``../shared``."""

from __future__ import annotations

import numpy as np

from benches import BENCH, load_bench


def _sources():
    face = np.full((126, 88, 3), 235, np.uint8)
    face[40:80, 30:58] = (30, 30, 200)
    table = np.full((504, 378, 3), 70, np.uint8)
    return [("ace", face)], [table]


def test_the_border_thing_is_cut_a_little_and_the_inner_card_is_whole(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # scene() imports real_covers and real_fans from beside it
    bench = load_bench("border_cards")
    faces, tables = _sources()
    kinds = set()
    made = 0
    for seed in range(60):
        got = bench.scene(seed, faces, tables)
        if got is None:
            continue
        made += 1
        kind, img, (r0, q0), (r, q) = got
        kinds.add(kind)
        h, w = img.shape[:2]
        assert img.shape == (504, 378, 3) and img.dtype == np.uint8
        inside = lambda p: 0 <= p[0] <= w - 1 and 0 <= p[1] <= h - 1  # noqa: E731
        assert all(inside(p) for p in q0), f"seed {seed}: the inner card runs off the photo"
        off = [p for p in q if not inside(p)]
        assert 1 <= len(off) <= 2, f"seed {seed}: {len(off)} corners of the border thing off the photo"
        assert inside(q.mean(axis=0)), f"seed {seed}: the border thing's centre is off the photo"
        assert (r is None) == (kind != "card")
        # never more than 12 % of its extent across the border off the photo (turned up to 12°:
        # a corner reaches a little further)
        lo = q.min(axis=0)
        hi = q.max(axis=0)
        ext = hi - lo
        beyond = max(-lo[0], -lo[1], hi[0] - (w - 1), hi[1] - (h - 1))
        assert beyond <= 0.12 * ext.max() + 0.25 * ext.min(), f"seed {seed}: cut {beyond:.0f} px"
    assert made >= 20 and kinds == {"dotted", "paper", "card"}
