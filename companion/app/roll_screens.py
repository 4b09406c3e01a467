"""The Sushi Roll screens (issue #10): pygame renderers for the view-models of ``roll_views``.

``play_screens.render_play`` draws them (each view class names its drawer in :data:`DRAW`), with
the devices' status bar when one is given. The layout rules are the play screens': every size
comes from the screen height (tested at 480×320 and 800×480), the default pygame font, the same
colours, every text recorded as a ``TextBox``, no text under 4 % of the height.

Dice are drawn by :func:`draw_die_icon`: a rounded square in the die type's colour (appetizer
blue, maki red, nigiri white, specials green, pudding pink: ``roll_views.DIE_COLOURS``) with the
face's icons on it, one to three laid on the diagonal like a die's pips (``maki*3`` shows three
rolls), and a nigiri on a wasabi as the white die standing on the green one. Shapes are our own
(primitives), not the publisher's art.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from companion.app.play_screens import (
    _draw_breakdown,
    _draw_hint,
    _header,
    _paragraph,
    _seat_colour,
    _signed,
    _text,
    _triangle,
    draw_crop,
    drawable,
)
from companion.app.roll_views import (
    DIE_COLOURS,
    RollFinalView,
    RollPickerView,
    RollRoundSummaryView,
    RollScoreboardView,
    RollUndoView,
    face_title,
)
from companion.app.screens import (
    BG,
    DIM,
    GOLD,
    HEADER_BG,
    ROW_BG,
    STATUS_BG,
    TEXT,
    _draw_round_chips,
    _draw_status,
    _ellipsize,
    _Painter,
    _pygame,
    accent_width,
    font,
    pad_px,
    wrap_text,
)
from companion.rules.sushi_roll.dice import Icon, Tokens, as_face

if TYPE_CHECKING:
    import pygame

_INK = (22, 22, 26)
_RICE = (250, 250, 246)
_UNKNOWN_BODY = (112, 112, 120)
#: The strips the dice lie on: a conveyor belt (dark grey, its border red for the red-bordered
#: belt) and a tray (wood).
BELT_FILL, BELT_EDGE, RED_EDGE = (52, 56, 66), (104, 110, 124), (232, 44, 44)
TRAY_FILL, TRAY_EDGE = (112, 80, 50), (160, 120, 80)
#: Token colours: menu (cream), chopsticks (teal), pudding (pink), and scoring tokens by value.
TOKEN_FILL = {"menu": (244, 232, 200), "chopsticks": (44, 168, 170), "pudding": (238, 132, 184)}
POINT_FILL = {20: (232, 120, 200), 10: (246, 186, 56), 5: (96, 180, 233), 1: (214, 216, 222)}

# ---------------------------------------------------------------------------------------------
# Dice icons


def _line(pg, surf, colour, a, b, width: int) -> None:
    pg.draw.line(surf, colour, a, b, max(1, int(width)))


def _outlined(pg, surf, fill, pts) -> None:
    pg.draw.polygon(surf, fill, pts)
    pg.draw.polygon(surf, _INK, pts, 1)


def _ellipse_pts(cx: float, cy: float, rx: float, ry: float, angle: float = 0.0, n: int = 20):
    ca, sa = math.cos(angle), math.sin(angle)
    pts = []
    for k in range(n):
        t = 2 * math.pi * k / n
        x, y = rx * math.cos(t), ry * math.sin(t)
        pts.append((cx + x * ca - y * sa, cy + x * sa + y * ca))
    return pts


def _draw_glyph(pg, surf, icon: Icon, cx: float, cy: float, s: float) -> None:
    """One icon of a face, fitting a square of side ``s`` px centred on (cx, cy)."""
    lw = max(1, round(s * 0.09))
    if icon is Icon.MAKI:  # a roll seen end-on: nori, rice, filling
        pg.draw.circle(surf, (24, 52, 30), (cx, cy), s * 0.46)
        pg.draw.circle(surf, _RICE, (cx, cy), s * 0.32)
        pg.draw.circle(surf, (240, 120, 50), (cx, cy), s * 0.15)
        pg.draw.circle(surf, _INK, (cx, cy), s * 0.46, 1)
    elif icon is Icon.DUMPLING:  # a half-moon, flat side down, pleated
        r, base = s * 0.46, cy + s * 0.2
        pts = [(cx + r * math.cos(math.pi * k / 12), base - r * 0.95 * math.sin(math.pi * k / 12)) for k in range(13)]
        _outlined(pg, surf, (250, 238, 206), pts)
        for k in (-1, 0, 1):
            x = cx + k * r * 0.42
            _line(pg, surf, (168, 146, 112), (x, base - r * 0.75 + abs(k) * r * 0.12), (x, base - r * 0.25), lw * 0.7)
    elif icon is Icon.TEMPURA:  # a battered prawn on the diagonal, red tail up right
        a = -math.pi / 4
        _outlined(pg, surf, (248, 190, 70), _ellipse_pts(cx - s * 0.06, cy + s * 0.06, s * 0.38, s * 0.17, a))
        tip = (cx + s * 0.24, cy - s * 0.24)
        _outlined(pg, surf, (226, 58, 40), [tip, (cx + s * 0.48, cy - s * 0.26), (cx + s * 0.26, cy - s * 0.48)])
    elif icon is Icon.SASHIMI:  # two slices of fish, fat stripe on each
        for dx in (-0.2, 0.2):
            x = cx + dx * s
            slab = [(x - s * 0.2, cy + s * 0.36), (x - s * 0.04, cy - s * 0.36), (x + s * 0.2, cy - s * 0.36),
                    (x + s * 0.04, cy + s * 0.36)]
            _outlined(pg, surf, (250, 120, 96), slab)
            _line(pg, surf, (255, 222, 206), (x - s * 0.08, cy + s * 0.2), (x + s * 0.06, cy - s * 0.24), lw)
    elif icon in (Icon.EGG_NIGIRI, Icon.SALMON_NIGIRI, Icon.SQUID_NIGIRI):
        rice = pg.Rect(0, 0, s * 0.8, s * 0.36)
        rice.center = (cx, cy + s * 0.16)
        pg.draw.rect(surf, _RICE, rice, border_radius=max(2, int(s * 0.1)))
        pg.draw.rect(surf, _INK, rice, 1, border_radius=max(2, int(s * 0.1)))
        topping = {Icon.EGG_NIGIRI: (255, 222, 60), Icon.SALMON_NIGIRI: (250, 118, 56),
                   Icon.SQUID_NIGIRI: (214, 208, 246)}[icon]  # fmt: skip
        top = _ellipse_pts(cx, cy - s * 0.08, s * 0.46, s * 0.2)
        _outlined(pg, surf, topping, top)
        if icon is Icon.EGG_NIGIRI:  # the nori belt round egg and rice
            pg.draw.rect(surf, (26, 44, 28), pg.Rect(cx - s * 0.09, cy - s * 0.28, s * 0.18, s * 0.62))
        elif icon is Icon.SALMON_NIGIRI:
            for k in (-1, 0, 1):
                x = cx + k * s * 0.2
                _line(pg, surf, (255, 228, 210), (x - s * 0.06, cy - s * 0.2), (x + s * 0.06, cy + s * 0.04), lw)
        else:
            for k in (-1, 0, 1):
                x = cx + k * s * 0.18
                _line(pg, surf, (120, 96, 190), (x, cy - s * 0.2), (x, cy + s * 0.04), lw)
    elif icon is Icon.WASABI:  # a lime mound with a peak
        _outlined(pg, surf, (182, 236, 84), _ellipse_pts(cx, cy + s * 0.12, s * 0.44, s * 0.28))
        pg.draw.circle(surf, (182, 236, 84), (cx, cy - s * 0.12), s * 0.17)
        pg.draw.circle(surf, _INK, (cx, cy - s * 0.12), s * 0.17, 1)
        pg.draw.rect(surf, (182, 236, 84), pg.Rect(cx - s * 0.15, cy - s * 0.08, s * 0.3, s * 0.16))
    elif icon is Icon.CHOPSTICKS:  # a pair, nearly upright, apart at the top (two pairs stay apart)
        for dx in (-0.14, 0.14):
            a = (cx + dx * s * 1.5 - s * 0.06, cy - s * 0.44)
            b = (cx + dx * s * 0.5 + s * 0.08, cy + s * 0.44)
            _line(pg, surf, _INK, a, b, lw * 2.4)
            _line(pg, surf, (132, 80, 34), a, b, lw * 1.4)
    elif icon is Icon.MENU:  # a menu card with lines of text
        card = pg.Rect(0, 0, s * 0.62, s * 0.84)
        card.center = (cx, cy)
        pg.draw.rect(surf, (252, 246, 228), card, border_radius=max(1, int(s * 0.06)))
        pg.draw.rect(surf, _INK, card, 1, border_radius=max(1, int(s * 0.06)))
        for k in range(3):
            y = card.top + card.h * (0.28 + 0.22 * k)
            _line(pg, surf, (150, 60, 40), (card.left + card.w * 0.2, y), (card.right - card.w * 0.2, y), lw)
    elif icon is Icon.PUDDING:  # custard with caramel on a plate
        top, bot = cy - s * 0.26, cy + s * 0.26
        body = [(cx - s * 0.24, top), (cx + s * 0.24, top), (cx + s * 0.36, bot), (cx - s * 0.36, bot)]
        _outlined(pg, surf, (252, 224, 128), body)
        pg.draw.rect(surf, (128, 62, 24), pg.Rect(cx - s * 0.24, top, s * 0.48 + 1, s * 0.13))
        _line(pg, surf, (250, 250, 250), (cx - s * 0.46, bot + lw), (cx + s * 0.46, bot + lw), lw * 1.2)


#: Where 1, 2 or 3 icons of a face sit (fractions of the die's side from its centre) and their size.
_PIPS = {
    1: ([(0.0, 0.0)], 0.8),
    2: ([(-0.2, -0.2), (0.2, 0.2)], 0.52),
    3: ([(-0.26, -0.26), (0, 0), (0.26, 0.26)], 0.42),
}


def _draw_die(pg, surf, r, label: str) -> None:
    """One die (no stack) filling rect ``r``."""
    radius = max(2, int(min(r.w, r.h) * 0.2))
    try:
        face = as_face(label)
    except ValueError:
        face = None
    body = DIE_COLOURS[face.kind.value] if face is not None else _UNKNOWN_BODY
    pg.draw.rect(surf, body, r, border_radius=radius)
    pg.draw.rect(surf, _INK, r, 1, border_radius=radius)
    side = min(r.w, r.h)
    if face is None:
        q = font(side * 0.75).render("?", True, TEXT)
        surf.blit(q, q.get_rect(center=r.center))
        return
    spots, scale = _PIPS.get(face.count, _PIPS[1])
    for dx, dy in spots:
        _draw_glyph(pg, surf, face.icon, r.centerx + dx * side, r.centery + dy * side, side * scale)
    if face.count > 3:  # an unusual dice file: one icon and the count
        n = font(side * 0.45).render(str(face.count), True, _INK)
        surf.blit(n, n.get_rect(bottomright=(r.right - 2, r.bottom)))


def draw_die_icon(surface: "pygame.Surface", label: str, rect, dim: bool = False) -> None:
    """Draw one die inside ``rect`` (x, y, w, h px; square works best).

    ``label``: a face (``"maki*2"``: the red maki die with two rolls), or ``"wasabi+<nigiri>"``: a
    nigiri die standing on a wasabi die (the white die on the green one, offset). Anything else is
    a grey die with "?". ``dim``: drawn faded (dice about to be rolled).
    """
    pg = _pygame()
    r = pg.Rect(rect)
    target, origin = surface, (0, 0)
    if dim:
        target = pg.Surface(r.size, pg.SRCALPHA)
        origin = r.topleft
        r = pg.Rect(0, 0, r.w, r.h)
    under, plus, on = label.partition("+")
    if plus:
        o = max(2, round(min(r.w, r.h) * 0.2))
        _draw_die(pg, target, pg.Rect(r.x + o, r.y + o, r.w - o, r.h - o), under)
        _draw_die(pg, target, pg.Rect(r.x, r.y, r.w - o, r.h - o), on)
    else:
        _draw_die(pg, target, r, label)
    if dim:
        target.set_alpha(110)
        surface.blit(target, origin)


def _draw_token(pg, surf, kind: str, centre, d: float) -> None:
    """A round token of ``kind`` (menu, chopsticks or pudding) of diameter ``d`` px."""
    cx, cy = centre
    pg.draw.circle(surf, TOKEN_FILL[kind], (cx, cy), d / 2)
    pg.draw.circle(surf, _INK, (cx, cy), d / 2, 1)
    _draw_glyph(pg, surf, Icon(kind), cx, cy, d * 0.72)


def _draw_point_chip(p: _Painter, value: int, centre, d: int, role: str, index: int) -> None:
    """A scoring token worth ``value`` as a coloured disc with its value on it."""
    p.pg.draw.circle(p.surface, POINT_FILL.get(value, POINT_FILL[1]), centre, d / 2)
    p.pg.draw.circle(p.surface, _INK, centre, d / 2, 1)
    p.text(str(value), d * 0.68, _INK, role, index, center=centre)


# ---------------------------------------------------------------------------------------------
# Scoreboard


def _strip_width(n: int, icon: int, gap: int) -> int:
    return max(n, 1) * (icon + gap) + gap


def _dice_layout(view: RollScoreboardView, area_w: int, row_h: int, H: int) -> tuple[int, int, bool]:
    """(icon px, gap px, two_lines): the largest dice that fit every row, belt and tray side by
    side or (tall rows) belt above tray."""
    nb = max((len(s.belt) for s in view.seats), default=0)
    nt = max((len(s.tray) for s in view.seats), default=0)
    cap = int(H * 0.13)

    def fit(lines: int, slots: int, seps: int) -> int:
        best = 0
        for icon in range(6, cap + 1):
            gap = max(2, icon // 8)
            tall = lines * (icon + 2 * gap) + (lines - 1) * gap
            wide = slots * (icon + gap) + seps * (2 * gap) + gap * 3
            if tall <= row_h - 4 and wide <= area_w:
                best = icon
        return best

    one = fit(1, max(nb, 1) + max(nt, 1), 2)
    two = fit(2, max(nb, nt, 1), 1)
    icon, two_lines = (two, True) if two > one * 1.15 else (one, False)
    return max(icon, 6), max(2, max(icon, 6) // 8), two_lines


def _draw_strip(p: _Painter, dice: Sequence[str], x: int, cy: int, icon: int, gap: int, slots: int,
                fill, edge, edge_w: int, dim: bool = False) -> int:
    """A belt or tray: a strip of ``slots`` places with the dice on it from the left; returns its right x."""
    w = _strip_width(slots, icon, gap)
    h = icon + 2 * gap
    strip = p.pg.Rect(x, cy - h // 2, w, h)
    p.rect(fill, strip, radius=max(2, gap * 2))
    p.rect(edge, strip, radius=max(2, gap * 2), width=edge_w)
    for k, label in enumerate(dice):
        draw_die_icon(p.surface, label, (x + gap + k * (icon + gap), cy - icon // 2, icon, icon), dim)
    return strip.right


_TOKEN_KINDS = ("menu", "chopsticks", "pudding")


def _token_layout(h: int, H: int) -> tuple[int, float, int, int]:
    """(token px, count px, lines, columns) for the three tokens of a seat in a row ``h`` px tall:
    one per line when the row is tall enough, else 2 lines (menu, chopsticks / pudding), else 1."""
    px = max(H * 0.05, min(h * 0.3, H * 0.062))
    d = int(max(px, min(h * 0.3, H * 0.07)))
    line = max(d, font(px).get_linesize()) + 2
    lines = 3 if h >= 3 * line + 4 else 2 if h >= 2 * line + 2 else 1
    return d, px, lines, -(-3 // lines)


def _tokens_width(h: int, H: int) -> int:
    d, px, _, cols = _token_layout(h, H)
    return cols * (d + 4 + font(px).size("00")[0]) + (cols - 1) * max(3, d // 3)


def _draw_tokens(p: _Painter, seat, x: int, cy: int, h: int, index: int) -> None:
    """The seat's menu, chopsticks and pudding tokens (each a token and its count) from ``x``."""
    d, px, lines, cols = _token_layout(h, p.h)
    cell = d + 4 + font(px).size("00")[0] + max(3, d // 3)
    line = max(d, font(px).get_linesize()) + 2
    counts = (seat.menu, seat.chopsticks, seat.puddings)
    for k, (kind, n) in enumerate(zip(_TOKEN_KINDS, counts)):
        row, col = divmod(k, cols)
        ly = cy + int((row - (lines - 1) / 2) * line)
        x0 = x + col * cell
        _draw_token(p.pg, p.surface, kind, (x0 + d / 2, ly), d)
        p.text(str(n), px, TEXT if n else DIM, f"tokens_{kind}", index, midleft=(x0 + d + 4, ly))


def _draw_roll_scoreboard(p: _Painter, v: RollScoreboardView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    header_h = _header(p, v.title, v.note)
    status_top = _draw_status(p, drawable(v.status), v.status_kind, H * 0.062, pad)
    n = max(1, len(v.seats))
    rh = (status_top - header_h) / n
    accent_w = accent_width(H)
    name_w = round(W * 0.22)
    total_w = round(W * 0.1)
    tok_w = _tokens_width(int(rh), H)
    area_x = name_w + pad // 2
    area_w = W - pad - total_w - pad - tok_w - pad - area_x
    icon, gap, two_lines = _dice_layout(v, area_w, int(rh), H)
    belt_slots = max([len(s.belt) for s in v.seats] + [1])
    tray_slots = max([len(s.tray) for s in v.seats] + [1])
    for i, s in enumerate(v.seats):
        y0, y1 = header_h + round(i * rh), header_h + round((i + 1) * rh)
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(_seat_colour(s.seat, i), (0, y0, accent_w, h))
        if s.active:
            p.rect(GOLD, (0, y0, W, h), width=max(2, round(H * 0.008)))
        # the name (a gold ▶ before it when the table waits for this seat), the rounds under it
        nx = accent_w + pad
        if s.active or s.waiting:
            tri = max(6, H * 0.04)
            _triangle(p, (nx + tri / 2, cy if not s.round_points else cy - h * 0.18), tri, "right", GOLD)
            nx += int(tri + pad // 2)
        col_w = name_w - nx - pad // 2
        name_px = min(h * 0.42, H * 0.08)
        ink = GOLD if (s.active or s.waiting) else TEXT
        if s.round_points:
            at = (nx, cy + h * 0.04)
            _text(p, s.name, name_px, ink, "seat_name", i, max_w=col_w, min_px=H * 0.047, bottomleft=at)
            sub_px = max(H * 0.05, min(h * 0.32, H * 0.058))
            _draw_round_chips(p, s.round_points, accent_w + pad, cy + int(h * 0.06), name_w - accent_w - pad * 2,
                              sub_px, i)
        else:
            _text(p, s.name, name_px, ink, "seat_name", i, max_w=col_w, min_px=H * 0.047, midleft=(nx, cy))
        # belt and tray
        edge, edge_w = (RED_EDGE, max(2, round(H * 0.01))) if s.red else (BELT_EDGE, 1)
        if two_lines:
            line_h = icon + 2 * gap
            top = cy - line_h - gap // 2
            _draw_strip(p, s.belt, area_x, top + line_h // 2, icon, gap, belt_slots, BELT_FILL, edge, edge_w,
                        v.rolling)
            _draw_strip(p, s.tray, area_x, cy + gap // 2 + line_h // 2, icon, gap, tray_slots, TRAY_FILL,
                        TRAY_EDGE, 1)
        else:
            right = _draw_strip(p, s.belt, area_x, cy, icon, gap, belt_slots, BELT_FILL, edge, edge_w, v.rolling)
            _draw_strip(p, s.tray, right + 2 * gap, cy, icon, gap, tray_slots, TRAY_FILL, TRAY_EDGE, 1)
        # tokens and the total
        _draw_tokens(p, s, W - pad - total_w - pad - tok_w, cy, h, i)
        total_px = min(h * 0.7, H * 0.13)
        _text(p, str(s.total), total_px, GOLD, "total", i, max_w=total_w, midright=(W - pad, cy))
        if i:
            p.pg.draw.line(p.surface, BG, (0, y0), (W, y0), 1)


# ---------------------------------------------------------------------------------------------
# Round summary with the payout


def _chips(tokens: Tokens) -> list[tuple[int, int]]:
    """[(value, count)] of the scoring tokens in ``tokens``, largest first."""
    counts = ((20, tokens.points_20), (10, tokens.points_10), (5, tokens.points_5), (1, tokens.points_1))
    return [(v, n) for v, n in counts if n]


def _draw_payout(p: _Painter, seat, area, index: int) -> None:
    """The scoring tokens a seat takes (gold "take"), then gives back ("back"), as discs with
    "×n", flowing over the lines of ``area`` (x, y, w, h)."""
    x0, y0, w, h = area
    H = p.h
    d = int(max(H * 0.064, min(h * 0.42, H * 0.075)))
    px = max(H * 0.05, d * 0.7)
    gap = max(2, d // 6)
    groups = [("take", GOLD, _chips(seat.taken)), ("back", DIM, _chips(seat.returned))]
    groups = [g for g in groups if g[2]]
    if not groups:
        p.text("no tokens", px, DIM, "payout", index, max_w=w, midleft=(x0, y0 + h // 2))
        return
    line_h = d + gap
    lines = max(1, min(len(groups) + 1, int(h // line_h)))
    y = y0 + (h - min(lines, len(groups)) * line_h) // 2 + line_h // 2
    x, line = x0, 0
    for word, colour, chips in groups:
        if x != x0:
            x, y, line = x0, y + line_h, line + 1
        r = p.text(word, px, colour, "payout", index, midleft=(x, y))
        x = r.right + gap
        for value, count in chips:
            need = d + (font(px).size(f"×{count}")[0] + gap if count > 1 else 0)
            if x + need > x0 + w:
                if line + 1 >= lines:
                    p.text("…", px, TEXT, "payout", index, midleft=(min(x, x0 + w - font(px).size("…")[0]), y))
                    break
                x, y, line = x0 + r.w + gap, y + line_h, line + 1
            _draw_point_chip(p, value, (x + d // 2, y), d, "payout_chip", index)
            x += d + 1
            if count > 1:
                x = p.text(f"×{count}", px, TEXT, "payout_count", index, midleft=(x, y)).right
            x += gap
    if seat.short:
        p.text(f"{seat.short} short", px, STATUS_BG["warn"], "payout", index, midright=(x0 + w, y0 + h - px // 2))


def _headed(line):
    """A breakdown line whose text starts with its category but has no "category:" head
    ("wasabi with no nigiri on it → 0") reworded "wasabi: with no nigiri on it → 0", so the
    packed form reads "wasabi 0" (``play_screens._short`` keeps what comes before ":")."""
    head = line.text.split("→")[0]
    if ":" in head or not line.text.startswith(line.category + " "):
        return line
    return replace(line, text=f"{line.category}:{line.text[len(line.category):]}")


def _draw_roll_summary(p: _Painter, v: RollRoundSummaryView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    if v.title:
        title = v.title
    else:
        title = f"Round {v.round} of {v.rounds} — points and tokens"
    header_h = _header(p, title)
    n = max(1, len(v.seats))
    rh = (H - header_h) / n
    accent_w = accent_width(H)
    name_w = round(W * 0.2)
    pts_w = round(W * 0.1)
    pay_w = round(W * 0.3)
    for i, s in enumerate(v.seats):
        y0, y1 = header_h + round(i * rh), header_h + round((i + 1) * rh)
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(_seat_colour(s.seat, i), (0, y0, accent_w, h))
        name_px = min(h * 0.38, H * 0.075)
        small_px = max(H * 0.05, min(h * 0.3, H * 0.052))
        nx = accent_w + pad
        col = name_w - nx - pad // 2
        _text(p, s.name, name_px, TEXT, "seat_name", i, max_w=col, min_px=H * 0.047, bottomleft=(nx, cy + h * 0.04))
        _text(p, f"total {s.total}", small_px, DIM, "total", i, max_w=col, topleft=(nx, cy + int(h * 0.06)))
        pts_px = min(h * 0.6, H * 0.12)
        _text(p, _signed(s.points), pts_px, GOLD, "points", i, max_w=pts_w, midright=(W - pad, cy))
        pay_x = W - pad - pts_w - pad - pay_w
        _draw_payout(p, s, (pay_x, y0 + 2, pay_w, h - 4), i)
        bx = name_w + pad // 2
        bw = pay_x - pad - bx
        line_px = max(H * 0.05, min(h * 0.28, H * 0.056))
        _draw_breakdown(p, [_headed(ln) for ln in s.lines], (bx, y0 + 2, bw, h - 4), line_px, i)
        if i:
            p.pg.draw.line(p.surface, BG, (0, y0), (W, y0), 1)


# ---------------------------------------------------------------------------------------------
# Final screen


def _ranks(rows) -> list[int]:
    """1-based ranks; rows equal on total and pudding tokens share a rank (the tie-break)."""
    ranks: list[int] = []
    for k, row in enumerate(rows):
        same = k and (rows[k - 1].total, rows[k - 1].puddings) == (row.total, row.puddings)
        ranks.append(ranks[-1] if same else k + 1)
    return ranks


def _winner_line(view: RollFinalView) -> str:
    if not view.winners:
        return view.title
    if len(view.winners) == 1:
        return f"{view.winners[0]} wins!"
    return ", ".join(view.winners[:-1]) + " and " + view.winners[-1] + " share the win!"


def _draw_roll_final(p: _Painter, v: RollFinalView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    title_px = H * 0.1
    header_h = int(title_px * 1.5)
    p.rect(HEADER_BG, (0, 0, W, header_h))
    small_px = H * 0.052
    p.text(v.title, small_px, DIM, "title", max_w=int(W * 0.28), midleft=(pad, header_h // 2))
    line, max_w = _winner_line(v), int(W * 0.7) - pad
    smallest = font(title_px * 0.7)
    if len(v.winners) == 1 and smallest.size(line)[0] > max_w:  # cut the name, keep "wins!"
        line = _ellipsize(smallest, v.winners[0], max_w - smallest.size(" wins!")[0]) + " wins!"
    p.text(line, title_px, GOLD, "winners", max_w=max_w, midright=(W - pad, header_h // 2))
    bottom = H
    if v.tie_break:
        text = f"{v.tie_break} ({v.section})" if v.section else v.tie_break
        bottom = _draw_status(p, drawable(text), "info", H * 0.06, pad)
    n_rounds = max((len(r.round_points) for r in v.rows), default=0)
    accent_w = accent_width(H)
    rank_w = round(W * 0.06)
    name_w = round(W * 0.25)
    total_w = round(W * 0.12)
    left_w = round(W * 0.125)
    pud_w = round(W * 0.19)
    rounds_x = accent_w + rank_w + name_w
    rounds_w = W - pad - total_w - left_w - pud_w - rounds_x
    col_w = rounds_w / max(1, n_rounds)
    pud_x = W - pad - total_w - left_w - pud_w
    pud_cx = pud_x + pud_w // 2
    left_cx = W - pad - total_w - left_w // 2
    head_h = int(small_px * 1.5)
    hy = header_h + head_h // 2
    p.text("Player", small_px, DIM, "head", midleft=(accent_w + rank_w, hy))
    for k in range(n_rounds):
        p.text(f"R{k + 1}", small_px, DIM, "head", center=(int(rounds_x + (k + 0.5) * col_w), hy))
    p.text("Pudding", small_px, DIM, "head", max_w=pud_w, min_px=small_px, center=(pud_cx, hy))
    p.text("Unused", small_px, DIM, "head", max_w=left_w, min_px=small_px, center=(left_cx, hy))
    p.text("Total", small_px, DIM, "head", midright=(W - pad, hy))
    top = header_h + head_h
    n = max(1, len(v.rows))
    rh = min((bottom - top) / n, H * 0.22)
    winners = set(v.winners)
    for i, (row, rank) in enumerate(zip(v.rows, _ranks(v.rows))):
        y0 = top + round(i * rh)
        h = top + round((i + 1) * rh) - y0
        cy = y0 + h // 2
        won = row.name in winners
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        if won:
            p.rect(GOLD, (0, y0, W, h), width=max(2, round(H * 0.008)))
        p.rect(_seat_colour(row.seat, i), (0, y0, accent_w, h))
        px = max(H * 0.05, min(h * 0.5, H * 0.085))
        p.text(str(rank), px, GOLD if won else DIM, "rank", i, center=(accent_w + rank_w // 2, cy))
        _text(p, row.name, px, TEXT, "row_name", i, max_w=name_w - pad, min_px=max(H * 0.047, px * 0.75),
              midleft=(accent_w + rank_w, cy))
        for k, pts in enumerate(row.round_points):
            p.text(str(pts), px * 0.9, TEXT, "round_points", i, center=(int(rounds_x + (k + 0.5) * col_w), cy))
        # pudding points, then the pudding tokens held (the tie-break) as a token and ×n
        d = int(min(h * 0.6, H * 0.075))
        r = p.text(_signed(row.pudding_points), px * 0.9, TEXT, "pudding_points", i,
                   midright=(pud_x + int(pud_w * 0.42), cy))
        _draw_token(p.pg, p.surface, "pudding", (r.right + 3 + d / 2, cy), d)
        colour = TEXT if row.puddings else DIM
        x = r.right + 5 + d
        p.text(f"×{row.puddings}", px * 0.8, colour, "puddings", i, max_w=pud_x + pud_w - x,
               min_px=max(H * 0.047, px * 0.6), midleft=(x, cy))
        p.text(_signed(row.leftover_points), px * 0.9, TEXT, "leftover_points", i, center=(left_cx, cy))
        total_px = min(h * 0.75, H * 0.13)
        p.text(str(row.total), total_px, GOLD, "total", i, max_w=total_w, midright=(W - pad, cy))


# ---------------------------------------------------------------------------------------------
# Picker: a die's face, or an answer


def _draw_roll_picker(p: _Painter, v: RollPickerView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    accent_w = accent_width(H)
    if v.answers:
        header_h = _header(p, f"{v.player}: a question")
    else:
        header_h = _header(p, v.question)
    bottom = _draw_hint(p, v.hint)
    y = header_h + pad // 2
    if v.answers:
        q_px = H * 0.068
        p.rect(_seat_colour(v.seat, 0), (pad, y, accent_w, font(q_px).get_linesize()))
        y = _paragraph(p, v.question, q_px, TEXT, "question", 2 * pad + accent_w, y, W - 3 * pad - accent_w, 3)
        _draw_answers(p, v, y + pad // 2, bottom - pad // 2)
        return
    name_px = H * 0.068
    nh = font(name_px).get_linesize()
    p.rect(_seat_colour(v.seat, 0), (pad, y, accent_w, nh))
    _text(p, f"{v.player}'s die", name_px, TEXT, "player", max_w=W - 3 * pad - accent_w,
          topleft=(2 * pad + accent_w, y))
    top = y + nh + pad // 2
    x0 = pad
    if v.crop is not None:  # what the camera saw, beside the choices; no wider than tall (a die is square)
        box = min(int(W * 0.3), bottom - top - pad)
        x0 = draw_crop(p, v.crop, pad, top, box, bottom - top - pad) + pad
    if not v.candidates:
        _text(p, "no face fits here", name_px, DIM, "choice", center=((x0 + W) // 2, (top + bottom) // 2))
        return
    n = len(v.candidates)
    sel = v.selected % n
    choice_px = H * 0.072
    choice_h = font(choice_px).get_linesize()
    pos_px = H * 0.05
    area_h = bottom - top - choice_h - font(pos_px).get_linesize() - pad
    big = int(min(area_h * 0.86, H * 0.36, (W - x0) * 0.4))
    small = int(big * 0.62)
    cx, cy = (x0 + W) // 2, top + area_h // 2
    tri, gap = H * 0.06, pad * 2
    room = (W - x0 - big) // 2 - gap - int(tri) - pad
    per_side = max(0, min((n - 1) // 2, room // (small + gap)))
    for k in range(1, per_side + 1):
        for sign in (-1, 1):
            label = v.candidates[(sel + sign * k) % n]
            x = cx + sign * (big // 2 + gap + int(tri) + (k - 1) * (small + gap) + small // 2)
            draw_die_icon(p.surface, label, (x - small // 2, cy - small // 2, small, small), dim=True)
    sel_rect = p.pg.Rect(cx - big // 2, cy - big // 2, big, big)
    p.rect(GOLD, sel_rect.inflate(8, 8), radius=max(3, big // 6))
    draw_die_icon(p.surface, v.candidates[sel], sel_rect)
    if n > 1:
        _triangle(p, (sel_rect.left - gap // 2 - tri / 2, cy), tri, "left", GOLD)
        _triangle(p, (sel_rect.right + gap // 2 + tri / 2, cy), tri, "right", GOLD)
    ty = top + area_h + pad // 2
    try:
        title = face_title(v.candidates[sel])
    except ValueError:
        title = v.candidates[sel]
    _text(p, title, choice_px, GOLD, "choice", max_w=W - x0 - pad, midtop=(cx, ty))
    p.text(f"{sel + 1} of {n}", pos_px, DIM, "position", midtop=(cx, ty + choice_h))


def _draw_answers(p: _Painter, v: RollPickerView, top: int, bottom: int) -> None:
    """The answers as a list, the selected one filled gold with ◀ ▶ beside it."""
    W, H, pad = p.w, p.h, pad_px(p.h)
    n = len(v.candidates)
    if not n:
        _text(p, "no answer fits", H * 0.068, DIM, "choice", center=(W // 2, (top + bottom) // 2))
        return
    sel = v.selected % n
    rh = min((bottom - top) / n, H * 0.15)
    y_start = top + max(0, int((bottom - top - rh * n) / 2))
    tri = H * 0.05
    for i, answer in enumerate(v.candidates):
        y0 = y_start + round(i * rh)
        h = round(rh) - 4
        cy = y0 + h // 2
        box = p.pg.Rect(3 * pad + int(tri), y0, W - 6 * pad - 2 * int(tri), h)
        current = i == sel
        p.rect(GOLD if current else ROW_BG[i % 2], box, radius=max(3, h // 4))
        px = max(H * 0.05, min(h * 0.55, H * 0.07))
        _text(p, answer, px, BG if current else DIM, "choice" if current else "answer", i, max_w=box.w - 2 * pad,
              min_px=H * 0.05, center=box.center)
        if current and n > 1:
            _triangle(p, (box.left - pad - tri / 2, cy), tri, "left", GOLD)
            _triangle(p, (box.right + pad + tri / 2, cy), tri, "right", GOLD)


# ---------------------------------------------------------------------------------------------
# Undo confirmation


def _draw_roll_undo(p: _Painter, v: RollUndoView) -> None:
    W, H, pad = p.w, p.h, pad_px(p.h)
    header_h = _header(p, v.title, colour=STATUS_BG["warn"])
    bottom = _draw_hint(p, v.hint)
    y = header_h + pad
    y = _paragraph(p, v.question, H * 0.072, TEXT, "question", pad, y, W - 2 * pad, 2) + pad // 2
    if v.detail:
        y = _paragraph(p, v.detail, H * 0.055, DIM, "detail", pad, y, W - 2 * pad, 1) + pad // 2
    if not v.seats:
        return
    accent_w = accent_width(H)
    name_w = round(W * 0.22)
    line_px = H * 0.055
    line_h = font(line_px).get_linesize()
    room_w = W - pad - name_w
    indent = 2 * pad  # a wrapped action goes on indented, so each action starts at the margin
    wrapped = []
    for s in v.seats:
        lines: list[tuple[int, str]] = []
        for action in s.lines or ["nothing"]:
            parts = wrap_text(drawable(action), line_px, room_w - indent)
            lines += [(0 if k == 0 else indent, part) for k, part in enumerate(parts)]
        wrapped.append(lines)
    # a roll shows its dice when they fit across the row (icons at most 9 % of the height)
    dice_x = font(line_px).size("rolled")[0] + pad
    as_dice = [s.rolled is not None and dice_x + len(s.rolled) * (int(H * 0.09) + max(2, int(H * 0.09) // 8))
               <= room_w for s in v.seats]
    # each action on its own lines when they all fit; else each seat's actions run on, cut to fit
    need = [int(H * 0.1) if d else len(w) * line_h for d, w in zip(as_dice, wrapped)]
    span = bottom - pad // 2 - y
    fits = sum(n + pad for n in need) <= span
    heights = [n + pad for n in need] if fits else [span / len(v.seats)] * len(v.seats)
    top = float(y)
    for i, (s, h_f) in enumerate(zip(v.seats, heights)):
        y0, y1 = round(top), round(top + min(h_f, H * 0.2) if not fits else top + h_f)
        top += h_f
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(_seat_colour(s.seat, i), (0, y0, accent_w, h))
        name_px = max(H * 0.05, min(h * 0.5, H * 0.068))
        _text(p, s.name, name_px, TEXT, "seat_name", i, max_w=name_w - accent_w - 2 * pad, min_px=H * 0.05,
              midleft=(accent_w + pad, cy))
        x = name_w
        if as_dice[i]:  # a roll: its dice as icons, easier to check against the table than words
            icon = int(min(h * 0.8, H * 0.09))
            gap = max(2, icon // 8)
            p.text("rolled", line_px, DIM, "seat_actions", i, midleft=(x, cy))
            for k, label in enumerate(s.rolled or ()):
                draw_die_icon(p.surface, label, (x + dice_x + k * (icon + gap), cy - icon // 2, icon, icon))
            continue
        if fits:
            for k, (dx, ln) in enumerate(wrapped[i]):
                at = (x + dx, y0 + pad // 2 + k * line_h)
                p.text(ln, line_px, TEXT, "seat_actions", i, max_w=room_w - dx, min_px=line_px, topleft=at)
        else:
            lines = max(1, min(2, int(h // line_h)))
            _paragraph(p, "; ".join(s.lines), line_px, TEXT, "seat_actions", x, cy - lines * line_h // 2, room_w,
                       lines)


# ---------------------------------------------------------------------------------------------

#: The drawer of each Sushi Roll view (``play_screens.render_play`` asks the view's class).
DRAW = {
    RollScoreboardView: _draw_roll_scoreboard,
    RollRoundSummaryView: _draw_roll_summary,
    RollFinalView: _draw_roll_final,
    RollPickerView: _draw_roll_picker,
    RollUndoView: _draw_roll_undo,
}
