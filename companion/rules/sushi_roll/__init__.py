"""Sushi Roll (icon dice): ``dice`` (dice, faces, tokens; the faces are package data in
``companion/data/sushi_roll_dice.toml``, read once like an import), ``state``, ``engine`` (set up, menu,
chopsticks, keep, slide and roll), ``scoring``, ``record`` (the ``companion score`` record format).

Source: ../shared/rules/sushi-roll.txt. The package re-exports the engine's ``__all__`` (what
``companion.rules.sushi_roll`` exported when it was one module).
"""

from companion.rules.sushi_roll.engine import (
    Chopsticks,
    Menu,
    Roll,
    SushiRoll,
    SushiRollOptions,
    SushiRollState,
    Take,
    Tray,
    apply,
    check,
    legal_actions,
    new_game,
    random_action,
    random_game,
    replay,
)

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
