"""The live game loop (issue #9 §2): a camera that never stops, a settle detector that decides when
to read, the rules engine, the panel, the screen, and a journal that survives a power cut.

One :class:`PlayLoop` runs one game (Sushi Go!, Sushi Roll: :mod:`companion.app.games`). Every frame's small stream goes through the settle
detector (:class:`companion.vision.motion.SettleDetector`); when the table settles after a change,
the main frame is read (:class:`companion.app.table_game.TableGame`):

* every seat shows its new card(s) → the turn is checked by the engine and, if legal, written to
  the journal (one transaction) *before* it is shown as applied;
* some seats have not revealed yet → ``waiting`` (screen and seat LEDs show whom); a half-done
  reveal is never applied;
* the rules refuse the turn → ``refused`` with the player and the rule, a beep, nothing changes;
  the loop waits for the table to be put right;
* the mat is not seen (lights off, a black frame, markers covered) → the frame is not read.

Undo on the panel takes back the last applied turn: an ``undo`` event in the journal, the game
rebuilt from its events, and the loop waits until the table shows that state again
(:meth:`TableGame.resync`). A resumed game waits the same way.

The read runs ahead: :data:`READ_AHEAD_FRAMES` quiet frames before the settle is decided, the
main frame is taken and read (:meth:`TableGame.look`) on a worker thread while the small stream
goes on through the settle detector; at the settle the loop judges that reading (the table was as
still in that frame as it is now), and motion before the settle drops it. So the time from the last
motion to the scored turn is the settle's own wait plus what of the read is left after it, and the
loop keeps polling the panel and pinging the watchdog while a frame is read.

The loop waits on no device but the camera, whose ``read`` paces it (one frame); the panel is
polled with no wait, and the systemd watchdog is pinged every frame (:class:`companion.app.service.ServiceNotifier`
rate-limits it). Every event is also given to ``emit`` as a JSON-ready dict (``--json``).
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable

from companion.app.journal import Journal, JournalError
from companion.app.table_game import (
    AMBIGUOUS, APPLIED, ILLEGAL, MISMATCH, NO_MAT, SYNCED, UNREADABLE, WAITING, TableGame, TurnOutcome,
)

#: Frames in a row without a picture before the camera is reported as stopped.
CAMERA_GAP_FRAMES = 30
#: Seconds between attempts to journal a turn when the journal cannot be written.
JOURNAL_RETRY_S = 1.0
#: Seconds to wait after a frame that did not come (about one frame at 30 fps).
NO_PICTURE_WAIT_S = 1 / 30
#: Quiet frames still needed for the settle when the main frame is taken and read on the worker
#: thread (3 frames = 100 ms at 30 fps of head start; 0 reads at the settle, on the loop's thread).
READ_AHEAD_FRAMES = 3


@dataclass
class LoopStats:
    """What happened, for tests and benches: frames seen, and for each applied turn the frame
    index it was read from (``applied_at``), the settle frame that decided it (``settled_at``),
    how long reading that frame took (``read_ms``, wall time, on whichever thread), the CPU time
    the reading thread spent on it (``read_cpu_ms``, ``time.thread_time``: what OpenCV's pool threads
    did for it is not counted; on a busy machine ``read_ms`` is mostly the wait for a core) and how
    long the loop's thread spent after the settle judging the reading and journalling it
    (``judge_ms``, not counting a wait for the reader). Times in ms."""

    frames: int = 0
    applied_at: list[int] = field(default_factory=list)
    settled_at: list[int] = field(default_factory=list)
    read_ms: list[float] = field(default_factory=list)
    read_cpu_ms: list[float] = field(default_factory=list)
    judge_ms: list[float] = field(default_factory=list)


@dataclass
class _Ahead:
    """A main frame being read on the worker thread before the settle is decided."""

    frame: Any
    index: int
    fresh: bool  # read for a resync (nothing to compare with)
    future: Future
    read_ms: float | None = None
    read_cpu_ms: float | None = None
    look: Any = None


class PlayLoop:
    """Run one game until it ends or the camera runs out.

    Args:
        table: the game reader (its ``state`` is the game now).
        journal, game_id: where events are written (the game must exist and be unfinished).
        camera: a FrameSource (``read()``, ``read_lores()``; optional ``position``).
        adapter: the game's adapter (``companion.app.games``): rebuilds the state after an undo.
        players, options: as in the journal (for rebuilding).
        panel: a Panel or None; display: a Display or None; notifier: a ServiceNotifier or None.
        emit: called with each event dict.
        link: the Pico (``companion.devices.link``) or None: its ring segment glows for the seat the
            table waits for, and its state is on the status bar; a table without it plays the same.
        resync_to: a state the table must show before play goes on (a resumed game), or None.
        detector: a SettleDetector (default: a new one).
        read_ahead: see :data:`READ_AHEAD_FRAMES` (0: read at the settle, no worker thread).

    Call :meth:`close` (``run`` does) to stop the reader thread.
    """

    def __init__(self, *, table: TableGame, journal: Journal, game_id: int, camera, adapter, players, options,
                 panel=None, display=None, notifier=None, emit: Callable[[dict[str, Any]], None] = lambda e: None,
                 resync_to=None, detector=None, link=None, read_ahead: int = READ_AHEAD_FRAMES) -> None:
        from companion.vision.motion import SettleDetector

        self.table, self.journal, self.game_id, self.camera = table, journal, game_id, camera
        self.adapter, self.players, self.options = adapter, list(players), dict(options)
        self.panel, self.display, self.notifier, self.emit = panel, display, notifier, emit
        self.detector = detector or SettleDetector()
        self.resync_to = resync_to
        self.confirm_turns = 0  # > 0 while the undo confirmation is on screen
        self.picking: dict[str, Any] | None = None  # the card picker, while a card is being named
        self.named: dict[tuple[float, float], str] = {}  # cards named this turn, by place (mm)
        self.first: dict[int, str] = {}  # seat → the card the players said it took first, this turn
        self._last_frame = None  # (frame, index) of the last read, to read again once a card is named
        self._pending: tuple[TurnOutcome, int] | None = None  # a turn read, not yet in the journal
        self._retry_at = 0.0
        self.link = link
        self._devices = {"camera": ("ok", "ok"), "panel": ("ok", "ok") if panel is not None else ("none", "warn"),
                         "journal": ("ok", "ok")}
        if link is not None:
            self._devices["pico"] = ("…", "warn")
        self.stats = LoopStats()
        self._read_next = True  # read the first frame: a resumed table, or an empty one to check
        self._last_event: dict[str, Any] | None = None
        self._asked = False  # the last reading asked a question on the panel
        self._noted: Any = None  # the last question's sight written to the journal
        self._gap = 0
        self.status = ""
        self.read_ahead = int(read_ahead)
        self._reader: ThreadPoolExecutor | None = None
        self._ahead: _Ahead | None = None
        self._running: list[Future] = []  # reads on the worker not yet finished, dropped ones too
        self._settled_at = -1
        self._read_ms, self._read_cpu_ms, self._judge_t0 = 0.0, 0.0, 0.0

    # ---- the loop ---------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game is over (0) or the camera has no more frames (1)."""
        if self.notifier is not None:
            self.notifier.ready("playing")
        try:
            while not self.table.state.is_over or self._pending is not None:
                if not self.step():
                    return 1
            return 0
        finally:
            self.close()

    def close(self) -> None:
        """Wait for a read in progress and stop the reader thread. Safe to call twice."""
        self._ahead = None
        self._quiesce()
        if self._reader is not None:
            self._reader.shutdown(wait=True)
            self._reader = None

    def step(self) -> bool:
        """One frame. False when the camera has no more frames (a replay or simulation ended)."""
        if self.notifier is not None:
            self.notifier.alive()
        if getattr(self.display, "poll_quit", None) is not None and self.display.poll_quit():
            raise KeyboardInterrupt  # the window was closed: stop as Ctrl-C does
        if self._pending is not None:  # a turn read but not yet on disk: nothing else until it is
            if time.monotonic() >= self._retry_at:
                self._commit()
            else:
                time.sleep(0.05)
            return True
        self._poll_panel()
        # The small stream decides when to read; the main frame is taken only then (on a Pi the
        # lores stream costs little; a replay or simulation gives one frame per call either way).
        lores = self.camera.read_lores()
        if lores is None:
            return self._no_picture()
        self._gap = 0
        self.stats.frames += 1
        index = camera_position(self.camera, self.stats.frames)
        events = self.detector.update(lores, time.monotonic(), index)
        if any(e.kind == "moving" for e in events):
            self._ahead = None  # the table moved again: that frame no longer shows it
        settled = any(e.kind == "settled" for e in events)
        if settled:
            self._settled_at = index
        if settled or self._read_next:
            ahead = self._take_ahead()
            if ahead is not None:
                self._read_next = False
                self._read(ahead.frame, ahead.index, ahead.look, ahead.read_ms, ahead.read_cpu_ms)
                return True
            frame = self._still_frame()
            if frame is None:
                self._read_next = True  # the still table is read from the next frame instead
                return self._no_picture()
            self._read_next = False
            self._read(frame, camera_position(self.camera, index))
        elif self._ahead is None and self.read_ahead > 0 and self.detector.frames_to_settle == self.read_ahead:
            frame = self._still_frame()
            if frame is not None:
                self._start_ahead(frame, camera_position(self.camera, index))
        return True

    # ---- reading ahead of the settle ----------------------------------------------------------------
    def _still_frame(self):
        """The full frame of the small one the detector just judged (the camera's
        ``main_for_lores``), or, from a camera that cannot give it, the next frame."""
        take = getattr(self.camera, "main_for_lores", None)
        frame = take() if take is not None else None
        return frame if frame is not None else self.camera.read()

    def _start_ahead(self, frame, index: int) -> None:
        if self._reader is None:
            self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="companion-read")
        fresh = self.resync_to is not None
        ahead = _Ahead(frame, index, fresh, None)  # type: ignore[arg-type]

        def read():
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return self.table.look(frame, fresh=fresh)
            finally:
                ahead.read_cpu_ms = (time.thread_time() - c0) * 1000
                ahead.read_ms = (time.perf_counter() - t0) * 1000

        ahead.future = self._reader.submit(read)
        self._running.append(ahead.future)
        self._ahead = ahead

    def _take_ahead(self):
        """The reading made ahead for this settle, once it is done, or None if there is none that
        still fits (the game was undone or resumed meanwhile). A reader's error is raised here,
        as it would have been reading at the settle."""
        ahead, self._ahead = self._ahead, None
        if ahead is None:
            return None
        look = ahead.future.result()
        self._quiesce()
        if ahead.fresh != (self.resync_to is not None):
            return None
        ahead.look = look
        return ahead

    def _quiesce(self) -> None:
        """Wait for every read on the worker (a dropped one too) before the loop's thread uses
        the table itself: only one thread reads it at a time."""
        if self._running:
            wait(self._running)
            self._running = []

    def _no_picture(self) -> bool:
        """No frame: the end of a replay or simulation (False), or a corrupt frame or a live
        camera's hiccup, which changes nothing (True; reported once it lasts)."""
        if getattr(self.camera, "exhausted", False):
            return False
        time.sleep(NO_PICTURE_WAIT_S)  # a camera that returns at once must not spin the loop
        self._gap += 1
        if self._gap == CAMERA_GAP_FRAMES:
            self._devices["camera"] = ("no picture", "error")
            self._event({"event": "status", "device": "camera", "message": "the camera gives no picture"})
        return True

    # ---- reading ------------------------------------------------------------------------------
    def _read(self, frame, index: int, look=None, read_ms: float | None = None,
              read_cpu_ms: float | None = None) -> None:
        """Read ``frame`` (unless ``look`` is its reading, made in ``read_ms``, ``read_cpu_ms`` of
        them on a CPU) and judge it."""
        self._quiesce()
        self._last_frame = (frame, index)
        resync = self.resync_to is not None
        if look is None:
            t0, c0 = time.perf_counter(), time.thread_time()
            look = self.table.look(frame, fresh=resync)
            read_cpu_ms = (time.thread_time() - c0) * 1000
            read_ms = (time.perf_counter() - t0) * 1000
        self._read_ms, self._read_cpu_ms, self._judge_t0 = read_ms or 0.0, read_cpu_ms or 0.0, time.perf_counter()
        if resync:
            outcome = self.table.resync(frame, self.resync_to, look=look)
        else:
            outcome = self.table.feed(frame, self.named, look=look, first=self.first)
        self._handle(outcome, index)

    def _handle(self, outcome: TurnOutcome, index: int) -> None:
        state = self.table.state
        names = state.players
        # a question on screen belongs to the table it was asked about: a new reading closes it
        asked, self.picking = self.picking, None
        self._asked = outcome.kind == AMBIGUOUS
        if outcome.kind == APPLIED:
            self.confirm_turns = 0
        if outcome.kind != NO_MAT:
            self._devices["camera"] = ("ok", "ok")
        if outcome.kind == SYNCED:
            self.resync_to = None
            self._event({"event": "resumed", "round": state.round, "turn": state.turn})
            self._show(f"the table matches: round {state.round}, turn {state.turn}", "info")
            self._lights(waiting=self.table.next_seats())
        elif outcome.kind == APPLIED:
            self._pending = (outcome, index)
            self._commit()
        elif outcome.kind == WAITING:
            self._event({"event": "waiting", "seats": [names[s] for s in outcome.waiting]})
            self.status = outcome.message
            self._screen(lambda v: v.waiting_view(state, outcome.waiting, status=outcome.message))
            self._lights(waiting=outcome.waiting)
        elif outcome.kind == ILLEGAL:
            self._event({"event": "refused", "rule": outcome.rule, "player": outcome.player,
                         "message": outcome.message})
            self.status = outcome.message
            if outcome.error is not None:
                self._screen(lambda v: v.refusal_view(outcome.error, state))
            else:
                self._show(outcome.message, "error")
            if self.panel is not None:
                self.panel.beep_refused()
                self.panel.show_error(True)
        elif outcome.kind == UNREADABLE and outcome.unknown is not None and self.panel is not None:
            seat, card = outcome.unknown
            candidates = self.adapter.views().card_candidates(state)
            crop = self.table.card_crop(self._last_frame[0], card.center_mm)
            self.picking = {"seat": seat, "card": card, "selected": 0, "candidates": candidates, "crop": crop}
            self._event({"event": "ask", "seat": names[seat], "question": "which card is this?",
                         "message": outcome.message})
            self._picker_screen()
        elif outcome.kind == AMBIGUOUS and self.panel is not None:
            q = outcome.question
            # the same question asked again (the table settled once more): the cursor stays
            same = asked is not None and asked.get("text") == q.text and asked["candidates"] == list(q.options)
            self.picking = {"seat": q.seat, "selected": asked["selected"] if same else 0,
                            "candidates": list(q.options), "crop": None, "text": q.text,
                            "question": _headline(q.text), "kind": "first", "unanswered": q.unanswered,
                            "detail": q.detail}
            self._event({"event": "ask", "seat": names[q.seat], "question": q.text, "message": outcome.message})
            if q.note is not None and q.note != self._noted:  # a sight the table cannot show again
                try:
                    self.journal.append(self.game_id, "seen", q.note, self._where())
                    self._noted = q.note
                except JournalError as exc:
                    self._event({"event": "status", "device": "journal", "message": str(exc)})
            self._picker_screen()
        elif outcome.kind in (UNREADABLE, MISMATCH, AMBIGUOUS):
            self._event({"event": {UNREADABLE: "unreadable", MISMATCH: "mismatch"}.get(outcome.kind, outcome.kind),
                         "message": outcome.message})
            self._show(outcome.message, "error")
        elif outcome.kind == NO_MAT:
            self._event({"event": "status", "device": "camera", "message": outcome.message})
            self._devices["camera"] = ("no mat", "error")
            self._show(outcome.message, "error")

    def _commit(self) -> bool:
        """Journal the turn just read, then announce it. If the journal cannot be written (a full
        disk), the turn is kept waiting and retried every :data:`JOURNAL_RETRY_S`; the table is not
        read meanwhile, so nothing is shown as applied that is not on disk."""
        outcome, index = self._pending
        payload = self.adapter.turn_payload(outcome.round, outcome.turn, outcome.plays)
        try:
            self.journal.append(self.game_id, "turn", payload, {"frame": index})
        except JournalError as exc:
            self._retry_at = time.monotonic() + JOURNAL_RETRY_S
            if self._devices["journal"][1] != "error":
                self._devices["journal"] = ("cannot write", "error")
                self._event({"event": "status", "device": "journal", "message": str(exc)})
                self._show(str(exc), "error")
            return False
        self._pending = None
        self._devices["journal"] = ("ok", "ok")
        self._announce(outcome, index)
        return True

    def _announce(self, outcome: TurnOutcome, index: int) -> None:
        state = self.table.state
        names = state.players
        self.stats.applied_at.append(index)
        self.first = {}
        self.stats.settled_at.append(self._settled_at)
        self.stats.read_ms.append(self._read_ms)
        self.stats.read_cpu_ms.append(self._read_cpu_ms)
        self.stats.judge_ms.append((time.perf_counter() - self._judge_t0) * 1000)
        self.named = {}
        self._event({"event": "applied", "round": outcome.round, "turn": outcome.turn,
                     "plays": self.adapter.event_plays(state, outcome.plays), "totals": self.adapter.totals(state)})
        if state.is_over:
            result = self.adapter.result(state)
            try:
                self.journal.finish(self.game_id, result)
            except JournalError as exc:  # the last turn is on disk: the next start finishes it
                self._event({"event": "status", "device": "journal", "message": str(exc)})
            self._event({"event": "game-over", "result": result})
            self._screen(lambda v: v.final_view(state))
            self._lights(waiting=())
            return
        if outcome.round != state.round:
            self._screen(lambda v: v.round_summary_view(state))  # a round just ended
        else:
            self._show(outcome.message, "info")
        self._lights(waiting=self.table.next_seats())
        if getattr(self.table, "reads_after_turn", False):
            self._read_next = True  # the game's next question needs no change on the table

    # ---- the panel ------------------------------------------------------------------------------
    def _poll_panel(self) -> None:
        if self.panel is None:
            return
        at_frame = getattr(self.panel, "at_frame", None)
        if at_frame is not None:  # a script recorded by camera frame: what was pressed by now
            at_frame(camera_position(self.camera, self.stats.frames - 1))
        while (event := self.panel.get(timeout=0)) is not None:
            self.press(event.name)

    def press(self, name: str) -> None:
        """One panel event. UNDO shows what would be taken back (hold UNDO: more than one turn,
        ◀ ▶ choose how many); OK confirms, BACK keeps the game as it is."""
        if self.picking is not None:
            self._pick(name)
            return
        if name == "ok" and self._asked and hasattr(self.table, "answer") and self._last_frame is not None:
            self._read(*self._last_frame)  # a question left unanswered (BACK) is asked again
            return
        if self.confirm_turns:
            if name == "ok":
                turns, self.confirm_turns = self.confirm_turns, 0
                self.undo(turns)
            elif name == "back":
                self.confirm_turns = 0
                self._show("nothing was taken back", "info")
            elif name in ("left", "right"):
                step = 1 if name == "right" else -1
                self.confirm_turns = max(1, min(self._applied_turns(), self.confirm_turns + step))
                self._confirm_screen()
            return
        if name in ("undo", "undo_turn"):
            applied = self._applied_turns()
            if not applied:
                self._show("nothing to undo yet", "info")
                return
            self.confirm_turns = min(applied, 2 if name == "undo_turn" else 1)
            self._confirm_screen()

    def _rebuilt(self):
        """The game as the journal has it: the state and the turns that count (undo applied)."""
        return self.adapter.rebuild_turns(self.players, self.options, self.journal.events(self.game_id))

    def _applied_turns(self) -> int:
        return len(self._rebuilt().turns)

    def _pick(self, name: str) -> None:
        """The card picker: ◀ ▶ choose, OK names the card (a ``named`` event in the journal, then
        the same frame is read again with it), BACK leaves it unnamed (fix the card instead).
        Asked which card a seat took first (an ambiguous sight), OK answers it the same way (a
        ``chose`` event), BACK leaves the turn unread until the table shows it plainly."""
        p = self.picking
        if name in ("left", "right"):
            p["selected"] = (p["selected"] + (1 if name == "right" else -1)) % len(p["candidates"])
            self._picker_screen()
        elif name == "back":
            self.picking = None
            self._show(p.get("unanswered", "not answered: show it plainly on the table") if p.get("kind") == "first"
                       else "not named: straighten it or check the light", "info")
        elif name == "ok" and p.get("kind") == "first":
            label = p["candidates"][p["selected"]]
            self.picking = None
            try:
                self.journal.append(self.game_id, "chose", {"seat": p["seat"], "first": label}, self._where())
            except JournalError as exc:
                self._devices["journal"] = ("cannot write", "error")
                self._show(f"not answered: {exc}", "error")
                return
            if hasattr(self.table, "answer"):  # a game played on the panel takes each answer once
                self.table.answer(p["seat"], label)
            else:
                self.first[p["seat"]] = label
            self._event({"event": "chose", "seat": self.table.state.players[p["seat"]], "first": label})
            if self._last_frame is not None:
                self._read(*self._last_frame)
        elif name == "ok":
            label = p["candidates"][p["selected"]]
            card = p["card"]
            self.picking = None
            try:
                self.journal.append(self.game_id, "named", {"seat": p["seat"], "card": label,
                                                            "center_mm": list(card.center_mm)}, self._where())
            except JournalError as exc:
                self._devices["journal"] = ("cannot write", "error")
                self._show(f"not named: {exc}", "error")
                return
            self.named[card.center_mm] = label
            self._event({"event": "named", "seat": self.table.state.players[p["seat"]], "card": label})
            if self._last_frame is not None:
                self._read(*self._last_frame)

    def _where(self) -> dict[str, int] | None:
        """Where the camera was for an event from the panel: the frame last read, if any; for a game
        run on the panel (its table takes ``answer``), the frame the camera had sent when the button
        was pressed, so a recorded game's panel script (kept by frame) resumes where its journal ends."""
        if hasattr(self.table, "answer") and self.stats.frames:
            return {"frame": camera_position(self.camera, self.stats.frames - 1)}
        return None if self._last_frame is None else {"frame": self._last_frame[1]}

    def _picker_screen(self) -> None:
        p = self.picking
        extra = {"prompt": p["detail"]} if p.get("detail") is not None else {}
        self._screen(lambda v: v.picker_view(self.table.state, p["seat"], p["selected"], p["candidates"], p["crop"],
                                             question=p.get("question"), **extra))

    def _confirm_screen(self) -> None:
        last = self._rebuilt().turns[-1]
        n = self.confirm_turns
        self._screen(lambda v: v.undo_view(self.table.state.players, last.plays, last.round, last.turn, n))

    def undo(self, turns: int = 1) -> bool:
        """Take back the last ``turns`` applied turns: an ``undo`` event, the game rebuilt, and the
        table must show the earlier state again before play goes on. False when nothing to undo."""
        if self._applied_turns() < turns:
            self._show("nothing to undo", "info")
            return False
        try:
            self.journal.append(self.game_id, "undo", {"turns": turns}, self._where())
        except JournalError as exc:
            self._devices["journal"] = ("cannot write", "error")
            self._show(f"not undone: {exc}", "error")
            return False
        state = self._rebuilt().state
        self.resync_to = state
        self._read_next = True
        if hasattr(self.table, "undone"):  # a game that applies steps nobody is asked about holds them
            self.table.undone()
        self._event({"event": "undone", "turns": turns, "round": state.round, "turn": state.turn})
        self._show(f"undone: put the table back as it was at round {state.round}, turn {state.turn}", "info")
        return True

    # ---- output -----------------------------------------------------------------------------------
    def _event(self, event: dict[str, Any]) -> None:
        if event == self._last_event and event["event"] in ("waiting", "status", "unreadable", "mismatch"):
            return  # the same still table read again: say it once
        self._last_event = event
        self.emit(event)

    def _show(self, status: str, kind: str) -> None:
        """The scoreboard with ``status`` under it (``kind``: info or error); the same line goes to
        ``systemctl status companion`` (``STATUS=``)."""
        self.status = status
        if self.notifier is not None:
            self.notifier.status(status)
        self._screen(lambda v: v.scoreboard_view(self.table.state, status, kind))

    def _screen(self, build) -> None:
        """Show ``build(the game's views)`` with the device status bar, if there is a display."""
        if self.display is None:
            return
        from companion.app.play_views import PlayScreen, StatusBar

        self.display.show(PlayScreen(build(self.adapter.views()), StatusBar.of(**self._devices)))

    def _lights(self, waiting) -> None:
        waiting = list(waiting)
        if self.link is not None:
            state = self.link.state
            self._devices["pico"] = ("ok", "ok") if state == "connected" else (state, "warn")
            try:  # never blocks: the link queues it, or drops it while the Pico is away
                self.link.set_seat(waiting[0] if waiting else None, seats=self.table.state.seats)
            except Exception:  # noqa: BLE001 - a light is never worth stopping a game for
                pass
        if self.panel is None:
            return
        self.panel.show_error(False)
        self.panel.show_waiting(waiting)


def _headline(question: str) -> str:
    """A question as a screen's header: capitalised, without its rulebook citation (the header
    is one line at 480 px; the citation stays in the event and the log)."""
    text = question.split(" (", 1)[0]
    return text[:1].upper() + text[1:]


def camera_position(camera, fallback: int) -> int:
    """Where ``camera`` is: the index of the frame last read (``position`` of a replay or a
    simulation), or ``fallback`` (frames counted by the loop) for a live camera."""
    return int(getattr(camera, "position", fallback))

