"""The Sushi Roll table game (#10): readings of a table judged against the engine.

These tests feed :class:`RollTableGame` readings made from a simulated scene (where each die lies,
kept from state to state as on a real table: ``companion.sim.roll_table.RollScene``) rather than
pixels, so whole games run in a second; the pixels are read in tests/test_roll_table.py and in
the play loop's tests. Every expected state comes from the engine playing the same game.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest

from companion.app.games.sushi_roll import ADAPTER, decode_action, encode_action
from companion.app.journal import JournalError
from companion.app.roll_game import ONLY_MOVED, REROLLED, TURNED, RollLook, RollTableGame
from companion.app.roll_moves import SeenDie
from companion.app.roll_table import RollTableRead
from companion.app.table_game import AMBIGUOUS, APPLIED, ILLEGAL, MISMATCH, SYNCED, UNREADABLE, WAITING
from companion.rules.sushi_roll import apply, new_game, random_action
from companion.rules.sushi_roll.record import score_sushi_roll_record
from companion.rules.sushi_roll.state import Chopsticks, Menu, Phase, Roll, Take, place_on_tray
from companion.vision.mat_layout import load_mat_layout

NAMES = ("Ann", "Bo", "Cy", "Di", "Ed")


class Scene:
    """Where each die lies, kept from state to state as on a real table: a die stays where it lay
    until it leaves its zone or is thrown; a die arriving takes the place a leaving one left, or a
    free one; a nigiri laid on a wasabi on a tray hides it (sushi-roll.txt, Nigiri and Wasabi).
    Its own, so that these tests do not depend on how the simulator lays dice."""

    def __init__(self, layout, seed: int) -> None:
        self.layout, self.rng = layout, random.Random(seed)
        self.zones: dict[tuple[int, str], list[tuple[str, tuple[float, float]]]] = {}

    def _spot(self, seat: int, kind: str, avoid) -> tuple[float, float]:
        x, y, w, h = self.layout.zone_of(seat, kind).rect_mm
        for _ in range(500):
            c = (self.rng.uniform(x + 10, x + w - 10), self.rng.uniform(y + 10, y + h - 10))
            if all(math.dist(c, a) > 18 for a in avoid):
                return c
        raise AssertionError("no room on the zone")

    def sync(self, belts, trays, rerolled=()) -> None:
        for kind, per_seat in (("belt", belts), ("tray", trays)):
            for seat in range(self.layout.players):
                want = [str(getattr(f, "nigiri", None) or getattr(f, "face", f)) for f in
                        (per_seat[seat] if seat < len(per_seat) else ())]
                old = list(self.zones.get((seat, kind), []))
                thrown = kind == "belt" and seat in rerolled
                kept, arriving = [], []
                for face in want:
                    hit = None if thrown else next((d for d in old if d[0] == face), None)
                    if hit is None and kind == "tray" and face.endswith("nigiri"):
                        hit = next((("wasabi", c) for f, c in old if f == "wasabi"), None)  # laid on it
                    if hit is None:
                        arriving.append(face)
                    else:
                        old.remove(hit)
                        kept.append((face, hit[1]))
                freed = [] if thrown else [c for _, c in old]
                avoid = [c for _, c in kept] + [c for _, c in old]
                for face in arriving:
                    c = freed.pop(0) if freed else self._spot(seat, kind, avoid)
                    avoid.append(c)
                    kept.append((face, c))
                self.zones[(seat, kind)] = kept

    def reading(self) -> RollTableRead:
        n = self.layout.players
        zone = lambda s, k: tuple(SeenDie(f, c) for f, c in self.zones.get((s, k), []))  # noqa: E731
        return RollTableRead(tuple(zone(s, "belt") for s in range(n)), tuple(zone(s, "tray") for s in range(n)))


class Table:
    """A simulated table beside the engine's game: what the camera would read."""

    def __init__(self, players: int, seed: int, red_seat: int = 0) -> None:
        self.names = list(NAMES[:players])
        self.layout = load_mat_layout(players, game="sushi-roll")
        self.scene = Scene(self.layout, seed)
        self.game = RollTableGame(self.names, self.layout, dice=None, red_seat=red_seat)

    def show(self, belts, trays, **kw) -> None:
        self.scene.sync(belts, trays, **kw)

    def reading(self) -> RollTableRead:
        return self.scene.reading()

    def feed(self, read: RollTableRead | None = None, **kw):
        look = RollLook(read or self.reading(), "", False, 0)
        return self.game.feed(None, look=look, **kw)


def _same_game(a, b) -> bool:
    keys = ("round", "phase", "red_seat", "belts", "trays", "tokens", "supply", "round_scores")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def _belts_before_slide(state):
    n = state.seats
    return [state.belts[(s + 1) % n] for s in range(n)]


def _play(players: int, seed: int, combine: float = 0.3):
    """Play a random game on the table and through RollTableGame; yield (truth, outcome) per settle."""
    rng = random.Random(seed)
    table = Table(players, seed)
    truth = new_game(table.names, rng, red_seat=0)
    outcome = table.feed()  # the empty table at the start
    assert outcome.kind == WAITING and "draw" in outcome.message
    pending: list = []  # actions shown but not yet read (a change without a settle)
    while not truth.is_over:
        action = random_action(truth, rng)
        if pending and truth.phase is Phase.TURN:  # a re-roll or swap and the take, then the settle
            action = Take(truth.current_player, rng.choice(truth.belts[truth.current_player]))
        if isinstance(action, Chopsticks) and action.mine == action.theirs:
            continue  # a swap of two equal faces cannot be seen (roll_moves' doc)
        if isinstance(action, Roll):
            if any(truth.belts):  # the belts slid in the engine: pass them on, then roll
                table.show(truth.belts, truth.trays, rerolled=range(players))  # passing moves every die
                outcome = table.feed()
                assert outcome.kind == WAITING and "roll the dice" in outcome.message, outcome.message
            else:
                table.show([()] * players, truth.trays)  # the last round's trays cleared
            after = apply(truth, action, rng)
            if not any(truth.belts):  # a round starts: the dice laid on the belts, then rolled
                _lay(table, after)
            table.show(after.belts, after.trays, rerolled=range(players))
            outcome = table.feed()
            for _ in range(5):  # a belt that landed where and as it lay is asked to be rolled again
                if outcome.kind != WAITING:
                    break
                assert "roll the dice on" in outcome.message
                table.show(after.belts, after.trays, rerolled=outcome.waiting)
                outcome = table.feed()
            assert outcome.kind == APPLIED, outcome.message
            assert {s: p[0].faces[0] for s, p in outcome.plays.items()} == dict(enumerate(after.belts))
            truth = after
            yield truth, outcome, table
            continue
        before = truth
        truth = apply(truth, action, rng)
        pending.append(action)
        if isinstance(action, Take):
            belts = list(before.belts)
            faces = list(belts[action.player])
            faces.remove(action.face)
            belts[action.player] = tuple(faces)
            trays = list(before.trays)
            trays[action.player] = place_on_tray(before.trays[action.player], action.face)
            table.show(belts, trays)
        elif isinstance(action, Menu):
            table.show(truth.belts, truth.trays, rerolled=[action.player])
        else:
            table.show(truth.belts, truth.trays)
        if not isinstance(action, Take) and rng.random() < combine:
            # the take follows before the table settles; never two re-rolls (or two swaps) between
            # settles: they look like one, and the camera cannot count the tokens spent
            continue
        outcome = table.feed()
        if outcome.kind == AMBIGUOUS:  # dice moved and landed the same, or the die taken was re-rolled
            assert REROLLED in outcome.question.options and outcome.question.seat == action.player
            outcome = table.feed(first={action.player: REROLLED})
        assert outcome.kind == APPLIED, outcome.message
        pending = []
        yield truth, outcome, table


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3), (5, 4), (3, 5)])
def test_a_whole_game_read_from_the_table_is_the_engines_game(players, seed):
    menus = swaps = combined = 0
    for truth, outcome, table in _play(players, seed):
        assert _same_game(table.game.state, truth)
        actions = [a for p in outcome.plays.values() for a in p]
        menus += any(isinstance(a, Menu) for a in actions)
        swaps += any(isinstance(a, Chopsticks) for a in actions)
        combined += len(actions) > 1 and not isinstance(actions[0], Roll)
    assert truth.is_over and table.game.state.result == truth.result
    assert menus and swaps and combined  # the game exercised every kind of change


def _lay(table, rolled) -> None:
    """The dice of ``rolled``'s belts laid from the bag showing other faces, read: the companion
    waits for them to be rolled (sushi-roll.txt, SET UP, then PLAYING A ROUND)."""
    laid = [tuple(next(f for f in rolled.dice.of(face.kind) if f != face) for face in belt) for belt in rolled.belts]
    table.show(laid, rolled.trays)
    outcome = table.feed()
    assert outcome.kind == WAITING and "picks up the dice" in outcome.message, outcome.message


def _show_take(table, state, face):
    """The active player moves ``face`` from belt to tray on the table; the engine's state after it."""
    p = state.current_player
    after = apply(state, Take(p, face))
    belts = list(state.belts)
    belts[p] = after.belts[p]
    table.show(belts, after.trays)
    return after


def _rolled(players: int = 3, seed: int = 7):
    """A table whose belts were just rolled and read: (table, the engine's state)."""
    rng = random.Random(seed)
    table = Table(players, seed)
    state = apply(new_game(table.names, rng, red_seat=0), Roll(), rng)
    _lay(table, state)
    table.show(state.belts, state.trays, rerolled=range(players))
    outcome = table.feed()
    assert outcome.kind == APPLIED and _same_game(table.game.state, state)
    return table, state


def test_a_round_starts_only_when_every_belt_holds_its_dice():
    table = Table(3, 1)
    rng = random.Random(1)
    state = apply(new_game(table.names, rng, red_seat=0), Roll(), rng)
    short = list(state.belts)
    short[1] = short[1][:-1]
    table.show(short, state.trays)
    outcome = table.feed()
    assert outcome.kind == WAITING and outcome.waiting == (1,)
    assert "Bo's belt has 6" in outcome.message and "7 dice with 3 players" in outcome.message
    assert table.game.state.phase is Phase.ROLL
    table.show(state.belts, state.trays)  # laid on the belts from the bag: not yet rolled
    outcome = table.feed()
    assert outcome.kind == WAITING and "picks up the dice on their belt, rolls them" in outcome.message
    table.show(state.belts, state.trays, rerolled=[0, 2])  # Ann and Cy rolled theirs, Bo not yet
    outcome = table.feed()
    assert outcome.kind == WAITING and outcome.waiting == (1,) and "roll the dice on Bo's belt" in outcome.message
    table.show(state.belts, state.trays, rerolled=[1])
    outcome = table.feed()
    assert outcome.kind == APPLIED and table.game.state.phase is Phase.TURN


def test_a_die_taken_from_another_belt_is_refused_and_changes_nothing():
    table, state = _rolled()
    p = state.current_player
    other = (p + 1) % 3
    face = state.belts[other][0]
    belts = list(state.belts)
    rest = list(belts[other])
    rest.remove(face)
    belts[other] = tuple(rest)
    trays = list(state.trays)
    trays[p] = place_on_tray(trays[p], face)
    table.show(belts, trays)
    outcome = table.feed()
    assert outcome.kind == ILLEGAL and outcome.rule == "own-belt"
    assert outcome.error is not None and outcome.player == "Ann"
    assert table.game.state == state
    table.show(state.belts, state.trays)  # put back: the same table as before, nothing to apply
    outcome = table.feed()
    assert outcome.kind == WAITING and outcome.waiting == (p,)
    own = state.belts[p][0]
    after = _show_take(table, state, own)
    outcome = table.feed()
    assert outcome.kind == APPLIED and outcome.plays == {p: (Take(p, own),)}
    assert table.game.state == after


def test_a_reroll_without_a_menu_token_is_refused_with_the_engines_rule():
    table, state = _rolled()
    p = state.current_player
    tokens = list(state.tokens)
    tokens[p] = replace(tokens[p], menu=0)
    state = replace(state, tokens=tuple(tokens))
    table.game.state = state
    faces = list(state.belts[p])
    kind_faces = [f for f in state.dice.of(faces[0].kind) if f != faces[0]]
    faces[0] = kind_faces[0]
    belts = list(state.belts)
    belts[p] = tuple(faces)
    table.show(belts, state.trays, rerolled=[p])
    outcome = table.feed()
    assert outcome.kind == ILLEGAL and outcome.error.rule and "menu" in str(outcome.error).lower()
    assert table.game.state == state


def test_an_unknown_die_is_asked_and_the_name_given_is_used():
    table, state = _rolled()
    p = state.current_player
    face = state.belts[p][0]
    after = _show_take(table, state, face)
    read = table.reading()
    die = read.trays[p][0]
    blurred = replace(read, trays=tuple((SeenDie("unknown", die.center_mm),) if s == p else t
                                        for s, t in enumerate(read.trays)))
    outcome = table.feed(blurred)
    assert outcome.kind == UNREADABLE and outcome.unknown == (p, SeenDie("unknown", die.center_mm))
    assert table.game.state == state
    named = {(die.center_mm[0] + 3, die.center_mm[1]): str(face)}  # named where the player saw it
    outcome = table.feed(blurred, named=named)
    assert outcome.kind == APPLIED and outcome.plays == {p: (Take(p, face),)}


def test_a_missed_die_is_unreadable_not_a_refusal():
    table, state = _rolled()
    read = table.reading()
    missing = replace(read, belts=tuple(b[1:] if s == 2 else b for s, b in enumerate(read.belts)))
    outcome = table.feed(missing)
    assert outcome.kind == UNREADABLE and "20 dice" in outcome.message and "21" in outcome.message
    assert table.game.state == state


def test_dice_moved_on_the_belt_with_the_same_faces_are_asked_about():
    table, state = _rolled()
    p = state.current_player
    table.show(state.belts, state.trays, rerolled=[p])  # thrown again, landed on the same faces
    outcome = table.feed()
    assert outcome.kind == AMBIGUOUS and outcome.question.seat == p
    assert outcome.question.options == (ONLY_MOVED, REROLLED)
    assert table.game.state == state
    outcome = table.feed(first={p: ONLY_MOVED})
    assert outcome.kind == WAITING and table.game.state == state
    table.show(state.belts, state.trays, rerolled=[p])
    outcome = table.feed(first={p: ONLY_MOVED})  # the answer about the earlier sight is not reused
    assert outcome.kind == AMBIGUOUS and table.game.state == state
    outcome = table.feed(first={p: REROLLED})
    assert outcome.kind == APPLIED and table.game.state.tokens[p].menu == state.tokens[p].menu - 1


def test_dice_moved_by_a_player_with_no_menu_token_only_moved():
    table, state = _rolled()
    p = state.current_player
    tokens = list(state.tokens)
    tokens[p] = replace(tokens[p], menu=0)
    state = replace(state, tokens=tuple(tokens))
    table.game.state = state
    table.show(state.belts, state.trays, rerolled=[p])
    outcome = table.feed()
    assert outcome.kind == WAITING and table.game.state == state


def test_a_die_whose_face_changed_on_the_way_to_the_tray_is_asked_and_refused_if_it_turned():
    table, state = _rolled()
    p = state.current_player
    face = state.belts[p][0]
    other = next(f for f in state.dice.of(face.kind) if f != face)
    belts = list(state.belts)
    rest = list(belts[p])
    rest.remove(face)
    belts[p] = tuple(rest)
    trays = list(state.trays)
    trays[p] = place_on_tray(trays[p], other)
    table.show(belts, trays)
    outcome = table.feed()
    assert outcome.kind == AMBIGUOUS and set(outcome.question.options) == {REROLLED, TURNED}
    outcome = table.feed(first={p: TURNED})
    assert outcome.kind == ILLEGAL and outcome.rule == "die-faces" and str(face) in outcome.message
    assert table.game.state == state
    outcome = table.feed()  # asked again about this sight (the refusal took no reading)
    assert outcome.kind == AMBIGUOUS
    outcome = table.feed(first={p: REROLLED})
    assert outcome.kind == APPLIED and [type(a) for a in outcome.plays[p]] == [Menu, Take]


def test_a_player_changing_their_belt_out_of_turn_is_named():
    table, state = _rolled()
    p = state.current_player
    bo = (p + 1) % 3
    faces = list(state.belts[bo])
    faces[0] = next(f for f in state.dice.of(faces[0].kind) if f != faces[0])
    belts = list(state.belts)
    belts[bo] = tuple(faces)
    table.show(belts, state.trays, rerolled=[bo])
    outcome = table.feed()
    assert outcome.kind == ILLEGAL and outcome.rule == "not-your-turn" and outcome.player == table.names[bo]
    assert table.game.state == state


def test_after_an_undo_the_table_must_show_the_earlier_state():
    table, state = _rolled()
    p = state.current_player
    face = state.belts[p][0]
    after = _show_take(table, state, face)
    assert table.feed().kind == APPLIED
    outcome = table.game.resync(None, state, look=RollLook(table.reading(), "", True, 0))
    assert outcome.kind == MISMATCH and "Ann's tray" in outcome.message
    assert table.game.state == after
    table.show(state.belts, state.trays)
    outcome = table.game.resync(None, state, look=RollLook(table.reading(), "", True, 0))
    assert outcome.kind == SYNCED and table.game.state == state


class _Event:
    def __init__(self, seq, kind, payload):
        self.seq, self.kind, self.payload = seq, kind, payload


def test_the_journal_events_replay_to_the_same_game_and_its_record_scores_it():
    events = []
    for truth, outcome, table in _play(3, 12):
        state = table.game.state
        (round_, turn) = (outcome.round, outcome.turn)
        events.append(_Event(len(events) + 1, "turn", ADAPTER.turn_payload(round_, turn, outcome.plays)))
        if len(events) == 5:
            events.append(_Event(len(events) + 1, "undo", {"turns": 1}))
            events.append(_Event(len(events) + 1, "turn", events[-2].payload))
    rebuilt = ADAPTER.rebuild_turns(list(NAMES[:3]), {}, events)
    assert rebuilt.state == state and rebuilt.state.result == truth.result
    assert len(rebuilt.turns) == len(events) - 2
    record = ADAPTER.record(list(NAMES[:3]), {}, events)
    assert score_sushi_roll_record(record).totals == truth.result.totals
    assert ADAPTER.result(rebuilt.state)["total"] == dict(zip(NAMES[:3], truth.result.totals))


def test_a_journal_turn_the_rules_refuse_is_a_journal_error_naming_it():
    state = ADAPTER.new_state(["Ann", "Bo"], {})
    bad = _Event(1, "turn", {"round": 1, "turn": 1, "seat": 0, "actions": [{"take": "maki"}]})
    with pytest.raises(JournalError, match="event 1"):
        ADAPTER.rebuild_turns(["Ann", "Bo"], {}, [bad])
    with pytest.raises(JournalError, match="red_seat"):
        ADAPTER.rebuild_turns(["Ann", "Bo"], {"red_seat": 2}, [])
    assert state.red_seat == 0 and ADAPTER.new_state(["Ann", "Bo"], {"red_seat": 1}).red_seat == 1


@pytest.mark.parametrize("action", [Take(1, "maki*2"), Menu(0, ("maki", "tempura"), ("maki*3", "tempura")),
                                    Chopsticks(2, "wasabi", 0, "egg_nigiri")])
def test_an_action_survives_the_journal(action):
    assert decode_action(action.player, encode_action(action)) == action


def test_belts_only_passed_on_are_not_a_roll_even_when_the_faces_are_the_same():
    """Late in a 2-player round each belt holds one die; when both show one face, passing the belts
    on changes no face, yet it moves every die: that must not be taken for the roll."""
    table, state = _rolled(players=2, seed=4)
    face = state.belts[0][0]
    # the cycle's last take is done: the engine slid the belts (one die each, the same face)
    slid = replace(state, phase=Phase.ROLL, belts=((face,), (face,)))
    table.show(slid.belts, slid.trays)  # the table before the belts are passed on
    table.game._accept(table.reading())
    table.game.state = slid
    table.show([(), ()], slid.trays)
    table.show(slid.belts, slid.trays)  # passed on: each die now lies elsewhere, the faces the same
    outcome = table.feed()
    assert outcome.kind == WAITING and "roll the dice" in outcome.message and table.game.state == slid
    table.show(slid.belts, slid.trays, rerolled=range(2))  # rolled, and landed the same faces again
    outcome = table.feed()
    assert outcome.kind == APPLIED and table.game.state.phase is Phase.TURN


def test_belts_not_passed_on_are_waited_for_even_when_one_was_rolled_in_place():
    table, state = _rolled(seed=9)
    while state.phase is Phase.TURN:  # play the cycle out: every seat takes its first die
        p = state.current_player
        before, state = state, apply(state, Take(p, state.belts[p][0]))
        if state.phase is Phase.TURN:
            belts = list(before.belts)
            belts[p] = state.belts[p]
            table.show(belts, state.trays)
        else:
            table.show(_belts_before_slide(state), state.trays)
        assert table.feed().kind == APPLIED
    unpassed = _belts_before_slide(state)
    table.show(unpassed, state.trays, rerolled=[0])  # Ann rolls her belt where it is; nobody passed
    outcome = table.feed()
    assert outcome.kind == WAITING and "pass the belts" in outcome.message and table.game.state == state
    table.show(state.belts, state.trays, rerolled=range(3))  # now passed on: every die moved
    assert "roll the dice" in table.feed().message


def test_a_nigiri_laid_beside_the_wasabi_is_scored_on_it_and_the_player_is_reminded():
    from companion.rules.sushi_roll.dice import parse_face
    from companion.rules.sushi_roll.state import TrayDie

    table, state = _rolled()
    p = state.current_player
    # give the active player an open wasabi on the tray, and a nigiri on the belt
    nigiri = parse_face("salmon_nigiri")
    belts = list(state.belts)
    belts[p] = tuple(sorted(belts[p][1:] + (nigiri,), key=str))
    trays = list(state.trays)
    trays[p] = (TrayDie(parse_face("wasabi")),)
    state = replace(state, belts=tuple(belts), trays=tuple(trays))
    table.game.state = state
    table.show(state.belts, state.trays)
    table.game._accept(table.reading())
    after = apply(state, Take(p, nigiri))
    # the nigiri laid on the tray well apart from the wasabi (the scene would stack it: place it by hand)
    rest = list(state.belts[p])
    rest.remove(nigiri)
    belts[p] = tuple(rest)
    table.show(belts, state.trays)
    read = table.reading()
    (w,) = read.trays[p]
    apart = SeenDie("salmon_nigiri", (w.center_mm[0] + 60, w.center_mm[1]))
    read = replace(read, trays=tuple((w, apart) if s == p else t for s, t in enumerate(read.trays)))
    outcome = table.feed(read)
    assert outcome.kind == APPLIED and table.game.state == after
    assert "lay the salmon nigiri on your wasabi" in outcome.message
