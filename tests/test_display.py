"""Displays: PNG output for headless runs, a window under SDL's dummy driver, one show() contract."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from companion.app.screens import FinalRow, FinalView, ScoreboardView, SeatView, render_scoreboard  # noqa: E402
from companion.devices.display import (  # noqa: E402
    Display,
    PngDisplay,
    WindowDisplay,
    open_display,
    to_surface,
)

pygame = pytest.importorskip("pygame")


def view(total=12):
    seats = [SeatView("Ann", ["tempura"], [], 0, total), SeatView("Bo", [], [], 1, 3)]
    return ScoreboardView("Round 1 — turn 3", seats)


def test_png_display_writes_numbered_pngs(tmp_path):
    with PngDisplay(tmp_path / "out", size=(800, 480)) as display:
        assert isinstance(display, Display)
        first = display.show(view())
        second = display.show(FinalView([FinalRow("Ann", [12], 0, 12, 0)], ["Ann"]))
        third = display.show(render_scoreboard(view(), (480, 320)))  # a Surface is saved as given
    assert [p.name for p in (first, second, third)] == ["screen-0001.png", "screen-0002.png", "screen-0003.png"]
    assert display.paths == [first, second, third]
    assert pygame.image.load(str(first)).get_size() == (800, 480)
    assert pygame.image.load(str(third)).get_size() == (480, 320)


def test_png_display_can_skip_unchanged_screens(tmp_path):
    display = PngDisplay(tmp_path, only_changes=True)
    assert display.show(view(12)) is not None
    assert display.show(view(12)) is None
    assert display.show(view(13)) is not None
    assert len(display.paths) == 2


def test_show_accepts_a_bgr_image(tmp_path):
    img = np.zeros((40, 60, 3), np.uint8)
    img[:, :, 2] = 255  # red in BGR
    surface = to_surface(img, (480, 320))
    assert surface.get_size() == (60, 40) and surface.get_at((5, 5))[:3] == (255, 0, 0)
    with pytest.raises(TypeError):
        to_surface(np.zeros((4, 4), np.float32), (480, 320))
    with pytest.raises(TypeError):
        to_surface("text", (480, 320))


def test_window_display_under_the_dummy_driver():
    if os.environ.get("SDL_VIDEODRIVER") != "dummy":
        pytest.skip("only with SDL_VIDEODRIVER=dummy, so no real window opens")
    with WindowDisplay((480, 320)) as display:
        assert display.size == (480, 320)
        display.show(view())
        screen = pygame.display.get_surface()
        assert pygame.surfarray.array3d(screen).std() > 10  # something was drawn
        # a smaller surface is letterboxed: centred, black around it
        small = pygame.Surface((240, 100))
        small.fill((255, 255, 255))
        display.show(small)
        assert screen.get_at((240, 160))[:3] == (255, 255, 255)
        assert screen.get_at((2, 2))[:3] == (0, 0, 0)
        assert display.poll_quit() is False
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        assert display.poll_quit() is True
    assert not pygame.display.get_init()


def test_open_display_specs(tmp_path):
    d = open_display(f"png:{tmp_path / 'a'}")
    assert isinstance(d, PngDisplay) and d.size == (480, 320) and d.only_changes
    d = open_display(f"png:{tmp_path / 'b'}:800x480")
    assert d.size == (800, 480) and d.out_dir == tmp_path / "b"
    with pytest.raises(ValueError, match="unknown display spec"):
        open_display("hdmi")
    with pytest.raises(ValueError):
        open_display("png:")


def test_window_display_refuses_an_invisible_fallback_driver(monkeypatch):
    # With no screen and no driver asked for, SDL falls back to "offscreen"; a window there is
    # invisible, so the demo must hear "no screen" and suggest --headless instead.
    import pygame

    from companion.devices.display import DisplayError, WindowDisplay

    pygame.display.quit()
    for var in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    try:
        pygame.display.init()
        driver = pygame.display.get_driver()
        pygame.display.quit()
        if driver not in ("offscreen", "dummy"):
            pytest.skip(f"this machine has a real video driver ({driver})")
        with pytest.raises(DisplayError, match="no screen found"):
            WindowDisplay((480, 320))
    finally:
        pygame.display.quit()
