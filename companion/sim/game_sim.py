"""A whole simulated Sushi Go! game: bots play it in the rules engine, and every reveal is rendered
as the overhead camera would see it. Used by ``companion demo`` and to record test fixtures.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from companion.rules.sushi_go import apply, legal_plays, new_game
from companion.rules.sushi_go.state import Play, SushiGoOptions, SushiGoState
from companion.sim.scene import TableScene
from companion.sim.table import RenderedFrame, ShotConditions, render_table
from companion.vision.mat_layout import MatLayout, load_mat_layout

#: Default names, seat order.
NAMES = ("Ann", "Bo", "Cy", "Di", "Ed")


@dataclass
class SimTurn:
    """One reveal: the truth after it, the plays that made it, and the rendered frame."""

    round: int
    turn: int
    plays: dict[int, Play]
    truth: SushiGoState
    frame: RenderedFrame


def choose_play(rng: random.Random, plays: Sequence[Play]) -> Play:
    """A simple bot: a random legal play, using chopsticks a third of the time when it can.

    The bias keeps chopsticks turns common enough to show up in every demo.
    """
    doubles = [p for p in plays if len(p.cards) == 2]
    singles = [p for p in plays if len(p.cards) == 1]
    if doubles and (not singles or rng.random() < 1 / 3):
        return rng.choice(doubles)
    return rng.choice(singles)


def mat_for(players: int, options: SushiGoOptions) -> MatLayout:
    """The mat a game uses: one zone per seat; the dummy variant uses the 3-seat mat (dummy in zone 3)."""
    return load_mat_layout(3 if options.dummy else players)


def simulate_game(
    players: Sequence[str],
    seed: int,
    options: SushiGoOptions | None = None,
    size: tuple[int, int] = (1280, 960),
    style: str = "flat",
) -> Iterator[SimTurn]:
    """Play a game with bots and yield every reveal, rendered.

    The camera and light are drawn once per game (a camera does not move mid-game); noise differs
    per frame. The same seed gives the same game and the same frames.

    Args:
        players: real players' names in seat order (2–5; exactly 2 with the dummy variant).
        seed: seeds the deal, the bots and the rendering.
        options: Sushi Go! options.
        size: frame size (W, H) px.
        style: the card faces' style (``companion.sim.faces.STYLES``); the game and the camera
            noise do not depend on it, so one seed gives the same game in every style.

    Raises:
        ValueError: as ``new_game`` for a bad player list; an unknown style (on the first frame).
    """
    options = options or SushiGoOptions()
    layout = mat_for(len(players), options)
    deal_rng = random.Random(seed)
    bot_rng = random.Random(seed + 1)
    pix_rng = np.random.default_rng(seed)
    state = new_game(players, deal_rng, options)
    scene = TableScene(layout, pix_rng)
    conditions = ShotConditions.random(pix_rng)
    while not state.is_over:
        before = state
        plays: dict[int, Play] = {}
        # One seat at a time: in the dummy variant the controller and the dummy share one hand.
        for seat in before.waiting_for():
            plays[seat] = choose_play(bot_rng, legal_plays(state, seat))
            state = apply(state, plays[seat])
        round_ended = state.is_over or state.round != before.round
        shown = state.round_tableaux[-1] if round_ended else state.tableaux
        scene.sync(shown, before.puddings if round_ended else state.puddings)
        frame = render_table(layout, scene.placements(), size=size, rng=pix_rng, conditions=conditions, style=style)
        yield SimTurn(before.round, before.turn, plays, state, frame)
        if round_ended:
            scene.end_round()
