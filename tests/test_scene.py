"""The simulated table keeps every card where it was put, as players do."""

import numpy as np

from companion.rules.sushi_go.cards import Card
from companion.rules.sushi_go.state import Placed
from companion.sim.scene import TableScene
from companion.vision.mat_layout import load_mat_layout


def _scene():
    return TableScene(load_mat_layout(2), np.random.default_rng(0))


def _where(scene):
    return {(p.label, p.center_mm) for p in scene.placements()}


def test_cards_stay_put_when_chopsticks_leave():
    scene = _scene()
    t1 = (Placed(Card.TEMPURA, 1), Placed(Card.CHOPSTICKS, 2), Placed(Card.DUMPLING, 3))
    scene.sync([t1, ()], [0, 0])
    before = {p.label: p.center_mm for p in scene.placements()}
    t2 = (Placed(Card.TEMPURA, 1), Placed(Card.DUMPLING, 3), Placed(Card.SASHIMI, 4), Placed(Card.EGG_NIGIRI, 4))
    scene.sync([t2, ()], [0, 0])
    after = {p.label: p.center_mm for p in scene.placements()}
    assert after["tempura"] == before["tempura"] and after["dumpling"] == before["dumpling"]
    # new cards go beside the others, not into the place the chopsticks just left
    assert before["chopsticks"] not in {after["sashimi"], after["egg_nigiri"]}


def test_nigiri_lies_on_its_wasabi_and_is_drawn_after_it():
    scene = _scene()
    scene.sync([(Placed(Card.WASABI, 1, Card.SQUID_NIGIRI, 2),), ()], [0, 0])
    wasabi, squid = scene.placements()
    assert (wasabi.label, squid.label) == ("wasabi", "squid_nigiri")
    assert wasabi.center_mm == squid.center_mm


def test_round_end_keeps_only_the_puddings_in_place():
    scene = _scene()
    scene.sync([(Placed(Card.TEMPURA, 1), Placed(Card.PUDDING, 2)), ()], [0, 0])
    pudding_at = next(p.center_mm for p in scene.placements() if p.label == "pudding")
    scene.end_round()
    assert [(p.label, p.center_mm) for p in scene.placements()] == [("pudding", pudding_at)]
    scene.sync([(Placed(Card.SASHIMI, 1),), ()], [1, 0])
    assert ("pudding", pudding_at) in _where(scene)
    assert len(scene.placements()) == 2
