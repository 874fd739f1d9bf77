"""The table page: the game as the viewer may see it, and its moves as buttons.

The page reads a table through :func:`games.selectors.table_view`, as the API
does, so it shows exactly what the API would show the same person: their own
hand and legal actions, nobody else's. Its forms call the same services as the
API's views (:func:`games.services.move_apply`, :func:`games.services.table_resign`)
and answer Post/Redirect/Get: a refusal becomes a message in words and changes
nothing; a success goes back to the table.

``tables/<id>/version/`` is what ``static/fairdeal/table.js`` polls to know when
to fetch the page's board again (``?fragment=1``); ``docs/pages.md`` says why.
``tables/<id>/board/?version=V`` is the viewer's board as it was at version V,
replayed from the log (:func:`view_at`): table.js shows several new moves on it,
one board after another.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from itertools import groupby
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import parse_etags
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from config.errors import ServiceError
from fairplay.services import seed_for
from games import archive, privacy, selectors, services
from games.catalogue import find_game, find_ruleset
from games.forms import deadline_words
from games.models import Seated, Table, log_of
from games.pages import options_in_words, player_url
from games.rules import RulesError
from games.rules.base import FINISHED, ordinal
from games.rules.replay import replay

# A posted action is a small JSON object (the longest of any game, eight cards of a rank and
# a suit, is under 120 characters): anything longer is refused before it is parsed.
MAX_ACTION_CHARS = 1000
FRAGMENT_HEADER = "HTTP_X_FAIRDEAL_FRAGMENT"
BOARD_HEADER = "X-Fairdeal-Board"


def sentence(text: str) -> str:
    """The engine's words as a sentence of their own: a capital, and a full stop.

    >>> sentence("the table has moved on: you saw version 3, it is now 4")
    'The table has moved on: you saw version 3, it is now 4.'
    """
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else f"{text}."


def said_once(lines: Sequence[str]) -> list[str]:
    """A move's lines in the log, a run of the same line said once with its count: a
    chain's twelve cards drawn one by one read as one line, not twelve.

    >>> said_once(["ann played 4C", "bob drew a card", "bob drew a card", "bob's turn passed"])
    ['ann played 4C', 'bob drew a card (2 times)', "bob's turn passed"]
    """
    said = []
    for line, run in groupby(lines):
        times = len(list(run))
        said.append(line if times == 1 else f"{line} ({times} times)")
    return said


# -- reading a posted move --------------------------------------------------------------


class UnreadableMove(ValueError):
    """The posted form is not a move this page sends: its message says what is wrong."""


def _posted_version(post: Mapping[str, Any]) -> int:
    raw = str(post.get("version", "")).strip()
    if not re.fullmatch(r"\d{1,9}", raw):
        raise UnreadableMove("it did not say which version of the table you saw")
    return int(raw)


def _posted_action(post: Mapping[str, Any]) -> Any:
    """The action's JSON, parsed: the engine, not this form, decides whether it is legal.

    The button's index (``index``) says which of the legal actions the page
    offered; it is checked for form only, since the legal actions may have
    changed since, and the JSON is what the engine judges.
    """
    index = str(post.get("index", "")).strip()
    if index and not re.fullmatch(r"\d{1,4}", index):
        raise UnreadableMove("its index is not a number")
    raw = post.get("action")
    if not isinstance(raw, str) or not raw.strip():
        raise UnreadableMove("it carried no action")
    if len(raw) > MAX_ACTION_CHARS:
        raise UnreadableMove(f"its action is longer than any move ({MAX_ACTION_CHARS} characters)")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise UnreadableMove("its action is not JSON") from None


def _refusal_message(error: Exception, user: AbstractBaseUser | AnonymousUser) -> str:
    """A refusal in words: the service's or the engine's own, as a sentence."""
    if isinstance(error, services.StaleVersion):
        return f"{sentence(error.message)} Nothing was changed: look again and choose your move."
    if isinstance(error, services.NotSeated) and not user.is_authenticated:
        return "Log in to play: only the players seated at this table can move."
    if isinstance(error, services.DeadlinePassed):
        return sentence(error.message)
    if isinstance(error, ServiceError):
        return f"{sentence(error.message)} Nothing was changed."
    if isinstance(error, RulesError):
        reason = error.message.strip().rstrip(".")
        return f"That move was refused: {reason}. Nothing was changed."
    raise error


def table_url(table_id: int) -> str:
    return reverse("table-page", args=[table_id])


def table_or_404(table_id: int, user: AbstractBaseUser | AnonymousUser) -> Table:
    """The table, if ``user`` may see it: a private table is no table to a stranger."""
    table = selectors.table_for_view(table_id)
    if table is None or not privacy.may_see(table, user):
        raise Http404("There is no such table.")
    if not archive.may_watch(table, user):  # a game its players keep to themselves
        raise Http404("There is no such table.")
    return table


Say = Callable[[str, str], None]


def _run(request: HttpRequest, write: Callable[[], Table], say: Say) -> tuple[Table | None, int]:
    """Run a write service: the table it wrote, or None and the refusal's status, its
    message said in words (``say(level, text)``); never a 500."""
    try:
        return write(), 200
    except services.TableNotFound:
        raise Http404("There is no such table.") from None
    except (ServiceError, RulesError) as error:
        say("error", _refusal_message(error, request.user))
        return None, error.status if isinstance(error, ServiceError) else 400


def _kept_message(request: HttpRequest) -> Say:
    """``say`` for a page that redirects: the message waits for the page it goes to."""
    return lambda level, text: getattr(messages, level)(request, text)


# -- the page ----------------------------------------------------------------------------


def etag_of(table_id: int, version: int, status: str, seated: int) -> str:
    """The board's version as an entity tag: what moves whenever the board could change.

    The version moves with every action and forfeit; the status and the number
    of seats taken move when the game starts or is called off, and while players
    join, none of which moves the version.
    """
    return f'"t{table_id}-v{version}-{status}-s{seated}"'


# The most card backs a seat is drawn with; its count says the rest.
MOST_BACKS = 12


def _time_words(seat: Seated, playing: bool) -> dict[str, Any]:
    """A seat's holiday (while its game plays) and reserve of time as the page says them
    (docs/deadlines.md)."""
    return {
        "away_until": seat.away_until if playing else None,
        "held_words": deadline_words(seat.held.total_seconds()) if seat.held else None,
        "reserve_words": (
            deadline_words(seat.reserve.total_seconds()) if seat.reserve is not None else None
        ),
    }


def _seat_rows(
    table: Table, view: Mapping[str, Any], you: int | None, names: Callable[[int], str]
) -> list[dict[str, Any]]:
    shown = {seat.number: seat for seat in selectors.seats_of(table)}
    due = {number: seat.deadline_at for number, seat in shown.items()}
    to_act = set(view["to_act"])
    result = view.get("result") or {}
    places = result.get("places") or []
    board = view.get("board") or {}
    rows = [
        {
            **seat,
            "backs": range(min(seat["cards"] or 0, MOST_BACKS)),
            "name": names(seat["seat"]) if (seat["player"] or seat["bot"]) else None,
            "url": None if seat["bot"] else player_url(seat["player"]),
            "you": seat["seat"] == you,
            "to_act": seat["seat"] in to_act,
            "dealer": board.get("dealer") == seat["seat"],
            "place": places[seat["seat"]] if seat["seat"] < len(places) else None,
            "deadline_at": due.get(seat["seat"]) if seat["seat"] in to_act else None,
            **_time_words(shown[seat["seat"]], view["status"] == Table.Status.PLAYING),
        }
        for seat in view["seats"]
    ]
    # Around the table from the viewer's left, the viewer last (nearest their hand).
    after = (you + 1) if you is not None else 0
    return rows[after:] + rows[:after]


def _ring(rows: list[dict[str, Any]], you: int | None) -> dict[str, Any]:
    """The seats placed around the table's middle, in turn order from the viewer's left.

    Up the left side, along the top, down the right side; the viewer's own seat
    at the bottom, by their hand (a spectator's table has nobody there). The
    sides take a third of the others each, the top the rest.

    >>> seats = [{"seat": n} for n in (1, 2, 3, 0)]
    >>> ring = _ring(seats, 0)
    >>> [[row["seat"] for row in ring[side]] for side in ("left", "top", "right", "bottom")]
    [[1], [2], [3], [0]]
    >>> ring = _ring([{"seat": n} for n in range(10)], None)
    >>> [len(ring[side]) for side in ("left", "top", "right", "bottom")], ring["sides"]
    ([3, 4, 3, 0], 3)
    >>> [len(_ring([{"seat": n} for n in range(k)], 0)["top"]) for k in range(2, 11)]
    [1, 0, 1, 2, 1, 2, 3, 2, 3]
    """
    others = rows[:-1] if you is not None else rows
    bottom = rows[-1:] if you is not None else []
    side = (len(others) + 1) // 3
    top = len(others) - 2 * side
    return {
        "left": others[:side],
        "top": others[side : side + top],
        "right": others[side + top :],
        "bottom": bottom,
        "sides": side,
    }


def _placings(
    result: Mapping[str, Any] | None, names: Callable[[int], str], urls: Mapping[int, str | None]
) -> list[dict]:
    if not result:
        return []
    rows = [
        {
            "seat": seat,
            "name": names(seat),
            "url": urls.get(seat),
            "place": place,
            "place_words": ordinal(place),
            "total": total,
        }
        for seat, (place, total) in enumerate(zip(result["places"], result["totals"], strict=True))
    ]
    return sorted(rows, key=lambda row: (row["place"], row["seat"]))


def _turn_sentence(view: Mapping[str, Any], you: int | None, names: Callable[[int], str]) -> str:
    status = view["status"]
    awaiting = (view.get("rematch") or {}).get("awaiting") or []
    if status == Table.Status.OPEN and awaiting:  # seats kept for players, not free
        who = ", ".join(names(seat) for seat in awaiting)
        return f"Waiting for {who} to accept the rematch."
    if status == Table.Status.OPEN:
        free = sum(1 for seat in view["seats"] if not seat["player"] and not seat["bot"])
        return f"Waiting for players: {free} of {view['seat_count']} seats free."
    if status == Table.Status.CANCELLED:
        return "This table was called off before its game started."
    if status == Table.Status.FINISHED:
        return _end_sentence(view.get("result") or {}, you, names)
    owing = list(view["to_act"])
    if you is not None and you in owing:
        others = [names(s) for s in owing if s != you]
        return "Your turn." if not others else f"Your turn, and {', '.join(others)}'s."
    if not owing:
        return "Nobody owes a move."
    who = ", ".join(names(s) for s in owing)
    return f"Waiting for {who}."


def _end_sentence(result: Mapping[str, Any], you: int | None, names: Callable[[int], str]) -> str:
    """How the game ended for the viewer: ``You won.``, ``You came 2nd of 4.``; who won, for
    anybody else."""
    places = list(result.get("places") or [])
    firsts = [seat for seat, place in enumerate(places) if place == 1]
    if you is not None and you < len(places):
        if places[you] != 1:
            return f"You came {ordinal(places[you])} of {len(places)}."
        shared = [names(seat) for seat in firsts if seat != you]
        return f"You won, level with {' and '.join(shared)}." if shared else "You won."
    if not firsts:
        return "The game is over."
    return sentence(f"{' and '.join(names(seat) for seat in firsts)} won")


def _moves_on_the_table(
    groups: list[dict[str, Any]], seat_rows: list[dict[str, Any]], you: int | None
) -> list[dict[str, Any]]:
    """Put each call's button at the seat it concerns (``calls`` of its row: a catch at the
    seat caught, the last card at the caller's own), and return the moves made by a button
    of their own that is neither a call nor a click on the table (a pass, the end of a
    turn), for the viewer's hand."""
    buttons = [button for group in groups for row in group["rows"] for button in row["buttons"]]
    for row in seat_rows:
        row["calls"] = [
            button
            for button in buttons
            if button["call"]
            and (button["seat"] if button["seat"] is not None else you) == row["seat"]
        ]
    return [button for button in buttons if not button["keys"] and not button["call"]]


def table_context(
    request: HttpRequest, table: Table, view: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Everything the table page and its board fragment show, from :func:`table_view`
    (or ``view``, the table as it was at an earlier version: :func:`view_at`).

    The game's presentation (``games/catalogue``) draws what is its own: its
    cards, its board and the fragment that shows it, its buttons and their groups.
    """
    if view is None:
        view = selectors.table_view(table, request.user)
    ruleset = find_ruleset(table.game, table.ruleset_version)
    presentation = find_game(ruleset.id).presentation
    names = selectors.seat_names(table)
    you = view["you"]["seat"] if view["you"] else None
    board = view["board"]
    seats = selectors.seats_of(table)
    seated = sum(1 for seat in seats if not seat.is_free)
    hand = (view["you"] or {}).get("hand") or []
    drawn = (view["you"] or {}).get("drawn")
    finished = view["status"] == Table.Status.FINISHED
    record_url = view["record_url"]
    result = view["result"]
    seat_rows = _seat_rows(table, view, you, names)
    game_board = presentation.board(board, seat_rows, view["you"], names) if board else None
    if game_board is not None:
        presentation.mark_seats(seat_rows, game_board, view["status"] == Table.Status.PLAYING)
    face = presentation.card_face
    groups = presentation.action_groups(
        view["legal_actions"],
        lambda action: ruleset.action_text(action, names),
        names,
        game_board,
    )
    log = [
        {
            "seq": entry["seq"],
            "at": entry["at"],
            "text": said_once(entry["text"]),
            "seat": entry["seat"],
            "auto": entry["auto"],
        }
        for entry in reversed(view["recent"])
    ]
    return {
        "table": table,
        "presentation": presentation,
        "game_board": game_board,
        "view": view,
        "ruleset": ruleset,
        "deadline_words": deadline_words(table.deadline_seconds),
        "options_words": options_in_words(table.game, table.options),
        "etag": etag_of(table.pk, view["version"], view["status"], seated),
        "you": you,
        "seated_here": you is not None,
        "can_join": (
            view["status"] == Table.Status.OPEN
            and you is None
            and any(seat.is_free for seat in seats)
        ),
        "seats": seat_rows,
        "ring": _ring(seat_rows, you),
        "bot_fill": (
            {"at": table.bot_fill_at, "level": table.bot_fill_level} if view["bot_fill"] else None
        ),
        "turn": _turn_sentence(view, you, names),
        "your_turn": you is not None and you in view["to_act"],
        "deadline_at": _deadline(table, seats, you),
        "hand": [face(card) for card in hand],
        "drawn": face(drawn) if isinstance(drawn, str) else None,
        "board": board,
        "groups": groups,
        "other_moves": _moves_on_the_table(groups, seat_rows, you),
        "log": log,
        "last_seq": log[0]["seq"] if log else 0,
        "last_seat": log[0]["seat"] if log else None,
        "play_again": finished and you is not None,
        **_invitation_context(request, table, view, you),
        "finished": finished,
        "placings": (
            _placings(
                result,
                names,
                {s.number: player_url(s.username) for s in seats if s.username is not None},
            )
            if finished
            else []
        ),
        # Why it ended, when not by its own play (a resignation, a deadline): the places say the rest.
        "ending": (
            ruleset.game_over_text(result, names)
            if finished and result and result.get("reason") != FINISHED
            else None
        ),
        "score_sheet": presentation.score_sheet(board, table.seat_count, names),
        "can_resign": you is not None and view["status"] == Table.Status.PLAYING,
        "download_url": f"{record_url}?download=1",
        "record_url": record_url,
        "verify_url": view["verify_url"],
        "version_url": reverse("table-version", args=[table.pk]),
        "board_url": reverse("table-board", args=[table.pk]),
        "poll_ms": settings.FAIRDEAL_POLL_MS,
        "reveal_ms": settings.FAIRDEAL_REVEAL_MS,
        "move_url": reverse("table-move-page", args=[table.pk]),
        "resign_url": reverse("table-resign-page", args=[table.pk]),
        "replay_url": reverse("table-replay", args=[table.pk]),
        "page_url": table_url(table.pk),
    }


def _invitation_context(
    request: HttpRequest, table: Table, view: Mapping[str, Any], you: int | None
) -> dict[str, Any]:
    """What the page shows of invitations and rematches: the host's link, whether the
    viewer may decline an invitation or accept a rematch, and the rematch's state."""
    link = view["invitation"]
    rematch = view["rematch"] or {}
    awaiting = rematch.get("awaiting") or []
    waiting = view["status"] == Table.Status.OPEN
    return {
        "invite_host": link is not None,
        "invite_link": request.build_absolute_uri(link["url"]) if link and link["url"] else None,
        "rematch": rematch,
        "awaiting_names": [selectors.seat_names(table)(seat) for seat in awaiting],
        "can_accept": waiting and you is not None and you in awaiting,
        "can_decline": waiting
        and (
            (you is not None and you in awaiting)
            or (you is None and table.private and privacy.is_invited(table, request.user))
        ),
    }


def _deadline(table: Table, seats: list[Any], you: int | None) -> Any:
    """When the viewer must move, if they owe a move; else the table's next deadline."""
    if table.status != Table.Status.PLAYING:
        return None
    mine = next((s.deadline_at for s in seats if s.number == you and s.deadline_at), None)
    return mine or table.deadline_at


def _wants_fragment(request: HttpRequest) -> bool:
    return request.GET.get("fragment") == "1" or request.META.get(FRAGMENT_HEADER) == "1"


@require_safe
@never_cache
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table as the viewer may see it; ``?fragment=1`` gives its board alone, for table.js."""
    table = table_or_404(table_id, request.user)
    context = table_context(request, table)
    if _wants_fragment(request):
        return render(request, "games/_table_board.html", context)
    return render(request, "games/table.html", context)


class UnreadableVersion(ValueError):
    """The version asked for is not one of the table's: its message says why."""


def _asked_version(request: HttpRequest, table: Table) -> int:
    raw = request.GET.get("version", "").strip()
    if not re.fullmatch(r"\d{1,9}", raw):
        raise UnreadableVersion("say which version of the table to draw: ?version= and a number")
    version = int(raw)
    if table.state is None or table.version < 1:
        raise UnreadableVersion("no move has been made at this table yet")
    if not 1 <= version <= table.version:
        raise UnreadableVersion(f"this table has versions 1 to {table.version}, not {version}")
    return version


def view_at(table: Table, user: AbstractBaseUser | AnonymousUser, version: int) -> dict[str, Any]:
    """The table as ``user`` saw it at ``version``: the engine replays the table's log from
    its seed to that move, and the view is the replayed state's view for the viewer's own
    seat (their hand and what everyone sees), never another's cards or the stock.

    What the state does not hold (the seats' names, the table's links) is as it is now;
    the deadlines then are not kept, so none is shown; the log is the dozen moves up to
    that version, as the page showed them then. The view is the one view
    (:func:`selectors.table_view`) of the table as it was then.
    """
    if version == table.version:
        return selectors.table_view(table, user)
    moves = list(table.moves.filter(seq__lte=version).order_by("seq"))
    ruleset = find_ruleset(table.game, table.ruleset_version)
    *_, last = replay(ruleset, table.seat_count, table.options, seed_for(table), log_of(moves))
    then = copy.copy(table)  # in memory only: never saved
    then.version = version
    then.status = Table.Status.PLAYING
    then.result = then.finished_at = then.deadline_at = None
    then.state = last.state.to_json()
    selectors.keep_state(then, last.state)
    then.to_act = list(last.state.to_act)
    then.seating = [
        dataclasses.replace(seat, deadline_at=None).to_json() for seat in table.seated()
    ]
    then.log_tail = [move.entry() for move in moves if move.seq > version - selectors.RECENT_MOVES]
    return selectors.table_view(then, user)


@require_safe
@never_cache
def table_board(request: HttpRequest, table_id: int) -> HttpResponse:
    """The viewer's board as it was at ``?version=V`` (1 to the table's version), for
    table.js to show several moves one at a time, each on its own board; 400 in words for
    a version the table never had."""
    table = table_or_404(table_id, request.user)
    try:
        version = _asked_version(request, table)
    except UnreadableVersion as error:
        return HttpResponse(
            f"That board could not be drawn: {error}.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    past = version < table.version
    context = table_context(request, table, view_at(table, request.user, version))
    if past:
        context["deadline_at"] = None
        for row in context["seats"]:
            row["deadline_at"] = None
    response = render(request, "games/_table_board.html", context)
    response[BOARD_HEADER] = "1"
    return response


@require_safe
@never_cache
def table_version(request: HttpRequest, table_id: int) -> HttpResponse:
    """``{"version", "status", "seated"}``, with an ETag, 304 when it has not changed.

    One query, no state loaded and no session read: this is what every open
    table page asks every two seconds. (Then who asks, only of a private table or a
    game one of whose players keeps their games to themselves.)
    """
    row = (
        Table.objects.filter(pk=table_id)
        .annotate(
            seated=Count("seats", filter=Q(seats__user__isnull=False) | Q(seats__is_bot=True)),
            kept=archive.keeping(),
        )
        .values_list("version", "status", "seated", "private", "kept")
        .first()
    )
    if row is None:
        raise Http404("There is no such table.")
    version, status, seated, private, kept = row
    if private or kept:  # only its players (and those invited) hear of it
        table_or_404(table_id, request.user)
    etag = etag_of(table_id, version, status, seated)
    seen = parse_etags(request.META.get("HTTP_IF_NONE_MATCH", ""))
    if etag in seen or "*" in seen:
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = JsonResponse({"version": version, "status": status, "seated": seated})
    response["ETag"] = etag
    return response


@require_POST
def table_move(request: HttpRequest, table_id: int) -> HttpResponse:
    """Apply the move a button (or a click on the table) posted, as the API's MoveView does.

    Sent by a form, the page answers Post/Redirect/Get, the message kept for the table
    it goes back to. Sent by table.js (``X-Fairdeal-Fragment: 1``), it answers the
    table's board at once with the message in it (409 or 400 for a refusal, the board
    as it stands): no page is loaded for a move.
    """
    fragment = _wants_fragment(request)
    said: list[tuple[str, str]] = []
    say = (lambda level, text: said.append((level, text))) if fragment else _kept_message(request)
    table: Table | None = None
    try:
        version = _posted_version(request.POST)
        action = _posted_action(request.POST)
    except UnreadableMove as error:
        table_or_404(table_id, request.user)
        say("error", f"That move could not be read: {error}. Nothing was changed.")
        status = 400
    else:
        table, status = _run(
            request,
            lambda: services.move_apply(
                table_id=table_id, user=request.user, version=version, action=action
            ),
            say,
        )
        if table is not None:
            ruleset = find_ruleset(table.game, table.ruleset_version)
            names = selectors.seat_names(table)
            say("success", sentence(f"you {ruleset.action_text(action, names)}"))
    if not fragment:
        return HttpResponseRedirect(table_url(table_id))
    if table is None:
        table = table_or_404(table_id, request.user)
    context = {**table_context(request, table), "board_messages": said}
    response = render(request, "games/_table_board.html", context, status=status)
    response[BOARD_HEADER] = "1"  # the board itself, not a page: table.js swaps it in
    return response


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
def table_resign(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET asks "Are you sure?" (a page of its own, so it needs no script); POST resigns."""
    if request.method != "POST":
        table = table_or_404(table_id, request.user)
        context = table_context(request, table)
        if not context["can_resign"]:
            messages.info(
                request, "There is nothing to resign here: you are not playing at this table."
            )
            return HttpResponseRedirect(table_url(table_id))
        return render(request, "games/table.html", {**context, "confirm_resign": True})
    resigned, _ = _run(
        request,
        lambda: services.table_resign(table_id=table_id, user=request.user),
        _kept_message(request),
    )
    if resigned is not None:
        messages.success(request, "You resigned: your seat finishes last, and the game is over.")
    return HttpResponseRedirect(table_url(table_id))
