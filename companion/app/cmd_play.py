"""``companion play``: a whole game (Sushi Go!, Sushi Roll) at a real (or simulated) table, live and crash-safe
(issue #9 §1).

It opens the journal first and resumes the latest unfinished game of the same game and players
by itself (``--new`` starts another and keeps the old one), then the camera, display and panel,
tells systemd it is ready, and runs :class:`companion.app.play.PlayLoop` until the game is over.

Exit status: 0 the game ended; 1 the camera ran out of frames first (a replay or simulation);
2 bad input (players, options, deck, devices, a journal refused); 130 interrupted (Ctrl-C or
SIGTERM: the last committed turn is in the journal, and the next ``play`` resumes there).
"""

from __future__ import annotations

import json
import sys

from companion.app.cli_util import err


class PlayError(Exception):
    """Bad input to ``companion play``: the message names the option and what to give."""


def parse_players(text: str | None) -> list[str] | None:
    """``"Ann,Bo,Cy"`` -> ``["Ann", "Bo", "Cy"]``; None stays None (the setup menu asks).

    Raises:
        PlayError: an empty name, the same name twice, or a name that every engine refuses
            (:func:`companion.rules.core.player_names`: also by case, control characters, too long).
    """
    from companion.rules.core import PlayerNameError, player_names

    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise PlayError(f"--players {text!r:.80}: names are separated by commas, none of them empty")
    if len(set(names)) != len(names):
        raise PlayError(f"--players {text!r:.80}: each name once")
    try:
        return list(player_names(names))
    except PlayerNameError as exc:
        raise PlayError(f"--players: {exc.problem}") from None


def parse_options(items: list[str] | None) -> dict:
    """``["dummy=true", ...]`` -> ``{"dummy": True}`` (true/false, or an integer)."""
    out: dict = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise PlayError(f"--option {item!r}: write NAME=VALUE, e.g. dummy=true")
        low = value.strip().lower()
        if low in ("true", "yes", "on"):
            out[name] = True
        elif low in ("false", "no", "off"):
            out[name] = False
        elif low.lstrip("-").isdigit():
            out[name] = int(low)
        else:
            raise PlayError(f"--option {item!r}: the value must be true, false or a whole number")
    return out


def plain(event: dict) -> str | None:
    """One line in words for a loop event (what ``play`` prints without ``--json``), or None."""
    kind = event["event"]
    if kind == "applied":
        plays = "; ".join(f"{n}: {' + '.join(c.replace('_', ' ') for c in cards)}" for n, cards in event["plays"].items())
        return f"round {event['round']} turn {event['turn']}: {plays}"
    if kind == "waiting":
        return f"waiting for {', '.join(event['seats'])}"
    if kind == "ask":
        return f"{event['seat']}: {event['question']} ({event['message']})"
    if kind == "named":
        return f"{event['seat']}: named {event['card'].replace('_', ' ')} on the panel"
    if kind == "chose":
        return f"{event['seat']}: answered {event['first'].replace('_', ' ')!r} on the panel"
    if kind in ("resumed", "undone"):
        return f"{kind} at round {event['round']}, turn {event['turn']}"
    if kind == "game-over":
        totals = ", ".join(f"{n} {t}" for n, t in event["result"]["total"].items())
        return f"game over: {totals}; won by {' and '.join(event['result']['winners'])}"
    if kind == "setup":
        return "setup menu on the screen: choose on the panel"
    if "message" in event:  # refused, unreadable, mismatch, status
        return f"{kind}: {event['message']}"
    return None


def _camera(spec: str, adapter, players: list[str], options: dict, seed: int, sim_turns: int | None = None):
    if spec == "sim":
        return adapter.sim_camera(players, options, seed, sim_turns)
    from companion.devices.camera import open_camera

    return open_camera(spec, decode=read_frame)


def read_frame(path):
    """One recorded frame for ``--camera replay:``: (H, W, 3) uint8 BGR, read through the vision
    layer's bounded reader (a regular file, the pixel budget checked from its header, at most
    ``READ_MAX_SIDE`` px a side: a 50 MP frame is not held whole). Raises ImageReadError (an
    OSError) naming the file and why."""
    from companion.vision.cards import READ_MAX_SIDE
    from companion.vision.imageio import read_working

    return read_working(path, READ_MAX_SIDE).image


def _enrolled(adapter, args):
    """The enrolled cards or dice the game's table reader needs (``--deck``/``--dice``; the
    simulator's own with ``--camera sim``)."""
    try:
        return adapter.enrolled(getattr(args, "deck", None), getattr(args, "dice", None), args.camera == "sim")
    except ValueError as exc:
        raise PlayError(str(exc)) from None


def _display(spec: str):
    """Open the screen: ``auto`` is a window on a desktop, the whole screen through KMSDRM on a
    Raspberry Pi's console, and nothing elsewhere (said on stderr)."""
    import os

    if spec == "auto":
        from companion.devices.board import pi_model

        if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
            spec = "window"
        elif pi_model() is not None:
            spec = "kmsdrm"
        else:
            from companion.app.cli_util import note

            note("play: no screen found (no DISPLAY, not a Raspberry Pi): playing without one")
            return None
    if spec == "none":
        return None
    if spec == "kmsdrm":
        os.environ["SDL_VIDEODRIVER"] = "kmsdrm"
        spec = "fullscreen"
    from companion.devices.display import DisplayError, open_display

    try:
        return open_display(spec)
    except (DisplayError, ValueError) as exc:
        raise PlayError(f"--display {spec}: {exc}") from None


def run(args) -> int:
    from companion.app.cli_util import sigterm_as_interrupt
    from companion.app.games import adapter as game_adapter
    from companion.app.journal import Journal, JournalError, default_path
    from companion.rules.errors import MalformedGame

    out = sys.stdout

    def emit(event):
        line = json.dumps(event, ensure_ascii=False) if args.json else plain(event)
        if line:
            out.write(line + "\n")
            out.flush()

    try:
        players = parse_players(args.players)
        options = parse_options(args.option)
        adapter = game_adapter(args.game)
        journal = Journal(args.journal or default_path())
    except (PlayError, KeyError, JournalError) as exc:
        err(f"play: {exc.args[0] if isinstance(exc, KeyError) else exc}")
        return 2
    restore = sigterm_as_interrupt()
    try:
        with journal, _lock(journal.path):
            return _play(args, journal, adapter, players, options, emit)
    except (PlayError, JournalError) as exc:
        err(f"play: {exc}")
        return 2
    except MalformedGame as exc:
        err(f"play: --option: {exc}")
        return 2
    except KeyboardInterrupt:
        err("play: stopped; every applied turn is in the journal, and `companion play` resumes the game")
        return 130
    finally:
        restore()


class _lock:
    """One ``companion play`` per journal: an exclusive ``flock`` on ``JOURNAL.lock`` for as long
    as the game runs (released by the kernel if the process dies). Raises PlayError when another
    holds it."""

    def __init__(self, journal_path) -> None:
        self.path = f"{journal_path}.lock"
        self._fd = None

    def __enter__(self):
        import fcntl
        import os

        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise PlayError(f"another companion play is using {self.path[:-5]}; stop it first "
                            "(systemctl stop companion), or give --journal another file") from None
        return self

    def __exit__(self, *exc) -> None:
        import os

        if self._fd is not None:
            os.close(self._fd)


def _play(args, journal, adapter, players, options, emit) -> int:
    from companion.app.games import adapter as game_adapter
    from companion.app.service import ServiceNotifier

    entry = None if args.new else journal.unfinished(args.game)
    if entry is not None and players is not None and list(entry.players) != players:
        entry = None  # other players at the table: a new game; the unfinished one stays in the journal
    if entry is not None and options and options != entry.options:
        entry = None  # other variants asked for: a new game, the unfinished one kept
    if entry is None and players is None and args.panel == "none":
        raise PlayError("--players Ann,Bo,...: who plays (or a --panel and a screen to choose them on)")
    notifier = ServiceNotifier()
    display = _display(args.display)
    panel = _panel(args.panel)
    appliance = players is None  # started as the service starts it: game after game, from the menu
    try:
        while True:
            if entry is None and players is None:
                if display is None:
                    raise PlayError("--players Ann,Bo,...: who plays (or a --display to show the setup menu on)")
                choice = setup_menu(journal, panel, display, notifier, emit)
                players, options = list(choice.players), dict(choice.options)
                adapter = game_adapter(choice.game)
            code, game_id = _run_game(args, journal, adapter, entry, players, options, emit, display, panel, notifier)
            if code != 0 or panel is None or display is None:
                return code
            # The final screen stays until OK; UNDO there takes the last turn back and plays on.
            if final_screen(journal, game_id, adapter, panel, display, notifier, emit) == "undone":
                entry = journal.game(game_id)
                continue
            if not appliance:
                return code
            entry, players, options = None, None, {}  # then the setup menu for the next game
    finally:
        notifier.stopping()  # STOPPING=1: systemd sees a stop on purpose, not a hang
        if panel is not None:
            panel.close()
        if display is not None:
            display.close()


def _wait_for(panel, name: str, notifier, display) -> None:
    """Wait for the panel event ``name``, pinging the watchdog (the final screen stays meanwhile)."""
    while True:
        notifier.alive()
        if getattr(display, "poll_quit", None) is not None and display.poll_quit():
            raise KeyboardInterrupt
        event = panel.get(timeout=0.2)
        if event is not None and event.name == name:
            return
        if event is None and getattr(panel, "exhausted", False):
            raise KeyboardInterrupt  # a panel script has nothing more to say: stop as Ctrl-C does


def final_screen(journal, game_id, adapter, panel, display, notifier, emit) -> str:
    """Keep the final screen up until OK (``"next"``); ◀ ▶ leaf through each round's summary (and
    the game end's payout, for Sushi Roll) and back. UNDO (hold: more turns) confirmed with OK:
    the last turn(s) are taken back in the journal (:meth:`Journal.reopen`) and the game is
    unfinished again (``"undone"``; it resumes, and the table is checked against
    the earlier state). BACK on the confirmation returns to the final screen. A panel script that
    ends here ends the game as OK would. Pings the watchdog while it waits."""
    from companion.app.play_views import PlayScreen

    entry = journal.game(game_id)
    turns = 0  # > 0 while the undo confirmation is on screen
    page = 0  # ◀ ▶ leaf through the final screen and each round's summary (with its payout)
    while True:
        notifier.alive()
        if getattr(display, "poll_quit", None) is not None and display.poll_quit():
            raise KeyboardInterrupt
        event = panel.get(timeout=0.2)
        if event is None:
            if getattr(panel, "exhausted", False):
                return "next"
            continue
        rebuilt = adapter.rebuild_turns(list(entry.players), dict(entry.options), journal.events(game_id))
        views = adapter.views()
        if not turns and event.name == "ok":
            return "next"
        if not turns and event.name in ("undo", "undo_turn"):
            turns = min(len(rebuilt.turns), 2 if event.name == "undo_turn" else 1)
        elif turns and event.name in ("left", "right"):
            turns = max(1, min(len(rebuilt.turns), turns + (1 if event.name == "right" else -1)))
        elif event.name in ("left", "right"):
            pages = _final_pages(views, rebuilt.state)
            page = (page + (1 if event.name == "right" else -1)) % len(pages)
            display.show(PlayScreen(pages[page]()))
            continue
        elif turns and event.name == "back":
            turns = 0
            display.show(PlayScreen(views.final_view(rebuilt.state)))
            continue
        elif turns and event.name == "ok":
            journal.reopen(game_id, "undo", {"turns": turns})
            state = adapter.rebuild(list(entry.players), dict(entry.options), journal.events(game_id))
            emit({"event": "undone", "turns": turns, "round": state.round, "turn": state.turn})
            return "undone"
        else:
            continue
        if turns:
            last = rebuilt.turns[-1]
            display.show(PlayScreen(views.undo_view(list(entry.players), last.plays, last.round, last.turn, turns)))


def _final_pages(views, state) -> list:
    """What ◀ ▶ leaf through on the final screen: the final ranking, then each round's summary,
    then the game end's (puddings, leftover tokens and the tokens they pay, where the game has
    one), each a function that builds its view."""
    from companion.rules.core import GAME_END

    pages = [lambda: views.final_view(state)]
    pages += [lambda r=r: views.round_summary_view(state, r) for r in range(1, len(getattr(state, "round_scores", ())) + 1)]
    try:
        views.round_summary_view(state, GAME_END)
    except (ValueError, TypeError):  # a game whose end pays no tokens of its own
        return pages
    return pages + [lambda: views.round_summary_view(state, GAME_END)]


def pending_answers(events) -> list:
    """The panel answers (``chose`` events) and the sights they were about (``seen``) after the last
    step that counts: a step answered in part when the companion stopped, to be finished where it was."""
    out: list = []
    for event in events:
        if event.kind in ("turn", "undo"):
            out = []
        elif event.kind in ("chose", "seen") and isinstance(event.payload, dict):
            out.append(event)
    return out


def setup_menu(journal, panel, display, notifier, emit):
    """Ask on the panel and screen which game, how many players, who, and which variants
    (:class:`companion.app.menu.SetupMenu`); names of earlier games are offered first.
    Returns its SetupChoice. Pings the watchdog while it waits."""
    from companion.app.menu import SetupMenu
    from companion.app.play_views import PlayScreen
    from companion.rules.core import name_problem

    names: list[str] = []
    for entry in reversed(journal.games()):
        # a journal written before the name rules may hold a name the engines now refuse: not offered
        names += [n for n in entry.players if n not in names and name_problem(n) is None]
    from companion.app.games import GAMES

    menu = SetupMenu(games=tuple(GAMES), saved_names=names)
    notifier.ready("setup menu")
    emit({"event": "setup"})
    while True:
        display.show(PlayScreen(menu.view()))
        event = None
        while event is None:
            notifier.alive()
            if getattr(display, "poll_quit", None) is not None and display.poll_quit():
                raise KeyboardInterrupt
            event = panel.get(timeout=0.2)
            if event is None and getattr(panel, "exhausted", False):
                raise KeyboardInterrupt  # a panel script ended inside the menu
        if event.name in ("undo", "undo_turn"):
            continue
        choice = menu.handle(event.name)
        if choice is not None:
            return choice


def _run_game(args, journal, adapter, entry, players, options, emit, display, panel, notifier) -> tuple[int, int]:
    """Play one game (a new one, or `entry` resumed) to its end; (exit code, the game's id)."""
    from companion.app.play import PlayLoop, camera_position

    resumed = entry is not None
    if resumed:
        players, options = list(entry.players), dict(entry.options)
        events = journal.events(entry.id)
        state = adapter.rebuild(players, options, events)
        game_id = entry.id
        if state.is_over:  # it stopped between the last turn and marking the game finished
            result = adapter.result(state)
            journal.finish(game_id, result)
            emit({"event": "game-over", "result": result})
            if display is not None:
                from companion.app.play_views import PlayScreen

                display.show(PlayScreen(adapter.views().final_view(state)))
            return 0, game_id
        last_frame = max((e.source or {}).get("frame", -1) for e in events) if events else -1
    else:
        try:  # checks players and options before anything opens
            state = adapter.new_state(players, options)
        except ValueError as exc:  # MalformedGame is one too
            raise PlayError(f"--players/--option: {exc}") from None
        game_id = None
        last_frame = -1
    deck = _enrolled(adapter, args)
    from companion.devices.camera import CameraError

    try:
        camera = _camera(args.camera, adapter, players, options, args.seed, getattr(args, "sim_turns", None))
    except (ValueError, OSError, CameraError) as exc:
        raise PlayError(f"--camera {args.camera}: {exc}") from None
    with camera:
        if resumed and last_frame >= 0 and (args.camera == "sim" or args.camera.startswith("replay")):
            # a recorded or simulated camera continues where the journal was
            if hasattr(camera, "skip_to"):
                camera.skip_to(last_frame)
            while camera_position(camera, last_frame) < last_frame:
                if camera.read() is None and getattr(camera, "exhausted", False):
                    break
        if game_id is None:
            game_id = journal.new_game(adapter.name, players, options)
        table = adapter.table_reader(players, options, deck)
        if resumed and hasattr(table, "restore"):
            table.restore(pending_answers(journal.events(game_id)))  # answered before the stop, not lost
        if resumed and last_frame >= 0 and hasattr(panel, "skip_frames"):
            panel.skip_frames(last_frame)  # a script kept by frame: those presses are in the journal
        if args.camera == "sim" and hasattr(adapter, "watch_sim"):  # a simulated table that acts when asked
            adapter.watch_sim(camera, table, args.seed)
        with _link(getattr(args, "link", "none")) as link:
            loop = PlayLoop(table=table, journal=journal, game_id=game_id, camera=camera, adapter=adapter,
                            players=players, options=options, panel=panel, display=display,
                            notifier=notifier, emit=emit, resync_to=state if resumed else None, link=link)
            code = loop.run()
    if code != 0:
        st = table.state
        err(f"play: the camera ran out of frames at round {st.round}, turn {st.turn}; "
            "the game stays in the journal to resume")
    return code, game_id


class _link:
    """The Pico, opened for the game and closed after (``none``: no Pico, a context of None)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.link = None

    def __enter__(self):
        if self.spec == "none":
            return None
        from companion.devices.link import LinkError, open_link
        from companion.devices.pinout import PinoutError, load_pinout

        try:
            pinout = load_pinout()
            self.link = open_link(self.spec, vid_pid=pinout.peripheral_vid_pid, fallback=pinout.peripheral_fallback)
        except (LinkError, PinoutError, OSError) as exc:
            raise PlayError(f"--link {self.spec}: {exc}") from None
        return self.link

    def __exit__(self, *exc) -> None:
        if self.link is not None:
            self.link.close()


def _panel(spec: str):
    if spec == "none":
        return None
    if spec == "keys":
        spec = "keys:pump"  # the loop pumps no pygame events itself: the panel reads its keys
    from companion.devices.panel import PanelError, open_panel

    try:
        return open_panel(spec)
    except PanelError as exc:
        raise PlayError(f"--panel {spec}: {exc}") from None
