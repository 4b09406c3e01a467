"""Peak memory of the vision commands on the worst single inputs (issue #14 items 1, 4, 8).

    .venv/bin/python bench/vision_inputs.py [--dir DIR] [--keep]

Writes each worst case into DIR (a temporary folder by default; about 1.3 GB of files, most of it
the 50 MP noise images, which no compression can shrink) and runs the real command on it in a
fresh process, reporting the exit status and the process's peak resident memory (``VmHWM`` from
``/proc/self/status``, Linux; ``getrusage``'s ``ru_maxrss`` would carry over this process's own
peak into the child). Target: every peak under 512 MB (issue #14, "Done when").

The cases: the issue's zero PNGs (30000², 20000²) and thin strip; a valid deck plus a 2 GiB zero
member and a deck of 1 GiB of zero templates; 50 MP noise images at the pixel budget in every
format the readers take; images at the smaller budgets of the layouts whose decoders hold more
(16-bit TIFF, GIF, progressive 4:4:4 JPEG, ``imageio.decode_bytes_per_px``); and the largest deck
and dice files the schemas allow, alone and with the worst image.

Timing is printed for information only; memory is the figure.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DECK = ROOT / "tests" / "fixtures" / "sim-deck.npz"
TARGET_MB = 512

_RUN = (
    "import re, sys\n"
    "from companion.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
    "print(f'@@ {rc} {hwm}', file=sys.stderr)\n"
)


def run(args: list[str]) -> tuple[int | str, int, str]:
    """(exit status or the signal, peak MB, the first error line) of ``companion ARGS``."""
    import time

    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, timeout=600)
    secs = time.perf_counter() - t0
    m = re.search(r"@@ (\d+) (\d+)", res.stderr)
    if m is None:  # died before it could say: a signal, or a traceback
        return f"died ({res.returncode})", -1, res.stderr.strip().splitlines()[-1][:90] if res.stderr else ""
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("companion: error:")]
    return int(m.group(1)), int(m.group(2)) // 1024, (errors[0][18:108] if errors else f"{secs:.1f} s")


def _zero_member(zf: zipfile.ZipFile, name: str, shape: tuple[int, ...], dtype) -> None:
    """A member of zeros written in pieces (never held whole)."""
    from numpy.lib import format as npy

    with zf.open(name + ".npy", "w", force_zip64=True) as fh:
        npy.write_array_header_1_0(fh, {"descr": npy.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
                                        "shape": shape})
        left, chunk = int(np.prod(shape)) * np.dtype(dtype).itemsize, bytes(1 << 24)
        while left > 0:
            fh.write(chunk[:min(left, len(chunk))])
            left -= len(chunk)


def make_inputs(d: Path) -> dict[str, Path]:
    """Every case's file in ``d`` (reused if already there)."""
    import cv2

    out: dict[str, Path] = {}
    rng = np.random.default_rng(14)

    def image(name: str, make, params=()):
        p = d / name
        if not p.exists():
            assert cv2.imwrite(str(p), make(), list(params)), name
        out[name] = p

    image("zero-30000x30000.png", lambda: np.zeros((30000, 30000), np.uint8))
    image("zero-20000x20000.png", lambda: np.zeros((20000, 20000), np.uint8))
    image("thin-100000x1.png", lambda: np.full((1, 100_000, 3), 128, np.uint8))

    def noise(h: int, w: int, c: int = 3, dt=np.uint8) -> np.ndarray:
        return rng.integers(0, np.iinfo(dt).max + 1, (h, w, c), dtype=dt)

    h50, w50 = 6120, 8160  # 49.9 MP, the largest 50 MP sensor
    image("noise-50MP.png", lambda: noise(h50, w50), (cv2.IMWRITE_PNG_COMPRESSION, 1))
    image("noise-50MP-rgba16.png", lambda: noise(h50, w50, 4, np.uint16), (cv2.IMWRITE_PNG_COMPRESSION, 0))
    image("noise-50MP.jpg", lambda: noise(h50, w50), (cv2.IMWRITE_JPEG_QUALITY, 95))
    image("noise-50MP.bmp", lambda: noise(h50, w50))
    image("noise-50MP.webp", lambda: noise(h50, w50), (cv2.IMWRITE_WEBP_QUALITY, 90))
    image("noise-50MP-rgb8.tif", lambda: noise(h50, w50), (cv2.IMWRITE_TIFF_COMPRESSION, 1))
    image("noise-50MP-rgba16.tif", lambda: noise(h50, w50, 4, np.uint16), (cv2.IMWRITE_TIFF_COMPRESSION, 1))
    image("noise-50MP-progressive444.jpg", lambda: noise(h50, w50), (
        cv2.IMWRITE_JPEG_PROGRESSIVE, 1, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444))
    # At the budgets of the costly layouts (just under DECODE_BUDGET / decode_bytes_per_px).
    image("noise-27MP-rgba16.tif", lambda: noise(4500, 6000, 4, np.uint16), (cv2.IMWRITE_TIFF_COMPRESSION, 1))
    image("noise-25MP.gif", lambda: noise(5000, 5000))
    image("noise-33MP-progressive444.jpg", lambda: noise(5000, 6600), (
        cv2.IMWRITE_JPEG_PROGRESSIVE, 1, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444))

    p = d / "deck-plus-2GiB-zeros.npz"
    if not p.exists():
        shutil.copy(DECK, p)
        with zipfile.ZipFile(p, "a", zipfile.ZIP_DEFLATED) as zf:
            _zero_member(zf, "junk", (2 << 30,), np.uint8)
    out[p.name] = p
    p = d / "deck-1GiB-zero-templates.npz"
    if not p.exists():
        with zipfile.ZipFile(DECK) as src, zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
            for m in src.namelist():
                if m not in ("templates.npy", "template_label.npy"):
                    zf.writestr(m, src.read(m))
            rows = (1 << 30) // (4 * 3870)
            _zero_member(zf, "templates", (rows, 3870), np.float32)
            with zf.open("template_label.npy", "w") as fh:
                n_labels = len(np.load(DECK)["labels"])
                np.lib.format.write_array(fh, (np.arange(rows) * n_labels // rows).astype(np.int64))
    out[p.name] = p
    out.update(_largest_files(d))
    # Enrolment folders whose one picture is the 50 MP noise PNG (linked, not copied).
    for folder, label in (("enrol-deck", "big"), ("enrol-dice", "maki")):
        pic = d / folder / label / "noise-50MP.png"
        if not pic.exists():
            pic.parent.mkdir(parents=True)
            try:
                pic.hardlink_to(out["noise-50MP.png"])
            except OSError:
                shutil.copy(out["noise-50MP.png"], pic)
        out[folder] = d / folder
    return out


def _largest_files(d: Path) -> dict[str, Path]:
    """The largest DECK.npz and DICE.npz the schemas accept (random unit templates)."""
    from companion.rules.sushi_roll.dice import load_dice_faces
    from companion.vision import dice_faces
    from companion.vision.deck import FINE_H, FINE_W, MAX_EXAMPLES, MAX_LABELS, Deck
    from companion.vision.dice_fine import FINE

    rng = np.random.default_rng(0)

    def unit(m: int, n: int) -> np.ndarray:
        t = rng.normal(size=(m, n)).astype(np.float32)
        return t / np.linalg.norm(t, axis=1, keepdims=True)

    deck = d / "largest-deck.npz"
    if not deck.exists():
        m = 13 * MAX_EXAMPLES
        Deck(tuple(f"label_{i:03d}" for i in range(MAX_LABELS)), unit(m, 3870), np.arange(m) % MAX_LABELS, 0.6,
             np.ones(MAX_LABELS, np.int64), rng.normal(size=(MAX_EXAMPLES, 3, FINE_H, FINE_W)).astype(np.float32),
             np.arange(MAX_EXAMPLES) % MAX_LABELS, True).save(deck)
    dice = d / "largest-dice.npz"
    if not dice.exists():
        faces = tuple(sorted({str(x) for die in load_dice_faces().faces for x in die}))
        f, e = len(faces), dice_faces.MAX_EXAMPLES
        m = dice_faces.TEMPLATES_PER_EXAMPLE * e
        dice_faces.DiceSet(faces, unit(m, 3 * dice_faces.PATCH ** 2), np.arange(m) % f, np.full(f, 0.8),
                           rng.normal(size=(e, FINE, FINE, 3)).astype(np.float32), np.arange(e) % f, np.full(f, 0.6),
                           np.tile(np.float32([50, 10, 10]), (f, 1)), np.bincount(np.arange(e) % f, minlength=f)
                           ).save(dice)
    return {deck.name: deck, dice.name: dice}


def cases(f: dict[str, Path]) -> list[tuple[str, list[str]]]:
    deck = ["--deck", str(DECK)]
    out = []
    for name in ("zero-30000x30000.png", "zero-20000x20000.png", "thin-100000x1.png"):
        out += [(f"classify {name}", ["classify", *deck, str(f[name])]),
                (f"read cards {name}", ["read", "cards", *deck, str(f[name])])]
    for name in ("deck-plus-2GiB-zeros.npz", "deck-1GiB-zero-templates.npz"):
        out.append((f"classify --deck {name}", ["classify", "--deck", str(f[name]), str(f["thin-100000x1.png"])]))
    for name in sorted(n for n in f if n.startswith("noise-")):
        out += [(f"classify {name}", ["classify", *deck, str(f[name])]),
                (f"read cards {name}", ["read", "cards", *deck, str(f[name])]),
                (f"read dice d6 {name}", ["read", "dice", "--kind", "d6", str(f[name])])]
    big = str(f["noise-50MP.png"])
    out += [("classify --deck largest-deck.npz noise-50MP.png",
             ["classify", "--deck", str(f["largest-deck.npz"]), big]),
            ("read cards --deck largest-deck.npz noise-25MP.gif",
             ["read", "cards", "--deck", str(f["largest-deck.npz"]), str(f["noise-25MP.gif"])]),
            ("read dice --dice largest-dice.npz noise-50MP.png",
             ["read", "dice", "--kind", "sushi-roll", "--dice", str(f["largest-dice.npz"]), big]),
            ("read dice --dice largest-dice.npz noise-25MP.gif",
             ["read", "dice", "--kind", "sushi-roll", "--dice", str(f["largest-dice.npz"]), str(f["noise-25MP.gif"])])]
    out += [("enroll --deck (one 50 MP picture)", ["enroll", "--deck", str(f["enrol-deck"]), "--out",
                                                     str(f["enrol-deck"].parent / "enrolled-deck.npz")]),
            ("enroll --dice (one 50 MP picture)", ["enroll", "--dice", str(f["enrol-dice"]), "--out",
                                                     str(f["enrol-dice"].parent / "enrolled-dice.npz")])]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, help="where to write the inputs (reused if there); default a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    a = ap.parse_args()
    d = a.dir or Path(tempfile.mkdtemp(prefix="companion-vision-inputs-"))
    d.mkdir(parents=True, exist_ok=True)
    try:
        files = make_inputs(d)
        worst, died = 0, 0
        print(f"{'case':62s} {'exit':>5s} {'peak MB':>8s}  error / time")
        for label, args in cases(files):
            rc, peak, note = run(args)
            worst, died = max(worst, peak), died + (peak < 0)
            print(f"{label:62s} {rc!s:>5s} {peak:8d}  {note}")
        print(f"worst peak {worst} MB (target < {TARGET_MB} MB); {died} died without a named error")
        return 0 if worst < TARGET_MB and not died else 1
    finally:
        if a.dir is None and not a.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
