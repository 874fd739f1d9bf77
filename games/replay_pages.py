"""The replay page: a finished game move by move, every hand face up (the record is public now)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from fairplay.services import seed_for
from games import selectors
from games.catalogue import find_game, find_ruleset
from games.models import Move, Table
from games.rules import Event, Ruleset
from games.rules.replay import Act, Forfeit, Step, replay
from games.table_pages import table_or_404, table_url


def _log_of(moves: Iterable[Move]) -> list[Act | Forfeit]:
    return [
        Act(move.seat, move.action)
        if move.kind == Move.Kind.ACTION
        else Forfeit(move.seat, move.action["reason"])
        for move in moves
    ]


def _event_seen(event: Event) -> dict[str, Any]:
    """An event as the record shows it once the game is over: with its actor's private part."""
    seat = event.public.get("seat")
    return event.for_seat(seat if isinstance(seat, int) else None)


def _replay_step(table: Table, ruleset: Ruleset, log: list[Act | Forfeit], step_no: int) -> Step:
    """The replay after the first ``step_no`` entries of the log (0: the start)."""
    *_, step = replay(ruleset, table.seat_count, table.options, seed_for(table), log[:step_no])
    return step


@require_safe
@never_cache
def table_replay(request: HttpRequest, table_id: int) -> HttpResponse:
    """The finished game move by move (``?step=n``), every hand face up: the record is public now."""
    table = table_or_404(table_id)
    names = selectors.seat_names(table)
    context: dict[str, Any] = {
        "table": table,
        "page_url": table_url(table.pk),
        "verify_url": reverse("table-verify", args=[table.pk]),
    }
    if table.status != Table.Status.FINISHED:
        # Before the end the hands are secret, so there is nothing to replay yet.
        return render(request, "games/replay.html", {**context, "not_yet": True}, status=404)
    ruleset = find_ruleset(table.game, table.ruleset_version)
    moves = list(table.moves.order_by("seq"))
    log = _log_of(move for move in moves if move.kind != Move.Kind.START)
    last = len(log)
    raw = request.GET.get("step", "")
    step_no = int(raw) if re.fullmatch(r"\d{1,6}", raw) else last
    step_no = min(step_no, last)
    step = _replay_step(table, ruleset, log, step_no)
    state = step.state
    view = state.view(None)
    presentation = find_game(ruleset.id).presentation
    face = presentation.card_face
    hands = [
        {
            "seat": seat,
            "name": names(seat),
            "cards": [face(card) for card in state.view(seat)["you"]["hand"]],
            "total": view["totals"][seat],
            "to_act": seat in state.to_act,
        }
        for seat in range(table.seat_count)
    ]
    rows = [
        {**hand, "cards": len(hand["cards"]), "you": False, "bot": False, "level": None}
        for hand in hands
    ]
    # Each step's events say what happened (the action itself first), in the engine's words.
    what = (
        "The start: the first dealer is drawn and the first hand dealt." if step_no == 0 else None
    )
    replay_url = reverse("table-replay", args=[table.pk])
    context.update(
        {
            "ruleset": ruleset,
            "step_no": step_no,
            "last": last,
            "what": what,
            "events": [ruleset.event_text(_event_seen(e), names) for e in step.events],
            "hands": hands,
            "board": view,
            "presentation": presentation,
            "game_board": presentation.board(view, rows, None, names),
            "score_sheet": presentation.score_sheet(view, table.seat_count, names),
            "first_url": f"{replay_url}?step=0",
            "previous_url": f"{replay_url}?step={step_no - 1}" if step_no > 0 else None,
            "next_url": f"{replay_url}?step={step_no + 1}" if step_no < last else None,
            "last_url": f"{replay_url}?step={last}",
            "replay_url": replay_url,
        }
    )
    return render(request, "games/replay.html", context)
