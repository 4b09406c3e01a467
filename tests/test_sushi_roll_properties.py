"""Property tests over random legal Sushi Roll games: dice and tokens are conserved, no die leaves a
tray, refused actions change nothing, legal_actions agrees with apply, a seed replays a game, and the
record of a game is accepted by ``companion score`` while a record made impossible is refused."""

import copy
import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.errors import IllegalAction
from companion.rules.sushi_roll import apply, legal_actions, new_game, random_game
from companion.rules.sushi_roll.dice import (
    DICE_COUNTS,
    FULL_SUPPLY,
    DieKind,
    Face,
    Icon,
    Tokens,
    load_dice_faces,
    parse_face,
)
from companion.rules.sushi_roll.record import parse_sushi_roll_record, record_from_state, record_trays
from companion.rules.sushi_roll.state import Chopsticks, Menu, Phase, Roll, Take

SEEDS = st.integers(0, 2**32 - 1)
PLAYERS = st.integers(2, 5)
ALL_FACES = [Face(icon, n) for icon in Icon for n in (1, 2, 3)]


def check_invariants(before, after):
    # 30 dice, always: bag + belts + trays (sushi-roll.txt, CONTENTS).
    assert after.dice_count() == DICE_COUNTS
    # Every token is with a player or in the supply, and no pile goes negative.
    assert after.all_tokens() == FULL_SUPPLY
    for pile in after.tokens + (after.supply,):
        assert min(pile._values()) >= 0
    # No die ever leaves a tray: within a round trays only grow (a wasabi may gain a nigiri); at the
    # round's end the whole tray is kept in round_trays.
    for seat in range(before.seats):
        old = before.trays[seat]
        new = after.trays[seat] if after.round_scores == before.round_scores else after.round_trays[-1][seat]
        assert len(new) >= len(old)
        for was, now in zip(old, new):
            assert was.face == now.face and (was.nigiri is None or was.nigiri == now.nigiri)
    # Belts shrink together: at most one die apart.
    sizes = [len(b) for b in after.belts]
    assert max(sizes) - min(sizes) <= 1


def check_result(state):
    result = state.result
    for seat in range(state.seats):
        assert sum(l.points for l in result.breakdown if l.seat == seat) == result.totals[seat]
        # The scoring tokens a player holds are every payout, less what the supply could not give.
        net = 0
        for p in state.payouts:
            if p.seat == seat:
                paid = p.taken.points - p.returned.points
                assert abs(p.points) - abs(paid) == p.short >= 0
                net += paid
        assert state.tokens[seat].points == net


def fuzz_action(state, rng):
    """A random action, often illegal: any kind, any seat (even a bad one), any face."""
    seat = rng.randrange(-1, state.seats + 1)
    face = rng.choice(ALL_FACES)
    kind = rng.randrange(4)
    if kind == 0:
        return Roll()
    if kind == 1:
        return Take(seat, face)
    if kind == 2:
        return Menu(seat, tuple(sorted(rng.sample(ALL_FACES, rng.randrange(0, 3)))))
    return Chopsticks(seat, face, rng.randrange(-1, state.seats + 1), rng.choice(ALL_FACES))


@settings(max_examples=20, deadline=None)
@given(SEEDS, PLAYERS)
def test_random_legal_games_conserve_dice_and_tokens(seed, players):
    rng = random.Random(seed)
    pick = random.Random(seed ^ 0x5EED)
    state = new_game([f"P{i}" for i in range(players)], rng)
    steps = 0
    while not state.is_over:
        actions = legal_actions(state)
        assert actions
        # Favour taking a die so that games stay short; still use every kind of action.
        takes = [a for a in actions if isinstance(a, Take)]
        action = pick.choice(takes if takes and pick.random() < 0.7 else actions)
        after = apply(state, action, rng)
        check_invariants(state, after)
        state = after
        steps += 1
    assert state.round == 3 and state.phase is Phase.OVER and sum(state.bag) == 30
    check_result(state)


@settings(max_examples=20, deadline=None)
@given(SEEDS, PLAYERS)
def test_fuzzed_actions_are_refused_without_change_or_accepted_iff_legal(seed, players):
    rng = random.Random(seed)
    fuzz = random.Random(seed + 1)
    state = new_game([f"P{i}" for i in range(players)], rng)
    while not state.is_over:
        legal = set(legal_actions(state))
        for _ in range(5):
            action = fuzz_action(state, fuzz)
            before, rng_before = state, rng.getstate()
            try:
                after = apply(state, action, rng)
            except IllegalAction as exc:
                # Refused: the state and the random stream are untouched, and the rule is named.
                assert state == before and rng.getstate() == rng_before
                assert exc.rule and exc.section.startswith("sushi-roll.txt")
                assert action not in legal
                continue
            assert action in legal
            check_invariants(state, after)
            state = after
            if state.is_over:
                break
            legal = set(legal_actions(state))
        if not state.is_over:
            seat = state.current_player
            action = Roll() if seat is None else Take(seat, fuzz.choice(state.belts[seat]))
            after = apply(state, action, rng)
            check_invariants(state, after)
            state = after
    check_result(state)


@settings(max_examples=10, deadline=None)
@given(SEEDS, PLAYERS)
def test_same_seed_same_game(seed, players):
    first = random_game(seed, players)
    assert first == random_game(seed, players)
    assert first.is_over
    check_result(first)


def test_random_game_kinds_of_dice_reach_the_trays():
    state = random_game(2024, 5)
    kinds = {f.kind for rnd in state.round_trays for tray in rnd for p in tray for f in p.dice}
    assert kinds == set(DieKind)
    assert state.all_tokens() == FULL_SUPPLY and isinstance(state.supply, Tokens)


# --- records from the engine's own games (issue 13, "Done means") -----------------------------------------

RECORD_GAMES = 40


def _score_cli(record, path, capsys):
    """Run ``companion score --game sushi-roll --json`` (the console script's entry point) on ``record``."""
    from companion.cli import main

    path.write_text(json.dumps(record), encoding="utf-8")
    status = main(["score", "--game", "sushi-roll", "--json", str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def _bound(record, name, kind):
    """Start tokens (sushi-roll.txt, SET UP: 3 menu, 2 chopsticks) plus the icons of that kind taken."""
    icons = 0
    for rnd in record["rounds"]:
        for face in rnd[name]:
            icon, _, n = face.partition("*")
            icons += int(n or 1) if icon == kind else 0
    return {"menu": 3, "chopsticks": 2}[kind] + icons


def test_engine_records_are_accepted_and_impossible_ones_refused(tmp_path, capsys):
    """For random legal games (fixed seeds, 2 to 5 players) the record the engine's history gives is
    accepted by ``companion score`` and scores as the engine did; every record made impossible by one
    token or one die more than the box or the history allows is refused, naming the field and the
    rulebook section (SET UP, EVERYBODY TAKES A TURN, CONTENTS)."""
    dice = load_dice_faces()
    path = tmp_path / "game.json"
    mutated = {"token": 0, "die on a belt": 0, "die over the box": 0, "tokens over the box": 0}
    for seed in range(RECORD_GAMES):
        players = 2 + seed % 4
        state = random_game(seed, players)
        record = record_from_state(state)
        # Listed in the order taken, each tray is rebuilt as the engine laid it (nigiri on wasabi).
        parsed = parse_sushi_roll_record(record)
        assert [tuple(record_trays(f) for f in rnd) for rnd in parsed.rounds] == list(state.round_trays)
        status, out, err = _score_cli(record, path, capsys)
        assert status == 0, err
        scored = json.loads(out)
        assert [list(r.values()) for r in scored["rounds"]] == [list(r.points) for r in state.round_scores]
        icons = [sum(f.count for rnd in state.round_trays for p in rnd[s] for f in p.dice if f.icon is Icon.PUDDING)
                 for s in range(players)]  # fmt: skip
        if icons == [t.puddings for t in state.tokens]:
            # The record counts pudding icons; the engine, tokens (a 3-token when the 1s ran out).
            assert list(scored["total"].values()) == list(state.result.totals)
            assert scored["winners"] == list(state.result.winners)
        pick = random.Random(seed)
        names = list(state.players)

        # One token more than the player could have.
        bad = copy.deepcopy(record)
        name, kind = pick.choice(names), pick.choice(("menu", "chopsticks"))
        bad["tokens"][name][kind] = _bound(record, name, kind) + 1
        status, _, err = _score_cli(bad, path, capsys)
        assert status == 2 and f"tokens.{name}.{kind}" in err and "sushi-roll.txt, SET UP" in err, err
        mutated["token"] += 1

        # One token more than the box holds, when every player's claim can stay within its own bound.
        for kind, box in (("menu", FULL_SUPPLY.menu), ("chopsticks", FULL_SUPPLY.chopsticks)):
            bounds = {n: _bound(record, n, kind) for n in names}
            if sum(bounds.values()) > box:
                bad, need = copy.deepcopy(record), box + 1
                for n in names:
                    bad["tokens"][n][kind], need = min(bounds[n], need), need - min(bounds[n], need)
                status, _, err = _score_cli(bad, path, capsys)
                assert status == 2 and f"{box + 1} {kind} tokens in all" in err and "CONTENTS" in err, err
                mutated["tokens over the box"] += 1

        # One die more than the belt held (the history: one die per turn).
        bad = copy.deepcopy(record)
        r, name = pick.randrange(3), pick.choice(names)
        bad["rounds"][r][name].append(bad["rounds"][r][name][0])
        status, _, err = _score_cli(bad, path, capsys)
        assert status == 2 and f"rounds[{r}].{name}" in err and "sushi-roll.txt, SET UP" in err, err
        mutated["die on a belt"] += 1

        # One die of a type more than the box has: turn a die into a type the round already used up.
        for r, rnd in enumerate(record["rounds"]):
            used = Counter(parse_face(f).kind for faces in rnd.values() for f in faces)
            full = [k for k in DieKind if used[k] == DICE_COUNTS[k]]
            if full:
                kind = full[0]
                name, i = next((n, i) for n in names for i, f in enumerate(rnd[n]) if parse_face(f).kind is not kind)
                bad = copy.deepcopy(record)
                bad["rounds"][r][name][i] = str(dice.of(kind)[0])
                status, _, err = _score_cli(bad, path, capsys)
                assert status == 2 and f"rounds[{r}]." in err and f"th {kind} die" in err and "CONTENTS" in err, err
                mutated["die over the box"] += 1
                break
    # Every kind of mutation was tried (the loop is seeded, so these counts are fixed).
    assert min(mutated.values()) > 0, mutated
