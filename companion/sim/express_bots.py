"""Bots for Sushi Express at a simulated table (issue #11): they play a whole game with the rules engine
first (the truth: real shuffled decks, their guesses, rolls and choices), then act it out for the
companion: they throw the dice when the companion waits for a roll (the simulated camera's ``roller``)
and answer its questions on the panel with what they did.

The companion never sees the truth's decks: the bots tell it the customer cards they lay in the
display and, at the end, the tips among their hidden action cards, as players at a table would
(their answers on the panel: :func:`companion.app.cmd_demo_express.truthful_answer`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from companion.rules.sushi_express.engine import apply, legal_actions, new_game
from companion.rules.sushi_express.state import (
    AcceptRoll,
    EndTurn,
    Guess,
    Phase,
    ReRoll,
    Roll,
    SushiExpressOptions,
    SushiExpressState,
)


#: Still frames a bot waits after a throw the companion did not take before throwing again.
RETHROW_AFTER = 45


def _key(state) -> tuple:
    """What the companion and the truth agree on at the same moment of the game (the companion's
    hidden cards are placeholders, and it reads the dice left to right: so counts and sorted faces)."""
    return (state.round, state.phase, state.guess_turn, state.board, state.tries,
            None if state.dice is None else tuple(sorted(state.dice)), state.vans, state.collected,
            state.display, tuple(len(h) for h in state.hands))


def _choose(state: SushiExpressState, rng: random.Random):
    """A bot's action: mostly plain guesses and turns ended, sometimes a card played."""
    acts = legal_actions(state)
    if state.phase is Phase.GUESS:
        plain = [a for a in acts if isinstance(a, Guess) and not a.same_guess]
        if plain and rng.random() < 0.85:
            return rng.choice(plain)
        ends = [a for a in acts if isinstance(a, EndTurn)]
        if ends and rng.random() < 0.85:
            return ends[0]
    if state.phase is Phase.ROLL:
        rolls = [a for a in acts if isinstance(a, Roll)]
        rerolls = [a for a in acts if isinstance(a, ReRoll)]
        if rerolls and rng.random() < 0.6:
            a = rng.choice(rerolls)
            return ReRoll(a.player, a.die, rng.randint(1, 6))
        if rolls:
            return Roll(rolls[0].player, (rng.randint(1, 6), rng.randint(1, 6)))
        return next(a for a in acts if isinstance(a, AcceptRoll))
    if state.phase is Phase.MOVE:
        plain = [a for a in acts if a.further == 0]
        return rng.choice(plain if rng.random() < 0.7 else list(acts))
    return rng.choice(acts)


@dataclass(frozen=True)
class TruthStep:
    """One action of the truth, the state before it, and the state after it."""

    before: SushiExpressState
    action: object
    after: SushiExpressState


class ExpressBots:
    """A whole Sushi Express game played by bots (the truth), and how they act it out.

    Args:
        players: 3 to 6 names. seed: the shuffles, the bots and the dice.
        options: the engine's options.
    """

    def __init__(self, players: Sequence[str], seed: int, options: SushiExpressOptions | None = None) -> None:
        rng = random.Random(seed)
        state = new_game(list(players), rng, options)
        self.start = state
        self.steps: list[TruthStep] = []
        while not state.is_over:
            action = _choose(state, rng)
            after = apply(state, action)
            self.steps.append(TruthStep(state, action, after))
            state = after
        self.final = state
        self._index: dict[tuple, int] = {}
        for i, step in enumerate(self.steps):
            self._index.setdefault(_key(step.before), i)
        self._thrown: set[int] = set()
        self._waits: dict[int, int] = {}

    def step_at(self, state) -> TruthStep | None:
        """The truth's step from the moment ``state`` (the companion's) shows, or None."""
        i = self._index.get(_key(state))
        return None if i is None else self.steps[i]

    # ---- the dice --------------------------------------------------------------------------------
    def roll(self, table, resting: Sequence[tuple[float, float, int]]):
        """What the roller does now (the simulated camera's ``roller``): ``("throw", (a, b))``,
        ``("reroll", die, face)`` or None. ``table``: the companion's table reader (its state and
        ``awaiting_throw``); ``resting``: the dice at rest on the table (x, y, face)."""
        if not table.awaiting_throw:
            return None
        i = self._index.get(_key(table.state))
        if i is None:
            return None
        if i in self._thrown:
            # thrown already: once the table has lain still a while at the same moment, the throw was
            # not read (a die cocked, the companion asked to roll again): throw it again
            self._waits[i] = self._waits.get(i, 0) + 1
            if self._waits[i] < RETHROW_AFTER:
                return None
            self._waits[i] = 0
        action = self.steps[i].action
        if isinstance(action, Roll):
            self._thrown.add(i)
            return ("throw", tuple(action.faces))
        if isinstance(action, ReRoll):
            self._thrown.add(i)
            old = self.steps[i].before.dice[action.die]
            die = next((j for j, r in enumerate(resting) if r[2] == old), 0)
            return ("reroll", die, action.face)
        return None


class RandomRoller:
    """The simulated camera's ``roller`` for ``companion play --game sushi-express --camera sim``: a hand
    that throws both dice (faces from ``seed``) whenever the table waits for a roll, once per try; the
    players do everything else on the panel. It never plays "re-roll" (a player who holds one says so
    on the panel when asked, and takes the action card instead)."""

    def __init__(self, table, seed: int) -> None:
        self.table = table
        self.rng = random.Random(seed)
        self._done: tuple | None = None
        self._waits = 0

    def __call__(self):
        if not self.table.awaiting_throw or self.table.prompt() is not None:
            return None  # a question on the panel: the players answer it (re-roll cards, or the action card)
        state = self.table.state
        moment = (state.round, state.current, state.tries)
        if moment == self._done:
            self._waits += 1  # thrown for this try: wait for the companion, then throw again
            if self._waits < RETHROW_AFTER:
                return None
        self._done, self._waits = moment, 0
        return ("throw", (self.rng.randint(1, 6), self.rng.randint(1, 6)))
