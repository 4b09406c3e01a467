"""Where the screens go: a pygame window/panel, or numbered PNG files for headless runs and tests.

One contract, ``Display.show(what)``, where ``what`` is a ``pygame.Surface``, a view-model from
``companion.app.screens`` (``ScoreboardView``/``FinalView``, rendered at the display's size), or a
(H, W, 3) uint8 BGR image (e.g. a camera frame for debugging).

* ``WindowDisplay(size)`` opens a pygame window. On a desktop it is a normal window; on a
  console-only Raspberry Pi (no X/Wayland) SDL2 picks its KMSDRM driver and draws straight to the
  panel (set ``SDL_VIDEODRIVER=kmsdrm`` to insist; the user needs to be in the ``video`` and
  ``render`` groups). Use ``fullscreen=True`` there so the panel's own mode is used.
* ``PngDisplay(out_dir)`` writes ``screen-0001.png``, ``screen-0002.png``… and needs no video
  device at all (``SDL_VIDEODRIVER=dummy`` is only needed if something else opens a display).

pygame is imported lazily so importing this module is cheap.
"""

from __future__ import annotations

import os

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import pygame

DEFAULT_SIZE = (480, 320)


def _pygame():
    """Import pygame (pygame-ce) lazily, without its start-up banner."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    return pygame


def save_png(surface: "pygame.Surface", path: str | Path) -> Path:
    """Write ``surface`` as a PNG (creating parent folders); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _pygame().image.save(surface, str(path))
    return path


class DisplayError(RuntimeError):
    """The display cannot be opened (no video driver, no permission); the message says why."""


@runtime_checkable
class Display(Protocol):
    """Something that shows screens. ``size`` is (width, height) px."""

    size: tuple[int, int]

    def show(self, what: Any) -> Any:
        """Show a Surface, anything with ``render(size) -> Surface`` (the app's screens), or a
        (H, W, 3) uint8 BGR image."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> "Display": ...

    def __exit__(self, *exc) -> None: ...


def to_surface(what: Any, size: tuple[int, int]) -> "pygame.Surface":
    """Turn what ``Display.show`` accepts into a Surface.

    Args:
        what: a ``pygame.Surface`` (returned as is); anything with a ``render(size)`` method that
            returns a Surface (the app's screen view-models: the display knows no screens, so
            devices never import the app); or a (H, W, 3) uint8 BGR numpy image (converted to RGB).
        size: (width, height) px for rendering.

    Raises:
        TypeError: anything else, or an array that is not (H, W, 3) uint8.
    """
    pygame = _pygame()
    if isinstance(what, pygame.Surface):
        return what
    if callable(getattr(what, "render", None)):
        return what.render(size)
    shape = getattr(what, "shape", None)
    if shape is not None:
        import numpy as np

        if what.dtype != np.uint8 or len(shape) != 3 or shape[2] != 3:
            raise TypeError(f"an image to show must be (H, W, 3) uint8 BGR, got {shape} {what.dtype}")
        rgb = np.ascontiguousarray(what[:, :, ::-1])
        return pygame.image.frombuffer(rgb.tobytes(), (shape[1], shape[0]), "RGB")
    raise TypeError(f"cannot show a {type(what).__name__}; give a Surface, a screen view, or a BGR image")


def _fit(pygame, surface: "pygame.Surface", size: tuple[int, int]) -> "pygame.Surface":
    """Scale ``surface`` to fit ``size`` keeping its aspect, centred on black (letterbox)."""
    if surface.get_size() == tuple(size):
        return surface
    sw, sh = surface.get_size()
    k = min(size[0] / sw, size[1] / sh)
    target = (max(1, int(sw * k)), max(1, int(sh * k)))
    try:
        scaled = pygame.transform.smoothscale(surface, target)
    except ValueError:  # smoothscale wants 24/32-bit surfaces; a palette image still shows, blockier
        scaled = pygame.transform.scale(surface, target)
    out = pygame.Surface(size)
    out.fill((0, 0, 0))
    out.blit(scaled, scaled.get_rect(center=(size[0] // 2, size[1] // 2)))
    return out


class _Base:
    size: tuple[int, int] = DEFAULT_SIZE

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        pass


#: SDL video drivers that draw to no screen at all.
INVISIBLE_DRIVERS = ("offscreen", "dummy")


class WindowDisplay(_Base):
    """A pygame window (desktop) or the whole panel (Pi console via KMSDRM).

    Args:
        size: (width, height) px of the window; screens are rendered at this size.
        fullscreen: take the whole screen (use on the Pi's panel); hides the mouse pointer.
        title: the window caption.

    Raises:
        DisplayError: SDL cannot open a video device; the message names the driver and what to try.
    """

    def __init__(
        self, size: tuple[int, int] = DEFAULT_SIZE, fullscreen: bool = False, title: str = "Sushi Go! companion"
    ) -> None:
        pygame = _pygame()
        self._pg = pygame
        try:
            pygame.display.init()
            driver = pygame.display.get_driver()
            # With no screen SDL falls back to an invisible driver; a window there helps nobody,
            # unless the user asked for it by name (tests set SDL_VIDEODRIVER=dummy on purpose).
            if driver in INVISIBLE_DRIVERS and os.environ.get("SDL_VIDEODRIVER") != driver:
                raise pygame.error("no screen found (SDL fell back to the invisible driver)")
            flags = pygame.FULLSCREEN if fullscreen else 0
            # fullscreen with (0, 0) takes the panel's native mode instead of forcing a mode change
            self._screen = pygame.display.set_mode((0, 0) if fullscreen else tuple(size), flags)
        except pygame.error as exc:
            driver = pygame.display.get_driver() if pygame.display.get_init() else "none"
            pygame.display.quit()
            raise DisplayError(
                f"cannot open a pygame display (SDL driver {driver!r}): {exc}. On a console-only Pi "
                "set SDL_VIDEODRIVER=kmsdrm and add the user to the 'video' and 'render' groups; "
                "with no screen at all use PngDisplay (--headless)."
            ) from exc
        pygame.display.set_caption(title)
        if fullscreen:
            pygame.mouse.set_visible(False)
        self.size = self._screen.get_size()
        self.quit_requested = False
        self._open = True

    def show(self, what: Any) -> None:
        """Draw ``what`` (letterboxed if its size differs) and flip; also pumps window events."""
        if not self._open:
            raise DisplayError("WindowDisplay is closed")
        surface = _fit(self._pg, to_surface(what, self.size), self.size)
        self._screen.blit(surface, (0, 0))
        self._pg.display.flip()
        self.poll_quit()

    def poll_quit(self) -> bool:
        """Handle pending window events; True once the window was closed or Esc/q pressed."""
        pg = self._pg
        keep = []
        for event in pg.event.get():
            if event.type == pg.QUIT or (event.type == pg.KEYDOWN and event.key in (pg.K_ESCAPE, pg.K_q)):
                self.quit_requested = True
            elif event.type in (pg.KEYDOWN, pg.KEYUP):
                keep.append(event)
        # the keys panel reads the other keys: put them back, in order
        for event in keep:
            pg.event.post(event)
        return self.quit_requested

    def close(self) -> None:
        if self._open:
            self._pg.display.quit()
        self._open = False


class PngDisplay(_Base):
    """Write each shown screen as a numbered PNG: ``out_dir/{prefix}-0001.png``, ….

    Args:
        out_dir: created if missing.
        size: (width, height) px at which view-models are rendered (Surfaces are saved as given).
        prefix: file name prefix.
        only_changes: skip a screen identical to the previous one (pixel for pixel), so a long
            game does not write hundreds of the same scoreboard.

    ``show`` returns the path written, or None when skipped; ``paths`` lists every file written.
    """

    def __init__(
        self,
        out_dir: str | Path,
        size: tuple[int, int] = DEFAULT_SIZE,
        prefix: str = "screen",
        only_changes: bool = False,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.size = (int(size[0]), int(size[1]))
        self.prefix = prefix
        self.only_changes = only_changes
        self.paths: list[Path] = []
        self._last: bytes | None = None
        self._count = 0

    def show(self, what: Any) -> Path | None:
        pygame = _pygame()
        surface = to_surface(what, self.size)
        if self.only_changes:
            pixels = pygame.image.tobytes(surface, "RGB")
            if pixels == self._last:
                return None
            self._last = pixels
        self._count += 1
        path = save_png(surface, self.out_dir / f"{self.prefix}-{self._count:04d}.png")
        self.paths.append(path)
        return path

    def close(self) -> None:
        pass


def open_display(spec: str) -> Display:
    """Open a display from a spec string.

    Specs: ``window`` / ``window:WxH`` (a window, default 480×320), ``fullscreen`` (the whole
    panel), ``png:DIR`` / ``png:DIR:WxH`` (numbered PNGs, only changed screens).

    Raises:
        ValueError: an unknown or malformed spec. DisplayError: as WindowDisplay raises.
    """
    import re

    def size_of(text: str) -> tuple[int, int]:
        m = re.fullmatch(r"(\d+)[xX](\d+)", text)
        if not m:
            raise ValueError(f"display spec {spec!r}: size must look like 480x320, not {text!r}")
        return int(m.group(1)), int(m.group(2))

    kind, _, arg = spec.partition(":")
    if kind == "window":
        return WindowDisplay(size_of(arg) if arg else DEFAULT_SIZE)
    if kind == "fullscreen":
        return WindowDisplay(fullscreen=True)
    if kind == "png":
        folder, _, size = arg.rpartition(":") if re.search(r":\d+[xX]\d+$", arg) else (arg, "", "")
        if not folder:
            raise ValueError(f"display spec {spec!r}: say where to write, e.g. 'png:screens/'")
        return PngDisplay(folder, size_of(size) if size else DEFAULT_SIZE, only_changes=True)
    raise ValueError(f"unknown display spec {spec!r}; use 'window', 'window:WxH', 'fullscreen' or 'png:DIR'")
