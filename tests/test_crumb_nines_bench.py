"""bench/crumb_nines.py: the thing it draws lies on the card where it is asked to (no data needed),
and a bad argument is argparse's named error, not a traceback."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("crumb_nines", ROOT / "bench" / "crumb_nines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["speck", "crumb", "token", "coin", "ink"])
def test_a_thing_is_drawn_on_the_card_at_the_place_asked_and_nowhere_else(kind):
    bench = _bench()
    img = np.full((400, 400, 3), 235, np.uint8)
    quad = np.float32([[100, 80], [240, 90], [230, 290], [90, 280]])  # a card, turned a little
    where = np.array([0.0, -0.3])  # a ten's upper middle pip: above the centre, in card widths
    out = bench.put_thing(img, quad, kind, where, 0.1, (20.0, 20.0, 20.0), np.random.default_rng(0))
    changed = np.argwhere(np.abs(out.astype(int) - img.astype(int)).max(axis=2) > 30)
    assert len(changed) > 0
    # The card's centre is the quad's mean, about (165, 185); 0.3 card widths (about 140 px) up is
    # about y 143, and a radius of 0.1 card widths is about 14 px.
    y, x = changed.mean(axis=0)
    assert abs(x - 165) < 8 and abs(y - 143) < 8, (x, y)
    assert changed[:, 0].min() > 120 and changed[:, 0].max() < 166


@pytest.mark.parametrize("args", [["--seeds", "5-2"], ["--seeds", "x"], ["--per-photo", "0"], ["--ranks", ","]])
def test_a_bad_argument_is_a_named_error(args, capsys):
    with pytest.raises(SystemExit) as e:
        _bench().main(args)
    assert e.value.code == 2
    assert "error" in capsys.readouterr().err
