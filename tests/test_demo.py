"""``companion demo``: a bot game rendered, read back from the pixels, and scored like the truth."""

import io
import re
from argparse import Namespace

from companion.app import cmd_demo


def test_headless_demo_reads_the_true_score(tmp_path):
    out = io.StringIO()
    args = Namespace(game="sushi-go", players=3, seed=11, headless=True, screens=str(tmp_path), dummy=False)
    code = cmd_demo.run(args, stdout=out)
    text = out.getvalue()
    assert code == 0, text
    assert "the score read from the pixels equals the truth" in text
    # true and read totals printed side by side, equal for every player
    rows = re.findall(r"^\s+(Ann|Bo|Cy)\s+(-?\d+)\s+(-?\d+)$", text, re.M)
    assert len(rows) == 3 and all(t == r for _, t, r in rows)
    assert len(list(tmp_path.glob("screen-*.png"))) > 10
    assert sorted(p.name for p in tmp_path.glob("camera-*.jpg")) == ["camera-r1.jpg", "camera-r2.jpg", "camera-r3.jpg"]


def test_headless_sushi_express_demo_reads_every_throw_to_the_true_score(tmp_path):
    out = io.StringIO()
    args = Namespace(game="sushi-express", players=3, seed=1, headless=True, screens=str(tmp_path), dummy=False)
    code = cmd_demo.run(args, stdout=out)
    text = out.getvalue()
    assert code == 0, text[-3000:]
    assert "customers and vans equal" in text and "0 move(s) refused" in text
    throws = int(re.search(r"(\d+) throws read from the camera", text).group(1))
    assert throws >= 20  # a whole game's rolls, every one read from rendered frames
    rows = re.findall(r"^\s+(Ann|Bo|Cy)\s+(-?\d+)\s+(-?\d+)$", text, re.M)
    assert len(rows) == 3 and all(t == r for _, t, r in rows)


def test_demo_refuses_a_player_count_the_game_is_not_for(tmp_path, capsys):
    for game, players in (("sushi-express", 2), ("sushi-go", 6)):
        args = Namespace(game=game, players=players, seed=1, headless=True, screens=str(tmp_path), dummy=False)
        assert cmd_demo.run(args, stdout=io.StringIO()) == 2
        assert f"{players}" in capsys.readouterr().err
