"""The replay page: a finished game move by move, every hand face up (the record is public now).

The page carries the whole match. The engine replays the log once
(:func:`games.rules.replay.replay`) and each step is drawn with the replay's
fragments (the step's events, the game's replay board, each hand); every
distinct piece is rendered once, into a ``<template>``, and a step is a row of
piece numbers, one per slot of the page. ``replay.js`` swaps the pieces in
without asking the server again. Without scripts the links and the "go to"
forms load ``?step=n``, and the server shows that step from the same pieces.

Drawing a long match takes most of a second (hundreds of boards through the
template engine), so each process keeps the matches it drew lately, packed,
under the digest of everything they are drawn from: a page loaded again, or a
step loaded by a browser without scripts, costs a read. They are kept in the
process rather than in the shared cache so that a new release (new processes)
never shows a drawing made by the old one.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import get_template
from django.urls import reverse
from django.utils.safestring import SafeString
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config.replica import lagging_reads
from fairplay.services import seed_for
from games import selectors
from games.catalogue import find_game, find_ruleset
from games.catalogue.presentation import Names, Presentation
from games.models import Table, log_of
from games.rules import Event, Ruleset
from games.rules.replay import Act, Forfeit, replay
from games.table_pages import table_or_404, table_url

EVENTS_TEMPLATE = "games/_replay_events.html"
BOARD_TEMPLATE = "games/_replay_board.html"
HAND_TEMPLATE = "games/_replay_hand.html"
CARD_TEMPLATE = "games/_table_card.html"
# The matches this process drew lately, zlib-packed (a 915-move match is some 140 KB so):
# kept long enough to step through one without scripts.
DRAWN = LocMemCache("fairdeal-replays", {"TIMEOUT": 15 * 60, "OPTIONS": {"MAX_ENTRIES": 64}})
# The fragments' indentation, said hundreds of times over: a run of white space that
# holds a line break draws as one (no piece holds a <pre>), so it is kept as one.
INDENTATION = re.compile(r"\s*\n\s*")


def _event_seen(event: Event) -> dict[str, Any]:
    """An event as the record shows it once the game is over: with its actor's private part."""
    seat = event.public.get("seat")
    return event.for_seat(seat if isinstance(seat, int) else None)


@dataclass
class Pieces:
    """The page's HTML pieces, each kept once: a hand or a board seen at many steps is one piece."""

    html: list[SafeString] = field(default_factory=list)
    numbers: dict[Hashable, int] = field(default_factory=dict)

    def add(self, key: Hashable, draw: Callable[..., str], *args: Any) -> int:
        """The number of the piece ``key`` names, drawn by ``draw(*args)`` the first time only."""
        if key not in self.numbers:
            self.numbers[key] = len(self.html)
            self.html.append(SafeString(INDENTATION.sub("\n", draw(*args)).strip()))
        return self.numbers[key]


@dataclass(frozen=True)
class Replay:
    """A whole match as the page shows it: its pieces, each step's row of pieces, its hands.

    A step's row holds, in order, the numbers of its events, the game's board
    and each seat's hand; ``hands`` the number and the first step of each hand
    (deal, round).
    """

    pieces: list[SafeString]
    steps: list[list[int]]
    hands: list[tuple[int, int]]

    def packed(self) -> bytes:
        data = {"pieces": self.pieces, "steps": self.steps, "hands": self.hands}
        return zlib.compress(json.dumps(data, separators=(",", ":")).encode())

    @classmethod
    def unpacked(cls, packed: bytes) -> Replay:
        data = json.loads(zlib.decompress(packed))
        hands = [(number, first) for number, first in data["hands"]]
        return cls([SafeString(piece) for piece in data["pieces"]], data["steps"], hands)


def draw_replay(
    table: Table,
    ruleset: Ruleset,
    presentation: Presentation,
    names: Names,
    log: Sequence[Act | Forfeit],
    seed: bytes,
    automatic: frozenset[int] = frozenset(),
) -> Replay:
    """Replay the log once, drawing every step with the replay's fragments; the steps in
    ``automatic`` (moves played for their player, ``Move.automatic``) say so."""
    events_template = get_template(EVENTS_TEMPLATE)
    board_template = get_template(BOARD_TEMPLATE)
    hand_template = get_template(HAND_TEMPLATE)
    card_template = get_template(CARD_TEMPLATE)
    cards: dict[str, SafeString] = {}

    def card(token: str) -> SafeString:
        # Each card is drawn once; a hand is its cards' drawings.
        if token not in cards:
            cards[token] = card_template.render({"card": presentation.card_face(token)})
        return cards[token]

    def draw_hand(hand: dict[str, Any]) -> str:
        return hand_template.render({"seat": {**hand, "cards": [card(c) for c in hand["cards"]]}})

    pieces = Pieces()
    steps: list[list[int]] = []
    hands: list[tuple[int, int]] = []
    for step_no, step in enumerate(replay(ruleset, table.seat_count, table.options, seed, log)):
        state = step.state
        if not hands or hands[-1][0] != state.hand_no:
            hands.append((state.hand_no, step_no))
        events = {
            "step_no": step_no,
            "events": [ruleset.event_text(_event_seen(e), names) for e in step.events],
            "auto": step_no in automatic,
        }
        row = [pieces.add(("events", step_no), events_template.render, events)]
        view = state.view(None)
        to_act = set(state.to_act)
        seats = [
            {
                "seat": seat,
                "name": names(seat),
                "cards": state.private_view(seat)["hand"],
                "total": view["totals"][seat],
                "to_act": seat in to_act,
            }
            for seat in range(table.seat_count)
        ]
        rows = [{**seat, "cards": len(seat["cards"]), "you": False} for seat in seats]
        board = board_template.render(
            {
                "board": view,
                "presentation": presentation,
                "game_board": presentation.board(view, rows, None, names),
                "score_sheet": presentation.score_sheet(view, table.seat_count, names),
            }
        )
        row.append(pieces.add(board, str, board))
        for seat in seats:
            key = ("hand", seat["seat"], tuple(seat["cards"]), seat["total"], seat["to_act"])
            row.append(pieces.add(key, draw_hand, seat))
        steps.append(row)
    return Replay(pieces.html, steps, hands)


def replay_of(table: Table, ruleset: Ruleset, presentation: Presentation) -> Replay:
    """The finished match drawn step by step; read back when this process drew it lately."""
    moves = list(table.moves.order_by("seq"))
    log = log_of(moves)
    seed = seed_for(table)
    names = selectors.seat_names(table)
    # Everything the drawing depends on: the rules, the seats' names, the seed and the log.
    inputs = [
        ruleset.version,
        table.seat_count,
        table.options,
        [names(seat) for seat in range(table.seat_count)],
        seed.hex(),
        [(move.kind, move.seat, move.action, move.automatic) for move in moves],
    ]
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode())
    key = f"replay:{table.pk}:{digest.hexdigest()}"
    packed = DRAWN.get(key)
    if packed is not None:
        return Replay.unpacked(packed)
    automatic = frozenset(move.seq for move in moves if move.automatic)
    drawn = draw_replay(table, ruleset, presentation, names, log, seed, automatic)
    DRAWN.set(key, drawn.packed())
    return drawn


def _hand_choices(hands: list[tuple[int, int]], step_no: int, word: str) -> list[dict[str, Any]]:
    """The hands to go to, each from its first step; the one ``step_no`` is in chosen."""
    starts = [first for _, first in hands]
    current = max(first for first in starts if first <= step_no)
    return [
        {"label": f"{word.capitalize()} {number}", "step": first, "current": first == current}
        for number, first in hands
    ]


@require_safe
@never_cache
@lagging_reads
def table_replay(request: HttpRequest, table_id: int) -> HttpResponse:
    """The finished game move by move (``?step=n``), every hand face up: the record is public now."""
    table = table_or_404(table_id, request.user)
    context: dict[str, Any] = {
        "table": table,
        "page_url": table_url(table.pk),
        "verify_url": reverse("table-verify", args=[table.pk]),
    }
    if table.status != Table.Status.FINISHED:
        # Before the end the hands are secret, so there is nothing to replay yet.
        return render(request, "games/replay.html", {**context, "not_yet": True}, status=404)
    ruleset = find_ruleset(table.game, table.ruleset_version)
    presentation = find_game(ruleset.id).presentation
    match = replay_of(table, ruleset, presentation)
    last = len(match.steps) - 1
    raw = request.GET.get("step", "")
    step_no = min(int(raw), last) if re.fullmatch(r"\d{1,6}", raw) else last
    row = match.steps[step_no]
    replay_url = reverse("table-replay", args=[table.pk])
    context.update(
        {
            "ruleset": ruleset,
            "presentation": presentation,
            "step_no": step_no,
            "last": last,
            # The step asked for, in the page's slots: its events, the board, each hand.
            "step_events": match.pieces[row[0]],
            "step_board": match.pieces[row[1]],
            "step_hands": [match.pieces[n] for n in row[2:]],
            # Every step, for replay.js: the pieces, and each step's as "0,1,2;3,1,4;...".
            "pieces": match.pieces,
            "steps": ";".join(",".join(map(str, row)) for row in match.steps),
            "hands": _hand_choices(match.hands, step_no, presentation.hand_word),
            "hand_word": presentation.hand_word,
            "first_url": f"{replay_url}?step=0",
            "previous_url": f"{replay_url}?step={step_no - 1}" if step_no > 0 else None,
            "next_url": f"{replay_url}?step={step_no + 1}" if step_no < last else None,
            "last_url": f"{replay_url}?step={last}",
            "replay_url": replay_url,
        }
    )
    return render(request, "games/replay.html", context)
