"""The Sushi Roll engine: setup, legal actions, turns, sliding belts, rounds and the final scoring.

Pure functions over :class:`~companion.rules.sushi_roll.state.SushiRollState`. :func:`new_game` deals
the belts (who holds the red one) and waits for a :class:`Roll`. Then, on each turn, the current player
may :class:`Menu` and :class:`Chopsticks` any number of times while their tokens last (step 1), and
must :class:`Take` one die (step 2), which ends the turn. When every player has taken a die the belts
slide left and wait for the next Roll; when the belts are empty the round is scored and the tokens
paid; after round 3 puddings and leftover tokens are scored and ``state.result`` is set.

Randomness only comes from the ``random.Random`` passed to :func:`new_game` and :func:`apply`, so a
seed and the action log replay a game exactly (:func:`replay`). Every roll can instead be given from
outside: ``Roll(faces=...)`` and ``Menu(..., result=...)`` (the camera reads the faces).

Source: sushi-roll.txt (sections cited in each docstring).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import product
from typing import Sequence

from companion.rules.core import GAME_END, player_names
from companion.rules.errors import IllegalAction
from companion.rules.sushi_roll.dice import (
    CONTENTS,
    DICE_COUNTS,
    DICE_FILE,
    FULL_SUPPLY,
    START_TOKENS,
    DiceFaces,
    DieKind,
    Face,
    Tokens,
    load_dice_faces,
)
from companion.rules.sushi_roll.scoring import final_result, score_round
from companion.rules.sushi_roll.state import (
    CHOPSTICKS,
    DICE_PER_BELT,
    KEEP,
    MENU,
    PLAYING,
    ROUNDS,
    Action,
    Chopsticks,
    Menu,
    Payout,
    Phase,
    Roll,
    SushiRollOptions,
    SushiRollState,
    Take,
    Tray,
    pay_points,
    place_on_tray,
    shape_of,
    tokens_for_face,
    tray_dice,
)

SET_UP = "sushi-roll.txt, SET UP"
TURN = "sushi-roll.txt, EVERYBODY TAKES A TURN"
SLIDE = "sushi-roll.txt, SLIDE AND ROLL"
ENDING = "sushi-roll.txt, ENDING THE GAME"

#: The dice in the bag at the start of every round, in DieKind order.
FULL_BAG: tuple[int, ...] = tuple(DICE_COUNTS[k] for k in DieKind)


def new_game(
    players: Sequence[str],
    rng: random.Random | None = None,
    *,
    options: SushiRollOptions | None = None,
    dice: DiceFaces | None = None,
    red_seat: int | None = None,
) -> SushiRollState:
    """A new game waiting for the first :class:`Roll`: each player has 2 chopsticks and 3 menu tokens,
    the belts are dealt, all 30 dice are in the bag (sushi-roll.txt, SET UP).

    ``red_seat`` is who was dealt the red-bordered belt; when None it is dealt with ``rng``. ``dice``
    defaults to the faces in companion/data/sushi_roll_dice.toml.

    Raises:
        ValueError: naming the expected shape for ``players`` that is not a sequence of names (a
            string such as ``"AB"`` is refused, not split into players "A" and "B"), a ``red_seat``
            that is not an int (``True`` is not seat 1), an ``rng`` that is not a ``random.Random``,
            ``options`` or ``dice`` of the wrong type; for fewer than 2 or more than 5 players,
            names that :func:`companion.rules.core.player_names` refuses (duplicate, also by case;
            blank; control characters; too long), a ``red_seat`` beyond the seats, or neither
            ``red_seat`` nor ``rng``.
    """
    names = _player_names(players)
    if rng is not None and not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random (or None with red_seat), got {shape_of(rng)}")
    if options is not None and not isinstance(options, SushiRollOptions):
        raise ValueError(f"options must be a SushiRollOptions, got {shape_of(options)}")
    if dice is not None and not isinstance(dice, DiceFaces):
        raise ValueError(f"dice must be a DiceFaces (see load_dice_faces), got {shape_of(dice)}")
    if len(names) not in DICE_PER_BELT:
        raise ValueError(f"Sushi Roll is for 2 to 5 players, got {len(names)} ({SET_UP})")
    if red_seat is None:
        if rng is None:
            raise ValueError("give red_seat, or an rng to deal the conveyor belts")
        red_seat = rng.randrange(len(names))
    if type(red_seat) is not int or not 0 <= red_seat < len(names):
        raise ValueError(f"red_seat must be a seat number (an int) from 0 to {len(names) - 1}, got {shape_of(red_seat)}")
    supply = FULL_SUPPLY
    for _ in names:
        supply = supply - START_TOKENS
    return SushiRollState(
        players=names,
        options=options or SushiRollOptions(),
        dice=dice or load_dice_faces(),
        round=1,
        phase=Phase.ROLL,
        red_seat=red_seat,
        turns_taken=0,
        bag=FULL_BAG,
        belts=((),) * len(names),
        trays=((),) * len(names),
        tokens=(START_TOKENS,) * len(names),
        supply=supply,
    )


def _player_names(players: object) -> tuple[str, ...]:
    """``players`` as a tuple of names, refusing what is not a sequence of names (a str is a
    sequence of letters: ``"AB"`` would otherwise make players "A" and "B")."""
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        raise ValueError(
            f"players must be a sequence of player names, such as ['Ann', 'Bo'], got {shape_of(players)} ({SET_UP})"
        )
    return player_names(players)  # the one name check of every engine and record (core)


def _whole_number(value: object, name: str) -> int:
    # bool is an int in Python; True as a seed or a count is a mistake.
    if type(value) is not int:
        raise ValueError(f"{name} must be an int, got {shape_of(value)}")
    return value


def _missing(pool: Sequence[Face], wanted: Sequence[Face]) -> Face | None:
    """The first face of ``wanted`` that ``pool`` cannot supply (as a multiset), or None."""
    left = Counter(pool)
    for face in wanted:
        if left[face] <= 0:
            return face
        left[face] -= 1
    return None


def _without(pool: Sequence[Face], faces: Sequence[Face]) -> tuple[Face, ...]:
    rest = list(pool)
    for face in faces:
        rest.remove(face)
    return tuple(rest)


def _where(state: SushiRollState, face: Face, seat: int) -> str:
    """Where else ``face`` is, for the refusal: "tray" (a tray of ``seat``), "belt" (another belt), ""."""
    if face in tray_dice(state.trays[seat]):
        return "tray"
    if any(face in belt for s, belt in enumerate(state.belts) if s != seat):
        return "belt"
    return ""


def _check_faces_shown(state: SushiRollState, faces: Sequence[Face], who: str | None, section: str) -> None:
    for face in faces:
        if not state.dice.shows(face):
            shown = ", ".join(sorted(set(map(str, state.dice.of(face.kind)))))
            raise IllegalAction(
                f"no {face.kind} die shows {face}: its faces are {shown} ({DICE_FILE}; verify against your tray)",
                player=who,
                rule="die-faces",
                section=section,
            )


def _check_roll(state: SushiRollState, roll: Roll) -> None:
    if state.phase is Phase.TURN:
        name = state.players[state.current_player]  # type: ignore[index]
        raise IllegalAction(
            f"the dice are rolled at the start of a round and after the belts slide; now it is {name}'s turn",
            rule="not-rolling",
            section=PLAYING,
        )
    if roll.faces is None:
        return
    if len(roll.faces) != state.seats:
        raise IllegalAction(
            f"a roll gives the faces of {state.seats} belts, one per player, got {len(roll.faces)}",
            rule="roll-faces",
            section=PLAYING,
        )
    drawing = not any(state.belts)
    for seat, faces in enumerate(roll.faces):
        name = state.players[seat]
        _check_faces_shown(state, faces, None, PLAYING if drawing else SLIDE)
        if drawing and len(faces) != state.dice_per_belt:
            raise IllegalAction(
                f"{name}'s belt gets {state.dice_per_belt} dice with {state.seats} players, got {len(faces)}",
                rule="roll-faces",
                section=SET_UP,
            )
        have = Counter(f.kind for f in state.belts[seat])
        if not drawing and Counter(f.kind for f in faces) != have:
            want = ", ".join(f"{n} {k}" for k, n in sorted(have.items()))
            raise IllegalAction(
                f"the dice on {name}'s belt are {want}: a roll changes faces, not dice",
                rule="roll-faces",
                section=SLIDE,
            )
    if drawing:
        drawn = Counter(f.kind for faces in roll.faces for f in faces)
        for kind, bag in zip(DieKind, state.bag):
            if drawn[kind] > bag:
                raise IllegalAction(
                    f"{drawn[kind]} {kind} dice were drawn but the game has only {bag}",
                    rule="dice-count",
                    section=CONTENTS,
                )


def check(state: SushiRollState, action: Action) -> None:
    """Check that ``action`` is legal now; return None if so.

    Raises:
        IllegalAction: with the player, the rule id and the rulebook section. Rule ids: ``game-over``,
            ``unknown-action``, ``not-rolling``, ``roll-faces``, ``dice-count``, ``die-faces``,
            ``unknown-seat``, ``roll-first``, ``one-die`` (a second die in one turn), ``not-your-turn``,
            ``menu-token-needed``, ``chopsticks-token-needed``, ``reroll-none``, ``own-belt`` (a die on
            someone else's belt), ``never-tray`` (a die on a tray), ``die-not-on-belt``,
            ``chopsticks-other-belt``. (The action constructors themselves refuse values of the wrong
            shape, e.g. ``Menu(0, "tempura")`` for ``Menu(0, ("tempura",))``, with ``action-shape``.)
    """
    if state.phase is Phase.OVER:
        raise IllegalAction("the game is over: no more dice are rolled or taken", rule="game-over", section=ENDING)
    if isinstance(action, Roll):
        _check_roll(state, action)
        return
    if not isinstance(action, (Menu, Chopsticks, Take)):
        raise IllegalAction(f"{action!r} is not a Sushi Roll action", rule="unknown-action", section=TURN)
    seat = action.player
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seats:
        raise IllegalAction(
            f"there is no seat {seat!r}: seats are 0 to {state.seats - 1}", rule="unknown-seat", section=TURN
        )
    name = state.players[seat]
    if state.phase is Phase.ROLL:
        raise IllegalAction(
            f"{name} cannot act yet: the dice on the belts have not been rolled",
            player=name,
            rule="roll-first",
            section=PLAYING if not any(state.belts) else SLIDE,
        )
    current = state.players[state.current_player]  # type: ignore[index]
    if seat != state.current_player:
        if state.has_taken(seat) and isinstance(action, Take):
            raise IllegalAction(
                f"{name} has already taken a die this turn: each turn a player keeps exactly 1 die",
                player=name,
                rule="one-die",
                section=KEEP,
            )
        raise IllegalAction(
            f"it is {current}'s turn, not {name}'s: play goes left from the red belt",
            player=name,
            rule="not-your-turn",
            section=TURN,
        )
    belt = state.belts[seat]
    if isinstance(action, Menu):
        if state.tokens[seat].menu < 1:
            raise IllegalAction(
                f"{name} has no menu token to return", player=name, rule="menu-token-needed", section=MENU
            )
        if not action.reroll:
            raise IllegalAction(
                f"{name} used a menu without re-rolling any die: a menu re-rolls dice from your belt",
                player=name,
                rule="reroll-none",
                section=MENU,
            )
        missing = _missing(belt, action.reroll)
        if missing is not None:
            _refuse_missing(state, seat, missing, "re-roll", MENU)
        if action.result is not None:
            kinds = [f.kind for f in action.reroll]
            if [f.kind for f in action.result] != kinds:
                raise IllegalAction(
                    f"{name} re-rolled {', '.join(map(str, action.reroll))} but the result"
                    f" {', '.join(map(str, action.result))} is not the same dice, in the same order",
                    player=name,
                    rule="roll-faces",
                    section=MENU,
                )
            _check_faces_shown(state, action.result, name, MENU)
        return
    if isinstance(action, Chopsticks):
        if state.tokens[seat].chopsticks < 1:
            raise IllegalAction(
                f"{name} has no chopsticks token to return",
                player=name,
                rule="chopsticks-token-needed",
                section=CHOPSTICKS,
            )
        other = action.other
        if not isinstance(other, int) or isinstance(other, bool) or not 0 <= other < state.seats:
            raise IllegalAction(
                f"there is no seat {other!r} to swap with: seats are 0 to {state.seats - 1}",
                player=name,
                rule="unknown-seat",
                section=CHOPSTICKS,
            )
        if other == seat:
            raise IllegalAction(
                f"{name} must swap with a die on another player's belt",
                player=name,
                rule="chopsticks-other-belt",
                section=CHOPSTICKS,
            )
        if action.mine not in belt:
            _refuse_missing(state, seat, action.mine, "swap", CHOPSTICKS)
        if action.theirs not in state.belts[other]:
            them = state.players[other]
            if action.theirs in tray_dice(state.trays[other]):
                raise IllegalAction(
                    f"{name} cannot swap {them}'s {action.theirs}: it is on {them}'s tray, and dice on a tray"
                    " can never be swapped",
                    player=name,
                    rule="never-tray",
                    section=CHOPSTICKS,
                )
            raise IllegalAction(
                f"{name} cannot swap for {action.theirs}: there is no {action.theirs} on {them}'s belt",
                player=name,
                rule="die-not-on-belt",
                section=CHOPSTICKS,
            )
        return
    if action.face not in belt:
        _refuse_missing(state, seat, action.face, "take", KEEP)


def _refuse_missing(state: SushiRollState, seat: int, face: Face, verb: str, section: str) -> None:
    """Refuse ``verb``-ing ``face``, which is not on ``seat``'s own belt, saying where it is instead."""
    name = state.players[seat]
    where = _where(state, face, seat)
    if where == "tray":
        raise IllegalAction(
            f"{name} cannot {verb} the {face} on their tray: dice on a tray stay as they are",
            player=name,
            rule="never-tray",
            section=section,
        )
    if where == "belt":
        raise IllegalAction(
            f"{name} cannot {verb} a {face} from another player's belt: only dice on your own belt"
            + (" (swap it in with chopsticks first)" if verb == "take" else ""),
            player=name,
            rule="own-belt",
            section=section,
        )
    raise IllegalAction(
        f"{name} cannot {verb} a {face}: there is no {face} on {name}'s belt",
        player=name,
        rule="die-not-on-belt",
        section=section,
    )


def _sub_multisets(belt: tuple[Face, ...]) -> list[tuple[Face, ...]]:
    """Every non-empty sub-multiset of ``belt`` (the distinct choices of dice to re-roll)."""
    counts = sorted(Counter(belt).items())
    out = []
    for picks in product(*(range(n + 1) for _, n in counts)):
        chosen = tuple(f for (f, _), k in zip(counts, picks) for _ in range(k))
        if chosen:
            out.append(chosen)
    return out


def legal_actions(state: SushiRollState) -> tuple[Action, ...]:
    """Every action :func:`apply` would accept now, up to which faces a roll shows: ``Roll()`` while
    the dice wait to be rolled; on a turn, every distinct Take, then every distinct Menu re-roll
    (results drawn from the rng), then every distinct Chopsticks swap. Empty once the game is over.
    Rolls with given faces are also legal but not listed (there are too many)."""
    if state.phase is Phase.OVER:
        return ()
    if state.phase is Phase.ROLL:
        return (Roll(),)
    seat = state.current_player
    assert seat is not None
    belt = state.belts[seat]
    distinct = sorted(set(belt))
    actions: list[Action] = [Take(seat, f) for f in distinct]
    if state.tokens[seat].menu:
        actions += [Menu(seat, chosen) for chosen in _sub_multisets(belt)]
    if state.tokens[seat].chopsticks:
        for other in range(state.seats):
            if other != seat:
                actions += [Chopsticks(seat, m, other, t) for m in distinct for t in sorted(set(state.belts[other]))]
    return tuple(actions)


def _need_rng(rng: random.Random | None) -> random.Random:
    if rng is None:
        raise ValueError("this roll has no faces given: pass the game's random.Random to draw them")
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random, got {shape_of(rng)}")
    return rng


def apply(state: SushiRollState, action: Action, rng: random.Random | None = None) -> SushiRollState:
    """The state after ``action``. ``rng`` draws any roll whose faces are not given.

    Raises:
        IllegalAction: see :func:`check`; ``state`` is unchanged and ``rng`` is not used.
        ValueError: a roll without given faces and without ``rng``.
    """
    check(state, action)
    if isinstance(action, Roll):
        return _roll(state, action, rng)
    seat = action.player
    belts = list(state.belts)
    tokens = list(state.tokens)
    if isinstance(action, Menu):
        result = action.result
        if result is None:
            r = _need_rng(rng)
            result = tuple(state.dice.roll(f.kind, r) for f in action.reroll)
        belts[seat] = tuple(sorted(_without(belts[seat], action.reroll) + result))
        tokens[seat] = tokens[seat] - Tokens(menu=1)
        return replace(state, belts=tuple(belts), tokens=tuple(tokens), supply=state.supply + Tokens(menu=1))
    if isinstance(action, Chopsticks):
        other = action.other
        belts[seat] = tuple(sorted(_without(belts[seat], [action.mine]) + (action.theirs,)))
        belts[other] = tuple(sorted(_without(belts[other], [action.theirs]) + (action.mine,)))
        tokens[seat] = tokens[seat] - Tokens(chopsticks=1)
        supply = state.supply + Tokens(chopsticks=1)
        return replace(state, belts=tuple(belts), tokens=tuple(tokens), supply=supply)
    return _take(state, action)


def _roll(state: SushiRollState, roll: Roll, rng: random.Random | None) -> SushiRollState:
    """Roll every belt's dice; at the start of a round first draw them from the bag
    (sushi-roll.txt, SET UP, PLAYING A ROUND, SLIDE AND ROLL, STARTING A NEW ROUND)."""
    drawing = not any(state.belts)
    if roll.faces is not None:
        belts = tuple(tuple(sorted(faces)) for faces in roll.faces)
    else:
        r = _need_rng(rng)
        if drawing:
            bag = [kind for kind, n in zip(DieKind, state.bag) for _ in range(n)]
            r.shuffle(bag)
            size = state.dice_per_belt
            kinds = [bag[s * size : (s + 1) * size] for s in range(state.seats)]
        else:
            kinds = [[f.kind for f in belt] for belt in state.belts]
        belts = tuple(tuple(sorted(state.dice.roll(k, r) for k in seat_kinds)) for seat_kinds in kinds)
    bag = state.bag
    if drawing:
        drawn = Counter(f.kind for belt in belts for f in belt)
        bag = tuple(n - drawn[k] for k, n in zip(DieKind, state.bag))
    return replace(state, belts=belts, bag=bag, phase=Phase.TURN, turns_taken=0)


def _take(state: SushiRollState, take: Take) -> SushiRollState:
    """Move the die to the tray (a nigiri onto an open wasabi), take its tokens, end the turn."""
    seat, face = take.player, take.face
    belts = list(state.belts)
    belts[seat] = _without(belts[seat], [face])
    trays = list(state.trays)
    trays[seat] = place_on_tray(trays[seat], face)
    gained = tokens_for_face(state.supply, face, state.tokens[seat])
    tokens = list(state.tokens)
    tokens[seat] = tokens[seat] + gained
    state = replace(
        state,
        belts=tuple(belts),
        trays=tuple(trays),
        tokens=tuple(tokens),
        supply=state.supply - gained,
        turns_taken=state.turns_taken + 1,
    )
    if state.turns_taken < state.seats:
        return state
    if any(state.belts):
        # SLIDE AND ROLL: every belt (with its dice) moves to the player on the left, seat i to i+1,
        # so the red belt and the first turn move one seat too.
        n = state.seats
        slid = tuple(state.belts[(s - 1) % n] for s in range(n))
        return replace(state, belts=slid, red_seat=(state.red_seat + 1) % n, phase=Phase.ROLL, turns_taken=0)
    return _end_round(state)


def _pay(seat: int, round_no: int | str, points: int, tokens: list[Tokens], supply: Tokens) -> Payout:
    """Pay ``points`` (negative: charge them) to ``seat`` from ``supply``, making change with the
    player's own tokens when needed (:func:`pay_points`); updates ``tokens[seat]`` in place."""
    taken, returned = pay_points(supply, points, tokens[seat])
    tokens[seat] = tokens[seat] + taken - returned
    return Payout(seat, round_no, points, taken, returned, short=abs(points - (taken.points - returned.points)))


def _turn_order(state: SushiRollState) -> list[int]:
    return [(state.red_seat + k) % state.seats for k in range(state.seats)]


def _end_round(state: SushiRollState) -> SushiRollState:
    """Score the trays and pay the tokens in turn order, put every die back in the bag, then start the
    next round or end the game (sushi-roll.txt, SCORING A ROUND, STARTING A NEW ROUND)."""
    score = score_round(state.players, state.trays, state.round)
    tokens, supply = list(state.tokens), state.supply
    payouts = list(state.payouts)
    for seat in _turn_order(state):
        # Paid in turn order from the red belt: only matters when the supply runs short.
        payouts.append(_pay(seat, state.round, score.points[seat], tokens, supply))
        supply = supply - payouts[-1].taken + payouts[-1].returned
    state = replace(
        state,
        tokens=tuple(tokens),
        supply=supply,
        payouts=tuple(payouts),
        round_scores=state.round_scores + (score,),
        round_trays=state.round_trays + (state.trays,),
        trays=((),) * state.seats,
        bag=FULL_BAG,
        turns_taken=0,
    )
    if state.round < ROUNDS:
        # STARTING A NEW ROUND: only with 3 players do the belts slide at the end of a round.
        red = (state.red_seat + 1) % state.seats if state.seats == 3 else state.red_seat
        return replace(state, round=state.round + 1, red_seat=red, phase=Phase.ROLL)
    return _end_game(state)


def _end_game(state: SushiRollState) -> SushiRollState:
    """Puddings and leftover tokens, the tokens for them, and the result (sushi-roll.txt, ENDING THE GAME)."""
    result = final_result(
        state.players,
        state.round_scores,
        [t.puddings for t in state.tokens],
        [t.menu for t in state.tokens],
        [t.chopsticks for t in state.tokens],
        state.options,
    )
    tokens, supply = list(state.tokens), state.supply
    payouts = list(state.payouts)
    for seat in _turn_order(state):
        payouts.append(_pay(seat, GAME_END, result.game.game_end_points[seat], tokens, supply))
        supply = supply - payouts[-1].taken + payouts[-1].returned
    return replace(
        state, tokens=tuple(tokens), supply=supply, payouts=tuple(payouts), phase=Phase.OVER, result=result
    )


def replay(
    players: Sequence[str],
    seed: int,
    actions: Sequence[Action],
    *,
    options: SushiRollOptions | None = None,
    dice: DiceFaces | None = None,
) -> SushiRollState:
    """Re-create a game from its seed and its action log (the same seed and log give the same state).

    Raises:
        IllegalAction: the first illegal action of the log.
        ValueError: see :func:`new_game`; also a ``seed`` that is not an int (a bool is refused) or
            ``actions`` that is not a sequence of actions (a string is refused).
    """
    _whole_number(seed, "seed")
    if isinstance(actions, (str, bytes)) or not isinstance(actions, Sequence):
        raise ValueError(f"actions must be a sequence of Sushi Roll actions (Roll, Menu, ...), got {shape_of(actions)}")
    rng = random.Random(seed)
    state = new_game(players, rng, options=options, dice=dice)
    for action in actions:
        state = apply(state, action, rng)
    return state


def random_action(state: SushiRollState, rng: random.Random) -> Action:
    """A random legal action, drawn without listing every legal action (fast, for simulation and
    benchmarks): sometimes a menu or chopsticks while tokens last, otherwise a random die is taken.

    Raises:
        ValueError: once the game is over.
    """
    if state.phase is Phase.OVER:
        raise ValueError("the game is over")
    if state.phase is Phase.ROLL:
        return Roll()
    seat = state.current_player
    assert seat is not None
    belt = state.belts[seat]
    choice = rng.random()
    if choice < 0.15 and state.tokens[seat].menu:
        chosen = tuple(f for f in belt if rng.random() < 0.5) or (rng.choice(belt),)
        return Menu(seat, chosen)
    others = [s for s in range(state.seats) if s != seat and state.belts[s]]
    if choice < 0.3 and state.tokens[seat].chopsticks and others:
        other = rng.choice(others)
        return Chopsticks(seat, rng.choice(belt), other, rng.choice(state.belts[other]))
    return Take(seat, rng.choice(belt))


def random_game(seed: int, players: int | Sequence[str] = 4) -> SushiRollState:
    """A whole random game from ``seed``: ``players`` is a number of players (named P1, P2...) or the
    names. Returns the final state (``state.result`` holds the result). Used by the benchmark.

    Raises:
        ValueError: a ``seed`` or ``players`` count that is not an int (a bool is refused), names that
            are not a sequence (a string is refused); see :func:`new_game`.
    """
    _whole_number(seed, "seed")
    if isinstance(players, bool):
        raise ValueError(f"players must be a number of players (2 to 5) or their names, got {shape_of(players)}")
    names = [f"P{i + 1}" for i in range(players)] if isinstance(players, int) else _player_names(players)
    rng = random.Random(seed)
    state = new_game(names, rng)
    while state.phase is not Phase.OVER:
        state = apply(state, random_action(state, rng), rng)
    return state


class SushiRoll:
    """The Sushi Roll engine as a :class:`~companion.rules.core.Game`, holding the ``random.Random``
    that draws rolls whose faces are not given."""

    name = "sushi-roll"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def legal_actions(self, state: SushiRollState) -> tuple[Action, ...]:
        """See :func:`legal_actions`."""
        return legal_actions(state)

    def apply(self, state: SushiRollState, action: Action) -> SushiRollState:
        """See :func:`apply`."""
        return apply(state, action, self.rng)

    def is_over(self, state: SushiRollState) -> bool:
        """True once the game has been scored."""
        return state.is_over


__all__ = [
    "Chopsticks",
    "Menu",
    "Roll",
    "SushiRoll",
    "SushiRollOptions",
    "SushiRollState",
    "Take",
    "Tray",
    "apply",
    "check",
    "legal_actions",
    "new_game",
    "random_action",
    "random_game",
    "replay",
]
