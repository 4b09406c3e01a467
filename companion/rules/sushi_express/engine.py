"""The Sushi Express engine: setup, legal actions, the four phases of a round, and the game end.

Pure functions over :class:`~companion.rules.sushi_express.state.SushiExpressState`
(source: ../shared/rules/sushi-express.txt). Start with :func:`new_game` (both decks shuffled with a
seeded ``random.Random``) or :func:`new_game_with_decks` (decks given, for tests and known shuffles), then
:func:`apply` one action at a time. Dice come either from the action (``Roll(seat, (3, 5))``, e.g. faces
read by the camera) or, when the faces are None, from the ``rng`` passed to :func:`apply`; so a game is
replayed exactly from its seed and its action log.

Readings of the rulebook that the code relies on (each a consequence of the text, not a free choice):

* The ring is numbered clockwise from Sushi Express (tile 0); the park is tile 6 (PREPARATION).
* A player's phase-1 turn is placing the marker (1. place guesses: "each player makes a guess") and
  playing action cards: "On a player's turn, he can play as many action cards as he has in his hand
  ... but he must play them in the appropriate phase" (THE ACTION CARDS). So "place exchange" is played
  by its holder in their own phase-1 turn only, before or after placing, as often as they hold it.
  "Same guess" is played with the placement itself, so it needs a taken number. The turn ends when
  its player says so (:class:`EndTurn`, the panel's OK), not at the marker; the last player's EndTurn
  ends phase 1, so the last guesser can exchange after placing like everyone else.
* "Place exchange" swaps two markers (or stacks), so both neighbouring spaces must hold one.
* The roller must take both tries before failing ("If the player twice rolls less than his guess").
  After any failed try he may play any number of "re-roll" cards, one die each (Re-roll: "on either
  the first try or the second"; cards may be played "including duplicates").
* A van reaching or passing Sushi Express must take a card if the display has one ("he takes a
  customer card"); passing counts even over an occupied Sushi Express tile.
* "The lowest guess" in a stack is its bottom marker: a stack plays from top to bottom, so the bottom
  marker acts as the lowest of them (Same guess). That player decides in phase 4 and starts the next
  round.
* The game ends when the display cannot be filled; the remaining supply is left as it is (GAME END).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from companion.rules.core import player_names, shuffled
from companion.rules.errors import IllegalAction
from companion.rules.sushi_express.scoring import score_game
from companion.rules.sushi_express.state import (
    ACTION_CARDS,
    ACTION_COUNTS,
    CONTENTS,
    CUSTOMER_COUNTS,
    DIE_FACES,
    EXCHANGE_SECTION,
    FURTHER_SECTION,
    GAME_END_SECTION,
    GUESS_NUMBERS,
    HIGHEST_GUESS,
    LOWEST_GUESS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PARK,
    PHASE_1,
    PHASE_2,
    PHASE_3,
    PHASE_4,
    PLAYING,
    PREPARATION,
    REROLL_SECTION,
    SAME_GUESS_SECTION,
    STARTING_HAND,
    SUSHI_EXPRESS,
    SUSHI_EXPRESS_SECTION,
    TILES,
    TRIES,
    AcceptRoll,
    Action,
    ActionCard,
    Customer,
    Deliver,
    EndTurn,
    Exchange,
    Guess,
    Move,
    Phase,
    ReRoll,
    Roll,
    SushiExpressOptions,
    SushiExpressState,
)

#: What ``companion.rules.sushi_express`` re-exports (its names when it was one module).
__all__ = [
    "ACTION_COUNTS",
    "CONTENTS",
    "CUSTOMER_COUNTS",
    "DEFAULT_NAMES",
    "DIE_FACES",
    "EXCHANGE_SECTION",
    "FULL_ACTION_DECK",
    "FULL_CUSTOMER_DECK",
    "FURTHER_SECTION",
    "GAME_END_SECTION",
    "GUESS_NUMBERS",
    "HIGHEST_GUESS",
    "LOWEST_GUESS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PARK",
    "PHASE_1",
    "PHASE_2",
    "PHASE_3",
    "PHASE_4",
    "PLAYING",
    "PREPARATION",
    "REROLL_SECTION",
    "SAME_GUESS_SECTION",
    "STARTING_HAND",
    "SUSHI_EXPRESS",
    "SUSHI_EXPRESS_SECTION",
    "TILES",
    "TRIES",
    "AcceptRoll",
    "Action",
    "ActionCard",
    "Customer",
    "Deliver",
    "EndTurn",
    "Exchange",
    "Guess",
    "Move",
    "Phase",
    "ReRoll",
    "Roll",
    "SushiExpress",
    "SushiExpressOptions",
    "SushiExpressState",
    "apply",
    "check_action",
    "end_game",
    "legal_actions",
    "new_game",
    "new_game_with_decks",
    "random_game",
    "score_game",
    "starting_supply",
    "van_path",
]

#: The 28 action cards and the 36 customer cards in a fixed order, before shuffling.
FULL_ACTION_DECK: tuple[ActionCard, ...] = tuple(c for c, n in ACTION_COUNTS.items() for _ in range(n))
FULL_CUSTOMER_DECK: tuple[Customer, ...] = tuple(c for c, n in CUSTOMER_COUNTS.items() for _ in range(n))

DEFAULT_NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")

#: The phase each kind of action belongs to, and the section that says so.
_PHASE_OF = {
    Guess: (Phase.GUESS, PHASE_1),
    Exchange: (Phase.GUESS, EXCHANGE_SECTION),
    EndTurn: (Phase.GUESS, PHASE_1),
    Roll: (Phase.ROLL, PHASE_2),
    ReRoll: (Phase.ROLL, REROLL_SECTION),
    AcceptRoll: (Phase.ROLL, PHASE_2),
    Move: (Phase.MOVE, PHASE_3),
    Deliver: (Phase.DELIVER, PHASE_4),
}
_ACTION_NAMES = {
    Guess: "guess",
    Exchange: '"place exchange"',
    EndTurn: "end a phase-1 turn",
    Roll: "roll the dice",
    ReRoll: '"re-roll"',
    AcceptRoll: "accept a failed roll",
    Move: "move a van",
    Deliver: "decide on the display",
}


def starting_supply(players: int) -> tuple[ActionCard, ...]:
    """The action cards left for the supply once every player has taken "1 tile further" and "same
    guess" (PREPARATION), in a fixed order (shuffle it before use)."""
    counts = Counter(ACTION_COUNTS)
    for card in STARTING_HAND:
        counts[card] -= players
    return tuple(c for c in ActionCard for _ in range(counts[c]))


def _sequence(value: object, what: str, shape: str) -> tuple:
    """``value`` as a tuple, refusing a string (whose letters would become the items), a mapping and
    anything that is not a sequence.

    Raises:
        ValueError: naming ``what`` and the expected ``shape``.
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(f"{what} must be {shape}, got {type(value).__name__} {value!r}")
    return tuple(value)


def _whole(value: object, what: str) -> int:
    """``value`` if it is an int (a bool is not: ``True`` is no count or seat).

    Raises:
        ValueError: naming ``what``.
    """
    if type(value) is not int:
        raise ValueError(f"{what} must be a whole number (int), got {type(value).__name__} {value!r}")
    return value


def _check_players(players: Sequence[str]) -> tuple[str, ...]:
    names = player_names(players)  # a string of names is refused, not split into letters
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"Sushi Express is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(names)} ({CONTENTS})")
    return names


def _check_options(options: object) -> SushiExpressOptions:
    if options is None:
        return SushiExpressOptions()
    if not isinstance(options, SushiExpressOptions):
        raise ValueError(f"options must be a SushiExpressOptions or None, got {type(options).__name__} {options!r}")
    return options


def new_game(
    players: Sequence[str], rng: random.Random, options: SushiExpressOptions | None = None
) -> SushiExpressState:
    """A new game: starting hands dealt, the action supply and then the customer deck shuffled with
    ``rng``, and the display laid out (PREPARATION).

    Args:
        players: 3 to 6 distinct names, a list or tuple (a string is refused: ``"AB"`` is not the
            players "A" and "B").
        rng: a ``random.Random`` (seeded for a reproducible game).
        options: see :class:`SushiExpressOptions`; None for the defaults.

    Raises:
        ValueError: for ``players`` not a sequence of names, fewer than 3 or more than 6 players,
            duplicate or empty names, ``rng`` not a ``random.Random``, ``options`` not a
            SushiExpressOptions, or ``options.first_player`` not a seat of this game.
    """
    names = _check_players(players)
    actions = shuffled(starting_supply(len(names)), rng)
    customers = shuffled(FULL_CUSTOMER_DECK, rng)
    return _setup(names, actions, customers, _check_options(options))


def new_game_with_decks(
    players: Sequence[str],
    action_supply: Sequence[ActionCard],
    customer_deck: Sequence[Customer],
    options: SushiExpressOptions | None = None,
) -> SushiExpressState:
    """A new game with both decks exactly as given, top first: the display takes the first customer
    cards. For tests, puzzles and re-creating a known shuffle.

    Raises:
        ValueError: unless ``action_supply`` is a sequence of exactly the 28 :class:`ActionCard` minus
            the starting hands and ``customer_deck`` a sequence of exactly the 36 :class:`Customer`
            cards (CONTENTS); see :func:`new_game`.
    """
    names = _check_players(players)
    actions = _sequence(action_supply, "action_supply", "a list or tuple of ActionCard, top first")
    customers = _sequence(customer_deck, "customer_deck", "a list or tuple of Customer, top first")
    if not all(isinstance(c, ActionCard) for c in actions) or Counter(actions) != Counter(
        starting_supply(len(names))
    ):
        raise ValueError(
            f"the action supply must hold the 28 action cards (ActionCard) minus the starting hands ({PREPARATION})"
        )
    if not all(isinstance(c, Customer) for c in customers) or Counter(customers) != Counter(FULL_CUSTOMER_DECK):
        raise ValueError(f"the customer deck must hold exactly the 36 customer cards (Customer) ({CONTENTS})")
    return _setup(names, actions, customers, _check_options(options))


def _setup(
    names: tuple[str, ...],
    actions: tuple[ActionCard, ...],
    customers: tuple[Customer, ...],
    options: SushiExpressOptions,
) -> SushiExpressState:
    n = len(names)
    options.check_seats(n)  # the same check as the record's (SushiExpressOptions.from_mapping)
    return SushiExpressState(
        players=names,
        options=options,
        round=1,
        phase=Phase.GUESS,
        start_player=options.first_player,
        guess_turn=0,
        board=((),) * len(GUESS_NUMBERS),
        guesses=(None,) * n,
        order=(),
        tries=0,
        dice=None,
        anyone_moved=False,
        vans=(SUSHI_EXPRESS,) * n,
        has_moved=(False,) * n,
        hands=(STARTING_HAND,) * n,
        collected=((),) * n,
        action_supply=actions,
        customer_supply=customers[n:],
        display=customers[:n],
    )


# --- Movement -----------------------------------------------------------------------------------------


def van_path(vans: Sequence[int], seat: int, steps: int) -> tuple[int, bool]:
    """Where ``seat``'s van ends after ``steps`` counted tiles clockwise, and whether it reached or
    passed Sushi Express on the way (3. move delivery vans).

    Tiles holding another van are not counted ("spaces with other delivery vans are not counted"), so
    the van never ends on one. Passing an occupied Sushi Express still counts as passing it.

    Args:
        vans: the tile (0–11) of every seat's van, a list or tuple of ints.
        seat: the seat whose van moves (an int).
        steps: the tiles to count (an int, 0 or more).

    Raises:
        ValueError: naming the argument when one is not of that shape.
    """
    tiles = _sequence(vans, "vans", "a list or tuple of tiles (ints 0 to 11), one per seat")
    if not all(type(t) is int and 0 <= t < TILES for t in tiles):
        raise ValueError(f"vans must hold tiles 0 to {TILES - 1} (ints), got {list(tiles)}")
    if not 0 <= _whole(seat, "seat") < len(tiles):
        raise ValueError(f"seat must be one of 0 to {len(tiles) - 1}, got {seat}")
    if _whole(steps, "steps") < 0:
        raise ValueError(f"steps must be 0 or more, got {steps}")
    others = {t for s, t in enumerate(vans) if s != seat}
    pos, passed, counted = vans[seat], False, 0
    while counted < steps:
        pos = (pos + 1) % TILES
        passed = passed or pos == SUSHI_EXPRESS
        if pos not in others:
            counted += 1
    return pos, passed


# --- Checking actions ---------------------------------------------------------------------------------


def _refuse(message: str, rule: str, section: str, player: str | None = None) -> IllegalAction:
    return IllegalAction(message, rule=rule, section=section, player=player)


def _check_faces(values: Sequence[object], name: str, section: str) -> None:
    if not all(type(v) is int and v in DIE_FACES for v in values):
        raise _refuse(f"{name} gave die faces {list(values)}: a die shows 1 to 6 (an int)", "die-faces", section,
                      name)


def check_action(state: SushiExpressState, action: Action) -> None:
    """Check that ``action`` is legal now; return None if so.

    Raises:
        IllegalAction: with the player, a rule id and the rulebook section. Rule ids: ``game-over``,
            ``unknown-action``, ``unknown-seat`` (also a seat that is not an int), ``wrong-phase``,
            ``not-your-turn`` (also "place exchange" outside the holder's own phase-1 turn, THE ACTION
            CARDS), ``already-guessed`` (a second Guess in one turn), ``guess-first`` (EndTurn before
            placing the marker), ``guess-range``, ``same-guess-flag`` (``same_guess`` not a bool),
            ``number-taken`` (a taken number without "same guess"), ``same-guess-untaken``,
            ``card-not-held`` (playing a card you do not hold), ``exchange-not-neighbours``,
            ``exchange-empty-space``, ``die-faces``, ``die-index``, ``tries-used``,
            ``re-roll-before-roll``, ``second-try``, ``further-range``, ``take-customer``,
            ``customer-not-in-display``, ``no-customer-to-take``, ``keep-or-discard``.
    """
    if state.is_over:
        raise _refuse("the game is over: no more actions", "game-over", GAME_END_SECTION)
    kind = type(action)
    if kind not in _PHASE_OF:
        raise _refuse(f"{action!r} is not a Sushi Express action", "unknown-action", PLAYING)
    seat = action.player
    if type(seat) is not int or not 0 <= seat < state.seats:
        raise _refuse(
            f"there is no seat {seat!r}: a seat is a whole number (int) from 0 to {state.seats - 1}",
            "unknown-seat",
            PLAYING,
        )
    name = state.players[seat]
    phase, section = _PHASE_OF[kind]
    if phase is not state.phase:
        raise _refuse(
            f"{name} cannot {_ACTION_NAMES[kind]} now: that belongs to phase '{phase}', this is phase '{state.phase}'",
            "wrong-phase",
            section,
            name,
        )
    if seat != state.current:
        whose = state.players[state.current]  # type: ignore[index]
        if isinstance(action, Exchange):
            # "On a player's turn, he can play as many action cards as he has" (THE ACTION CARDS).
            raise _refuse(
                f'{name} can play "place exchange" only in their own phase-1 turn; it is {whose}\'s turn',
                "not-your-turn",
                ACTION_CARDS,
                name,
            )
        raise _refuse(f"it is {whose}'s turn in phase '{state.phase}', not {name}'s", "not-your-turn", section, name)
    hand = state.hands[seat]
    if isinstance(action, Guess):
        _check_guess(state, action, name, hand)
    elif isinstance(action, Exchange):
        _check_exchange(state, action, name, hand)
    elif isinstance(action, EndTurn) and state.marker_number(seat) is None:
        raise _refuse(f"{name} must place a guess marker before ending the turn", "guess-first", PHASE_1, name)
    elif isinstance(action, Roll):
        _check_roll(state, action, name)
    elif isinstance(action, ReRoll):
        _check_re_roll(state, action, name, hand)
    elif isinstance(action, AcceptRoll):
        if state.tries < TRIES:
            raise _refuse(
                f"{name} has a second try: a player fails only after rolling lower twice", "second-try", PHASE_2, name
            )
    elif isinstance(action, Move):
        _check_move(state, action, name, hand)
    elif isinstance(action, Deliver) and type(action.keep) is not bool:
        raise _refuse(f"{name} must keep all or discard all of the display", "keep-or-discard", PHASE_4, name)


def _check_roll(state: SushiExpressState, action: Roll, name: str) -> None:
    faces = action.faces
    if faces is not None:
        if not isinstance(faces, tuple) or len(faces) != 2:
            raise _refuse(f"{name} must roll both dice: give 2 faces as a pair of ints 1 to 6, e.g. (3, 5), got"
                          f" {faces!r}", "die-faces", PHASE_2, name)
        _check_faces(faces, name, PHASE_2)
    if state.tries >= TRIES:
        raise _refuse(
            f'{name} has used both tries: play "re-roll" or accept the failed roll', "tries-used", PHASE_2, name
        )


def _check_re_roll(state: SushiExpressState, action: ReRoll, name: str, hand: tuple[ActionCard, ...]) -> None:
    if ActionCard.RE_ROLL not in hand:
        raise _refuse(f'{name} does not hold a "re-roll" card', "card-not-held", REROLL_SECTION, name)
    if state.dice is None:
        raise _refuse(
            f'{name} can play "re-roll" only after rolling lower than the guess',
            "re-roll-before-roll",
            REROLL_SECTION,
            name,
        )
    if type(action.die) is not int or action.die not in (0, 1):
        raise _refuse(f"{name} chose die {action.die!r}: the dice are 0 and 1 (ints)", "die-index", REROLL_SECTION,
                      name)
    if action.face is not None:
        _check_faces([action.face], name, REROLL_SECTION)


def _check_guess(state: SushiExpressState, action: Guess, name: str, hand: tuple[ActionCard, ...]) -> None:
    number = action.number
    placed = state.marker_number(action.player)
    if placed is not None:
        raise _refuse(f"{name} has already placed a guess marker on {placed} this round", "already-guessed",
                      PHASE_1, name)
    if type(action.same_guess) is not bool:
        raise _refuse(f'{name} must say whether "same guess" is played (True or False), got {action.same_guess!r}',
                      "same-guess-flag", SAME_GUESS_SECTION, name)
    if type(number) is not int or not LOWEST_GUESS <= number <= HIGHEST_GUESS:
        raise _refuse(f"{name} guessed {number!r}: a guess is a whole number (int) from 2 to 12", "guess-range",
                      PHASE_1, name)
    stack = state.stack(number)
    if action.same_guess:
        if ActionCard.SAME_GUESS not in hand:
            raise _refuse(f'{name} does not hold a "same guess" card', "card-not-held", SAME_GUESS_SECTION, name)
        if not stack:
            raise _refuse(f'{name} played "same guess" on {number}, which nobody has guessed', "same-guess-untaken",
                          SAME_GUESS_SECTION, name)
    elif stack:
        taken_by = state.players[stack[-1]]
        raise _refuse(
            f'{name} guessed {number}, which {taken_by} has already taken: that needs the "same guess" card',
            "number-taken",
            PHASE_1,
            name,
        )


def _check_exchange(state: SushiExpressState, action: Exchange, name: str, hand: tuple[ActionCard, ...]) -> None:
    if ActionCard.PLACE_EXCHANGE not in hand:
        raise _refuse(f'{name} does not hold a "place exchange" card', "card-not-held", EXCHANGE_SECTION, name)
    for number in (action.a, action.b):
        if type(number) is not int or not LOWEST_GUESS <= number <= HIGHEST_GUESS:
            raise _refuse(
                f"{name} named space {number!r}: the spaces are whole numbers (ints) 2 to 12",
                "guess-range",
                EXCHANGE_SECTION,
                name,
            )
    if abs(action.a - action.b) != 1:
        raise _refuse(
            f"{name} tried to exchange the markers on {action.a} and {action.b}: only neighbouring spaces",
            "exchange-not-neighbours",
            EXCHANGE_SECTION,
            name,
        )
    for number in (action.a, action.b):
        if not state.stack(number):
            raise _refuse(
                f"{name} tried to exchange with space {number}, which holds no guess marker",
                "exchange-empty-space",
                EXCHANGE_SECTION,
                name,
            )


def _check_move(state: SushiExpressState, action: Move, name: str, hand: tuple[ActionCard, ...]) -> None:
    further = action.further
    if type(further) is not int or further < 0:
        raise _refuse(f'{name} played {further!r} "1 tile further" cards: give how many, a whole number (int) 0 or'
                      " more", "further-range", FURTHER_SECTION, name)
    held = hand.count(ActionCard.TILE_FURTHER)
    if further > held:
        raise _refuse(
            f'{name} played {further} "1 tile further" cards but holds {held}', "card-not-held", FURTHER_SECTION, name
        )
    if action.take is not None and not isinstance(action.take, Customer):
        valid = ", ".join(c.value for c in Customer)
        raise _refuse(f"{name} named {action.take!r}, which is not a customer card; customers are: {valid}",
                      "customer-not-in-display", SUSHI_EXPRESS_SECTION, name)
    guess = state.guesses[action.player]
    assert guess is not None
    _, passed = van_path(state.vans, action.player, guess + further)
    if passed and state.display:
        if action.take is None:
            raise _refuse(f"{name} reaches Sushi Express and must take a customer card from the display",
                          "take-customer", SUSHI_EXPRESS_SECTION, name)
        if action.take not in state.display:
            raise _refuse(f"{name} cannot take {action.take.label}: it is not in the display",
                          "customer-not-in-display", SUSHI_EXPRESS_SECTION, name)
    elif action.take is not None:
        why = "the display is empty" if passed else "the van does not reach or pass Sushi Express"
        raise _refuse(f"{name} cannot take a customer card: {why}", "no-customer-to-take", SUSHI_EXPRESS_SECTION, name)


# --- Legal actions ------------------------------------------------------------------------------------


def legal_actions(state: SushiExpressState) -> tuple[Action, ...]:
    """Every action the current player may take now (empty once the game is over). In phase 1: a
    guess until the marker is placed, then :class:`EndTurn`; "place exchange" before or after placing
    while the player holds one (THE ACTION CARDS).

    Rolls are listed with ``faces=None`` (the engine rolls); the same roll with explicit faces
    1–6 is equally legal. Customers to take are listed once per kind in the display.
    """
    seat = state.current
    if seat is None:
        return ()
    hand = state.hands[seat]
    out: list[Action] = []
    if state.phase is Phase.GUESS:
        placed = state.marker_number(seat) is not None
        if not placed:
            for number in GUESS_NUMBERS:
                if not state.stack(number):
                    out.append(Guess(seat, number))
                elif ActionCard.SAME_GUESS in hand:
                    out.append(Guess(seat, number, same_guess=True))
        if ActionCard.PLACE_EXCHANGE in hand:
            out += [Exchange(seat, n, n + 1) for n in GUESS_NUMBERS[:-1] if state.stack(n) and state.stack(n + 1)]
        if placed:
            out.append(EndTurn(seat))
    elif state.phase is Phase.ROLL:
        if state.tries < TRIES:
            out.append(Roll(seat))
        if state.dice is not None and ActionCard.RE_ROLL in hand:
            out += [ReRoll(seat, 0), ReRoll(seat, 1)]
        if state.tries >= TRIES:
            out.append(AcceptRoll(seat))
    elif state.phase is Phase.MOVE:
        guess = state.guesses[seat]
        assert guess is not None
        kinds = [c for c in Customer if c in state.display]
        for further in range(hand.count(ActionCard.TILE_FURTHER) + 1):
            _, passed = van_path(state.vans, seat, guess + further)
            if passed and kinds:
                out += [Move(seat, further, kind) for kind in kinds]
            else:
                out.append(Move(seat, further))
    elif state.phase is Phase.DELIVER:
        out += [Deliver(seat, True), Deliver(seat, False)]
    return tuple(out)


# --- Applying actions ---------------------------------------------------------------------------------


def _remove(hand: tuple[ActionCard, ...], card: ActionCard, n: int = 1) -> tuple[ActionCard, ...]:
    rest = list(hand)
    for _ in range(n):
        rest.remove(card)
    return tuple(rest)


def _set(values: tuple, seat: int, value: object) -> tuple:
    out = list(values)
    out[seat] = value
    return tuple(out)


def _play(state: SushiExpressState, seat: int, card: ActionCard, n: int = 1) -> SushiExpressState:
    """``seat`` plays ``n`` copies of ``card``: they leave the game ("discarded from the game")."""
    if n == 0:
        return state
    return replace(
        state,
        hands=_set(state.hands, seat, _remove(state.hands[seat], card, n)),
        played_actions=state.played_actions + (card,) * n,
    )


def _draw_action(state: SushiExpressState, seat: int) -> SushiExpressState:
    """``seat`` takes the top action card, if the supply has one (THE ACTION CARDS: "When the action
    card supply is exhausted, players can no longer take action cards")."""
    if not state.action_supply:
        return state
    top, rest = state.action_supply[0], state.action_supply[1:]
    return replace(state, hands=_set(state.hands, seat, state.hands[seat] + (top,)), action_supply=rest)


def _remove_marker(board: tuple[tuple[int, ...], ...], seat: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(s for s in stack if s != seat) for stack in board)


def apply(state: SushiExpressState, action: Action, rng: random.Random | None = None) -> SushiExpressState:
    """The state after ``action``.

    ``rng`` rolls the dice of a ``Roll`` or ``ReRoll`` whose faces are None.

    Raises:
        IllegalAction: see :func:`check_action`; ``state`` is unchanged.
        ValueError: for a roll without faces and without ``rng`` (a caller's mistake, not a rule).
    """
    check_action(state, action)
    seat = action.player
    if isinstance(action, Guess):
        if action.same_guess:
            state = _play(state, seat, ActionCard.SAME_GUESS)
        i = action.number - LOWEST_GUESS
        return replace(state, board=_set(state.board, i, state.board[i] + (seat,)))
    if isinstance(action, EndTurn):
        state = replace(state, guess_turn=state.guess_turn + 1)
        if state.guess_turn == state.seats:
            # Phase 1 ends: the order of play is fixed now, highest first, stacks top to bottom.
            order = state.on_board()
            guesses = tuple(state.marker_number(s) for s in range(state.seats))
            state = replace(state, phase=Phase.ROLL, order=order, guesses=guesses, tries=0, dice=None)
        return state
    if isinstance(action, Exchange):
        state = _play(state, seat, ActionCard.PLACE_EXCHANGE)
        a, b = action.a - LOWEST_GUESS, action.b - LOWEST_GUESS
        board = list(state.board)
        board[a], board[b] = board[b], board[a]  # whole stacks, order inside kept
        return replace(state, board=tuple(board))
    if isinstance(action, Roll):
        faces = action.faces if action.faces is not None else (_die(rng), _die(rng))
        return _after_dice(replace(state, tries=state.tries + 1, dice=tuple(faces)))  # type: ignore[arg-type]
    if isinstance(action, ReRoll):
        face = action.face if action.face is not None else _die(rng)
        dice = list(state.dice)  # type: ignore[arg-type]
        dice[action.die] = face
        return _after_dice(replace(_play(state, seat, ActionCard.RE_ROLL), dice=tuple(dice)))  # type: ignore[arg-type]
    if isinstance(action, AcceptRoll):
        return _fail(state)
    if isinstance(action, Move):
        return _move(state, action)
    assert isinstance(action, Deliver)
    if not action.keep:
        state = replace(state, customer_discard=state.customer_discard + state.display, display=())
    return _refill(state)


def _die(rng: random.Random | None) -> int:
    if rng is None:
        raise ValueError("a roll without faces needs the rng argument to roll the dice")
    return rng.randint(1, 6)


def _after_dice(state: SushiExpressState) -> SushiExpressState:
    """Success ends phase 2 at once; a failed second try fails unless a re-roll could still save it."""
    roller = state.current
    assert roller is not None and state.dice is not None
    if sum(state.dice) >= state.guesses[roller]:  # type: ignore[operator]
        # "He and all other players who have not yet rolled may move": their markers are still on the board.
        return replace(state, phase=Phase.MOVE, anyone_moved=True)
    if state.tries >= TRIES and ActionCard.RE_ROLL not in state.hands[roller]:
        return _fail(state)
    return state


def _fail(state: SushiExpressState) -> SushiExpressState:
    """Two failed tries: take the top action card, remove the marker, the next highest guess rolls."""
    roller = state.current
    assert roller is not None
    state = _draw_action(state, roller)
    state = replace(state, board=_remove_marker(state.board, roller), tries=0, dice=None)
    if not state.on_board():
        return _enter_deliveries(state)  # everyone failed: straight to phase 4
    return state


def _move(state: SushiExpressState, action: Move) -> SushiExpressState:
    seat = action.player
    guess = state.guesses[seat]
    assert guess is not None
    state = _play(state, seat, ActionCard.TILE_FURTHER, action.further)
    tile, passed = van_path(state.vans, seat, guess + action.further)
    state = replace(
        state,
        vans=_set(state.vans, seat, tile),
        has_moved=_set(state.has_moved, seat, True),
        board=_remove_marker(state.board, seat),
    )
    if passed and action.take is not None:
        display = list(state.display)
        display.remove(action.take)
        state = replace(
            state,
            display=tuple(display),
            collected=_set(state.collected, seat, state.collected[seat] + (action.take,)),
        )
    if tile == PARK:
        state = _draw_action(state, seat)
    if not state.on_board():
        return _enter_deliveries(state)
    return state


def _enter_deliveries(state: SushiExpressState) -> SushiExpressState:
    """Phase 4 (4. make deliveries): the lowest guess decides only when somebody moved and the display
    still holds cards; when nobody moved the display is discarded without a choice."""
    state = replace(state, phase=Phase.DELIVER, tries=0, dice=None)
    if not state.anyone_moved:
        state = replace(state, customer_discard=state.customer_discard + state.display, display=())
        return _refill(state)
    if not state.display:
        return _refill(state)
    return state


def _refill(state: SushiExpressState) -> SushiExpressState:
    """Fill the display to one card per player, or end the game when the supply is too short
    (GAME END); the lowest guess starts the next round (1. place guesses, Note)."""
    need = state.seats - len(state.display)
    if len(state.customer_supply) < need:
        return end_game(state)
    return replace(
        state,
        display=state.display + state.customer_supply[:need],
        customer_supply=state.customer_supply[need:],
        round=state.round + 1,
        phase=Phase.GUESS,
        start_player=state.lowest,
        guess_turn=0,
        board=((),) * len(GUESS_NUMBERS),
        guesses=(None,) * state.seats,
        order=(),
        tries=0,
        dice=None,
        anyone_moved=False,
    )


def end_game(state: SushiExpressState) -> SushiExpressState:
    """``state`` scored and over (GAME END, SCORING): called when the display cannot be filled, and
    again by the table (:mod:`companion.rules.sushi_express.table`) once hidden tip cards are shown."""
    result = score_game(
        state.players,
        [Counter(cards) for cards in state.collected],
        [hand.count(ActionCard.TIP) for hand in state.hands],
        [state.actions_left(s) for s in range(state.seats)],
        state.options,
    )
    return replace(state, phase=Phase.OVER, result=result)


# --- Whole games --------------------------------------------------------------------------------------


def random_game(
    seed: int, players: int | Sequence[str] = 4, options: SushiExpressOptions | None = None
) -> SushiExpressState:
    """Play a whole game where every choice is a uniformly random legal action and every roll comes
    from ``random.Random(seed)``; return the final (scored) state. The same seed gives the same game.

    ``seed`` is an int; ``players`` is a count (an int, named from :data:`DEFAULT_NAMES`) or the names
    themselves (a list or tuple).

    Raises:
        ValueError: for a seed that is not an int, a bool or a string for ``players``, or the players
            :func:`new_game` refuses.
    """
    _whole(seed, "seed")
    if type(players) is int:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Sushi Express is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players} ({CONTENTS})")
        names = DEFAULT_NAMES[:players]
    elif isinstance(players, bool):
        raise ValueError(f"players must be a count (int) or a list of names, got bool {players!r}")
    else:
        names = _check_players(players)
    rng = random.Random(seed)
    state = new_game(names, rng, options)
    while not state.is_over:
        state = apply(state, rng.choice(legal_actions(state)), rng)
    return state


class SushiExpress:
    """The Sushi Express engine as a :class:`~companion.rules.core.Game`; dice rolled by the engine come
    from the injected ``rng``."""

    name = "sushi-express"

    def __init__(self, rng: random.Random) -> None:
        """Raises: ValueError when ``rng`` is not a ``random.Random``."""
        if not isinstance(rng, random.Random):
            raise ValueError(
                f"rng must be a random.Random (seed one: random.Random(seed)), got {type(rng).__name__} {rng!r}"
            )
        self.rng = rng

    def legal_actions(self, state: SushiExpressState) -> tuple[Action, ...]:
        """See :func:`legal_actions`."""
        return legal_actions(state)

    def apply(self, state: SushiExpressState, action: Action) -> SushiExpressState:
        """See :func:`apply`; rolls without faces use this engine's rng."""
        return apply(state, action, self.rng)

    def is_over(self, state: SushiExpressState) -> bool:
        """True once the game has been scored."""
        return state.is_over
