"""Compute the camera mount geometry and write it into hardware/README.md.

    python hardware/mount.py            # rewrite the geometry tables between the README's markers
    python hardware/mount.py --check    # exit 1 if the README's tables are stale

For each camera and each mat size (from calibration/mats/*.toml), how high the lens must hang
straight above the mat's centre to see the whole mat, and how many pixels a card (its long side)
and a die's top face then get. The targets (issue #8): a card ≥ 60 px long, a die face ≥ 40 px.

Model: a pinhole camera looking straight down at a flat mat, the mat's long side along the
sensor's long side. The field of view at the mat is ``2·h·tan(fov/2)`` per axis, with
``tan(fov/2) = sensor side / (2·f)``. A flat scene parallel to the sensor is imaged at one scale
everywhere, so px/mm is the same across the mat; lens distortion (strong on the wide lens)
shrinks it toward the corners, and a die's top face, 16 mm nearer the lens, is slightly larger:
the figures are for the mat plane, uncorrected. The mat is framed with ``MARGIN_MM`` to spare
on every side for aiming.

Glare: a glossy card or die mirrors a lamp where the angle of incidence equals the angle of
reflection. With the camera at height h over the mat's centre and a lamp at height H, d from
the centre, the mirrored lamp appears at ``x = d·h / (h + H)`` from the centre; it stays off
the mat when ``x`` exceeds the mat's half-extent e, i.e. ``d > e·(h + H)/h``. A lamp low and
far to the side reflects away from the lens; a light ring around the lens (H = h) mirrors at
half its own radius, in the middle of the mat, so it must be diffused and dim.

Sources: Raspberry Pi documentation, "Camera" (hardware specification table: Camera Module 3
IMX708 4608×2592 px of 1.4 µm, 6.45×3.63 mm, f = 4.74 mm, 66°×41° (wide: f = 2.75 mm, 102°×67°);
HQ Camera IMX477 4056×3040 px of 1.55 µm, 6.287×4.712 mm) and the sensor modes listed by
``rpicam-hello --list-cameras`` (IMX708 2304×1296 binned and 4608×2592; IMX477 2028×1520 binned
and 4056×3040); Raspberry Pi "6mm wide angle lens for HQ Camera" product brief (CS mount,
f = 6 mm, about 63°); Logitech C920 HD Pro Webcam specification (1920×1080, 78° diagonal field
of view), taken as the typical 1080p USB webcam.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # wiring.py beside this file holds the README marker machinery
from wiring import README, run  # noqa: E402

try:
    from companion.calibration import calibration_dir
    from companion.vision.mat_layout import load_mat_layout
except ImportError:  # pragma: no cover - only without an installed package
    sys.path.insert(0, str(HERE.parent))
    from companion.calibration import calibration_dir
    from companion.vision.mat_layout import load_mat_layout

MATS_DIR = calibration_dir() / "mats"
#: Targets from issue #8: a card's long side and a die's top face, px.
CARD_TARGET_PX = 60
DIE_TARGET_PX = 40
#: Spare mat border framed on each side, mm (aiming tolerance of a hand-built mount).
MARGIN_MM = 25
#: Lamp heights above the mat considered for glare, mm.
LAMP_HEIGHTS_MM = (150, 300, 600)


def die_size_mm() -> float:
    """The die edge the repository assumes (companion.sim.dice.DIE_SIZE_MM: Sushi Roll and d6)."""
    from companion.sim.dice import DIE_SIZE_MM

    return float(DIE_SIZE_MM)


@dataclass(frozen=True)
class Camera:
    """A camera and lens: ``tan_h``/``tan_v`` are tan(half the horizontal/vertical field of view),
    ``modes`` the full-field-of-view modes (label, width px, height px), ``specs`` the text for
    the specification table."""

    name: str
    tan_h: float
    tan_v: float
    modes: tuple[tuple[str, int, int], ...]
    specs: str
    documented_fov: str

    def fov_deg(self) -> tuple[float, float, float]:
        """Field of view (horizontal, vertical, diagonal), degrees, of the pinhole model."""
        return tuple(2 * math.degrees(math.atan(t)) for t in (self.tan_h, self.tan_v, math.hypot(self.tan_h, self.tan_v)))


def _sensor_camera(name, px, pitch_um, f_mm, modes, lens, documented) -> Camera:
    w_mm, h_mm = px[0] * pitch_um / 1000, px[1] * pitch_um / 1000
    specs = f"{px[0]}×{px[1]} px of {pitch_um} µm = {w_mm:.2f}×{h_mm:.2f} mm; {lens}, f = {f_mm} mm"
    return Camera(name, w_mm / (2 * f_mm), h_mm / (2 * f_mm), modes, specs, documented)


def _diagonal_camera(name, px, diagonal_deg, documented) -> Camera:
    """A camera known by its diagonal field of view (webcams publish no focal length)."""
    t = math.tan(math.radians(diagonal_deg) / 2) / math.hypot(*px)
    specs = f"{px[0]}×{px[1]} px, {diagonal_deg}° diagonal field of view"
    return Camera(name, t * px[0], t * px[1], ((f"{px[0]}×{px[1]}", *px),), specs, documented)


CAMERAS = (
    _sensor_camera(
        "Camera Module 3 (standard)", (4608, 2592), 1.4, 4.74,
        (("2304×1296 binned", 2304, 1296), ("4608×2592 full", 4608, 2592)),
        "fixed lens, autofocus from 10 cm", "66°×41°",
    ),
    _sensor_camera(
        "Camera Module 3 Wide", (4608, 2592), 1.4, 2.75,
        (("2304×1296 binned", 2304, 1296), ("4608×2592 full", 4608, 2592)),
        "fixed lens, autofocus from 5 cm", "102°×67°",
    ),
    _sensor_camera(
        "HQ Camera + 6 mm lens", (4056, 3040), 1.55, 6.0,
        (("2028×1520 binned", 2028, 1520), ("4056×3040 full", 4056, 3040)),
        "6 mm CS-mount lens, manual focus", "about 63° (lens brief)",
    ),
    _diagonal_camera("1080p USB webcam (C920 class)", (1920, 1080), 78.0, "78° diagonal (70.4°×43.3°)"),
)


@dataclass(frozen=True)
class Mount:
    """One camera mode over one mat: lens height (mm), view at the mat (mm), px/mm, card and die px."""

    camera: Camera
    mode: str
    mat: str
    height_mm: float
    view_mm: tuple[float, float]
    px_per_mm: float
    card_px: float
    die_px: float

    @property
    def ok(self) -> bool:
        return self.card_px >= CARD_TARGET_PX and self.die_px >= DIE_TARGET_PX


def mats() -> list[tuple[str, float, float, float]]:
    """The distinct mat sizes of calibration/mats: (names, width mm, height mm, card long side mm)."""
    sizes: dict[tuple[float, float, float], list[str]] = {}
    for path in sorted(MATS_DIR.glob("*.toml")):
        layout = load_mat_layout(path=path)
        key = (layout.width_mm, layout.height_mm, max(layout.card_mm))
        sizes.setdefault(key, []).append(layout.name)
    return [(", ".join(names), *key) for key, names in sorted(sizes.items())]


def mount(camera: Camera, mode: tuple[str, int, int], mat: tuple[str, float, float, float], die_mm: float) -> Mount:
    """The lowest lens height that frames the mat (plus margins), and what a card and die get there."""
    name, width, height, card = mat
    label, px_w, px_h = mode
    view_w, view_h = width + 2 * MARGIN_MM, height + 2 * MARGIN_MM
    h = max(view_w / (2 * camera.tan_h), view_h / (2 * camera.tan_v))
    seen = (2 * h * camera.tan_h, 2 * h * camera.tan_v)
    ppm = min(px_w / seen[0], px_h / seen[1])
    return Mount(camera, label, name, h, seen, ppm, card * ppm, die_mm * ppm)


def all_mounts() -> list[Mount]:
    die = die_size_mm()
    return [mount(c, mode, m, die) for m in mats() for c in CAMERAS for mode in c.modes]


def glare_distance_mm(half_extent_mm: float, camera_h_mm: float, lamp_h_mm: float) -> float:
    """Least horizontal distance (mm) from the mat's centre at which a lamp ``lamp_h_mm`` above the
    mat mirrors off a flat glossy surface outside ``half_extent_mm`` (specular reflection)."""
    return half_extent_mm * (camera_h_mm + lamp_h_mm) / camera_h_mm


def tables() -> str:
    """The README block: camera specs, the mount table, and the glare distances."""
    die = die_size_mm()
    out = [
        "| camera | sensor and lens | field of view (computed: H×V, diagonal) | documented |",
        "| --- | --- | --- | --- |",
    ]
    for c in CAMERAS:
        fh, fv, fd = c.fov_deg()
        out.append(f"| {c.name} | {c.specs} | {fh:.1f}°×{fv:.1f}°, {fd:.1f}° | {c.documented_fov} |")
    out += [
        "",
        f"Lens height above the mat, straight down over its centre, framing the mat with {MARGIN_MM} mm to spare "
        f"on each side; a card's long side and a {die:g} mm die's top face in px at the mat plane "
        f"(targets: card ≥ {CARD_TARGET_PX} px, die ≥ {DIE_TARGET_PX} px).",
        "",
        "| mat (mm) | camera | mode (px) | lens height (mm) | view at the mat (mm) | px/mm "
        "| card (px) | die face (px) | both targets |",
        "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    mounts = all_mounts()
    mat_sizes = {x[0]: x for x in mats()}
    for m in mounts:
        mat = mat_sizes[m.mat]
        out.append(
            f"| {mat[1]:g}×{mat[2]:g} ({m.mat}) | {m.camera.name} | {m.mode} | {m.height_mm:.0f} | "
            f"{m.view_mm[0]:.0f}×{m.view_mm[1]:.0f} | {m.px_per_mm:.2f} | {m.card_px:.0f} | {m.die_px:.0f} | "
            f"{'yes' if m.ok else 'no'} |"
        )
    smallest_card = min(mounts, key=lambda m: m.card_px)
    oks: dict[str, list[bool]] = {}
    for m in mounts:
        oks.setdefault(f"{m.camera.name} {m.mode}", []).append(m.ok)
    everywhere = [config for config, ok in oks.items() if all(ok)]
    out += [
        "",
        f"- Smallest card: {smallest_card.card_px:.0f} px ({smallest_card.camera.name}, {smallest_card.mat}).",
        f"- Both targets on every mat size: {'; '.join(everywhere) or 'none'}.",
    ]
    for cam in CAMERAS:
        heights = [m.height_mm for m in mounts if m.camera is cam]
        out.append(f"- {cam.name}: lens {min(heights) / 10:.0f}–{max(heights) / 10:.0f} cm above the mat.")
    need = DIE_TARGET_PX / die
    out += [
        "",
        f"A {die:g} mm die face at {DIE_TARGET_PX} px needs {need:.2f} px/mm; a sensor mode W×H px then covers at most "
        f"W/{need:.2f} × H/{need:.2f} mm (1920×1080: {1920 / need:.0f}×{1080 / need:.0f} mm; "
        f"2028×1520: {2028 / need:.0f}×{1520 / need:.0f} mm; 4608×2592: {4608 / need:.0f}×{2592 / need:.0f} mm).",
        "",
        "Glare: least distance (mm) from the mat's centre for a side lamp, so that its mirror image on a glossy "
        "card falls outside the mat and its margin (camera at the heights above; lamps at the long sides shine "
        "across the short axis, lamps at the ends along the long axis). A lower camera needs the lamps further out.",
        "",
        "| mat (mm) | camera (lens height) | lamp height (mm) "
        "| lamps at the long sides: distance (mm) | lamps at the ends: distance (mm) |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for mat in mats():
        for cam in CAMERAS:
            # every camera the mount table lists: the distance depends on the lens height, which
            # is the camera's own (its field of view), the same for all its modes
            h = mount(cam, cam.modes[0], mat, die).height_mm
            for lamp in LAMP_HEIGHTS_MM:
                across = glare_distance_mm(mat[2] / 2 + MARGIN_MM, h, lamp)
                along = glare_distance_mm(mat[1] / 2 + MARGIN_MM, h, lamp)
                out.append(f"| {mat[1]:g}×{mat[2]:g} | {cam.name} ({h:.0f} mm) | {lamp} | {across:.0f} | {along:.0f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring. Returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the README's tables are stale")
    parser.add_argument("--readme", type=Path, default=README, help="README to update")
    args = parser.parse_args(argv)
    return run("mount", tables(), args.readme, args.check)


if __name__ == "__main__":
    sys.exit(main())
