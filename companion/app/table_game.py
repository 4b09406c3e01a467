"""The main job: read a Sushi Go! game from the frames taken after each reveal, and score it.

One :class:`TableGame` holds an observed game in the rules engine, a mat tracker and an enrolled
deck. Each frame goes through: mat homography → card quads and labels → cards per seat zone →
:func:`~companion.app.turns.infer_play` per seat → the engine's ``apply_turn``, which checks the
whole turn and scores a round when its last turn resolves. A frame that cannot be read, or a turn
the rules refuse, changes nothing: the game, the tracker's view of the table, and the previous
frame's cards all stay as they were.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

from companion.app.turns import MOVE_TOLERANCE_MM, Ambiguous, SeenCard, TurnReadError, infer_play
from companion.rules.errors import IllegalAction
from companion.rules.sushi_go import apply_turn, new_observed_game
from companion.rules.sushi_go.cards import UNKNOWN, Card
from companion.rules.sushi_go.state import SushiGoOptions, SushiGoState

if TYPE_CHECKING:  # numpy and cv2 are only needed once frames arrive
    import numpy as np

    from companion.vision.deck import Deck
    from companion.vision.mat_layout import MatLayout

#: Outcome kinds of :meth:`TableGame.feed`.
APPLIED, NO_MAT, UNREADABLE, ILLEGAL, GAME_OVER = "applied", "no-mat", "unreadable", "illegal", "game-over"
#: More outcome kinds: some seats have not revealed yet; the table matches (or not) the game's state.
WAITING, SYNCED, MISMATCH = "waiting", "synced", "mismatch"
#: The frame fits more than one legal turn that the rules score differently: the players are asked.
AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class Question:
    """What to ask when a frame fits two legal turns (issue #13 A): ``seat`` took ``options``
    (card labels) and ``text`` asks which came first; the answer goes to :meth:`TableGame.feed`
    as ``first={seat: label}``. Other games ask their own questions the same way (``options``
    are then the answers, and ``unanswered`` what to do instead)."""

    seat: int
    text: str
    options: tuple[str, ...]
    #: what the status says when the players leave the question unanswered (BACK)
    unanswered: str = "not answered: lay the nigiri on its wasabi"
    #: the game's own description of the question, for its screens (Sushi Express: a Prompt), or None
    detail: Any = None
    #: what the table showed that the question is about, when the game cannot see it again (a throw
    #: of the dice): journalled as a ``"seen"`` event, so a resumed game asks the same; or None
    note: Any = None


@dataclass
class TurnOutcome:
    """What one frame did.

    kind: ``"applied"`` (the turn was read and the engine accepted it), ``"no-mat"`` (the mat is
        not seen in this frame, or the frame is corrupt), ``"waiting"`` (some seats have not
        revealed yet: ``waiting`` lists them; a half-done reveal is never applied),
        ``"unreadable"`` (a zone did not show one play),
        ``"illegal"`` (the rules refused the turn), ``"ambiguous"`` (the frame fits two legal
        turns that score differently: ``question`` says what to ask), ``"game-over"`` (a frame
        after the end), or,
        from :meth:`TableGame.resync`, ``"synced"``/``"mismatch"``.
    message: one line for the table, naming the player and the rule where there is one.
    plays: seat → the cards taken, for an applied (or refused) turn.
    waiting: the seats that have not revealed yet (``"waiting"``).
    rule, player, error: for ``"illegal"``, the rule's id, the player it names and the
        ``IllegalAction`` itself.
    unknown: for ``"unreadable"`` because no enrolled face matched a card: (seat, that card), so
        the player can name it (:meth:`TableGame.feed`'s ``named``).
    round, turn: the round and turn this frame was read as (1-based).
    """

    kind: str
    message: str
    round: int
    turn: int
    plays: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    waiting: tuple[int, ...] = ()
    rule: str = ""
    player: str | None = None
    error: IllegalAction | None = None
    unknown: tuple[int, SeenCard] | None = None
    question: Question | None = None

    @property
    def ok(self) -> bool:
        return self.kind == APPLIED


@dataclass(frozen=True)
class Look:
    """One frame read into cards per seat, not yet judged by the rules (:meth:`TableGame.look`).

    seen: seat → the cards in its zone (key None: outside every zone), or None when the mat is
        not seen in the frame (or the frame is corrupt).
    message: the mat tracker's word on the frame.
    fresh: read with nothing to compare with (for :meth:`TableGame.resync`).
    accepted: how many readings the game had made its reference when this one was made (a look
        read against an older reference is not used).
    sighting, homography: the card reading and the (3, 3) image px → mat mm homography it was
        made with; tracker: the fresh card tracker that made a fresh reading.
    """

    seen: dict[int | None, list[SeenCard]] | None
    message: str
    fresh: bool = False
    accepted: int = 0
    sighting: Any = None
    homography: Any = None
    tracker: Any = None


class TableGame:
    """An observed Sushi Go! game fed by overhead frames.

    Args:
        players: the real players' names, in seat order (seat ``i`` sits in mat zone ``i``).
        layout: the mat; it needs a zone for every seat (the dummy variant uses the 3-seat mat,
            the dummy's cards in zone 2).
        deck: the enrolled deck that labels cards.
        options: Sushi Go! options (variants and open points).

    Raises:
        ValueError: the mat has fewer zones than the game has seats, or as ``new_observed_game``.
    """

    def __init__(
        self, players: Sequence[str], layout: MatLayout, deck: Deck, options: SushiGoOptions | None = None
    ) -> None:
        from companion.vision.mat import MatTracker
        from companion.vision.table_cards import CardTracker

        self.state: SushiGoState = new_observed_game(players, options)
        if len(layout.zones) < self.state.seats:
            raise ValueError(
                f"mat {layout.name} has {len(layout.zones)} zones but the game has {self.state.seats} seats"
            )
        self.layout = layout
        self.deck = deck
        self.tracker = MatTracker(layout)
        self.cards = CardTracker(layout, deck)
        self._sighting = None
        # References made so far (accepted readings, round-end clears): a look made before one is stale.
        self._accepted = 0
        self._homography = None  # image px -> mat mm of the last frame read
        self._before: dict[int, list[SeenCard]] = {s: [] for s in range(self.state.seats)}

    def next_seats(self) -> tuple[int, ...]:
        """The seats the table waits for next (their LEDs glow): every seat, as everyone reveals
        at once (sushi-go.txt, PLAYING A ROUND); none once the game is over."""
        return () if self.state.is_over else tuple(range(self.state.seats))

    def look(self, frame: np.ndarray, fresh: bool = False) -> Look:
        """Read one frame into cards per seat, judging nothing (see :class:`Look`).

        Changes nothing the game depends on, so it may run ahead on a worker thread while the
        table is still settling (:class:`companion.app.play.PlayLoop`); only the mat tracker learns
        the frame's homography. ``fresh``: read with nothing to compare with, as
        :meth:`resync` needs; otherwise against the last reading a turn was applied from.

        Args:
            frame: (H, W, 3) uint8 BGR.
        """
        from companion.vision.mat import assign_to_zones, to_mat_mm
        from companion.vision.table_cards import CardTracker

        status = self.tracker.update(frame)
        # A frame in which the mat is not seen (lights off, a black frame, markers covered) is not
        # read at all: with the kept homography it would read as a table whose cards all vanished.
        if status.homography is None or status.bad_frame or not status.found:
            return Look(None, status.message, fresh, self._accepted)
        cards = CardTracker(self.layout, self.deck) if fresh else self.cards
        # Read against the last accepted frame (see companion.vision.table_cards); the reading
        # becomes the reference only if the turn it shows is applied.
        sighting = cards.read(frame, status.homography)
        observations = sighting.observations()
        zones = assign_to_zones(self.layout, status.homography, observations)
        seen: dict[int | None, list[SeenCard]] = {}
        for seat, obs in zones.items():
            centres = to_mat_mm(status.homography, [o.center for o in obs]) if obs else []
            seen[seat] = [
                SeenCard(o.label, (float(c[0]), float(c[1])), float(o.confidence)) for o, c in zip(obs, centres)
            ]
        return Look(seen, status.message, fresh, self._accepted, sighting, status.homography, cards if fresh else None)

    def _accept(self, sighting) -> None:
        self.cards.accept(sighting)
        self._accepted += 1

    def _take(self, found: Look) -> None:
        """Remember where the mat was and what was seen, for :meth:`card_crop` and ``accept``."""
        if found.seen is not None:
            self._homography = found.homography
            self._sighting = found.sighting

    def card_crop(self, frame: np.ndarray, center_mm: tuple[float, float], px_per_mm: float = 3.0) -> np.ndarray | None:
        """What the camera saw around a card: a square of 1.2 card lengths centred on
        ``center_mm`` (mat mm), straightened onto the mat at ``px_per_mm``; (N, N, 3) uint8 BGR,
        or None before the mat was found. For the card picker, so the player sees which card."""
        from companion.vision.mat import mat_square

        if self._homography is None:
            return None
        return mat_square(frame, self._homography, center_mm, max(self.layout.card_mm) * 1.2, px_per_mm)

    def resync(self, frame: np.ndarray, state: SushiGoState, look: Look | None = None) -> TurnOutcome:
        """Adopt ``state`` (a game rebuilt from the journal, or an undo) once the table shows it.

        The frame is read afresh (nothing to compare with); when every seat's zone holds exactly
        the cards ``state`` says (:func:`expected_on_table`; a wasabi showing beside its nigiri is
        forgiven), the game takes ``state`` and this reading becomes the reference for the next
        reveal: ``"synced"``. Otherwise nothing changes and the outcome is ``"mismatch"``, naming
        the first seat that differs and how, so the table can be put back; or ``"no-mat"``.
        ``look``: this frame already read fresh (:meth:`look`), if it was.
        """

        where = dict(round=state.round, turn=state.turn)
        if look is None or not look.fresh:  # (a fresh reading does not depend on the reference)
            look = self.look(frame, fresh=True)
        self._take(look)
        seen = look.seen
        if seen is None:
            return TurnOutcome(NO_MAT, look.message, **where)
        for seat in range(state.seats):
            got = Counter(c.label for c in seen.get(seat, []))
            want = expected_on_table(state, seat)
            covered = sum(p.nigiri is not None for p in state.tableaux[seat]) if not state.is_over else 0
            extra_wasabi = got[Card.WASABI.value] - want[Card.WASABI.value]
            if 0 < extra_wasabi <= covered:
                got[Card.WASABI.value] -= extra_wasabi
            if +got != want:
                missing, extra = want - got, got - want
                parts = []
                if missing:
                    parts.append("missing " + ", ".join(sorted(missing.elements())))
                if extra:
                    parts.append("not expected " + ", ".join(sorted(extra.elements())))
                return TurnOutcome(MISMATCH, f"{state.players[seat]}'s zone does not match the game: {'; '.join(parts)}",
                                   **where)
        self.state = state
        self.cards = look.tracker
        self._accept(look.sighting)
        self._before = {s: list(seen.get(s, [])) for s in range(state.seats)}
        return TurnOutcome(SYNCED, "the table matches the game", **where)

    def feed(self, frame: np.ndarray, named: dict[tuple[float, float], str] | None = None,
             look: Look | None = None, first: dict[int, str] | None = None) -> TurnOutcome:
        """Read the frame taken after a reveal and apply that turn.

        ``named``: cards the players named on the panel, by their place on the mat (mm) -> card
        name; an ``unknown`` card within :data:`~companion.app.turns.MOVE_TOLERANCE_MM` of such a
        place is read as that card. ``look``: this frame already read (:meth:`look`) against
        the present reference, if it was. ``first``: seat → the card the players said that seat
        took first, where the frame did not show it (``"ambiguous"``). Nothing changes unless
        the outcome is ``"applied"`` (or ``"waiting"``, whose clean reading becomes the reference
        for the rest of the reveal).
        """
        state = self.state
        where = dict(round=state.round, turn=state.turn)
        if state.is_over:
            return TurnOutcome(GAME_OVER, "the game is over", **where)
        if look is None or look.fresh or look.accepted != self._accepted:
            look = self.look(frame)
        self._take(look)
        seen = look.seen
        if seen is None:
            return TurnOutcome(NO_MAT, look.message, **where)
        if named:
            seen = {seat: [_named(c, named) for c in cards] for seat, cards in seen.items()}
        plays: dict[int, tuple[tuple[Card, ...], ...]] = {}  # seat → the orders the frame allows
        problems: dict[int, TurnReadError] = {}
        for seat in range(state.seats):
            try:
                play = infer_play(state.players[seat], self._before[seat], seen.get(seat, []))
            except TurnReadError as exc:
                problems[seat] = exc
                continue
            plays[seat] = play.plays if isinstance(play, Ambiguous) else (play,)
            said = (first or {}).get(seat)
            if said is not None and len(plays[seat]) > 1:
                plays[seat] = tuple(p for p in plays[seat] if p[0].value == said) or plays[seat]
        real = [(seat, p) for seat, p in problems.items() if not p.waiting]
        if real:
            seat, problem = real[0]
            message = str(problem)
            if seen.get(None):
                message += f" ({len(seen[None])} card(s) lie outside every zone)"
            unknown = (seat, problem.unknown) if problem.unknown is not None else None
            return TurnOutcome(UNREADABLE, message, unknown=unknown, **where)
        if problems:
            names = ", ".join(state.players[seat] for seat in problems)
            why = next(iter(problems.values())).problem
            # Every seat read cleanly (the waiting ones show no change at all), so this reading is
            # the reference for the next: the rest of the reveal is then all that is searched.
            self._accept(self._sighting)
            return TurnOutcome(WAITING, f"waiting for {names}: {why}", waiting=tuple(problems), **where)
        judged = _judge(state, plays)
        if isinstance(judged, IllegalAction):
            exc, refused = judged, {seat: options[0] for seat, options in plays.items()}
            return TurnOutcome(ILLEGAL, str(exc), plays=refused, rule=exc.rule or "", player=exc.player, error=exc,
                               **where)
        if isinstance(judged, Question):
            return TurnOutcome(AMBIGUOUS, f"{state.players[judged.seat]}: {judged.text}", question=judged, **where)
        plays, after = judged
        self.state = after
        self._accept(self._sighting)
        round_ended = after.round != state.round or after.is_over
        if round_ended:
            # At a round's end everything but the puddings is discarded (sushi-go.txt, BEFORE
            # STARTING A NEW ROUND). The tracker drops those cards, so that a new card laid in
            # the very slot of a cleared look-alike is read, not taken for the old one (see
            # CardTracker.clear); a look made before the clear is stale.
            self.cards.clear({Card.PUDDING.value})
            self._accepted += 1
        for seat in range(state.seats):
            cards = seen.get(seat, [])
            self._before[seat] = [c for c in cards if c.label == Card.PUDDING.value] if round_ended else cards
        return TurnOutcome(APPLIED, _describe_plays(state, plays), plays=plays, **where)


#: At most this many combinations of the seats' possible orders are tried (2 per ambiguous seat).
MAX_READINGS = 64


def _judge(state: SushiGoState, plays: dict[int, tuple[tuple[Card, ...], ...]]):
    """The turn the rules make of the plays the frame allows (seat → its possible orders):
    ``(plays, state after)`` when every legal combination comes to the same game (a wasabi order
    that changes nothing is no question), the :class:`Question` to ask when they differ, or the
    engine's ``IllegalAction`` for the first combination when none is legal (issue #13 A)."""
    seats = sorted(plays)
    legal: list[tuple[dict[int, tuple[Card, ...]], SushiGoState]] = []
    refusal = None
    for combo in itertools.islice(itertools.product(*(plays[s] for s in seats)), MAX_READINGS):
        choice = dict(zip(seats, combo))
        try:
            legal.append((choice, apply_turn(state, choice)))
        except IllegalAction as exc:
            refusal = refusal or exc
    if not legal:
        return refusal
    keys = [_outcome_key(after) for _, after in legal]
    if all(k == keys[0] for k in keys):
        return legal[0]
    for seat in seats:
        firsts = {choice[seat][0] for choice, _ in legal}
        if len(firsts) > 1:
            cards = [c.value for c in legal[0][0][seat]]
            text = ("which nigiri is on the wasabi?" if all(Card(c).is_nigiri for c in cards)
                    else "which card was taken first?")
            return Question(seat, text + " (sushi-go.txt, USING WASABI)", tuple(sorted({c.value for c in firsts})))
    return legal[0]  # pragma: no cover - differing games differ in some seat's order


def _outcome_key(state: SushiGoState):
    """What a turn's result is, whatever order the cards were listed in: the state with every
    tableau as a sorted list (a tableau's order is only the order cards were laid)."""
    def tidy(tableau):
        return tuple(sorted(tableau, key=lambda p: (p.card.value, p.turn, getattr(p.nigiri, "value", ""),
                                                    p.nigiri_turn or 0)))

    return replace(state, tableaux=tuple(tidy(t) for t in state.tableaux),
                   round_tableaux=tuple(tuple(tidy(t) for t in r) for r in state.round_tableaux))


def _named(card: SeenCard, named: dict[tuple[float, float], str]) -> SeenCard:
    """``card`` with the name a player gave it on the panel, if it is an unknown card lying where
    one was named."""
    if card.label != UNKNOWN:
        return card
    for where, label in named.items():
        if math.dist(where, card.center_mm) <= MOVE_TOLERANCE_MM:
            return SeenCard(label, card.center_mm, 1.0)
    return card


def expected_on_table(state: SushiGoState, seat: int) -> Counter[str]:
    """The card labels the camera should see in ``seat``'s zone for ``state``: this round's tableau
    (a nigiri laid on its wasabi hides it) and the puddings kept from earlier rounds
    (sushi-go.txt, BEFORE STARTING A NEW ROUND: puddings stay on the table)."""
    labels: Counter[str] = Counter()
    if not state.is_over:
        for placed in state.tableaux[seat]:
            labels[(placed.nigiri or placed.card).value] += 1
    labels[Card.PUDDING.value] += state.puddings[seat]
    return +labels


def _describe_plays(state: SushiGoState, plays: dict[int, tuple[Card, ...]]) -> str:
    parts = []
    for seat, cards in sorted(plays.items()):
        text = " + ".join(c.value.replace("_", " ") for c in cards)
        parts.append(f"{state.players[seat]}: {text}" + (" (chopsticks)" if len(cards) == 2 else ""))
    return f"round {state.round} turn {state.turn}: " + "; ".join(parts)
