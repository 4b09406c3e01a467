"""The companion <-> Pico wire protocol, firmware side (runs on MicroPython AND CPython).

One frame on the wire (the contract is firmware/PROTOCOL.md; this module and
companion/devices/link_codec.py are two independent implementations of it):

    COBS( type:u8  seq:u8  len:u8  payload:len bytes (0..32)  crc:u16 big-endian )  0x00

* COBS: Consistent Overhead Byte Stuffing (S. Cheshire, M. Baker, "Consistent Overhead Byte
  Stuffing", IEEE/ACM Trans. Networking 7(2), 1999). The encoded frame holds no zero byte, so
  0x00 marks the end of every frame and a receiver resyncs at the next 0x00.
* CRC: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor; the CRC
  catalogue, reveng.sourceforge.io/crc-catalogue, check value 0x29B1 for b"123456789"),
  computed over type, seq, len and payload. On the host it is ``binascii.crc_hqx(data, 0xFFFF)``;
  MicroPython has no ``crc_hqx``, so this module computes it with a 256-entry table.

The parser takes one byte at a time and returns a message only when the frame decodes, its
CRC matches, its len byte equals the payload's length, its type is known and that length is
right for the type. The len byte is there because this CRC has no final xor: a frame that gains
a 0x00 after its CRC (a delimiter flipped to 0x01 on the wire) still has a matching CRC, and
without the len byte a variable-length VERSION would be delivered one byte longer. Anything else is
counted and dropped, and the parser waits for the next 0x00.

Written in the subset MicroPython runs: no f-strings, no dataclasses, no typing imports, no
keyword arguments to int.to_bytes.
"""

PROTOCOL_VERSION = 1

# message types (PROTOCOL.md, "Messages")
ACK = 0x01        # both ways: payload status:u8; seq = the acknowledged message's seq
HELLO = 0x10      # host -> Pico: payload protocol_version:u8
HEARTBEAT = 0x11  # host -> Pico: no payload
SET_RING = 0x20   # host -> Pico: r, g, b, brightness (u8 each)
SET_SEAT = 0x21   # host -> Pico: seat (0..5, 0xFF = none), seats (1..6), r, g, b
VERSION = 0x90    # Pico -> host: protocol_version, ring_leds, max_seats (u8), firmware version ASCII
TRAY = 0x91       # Pico -> host: kind:u8, age_ms:u16 big-endian

# ACK status byte
ACK_OK = 0
ACK_REFUSED = 1      # a known type that this side does not accept (wrong direction)
ACK_BAD_PAYLOAD = 2  # the payload's values are out of range (a seat past the seat count...)

# TRAY kinds
TRAY_ROLL_STARTED = 1
TRAY_QUIET = 2

NO_SEAT = 0xFF
MAX_SEATS = 6
MAX_PAYLOAD = 32      # bytes
MAX_VERSION_TEXT = 16  # bytes of firmware version text in VERSION
MAX_FRAME = 3 + MAX_PAYLOAD + 2  # decoded bytes: type, seq, len, payload, crc
MAX_ENCODED = MAX_FRAME + 1      # COBS adds one byte per 254 (Cheshire & Baker 1999, section 3)

# payload length (min, max) in bytes for each type; a frame of any other type is dropped
PAYLOAD_LENGTH = {
    ACK: (1, 1),
    HELLO: (1, 1),
    HEARTBEAT: (0, 0),
    SET_RING: (4, 4),
    SET_SEAT: (5, 5),
    VERSION: (3, 3 + MAX_VERSION_TEXT),
    TRAY: (3, 3),
}

NAMES = {ACK: "ACK", HELLO: "HELLO", HEARTBEAT: "HEARTBEAT", SET_RING: "SET_RING",
         SET_SEAT: "SET_SEAT", VERSION: "VERSION", TRAY: "TRAY"}


def _make_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data`` (bytes-like), an int 0..0xFFFF.

    Equals CPython's ``binascii.crc_hqx(data, 0xFFFF)``; ``crc`` continues a running CRC.
    """
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data):
    """COBS-encode ``data`` (bytes-like): bytes with no 0x00, len(data) + 1 + len(data)//254 long.

    The delimiter is not included. Cheshire & Baker 1999, section 3.
    """
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Decode one COBS block (no delimiter): the original bytes, or None if ``data`` is not
    valid COBS (a zero byte inside, or a code byte that points past the end)."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            return None
        i += 1
        end = i + code - 1
        while i < end:
            b = data[i]
            if b == 0:
                return None
            out.append(b)
            i += 1
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(msg_type, seq, payload=b""):
    """One frame ready for the wire: COBS(type, seq, len, payload, crc) followed by 0x00 (bytes).

    Raises ValueError for a type/seq outside 0..255 or a payload longer than MAX_PAYLOAD.
    """
    if not (0 <= msg_type <= 255 and 0 <= seq <= 255):
        raise ValueError("message type and seq must be 0..255")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload longer than 32 bytes")
    body = bytearray((msg_type, seq, len(payload)))
    body.extend(payload)
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return cobs_encode(body) + b"\x00"


def check_frame(frame):
    """A decoded frame (bytes) -> (type, seq, payload) or None: CRC, len byte, known type, length."""
    if len(frame) < 5:
        return None
    crc = (frame[-2] << 8) | frame[-1]
    if crc16(frame[:-2]) != crc:
        return None
    msg_type = frame[0]
    limits = PAYLOAD_LENGTH.get(msg_type)
    n = len(frame) - 5
    if frame[2] != n or limits is None or n < limits[0] or n > limits[1]:
        return None
    return (msg_type, frame[1], bytes(frame[3:-2]))


class Parser:
    """Byte-at-a-time frame parser. ``feed(byte)`` returns (type, seq, payload) or None.

    Counters: ``delivered`` (messages returned), ``rejected`` (frames dropped: bad COBS, bad CRC,
    unknown type, wrong length, too long). Empty frames (0x00 0x00, idle fill) count as neither.
    Memory stays bounded: a frame longer than MAX_ENCODED bytes is discarded up to its 0x00.
    """

    def __init__(self):
        self._buf = bytearray()
        self._overflow = False
        self.delivered = 0
        self.rejected = 0

    def reset(self):
        """Forget a partial frame (after a reconnect)."""
        self._buf = bytearray()
        self._overflow = False

    def feed(self, byte):
        if byte != 0:
            if self._overflow:
                return None
            if len(self._buf) >= MAX_ENCODED:
                self._overflow = True
                self._buf = bytearray()
                return None
            self._buf.append(byte)
            return None
        # a delimiter: the frame so far is complete
        if self._overflow:
            self._overflow = False
            self.rejected += 1
            return None
        if not self._buf:
            return None
        raw = self._buf
        self._buf = bytearray()
        frame = cobs_decode(raw)
        msg = None if frame is None else check_frame(frame)
        if msg is None:
            self.rejected += 1
        else:
            self.delivered += 1
        return msg


# ---- payloads the firmware reads and writes ------------------------------------------------

def parse_set_ring(payload):
    """SET_RING payload -> ((r, g, b), brightness), each 0..255."""
    return (payload[0], payload[1], payload[2]), payload[3]


def parse_set_seat(payload):
    """SET_SEAT payload -> (seat or None, seats, (r, g, b)), or None when out of range
    (seats not 1..6, seat not < seats and not 0xFF)."""
    seat, seats = payload[0], payload[1]
    if not 1 <= seats <= MAX_SEATS:
        return None
    if seat == NO_SEAT:
        seat = None
    elif seat >= seats:
        return None
    return seat, seats, (payload[2], payload[3], payload[4])


def version_payload(ring_leds, firmware_version, protocol_version=PROTOCOL_VERSION):
    """VERSION payload: protocol version, ring LED count (clipped to 255), MAX_SEATS, then the
    firmware version as ASCII (cut to 16 bytes)."""
    text = firmware_version.encode()[:MAX_VERSION_TEXT]
    return bytes((protocol_version & 0xFF, min(ring_leds, 255), MAX_SEATS)) + text


def tray_payload(kind, age_ms):
    """TRAY payload: kind (TRAY_ROLL_STARTED / TRAY_QUIET), then how long ago it happened in ms
    (u16 big-endian, saturating at 65535) so the host can date it despite re-sends."""
    age = max(0, min(int(age_ms), 0xFFFF))
    return bytes((kind, age >> 8, age & 0xFF))
