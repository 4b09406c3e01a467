"""Sushi Express (two d6, customers and vans): ``state``, ``engine`` (the four phases of a round),
``scoring`` (colours and tips), ``record`` (the ``companion score`` record format).

Source: ../shared/rules/sushi-express.txt. The package re-exports the engine's public names (what
``companion.rules.sushi_express`` held when it was one module).
"""

from companion.rules.sushi_express.engine import *  # noqa: F401,F403 - the engine's __all__ is the package's
from companion.rules.sushi_express.engine import __all__  # noqa: F401
