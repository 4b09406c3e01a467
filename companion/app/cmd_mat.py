"""``companion mat [--game sushi-go|sushi-roll] --players N --out mat.png [--dpi 300]``: write the
printable play mat."""

from __future__ import annotations

import argparse
import struct
import sys
import zlib
from pathlib import Path

MM_PER_INCH = 25.4


def png_with_dpi(png: bytes, dpi: float) -> bytes:
    """Insert a pHYs chunk into PNG bytes so printers and viewers know the size at ``dpi``.

    cv2.imwrite has no DPI option; pHYs (pixels per metre) must precede the first IDAT and
    follows IHDR, which is always the first chunk (8-byte signature + 25-byte IHDR).
    """
    ppm = int(round(dpi / MM_PER_INCH * 1000))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return png[:33] + chunk + png[33:]


def run(args: argparse.Namespace) -> int:
    """Render the mat for ``args.players`` at ``args.dpi`` and write it to ``args.out``.

    Prints the mat size in mm and px. Returns 0, or 2 (message on stderr) for a bad dpi,
    a missing layout, an output path that is not a .png, or one that cannot be written.
    """
    import cv2

    from companion.sim.mat_image import render_mat
    from companion.vision.mat_layout import MatLayoutError, load_mat_layout

    out = Path(args.out)
    if out.suffix.lower() != ".png":
        print(f"companion mat: --out must be a .png file, not {str(out)!r}", file=sys.stderr)
        return 2
    if not 25 <= args.dpi <= 1200:
        print(f"companion mat: --dpi must be between 25 and 1200, not {args.dpi}", file=sys.stderr)
        return 2
    if not out.parent.is_dir():
        print(f"companion mat: cannot write {out}: folder {out.parent} does not exist", file=sys.stderr)
        return 2
    try:
        layout = load_mat_layout(args.players, game=getattr(args, "game", "sushi-go"))
    except MatLayoutError as exc:
        print(f"companion mat: {exc}", file=sys.stderr)
        return 2

    img = render_mat(layout, args.dpi / MM_PER_INCH)
    h, w = img.shape[:2]
    ok, buf = cv2.imencode(".png", img)
    del img  # ~210 MB at 300 dpi: free it before building the output bytes
    if not ok:
        print(f"companion mat: could not encode the {w} x {h} px image", file=sys.stderr)
        return 2
    try:
        out.write_bytes(png_with_dpi(buf.tobytes(), args.dpi))
    except OSError as exc:
        print(f"companion mat: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(
        f"wrote {out}: {layout.name}, {layout.width_mm:g} x {layout.height_mm:g} mm, "
        f"{w} x {h} px at {args.dpi} dpi (print at 100% scale)"
    )
    return 0
