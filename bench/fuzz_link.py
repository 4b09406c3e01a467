"""A million fuzzed frames through both parsers of the Pico link (issue #8 §3).

    .venv/bin/python bench/fuzz_link.py [--frames N] [--seed S] [--firmware-frames M]

Valid frames of every message type (random seq and payload of a legal length) are written to
one long stream; about half are sent as they are and the rest are damaged on the way, the ways a
USB serial line and its cable damage them:

* ``flip1``: one bit flipped anywhere in the frame (its delimiter included);
* ``flipN``: 2 to 8 bits flipped;
* ``cut``: the frame stops part-way (the cable pulled) and the next frame follows at once;
* ``insert`` / ``delete``: one random byte added or lost;
* ``noise``: 1 to 60 random bytes in place of the frame;
* ``duplicate``: the frame twice (a re-send the other side had already read).

The stream is read by the host's ``FrameDecoder`` (in random chunks of 1 to 64 bytes, as a serial
read returns them) and, for the first ``--firmware-frames`` frames, by the firmware's byte-at-a-time
``Parser`` (CPython running the MicroPython module). For each it counts:

* **corrupted**: a delivered message that is not byte for byte one that was sent (target 0);
* **lost**: an undamaged frame that followed a delimiter and was not delivered (target 0);
* exceptions (target 0), and frames per second.

A damaged frame may still be delivered when the damage left the message intact (a flipped bit in
its delimiter, a duplicate): that is counted as delivered-as-sent, not as corrupted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.devices import link_codec as host  # noqa: E402
from companion.devices.link_sim import load_firmware  # noqa: E402

KINDS = ("intact", "flip1", "flipN", "cut", "insert", "delete", "noise", "duplicate")
WEIGHTS = (50, 14, 6, 8, 5, 5, 6, 6)
TYPES = sorted(host.PAYLOAD_LENGTH)


def make_stream(n: int, rng: random.Random) -> tuple[bytes, list[tuple], Counter, Counter]:
    """(stream, messages sent, damage kinds used, messages that must arrive)."""
    out = bytearray()
    sent: list[tuple] = []
    must = Counter()
    kinds = Counter()
    for _ in range(n):
        t = rng.choice(TYPES)
        lo, hi = host.PAYLOAD_LENGTH[t]
        msg = (t, rng.randrange(256), rng.randbytes(rng.randint(lo, hi)))
        frame = bytearray(host.encode(*msg))
        kind = rng.choices(KINDS, WEIGHTS)[0]
        kinds[kind] += 1
        sent.append(msg)
        after_delimiter = not out or out[-1] == 0
        if kind == "intact" or kind == "duplicate":
            if after_delimiter:
                must[msg] += 1
            out += frame
            if kind == "duplicate":
                out += frame
                must[msg] += 1
            continue
        if kind in ("flip1", "flipN"):
            for _ in range(1 if kind == "flip1" else rng.randint(2, 8)):
                bit = rng.randrange(len(frame) * 8)
                frame[bit // 8] ^= 1 << (bit % 8)
        elif kind == "cut":
            frame = frame[:rng.randrange(1, len(frame) - 1)]
        elif kind == "insert":
            frame.insert(rng.randrange(len(frame)), rng.randrange(256))
        elif kind == "delete":
            del frame[rng.randrange(len(frame))]
        else:  # noise
            frame = bytearray(rng.randbytes(rng.randint(1, 60)))
        out += frame
    return bytes(out), sent, kinds, must


def judge(delivered: list[tuple], sent: list[tuple], must: Counter) -> tuple[int, int]:
    """(corrupted, lost)."""
    sent_set = set(sent)
    corrupted = sum(1 for m in delivered if m not in sent_set)
    got = Counter(delivered)
    lost = sum(max(0, k - got[m]) for m, k in must.items())
    return corrupted, lost


def run_host(stream: bytes, rng: random.Random) -> tuple[list[tuple], float, int]:
    dec = host.FrameDecoder()
    out: list[tuple] = []
    errors = 0
    t0 = time.perf_counter()
    i = 0
    while i < len(stream):
        size = rng.randint(1, 64)
        try:
            out += [tuple(m) for m in dec.feed(stream[i:i + size])]
        except Exception:  # noqa: BLE001 - counted: the figure is "no exception"
            errors += 1
        i += size
    return out, time.perf_counter() - t0, errors


def run_firmware(stream: bytes) -> tuple[list[tuple], float, int]:
    fw, _ = load_firmware()
    parser = fw.Parser()
    out: list[tuple] = []
    errors = 0
    t0 = time.perf_counter()
    for b in stream:
        try:
            msg = parser.feed(b)
        except Exception:  # noqa: BLE001
            errors += 1
            continue
        if msg is not None:
            out.append(msg)
    return out, time.perf_counter() - t0, errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--firmware-frames", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=8)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    batch = 50_000
    totals = {"host": Counter(), "firmware": Counter()}
    kinds = Counter()
    elapsed = {"host": 0.0, "firmware": 0.0}
    done = 0
    while done < args.frames:
        n = min(batch, args.frames - done)
        stream, sent, used, must = make_stream(n, rng)
        kinds += used
        readers = [("host", lambda: run_host(stream, rng))]
        if done < args.firmware_frames:
            readers.append(("firmware", lambda: run_firmware(stream)))
        for name, read in readers:
            delivered, seconds, errors = read()
            corrupted, lost = judge(delivered, sent, must)
            totals[name].update(frames=n, bytes=len(stream), delivered=len(delivered), corrupted=corrupted,
                                lost=lost, errors=errors, must=sum(must.values()))
            elapsed[name] += seconds
        done += n
    print(f"{args.frames} frames (seed {args.seed}); damage: "
          + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
    bad = 0
    for name in ("host", "firmware"):
        t = totals[name]
        if not t["frames"]:
            continue
        bad += t["corrupted"] + t["lost"] + t["errors"]
        print(f"{name:8s}: {t['frames']} frames, {t['bytes'] / 1e6:.1f} MB, {t['delivered']} delivered, "
              f"{t['corrupted']} corrupted, {t['lost']} of {t['must']} undamaged frames lost, "
              f"{t['errors']} exceptions; {t['frames'] / elapsed[name]:,.0f} frames/s")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
