"""Pure rules engines for the Sushi Go! family: no I/O, no cv2, no numpy, no pygame.

The shared core, used by every game: ``errors`` (RuleError, IllegalAction, MalformedGame), ``core``
(Game protocol, ScoreLine, RoundScore, GameResult), ``ranking`` (most/second awards with tie policies),
``records`` (reading a ``companion score`` JSON record safely), ``score_table`` (the text score table),
``wording`` (names and plurals in breakdown lines).

One subpackage per game, each with ``engine`` (setup, legal actions, apply), ``state`` (options, actions,
state), ``scoring`` and ``record`` (the ``companion score`` record format); the package itself re-exports
its engine's public names (``from companion.rules.sushi_go import apply, legal_plays, new_game``):

* ``sushi_go/``: Sushi Go!, plus ``cards`` (the card vocabulary, which vision and the simulator use too).
* ``sushi_roll/``: Sushi Roll, plus ``dice`` (dice, faces, tokens; the faces are package data in
  ``companion/data/sushi_roll_dice.toml``, read once like an import).
* ``sushi_express/``: Sushi Express.

A game package imports the shared core and itself, never another game's package
(tests/test_rules_layout.py checks it).
"""
