"""companion: a Raspberry Pi tabletop companion for the Sushi Go! family.

Layers (imports flow one way): ``app`` → ``devices``, ``vision`` → ``rules``.
``rules`` is pure: no I/O, no cv2, no pygame.
"""

__version__ = "0.1.0"
