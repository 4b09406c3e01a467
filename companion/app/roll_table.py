"""Reading a Sushi Roll table: every die on the conveyor belts and trays of the mat (issue #10).

The dice game's counterpart of :meth:`companion.app.table_game.TableGame.look`: one frame in,
the dice of every seat's belt and tray out (:class:`RollTableRead`, a
:class:`~companion.app.roll_moves.TableDice` that ``roll_moves.infer_actions`` compares with
the last settle), judging nothing.

1. **The mat.** :class:`~companion.vision.mat.MatTracker` finds the 4 ArUco markers and the
   image px → mat mm homography. A frame in which the mat is not confirmed is not read (None):
   with a kept homography it would read as a table whose dice all vanished.
2. **Straightened tiles.** The part of the mat that holds the zones (their bounding box, grown by
   ``AREA_MARGIN_MM``; what of a corner marker's white quiet zone reaches into it is painted the
   mat's colour, as it would be taken for a white die) is warped square onto the mat at
   ``READ_PX_PER_MM``, in tiles of at most ``dice_find.WORK_SIDE`` px that overlap by
   ``TILE_OVERLAP_MM``. A Sushi Roll die is ~16 mm, so a whole mat in one camera frame shows its
   top face at 22 px (1280×960) to 35 px (2028×1520), below the 40 px the icon reader is made for
   (issue #7 §2), and the icon reader shrinks any photo longer than ``WORK_SIDE``: the tiles give
   it every die at 40 px and straight (the perspective taken out). ``cv2.warpPerspective``
   (OpenCV, geometric image transformations).
3. **Faces.** :func:`~companion.vision.dice_icons.read_icon_dice` on each tile. A die belongs to
   the tile in whose core (the tile less half the overlap on each inner side) its top face's
   centre lies: the tiles' cores partition the area, and the overlap is wide enough that a die in
   a core lies whole in its tile (top face, the sides it shows and its shadow). Two tiles place a
   die by the line between their cores a little apart (each finds its own square), so a die is
   taken from a tile within ``CORE_SLACK_MM`` of its core, and of readings less than
   ``DIE_NEAR_MM`` apart (dice lie a die's width apart at least) the one deeper inside its tile
   is kept: no die is counted twice or lost between two tiles.
4. **Zones.** Each top face's centre, in mat mm, goes to the zone it lies in, or within
   ``ZONE_SLACK_MM`` of (the nearest): the top face stands a die's height above the mat, so the
   camera sees it displaced away from its nadir by up to about half a die near the mat's edge,
   and a die lying on a zone's edge is on that zone. A die farther from every zone is ``loose``:
   the caller says "a die lies off the belts and trays". A die whose face no enrolled face
   matches, or which cannot be read, is kept as ``"unknown"`` with its place, never dropped.

A die left unnamed in its tile gets a second look: a small square round it is straightened again
at three larger scales, bicubic, and read at each. Dice at 30 px in the frame are below the
icon reader's 40 px (issue #7), and each scale gives the finder a slightly different square and
the classifier a slightly different patch: a face named at two of the three and contradicted by
none is taken (on the simulated frames looked at while building it, a third of the unnamed dice
were named so, none wrongly; ``bench/roll_read.py`` measures it on others).

Faces are spelled as the engine spells them (``str(Face)``: ``"maki*2"``, ``"tempura"``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.app.roll_moves import SeenDie, TableDice

if TYPE_CHECKING:  # numpy and cv2 are only needed once frames arrive
    import numpy as np

    from companion.vision.dice_faces import DiceSet
    from companion.vision.mat import MatTracker
    from companion.vision.mat_layout import MatLayout, Zone

#: A die's face that the reader could not name (no enrolled face matches, or it is not readable).
UNKNOWN = "unknown"
#: Scale (px per mat mm) of the straightened tiles: a 16 mm die's top face is then 40 px, the
#: smallest the icon reader is made for (issue #7 §2).
READ_PX_PER_MM = 2.5
#: Tiles overlap by this (mm), so a die whose top centre lies in a tile's core lies whole in it:
#: half of it (24 mm) covers half a top face's diagonal (11 mm), the top's displacement by the
#: camera's view (up to ~9 mm at the frame's edge) and the side faces and shadow beyond.
TILE_OVERLAP_MM = 48.0
#: A die is taken from a tile when its top face's centre lies in the tile's core or within this
#: (mm) of it: two tiles place a die by the line between their cores a little apart.
CORE_SLACK_MM = 4.0
#: The area searched: the zones' bounding box grown by this (mm): a die half off a zone is still
#: seen, and the corner markers (white, like a nigiri die's body) stay out but for a sliver of
#: quiet zone (``_cover_markers``).
AREA_MARGIN_MM = 8.0
#: A top face's centre within this (mm) of a zone belongs to it (half a die): see the module doc.
ZONE_SLACK_MM = 8.0
#: A die the tiles leave unnamed gets a second look (module doc, 3): a square of this side (mm)
#: round it straightened at each of these scales (px per mm), bicubic; a face named at
#: ``SECOND_LOOK_VOTES`` of them, and no other face at any, is its face.
SECOND_LOOK_MM = 40.0
SECOND_LOOK_PX_PER_MM = (3.0, 3.5, 4.5)
SECOND_LOOK_VOTES = 2
#: Two readings whose top faces' centres are within this (mm) are one die (dice lie at least a
#: die's width, 16 mm, apart); the die looked at again is the one within this of where it was.
DIE_NEAR_MM = 6.0


@dataclass(frozen=True)
class RollTableRead(TableDice):
    """Every die read in one frame: ``belts[s]``, ``trays[s]`` per seat (as :class:`TableDice`),
    and ``loose``: dice lying off every belt and tray.

    Each die is a :class:`~companion.app.roll_moves.SeenDie`: its face (``"maki*2"``, or
    ``"unknown"``) and its top face's centre on the mat (mm).
    """

    loose: tuple[SeenDie, ...] = ()

    @property
    def unknown(self) -> tuple[tuple[str, int | None, SeenDie], ...]:
        """The dice the reader could not name, as ``(zone kind, seat, die)``: zone kind ``"belt"``,
        ``"tray"`` or ``"loose"`` (seat None)."""
        out: list[tuple[str, int | None, SeenDie]] = []
        for kind, per_seat in (("belt", self.belts), ("tray", self.trays)):
            out += [(kind, s, d) for s, dice in enumerate(per_seat) for d in dice if d.face == UNKNOWN]
        out += [("loose", None, d) for d in self.loose if d.face == UNKNOWN]
        return tuple(out)

    @property
    def complete(self) -> bool:
        """True when every die lies on a belt or a tray and shows a face the reader named: only
        then may the reading go to ``roll_moves.infer_actions`` (which knows no ``"unknown"``)."""
        return not self.loose and not self.unknown


@dataclass(frozen=True)
class _Tile:
    x0_mm: float  # the tile's top-left corner, mat mm
    y0_mm: float
    width_px: int
    height_px: int
    core_mm: tuple[float, float, float, float]  # x0, y0, x1, y1: the dice this tile answers for


def _spans(lo: float, hi: float, tile_mm: float, overlap_mm: float) -> list[tuple[float, float, float, float]]:
    """(start, end, core start, core end) of tiles covering [lo, hi] mm with this overlap."""
    length = hi - lo
    n = max(1, math.ceil((length - overlap_mm) / (tile_mm - overlap_mm)))
    size = min(tile_mm, (length + (n - 1) * overlap_mm) / n)
    step = (length - size) / (n - 1) if n > 1 else 0.0
    out = []
    for i in range(n):
        a = lo + i * step
        ca = lo if i == 0 else a + overlap_mm / 2
        cb = hi if i == n - 1 else a + size - overlap_mm / 2
        out.append((a, a + size, ca, cb))
    return out


def _tiles(layout: MatLayout, px_per_mm: float) -> list[_Tile]:
    """The straightened tiles covering the zones' area (module doc, 2)."""
    from companion.vision.dice_find import WORK_SIDE

    x0 = max(0.0, min(z.rect_mm[0] for z in layout.zones) - AREA_MARGIN_MM)
    y0 = max(0.0, min(z.rect_mm[1] for z in layout.zones) - AREA_MARGIN_MM)
    x1 = min(layout.width_mm, max(z.rect_mm[0] + z.rect_mm[2] for z in layout.zones) + AREA_MARGIN_MM)
    y1 = min(layout.height_mm, max(z.rect_mm[1] + z.rect_mm[3] for z in layout.zones) + AREA_MARGIN_MM)
    # Whole multiples of 4 px: the icon reader's coarse stage works at a quarter of the size.
    tile_mm = (WORK_SIDE // 4 * 4) / px_per_mm
    out = []
    for ya, yb, cya, cyb in _spans(y0, y1, tile_mm, TILE_OVERLAP_MM):
        for xa, xb, cxa, cxb in _spans(x0, x1, tile_mm, TILE_OVERLAP_MM):
            w = min(WORK_SIDE, 4 * math.ceil((xb - xa) * px_per_mm / 4))
            h = min(WORK_SIDE, 4 * math.ceil((yb - ya) * px_per_mm / 4))
            out.append(_Tile(xa, ya, w, h, (cxa, cya, cxb, cyb)))
    return out


def _marker_boxes(layout: MatLayout) -> list[tuple[float, float, float, float]]:
    """Each corner marker with its white quiet zone (one marker cell all round, as
    ``companion.sim.mat_image`` prints it), ``(x0, y0, x1, y1)`` mat mm."""
    import cv2

    cells = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.aruco_dictionary)).markerSize + 2
    out = []
    for m in layout.markers:
        h = m.size_mm / 2 + m.size_mm / cells
        out.append((m.center_mm[0] - h, m.center_mm[1] - h, m.center_mm[0] + h, m.center_mm[1] + h))
    return out


def _cover_markers(img: np.ndarray, tile: _Tile, boxes: list[tuple[float, float, float, float]],
                   px_per_mm: float) -> None:
    """Paint the markers' parts in a tile the mat's colour (the tile's median), in place: a
    marker's white quiet zone next to a zone would be taken for a white (nigiri) die."""
    import numpy as np

    median = None
    th, tw = img.shape[:2]
    for x0, y0, x1, y1 in boxes:
        a = int(math.floor((x0 - tile.x0_mm) * px_per_mm)), int(math.floor((y0 - tile.y0_mm) * px_per_mm))
        b = int(math.ceil((x1 - tile.x0_mm) * px_per_mm)), int(math.ceil((y1 - tile.y0_mm) * px_per_mm))
        xa, ya, xb, yb = max(a[0], 0), max(a[1], 0), min(b[0], tw), min(b[1], th)
        if xa >= xb or ya >= yb:
            continue
        if median is None:
            median = np.median(img[::8, ::8].reshape(-1, 3), axis=0).astype(np.uint8)
        img[ya:yb, xa:xb] = median


def _second_look(frame: np.ndarray, homography: np.ndarray, centre_mm: tuple[float, float],
                 dice: DiceSet) -> str:
    """The face of the die whose top face is centred at ``centre_mm``, from a second look at it
    (module doc), or ``"unknown"``."""
    import cv2
    import numpy as np

    from companion.vision.dice_icons import read_icon_dice

    votes: dict[str, int] = {}
    for ppm in SECOND_LOOK_PX_PER_MM:
        n = 4 * round(SECOND_LOOK_MM * ppm / 4)
        x0, y0 = centre_mm[0] - SECOND_LOOK_MM / 2, centre_mm[1] - SECOND_LOOK_MM / 2
        to_crop = np.array([[ppm, 0, -x0 * ppm - 0.5], [0, ppm, -y0 * ppm - 0.5], [0, 0, 1]])
        crop = cv2.warpPerspective(frame, to_crop @ homography, (n, n), flags=cv2.INTER_CUBIC,
                                   borderMode=cv2.BORDER_REPLICATE)
        mid = (n - 1) / 2
        near = [o for o in read_icon_dice(crop, dice)
                if math.hypot(o.center[0] - mid, o.center[1] - mid) <= DIE_NEAR_MM * ppm]
        for o in near:
            if o.face not in (None, UNKNOWN):
                votes[o.face] = votes.get(o.face, 0) + 1
    if len(votes) == 1:
        (face, n_votes), = votes.items()
        if n_votes >= SECOND_LOOK_VOTES:
            return face
    return UNKNOWN


def _zone_distance(zone: Zone, x: float, y: float) -> float:
    """Distance (mm) from a point to the zone's rectangle (0 inside)."""
    zx, zy, zw, zh = zone.rect_mm
    dx = max(zx - x, 0.0, x - (zx + zw))
    dy = max(zy - y, 0.0, y - (zy + zh))
    return math.hypot(dx, dy)


def read_roll_table(
    frame: np.ndarray,
    tracker: MatTracker,
    layout: MatLayout,
    dice: DiceSet,
    *,
    px_per_mm: float = READ_PX_PER_MM,
    timings: dict | None = None,
    report: dict | None = None,
) -> RollTableRead | None:
    """Read every die on a Sushi Roll mat in one camera frame (module doc).

    Args:
        frame: (H, W, 3) uint8 BGR, the camera's full frame (a whole mat in 2028×1520, the Pi
            camera's main stream, shows a die's top face at ~30–35 px; at 1280×960 it is ~20 px,
            too small to tell ``maki*2`` from ``maki*3``).
        tracker: the mat tracker (its kept homography is updated by this frame).
        layout: the Sushi Roll mat (``load_mat_layout(n, game="sushi-roll")``), the tracker's.
        dice: the enrolled dice (``companion enroll --dice``).
        px_per_mm: scale of the straightened tiles (default ``READ_PX_PER_MM``: 40 px dice).
        timings: if given, filled with ``mat_ms``, ``warp_ms`` and ``read_ms`` (wall-clock ms),
            for benchmarks.
        report: if given, ``report["mat"]`` is set to the tracker's
            :class:`~companion.vision.mat.MatStatus` for this frame (its message says why a frame
            was not read), and ``report["homography"]`` to the image px → mat mm homography used.

    Returns:
        A :class:`RollTableRead` (belts and trays per seat, loose dice; ``"unknown"`` where no
        face could be named), or None when the mat is not found in this frame (or the frame is
        not an image: the tracker's message says why).

    Raises:
        ValueError: ``layout`` is not a Sushi Roll mat, or ``px_per_mm`` is not positive.
    """
    import cv2
    import numpy as np

    from companion.vision.dice_icons import read_icon_dice
    from companion.vision.mat import to_mat_mm

    if layout.game != "sushi-roll":
        raise ValueError(f"read_roll_table: mat {layout.name} is a {layout.game} mat; dice are read on a sushi-roll mat")
    if not (isinstance(px_per_mm, (int, float)) and math.isfinite(px_per_mm) and px_per_mm > 0):
        raise ValueError(f"read_roll_table: px_per_mm must be a positive number, not {px_per_mm!r}")
    t0 = time.perf_counter()
    status = tracker.update(frame)
    if report is not None:
        report["mat"], report["homography"] = status, status.homography
    if status.homography is None or status.bad_frame or not status.found:
        return None
    t1 = time.perf_counter()
    markers = _marker_boxes(layout)
    warp_s = 0.0
    readings: list[tuple[float, str, tuple[float, float]]] = []  # (depth in its tile, face, centre)
    for tile in _tiles(layout, px_per_mm):
        # mat mm → tile px (pixel-centre convention: the mm point x0 is the left edge of px 0).
        to_tile = np.array([[px_per_mm, 0, -tile.x0_mm * px_per_mm - 0.5],
                            [0, px_per_mm, -tile.y0_mm * px_per_mm - 0.5], [0, 0, 1]])
        tw = time.perf_counter()
        img = cv2.warpPerspective(frame, to_tile @ status.homography, (tile.width_px, tile.height_px),
                                  flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        _cover_markers(img, tile, markers, px_per_mm)
        warp_s += time.perf_counter() - tw
        obs = read_icon_dice(img, dice)
        if not obs:
            continue
        centres = to_mat_mm(np.linalg.inv(to_tile), [o.center for o in obs])
        cx0, cy0, cx1, cy1 = tile.core_mm
        x1, y1 = tile.x0_mm + tile.width_px / px_per_mm, tile.y0_mm + tile.height_px / px_per_mm
        for o, (x, y) in zip(obs, centres):
            if cx0 - CORE_SLACK_MM <= x <= cx1 + CORE_SLACK_MM and cy0 - CORE_SLACK_MM <= y <= cy1 + CORE_SLACK_MM:
                depth = min(x - tile.x0_mm, x1 - x, y - tile.y0_mm, y1 - y)
                readings.append((depth, o.face if o.face else UNKNOWN, (float(x), float(y))))
    # A die by the line between two cores is seen in both tiles, its centre a little apart: the
    # reading deeper inside its tile stands for it.
    found: list[tuple[str, tuple[float, float]]] = []
    for _, face, centre in sorted(readings, key=lambda r: -r[0]):
        if all(math.dist(centre, c) > DIE_NEAR_MM for _, c in found):
            found.append((face, centre))
    found = [(face if face != UNKNOWN else _second_look(frame, status.homography, centre, dice), centre)
             for face, centre in found]
    t2 = time.perf_counter()
    seats = layout.players
    belts: list[list[SeenDie]] = [[] for _ in range(seats)]
    trays: list[list[SeenDie]] = [[] for _ in range(seats)]
    loose: list[SeenDie] = []
    for face, (x, y) in found:
        die = SeenDie(face, (x, y))
        dist, zone = min(((_zone_distance(z, x, y), z) for z in layout.zones), key=lambda t: t[0])
        if dist > ZONE_SLACK_MM:
            loose.append(die)
        else:
            (belts if zone.kind == "belt" else trays)[zone.seat].append(die)
    if timings is not None:
        timings["mat_ms"] = (t1 - t0) * 1000.0
        timings["warp_ms"] = warp_s * 1000.0
        timings["read_ms"] = (t2 - t1 - warp_s) * 1000.0
    return RollTableRead(tuple(tuple(b) for b in belts), tuple(tuple(t) for t in trays), tuple(loose))
