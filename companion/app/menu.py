"""The setup menu: a pure state machine fed the panel's event names (issue #9 §1, §4).

When ``companion play`` starts without ``--players`` (as the service starts it), the panel sets the
game up one field at a time, in this order:

    game → number of players → a name per seat → the game's variant options → Start

Every field works the same way: ◀ ▶ (``left``/``right``) change its value, ``ok`` confirms it and
moves to the next field, ``back`` returns to the previous one (its value kept), ``menu`` (hold OK)
returns to the first field. ``ok`` on Start returns a :class:`SetupChoice`. The panel's ``undo`` and
``undo_turn`` mean nothing here and are ignored; any other name is refused with a ValueError.

Names come from a saved list (then ``Player 1``… so there are always enough); a name taken by an
earlier seat is not offered again. Sushi Go! options are the booleans of
:class:`companion.rules.sushi_go.state.SushiGoOptions` plus who runs the dummy first; the two-player
dummy variant (sushi-go-with-variants.txt, TWO-PLAYER VARIANT) and its sub-options are offered only
with exactly 2 players, and pass-both-ways (sushi-go.txt, VARIANT RULE) always. Sushi Roll asks
who has the red-bordered belt (sushi-roll.txt, SET UP) and what equal puddings score (the engine's
open point, :class:`companion.rules.sushi_roll.state.SushiRollOptions`).

No pygame, no devices: :meth:`SetupMenu.view` returns the pure ``SetupView`` that the screen draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from companion.app.play_views import CHANGE_HINT, MenuItem, SetupView
from companion.devices.panel import EVENTS as PANEL_EVENTS
from companion.rules.core import name_problem, same_name_key
from companion.rules.sushi_go.state import DUMMY_NAME, SushiGoOptions

#: The panel events the menu reacts to; the panel's other events are ignored (see the module doc).
MENU_EVENTS = ("left", "right", "ok", "back", "menu")
IGNORED_EVENTS = tuple(e for e in PANEL_EVENTS if e not in MENU_EVENTS)

#: Game id (as on the command line) -> the title shown.
GAME_TITLES = {"sushi-go": "Sushi Go!", "sushi-roll": "Sushi Roll", "sushi-express": "Sushi Express"}


@dataclass(frozen=True)
class SetupChoice:
    """What the menu settled on: the game id, the players' names in seat order, and the game's
    options as the JSON object its adapter parses (``SushiGoOptions.from_mapping``); options the
    menu did not offer (e.g. the dummy's with 3 players) are left out, so they keep their defaults."""

    game: str
    players: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Option:
    """One variant option: its field name, label, the explanation shown while it is chosen, the
    values ◀ ▶ cycle through, and when it is offered."""

    name: str
    label: str
    prompt: str
    values: tuple[Any, ...]
    offered: Callable[["SetupMenu"], bool]


def _two_players(m: "SetupMenu") -> bool:
    return m.n_players == 2 and DUMMY_NAME not in m.players()


def _with_dummy(m: "SetupMenu") -> bool:
    return _two_players(m) and bool(m.option_values.get("dummy"))


#: Options per game, in the order they are asked. Dummy sub-options follow "dummy" so that turning
#: the dummy off hides only fields that come later.
GAME_OPTIONS: dict[str, tuple[_Option, ...]] = {
    "sushi-go": (
        _Option("pass_both_ways", "Pass both ways", "Round 2 passes hands to the right", (False, True), lambda m: True),
        _Option(
            "same_turn_wasabi_triples",
            "Same-turn wasabi",
            "A nigiri taken with chopsticks goes on a wasabi taken the same turn",
            (False, True),
            lambda m: True,
        ),
        _Option("dummy", "Dummy player", "Two-player variant: a third dummy hand", (False, True), _two_players),
        _Option(
            "dummy_uses_chopsticks",
            "Dummy chopsticks",
            "The dummy may use its chopsticks (2 cards)",
            (False, True),
            _with_dummy,
        ),
        _Option(
            "dummy_in_pudding_penalty",
            "Dummy in puddings",
            "The dummy counts for the fewest-puddings penalty",
            (False, True),
            _with_dummy,
        ),
        _Option(
            "first_dummy_controller",
            "Dummy first run by",
            "Who controls the dummy on the first turn",
            (0, 1),
            _with_dummy,
        ),
    ),
    "sushi-roll": (
        _Option("red_seat", "Red belt", "Who has the red-bordered belt (starts each turn)", (0, 1, 2, 3, 4),
                lambda m: True),
        _Option("pudding_all_equal", "Equal puddings", "When every player has as many puddings: nobody scores, "
                "or all tie for most and fewest", ("nobody", "most-and-fewest"), lambda m: True),
    ),
    "sushi-express": (
        _Option("first_player", "First guess", "Who guesses first in round 1", (0, 1, 2, 3, 4, 5), lambda m: True),
        _Option("equal_tips_penalty", "Equal tips", "When all have as many tips, all lose points",
                (False, True), lambda m: True),
    ),
}
#: Options whose value is a seat: ◀ ▶ cycle through the seats in play, shown by the player's name.
SEAT_OPTIONS = ("first_dummy_controller", "red_seat", "first_player")

FIRST_HINT = (("◀▶", "change"), ("OK", "next"))
START_HINT = (("OK", "start"), ("BACK", "back"))


class SetupMenu:
    """The setup menu's state (see the module doc for the steps and the events).

    Args:
        games: game ids offered, first is the default (e.g. ``("sushi-go",)``).
        saved_names: names offered for the seats, in this order; surrounding spaces and
            duplicates (also names that differ only by case) are dropped. ``Player 1``… are
            added after them so every seat has a name.
        min_players, max_players: the outer range of the players step (default 2 to 6); the chosen
            game narrows it (its adapter's ``players``: Sushi Go! 2 to 5, sushi-go.txt, STARTING A
            ROUND; Sushi Express 3 to 6). The count starts at ``min_players + 1`` capped at the max.

    Raises:
        ValueError: no games; a saved name that is not a non-empty string or that
            :func:`companion.rules.core.name_problem` refuses (control characters, too long...);
            a player range that is empty or below 1.
    """

    def __init__(
        self,
        games: Sequence[str] = ("sushi-go",),
        saved_names: Sequence[str] = (),
        min_players: int = 2,
        max_players: int = 6,
    ) -> None:
        self.games = tuple(games)
        if not self.games or not all(isinstance(g, str) and g for g in self.games):
            raise ValueError(f"the setup menu needs at least one game id, got {list(games)!r}")
        if not 1 <= min_players <= max_players:
            raise ValueError(f"players must range over 1 <= min <= max, got min {min_players}, max {max_players}")
        pool: list[str] = []
        keys: set[str] = set()  # names already in the pool, as the engines compare them (case ignored)
        for name in saved_names:
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"saved player names must be non-empty strings, got {name!r:.60}")
            problem = name_problem(name.strip())  # the names every engine takes, no other
            if problem is not None:
                raise ValueError(f"saved player name {problem}")
            if same_name_key(name.strip()) not in keys:
                pool.append(name.strip())
                keys.add(same_name_key(name.strip()))
        k = 1
        while len(pool) < max_players:  # enough names for every seat, whatever was saved
            if same_name_key(f"Player {k}") not in keys:
                pool.append(f"Player {k}")
                keys.add(same_name_key(f"Player {k}"))
            k += 1
        self.pool = tuple(pool)
        self.min_players, self.max_players = min_players, max_players
        self.game_index = 0
        self.n_players = min(min_players + 1, max_players)
        self.preferred = list(self.pool[:max_players])  # each seat's name as last chosen
        defaults = SushiGoOptions().to_dict()
        self.option_values: dict[str, Any] = {
            o.name: defaults.get(o.name, o.values[0]) for opts in GAME_OPTIONS.values() for o in opts
        }
        self.step = 0

    # -- what the fields are now ------------------------------------------------------------------

    @property
    def game(self) -> str:
        """The game id chosen now."""
        return self.games[self.game_index]

    def players(self) -> tuple[str, ...]:
        """The seats' names now, in seat order: each seat keeps its last choice unless an earlier
        seat has taken that name, then it gets the first free name of the pool."""
        taken: list[str] = []
        for seat in range(self.n_players):
            want = self.preferred[seat]
            if want in taken:
                want = next(n for n in self.pool if n not in taken)
            taken.append(want)
        return tuple(taken)

    def player_range(self) -> tuple[int, int]:
        """The players the chosen game is for (its adapter's ``players``), within the menu's own range."""
        from companion.app.games import GAMES, adapter

        low, high = adapter(self.game).players if self.game in GAMES else (self.min_players, self.max_players)
        return max(low, self.min_players), min(high, self.max_players)

    def options(self) -> list[_Option]:
        """The options offered now for the chosen game and players."""
        return [o for o in GAME_OPTIONS.get(self.game, ()) if o.offered(self)]

    def fields(self) -> list[tuple[str, Any]]:
        """Every field in order: ``("game", None)``, ``("players", None)``, ``("name", seat)``,
        ``("option", _Option)``, ``("start", None)``."""
        out: list[tuple[str, Any]] = [("game", None), ("players", None)]
        out += [("name", seat) for seat in range(self.n_players)]
        out += [("option", o) for o in self.options()]
        return out + [("start", None)]

    # -- events ---------------------------------------------------------------------------------------

    def handle(self, event: str) -> SetupChoice | None:
        """Feed one panel event; returns the SetupChoice when ``ok`` is pressed on Start, else None.

        Raises:
            ValueError: ``event`` is not a panel event name (lists the ones the menu uses).
        """
        if event in IGNORED_EVENTS:
            return None
        if event not in MENU_EVENTS:
            raise ValueError(f"the setup menu takes the panel events {', '.join(MENU_EVENTS)}; got {event!r}")
        kind, arg = self.fields()[self.step]
        if event == "menu":
            self.step = 0
        elif event == "back":
            self.step = max(0, self.step - 1)
        elif event == "ok":
            if kind == "start":
                return self.choice()
            if kind == "name":  # pin what is shown, so going back later shows the same
                self.preferred[arg] = self.players()[arg]
            self.step += 1
        else:
            self._change(kind, arg, 1 if event == "right" else -1)
        return None

    def _change(self, kind: str, arg: Any, delta: int) -> None:
        if kind == "game":
            self.game_index = (self.game_index + delta) % len(self.games)
            low, high = self.player_range()
            self.n_players = min(high, max(low, self.n_players))
        elif kind == "players":  # a count stops at its ends rather than wrapping
            low, high = self.player_range()
            self.n_players = min(high, max(low, self.n_players + delta))
        elif kind == "name":
            earlier = self.players()[:arg]
            free = [n for n in self.pool if n not in earlier]
            now = self.players()[arg]
            self.preferred[arg] = free[(free.index(now) + delta) % len(free)]
        elif kind == "option":
            values = arg.values[: self.n_players] if arg.name in SEAT_OPTIONS else arg.values
            if self.option_values[arg.name] not in values:
                self.option_values[arg.name] = values[0]
            self.option_values[arg.name] = values[(values.index(self.option_values[arg.name]) + delta) % len(values)]

    def choice(self) -> SetupChoice:
        """The setup as it stands (what ``ok`` on Start returns)."""
        values = {o.name: self.option_values[o.name] for o in self.options()}
        for name in SEAT_OPTIONS:
            if name in values and values[name] >= self.n_players:
                values[name] = 0
        return SetupChoice(self.game, self.players(), values)

    # -- the screen ---------------------------------------------------------------------------------

    def _value_text(self, option: _Option) -> str:
        value = self.option_values[option.name]
        if option.name in SEAT_OPTIONS:
            return self.players()[value if value < self.n_players else 0]
        if isinstance(value, str):
            return value
        return "yes" if value else "no"

    def view(self) -> SetupView:
        """The menu as the screen shows it: every field with its value, the current one selected."""
        names = self.players()
        items: list[MenuItem] = []
        prompt = ""
        fields = self.fields()
        for i, (kind, arg) in enumerate(fields):
            if kind == "game":
                item, ask = MenuItem("Game", GAME_TITLES.get(self.game, self.game)), "Which game?"
            elif kind == "players":
                item, ask = MenuItem("Players", str(self.n_players)), "How many players?"
            elif kind == "name":
                item, ask = MenuItem(f"Seat {arg + 1}", names[arg], seat=arg), f"Who sits at seat {arg + 1}?"
            elif kind == "option":
                item, ask = MenuItem(arg.label, self._value_text(arg)), arg.prompt
            else:
                summary = f"{GAME_TITLES.get(self.game, self.game)}, {self.n_players} players"
                item, ask = MenuItem("Start", summary, kind="button"), "OK starts the game"
            items.append(item)
            if i == self.step:
                prompt = ask
        kind = fields[self.step][0]
        hint = START_HINT if kind == "start" else FIRST_HINT if self.step == 0 else CHANGE_HINT
        return SetupView("New game", items, self.step, prompt, hint, f"{self.step + 1}/{len(fields)}")
