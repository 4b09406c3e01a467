"""A recorded 3-player Sushi Roll game replayed through ``companion play`` (issue #10): the
continuous stream in tests/fixtures/sushi-roll-3p (hands reaching in, still tables, menus and
chopsticks spent, a take merged with a token in one change), read by the settle detector and the
dice reader, judged by the engine and journalled, to the true scores; kill -9 and resume; the
export scored by ``companion score``.

The fixture is written by ``python -m companion.sim.roll_stream tests/fixtures/sushi-roll-3p
--seed 1873 --quality 80 --hand-frames 1 --hand-shrink 4 --dice dice.npz`` (its game.json holds the
bots' truth; see ``companion.sim.roll_stream.write_fixture``). The seed's game needs no answer on
the panel (a replay with ``--panel none`` cannot give one): no menu lands every die on the faces
it showed, and no die re-rolled with a menu is the one taken in the same change (both are asked,
``companion.app.roll_moves``); the first test checks that in the truth.

The whole replay takes most of a minute (1142 frames, 126 settles read at 2028×1520); it runs once
in-process for the module, and once more split by the SIGKILL.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections import Counter
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from killing import kill_after_applied, play_in_process, resume

from companion.app.journal import Journal
from companion.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "sushi-roll-3p"
TRUTH = json.loads((FIXTURE / "game.json").read_text(encoding="utf-8"))
PLAYERS = TRUTH["players"]
#: What a replay with no panel may say: anything else (a refusal, an unreadable die, a question,
#: a table that does not match) is a settle the companion did not apply as the bots played it.
QUIET_EVENTS = {"applied", "waiting", "game-over"}


def _play_args(journal: Path) -> list[str]:
    return ["play", "--game", "sushi-roll", "--camera", f"replay:{FIXTURE / 'frames'}",
            "--dice", str(FIXTURE / "dice.npz"), "--players", ",".join(PLAYERS), "--journal", str(journal),
            "--display", "none", "--panel", "none", "--json"]


def _play_cmd(journal: Path) -> list[str]:
    """``companion play`` as its own process (the venv's python, as tests/test_play.py runs it)."""
    return [sys.executable, "-c", "from companion.cli import main; raise SystemExit(main())", *_play_args(journal)]


def _turns(journal: Path) -> list[tuple[dict, int]]:
    """The journal's ``turn`` events of its one game: (payload, frame it was read from)."""
    with Journal(journal) as j:
        (entry,) = j.games()
        return [(e.payload, e.source["frame"]) for e in j.events(entry.id) if e.kind == "turn"]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """The whole fixture played once, in-process: (exit code, events printed, journal path)."""
    journal = tmp_path_factory.mktemp("roll-replay") / "j.sqlite3"
    return (*play_in_process(_play_args(journal)), journal)


def _applied_steps() -> list[dict]:
    """The truth's steps that the companion applies: the rolls and the players' changes (a draw,
    a slide or a tray clear is waited through, not applied)."""
    return [s for s in TRUTH["steps"] if s["kind"] in ("roll", "turn")]


def _seen(actions: list[dict]) -> Counter:
    """A change's actions as the camera can tell them (journal or game.json spelling): takes and
    swaps as they are, a menu by the faces it changed (a die re-rolled onto the face it showed
    is not seen re-rolled), order aside."""
    out: Counter = Counter()
    for a in actions:
        if "menu" in a:
            before, after = Counter(a["menu"]["reroll"]), Counter(a["menu"]["result"])
            out[("menu", tuple(sorted((before - after).elements())), tuple(sorted((after - before).elements())))] += 1
        elif "chopsticks" in a:
            c = a["chopsticks"]
            out[("chopsticks", c["mine"], c["other"], c["theirs"])] += 1
        else:
            out[("take", a["take"])] += 1
    return out


def test_the_fixture_is_a_whole_game_with_menus_and_chopsticks_that_needs_no_answer():
    steps = TRUTH["steps"]
    actions = [a for s in steps for a in s["actions"]]
    menus = [a["menu"] for a in actions if "menu" in a]
    assert len(menus) >= 2 and sum("chopsticks" in a for a in actions) >= 2
    assert any(len(s["actions"]) > 1 for s in steps if s["kind"] == "turn")  # a token and the take in one change
    assert [s["round"] for s in steps if s["kind"] == "roll"].count(3) >= 1 and "final" in TRUTH
    for step in steps:
        for a in step["actions"]:
            if "menu" not in a:
                continue
            before, after = Counter(a["menu"]["reroll"]), Counter(a["menu"]["result"])
            assert before - after, f"a menu landing on the faces it showed is asked on the panel: {step}"
            takes = [t["take"] for t in step["actions"] if "take" in t]
            one = sum((before - after).values()) == 1
            assert not (one and takes and takes[0] in after - before), f"the re-rolled die taken is asked: {step}"
    # still frames are links to one file; hand frames are stored small
    frames = sorted((FIXTURE / "frames").iterdir())
    assert len(frames) == TRUTH["frames"]
    assert sum(f.is_symlink() for f in frames) > len(frames) // 2
    assert all(not os.readlink(f).startswith("/") for f in frames if f.is_symlink())


def test_write_fixture_stores_hand_frames_shrunk_and_still_frames_whole(tmp_path):
    """``hand_shrink``: the frames a hand is in are stored at 1/k size with the aspect ratio kept,
    so the small stream the settle detector sees is the same size for both; still frames, which
    the dice are read from, stay whole."""
    import cv2

    from companion.devices.camera import downscale_lores
    from companion.sim.roll_stream import write_fixture

    game = write_fixture(tmp_path, seed=3, size=(320, 240), still_frames=2, hand_frames=1, max_steps=3,
                         hand_shrink=4)
    assert game["hand_shrink"] == 4
    files = sorted(f for f in (tmp_path / "frames").iterdir() if not f.is_symlink())
    shapes = Counter(cv2.imread(str(f)).shape for f in files)
    # the empty mat and one still per step whole; one hand frame per step a quarter
    assert shapes == Counter({(240, 320, 3): 1 + 3, (60, 80, 3): 3})
    small, whole = (cv2.imread(str(f)) for f in files[1:3])
    assert downscale_lores(small).shape == downscale_lores(whole).shape
    for bad in (3, 0, 1.5):
        with pytest.raises(ValueError, match="hand_shrink"):
            write_fixture(tmp_path / "bad", size=(320, 240), max_steps=1, hand_shrink=bad)
    assert not (tmp_path / "bad").exists()  # refused before anything is written


def test_the_recorded_game_replays_to_the_true_scores(replayed):
    code, events, _ = replayed
    assert code == 0
    kinds = Counter(e["event"] for e in events)
    assert set(kinds) <= QUIET_EVENTS, [e for e in events if e["event"] not in QUIET_EVENTS][:3]
    (over,) = [e for e in events if e["event"] == "game-over"]
    assert over["result"]["total"] == TRUTH["final"]["totals"]
    assert over["result"]["winners"] == TRUTH["final"]["winners"]
    assert kinds["applied"] == len(_applied_steps())


def test_every_applied_settle_is_the_change_the_bots_made(replayed):
    """Each journalled event against the truth step it was read at: the roll's faces on every belt,
    a turn's seat, takes, swaps and menus, read from a still frame of that step's settle."""
    _, _, journal = replayed
    turns = _turns(journal)
    steps = _applied_steps()
    assert len(turns) == len(steps)
    for (payload, frame), step in zip(turns, steps):
        assert payload["round"] == step["round"]
        assert step["settled_frame"] <= frame < step["settled_frame"] + TRUTH["still_frames"], (payload, step)
        if step["kind"] == "roll":
            (want,) = step["actions"]
            assert [sorted(b) for b in payload["roll"]] == [sorted(b) for b in want["roll"]], step
        else:
            assert payload["seat"] == step["seat"]
            assert _seen(payload["actions"]) == _seen(step["actions"]), (payload, step)


def test_the_export_is_a_record_companion_score_scores_to_the_same_totals(replayed, tmp_path):
    _, _, journal = replayed
    record = tmp_path / "game.json"
    with redirect_stdout(io.StringIO()):
        assert main(["export", "latest", "--journal", str(journal), "--record", str(record)]) == 0
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", "--game", "sushi-roll", str(record), "--json"]) == 0
    scored = json.loads(out.getvalue())
    assert scored["total"] == TRUTH["final"]["totals"]
    assert scored["winners"] == TRUTH["final"]["winners"]


#: The kill comes right after this many applied events (before the next settle: 9 frames later),
#: so the resumed run starts reading at frame 67. Where it resumes decides the homography the mat
#: tracker keeps for the rest of the game (``MatTracker`` re-estimates only when the mat moves), and
#: the chopsticks die on Ann's belt at frame 966 reads "unknown" under about a third of the
#: homographies other resume points give (frames 49, 121, 175, 661...; the uninterrupted run's,
#: from frame 0, reads it): a reader margin reported on #10, so the moment is fixed, not random.
KILL_AFTER = 6


def test_kill_9_mid_game_and_resume_finishes_with_no_turn_lost_or_doubled(replayed, tmp_path):
    """A real ``companion play`` on the fixture is killed with SIGKILL after some applied events;
    the next ``companion play`` with the same journal resumes against the table and ends with the
    true totals and the same journal as the uninterrupted replay."""
    _, _, whole = replayed
    path = tmp_path / "j.sqlite3"
    assert kill_after_applied(_play_cmd(path), KILL_AFTER) == KILL_AFTER
    assert len(_turns(path)) >= KILL_AFTER  # every event announced as applied was committed first
    lines = resume(_play_cmd(path))
    assert lines and lines[0]["event"] == "resumed"
    assert {e["event"] for e in lines} <= QUIET_EVENTS | {"resumed"}
    assert lines[-1]["event"] == "game-over" and lines[-1]["result"]["total"] == TRUTH["final"]["totals"]
    assert [p for p, _ in _turns(path)] == [p for p, _ in _turns(whole)]
