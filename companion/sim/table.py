"""The overhead camera simulation: cards laid out on the play mat, seen by a slightly tilted camera.

Pipeline for one frame (all randomness from the caller's ``rng``, so a seed gives the same frame):

1. the mat (``render_mat``) at a "canvas" resolution ~1.5× the camera's px/mm, cached;
2. drop shadows, then each card face warped (affine) onto the canvas at its placement;
3. one ``warpPerspective`` of the canvas into the camera frame over a wood/cloth background;
4. uneven light, colour cast, blur, sensor noise, JPEG round trip.

Coordinates: mat mm with origin at the mat's top-left, x right, y down (as in ``mat_layout``).
Image px use OpenCV's convention (pixel centres at integer coordinates), the same convention
``cv2.aruco`` reports corners in, so ``RenderedFrame.homography`` maps a marker's
``corners_mm()`` onto the corners a detector finds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from companion.sim.faces import check_style, draw_card_face
from companion.sim.mat_image import render_mat
from companion.vision.mat_layout import MatLayout, Zone

#: Smallest gap (mm) kept between neighbouring cards and to the zone edge (half of it): with
#: less, a camera at ~1.4 px/mm sees touching cards as one blob.
MIN_GAP_MM = 6.0
#: Preferred gap (mm) between neighbouring cards when the zone has room.
PREF_GAP_MM = 8.0
JITTER_MM = 2.0
JITTER_DEG = 4.0
_CORNER_MM = 3.0  # rounded card corners, as on real cards
_EPS_MM = 0.05


@dataclass(frozen=True)
class Placement:
    """One card lying face up on the mat.

    ``center_mm`` is the card centre (mat mm); ``angle_deg`` the card's rotation in degrees,
    counter-clockwise as seen from the camera (mat drawn y-down); 0 = upright portrait with the
    title band towards the mat's top edge, 180 = upright for a seat at the top edge.
    """

    label: str
    center_mm: tuple[float, float]
    angle_deg: float


def card_corners_mm(placement: Placement, card_mm: tuple[float, float] = (44.0, 63.0)) -> np.ndarray:
    """The card's 4 corners, (4, 2) float64 mat mm, in the printed face's own order.

    Order: the face's top-left, top-right, bottom-right, bottom-left — so corner 0 is next to the
    title band whatever the card's rotation on the mat.
    """
    w, h = card_mm
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = math.radians(placement.angle_deg)
    c, s = math.cos(a), math.sin(a)
    # Counter-clockwise on screen with y pointing down.
    rot = np.array([[c, s], [-s, c]])
    return local @ rot.T + np.asarray(placement.center_mm, dtype=np.float64)


def _grid(zone: Zone, card_mm: tuple[float, float]) -> tuple[int, int, float, float]:
    """(columns, rows, pitch_x, pitch_y) of the card grid in a zone, in the seat's own frame (mm)."""
    cw, ch = card_mm
    zw, zh = zone.rect_mm[2], zone.rect_mm[3]
    cols = int(zw // (cw + MIN_GAP_MM))
    rows = int(zh // (ch + MIN_GAP_MM))
    return cols, rows, min(zw / max(cols, 1), cw + PREF_GAP_MM), min(zh / max(rows, 1), ch + PREF_GAP_MM)


def zone_capacity(zone: Zone, card_mm: tuple[float, float] = (44.0, 63.0)) -> int:
    """How many cards ``layout_tableaux`` can lay in ``zone`` without overlap."""
    cols, rows, _, _ = _grid(zone, card_mm)
    return cols * rows


def _bbox(cw: float, ch: float, deg: float) -> tuple[float, float]:
    a = math.radians(abs(deg))
    return cw * math.cos(a) + ch * math.sin(a), ch * math.cos(a) + cw * math.sin(a)


def layout_tableaux(
    layout: MatLayout, tableaux: Sequence[Sequence[str]], rng: np.random.Generator | None = None
) -> list[Placement]:
    """Lay each seat's played cards in a tidy grid inside that seat's zone.

    Args:
        layout: the mat.
        tableaux: per seat (seat order; may be shorter than the number of seats), the card labels
            in play order. Cards fill rows left to right as the seated player sees them, starting
            from the row furthest from the player; a card's slot depends only on its index, so a
            growing tableau keeps its earlier cards in place.
        rng: if given, each card gets a small random offset (≤ ±2 mm) and turn (≤ ±4°), reduced
            where the zone is tight so cards never overlap or leave the zone.

    Returns:
        One Placement per card, seat-major, rotated by the zone's ``facing``.

    Raises:
        ValueError: more tableaux than seats, or a seat has more cards than its zone holds
            (the message names the seat and the capacity).
    """
    if len(tableaux) > len(layout.zones):
        raise ValueError(f"{len(tableaux)} tableaux but mat {layout.name} has only {len(layout.zones)} seats")
    cw, ch = layout.card_mm
    out: list[Placement] = []
    for zone, cards in zip(layout.zones, tableaux):
        cols, rows, px, py = _grid(zone, layout.card_mm)
        if len(cards) > cols * rows:
            raise ValueError(
                f"{zone.name} (seat {zone.seat}): {len(cards)} cards do not fit its zone on mat "
                f"{layout.name}; it holds at most {cols * rows} ({cols} x {rows})"
            )
        zx, zy, zw, zh = zone.rect_mm
        flip = zone.facing % 360 == 180
        for i, label in enumerate(cards):
            r, c = divmod(i, cols)
            u, v = (c + 0.5) * px, (r + 0.5) * py  # slot centre, seat frame (player at the bottom)
            turn = 0.0
            if rng is not None:
                turn = float(rng.uniform(-JITTER_DEG, JITTER_DEG))
                while turn and any(b > p - _EPS_MM for b, p in zip(_bbox(cw, ch, turn), (px, py))):
                    turn *= 0.7
                    if abs(turn) < 0.05:
                        turn = 0.0
                bw, bh = _bbox(cw, ch, turn)
                sx = max(0.0, min(JITTER_MM, (px - bw) / 2 - _EPS_MM))
                sy = max(0.0, min(JITTER_MM, (py - bh) / 2 - _EPS_MM))
                u += float(rng.uniform(-1, 1)) * sx
                v += float(rng.uniform(-1, 1)) * sy
            if flip:
                centre = (zx + zw - u, zy + zh - v)
            else:
                centre = (zx + u, zy + v)
            out.append(Placement(label, centre, float(zone.facing) + turn))
    return out


@dataclass(frozen=True)
class ShotConditions:
    """How the camera, table and light look for one frame. Defaults: a clean, level shot.

    Attributes:
        background: ``"wood"`` or ``"cloth"``, the table around the mat.
        background_bgr: the table's base colour (BGR).
        mat_fill: fraction of the frame's width/height (whichever binds) the mat spans.
        rotation_deg: camera roll, degrees counter-clockwise.
        tilt: (horizontal, vertical) keystone; 0.1 makes one edge of the mat ~10 % shorter than
            the opposite one (camera not straight overhead). Positive vertical: top edge shorter.
        offset: mat centre offset from the frame centre, as a fraction of the frame size.
        light_gradient: brightness falls by up to this fraction across the frame.
        light_angle_deg: direction (image degrees) in which the light falls off.
        vignette: brightness loss in the frame corners (fraction).
        color_cast: per-channel (B, G, R) gains, e.g. warm light (0.9, 1.0, 1.1).
        blur_sigma: Gaussian blur, px (focus / motion).
        noise_sigma: sensor noise, grey levels (std dev).
        jpeg_quality: JPEG quality of the final round trip (1–100).
        shadow: how much a card's drop shadow darkens the mat (0–1).
    """

    background: str = "wood"
    background_bgr: tuple[int, int, int] = (60, 100, 150)
    mat_fill: float = 0.9
    rotation_deg: float = 0.0
    tilt: tuple[float, float] = (0.0, 0.0)
    offset: tuple[float, float] = (0.0, 0.0)
    light_gradient: float = 0.1
    light_angle_deg: float = 30.0
    vignette: float = 0.08
    color_cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur_sigma: float = 0.6
    noise_sigma: float = 2.0
    jpeg_quality: int = 88
    shadow: float = 0.35

    @classmethod
    def random(cls, rng: np.random.Generator) -> "ShotConditions":
        """Draw mild, realistic conditions: a hand-placed camera over a home table."""
        bg = str(rng.choice(["wood", "cloth"]))
        if bg == "wood":
            colour = (int(rng.integers(35, 90)), int(rng.integers(70, 125)), int(rng.integers(110, 185)))
        else:
            hsv = np.uint8([[[rng.integers(0, 180), rng.integers(60, 200), rng.integers(50, 170)]]])
            colour = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
        cast = rng.uniform(0.95, 1.05, 3)
        cast = cast / cast.mean()
        return cls(
            background=bg,
            background_bgr=colour,  # type: ignore[arg-type]
            mat_fill=float(rng.uniform(0.84, 0.95)),
            rotation_deg=float(rng.uniform(-4, 4)),
            tilt=(float(rng.uniform(-0.08, 0.08)), float(rng.uniform(-0.08, 0.08))),
            offset=(float(rng.uniform(-0.02, 0.02)), float(rng.uniform(-0.02, 0.02))),
            light_gradient=float(rng.uniform(0.0, 0.3)),
            light_angle_deg=float(rng.uniform(0, 360)),
            vignette=float(rng.uniform(0.0, 0.2)),
            color_cast=tuple(float(v) for v in cast),  # type: ignore[arg-type]
            blur_sigma=float(rng.uniform(0.3, 1.2)),
            noise_sigma=float(rng.uniform(1.0, 5.0)),
            jpeg_quality=int(rng.integers(70, 91)),
            shadow=float(rng.uniform(0.2, 0.45)),
        )


@dataclass
class RenderedFrame:
    """One simulated camera frame and its ground truth.

    Attributes:
        image: (H, W, 3) uint8 BGR, after the JPEG round trip.
        homography: (3, 3) float64, mat mm → image px (OpenCV pixel-centre convention).
        cards: per placement, ``(label, quad_px)`` with quad_px (4, 2) float32 image px in the
            face's own corner order (top-left, top-right, bottom-right, bottom-left of the
            printed face; see ``card_corners_mm``).
        conditions: the ShotConditions used.
    """

    image: np.ndarray
    homography: np.ndarray
    cards: list[tuple[str, np.ndarray]]
    conditions: ShotConditions = field(default_factory=ShotConditions)


def _camera_homography(layout: MatLayout, size: tuple[int, int], cond: ShotConditions) -> np.ndarray:
    """mat mm → image px for the camera pose in ``cond``, with the whole mat inside the frame."""
    fw, fh = size
    mw, mh = layout.width_mm, layout.height_mm
    src = np.array([[0, 0], [mw, 0], [mw, mh], [0, mh]], np.float64)
    u, v = src[:, 0] - mw / 2, src[:, 1] - mh / 2
    th, tv = cond.tilt
    # A trapezoid approximates a camera tilted off vertical (keystone).
    x = u * (1 + tv * v / mh)
    y = v * (1 - th * u / mw)
    a = math.radians(cond.rotation_deg)
    c, s = math.cos(a), math.sin(a)
    q = np.stack([c * x + s * y, -s * x + c * y], axis=1)
    span = q.max(axis=0) - q.min(axis=0)
    scale = cond.mat_fill * min(fw / span[0], fh / span[1])
    q = (q - (q.max(axis=0) + q.min(axis=0)) / 2) * scale
    centre = np.array([(fw - 1) / 2 + cond.offset[0] * fw, (fh - 1) / 2 + cond.offset[1] * fh])
    # Keep a few px of table on every side even if the offset pushes the mat out.
    margin = 4.0
    lo = margin - (q.min(axis=0))
    hi = np.array([fw - 1 - margin, fh - 1 - margin]) - q.max(axis=0)
    centre = np.clip(centre, lo, np.maximum(lo, hi))
    dst = (q + centre).astype(np.float32)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst).astype(np.float64)


@lru_cache(maxsize=8)
def _mat_canvas(layout: MatLayout, ppm: float) -> np.ndarray:
    img = render_mat(layout, ppm)
    img.setflags(write=False)
    return img


@lru_cache(maxsize=64)
def _face(label: str, width_px: int, style: str = "flat") -> np.ndarray:
    """The card face at ``width_px`` in ``style``, cached per (label, width, style)."""
    return draw_card_face(label, width_px, style)


@lru_cache(maxsize=8)
def _card_alpha(width_px: int, height_px: int, radius_px: float) -> np.ndarray:
    """(h, w) float32 coverage of a rounded-corner card, anti-aliased."""
    m = np.zeros((height_px, width_px), np.uint8)
    r = max(1, int(round(radius_px)))
    cv2.rectangle(m, (r, 0), (width_px - 1 - r, height_px - 1), 255, -1)
    cv2.rectangle(m, (0, r), (width_px - 1, height_px - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width_px - 1 - r, r), (width_px - 1 - r, height_px - 1 - r), (r, height_px - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


def clipped_box(pts: np.ndarray, shape: tuple[int, ...], pad_lo: int, pad_hi: int) -> tuple[int, int, int, int] | None:
    """The px box ``(x0, y0, x1, y1)`` (x1, y1 excluded) round (N, 2) points, grown by ``pad_lo``
    before and ``pad_hi`` after and clipped to an image of ``shape``; None when nothing is left."""
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - pad_lo
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + pad_hi
    H, W = shape[:2]
    x0, y0, x1, y1 = max(int(x0), 0), max(int(y0), 0), min(int(x1), W), min(int(y1), H)
    return None if x0 >= x1 or y0 >= y1 else (x0, y0, x1, y1)


def _paste_card(canvas: np.ndarray, placement: Placement, layout: MatLayout, ppm: float, style: str = "flat") -> None:
    cw, ch = layout.card_mm
    wpx = max(8, int(round(cw * ppm)))
    face = _face(placement.label, wpx, style)
    hpx = face.shape[0]
    alpha = _card_alpha(wpx, hpx, _CORNER_MM * ppm)
    dst = card_corners_mm(placement, layout.card_mm) * ppm - 0.5  # canvas px, pixel-centre convention
    box = clipped_box(dst, canvas.shape, 2, 2)
    if box is None:
        return
    x0, y0, x1, y1 = box
    src = np.float32([[-0.5, -0.5], [wpx - 0.5, -0.5], [-0.5, hpx - 0.5]])
    m = cv2.getAffineTransform(src, (dst[[0, 1, 3]] - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(face, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + warped.astype(np.float32) * a


def table_background(size: tuple[int, int], cond: ShotConditions, rng: np.random.Generator) -> np.ndarray:
    """(h, w, 3) float32 BGR table texture (``cond.background``: wood or cloth) for a (w, h) px frame.

    Shared by ``render_table`` and ``companion.sim.dice.render_dice``."""
    w, h = size
    base = np.asarray(cond.background_bgr, np.float32)
    if cond.background == "wood":
        # Grain: noise that is fine across the boards and long along them, plus wavy rings.
        grain = cv2.resize(rng.standard_normal((h // 2 + 1, 6), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        wobble = cv2.resize(rng.standard_normal((6, 8), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        yy = np.arange(h, dtype=np.float32)[:, None]
        rings = np.sin((yy + 25 * wobble) * (2 * np.pi / float(rng.uniform(18, 40))))
        shade = 1 + 0.07 * grain + 0.06 * rings
        plank = int(rng.integers(140, 260))
        for y in range(int(rng.integers(0, plank)), h, plank):
            shade[max(0, y - 1) : y + 2] *= 0.6
        if rng.random() < 0.5:  # boards run either way across the frame
            shade = cv2.resize(shade.T.copy(), (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        period = float(rng.uniform(2.5, 4.0))
        weave = np.sin(xx * (2 * np.pi / period)) * np.sin(yy * (2 * np.pi / period))
        mottle = cv2.resize(rng.standard_normal((8, 10), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        shade = 1 + 0.06 * weave + 0.05 * mottle
    return shade[..., None] * base


def light_gain(size: tuple[int, int], cond: ShotConditions) -> np.ndarray:
    """The uneven light and colour cast of ``cond`` over a (width, height) px frame: the factor each
    pixel's BGR is multiplied by, (H, W, 3) float32 (a gradient across the frame and a vignette).
    Used by :func:`finish_shot`, and cached per stream by ``companion.sim.roll_table``."""
    fw, fh = size
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    xn, yn = (xx - fw / 2) / (fw / 2), (yy - fh / 2) / (fh / 2)
    t = math.radians(cond.light_angle_deg)
    ramp = (xn * math.cos(t) + yn * math.sin(t) + 1.4142) / 2.8284  # 0..1 across the frame
    gain = (1 - cond.light_gradient * ramp) * (1 - cond.vignette * (xn**2 + yn**2) / 2)
    return (gain[..., None] * np.asarray(cond.color_cast, np.float32)[None, None, :]).astype(np.float32, copy=False)


def finish_shot(img: np.ndarray, cond: ShotConditions, rng: np.random.Generator) -> np.ndarray:
    """The camera's last steps on a composed (H, W, 3) float32 BGR frame: uneven light (gradient
    and vignette), colour cast, blur, sensor noise (from ``rng``), then a JPEG round trip.

    Returns the (H, W, 3) uint8 BGR image as decoded from the JPEG. ``img`` may be changed in place.
    Shared by ``render_table`` and ``companion.sim.dice.render_dice``.
    """
    fh, fw = img.shape[:2]
    img *= light_gain((fw, fh), cond)
    if cond.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), cond.blur_sigma)
    if cond.noise_sigma > 0:
        img += rng.standard_normal(img.shape, dtype=np.float32) * cond.noise_sigma
    img8 = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg_quality)])
    if not ok:  # pragma: no cover - imencode of a uint8 BGR image does not fail
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def render_table(
    layout: MatLayout,
    placements: Sequence[Placement],
    *,
    size: tuple[int, int] = (1280, 960),
    rng: np.random.Generator,
    conditions: ShotConditions | None = None,
    style: str = "flat",
) -> RenderedFrame:
    """Render what the overhead camera sees: the mat with these cards, on a table.

    Args:
        layout: the mat.
        placements: cards to draw face up, in order (later cards on top).
        size: (width, height) of the frame, px.
        rng: the only source of randomness (textures, noise): the same seed gives the same frame.
        conditions: camera, light and table; ``None`` draws mild ones with
            ``ShotConditions.random(rng)``.
        style: the card faces' style, one of ``companion.sim.faces.STYLES`` (``"flat"``,
            ``"illustrated"``, ``"noir"``, ``"watercolour"``, ``"pattern"`` or ``"airbrush"``); it does
            not use ``rng``, so a seed gives the same light and noise in every style.

    Returns:
        A RenderedFrame: the (H, W, 3) uint8 BGR image, the mat mm → image px homography, and
        each card's ground-truth quad in image px.

    Raises:
        ValueError: an unknown card label or style, or a non-positive frame size.
    """
    fw, fh = size
    if fw <= 0 or fh <= 0:
        raise ValueError(f"frame size must be positive, not {size}")
    check_style(style)
    cond = ShotConditions.random(rng) if conditions is None else conditions
    hom = _camera_homography(layout, size, cond)

    # Canvas ~1.5x the camera's px/mm so the final warp only shrinks; quantised for the cache.
    cam_ppm = math.sqrt(abs(np.linalg.det(hom[:2, :2])))
    ppm = max(1.5, round(cam_ppm * 1.5 * 4) / 4)
    canvas = _mat_canvas(layout, ppm).astype(np.float32)

    if placements and cond.shadow > 0:
        shadow = np.zeros(canvas.shape[:2], np.float32)
        off = np.array([1.2, 1.8])  # light from the top-left
        for p in placements:
            quad = (card_corners_mm(p, layout.card_mm) + off) * ppm - 0.5
            cv2.fillConvexPoly(shadow, np.round(quad * 16).astype(np.int32), 1.0, cv2.LINE_AA, shift=4)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 1.3 * ppm)
        canvas *= (1 - cond.shadow * shadow)[..., None]
    for p in placements:
        _paste_card(canvas, p, layout, ppm, style)

    # Light anti-aliasing before the shrinking warp, so marker edges and text don't alias.
    ratio = ppm / max(cam_ppm, 1e-6)
    if ratio > 1.2:
        canvas = cv2.GaussianBlur(canvas, (0, 0), 0.45 * ratio)
    to_mm = np.array([[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1]])
    warped = cv2.warpPerspective(canvas, hom @ to_mm, (fw, fh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    mw, mh = layout.width_mm, layout.height_mm
    mat_quad = cv2.perspectiveTransform(np.float64([[[0, 0], [mw, 0], [mw, mh], [0, mh]]]), hom)[0] - 0.0
    mat_mask = np.zeros((fh, fw), np.uint8)
    # Mat edges are pixel edges: shift by 0.5 px from the centre-convention corners.
    cv2.fillConvexPoly(mat_mask, np.round((mat_quad + 0.5) * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    a = mat_mask.astype(np.float32)[..., None] / 255.0
    bg = table_background(size, cond, rng)
    # The mat's own soft shadow on the table.
    bg *= 1 - 0.35 * cv2.GaussianBlur(a[..., 0], (0, 0), 6)[..., None]
    img = bg * (1 - a) + warped * a

    image = finish_shot(img, cond, rng)

    cards = []
    for p in placements:
        quad = cv2.perspectiveTransform(card_corners_mm(p, layout.card_mm)[None], hom)[0]
        cards.append((p.label, quad.astype(np.float32)))
    return RenderedFrame(image=image, homography=hom, cards=cards, conditions=cond)
