"""The Sushi Express screens (issue #11): pygame renderers for the view-models of ``express_views``.

``play_screens.render_play`` draws them (each view class names its drawer in :data:`DRAW`), with the
devices' status bar when one is given. The layout rules are the play screens': every size comes from
the screen height (tested at 480×320 and 800×480), the default pygame font, the same colours, every
text recorded as a ``TextBox``, no text under 4 % of the height.

The pieces, our own shapes (not the publisher's art):

* the ring (:func:`ring_geometry`): 12 hexagon tiles clockwise from Sushi Express at the top (red,
  a nigiri on it) to the park at the bottom (green, a tree), houses numbered 1–5 and 7–11 as
  :func:`companion.app.express_prompts.tile_name` names them; each van a little van in its seat colour
  (vans sharing Sushi Express at the start sit side by side);
* the guess board: spaces 2 to 12, each with its stack of guess markers (discs in the seat colours,
  bottom first, drawn from the bottom up);
* customer cards: cards in the customer's colour (``Customer.rgb``) with the label on them; a count
  in a chip of that colour;
* the two dice: white d6 faces with pips.

Seat colours are ``screens.SEAT_COLOURS``, six of them: Sushi Express is a game for up to 6.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from companion.app.express_prompts import ACCEPT, DELIVER, FURTHER, TIPS, tile_name
from companion.app.express_views import (
    BOARD_KINDS,
    CARD_KINDS,
    ExpressBoardView,
    ExpressFinalView,
    ExpressPickerView,
    ExpressRoundView,
    ExpressSeat,
)
from companion.app.play_screens import (
    _draw_hint,
    _header,
    _mix,
    _signed,
    _text,
    _triangle,
    drawable,
)
from companion.app.roll_screens import _winner_line
from companion.app.screens import (
    BG,
    DIM,
    GOLD,
    HEADER_BG,
    ROW_BG,
    SEAT_COLOURS,
    TEXT,
    _draw_status,
    _ellipsize,
    _Painter,
    _status_lines,
    accent_width,
    font,
    pad_px,
    wrap_text,
)
from companion.rules.sushi_express.state import PARK, SUSHI_EXPRESS, TILES, ActionCard, Customer
from companion.rules.wording import plural

#: The seats' colours (every screen's: the shared refusal and undo screens colour seat 6 alike).
EXPRESS_SEAT_COLOURS = SEAT_COLOURS

_INK = (22, 22, 26)
HOUSE_FILL, HOUSE_EDGE = (62, 72, 92), (110, 122, 146)
EXPRESS_FILL, PARK_FILL = (190, 48, 44), (52, 132, 64)
CELL_FREE, CELL_TAKEN = (52, 64, 88), (36, 39, 46)
CARD_BACK = (96, 100, 112)
ACTION_FILL = (236, 230, 214)
#: Words for action cards on a seat's row: full, then short when the row is full.
ACTION_SHORT = {ActionCard.SAME_GUESS: "same", ActionCard.PLACE_EXCHANGE: "swap", ActionCard.RE_ROLL: "re-roll",
                ActionCard.TILE_FURTHER: "+1 tile", ActionCard.TIP: "tip"}
#: Characters the default font lacks in the prompts' words (besides ``play_screens.drawable``'s).
_MORE_SUBSTITUTES = {"↔": "<->"}


def _words(text: str) -> str:
    return drawable("".join(_MORE_SUBSTITUTES.get(ch, ch) for ch in text))


def seat_colour(seat: int | None, index: int = 0) -> tuple[int, int, int]:
    """The colour of ``seat`` (0–5) on these screens; by ``index`` when the seat is unknown."""
    return EXPRESS_SEAT_COLOURS[(index if seat is None else seat) % len(EXPRESS_SEAT_COLOURS)]


def ink_on(rgb) -> tuple[int, int, int]:
    """Dark or light text, whichever reads on ``rgb`` (ITU-R BT.601 luma)."""
    r, g, b = rgb[:3]
    return _INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else TEXT


def _lh(px: float) -> int:
    """The height of a line of text at ``px``: the font's line spacing, or the drawn text's height
    when that is taller (it is by a pixel at some sizes), so lines never overlap."""
    f = font(px)
    return max(f.get_linesize(), f.get_height())


def _least(H: int) -> float:
    """How far a text may shrink to fit (4.7 % of the height: ``_Painter.text`` steps 1 px below it at
    worst, and stays above the tests' 4 %)."""
    return H * 0.047


def _small(H: int) -> float:
    """The smallest text on these screens: 4.2 % of the height (the tests' floor is 4 %)."""
    return H * 0.042


# ---------------------------------------------------------------------------------------------
# The ring


@dataclass(frozen=True)
class RingGeometry:
    """Where the ring's tiles are drawn in px: centre (``cx``, ``cy``), the ``radius`` the tile centres
    lie on, each hexagon's circumradius ``tile``; tile 0 (Sushi Express) at the top, then clockwise."""

    cx: float
    cy: float
    radius: float
    tile: float

    def centre(self, tile: int) -> tuple[float, float]:
        """The centre of ``tile`` (0–11)."""
        a = math.radians(-90 + 360 / TILES * tile)
        return self.cx + self.radius * math.cos(a), self.cy + self.radius * math.sin(a)

    def van_spot(self, tile: int) -> tuple[int, int]:
        """Where a lone van on ``tile`` is drawn (its body covers this pixel in the seat's colour): the
        tile's lower half; the upper half holds the house number."""
        x, y = self.centre(tile)
        return round(x), round(y + self.tile * 0.3)

    @property
    def inner(self) -> float:
        """The radius of the free disc inside the ring."""
        return self.radius - self.tile


def ring_geometry(rect) -> RingGeometry:
    """The ring fitted into ``rect`` (x, y, w, h px): as large as the shorter side allows, tiles spaced
    so neighbours do not touch (circumradius 0.25 × the ring's radius)."""
    x, y, w, h = rect
    side = min(w, h)
    radius = (side / 2 - max(2, side * 0.01)) / 1.25
    return RingGeometry(x + w / 2, y + h / 2, radius, radius * 0.25)


def _hexagon(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(math.radians(-90 + 60 * k)), cy + r * math.sin(math.radians(-90 + 60 * k)))
            for k in range(6)]


def _draw_van(p: _Painter, centre, w: float, colour) -> None:
    """A delivery van ``w`` px long facing right; its box's middle is ``centre``."""
    x, y = centre
    pg = p.pg
    box = pg.Rect(0, 0, round(w * 0.68), round(w * 0.5))
    box.center = (round(x - w * 0.06), round(y))
    cab = pg.Rect(box.right - 1, round(y - w * 0.1), round(w * 0.32), round(w * 0.35))
    wheel = max(2, round(w * 0.11))
    pg.draw.rect(p.surface, colour, cab, border_radius=max(1, round(w * 0.08)))
    pg.draw.rect(p.surface, _INK, cab, 1, border_radius=max(1, round(w * 0.08)))
    pg.draw.rect(p.surface, colour, box, border_radius=max(1, round(w * 0.06)))
    pg.draw.rect(p.surface, _INK, box, 1, border_radius=max(1, round(w * 0.06)))
    window = pg.Rect(cab.x + cab.w * 0.35, cab.y + 2, cab.w * 0.5, cab.h * 0.4)
    pg.draw.rect(p.surface, (200, 230, 250), window)
    for wx in (box.x + box.w * 0.25, cab.centerx):
        pg.draw.circle(p.surface, _INK, (wx, box.bottom), wheel)


def _draw_tile_glyph(p: _Painter, tile: int, cx: float, cy: float, t: float) -> None:
    """Sushi Express: a nigiri (rice and fish); the park: a tree; in the tile's upper half."""
    pg = p.pg
    y = cy - t * 0.38
    if tile == SUSHI_EXPRESS:
        rice = pg.Rect(0, 0, t * 0.8, t * 0.3)
        rice.center = (round(cx), round(y + t * 0.08))
        pg.draw.rect(p.surface, (250, 250, 246), rice, border_radius=max(1, round(t * 0.1)))
        fish = pg.Rect(0, 0, t * 0.9, t * 0.26)
        fish.center = (round(cx), round(y - t * 0.08))
        pg.draw.ellipse(p.surface, (250, 132, 80), fish)
    else:
        pg.draw.rect(p.surface, (110, 70, 40), pg.Rect(cx - t * 0.06, y, t * 0.12, t * 0.28))
        pg.draw.circle(p.surface, (30, 90, 40), (cx, y - t * 0.02), t * 0.24)


def _vans_on(vans: Sequence[int], tile: int) -> list[int]:
    return [s for s, at in enumerate(vans) if at == tile]


def draw_ring(p: _Painter, rect, vans: Sequence[int], *, lit: Sequence[int] = (), ghost: int | None = None,
              ghost_tile: int | None = None, path: Sequence[tuple[int, bool]] = ()) -> RingGeometry:
    """The ring of 12 tiles in ``rect`` (x, y, w, h; or a RingGeometry) with each seat's van on its
    tile (``vans[seat]``).

    ``lit``: seats whose van gets a gold ring. ``ghost``: a seat about to move: its van is drawn dimmed
    where it is and solid on ``ghost_tile``, the tiles of ``path`` ((tile, counted)) framed gold when
    counted. Returns the geometry used.
    """
    g = rect if isinstance(rect, RingGeometry) else ring_geometry(rect)
    H, t = p.h, g.tile
    lw = max(2, round(H * 0.008))
    counted = {tile for tile, c in path if c}
    for tile in range(TILES):
        cx, cy = g.centre(tile)
        fill = EXPRESS_FILL if tile == SUSHI_EXPRESS else PARK_FILL if tile == PARK else HOUSE_FILL
        hexagon = _hexagon(cx, cy, t)
        p.pg.draw.polygon(p.surface, fill, hexagon)
        if tile == ghost_tile or tile in counted:  # where the van stops, and the tiles it counts
            edge, width = GOLD, lw if tile == ghost_tile else max(1, lw - 1)
        else:
            edge, width = HOUSE_EDGE, 1
        p.pg.draw.polygon(p.surface, edge, hexagon, width)
        if tile in (SUSHI_EXPRESS, PARK):
            _draw_tile_glyph(p, tile, cx, cy, t)
        else:
            p.text(str(tile), _small(H), TEXT, "tile_number", tile, center=(round(cx), round(cy - t * 0.42)))
    for tile in range(TILES):
        here = _vans_on(vans, tile)
        if ghost_tile == tile and ghost is not None and ghost not in here:
            here = here + [ghost]
        if not here:
            continue
        cx, cy = g.centre(tile)
        if len(here) == 1:
            spots, w = [g.van_spot(tile)], t * 1.05
        else:  # the start: every van on Sushi Express, 2 or 3 to a row
            cols = 2 if len(here) <= 4 else 3
            rows = -(-len(here) // cols)
            w = t * (1.45 if cols == 2 else 1.65) / cols
            spots = [(cx + (k % cols - (cols - 1) / 2) * w * 1.05, cy + (k // cols - (rows - 1) / 2) * w * 0.72)
                     for k in range(len(here))]
        for seat, spot in zip(here, spots):
            colour = seat_colour(seat)
            if seat == ghost and tile != ghost_tile:
                colour = _mix(colour, BG, 0.6)  # where the van leaves from
            if seat in lit:
                p.pg.draw.circle(p.surface, GOLD, spot, w * 0.62, max(1, lw - 1))
            _draw_van(p, spot, w, colour)
    return g


def _ring_captions(p: _Painter, g: RingGeometry) -> tuple[float, float]:
    """"Sushi Express" under the top tile and "park" over the bottom one, inside the ring, when they
    fit there; returns the (top, bottom) y left free between them."""
    px = _small(p.h)
    f = font(px)
    line = _lh(px)
    top, bottom = g.cy - g.inner + 2, g.cy + g.inner - 2
    for word, tile in (("Sushi Express", SUSHI_EXPRESS), ("park", PARK)):
        d = g.inner - line * 0.6
        room = 2 * math.sqrt(max(0.0, g.inner ** 2 - (d + line / 2) ** 2))  # the chord at the text's far edge
        while room < f.size(word)[0] + 4 and d > line:
            d -= 2
            room = 2 * math.sqrt(max(0.0, g.inner ** 2 - (d + line / 2) ** 2))
        if room < f.size(word)[0] + 4:
            continue
        y = g.cy - d if tile == SUSHI_EXPRESS else g.cy + d
        colour = (250, 150, 140) if tile == SUSHI_EXPRESS else (140, 220, 150)
        r = p.text(word, px, colour, "ring_caption", tile, center=(round(g.cx), round(y)))
        if tile == SUSHI_EXPRESS:
            top = r.bottom + 1
        else:
            bottom = r.top - 1
    return top, bottom


def _centre_lines(p: _Painter, g: RingGeometry, lines: Sequence[str], top: float, bottom: float,
                  dice: tuple[int, int] | None = None, rolling: bool = False) -> None:
    """Short lines (and in phase 2 the dice) in the free middle of the ring, between ``top`` and ``bottom``."""
    H = p.h
    px = max(_small(H), min(H * 0.055, (bottom - top) / 3))
    line = _lh(px)
    die = round(min(H * 0.08, (bottom - top) * 0.45)) if rolling else 0
    need = len(lines) * line + (die + 3 if die else 0)
    y = (top + bottom) / 2 - need / 2
    if die:
        gap = max(3, die // 5)
        faces = dice or (0, 0)
        x = g.cx - (2 * die + gap) / 2
        sum_w = 0
        if dice is not None:
            sum_w = font(px).size(f"= {sum(dice)}")[0] + gap
            x -= sum_w / 2
        for k, face in enumerate(faces):
            draw_d6(p, (round(x + k * (die + gap)), round(y), die, die), face)
        if dice is not None:
            p.text(f"= {sum(dice)}", px, GOLD, "dice_sum", midleft=(round(x + 2 * die + 2 * gap), round(y + die / 2)))
        y += die + 3
    y = round(y)
    for k, text in enumerate(lines):
        cy = y + k * line + line / 2
        half = math.sqrt(max(0.0, g.inner ** 2 - (abs(cy - g.cy) + line / 2) ** 2))
        _text(p, text, px, TEXT if k == 0 else DIM, "ring_centre", k, max_w=max(8, int(2 * half - 4)),
              min_px=_least(H), midtop=(round(g.cx), y + k * line))


def draw_d6(p: _Painter, rect, face: int) -> None:
    """A white die showing ``face`` (1–6) as pips in ``rect`` (x, y, w, h px); 0 or anything else:
    a blank grey die (not rolled yet)."""
    pg = p.pg
    r = pg.Rect(rect)
    known = face in (1, 2, 3, 4, 5, 6)
    pg.draw.rect(p.surface, (246, 244, 238) if known else CARD_BACK, r, border_radius=max(2, r.w // 5))
    pg.draw.rect(p.surface, _INK, r, 1, border_radius=max(2, r.w // 5))
    if not known:
        return
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
             6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[face]
    for dx, dy in spots:
        centre = (r.centerx + dx * r.w * 0.27, r.centery + dy * r.h * 0.27)
        pg.draw.circle(p.surface, _INK, centre, max(1.5, r.w * 0.09))


# ---------------------------------------------------------------------------------------------
# The guess board


def draw_board(p: _Painter, rect, board: Sequence[tuple[int, tuple[int, ...]]], *, picking: bool = False,
               selected: Sequence[int] = (), selectable: Sequence[int] = (), number_px: float | None = None) -> None:
    """The guess board 2–12 in ``rect`` (x, y, w, h): each space its number over its stack of markers
    (seat-coloured discs, bottom first from the bottom up).

    ``picking``: a question is asked over the board: spaces holding a marker are greyed (text role
    ``guess_taken``, free ones ``guess_free``); ``selected`` spaces are framed gold, filled gold when
    free; ``selectable``: spaces an option picks (the others dimmer).
    """
    x0, y0, w, h = rect
    H = p.h
    n = max(1, len(board))
    gap = max(2, round(w * 0.006))
    cell_w = (w - gap * (n - 1)) / n
    px = number_px or max(_small(H), min(cell_w * 0.55, h * 0.4, H * 0.08))
    number_h = _lh(px)
    lw = max(2, round(H * 0.009))
    for i, (number, stack) in enumerate(board):
        cell = p.pg.Rect(round(x0 + i * (cell_w + gap)), y0, round(cell_w), h)
        taken = bool(stack)
        chosen = number in selected
        if picking:
            fill = GOLD if chosen and not taken else CELL_TAKEN if taken else CELL_FREE
            if selectable and number not in selectable and not chosen:
                fill = _mix(fill, BG, 0.35)
            ink = BG if chosen and not taken else DIM if taken else TEXT
            role = "guess_taken" if taken else "guess_free"
        else:
            fill, ink, role = CELL_FREE, TEXT, "guess_number"
        p.rect(fill, cell, radius=max(2, round(cell_w * 0.15)))
        if chosen:
            p.rect(GOLD, cell.inflate(lw, lw), radius=max(2, round(cell_w * 0.15)), width=lw)
        p.text(str(number), px, ink, role, number, center=(cell.centerx, cell.y + number_h // 2 + 1))
        if not stack:
            continue
        room = cell.bottom - 3 - (cell.y + number_h + 1)
        d = max(4, min(cell_w * 0.62, room, H * 0.06))
        step = min(d * 0.55, (room - d) / max(1, len(stack) - 1)) if len(stack) > 1 else 0
        for k, seat in enumerate(stack):  # bottom first, from the bottom up: the top marker plays first
            cy = cell.bottom - 3 - d / 2 - k * step
            colour = seat_colour(seat)
            if picking:
                colour = _mix(colour, CELL_TAKEN, 0.25)
            p.pg.draw.circle(p.surface, colour, (cell.centerx, cy), d / 2)
            p.pg.draw.circle(p.surface, _INK, (cell.centerx, cy), d / 2, 1)


# ---------------------------------------------------------------------------------------------
# Customer cards and chips


def _display_groups(display: Sequence[Customer]) -> list[tuple[Customer, int]]:
    counts = Counter(display)
    return [(c, counts[c]) for c in Customer if counts[c]]


def draw_display(p: _Painter, x: int, y: int, w: int, display: Sequence[Customer] | None, caption: str = "display",
                 px: float | None = None, max_lines: int = 2) -> int:
    """The customer display from (``x``, ``y``), ``w`` px wide: a caption (when it fits), then each
    customer as a card of its colour with its label ("light blue ×2" for two), flowing onto up to
    ``max_lines`` lines, the rest counted ("+2"); returns the bottom y."""
    H = p.h
    px = px or max(_small(H), H * 0.05)
    f = font(px)
    line = _lh(px) + 2
    gap = max(3, round(px * 0.3))
    pad = max(3, round(px * 0.35))
    if display is None or not display:
        words = "not laid out yet" if display is None else "empty"
        r = _text(p, f"{caption}: {words}", px, DIM, "display_caption", max_w=w, min_px=_least(H), topleft=(x, y + 1))
        return r.bottom + 1
    groups = _display_groups(display)
    labels = [c.label if n == 1 else f"{c.label} ×{n}" for c, n in groups]
    widths = [f.size(label)[0] + 2 * pad for label in labels]
    cap_w = f.size(caption)[0] + gap

    def place(start: int) -> list[tuple[int, int, int]] | None:
        out, xx, row = [], start, 0
        for k, wd in enumerate(widths):
            if xx + wd > w:
                row, xx = row + 1, 0
                if row >= max_lines or wd > w:
                    return None
            out.append((k, xx, row))
            xx += wd + gap
        return out

    spots = place(cap_w) if caption else None
    with_caption = spots is not None
    if spots is None:
        spots = place(0)
    if spots is None:  # too many: as many as fit on the lines, then "+n"
        more_w = f.size("+00")[0]
        spots, xx, row = [], 0, 0
        for k, wd in enumerate(widths):
            if xx + wd + gap + more_w > w:
                if row + 1 >= max_lines:
                    break
                row, xx = row + 1, 0
            spots.append((k, xx, row))
            xx += wd + gap
        rest = sum(n for _, n in groups[len(spots):])
        p.text(f"+{rest}", px, DIM, "display_more", topleft=(x + xx, y + row * line + 1))
    if with_caption:
        p.text(caption, px, DIM, "display_caption", topleft=(x, y + 1))
    for k, xx, row in spots:
        pill = p.pg.Rect(x + xx, y + row * line, widths[k], line - 1)
        card = groups[k][0]
        p.rect(card.rgb, pill, radius=max(2, line // 4))
        p.text(labels[k], px, ink_on(card.rgb), "display_card", k, center=pill.center)
    return y + (max(row for _, _, row in spots) + 1) * line


def draw_customer_card(p: _Painter, rect, card: Customer | None, label: bool = True, index: int | None = None) -> None:
    """One customer card filling ``rect``: its colour and its label across it (two lines if need be;
    none when it does not fit), or a grey card back for None."""
    r = p.pg.Rect(rect)
    fill = card.rgb if card is not None else CARD_BACK
    p.rect(fill, r, radius=max(2, r.w // 8))
    p.rect(_INK, r, radius=max(2, r.w // 8), width=1)
    if card is None or not label:
        return
    px = _small(p.h)
    f = font(px)
    words = card.label.split()
    lines = [card.label] if f.size(card.label)[0] <= r.w - 4 else words
    line = _lh(px)
    if any(f.size(s)[0] > r.w - 4 for s in lines) or len(lines) * line > r.h - 4:
        return
    top = round(r.centery - len(lines) * line / 2)
    for k, s in enumerate(lines):
        p.text(s, px, ink_on(fill), "card_label", index, midtop=(r.centerx, top + k * line))


# ---------------------------------------------------------------------------------------------
# A seat's row


@dataclass(frozen=True)
class Chip:
    """One thing a seat holds, drawn as a chip in a flow: ``kind`` "customer" (a card of colour ``rgb``
    with ``text``, the count, on it), "tips" (gold), "action" (a cream card), "words" (plain text);
    ``after``: text right after the chip, kept on its line (a colour's points on the final screen)."""

    kind: str
    text: str
    rgb: tuple[int, int, int] | None = None
    after: str = ""
    role: str = ""


def _seat_chips(seat: ExpressSeat, short: bool) -> list[Chip]:
    """A seat's customers, tips, action cards and hidden cards, in the row's order."""
    chips = [Chip("customer", str(n), c.rgb, role="customer_count") for c, n in seat.customers]
    if seat.tips:
        chips.append(Chip("tips", f"tips {seat.tips}", role="tips"))
    for card, n in seat.actions:
        word = ACTION_SHORT[card] if short else card.label
        chips.append(Chip("action", word if n == 1 else f"{word} ×{n}", role="action_cards"))
    if seat.hidden:
        chips.append(Chip("words", f"{seat.hidden} hidden", role="hidden_cards"))
    return chips


def _chip_width(f, chip: Chip, pad: int, line: int) -> int:
    if chip.kind == "words":
        w = f.size(chip.text)[0]
    elif chip.kind == "customer":
        w = max(line, f.size(chip.text)[0] + 2 * pad)
    else:
        w = f.size(chip.text)[0] + 2 * pad
    return w + (pad + f.size(chip.after)[0] if chip.after else 0)


def _place(widths: Sequence[int], gap: int, width: int, first: int, lines: int, tail: int = 0
           ) -> list[tuple[int, int]] | None:
    """(line, x) of each width flowed onto ``lines`` lines ``width`` px wide, the first from ``first``,
    keeping ``tail`` px free at the end of the last line; None when they do not fit."""
    out, x, line = [], first, 0
    for k, w in enumerate(widths):
        room = width - (tail if line == lines - 1 else 0)
        if x + w > room and x > 0:
            line, x = line + 1, 0
            room = width - (tail if line == lines - 1 else 0)
        if line >= lines or x + w > room:
            return None
        out.append((line, x))
        x += w + gap
    return out


def _chip_metrics(px: float) -> tuple[int, int, int]:
    """(line, gap, pad) px of chips with text at ``px``."""
    return _lh(px), max(2, round(px * 0.25)), max(2, round(px * 0.25))


def _lines_used(chip_sets: Sequence[Sequence[Chip]], px: float, width: int, lines: int) -> int:
    """How many of ``lines`` lines :func:`draw_chips` fills: the fewest that hold the fullest of
    ``chip_sets`` that fits at all."""
    f = font(px)
    line, gap, pad = _chip_metrics(px)
    for candidate in chip_sets:
        widths = [_chip_width(f, c, pad, line) for c in candidate]
        for n in range(1, lines + 1):
            if _place(widths, gap, width, 0, n) is not None:
                return n
    return lines


def draw_chips(p: _Painter, chip_sets: Sequence[Sequence[Chip]], x: int, y: int, width: int, lines: int,
               px: float, index: int, first: int = 0) -> None:
    """The first of ``chip_sets`` (the same things, shorter and shorter) that fits on ``lines`` lines
    from (``x`` + ``first``, ``y``), ``width`` px wide; when none fits, the last one cut with "…"."""
    f = font(px)
    line, gap, pad = _chip_metrics(px)
    chips = list(chip_sets[-1]) if chip_sets else []
    spots = None
    for candidate in chip_sets:
        spots = _place([_chip_width(f, c, pad, line) for c in candidate], gap, width, first, lines)
        if spots is not None:
            chips = list(candidate)
            break
    if spots is None:  # as many as fit, then "…"
        ell = f.size("…")[0]
        widths = [_chip_width(f, c, pad, line) for c in chips]
        while chips and spots is None:
            chips.pop()
            widths.pop()
            spots = _place(widths, gap, width, first, lines, ell + gap)
        spots = spots or []
        last_line, last_x = (spots[-1][0], spots[-1][1] + widths[-1] + gap) if spots else (0, first)
        p.text("…", px, DIM, "more", index, topleft=(x + last_x, y + last_line * (line + 1)))
    for chip, (ln, cx) in zip(chips, spots):
        box = p.pg.Rect(x + cx, y + ln * (line + 1), _chip_width(f, chip, pad, line), line)
        if chip.after:
            box.w -= pad + f.size(chip.after)[0]
        role = chip.role or chip.kind
        if chip.kind == "customer":
            p.rect(chip.rgb, box, radius=max(2, line // 5))
            p.rect(_INK, box, radius=max(2, line // 5), width=1)
            p.text(chip.text, px, ink_on(chip.rgb), role, index, center=box.center)
        elif chip.kind == "tips":
            p.rect(GOLD, box, radius=line // 2)
            p.text(chip.text, px, _INK, role, index, center=box.center)
        elif chip.kind == "action":
            p.rect(ACTION_FILL, box, radius=max(2, line // 5))
            p.text(chip.text, px, _INK, role, index, center=box.center)
        else:
            p.text(chip.text, px, DIM, role, index, midleft=(box.x, box.centery))
        if chip.after:
            p.text(chip.after, px, TEXT, role + "_after", index, midleft=(box.right + pad, box.centery))


def draw_seat_row(p: _Painter, rect, seat: ExpressSeat, i: int, marker: bool = True) -> None:
    """One seat in ``rect`` (x, y, w, h): the colour stripe, ▶ and a gold frame when it acts or the
    table waits for it, the name and the guess marker's number (a disc of the seat's colour; a ring
    once the marker has left the board), then its customers (a chip of each colour with the count),
    tips, action cards seen and "N hidden", on as many lines as the row holds."""
    x0, y0, w, h = rect
    H, pad = p.h, pad_px(p.h)
    accent_w = accent_width(H)
    p.rect(ROW_BG[i % 2], (x0, y0, w, h))
    p.rect(seat_colour(seat.seat, i), (x0, y0, accent_w, h))
    lit = seat.active or seat.waiting
    if seat.active:
        p.rect(GOLD, (x0, y0, w, h), width=max(2, round(H * 0.007)))
    px, line, name_px, name_line, lines = _row_metrics(p, h)
    top = y0 + (h - name_line - (lines - 1) * (line + 1)) // 2
    cy = top + name_line // 2
    x = x0 + accent_w + pad
    right = x0 + w - pad
    if lit:
        tri = px * 0.6
        _triangle(p, (x + tri / 2, cy), tri, "right", GOLD)
        x += round(tri + pad / 2)
    number = seat.marker if seat.marker is not None else seat.guess
    if marker and number is not None:  # the guess marker's number at the right of the first line
        d = line
        mpx = max(_small(H), px * 0.9)
        pill = p.pg.Rect(0, 0, max(d, font(mpx).size(str(number))[0] + d // 2), d)
        pill.midright = (right, cy)
        colour = seat_colour(seat.seat, i)
        if seat.marker is not None:
            p.rect(colour, pill, radius=d // 2)
        else:
            p.rect(DIM, pill, radius=d // 2, width=1)
        ink = ink_on(colour) if seat.marker is not None else DIM
        p.text(str(number), mpx, ink, "seat_marker", i, center=pill.center)
        right = pill.left - pad // 2
    name_w = right - x if lines > 1 else min(right - x, round(w * 0.42))
    nr = _text(p, seat.name, name_px, GOLD if lit else TEXT, "seat_name", i, max_w=max(8, name_w),
               min_px=_least(H), midleft=(x, cy))
    sets = [_seat_chips(seat, False), _seat_chips(seat, True)]
    if not sets[0]:
        if lines > 1:
            p.text("nothing yet", px, DIM, "seat_empty", i, topleft=(x0 + accent_w + pad, top + name_line + 1))
        return
    flow_x = x0 + accent_w + pad
    if lines > 1:
        draw_chips(p, sets, flow_x, top + name_line + 1, x0 + w - pad - flow_x, lines - 1, px, i)
    else:
        draw_chips(p, sets, flow_x, top, right - flow_x, 1, px, i, first=nr.right + pad - flow_x)


def _row_metrics(p: _Painter, h: float) -> tuple[float, int, float, int, int]:
    """(text px, line px, name px, name line px, lines) of a seat's row ``h`` px tall: the name a
    little larger on the first line, the chips on the lines under it (one line: all on the name's)."""
    px = max(_small(p.h), min(h * 0.3, p.h * 0.06))
    line = _lh(px)
    name_px = px * 1.1
    name_line = _lh(name_px)
    if h - 4 < name_line + line + 1:
        return px, line, px, line, 1
    return px, line, name_px, name_line, 1 + int((h - 4 - name_line) // (line + 1))


def _row_lines(p: _Painter, h: float) -> int:
    """How many lines of text a seat's row ``h`` px tall holds (as :func:`draw_seat_row` lays it)."""
    return _row_metrics(p, h)[4]


def _draw_rows(p: _Painter, rect, seats: Sequence[ExpressSeat], marker: bool = True) -> None:
    """The seats' rows in ``rect``; in two columns (seat order left to right, then down) when one
    column would leave each row a single line."""
    x, y, w, h = rect
    n = max(1, len(seats))
    cols = 2 if n >= 4 and _row_lines(p, h / n) < 2 and _row_lines(p, h / -(-n // 2)) >= 3 else 1
    per_col = -(-n // cols)
    rh = min(h / per_col, p.h * 0.2)
    cw = (w - (cols - 1) * 2) / cols
    for i, seat in enumerate(seats):
        r, c = divmod(i, cols)
        y0, y1 = y + round(r * rh), y + round((r + 1) * rh)
        x0, x1 = x + round(c * (cw + 2)), x + round(c * (cw + 2) + cw)
        draw_seat_row(p, (x0, y0, x1 - x0, y1 - y0), seat, i, marker)
        if r:
            p.pg.draw.line(p.surface, BG, (x0, y0), (x1, y0), 1)


# ---------------------------------------------------------------------------------------------
# The scoreboard and the waiting screen


def _ring_and_pane(p: _Painter, top: int, bottom: int, vans, lit=()) -> tuple[RingGeometry, int]:
    """The ring at the left from ``top`` to ``bottom``; returns its geometry and the right pane's x."""
    pad = pad_px(p.h)
    side = min(bottom - top, round(p.w * 0.5))
    g = draw_ring(p, (pad // 2, top, side, bottom - top), vans, lit=lit)
    return g, pad // 2 + side + pad // 2


def _note(p: _Painter, note: str) -> str:
    """The header's note cut to fit at its full size (the header would shrink it below readable):
    a long name loses its end, "'s turn" stays."""
    f = font(p.h * 0.058)
    room = int(p.w * 0.4)
    if f.size(note)[0] <= room:
        return note
    head, tail = (note[: -len("'s turn")], "'s turn") if note.endswith("'s turn") else (note, "")
    return _ellipsize(f, head, room - f.size(tail)[0]) + tail


def _draw_express_board(p: _Painter, v: ExpressBoardView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    header_h = _header(p, v.title, _note(p, v.note))
    status_px = H * (0.068 if v.big_status else 0.058)
    status_top = _draw_status(p, drawable(v.status), v.status_kind, status_px, pad)
    top, bottom = header_h + pad // 2, status_top - pad // 2
    lit = [s.seat for s in v.seats if s.active or s.waiting]
    g, x = _ring_and_pane(p, top, bottom, v.vans, lit)
    free_top, free_bottom = _ring_captions(p, g)
    _centre_lines(p, g, v.centre, free_top, free_bottom, v.dice, v.roller is not None)
    w = W - x - pad // 2
    y = draw_display(p, x, top, w, v.display) + pad // 2
    board_h = round(H * 0.125)
    draw_board(p, (x, y, w, board_h), v.board)
    y += board_h + pad // 2
    _draw_rows(p, (x, y, w, bottom - y), v.seats)


# ---------------------------------------------------------------------------------------------
# Round summary


def _draw_express_round(p: _Painter, v: ExpressRoundView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    header_h = _header(p, v.title)
    top, bottom = header_h + pad // 2, H - pad // 2
    g, x = _ring_and_pane(p, top, bottom, v.vans)
    free_top, free_bottom = _ring_captions(p, g)
    _centre_lines(p, g, [f"after round {v.round}"] if v.round else [], free_top, free_bottom)
    w = W - x - pad // 2
    y = draw_display(p, x, top, w, v.display, "new display", max_lines=3) + pad // 2
    _draw_rows(p, (x, y, w, bottom - y), v.seats, marker=False)


# ---------------------------------------------------------------------------------------------
# Final screen


def _final_chips(row) -> list[list[Chip]]:
    """A final row's breakdown as chips, fullest first: each colour's cards with its points, the
    tips held, the action cards left (the tie-break)."""
    colours = [Chip("customer", str(n), c.rgb, after=f"+{pts}", role="colour_cards") for c, n, pts in row.colours]
    tips = [Chip("tips", f"tips {row.tips}", role="tips")]
    left = [Chip("words", plural(row.actions_left, "action card"), role="actions_left")]
    return [colours + tips + left, colours + tips, colours]


def _draw_express_final(p: _Painter, v: ExpressFinalView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    small_px = max(_small(H), H * 0.048)
    # the winners, large and gold across the top; a long name is cut, "wins!" stays
    header_h = int(H * 0.14)
    p.rect(HEADER_BG, (0, 0, W, header_h))
    line, win_f = _winner_line(v), font(H * 0.095)
    if len(v.winners) == 1 and win_f.size(line)[0] > W - 2 * pad:
        line = _ellipsize(win_f, v.winners[0], W - 2 * pad - win_f.size(" wins!")[0]) + " wins!"
    _text(p, line, H * 0.095, GOLD, "winners", max_w=W - 2 * pad, min_px=_least(H), center=(W // 2, header_h // 2))
    bottom = H
    if v.tie_break:
        text = f"{v.tie_break} ({v.section})" if v.section else v.tie_break
        bottom = _draw_status(p, drawable(text), "info", H * 0.052, pad)
    accent_w = accent_width(H)
    rank_w = round(W * 0.05)
    name_w = round(W * 0.2)
    col_w = round(W * 0.095)
    total_w = round(W * 0.1)
    tips_x = W - pad - total_w - col_w
    cust_x = tips_x - col_w
    bx = accent_w + rank_w + name_w
    head_h = _lh(small_px) + 2
    hy = header_h + head_h // 2 + 1
    p.text("Player", small_px, DIM, "head", midleft=(accent_w + rank_w, hy))
    p.text("cards +points: 3 first, 1 more", small_px, DIM, "head", max_w=cust_x - bx - pad,
           min_px=_least(H), midleft=(bx, hy))
    p.text("Cust.", small_px, DIM, "head", max_w=col_w, min_px=_least(H), center=(cust_x + col_w // 2, hy))
    p.text("Tips", small_px, DIM, "head", max_w=col_w, min_px=_least(H), center=(tips_x + col_w // 2, hy))
    p.text("Total", small_px, DIM, "head", midright=(W - pad, hy))
    top = header_h + head_h + 2
    n = max(1, len(v.rows))
    rh = min((bottom - top) / n, H * 0.24)
    winners = set(v.winners)
    chip_px = max(_small(H), min(rh * 0.3, H * 0.055))
    chip_line = _lh(chip_px) + 1
    lines = max(1, min(3, int((rh - 4) // chip_line)))
    chip_w = cust_x - bx - pad
    edges = [top + round(k * rh) for k in range(n + 1)]
    for i, row in enumerate(v.rows):
        y0, h = edges[i], edges[i + 1] - edges[i]
        cy = y0 + h // 2
        won = row.name in winners
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        if won:
            p.rect(GOLD, (0, y0, W, h), width=max(2, round(H * 0.008)))
        p.rect(seat_colour(row.seat, i), (0, y0, accent_w, h))
        px = max(_small(H), min(h * 0.4, H * 0.07))
        p.text(str(row.rank), px, GOLD if won else DIM, "rank", i, center=(accent_w + rank_w // 2, cy))
        _text(p, row.name, px, TEXT, "row_name", i, max_w=name_w - pad, min_px=_least(H),
              midleft=(accent_w + rank_w, cy))
        sets = _final_chips(row)
        used = _lines_used(sets, chip_px, chip_w, lines)
        draw_chips(p, sets, bx, cy - (used * chip_line) // 2, chip_w, used, chip_px, i)
        p.text(str(row.customer_points), px, TEXT, "customer_points", i, center=(cust_x + col_w // 2, cy))
        ink = (255, 120, 110) if row.tip_points else DIM
        p.text(_signed(row.tip_points), px, ink, "tip_points", i, center=(tips_x + col_w // 2, cy))
        total_px = min(h * 0.6, H * 0.11)
        p.text(str(row.total), total_px, GOLD, "total", i, max_w=total_w, midright=(W - pad, cy))


# ---------------------------------------------------------------------------------------------
# Picker


def _band(W: int, H: int, v: ExpressPickerView) -> tuple[list[str], float, int]:
    """(the question's lines, their px, the band's height) for the question band of ``v``."""
    pad = pad_px(H)
    px = H * 0.062
    step_w = font(H * 0.055).size(_step(v))[0] + 2 * pad if v.step else 0
    room = W - 3 * pad - 2 * accent_width(H) - step_w
    lines = _status_lines(None, _words(v.question), px, room, 2)
    return lines, px, max(int(H * 0.085 * 1.5), len(lines) * _lh(px) + pad)


def _step(v: ExpressPickerView) -> str:
    return f"{v.step[0]} of {v.step[1]}" if v.step else ""


def _question_band(p: _Painter, v: ExpressPickerView) -> int:
    """The question as the header (up to 2 lines), the answering seat's colour beside it, the step
    ("2 of 4") at the right; returns its bottom."""
    W, H, pad = p.w, p.h, pad_px(p.h)
    lines, px, band = _band(W, H, v)
    accent_w = accent_width(H) * 2
    p.rect(HEADER_BG, (0, 0, W, band))
    p.rect(seat_colour(v.seat), (0, 0, accent_w, band))
    line_h = _lh(px)
    y = (band - len(lines) * line_h) // 2
    for k, text in enumerate(lines):
        p.text(text, px, TEXT, "title", k, topleft=(accent_w + pad, y + k * line_h))
    if v.step:
        p.text(_step(v), H * 0.055, DIM, "header_right", midright=(W - pad, band // 2))
    return band


def _option_list(p: _Painter, v: ExpressPickerView, indices: Sequence[int], rect, role: str = "choice") -> None:
    """The options ``indices`` as a list of pills in ``rect`` (x, y, w, h), the selected one gold with
    ◀ ▶ beside it; a long label wraps onto up to 3 lines and shrinks (to 4.7 % of the height) before it
    is cut; more options than fit: a window round the selected one."""
    x, y, w, h = rect
    H, pad = p.h, pad_px(p.h)
    if not indices:
        return
    px = max(H * 0.05, min(H * 0.065, h / max(1, len(indices)) * 0.5))
    line = _lh(px)
    tri = H * 0.045
    room = w - 2 * round(tri + pad) - 2 * pad
    need = max(min(3, len(wrap_text(_words(v.options[i]), px, room))) for i in indices)
    row = min(max(line + pad, h / len(indices)), max(2, need) * line + pad)
    fits = max(1, int(h // row))
    sel = v.current
    pos = indices.index(sel) if sel in indices else 0
    first = min(max(0, pos - fits // 2), max(0, len(indices) - fits))
    for k, i in enumerate(indices[first:first + fits]):
        box = p.pg.Rect(x + round(tri + pad), y + round(k * row) + 1, w - 2 * round(tri + pad), round(row) - 2)
        current = i == sel
        p.rect(GOLD if current else ROW_BG[k % 2], box, radius=max(3, min(box.h, line) // 3))
        text, size = _words(v.options[i]), px
        while True:  # the largest size at which the label fits the box's lines
            n_lines = max(1, min(3, (box.h - 2) // _lh(size)))
            if len(wrap_text(text, size, room)) <= n_lines or size - 1 < _least(H):
                break
            size -= 1
        lines = _status_lines(p, text, size, room, n_lines)
        lh = _lh(size)
        ty = box.centery - len(lines) * lh // 2
        for j, part in enumerate(lines):
            p.text(part, size, BG if current else TEXT, role if current else "option", i, max_w=room,
                   min_px=_least(H), midtop=(box.centerx, ty + j * lh))
        if current and len(v.options) > 1:
            _triangle(p, (box.left - pad / 2 - tri / 2, box.centery), tri, "left", GOLD)
            _triangle(p, (box.right + pad / 2 + tri / 2, box.centery), tri, "right", GOLD)


def _item_row(p: _Painter, v: ExpressPickerView, indices: Sequence[int], y: int) -> int:
    """Menu items (``indices``) as pills in a row centred at ``y`` (their top); returns the bottom."""
    W, H, pad = p.w, p.h, pad_px(p.h)
    if not indices:
        return y
    px = H * 0.058
    f = font(px)
    line = _lh(px)
    widths = [f.size(_words(v.options[i]))[0] + 3 * pad for i in indices]
    total = sum(widths) + pad * 2 * (len(widths) - 1)
    x = max(pad, (W - total) // 2)
    for i, wd in zip(indices, widths):
        current = i == v.current
        box = p.pg.Rect(x, y, min(wd, W - pad - x), line + pad)
        p.rect(GOLD if current else CELL_FREE, box, radius=max(3, box.h // 3))
        _text(p, _words(v.options[i]), px, BG if current else TEXT, "choice" if current else "option", i,
              max_w=box.w - 2 * pad, min_px=_least(H), center=box.center)
        x = box.right + 2 * pad
    return y + line + pad


def _caption(p: _Painter, text: str, y: int, px: float | None = None) -> int:
    """The selected option in words, large and gold, centred from ``y``; returns the bottom."""
    px = px or p.h * 0.075
    r = _text(p, _words(text), px, GOLD, "selected", max_w=p.w - 2 * pad_px(p.h), min_px=p.h * 0.05,
              midtop=(p.w // 2, y))
    return r.bottom


def _picker_board(p: _Painter, v: ExpressPickerView, top: int, bottom: int) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    sel = v.current
    items = [i for i in range(len(v.options)) if v.is_item(i)]
    item_h = _lh(H * 0.058) + pad if items else 0
    cap_h = _lh(H * 0.075)
    board_h = min(round(H * 0.34), bottom - top - item_h - cap_h - 4 * pad)
    selectable = sorted({n for nums in v.numbers for n in nums})
    chosen = v.numbers[sel] if v.options else ()
    draw_board(p, (pad, top + pad, W - 2 * pad, board_h), v.board, picking=True, selected=chosen,
               selectable=selectable)
    y = top + pad + board_h + pad
    if v.options and not v.is_item(sel):
        _caption(p, v.options[sel], y)
    _item_row(p, v, items, y + cap_h + pad)


def further_ring(v: ExpressPickerView, size: tuple[int, int]) -> RingGeometry:
    """Where the "1 tile further" question ``v`` draws the ring on a screen of ``size`` (w, h) px (no
    status bar): the left part, as tall as the screen between the question and the button hint (at
    its tallest). The drawing uses it; tests find the tiles with it."""
    W, H = size
    pad = pad_px(H)
    band = _band(W, H, v)[2]
    hint_h = int(H * 0.058 * 1.9)
    h = H - hint_h - band - pad
    return ring_geometry((pad // 2, band + pad // 2, min(h, round(W * 0.55)), h))


def _picker_further(p: _Painter, v: ExpressPickerView, top: int, bottom: int) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    g = further_ring(v, (W, H))
    side = round(g.cx + g.radius + g.tile)  # the ring's right edge
    sel = v.current
    end = v.ends[sel] if v.ends else None
    path = v.paths[sel] if v.paths else []
    draw_ring(p, g, v.vans, lit=[v.seat], ghost=v.seat, ghost_tile=end, path=path)
    free_top, free_bottom = _ring_captions(p, g)
    if end is not None:
        counted = sum(c for _, c in path)
        skipped = len(path) - counted
        lines = [f"to {tile_name(end)}", f"{counted} counted"]
        if skipped:
            lines.append(f"skips {plural(skipped, 'van')}")
        _centre_lines(p, g, lines, free_top, free_bottom)
    x = side + pad
    _option_list(p, v, list(range(len(v.options))), (x, top + pad, W - x - pad // 2, bottom - top - 2 * pad))


def _picker_cards(p: _Painter, v: ExpressPickerView, top: int, bottom: int) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    sel = v.current
    cards = [i for i in range(len(v.options)) if not v.is_item(i)]
    items = [i for i in range(len(v.options)) if v.is_item(i)]
    item_h = _lh(H * 0.058) + pad if items else 0
    cap_h = _lh(H * 0.075)
    lift = round(H * 0.035)
    rows = 1 if len(cards) <= 6 else 2
    per_row = -(-max(1, len(cards)) // rows)
    gap = max(3, round(W * 0.012))
    area_h = (bottom - top - item_h - cap_h - 3 * pad - rows * lift - (rows - 1) * gap) / rows
    card_w = min((W - 2 * pad - gap * (per_row - 1)) / per_row, W * 0.2)
    if rows == 1:
        card_w = min(card_w, area_h * 0.72)
    card_h = min(area_h, card_w / 0.72 if rows == 1 else card_w * 0.75)
    y = top + pad + lift
    for r in range(rows):
        members = cards[r * per_row:(r + 1) * per_row]
        x = (W - (len(members) * card_w + gap * (len(members) - 1))) / 2
        for k, i in enumerate(members):
            current = i == sel
            rect = p.pg.Rect(round(x + k * (card_w + gap)), round(y - (lift if current else 0)), round(card_w),
                             round(card_h))
            if current:
                p.rect(GOLD, rect.inflate(8, 8), radius=max(3, rect.w // 6))
            draw_customer_card(p, rect, v.cards[i], index=i)
        y += card_h + gap + lift
    y = round(y - gap - lift + pad)
    if v.options and not v.is_item(sel):
        _caption(p, v.options[sel], y)
    _item_row(p, v, items, y + cap_h + pad)


def _picker_context(p: _Painter, v: ExpressPickerView, top: int) -> int:
    """What a list question is about, under the question: the display (keep or discard), the dice
    (a failed try), the hidden cards (tips); returns the bottom."""
    W, H, pad = p.w, p.h, pad_px(p.h)
    if v.kind == DELIVER:
        return draw_display(p, pad, top + pad, W - 2 * pad, v.display, px=H * 0.058)
    if v.kind == ACCEPT and v.dice is not None:
        die = round(H * 0.11)
        y = top + pad
        x = pad * 2
        for k, face in enumerate(v.dice):
            draw_d6(p, (x + k * (die + pad), y, die, die), face)
        words = f"= {sum(v.dice)}, needs {v.need}" if v.need is not None else f"= {sum(v.dice)}"
        p.text(words, H * 0.07, GOLD, "dice_sum", midleft=(x + 2 * die + 2 * pad, y + die // 2))
        return y + die
    if v.kind == TIPS:
        r = p.text(plural(v.hidden, "hidden action card"), H * 0.06, DIM, "context", topleft=(pad * 2, top + pad))
        return r.bottom
    return top


def _draw_express_picker(p: _Painter, v: ExpressPickerView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    top = _question_band(p, v)
    bottom = _draw_hint(p, v.hint)
    if not v.options:
        _text(p, "nothing to choose", H * 0.068, DIM, "choice", center=(W // 2, (top + bottom) // 2))
        return
    if v.kind in BOARD_KINDS:
        _picker_board(p, v, top, bottom)
    elif v.kind == FURTHER:
        _picker_further(p, v, top, bottom)
    elif v.kind in CARD_KINDS:
        _picker_cards(p, v, top, bottom)
    else:
        y = _picker_context(p, v, top) + pad
        _option_list(p, v, list(range(len(v.options))), (pad, y, W - 2 * pad, bottom - y - pad // 2))


# ---------------------------------------------------------------------------------------------

#: The drawer of each Sushi Express view (``play_screens.render_play`` asks the view's class).
DRAW = {
    ExpressBoardView: _draw_express_board,
    ExpressRoundView: _draw_express_round,
    ExpressFinalView: _draw_express_final,
    ExpressPickerView: _draw_express_picker,
}
