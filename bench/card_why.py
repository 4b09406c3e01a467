"""Why one card on a photo reads as it does: the deck's stages for one quad, as a line of text.

    from card_why import why
    print(why(image, quad, deck))

Used by ``bench/loose_scenes.py --why`` on every card not read right (on the reported quad and on
the simulator's true one). For one quad (4, 2) image px it gives: the whole-card best two labels
and their ZNCC (and the deck's threshold); whether the face could be lined up (ECC) for the
look-alike stage; the pattern look's region ZNCC per candidate and its pick; the level look's
blur (sigma, chroma sigma; fine px) whose nearest example lies nearest, its nearest label, the
unmixed lead over each rival and its pick; then the final checks (marks agree, within the label's
examples, exposure apart) and the label ``classify_quads`` gives. Diagnostics only: it re-runs the
deck's own methods (the pattern look's scores are re-computed here as
:meth:`companion.vision.deck.Deck._by_pattern` computes them; the level look's distances are the
deck's own ``_level_looks``; the picks printed are the methods' own returns).
"""

from __future__ import annotations

import numpy as np


def _pattern_scores(deck, regions: np.ndarray, region: np.ndarray, cands: list[int]) -> list[float]:
    crops = regions - regions.mean(axis=2, keepdims=True)
    crops = crops.reshape(len(regions), -1)
    crops /= np.maximum(np.linalg.norm(crops, axis=1, keepdims=True), 1e-6)
    out = []
    for k in cands:
        t = deck.fine[deck.fine_label == k][:, :, region]
        t = t - t.mean(axis=2, keepdims=True)
        t = t.reshape(len(t), -1)
        t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-6)
        out.append(float((crops @ t.T).max()))
    return out


def _level_detail(deck, regions, region, centre, cands) -> str:
    from companion.vision import deck as dm

    crops, blurs, looks = deck._level_looks(regions, region, centre, cands)
    parts = []
    for (sigma, chroma), (_, dist, nearest, shift) in zip(blurs, looks):
        win = int(np.argmin(dist))
        leads = [dm._unmixed_lead(crops[shift[win]], nearest[win], nearest[k]) for k in range(len(cands)) if k != win]
        parts.append(f"{sigma:g}/{chroma:g}:{deck.labels[cands[win]]}"
                     f" d{min(dist):.4f} lead {','.join(f'{x:.2f}' for x in leads)}")
    best = min(range(len(looks)), key=lambda i: looks[i][0])
    return f"nearest blur {blurs[best][0]:g}/{blurs[best][1]:g} [" + "; ".join(parts) + "]"


def why(image: np.ndarray, quad: np.ndarray, deck) -> str:
    """One line: the deck's stages for the card inside ``quad`` ((4, 2) image px) of ``image``
    ((H, W, 3) uint8 BGR) — see the module doc."""
    from companion.vision import deck as dm

    first = dm.classify_quads(image, [quad], deck, settle=False)[0]
    scores = first.scores
    order = np.argsort(scores)[::-1]
    text = [f"whole {deck.labels[order[0]]} {scores[order[0]]:.3f} / {deck.labels[order[1]]} "
            f"{scores[order[1]]:.3f} (thr {deck.threshold:.3f})"]
    seen: dict = {}
    by_pattern, by_level, align = deck._by_pattern, deck._by_level, deck._align

    def pattern(regions, region, cands):
        r = by_pattern(regions, region, cands)
        s = _pattern_scores(deck, regions, region, cands)
        seen["pattern"] = (f"pattern {' '.join(f'{deck.labels[k]}={v:.3f}' for k, v in zip(cands, s))}"
                           f" -> {deck.labels[r] if r >= 0 else '-'}")
        return r

    def level(regions, region, centre, cands):
        r = by_level(regions, region, centre, cands)
        detail = _level_detail(deck, regions, region, centre, cands)
        seen["level"] = f"level {detail} -> {deck.labels[r] if r >= 0 else '-'}"
        return r

    def aligned(big, label):
        a = align(big, label)
        seen["aligned"] = a is not None
        return a

    deck._by_pattern, deck._by_level, deck._align = pattern, level, aligned
    try:
        full = dm.classify_quads(image, [quad], deck, checks=False)[0]
    finally:
        del deck._by_pattern, deck._by_level, deck._align
    if "aligned" in seen:
        text.append("aligned" if seen["aligned"] else "NOT aligned")
    text += [seen[k] for k in ("pattern", "level") if k in seen]
    text.append(f"settled {full.label}")
    if full.label in deck.labels:
        k = deck.labels.index(full.label)
        q = full.quad
        text.append(f"marks {deck.marks_agree(image, q, full.scores, k)} within {deck.within_examples(image, q, k)} "
                    f"exposure {deck.exposure_apart(image, q, full.scores, k)}")
    text.append(f"final {dm.classify_quads(image, [quad], deck)[0].label}")
    return " | ".join(text)
