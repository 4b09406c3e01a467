"""Pure rules engines for the Sushi Go! family: no I/O, no cv2, no numpy, no pygame.

Game-independent: ``errors`` (RuleError, IllegalAction, MalformedGame), ``core`` (Game protocol,
ScoreLine, RoundScore, GameResult), ``ranking`` (most/second awards with tie policies).
Sushi Go!: ``cards``, ``sushi_go_state`` (options, Play, state), ``sushi_go`` (engine),
``sushi_go_scoring``, ``sushi_go_record`` (the ``companion score`` record format).
"""
