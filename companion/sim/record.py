"""Record a simulated Sushi Go! game as a replay fixture (see ``companion.app.fixture``).

    python -m companion.sim.record tests/fixtures/sushi-go-4p --players 4 --seed 7
    python -m companion.sim.record tests/fixtures/sushi-go-dummy --players 2 --dummy --seed 3
    python -m companion.sim.record /tmp/sushi-go-4p-illustrated --players 4 --seed 7 --style illustrated

The deck is enrolled from our own drawn card scans (``companion.sim.faces``), the frames are
rendered by ``companion.sim.game_sim``, and the truth comes from the rules engine that the bots
played in. Frames are saved as small JPEGs. ``--style`` picks the deck style
(``companion.sim.faces.STYLES``: "flat", the default, "illustrated", "noir", "watercolour", "pattern" or "airbrush")
for both the frames and a newly enrolled deck.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import cv2

from companion.rules.sushi_go.state import SushiGoOptions
from companion.sim.faces import STYLES, check_style, write_deck_folder
from companion.sim.game_sim import NAMES, simulate_game


def enroll_sim_deck(out_path: Path | None = None, style: str = "flat"):
    """Enrol the simulator's card faces in ``style``, as a user enrols their own deck from scans.

    Returns the Deck (and saves it to ``out_path`` when given).

    Raises:
        ValueError: an unknown style.
    """
    from companion.vision.deck import enroll_folder

    with tempfile.TemporaryDirectory(prefix="companion-deck-") as tmp:
        write_deck_folder(Path(tmp), style=style)
        deck = enroll_folder(Path(tmp))
    if out_path is not None:
        deck.save(out_path)
    return deck


def enroll_sim_dice(style: str = "ours", face_px: int = 128):
    """Enrol the simulator's Sushi Roll dice in ``style`` (``companion.sim.dice.STYLES``), one flat
    ``face_px`` image per face, as a user enrols their own dice (``companion enroll --dice``).

    Raises:
        ValueError: an unknown style.
    """
    from companion.sim.dice import die_face, sushi_roll_faces
    from companion.vision.dice_enroll import enroll_dice_images

    return enroll_dice_images({f: [die_face(k, f, face_px, style=style)]
                               for k, faces in sushi_roll_faces().items() for f in faces})


def _turn_entry(cards) -> str | list[str]:
    names = [c.value for c in cards]
    return names[0] if len(names) == 1 else names


def record_fixture(
    out: Path, players: int, seed: int, options: SushiGoOptions, size: tuple[int, int], quality: int,
    deck: str = "deck.npz", style: str = "flat",
) -> dict:
    """Simulate one game and write it as a fixture folder; return the game.json contents.

    ``deck`` is the deck file's path relative to ``out``; an existing file there is reused, so
    fixtures can share one enrolled deck (e.g. ``../sim-deck.npz``) — whatever style it was
    enrolled from. ``style`` is the card style of the frames and of a newly enrolled deck; it is
    written to game.json as ``"style"`` only when it is not ``"flat"``, so existing flat fixtures
    are unchanged.

    Raises:
        ValueError: an unknown style (before anything is written).
    """
    check_style(style)
    names = list(NAMES[:players])
    if out.exists():
        shutil.rmtree(out)
    (out / "frames").mkdir(parents=True)
    if not (out / deck).is_file():
        enroll_sim_deck(out / deck, style=style)
    frames = []
    rounds: list[dict[str, list]] = []
    last = None
    for st in simulate_game(names, seed, options, size=size, style=style):
        if st.turn == 1:
            rounds.append({n: [] for n in st.truth.players})
        for seat, play in st.plays.items():
            rounds[-1][st.truth.players[seat]].append(_turn_entry(play.cards))
        name = f"frames/r{st.round}-t{st.turn:02d}.jpg"
        cv2.imwrite(str(out / name), st.frame.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        frames.append({"file": name, "round": st.round, "turn": st.turn})
        last = st.truth
    expected = last.result.to_dict()
    expected.pop("breakdown")
    game = {
        "game": "sushi-go",
        "players": names,
        "options": {k: v for k, v in options.to_dict().items() if v != getattr(SushiGoOptions(), k)},
        "deck": deck,
        "seed": seed,
        **({"style": style} if style != "flat" else {}),
        "frames": frames,
        "record": {"rounds": rounds},
        "expected": expected,
    }
    (out / "game.json").write_text(json.dumps(game, indent=1) + "\n")
    return game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m companion.sim.record", description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--players", type=int, default=4, choices=range(2, 6))
    p.add_argument("--dummy", action="store_true", help="the two-player dummy variant")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--size", default="1024x768", help="frame size WxH px")
    p.add_argument("--quality", type=int, default=80, help="JPEG quality")
    p.add_argument("--deck", default="deck.npz", help="deck file, relative to OUT; reused if it exists")
    p.add_argument("--style", default="flat", choices=STYLES, help="card face style (default: flat)")
    a = p.parse_args(argv)
    w, h = (int(v) for v in a.size.lower().split("x"))
    game = record_fixture(a.out, a.players, a.seed, SushiGoOptions(dummy=a.dummy), (w, h), a.quality, a.deck, a.style)
    print(f"wrote {a.out}: {len(game['frames'])} frames, totals {game['expected']['total']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
