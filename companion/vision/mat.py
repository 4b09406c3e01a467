"""Mat tracking: find the play mat's 4 ArUco corner markers and map image pixels to mat millimetres.

The mat (``companion.vision.mat_layout``) carries 4 ArUco markers from ``DICT_4X4_50``. Each
detected marker gives 4 corner correspondences (image px ↔ mat mm), and ``cv2.findHomography``
turns all of them into one 3×3 homography *image px → mat mm*. From it, card centres found in
the image land in seat zones (``assign_to_zones``).

Sources:
  * OpenCV ArUco tutorial, "Detection of ArUco Markers" (``cv2.aruco.ArucoDetector``, the ≥ 4.7
    object API; the old ``cv2.aruco.detectMarkers`` free function is gone in OpenCV 5).
  * ``cv2.findHomography`` reference (calib3d): RANSAC, then Levenberg–Marquardt refinement on
    the inliers.

Decisions (tested in tests/test_mat_tracker.py):
  * **At least 3 of the 4 markers** are needed to (re-)estimate. One marker already gives 4
    points, so a homography is *defined*, but those points span 5 cm of an 84 cm mat and the far
    corners would be extrapolated wildly; 2 markers (8 points) are still nearly degenerate when
    they share an edge. 3 markers span the mat in both directions and 12 points leave RANSAC
    room to reject a mis-located corner. Override with ``MatTracker(min_markers=...)``.
  * **The homography is kept until the markers move.** Each frame, the detected corners are
    compared with where the kept homography says they should be. If every corner is within
    ``move_threshold_px`` (default **3 px**) the kept homography is reused unchanged, so the
    zone map does not jitter with detector noise (sub-pixel corners wobble by ~0.1–0.5 px). If any
    corner is further off, the mat (or camera) moved and the homography is re-estimated.
  * **Losing the markers keeps the homography.** When fewer than ``min_markers`` markers are
    seen (a hand over a corner, a bad frame), ``MatStatus.found`` is False but
    ``MatStatus.homography`` is still the kept one (``None`` only if the mat was never found),
    so the caller can keep reading cards through a brief occlusion. ``found`` answers "was the
    mat confirmed in *this* frame"; ``homography`` answers "what is the best mapping we have".
  * **Once found, the markers are looked for first near where they were.** A camera over a table
    barely moves, so each marker is searched in a small crop (its last bounding box grown by about
    one marker side, ``_ROI_MARGIN_SIDES``) instead of the whole frame: ~4 small detections instead
    of one over 1280×960. The full-frame search is still done whenever the crops miss a marker that
    the last frame saw, find fewer than ``min_markers``, or show the markers moved (drift above
    ``move_threshold_px``), so a re-estimated homography always comes from the full search and a
    kept one is reused only when the full search would have kept it too (the crops' sub-pixel
    corners agree with the full search's to ≤ 0.0001 px on the sim frames and fixture streams).
    One thing the crops cannot see: a second copy of a mat marker elsewhere in the frame, which
    the full search would drop as ambiguous; it is noticed at the next full search.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from companion.vision.mat_layout import MatLayout
from companion.vision.observations import CardObservation

# cv2 is imported inside MatTracker: to_mat_mm and assign_to_zones need only numpy.

#: Detected corners further than this (px) from the kept homography's prediction mean the mat moved.
DEFAULT_MOVE_THRESHOLD_PX = 3.0
#: Fewest markers (of the layout's 4) that (re-)estimate the homography; see the module docstring.
DEFAULT_MIN_MARKERS = 3
#: RANSAC inlier threshold (px) for cv2.findHomography: generous enough for sub-pixel noise and
#: lens distortion at the mat's edge, tight enough to drop a corner snapped to the wrong edge.
_RANSAC_REPROJ_PX = 4.0
#: Each marker's search crop is its last bounding box grown by this many marker sides on every
#: side: room for a camera nudge of a marker side between frames before the full search is needed.
_ROI_MARGIN_SIDES = 1.0
#: Fewest pixels of margin whatever the marker's size: ArUco drops candidates within a few px of
#: the image border (``minDistanceToBorder``) and the corner refinement needs its window.
_ROI_MIN_MARGIN_PX = 16


@dataclass(frozen=True)
class MatStatus:
    """The mat tracker's answer for one frame.

    found: True if at least ``min_markers`` of the mat's markers were seen in *this* frame (and a
        homography is available). False for a frame where the mat was not confirmed, including a
        bad frame.
    homography: (3, 3) float64, image px → mat mm. The kept homography: still set when ``found``
        is False if the mat was found before; None only if it never was.
    markers_seen: ids of the layout's markers detected in this frame, ascending (unknown or
        duplicated ids are not counted).
    message: a short human-readable line, e.g. ``"mat found: markers [0, 1, 2, 3]"`` or
        ``"mat not found: saw markers [0, 2] of 4"``.
    reestimated: True if this frame computed a new homography (first sighting or the mat moved).
    drift_px: largest distance (px) between a detected corner and where the kept homography put
        it before this frame, or None when there was nothing to compare.
    bad_frame: True when the frame itself was unusable (None, wrong shape or dtype, empty, or marker
        detection failed on it); nothing else in the status comes from that frame.
    """

    found: bool
    homography: np.ndarray | None
    markers_seen: tuple[int, ...] = ()
    message: str = ""
    reestimated: bool = False
    drift_px: float | None = None
    bad_frame: bool = False


def _aruco_dictionary(cv2, name: str):
    try:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    except AttributeError:
        raise ValueError(f"unknown ArUco dictionary {name!r} in the mat layout (e.g. 'DICT_4X4_50')") from None


class MatTracker:
    """Track the play mat across frames and keep an image px → mat mm homography.

    Args:
        layout: the mat (markers and zones in mm), from ``load_mat_layout``.
        move_threshold_px: re-estimate only if a detected corner is further than this (px) from
            where the kept homography predicts it. Default 3 px.
        min_markers: fewest layout markers needed to (re-)estimate (default 3, range 1..4).

    Raises:
        ValueError: an unknown ``layout.aruco_dictionary`` or ``min_markers`` out of range.

    ``update`` never raises for a bad frame; see its docstring.
    """

    def __init__(
        self,
        layout: MatLayout,
        move_threshold_px: float = DEFAULT_MOVE_THRESHOLD_PX,
        min_markers: int = DEFAULT_MIN_MARKERS,
    ) -> None:
        import cv2  # lazy: the mat tracker is the only vision piece here that needs OpenCV

        if not 1 <= min_markers <= len(layout.markers):
            raise ValueError(f"min_markers must be 1..{len(layout.markers)}, not {min_markers}")
        self.layout = layout
        self.move_threshold_px = float(move_threshold_px)
        self.min_markers = int(min_markers)
        self._cv2 = cv2
        params = cv2.aruco.DetectorParameters()
        # sub-pixel corners: each 1 px of corner error is ~0.5–1 mm on the mat at 2 MP
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self._detector = cv2.aruco.ArucoDetector(_aruco_dictionary(cv2, layout.aruco_dictionary), params)
        self._corners_mm = {m.id: np.asarray(m.corners_mm(), dtype=np.float64) for m in layout.markers}
        self._homography: np.ndarray | None = None
        self._frame_shape: tuple[int, int] | None = None
        # corners (px) of the markers seen in the last frame with any marker: the crops' centres
        self._last_seen: dict[int, np.ndarray] = {}

    @property
    def homography(self) -> np.ndarray | None:
        """The kept homography, (3, 3) float64 image px → mat mm, or None if never found."""
        return None if self._homography is None else self._homography.copy()

    def reset(self) -> None:
        """Forget the kept homography (e.g. after the camera was moved on purpose)."""
        self._homography = None
        self._frame_shape = None
        self._last_seen = {}

    def _status(self, found: bool, seen: Sequence[int], message: str, **kw) -> MatStatus:
        return MatStatus(found, self.homography, tuple(seen), message, **kw)

    def detect(self, frame_bgr: np.ndarray) -> dict[int, np.ndarray]:
        """Detect the layout's markers in a frame.

        Args:
            frame_bgr: (H, W, 3) uint8 BGR, or (H, W) uint8 grey.

        Returns:
            marker id → (4, 2) float64 corners in image px, ArUco order (TL, TR, BR, BL of the
            marker as printed). Ids not in the layout, and ids seen more than once (which one is
            the mat's cannot be told), are left out.
        """
        cv2 = self._cv2
        grey = frame_bgr if frame_bgr.ndim == 2 else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        return self._detect_grey(grey)

    def _detect_grey(self, grey: np.ndarray) -> dict[int, np.ndarray]:
        """``detect`` on a (H, W) uint8 grey image (or a crop of one)."""
        corners, ids, _rejected = self._detector.detectMarkers(np.ascontiguousarray(grey))
        if ids is None or len(ids) == 0:
            return {}
        ids = np.asarray(ids).reshape(-1)  # (N, 1) in OpenCV 4.x, (N,) in 5.x
        found: dict[int, np.ndarray] = {}
        duplicated: set[int] = set()
        for marker_id, quad in zip(ids.tolist(), corners):
            if marker_id not in self._corners_mm:
                continue
            if marker_id in found:
                duplicated.add(marker_id)
            found[marker_id] = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        for marker_id in duplicated:
            del found[marker_id]
        return found

    def _detect_near(self, frame_bgr: np.ndarray) -> dict[int, np.ndarray] | None:
        """Detect each layout marker only in a crop around where it was: its corners in the last
        frame, or where the kept homography puts it if the last frame did not see it.

        Returns ``detect``'s dict (corners in full-frame px), or None when the crops are not to be
        trusted and the full-frame search is needed: no kept homography, a marker the last frame
        saw is missing, or fewer than ``min_markers`` were found. A marker is taken only from its
        own crop (a neighbour's crop may hold part of it) and only if seen there once.
        """
        if self._homography is None:
            return None
        cv2 = self._cv2
        height, width = frame_bgr.shape[:2]
        try:
            to_px = np.linalg.inv(self._homography)
        except np.linalg.LinAlgError:
            return None
        found: dict[int, np.ndarray] = {}
        for marker_id, corners_mm in self._corners_mm.items():
            quad = self._last_seen.get(marker_id)
            if quad is None:
                quad = to_mat_mm(to_px, corners_mm)
                if not np.all(np.isfinite(quad)):
                    continue
            side = max(np.linalg.norm(quad[(k + 1) % 4] - quad[k]) for k in range(4))
            margin = max(_ROI_MIN_MARGIN_PX, _ROI_MARGIN_SIDES * side)
            x0, y0 = np.floor(quad.min(axis=0) - margin).astype(int)
            x1, y1 = np.ceil(quad.max(axis=0) + margin).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue  # predicted off the frame
            crop = frame_bgr[y0:y1, x0:x1]
            grey = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            here = self._detect_grey(grey)
            if marker_id in here:
                found[marker_id] = here[marker_id] + np.array([x0, y0], dtype=np.float64)
        if any(i not in found for i in self._last_seen) or len(found) < self.min_markers:
            return None
        return found

    def update(self, frame_bgr: np.ndarray | None) -> MatStatus:
        """Look for the mat in one frame and update the kept homography.

        Args:
            frame_bgr: (H, W, 3) uint8 BGR (a (H, W) uint8 grey frame is accepted too).

        Returns:
            A MatStatus. For a bad frame (None, not an array, wrong shape or dtype, empty) it has
            ``found=False``, the kept homography, and a message naming the problem; the tracker's
            state is unchanged. If the frame size differs from the one the kept homography was
            estimated on, the kept homography is dropped (the camera was reconfigured, so its
            pixels mean something else).

        Never raises for a bad frame.
        """
        problem = _frame_problem(frame_bgr)
        if problem:
            return self._status(False, (), f"bad frame: {problem}", bad_frame=True)
        frame_shape = tuple(frame_bgr.shape[:2])
        if self._frame_shape is not None and frame_shape != self._frame_shape:
            self.reset()
        try:
            seen = self._detect_near(frame_bgr)
            # the crops stand in for the full search only when it would keep the homography too
            if seen is None or self._drift_px(seen) > self.move_threshold_px:
                seen = self.detect(frame_bgr)
        except Exception as exc:  # a cv2.error on a pathological frame must not stop the game loop
            return self._status(False, (), f"bad frame: marker detection failed: {exc}", bad_frame=True)
        self._last_seen = seen
        ids = sorted(seen)
        n_markers = len(self._corners_mm)

        drift = None
        if self._homography is not None and seen:
            drift = self._drift_px(seen)

        if len(ids) < self.min_markers:
            kept = " (keeping the last mat position)" if self._homography is not None else ""
            moved = ""
            if drift is not None and drift > self.move_threshold_px:
                moved = f"; the markers seen are {drift:.0f} px from where the mat was"
            message = f"mat not found: saw markers {ids} of {n_markers}{kept}{moved}"
            return self._status(False, ids, message, drift_px=drift)

        if drift is not None and drift <= self.move_threshold_px:
            return self._status(True, ids, f"mat found: markers {ids}", drift_px=drift)

        homography = self._estimate(seen)
        if homography is None:
            message = f"mat not found: markers {ids} seen but they fit no homography"
            return self._status(False, ids, message, drift_px=drift)
        self._homography = homography
        self._frame_shape = frame_shape
        why = "mat moved" if drift is not None else "mat found"
        return self._status(True, ids, f"{why}: markers {ids}", reestimated=True, drift_px=drift)

    def _drift_px(self, seen: dict[int, np.ndarray]) -> float:
        """Largest distance (px) from a detected corner to the kept homography's prediction."""
        try:
            to_px = np.linalg.inv(self._homography)
        except np.linalg.LinAlgError:
            return float("inf")
        mm = np.concatenate([self._corners_mm[i] for i in seen])
        px = np.concatenate([seen[i] for i in seen])
        predicted = to_mat_mm(to_px, mm)
        err = np.linalg.norm(predicted - px, axis=1)
        return float(np.nanmax(err)) if np.isfinite(err).any() else float("inf")

    def _estimate(self, seen: dict[int, np.ndarray]) -> np.ndarray | None:
        cv2 = self._cv2
        px = np.concatenate([seen[i] for i in sorted(seen)]).astype(np.float32)
        mm = np.concatenate([self._corners_mm[i] for i in sorted(seen)]).astype(np.float32)
        # RANSAC's threshold is in the *destination* units (mm). Convert the px tolerance with the
        # markers' own scale so it means "_RANSAC_REPROJ_PX pixels" whatever the camera height.
        side_px = np.mean([np.linalg.norm(q[1] - q[0]) for q in seen.values()])
        side_mm = np.mean([m.size_mm for m in self.layout.markers if m.id in seen])
        mm_per_px = side_mm / side_px if side_px > 0 else 1.0
        try:
            homography, _inliers = cv2.findHomography(px, mm, cv2.RANSAC, _RANSAC_REPROJ_PX * mm_per_px)
        except cv2.error:
            return None
        if homography is None or not np.all(np.isfinite(homography)):
            return None
        return homography.astype(np.float64)


def _frame_problem(frame) -> str | None:
    """Why ``frame`` is not a usable (H, W, 3) or (H, W) uint8 image, or None if it is."""
    if frame is None:
        return "no frame (None)"
    if not isinstance(frame, np.ndarray):
        return f"expected a numpy array, got {type(frame).__name__}"
    if frame.dtype != np.uint8:
        return f"expected dtype uint8, got {frame.dtype}"
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        return f"expected shape (H, W, 3), got {frame.shape}"
    if frame.shape[0] < 8 or frame.shape[1] < 8:
        return f"frame too small: {frame.shape}"
    return None


def mat_square(frame: np.ndarray, homography: np.ndarray, center_mm: tuple[float, float], side_mm: float,
               px_per_mm: float) -> np.ndarray:
    """What the camera saw of a square of the mat: ``side_mm`` a side, centred on ``center_mm``
    (mat mm), straightened onto the mat at ``px_per_mm`` (``cv2.warpPerspective``, area
    interpolation; outside the frame is black). For showing the players a card or a die.

    Args:
        frame: (H, W, 3) uint8 BGR.
        homography: (3, 3) float, image px → mat mm (as in ``MatStatus.homography``).

    Returns:
        (N, N, 3) uint8 BGR, N = round(side_mm · px_per_mm).
    """
    import cv2

    n = int(round(side_mm * px_per_mm))
    crop_to_mm = np.array([[1 / px_per_mm, 0, center_mm[0] - side_mm / 2],
                           [0, 1 / px_per_mm, center_mm[1] - side_mm / 2], [0, 0, 1]])
    crop_to_image = np.linalg.inv(homography) @ crop_to_mm
    return cv2.warpPerspective(frame, crop_to_image, (n, n), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT)


def to_mat_mm(homography: np.ndarray, points_px) -> np.ndarray:
    """Map image points through a homography.

    Args:
        homography: (3, 3) float, image px → mat mm (as in ``MatStatus.homography``). Any 3×3
            homography works; ``np.linalg.inv(homography)`` maps mat mm → image px.
        points_px: (N, 2) or (2,) array-like of (x, y) image px.

    Returns:
        (N, 2) float64 mat mm. A point the homography sends to infinity (beyond the horizon) is
        NaN.

    Raises:
        ValueError: ``homography`` is not 3×3 or the points are not (N, 2).
    """
    h = np.asarray(homography, dtype=np.float64)
    if h.shape != (3, 3):
        raise ValueError(f"homography must be 3x3, got shape {h.shape}")
    pts = np.asarray(points_px, dtype=np.float64)
    if pts.ndim == 1 and pts.shape == (2,):
        pts = pts[None, :]
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError(f"points must be (N, 2), got shape {pts.shape}")
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    w = homog[:, 2:3]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = homog[:, :2] / w
    out[np.abs(w[:, 0]) < 1e-12] = np.nan
    return out


def assign_to_zones(
    layout: MatLayout,
    homography: np.ndarray | None,
    observations: Iterable[CardObservation],
) -> dict[int | None, list[CardObservation]]:
    """Sort card observations into seat zones by where their centre lands on the mat.

    Args:
        layout: the mat, zones in mm.
        homography: (3, 3) image px → mat mm (``MatStatus.homography``).
        observations: cards with quads in image px.

    Returns:
        ``{seat: [cards…]}`` with a key for *every* seat of the layout (empty list if none) and
        always a ``None`` key for the cards whose centre lies outside every zone. Cards keep
        their input order.

    Raises:
        ValueError: ``homography`` is None (the mat has never been found) or not 3×3.
    """
    if homography is None:
        raise ValueError("no homography: the mat has not been found yet")
    result: dict[int | None, list[CardObservation]] = {z.seat: [] for z in layout.zones}
    result[None] = []
    observations = list(observations)
    if not observations:
        return result
    centres = to_mat_mm(homography, [o.center for o in observations])
    for obs, (x, y) in zip(observations, centres):
        zone = layout.zone_at(float(x), float(y)) if np.isfinite(x) and np.isfinite(y) else None
        result[None if zone is None else zone.seat].append(obs)
    return result
