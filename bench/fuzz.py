"""The fuzz campaign of issue #14: seeded bad input for every command that reads a file a user names.

    .venv/bin/python bench/fuzz.py [--seed 14] [--cases 10000] [--jobs 1] [--process-share 0.05]
                                   [--timeout 20] [--out DIR] [--show 3]

Cases come from tests/fuzzing.py (score records of the three games, images for ``classify`` and
``read cards``, deck files, replay fixtures, journals, panel scripts; valid ones, mutated ones and
impossible-but-well-formed ones), in fixed shares, each from its own ``random.Random`` seeded by
``--seed``, the command and its number, so a run is repeatable and a case can be made again alone.

``--process-share`` of the cases (drawn by the seed), and those only a real process can be given
(stdin, argv that is not UTF-8, the 48 MP photo), run as a fresh ``python -c "from companion.cli
import main; ..."`` process; the rest run ``companion.cli.main`` in a long-lived worker process
that is replaced when a case hangs or kills it. Every case has a wall-time limit (``--timeout``;
over it is a hang) and its peak resident memory is measured (over 512 MB is a failure).

Prints a table per command: cases, accepted, named errors, tracebacks, hangs, crashes (a signal),
over-memory, wrongly accepted (a must-refuse case that ran), wrongly refused (a valid input refused),
and the peak memory of the process-level cases and of the worker cases (which include the worker's
resident imports). Then the failures grouped by cause (where the traceback points, or the operation),
each with the first ``--show`` cases and the shell line that runs one again; their folders are kept
in ``--out``/kept. The results of every case go to ``--out``/results.json. Exit status 1 when
anything failed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzzing as fz  # noqa: E402

#: Table columns: (heading, verdict).
COLUMNS = (("accepted", fz.ACCEPTED), ("named", fz.NAMED), ("traceback", fz.TRACEBACK), ("hang", fz.HANG),
           ("crash", fz.CRASH), ("over-mem", fz.OVER_MEMORY), ("wrong-acc", fz.WRONGLY_ACCEPTED),
           ("wrong-ref", fz.WRONGLY_REFUSED), ("unnamed", fz.UNNAMED))


def _cause(r: dict) -> str:
    """What a failure is grouped by: the traceback's site, or the command and operation."""
    if r["site"]:
        site = r["site"]
        # group by place and exception type, not by the message's particulars
        place, _, rest = site.partition(": ")
        return f"{place}: {rest.split(':')[0]}"
    return f"{r['command']} / {r['op'].split('>')[0]}"


def _run_jobs(specs, modes, args, out: Path) -> list[dict]:
    todo: queue.Queue = queue.Queue()
    for i, (spec, mode) in enumerate(zip(specs, modes)):
        todo.put((i, spec, mode))
    results: list[dict | None] = [None] * len(specs)
    done = Counter()
    lock = threading.Lock()
    t0 = time.perf_counter()
    last = [t0]

    def job(j: int) -> None:
        runner = fz.Runner(out / "work" / f"job{j}", keep=out / "kept", timeout=args.timeout)
        try:
            while True:
                try:
                    i, (command, op, index), mode = todo.get_nowait()
                except queue.Empty:
                    return
                case = fz.build(command, op, index, args.seed)
                try:
                    verdict, outcome, kept = runner.run(case, mode)
                except Exception as exc:  # the harness itself: report it, never hide it as a case
                    raise RuntimeError(f"the harness failed on {case.ident}: {exc!r}") from exc
                site = outcome.where_it_breaks()
                results[i] = {
                    "command": command, "op": case.op, "index": index, "ident": case.ident, "expect": case.expect,
                    "why": case.why, "verdict": verdict, "mode": outcome.mode, "code": outcome.code,
                    "seconds": round(outcome.seconds, 3), "peak_mb": outcome.peak_mb and round(outcome.peak_mb, 1),
                    "site": site, "problem": outcome.problem,
                    "last_line": (outcome.stderr.strip().splitlines() or [""])[-1][:300],
                    "repro": fz.repro_command(case, kept) if kept else None,
                }
                with lock:
                    done[verdict] += 1
                    n = sum(done.values())
                    now = time.perf_counter()
                    if now - last[0] > 30 or n == len(specs):
                        last[0] = now
                        bad = sum(v for k, v in done.items() if k not in fz.GOOD)
                        eta = (now - t0) / n * (len(specs) - n)
                        print(f"  {n}/{len(specs)} cases, {bad} failing, {now - t0:.0f} s, about {eta:.0f} s left",
                              file=sys.stderr, flush=True)
        finally:
            runner.close()

    threads = [threading.Thread(target=job, args=(j,), daemon=True) for j in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        raise RuntimeError(f"{len(missing)} cases were not run (a job stopped); first: {specs[missing[0]]}")
    return results  # type: ignore[return-value]


def report(results: list[dict], show: int) -> int:
    """Print the table and the failures; return the number of failing cases."""
    rows: dict[str, Counter] = defaultdict(Counter)
    peak: dict[tuple[str, str], float] = defaultdict(float)
    for r in results:
        rows[r["command"]][r["verdict"]] += 1
        rows["all"][r["verdict"]] += 1
        for key in (r["command"], "all"):
            if r["peak_mb"] is not None:
                peak[key, r["mode"]] = max(peak[key, r["mode"]], r["peak_mb"])
    head = ["command", "cases"] + [h for h, _ in COLUMNS] + ["peak MB process", "peak MB worker"]
    table = []
    for command in [c for c in fz.COMMANDS if c in rows] + ["all"]:
        c = rows[command]
        table.append([command, str(sum(c.values()))] + [str(c[v]) for _, v in COLUMNS]
                     + [f"{peak[command, 'process']:.0f}" if peak[command, "process"] else "-",
                        f"{peak[command, 'worker']:.0f}" if peak[command, "worker"] else "-"])
    widths = [max(len(row[i]) for row in table + [head]) for i in range(len(head))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in table:
        print("| " + " | ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
              + " |")
    failing = [r for r in results if r["verdict"] not in fz.GOOD]
    if not failing:
        return 0
    print(f"\n{len(failing)} failing cases, by cause:")
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in failing:
        groups[r["verdict"], _cause(r)].append(r)
    for (verdict, cause), items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        commands = Counter(r["command"] for r in items)
        print(f"\n{verdict}: {cause}  ({len(items)} cases: "
              + ", ".join(f"{c} {n}" for c, n in commands.most_common()) + ")")
        for r in items[:show]:
            why = f" [{r['expect']}: {r['why']}]" if r["why"] else f" [{r['expect']}]"
            print(f"  {r['ident']}{why}, exit {r['code']}, {r['seconds']:.1f} s, peak {r['peak_mb'] or 0:.0f} MB")
            print(f"    {r['last_line'][:200]}")
            if r["repro"]:
                print(f"    $ {r['repro']}")
    return len(failing)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("--cases", type=int, default=10_000)
    p.add_argument("--jobs", type=int, default=1, help="cases run at once (each job has its own worker)")
    p.add_argument("--process-share", type=float, default=0.05,
                   help="share of the cases run as a fresh process (the rest in a worker)")
    p.add_argument("--timeout", type=float, default=fz.TIMEOUT_S, help="s before a case is a hang")
    p.add_argument("--out", default=str(Path(os.environ.get("TMPDIR", "/tmp")) / "companion-fuzz"),
                   help="where failing cases are kept and results.json written")
    p.add_argument("--show", type=int, default=3, help="cases shown per cause")
    args = p.parse_args(argv)

    out = Path(args.out)
    shutil.rmtree(out / "kept", ignore_errors=True)
    shutil.rmtree(out / "work", ignore_errors=True)
    (out / "work").mkdir(parents=True, exist_ok=True)
    specs = fz.campaign(args.cases, args.seed)
    rng = random.Random(f"{args.seed}/mode")
    modes = ["process" if rng.random() < args.process_share else "worker" for _ in specs]
    print(f"companion fuzz campaign: {len(specs)} cases, seed {args.seed}, {args.jobs} job(s), "
          f"{sum(m == 'process' for m in modes)} drawn to run as a fresh process, timeout {args.timeout:g} s, "
          f"memory limit {fz.MEM_LIMIT_MB} MB", flush=True)
    t0 = time.perf_counter()
    results = _run_jobs(specs, modes, args, out)
    seconds = time.perf_counter() - t0
    (out / "results.json").write_text(json.dumps(results, ensure_ascii=False, indent=0))
    by_mode = Counter(r["mode"] for r in results)
    print(f"\n{len(results)} cases in {seconds:.0f} s ({', '.join(f'{n} {m}' for m, n in by_mode.most_common())}); "
          f"results in {out / 'results.json'}\n")
    failing = report(results, args.show)
    shutil.rmtree(out / "work", ignore_errors=True)
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
