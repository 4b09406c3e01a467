"""A panel script kept by camera frame (issue #11: a recorded game replays its presses at the frames
they were made, however fast a replay reads the frames)."""

from __future__ import annotations

import json

import pytest

from companion.devices.panel import PanelError, ScriptPanel, read_script


def _script(tmp_path, entries) -> str:
    path = tmp_path / "panel.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return str(path)


def test_presses_come_out_once_their_frame_has_been_sent(tmp_path):
    panel = ScriptPanel(_script(tmp_path, [{"frame": 3, "event": "right"}, {"frame": 3, "event": "ok"},
                                           {"frame": 9, "event": "ok"}]))
    assert panel.get(timeout=0) is None  # time alone releases nothing
    panel.at_frame(2)
    assert panel.get(timeout=0) is None
    panel.at_frame(3)
    assert [panel.get(timeout=0).name, panel.get(timeout=0).name] == ["right", "ok"]
    assert panel.get(timeout=0) is None and not panel.exhausted
    panel.at_frame(20)
    assert panel.get(timeout=0).name == "ok" and panel.exhausted


def test_a_resumed_game_skips_what_was_pressed_before(tmp_path):
    panel = ScriptPanel(_script(tmp_path, [{"frame": 3, "event": "ok"}, {"frame": 5, "event": "left"}]))
    panel.skip_frames(4)
    panel.at_frame(5)
    assert panel.get(timeout=0).name == "left"


def test_a_time_script_ignores_frames(tmp_path):
    clock = iter([0.0, 0.0, 0.0]).__next__
    panel = ScriptPanel(_script(tmp_path, [{"t": 100, "event": "ok"}]), clock=clock)
    panel.at_frame(10 ** 6)
    assert panel._events.empty()


@pytest.mark.parametrize("entries,words", [
    ([{"frame": 2, "event": "ok"}, {"t": 3, "event": "ok"}], "one script uses 't' or 'frame'"),
    ([{"frame": 2.5, "event": "ok"}], "whole number"),
    ([{"frame": 5, "event": "ok"}, {"frame": 4, "event": "ok"}], "comes before"),
])
def test_bad_frame_scripts_are_named(tmp_path, entries, words):
    with pytest.raises(PanelError, match=words):
        read_script(_script(tmp_path, entries))
