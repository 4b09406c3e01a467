"""Bots for Sushi Express at a simulated table (issue #11): they play a whole game with the rules engine
first (the truth: real shuffled decks, their guesses, rolls and choices), then act it out for the
companion: they throw the dice when the companion waits for a roll (the simulated camera's ``roller``)
and answer its questions on the panel with what they did (:meth:`ExpressBots.answer`).

The companion never sees the truth's decks: the bots tell it the customer cards they lay in the
display and, at the end, the tips among their hidden action cards, as players at a table would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from companion.app.express_prompts import (
    ACCEPT,
    ACCEPT_ITEM,
    CUSTOMER,
    DELIVER,
    DISPLAY,
    DONE_ITEM,
    END_TURN,
    EXCHANGE,
    EXCHANGE_ITEM,
    FURTHER,
    GUESS,
    SAME_GUESS,
    SAME_GUESS_ITEM,
    TIPS,
    WHICH_ROLL,
    Prompt,
)
from companion.rules.sushi_express.engine import apply, legal_actions, new_game
from companion.rules.sushi_express.state import (
    AcceptRoll,
    ActionCard,
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
        whether it waits for a roll); ``resting``: the dice at rest on the table (x, y, face)."""
        state = table.state
        if state.is_over or state.phase is not Phase.ROLL or getattr(table, "_draft", None) and table._draft.actions:
            return None
        i = self._index.get(_key(state))
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

    # ---- the panel -------------------------------------------------------------------------------
    def answer(self, prompt: Prompt, state) -> str | None:
        """The option the bots pick for ``prompt`` asked at the companion's ``state``; None when they
        would not answer it (a re-roll is thrown instead, or the moment is not in the truth)."""
        if prompt.kind == DISPLAY:
            # the deck is laid out and drawn from the top in order: the companion's counts say how far
            order = self.start.display + self.start.customer_supply
            named = len(order) - len(state.customer_supply) - state.unnamed
            return order[named + prompt.step[0] - 1].label
        if prompt.kind == TIPS:
            return str(self.final.hands[prompt.seat].count(ActionCard.TIP))
        step = self.step_at(state)
        if prompt.kind == ACCEPT:
            if step is not None and isinstance(step.action, ReRoll):
                return None  # the bot re-rolls a die on the table instead
            return ACCEPT_ITEM
        if step is None:
            return None
        action = step.action
        if prompt.kind == GUESS:
            if isinstance(action, Guess):
                return SAME_GUESS_ITEM if action.same_guess else str(action.number)
            if isinstance(action, Exchange):
                return EXCHANGE_ITEM
        if prompt.kind == SAME_GUESS and isinstance(action, Guess):
            return next(o for o, v in zip(prompt.options, prompt.values) if v == action)
        if prompt.kind == EXCHANGE and isinstance(action, Exchange):
            return next(o for o, v in zip(prompt.options, prompt.values) if v == action)
        if prompt.kind == END_TURN:
            return EXCHANGE_ITEM if isinstance(action, Exchange) else DONE_ITEM
        if prompt.kind == FURTHER and isinstance(action, Move):
            return next(o for o, v in zip(prompt.options, prompt.values) if v.further == action.further)
        if prompt.kind == CUSTOMER and isinstance(action, Move):
            return action.take.label if action.take is not None else None
        if prompt.kind == WHICH_ROLL:
            kind = ReRoll if isinstance(action, ReRoll) else Roll
            return next(o for o, v in zip(prompt.options, prompt.values) if isinstance(v[0], kind))
        if prompt.kind == DELIVER and isinstance(action, Deliver):
            return prompt.options[0 if action.keep else 1]
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
        state = self.table.state
        if state.is_over or state.phase is not Phase.ROLL or self.table.prompt() is not None:
            return None
        moment = (state.round, state.current, state.tries)
        if moment == self._done:
            self._waits += 1  # thrown for this try: wait for the companion, then throw again
            if self._waits < RETHROW_AFTER:
                return None
        self._done, self._waits = moment, 0
        return ("throw", (self.rng.randint(1, 6), self.rng.randint(1, 6)))
