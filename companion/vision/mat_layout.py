"""The play mat's geometry: marker positions and the zones of each seat, in mm.

Pure data (no cv2): the simulator draws it, the mat tracker detects it. The layouts live in
``calibration/mats/{game}-{N}p.toml``. Coordinates are mat millimetres, origin at the top-left
corner, x to the right, y down. Seats run clockwise seen from above, so "pass left"
(sushi-go.txt, "PLAYING A ROUND"; sushi-roll.txt, SLIDE AND ROLL) is seat ``i`` → seat ``i + 1``.

A Sushi Go! mat has one ``tableau`` zone per seat. A Sushi Roll mat has two per seat: the
``belt`` (the conveyor belt's dice, nearer the middle of the table) and the ``tray`` (the dice the
player keeps, nearer the player) (sushi-roll.txt, SET UP).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from companion.calibration import calibration_dir


class MatLayoutError(ValueError):
    """A mat layout file is missing or malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Marker:
    """One ArUco marker printed on the mat: its id, centre (mm) and side length (mm)."""

    id: int
    center_mm: tuple[float, float]
    size_mm: float

    def corners_mm(self) -> list[tuple[float, float]]:
        """The 4 corners in ArUco's order (top-left, top-right, bottom-right, bottom-left), mm."""
        cx, cy = self.center_mm
        h = self.size_mm / 2
        return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]


@dataclass(frozen=True)
class Zone:
    """An area in front of one seat: where that player's tableau lies (``kind`` ``"tableau"``), or,
    in Sushi Roll, their conveyor belt (``"belt"``) or tray (``"tray"``).

    ``rect_mm`` is ``(x, y, w, h)``; ``facing`` is the rotation in degrees that makes a card
    read upright for the seated player (0 for a seat at the bottom edge, 180 at the top).
    """

    seat: int
    name: str
    rect_mm: tuple[float, float, float, float]
    facing: int
    kind: str = "tableau"

    def contains(self, x_mm: float, y_mm: float) -> bool:
        """True if the point (mm) lies inside this zone (edges included)."""
        x, y, w, h = self.rect_mm
        return x <= x_mm <= x + w and y <= y_mm <= y + h


@dataclass(frozen=True)
class MatLayout:
    """A whole mat: size (mm), card size (mm), 4 corner markers, and the seat zones in seat order;
    ``game``: ``"sushi-go"`` or ``"sushi-roll"`` (which zones each seat has, see the module doc)."""

    name: str
    players: int
    width_mm: float
    height_mm: float
    card_mm: tuple[float, float]
    aruco_dictionary: str
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    game: str = "sushi-go"

    def zone_of(self, seat: int, kind: str) -> Zone:
        """Seat ``seat``'s zone of ``kind``. Raises KeyError if the mat has none."""
        for zone in self.zones:
            if zone.seat == seat and zone.kind == kind:
                return zone
        raise KeyError(f"mat {self.name} has no {kind} zone for seat {seat}")

    def zone_at(self, x_mm: float, y_mm: float) -> Zone | None:
        """The zone holding the point (mm), or None if it lies outside every zone."""
        for zone in self.zones:
            if zone.contains(x_mm, y_mm):
                return zone
        return None

    def in_zones(self, xs_mm, ys_mm):
        """(N,) bool: for each point (mm; ``xs_mm``, ``ys_mm`` (N,) float64 arrays) whether it lies
        in a zone, edges included: ``zone_at(x, y) is not None`` for every point at once, by the
        same comparisons of the same values as :meth:`Zone.contains` (the card tracker tests some
        hundreds of window centres a turn)."""
        import numpy as np

        inside = np.zeros(len(xs_mm), bool)
        for zone in self.zones:
            x, y, w, h = zone.rect_mm
            inside |= (x <= xs_mm) & (xs_mm <= x + w) & (y <= ys_mm) & (ys_mm <= y + h)
        return inside


#: The games with mats, and the zone kinds each seat has on them.
GAME_ZONES = {"sushi-go": ("tableau",), "sushi-roll": ("belt", "tray")}
_TITLES = {"sushi-go": "Sushi Go!", "sushi-roll": "Sushi Roll"}


def mat_path(players: int, game: str = "sushi-go") -> Path:
    """The layout file for a ``players``-seat mat of ``game``."""
    return calibration_dir() / "mats" / f"{game}-{players}p.toml"


def load_mat_layout(players: int | None = None, path: Path | str | None = None, game: str = "sushi-go") -> MatLayout:
    """Load a mat layout by game and player count (2–5) or from an explicit TOML ``path``.

    Raises:
        MatLayoutError: no layout for that game or player count, or a field is missing or wrong.
    """
    if game not in GAME_ZONES:
        raise MatLayoutError(f"no mats for the game {game!r}; mats exist for {', '.join(GAME_ZONES)}")
    if path is None:
        if players is None or isinstance(players, bool) or not 2 <= players <= 5:
            raise MatLayoutError(f"players must be 2 to 5 for a {_TITLES[game]} mat, not {players!r}")
        path = mat_path(players, game)
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise MatLayoutError(f"{path}: mat layout file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise MatLayoutError(f"{path}: not valid TOML: {exc}") from None
    try:
        markers = tuple(
            Marker(int(m["id"]), (float(m["center_mm"][0]), float(m["center_mm"][1])), float(m["size_mm"]))
            for m in data["markers"]
        )
        zones = tuple(
            Zone(int(z["seat"]), str(z["name"]), tuple(float(v) for v in z["rect_mm"]), int(z["facing"]),
                 str(z.get("kind", "tableau")))
            for z in data["zones"]
        )
        layout = MatLayout(
            name=str(data["name"]),
            players=int(data["players"]),
            width_mm=float(data["width_mm"]),
            height_mm=float(data["height_mm"]),
            card_mm=(float(data["card_mm"][0]), float(data["card_mm"][1])),
            aruco_dictionary=str(data["aruco_dictionary"]),
            markers=markers,
            zones=zones,
            game=str(data.get("game", "sushi-go")),
        )
    except KeyError as exc:
        raise MatLayoutError(f"{path}: missing field {exc.args[0]!r}") from None
    except (TypeError, ValueError, IndexError) as exc:
        raise MatLayoutError(f"{path}: malformed field: {exc}") from None
    if len(markers) != 4:
        raise MatLayoutError(f"{path}: markers: a mat needs exactly 4 corner markers, found {len(markers)}")
    kinds = GAME_ZONES.get(layout.game)
    if kinds is None:
        raise MatLayoutError(f"{path}: game: {layout.game!r} has no mats; games are {', '.join(GAME_ZONES)}")
    want = [(seat, kind) for seat in range(layout.players) for kind in kinds]
    if [(z.seat, z.kind) for z in zones] != want:
        each = " and ".join(kinds)
        raise MatLayoutError(f"{path}: zones: need seats 0..{layout.players - 1} in order, each with its {each} zone"
                             f" ({_TITLES[layout.game]})")
    return layout


#: The printed title's lines (:func:`title_lines_mm`): each line's cap height, mm, and its centre's
#: offset, mm, from the middle of the free band between the top and bottom seats' zones (y down);
#: and the share of the mat's width a line may span (wider lines are drawn shrunk to it). The
#: simulator's mat (``companion.sim.mat_image.render_mat``) is drawn from these, and the card
#: reader's title test (``companion.vision.card_search._on_title``) finds the title by them.
TITLE_CAP_MM = 22.0
SUBTITLE_CAP_MM = 7.0
TITLE_DY_MM = -14.0
SUBTITLE_DY_MM = 18.0
TITLE_MAX_WIDTH = 0.8
#: The font the mat's text is drawn in (``cv2.FONT_HERSHEY_DUPLEX``; its caps are ~22 px tall at
#: scale 1), as an int so this module needs no cv2 to load.
TEXT_FONT = 2


def text_size_px(text: str, height_px: int) -> tuple[int, int, float, int, int]:
    """``(w, h, scale, thick, base)``: the px box of ``text`` drawn in ``TEXT_FONT`` with caps about
    ``height_px`` px tall (w, h include the baseline's descent and a pad of ``thick + 2`` px each
    side), the font scale, stroke thickness (px) and the descent below the baseline (px). Used by the simulator's text stamps and by
    :func:`title_box_mm` (cv2 is imported here, when called)."""
    import cv2

    scale = height_px / 22.0  # Hershey duplex caps are ~22 px tall at scale 1
    thick = max(1, int(round(scale * 1.6)))
    (w, h), base = cv2.getTextSize(text, TEXT_FONT, scale, thick)
    pad = thick + 2
    return w + 2 * pad, h + base + 2 * pad, scale, thick, base


def title_lines_mm(layout: MatLayout) -> list[tuple[str, tuple[float, float], float]]:
    """The mat's printed title, line by line: ``(text, (cx, cy) centre mm, cap height mm)``, the
    title ("SUSHI GO!  COMPANION MAT") and the subtitle (players, print size, markers), centred
    across the mat in the free band between the top seats' zones (facing 180) and the bottom
    seats' (``TITLE_DY_MM``, ``SUBTITLE_DY_MM`` from the band's middle)."""
    tops = [z.rect_mm[1] + z.rect_mm[3] for z in layout.zones if z.facing % 360 == 180]
    bottoms = [z.rect_mm[1] for z in layout.zones if z.facing % 360 != 180]
    cy = (max(tops, default=0.0) + min(bottoms, default=layout.height_mm)) / 2
    cx = layout.width_mm / 2
    title = f"{'SUSHI ROLL' if layout.game == 'sushi-roll' else 'SUSHI GO!'}  COMPANION MAT"
    sub = (f"{layout.players} players  -  print at 100%: {layout.width_mm:g} x {layout.height_mm:g} mm"
           "  -  keep the 4 corner markers uncovered")
    return [(title, (cx, cy + TITLE_DY_MM), TITLE_CAP_MM), (sub, (cx, cy + SUBTITLE_DY_MM), SUBTITLE_CAP_MM)]


def title_box_mm(layout: MatLayout, line: int = 0, px_per_mm: float = 10.0) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` mm: the box the title's line ``line`` (0 the title, 1 the subtitle,
    :func:`title_lines_mm`) is printed in, its text's own extent (:func:`text_size_px` at
    ``px_per_mm``, shrunk to ``TITLE_MAX_WIDTH`` of the mat's width as drawn), no margin."""
    text, (cx, cy), cap = title_lines_mm(layout)[line]
    w, h, _, _, _ = text_size_px(text, max(1, int(round(cap * px_per_mm))))
    w_mm, h_mm = w / px_per_mm, h / px_per_mm
    if w_mm > TITLE_MAX_WIDTH * layout.width_mm:
        f = TITLE_MAX_WIDTH * layout.width_mm / w_mm
        w_mm, h_mm = w_mm * f, h_mm * f
    return cx - w_mm / 2, cy - h_mm / 2, cx + w_mm / 2, cy + h_mm / 2
