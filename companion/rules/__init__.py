"""Pure rules engines for the Sushi Go! family: no I/O, no cv2, no numpy, no pygame.

Game-independent: ``errors`` (RuleError, IllegalAction, MalformedGame), ``core`` (Game protocol,
ScoreLine, RoundScore, GameResult), ``ranking`` (most/second awards with tie policies).
Sushi Go!: ``cards``, ``sushi_go_state`` (options, Play, state), ``sushi_go`` (engine),
``sushi_go_scoring``, ``sushi_go_record`` (the ``companion score`` record format).
Sushi Roll: ``sushi_roll_dice`` (dice, faces, tokens; the faces are package data in
``companion/data/sushi_roll_dice.toml``, read once like an import), ``sushi_roll_state``, ``sushi_roll``
(engine), ``sushi_roll_scoring``, ``sushi_roll_record``.
Sushi Express: ``sushi_express_state``, ``sushi_express`` (engine), ``sushi_express_scoring``,
``sushi_express_record``.
"""
