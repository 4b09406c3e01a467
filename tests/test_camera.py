"""Frame sources: fake and replay behave like a camera; the Pi camera fails clearly off the Pi."""

from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from companion.devices.camera import (
    CameraError,
    CameraUnavailableError,
    FakeSource,
    FrameSource,
    Picamera2Source,
    ReplaySource,
    downscale_lores,
    open_camera,
)


def frame(value, size=(640, 480)):
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :, 0] = value  # B channel carries the frame's number, so order is checkable
    img[:, :, 2] = 255 - value
    return img


@pytest.fixture
def frames_dir(tmp_path):
    for i in (1, 2, 10):  # natural order 1, 2, 10 (not 1, 10, 2)
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), frame(i * 10))
    cv2.imwrite(str(tmp_path / "frame3.JPG"), frame(30))
    (tmp_path / "notes.txt").write_text("not a frame")
    return tmp_path


def test_fake_source_plays_frames_then_none():
    frames = [frame(1), None, frame(2)]
    with FakeSource(frames) as cam:
        assert isinstance(cam, FrameSource)
        assert cam.read() is frames[0]
        assert cam.read() is None and not cam.exhausted  # a dropped frame
        assert cam.read() is frames[2]
        assert cam.read() is None and cam.exhausted
    assert cam.closed
    with pytest.raises(CameraError, match="closed"):
        cam.read()


def test_fake_source_lores_and_repeat_last():
    cam = FakeSource([frame(5, (2028, 1520))], repeat_last=True)
    lores = cam.read_lores()
    assert lores.shape == (240, 320, 3) and lores.dtype == np.uint8
    assert lores[0, 0, 0] == 5
    assert cam.read()[0, 0, 0] == 5  # still table after the last frame
    assert cam.read_lores().shape == (240, 320, 3)


def test_fake_source_iterates():
    assert len(list(FakeSource([frame(1), frame(2)]))) == 2


def test_replay_plays_folder_in_natural_order(frames_dir):
    with ReplaySource(frames_dir) as cam:
        assert isinstance(cam, FrameSource)
        assert len(cam) == 4
        assert [p.name for p in cam.paths] == ["frame1.png", "frame2.png", "frame3.JPG", "frame10.png"]
        got = []
        while not cam.exhausted:
            f = cam.read()
            assert f.shape == (480, 640, 3) and f.dtype == np.uint8
            got.append(int(f[240, 320, 0]))
        assert got[:2] == [10, 20] and abs(got[2] - 30) <= 3 and got[3] == 100  # JPEG is lossy
        assert cam.read() is None
        assert cam.problems == []


def test_replay_corrupt_file_yields_none_and_is_recorded(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), frame(1))
    (tmp_path / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    (tmp_path / "c.jpg").write_bytes(b"")
    cv2.imwrite(str(tmp_path / "d.png"), frame(4))
    cam = ReplaySource(tmp_path)
    out = list(cam)
    assert [None if f is None else int(f[0, 0, 0]) for f in out] == [1, None, None, 4]
    assert [p.name for p, _ in cam.problems] == ["b.png", "c.jpg"]
    assert all("corrupt" in why for _, why in cam.problems)


def test_replay_missing_file_in_list_is_a_problem_not_a_crash(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), frame(1))
    cam = ReplaySource([tmp_path / "a.png", tmp_path / "gone.png"])
    assert cam.read() is not None
    assert cam.read() is None
    assert cam.problems[0][0].name == "gone.png" and "cannot read" in cam.problems[0][1]


def test_replay_loop_and_lores(frames_dir):
    cam = ReplaySource(frames_dir, loop=True)
    values = [int(cam.read()[0, 0, 0]) for _ in range(5)]
    assert values[0] == values[4] == 10
    assert cam.read_lores().shape == (240, 320, 3)


def test_replay_rejects_missing_and_empty_folders(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such folder"):
        ReplaySource(tmp_path / "nope")
    with pytest.raises(ValueError, match="no JPEG or PNG"):
        ReplaySource(tmp_path)


def test_replay_single_file(tmp_path):
    path = tmp_path / "one.png"
    cv2.imwrite(str(path), frame(7))
    cam = ReplaySource(path)
    assert int(cam.read()[0, 0, 0]) == 7 and cam.read() is None


def test_grey_and_rgba_pngs_come_out_bgr(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.full((20, 30), 77, np.uint8))
    cv2.imwrite(str(tmp_path / "b.png"), np.full((20, 30, 4), 77, np.uint8))
    for f in ReplaySource(tmp_path):
        assert f.shape == (20, 30, 3) and f.dtype == np.uint8


def test_downscale_keeps_aspect():
    assert downscale_lores(frame(0, (1920, 1080))).shape == (180, 320, 3)


def test_open_camera_specs(frames_dir):
    assert isinstance(open_camera(f"replay:{frames_dir}"), ReplaySource)
    assert open_camera(f"replay-loop:{frames_dir}").loop
    two = open_camera(f"replay:{frames_dir / 'frame1.png'},{frames_dir / 'frame2.png'}")
    assert len(two) == 2
    with open_camera("fake:64x48") as cam:
        assert cam.read().shape == (48, 64, 3)
        assert cam.read() is not None  # endless
    with pytest.raises(ValueError, match="unknown camera spec"):
        open_camera("webcam")
    with pytest.raises(ValueError, match="size must look like"):
        open_camera("fake:big")
    with pytest.raises(ValueError, match="replay"):
        open_camera("replay:")


def test_pi_camera_missing_names_picamera2_and_the_apt_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails even on a real Pi
    with pytest.raises(CameraUnavailableError) as info:
        open_camera("pi")
    message = str(info.value)
    assert "picamera2" in message and "python3-picamera2" in message and "apt" in message
    assert isinstance(info.value, CameraError)


class _FakePicamera2:
    """Enough of picamera2.Picamera2 to check how Picamera2Source drives it."""

    instances: list = []

    def __init__(self, camera_num=0):
        self.calls = []
        self.config = None
        _FakePicamera2.instances.append(self)

    def create_video_configuration(self, **kw):
        self.calls.append(("create_video_configuration", kw))
        return kw

    def configure(self, config):
        self.config = config

    def start(self):
        self.calls.append(("start",))

    stalled = False  # True: no frame comes (a camera that stopped delivering)

    def capture_request(self, wait=None):
        assert wait is False, "Picamera2Source must not block on the camera"
        self.requests = getattr(self, "requests", [])
        self.jobs = getattr(self, "jobs", 0) + 1
        return "job"

    def wait(self, job, timeout=None):
        assert timeout is not None and timeout <= 1.0
        if self.stalled:
            raise TimeoutError
        request = _FakeRequest(self, len(self.requests))
        self.requests.append(request)
        return request

    def capture_array(self, name="main"):
        if name == "main":
            w, h = self.config["main"]["size"]
            return np.full((h, w, 3), (10, 20, 30), np.uint8)  # RGB888 is [B, G, R] in memory
        w, h = self.config["lores"]["size"]
        bgr = np.full((h, w, 3), (200, 100, 50), np.uint8)
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)  # (h*3/2, w) like picamera2's YUV420

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


class _FakeRequest:
    """A picamera2 CompletedRequest: both streams of one frame, numbered into the main stream."""

    def __init__(self, cam, number):
        self.cam, self.number, self.released = cam, number, False

    def make_array(self, name):
        assert not self.released, "a released request's buffers are gone"
        arr = self.cam.capture_array(name)
        if name == "main":
            arr[0, 0, 0] = self.number
        return arr

    def release(self):
        assert not self.released, "released twice"
        self.released = True


def test_pi_source_gives_the_main_frame_of_the_same_request_as_lores_and_releases_it(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with open_camera("pi:640x480") as cam:
        fake = _FakePicamera2.instances[-1]
        cam.read_lores()
        cam.read_lores()  # the first request is released unread
        assert fake.requests[0].released and not fake.requests[1].released
        main = cam.main_for_lores()
        assert main.shape == (480, 640, 3) and main[0, 0, 0] == 1  # the second request's frame
        assert fake.requests[1].released
        assert cam.main_for_lores() is None  # taken already: the loop then reads a new frame
        cam.read_lores()
    assert fake.requests[2].released  # closing the camera releases a held request


def test_a_stalled_pi_camera_gives_no_frame_within_its_timeout_and_no_request_is_lost(monkeypatch):
    """#9: the loop never blocks on a device: a camera that stops delivering is a dropped frame
    (the loop reports "no picture"), and the request asked for is waited for again, not asked twice."""
    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with open_camera("pi:640x480") as cam:
        fake = _FakePicamera2.instances[-1]
        fake.stalled = True
        assert cam.read_lores() is None and cam.read_lores() is None
        assert fake.jobs == 1  # the same job waited for again
        fake.stalled = False
        assert cam.read_lores().shape == (240, 320, 3)
        assert fake.jobs == 1 and cam.read_lores() is not None and fake.jobs == 2


def test_recorded_sources_give_the_frame_their_small_one_was_made_from():
    frames = [np.full((480, 640, 3), v, np.uint8) for v in (10, 20)]
    cam = FakeSource(frames)
    assert cam.main_for_lores() is None
    cam.read_lores()
    assert cam.main_for_lores() is frames[0]
    cam.read_lores()
    assert cam.main_for_lores() is frames[1]


def test_pi_source_configures_streams_and_converts_lores(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with open_camera("pi:640x480") as cam:
        assert isinstance(cam, Picamera2Source)
        fake = _FakePicamera2.instances[-1]
        kw = fake.calls[0][1]
        assert kw["main"] == {"size": (640, 480), "format": "RGB888"}
        assert kw["lores"] == {"size": (320, 240), "format": "YUV420"}
        main = cam.read()
        assert main.shape == (480, 640, 3) and tuple(main[0, 0]) == (10, 20, 30)
        lores = cam.read_lores()
        assert lores.shape == (240, 320, 3)
        # colours survive: a wrong YUV code (e.g. the YV12 one) swaps blue and red here
        assert np.abs(lores[120, 160].astype(int) - (200, 100, 50)).max() <= 3
    assert ("stop",) in fake.calls and ("close",) in fake.calls


def test_replay_frames_go_through_the_given_reader_and_its_refusals_are_named_problems(tmp_path):
    """#14: ``--camera replay:`` frames are read by the vision layer's bounded reader; a frame it
    refuses (here a 30000×30000 PNG header, 0.9 MB) is a dropped frame with its reason, not 2.7 GB."""
    import struct
    import zlib

    from companion.app.cmd_play import read_frame

    good = tmp_path / "a.png"
    cv2.imwrite(str(good), np.full((480, 640, 3), 90, np.uint8))
    big = tmp_path / "b.png"
    ihdr = struct.pack(">IIBBBBB", 30000, 30000, 8, 0, 0, 0, 0)
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))  # noqa: E731
    big.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))
    cam = open_camera(f"replay:{good},{big}", decode=read_frame)
    assert cam.read().shape == (480, 640, 3)
    assert cam.read() is None
    (path, why), = cam.problems
    assert path == big and "30000" in why


def test_a_replayed_link_to_the_frame_just_read_is_that_frame_decoded_once(tmp_path):
    import os

    import cv2

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), np.full((48, 64, 3), 10, np.uint8))
    os.symlink("f0.png", frames / "f1.png")  # a still table: the recorder links the repeat
    cv2.imwrite(str(frames / "f2.png"), np.full((48, 64, 3), 200, np.uint8))
    os.symlink("f0.png", frames / "f3.png")  # a link to an earlier frame, not the one just read
    decoded = []

    def decode(path):
        decoded.append(path.name)
        return cv2.imread(str(path))

    source = ReplaySource(frames, decode=decode)
    a, b, c, d = (source.read() for _ in range(4))
    assert b is a and decoded == ["f0.png", "f2.png", "f3.png"]
    assert c[0, 0, 0] == 200 and d[0, 0, 0] == 10 and source.position == 3
    source = ReplaySource(frames)
    small = source.read_lores()
    assert source.read_lores() is small and source.main_for_lores() is not None
    assert source.read_lores()[0, 0, 0] == 200
