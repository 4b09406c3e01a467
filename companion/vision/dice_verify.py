"""A learned check of the pip reader's face readings (issue #7 §1): how likely a read face is a
die's top face showing that value, from a few measures of the reading.

The reader (:mod:`companion.vision.dice_d6`) fits every group of pips to the die layouts and reads
the fitted face; its hand-set rules let through some faint, small-pip readings of things that are
no die (a dark speck on the table read as a one, glints on a cable read as a three). This module
holds a logistic regression over measures the reader already has for each reading (below), trained
by ``python -m companion.vision.train_d6_verifier`` on the ``dev`` half of the shared webcam photos
only, and shipped as a small JSON file (``companion/data/d6_verifier.json``: no pickle). Inference is
one dot product per reading in numpy.

Measures (:data:`FEATURES`), per reading:

* ``margin``: the reading's margin (:func:`companion.vision.dice_d6.read_faces`, 0..1: how much
  darker its faintest pip place is than its darkest bare place, relative to the body);
* ``contrast``: its pips' mean contrast (0..1, relative to their surround);
* ``log_pip``: the natural log of its pips' mean diameter, px of the working image;
* ``log_half``: the natural log of the face's half-width, px;
* ``roundness``: its pips' mean roundness (minor / major axis);
* ``squash``: the face frame's squash (1 = seen square on);
* ``residual``: the layout fit's RMS error, face half-widths;
* ``one``, ``lone``, ``pair``: 1.0 when the value read is a one, when the face was fitted to one
  pip, to two pips.

The pips' polarity is deliberately not a measure: the webcam photos hold ivory dice with dark pips
only (their few light-pip readings are glints), so a weight on it would refuse every coloured die
with light pips, which the photos never showed.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources

import numpy as np

FEATURES = ("margin", "contrast", "log_pip", "log_half", "roundness", "squash", "residual", "one", "lone", "pair")
#: The model file, in the package's data folder.
MODEL_NAME = "d6_verifier.json"


def features(face, value: int, margin: float) -> np.ndarray:
    """The (F,) float64 measures of one reading (in :data:`FEATURES` order).

    Args:
        face: a :class:`companion.vision.dice_d6.Face` (its pips and frame, working-image px).
        value: the value read, 1..6.
        margin: the reading's margin, 0..1.
    """
    return np.array(_measures(face, value, margin), np.float64)


def _measures(face, value: int, margin: float) -> list[float]:
    """:func:`features` as a list of floats (the reader asks for one reading at a time, where
    plain Python beats building small arrays)."""
    pips = face.pips
    n = len(pips)
    diameter = sum(p.diameter for p in pips) / n
    return [
        margin,
        sum(p.contrast for p in pips) / n,
        math.log(max(diameter, 0.5)),
        math.log(max(face.half_width, 0.5)),
        sum(p.roundness for p in pips) / n,
        face.squash,
        face.residual,
        float(value == 1),
        float(n == 1),
        float(n == 2),
    ]


class Verifier:
    """A logistic regression over standardised :data:`FEATURES`: ``p = σ(w · (x − mean) / scale + b)``.

    Attributes:
        mean, scale: (F,) float64 standardisation.
        weights: (F,) float64; bias: float.
        threshold: the least probability a reading is kept at (chosen by cross-validation in the
            training script).
    """

    def __init__(self, mean, scale, weights, bias: float, threshold: float):
        self.mean = np.asarray(mean, np.float64)
        self.scale = np.asarray(scale, np.float64)
        self.weights = np.asarray(weights, np.float64)
        self.bias = float(bias)
        self.threshold = float(threshold)
        shapes = {self.mean.shape, self.scale.shape, self.weights.shape}
        if shapes != {(len(FEATURES),)} or not all(np.isfinite(a).all() for a in (self.mean, self.scale, self.weights)):
            raise ValueError(f"d6 verifier: mean, scale and weights must be {len(FEATURES)} finite numbers each")
        if not (math.isfinite(self.bias) and 0.0 <= self.threshold < 1.0 and np.all(self.scale > 0)):
            raise ValueError("d6 verifier: bias must be finite, threshold in [0, 1), scale positive")
        self._mean, self._scale, self._weights = self.mean.tolist(), self.scale.tolist(), self.weights.tolist()

    def probability(self, x: np.ndarray) -> np.ndarray:
        """(..., F) measures → (...) probability that each reading is a die's top face of its value."""
        z = ((np.asarray(x, np.float64) - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def keeps(self, face, value: int, margin: float) -> bool:
        """Whether one reading's probability (:meth:`probability` of its :func:`features`) reaches
        the threshold: the same sum in plain Python, for the reader's one-at-a-time checks."""
        z = self.bias + sum(w * (x - m) / s for x, m, s, w in zip(_measures(face, value, margin), self._mean,
                                                                   self._scale, self._weights))
        return 1.0 / (1.0 + math.exp(-min(max(z, -50.0), 50.0))) >= self.threshold

    def to_json(self) -> dict:
        """The model as a JSON-ready dict (what :meth:`from_json` and the shipped file hold)."""
        return {"features": list(FEATURES), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "weights": self.weights.tolist(), "bias": self.bias, "threshold": self.threshold}

    @classmethod
    def from_json(cls, d: dict) -> Verifier:
        """From :meth:`to_json`'s dict.

        Raises:
            ValueError: a model made for other measures, a missing field, or a field that is not
                numbers of the right shape.
        """
        if not isinstance(d, dict) or d.get("features") != list(FEATURES):
            raise ValueError(f"d6 verifier: the file's features are not {list(FEATURES)}")
        missing = [k for k in ("mean", "scale", "weights", "bias", "threshold") if k not in d]
        if missing:
            raise ValueError(f"d6 verifier: the file has no {', '.join(missing)}")
        try:
            return cls(d["mean"], d["scale"], d["weights"], d["bias"], d["threshold"])
        except (TypeError, ValueError) as e:
            if str(e).startswith("d6 verifier"):
                raise
            raise ValueError(f"d6 verifier: mean, scale, weights, bias and threshold must be numbers ({e})") from None


@lru_cache(maxsize=1)
def shipped() -> Verifier | None:
    """The verifier shipped in the package, or None when its file is absent (the reader then keeps
    every reading its rules let through, as before the verifier).

    Raises:
        ValueError: the file is there but is not a verifier (not JSON, or not :meth:`Verifier.to_json`'s
            fields), named with its path: a damaged install, never silently read without it.
    """
    path = resources.files("companion").joinpath("data", MODEL_NAME)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return Verifier.from_json(json.loads(raw.decode("utf-8")))
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise ValueError(f"{path}: not a pip-dice verifier: {e}") from None
