"""Record a whole Sushi Express game as the companion saw it: the camera's frames and the buttons the
players pressed (issue #11), for ``companion play --camera replay:DIR/frames --panel script:DIR/panel.json``.

``python -m companion.app.express_record DIR [--players N] [--seed S] [--quality Q]`` runs the bots' game
through the play loop (:func:`companion.app.cmd_demo_express.play_bots_game`) and writes::

    DIR/frames/frame00000.jpg …   every frame the camera sent, in order. A frame that repeats the one
                                  before (a still table) is a symbolic link to it. A frame the loop
                                  never read whole (it saw it only through its ≈320 px small stream:
                                  dice flying, hands) is kept at 320×240; those it read, and
                                  ``KEEP_AROUND`` on each side, are kept whole.
    DIR/panel.json                the bots' presses, ``{"frame": i, "event": name}``: pressed when the
                                  camera had sent frame i (``companion.devices.panel.read_script``).
    DIR/game.json                 the players, the seed and the truth: each throw, every player's
                                  customers, vans and the final result (``companion score --json``).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

#: Frames kept whole on each side of a frame the loop read whole (see the module doc).
KEEP_AROUND = 2
#: The size moving frames are kept at.
SMALL = (320, 240)


def record_fixture(folder: str | Path, players: int = 4, seed: int = 7, quality: int = 80) -> dict:
    """Play and record the game (module doc); returns the game.json written.

    Raises:
        ValueError: a player count Sushi Express is not for (3 to 6), or the companion did not read
            the game to the truth (then nothing is kept but what was written).
    """
    import cv2

    from companion.app.cmd_demo_express import NAMES, play_bots_game
    from companion.rules.sushi_express.state import MAX_PLAYERS, MIN_PLAYERS

    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Sushi Express is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}")
    root = Path(folder)
    frames_dir = root / "frames"
    frames_dir.mkdir(parents=True, exist_ok=True)
    for old in frames_dir.glob("frame*.jpg"):
        old.unlink()
    names: list[str] = []
    presses: list[dict] = []
    read_whole: set[int] = set()  # frames the loop read at full size (the dice reader's)
    last: list = [None]

    def keep(frame) -> None:
        name = f"frame{len(names):05d}.jpg"
        if names and frame is last[0]:
            os.symlink(names[-1], frames_dir / name)  # a still table: the same picture
        else:
            cv2.imwrite(str(frames_dir / name), frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        last[0] = frame
        names.append(name)

    def on_stream(stream) -> None:
        made, main = stream.read, stream.main_for_lores

        def read():  # the loop's small stream and main frames both come through read()
            frame = made()
            if frame is not None:
                keep(frame)
            return frame

        def main_for_lores():
            read_whole.add(stream.position)
            return main()

        stream.read, stream.main_for_lores = read, main_for_lores

    def on_press(name: str, frame: int) -> None:
        presses.append({"frame": frame, "event": name})

    with tempfile.TemporaryDirectory() as tmp:
        done = play_bots_game(list(NAMES[:players]), seed, Path(tmp) / "journal.sqlite3", on_press=on_press,
                              on_stream=on_stream)
    truth, read_state = done.bots.final, done.table.state
    if not read_state.is_over or read_state.result.totals != truth.result.totals:
        raise ValueError(f"seed {seed}: the companion did not read the game to the truth; pick another seed")
    _shrink_unread(frames_dir, names, read_whole, quality)
    (root / "panel.json").write_text(json.dumps(presses, indent=0) + "\n", encoding="utf-8")
    game = {
        "game": "sushi-express",
        "players": list(truth.players),
        "seed": seed,
        "frames": len(names),
        "throws": done.stream.truth,
        "final": {"collected": {p: [str(c) for c in cs] for p, cs in zip(truth.players, truth.collected)},
                  "vans": list(truth.vans), "result": truth.result.to_dict(), "totals": list(truth.result.totals)},
    }
    (root / "game.json").write_text(json.dumps(game, indent=1) + "\n", encoding="utf-8")
    return game


def _shrink_unread(frames_dir: Path, names: list[str], read_whole: set[int], quality: int) -> None:
    """Re-encode at :data:`SMALL` every frame the loop never read whole (it saw them only through its
    ≈320 px small stream), but :data:`KEEP_AROUND` frames round those it read."""
    import cv2

    keep = {i + d for i in read_whole for d in range(-KEEP_AROUND, KEEP_AROUND + 1)}
    for i, name in enumerate(names):
        path = frames_dir / name
        if i in keep or path.is_symlink():
            continue
        img = cv2.imread(str(path))
        cv2.imwrite(str(path), cv2.resize(img, SMALL, interpolation=cv2.INTER_AREA),
                    [cv2.IMWRITE_JPEG_QUALITY, quality])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m companion.app.express_record", description=__doc__.split("\n")[0])
    p.add_argument("folder")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--quality", type=int, default=80)
    args = p.parse_args(argv)
    game = record_fixture(args.folder, args.players, args.seed, args.quality)
    print(f"{args.folder}: {game['frames']} frames, {len(game['throws'])} throws, totals {game['final']['totals']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
