"""A pale card laid where the mat was bare is a card (companion.vision.table_cards, ``NOT_BARE_CHANGED``).

The sixth drawn deck (``airbrush``: one pale field for every type, no border) on a never-run game:
bench/sim_games.py seed 668, 3 players, round 3 turn 9. Ann lays a chopsticks at the end of her row of
nine pale cards. The window search found it there (0.92 against a 0.65 threshold), and 60 % of its
part of the mat had changed since the last accepted frame, but only 11 % differed from the estimate
of the bare mat (its paper is the mat's colour; its art is two thin sticks), so the "looks like bare
mat" test dropped it: "unknown", the turn refused. Checked against the game's truth.
"""

from __future__ import annotations

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("seed, players, until", [(668, 3, (3, 9))])
def test_every_turn_to_a_pale_card_laid_on_bare_mat_is_read_as_played(seed, players, until):
    from companion.app.table_game import TableGame
    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.sim.record import enroll_sim_deck

    options = SushiGoOptions(dummy=players == 2)
    names = list(NAMES[:players])
    game = TableGame(names, mat_for(players, options), enroll_sim_deck(style="airbrush"), options)
    last = None
    for st in simulate_game(names, seed, options, style="airbrush"):
        out = game.feed(st.frame.image)
        truth = {s: sorted(c.value for c in p.cards) for s, p in st.plays.items()}
        assert out.ok, (st.round, st.turn, out.message)
        assert {s: sorted(c.value for c in cs) for s, cs in out.plays.items()} == truth, (st.round, st.turn)
        last = st
        if (st.round, st.turn) == until:
            break
    assert (last.round, last.turn) == until
    # The turn this test is for: a chopsticks laid by the first seat (so it keeps testing it if the
    # simulator's game changes).
    assert "chopsticks" in truth[0], truth
