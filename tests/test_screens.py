"""Scoreboard and final screens: right size, not blank, per-player text, wrapping inside the screen."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from companion.app import screens  # noqa: E402
from companion.app.screens import (  # noqa: E402
    FinalRow,
    FinalView,
    ScoreboardView,
    SeatView,
    draw_card_icon,
    render,
    render_final,
    render_final_boxes,
    render_scoreboard,
    render_scoreboard_boxes,
    save_png,
    wrap_text,
)

pygame = pytest.importorskip("pygame")

SIZES = [(480, 320), (800, 480)]
NAMES = ["Ann", "Bo", "Cy", "Dee", "Eli"]
TABLEAUS = [
    ["tempura", "tempura", "maki_3", "wasabi+squid_nigiri", "dumpling", "dumpling", "dumpling"],
    ["sashimi", "sashimi", "sashimi", "egg_nigiri", "chopsticks"],
    ["salmon_nigiri", "wasabi", "pudding", "maki_1"],
    [],
    ["maki_2", "maki_2", "wasabi+egg_nigiri", "pudding", "pudding", "mystery"],
]
LONG_STATUS = (
    "Bo cannot use chopsticks: chopsticks were played this turn, so they can only be used from "
    "the next turn on. Put one card back and take the chopsticks afterwards."
)


def scoreboard(n, status=""):
    seats = [SeatView(NAMES[i], TABLEAUS[i], [10 + i, 3 * i], i, 10 + 4 * i) for i in range(n)]
    return ScoreboardView("Round 3 — turn 5", seats, status, "warn")


def final(n):
    rows = []
    for i in range(n):
        pudding_points = 6 if i < 2 else -6 * (i == n - 1)
        rows.append(FinalRow(NAMES[i], [12 - i, 9, 14 - 2 * i], pudding_points, 41 - 5 * i, 3 - i // 2, i))
    return FinalView(rows, ["Ann"], "Ann and Bo tied on 41; Ann wins with more puddings (3 vs 1)")


def pixels(surface):
    return pygame.surfarray.array3d(surface)


def crop(surface, rect):
    x, y, w, h = rect
    return pixels(surface)[x : x + w, y : y + h].copy()


def inside(rect, size):
    x, y, w, h = rect
    return x >= 0 and y >= 0 and x + w <= size[0] and y + h <= size[1]


def overlaps(a, b):
    return not (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("n", [2, 5])
def test_scoreboard_renders_legibly(tmp_path, size, n):
    surface, boxes = render_scoreboard_boxes(scoreboard(n, "mat not found: saw markers [0, 2] of 4"), size)
    assert surface.get_size() == size
    px = pixels(surface)
    assert px.std() > 20 and len({tuple(c) for c in px[::7, ::7].reshape(-1, 3)}) > 20  # not blank
    path = save_png(surface, tmp_path / f"sb{n}.png")
    assert path.stat().st_size > 1000 and pygame.image.load(str(path)).get_size() == size

    for box in boxes:
        assert inside(box.rect, size), box
    names = [b for b in boxes if b.role == "seat_name"]
    totals = [b for b in boxes if b.role == "total"]
    assert [b.text for b in names] == NAMES[:n]
    assert [b.text for b in totals] == [str(10 + 4 * i) for i in range(n)]
    # each player's name and total sit in their own band, top to bottom, and look different
    assert all(a.rect[1] < b.rect[1] for a, b in zip(totals, totals[1:]))
    crops = [crop(surface, b.rect) for b in names]
    for a in range(n):
        for b in range(a + 1, n):
            ca, cb = crops[a], crops[b]
            w, h = min(ca.shape[0], cb.shape[0]), min(ca.shape[1], cb.shape[1])
            assert (ca[:w, :h] != cb[:w, :h]).any()
    # totals are the biggest numbers on screen: taller than names
    assert min(t.rect[3] for t in totals) > max(b.rect[3] for b in names)
    # text never overlaps other text
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not overlaps(a.rect, b.rect), (a, b)
    # title readable: at least 5% of the screen height
    title = next(b for b in boxes if b.role == "title")
    assert title.rect[3] >= 0.05 * size[1]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("n", [2, 5])
def test_long_status_wraps_inside_the_screen(size, n):
    surface, boxes = render_scoreboard_boxes(scoreboard(n, LONG_STATUS), size)
    lines = [b for b in boxes if b.role == "status"]
    assert len(lines) >= 2  # it had to wrap
    assert all(inside(b.rect, size) for b in lines)
    assert all(b.rect[3] >= 0.045 * size[1] for b in lines)  # still legible, not shrunk
    assert " ".join(b.text for b in lines).replace("…", "") in LONG_STATUS.replace("\n", " ")
    # the status sits below every seat row
    lowest_row = max(b.rect[1] + b.rect[3] for b in boxes if b.role in ("seat_name", "total"))
    assert lowest_row <= min(b.rect[1] for b in lines)


def test_a_huge_status_is_cut_to_three_lines():
    _, boxes = render_scoreboard_boxes(scoreboard(3, LONG_STATUS * 4), (480, 320))
    lines = [b for b in boxes if b.role == "status"]
    assert len(lines) == 3 and lines[-1].text.endswith("…")


def test_long_names_are_cut_not_spilled():
    view = scoreboard(3)
    view.seats[0].name = "Christopher-Alexander the Magnificent"
    _, boxes = render_scoreboard_boxes(view, (480, 320))
    name = next(b for b in boxes if b.role == "seat_name")
    assert name.text.endswith("…") and name.rect[0] + name.rect[2] < 480 * 0.26


def test_grouped_cards_show_a_count():
    _, boxes = render_scoreboard_boxes(scoreboard(2), (800, 480))
    counts = sorted((b.index, b.text) for b in boxes if b.role == "count")
    assert counts == [(0, "×2"), (0, "×3"), (1, "×3")]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("n", [2, 5])
def test_final_renders(tmp_path, size, n):
    surface, boxes = render_final_boxes(final(n), size)
    assert surface.get_size() == size and pixels(surface).std() > 20
    save_png(surface, tmp_path / "final.png")
    assert all(inside(b.rect, size) for b in boxes)
    assert [b.text for b in boxes if b.role == "row_name"] == NAMES[:n]
    assert next(b for b in boxes if b.role == "winners").text == "Ann wins!"
    tie = [b for b in boxes if b.role == "status"]
    assert tie and " ".join(b.text for b in tie) == final(n).tie_break
    assert [b.text for b in boxes if b.role == "rank"] == [str(i + 1) for i in range(n)]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not overlaps(a.rect, b.rect), (a, b)


def test_shared_win_and_shared_rank():
    rows = [FinalRow("Ann", [10], 0, 30, 2), FinalRow("Bo", [10], 0, 30, 2), FinalRow("Cy", [5], 0, 5, 0)]
    _, boxes = render_final_boxes(FinalView(rows, ["Ann", "Bo"], "Ann and Bo share the win"), (480, 320))
    assert next(b for b in boxes if b.role == "winners").text == "Ann and Bo share the win!"
    assert [b.text for b in boxes if b.role == "rank"] == ["1", "1", "3"]


def test_every_card_icon_is_distinct():
    labels = list(screens.CARD_ORDER) + ["mystery"]
    seen = []
    for label in labels:
        surf = pygame.Surface((36, 50))
        draw_card_icon(surf, label, (0, 0, 36, 50))
        seen.append(pygame.image.tobytes(surf, "RGB"))
    assert len(set(seen)) == len(labels)


def test_wrap_text_breaks_long_words():
    lines = wrap_text("a " + "x" * 200, 20, 100)
    assert len(lines) > 2 and all(screens.font(20).size(line)[0] <= 100 for line in lines)


def test_render_dispatch_and_errors():
    assert render(scoreboard(2), (480, 320)).get_size() == (480, 320)
    assert render(final(2), (800, 480)).get_size() == (800, 480)
    assert render_scoreboard(scoreboard(2)).get_size() == (480, 320)
    assert render_final(final(2)).get_size() == (480, 320)
    with pytest.raises(TypeError):
        render("nope")
    with pytest.raises(ValueError):
        render_scoreboard(scoreboard(2), (4, 4))


def test_import_is_cheap():
    code = "import sys, companion.app.screens, companion.devices.display; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_write_samples_for_eyes():
    """Writes /tmp/screens/*.png so a person can look at them (not an assertion of taste)."""
    out = "/tmp/screens"
    for size in SIZES:
        tag = f"{size[0]}x{size[1]}"
        for n in (2, 5):
            status = LONG_STATUS if n == 5 else "mat not found"
            save_png(render_scoreboard(scoreboard(n, status), size), f"{out}/test_sb{n}_{tag}.png")
            save_png(render_final(final(n), size), f"{out}/test_final{n}_{tag}.png")
