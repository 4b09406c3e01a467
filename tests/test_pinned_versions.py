"""The environment the tests run in is the one every figure was measured with (constraints.txt).

The simulator draws card faces with OpenCV (``cv2.putText``, warps), so a newer OpenCV draws other
faces: opencv-python-headless 5.1.0.95 turned 10 card tests red on a clean clone that had taken it
(README, "Pinned versions"). These tests name the package and both versions, so such a run says
why at once instead of through the readings it changed.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The packages whose numbers the drawn scenes and their readings depend on.
NUMERIC = ("numpy", "opencv-python-headless")


def pins() -> dict[str, str]:
    """name (lower case) → pinned version, from constraints.txt."""
    out = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, ver = line.partition("==")
            assert ver, f"constraints.txt: {line!r} pins no exact version (name==version)"
            out[name.strip().lower()] = ver.strip()
    return out


@pytest.mark.parametrize("name", NUMERIC)
def test_the_numeric_packages_installed_are_the_pinned_ones(name):
    pinned = pins()[name]
    try:
        installed = version(name)
    except PackageNotFoundError:  # pragma: no cover - the project depends on both
        pytest.fail(f"{name} is not installed; `make install` installs {name}=={pinned}")
    assert installed == pinned, (
        f"{name} {installed} is installed, but the tests and the README's figures were measured on "
        f"{pinned} (constraints.txt): run `make install`, or measure everything on {installed} "
        f"before raising the pin")


def test_make_install_uses_the_pins_and_reinstalls_when_they_change():
    make = (ROOT / "Makefile").read_text()
    rule = re.search(r"^\$\(VENV\)/\.installed:(.*)\n\t(.*)$", make, re.M)
    assert rule, "Makefile: no $(VENV)/.installed rule"
    prereqs, command = rule.groups()
    assert "constraints.txt" in prereqs.split(), "the install stamp must depend on constraints.txt"
    assert "-c constraints.txt" in command, "make install must install with -c constraints.txt"


def test_every_dependency_of_the_project_is_pinned():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    names = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower() for d in wanted}
    missing = sorted(names - set(pins()))
    assert not missing, f"constraints.txt pins no version of {', '.join(missing)}"
