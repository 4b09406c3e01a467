"""Issue #13, "Done means", for Sushi Go!: the ``companion score`` path accepts every record that a
random legal game's own history produces, and refuses every record mutated into an impossible one,
naming the rule.

The games are seeded (the same games every run) and played by a random bot from ``legal_plays``.
The mutations are each impossible whatever the deal was:

* box: one card more of a kind than the 108-card box holds (sushi-go-with-variants.txt, CONTENTS);
* not dealt: a card taken from a hand the record itself shows holds only other cards (the
  chopsticks put back into it: sushi-go.txt, USING CHOPSTICKS) — a card never dealt into that hand;
* a second card in a turn with no chopsticks in front of the player (USING CHOPSTICKS);
* a turn too many (or too few) for one player, a whole extra turn, an extra round
  (sushi-go.txt, STARTING A ROUND: 3 rounds, as many turns as cards dealt).
"""

import copy
import json
import random
from collections import Counter
from dataclasses import dataclass

import pytest

from companion.cli import main
from companion.rules.errors import MalformedGame
from companion.rules.records import parse_record_json
from companion.rules.sushi_go import UNSEEN, apply, legal_plays, new_game, new_observed_game
from companion.rules.sushi_go.cards import DECK_COUNTS, Card
from companion.rules.sushi_go.record import parse_record, score_game_record
from companion.rules.sushi_go.state import SushiGoOptions

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]


def _setups():
    """24 seeded games: every player count, the dummy variant with and without its options, the
    wasabi and passing options."""
    rng = random.Random(13)
    out = []
    for i in range(24):
        dummy = i % 6 == 5
        options = SushiGoOptions(
            same_turn_wasabi_triples=rng.random() < 0.5,
            pass_both_ways=rng.random() < 0.5,
            dummy=dummy,
            dummy_uses_chopsticks=dummy and rng.random() < 0.5,
            dummy_in_pudding_penalty=rng.random() < 0.5,
            first_dummy_controller=rng.randrange(2) if dummy else 0,
        )
        out.append((NAMES[: 2 if dummy else 2 + i % 4], options, rng.randrange(2**32)))
    return out


@dataclass
class PlayedGame:
    state: object  # the final full-information SushiGoState
    plays: list  # every Play applied, in order
    record: dict  # the ``companion score`` record built from ``plays``


def play_random_game(names, options, seed):
    """A legal game: each waiting seat in turn takes a random legal play. The record is the engine's
    own history written in the record format (one entry per turn, a pair as a list)."""
    rng = random.Random(seed)
    state = new_game(names, random.Random(seed), options)
    plays, rounds = [], []
    while not state.is_over:
        if state.turn == 1 and state.pending == (None,) * state.seats:
            rounds.append({name: [] for name in state.players})
        play = rng.choice(legal_plays(state, state.waiting_for()[0]))
        entry = [c.value for c in play.cards] if len(play.cards) == 2 else play.cards[0].value
        rounds[-1][state.players[play.player]].append(entry)
        plays.append(play)
        state = apply(state, play)
    record = {"players": list(names), "rounds": rounds, "options": options.to_dict()}
    return PlayedGame(state, plays, record)


def score(record):
    """The ``companion score --game sushi-go`` path: JSON text in, result out."""
    return score_game_record(parse_record_json(json.dumps(record)))


GAMES = [play_random_game(*setup) for setup in _setups()]


@pytest.mark.parametrize("game", GAMES, ids=[f"game{i}-{len(g.record['players'])}p" for i, g in enumerate(GAMES)])
def test_13_done_history_records_are_accepted(game):
    """A legal game's own record scores exactly as the full-information engine scored it."""
    result = score(game.record)
    assert result.totals == game.state.result.totals
    assert result.winners == game.state.result.winners
    assert result.breakdown == game.state.result.breakdown


# --- the mutations ----------------------------------------------------------------------------------


def _entries(record):
    """(round, player, turn, index in a pair or None, card) for every card in the record."""
    for r, rnd in enumerate(record["rounds"]):
        for name, turns in rnd.items():
            for t, entry in enumerate(turns):
                if isinstance(entry, list):
                    for i, card in enumerate(entry):
                        yield r, name, t, i, card
                else:
                    yield r, name, t, None, entry


def _set(record, r, name, t, i, card):
    if i is None:
        record["rounds"][r][name][t] = card
    else:
        record["rounds"][r][name][t][i] = card


def over_the_box(game, rng):
    """Turn other cards into one kind until the record holds one more of it than the box. Never a
    chopsticks, either way: a chopsticks goes back into the hand and may be taken again, so the
    record's count of chopsticks is not a count of cards."""
    counts = Counter(card for *_, card in _entries(game.record))
    kind = rng.choice([k.value for k in Card if k is not Card.CHOPSTICKS])
    spare = [e for e in _entries(game.record) if e[4] not in (kind, Card.CHOPSTICKS.value)]
    need = DECK_COUNTS[Card(kind)] + 1 - counts[kind]
    if need > len(spare):
        return None
    record = copy.deepcopy(game.record)
    for r, name, t, i, _ in rng.sample(spare, need):
        _set(record, r, name, t, i, kind)
    return record, "deck-count", "CONTENTS"


def not_dealt(game, rng):
    """Replace a card taken from a hand whose every card the record already shows (the chopsticks put
    back into it) with a kind that hand does not hold."""
    state = new_observed_game(game.record["players"], SushiGoOptions(**game.record["options"]))
    sites = []
    # The n-th play of a seat in a round is that seat's entry n; count them while replaying.
    seen = Counter()
    for play in game.plays:
        key = (state.round, play.player)
        t = seen[key]
        seen[key] += 1
        hand = state.hands[state.source_seat(play.player)]
        if UNSEEN not in hand:
            missing = [k.value for k in Card if k not in hand and k is not Card.CHOPSTICKS]
            sites.append((state.round - 1, state.players[play.player], t, len(play.cards), missing))
        state = apply(state, play)
    if not sites:
        return None
    r, name, t, n, missing = rng.choice(sites)
    record = copy.deepcopy(game.record)
    _set(record, r, name, t, None if n == 1 else 0, rng.choice(missing))
    return record, "card-not-in-hand", "PLAYING A ROUND"


def second_card_without_chopsticks(game, rng):
    """Make a single-card turn a pair where the player has no chopsticks in front of them yet: the
    first turn of a round, when nobody has any card in front of them."""
    r = rng.randrange(3)
    name = rng.choice(list(game.record["rounds"][r]))
    record = copy.deepcopy(game.record)
    first = record["rounds"][r][name][0]
    record["rounds"][r][name][0] = [first, "tempura"]
    if name == "Dummy" and not game.record["options"]["dummy_uses_chopsticks"]:
        # The dummy takes 1 card whatever is in front of it (TWO-PLAYER VARIANT), which is checked first.
        return record, "dummy-chopsticks", "TWO-PLAYER VARIANT"
    return record, "chopsticks-needed", "USING CHOPSTICKS"


def one_turn_too_many(game, rng):
    r = rng.randrange(3)
    name = rng.choice(list(game.record["rounds"][r]))
    record = copy.deepcopy(game.record)
    record["rounds"][r][name].append("tempura")
    return record, None, "STARTING A ROUND"


def one_turn_too_few(game, rng):
    r = rng.randrange(3)
    name = rng.choice(list(game.record["rounds"][r]))
    record = copy.deepcopy(game.record)
    record["rounds"][r][name].pop(rng.randrange(len(record["rounds"][r][name])))
    return record, None, "STARTING A ROUND"


def a_whole_extra_turn(game, rng):
    r = rng.randrange(3)
    record = copy.deepcopy(game.record)
    for turns in record["rounds"][r].values():
        turns.append("egg_nigiri")
    return record, None, "STARTING A ROUND"


def a_fourth_round(game, rng):
    record = copy.deepcopy(game.record)
    record["rounds"].append(copy.deepcopy(record["rounds"][rng.randrange(3)]))
    return record, None, "STARTING A ROUND"


MUTATIONS = [
    over_the_box,
    not_dealt,
    second_card_without_chopsticks,
    one_turn_too_many,
    one_turn_too_few,
    a_whole_extra_turn,
    a_fourth_round,
]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda m: m.__name__)
def test_13_done_impossible_records_are_refused_naming_the_rule(mutate):
    """Every game, mutated: the score path refuses it with the rule id (for an illegal play) and the
    rulebook section in the message. ``not_dealt`` applies only where the record shows a whole hand,
    so it must find enough such hands to mean something."""
    rng = random.Random(mutate.__name__)
    tried = 0
    for game in GAMES:
        for _ in range(2):
            made = mutate(game, rng)
            if made is None:
                continue
            record, rule, section = made
            tried += 1
            with pytest.raises(MalformedGame) as exc:
                score(record)
            message = str(exc.value)
            assert section in message, message
            assert "(sushi-go" in message, message
            if rule is not None:
                assert exc.value.rule_error is not None and exc.value.rule_error.rule == rule, message
    assert tried >= 20, f"only {tried} records could be mutated by {mutate.__name__}"


def test_13_done_a_fourth_round_names_the_rule():
    """The one mutation today's record check refused without a rulebook reference: "rounds: a game has
    3 rounds, got 4" now says where the 3 comes from (sushi-go.txt, STARTING A ROUND)."""
    record = copy.deepcopy(GAMES[0].record)
    record["rounds"].append(record["rounds"][0])
    with pytest.raises(MalformedGame) as exc:
        parse_record(record)
    assert str(exc.value) == "rounds: a game has 3 rounds, got 4 (sushi-go.txt, STARTING A ROUND)"


def test_13_done_the_cli_refuses_a_mutated_record_in_one_line(capsys, tmp_path):
    """The same refusal through ``companion score --game sushi-go``: exit 2, one line naming the rule."""
    record, _, _ = over_the_box(GAMES[1], random.Random(1))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["score", "--game", "sushi-go", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "the deck has only" in err and "(sushi-go-with-variants.txt, CONTENTS)" in err


def test_13_done_the_mutations_change_only_what_they_say():
    """The box mutation leaves every other card where it was, so the refusal is the box's: one kind
    goes exactly one past its count in the box, and no chopsticks is touched."""
    game = GAMES[2]
    record, _, _ = over_the_box(game, random.Random(5))
    before = Counter(c for *_, c in _entries(game.record))
    after = Counter(c for *_, c in _entries(record))
    grown = [k for k in after if after[k] > before[k]]
    assert len(grown) == 1 and after[grown[0]] == DECK_COUNTS[Card(grown[0])] + 1
    assert after["chopsticks"] == before["chopsticks"]
    assert sum(after.values()) == sum(before.values())
