"""Sushi Roll (icon dice): ``dice`` (dice, faces, tokens; the faces are package data in
``companion/data/sushi_roll_dice.toml``, read once like an import), ``change`` (making change with token
money, for every payout), ``state``, ``engine`` (set up, menu, chopsticks, keep, slide and roll),
``scoring``, ``record`` (the ``companion score`` record format).

Source: ../shared/rules/sushi-roll.txt. The package re-exports the engine's ``__all__`` (what
``companion.rules.sushi_roll`` exported when it was one module).
"""

from companion.rules.sushi_roll.engine import *  # noqa: F401,F403 - the engine's __all__ is the package's
from companion.rules.sushi_roll.engine import __all__  # noqa: F401
