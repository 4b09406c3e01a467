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
``companion/data/sushi_roll_dice.toml`` through ``companion.rules.sushi_roll_dice``; the body
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

from companion.rules.sushi_roll_dice import DICE_COUNTS, DICE_FILE, DieKind, load_dice_faces, parse_face
from companion.sim import dice_art
from companion.sim.dice_art import STYLES
from companion.sim.table import ShotConditions, finish_shot, table_background

__all__ = [
    "DIE_SIZE_MM",
    "STYLES",
    "die_face",
    "draw_die",
    "draw_die_shadow",
    "sushi_roll_faces",
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


@lru_cache(maxsize=1)
def sushi_roll_faces() -> dict[str, tuple[str, ...]]:
    """Die type → its distinct face names in file order, e.g. ``{"maki": ("maki", "maki*2", "maki*3"), ...}``.

    Read from ``companion/data/sushi_roll_dice.toml`` through ``companion.rules.sushi_roll_dice`` (repeats
    in the file make a face commoner; here each face appears once). Returns a fresh dict each call's
    caller may not mutate the cached tuples.

    Raises:
        ValueError: the faces file is malformed (from ``load_dice_faces``).
    """
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
    valid = sushi_roll_faces()[kind]
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
    H, W = canvas.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x0 >= x1 or y0 >= y1:
        return
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
    H, W = canvas.shape[:2]
    x0, y0 = np.floor(poly.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x0 >= x1 or y0 >= y1:
        return
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

    Returns:
        (4, 2) float32 image px: the top face's corners, clockwise on screen, starting at the art's
        top-left corner. These are the corners of the square; the die's rounded corners (13 % of
        the edge) lie just inside them.

    Raises:
        ValueError: bad canvas, kind, face, style, side_faces, colour, size or alpha.
    """
    if not isinstance(canvas, np.ndarray) or canvas.dtype != np.float32 or canvas.ndim != 3 or canvas.shape[2] != 3:
        raise ValueError("canvas must be an (H, W, 3) float32 BGR array (0 … 255)")
    _check_style(style)
    _check_face(kind, face)
    if not (size_px > 0 and math.isfinite(size_px)):
        raise ValueError(f"size_px must be a positive number of px, not {size_px!r}")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha!r}")
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
    npx = _art_px(size_px)
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
    return top.astype(np.float32)


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
