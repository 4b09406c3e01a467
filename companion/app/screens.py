"""What the little screen shows: plain view-models and pygame renderers for them.

Two screens:
  * the **scoreboard** during play (``ScoreboardView``): one band per seat with the cards in
    front of that player drawn as small icons, the points of each finished round, puddings, and
    a large running total; a status line at the bottom that wraps ("mat not found", a rules
    message);
  * the **final** screen (``FinalView``): the ranking, per-round and pudding points, winners and
    how a tie was broken.

The view-models are pure data, built by the app from the rules engine; the renderers turn them
into a ``pygame.Surface`` of any size. Everything is sized from the screen height, so the same
code serves the 480×320 and 800×480 panels, and uses pygame's built-in default font
(``pygame.font.Font(None, size)``) so no font files are needed.

pygame is imported lazily (``_pygame()``) so importing this module stays cheap. Rendering needs
no display: a Surface and the font module are enough, which is what PngDisplay and the tests use.

Card labels are the rules' card names (``companion.rules.sushi_go.cards.Card`` values) plus
``"wasabi+<nigiri>"`` for a nigiri played on a wasabi; anything else is drawn as a grey "?" card.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pygame

# ---------------------------------------------------------------------------------------------
# View-models


@dataclass
class SeatView:
    """One player on the scoreboard.

    name: shown as given (long names are shrunk, then cut with "…").
    tableau: card labels in front of the player this round, e.g. ``["tempura", "maki_2",
        "wasabi+squid_nigiri"]``; equal cards are grouped and counted on screen.
    round_points: points of each *finished* round, in order.
    puddings: puddings kept so far (they count at the end of the game).
    total: the running total shown large.
    """

    name: str
    tableau: list[str] = field(default_factory=list)
    round_points: list[int] = field(default_factory=list)
    puddings: int = 0
    total: int = 0


@dataclass
class ScoreboardView:
    """The in-play screen.

    title: e.g. ``"Round 2 — turn 5"``.
    seats: in seat order (2–5; more still render, smaller).
    status: one message for the table; wraps onto up to 3 lines, then is cut with "…".
    status_kind: ``"info"``, ``"warn"`` or ``"error"``; picks the status bar's colour.
    """

    title: str
    seats: list[SeatView]
    status: str = ""
    status_kind: str = "info"

    def render(self, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
        """This screen as a Surface of ``size`` px (what ``Display.show`` calls)."""
        return render_scoreboard(self, size)


@dataclass
class FinalRow:
    """One line of the final ranking.

    round_points: points of each round; pudding_points: the end-of-game pudding score (may be
    negative); total: everything; puddings: how many puddings the player kept; seat: the seat
    index, to reuse that seat's colour from the scoreboard (None: colour by row).
    """

    name: str
    round_points: list[int]
    pudding_points: int
    total: int
    puddings: int
    seat: int | None = None


@dataclass
class FinalView:
    """The end-of-game screen.

    rows: best first. winners: names of the winner(s). tie_break: how a tie on points was
    resolved, e.g. ``"Ann and Bo tied on 42; Ann wins with more puddings (3 vs 1)"`` or
    ``"Ann and Bo share the win"``; empty when there was no tie.
    """

    rows: list[FinalRow]
    winners: list[str]
    tie_break: str = ""
    title: str = "Game over"

    def render(self, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
        """This screen as a Surface of ``size`` px (what ``Display.show`` calls)."""
        return render_final(self, size)


@dataclass(frozen=True)
class TextBox:
    """Where one piece of text was drawn: role (e.g. ``"seat_name"``, ``"total"``, ``"status"``),
    the text as drawn (possibly cut with "…"), its rect ``(x, y, w, h)`` in px, and the seat or
    row index it belongs to (None for screen-wide text)."""

    role: str
    text: str
    rect: tuple[int, int, int, int]
    index: int | None = None


# ---------------------------------------------------------------------------------------------
# Colours (RGB). Dark background, near-white text: readable across a table under room light.

BG = (14, 17, 22)
HEADER_BG = (34, 40, 52)
ROW_BG = ((27, 32, 41), (21, 25, 32))
TEXT = (246, 246, 246)
DIM = (172, 182, 198)
GOLD = (255, 206, 64)
STATUS_BG = {"info": (40, 58, 84), "warn": (150, 96, 0), "error": (168, 34, 34)}
#: One accent per seat, up to 6 (Sushi Express), chosen to stay distinct for the common colour-vision
#: deficiencies (Okabe–Ito-like: orange, sky blue, green, yellow, pink, and blue lightened for the
#: dark background).
SEAT_COLOURS = ((240, 140, 30), (86, 180, 233), (40, 170, 120), (240, 228, 66), (214, 120, 190), (40, 130, 220))

#: The order card groups appear in a tableau, so seats compare at a glance (scoring families).
CARD_ORDER = (
    "maki_3", "maki_2", "maki_1", "tempura", "sashimi", "dumpling",
    "wasabi+squid_nigiri", "wasabi+salmon_nigiri", "wasabi+egg_nigiri",
    "squid_nigiri", "salmon_nigiri", "egg_nigiri", "wasabi", "chopsticks", "pudding",
)  # fmt: skip

_fonts: dict[int, "pygame.font.Font"] = {}


def _pygame():
    """Import pygame (pygame-ce) and initialise its font module; quiet about the banner."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    if not pygame.font.get_init():
        pygame.font.init()
    return pygame


def font(height_px: float) -> "pygame.font.Font":
    """The default font sized so its line height is about ``height_px`` px (cached)."""
    pygame = _pygame()
    # Font(None, s) draws lines ~0.69·s tall (freesansbold), so scale the request up
    size = max(8, int(round(height_px / 0.69)))
    if size not in _fonts:
        _fonts[size] = pygame.font.Font(None, size)
    return _fonts[size]


def wrap_text(text: str, height_px: float, max_w: int) -> list[str]:
    """Split ``text`` into lines no wider than ``max_w`` px in ``font(height_px)``.

    Breaks at spaces; a single word wider than the line is broken between characters.
    Explicit newlines are kept.
    """
    f = font(height_px)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}" if line else word
            if f.size(trial)[0] <= max_w:
                line = trial
                continue
            if line:
                lines.append(line)
            while f.size(word)[0] > max_w and len(word) > 1:
                cut = len(word) - 1
                while cut > 1 and f.size(word[:cut])[0] > max_w:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


def _ellipsize(f, text: str, max_w: int) -> str:
    if f.size(text)[0] <= max_w:
        return text
    while text and f.size(text + "…")[0] > max_w:
        text = text[:-1]
    return text.rstrip() + "…"


def pad_px(height: int) -> int:
    """The screens' margin for a screen ``height`` px tall (2 % of it, at least 4 px)."""
    return max(4, round(height * 0.02))


def accent_width(height: int) -> int:
    """Width of a seat's colour stripe for a screen ``height`` px tall (1.8 %, at least 4 px)."""
    return max(4, round(height * 0.018))


class _Painter:
    """A Surface plus a record of every text drawn on it (for tests and debugging)."""

    def __init__(self, size: tuple[int, int]) -> None:
        pygame = _pygame()
        self.pg = pygame
        self.w, self.h = int(size[0]), int(size[1])
        if self.w < 16 or self.h < 16:
            raise ValueError(f"screen size must be at least 16×16 px, not {size}")
        self.surface = pygame.Surface((self.w, self.h))
        self.surface.fill(BG)
        self.boxes: list[TextBox] = []

    def rect(self, colour, rect, radius: int = 0, width: int = 0) -> None:
        self.pg.draw.rect(self.surface, colour, self.pg.Rect(rect), width, border_radius=radius)

    def text(
        self,
        text: str,
        height_px: float,
        colour,
        role: str,
        index: int | None = None,
        max_w: int | None = None,
        min_px: float | None = None,
        **anchor,
    ):
        """Draw one line; shrink it (down to ``min_px``) then cut it with "…" to fit ``max_w``."""
        px = height_px
        f = font(px)
        if max_w is not None:
            floor = min_px if min_px is not None else height_px * 0.7
            while f.size(text)[0] > max_w and px > floor:
                px -= 1
                f = font(px)
            text = _ellipsize(f, text, max_w)
        img = f.render(text, True, colour)
        r = img.get_rect(**anchor)
        self.surface.blit(img, r)
        self.boxes.append(TextBox(role, text, (r.x, r.y, r.w, r.h), index))
        return r


# ---------------------------------------------------------------------------------------------
# Card icons


def _tableau_groups(tableau: Sequence[str]) -> list[tuple[str, int]]:
    """``[(label, count)]`` in CARD_ORDER, unknown labels last in first-seen order."""
    counts: dict[str, int] = {}
    for label in tableau:
        counts[label] = counts.get(label, 0) + 1
    rank = {label: i for i, label in enumerate(CARD_ORDER)}
    return sorted(counts.items(), key=lambda kv: rank.get(kv[0], len(rank)))


_TILE = {
    "tempura": (146, 92, 204),
    "sashimi": (62, 160, 82),
    "dumpling": (58, 112, 208),
    "maki": (206, 46, 52),
    "nigiri": (236, 186, 40),
    "wasabi": (156, 206, 60),
    "pudding": (236, 118, 164),
    "chopsticks": (40, 178, 184),
    "unknown": (110, 110, 118),
}
_NIGIRI_TOPPING = {
    "egg_nigiri": (255, 238, 110),
    "salmon_nigiri": (250, 112, 60),
    "squid_nigiri": (236, 236, 250),
}
_OUTLINE = (20, 20, 24)


def _draw_nigiri(pg, surf, r, kind: str) -> None:
    """Rice block with the topping across it, filling rect ``r``."""
    w, h = r.w, r.h
    rice = pg.Rect(r.x + w * 0.12, r.y + h * 0.45, w * 0.76, h * 0.42)
    pg.draw.rect(surf, (250, 250, 246), rice, border_radius=max(2, int(h * 0.12)))
    pg.draw.rect(surf, _OUTLINE, rice, 1, border_radius=max(2, int(h * 0.12)))
    top = pg.Rect(r.x + w * 0.04, r.y + h * 0.18, w * 0.92, h * 0.36)
    colour = _NIGIRI_TOPPING.get(kind, (200, 200, 200))
    pg.draw.ellipse(surf, colour, top)
    pg.draw.ellipse(surf, _OUTLINE, top, max(1, int(w * 0.05)))
    lw = max(1, int(w * 0.06))
    if kind == "egg_nigiri":  # the nori belt round egg and rice
        belt = pg.Rect(r.centerx - w * 0.11, r.y + h * 0.16, w * 0.22, h * 0.72)
        pg.draw.rect(surf, (24, 40, 24), belt)
    elif kind == "salmon_nigiri":  # fat stripes
        for k in (-1, 0, 1):
            x = r.centerx + k * w * 0.22
            pg.draw.line(surf, (255, 226, 206), (x - w * 0.06, top.top + 2), (x + w * 0.06, top.bottom - 3), lw)
    elif kind == "squid_nigiri":  # scored flesh
        for k in (-1, 0, 1):
            x = r.centerx + k * w * 0.2
            pg.draw.line(surf, (150, 130, 200), (x, top.top + 3), (x, top.bottom - 3), lw)


def draw_card_icon(surface: "pygame.Surface", label: str, rect) -> None:
    """Draw one card type as a small coloured tile with a simple glyph inside ``rect`` (px).

    Tiles: maki red with 1–3 rolls, tempura purple, sashimi green, dumpling blue, nigiri yellow
    (egg: yellow with a nori belt, salmon: orange striped, squid: white), wasabi lime with a green
    mound, pudding pink, chopsticks teal, anything else grey with "?". ``"wasabi+<nigiri>"`` is
    the nigiri tile sitting inside a lime wasabi frame with the green mound under the rice.
    """
    pg = _pygame()
    r = pg.Rect(rect)
    radius = max(2, int(min(r.w, r.h) * 0.16))
    base, _, nigiri_on = label.partition("+")
    if base == "wasabi" and nigiri_on:
        # the wasabi tile with its green mound, and the nigiri sitting on it: one combined icon
        pg.draw.rect(surface, _TILE["wasabi"], r, border_radius=radius)
        surface.set_clip(r)
        mound = pg.Rect(r.x + r.w * 0.06, r.y + r.h * 0.58, r.w * 0.88, r.h * 0.5)
        pg.draw.ellipse(surface, (46, 128, 40), mound)
        pg.draw.ellipse(surface, _OUTLINE, mound, 1)
        _draw_nigiri(pg, surface, r.move(0, -r.h * 0.1), nigiri_on)
        surface.set_clip(None)
        pg.draw.rect(surface, _OUTLINE, r, 1, border_radius=radius)
        return

    kind = "maki" if base.startswith("maki_") else "nigiri" if base.endswith("_nigiri") else base
    tile = _TILE.get(kind, _TILE["unknown"])
    pg.draw.rect(surface, tile, r, border_radius=radius)
    pg.draw.rect(surface, _OUTLINE, r, 1, border_radius=radius)
    w, h, cx, cy = r.w, r.h, r.centerx, r.centery
    lw = max(1, int(w * 0.07))

    if kind == "maki":
        n = {"maki_1": 1, "maki_2": 2, "maki_3": 3}.get(base, 0)
        # pips like a die, stacked down the portrait tile so each roll stays big enough to count
        rad = min(w * 0.33, h / (2 * max(n, 1) + 0.6))
        ys = [cy + (k - (n - 1) / 2) * (2 * rad + max(1, h * 0.03)) for k in range(n)]
        for y in ys:
            pg.draw.circle(surface, (22, 44, 26), (cx, y), rad)
            pg.draw.circle(surface, (250, 250, 246), (cx, y), rad * 0.66)
            pg.draw.circle(surface, (236, 120, 60), (cx, y), rad * 0.3)
        if n == 0:
            kind = "unknown"
    elif kind == "tempura":
        for dy in (-0.13, 0.13):
            body = pg.Rect(r.x + w * 0.14, cy + h * dy - h * 0.1, w * 0.64, h * 0.2)
            pg.draw.ellipse(surface, (246, 184, 70), body)
            pg.draw.ellipse(surface, _OUTLINE, body, 1)
            tip = body.right - 1
            tail = [(tip, body.centery), (tip + w * 0.16, body.top), (tip + w * 0.16, body.bottom)]
            pg.draw.polygon(surface, (226, 60, 40), tail)
    elif kind == "sashimi":
        for k in (-1, 0, 1):
            x = cx + k * w * 0.24
            lo, hi = cy + h * 0.22, cy - h * 0.22
            slab = [(x - w * 0.1, lo), (x - w * 0.02, hi), (x + w * 0.12, hi), (x + w * 0.04, lo)]
            pg.draw.polygon(surface, (250, 128, 108), slab)
            pg.draw.polygon(surface, _OUTLINE, slab, 1)
    elif kind == "dumpling":
        rad = w * 0.36
        base_y = cy + h * 0.1
        angles = [math.pi * i / 16 for i in range(17)]
        pts = [(cx + rad * math.cos(a), base_y - rad * math.sin(a)) for a in angles]
        pg.draw.polygon(surface, (248, 240, 220), pts)
        pg.draw.polygon(surface, _OUTLINE, pts, 1)
        for k in (-1, 0, 1):
            x = cx + k * rad * 0.45
            pg.draw.line(surface, (170, 150, 120), (x, base_y - rad * 0.8), (x, cy + h * 0.04), max(1, lw // 2))
    elif kind == "nigiri":
        _draw_nigiri(pg, surface, r, base)
    elif kind == "wasabi":
        mound = pg.Rect(r.x + w * 0.14, cy - h * 0.12, w * 0.72, h * 0.44)
        pg.draw.ellipse(surface, (46, 128, 40), mound)
        pg.draw.ellipse(surface, _OUTLINE, mound, 1)
        pg.draw.circle(surface, (46, 128, 40), (cx, mound.top + 2), w * 0.14)
    elif kind == "pudding":
        top, bot = cy - h * 0.16, cy + h * 0.2
        body = [(cx - w * 0.22, top), (cx + w * 0.22, top), (cx + w * 0.34, bot), (cx - w * 0.34, bot)]
        pg.draw.polygon(surface, (252, 226, 150), body)
        pg.draw.polygon(surface, _OUTLINE, body, 1)
        pg.draw.rect(surface, (128, 62, 24), pg.Rect(cx - w * 0.22, top, w * 0.44 + 1, h * 0.09))
        pg.draw.line(surface, (250, 250, 250), (cx - w * 0.42, bot + 1), (cx + w * 0.42, bot + 1), lw)
    elif kind == "chopsticks":
        for dx in (-0.12, 0.12):
            start = (cx + w * (dx - 0.18), r.y + h * 0.15)
            end = (cx + w * (dx + 0.18), r.bottom - h * 0.15)
            pg.draw.line(surface, (70, 40, 20), start, end, max(2, lw))
    if kind not in _TILE or kind == "unknown":
        f = font(h * 0.6)
        q = f.render("?", True, TEXT)
        surface.blit(q, q.get_rect(center=r.center))


# ---------------------------------------------------------------------------------------------
# Scoreboard


def _status_lines(p: _Painter, text: str, px: float, max_w: int, max_lines: int = 3) -> list[str]:
    lines = wrap_text(text, px, max_w)
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [_ellipsize(font(px), " ".join(lines[max_lines - 1 :]), max_w)]
    return lines


def _draw_status(p: _Painter, text: str, kind: str, px: float, pad: int) -> int:
    """Draw the status bar at the bottom; return its top y."""
    if not text:
        return p.h
    lines = _status_lines(p, text, px, p.w - 2 * pad)
    line_h = font(px).get_linesize()
    height = len(lines) * line_h + pad
    top = p.h - height
    p.rect(STATUS_BG.get(kind, STATUS_BG["info"]), (0, top, p.w, height))
    for k, line in enumerate(lines):
        at = (pad, top + pad // 2 + k * line_h)
        p.text(line, px, TEXT, "status", k, max_w=p.w - 2 * pad, min_px=px, topleft=at)
    return top


def _draw_pudding_count(
    p: _Painter, count: int, right: int, cy: int, icon_h: int, px: float, index: int
) -> int:
    """A mini pudding icon and its count, right-aligned at ``right``; returns the left x."""
    colour = TEXT if count else DIM
    r = p.text(str(count), px, colour, "puddings", index, midright=(right, cy))
    iw = int(icon_h * 0.72)
    icon = p.pg.Rect(r.left - iw - max(2, icon_h // 8), cy - icon_h // 2, iw, icon_h)
    draw_card_icon(p.surface, "pudding", icon)
    return icon.left


def _draw_tableau(p: _Painter, tableau: Sequence[str], area, max_icon_h: int, index: int) -> None:
    """Grouped card icons left to right in ``area`` (x, y, w, h); "×N" beside a group of N."""
    x0, y0, aw, ah = area
    groups = _tableau_groups(tableau)
    if not groups:
        p.text("no cards yet", min(ah * 0.34, p.h * 0.06), DIM, "tableau_empty", index, midleft=(x0, y0 + ah // 2))
        return
    icon_h = max_icon_h
    while True:
        icon_w = max(6, int(icon_h * 0.72))
        badge_px = max(11.0, icon_h * 0.5)
        gap = max(3, int(icon_w * 0.18))
        badge_ws = [font(badge_px).size(f"×{n}")[0] + 2 if n > 1 else 0 for _, n in groups]
        need = sum(icon_w + b for b in badge_ws) + gap * (len(groups) - 1)
        if need <= aw or icon_h <= 12:
            break
        icon_h -= 1
    x = x0
    cy = y0 + ah // 2
    for (label, n), bw in zip(groups, badge_ws):
        draw_card_icon(p.surface, label, (x, cy - icon_h // 2, icon_w, icon_h))
        x += icon_w
        if n > 1:
            p.text(f"×{n}", badge_px, TEXT, "count", index, bottomleft=(x + 1, cy + icon_h // 2 + 2))
            x += bw
        x += gap


def _draw_round_chips(
    p: _Painter, points: Sequence[int], x: int, y: int, max_w: int, px: float, index: int
) -> None:
    """Each finished round's points in its own small box, left to right from (x, y).

    Boxes rather than "R1 12 R2 9": the default font's tight spacing made "R2 9" read as "R29".
    """
    f = font(px)
    pad_x = max(2, int(px * 0.3))
    gap = max(2, int(px * 0.25))
    right = x + max_w
    for k, v in enumerate(points):
        w = f.size(str(v))[0] + 2 * pad_x
        if x + w > right and k:  # out of room: the total still says it all
            break
        box = p.pg.Rect(x, y, w, f.get_height() + 1)
        p.rect(DIM, box, radius=max(2, int(px * 0.25)), width=1)
        p.text(str(v), px, TEXT, "round_points", index, center=box.center)
        x += w + gap


def _draw_scoreboard(p: _Painter, view: ScoreboardView) -> None:
    W, H = p.w, p.h
    pad = pad_px(H)
    # header
    title_px = H * 0.085
    header_h = int(title_px * 1.5)
    p.rect(HEADER_BG, (0, 0, W, header_h))
    p.text(view.title, title_px, TEXT, "title", max_w=W - 2 * pad, midleft=(pad, header_h // 2))
    status_top = _draw_status(p, view.status, view.status_kind, H * 0.062, pad)

    n = max(1, len(view.seats))
    rows_h = status_top - header_h
    rh = rows_h / n
    accent_w = accent_width(H)
    name_w = round(W * 0.25)
    total_w = round(W * 0.13)
    pudding_w = round(W * 0.11)
    for i, seat in enumerate(view.seats):
        y0 = header_h + round(i * rh)
        y1 = header_h + round((i + 1) * rh)
        h = y1 - y0
        cy = y0 + h // 2
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(SEAT_COLOURS[i % len(SEAT_COLOURS)], (0, y0, accent_w, h))

        name_px = min(h * 0.42, H * 0.085)
        sub_px = min(h * 0.34, H * 0.06)
        nx = accent_w + pad
        col_w = name_w - nx - pad // 2
        if seat.round_points:
            p.text(seat.name, name_px, TEXT, "seat_name", i, max_w=col_w, bottomleft=(nx, cy + h * 0.04))
            _draw_round_chips(p, seat.round_points, nx, cy + int(h * 0.06), col_w, sub_px, i)
        else:
            p.text(seat.name, name_px, TEXT, "seat_name", i, max_w=col_w, midleft=(nx, cy))

        total_px = min(h * 0.78, H * 0.16)
        p.text(str(seat.total), total_px, GOLD, "total", i, max_w=total_w, midright=(W - pad, cy))
        icon_h = int(min(h * 0.5, H * 0.1))
        _draw_pudding_count(p, seat.puddings, W - pad - total_w - pad, cy, icon_h, min(h * 0.36, H * 0.07), i)

        tab_x = name_w
        tab_w = W - total_w - pudding_w - 2 * pad - tab_x
        _draw_tableau(p, seat.tableau, (tab_x, y0 + 2, tab_w, h - 4), int(min(h * 0.8, H * 0.17)), i)
        if i:
            p.pg.draw.line(p.surface, BG, (0, y0), (W, y0), 1)


# ---------------------------------------------------------------------------------------------
# Final screen


def _ranks(rows: Sequence[FinalRow]) -> list[int]:
    """1-based ranks; rows equal on total and puddings share a rank (as the tie-break would)."""
    ranks: list[int] = []
    for k, row in enumerate(rows):
        prev = rows[k - 1] if k else None
        same = prev is not None and (prev.total, prev.puddings) == (row.total, row.puddings)
        ranks.append(ranks[-1] if same else k + 1)
    return ranks


def _winner_line(view: FinalView) -> str:
    if not view.winners:
        return view.title
    if len(view.winners) == 1:
        return f"{view.winners[0]} wins!"
    return " and ".join([", ".join(view.winners[:-1]), view.winners[-1]]) + " share the win!"


def _draw_final(p: _Painter, view: FinalView) -> None:
    W, H = p.w, p.h
    pad = pad_px(H)
    title_px = H * 0.1
    header_h = int(title_px * 1.5)
    p.rect(HEADER_BG, (0, 0, W, header_h))
    small_px = H * 0.052
    p.text(view.title, small_px, DIM, "title", max_w=int(W * 0.3), midleft=(pad, header_h // 2))
    at = (W - pad, header_h // 2)
    line, max_w = _winner_line(view), int(W * 0.68) - pad
    smallest = font(title_px * 0.7)  # p.text shrinks to 70 % before it cuts
    if len(view.winners) == 1 and smallest.size(line)[0] > max_w:  # cut the name, keep "wins!"
        line = _ellipsize(smallest, view.winners[0], max_w - smallest.size(" wins!")[0]) + " wins!"
    p.text(line, title_px, GOLD, "winners", max_w=max_w, midright=at)

    tie_top = H
    if view.tie_break:
        tie_top = _draw_status(p, view.tie_break, "info", H * 0.065, pad)

    n_rounds = max((len(r.round_points) for r in view.rows), default=0)
    accent_w = accent_width(H)
    rank_w = round(W * 0.07)
    name_w = round(W * 0.29)
    total_w = round(W * 0.15)
    pud_w = round(W * 0.17)
    rounds_x = accent_w + rank_w + name_w
    rounds_w = W - rounds_x - pud_w - total_w - pad
    col_w = rounds_w / max(1, n_rounds)

    # column heads
    head_h = int(small_px * 1.5)
    hy = header_h + head_h // 2
    p.text("Player", small_px, DIM, "head", midleft=(accent_w + rank_w, hy))
    for k in range(n_rounds):
        p.text(f"R{k + 1}", small_px, DIM, "head", center=(int(rounds_x + (k + 0.5) * col_w), hy))
    p.text("Pudding", small_px, DIM, "head", max_w=pud_w, center=(W - pad - total_w - pud_w // 2, hy))
    p.text("Total", small_px, DIM, "head", midright=(W - pad, hy))

    top = header_h + head_h
    n = max(1, len(view.rows))
    rh = min((tie_top - top) / n, H * 0.22)
    winners = set(view.winners)
    for i, (row, rank) in enumerate(zip(view.rows, _ranks(view.rows))):
        y0 = top + round(i * rh)
        h = top + round((i + 1) * rh) - y0
        cy = y0 + h // 2
        won = row.name in winners
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        if won:
            p.rect(GOLD, (0, y0, W, h), width=max(2, round(H * 0.008)))
        seat = row.seat if row.seat is not None else i
        p.rect(SEAT_COLOURS[seat % len(SEAT_COLOURS)], (0, y0, accent_w, h))
        px = min(h * 0.5, H * 0.09)
        p.text(str(rank), px, GOLD if won else DIM, "rank", i, center=(accent_w + rank_w // 2, cy))
        p.text(row.name, px, TEXT, "row_name", i, max_w=name_w - pad, midleft=(accent_w + rank_w, cy))
        for k, v in enumerate(row.round_points):
            p.text(str(v), px * 0.85, TEXT, "round_points", i, center=(int(rounds_x + (k + 0.5) * col_w), cy))
        sign = "+" if row.pudding_points > 0 else ""
        pud_cx = W - pad - total_w - pud_w // 2
        r = p.text(f"{sign}{row.pudding_points}", px * 0.85, TEXT, "pudding_points", i, midright=(pud_cx, cy))
        icon_h = int(min(h * 0.62, H * 0.1))
        icon = p.pg.Rect(r.right + pad, cy - icon_h // 2, int(icon_h * 0.72), icon_h)
        draw_card_icon(p.surface, "pudding", icon)
        colour = TEXT if row.puddings else DIM
        p.text(f"×{row.puddings}", px * 0.8, colour, "puddings", i, midleft=(icon.right + 2, cy))
        p.text(str(row.total), min(h * 0.8, H * 0.14), GOLD, "total", i, max_w=total_w, midright=(W - pad, cy))


# ---------------------------------------------------------------------------------------------
# Public entry points


def render_scoreboard_boxes(view: ScoreboardView, size=(480, 320)) -> tuple["pygame.Surface", list[TextBox]]:
    """``render_scoreboard`` plus the rect of every text drawn (for tests and layout checks)."""
    p = _Painter(size)
    _draw_scoreboard(p, view)
    return p.surface, p.boxes


def render_final_boxes(view: FinalView, size=(480, 320)) -> tuple["pygame.Surface", list[TextBox]]:
    """``render_final`` plus the rect of every text drawn."""
    p = _Painter(size)
    _draw_final(p, view)
    return p.surface, p.boxes


def render_scoreboard(view: ScoreboardView, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
    """Draw the in-play scoreboard.

    Args:
        view: what to show.
        size: (width, height) px; laid out from the height, tested at 480×320 and 800×480 for
            2–5 seats.

    Returns:
        A new ``pygame.Surface`` of ``size`` (no display needed).

    Raises:
        ValueError: size smaller than 16×16.
    """
    return render_scoreboard_boxes(view, size)[0]


def render_final(view: FinalView, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
    """Draw the end-of-game ranking; same size rules as ``render_scoreboard``."""
    return render_final_boxes(view, size)[0]


def render(view: ScoreboardView | FinalView, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
    """Render either view-model (what ``Display.show`` uses when given a view).

    Raises:
        TypeError: ``view`` is neither a ScoreboardView nor a FinalView.
    """
    if isinstance(view, ScoreboardView):
        return render_scoreboard(view, size)
    if isinstance(view, FinalView):
        return render_final(view, size)
    raise TypeError(f"cannot render a {type(view).__name__}; expected ScoreboardView or FinalView")


def save_png(surface: "pygame.Surface", path: str | Path) -> Path:
    """Write ``surface`` as a PNG (creating parent folders); returns the path."""
    from companion.devices.display import save_png as write

    return write(surface, path)
