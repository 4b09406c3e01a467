"""Sushi Roll icon dice: enrolment, DICE.npz, reading simulated table photos, the command line (issue #7 §2).

The photos come from ``companion.sim.dice`` in both art styles (``ours`` and ``second``); the dice are
enrolled from that style's flat faces, as ``enroll --dice`` gets them from flat scans. Accuracy targets
and speed live in ``bench/icon_dice.py``; these tests check behaviour on a few fixed photos.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.sim.dice import die_face, draw_die, random_dice_specs, render_dice, sushi_roll_faces
from companion.vision.dice_icons import DiceError, DiceSet, enroll_dice_folder, enroll_dice_images, read_icon_dice

FACE_PX = 128
KIND = {f: k for k, faces in sushi_roll_faces().items() for f in faces}


def _enrol(style: str, skip: tuple[str, ...] = ()) -> DiceSet:
    return enroll_dice_images({f: [die_face(k, f, FACE_PX, style=style)] for f, k in KIND.items() if f not in skip})


@pytest.fixture(scope="module")
def dice_ours() -> DiceSet:
    return _enrol("ours")


@pytest.fixture(scope="module")
def dice_second() -> DiceSet:
    return _enrol("second")


def _scene(seed: int, style: str, kind: str = "sushi-roll", n: int = 20, face_px=(40, 80)):
    rng = np.random.default_rng(seed)
    specs = random_dice_specs(kind, n, size=(1280, 960), rng=rng, face_px=face_px)
    return render_dice(specs, rng=rng, style=style)


def _match(obs, scene):
    """[(true face, reading or None)] per die: the reading whose centre lies on its top face."""
    out, used = [], set()
    for _, face, quad in scene.dice:
        hit = [i for i, o in enumerate(obs) if i not in used
               and cv2.pointPolygonTest(np.float32(quad), (float(o.center[0]), float(o.center[1])), False) >= 0]
        used.update(hit[:1])
        out.append((face, obs[hit[0]] if hit else None))
    return out, [o for i, o in enumerate(obs) if i not in used]


@pytest.mark.parametrize("style", ["ours", "second"])
def test_reads_a_table_of_twenty_dice_in_either_art(style, dice_ours, dice_second):
    dice = dice_ours if style == "ours" else dice_second
    for seed in (900, 901):
        scene = _scene(seed, style)
        obs = read_icon_dice(scene.image, dice)
        pairs, spurious = _match(obs, scene)
        right = [o for f, o in pairs if o is not None and o.face == f]
        assert len(right) >= 19, [(f, o.face if o else None) for f, o in pairs if o is None or o.face != f]
        assert spurious == []
        for f, o in pairs:
            if o is not None and o.face == f:
                assert o.die == KIND[f]
                assert 0.0 <= o.confidence <= 1.0


def test_side_faces_are_never_read_as_dice(dice_ours):
    # Dice near the frame's corners show the most side (their art is other faces): one reading per die.
    scene = _scene(902, "ours")
    obs = read_icon_dice(scene.image, dice_ours)
    pairs, spurious = _match(obs, scene)
    assert spurious == [] and len(obs) == len(scene.dice)


@pytest.mark.parametrize("kind,faces", [("maki", {"maki", "maki*2", "maki*3"}),
                                        ("specials", {"chopsticks", "chopsticks*2"})])
@pytest.mark.parametrize("style", ["ours", "second"])
def test_tells_icon_counts_apart(kind, faces, style, dice_ours, dice_second):
    dice = dice_ours if style == "ours" else dice_second
    scene = _scene(910, style, kind=kind, n=16, face_px=(40, 48))  # small faces: the hard case
    pairs, spurious = _match(read_icon_dice(scene.image, dice), scene)
    counted = [(f, o.face if o else None) for f, o in pairs if f in faces]
    assert len({f for f, _ in counted}) >= 2  # the scene has look-alikes to tell apart
    assert all(f == got for f, got in counted), counted
    assert spurious == []


def test_face_not_enrolled_is_unknown_never_the_nearest_face():
    dice = _enrol("ours", skip=("maki*3", "chopsticks*2"))
    for seed, kind in ((911, "maki"), (912, "specials")):
        scene = _scene(seed, "ours", kind=kind, n=14)
        pairs, _ = _match(read_icon_dice(scene.image, dice), scene)
        left_out = [o for f, o in pairs if f in ("maki*3", "chopsticks*2")]
        assert left_out and all(o is not None and o.face == "unknown" and o.die is None for o in left_out)
        assert all(0.0 <= o.confidence <= 1.0 for o in left_out)
        enrolled = [(f, o.face if o else None) for f, o in pairs if f not in ("maki*3", "chopsticks*2")]
        assert all(f == got for f, got in enrolled), enrolled


def test_any_rotation_and_the_quad_starts_at_the_arts_top_left(dice_second):
    canvas = np.empty((200, 200, 3), np.float32)
    for angle in range(0, 360, 25):
        canvas[:] = (70, 90, 120)  # a plain brown table
        truth = draw_die(canvas, "maki", "maki*3", (100, 100), 56, angle, view=(0.15, -0.1), style="second")
        img = np.clip(cv2.GaussianBlur(canvas, (0, 0), 0.7), 0, 255).astype(np.uint8)
        obs = read_icon_dice(img, dice_second)
        assert [o.face for o in obs] == ["maki*3"], angle
        # Corner 0 is the art's top-left, corners clockwise: each within 15 % of the side of the
        # truth (a corner out of turn would be a whole side, 56 px, away).
        assert np.abs(np.array(obs[0].quad) - truth).max() < 8.5, (angle, obs[0].quad, truth)


def test_a_die_cut_by_the_frame_is_reported_unread(dice_ours):
    scene = _scene(903, "ours")
    _, face, quad = scene.dice[0]
    x = int(quad[:, 0].mean())
    img = np.ascontiguousarray(scene.image[:, x:])  # the frame's edge runs through die 0's top
    obs = read_icon_dice(img, dice_ours)
    cut = [o for o in obs if o.center[0] < 0.5 * np.ptp(quad[:, 0]) and abs(o.center[1] - quad[:, 1].mean()) < 30]
    assert len(cut) == 1 and cut[0].face is None and cut[0].die == KIND[face]


def test_a_large_photo_is_read_in_its_own_pixels(dice_ours):
    scene = _scene(904, "ours", n=8)
    big = cv2.resize(scene.image, None, fx=2.5, fy=2.5, interpolation=cv2.INTER_LINEAR)
    obs = read_icon_dice(big, dice_ours)
    scaled = type(scene)(big, [(k, f, q * 2.5) for k, f, q in scene.dice])
    pairs, spurious = _match(obs, scaled)
    assert spurious == [] and all(o is not None and o.face == f for f, o in pairs)


# ---------------------------------------------------------------- enrolment and files
def _face_dir(tmp_path, faces, style="ours"):
    root = tmp_path / "dice"
    for f in faces:
        (root / f).mkdir(parents=True)
        cv2.imwrite(str(root / f / "scan.png"), die_face(KIND[f], f, FACE_PX, style=style))
    return root


def test_a_folder_not_named_after_a_face_is_an_error_naming_it(tmp_path):
    root = _face_dir(tmp_path, ["maki", "maki*2"])
    (root / "maki*4").mkdir()
    cv2.imwrite(str(root / "maki*4" / "a.png"), die_face("maki", "maki*3", FACE_PX))
    with pytest.raises(DiceError, match=r"maki\*4.*not a face"):
        enroll_dice_folder(root)


def test_a_face_folder_without_images_is_an_error(tmp_path):
    root = _face_dir(tmp_path, ["maki"])
    (root / "wasabi").mkdir()
    (root / "wasabi" / "notes.txt").write_text("no image here")
    with pytest.raises(DiceError, match="wasabi.*no images"):
        enroll_dice_folder(root)


def test_enrolment_rejects_unknown_faces_and_empty_input():
    with pytest.raises(DiceError, match="no faces"):
        enroll_dice_images({})
    with pytest.raises(DiceError, match="'unagi'.*not a face"):
        enroll_dice_images({"unagi": [die_face("maki", "maki", 64)]})
    with pytest.raises(DiceError, match="has no images"):
        enroll_dice_images({"maki": []})


def test_saved_dice_read_the_same_after_loading(tmp_path, dice_ours):
    path = tmp_path / "DICE.npz"
    dice_ours.save(path)
    loaded = DiceSet.load(path)
    assert loaded.faces == dice_ours.faces
    scene = _scene(905, "ours", n=10)
    a = [(o.face, o.center) for o in read_icon_dice(scene.image, dice_ours)]
    b = [(o.face, o.center) for o in read_icon_dice(scene.image, loaded)]
    assert a == b


def _npz(path, **fields):
    with open(path, "wb") as fh:
        np.savez(fh, **fields)


def test_missing_corrupt_or_foreign_dice_files_are_clear_errors(tmp_path, dice_ours):
    with pytest.raises(DiceError, match="nope.npz: dice file not found"):
        DiceSet.load(tmp_path / "nope.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 this is not a zip archive")
    with pytest.raises(DiceError, match="bad.npz: not a dice file .not an .npz archive"):
        DiceSet.load(bad)
    text = tmp_path / "notes.npz"
    text.write_text("maki*2 maki*3")
    with pytest.raises(DiceError, match="notes.npz: not a dice file .not an .npz archive"):
        DiceSet.load(text)
    deck = tmp_path / "DECK.npz"
    _npz(deck, format=np.array("companion-deck"), version=np.array(1))
    with pytest.raises(DiceError, match="DECK.npz: not a dice file"):
        DiceSet.load(deck)
    # A pickled object array is refused, not unpickled.
    pickled = tmp_path / "pickled.npz"
    _npz(pickled, format=np.array([{"evil": 1}], dtype=object))
    with pytest.raises(DiceError, match="pickled.npz"):
        DiceSet.load(pickled)
    # A dice file with a field missing, or a field of the wrong shape.
    good = tmp_path / "good.npz"
    dice_ours.save(good)
    with np.load(good) as z:
        fields = {k: z[k] for k in z.files}
    _npz(tmp_path / "lacking.npz", **{k: v for k, v in fields.items() if k != "fine"})
    with pytest.raises(DiceError, match="lacking.npz: field 'fine': missing"):
        DiceSet.load(tmp_path / "lacking.npz")
    _npz(tmp_path / "short.npz", **{**fields, "sure": fields["sure"][:-1]})
    with pytest.raises(DiceError, match="short.npz: field 'sure': has shape"):
        DiceSet.load(tmp_path / "short.npz")


# ---------------------------------------------------------------- command line
def test_cli_enrols_then_reads_dice_as_json(tmp_path, capsys):
    faces = ["maki", "maki*2", "maki*3", "chopsticks", "chopsticks*2", "wasabi", "menu", "menu*2"]
    root = _face_dir(tmp_path, faces)
    out = tmp_path / "DICE.npz"
    assert main(["enroll", "--dice", str(root), "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "8 faces" in summary and str(out) in summary
    rng = np.random.default_rng(920)
    specs = random_dice_specs("maki", 8, rng=rng)
    scene = render_dice(specs, rng=rng, style="ours")
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene.image)
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    status = main(["read", "dice", "--kind", "sushi-roll", "--dice", str(out), "--json", str(photo), str(broken)])
    captured = capsys.readouterr()
    assert status == 2  # one image could not be read
    assert "broken.jpg" in captured.err
    results = json.loads(captured.out)
    assert results[0]["image"] == str(photo) and results[1]["dice"] is None
    read = results[0]["dice"]
    assert sorted(d["face"] for d in read) == sorted(f for _, f, _ in scene.dice)
    for d in read:
        assert d["die"] == "maki" and len(d["quad"]) == 4 and len(d["center"]) == 2 and 0 <= d["confidence"] <= 1


def test_cli_read_with_a_foreign_dice_file_exits_2(tmp_path, capsys):
    foreign = tmp_path / "DECK.npz"
    _npz(foreign, format=np.array("companion-deck"))
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.zeros((40, 40, 3), np.uint8))
    assert main(["read", "dice", "--kind", "sushi-roll", "--dice", str(foreign), str(photo)]) == 2
    assert "not a dice file" in capsys.readouterr().err


def test_a_dice_field_of_the_wrong_kind_is_a_named_error(tmp_path, dice_ours):
    path = tmp_path / "DICE.npz"
    dice_ours.save(path)
    with np.load(path, allow_pickle=False) as z:
        fields = {k: z[k] for k in z.files}
    fields["body"] = np.array(["red"] * len(fields["body"]))
    _npz(tmp_path / "odd.npz", **fields)
    with pytest.raises(DiceError, match="odd.npz: field 'body': holds text"):
        DiceSet.load(tmp_path / "odd.npz")


def test_a_blank_enrolment_picture_is_refused(tmp_path):
    import cv2

    from companion.vision.dice_icons import enroll_dice_folder

    (tmp_path / "maki").mkdir()
    cv2.imwrite(str(tmp_path / "maki" / "scan.png"), np.full((64, 64, 3), 128, np.uint8))
    with pytest.raises(DiceError, match="scan.png: the picture is blank"):
        enroll_dice_folder(tmp_path)


def test_small_dice_in_a_big_photo_are_found(dice_ours):
    """Faces of 40–80 px in a 4032×3024 phone-sized photo: 13–25 px at the usual working size."""
    scene = _scene(906, "ours", n=8)
    big = np.empty((3024, 4032, 3), np.uint8)
    big[:] = np.median(scene.image.reshape(-1, 3), axis=0).astype(np.uint8)
    big[1000:1960, 1400:2680] = scene.image
    found = read_icon_dice(big, dice_ours)
    truth = [(f, q + np.array([1400, 1000])) for _, f, q in scene.dice]
    right = sum(1 for o in found for f, q in truth
                if o.face == f and cv2.pointPolygonTest(np.float32(q), o.center, False) >= 0)
    assert right >= 7


def test_a_photo_must_be_uint8(dice_ours):
    with pytest.raises(ValueError, match="uint8"):
        read_icon_dice(np.zeros((40, 40, 3), np.float32), dice_ours)
    assert read_icon_dice(np.zeros((0, 0, 3), np.uint8), dice_ours) == []


def test_a_face_whose_body_colour_is_another_dies_is_refused(tmp_path):
    import cv2

    from companion.sim.dice import die_face
    from companion.vision.dice_icons import enroll_dice_folder

    for face in ("maki", "maki*2", "maki*3"):
        (tmp_path / face).mkdir()
        img = die_face("maki", face, 128, style="ours")
        if face == "maki*2":  # a grey scan of a red die
            img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        cv2.imwrite(str(tmp_path / face / "scan.png"), img)
    with pytest.raises(DiceError, match="'maki\\*2': its body colour is far from the other maki faces"):
        enroll_dice_folder(tmp_path)


@pytest.mark.parametrize("height", [105, 106, 107, 108])
def test_a_die_at_the_bottom_of_an_image_whose_height_is_no_multiple_of_4_is_found(height):
    """The quarter-size maps ended one row short of such an image: a die touching its bottom
    raised "operands could not be broadcast" (found by the Sushi Roll table reader, #10)."""
    from companion.sim.dice import DieSpec, body_colour, render_dice
    from companion.vision.dice_find import find_top_faces

    spec = DieSpec("maki", "maki*2", (150, height - 20), 10, 44)
    image = render_dice([spec], size=(300, height), rng=np.random.default_rng(1)).image
    faces = find_top_faces(image, np.array([body_colour("maki")], float))
    assert faces and all(abs(f.quad.mean(0)[0] - 150) < 10 for f in faces)


def test_face_patches_are_each_quads_face_patch_byte_for_byte():
    from companion.vision.dice_faces import PATCH, face_patch, face_patches

    scene = _scene(902, "second")
    rng = np.random.default_rng(0)
    quads = [np.float32(q) + rng.normal(0, 2, (4, 2)).astype(np.float32) for _, _, q in scene.dice[:6]]
    quads.append(np.float32([[-30, -25], [40, -20], [35, 45], [-35, 40]]))  # runs off the image's corner
    quads.append(np.float32([[600, 400], [700, 410], [690, 520], [590, 505]]))  # a large, tilted face
    stacked = face_patches(scene.image, quads)
    assert stacked.shape == (len(quads), PATCH, PATCH, 3) and stacked.dtype == np.uint8
    for q, p in zip(quads, stacked):
        assert np.array_equal(p, face_patch(scene.image, q))
    assert face_patches(scene.image, []).shape == (0, PATCH, PATCH, 3)
