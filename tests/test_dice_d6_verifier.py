"""The pip reader's learned verifier (companion.vision.dice_verify) and its training script."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from companion.vision import dice_verify, train_d6_verifier
from companion.vision.dice_d6 import Face, Pip, _read_d6
from companion.vision.dice_verify import FEATURES, Verifier, features, shipped

ROOT = Path(__file__).resolve().parent.parent
PHOTOS = ROOT.parent / "shared" / "datasets" / "d6-photos" / "train"
NEEDS_PHOTOS = pytest.mark.skipif(not PHOTOS.is_dir(), reason="../shared/datasets/d6-photos is missing "
                                  "(the shared datasets sit beside the repo)")


def _one(diameter: float, contrast: float, half_width: float, roundness: float = 0.8) -> Face:
    """A one's face: a lone dark pip of ``diameter`` px at (100, 100) on a face of ``half_width`` px."""
    major = diameter / math.sqrt(roundness)
    pip = Pip(100.0, 100.0, math.pi * diameter**2 / 4, major, major * roundness, 0.0, contrast, 1)
    return Face(np.array([[half_width, 0.0, 100.0], [0.0, half_width, 100.0]]), (pip,), 0.0)


def test_the_shipped_model_is_json_and_loads_without_pickle():
    text = (ROOT / "companion" / "data" / dice_verify.MODEL_NAME).read_text(encoding="utf-8")
    d = json.loads(text)
    assert d["features"] == list(FEATURES)
    v = shipped()
    assert isinstance(v, Verifier) and 0.0 < v.threshold < 1.0


def test_a_model_for_other_measures_is_refused():
    d = shipped().to_json()
    with pytest.raises(ValueError, match="features"):
        Verifier.from_json({**d, "features": d["features"][:-1]})
    with pytest.raises(ValueError):
        Verifier.from_json({**d, "weights": [float("nan")] * len(FEATURES)})


def test_a_faint_speck_read_as_a_one_is_doubted_and_a_dies_one_is_not():
    v = shipped()
    # As the dev photos' spurious ones (a dark speck on the table: 3 px, contrast 0.36, margin 0.14)
    # and their dice's ones (9 px pips, contrast 0.66, margin 0.73).
    speck = v.probability(features(_one(2.8, 0.36, 7.0), 1, 0.14))
    die = v.probability(features(_one(9.0, 0.66, 23.0), 1, 0.73))
    assert speck < v.threshold < die


def test_training_labels_a_reading_by_the_box_it_lies_in():
    labels = [(3, (100.0, 100.0, 130.0, 130.0))]
    assert train_d6_verifier.label_of((115, 115), 3, labels) == 1
    assert train_d6_verifier.label_of((115, 115), 2, labels) == 0  # on the die, another value
    assert train_d6_verifier.label_of((135, 115), 3, labels) is None  # beside it: a side face, left out
    assert train_d6_verifier.label_of((300, 300), 3, labels) == 0  # on no die


def test_training_labels_a_simulated_reading_by_the_top_face_it_lies_on():
    quads = [(3, np.array([[100.0, 100.0], [130.0, 100.0], [130.0, 130.0], [100.0, 130.0]]))]
    assert train_d6_verifier.label_sim((115, 115), 3, quads) == 1
    assert train_d6_verifier.label_sim((115, 115), 2, quads) == 0  # the top face, another value
    assert train_d6_verifier.label_sim((137, 115), 3, quads) is None  # beside it: a side face, left out
    assert train_d6_verifier.label_sim((300, 300), 3, quads) == 0  # on no die


def test_training_is_deterministic_and_learns_the_measure_that_separates():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, len(FEATURES)))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(np.float64)
    a = train_d6_verifier.fit(X, y, 1.0, 0.5)
    b = train_d6_verifier.fit(X, y, 1.0, 0.5)
    assert a.to_json() == b.to_json()
    assert np.argmax(np.abs(a.weights)) == 0 and a.weights[0] > 0
    assert np.mean((a.probability(X) > 0.5) == (y > 0)) > 0.9


@NEEDS_PHOTOS
def test_training_uses_the_bench_dev_half_only(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import real_dice

    assert train_d6_verifier.dev_photos(PHOTOS) == real_dice.photos("dev")


@NEEDS_PHOTOS
def test_the_verifier_drops_spurious_readings_on_dev_photos(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import real_dice

    # Every 3rd dev photo (the model saw these: it checks the reader uses it, not how it generalises,
    # which bench/real_dice.py --part test measures).
    photos = train_d6_verifier.read_real(real_dice.photos("dev")[::3])
    v = shipped()
    with_v = train_d6_verifier.score_photos(photos, lambda i, f, value, margin: v.keeps(f, value, margin))["real"]
    without = train_d6_verifier.score_photos(photos, lambda i, f, value, margin: True)["real"]
    assert with_v["spurious"] < without["spurious"]
    assert with_v["right"] >= without["right"] - 1 and with_v["wrong"] <= without["wrong"]


def test_the_reader_works_without_the_model_file(monkeypatch):
    img = _a_five()
    monkeypatch.setattr(dice_verify, "MODEL_NAME", "no_such_model.json")
    shipped.cache_clear()
    try:
        assert shipped() is None
        assert [o.value for o in _read_d6(img, shipped(), None)] == [5]
    finally:
        monkeypatch.undo()
        shipped.cache_clear()


@pytest.mark.parametrize("diameter,contrast,half_width,margin", [(2.8, 0.36, 7.0, 0.14), (9.0, 0.66, 23.0, 0.73),
                                                                  (5.0, 0.45, 12.0, 0.3), (6.0, 0.5, 15.0, 0.45)])
def test_the_readers_one_at_a_time_check_is_the_probability_against_the_threshold(diameter, contrast, half_width, margin):
    v = shipped()
    face = _one(diameter, contrast, half_width)
    p = float(v.probability(features(face, 1, margin)))
    assert v.keeps(face, 1, margin) == (p >= v.threshold)
    for t in (p - 1e-6, p + 1e-6):  # either side of this reading's probability
        w = Verifier(v.mean, v.scale, v.weights, v.bias, min(max(t, 0.0), 0.999))
        assert w.keeps(face, 1, margin) == (t <= p)


@pytest.mark.parametrize("threshold", [0.0, 0.4, 0.9, 0.99])
def test_replaying_a_trace_with_a_verifier_reads_as_the_reader_does(threshold):
    import cv2

    from companion.vision.dice_d6 import select_readings
    from companion.vision.imageio import to_original_px
    from companion.vision.observations import DieObservation

    # The training script scores verifiers by replaying one traced reading per photo; strict
    # thresholds refuse readings, so the replay must pick a group's next best reading, or the
    # unread fallback, as the reader does.
    v = shipped()
    v = Verifier(v.mean, v.scale, v.weights, v.bias, threshold)
    changed = 0
    for k in range(4):
        img = cv2.imread(str(ROOT / "tests" / "fixtures" / "dice" / f"d6_{k}.jpg"), cv2.IMREAD_COLOR)
        trace: list = []
        free = _read_d6(img, None, trace)
        want = _readings(_read_d6(img, v, None))
        got = _readings(DieObservation(None if value is None else str(value), 0.0,
                                       tuple(map(tuple, to_original_px(f.quad(), trace[0][1]).tolist())))
                        for value, f in select_readings(trace, v.keeps))
        assert got == want
        changed += want != _readings(free)
    if threshold >= 0.9:
        assert changed  # the strict verifiers did refuse readings: the replay was put to the test


def _readings(observations) -> list:
    """Sorted (value, centre rounded to 0.01 px) of DieObservations."""
    return sorted(((o.value, tuple(round(float(c), 2) for c in o.center)) for o in observations),
                  key=lambda t: (t[1], str(t[0])))


def _a_five() -> np.ndarray:
    """(300, 300, 3) uint8 BGR: one ivory five, 60 px a side, on a wooden-brown table."""
    import cv2

    from companion.sim.dice import draw_die

    canvas = np.full((300, 300, 3), (70, 110, 150), np.float32)
    draw_die(canvas, "d6", "5", (150.0, 150.0), 60.0, 10.0, view=(0.1, -0.08))
    return np.clip(cv2.GaussianBlur(canvas, (0, 0), 0.7), 0, 255).astype(np.uint8)


def test_read_d6_asks_the_shipped_verifier(monkeypatch):
    from companion.vision.dice_d6 import read_d6

    zeros = [0.0] * len(FEATURES)
    doubts_all = Verifier(zeros, [1.0] * len(FEATURES), zeros, -20.0, 0.5)  # p ≈ 0 for every reading
    img = _a_five()
    assert [o.value for o in read_d6(img)] == [5]
    monkeypatch.setattr(dice_verify, "shipped", lambda: doubts_all)
    assert [o.value for o in read_d6(img) if o.value is not None] == []


@pytest.mark.parametrize("text,words", [("{not json", "not a pip-dice verifier"),
                                        ('{"features": %s}' % json.dumps(list(FEATURES)), "has no mean"),
                                        (None, "must be numbers")])
def test_a_damaged_model_file_is_named_not_a_traceback(tmp_path, monkeypatch, text, words):
    if text is None:  # every field there, one of them not numbers
        d = shipped().to_json()
        text = json.dumps({**d, "weights": ["a"] * len(FEATURES)})
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / dice_verify.MODEL_NAME).write_text(text, encoding="utf-8")

    class _Resources:
        @staticmethod
        def files(_package):
            return tmp_path

    monkeypatch.setattr(dice_verify, "resources", _Resources)
    shipped.cache_clear()
    try:
        with pytest.raises(ValueError, match=words) as e:
            shipped()
        assert dice_verify.MODEL_NAME in str(e.value)
    finally:
        monkeypatch.undo()
        shipped.cache_clear()
