"""Sushi Express at the table (issue #11): the table reader's phases driven by the panel and by the
dice the camera reads, checked against whole games the bots played with the rules engine.

The camera is faked here (dice as the reader reports them: a face and a top-face quad in px), so
these tests run in milliseconds; tests/test_express_play.py reads rendered frames.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion.app.cmd_demo_express import truthful_answer
from companion.app.express_game import ExpressLook, ExpressTableGame, Laid
from companion.app.express_prompts import DISPLAY, GUESS
from companion.app.table_game import AMBIGUOUS, APPLIED, ILLEGAL, UNREADABLE, WAITING
from companion.rules.sushi_express.state import ActionCard, Phase, Roll
from companion.sim.express_bots import ExpressBots
from companion.vision.observations import DieObservation

NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")


def die(x: float, y: float, face: int | None, side: float = 50.0) -> DieObservation:
    h = side / 2
    quad = ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))
    return DieObservation(None if face is None else str(face), 0.9, quad)


class FakeTable:
    """Two dice on a table: a throw lands them at new places."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.dice = [(300.0, 700.0, 3), (420.0, 700.0, 5)]

    def spot(self, other=None):
        while True:
            x, y = self.rng.uniform(100, 1100), self.rng.uniform(100, 800)
            if other is None or abs(x - other[0]) + abs(y - other[1]) > 150:
                return x, y

    def act(self, what) -> None:
        if what[0] == "throw":
            a = self.spot()
            b = self.spot(a)
            self.dice = [(*a, what[1][0]), (*b, what[1][1])]
        else:
            _, j, face = what
            other = self.dice[1 - j]
            self.dice[j] = (*self.spot(other), face)

    def look(self) -> ExpressLook:
        ordered = sorted(self.dice)
        return ExpressLook(tuple(die(x, y, f) for x, y, f in ordered))


def play_through(seed: int, players: int):
    """Run the companion's table reader over the bots' game; (bots, table, outcomes)."""
    bots = ExpressBots(NAMES[:players], seed)
    table = ExpressTableGame(NAMES[:players])
    cam = FakeTable(seed)
    outcomes = []
    for _ in range(5000):
        if table.state.is_over:
            break
        out = table.feed(None, look=cam.look())
        outcomes.append(out)
        if out.kind == AMBIGUOUS:
            label = truthful_answer(bots, out.question.detail, table.state)
            if label is not None:
                table.answer(out.question.seat, label)
                continue
        if out.kind in (WAITING, AMBIGUOUS):
            what = bots.roll(table, cam.dice)
            assert what is not None, f"stalled: {out.message}"
            cam.act(what)
        elif out.kind != APPLIED:
            raise AssertionError(f"{out.kind}: {out.message}")
    return bots, table, outcomes


@pytest.mark.parametrize("seed,players", [(1, 3), (2, 4), (3, 5), (4, 6), (5, 4), (6, 3), (7, 4), (8, 5)])
def test_whole_games_score_as_the_bots_played(seed, players):
    bots, table, outcomes = play_through(seed, players)
    assert table.state.is_over
    truth, read = bots.final.result, table.state.result
    assert read.totals == truth.totals
    assert read.winners == truth.winners
    assert table.state.collected == bots.final.collected
    assert table.state.vans == bots.final.vans
    # every roll the bots made was read from the (fake) camera, none typed in
    rolls = [a for step in bots.steps for a in [step.action] if isinstance(a, Roll)]
    applied_rolls = [p for o in outcomes if o.kind == APPLIED for ps in o.plays.values() for p in ps
                     if isinstance(p, Roll)]
    assert len(applied_rolls) == len(rolls)


def test_the_display_is_laid_out_first_then_the_first_player_guesses():
    table = ExpressTableGame(NAMES[:3])
    out = table.feed(None)
    assert out.kind == AMBIGUOUS and out.question.detail.kind == DISPLAY
    for label in ("rose", "tip", "rose"):
        table.answer(table.state.current, label)
        out = table.feed(None)
    assert out.kind == APPLIED and isinstance(out.plays[0][0], Laid)
    assert [str(c) for c in table.state.display] == ["rose", "tip", "rose"]
    out = table.feed(None)
    assert out.kind == AMBIGUOUS and out.question.detail.kind == GUESS and out.question.seat == 0


def test_a_third_rose_is_refused_and_changes_nothing():
    table = ExpressTableGame(NAMES[:3])
    table.feed(None)
    for label in ("rose", "rose"):
        table.answer(0, label)
        table.feed(None)
    out = table.feed(None)
    # the deck holds only 2 rose cards: the third card's question no longer offers rose
    assert "rose" not in out.question.options
    assert not table.state.display_known


def _to_rolls(table: ExpressTableGame, guesses=(8, 5, 3)) -> None:
    table.feed(None)
    for label in ("light blue", "dark blue", "tip"):
        table.answer(table.state.current, label)
        table.feed(None)
    for g in guesses:
        out = table.feed(None)
        table.answer(out.question.seat, str(g))
        out = table.feed(None)
        assert out.kind == APPLIED, out.message
    assert table.state.phase is Phase.ROLL


def test_dice_are_read_only_when_both_moved_and_two_readable():
    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table)
    rest = (die(300, 700, 3), die(420, 700, 5))
    out = table.feed(None, look=ExpressLook(rest))
    assert out.kind == WAITING and "Ann rolls" in out.message  # the dice at rest are not a roll
    assert table.feed(None, look=ExpressLook(())).kind == WAITING  # picked up
    for dice, why in [((die(100, 100, 6),), "one die"), ((die(100, 100, 6), die(300, 300, 2), die(500, 500, 1)), "3 dice"),
                      ((die(100, 100, None), die(300, 300, 2)), "cocked")]:
        out = table.feed(None, look=ExpressLook(dice))
        assert out.kind == UNREADABLE and why in out.message
        assert table.state.tries == 0
    out = table.feed(None, look=ExpressLook((die(100, 100, 6), die(600, 300, 2))))
    assert out.kind == APPLIED and out.plays[0][0] == Roll(0, (6, 2))  # 8 = Ann's guess: she moves
    assert table.state.phase is Phase.MOVE


def test_a_failed_try_then_a_second_and_the_failure_deals_a_hidden_card():
    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    out = table.feed(None, look=ExpressLook((die(100, 100, 1), die(600, 300, 2))))
    assert out.kind == APPLIED and table.state.tries == 1
    out = table.feed(None, look=ExpressLook((die(100, 100, 1), die(600, 300, 2))))
    assert out.kind == WAITING and "try 2 of 2" in out.message
    out = table.feed(None, look=ExpressLook((die(800, 100, 4), die(200, 500, 2))))
    assert out.kind == APPLIED
    # Ann held no re-roll (her two cards of the start are seen): she fails, takes a card face down
    assert table.state.current == 1 and table.state.hidden(0) == 1


def test_one_die_moved_without_a_re_roll_card_is_the_second_try():
    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    table.feed(None, look=ExpressLook((die(100, 100, 1), die(600, 300, 2))))
    out = table.feed(None, look=ExpressLook((die(100, 100, 1), die(900, 600, 6))))  # the 1 landed where it lay
    # Ann cannot hold "re-roll" (her cards are all seen): both dice were thrown, her second try
    assert out.kind == APPLIED and out.plays[0][0] == Roll(0, (1, 6))
    assert table.state.current == 1


def test_one_die_moved_is_asked_when_a_hidden_re_roll_may_explain_it():
    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    s = table.state  # Ann took a card face down earlier (the top of the supply, a tip placeholder)
    table.state = replace(s, hands=(s.hands[0] + (s.action_supply[0],),) + s.hands[1:],
                          unseen=((s.action_supply[0],),) + s.unseen[1:], action_supply=s.action_supply[1:])
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    table.feed(None, look=ExpressLook((die(100, 100, 1), die(600, 300, 2))))  # Ann's first try: 3 < 12
    out = table.feed(None, look=ExpressLook((die(100, 100, 1), die(900, 600, 6))))
    assert out.kind == AMBIGUOUS
    prompt = out.question.detail
    assert prompt.kind == "which_roll" and prompt.seat == 0
    table.answer(0, prompt.options[0])  # re-rolled the 2 with a re-roll card
    out = table.feed(None, look=ExpressLook((die(100, 100, 1), die(900, 600, 6))))
    assert out.kind == APPLIED and table.state.dice == (1, 6) and table.state.tries == 1
    assert table.state.played_actions == (ActionCard.RE_ROLL,) and table.state.hidden(0) == 0


def test_the_same_answer_twice_is_taken_twice_only_when_given_twice():
    table = ExpressTableGame(NAMES[:3])
    table.feed(None)
    table.answer(0, "light blue")
    table.feed(None)
    table.feed(None)  # read again without a new answer: nothing more is laid
    out = table.feed(None)
    assert out.question.detail.step == (2, 3)


def test_the_journal_rebuilds_the_game_and_exports_a_record_that_scores_the_same():
    import json
    from types import SimpleNamespace

    from companion.app.games import adapter
    from companion.rules.sushi_express.record import score_sushi_express_record

    game = adapter("sushi-express")
    bots, table, outcomes = play_through(4, 4)
    events = []
    for o in outcomes:
        if o.kind == APPLIED:
            payload = json.loads(json.dumps(game.turn_payload(o.round, o.turn, o.plays)))  # as the journal stores it
            events.append(SimpleNamespace(kind="turn", payload=payload, seq=len(events) + 1))
    rebuilt = game.rebuild_turns(list(NAMES[:4]), {}, events)
    assert rebuilt.state.result.totals == table.state.result.totals
    assert len(rebuilt.turns) == len(events)
    record = game.record(list(NAMES[:4]), {}, events)
    assert score_sushi_express_record(record).totals == bots.final.result.totals
    # an undo takes back the last step: the game is not over any more
    undone = game.rebuild(list(NAMES[:4]), {}, events + [SimpleNamespace(kind="undo", payload={"turns": 1}, seq=0)])
    assert not undone.is_over


def test_place_exchange_is_offered_to_a_holder_and_swaps_the_stacks():
    from companion.rules.sushi_express.state import SushiExpressOptions

    table = ExpressTableGame(NAMES[:3], SushiExpressOptions(first_player=1))  # Bo, Cy, then Ann
    table.feed(None)
    for label in ("light blue", "dark blue", "tip"):
        table.answer(1, label)
        table.feed(None)
    s = table.state  # Ann holds a card she took face down earlier (the supply's top, a placeholder)
    table.state = replace(s, hands=(s.hands[0] + (s.action_supply[0],),) + s.hands[1:],
                          unseen=((s.action_supply[0],),) + s.unseen[1:], action_supply=s.action_supply[1:])
    for seat, number in ((1, "5"), (2, "6")):
        out = table.feed(None)
        assert out.question.seat == seat and "place exchange…" not in out.question.options  # cards all seen
        table.answer(seat, number)
        assert table.feed(None).kind == APPLIED
    out = table.feed(None)
    assert "place exchange…" in out.question.options  # her hidden card may be one
    table.answer(0, "9")
    out = table.feed(None)  # placed: she may still exchange, so her turn does not end yet
    assert out.kind == APPLIED and table.state.marker_number(0) == 9 and table.state.guess_turn == 2
    out = table.feed(None)
    assert out.question.detail.kind == "end_turn"
    table.answer(0, "place exchange…")
    out = table.feed(None)
    assert out.question.options == ("5 ↔ 6", "◀ back")
    table.answer(0, "5 ↔ 6")
    out = table.feed(None)
    assert out.kind == APPLIED
    assert table.state.stack(5) == (2,) and table.state.stack(6) == (1,)  # Cy on 5, Bo on 6
    assert table.state.played_actions == (ActionCard.PLACE_EXCHANGE,) and table.state.hidden(0) == 0
    exchanged = table.state
    assert table.feed(None).kind == APPLIED  # nothing left to play: her turn ends, phase 1 with it
    assert table.state.phase is Phase.ROLL and table.state.order == (0, 1, 2)
    # UNDO of that end of turn: it is not applied again at once, but shown and waits for OK, so a
    # second UNDO could take back the exchange
    table.undone()
    table.resync(None, exchanged, look=ExpressLook(()))
    out = table.feed(None)
    assert out.kind == AMBIGUOUS and out.question.detail.kind == "confirm"
    assert table.state == exchanged
    table.answer(0, out.question.options[0])
    assert table.feed(None).kind == APPLIED and table.state.phase is Phase.ROLL


def test_undo_takes_a_roll_back_and_the_next_throw_is_judged_from_the_table_as_it_is():
    table, before = ExpressTableGame(NAMES[:3]), ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    _to_rolls(before, guesses=(12, 5, 3))
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    out = table.feed(None, look=ExpressLook((die(100, 100, 1), die(600, 300, 2))))
    assert out.kind == APPLIED and table.state.tries == 1
    # UNDO: the game rebuilt from the journal without the roll is adopted as the table shows it
    synced = table.resync(None, before.state, look=ExpressLook((die(100, 100, 1), die(600, 300, 2))))
    assert synced.kind == "synced" and table.state.tries == 0 and table.state.dice is None
    # the dice lying as they fell are the reference now: the same sight is no new roll
    assert table.feed(None, look=ExpressLook((die(100, 100, 1), die(600, 300, 2)))).kind == WAITING
    out = table.feed(None, look=ExpressLook((die(800, 100, 6), die(200, 500, 6))))
    assert out.kind == APPLIED and out.plays[0][0] == Roll(0, (6, 6)) and table.state.phase is Phase.MOVE


def _with_hidden(table: ExpressTableGame, seat: int, cards) -> None:
    """``seat`` took ``cards`` face down earlier (moved from the action supply)."""
    s = table.state
    supply = list(s.action_supply)
    for c in cards:
        supply.remove(c)
    hands = list(s.hands)
    hands[seat] = hands[seat] + tuple(cards)
    unseen = list(s.unseen)
    unseen[seat] = unseen[seat] + tuple(cards)
    table.state = replace(s, hands=tuple(hands), unseen=tuple(unseen), action_supply=tuple(supply))


def test_a_re_roll_is_refused_when_the_die_left_lying_is_not_from_the_last_try():
    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    _with_hidden(table, 0, (ActionCard.RE_ROLL,))
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    table.feed(None, look=ExpressLook((die(100, 100, 2), die(600, 300, 3))))  # try 1: 2+3
    table.feed(None, look=ExpressLook((die(200, 100, 6), die(700, 300, 4))))  # try 2: 6+4, fails: Ann may re-roll
    assert table.state.tries == 2 and table.state.dice == (6, 4)
    before = table.state
    out = table.feed(None, look=ExpressLook((die(100, 600, 5), die(900, 300, 3))))  # both thrown: refused
    assert out.kind == ILLEGAL and out.rule == "tries-used" and table.state == before
    # the refused throw is no try: re-rolling its 5 onto a 6 (the 3 left lying) is no re-roll of 6+4
    out = table.feed(None, look=ExpressLook((die(400, 500, 6), die(900, 300, 3))))
    assert out.kind == UNREADABLE and "last try was 6+4" in out.message and table.state == before
    # laid back as the screen shows, the 4 re-rolled onto a 6: 12, her guess
    table.feed(None, look=ExpressLook((die(100, 600, 6), die(900, 300, 4))))
    out = table.feed(None, look=ExpressLook((die(100, 600, 6), die(500, 700, 6))))
    assert out.kind == APPLIED and table.state.phase is Phase.MOVE and table.state.dice == (6, 6)


def test_two_re_roll_cards_thrown_together_after_the_second_try():
    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    _with_hidden(table, 0, (ActionCard.RE_ROLL, ActionCard.RE_ROLL))
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    table.feed(None, look=ExpressLook((die(100, 100, 2), die(600, 300, 3))))
    out = table.feed(None, look=ExpressLook((die(200, 100, 1), die(700, 300, 1))))
    # both dice thrown after a failed first try: her second try, or two re-roll cards? asked
    assert out.kind == AMBIGUOUS
    assert out.question.options == ("rolled both dice: 1+1 (try 2)", "two re-roll cards: 1+1")
    table.answer(0, "rolled both dice: 1+1 (try 2)")
    assert table.feed(None).kind == APPLIED and table.state.tries == 2
    out = table.feed(None, look=ExpressLook((die(300, 500, 6), die(800, 600, 6))))  # tries used: two cards
    assert out.kind == APPLIED and [type(a).__name__ for a in out.plays[0]] == ["ReRoll", "ReRoll"]
    assert table.state.dice == (6, 6) and table.state.phase is Phase.MOVE
    assert table.state.played_actions.count(ActionCard.RE_ROLL) == 2


def test_a_throw_asked_about_is_asked_again_after_a_restart():
    from types import SimpleNamespace

    table = ExpressTableGame(NAMES[:3])
    _to_rolls(table, guesses=(12, 5, 3))
    _with_hidden(table, 0, (ActionCard.RE_ROLL,))
    table.feed(None, look=ExpressLook((die(300, 700, 3), die(420, 700, 5))))
    table.feed(None, look=ExpressLook((die(100, 100, 2), die(600, 300, 3))))  # try 1
    out = table.feed(None, look=ExpressLook((die(100, 100, 2), die(900, 600, 6))))  # one die moved
    assert out.kind == AMBIGUOUS and out.question.note is not None
    state, note = table.state, out.question.note
    # the companion stops; the journal holds the sight; a new one resumes on the same state
    again = ExpressTableGame(NAMES[:3])
    again.restore([SimpleNamespace(kind="seen", payload=note)])
    assert again.resync(None, state, look=ExpressLook((die(100, 100, 2), die(900, 600, 6)))).kind == "synced"
    out = again.feed(None, look=ExpressLook((die(100, 100, 2), die(900, 600, 6))))
    assert out.kind == AMBIGUOUS and out.question.options == table.prompt().options
    again.answer(0, out.question.options[0])  # re-rolled the 3 onto a 6
    assert again.feed(None).kind == APPLIED and again.state.dice == (2, 6) and again.state.tries == 1


def test_the_tips_offered_are_the_counts_still_possible():
    from companion.app.express_prompts import tips_prompt
    from companion.rules.sushi_express.state import Phase as P
    from companion.rules.sushi_express.table import reveal_tips
    from companion.rules.errors import IllegalAction

    table = ExpressTableGame(NAMES[:3])
    _with_hidden(table, 0, (ActionCard.TIP, ActionCard.RE_ROLL))
    _with_hidden(table, 1, (ActionCard.TIP,))
    s = table.state
    rest = list(s.action_supply)
    # the supply is empty: both tip cards are in the hidden hands, wherever the placeholders put them
    end = replace(s, phase=P.OVER, result=None, action_supply=(),
                  hands=(s.hands[0], s.hands[1], s.hands[2] + tuple(rest)), unseen=(s.unseen[0], s.unseen[1], tuple(rest)))
    assert end.tips_asked and not end.is_over
    first = tips_prompt(end, 0, 1, 3)
    assert first.options == ("0", "1", "2")
    assert tips_prompt(end, 1, 2, 3, {0: 2}).options == ("0",)
    assert tips_prompt(end, 2, 3, 3, {0: 0, 1: 0}).options == ("2",)  # they must be Cy's then
    with pytest.raises(IllegalAction, match="tip"):
        reveal_tips(end, {0: 2, 1: 1, 2: 0})  # three tips: the box has two
    scored = reveal_tips(end, {0: 1, 1: 0, 2: 1})
    assert scored.is_over and [h.count(ActionCard.TIP) for h in scored.hands] == [1, 0, 1]
    assert scored.hidden(0) == 1  # her other hidden card stays unnamed


def test_a_refill_offers_only_customers_the_face_down_deck_still_holds():
    from companion.app.express_prompts import display_prompt
    from companion.rules.sushi_express.state import Customer
    from companion.rules.sushi_express.table import name_display

    table = ExpressTableGame(NAMES[:3])
    s = table.state
    # every light blue card is out: 2 kept in the display, 6 taken by players; one card is drawn anew
    supply = [c for c in s.customer_supply + s.display if c is not Customer.LIGHT_BLUE]
    refill = replace(s, display=(Customer.LIGHT_BLUE, Customer.LIGHT_BLUE, supply[0]),
                     customer_supply=tuple(supply[1:]), collected=((Customer.LIGHT_BLUE,) * 6, (), ()), unnamed=1)
    prompt = display_prompt(refill, 0, 1, 1, "refill the display")
    assert "light blue" not in prompt.options and "rose" in prompt.options
    assert set(prompt.options) == {c.label for c in Customer if c in refill.customer_supply or c == supply[0]}
    named = name_display(refill, [Customer.ROSE])
    assert named.display[:2] == (Customer.LIGHT_BLUE, Customer.LIGHT_BLUE) and named.display_known
