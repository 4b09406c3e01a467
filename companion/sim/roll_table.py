"""The overhead camera over a Sushi Roll table: icon dice lying on the conveyor belts and trays of
a Sushi Roll mat (issue #10).

The Sushi Roll counterpart of :mod:`companion.sim.table` (cards) and :mod:`companion.sim.scene`
(where each card lies, kept from turn to turn):

* :func:`layout_dice` — place each zone's dice at random inside it, none overlapping another;
* :class:`RollScene` — where each die lies, kept from one engine state to the next, so that the
  frames before and after one action differ only by the dice that action moved;
* :func:`render_roll_table` — one camera frame of the mat with those dice, and the truth.

The frame is made as the card simulator makes it (the same ``ShotConditions``: camera pose, table,
light, blur, noise, JPEG): the printed mat (``companion.sim.mat_image``) warped into the camera
view over the table, then each die drawn in image px by :func:`companion.sim.dice.draw_die`, its
side faces showing as a pinhole camera would see them (the top face displaced away from the
camera's nadir, ``companion.sim.dice`` module doc), with soft drop shadows; then the camera's
light, colour cast, blur, noise and JPEG (``sim.table.finish_shot``).

Stacks: in Sushi Roll a nigiri die taken while the tray shows an open wasabi goes *on top of*
that die (sushi-roll.txt, EVERYBODY TAKES A TURN, Nigiri and Wasabi). The scene draws it so: the
nigiri die stands on the wasabi die, whose top face the camera cannot see (``SimDie.visible``).

Coordinates: mat mm (origin top-left, x right, y down) as in ``mat_layout``; image px in OpenCV's
pixel-centre convention, as ``sim.table``.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from companion.rules.sushi_roll.dice import as_face
from companion.rules.sushi_roll.state import TrayDie
from companion.sim.dice import DIE_SIZE_MM, draw_die
from companion.sim.table import ShotConditions, _camera_homography, _mat_canvas, light_gain, table_background
from companion.vision.mat_layout import MatLayout, Zone

__all__ = ["DIE_SIZE_MM", "RenderedRollTable", "RollScene", "SimDie", "layout_dice", "render_roll_table"]

#: Smallest gap (mm) between two dice's circumscribed circles: dice at any turn never touch, and
#: the top face a neighbour shows displaced towards it (up to ~half a die at the frame's edge)
#: does not cover this one's top.
DICE_GAP_MM = 2.0
#: A die's footprint keeps this far (mm) inside its zone's edge.
ZONE_INSET_MM = 1.0
_PLACE_TRIES = 400


@dataclass(frozen=True)
class SimDie:
    """One die lying on the simulated mat.

    Attributes:
        face: the face on top, as the engine spells it (``str(Face)``: ``"maki*2"``, ``"tempura"``).
        seat: the seat whose zone it lies in.
        zone: ``"belt"`` or ``"tray"`` (the truth only: a die put anywhere else by hand, e.g. off
            every zone, may say what it likes, such as ``"loose"``).
        center_mm: the centre of its footprint on the mat, mat mm.
        angle_deg: its turn, degrees counter-clockwise as seen from the camera (0: the face art
            upright on the mat's y-down drawing).
        level: 0 on the mat, 1 standing on another die (a nigiri on a wasabi).
        visible: False when another die stands on it (its top face cannot be seen).
    """

    face: str
    seat: int
    zone: str
    center_mm: tuple[float, float]
    angle_deg: float
    level: int = 0
    visible: bool = True

    @property
    def kind(self) -> str:
        """The die type (``"maki"``...), from the face."""
        return as_face(self.face).kind.value


def _zone_dice(values: Sequence, what: str) -> list[tuple[str, str | None]]:
    """``(face, nigiri on it or None)`` per die position of a belt or tray, faces checked."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ValueError(f"{what} must be a sequence of faces (such as ('maki*2', 'tempura')), not {values!r}")
    out = []
    for i, v in enumerate(values):
        try:
            if isinstance(v, TrayDie):
                out.append((str(v.face), None if v.nigiri is None else str(v.nigiri)))
            else:
                out.append((str(as_face(v)), None))
        except ValueError as exc:
            raise ValueError(f"{what}[{i}]: {exc}") from None
    return out


def _check_zones(layout: MatLayout, belts: Sequence, trays: Sequence) -> tuple[list, list]:
    if layout.game != "sushi-roll":
        raise ValueError(f"mat {layout.name} is a {layout.game} mat; dice lie on a sushi-roll mat's belts and trays")
    for name, per_seat in (("belts", belts), ("trays", trays)):
        if isinstance(per_seat, str) or not isinstance(per_seat, Sequence) or len(per_seat) > layout.players:
            raise ValueError(f"{name} must be one sequence of faces per seat (at most {layout.players} on mat "
                             f"{layout.name}), not {per_seat!r}")
    b = [_zone_dice(v, f"belts[{s}]") for s, v in enumerate(belts)]
    t = [_zone_dice(v, f"trays[{s}]") for s, v in enumerate(trays)]
    for s, belt in enumerate(b):
        if any(n is not None for _, n in belt):
            raise ValueError(f"belts[{s}]: a die on a conveyor belt stands on nothing (a nigiri goes on a wasabi on a tray)")
    return b, t


def _free_spot(zone: Zone, taken: list[tuple[float, float]], rng: np.random.Generator) -> tuple[float, float] | None:
    """A random footprint centre inside ``zone`` (mm) clear of every centre in ``taken``, or None."""
    r = DIE_SIZE_MM * math.sqrt(0.5)  # circumscribed circle: any turn fits
    x, y, w, h = zone.rect_mm
    lo_x, hi_x = x + r + ZONE_INSET_MM, x + w - r - ZONE_INSET_MM
    lo_y, hi_y = y + r + ZONE_INSET_MM, y + h - r - ZONE_INSET_MM
    if lo_x > hi_x or lo_y > hi_y:
        return None
    d2 = (2 * r + DICE_GAP_MM) ** 2
    for _ in range(_PLACE_TRIES):
        c = (float(rng.uniform(lo_x, hi_x)), float(rng.uniform(lo_y, hi_y)))
        if all((c[0] - t[0]) ** 2 + (c[1] - t[1]) ** 2 >= d2 for t in taken):
            return c
    return None


def _in_zone(zone: Zone, p: tuple[float, float]) -> tuple[float, float]:
    """``p`` (mat mm) as fractions (u, v) across and into ``zone`` as its player sees it: u 0..1
    from their left, v 0..1 from the zone's far edge (the player's facing turns the mat's axes)."""
    x, y, w, h = zone.rect_mm
    u, v = (p[0] - x) / w, (p[1] - y) / h
    turns = round(zone.facing / 90) % 4
    for _ in range(turns):  # each quarter turn of the player turns their view of the zone
        u, v = v, 1.0 - u
    return u, v


def _from_zone(zone: Zone, u: float, v: float) -> tuple[float, float]:
    """The inverse of :func:`_in_zone`: mat mm of the fractions (u, v) of ``zone``."""
    turns = round(zone.facing / 90) % 4
    for _ in range(turns):
        u, v = 1.0 - v, u
    x, y, w, h = zone.rect_mm
    return x + u * w, y + v * h


def _nearest_free(zone: Zone, want: tuple[float, float], taken: list[tuple[float, float]]) -> tuple[float, float] | None:
    """The footprint centre nearest ``want`` (mm, searched on rings 1 mm apart) inside ``zone``
    and clear of every centre in ``taken``, as :func:`_free_spot` keeps dice apart; None if none."""
    r = DIE_SIZE_MM * math.sqrt(0.5)
    x, y, w, h = zone.rect_mm
    lo_x, hi_x = x + r + ZONE_INSET_MM, x + w - r - ZONE_INSET_MM
    lo_y, hi_y = y + r + ZONE_INSET_MM, y + h - r - ZONE_INSET_MM
    if lo_x > hi_x or lo_y > hi_y:
        return None
    d2 = (2 * r + DICE_GAP_MM) ** 2
    cx, cy = min(max(want[0], lo_x), hi_x), min(max(want[1], lo_y), hi_y)
    for ring in range(int(math.hypot(w, h)) + 1):
        steps = max(1, 8 * ring)
        for k in range(steps):
            a = 2 * math.pi * k / steps
            c = (cx + ring * math.cos(a), cy + ring * math.sin(a))
            if not (lo_x <= c[0] <= hi_x and lo_y <= c[1] <= hi_y):
                continue
            if all((c[0] - t[0]) ** 2 + (c[1] - t[1]) ** 2 >= d2 for t in taken):
                return c
    return None


def _angle(rng: np.random.Generator) -> float:
    # Dice are rolled or put down by hand: any turn (the reader must read them at every turn).
    return float(rng.uniform(0.0, 360.0))


def _place(layout: MatLayout, seat: int, kind: str, taken: list[tuple[float, float]], rng: np.random.Generator,
           count: int) -> tuple[float, float]:
    zone = layout.zone_of(seat, kind)
    c = _free_spot(zone, taken, rng)
    if c is None:
        raise ValueError(f"{zone.name} on mat {layout.name}: no room for {count} dice of {DIE_SIZE_MM:g} mm "
                         f"without overlap")
    taken.append(c)
    return c


def _stack(face: str, nigiri: str | None, seat: int, c: tuple[float, float], angle: float,
           rng: np.random.Generator) -> list[SimDie]:
    if nigiri is None:
        return [SimDie(face, seat, "tray", c, angle)]
    # A nigiri put on a wasabi by hand: nearly square on it, a little off.
    top_c = (c[0] + float(rng.uniform(-1, 1)), c[1] + float(rng.uniform(-1, 1)))
    return [SimDie(face, seat, "tray", c, angle, 0, False),
            SimDie(nigiri, seat, "tray", top_c, angle + float(rng.uniform(-12, 12)), 1, True)]


def layout_dice(layout: MatLayout, belts: Sequence[Sequence], trays: Sequence[Sequence],
                rng: np.random.Generator) -> list[SimDie]:
    """Place every seat's belt and tray dice at random inside its zones, none overlapping another.

    Args:
        layout: a Sushi Roll mat (``load_mat_layout(n, game="sushi-roll")``).
        belts, trays: per seat (seat order; may be shorter than the seats), the faces there: names
            (``"maki*2"``), :class:`~companion.rules.sushi_roll.dice.Face`, or for trays
            :class:`~companion.rules.sushi_roll.state.TrayDie` (a wasabi with its nigiri is a
            stack of two dice) — a ``SushiRollState``'s ``belts`` and ``trays`` as they are.
        rng: draws each die's place (uniform in its zone) and turn (any).

    Returns:
        One :class:`SimDie` per die, belts then trays, seat by seat.

    Raises:
        ValueError: not a Sushi Roll mat, a bad face (naming where), more seats than the mat has,
            or a zone too small for its dice (naming it).
    """
    b, t = _check_zones(layout, belts, trays)
    out: list[SimDie] = []
    for kind, per_seat in (("belt", b), ("tray", t)):
        for seat, dice in enumerate(per_seat):
            taken: list[tuple[float, float]] = []
            for face, nigiri in dice:
                c = _place(layout, seat, kind, taken, rng, len(dice))
                if kind == "belt":
                    out.append(SimDie(face, seat, kind, c, _angle(rng)))
                else:
                    out += _stack(face, nigiri, seat, c, _angle(rng), rng)
    return out


class RollScene:
    """Where each die lies on the simulated mat, kept from one engine state to the next.

    A die stays where it lies until it leaves its zone or shows another face, as on a real table:
    after a take only that die moved (belt to tray); after a chopsticks swap the two dice traded
    places; after a menu re-roll the re-rolled dice lie where they landed. Dice arriving in a
    zone take the places the dice leaving it left (a swap), then any free place.

    Args:
        layout: a Sushi Roll mat.
        rng: draws the places and turns of dice as they arrive.
    """

    def __init__(self, layout: MatLayout, rng: np.random.Generator) -> None:
        if layout.game != "sushi-roll":
            raise ValueError(f"mat {layout.name} is a {layout.game} mat, not a sushi-roll mat")
        self.layout = layout
        self._rng = rng
        self._dice: dict[tuple[int, str], list[list[SimDie]]] = {}

    def sync(self, belts: Sequence[Sequence], trays: Sequence[Sequence], *, rerolled: Sequence[int] = (),
             rethrown: Mapping[int, Sequence] | None = None) -> None:
        """Make the table show these belts and trays, moving nothing that stays.

        Args:
            belts, trays: per seat, as for :func:`layout_dice` (a ``SushiRollState``'s own).
            rerolled: seats whose belt dice were all thrown again (a new round, a slide and roll):
                every die there lands anew even where a face repeats.
            rethrown: per seat, the faces (as they lay before) of some of its belt dice thrown
                again (a menu token spent, sushi-roll.txt, EVERYBODY TAKES A TURN, Menu): those dice
                land anew, clear of the places they left and of every die that stays, even where a
                face repeats; the belt's other dice do not move. Of dice showing one face, the
                first laid is the one thrown.

        Raises:
            ValueError: as :func:`layout_dice`; a ``rethrown`` seat the mat does not have, or a face
                not on that seat's belt (naming both).
        """
        b, t = _check_zones(self.layout, belts, trays)
        thrown = self._take_rethrown(rethrown or {})
        for kind, per_seat in (("belt", b), ("tray", t)):
            for seat in range(self.layout.players):
                wanted = per_seat[seat] if seat < len(per_seat) else []
                old = [] if (kind == "belt" and seat in rerolled) else self._dice.get((seat, kind), [])
                avoid: list[tuple[float, float]] = []
                if kind == "belt" and seat in thrown:
                    old, avoid = thrown[seat]
                self._dice[(seat, kind)] = self._sync_zone(seat, kind, old, wanted, avoid)

    def _take_rethrown(self, rethrown: Mapping[int, Sequence]) -> dict[int, tuple[list, list]]:
        """Per seat in ``rethrown``: (its belt dice less those thrown, the places those left)."""
        out: dict[int, tuple[list, list]] = {}
        for seat, faces in rethrown.items():
            if type(seat) is not int or not 0 <= seat < self.layout.players:
                raise ValueError(f"rethrown: mat {self.layout.name} has seats 0 to {self.layout.players - 1}, "
                                 f"not {seat!r}")
            left = list(self._dice.get((seat, "belt"), []))
            places = []
            for i, (face, _) in enumerate(_zone_dice(faces, f"rethrown[{seat}]")):
                hit = next((s for s in left if s[0].face == face), None)
                if hit is None:
                    raise ValueError(f"rethrown[{seat}][{i}]: no {face} lies on seat {seat}'s belt to throw again")
                left.remove(hit)
                places.append(hit[0].center_mm)
            out[seat] = (left, places)
        return out

    def _sync_zone(self, seat: int, kind: str, old: list[list[SimDie]],
                   wanted: list[tuple[str, str | None]],
                   avoid: Sequence[tuple[float, float]] = ()) -> list[list[SimDie]]:
        left = list(old)
        kept: list[list[SimDie]] = []
        arriving: list[tuple[str, str | None]] = []
        for face, nigiri in wanted:
            hit = next((s for s in left if s[0].face == face and (s[1].face if len(s) > 1 else None) == nigiri), None)
            if hit is None and nigiri is not None:
                # The nigiri just went on this wasabi: the wasabi stays, the nigiri is put on it.
                hit = next((s for s in left if s[0].face == face and len(s) == 1), None)
                if hit is not None:
                    left.remove(hit)
                    c, a = hit[0].center_mm, hit[0].angle_deg
                    kept.append(_stack(face, nigiri, seat, c, a, self._rng))
                    continue
            if hit is None:
                arriving.append((face, nigiri))
            else:
                left.remove(hit)
                kept.append(hit)
        freed = [s[0].center_mm for s in left]
        taken = [s[0].center_mm for s in kept]
        for face, nigiri in arriving:
            if freed:
                c = freed.pop(0)
                taken.append(c)
            elif avoid:
                # A die thrown again lands where no die lay: the camera sees it move even when it
                # shows the face it showed (a crowded belt falls back to any free place).
                c = _free_spot(self.layout.zone_of(seat, kind), taken + list(avoid), self._rng)
                if c is None:
                    c = _place(self.layout, seat, kind, taken, self._rng, len(wanted))
                else:
                    taken.append(c)
            else:
                c = _place(self.layout, seat, kind, taken, self._rng, len(wanted))
            stack = _stack(face, nigiri, seat, c, _angle(self._rng), self._rng)
            kept.append(stack if kind == "tray" else [SimDie(face, seat, kind, c, stack[0].angle_deg)])
        return kept

    def slide_belts(self) -> None:
        """Carry every conveyor belt, dice and all, to the next seat (seat s's belt to seat
        (s + 1) % n's belt zone, sushi-roll.txt, SLIDE AND ROLL; faces unchanged).

        Each die keeps its place relative to the belt: its position across and along the zone, as
        the zone's player sees it (``Zone.facing``), is carried to the same fraction of the next
        zone, and its turn by the difference in facing. Zones of other sizes squeeze or stretch
        the belt: a die that would then lie too close to one already carried moves to the nearest
        free place (the belt's dice never overlap).

        Raises:
            ValueError: a zone too small for its dice (naming it).
        """
        n = self.layout.players
        moved: dict[tuple[int, str], list[list[SimDie]]] = {}
        for seat in range(n):
            to = (seat + 1) % n
            src, dst = self.layout.zone_of(seat, "belt"), self.layout.zone_of(to, "belt")
            taken: list[tuple[float, float]] = []
            out: list[list[SimDie]] = []
            for stack in self._dice.get((seat, "belt"), []):
                d = stack[0]
                u, v = _in_zone(src, d.center_mm)
                c = _nearest_free(dst, _from_zone(dst, u, v), taken)
                if c is None:
                    c = _place(self.layout, to, "belt", taken, self._rng, len(self._dice[(seat, "belt")]))
                else:
                    taken.append(c)
                angle = (d.angle_deg + dst.facing - src.facing) % 360.0
                out.append([replace(d, seat=to, center_mm=c, angle_deg=angle)])
            moved[(to, "belt")] = out
        self._dice.update(moved)

    def dice(self) -> list[SimDie]:
        """Every die on the table, belts then trays, seat by seat (a stack's lower die first)."""
        out: list[SimDie] = []
        for kind in ("belt", "tray"):
            for seat in range(self.layout.players):
                for stack in self._dice.get((seat, kind), []):
                    out += stack
        return out


@dataclass
class RenderedRollTable:
    """One simulated frame of a Sushi Roll table and its ground truth.

    Attributes:
        image: (H, W, 3) uint8 BGR, after the JPEG round trip.
        homography: (3, 3) float64, mat mm → image px (of the mat's plane, the table).
        dice: the dice drawn, as given.
        quads: per die, (4, 2) float32 image px: its top face's corners, clockwise from the art's
            top-left (``draw_die``); a die under another has the quad its top would have.
        conditions: the ShotConditions used.
        focal_px: the simulated camera's focal length, px.
    """

    image: np.ndarray
    homography: np.ndarray
    dice: list[SimDie]
    quads: list[np.ndarray] = field(default_factory=list)
    conditions: ShotConditions = field(default_factory=ShotConditions)
    focal_px: float = 0.0


def _table_seed(cond: ShotConditions) -> int:
    """The table's texture seed: one table per set of conditions (a stream's table does not change)."""
    return zlib.crc32(repr(cond).encode())


@lru_cache(maxsize=2)  # ~75 MB each at 2028×1520
def _empty_table(layout: MatLayout, size: tuple[int, int], cond: ShotConditions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the empty table as the camera sees it before its light, (H, W, 3) float32 BGR; the light's
    gain per pixel and channel, (H, W, 3) float32; the mat mm → image px homography).

    The mat is warped as ``sim.table.render_table`` warps it (the canvas drawn at ~1.5× the camera's
    px/mm and shrunk by one ``warpPerspective``) over ``sim.table.table_background``; the gain is
    ``sim.table.finish_shot``'s light gradient, vignette and colour cast. Cached, as a stream's
    camera, table and light do not change from frame to frame."""
    fw, fh = size
    hom = _camera_homography(layout, size, cond)
    cam_ppm = math.sqrt(abs(np.linalg.det(hom[:2, :2])))
    ppm = max(1.5, round(cam_ppm * 1.5 * 4) / 4)
    canvas = _mat_canvas(layout, ppm).astype(np.float32)
    ratio = ppm / max(cam_ppm, 1e-6)
    if ratio > 1.2:
        canvas = cv2.GaussianBlur(canvas, (0, 0), 0.45 * ratio)
    to_mm = np.array([[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1]])
    warped = cv2.warpPerspective(canvas, hom @ to_mm, (fw, fh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    mw, mh = layout.width_mm, layout.height_mm
    quad = cv2.perspectiveTransform(np.float64([[[0, 0], [mw, 0], [mw, mh], [0, mh]]]), hom)[0]
    mask = np.zeros((fh, fw), np.uint8)
    cv2.fillConvexPoly(mask, np.round((quad + 0.5) * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    a = mask.astype(np.float32)[..., None] / 255.0
    bg = table_background(size, cond, np.random.default_rng(_table_seed(cond)))
    bg *= 1 - 0.35 * cv2.GaussianBlur(a[..., 0], (0, 0), 6)[..., None]  # the mat's own soft shadow
    table = bg * (1 - a) + warped * a
    gain = light_gain((fw, fh), cond)  # the light, as finish_shot draws it
    for arr in (table, gain, hom):
        arr.setflags(write=False)
    return table, gain, hom


#: Sensor noise is cut from one bank of Gaussian noise at a random offset per frame: drawing
#: 3.7 M normal numbers costs ~50 ms a frame, more than the rest of the frame.
_NOISE_SLACK = 64


@lru_cache(maxsize=2)
def _noise_bank(size: tuple[int, int]) -> np.ndarray:
    w, h = size
    bank = np.random.default_rng(20260).standard_normal((h + _NOISE_SLACK, w + _NOISE_SLACK, 3), dtype=np.float32)
    bank.setflags(write=False)
    return bank


def _finish(img: np.ndarray, gain: np.ndarray, cond: ShotConditions, rng: np.random.Generator) -> np.ndarray:
    """``sim.table.finish_shot``'s camera on a composed (H, W, 3) float32 frame, with the light's
    gain precomputed and the noise cut from a bank: light, blur, noise, JPEG (changes ``img``)."""
    fh, fw = img.shape[:2]
    cv2.multiply(img, gain, dst=img)
    if cond.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), cond.blur_sigma)
    if cond.noise_sigma > 0:
        oy, ox = (int(v) for v in rng.integers(0, _NOISE_SLACK, 2))
        img = cv2.scaleAdd(_noise_bank((fw, fh))[oy : oy + fh, ox : ox + fw], float(cond.noise_sigma), img)
    img8 = cv2.convertScaleAbs(img)  # rounds and saturates to 0..255
    ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg_quality)])
    if not ok:  # pragma: no cover - imencode of a uint8 BGR image does not fail
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _local_frame(hom: np.ndarray, p_mm: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Image px of ``p_mm``, px per mm there, and the turn (degrees, counter-clockwise on screen)
    the homography gives the mat's x axis there."""
    q = hom @ np.array([p_mm[0], p_mm[1], 1.0])
    w = q[2]
    px = q[:2] / w
    # Jacobian of the projective map at p: (H[:2, :2] − px ⊗ H[2, :2]) / w.
    jac = (hom[:2, :2] - np.outer(px, hom[2, :2])) / w
    scale = math.sqrt(abs(np.linalg.det(jac)))
    turn = -math.degrees(math.atan2(jac[1, 0], jac[0, 0]))
    return px, scale, turn


def _shadow(canvas: np.ndarray, quad: np.ndarray, size_px: float, strength: float) -> None:
    """Darken the table under a die's footprint ``quad`` moved away from the light (top-left), softly,
    in the die's own box (in place)."""
    off = np.array([0.15, 0.25]) * size_px
    sigma = 0.12 * size_px
    pad = int(math.ceil(3 * sigma)) + 2
    poly = quad + off
    x0, y0 = np.floor(poly.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + pad
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x0 >= x1 or y0 >= y1:
        return
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(m, np.round((poly - [x0, y0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, shift=4)
    m = cv2.GaussianBlur(m, (0, 0), sigma)
    canvas[y0:y1, x0:x1] *= (1.0 - strength * m)[..., None]


def render_roll_table(
    layout: MatLayout,
    dice: Sequence[SimDie],
    *,
    size: tuple[int, int] = (1280, 960),
    rng: np.random.Generator,
    conditions: ShotConditions | None = None,
    style: str = "ours",
    focal_px: float | None = None,
) -> RenderedRollTable:
    """Render what the overhead camera sees: a Sushi Roll mat with these dice, on a table.

    Each die is drawn in image px where the homography puts its footprint, at the size and turn
    the homography has there; its view (how far its top face shows displaced from the footprint,
    in die heights) is a pinhole camera's, ``(p − c) / focal_px`` plus the lean ``conditions.tilt``
    (as ``sim.dice.render_dice``), so dice far from the frame's centre show more side. Dice are
    drawn farthest from the nadir first, a stack's lower die before its upper one.

    Args:
        layout: a Sushi Roll mat.
        dice: the dice (``layout_dice``, ``RollScene.dice``).
        size: (width, height) of the frame, px.
        rng: the frame's randomness (sensor noise; and the conditions when not given): the same
            seed gives the same frame.
        conditions: camera, light and table; None draws mild ones with ``ShotConditions.random``.
            The table's texture and the default focal length follow from them, so the frames of
            one stream (one set of conditions) show one table through one camera.
        style: the dice art, ``companion.sim.dice.STYLES`` (``"ours"`` or ``"second"``).
        focal_px: focal length, px; None: one for a 50–64° horizontal field of view, drawn from
            the conditions.

    Returns:
        A :class:`RenderedRollTable`: the (H, W, 3) uint8 BGR image, the mat mm → image px
        homography, and each die's top face quad in image px.

    Raises:
        ValueError: a non-positive frame size or focal length, a die that is not a SimDie, a bad
            face or style (from ``draw_die``).
    """
    fw, fh = size
    if fw <= 0 or fh <= 0:
        raise ValueError(f"frame size must be positive, not {size}")
    cond = ShotConditions.random(rng) if conditions is None else conditions
    if focal_px is None:  # one camera per set of conditions, as the table
        hfov = math.radians(float(np.random.default_rng(_table_seed(cond) + 1).uniform(50, 64)))
        focal_px = (fw / 2) / math.tan(hfov / 2)
    if not (focal_px > 0 and math.isfinite(focal_px)):
        raise ValueError(f"focal_px must be a positive number of px, not {focal_px!r}")
    for i, d in enumerate(dice):
        if not isinstance(d, SimDie):
            raise ValueError(f"die {i} is a {type(d).__name__}, not a SimDie")
    table, gain, hom = _empty_table(layout, (int(fw), int(fh)), cond)
    img = table.copy()

    centre = np.array([(fw - 1) / 2, (fh - 1) / 2])
    lean = np.asarray(cond.tilt, np.float64)
    nadir = centre - lean * focal_px
    frames = [_local_frame(hom, np.asarray(d.center_mm)) for d in dice]
    # A die standing on another stands one die higher: seen shifted by one view × height.
    foot: list[np.ndarray] = []
    for d, (px, scale, _) in zip(dice, frames):
        view = (px - nadir) / focal_px
        foot.append(px + view * DIE_SIZE_MM * scale * d.level)
    if cond.shadow > 0:
        for d, (px, scale, turn), f in zip(dice, frames, foot):
            if d.level == 0:
                side = DIE_SIZE_MM * scale
                a = math.radians(d.angle_deg + turn)
                c, s = math.cos(a), math.sin(a)
                local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (side * 1.05 / 2)
                quad = local @ np.array([[c, s], [-s, c]]).T + px
                _shadow(img, quad, side, min(0.85, 1.6 * cond.shadow))
    order = sorted(range(len(dice)), key=lambda i: (dice[i].level, -float(np.hypot(*(foot[i] - nadir)))))
    quads: list[np.ndarray | None] = [None] * len(dice)
    for i in order:
        d = dice[i]
        px, scale, turn = frames[i]
        side = DIE_SIZE_MM * scale
        view = tuple(float(v) for v in (foot[i] - nadir) / focal_px)
        quads[i] = draw_die(img, d.kind, d.face, tuple(float(v) for v in foot[i]), side, d.angle_deg + turn,
                            view=view, style=style)
    image = _finish(img, gain, cond, rng)
    return RenderedRollTable(image=image, homography=hom.copy(), dice=list(dice), quads=quads,  # type: ignore[arg-type]
                             conditions=cond, focal_px=float(focal_px))
