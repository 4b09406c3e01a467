"""firmware/PROTOCOL.md, the wire contract, against both implementations of it.

Everything compared here is parsed from the document's own text (its test-vector table, its
message table, its timing table), never taken from ``link_codec.VECTORS``: the document is
what a third implementation would be written from, so it is what must decode.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.devices import link as host_link
from companion.devices import link_codec as codec
from companion.devices.link_sim import load_firmware

DOC = Path(__file__).resolve().parents[1] / "firmware" / "PROTOCOL.md"
BEGIN, END = "<!-- vectors:begin -->", "<!-- vectors:end -->"
REGENERATE = "regenerate with `python -m companion.devices.link_codec` and paste it between the markers"

fw_protocol, fw_main = load_firmware()


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The body of the '## title' section, up to the next '## ' heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"PROTOCOL.md has no '## {title}' section"
    return match.group(1)


def vector_block(text: str) -> str:
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"PROTOCOL.md needs one {BEGIN} and one {END}"
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def vector_rows(text: str) -> list[tuple[str, int, bytes, bytes]]:
    """(name, seq, payload, wire frame) of each test-vector row in the document."""
    rows = []
    for line in vector_block(text).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 5, f"test-vector row with {len(cells)} cells, not 5: {line!r}"
        name, seq, payload, _fields, wire = cells
        assert wire.startswith("`") and wire.endswith("`"), f"frame not in backticks: {line!r}"
        rows.append((name, int(seq, 16), b"" if payload == "-" else bytes.fromhex(payload),
                     bytes.fromhex(wire.strip("`"))))
    return rows


def message_table(text: str) -> dict[str, tuple[int, tuple[int, int]]]:
    """{name: (code, (min, max) payload length)} from the document's message table."""
    out = {}
    for m in re.finditer(r"^\| 0x([0-9a-fA-F]{2}) \| ([A-Z_]+) \| [^|]+ \| (\d+)(?:\.\.(\d+))? \|",
                         section(text, "Messages"), re.M):
        lo = int(m.group(3))
        out[m.group(2)] = (int(m.group(1), 16), (lo, int(m.group(4) or lo)))
    return out


def test_the_vector_table_is_current(doc):
    assert vector_block(doc) == codec.vector_table(), f"PROTOCOL.md's test vectors are stale: {REGENERATE}"


def test_every_frame_in_the_document_decodes_on_both_sides(doc):
    codes = message_table(doc)
    rows = vector_rows(doc)
    assert rows, "PROTOCOL.md has no test-vector rows"
    for name, seq, payload, wire in rows:
        assert name in codes, f"vector {name} is not in the message table"
        expected = (codes[name][0], seq, payload)
        assert wire.endswith(b"\x00") and 0 not in wire[:-1], f"{name} 0x{seq:02x}: not one COBS frame"
        decoder = codec.FrameDecoder()
        assert [tuple(m) for m in decoder.feed(wire)] == [expected], f"host decoder, {name} 0x{seq:02x}"
        assert decoder.rejected == 0
        parser = fw_protocol.Parser()
        got = [parser.feed(b) for b in wire]
        assert got[:-1] == [None] * (len(wire) - 1), f"firmware parser delivered early, {name} 0x{seq:02x}"
        assert got[-1] == expected, f"firmware parser, {name} 0x{seq:02x}"
        assert parser.rejected == 0


def test_every_message_type_has_a_vector(doc):
    named = {name for name, *_ in vector_rows(doc)}
    missing = sorted(set(codec.NAMES.values()) - named)
    assert not missing, f"PROTOCOL.md has no test vector for {missing}: add one to VECTORS, then {REGENERATE}"


def test_the_message_table_matches_both_implementations(doc):
    table = message_table(doc)
    assert sorted(table) == sorted(codec.NAMES.values()), "the message table lists other types than the code"
    for name, (code, lengths) in table.items():
        for side, module in (("link_codec", codec), ("firmware/protocol.py", fw_protocol)):
            assert getattr(module, name) == code, f"{name}: PROTOCOL.md says 0x{code:02x}, {side} differs"
            assert module.PAYLOAD_LENGTH[code] == lengths, f"{name}: payload length {lengths}, {side} differs"


def test_the_timing_table_quotes_the_code(doc):
    rows = re.findall(r"^\| `([A-Z_]+)` \| (host|Pico) \| ([\d.]+) (s|ms|sends|events|bytes) \|",
                      section(doc, "Timing"), re.M)
    modules = {"host": host_link, "Pico": fw_main}
    quoted = {(side, name) for name, side, _, _ in rows}
    for name, side, value, unit in rows:
        actual = getattr(modules[side], name, None)
        assert actual is not None, f"PROTOCOL.md quotes {side} {name}, which the code does not have"
        assert float(value) == actual, f"PROTOCOL.md says {side} {name} = {value} {unit}, the code {actual}"
    # every timing constant of both sides is in the table
    for side, names in (("host", ["ACK_TIMEOUT_S", "MAX_SENDS", "HEARTBEAT_S", "LINK_LOST_S", "VERSION_TIMEOUT_S",
                                  "RECONNECT_S", "SCAN_S", "INCOMPATIBLE_RETRY_S"]),
                        ("Pico", ["RETRY_MS", "MAX_SENDS", "HOST_LOST_MS", "QUIET_MS", "MAX_PENDING",
                                  "WDT_TIMEOUT_MS"])):
        assert not [n for n in names if (side, n) not in quoted], f"PROTOCOL.md's timing table misses {side} constants"


def test_the_flashing_section_that_the_code_points_to_exists(doc):
    # link.py's incompatible-protocol message sends the user to "firmware/PROTOCOL.md, 'Flashing'"
    assert "'Flashing'" in Path(host_link.__file__).read_text(encoding="utf-8")
    flashing = section(doc, "Flashing")
    assert "cp firmware/protocol.py :protocol.py" in flashing and "cp firmware/main.py :main.py" in flashing
    for constant in ("RING_PIN", "TRAY_PIN", "SAFE_PIN"):
        assert f"| `{constant}` | GP{getattr(fw_main, constant)} |" in flashing, f"wiring row for {constant}"
