"""The layout of companion/rules (issue #9 §5): one subpackage per game beside the shared core.

Checked on the source with ``ast`` (nothing is imported to look): every ``import`` anywhere in a module
counts, also the ones inside functions and under ``TYPE_CHECKING``, and relative imports are resolved.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "companion" / "rules"
GAMES = ("sushi_go", "sushi_roll", "sushi_express")
#: Every game package holds these modules (its own extras, cards or dice, come on top).
GAME_MODULES = ("engine", "state", "scoring", "record")
#: The rules are pure: no pixels, no screens, no hardware, no databases, no processes, and no layer above.
FORBIDDEN = (
    "cv2",
    "numpy",
    "pygame",
    "PIL",
    "picamera2",
    "gpiozero",
    "serial",
    "sqlite3",
    "socket",
    "subprocess",
    "companion.app",
    "companion.cli",
    "companion.devices",
    "companion.sim",
    "companion.vision",
)


def module_name(path: Path) -> str:
    """``companion/rules/sushi_go/engine.py`` → ``companion.rules.sushi_go.engine`` (a package's
    ``__init__.py`` → the package)."""
    parts = path.relative_to(RULES.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, name: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the text of module ``name``) imports, relative imports made absolute.

    ``from a.b import c`` gives both ``a.b`` and ``a.b.c`` (c may be a submodule)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            found.add(stem)
            found.update(f"{stem}.{alias.name}" for alias in node.names)
    return found


def rules_modules() -> dict[str, set[str]]:
    """Module name → the modules it imports, for every module under companion/rules."""
    return {
        module_name(path): imported_modules(
            path.read_text(encoding="utf-8"), module_name(path), is_package=path.name == "__init__.py"
        )
        for path in sorted(RULES.rglob("*.py"))
    }


def is_within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_import_reader_sees_lazy_relative_and_type_checking_imports():
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..sushi_roll.state import Tray\n"
        "def f():\n    import cv2.aruco\n    from . import scoring\n"
    )
    found = imported_modules(source, "companion.rules.sushi_go.engine")
    assert "cv2.aruco" in found
    assert "companion.rules.sushi_roll.state" in found
    assert "companion.rules.sushi_go.scoring" in found
    # In a package's __init__, "." is the package itself.
    assert "companion.rules.sushi_go.engine" in imported_modules(
        "from .engine import apply\n", "companion.rules.sushi_go", is_package=True
    )


@pytest.mark.parametrize("game", GAMES)
def test_each_game_is_a_package_with_engine_state_scoring_record(game):
    package = RULES / game
    assert (package / "__init__.py").is_file(), f"companion/rules/{game}/ is not a package"
    missing = [m for m in GAME_MODULES if not (package / f"{m}.py").is_file()]
    assert not missing, f"companion/rules/{game}/ lacks {missing}"


def test_no_game_module_is_left_flat_beside_the_shared_core():
    flat = sorted(p.name for p in RULES.glob("*.py") if p.name.startswith(GAMES))
    assert not flat, f"game modules belong in their package, not companion/rules/: {flat}"


def test_rules_import_nothing_impure_or_from_a_layer_above():
    modules = rules_modules()
    assert len(modules) >= 1 + 6 + len(GAMES) * (1 + len(GAME_MODULES)), sorted(modules)
    bad = {
        name: sorted(m for m in imports if any(is_within(m, f) for f in FORBIDDEN))
        for name, imports in modules.items()
    }
    bad = {name: found for name, found in bad.items() if found}
    assert not bad, f"companion/rules must stay pure: {bad}"


def test_no_game_package_imports_another_game_and_the_core_imports_no_game():
    crossings = {}
    for name, imports in rules_modules().items():
        own = next((g for g in GAMES if is_within(name, f"companion.rules.{g}")), None)
        others = [g for g in GAMES if g != own]
        found = sorted(m for m in imports if any(is_within(m, f"companion.rules.{g}") for g in others))
        if found:
            crossings[name] = found
    assert not crossings, f"a game imports only the shared core and itself: {crossings}"


@pytest.mark.parametrize(
    ("game", "names"),
    [
        ("sushi_go", ("apply", "apply_turn", "legal_plays", "new_game", "new_observed_game", "SushiGoOptions")),
        ("sushi_roll", ("apply", "legal_actions", "new_game", "random_game", "replay", "SushiRoll")),
        ("sushi_express", ("apply", "legal_actions", "new_game", "random_game", "SushiExpress")),
    ],
)
def test_the_game_package_re_exports_its_engine(game, names):
    package = importlib.import_module(f"companion.rules.{game}")
    engine = importlib.import_module(f"companion.rules.{game}.engine")
    assert set(names) <= set(package.__all__)
    unresolved = [n for n in package.__all__ if getattr(package, n, None) is not getattr(engine, n, object())]
    assert not unresolved, f"companion.rules.{game} does not re-export {unresolved} from its engine"
