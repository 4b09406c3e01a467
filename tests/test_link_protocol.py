"""The Pico wire protocol: the firmware's module (firmware/protocol.py, MicroPython subset) and the
host codec (companion/devices/link_codec.py) agree byte for byte, and neither ever delivers a
corrupted frame, whatever the stream holds."""

from __future__ import annotations

import binascii
import os
import random
import select
import tty

import pytest
from hypothesis import example, given, settings, strategies as st

from companion.devices import link_codec as host
from companion.devices.link_sim import load_firmware

fw, _ = load_firmware()

FAST = settings(max_examples=150, deadline=None)

# a message the protocol can carry: (type, seq, payload) with a length valid for the type
message = st.sampled_from(sorted(host.PAYLOAD_LENGTH)).flatmap(
    lambda t: st.tuples(
        st.just(t),
        st.integers(0, 255),
        st.integers(*host.PAYLOAD_LENGTH[t]).flatmap(lambda n: st.binary(min_size=n, max_size=n)),
    )
)


def fw_parse(stream: bytes) -> list[tuple[int, int, bytes]]:
    parser = fw.Parser()
    out = []
    for b in stream:
        msg = parser.feed(b)
        if msg is not None:
            out.append(msg)
    return out


def host_parse(stream: bytes, chunks: list[int] | None = None) -> list[tuple[int, int, bytes]]:
    dec = host.FrameDecoder()
    out, i = [], 0
    for size in chunks or []:
        out += dec.feed(stream[i:i + size])
        i += size
    out += dec.feed(stream[i:])
    return [tuple(m) for m in out]


def test_crc_is_ccitt_false_check_value():
    # CRC catalogue, CRC-16/IBM-3740 (alias CCITT-FALSE): check = 0x29B1 over "123456789"
    assert fw.crc16(b"123456789") == 0x29B1
    assert host.crc16(b"123456789") == 0x29B1
    assert fw.crc16(b"") == 0xFFFF  # init 0xFFFF, no xorout


@FAST
@given(st.binary(max_size=300))
def test_firmware_crc_equals_binascii_crc_hqx(data):
    assert fw.crc16(data) == binascii.crc_hqx(data, 0xFFFF)
    # running CRC over two halves equals the CRC of the whole
    half = len(data) // 2
    assert fw.crc16(data[half:], fw.crc16(data[:half])) == binascii.crc_hqx(data, 0xFFFF)


@FAST
@given(st.binary(max_size=600))
def test_cobs_round_trip_and_both_sides_agree(data):
    enc = fw.cobs_encode(data)
    assert enc == host.cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + 1 + len(data) // 254  # Cheshire & Baker's worst case
    assert fw.cobs_decode(enc) == data
    assert host.cobs_decode(enc) == data


def test_cobs_known_encodings():
    # examples from the COBS paper / Wikipedia's table
    assert host.cobs_encode(b"\x00") == b"\x01\x01"
    assert host.cobs_encode(b"\x00\x00") == b"\x01\x01\x01"
    assert host.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert host.cobs_encode(b"\x11\x00\x00\x00") == b"\x02\x11\x01\x01\x01"
    assert host.cobs_encode(bytes(range(1, 255))) == b"\xff" + bytes(range(1, 255)) + b"\x01"


@pytest.mark.parametrize("bad", [b"\x05\x11\x22", b"\x02\x00", b"\x00", b"\x03\x11\x00"])
def test_cobs_decode_refuses_invalid_blocks(bad):
    assert fw.cobs_decode(bad) is None
    assert host.cobs_decode(bad) is None


@FAST
@given(message)
def test_encoders_agree_and_each_parser_reads_the_other(msg):
    t, seq, payload = msg
    frame = fw.encode(t, seq, payload)
    assert frame == host.encode(t, seq, payload)
    assert frame.endswith(b"\x00") and 0 not in frame[:-1]
    assert len(frame) <= host.MAX_ENCODED + 1
    assert fw_parse(frame) == [msg]
    assert host_parse(frame) == [msg]


def test_encode_refuses_out_of_range():
    for enc in (fw.encode, host.encode):
        with pytest.raises(ValueError):
            enc(0x20, 256, b"")
        with pytest.raises(ValueError):
            enc(0x20, 1, bytes(33))


def test_unknown_type_and_wrong_length_are_rejected():
    def raw(t, seq, payload):  # a frame with a correct CRC that the protocol does not allow
        body = bytes((t, seq, len(payload))) + payload
        return host.cobs_encode(body + binascii.crc_hqx(body, 0xFFFF).to_bytes(2, "big")) + b"\x00"

    stream = raw(0x42, 1, b"") + raw(host.SET_RING, 2, b"\x01\x02\x03") + raw(host.HEARTBEAT, 3, b"\x00")
    parser = fw.Parser()
    assert [parser.feed(b) for b in stream].count(None) == len(stream)
    assert parser.rejected == 3 and parser.delivered == 0
    dec = host.FrameDecoder()
    assert dec.feed(stream) == [] and dec.rejected == 3


def test_overlong_frame_is_dropped_and_the_next_frame_read():
    good = host.encode(host.HEARTBEAT, 9)
    stream = bytes([0x41] * 5000) + b"\x00" + good
    assert fw_parse(stream) == [(host.HEARTBEAT, 9, b"")]
    assert host_parse(stream, [100] * 49) == [(host.HEARTBEAT, 9, b"")]
    dec = host.FrameDecoder()
    dec.feed(bytes([0x41] * 5000))
    assert len(dec._buf) <= host.MAX_ENCODED  # memory stays bounded while garbage streams in



@pytest.mark.parametrize("msg", [(host.VERSION, 0, b"\x00\x00\x00"), (host.VERSION, 9, b"\x01\x18\x06" + b"0.1"),
                                 (host.ACK, 3, b"\x00"), (host.HEARTBEAT, 1, b"")])
def test_a_frame_that_gains_a_zero_after_its_crc_is_refused(msg):
    """CRC-16/CCITT-FALSE has no final xor, so body + crc + 0x00 still checks (the register stays 0).
    On the wire that is a delimiter flipped to 0x01 followed by the next delimiter; hypothesis found
    it delivering VERSION one byte longer (CI, 2026-11-24). The len byte refuses it on both sides."""
    wire = bytearray(host.encode(*msg))
    wire[-1] = 0x01  # the delimiter's low bit flipped...
    stream = bytes(wire) + b"\x00" + host.encode(host.HEARTBEAT, 7)  # ...then the next 0x00, a good frame
    assert fw_parse(stream) == [(host.HEARTBEAT, 7, b"")]
    assert host_parse(stream) == [(host.HEARTBEAT, 7, b"")]
    body = bytes(msg[:2]) + bytes((len(msg[2]),)) + msg[2]
    assert host.crc16(body + host.crc16(body).to_bytes(2, "big") + b"\x00") == 0  # why the CRC alone passes it


# ---- fuzzed streams ------------------------------------------------------------------------

noise_piece = st.one_of(
    st.binary(min_size=1, max_size=60).map(lambda b: ("random", b)),
    st.tuples(message, st.integers(0, 10_000)).map(lambda m: ("flip", m)),
    st.tuples(message, st.integers(0, 10_000)).map(lambda m: ("cut", m)),
)


def _noise(piece) -> bytes:
    kind, value = piece
    if kind == "random":
        return value
    (t, seq, payload), pos = value
    frame = bytearray(host.encode(t, seq, payload))
    if kind == "flip":
        bit = pos % (len(frame) * 8)
        frame[bit // 8] ^= 1 << (bit % 8)
        return bytes(frame)
    return bytes(frame[: pos % (len(frame) - 1)])  # cut before its delimiter: a pulled cable


@settings(max_examples=200, deadline=None)
@example(pieces=[(("random", b"\x00"), (1, 0, b"\x00"), False),
                 (("flip", ((host.VERSION, 0, b"\x00\x00\x00"), 10000)), (1, 0, b"\x00"), False)], chunks=[])
@given(st.lists(st.tuples(noise_piece, message, st.booleans()), min_size=1, max_size=12),
       st.lists(st.integers(1, 40), max_size=20))
def test_garbage_never_delivers_a_corrupted_message_and_parsers_resync(pieces, chunks):
    """Noise (random bytes, a frame with one flipped bit, a cut frame), then a 0x00, then a valid
    frame (sometimes twice, a duplicate on the wire): every valid frame after a delimiter arrives,
    and nothing else does, unless it is one of the valid frames (a flipped bit in the delimiter
    or a flipped frame may merge frames, which is then dropped, never mis-read)."""
    stream = bytearray()
    expected, valid = [], set()
    for piece, msg, dup in pieces:
        stream += _noise(piece) + b"\x00"
        frame = host.encode(*msg)
        stream += frame + (frame if dup else b"")
        expected += [msg] * (2 if dup else 1)
        valid.add(msg)
    for got in (fw_parse(bytes(stream)), host_parse(bytes(stream), chunks)):
        corrupted = [m for m in got if m not in valid]
        assert corrupted == []
        # each valid frame follows a delimiter, so each is read; noise may add an extra valid-looking
        # copy only if the noise was itself a flipped/cut copy of a valid frame
        remaining = list(got)
        for m in expected:
            assert m in remaining
            remaining.remove(m)


@FAST
@given(st.binary(max_size=400))
def test_random_bytes_never_crash_and_never_deliver_garbage(data):
    for got in (fw_parse(data), host_parse(data, [7] * 50)):
        for t, seq, payload in got:  # anything delivered is well formed (a 2**-16 CRC fluke at most)
            lo, hi = host.PAYLOAD_LENGTH[t]
            assert lo <= len(payload) <= hi


def test_a_million_to_one_stream_of_noise_delivers_nothing():
    rng = random.Random(8)
    data = bytes(rng.getrandbits(8) for _ in range(200_000))
    parser = fw.Parser()
    dec = host.FrameDecoder()
    got_fw = [m for m in (parser.feed(b) for b in data) if m is not None]
    got_host = dec.feed(data)
    assert got_fw == [] and got_host == []
    assert parser.rejected == dec.rejected > 0


def test_frames_cross_a_pty_in_raw_mode():
    """Host frames written on one end of a pseudo-terminal arrive intact, byte by byte, at the
    firmware parser on the other (0x03 and 0x04 inside frames are not terminal signals in raw mode)."""
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        msgs = [(host.SET_RING, 3, bytes((3, 4, 0, 255))), (host.SET_SEAT, 4, bytes((0, 3, 3, 4, 17))),
                (host.HEARTBEAT, 5, b"")]
        os.write(master, b"\x00garbage\x00" + b"".join(host.encode(*m) for m in msgs))
        parser, got = fw.Parser(), []
        while len(got) < len(msgs):
            assert select.select([slave], [], [], 10.0)[0], f"only {got} arrived"
            b = os.read(slave, 1)
            msg = parser.feed(b[0])
            if msg is not None:
                got.append(msg)
        assert got == msgs
        assert parser.rejected == 1  # the garbage before them
    finally:
        os.close(master)
        os.close(slave)


def test_payload_helpers_check_ranges():
    assert host.set_ring_payload((255, 128, 0), 0.5) == bytes((255, 128, 0, 128))
    assert fw.parse_set_ring(host.set_ring_payload((1, 2, 3), 1.0)) == ((1, 2, 3), 255)
    assert fw.parse_set_seat(host.set_seat_payload(5, 6, (9, 8, 7))) == (5, 6, (9, 8, 7))
    assert fw.parse_set_seat(host.set_seat_payload(None, 2, (0, 0, 0))) == (None, 2, (0, 0, 0))
    assert fw.parse_set_seat(bytes((3, 3, 0, 0, 0))) is None  # seat past the seat count
    assert fw.parse_set_seat(bytes((0, 7, 0, 0, 0))) is None  # more than 6 seats
    for bad in [lambda: host.set_ring_payload((256, 0, 0), 0.5), lambda: host.set_ring_payload((1, 2), 0.5),
                lambda: host.set_ring_payload((1, 2, 3), 1.5), lambda: host.set_seat_payload(4, 4, (0, 0, 0)),
                lambda: host.set_seat_payload(0, 0, (0, 0, 0)), lambda: host.set_seat_payload(True, 4, (0, 0, 0))]:
        with pytest.raises(ValueError, match="must be"):
            bad()
    kind, age = host.parse_tray(fw.tray_payload(fw.TRAY_QUIET, 70_000))
    assert (kind, age) == ("tray-quiet", 65535)  # saturates at u16
    info = host.parse_version(fw.version_payload(300, "a-very-long-version-string"))
    assert info == (1, 255, 6, "a-very-long-vers")


def test_both_sides_share_the_constants():
    for name in ("PROTOCOL_VERSION", "ACK", "HELLO", "HEARTBEAT", "SET_RING", "SET_SEAT", "VERSION", "TRAY",
                 "ACK_OK", "ACK_REFUSED", "ACK_BAD_PAYLOAD", "TRAY_ROLL_STARTED", "TRAY_QUIET", "NO_SEAT",
                 "MAX_SEATS", "MAX_PAYLOAD", "MAX_ENCODED", "PAYLOAD_LENGTH", "NAMES"):
        assert getattr(fw, name) == getattr(host, name), name
