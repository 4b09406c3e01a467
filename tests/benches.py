"""A script of ``bench/`` loaded as a module, for the tests that reuse its drawn cards and photos
(tests/test_vision_deck_cast.py, tests/test_vision_deck_clipped.py, tests/test_symbol_why.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(name: str):
    """``bench/<name>.py`` as a fresh module named ``<name>_for_tests``; ``bench/`` is on ``sys.path``
    while it loads, as a bench script may import the one beside it (symbol_why imports symbol_cards)."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_for_tests", BENCH / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH))
    return mod
