"""The command line's own contract: subcommands exist and bad usage exits 2."""

import pytest

from companion.cli import build_parser, main


def test_unknown_subcommand_exits_2():
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2


def test_every_subcommand_parses():
    p = build_parser()
    assert p.parse_args(["score", "--game", "sushi-go", "f.json"]).command == "score"
    assert p.parse_args(["mat", "--players", "4", "--out", "m.png"]).players == 4
    assert p.parse_args(["read", "cards", "--deck", "d.npz", "a.jpg"]).images == ["a.jpg"]
