"""Sushi Go! (the card game): ``cards`` (the 108-card vocabulary, also vision's labels), ``state``
(options, Play, state), ``engine`` (setup, legal plays, turns, rounds), ``scoring`` (rounds and puddings),
``record`` (the ``companion score`` record format).

Source: ../shared/rules/sushi-go.txt and sushi-go-with-variants.txt. The package re-exports the engine's
public names (what ``companion.rules.sushi_go`` held when it was one module), so
``from companion.rules.sushi_go import apply, legal_plays, new_game`` reads as before.
"""

from companion.rules.sushi_go.engine import *  # noqa: F401,F403 - the engine's __all__ is the package's
from companion.rules.sushi_go.engine import __all__  # noqa: F401
