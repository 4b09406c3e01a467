"""Whether two trees' ``read_cards`` give the same readings, to the bit, on a bench's frames (A/B).

    .venv/bin/python bench/cards_same.py --base DIR [--bench cpu] [-- BENCH ARGS...]
    .venv/bin/python bench/cards_same.py --base /work/wt-base --bench loose_scenes -- --style flat --seeds 2300-2309

A speed-up of the card reader must not change a reading. This runs a bench twice, each time in a
child process whose ``companion`` package is one tree's (this tree's, then ``--base``'s; the bench's
own script, its scene builders in ``tests/`` and its arguments are this tree's both times), records
every ``companion.vision.cards.read_cards`` call (a hash of the frame, and each reading's label,
confidence and quad) and compares the two records: the same frames in the same order, the same
number of readings on each, labels and quads equal exactly (float for float) and confidences within
``CONF_TOL``. Exit status 0 when all agree, 1 when any differs (each difference printed), 2 on bad
arguments.

``--bench``: ``cpu`` (the frames of ``bench/cards_cpu.py``: the 20-card mat frame and loose scenes
40-59, flat and illustrated; the default) or the name of a bench script in ``bench/`` whose
``main(argv)`` reads with ``read_cards`` (``loose_scenes``, ``symbol_cards``, ``mat_touching``,
``real_cards``...), run with the arguments after ``--``. The bench's own output is left out unless
``--show``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Confidences may differ by this much and still count as the same (the brief: to 1e-9; a reading's
#: confidence is a float64 from float32 scores, so any real change is far larger).
CONF_TOL = 1e-9


class BadArgs(ValueError):
    """A tree or bench that cannot be run."""


def _record(tree: Path, bench: str, args: list[str], out: Path, show: bool) -> None:
    """Child side: import ``tree``'s companion package, wrap ``read_cards`` to log each call to
    ``out`` (one JSON object a line), then run the bench."""
    sys.path[:0] = [str(tree), str(ROOT / "tests"), str(ROOT / "bench")]
    import companion.vision.cards as cards

    if not Path(cards.__file__).resolve().is_relative_to(tree.resolve()):
        raise BadArgs(f"companion came from {cards.__file__}, not {tree}")
    real = cards.read_cards
    log = open(out, "w")

    def read_cards(frame, deck, *a, **k):
        obs = real(frame, deck, *a, **k)
        log.write(json.dumps({"frame": hashlib.sha1(frame.tobytes()).hexdigest() + str(frame.shape),
                              "obs": [[o.label, float(o.confidence), [list(map(float, p)) for p in o.quad]]
                                      for o in obs]}) + "\n")
        log.flush()
        return obs

    cards.read_cards = read_cards
    sink = contextlib.nullcontext() if show else contextlib.redirect_stdout(io.StringIO())
    with sink:
        if bench == "cpu":
            import importlib

            import cards_cpu

            for m in cards_cpu._MODULES:
                importlib.import_module(m)
            sets = cards_cpu._frames({k: v for k, v in sys.modules.items() if k.startswith("companion")})
            for name in ("mat", "flat", "illustrated"):
                for img, deck in sets[name]:
                    read_cards(img, deck)
        else:
            import importlib

            mod = importlib.import_module(bench)
            mod.main(args)
    log.close()


def _compare(a: Path, b: Path) -> list[str]:
    """The differences between two records (this tree's ``a``, the base's ``b``), as lines."""
    ra = [json.loads(x) for x in a.read_text().splitlines()]
    rb = [json.loads(x) for x in b.read_text().splitlines()]
    out = []
    if len(ra) != len(rb):
        out.append(f"{len(ra)} frames read here, {len(rb)} by the base")
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x["frame"] != y["frame"]:
            out.append(f"frame {i}: not the same frame ({x['frame']} / {y['frame']})")
            continue
        if len(x["obs"]) != len(y["obs"]):
            out.append(f"frame {i}: {len(x['obs'])} readings here, {len(y['obs'])} by the base")
            continue
        for j, ((la, ca, qa), (lb, cb, qb)) in enumerate(zip(x["obs"], y["obs"])):
            if la != lb or qa != qb or abs(ca - cb) > CONF_TOL:
                out.append(f"frame {i} reading {j}: {la} {ca!r} {qa} here, {lb} {cb!r} {qb} by the base")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rest: list[str] = []
    if "--" in argv:
        k = argv.index("--")
        argv, rest = argv[:k], argv[k + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", type=Path, help="the other tree (its companion package)")
    p.add_argument("--bench", default="cpu", help="cpu, or a bench script's name (loose_scenes, ...)")
    p.add_argument("--show", action="store_true", help="print the benches' own output")
    p.add_argument("--record", type=Path, help=argparse.SUPPRESS)  # child side
    p.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    try:
        if a.bench != "cpu" and not (ROOT / "bench" / f"{a.bench}.py").is_file():
            raise BadArgs(f"no bench named {a.bench!r} in {ROOT / 'bench'}")
        if a.record is not None:
            _record(a.tree, a.bench, rest, a.record, a.show)
            return 0
        if a.base is None or not (a.base / "companion" / "vision" / "cards.py").is_file():
            raise BadArgs(f"--base must be a tree holding companion/vision/cards.py, got {a.base}")
    except BadArgs as e:
        print(f"cards_same: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        recs = {}
        for name, tree in (("here", ROOT), ("base", a.base.resolve())):
            recs[name] = Path(tmp) / f"{name}.jsonl"
            cmd = [sys.executable, str(Path(__file__).resolve()), "--bench", a.bench, "--record", str(recs[name]),
                   "--tree", str(tree)] + (["--show"] if a.show else []) + ["--", *rest]
            r = subprocess.run(cmd, env=dict(os.environ, PYTHONHASHSEED="0"))
            if r.returncode != 0:
                print(f"cards_same: the {name} run failed ({r.returncode})", file=sys.stderr)
                return 2
        diffs = _compare(recs["here"], recs["base"])
        n = len(recs["here"].read_text().splitlines())
        readings = sum(len(json.loads(x)["obs"]) for x in recs["here"].read_text().splitlines())
    for d in diffs:
        print(d)
    print(f"{a.bench} {' '.join(rest)}: {n} frames, {readings} readings; "
          + ("identical" if not diffs else f"{len(diffs)} differences"))
    return 0 if not diffs else 1


if __name__ == "__main__":
    raise SystemExit(main())
