"""``companion enroll``, ``companion classify`` and ``companion read cards``.

cv2 and numpy load only inside :func:`run`, when one of these commands actually runs.
Exit status: 0 ok; 2 bad input — a deck that is missing or breaks its schema (``Deck.load``: the
file and the field named), an enrolment problem, or any image that is not a regular file, could
not be read, is over the pixel budget (``imageio.MAX_PIXELS``, fewer pixels for a layout whose
decoder needs more memory), is floating-point, or is too thin or small to show a card
(``imageio.MIN_SIDE``) — all but the unreadable ones refused from the header, before decoding; the
other images are still processed and reported. An image larger than
a reader's working size is read reduced, with a note on stderr (``companion: note: big.jpg:
8000×6000 read at 2048×1536``); positions are still given in the image's own px.
"""

from __future__ import annotations

import argparse
import json


from companion.app.cli_util import err as _err
from companion.app.cli_util import note as _note
from companion.app.cli_util import read_at_working_size as _read
from companion.app.cli_util import table as _table


def _enroll(args: argparse.Namespace) -> int:
    from companion.vision.deck import EnrollError, enroll_folder
    from companion.vision.imageio import ImageReadError

    uncropped: list = []  # the pictures enrolled whole (enroll_folder fills it)
    misfiled: list = []  # (path, other path, finding): examples like another label's card
    try:
        deck = enroll_folder(args.deck, uncropped=uncropped, misfiled=misfiled)
    except (EnrollError, ImageReadError) as exc:
        _err(str(exc))
        return 2
    # Enrolled all the same (a close crop the finder missed is fine), but a picture of table and
    # card stands for the card in every reading: the user should know and may crop it.
    for path in uncropped:
        _note(f"{path}: no card outline found; the whole picture was enrolled as the card "
             "(crop it to the card, or photograph it on a plain contrasting table, if cards read wrong)")
    # Enrolled all the same (the user may mean it), but a card filed under the wrong name is read
    # as that name: say which two pictures show one card, while the user can still move the file.
    for path, other, m in misfiled:
        if m.mutual:
            _note(f"{path} and {other} look like the same card (similarity {m.score:.2f}, 1.00 = "
                  f"identical), but one is filed as {m.label!r} and the other as {m.other!r}: move "
                  "the one in the wrong folder and enrol again")
        else:
            _note(f"{path}: looks like the same card as {other} (similarity {m.score:.2f}, 1.00 = "
                  f"identical; to the other {m.label!r} pictures {m.own:.2f} at most): if it is "
                  f"in the wrong folder, move it and enrol again")
    try:
        deck.save(args.out)
    except OSError as exc:
        _err(f"{args.out}: cannot write the deck: {exc.strerror or exc}")
        return 2
    counts = ", ".join(f"{lb} ({n})" for lb, n in zip(deck.labels, deck.examples))
    print(f"enrolled {len(deck.labels)} labels into {args.out}: {counts}")
    print(f"unknown threshold {deck.threshold:.3f}, {len(deck.templates)} templates")
    return 0


def _classify(args: argparse.Namespace, deck) -> int:
    from companion.vision.deck import CLASSIFY_MAX_SIDE, classify_image
    from companion.vision.imageio import ImageReadError

    results, status = [], 0
    for path in args.images:
        try:
            work = _read(path, CLASSIFY_MAX_SIDE)
            c = classify_image(work.image, deck, scale=work.scale)
        except ImageReadError as exc:
            _err(str(exc))
            results.append({"image": path, "label": None, "confidence": None, "error": exc.reason})
            status = 2
            continue
        results.append({"image": path, "label": c.label, "confidence": round(c.confidence, 3)})
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        rows = [[r["image"], r["label"] or "ERROR", "" if r["confidence"] is None else f"{r['confidence']:.2f}"]
                for r in results]
        print(_table(rows, ["IMAGE", "LABEL", "CONFIDENCE"]))
    return status


def _read_cards(args: argparse.Namespace, deck) -> int:
    from companion.vision.cards import READ_MAX_SIDE, read_cards
    from companion.vision.imageio import ImageReadError

    results, status = [], 0
    for path in args.images:
        try:
            work = _read(path, READ_MAX_SIDE)
            obs = read_cards(work.image, deck, scale=work.scale)
        except ImageReadError as exc:
            _err(str(exc))
            results.append({"image": path, "cards": None, "error": exc.reason})
            status = 2
            continue
        results.append({"image": path, "cards": [o.to_json() for o in obs]})
    if args.json:
        print(json.dumps(results, indent=2))
        return status
    for r in results:
        if r["cards"] is None:
            print(f"{r['image']}: ERROR {r['error']}")
            continue
        print(f"{r['image']}: {len(r['cards'])} card(s)")
        rows = [[c["label"], f"{c['confidence']:.2f}",
                 " ".join(f"({x:.0f},{y:.0f})" for x, y in c["quad"])] for c in r["cards"]]
        if rows:
            print("  " + _table(rows, ["LABEL", "CONF", "QUAD (px, clockwise from card top-left)"]).replace("\n", "\n  "))
    return status


def run(args: argparse.Namespace) -> int:
    """Run ``enroll``, ``classify`` or ``read cards|dice`` (by ``args.command``); return the exit status."""
    if (args.command == "enroll" and args.dice) or (args.command == "read" and args.what == "dice"):
        from companion.app import cmd_dice

        return cmd_dice.run(args)
    if args.command == "enroll":
        return _enroll(args)
    if args.command == "read" and (args.kind is not None or args.dice is not None):
        _err("read cards: --kind and --dice are for 'read dice'")
        return 2
    if args.deck is None:
        _err(f"{args.command}: --deck DECK.npz is required (the deck enrolled with 'companion enroll --deck')")
        return 2
    from companion.vision.deck import Deck, DeckError

    try:
        deck = Deck.load(args.deck)
    except DeckError as exc:
        _err(str(exc))
        return 2
    if args.command == "classify":
        return _classify(args, deck)
    if args.command == "read" and args.what == "cards":
        return _read_cards(args, deck)
    _err(f"unsupported command {args.command!r}")
    return 2
