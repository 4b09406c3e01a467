"""The play loop's screens (issue #9 §4): pygame renderers for the view-models of ``play_views``.

``render_play(view, size, status)`` draws any of: ``SetupView``, ``WaitingView``, ``RefusalView``,
``PickerView``, ``ConfirmView``, ``RoundSummaryView`` (:mod:`companion.app.play_views`, re-exported
here) and the scoreboard's ``ScoreboardView`` and ``FinalView`` (:mod:`companion.app.screens`),
with the devices' ``StatusBar`` as a strip at the bottom when one is given (the screen is then
laid out in the height above it). Layout follows ``screens.py``: every size
comes from the screen height (tested at 480×320 and 800×480), the default pygame font, the same
colours and card icons, and every text is recorded as a ``TextBox`` for layout tests. The
default font has no arrows or check marks, so ◀ ▶ and ✓ are drawn as shapes and "→" in the rules'
breakdown text is shown as "»" (see :func:`drawable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from companion.app.screens import (
    BG,
    DIM,
    GOLD,
    HEADER_BG,
    ROW_BG,
    SEAT_COLOURS,
    STATUS_BG,
    TEXT,
    FinalView,
    ScoreboardView,
    TextBox,
    _draw_final,
    _draw_scoreboard,
    _draw_status,
    _ellipsize,
    _Painter,
    _status_lines,
    accent_width,
    pad_px,
    draw_card_icon,
    font,
    wrap_text,
)
from companion.app.play_views import (
    ConfirmView,
    Hint,
    PickerView,
    RefusalView,
    RoundSummaryView,
    SetupView,
    StatusBar,
    WaitingView,
    card_title,
)
from companion.rules.wording import join_names

if TYPE_CHECKING:
    import pygame

#: Colours of the device-state levels (dot and word) in the status bar, one per ``LEVELS``.
LEVEL_COLOURS = {"ok": (96, 200, 120), "warn": (255, 190, 60), "error": (255, 96, 96)}

# ---------------------------------------------------------------------------------------------
# Text helpers

#: Characters the default font (freesansbold) lacks, and what is drawn instead.
_SUBSTITUTES = {"→": "»", "←": "«", "✓": "", "✔": "", "−": "-", "▶": ">", "◀": "<"}


def drawable(text: str) -> str:
    """``text`` with the characters the default font cannot draw replaced (→ becomes »)."""
    return "".join(_SUBSTITUTES.get(ch, ch) for ch in text)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _seat_colour(seat: int | None, index: int) -> tuple[int, int, int]:
    return SEAT_COLOURS[(index if seat is None else seat) % len(SEAT_COLOURS)]


def _mix(a, b, t: float) -> tuple[int, int, int]:
    return tuple(int(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def _text(p: _Painter, text: str, *args, **kwargs):
    return p.text(drawable(text), *args, **kwargs)


def _paragraph(p: _Painter, text: str, px: float, colour, role: str, x: int, y: int, max_w: int, max_lines: int) -> int:
    """Wrapped text from (x, y), at most ``max_lines`` (the last cut with "…"); returns the bottom y."""
    if max_lines < 1 or not text:
        return y
    line_h = font(px).get_linesize()
    lines = _status_lines(p, drawable(text), px, max_w, max_lines)
    for k, line in enumerate(lines):
        p.text(line, px, colour, role, k, max_w=max_w, min_px=px, topleft=(x, y + k * line_h))
    return y + len(lines) * line_h


# ---------------------------------------------------------------------------------------------
# Shapes: triangles, keycaps, the header, the hint bar, the status bar


def _pad(p: _Painter) -> int:
    return pad_px(p.h)


def _triangle(p: _Painter, centre, size: float, direction: str, colour) -> None:
    """A filled triangle of height ``size`` px pointing "left", "right", "up" or "down"."""
    cx, cy = centre
    s = size / 2
    pts = {
        "left": [(cx - s, cy), (cx + s, cy - s * 1.1), (cx + s, cy + s * 1.1)],
        "right": [(cx + s, cy), (cx - s, cy - s * 1.1), (cx - s, cy + s * 1.1)],
        "up": [(cx, cy - s), (cx - s * 1.1, cy + s), (cx + s * 1.1, cy + s)],
        "down": [(cx, cy + s), (cx - s * 1.1, cy - s), (cx + s * 1.1, cy - s)],
    }[direction]
    p.pg.draw.polygon(p.surface, colour, pts)


def _check(p: _Painter, rect, colour) -> None:
    """A check mark inside ``rect`` (x, y, w, h)."""
    x, y, w, h = rect
    lw = max(2, int(h * 0.16))
    pts = [(x + w * 0.1, y + h * 0.55), (x + w * 0.4, y + h * 0.85), (x + w * 0.92, y + h * 0.15)]
    p.pg.draw.lines(p.surface, colour, False, pts, lw)


def _header(p: _Painter, title: str, right: str = "", colour=HEADER_BG, right_colour=DIM) -> int:
    """The title band at the top (optionally a small right-aligned note); returns its height."""
    pad = _pad(p)
    title_px = p.h * 0.085
    header_h = int(title_px * 1.5)
    p.rect(colour, (0, 0, p.w, header_h))
    right_w = 0
    if right:
        at = (p.w - pad, header_h // 2)
        r = _text(p, right, p.h * 0.058, right_colour, "header_right", max_w=int(p.w * 0.4), midright=at)
        right_w = r.w + 2 * pad
    _text(p, title, title_px, TEXT, "title", max_w=p.w - 2 * pad - right_w, midleft=(pad, header_h // 2))
    return header_h


def _key_width(key: str, px: float) -> int:
    arrows = key.count("◀") + key.count("▶")
    if arrows and len(key) == arrows:
        return int(arrows * px * 0.8 + (arrows + 1) * px * 0.3)
    return font(px).size(key)[0] + int(px * 0.7)


def _draw_key(p: _Painter, key: str, x: int, cy: int, px: float) -> int:
    """One button as a keycap at x (left), centred on cy; returns its right x."""
    w = _key_width(key, px)
    h = int(px * 1.25)
    cap = p.pg.Rect(x, cy - h // 2, w, h)
    p.rect((58, 68, 88), cap, radius=max(2, int(px * 0.25)))
    p.rect(DIM, cap, radius=max(2, int(px * 0.25)), width=1)
    arrows = [ch for ch in key if ch in "◀▶"]
    if arrows and len(arrows) == len(key):
        step = px * 0.8 + px * 0.3
        for k, ch in enumerate(arrows):
            centre = (x + px * 0.3 + px * 0.4 + k * step, cy)
            _triangle(p, centre, px * 0.62, "left" if ch == "◀" else "right", TEXT)
        p.boxes.append(TextBox("hint_key", key, (cap.x, cap.y, cap.w, cap.h)))
    else:
        p.text(key, px, TEXT, "hint_key", center=cap.center)
    return cap.right


def _draw_hint(p: _Painter, hint: Hint) -> int:
    """The button hint strip at the bottom of the area; returns its top y (``p.h`` if no hint)."""
    if not hint:
        return p.h
    pad = _pad(p)
    px = p.h * 0.058
    gap = lambda q: int(q * 0.35)  # noqa: E731 - key to its word
    sep = lambda q: int(q * 1.1)  # noqa: E731 - between hint items

    def need(q: float) -> int:
        return sum(_key_width(k, q) + gap(q) + font(q).size(a)[0] for k, a in hint) + sep(q) * (len(hint) - 1)

    while need(px) > p.w - 2 * pad and px > p.h * 0.045:
        px -= 0.5
    h = int(px * 1.9)
    top = p.h - h
    p.rect(HEADER_BG, (0, top, p.w, h))
    cy = top + h // 2
    x = max(pad, (p.w - need(px)) // 2)
    for k, (key, action) in enumerate(hint):
        x = _draw_key(p, key, x, cy, px) + gap(px)
        r = p.text(action, px, DIM, "hint", k, max_w=max(8, p.w - pad - x), midleft=(x, cy))
        x = r.right + sep(px)
    return top


def status_bar_height(size: tuple[int, int]) -> int:
    """Height in px of the status bar on a screen of ``size`` (width, height)."""
    return int(size[1] * 0.052 * 1.6)


def _draw_status_bar(p: _Painter, bar: StatusBar, top: int) -> None:
    """The devices strip from ``top`` to the bottom of the surface.

    Each item is a coloured dot, the device and its word. When they do not all fit, the devices
    that are ok drop their word (the green dot says it), then long words are cut with "…".
    """
    h = p.h - top
    pad = _pad(p)
    p.rect((24, 28, 36), (0, top, p.w, h))
    p.pg.draw.line(p.surface, (60, 70, 90), (0, top), (p.w, top), 1)
    if not bar.items:
        return
    room = p.w - 2 * pad
    n = len(bar.items)
    # all words at full size, then 90 %; then ok devices without their word; then words cut
    for compact, scale in ((False, 1.0), (False, 0.9), (True, 1.0), (True, 0.9)):
        px = h / 1.6 * scale
        f = font(px)
        dot = max(4, int(px * 0.5))
        space = f.size(" ")[0]
        min_gap = space * 2
        show_word = [not compact or d.level != "ok" for d in bar.items]
        texts = [f"{d.device} {d.word}" if w else d.device for d, w in zip(bar.items, show_word)]
        widths = [dot + space + f.size(t)[0] for t in texts]
        if sum(widths) + min_gap * (n - 1) <= room:
            break
    else:  # share by need, cut the words
        share = (room - min_gap * (n - 1)) / sum(widths)
        widths = [int(w * share) for w in widths]
    gap = (room - sum(widths)) / (n - 1) if n > 1 else 0
    cy = top + h // 2
    x = float(pad)
    for i, (d, w, word) in enumerate(zip(bar.items, widths, show_word)):
        colour = LEVEL_COLOURS[d.level]
        x0 = int(x)
        if d.level == "error":
            p.rect(STATUS_BG["error"], (x0 - space, top + 2, w + 2 * space, h - 4), radius=3)
        p.pg.draw.circle(p.surface, colour, (x0 + dot // 2, cy), dot // 2)
        tx = x0 + dot + space
        right = x0 + w
        ink = DIM if d.level != "error" else TEXT
        r = _text(p, d.device, px, ink, "status_device", i, max_w=max(8, right - tx), min_px=px, midleft=(tx, cy))
        if word:
            word_colour = TEXT if d.level == "error" else colour
            wx = r.right + space
            _text(p, d.word, px, word_colour, "status_word", i, max_w=max(8, right - wx), min_px=px, midleft=(wx, cy))
        x += w + gap


# ---------------------------------------------------------------------------------------------
# Setup menu


def _draw_setup(p: _Painter, v: SetupView) -> None:
    W, H, pad = p.w, p.h, _pad(p)
    header_h = _header(p, v.title, v.step_text)
    bottom = _draw_hint(p, v.hint)
    prompt_px = H * 0.068
    top = header_h + pad // 2
    if v.prompt:
        _text(p, v.prompt, prompt_px, GOLD, "prompt", max_w=W - 2 * pad, topleft=(pad, top))
        top += font(prompt_px).get_linesize() + pad // 2
    if not v.items:
        return
    n = len(v.items)
    sel = min(max(v.selected, 0), n - 1)
    n_vis = max(1, min(n, int((bottom - top) // (H * 0.125))))
    row_h = min((bottom - top) / n_vis, H * 0.16)
    first = min(max(0, sel + 2 - n_vis), n - n_vis)  # keep the next field in sight too
    first = min(first, sel) if n_vis > 1 else sel
    sb_w = max(3, round(H * 0.012)) if n_vis < n else 0
    accent_w = accent_width(H)
    row_w = W - sb_w - (2 if sb_w else 0)
    for k in range(n_vis):
        i = first + k
        item = v.items[i]
        y0, y1 = top + round(k * row_h), top + round((k + 1) * row_h)
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        current = i == sel
        px = min(h * 0.48, H * 0.075)
        if item.kind == "button":
            fill = GOLD if current else ROW_BG[i % 2]
            p.rect(fill, (pad, y0 + 2, row_w - 2 * pad, h - 4), radius=max(3, h // 5))
            ink = BG if current else DIM
            r = _text(p, item.label, px * 1.05, ink, "item_label", i, max_w=int(row_w * 0.35), midleft=(pad * 3, cy))
            if item.value:
                vx = r.right + pad * 2
                _text(p, item.value, px * 0.85, ink, "item_value", i, max_w=row_w - pad * 3 - vx, midleft=(vx, cy))
            continue
        p.rect((52, 64, 88) if current else ROW_BG[i % 2], (0, y0, row_w, h))
        if current:
            p.rect(GOLD, (0, y0, row_w, h), width=max(2, round(H * 0.007)))
        if item.seat is not None:
            p.rect(_seat_colour(item.seat, i), (0, y0, accent_w, h))
        lx = accent_w + pad
        label_colour = TEXT if current else DIM
        r = _text(p, item.label, px, label_colour, "item_label", i, max_w=int(row_w * 0.42), midleft=(lx, cy))
        right = row_w - pad
        value_colour = GOLD if current else TEXT if i < sel else DIM
        tri = px * 0.7
        if current:  # ◀ value ▶: the value changes with the arrows
            _triangle(p, (right - tri / 2, cy), tri, "right", GOLD)
            right -= int(tri + pad)
        left_limit = r.right + pad * 2 + (int(tri + pad) if current else 0)
        room = max(8, right - left_limit)
        vr = _text(p, item.value, px, value_colour, "item_value", i, max_w=room, midright=(right, cy))
        if current:
            _triangle(p, (vr.left - pad - tri / 2, cy), tri, "left", GOLD)
    if sb_w:  # a scrollbar: where the visible rows sit in the whole list
        span = bottom - top
        p.rect((40, 46, 58), (W - sb_w, top, sb_w, span))
        p.rect(DIM, (W - sb_w, top + round(span * first / n), sb_w, max(4, round(span * n_vis / n))))


# ---------------------------------------------------------------------------------------------
# Waiting for reveals


def _draw_waiting(p: _Painter, v: WaitingView) -> None:
    W, H, pad = p.w, p.h, _pad(p)
    done = sum(s.done for s in v.seats)
    header_h = _header(p, v.title, f"{done} of {len(v.seats)} revealed")
    bottom = _draw_status(p, v.status, v.status_kind, H * 0.062, pad)
    waiting = v.waiting
    head = f"Waiting for {join_names(waiting)}" if waiting else "Everyone has revealed"
    head_px = H * 0.075
    top = header_h + pad // 2
    _text(p, head, head_px, GOLD if waiting else TEXT, "waiting_head", max_w=W - 2 * pad, topleft=(pad, top))
    top += font(head_px).get_linesize() + pad // 2
    n = max(1, len(v.seats))
    rh = min((bottom - top) / n, H * 0.2)
    accent_w = accent_width(H)
    for i, s in enumerate(v.seats):
        y0, y1 = top + round(i * rh), top + round((i + 1) * rh)
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        colour = _seat_colour(s.seat, i)
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(colour if not s.done else _mix(colour, BG, 0.6), (0, y0, accent_w, h))
        px = min(h * 0.55, H * 0.085)
        state_px = min(h * 0.45, H * 0.065)
        state_w = int(W * 0.3)
        if s.done:
            ck = int(min(h * 0.6, state_px * 1.1))
            sr = p.text("revealed", state_px, DIM, "seat_state", i, midright=(W - pad, cy))
            _check(p, (sr.left - pad - ck, cy - ck // 2, ck, ck), LEVEL_COLOURS["ok"])
        else:
            sr = p.text("waiting", state_px, GOLD, "seat_state", i, midright=(W - pad, cy))
            _triangle(p, (sr.left - pad - state_px * 0.3, cy), state_px * 0.6, "left", GOLD)
        name_right = W - pad - state_w
        ink = DIM if s.done else TEXT
        room = name_right - accent_w - pad * 2
        nr = _text(p, s.name, px, ink, "seat_name", i, max_w=room, midleft=(accent_w + pad, cy))
        if s.note and name_right - nr.right > 3 * pad:
            room = name_right - nr.right - 2 * pad
            _text(p, s.note, state_px * 0.9, DIM, "seat_note", i, max_w=room, midleft=(nr.right + pad, cy))


# ---------------------------------------------------------------------------------------------
# Refusal


def _draw_refusal(p: _Painter, v: RefusalView) -> None:
    W, H, pad = p.w, p.h, _pad(p)
    header_h = _header(p, v.title, v.rule, colour=STATUS_BG["error"], right_colour=TEXT)
    small_px = H * 0.05
    foot_h = font(small_px).get_linesize() + pad
    if v.section:
        _text(p, v.section, small_px, DIM, "section", max_w=W - 2 * pad, bottomleft=(pad, H - pad // 2))
    else:
        foot_h = 0
    y = header_h + pad
    accent_w = accent_width(H)
    name_px = H * 0.1
    name_h = font(name_px).get_linesize()
    p.rect(_seat_colour(v.seat, 0), (pad, y, accent_w, name_h))
    _text(p, v.player, name_px, TEXT, "player", max_w=W - 3 * pad - accent_w, topleft=(pad * 2 + accent_w, y))
    y += name_h + pad // 2
    # the fix goes in a box at the bottom: it is what the table must do
    fix_px = H * 0.07
    fix_line = font(fix_px).get_linesize()
    label_px = H * 0.055
    fix_lines = min(2, len(wrap_text(drawable(v.fix), fix_px, W - 4 * pad)))
    box_h = font(label_px).get_linesize() + fix_lines * fix_line + pad
    box_top = H - foot_h - box_h - pad
    msg_px = H * 0.066
    msg_lines = max(1, int((box_top - pad - y) // font(msg_px).get_linesize()))
    _paragraph(p, v.message, msg_px, TEXT, "message", pad, y, W - 2 * pad, msg_lines)
    p.rect((40, 58, 84), (pad, box_top, W - 2 * pad, box_h), radius=max(3, int(H * 0.02)))
    _text(p, "What to do", label_px, GOLD, "fix_label", topleft=(pad * 2, box_top + pad // 2))
    fix_top = box_top + pad // 2 + font(label_px).get_linesize()
    _paragraph(p, v.fix, fix_px, TEXT, "fix", pad * 2, fix_top, W - 4 * pad, 2)


# ---------------------------------------------------------------------------------------------
# Card picker


def _crop_surface(pg, crop) -> "pygame.Surface":
    import numpy as np

    a = np.asarray(crop)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"the picker's crop must be an (H, W, 3) uint8 BGR image, got {a.shape} {a.dtype}")
    rgb = np.ascontiguousarray(a[:, :, ::-1])
    return pg.image.frombuffer(rgb.tobytes(), (a.shape[1], a.shape[0]), "RGB").copy()


def draw_crop(p: _Painter, crop, left: int, top: int, box_w: int, box_h: int) -> int:
    """Draw ``crop`` (the camera's view of what the picker asks about, an ``(H, W, 3) uint8 BGR``
    image) scaled to fit a ``box_w`` × ``box_h`` px box whose top-left corner is (``left``, ``top``),
    centred in it and outlined, so the player compares the sight with the choices beside it.
    Returns the box's right edge in px. Raises ``ValueError`` if ``crop`` is not such an image."""
    img = _crop_surface(p.pg, crop)
    s = min(box_w / img.get_width(), box_h / img.get_height())
    size = (max(1, int(img.get_width() * s)), max(1, int(img.get_height() * s)))
    scaled = p.pg.transform.smoothscale(img, size)
    rect = scaled.get_rect(center=(left + box_w // 2, top + box_h // 2))
    p.surface.blit(scaled, rect)
    p.rect(DIM, rect.inflate(2, 2), width=1)
    return left + box_w


def _draw_picker(p: _Painter, v: PickerView) -> None:
    W, H, pad = p.w, p.h, _pad(p)
    header_h = _header(p, v.question)
    bottom = _draw_hint(p, v.hint)
    name_px = H * 0.068
    y = header_h + pad // 2
    accent_w = accent_width(H)
    nh = font(name_px).get_linesize()
    p.rect(_seat_colour(v.seat, 0), (pad, y, accent_w, nh))
    at = (2 * pad + accent_w, y)
    _text(p, f"{v.player}'s card", name_px, TEXT, "player", max_w=W - 3 * pad - accent_w, topleft=at)
    top = y + nh + pad // 2
    x0 = pad
    if v.crop is not None:  # what the camera saw, beside the choices
        x0 = draw_crop(p, v.crop, pad, top, int(W * 0.3), bottom - top - pad) + pad
    if not v.candidates:
        _text(p, "no card fits here", name_px, DIM, "choice", center=((x0 + W) // 2, (top + bottom) // 2))
        return
    n = len(v.candidates)
    sel = v.selected % n
    choice_px = H * 0.078
    choice_h = font(choice_px).get_linesize()
    pos_px = H * 0.05
    area_h = bottom - top - choice_h - font(pos_px).get_linesize() - pad
    big_h = int(min(area_h * 0.92, H * 0.42))
    big_w = int(big_h * 0.72)
    small_h = int(big_h * 0.7)
    small_w = int(small_h * 0.72)
    cx = (x0 + W) // 2
    cy = top + area_h // 2
    tri = H * 0.06
    gap = pad * 2
    # neighbours either side, as many as fit, dimmed
    room = (W - x0 - big_w) // 2 - gap - int(tri) - pad
    per_side = max(0, min((n - 1) // 2, room // (small_w + gap)))
    for k in range(1, per_side + 1):
        for sign in (-1, 1):
            label = v.candidates[(sel + sign * k) % n]
            x = cx + sign * (big_w // 2 + gap + int(tri) + (k - 1) * (small_w + gap) + small_w // 2)
            tile = p.pg.Surface((small_w, small_h))
            tile.fill(BG)
            draw_card_icon(tile, label, (0, 0, small_w, small_h))
            tile.set_alpha(120)
            p.surface.blit(tile, (x - small_w // 2, cy - small_h // 2))
    sel_rect = p.pg.Rect(cx - big_w // 2, cy - big_h // 2, big_w, big_h)
    p.rect(GOLD, sel_rect.inflate(8, 8), radius=max(3, big_w // 8))
    draw_card_icon(p.surface, v.candidates[sel], sel_rect)
    if n > 1:
        _triangle(p, (sel_rect.left - gap // 2 - tri / 2, cy), tri, "left", GOLD)
        _triangle(p, (sel_rect.right + gap // 2 + tri / 2, cy), tri, "right", GOLD)
    ty = top + area_h + pad // 2
    _text(p, card_title(v.candidates[sel]), choice_px, GOLD, "choice", max_w=W - x0 - pad, midtop=(cx, ty))
    p.text(f"{sel + 1} of {n}", pos_px, DIM, "position", midtop=(cx, ty + choice_h))


# ---------------------------------------------------------------------------------------------
# Undo confirmation


def _draw_confirm(p: _Painter, v: ConfirmView) -> None:
    W, H, pad = p.w, p.h, _pad(p)
    header_h = _header(p, v.title, colour=STATUS_BG["warn"])
    bottom = _draw_hint(p, v.hint)
    q_px = H * 0.08
    y = header_h + pad
    y = _paragraph(p, v.question, q_px, TEXT, "question", pad, y, W - 2 * pad, 2) + pad // 2
    if v.detail:
        y = _paragraph(p, v.detail, H * 0.058, DIM, "detail", pad, y, W - 2 * pad, 2) + pad // 2
    if not v.seats:
        return
    n = len(v.seats)
    rh = min((bottom - pad - y) / n, H * 0.16)
    accent_w = accent_width(H)
    name_w = round(W * 0.28)
    for i, s in enumerate(v.seats):
        y0, y1 = y + round(i * rh), y + round((i + 1) * rh)
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(_seat_colour(s.seat, i), (0, y0, accent_w, h))
        px = max(H * 0.055, min(h * 0.5, H * 0.07))
        room = name_w - accent_w - 2 * pad
        _text(p, s.name, px, TEXT, "seat_name", i, max_w=room, min_px=H * 0.05, midleft=(accent_w + pad, cy))
        # the cards as icons, then in words (a picture alone is easy to misread at a glance)
        icon_h = int(min(h * 0.84, H * 0.13))
        icon_w = max(6, int(icon_h * 0.72))
        x = name_w
        for label in s.cards:
            if x + icon_w > W - pad:
                break
            draw_card_icon(p.surface, label, (x, cy - icon_h // 2, icon_w, icon_h))
            x += icon_w + max(2, pad // 2)
        words = ", ".join(card_title(c) for c in s.cards) or "no cards"
        if W - pad - (x + pad) > W * 0.12:
            room = W - pad - x - pad
            _text(p, words, H * 0.052, DIM, "seat_cards", i, max_w=room, min_px=H * 0.05, midleft=(x + pad, cy))


# ---------------------------------------------------------------------------------------------
# Round summary


def _line_head(text: str) -> str:
    """A breakdown line without its trailing "→ points" (the points get their own column)."""
    head, arrow, _ = text.rpartition("→")
    return (head if arrow else text).strip()


def _short(line) -> str:
    """"maki: most with 3 icons → 6" → "maki +6" (the part before ":" and the signed points)."""
    head = _line_head(line.text)
    return f"{head.split(':', 1)[0].strip()} {_signed(line.points)}"


def _pack(items: list[str], f, max_w: int) -> list[str]:
    """Items joined with " · " into as few lines of ``max_w`` px as greedy packing gives."""
    lines: list[str] = []
    for item in items:
        trial = f"{lines[-1]} · {item}" if lines else item
        if lines and f.size(trial)[0] <= max_w:
            lines[-1] = trial
        else:
            lines.append(item)
    return lines


def _draw_breakdown(p: _Painter, lines: Sequence[Any], area, px: float, index: int) -> None:
    """A seat's breakdown in ``area`` (x, y, w, h): one line per ScoreLine with its points in a
    column when that fits, else "maki +6 · tempura +5" packed (zero lines dropped if needed)."""
    x, y, w, h = area
    f = font(px)
    line_h = f.get_linesize()
    max_lines = max(1, int(h // line_h))
    if not lines:
        p.text("nothing scored", px, DIM, "breakdown", index, midleft=(x, y + h // 2))
        return
    # one row per line, points in a column: at the given size or down to 4.7 % of the height
    for size in (px, px * 0.9, max(p.h * 0.047, px * 0.8)):
        fs = font(size)
        pts_w = fs.size("+00")[0]
        heads = [drawable(_line_head(ln.text)) for ln in lines]
        if len(lines) * fs.get_linesize() <= h and all(fs.size(t)[0] <= w - pts_w - 4 for t in heads):
            y0 = y + (h - len(lines) * fs.get_linesize()) // 2
            for k, (ln, head) in enumerate(zip(lines, heads)):
                ly = y0 + k * fs.get_linesize()
                colour = TEXT if ln.points else DIM
                p.text(head, size, colour, "breakdown", index, topleft=(x, ly))
                ink = GOLD if ln.points else DIM
                p.text(_signed(ln.points), size, ink, "breakdown_points", index, topright=(x + w, ly))
            return
    packed = _pack([drawable(_short(ln)) for ln in lines], f, w)
    if len(packed) > max_lines:
        packed = _pack([drawable(_short(ln)) for ln in lines if ln.points], f, w) or ["nothing scored"]
    if len(packed) > max_lines:
        packed = packed[: max_lines - 1] + [_ellipsize(f, " · ".join(packed[max_lines - 1 :]), w)]
    y0 = y + (h - len(packed) * line_h) // 2
    for k, text in enumerate(packed):
        p.text(text, px, TEXT, "breakdown", index, max_w=w, min_px=px, topleft=(x, y0 + k * line_h))


def _draw_round_summary(p: _Painter, v: RoundSummaryView) -> None:
    W, H, pad = p.w, p.h, _pad(p)
    title = v.title or f"Round {v.round} of {v.rounds} — scores"
    header_h = _header(p, title)
    n = max(1, len(v.seats))
    rh = (H - header_h) / n
    accent_w = accent_width(H)
    name_w = round(W * 0.22)
    pts_w = round(W * 0.13)
    for i, s in enumerate(v.seats):
        y0, y1 = header_h + round(i * rh), header_h + round((i + 1) * rh)
        h, cy = y1 - y0, y0 + (y1 - y0) // 2
        p.rect(ROW_BG[i % 2], (0, y0, W, h))
        p.rect(_seat_colour(s.seat, i), (0, y0, accent_w, h))
        name_px = min(h * 0.38, H * 0.075)
        small_px = min(h * 0.3, H * 0.052)
        nx = accent_w + pad
        col = name_w - nx - pad // 2
        _text(p, s.name, name_px, TEXT, "seat_name", i, max_w=col, bottomleft=(nx, cy + h * 0.04))
        _text(p, f"total {s.total}", small_px, DIM, "total", i, max_w=col, topleft=(nx, cy + int(h * 0.06)))
        pts_px = min(h * 0.6, H * 0.13)
        _text(p, _signed(s.points), pts_px, GOLD, "points", i, max_w=pts_w, midright=(W - pad, cy))
        bx = name_w + pad // 2
        bw = W - pts_w - 2 * pad - bx
        line_px = max(H * 0.05, min(h * 0.28, H * 0.056))
        _draw_breakdown(p, s.lines, (bx, y0 + 2, bw, h - 4), line_px, i)
        if i:
            p.pg.draw.line(p.surface, BG, (0, y0), (W, y0), 1)


# ---------------------------------------------------------------------------------------------
# Entry points

_DRAW = {
    SetupView: _draw_setup,
    WaitingView: _draw_waiting,
    RefusalView: _draw_refusal,
    PickerView: _draw_picker,
    ConfirmView: _draw_confirm,
    RoundSummaryView: _draw_round_summary,
    ScoreboardView: _draw_scoreboard,
    FinalView: _draw_final,
}


def render_play_boxes(
    view: Any, size: tuple[int, int] = (480, 320), status: StatusBar | None = None
) -> tuple["pygame.Surface", list[TextBox]]:
    """``render_play`` plus the rect of every text drawn (for tests and layout checks)."""
    draw = _DRAW.get(type(view))
    if draw is None and hasattr(type(view), "play_drawer"):
        # another game's screens (e.g. companion.app.roll_views) name their own drawer
        draw = type(view).play_drawer()
    if draw is None:
        names = ", ".join(t.__name__ for t in _DRAW)
        raise TypeError(f"cannot render a {type(view).__name__}; play screens are: {names}")
    p = _Painter(size)
    if status is None:
        draw(p, view)
        return p.surface, p.boxes
    bar_h = status_bar_height(size)
    if p.h - bar_h < 16:
        raise ValueError(f"screen size {size} leaves no room above the status bar")
    full_h = p.h
    p.h = full_h - bar_h  # the screen is laid out above the bar, as if the panel were that tall
    p.surface.set_clip(p.pg.Rect(0, 0, p.w, p.h))
    draw(p, view)
    p.surface.set_clip(None)
    p.h = full_h
    _draw_status_bar(p, status, full_h - bar_h)
    return p.surface, p.boxes


def render_play(view: Any, size: tuple[int, int] = (480, 320), status: StatusBar | None = None) -> "pygame.Surface":
    """Draw any play screen, with the devices' status bar at the bottom when ``status`` is given.

    Args:
        view: a SetupView, WaitingView, RefusalView, PickerView, ConfirmView, RoundSummaryView,
            ScoreboardView or FinalView; or any view whose class has ``play_drawer()`` returning
            its ``draw(painter, view)`` (the Sushi Roll screens of ``roll_views``).
        size: (width, height) px; laid out from the height (tested at 480×320 and 800×480).
        status: the device states, or None for no bar.

    Returns:
        A new ``pygame.Surface`` of ``size`` (no display needed).

    Raises:
        TypeError: any other view. ValueError: size below 16×16, or no room for the bar;
            a PickerView crop that is not (H, W, 3) uint8.
    """
    return render_play_boxes(view, size, status)[0]

