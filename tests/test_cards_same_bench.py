"""``bench/cards_same.py`` tells two records of ``read_cards`` apart on any change of a label, a quad
or the number of readings, lets a confidence differ only by ``CONF_TOL``, and refuses bad arguments
with exit status 2 (no traceback)."""

from __future__ import annotations

import json

from benches import load_bench


def _write(path, frames):
    path.write_text("".join(json.dumps({"frame": f, "obs": obs}) + "\n" for f, obs in frames))


def test_records_compare_equal_only_when_every_reading_is_the_same(tmp_path):
    cs = load_bench("cards_same")
    quad = [[10.0, 20.0], [70.0, 20.0], [70.0, 105.0], [10.0, 105.0]]
    base = [("a(960, 1280, 3)", [["tempura", 0.97, quad], ["unknown", 0.5, quad]]), ("b(960, 1280, 3)", [])]
    _write(tmp_path / "b.jsonl", base)

    def diffs(frames):
        _write(tmp_path / "a.jsonl", frames)
        return cs._compare(tmp_path / "a.jsonl", tmp_path / "b.jsonl")

    assert diffs(base) == []
    moved = [[10.0, 20.0], [70.0, 20.0], [70.0, 105.00001], [10.0, 105.0]]  # one corner, a hair
    assert len(diffs([("a(960, 1280, 3)", [["tempura", 0.97, moved], ["unknown", 0.5, quad]]), base[1]])) == 1
    assert len(diffs([("a(960, 1280, 3)", [["sashimi", 0.97, quad], ["unknown", 0.5, quad]]), base[1]])) == 1
    assert len(diffs([("a(960, 1280, 3)", [["tempura", 0.97, quad]]), base[1]])) == 1
    assert len(diffs([base[0]])) == 1  # a frame fewer
    assert len(diffs([("c(960, 1280, 3)", base[0][1]), base[1]])) == 1  # another frame
    near = 0.97 + 0.5 * cs.CONF_TOL
    far = 0.97 + 10 * cs.CONF_TOL
    assert diffs([("a(960, 1280, 3)", [["tempura", near, quad], ["unknown", 0.5, quad]]), base[1]]) == []
    assert len(diffs([("a(960, 1280, 3)", [["tempura", far, quad], ["unknown", 0.5, quad]]), base[1]])) == 1


def test_bad_arguments_are_refused_with_status_2(tmp_path, capsys):
    cs = load_bench("cards_same")
    assert cs.main(["--base", str(tmp_path), "--bench", "cpu"]) == 2  # no companion there
    assert cs.main(["--base", str(tmp_path), "--bench", "no_such_bench"]) == 2
    assert "cards_same:" in capsys.readouterr().err
