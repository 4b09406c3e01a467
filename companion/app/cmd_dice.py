"""``companion read dice`` and ``companion enroll --dice`` (issue #7 §1, §2).

cv2 and numpy load only inside :func:`run`. Exit status: 0 ok; 2 bad input — a DICE.npz that is
missing or breaks its schema (``DiceSet.load``: the file and the field named), an enrolment
problem, a missing option, or any image that could not be read, is over the pixel budget or too
thin or small to show a die (:mod:`companion.vision.imageio`; the other images are still read and
reported).

The readers behind it: :mod:`companion.vision.dice_d6` (pip dice, Sushi Express) and
:mod:`companion.vision.dice_icons` (Sushi Roll icon dice, learnt from the user's own dice).
"""

from __future__ import annotations

import argparse
import json

from companion.app.cli_util import err as _err
from companion.app.cli_util import read_at_working_size
from companion.app.cli_util import table as _table


def _enroll(args: argparse.Namespace) -> int:
    from companion.vision.dice_icons import DiceError, enroll_dice_folder
    from companion.vision.imageio import ImageReadError

    try:
        dice = enroll_dice_folder(args.dice)
    except (DiceError, ImageReadError) as exc:
        _err(str(exc))
        return 2
    try:
        dice.save(args.out)
    except OSError as exc:
        _err(f"{args.out}: cannot write the dice: {exc.strerror or exc}")
        return 2
    print(dice.summary(args.out))
    return 0


def _reader(args: argparse.Namespace):
    """(read(image) -> [DieObservation], to_json, working side px) for ``--kind``, or an error message."""
    if args.kind is None:
        return "read dice: --kind d6|sushi-roll is required"
    if args.deck is not None:
        return "read dice: --deck is for cards; Sushi Roll dice are enrolled into --dice DICE.npz"
    if args.kind == "d6" and args.dice is not None:
        return "read dice --kind d6: pip dice need no enrolment, so --dice does not apply"
    if args.kind == "d6":
        from companion.vision.dice_d6 import WORK_SIDE, read_d6

        return read_d6, lambda o: o.to_json_d6(), WORK_SIDE
    if args.dice is None:
        return "read dice --kind sushi-roll: --dice DICE.npz is required (enrol it with 'companion enroll --dice DIR')"
    from companion.vision.dice_icons import DiceError, DiceSet, read_icon_dice

    try:
        dice = DiceSet.load(args.dice)
    except DiceError as exc:
        return str(exc)
    from companion.vision.dice_icons import LARGE_WORK_SIDE

    # Decoded up to the size the reader may search again at for small dice in a big photo.
    return (lambda img: read_icon_dice(img, dice)), lambda o: o.to_json_icon(), LARGE_WORK_SIDE


def _in_original_px(o, scale: float, to_original_px):
    """The reading ``o`` with its quad mapped from working px back to the file's px."""
    if scale == 1.0:
        return o
    import dataclasses

    import numpy as np

    quad = to_original_px(np.asarray(o.quad, np.float64), scale)
    return dataclasses.replace(o, quad=tuple((float(x), float(y)) for x, y in quad))


def _read(args: argparse.Namespace) -> int:
    reader = _reader(args)
    if isinstance(reader, str):
        _err(reader)
        return 2
    read, to_json, work_side = reader
    from companion.vision.imageio import ImageReadError, to_original_px

    results, status = [], 0
    for path in args.images:
        try:
            work = read_at_working_size(path, work_side)
            dice = [to_json(_in_original_px(o, work.scale, to_original_px)) for o in read(work.image)]
        except ImageReadError as exc:
            _err(str(exc))
            results.append({"image": path, "dice": None, "error": exc.reason})
            status = 2
            continue
        results.append({"image": path, "dice": dice})
    if args.json:
        print(json.dumps(results, indent=2))
        return status
    key = "value" if args.kind == "d6" else "face"
    for r in results:
        if r["dice"] is None:
            print(f"{r['image']}: ERROR {r['error']}")
            continue
        print(f"{r['image']}: {len(r['dice'])} dice")
        rows = [["?" if d[key] is None else str(d[key])] + ([] if key == "value" else [d["die"] or ""])
                + [f"{d['confidence']:.2f}", f"({d['center'][0]:.0f},{d['center'][1]:.0f})"] for d in r["dice"]]
        header = ["VALUE"] if key == "value" else ["FACE", "DIE"]
        if rows:
            print("  " + _table(rows, header + ["CONF", "CENTER (px)"]).replace("\n", "\n  "))
    return status


def run(args: argparse.Namespace) -> int:
    """Run ``enroll --dice`` or ``read dice`` (by ``args.command``); return the exit status."""
    if args.command == "enroll":
        return _enroll(args)
    return _read(args)
