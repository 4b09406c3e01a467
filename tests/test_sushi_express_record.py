"""``companion score --game sushi-express`` records: hand-computed results, the JSON shape, the table,
and MalformedGame field paths for bad input."""

import copy
import json
from pathlib import Path

import pytest

from companion.rules.errors import MalformedGame
from companion.rules.sushi_express.record import format_sushi_express_table, score_sushi_express_record

FIXTURES = Path(__file__).parent / "fixtures" / "score"


def load(name):
    return json.loads((FIXTURES / name).read_text())


def test_rulebook_fixture_by_hand():
    # Andreas: light blue 2 → 4, yellow 2 → 4, green 1 → 3 = 11; tips 2 cards + 1 action = 3, the most → 0.
    # Bernd: dark blue 3 → 5, violet 3, orange 2 → 4, red 3 = 15; tips 3 → 0.
    # Claus (the rulebook's example): 12 + 3 = 15; tips 1, the fewest, the most is 3 → -3; total 12.
    out = score_sushi_express_record(load("sushi_express_rulebook.json")).to_dict()
    assert set(out) == {"customers", "tips", "total", "winners", "breakdown"}
    assert out["customers"] == {"Andreas": 11, "Bernd": 15, "Claus": 15}
    assert out["tips"] == {"Andreas": 0, "Bernd": 0, "Claus": -3}
    assert out["total"] == {"Andreas": 11, "Bernd": 15, "Claus": 12}
    assert out["winners"] == ["Bernd"]
    andreas_tips = [l["text"] for l in out["breakdown"] if l["player"] == "Andreas" and l["category"] == "tips"]
    assert andreas_tips == ["tips: 2 tip cards + 1 tip action card = 3, not the fewest → 0"]
    assert set(out["breakdown"][0]) == {"seat", "player", "round", "category", "points", "text"}
    for name, total in out["total"].items():
        assert sum(l["points"] for l in out["breakdown"] if l["player"] == name) == total
    json.dumps(out)  # JSON-ready


def test_tie_fixture_by_hand():
    # Ann: light blue 3 → 5, rose 3, green 3 = 11. Bo: dark blue 2 → 4, violet 3, yellow 2 → 4 = 11.
    # Cy: 3 colours × 3 = 9. Di: orange 2 → 4, red 3, light blue 3 = 10.
    # Tips: Ann 2, Bo 0 + 1 action = 1, Cy 3, Di 0 → Di alone is the fewest and loses 3 → 7.
    # Ann and Bo tie on 11; Bo has 3 action cards left, Ann 1 → Bo wins.
    result = score_sushi_express_record(load("sushi_express_tie.json"))
    assert result.totals == (11, 11, 9, 7)
    assert result.tip_points == (0, 0, 0, -3)
    assert result.winners == ("Bo",)
    table = format_sushi_express_table(result)
    assert "Winner: Bo" in table
    assert "Tie on 11 points broken by action cards left, tips not counted: Ann 1, Bo 3" in table
    assert "Di       tips: 0, fewest; the most is 3 (Cy) → -3" in table
    lines = table.splitlines()
    assert lines[1].split() == ["Customers", "11", "11", "9", "10"]
    assert lines[2].split() == ["Tips", "0", "0", "0", "-3"]
    assert lines[4].split() == ["Total", "11", "11", "9", "7"]


def test_tied_fewest_both_lose_in_a_record():
    record = load("sushi_express_rulebook.json")
    record["cards"]["Andreas"]["tips"] = 0
    record["cards"]["Andreas"]["tip_actions"] = 1  # Andreas now has 1, like Claus; Bernd has the most, 3
    out = score_sushi_express_record(record).to_dict()
    assert out["tips"] == {"Andreas": -3, "Bernd": 0, "Claus": -3}
    assert out["total"] == {"Andreas": 8, "Bernd": 15, "Claus": 12}


def test_equal_tips_option_in_a_record():
    record = load("sushi_express_rulebook.json")
    for name in record["cards"]:
        record["cards"][name].update(tips=2, tip_actions=0)
    assert score_sushi_express_record(record).tip_points == (0, 0, 0)
    record["options"] = {"equal_tips_penalty": True}
    assert score_sushi_express_record(record).tip_points == (-2, -2, -2)


def malformed(record, path):
    with pytest.raises(MalformedGame) as exc:
        score_sushi_express_record(record)
    assert exc.value.path == path, str(exc.value)
    return exc.value.problem


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda r: r.pop("cards"), "cards"),
        (lambda r: r.pop("players"), "players"),
        (lambda r: r.update(extra=1), "extra"),
        (lambda r: r.update(players=["Andreas", "Bernd"]), "players"),
        (lambda r: r.update(players=["Andreas", "Andreas", "Claus"]), "players"),
        (lambda r: r.update(players="Andreas"), "players"),
        (lambda r: r.update(cards=[]), "cards"),
        (lambda r: r.update(options={"nobody_loses": True}), "options.nobody_loses"),
        (lambda r: r.update(options={"equal_tips_penalty": "yes"}), "options.equal_tips_penalty"),
        (lambda r: r["cards"].update(Dora={}), "cards.Dora"),
        (lambda r: r["cards"].pop("Bernd"), "cards.Bernd"),
        (lambda r: r["cards"].update(Bernd=3), "cards.Bernd"),
        (lambda r: r["cards"]["Bernd"].pop("actions_left"), "cards.Bernd.actions_left"),
        (lambda r: r["cards"]["Bernd"].update(puddings=1), "cards.Bernd.puddings"),
        (lambda r: r["cards"]["Bernd"].update(customers=[1]), "cards.Bernd.customers"),
        (lambda r: r["cards"]["Bernd"]["customers"].update(teal=1), "cards.Bernd.customers.teal"),
        (lambda r: r["cards"]["Bernd"]["customers"].update(tip=1), "cards.Bernd.customers.tip"),
        (lambda r: r["cards"]["Bernd"]["customers"].update(violet=-1), "cards.Bernd.customers.violet"),
        (lambda r: r["cards"]["Bernd"]["customers"].update(violet=1.5), "cards.Bernd.customers.violet"),
        (lambda r: r["cards"]["Bernd"]["customers"].update({"Dark Blue": 1}), "cards.Bernd.customers.Dark Blue"),
        (lambda r: r["cards"]["Bernd"].update(tips=True), "cards.Bernd.tips"),
        (lambda r: r["cards"]["Claus"]["customers"].update(violet=2), "cards.Claus.customers.violet"),
        (lambda r: r["cards"]["Claus"].update(tips=4), "cards.Claus.tips"),
        (lambda r: r["cards"]["Claus"].update(tip_actions=2), "cards.Claus.tip_actions"),
        (lambda r: r["cards"]["Claus"].update(actions_left=26), "cards.Claus.actions_left"),
    ],
)
def test_malformed_records_name_the_field(change, path):
    record = load("sushi_express_rulebook.json")
    change(record)
    assert malformed(record, path)


def test_malformed_messages():
    record = load("sushi_express_rulebook.json")
    record["cards"]["Claus"]["customers"]["violet"] = 2
    # Bernd already holds 1 violet; with Claus's 2 that is 3 of the 2 in the box.
    assert malformed(copy.deepcopy(record), "cards.Claus.customers.violet") == (
        "the players hold 3 violet cards in all, but the game has only 2 (sushi-express.txt, CONTENTS)"
    )
    assert malformed([], "") == "the game must be a JSON object, got a list"
    record = load("sushi_express_rulebook.json")
    record["cards"]["Bernd"]["customers"]["teal"] = 1
    assert "unknown customer 'teal'" in malformed(record, "cards.Bernd.customers.teal")


# --- the customers' data file (companion/data/sushi_express_customers.toml, "check against your box")


def _customers_file():
    import tomllib
    from importlib import resources

    return tomllib.loads(resources.files("companion").joinpath("data", "sushi_express_customers.toml")
                         .read_text(encoding="utf-8"))


def test_the_shipped_customers_give_the_rulebooks_36_cards():
    from companion.rules.sushi_express.customers import customers_from_mapping
    from companion.rules.sushi_express.state import CUSTOMER_COUNTS, Customer

    customers = customers_from_mapping(_customers_file())
    assert len(customers) == 8 and sum(CUSTOMER_COUNTS.values()) == 36
    assert CUSTOMER_COUNTS[Customer.LIGHT_BLUE] == CUSTOMER_COUNTS[Customer.DARK_BLUE] == CUSTOMER_COUNTS[Customer.TIP] == 8
    assert Customer.LIGHT_BLUE.label == "light blue" and len(Customer.ROSE.rgb) == 3


@pytest.mark.parametrize("change,words", [
    (lambda d: d["customer"].pop(), "exactly 8"),
    (lambda d: d["customer"][2].update(name="light_blue"), "used twice"),
    (lambda d: d["customer"][3].update(cards=3), "holds 2 cards"),
    (lambda d: d["customer"][0].update(cards=2), "holds 8 cards"),
    (lambda d: d["customer"][4].update(colour="yellow"), "#rrggbb"),
    (lambda d: d["customer"][5].update(name="Tip"), "lower-case word"),
    (lambda d: d["customer"][1].update(name="navy", cards=2), "dark_blue must be listed"),
    (lambda d: d["customer"][6].pop("label"), "exactly the keys"),
])
def test_a_customers_file_that_breaks_the_rulebook_is_named(change, words):
    from companion.rules.sushi_express.customers import customers_from_mapping

    data = _customers_file()
    change(data)
    with pytest.raises(ValueError, match=words):
        customers_from_mapping(data)
