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
