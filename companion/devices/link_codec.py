"""The Pico link's encoding, host side: frames, messages and payloads, no I/O (Klipper splits
its host code the same way: msgproto.py encodes, serialhdl.py moves bytes).

A frame on the wire is ``COBS(type:u8, seq:u8, len:u8, payload, crc:u16 big-endian) 0x00`` (the
contract is firmware/PROTOCOL.md; firmware/protocol.py is the firmware's own implementation
and the tests hold both to the document's test vectors).

* COBS: S. Cheshire, M. Baker, "Consistent Overhead Byte Stuffing", IEEE/ACM Trans.
  Networking 7(2), 1999. A dozen lines here rather than a dependency.
* CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout; CRC catalogue check
  0x29B1): ``binascii.crc_hqx(data, 0xFFFF)`` from the standard library. It has no final xor,
  so a frame that gains a 0x00 after its CRC still checks; the len byte is what refuses it.
"""

from __future__ import annotations

import binascii
from typing import NamedTuple

PROTOCOL_VERSION = 1

ACK, HELLO, HEARTBEAT, SET_RING, SET_SEAT, VERSION, TRAY = 0x01, 0x10, 0x11, 0x20, 0x21, 0x90, 0x91
ACK_OK, ACK_REFUSED, ACK_BAD_PAYLOAD = 0, 1, 2
TRAY_ROLL_STARTED, TRAY_QUIET = 1, 2
TRAY_KINDS = {TRAY_ROLL_STARTED: "roll-started", TRAY_QUIET: "tray-quiet"}
NO_SEAT = 0xFF
MAX_SEATS = 6
MAX_PAYLOAD = 32  # bytes
MAX_VERSION_TEXT = 16  # bytes
MAX_ENCODED = 3 + MAX_PAYLOAD + 2 + 1  # bytes of one COBS-encoded frame, without its 0x00

#: payload length (min, max) in bytes per message type; frames of other types are dropped
PAYLOAD_LENGTH = {ACK: (1, 1), HELLO: (1, 1), HEARTBEAT: (0, 0), SET_RING: (4, 4), SET_SEAT: (5, 5),
                  VERSION: (3, 3 + MAX_VERSION_TEXT), TRAY: (3, 3)}
NAMES = {ACK: "ACK", HELLO: "HELLO", HEARTBEAT: "HEARTBEAT", SET_RING: "SET_RING", SET_SEAT: "SET_SEAT",
         VERSION: "VERSION", TRAY: "TRAY"}
TYPES = {name: code for code, name in NAMES.items()}


class Message(NamedTuple):
    """One decoded message: ``type`` (u8), ``seq`` (u8), ``payload`` (bytes, 0..32)."""

    type: int
    seq: int
    payload: bytes


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``, 0..0xFFFF (``binascii.crc_hqx`` with init 0xFFFF)."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """COBS-encode ``data``: no 0x00 in the result, one code byte per run of up to 254 bytes."""
    out = bytearray()
    for block in data.split(b"\x00"):
        while len(block) >= 254:
            out += b"\xff" + block[:254]
            block = block[254:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """Decode one COBS block (no delimiter); None if it is not valid COBS (a code byte that
    points past the end, or a 0x00 inside)."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            return None
        block = data[i + 1:i + code]
        if 0 in block:
            return None
        out += block
        i += code
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """One frame for the wire, delimiter included.

    Raises:
        ValueError: type or seq outside 0..255, or a payload longer than 32 bytes.
    """
    if not (0 <= msg_type <= 255 and 0 <= seq <= 255):
        raise ValueError(f"link frame: type {msg_type} and seq {seq} must be 0..255")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"link frame: payload of {len(payload)} bytes, at most {MAX_PAYLOAD}")
    body = bytes((msg_type, seq, len(payload))) + bytes(payload)
    return cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"


def check_frame(frame: bytes) -> Message | None:
    """A COBS-decoded frame -> Message, or None (short, CRC mismatch, len byte not the payload's
    length, unknown type, wrong length for the type)."""
    if len(frame) < 5 or crc16(frame[:-2]) != int.from_bytes(frame[-2:], "big"):
        return None
    n = len(frame) - 5
    limits = PAYLOAD_LENGTH.get(frame[0])
    if frame[2] != n or limits is None or not limits[0] <= n <= limits[1]:
        return None
    return Message(frame[0], frame[1], bytes(frame[3:-2]))


class FrameDecoder:
    """Split a byte stream into messages, any chunk size at a time (the host reads in chunks).

    ``feed(data)`` returns the messages completed by ``data``. A frame that fails any check is
    counted in ``rejected`` and dropped; the decoder resyncs at the next 0x00. A frame growing
    past MAX_ENCODED bytes is dropped without buffering it (memory stays bounded).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.delivered = 0
        self.rejected = 0

    def reset(self) -> None:
        """Forget a partial frame (after a reconnect)."""
        self._buf.clear()
        self._overflow = False

    def feed(self, data: bytes) -> list[Message]:
        out: list[Message] = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            if end < 0:
                self._append(data[start:])
                return out
            self._append(data[start:end])
            if self._overflow:
                self.rejected += 1
            elif self._buf:
                frame = cobs_decode(bytes(self._buf))
                msg = None if frame is None else check_frame(frame)
                if msg is None:
                    self.rejected += 1
                else:
                    self.delivered += 1
                    out.append(msg)
            self._buf.clear()
            self._overflow = False
            start = end + 1

    def _append(self, chunk: bytes) -> None:
        if self._overflow or not chunk:
            return
        if len(self._buf) + len(chunk) > MAX_ENCODED:
            self._overflow = True
            self._buf.clear()
        else:
            self._buf += chunk


# ---- payloads -------------------------------------------------------------------------------

def _byte(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
        raise ValueError(f"{what} must be an integer 0..255, not {value!r}")
    return value


def _rgb(rgb, what: str = "colour") -> tuple[int, int, int]:
    if not isinstance(rgb, (tuple, list)) or len(rgb) != 3:
        raise ValueError(f"{what} must be (r, g, b) with each 0..255, not {rgb!r}")
    return tuple(_byte(c, what) for c in rgb)  # type: ignore[return-value]


def set_ring_payload(rgb, brightness: float) -> bytes:
    """SET_RING: the whole ring's colour (r, g, b 0..255) at ``brightness`` 0.0..1.0 (sent as
    round(brightness * 255)). Raises ValueError outside those ranges."""
    if isinstance(brightness, bool) or not isinstance(brightness, (int, float)) or not 0.0 <= brightness <= 1.0:
        raise ValueError(f"ring brightness must be a number 0.0..1.0, not {brightness!r}")
    return bytes(_rgb(rgb, "ring colour")) + bytes((round(brightness * 255),))


def set_seat_payload(seat: int | None, seats: int, rgb) -> bytes:
    """SET_SEAT: glow seat ``seat`` (0-based, < seats) of ``seats`` (1..6) segments in ``rgb``;
    None = no seat glows. Raises ValueError outside those ranges."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= MAX_SEATS:
        raise ValueError(f"seat count must be 1..{MAX_SEATS}, not {seats!r}")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats):
        raise ValueError(f"seat must be None or 0..{seats - 1} (of {seats} seats), not {seat!r}")
    return bytes((NO_SEAT if seat is None else seat, seats)) + bytes(_rgb(rgb, "seat colour"))


class VersionInfo(NamedTuple):
    """What the Pico says in VERSION: protocol version, ring LEDs, max seats, firmware version."""

    protocol: int
    ring_leds: int
    max_seats: int
    firmware: str


def parse_version(payload: bytes) -> VersionInfo:
    """VERSION payload -> VersionInfo (non-ASCII bytes of the text become U+FFFD)."""
    return VersionInfo(payload[0], payload[1], payload[2], payload[3:].decode("ascii", "replace"))


def parse_tray(payload: bytes) -> tuple[str | None, int]:
    """TRAY payload -> (kind name or None for an unknown kind, age in ms)."""
    return TRAY_KINDS.get(payload[0]), int.from_bytes(payload[1:3], "big")


def describe(msg_type: int, payload: bytes) -> str:
    """A message's fields in words, as PROTOCOL.md's test-vector table writes them."""
    if msg_type == ACK:
        return f"status={payload[0]}"
    if msg_type == HELLO:
        return f"protocol={payload[0]}"
    if msg_type == HEARTBEAT:
        return "-"
    if msg_type == SET_RING:
        return f"rgb=({payload[0]},{payload[1]},{payload[2]}) brightness={payload[3]}"
    if msg_type == SET_SEAT:
        seat = "none" if payload[0] == NO_SEAT else str(payload[0])
        return f"seat={seat} seats={payload[1]} rgb=({payload[2]},{payload[3]},{payload[4]})"
    if msg_type == VERSION:
        v = parse_version(payload)
        return f"protocol={v.protocol} ring_leds={v.ring_leds} max_seats={v.max_seats} firmware={v.firmware}"
    if msg_type == TRAY:
        kind, age = parse_tray(payload)
        return f"kind={kind} age_ms={age}"
    raise ValueError(f"no message type 0x{msg_type:02x}")


#: (name, seq, payload) of the test vectors in PROTOCOL.md; ``vector_table()`` prints its rows
VECTORS: list[tuple[str, int, bytes]] = [
    ("ACK", 0x05, bytes((ACK_OK,))),
    ("ACK", 0x06, bytes((ACK_BAD_PAYLOAD,))),
    ("HELLO", 0x00, bytes((PROTOCOL_VERSION,))),
    ("HEARTBEAT", 0x2A, b""),
    ("SET_RING", 0x01, set_ring_payload((255, 244, 229), 0.75)),
    ("SET_RING", 0x02, set_ring_payload((0, 0, 0), 0.0)),
    ("SET_SEAT", 0x03, set_seat_payload(2, 4, (255, 140, 0))),
    ("SET_SEAT", 0x04, set_seat_payload(None, 4, (0, 0, 0))),
    ("VERSION", 0x00, bytes((PROTOCOL_VERSION, 24, MAX_SEATS)) + b"0.1.0"),
    ("TRAY", 0x07, bytes((TRAY_ROLL_STARTED, 0, 3))),
    ("TRAY", 0xFF, bytes((TRAY_QUIET, 0x01, 0x2C))),
]


def vector_table() -> str:
    """PROTOCOL.md's test-vector table (Markdown), generated from VECTORS."""
    rows = ["| message | seq | payload (hex) | fields | frame on the wire (hex) |",
            "|---|---|---|---|---|"]
    for name, seq, payload in VECTORS:
        wire = encode(TYPES[name], seq, payload)
        rows.append(f"| {name} | 0x{seq:02x} | {payload.hex(' ') or '-'} | {describe(TYPES[name], payload)} "
                    f"| `{wire.hex(' ')}` |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(vector_table())
