"""bench/real_fans.py: its scoring (no data needed) and, where ../shared is beside the repo, real
playing cards overlapping on real tables read with no wrong name."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from companion.vision.observations import CardObservation

ROOT = Path(__file__).resolve().parents[1]
CARDS_DATA = ROOT.parent / "shared" / "datasets" / "edje-cards"


def _bench():
    spec = importlib.util.spec_from_file_location("real_fans", ROOT / "bench" / "real_fans.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _obs(label, quad):
    return CardObservation(label, 0.9, tuple((float(x), float(y)) for x, y in quad))


def test_a_wrong_name_on_a_card_mostly_hidden_counts_and_a_reading_on_the_table_is_spurious():
    real_fans = _bench()
    under = np.float32([[50, 50], [150, 50], [150, 193], [50, 193]])
    over = under + np.float32([20, 10])  # leaves a strip of the lower card in sight: under half
    truth = [("nine", under), ("ten", over)]
    tot, notes = Counter(), []
    strip = np.float32([[50, 50], [70, 50], [70, 193], [50, 193]])
    table = np.float32([[250, 250], [300, 250], [300, 320], [250, 320]])
    real_fans.score([_obs("ten", over), _obs("ace", strip), _obs("ace", table)], truth, (400, 400, 3), tot, notes, "t")
    assert tot["right"] == 1 and tot["hidden"] == 1 and tot["cards"] == 1
    assert tot["wrong"] == 1  # the "ace" on the nine's strip, though the nine need not be found
    assert tot["spurious"] == 1  # the "ace" on the bare table
    # A card in sight with no reading is not found; one whose reading is "unknown" is unknown.
    tot = Counter()
    real_fans.score([_obs("unknown", over)], truth, (400, 400, 3), tot, [], "t")
    assert tot["unknown"] == 1 and tot["wrong"] == 0 and tot["spurious"] == 0


@pytest.mark.skipif(not CARDS_DATA.is_dir(), reason="../shared/datasets/edje-cards is missing (the shared datasets "
                    "sit beside the repo); the drawn tests in test_vision_marks.py cover the same faults")
def test_real_cards_overlapping_on_real_tables_get_no_wrong_name():
    # Enrolment draw 9 (free for development; 0 and 8 were the bench's tuning and held-out
    # draws), scenes the bench never ran: fans, a card over another, a card over a corner.
    tot = _bench().run(9, list(range(3000, 3012)))
    assert tot["wrong"] == 0 and tot["spurious"] == 0 and tot["twice"] == 0
    assert tot["right"] >= tot["cards"] // 2  # and it still reads cards
