"""The dice simulator: face art in both styles, resting dice with side faces, table photos, fixtures."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.sushi_roll.dice import DieKind, load_dice_faces
from companion.sim.dice import (
    DIE_SIZE_MM,
    FIXTURE_SCENES,
    STYLES,
    DieSpec,
    d6_sides,
    die_face,
    draw_die,
    fixture_scene,
    random_dice_specs,
    render_dice,
    sushi_roll_faces,
)
from companion.sim.table import ShotConditions

FIXTURES = Path(__file__).parent / "fixtures" / "dice"
CLEAN = ShotConditions(light_gradient=0.0, vignette=0.0, blur_sigma=0.5, noise_sigma=1.0, jpeg_quality=90)
ALL_SUSHI = [(k, f) for k, faces in sushi_roll_faces().items() for f in faces]


def _count_pips(square: np.ndarray) -> int:
    """Pips on a square top-face crop: the minority class of an Otsu split, as separate blobs."""
    n = square.shape[0]
    m = int(round(0.08 * n))  # skip the rounded corners and bevel
    grey = cv2.cvtColor(square[m : n - m, m : n - m], cv2.COLOR_BGR2GRAY)
    _, fg = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if np.count_nonzero(fg) > fg.size / 2:
        fg = 255 - fg
    count, _, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    min_area = 0.004 * grey.size
    return int(sum(1 for a in stats[1:, cv2.CC_STAT_AREA] if a >= min_area))


def _unwarp(image: np.ndarray, quad: np.ndarray, n: int = 96) -> np.ndarray:
    """The top face inside ``quad`` (TL, TR, BR, BL px) as an (n, n) square."""
    dst = np.float32([[-0.5, -0.5], [n - 0.5, -0.5], [n - 0.5, n - 0.5], [-0.5, n - 0.5]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (n, n), flags=cv2.INTER_LINEAR)


def test_sushi_faces_come_from_the_faces_file():
    faces = load_dice_faces()
    got = sushi_roll_faces()
    assert set(got) == {k.value for k in DieKind}
    for kind in DieKind:
        assert set(got[kind.value]) == {str(f) for f in faces.of(kind)}
        assert len(got[kind.value]) == len(set(got[kind.value]))
    assert "maki*3" in got["maki"] and DIE_SIZE_MM == 16.0


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("size", [8, 33, 64, 300])
def test_every_face_renders_at_any_size(style, size):
    for kind, face in ALL_SUSHI + [("d6", str(v)) for v in range(1, 7)]:
        img = die_face(kind, face, size, style=style)
        assert img.shape == (size, size, 3) and img.dtype == np.uint8, (kind, face)
        if size >= 33:  # the art shows: more than a flat body colour
            assert img[size // 4 : -size // 4, size // 4 : -size // 4].std() > 10, (kind, face, style)


@pytest.mark.parametrize("style", STYLES)
def test_faces_of_one_die_differ_from_each_other(style):
    for kind, faces in sushi_roll_faces().items():
        imgs = {f: die_face(kind, f, 64, style=style).astype(np.float32) for f in faces}
        for a, b in itertools.combinations(faces, 2):
            diff = np.abs(imgs[a] - imgs[b]).mean()
            assert diff > 6, f"{style}: {kind} faces {a} and {b} look alike (mean diff {diff:.1f})"


def test_the_two_styles_draw_each_face_differently():
    for kind, face in ALL_SUSHI:
        a = die_face(kind, face, 64, style="ours").astype(np.float32)
        b = die_face(kind, face, 64, style="second").astype(np.float32)
        assert np.abs(a - b).mean() > 8, (kind, face)


def test_body_colours_follow_the_die_type():
    def body(kind, style):
        return die_face(kind, sushi_roll_faces()[kind][0], 64, style=style)[2, 32].astype(int)  # by the top edge

    for style in STYLES:
        b, g, r = body("appetizer", style)
        assert b > r + 60, style  # blue
        b, g, r = body("maki", style)
        assert r > b + 60 and r > g + 60, style  # red
        assert body("nigiri", style).min() > 170, style  # white
        b, g, r = body("specials", style)
        assert g > r + 40 and g > b + 40, style  # green
        b, g, r = body("pudding", style)
        assert r > g + 40 and b > g + 30, style  # pink


@pytest.mark.parametrize("value", range(1, 7))
def test_d6_pip_count_of_a_flat_face(value):
    for size, body, pip in [(24, None, None), (48, None, None), (96, (40, 40, 185), (245, 245, 245))]:
        assert _count_pips(die_face("d6", str(value), size, body_bgr=body, pip_bgr=pip)) == value, (size, body)


@pytest.mark.parametrize("value", range(1, 7))
def test_d6_pip_count_on_a_drawn_die_through_its_quad(value):
    canvas = np.full((200, 200, 3), (60, 110, 40), np.float32)
    quad = draw_die(canvas, "d6", str(value), (100, 100), 70, 23 + 11 * value, view=(0.3, -0.2))
    assert _count_pips(_unwarp(np.clip(canvas, 0, 255).astype(np.uint8), quad)) == value


def test_quad_lies_on_the_top_face_and_sides_show_towards_the_footprint():
    bg = np.array((255, 0, 255), np.float32)  # magenta: no die colour
    canvas = np.empty((240, 240, 3), np.float32)
    canvas[:] = bg
    view = (0.35, 0.0)  # top face shifted right: the west side shows, left of the top
    quad = draw_die(canvas, "nigiri", "egg_nigiri", (110, 120), 80, 0.0, view=view)
    assert np.allclose(quad.mean(axis=0), (110 + 0.35 * 80, 120), atol=0.01)
    # Clockwise on screen from the art's top-left (rotation 0: axis-aligned).
    assert np.allclose(quad, [[98, 80], [178, 80], [178, 160], [98, 160]], atol=0.01)
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    face = cv2.GaussianBlur(die_face("nigiri", "egg_nigiri", 64), (0, 0), 1.0).astype(np.float32)

    def mismatch(q):
        return float(np.abs(cv2.GaussianBlur(_unwarp(img, q, 64), (0, 0), 1.0) - face)[6:58, 6:58].mean())

    assert mismatch(quad) < 5
    assert mismatch(quad + [12, 0]) > 15 and mismatch(quad + [0, -12]) > 15  # 15 % off is not the face
    left_of_top = img[100:140, 80:94].astype(np.float32)  # the west side face
    assert np.abs(left_of_top - bg).sum(axis=2).min() > 100
    right_of_top = img[100:140, 184:200].astype(np.float32)  # beyond the east edge: table
    assert np.abs(right_of_top - bg).max() < 1


def test_a_rotated_die_returns_its_turned_quad():
    canvas = np.zeros((200, 200, 3), np.float32)
    quad = draw_die(canvas, "d6", "1", (100, 100), 60, 90.0)  # a quarter turn counter-clockwise
    # The art's top-left corner is now at the bottom-left of the screen.
    assert np.allclose(quad[0], (70, 130), atol=0.01) and np.allclose(quad[1], (70, 70), atol=0.01)


def test_alpha_blends_a_die_in_flight():
    a, b = np.zeros((100, 100, 3), np.float32), np.zeros((100, 100, 3), np.float32)
    draw_die(a, "d6", "2", (50, 50), 40, 0)
    draw_die(b, "d6", "2", (50, 50), 40, 0, alpha=0.5)
    assert np.allclose(b[50, 50], a[50, 50] * 0.5, atol=0.5) and a[50, 50].min() > 150


def test_d6_sides_follow_a_right_handed_die():
    for top in range(1, 7):
        seen = set()
        for east in (f for f in range(1, 7) if f not in (top, 7 - top)):
            n, e, s, w = d6_sides(top, east)
            assert e == east and n + s == 7 and e + w == 7
            assert {n, e, s, w} == set(range(1, 7)) - {top, 7 - top}
            seen.add((n, e, s, w))
            # Turning the die a quarter turn (north becomes east) gives the next arrangement.
            assert d6_sides(top, n) == (w, n, e, s)
        assert len(seen) == 4
    # A Western die: with 1 up and 2 facing you (south), 3 is on your right (east).
    assert d6_sides(1, 3)[2] == 2


def test_drawn_side_faces_are_the_given_ones():
    # View down the frame: the top face shifts down and the north side shows above it.
    a = np.zeros((200, 200, 3), np.float32)
    b = np.zeros((200, 200, 3), np.float32)
    draw_die(a, "maki", "maki", (100, 100), 60, 0, view=(0, 0.5), side_faces=("maki", "maki", "maki", "maki"))
    draw_die(b, "maki", "maki", (100, 100), 60, 0, view=(0, 0.5), side_faces=("maki*3", "maki", "maki", "maki"))
    north = (slice(71, 99), slice(72, 128))  # between the footprint's top edge (y 70) and the top face's (y 100)
    top = (slice(102, 158), slice(72, 128))
    assert np.abs(a[north] - b[north]).mean() > 5
    assert np.abs(a[top] - b[top]).max() < 1e-3


def test_same_seed_gives_the_same_photo_and_truth():
    def shot(seed):
        rng = np.random.default_rng(seed)
        return render_dice(random_dice_specs("sushi-roll", 6, size=(480, 360), rng=rng), size=(480, 360), rng=rng)

    a, b, c = shot(5), shot(5), shot(6)
    assert np.array_equal(a.image, b.image)
    assert all(np.array_equal(x[2], y[2]) and x[:2] == y[:2] for x, y in zip(a.dice, b.dice))
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("style", STYLES)
def test_a_photo_reads_back_through_its_truth(style):
    rng = np.random.default_rng(11)
    specs = [
        DieSpec("d6", "5", (150, 150), 20, 60),
        DieSpec("d6", "3", (400, 130), 70, 60, body_bgr=(40, 40, 185), pip_bgr=(245, 245, 245)),
        DieSpec("maki", "maki*2", (520, 380), 5, 60),
        DieSpec("pudding", "pudding*3", (130, 380), 200, 60),
    ]
    shot = render_dice(specs, size=(640, 480), rng=rng, conditions=CLEAN, style=style)
    assert shot.image.shape == (480, 640, 3) and shot.image.dtype == np.uint8
    assert [(k, f) for k, f, _ in shot.dice] == [(s.kind, s.face) for s in specs]
    for (kind, face, quad), spec in zip(shot.dice, specs):
        square = _unwarp(shot.image, quad, 64).astype(np.float32)
        if kind == "d6":
            assert _count_pips(square.astype(np.uint8)) == int(face)
        flat = die_face(kind, face, 64, style=style, body_bgr=spec.body_bgr, pip_bgr=spec.pip_bgr).astype(np.float32)
        # Light, noise and JPEG change it a little; a wrong place or face changes it a lot.
        assert np.abs(square[8:56, 8:56] - flat[8:56, 8:56]).mean() < 25, (kind, face)
    # Dice far from the frame centre show more side: their top is shifted outwards.
    views = np.array(shot.views)
    assert views[0][0] < 0 < views[2][0] and views[0][1] < 0 < views[2][1]


def test_random_specs_do_not_overlap_and_stay_in_frame():
    rng = np.random.default_rng(3)
    for kind_set in ("d6", "sushi-roll", "nigiri"):
        specs = random_dice_specs(kind_set, 15, rng=rng)
        assert len(specs) == 15
        sizes = [s.size_px for s in specs]
        assert 40 <= min(sizes) and max(sizes) <= 80 and max(sizes) / min(sizes) < 1.07
        quads = [cv2.boxPoints(((*s.center,), (s.size_px, s.size_px), -s.rotation_deg)) for s in specs]
        for (i, a), (j, b) in itertools.combinations(enumerate(quads), 2):
            area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
            assert area < 1.0, (kind_set, i, j, area)
        for q in quads:
            assert (q >= 0).all() and (q[:, 0] < 1280).all() and (q[:, 1] < 960).all()
        for s in specs:
            if s.kind == "d6":
                assert s.face in {"1", "2", "3", "4", "5", "6"}
            else:
                assert s.face in sushi_roll_faces()[s.kind] and (kind_set != "nigiri" or s.kind == "nigiri")
    kinds = {s.kind for s in random_dice_specs("sushi-roll", 40, face_px=(20, 24), rng=rng)}
    assert kinds == {k.value for k in DieKind}


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: die_face("d8", "1", 32), "d8"),
        (lambda: die_face("d6", "7", 32), "'7'"),
        (lambda: die_face("maki", "maki*4", 32), "maki*4"),
        (lambda: die_face("maki", "wasabi", 32), "wasabi"),
        (lambda: die_face("maki", "sushi", 32), "sushi"),
        (lambda: die_face("maki", "maki", 32, style="glossy"), "glossy"),
        (lambda: die_face("d6", "1", 4), "size_px"),
        (lambda: die_face("d6", "1", 32, body_bgr=(0, 0, 300)), "body_bgr"),
        (lambda: draw_die(np.zeros((9, 9, 3), np.float32), "d6", "1", (4, 4), 5, 0, style="x"), "'x'"),
        (lambda: draw_die(np.zeros((9, 9, 3), np.uint8), "d6", "1", (4, 4), 5, 0), "float32"),
        (lambda: draw_die(np.zeros((9, 9, 3), np.float32), "d6", "1", (4, 4), 5, 0, side_faces=("2",)), "side_faces"),
        (lambda: draw_die(np.zeros((9, 9, 3), np.float32), "d6", "1", (4, 4), 5, 0, side_faces=("2", "3", "4", "9")), "'9'"),
        (lambda: render_dice([DieSpec("d6", "0", (5, 5), 0, 5)], size=(20, 20), rng=np.random.default_rng(0)), "'0'"),
        (lambda: render_dice([], size=(20, 20), rng=np.random.default_rng(0), style="flat"), "flat"),
        (lambda: random_dice_specs("d12", 3, rng=np.random.default_rng(0)), "d12"),
        (lambda: random_dice_specs("d6", 30, size=(320, 320), face_px=(40, 40), rng=np.random.default_rng(0)), "overlap"),
        (lambda: random_dice_specs("d6", 1, size=(100, 100), rng=np.random.default_rng(0)), "too small"),
        (lambda: d6_sides(1, 6), "opposite"),
    ],
)
def test_bad_input_is_refused_by_name(call, name):
    with pytest.raises(ValueError, match=name.replace("*", r"\*").replace("(", r"\(")):
        call()


def _truth(name):
    return json.loads((FIXTURES / f"{name}.json").read_text())


def test_fixtures_are_complete_small_and_well_formed():
    index = json.loads((FIXTURES / "index.json").read_text())
    assert set(index) == set(FIXTURE_SCENES)
    styles = [index[n]["style"] for n in index if index[n]["set"] == "sushi-roll"]
    assert sorted(styles) == ["ours", "ours", "second", "second"]
    assert sum(1 for n in index if index[n]["set"] == "d6") == 4
    assert sum(p.stat().st_size for p in FIXTURES.iterdir()) < 2.5e6
    for name in FIXTURE_SCENES:
        img = cv2.imread(str(FIXTURES / f"{name}.jpg"))
        assert img.shape == (960, 1280, 3)
        for die in _truth(name):
            q = np.array(die["quad"])
            assert q.shape == (4, 2) and (q >= 0).all() and (q[:, 0] < 1280).all() and (q[:, 1] < 960).all()
            if die["kind"] == "d6":
                assert _count_pips(_unwarp(img, q)) == int(die["face"]), (name, die)
            else:
                assert die["face"] in sushi_roll_faces()[die["kind"]]


def test_d6_fixture_has_light_pip_dice_and_dice_touching():
    dice = _truth("d6_2")
    assert any(d.get("pip_bgr") and min(d["pip_bgr"]) > 200 for d in dice)
    feet = [cv2.boxPoints((tuple(d["center"]), (d["size_px"], d["size_px"]), -d["rotation_deg"])) for d in dice]
    gaps = []
    for a, b in itertools.permutations(feet, 2):
        gaps.append(max(cv2.pointPolygonTest(b.reshape(-1, 1, 2).astype(np.float32), tuple(map(float, p)), True) for p in a))
    # Touching: a corner of one footprint within ~1 px outside the other (pointPolygonTest: negative = outside).
    assert any(-1.5 < g <= 0.5 for g in gaps)


def test_fixtures_regenerate_from_their_seeds():
    shot, _specs, _style = fixture_scene("d6_3")
    stored = cv2.imread(str(FIXTURES / "d6_3.jpg")).astype(np.float32)
    assert np.abs(shot.image.astype(np.float32) - stored).mean() < 2.0
    assert np.allclose(np.array([q for _, _, q in shot.dice]), [d["quad"] for d in _truth("d6_3")], atol=0.01)


# --------------------------------------------------------------------------- translucent dice

RED, WHITE = (40, 40, 200), (245, 245, 245)


def _die_on(canvas: np.ndarray, face: str, translucency: float) -> np.ndarray:
    """``canvas`` with a red d6 (white pips) drawn straight from above at its centre; the (96, 96) top face."""
    c = canvas.copy()
    quad = draw_die(c, "d6", face, (120, 120), 120, 0.0, body_bgr=RED, pip_bgr=WHITE, translucency=translucency)
    return _unwarp(np.clip(c, 0, 255).astype(np.uint8), quad).astype(np.float32)


def test_a_translucent_die_shows_the_table_through_its_body_dyed_its_colour():
    canvas = np.full((240, 240, 3), 40, np.float32)
    canvas[:, :120] = 220  # a light half and a dark half of table under the die
    opaque, clear = _die_on(canvas, "1", 0.0), _die_on(canvas, "1", 0.7)
    left, right = (slice(30, 66), slice(10, 22)), (slice(30, 66), slice(74, 86))  # bare body, not the pip

    def red_step(face):
        return float(face[left][..., 2].mean() - face[right][..., 2].mean())

    assert abs(red_step(opaque)) < 5  # opaque plastic hides the table
    assert red_step(clear) > 40  # the light half shines through
    b, g, r = clear[left].reshape(-1, 3).mean(axis=0)
    assert r > b + 60 and r > g + 60  # dyed red, not the table's grey


def test_a_translucent_die_keeps_its_painted_pips_and_shows_the_ghost_of_the_face_below():
    canvas = np.full((240, 240, 3), 128, np.float32)
    opaque, clear = _die_on(canvas, "1", 0.0), _die_on(canvas, "1", 0.6)
    assert clear[44:52, 44:52].min() > 215  # the one's own pip: white paint, opaque
    # Face 6 lies on the table (1 + 6 = 7): its pips at (¼, ½) and (¾, ½) of the face show faintly
    # through; (½, ¼) holds no pip of either face.
    ghost = (clear[44:52, 20:28].mean() + clear[44:52, 68:76].mean()) / 2
    bare = clear[20:28, 44:52].mean()
    assert 8 < ghost - bare < 80  # seen, but far fainter than a painted pip
    o_ghost = (opaque[44:52, 20:28].mean() + opaque[44:52, 68:76].mean()) / 2
    assert abs(o_ghost - opaque[20:28, 44:52].mean()) < 3


def test_translucency_defaults_to_opaque_and_is_checked():
    canvas = np.full((240, 240, 3), 90, np.float32)
    a, b = canvas.copy(), canvas.copy()
    draw_die(a, "d6", "4", (120, 120), 100, 17.0, view=(0.2, 0.1))
    draw_die(b, "d6", "4", (120, 120), 100, 17.0, view=(0.2, 0.1), translucency=0.0)
    assert np.array_equal(a, b)
    for bad in (-0.1, 0.95):
        with pytest.raises(ValueError, match="translucency"):
            draw_die(canvas.copy(), "d6", "4", (120, 120), 100, 0.0, translucency=bad)
    with pytest.raises(ValueError, match="only a d6"):  # printed icons are no painted pips
        draw_die(canvas.copy(), "maki", "maki*2", (120, 120), 100, 0.0, translucency=0.5)


def test_a_translucent_die_seen_straight_down_keeps_its_rounded_corners():
    canvas = np.full((240, 240, 3), 200, np.float32)
    for t in (0.0, 0.6):
        c = canvas.copy()
        draw_die(c, "d6", "1", (120, 120), 120, 0.0, body_bgr=RED, pip_bgr=WHITE, translucency=t)
        # The square's corner (60, 60) lies outside the rounded corner (radius 13 % of the edge):
        # the table shows there; half an edge in, the die does.
        assert np.abs(c[61, 61] - 200).max() < 30, t
        assert np.abs(c[75, 120] - 200).max() > 60, t
