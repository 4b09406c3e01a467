"""The simulator learns dice (issue #7 §4): die faces, resting dice seen by the overhead camera, table photos.

* :func:`die_face` — the flat top-face art of one die face (also an enrolment "flat scan").
* :func:`draw_die` — one resting die drawn onto a float canvas: side faces (real d6 adjacency),
  then the top face, shifted by the camera's view direction at that die.
* :func:`render_dice` — a whole table photo with ground truth, through the same light, noise and
  JPEG model as ``companion.sim.table.render_table``.
* :func:`random_dice_specs` — non-overlapping random dice for a photo.

Geometry (image px, OpenCV pixel-centre convention, x right, y down). A die is a cube of edge
``size_px`` (the top face's edge) and height ``height_px``. ``center_px`` is the centre of its
footprint on the table; ``rotation_deg`` turns it counter-clockwise as seen from the camera
(as for cards in ``sim.table``). ``view`` = (dx, dy) is how far the top face appears shifted from
the footprint, in die heights: a pinhole camera at height Z above the table sees a point at height
h displaced away from the nadir by (distance from the nadir) × h / Z, so a die at image offset
``p − c`` from the principal point ``c`` has view ≈ (p − c) / f with f the focal length in px
(Hartley & Zisserman, *Multiple View Geometry*, §6.1, the pinhole camera). The side faces facing
the camera (outward normal against the view shift) show between the footprint and the top face.

d6 adjacency: a right-handed ("Western") die: opposite faces sum to 7 and 1, 2, 3 run
counter-clockwise around their shared corner. Sushi Roll faces come from
``companion/data/sushi_roll_dice.toml`` through ``companion.rules.sushi_roll.dice``; the body
colour of each die type is that file's ``colour``.
"""

from __future__ import annotations

import argparse
import json
import math
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from companion.rules.sushi_roll.dice import DICE_COUNTS, DICE_FILE, DieKind, load_dice_faces, parse_face
from companion.sim import dice_art
from companion.sim.dice_art import STYLES
from companion.sim.table import ShotConditions, clipped_box, finish_shot, table_background

__all__ = [
    "DIE_SIZE_MM",
    "STYLES",
    "DieSpec",
    "RenderedDice",
    "die_face",
    "draw_die",
    "draw_die_shadow",
    "random_dice_specs",
    "render_dice",
    "sushi_roll_faces",
    "write_fixtures",
]

#: Edge of a die, mm (Sushi Roll and standard d6 dice are ~16 mm).
DIE_SIZE_MM = 16.0
#: The d6 faces, as names.
D6_FACES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
SUSHI_KINDS: tuple[str, ...] = tuple(k.value for k in DieKind)
KINDS: tuple[str, ...] = ("d6",) + SUSHI_KINDS

Colour = tuple[int, int, int]


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"unknown dice art style {style!r}; valid styles are: {', '.join(STYLES)}")


def sushi_roll_faces() -> dict[str, tuple[str, ...]]:
    """Die type → its distinct face names in file order, e.g. ``{"maki": ("maki", "maki*2", "maki*3"), ...}``.

    Read from ``companion/data/sushi_roll_dice.toml`` through ``companion.rules.sushi_roll.dice`` (repeats
    in the file make a face commoner; here each face appears once). A new dict on every call.

    Raises:
        ValueError: the faces file is malformed (from ``load_dice_faces``).
    """
    return dict(_sushi_roll_faces())


@lru_cache(maxsize=1)
def _sushi_roll_faces() -> dict[str, tuple[str, ...]]:
    faces = load_dice_faces()
    return {k.value: tuple(dict.fromkeys(str(f) for f in faces.of(k))) for k in DieKind}


@lru_cache(maxsize=1)
def sushi_roll_colours() -> dict[str, str]:
    """Die type → colour name (``"blue"``...), the ``colour`` field of ``companion/data/sushi_roll_dice.toml``.

    Raises:
        ValueError: a die type has no colour, or one with no body colour in ``dice_art.BODY_BGR``.
    """
    text = resources.files("companion").joinpath("data", "sushi_roll_dice.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    out = {}
    for kind in SUSHI_KINDS:
        name = data.get(kind, {}).get("colour")
        if name not in dice_art.BODY_BGR["ours"]:
            raise ValueError(
                f"{DICE_FILE}: the {kind} die's colour {name!r} is not one the simulator can draw "
                f"({', '.join(dice_art.BODY_BGR['ours'])})"
            )
        out[kind] = name
    return out


def _check_face(kind: str, face: str) -> None:
    if kind == "d6":
        if face not in D6_FACES:
            raise ValueError(f"bad d6 face {face!r}: a d6 face is one of '1' … '6'")
        return
    if kind not in SUSHI_KINDS:
        raise ValueError(f"unknown die kind {kind!r}; kinds are: {', '.join(KINDS)}")
    valid = _sushi_roll_faces()[kind]
    if face not in valid:
        if isinstance(face, str):
            parse_face(face)  # an unknown icon gets the rules' own message
        raise ValueError(f"the {kind} die has no face {face!r}; its faces ({DICE_FILE}) are: {', '.join(valid)}")


def _colour(value, what: str) -> Colour | None:
    if value is None:
        return None
    c = tuple(int(v) for v in value)
    if len(c) != 3 or not all(0 <= v <= 255 for v in c):
        raise ValueError(f"{what} must be three BGR values 0 … 255, not {value!r}")
    return c  # type: ignore[return-value]


def body_colour(kind: str, style: str = "ours") -> Colour:
    """The default body colour (BGR) of a die of ``kind`` in ``style`` (d6: white)."""
    if kind == "d6":
        return dice_art.D6_BODY
    return dice_art.BODY_BGR[style][sushi_roll_colours()[kind]]


@lru_cache(maxsize=512)
def _face_cached(kind: str, face: str, size_px: int, style: str, body: Colour, pip: Colour | None) -> np.ndarray:
    if kind == "d6":
        img = dice_art.d6_art(int(face), size_px, body, pip or dice_art.D6_PIP)
    else:
        f = parse_face(face)
        img = dice_art.icon_art(f.icon.value, f.count, size_px, style, body)
    img.setflags(write=False)
    return img


def die_face(kind: str, face: str, size_px: int, *, style: str = "ours", body_bgr=None, pip_bgr=None) -> np.ndarray:
    """The flat top-face art of one die face, as a camera straight above would see it.

    Args:
        kind: ``"d6"`` or a Sushi Roll die type (``"appetizer"``, ``"maki"``, ``"nigiri"``,
            ``"specials"``, ``"pudding"``).
        face: d6: ``"1"`` … ``"6"`` (standard pip layout); Sushi Roll: a face name of that die in
            ``companion/data/sushi_roll_dice.toml`` (``"maki*2"`` = two maki rolls).
        size_px: edge of the square, px (≥ 8).
        style: ``"ours"`` or ``"second"`` (see ``companion.sim.dice_art``); d6 faces look the same in both.
        body_bgr: die body colour, BGR; default white for a d6, the file's colour for Sushi Roll.
        pip_bgr: d6 pip colour, BGR; default near-black (ignored for Sushi Roll faces).

    Returns:
        (size_px, size_px, 3) uint8 BGR, a new array. The face fills the square; the die's rounded
        corners (radius 13 % of the edge) leave the corner outside them in the body colour at half
        brightness (how the rounded edge looks from above), and the face darkens slightly over the
        last 6 % towards its edges (the bevel).

    Raises:
        ValueError: unknown kind, face (naming the die's valid faces), style, a colour that is not
            three values 0 … 255, or size_px < 8.
    """
    _check_style(style)
    _check_face(kind, face)
    if not isinstance(size_px, (int, np.integer)) or size_px < 8:
        raise ValueError(f"size_px must be a whole number of px, at least 8, not {size_px!r}")
    body = _colour(body_bgr, "body_bgr") or body_colour(kind, style)
    pip = _colour(pip_bgr, "pip_bgr")
    return _face_cached(kind, face, int(size_px), style, body, pip).copy()


# --------------------------------------------------------------------------- a die on a canvas

#: d6 face → outward unit normal (x east, y north, z up): 1 +z, 2 +x, 3 +y, opposite faces sum to 7.
#: 1, 2, 3 counter-clockwise around corner (1, 1, 1) seen from outside: a right-handed die.
_D6_NORMAL = {1: (0, 0, 1), 2: (1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0), 5: (-1, 0, 0), 6: (0, 0, -1)}
_D6_BY_NORMAL = {v: k for k, v in _D6_NORMAL.items()}


def d6_sides(top: int, east: int | None = None) -> tuple[int, int, int, int]:
    """The four side faces (north, east, south, west) of a right-handed d6 showing ``top``.

    North is the top face's art-up direction. ``east`` picks the die's turn among the four
    (default: the smallest face adjacent to ``top``).

    Raises:
        ValueError: ``top`` not 1 … 6 or ``east`` not adjacent to it.
    """
    if top not in _D6_NORMAL:
        raise ValueError(f"a d6 top face is 1 … 6, not {top!r}")
    adjacent = [f for f in range(1, 7) if f not in (top, 7 - top)]
    east = adjacent[0] if east is None else east
    if east not in adjacent:
        raise ValueError(f"face {east} is not next to {top} on a d6 (opposite faces sum to 7)")
    up, e = np.array(_D6_NORMAL[top]), np.array(_D6_NORMAL[east])
    north = np.cross(up, e)
    key = lambda v: _D6_BY_NORMAL[tuple(int(x) for x in v)]  # noqa: E731
    return key(north), east, key(-north), key(-e)


def _plausible_sides(kind: str, face: str) -> tuple[str, str, str, str]:
    """Side faces (north, east, south, west) for a die showing ``face`` (see ``draw_die``)."""
    if kind == "d6":
        return tuple(str(f) for f in d6_sides(int(face)))  # type: ignore[return-value]
    # Sushi Roll: the file lists six faces; take list slot i opposite slot 5 − i, the other four around.
    slots = [str(f) for f in load_dice_faces().of(DieKind(kind))]
    i = slots.index(face)
    ring = [slots[j] for j in range(6) if j not in (i, 5 - i)]
    return ring[0], ring[1], ring[3], ring[2]


def _art_px(size: float) -> int:
    """Art resolution for a face drawn ``size`` px wide: a little above, quantised for the cache."""
    return int(max(16, min(512, 8 * math.ceil(size * 1.25 / 8))))


@lru_cache(maxsize=64)
def _mask(art_px: int) -> np.ndarray:
    m = dice_art.rounded_mask(art_px)
    m.setflags(write=False)
    return m


def _square(center: Sequence[float], size: float, rotation_deg: float) -> np.ndarray:
    """(4, 2) float64 corners of a square: art top-left, top-right, bottom-right, bottom-left (clockwise on screen)."""
    h = size / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    a = math.radians(rotation_deg)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, s], [-s, c]])  # counter-clockwise on screen with y down (as sim.table)
    return local @ rot.T + np.asarray(center, np.float64)


def _paste(canvas: np.ndarray, art: np.ndarray, mask: np.ndarray, quad: np.ndarray, gain: float, alpha: float) -> None:
    """Warp square ``art`` (with coverage ``mask``) onto ``quad`` (TL, TR, BR, BL) of ``canvas``, in place."""
    box = clipped_box(quad, canvas.shape, 1, 2)
    if box is None:
        return
    x0, y0, x1, y1 = box
    n = art.shape[0]
    src = np.float32([[-0.5, -0.5], [n - 0.5, -0.5], [n - 0.5, n - 0.5], [-0.5, n - 0.5]])
    try:
        m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    except cv2.error:  # a degenerate (edge-on) quad: nothing to see
        return
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(art, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(mask, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)[..., None]
    a *= alpha
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + warped.astype(np.float32) * (gain * a)


def _fill(canvas: np.ndarray, poly: np.ndarray, colour: np.ndarray, alpha: float) -> None:
    """Fill the convex polygon ``poly`` (px) with ``colour``, anti-aliased, in place."""
    box = clipped_box(poly, canvas.shape, 1, 2)
    if box is None:
        return
    x0, y0, x1, y1 = box
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = np.round((poly - [x0, y0]) * 16).astype(np.int32)
    cv2.fillConvexPoly(m, pts, 255, cv2.LINE_AA, shift=4)
    a = (m.astype(np.float32) * (alpha / 255.0))[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + colour * a


#: Direction the light comes from (image x, y; top-left, as the card shadows in sim.table).
_LIGHT = np.array([-0.6, -0.8])


def draw_die(
    canvas: np.ndarray,
    kind: str,
    face: str,
    center_px: tuple[float, float],
    size_px: float,
    rotation_deg: float,
    *,
    view: tuple[float, float] = (0.0, 0.0),
    style: str = "ours",
    side_faces: tuple[str, ...] | None = None,
    height_px: float | None = None,
    body_bgr=None,
    pip_bgr=None,
    alpha: float = 1.0,
    translucency: float = 0.0,
) -> np.ndarray:
    """Draw one resting die in place onto ``canvas`` and return its top face's quad.

    Args:
        canvas: (H, W, 3) float32 BGR, 0 … 255; drawn in place (parts outside are clipped).
        kind, face: as for :func:`die_face`; ``face`` is on top.
        center_px: centre of the die's footprint on the table, image px (pixel-centre convention).
        size_px: edge of the top face, px (> 0).
        rotation_deg: turn counter-clockwise as seen from the camera; 0 = the face art upright.
        view: the camera's offset from vertical as seen at this die, (dx, dy) in die heights: the
            top face is drawn ``view × height_px`` px from the footprint (module doc), and the side
            faces turned towards the camera show between them, darker (lit from the top-left).
        style: art style of the faces, ``STYLES``.
        side_faces: the four side faces (north, east, south, west) in the top face's own frame
            (north = the top art's up); None picks plausible ones: a d6 follows a right-handed
            die (opposite faces sum to 7), a Sushi Roll die takes the other faces of its file list.
        height_px: die height, px; default ``size_px`` (a cube).
        body_bgr, pip_bgr: colours, as for :func:`die_face`.
        alpha: opacity 0 … 1 of the whole die (e.g. for a motion-blurred die in flight).
        translucency: 0 (opaque, the default) … 0.9: how much of the table shows through a
            d6 of clear dyed plastic (see :func:`_see_through`). Its pips stay opaque paint.

    Returns:
        (4, 2) float32 image px: the top face's corners, clockwise on screen, starting at the art's
        top-left corner. These are the corners of the square; the die's rounded corners (13 % of
        the edge) lie just inside them.

    Raises:
        ValueError: bad canvas, kind, face, style, side_faces, colour, size, alpha or translucency
            (a Sushi Roll die is not drawn translucent: its art is printed, not painted pips).
    """
    if not isinstance(canvas, np.ndarray) or canvas.dtype != np.float32 or canvas.ndim != 3 or canvas.shape[2] != 3:
        raise ValueError("canvas must be an (H, W, 3) float32 BGR array (0 … 255)")
    _check_style(style)
    _check_face(kind, face)
    if not (size_px > 0 and math.isfinite(size_px)):
        raise ValueError(f"size_px must be a positive number of px, not {size_px!r}")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha!r}")
    if not 0.0 <= translucency <= 0.9:
        raise ValueError(f"translucency must be between 0 and 0.9, not {translucency!r}")
    if translucency > 0 and kind != "d6":
        raise ValueError(f"only a d6 is drawn translucent (its pips are paint on clear plastic), not a {kind} die")
    if len(view) != 2 or not all(math.isfinite(float(v)) for v in view):
        raise ValueError(f"view must be (dx, dy), finite numbers of die heights, not {view!r}")
    h = float(size_px if height_px is None else height_px)
    if not (h >= 0 and math.isfinite(h)):
        raise ValueError(f"height_px must be a non-negative number of px, not {height_px!r}")
    if side_faces is None:
        sides = _plausible_sides(kind, face)
    else:
        if len(side_faces) != 4:
            raise ValueError(f"side_faces must name 4 faces (north, east, south, west), not {side_faces!r}")
        for f in side_faces:
            _check_face(kind, f)
        sides = tuple(side_faces)
    body = _colour(body_bgr, "body_bgr") or body_colour(kind, style)
    pip = _colour(pip_bgr, "pip_bgr")

    base = _square(center_px, size_px, rotation_deg)
    shift = np.asarray(view, np.float64) * h
    top = base + shift
    if translucency > 0:
        _see_through(canvas, kind, face, base, top, float(size_px), sides, style, body, pip, alpha, translucency)
    else:
        _draw_opaque(canvas, kind, face, base, shift, _art_px(size_px), sides, style, body, pip, alpha)
    return top.astype(np.float32)


def _draw_opaque(canvas: np.ndarray, kind: str, face: str, base: np.ndarray, shift: np.ndarray, npx: int,
                 sides: Sequence[str], style: str, body: Colour, pip: Colour | None, alpha: float) -> None:
    """The die of :func:`draw_die` in opaque plastic (faces drawn from ``npx``-px art): its
    silhouette, the sides facing the camera, then the top (``base`` moved by ``shift``)."""
    top = base + shift
    mask = _mask(npx)
    dark = np.asarray(body, np.float32) * 0.42

    if np.hypot(*shift) > 0.02:
        # The silhouette in dark body colour first: what shows between rounded faces is the rounded edge.
        hull = cv2.convexHull(np.vstack([base, top]).astype(np.float32))[:, 0].astype(np.float64)
        _fill(canvas, hull, dark, alpha)
        centre = base.mean(axis=0)
        for i in range(4):
            j = (i + 1) % 4
            mid = (base[i] + base[j]) / 2
            normal = mid - centre
            normal /= np.linalg.norm(normal)
            facing = -float(normal @ shift)
            if facing <= 0.02:
                continue
            # Seen from outside with the top face up, the side's art top-left is at corner j.
            quad = np.array([top[j], top[i], base[i], base[j]])
            gain = 0.62 + 0.14 * float(normal @ _LIGHT)
            art = _face_cached(kind, sides[i], npx, style, body, pip)
            _paste(canvas, art, mask, quad, gain, alpha)
    art = _face_cached(kind, face, npx, style, body, pip)
    _paste(canvas, art, mask, top, 1.0, alpha)


#: How strongly the pips of the face on the table show through a translucent die (fraction of the
#: top pips' contrast at translucency 1), and how far refraction through the body smears them
#: (Gaussian sigma, fraction of the die's edge).
GHOST_CONTRAST = 0.45
GHOST_BLUR = 0.05


def _see_through(canvas: np.ndarray, kind: str, face: str, base: np.ndarray, top: np.ndarray, size: float,
                 sides: Sequence[str], style: str, body: Colour, pip: Colour | None, alpha: float,
                 translucency: float) -> None:
    """The die of :func:`draw_die` in clear dyed plastic (the dice in many shops' "gem" sets).

    Light passes through the body: where no pip is painted, the die shows the table under it,
    softened and dyed the body's colour (brighter than the table in the dye's own channel), mixed
    with the opaque body's shading by ``translucency``. The pips of the face lying on the table
    (d6: 7 − top) show faintly through the top face, mirrored and smeared: a real confusion for a
    pip reader. The painted pips of the top and the sides stay opaque.

    Left out: refraction (the face below is seen where it lies, not lifted towards the top), the
    side faces' pips seen through the body, and the dye's density (``dye`` is the body colour over
    its brightest channel, so a dark die lets the table through as a light one does).
    """
    npx = _art_px(size)
    box = clipped_box(np.vstack([base, top]), canvas.shape, 2, 3)
    if box is None:
        return
    x0, y0, x1, y1 = box
    roi = canvas[y0:y1, x0:x1]
    table = roi.copy()
    # The painted pips are where the die drawn with its pips differs from the die drawn without.
    _draw_opaque(canvas, kind, face, base, top[0] - base[0], npx, sides, style, body, pip, 1.0)
    painted = roi.copy()
    roi[:] = table
    _draw_opaque(canvas, kind, face, base, top[0] - base[0], npx, sides, style, body, body, 1.0)
    plain = roi.copy()
    pip_colour = np.asarray(pip or (dice_art.D6_PIP if kind == "d6" else body), np.float32)
    contrast = max(float(np.abs(pip_colour - np.asarray(body, np.float32)).max()), 1.0)
    paint = np.clip(np.abs(painted - plain).max(axis=2) / contrast, 0, 1)[..., None]
    body_cover = _silhouette(roi.shape[:2], base - [x0, y0], top - [x0, y0], npx)[..., None] * alpha

    dye = np.asarray(body, np.float32) / max(float(max(body)), 1.0)
    through = cv2.GaussianBlur(table, (0, 0), 0.08 * size) * dye * 1.5
    seen = plain * (1 - translucency) + through * translucency
    if kind == "d6" and face.isdigit():
        seen += _ghost_pips(roi.shape[:2], 7 - int(face), base - [x0, y0], top - [x0, y0], size, body, pip) * (
            GHOST_CONTRAST * translucency)
    die = paint * painted + (1 - paint) * seen
    roi[:] = table * (1 - body_cover) + np.clip(die, 0, 255) * body_cover


def _silhouette(shape: tuple[int, int], base: np.ndarray, top: np.ndarray, npx: int) -> np.ndarray:
    """(h, w) float32 0..1: how much of each px the die of :func:`_draw_opaque` covers: the hull of
    its footprint and top face, or (seen straight down) its top face with the rounded corners."""
    if np.hypot(*(top[0] - base[0])) > 0.02:
        m = np.zeros(shape, np.uint8)
        hull = cv2.convexHull(np.vstack([base, top]).astype(np.float32))
        cv2.fillConvexPoly(m, np.round(hull[:, 0] * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
        return m.astype(np.float32) / 255.0
    cover = np.zeros((*shape, 3), np.float32)
    _paste(cover, np.full((npx, npx, 3), 255, np.uint8), _mask(npx), top, 1.0, 1.0)
    return cover[..., 0] / 255.0


def _ghost_pips(shape: tuple[int, int], value: int, base: np.ndarray, top: np.ndarray, size: float,
                body: Colour, pip: Colour | None) -> np.ndarray:
    """(h, w, 3) float32: the pip pattern of the d6 face ``value`` lying on the table, as a signed
    change of colour (pip − body), seen from above through the die: mirrored, within the top face."""
    npx = _art_px(size)
    layer = np.zeros((*shape, 3), np.float32)
    flat = np.zeros_like(layer)
    mirrored = base[[1, 0, 3, 2]]  # seen from above, the face on the table reads left-right reversed
    _paste(layer, _face_cached("d6", str(value), npx, "ours", body, pip), _mask(npx), mirrored, 1.0, 1.0)
    _paste(flat, _face_cached("d6", str(value), npx, "ours", body, body), _mask(npx), mirrored, 1.0, 1.0)
    ghost = cv2.GaussianBlur(layer - flat, (0, 0), GHOST_BLUR * size)
    inside = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(top * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    return ghost * (inside.astype(np.float32) / 255.0)[..., None]


def draw_die_shadow(shadow: np.ndarray, center_px: tuple[float, float], size_px: float, rotation_deg: float,
                    *, offset_px: tuple[float, float] | None = None, strength: float = 1.0) -> None:
    """Add a die's footprint, moved away from the light, to the (H, W) float32 ``shadow`` map in place.

    Blur the map and multiply the table by ``1 − k × map`` to get soft drop shadows (as
    ``render_dice`` does). ``offset_px`` defaults to 0.25 die edges down-right (light from the top-left).
    """
    off = np.array([0.15, 0.25]) * size_px if offset_px is None else np.asarray(offset_px, np.float64)
    quad = _square(center_px, size_px * 1.05, rotation_deg) + off
    m = np.zeros(shadow.shape[:2], np.uint8)
    cv2.fillConvexPoly(m, np.round(quad * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    np.maximum(shadow, m.astype(np.float32) * (strength / 255.0), out=shadow)


# --------------------------------------------------------------------------- a table photo


@dataclass(frozen=True)
class DieSpec:
    """One die resting on the table, for :func:`render_dice`.

    Attributes:
        kind, face: as for :func:`die_face` (``"d6"``/``"3"``, ``"maki"``/``"maki*2"``...).
        center: footprint centre (x, y), image px.
        rotation_deg: turn, degrees counter-clockwise as seen from the camera.
        size_px: top face edge, px.
        body_bgr, pip_bgr: colour overrides (BGR), None for the die's own.
        side_faces: (north, east, south, west) side faces, None for plausible ones (``draw_die``).
        height_px: die height, px; None for a cube.
        translucency: 0 for opaque plastic, up to 0.9 for clear dyed plastic (``draw_die``).
    """

    kind: str
    face: str
    center: tuple[float, float]
    rotation_deg: float
    size_px: float
    body_bgr: tuple[int, int, int] | None = None
    pip_bgr: tuple[int, int, int] | None = None
    side_faces: tuple[str, str, str, str] | None = None
    height_px: float | None = None
    translucency: float = 0.0


@dataclass
class RenderedDice:
    """One simulated photo of dice on a table and its ground truth.

    Attributes:
        image: (H, W, 3) uint8 BGR, after the JPEG round trip.
        dice: per spec, in spec order, ``(kind, face, quad)``: quad (4, 2) float32 image px, the top
            face's corners clockwise from the art's top-left (see :func:`draw_die`).
        conditions: the ShotConditions used.
        views: per spec, the (dx, dy) view the die was drawn with (die heights).
        focal_px: the simulated camera's focal length, px.
    """

    image: np.ndarray
    dice: list[tuple[str, str, np.ndarray]]
    conditions: ShotConditions = field(default_factory=ShotConditions)
    views: list[tuple[float, float]] = field(default_factory=list)
    focal_px: float = 0.0


def _plain_mat(size: tuple[int, int], colour, rng: np.random.Generator) -> np.ndarray:
    """(h, w, 3) float32: a felt/neoprene dice mat of one colour with a faint mottle."""
    w, h = size
    mottle = cv2.resize(rng.standard_normal((12, 16), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.standard_normal((h, w), dtype=np.float32), (0, 0), 1.0)
    shade = 1 + 0.03 * mottle + 0.03 * fine
    return shade[..., None] * np.asarray(colour, np.float32)


def render_dice(
    specs: Sequence[DieSpec],
    *,
    size: tuple[int, int] = (1280, 960),
    rng: np.random.Generator,
    conditions: ShotConditions | None = None,
    style: str = "ours",
    background=None,
    focal_px: float | None = None,
) -> RenderedDice:
    """Render what the overhead camera sees: these dice resting on a table.

    Pipeline: the table (``sim.table.table_background``: wood or cloth per ``conditions``, or a
    plain mat), soft drop shadows (light from the top-left), each die with :func:`draw_die` in
    painter's order (a die between the camera's nadir and a neighbour hides that neighbour's
    side, see ``_in_front``); then
    ``sim.table.finish_shot``: light gradient, vignette, colour cast, blur, noise, JPEG. Each die's
    ``view`` is that of a pinhole camera: ``(p − c) / focal_px`` plus a constant lean
    ``conditions.tilt`` (c = frame centre), so dice far from the centre show more side.
    ``conditions.mat_fill``, ``rotation_deg`` and ``offset`` (card-mat framing) are not used.

    Args:
        specs: the dice (they should not overlap: see :func:`random_dice_specs`).
        size: (width, height) of the frame, px.
        rng: the only source of randomness: the same seed gives the same photo.
        conditions: camera, light and table; None draws mild ones with ``ShotConditions.random(rng)``.
        style: Sushi Roll art style, ``STYLES``.
        background: None for the table of ``conditions``; a (B, G, R) colour for a plain mat;
            or an (H, W, 3) array (uint8 or float32 BGR) of the frame's size.
        focal_px: focal length, px; None draws one for a 50–64° horizontal field of view.

    Returns:
        A RenderedDice with the image and each die's top-face quad.

    Raises:
        ValueError: a bad size, style, background, focal length, or die (naming it, from ``draw_die``).
    """
    fw, fh = size
    if fw <= 0 or fh <= 0:
        raise ValueError(f"frame size must be positive, not {size}")
    _check_style(style)
    cond = ShotConditions.random(rng) if conditions is None else conditions
    if focal_px is None:
        hfov = math.radians(float(rng.uniform(50, 64)))
        focal_px = (fw / 2) / math.tan(hfov / 2)
    if not (focal_px > 0 and math.isfinite(focal_px)):
        raise ValueError(f"focal_px must be a positive number of px, not {focal_px!r}")
    for i, s in enumerate(specs):
        if not isinstance(s, DieSpec):
            raise ValueError(f"die {i} is a {type(s).__name__}, not a DieSpec")
        _check_face(s.kind, s.face)

    if background is None:
        canvas = table_background(size, cond, rng)
    elif isinstance(background, np.ndarray):
        if background.shape != (fh, fw, 3):
            raise ValueError(f"background must be ({fh}, {fw}, 3) BGR for this frame, not {background.shape}")
        canvas = background.astype(np.float32)
    else:
        canvas = _plain_mat(size, _colour(background, "background"), rng)

    centre = np.array([(fw - 1) / 2, (fh - 1) / 2])
    lean = np.asarray(cond.tilt, np.float64)
    views = [tuple(float(v) for v in (np.asarray(s.center) - centre) / focal_px + lean) for s in specs]

    if specs and cond.shadow > 0:
        shadow = np.zeros((fh, fw), np.float32)
        for s in specs:
            # Light through a clear die falls on the table too: its shadow is fainter.
            draw_die_shadow(shadow, s.center, s.size_px, s.rotation_deg, strength=1.0 - 0.6 * s.translucency)
        mean_size = float(np.mean([s.size_px for s in specs]))
        shadow = cv2.GaussianBlur(shadow, (0, 0), 0.12 * mean_size)
        canvas *= (1 - min(0.85, 1.6 * cond.shadow) * shadow)[..., None]

    quads: list[np.ndarray | None] = [None] * len(specs)
    nadir = centre - lean * focal_px  # where the view is (0, 0)
    for i in _draw_order(specs, views, nadir):
        s = specs[i]
        quads[i] = draw_die(
            canvas, s.kind, s.face, s.center, s.size_px, s.rotation_deg, view=views[i], style=style,
            side_faces=s.side_faces, height_px=s.height_px, body_bgr=s.body_bgr, pip_bgr=s.pip_bgr,
            translucency=s.translucency,
        )  # fmt: skip
    image = finish_shot(canvas, cond, rng)
    dice = [(s.kind, s.face, q) for s, q in zip(specs, quads)]
    return RenderedDice(image=image, dice=dice, conditions=cond, views=views, focal_px=float(focal_px))  # type: ignore[arg-type]


def _in_front(a: np.ndarray, b: np.ndarray, nadir: np.ndarray) -> bool | None:
    """Is footprint ``a`` in front of footprint ``b`` (both (4, 2) px, disjoint) seen from above ``nadir``?

    Rays from the camera spread out from the nadir and drop as they go, so along a ray the die
    nearer the nadir is met first, higher up. The line separating two convex footprints (the
    separating-axis theorem) tells which one a ray crosses first: the one on the nadir's side.
    None when the nadir lies in the separating strip (no ray meets both).
    """
    best, axis = -math.inf, None
    for poly, sign in ((a, 1.0), (b, -1.0)):
        centre = poly.mean(axis=0)
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]], np.float64)
            n /= np.linalg.norm(n)
            if (poly[i] - centre) @ n < 0:
                n = -n  # outward from poly
            n *= sign  # from a towards b
            gap = float((b @ n).min() - (a @ n).max())
            if gap > best:
                best, axis = gap, n
    if axis is None:  # pragma: no cover - a square always has edges
        return None
    lo, hi = float((a @ axis).max()), float((b @ axis).min())
    t = float(nadir @ axis)
    if t <= min(lo, hi):
        return True
    if t >= max(lo, hi):
        return False
    return None


def _draw_order(specs: Sequence[DieSpec], views: Sequence[tuple[float, float]], nadir: np.ndarray) -> list[int]:
    """Painter's order for ``specs``: a die that hides part of another is drawn after it.

    Starts from far-from-the-nadir first and moves a die later only where two dice's outlines
    (footprint and shifted top) overlap in the image and ``_in_front`` says so (a topological sort);
    on a cycle the distance order decides.
    """
    n = len(specs)
    feet = [_square(s.center, s.size_px, s.rotation_deg) for s in specs]
    hulls = []
    for s, f, v in zip(specs, feet, views):
        h = s.size_px if s.height_px is None else s.height_px
        hulls.append(cv2.convexHull(np.vstack([f, f + np.asarray(v) * h]).astype(np.float32)))
    dist = [-float(np.hypot(*(np.asarray(s.center) - nadir))) for s in specs]
    after: dict[int, set[int]] = {i: set() for i in range(n)}  # i must be drawn after these
    for i in range(n):
        for j in range(i + 1, n):
            area, _ = cv2.intersectConvexConvex(hulls[i], hulls[j])
            if area <= 0:
                continue
            front = _in_front(feet[i], feet[j], nadir)
            if front is True:
                after[i].add(j)
            elif front is False:
                after[j].add(i)
    order, done = [], set()
    pending = sorted(range(n), key=lambda i: dist[i])
    while pending:
        ready = [i for i in pending if after[i] <= done]
        pick = ready[0] if ready else pending[0]  # a cycle: fall back to distance
        order.append(pick)
        done.add(pick)
        pending.remove(pick)
    return order


def _footprint(center, size: float, rotation_deg: float) -> np.ndarray:
    return _square(center, size, rotation_deg).astype(np.float32)


def _overlaps(quad: np.ndarray, others: Sequence[np.ndarray], gap: float) -> bool:
    """True if ``quad`` comes within ``gap`` px of any of ``others`` (separating-axis test on squares)."""
    for o in others:
        separated = False
        for poly in (quad, o):
            for i in range(4):
                e = poly[(i + 1) % 4] - poly[i]
                n = np.array([-e[1], e[0]], np.float64)
                n /= np.linalg.norm(n)
                a, b = quad @ n, o @ n
                if a.max() + gap <= b.min() or b.max() + gap <= a.min():
                    separated = True
                    break
            if separated:
                break
        if not separated:
            return True
    return False


def _pick_face(kind_or_set: str, rng: np.random.Generator) -> tuple[str, str]:
    if kind_or_set == "d6":
        return "d6", D6_FACES[int(rng.integers(6))]
    if kind_or_set == "sushi-roll":
        kinds = list(DICE_COUNTS)
        p = np.array([DICE_COUNTS[k] for k in kinds], np.float64)
        kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
    else:
        kind = DieKind(kind_or_set)
    slots = load_dice_faces().of(kind)  # repeats in the file make a face commoner, as on the die
    return kind.value, str(slots[int(rng.integers(len(slots)))])


def random_dice_specs(
    kind_or_set: str,
    n: int,
    *,
    size: tuple[int, int] = (1280, 960),
    rng: np.random.Generator,
    face_px: tuple[float, float] = (40, 80),
    touching: float = 0.25,
) -> list[DieSpec]:
    """``n`` dice lying at random on a frame, none overlapping another.

    All dice of one photo are the same physical size, so one face edge is drawn from ``face_px``
    for the scene and each die varies ±3 % around it (within ``face_px``). Dice keep ~1.3 edges
    from the frame border, so their side faces stay inside it. With probability ``touching`` a die
    is pushed against an earlier one (same turn, 0.5 px apart, slid along the shared side), as
    dice settle at a real table; the others keep at least 3 px apart.

    Args:
        kind_or_set: ``"d6"``, ``"sushi-roll"`` (die type weighted by the dice in the game,
            sushi-roll.txt CONTENTS, then one of its six file faces), or one Sushi Roll die type.
        n: number of dice (≥ 0).
        size: (width, height) of the frame, px.
        rng: the only source of randomness.
        face_px: (min, max) top face edge, px.
        touching: probability that a die touches an earlier one.

    Returns:
        A list of ``n`` DieSpec with default colours.

    Raises:
        ValueError: an unknown kind or set, a bad n or face_px, or dice that do not fit the frame.
    """
    if kind_or_set not in ("d6", "sushi-roll") + SUSHI_KINDS:
        raise ValueError(f"unknown dice set {kind_or_set!r}; use 'd6', 'sushi-roll' or one of {', '.join(SUSHI_KINDS)}")
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a whole number of dice, 0 or more, not {n!r}")
    lo, hi = float(face_px[0]), float(face_px[1])
    if not 8 <= lo <= hi:
        raise ValueError(f"face_px must be (min, max) with 8 <= min <= max, not {face_px!r}")
    fw, fh = size
    base = float(rng.uniform(lo, hi))
    specs: list[DieSpec] = []
    quads: list[np.ndarray] = []
    for k in range(n):
        s = float(np.clip(base * rng.uniform(0.97, 1.03), lo, hi))
        margin = 1.3 * s
        if fw < 2 * margin + s or fh < 2 * margin + s:
            raise ValueError(f"a frame of {size} px is too small for dice of {s:.0f} px")
        kind, face = _pick_face(kind_or_set, rng)
        for _attempt in range(400):
            if specs and rng.random() < touching:
                other = specs[int(rng.integers(len(specs)))]
                rot = other.rotation_deg
                a = math.radians(rot)
                axes = [np.array([math.cos(a), -math.sin(a)]), np.array([math.sin(a), math.cos(a)])]
                along = int(rng.integers(2))
                sign = 1 if rng.random() < 0.5 else -1
                d = (other.size_px + s) / 2 + 0.5
                slide = float(rng.uniform(-0.45, 0.45)) * min(s, other.size_px)
                c = np.asarray(other.center) + sign * d * axes[along] + slide * axes[1 - along]
                gap = 0.2
            else:
                rot = float(rng.uniform(0, 90))  # a square die looks the same every 90°... its art does not
                rot += 90 * int(rng.integers(4))
                c = np.array([rng.uniform(margin, fw - 1 - margin), rng.uniform(margin, fh - 1 - margin)])
                gap = 3.0
            if not (margin <= c[0] <= fw - 1 - margin and margin <= c[1] <= fh - 1 - margin):
                continue
            q = _footprint(c, s, rot)
            if not _overlaps(q, quads, gap):
                specs.append(DieSpec(kind, face, (float(c[0]), float(c[1])), float(rot % 360), s))
                quads.append(q)
                break
        else:
            raise ValueError(f"could not place die {k + 1} of {n} ({s:.0f} px) without overlap in a {size} px frame")
    return specs


# --------------------------------------------------------------------------- fixtures

#: Dice with light pips for the fixtures (body, pip), BGR: translucent-looking red, blue, green, black.
LIGHT_PIP_DICE: tuple[tuple[Colour, Colour], ...] = (
    ((40, 40, 185), (245, 245, 245)),
    ((150, 75, 20), (245, 245, 245)),
    ((60, 130, 30), (240, 245, 245)),
    ((35, 35, 38), (240, 240, 240)),
)

#: The fixture scenes: name → (dice set, style, number of dice, face px range, background, seed).
FIXTURE_SCENES: dict[str, tuple[str, str, int, tuple[int, int], str, int]] = {
    "d6_0": ("d6", "ours", 8, (55, 75), "table", 70),
    "d6_1": ("d6", "ours", 12, (40, 50), "mat", 71),
    "d6_2": ("d6", "ours", 9, (50, 70), "table", 72),  # coloured dice with light pips, dice touching
    "d6_3": ("d6", "ours", 6, (65, 80), "mat", 73),
    "sushi_ours_0": ("sushi-roll", "ours", 10, (55, 75), "table", 80),
    "sushi_ours_1": ("sushi-roll", "ours", 14, (42, 55), "mat", 81),
    "sushi_second_0": ("sushi-roll", "second", 10, (55, 75), "table", 82),
    "sushi_second_1": ("sushi-roll", "second", 14, (42, 55), "mat", 83),
}
FIXTURE_JPEG_QUALITY = 85
_MAT_COLOURS: tuple[Colour, ...] = ((70, 95, 40), (95, 60, 35), (50, 50, 55), (40, 40, 120))


def _touching_pairs(specs: Sequence[DieSpec], tol_px: float = 1.0) -> list[tuple[int, int]]:
    quads = [_footprint(s.center, s.size_px, s.rotation_deg) for s in specs]
    return [
        (i, j)
        for i in range(len(specs))
        for j in range(i + 1, len(specs))
        if _overlaps(quads[i], [quads[j]], tol_px)
    ]


def fixture_scene(name: str) -> tuple[RenderedDice, list[DieSpec], str]:
    """Render the fixture scene ``name`` of ``FIXTURE_SCENES``: (rendered photo, its specs, style).

    Raises:
        ValueError: an unknown scene name.
    """
    if name not in FIXTURE_SCENES:
        raise ValueError(f"unknown dice fixture {name!r}; scenes are: {', '.join(FIXTURE_SCENES)}")
    kind_set, style, n, face_px, bg, seed = FIXTURE_SCENES[name]
    rng = np.random.default_rng(seed)
    specs = random_dice_specs(kind_set, n, rng=rng, face_px=face_px, touching=0.35 if name == "d6_2" else 0.2)
    if name == "d6_2":
        specs = [
            DieSpec(s.kind, s.face, s.center, s.rotation_deg, s.size_px, *LIGHT_PIP_DICE[i % len(LIGHT_PIP_DICE)])
            if i % 2 == 0 else s
            for i, s in enumerate(specs)
        ]  # fmt: skip
    cond = ShotConditions.random(rng)
    cond = ShotConditions(**{**cond.__dict__, "jpeg_quality": FIXTURE_JPEG_QUALITY})
    background = None if bg == "table" else _MAT_COLOURS[int(rng.integers(len(_MAT_COLOURS)))]
    return render_dice(specs, rng=rng, conditions=cond, style=style, background=background), specs, style


def write_fixtures(out_dir: str | Path) -> list[Path]:
    """Write every ``FIXTURE_SCENES`` photo to ``out_dir``: ``<name>.jpg`` (quality 85) and ``<name>.json``.

    ``<name>.json`` is the ground truth, one object per die: ``kind``, ``face``, ``quad`` (4 × [x, y]
    image px, top face clockwise from the art's top-left), and ``center``, ``rotation_deg``,
    ``size_px``, ``view`` (see :func:`draw_die`), with ``body_bgr``/``pip_bgr`` when not the
    default. ``index.json`` lists each scene's dice set, art style and seed. The scenes are fixed
    by their seeds, so this rewrites the same files (given the same OpenCV build).

    Returns:
        The paths written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    index = {}
    for name, (kind_set, style, *_rest, seed) in FIXTURE_SCENES.items():
        shot, specs, style = fixture_scene(name)
        truth = []
        for s, (kind, face, quad), view in zip(specs, shot.dice, shot.views):
            entry = {
                "kind": kind,
                "face": face,
                "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
                "center": [round(s.center[0], 2), round(s.center[1], 2)],
                "rotation_deg": round(s.rotation_deg, 2),
                "size_px": round(s.size_px, 2),
                "view": [round(view[0], 4), round(view[1], 4)],
            }
            if s.body_bgr is not None:
                entry["body_bgr"], entry["pip_bgr"] = list(s.body_bgr), list(s.pip_bgr or ())
            truth.append(entry)
        img_path, json_path = out / f"{name}.jpg", out / f"{name}.json"
        cv2.imwrite(str(img_path), shot.image, [cv2.IMWRITE_JPEG_QUALITY, FIXTURE_JPEG_QUALITY])
        json_path.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        index[name] = {"set": kind_set, "style": style, "seed": seed, "dice": len(truth)}
        written += [img_path, json_path]
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return written + [out / "index.json"]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.sim.dice --fixtures DIR`` (regenerate the dice fixtures) or ``--sheet PNG``."""
    parser = argparse.ArgumentParser(prog="python -m companion.sim.dice", description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", metavar="DIR", help="write the dice fixture photos and truth JSON to DIR")
    parser.add_argument("--sheet", metavar="PNG", help="write a contact sheet of every face in both styles")
    args = parser.parse_args(argv)
    if not (args.fixtures or args.sheet):
        parser.error("give --fixtures DIR and/or --sheet PNG")
    if args.fixtures:
        for p in write_fixtures(args.fixtures):
            print(p)
    if args.sheet:
        cv2.imwrite(args.sheet, contact_sheet())
        print(args.sheet)
    return 0


def contact_sheet(face_px: int = 96) -> np.ndarray:
    """(H, W, 3) uint8 BGR: every Sushi Roll face in each style (a row per style) and the six d6 faces."""
    pad = 6
    rows = []
    for style in STYLES:
        tiles = [die_face(k, f, face_px, style=style) for k, fs in sushi_roll_faces().items() for f in fs]
        rows.append(tiles)
    rows.append([die_face("d6", f, face_px) for f in D6_FACES]
                + [die_face("d6", f, face_px, body_bgr=b, pip_bgr=p) for f, (b, p) in zip("2345", LIGHT_PIP_DICE)])
    width = max(len(r) for r in rows) * (face_px + pad) + pad
    sheet = np.full((len(rows) * (face_px + pad) + pad, width, 3), 255, np.uint8)
    for r, tiles in enumerate(rows):
        for c, t in enumerate(tiles):
            y, x = pad + r * (face_px + pad), pad + c * (face_px + pad)
            sheet[y : y + face_px, x : x + face_px] = t
    return sheet


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
