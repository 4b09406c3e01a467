"""Why each clear die of ``bench/gem_d6.py`` is not read right: the face hypotheses on it and their refusals (issue #7 §1).

    .venv/bin/python bench/gem_triage.py [--seeds 1900:1930] [--size 4032x3024] [--crops DIR]

For each photo of ``gem_d6.scene`` the reader is run with its trace (``dice_d6._read_d6``, the
shipped verifier), and every die not read right (missed, unread, a wrong value) is listed with
the face hypotheses whose centre lies on its top face, counted by (value read, pips, refusal):
``value None`` with no refusal is a face whose nine places read no clean layout (its body is not
one plain colour, or its margin is under 0.12: ``read_faces``), a named refusal is ``_refusal``'s
("doubt" the verifier's, "grey", "glint", "seam", ...); a value with no refusal that was not kept
lost to another face (``_top_faces``, ``_choose_faces``). ``--crops`` writes each such die's crop
(its true top face outlined in green) as ``sSEED_dK_FACE_WHAT.png``, to be looked at. Spurious
readings are listed too. The tally line is ``bench/sim_d6.py``'s.

Used by gemmiss47 (README, *Known limits*) to sort gem_d6 1900–1929's misses into causes.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

import cv2
import numpy as np

from gem_d6 import scene
from seedargs import frame_size, seed_span


def hypotheses_on(quad: np.ndarray, trace: list) -> collections.Counter:
    """The face hypotheses of a ``_read_d6`` ``trace`` whose centre lies on ``quad`` (a die's (4, 2)
    top face, photo px), counted by ``(value or None, pips, refusal or None)``; working-image px
    are scaled back with the trace's ``("scale", s)`` entry."""
    s = trace[0][1]
    q = np.float32(quad) * s
    return collections.Counter((v, len(f.pips), why) for kind, f, v, _, why in trace[1:]
                               if kind in ("hypothesis", "faint", "large")
                               and cv2.pointPolygonTest(q, f.center, False) >= 0)


def triage(shot, seed: int, crops: Path | None = None) -> tuple[tuple[int, int, int, int], list[str]]:
    """One photo (a RenderedDice) read with its trace: ``(score, lines)``, ``score`` as
    ``sim_d6.score`` (right, wrong, unread, spurious), one line per die not read right (with
    :func:`hypotheses_on`'s counts, most common first) and per spurious reading."""
    from companion.vision.dice_d6 import _read_d6
    from companion.vision.dice_verify import shipped
    from sim_d6 import score

    trace: list = []
    obs = _read_d6(shot.image, shipped(), trace)
    used: dict[int, object] = {}
    lines = []
    for o in obs:  # matched as sim_d6.score
        hit = [k for k, (_, _, q) in enumerate(shot.dice) if k not in used
               and cv2.pointPolygonTest(np.float32(q), (float(o.center[0]), float(o.center[1])), False) >= 0]
        if hit:
            used[hit[0]] = o
        else:
            lines.append(f"seed {seed}: spurious {o.face} at ({o.center[0]:.0f}, {o.center[1]:.0f})")
    for k, (_, face, q) in enumerate(shot.dice):
        o = used.get(k)
        if o is not None and o.face == face:
            continue
        what = "missed" if o is None else "unread" if o.face is None else f"read{o.face}"
        q = np.float32(q)
        side = float(np.linalg.norm(q[1] - q[0]))
        c = q.mean(axis=0)
        hyps = "; ".join(f"{v}/{n}p {why or '-'} ×{m}" for (v, n, why), m in hypotheses_on(q, trace).most_common(6))
        lines.append(f"seed {seed} die {k}: a {face} {what}, side {side:.0f} px at ({c[0]:.0f}, {c[1]:.0f}); "
                     f"hypotheses (value/pips refusal): {hyps or 'none'}")
        if crops is not None:
            crops.mkdir(parents=True, exist_ok=True)
            x0, y0 = np.maximum(q.min(axis=0) - 0.3 * side, 0).astype(int)
            x1, y1 = (q.max(axis=0) + 0.3 * side).astype(int)
            crop = shot.image[y0:y1, x0:x1].copy()
            cv2.polylines(crop, [np.int32(q - [x0, y0])], True, (0, 255, 0), 2)
            cv2.imwrite(str(crops / f"s{seed}_d{k}_{face}_{what}.png"), crop)
    return score(shot.dice, obs), lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=seed_span, default="1900:1930", help="FIRST:END (END excluded)")
    ap.add_argument("--size", type=frame_size, default="4032x3024", help="WxH px")
    ap.add_argument("--crops", type=Path, help="write a crop of each die not read right here")
    a = ap.parse_args(argv)
    w, h = a.size
    n = right = wrong = unread = spurious = 0
    for seed in a.seeds:
        shot = scene(seed, (w, h))
        (r, wr, u, s), lines = triage(shot, seed, a.crops)
        for line in lines:
            print(line)
        n, right, wrong, unread, spurious = n + len(shot.dice), right + r, wrong + wr, unread + u, spurious + s
    print(f"gem dice, seeds {a.seeds.start}:{a.seeds.stop}, {w}×{h}: {n} dice: right {right}, wrong {wrong}, "
          f"unread {unread}, missed {n - right - wrong - unread}, spurious {spurious}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
