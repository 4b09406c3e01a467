"""Exceptions raised by the rules engines.

Every refusal names who broke which rule and where the rulebook says so, so that the display, the
CLI and the logs can show the same one-line explanation, e.g.
``Bo took 2 cards without chopsticks: no chopsticks card was in front of Bo before this turn
(sushi-go.txt, USING CHOPSTICKS)``.
"""

from __future__ import annotations


class RuleError(Exception):
    """A rule of the game was broken.

    Attributes:
        message: the human explanation, without the rulebook reference.
        player: the name of the player who broke the rule, or None when it is nobody's move.
        rule: a short stable identifier for the rule (e.g. ``"chopsticks-needed"``), for tests and logs.
        section: the rulebook file and section, e.g. ``"sushi-go.txt, USING CHOPSTICKS"``.
    """

    def __init__(self, message: str, *, rule: str, section: str, player: str | None = None) -> None:
        self.message = message
        self.player = player
        self.rule = rule
        self.section = section
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.message} ({self.section})"


class IllegalAction(RuleError):
    """An action that the rules do not allow in the current state.

    Engines raise it before building any new state, so the state passed in stays valid and unchanged.
    """


class MalformedGame(ValueError):
    """A game record (e.g. the ``companion score`` input) that cannot be read or replayed.

    Attributes:
        path: where the problem is, as a field path such as ``rounds[1].Bo[3]`` ("" for the whole record).
        problem: what is wrong there.
        rule_error: the RuleError when the record is well formed but an action in it is illegal, else None.
    """

    def __init__(self, path: str, problem: str, *, rule_error: RuleError | None = None) -> None:
        self.path = path
        self.problem = problem
        self.rule_error = rule_error
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}" if self.path else self.problem
