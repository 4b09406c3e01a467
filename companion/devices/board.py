"""Which board this is: a Raspberry Pi (its model string) or not, for choosing real devices or fakes.

Source: Raspberry Pi documentation, "Raspberry Pi hardware": the device tree names the board in
``/proc/device-tree/model`` (NUL-terminated). Standard library only.
"""

from __future__ import annotations

from pathlib import Path

#: Where a Raspberry Pi names itself.
MODEL_FILE = Path("/proc/device-tree/model")


def pi_model(model_file: Path | None = None) -> str | None:
    """The Raspberry Pi's model string (e.g. ``"Raspberry Pi 5 Model B Rev 1.0"``), or None off a
    Pi. ``model_file`` defaults to :data:`MODEL_FILE`, read when called (tests point it elsewhere)."""
    try:
        text = (model_file or MODEL_FILE).read_bytes().decode(errors="replace").strip("\0 \n")
    except OSError:
        return None
    return text if text.startswith("Raspberry Pi") else None
