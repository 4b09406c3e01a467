"""Synthetic images for the vision tests (helpers), and checks that the helpers themselves are sane.

The scenes are built independently of companion.vision: cards are drawn with
``companion.sim.faces.draw_card_face``, pasted on a background with a known homography, and the
ground-truth corners are carried through the same transforms.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.sim.faces import draw_card_face

CARD_W = 80  # px on the flat table before the camera warp


def background(kind: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """(h, w, 3) uint8 BGR table texture: plain, felt, wood, checker, blobs or dark."""
    if kind == "plain":
        img = np.full((h, w, 3), (200, 205, 210), np.float32)
    elif kind == "dark":
        img = np.full((h, w, 3), (40, 35, 30), np.float32)
    elif kind == "felt":
        img = np.full((h, w, 3), (60, 120, 40), np.float32)
        img += cv2.GaussianBlur(rng.normal(0, 25, (h, w, 1)).astype(np.float32), (0, 0), 1.5)[..., None]
    elif kind == "wood":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        warp = 12 * np.sin(xx / 90.0) + 6 * np.sin(yy / 37.0 + xx / 150.0)
        grain = 0.5 + 0.5 * np.sin((yy + warp) / 5.0)
        base = np.array([60, 110, 165], np.float32)
        img = base[None, None, :] * (0.75 + 0.35 * grain[..., None])
        img += rng.normal(0, 6, (h, w, 3)).astype(np.float32)
    elif kind == "checker":
        yy, xx = np.mgrid[0:h, 0:w]
        chk = ((yy // 23 + xx // 23) % 2).astype(np.float32)
        img = np.where(chk[..., None] > 0, np.float32([170, 150, 140]), np.float32([120, 110, 100]))
    elif kind == "blobs":
        img = np.full((h, w, 3), (150, 160, 150), np.float32)
        for _ in range(120):
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            col = tuple(float(v) for v in rng.integers(60, 230, 3))
            cv2.circle(img, c, int(rng.integers(4, 18)), col, -1, cv2.LINE_AA)
    else:
        raise ValueError(kind)
    return np.clip(img, 0, 255).astype(np.uint8)


def paste(canvas: np.ndarray, face: np.ndarray, quad: np.ndarray) -> None:
    """Paste ``face`` (upright) onto ``canvas`` so its corners land on ``quad`` (TL, TR, BR, BL)."""
    fh, fw = face.shape[:2]
    src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]])
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    h, w = canvas.shape[:2]
    warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, (w, h), flags=cv2.INTER_LINEAR)
    a = mask.astype(np.float32)[..., None] / 255.0
    canvas[:] = (canvas * (1 - a) + warped * a).astype(np.uint8)


def photometric(img: np.ndarray, rng: np.random.Generator, blur: float = 1.0, noise: float = 4.0,
                gain: float = 1.0, jpeg: int | None = 80) -> np.ndarray:
    """Light gradient, colour cast, blur, noise and JPEG, as a cheap camera would add."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = 1.0 + 0.3 * ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang))
    cast = 1.0 + rng.uniform(-0.08, 0.08, 3)
    out = img.astype(np.float32) * grad[..., None] * cast[None, None, :] * gain
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out += rng.normal(0, noise, out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def table_scene(labels: list[str], kind: str, seed: int, size=(1280, 960), card_w: int = CARD_W,
                gap_mm: float = 8.0, tilt: float = 0.06, **photo) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """A table photo with the given cards face up on a grid (random rotations, jitter).

    Returns ``(image (H, W, 3) uint8 BGR, [(label, quad (4, 2) TL,TR,BR,BL of the face)])``.
    The whole flat table is then seen through a mild perspective (``tilt``).
    """
    rng = np.random.default_rng(seed)
    w, h = size
    flat = background(kind, w, h, rng)
    card_h = card_w * 63 / 44
    diag = np.hypot(card_w, card_h)
    gap = gap_mm * card_w / 44.0
    cols = max(1, int((w - 160) // (diag * 0.8 + gap)))
    truth = []
    for i, label in enumerate(labels):
        r, c = divmod(i, cols)
        cx = 110 + c * (diag * 0.8 + gap) + diag * 0.4
        cy = 110 + r * (diag * 0.9 + gap) + diag * 0.45
        # Rotations kept small enough that neighbours on the grid never touch.
        ang = rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-12, 12)
        t = np.deg2rad(ang)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        corners = np.array([[-card_w / 2, -card_h / 2], [card_w / 2, -card_h / 2],
                            [card_w / 2, card_h / 2], [-card_w / 2, card_h / 2]]) @ rot.T + [cx, cy]
        paste(flat, draw_card_face(label, 2 * card_w), corners)
        truth.append((label, corners.astype(np.float32)))
    # Mild camera perspective: move the image corners inward by up to tilt × size.
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = src + rng.uniform(0, tilt, (4, 2)).astype(np.float32) * np.float32([[w, h], [-w, h], [-w, -h], [w, -h]])
    m = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(flat, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    truth = [(lb, cv2.perspectiveTransform(q[None], m)[0]) for lb, q in truth]
    return photometric(img, rng, **photo), truth


def card_photo(label: str, seed: int, angle: float | None = None, persp: float = 0.05, blur: float = 0.8,
               noise: float = 4.0, gain: float = 1.0, size: int = 150, margin: float = 0.15,
               bg: str | None = None) -> np.ndarray:
    """One card, cropped with a margin of table around it, rotated and slightly off-axis."""
    rng = np.random.default_rng(seed)
    face = draw_card_face(label, 220)
    ch = size * 63 / 44
    side = int(np.hypot(size, ch) * (1 + margin))
    canvas = background(bg or str(rng.choice(["plain", "felt", "dark"])), side, side, rng)
    ang = rng.uniform(0, 360) if angle is None else angle
    t = np.deg2rad(ang)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    q = np.array([[-size / 2, -ch / 2], [size / 2, -ch / 2], [size / 2, ch / 2], [-size / 2, ch / 2]]) @ rot.T
    q = q + side / 2 + rng.uniform(-persp, persp, (4, 2)) * size
    paste(canvas, face, q)
    return photometric(canvas, rng, blur=blur, noise=noise, gain=gain, jpeg=85)


def test_scene_truth_lies_on_the_cards():
    img, truth = table_scene(["maki_2", "wasabi"], "plain", seed=1, blur=0, noise=0, jpeg=None)
    for label, q in truth:
        c = q.mean(axis=0).astype(int)
        # The card centre is not the table colour.
        assert np.abs(img[c[1], c[0]].astype(int) - [200, 205, 210]).sum() > 60, label


_DECKS: dict = {}


def sim_deck(exclude: tuple[str, ...] = ()):
    """A Deck enrolled from one clean sim face per label (cached per process)."""
    from companion.rules.sushi_go.cards import VISION_LABELS
    from companion.vision.deck import enroll_images

    if exclude not in _DECKS:
        _DECKS[exclude] = enroll_images({lb: [draw_card_face(lb, 220)] for lb in VISION_LABELS if lb not in exclude})
    return _DECKS[exclude]


def match_truth(obs, truth, max_dist: float = 15.0):
    """Pair observations with ground-truth cards by nearest centre; returns (pairs, unmatched obs)."""
    pairs, used = [], set()
    for label, q in truth:
        c = q.mean(axis=0)
        d = [np.hypot(o.center[0] - c[0], o.center[1] - c[1]) if i not in used else np.inf for i, o in enumerate(obs)]
        if d and min(d) < max_dist:
            i = int(np.argmin(d))
            used.add(i)
            pairs.append((label, q, obs[i]))
        else:
            pairs.append((label, q, None))
    return pairs, [o for i, o in enumerate(obs) if i not in used]


def corner_error(label: str, truth_q: np.ndarray, quad) -> float:
    """Largest corner distance (px); the back is point-symmetric, so either start counts."""
    q = np.asarray(quad, np.float32)
    e = float(np.abs(q - truth_q).max())
    if label == "back":
        e = min(e, float(np.abs(np.roll(q, 2, axis=0) - truth_q).max()))
    return e
