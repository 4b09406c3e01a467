"""The simulated Pico: the real firmware (firmware/main.py + firmware/protocol.py) running under
CPython on a thread, with fake hardware (NeoPixel ring, vibration pin, watchdog) and an in-process
byte pipe instead of USB. It is the first-class fake behind ``open_link("loop")``: the tests and
``companion doctor`` off the Pi talk to the very code that runs on the board.

The firmware modules are loaded from the repository's ``firmware/`` folder under private module
names, so nothing called ``protocol`` or ``main`` is left in ``sys.modules``.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_cache: dict[str, tuple[ModuleType, ModuleType]] = {}


def load_firmware(folder: str | Path = FIRMWARE_DIR) -> tuple[ModuleType, ModuleType]:
    """Load (protocol, main) from ``folder`` as CPython modules (cached per folder).

    ``main.py`` does ``import protocol`` as it does on the board; while it loads, ``protocol``
    is aliased in ``sys.modules`` to the loaded module and the previous entry is put back.

    Raises:
        FileNotFoundError: ``folder`` has no protocol.py or main.py (a wheel install without the
            repository: the simulated Pico needs the firmware sources).
    """
    folder = Path(folder)
    key = str(folder)
    if key in _cache:
        return _cache[key]
    for name in ("protocol.py", "main.py"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name}: the simulated Pico needs the firmware sources")
    protocol = _load("companion_firmware_protocol", folder / "protocol.py")
    saved = sys.modules.get("protocol")
    sys.modules["protocol"] = protocol
    try:
        main = _load("companion_firmware_main", folder / "main.py")
    finally:
        if saved is None:
            del sys.modules["protocol"]
        else:
            sys.modules["protocol"] = saved
    _cache[key] = (protocol, main)
    return protocol, main
