"""Server-rendered pages: the home page, the lobby, a new table (against the computer in one
click, or like a finished one), joining one, and my tables.

Thin, like the API's views: reads go through games.selectors and writes
through games.services, the very functions the API calls; a refusal comes
back as a sentence on the page, and a refused write changes nothing.
"""

from __future__ import annotations

import logging
import re
import secrets
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.generic import TemplateView
from redis.exceptions import RedisError

from accounts.names import is_valid_username
from config.errors import ServiceError
from fairplay.models import Contribution
from games import invitations, selectors, services
from games.catalogue import RULESETS
from games.forms import (
    DEFAULT_DEADLINE,
    ComputerForm,
    LobbyFilterForm,
    OptionsForm,
    TableForm,
    bot_seat_notes,
    deadline_words,
    option_label,
    sentence,
    value_words,
)
from games.models import Seat, Table
from games.rules import RulesError
from games.rules.base import FINISHED, ordinal
from games.rules.words import seat_name

logger = logging.getLogger(__name__)

LOBBY_PAGE_SIZE = 25
ONCE_SECONDS = 24 * 3600  # how long a create form's one-time token is remembered once used
# How long "play again" from a table leads to the table it made, rather than make another:
# a double click, or the button sent again from a page left open.
AGAIN_SECONDS = 10 * 60


class HomeView(TemplateView):
    template_name = "home.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["games"] = [ruleset.describe() for ruleset in RULESETS.values()]
        authenticated = self.request.user.is_authenticated
        context["computer_form"] = computer_form() if authenticated else None
        return context


# -- words for tables -------------------------------------------------------------------


def game_name(game: str) -> str:
    ruleset = RULESETS.get(game)
    return ruleset.name if ruleset else game


def player_url(name: str | None) -> str | None:
    """The public page of the player called ``name``; None for a bot ("bot 1") or a free seat."""
    if not name or not is_valid_username(name):
        return None
    return reverse("player-page", args=[name])


def options_in_words(game: str, options: dict[str, Any]) -> list[dict[str, str]]:
    """The options of a table that differ from its game's preset, each with its explanation.

    Empty when the table plays the rulebook's rules.
    """
    ruleset = RULESETS.get(game)
    if ruleset is None:
        return []
    words = []
    for option in ruleset.options:
        if option.name in options and options[option.name] != option.default:
            words.append(
                {
                    "name": option.name,
                    "label": option_label(option.name),
                    "value": value_words(option, options[option.name]),
                    "description": sentence(option.description),
                }
            )
    return words


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _result_words(summary: dict[str, Any]) -> str:
    """How a finished table ended for the viewer: their place, total, and why it ended."""
    result = summary["result"] or {}
    seat = summary["your_seat"]
    places, totals = result.get("places") or [], result.get("totals") or []
    if seat is None or seat >= len(places):
        return "finished"
    mine = f"you came {ordinal(places[seat])} of {len(places)}"
    if seat < len(totals):
        mine += f", with {totals[seat]} points"
    reason, forfeit = result.get("reason"), result.get("seat")
    if reason == FINISHED or forfeit is None:
        return sentence(mine)
    who = "you" if forfeit == seat else _player(summary, forfeit)
    how = "resigned" if reason == "resigned" else "missed a deadline"
    return sentence(f"{mine}; {who} {how}")


def _player(summary: dict[str, Any], seat: int) -> str:
    players = summary["players"]
    if any(bot["seat"] == seat for bot in summary["bots"]):
        return f"bot {seat}"
    return (players[seat] if seat < len(players) else None) or seat_name(seat)


def _bot_words(summary: dict[str, Any]) -> list[str]:
    """The table's bots as a list of players shows them: "bot 2 (strong)"."""
    return [f"bot {bot['seat']} ({bot['level']})" for bot in summary["bots"]]


def _lobby_row(summary: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": summary["id"],
        "game": summary["game"],
        "game_name": game_name(summary["game"]),
        "seat_count": summary["seat_count"],
        "taken": summary["seat_count"] - summary["free_seats"],
        "players": [name for name in summary["players"] if name] + _bot_words(summary),
        "people": [{"name": name, "url": player_url(name)} for name in summary["players"] if name],
        "bots": _bot_words(summary),
        "deadline_words": deadline_words(summary["deadline_seconds"]),
        "options": options_in_words(summary["game"], summary["options"]),
        "rated": summary["rated"],
        "created_by": summary["created_by"],
        "created_by_url": player_url(summary["created_by"]),
        "created_at": _when(summary["created_at"]),
    }


def _my_row(summary: dict[str, Any], user_name: str) -> dict[str, Any]:
    status = summary["status"]
    row = {
        "id": summary["id"],
        "game_name": game_name(summary["game"]),
        "status": status,
        "players": [name if name != user_name else "you" for name in summary["players"] if name]
        + _bot_words(summary),
        "seat_count": summary["seat_count"],
        "deadline_words": deadline_words(summary["deadline_seconds"]),
        "your_turn": summary["your_turn"],
        "deadline": _when(
            summary["your_deadline"] if summary["your_turn"] else summary["deadline"]
        ),
        "state_words": "",
    }
    if status == Table.Status.OPEN:
        missing = summary["free_seats"]
        row["state_words"] = f"Waiting for {missing} more player{'' if missing == 1 else 's'}."
    elif status == Table.Status.PLAYING and not summary["your_turn"]:
        names = ", ".join(_player(summary, seat) for seat in summary["to_act"])
        row["state_words"] = f"Waiting on {names}." if names else "Playing."
    elif status == Table.Status.PLAYING:
        row["state_words"] = "Your move."
    elif status == Table.Status.FINISHED:
        row["state_words"] = _result_words(summary)
    return row


# -- the lobby ------------------------------------------------------------------------


@require_safe
def lobby(request: HttpRequest) -> HttpResponse:
    """The open tables anybody may look at, filtered by game and deadline, a page at a time."""
    form = LobbyFilterForm(request.GET)
    problems: list[str] = []
    if not form.is_valid():
        problems.append("Some filters were not understood and were left out.")
        problems.extend(form.errors.get("page", []))
    page_number = form.cleaned_data.get("page") or 1
    filters = form.filters()
    try:
        page = selectors.open_tables(
            request.user, **filters, page=page_number, page_size=LOBBY_PAGE_SIZE
        )
    except selectors.PageOutOfRange as error:
        problems.append(sentence(error.message))
        page = selectors.open_tables(request.user, **filters, page=1, page_size=LOBBY_PAGE_SIZE)

    def page_link(number: int) -> str:
        return "?" + urlencode({**filters, "page": number})

    context = {
        "form": form,
        "problems": problems,
        "rows": [_lobby_row(summary) for summary in page.tables],
        "page": page,
        "filtered": bool(filters),
        "next_link": page_link(page.page + 1) if page.has_next else None,
        "previous_link": page_link(page.page - 1) if page.has_previous else None,
        "login_url": f"{reverse('login-page')}?{urlencode({'next': request.get_full_path()})}",
        "computer_form": computer_form() if request.user.is_authenticated else None,
    }
    return render(request, "games/lobby.html", context, status=400 if problems else 200)


# -- a new table ------------------------------------------------------------------------


def _claim_once(user: Any, token: str) -> bool:
    """Whether this create form is sent for the first time: a double click makes one table.

    ``cache.add`` is atomic, so of two requests racing with the same token one wins.
    """
    try:
        return cache.add(f"table-new-once:{user.pk}:{token}", True, timeout=ONCE_SECONDS)
    except RedisError:
        logger.warning("the cache cannot be reached: a double-sent create form is not caught")
        return True


def _receipt(table: Table, seat: int) -> str | None:
    contribution = Contribution.objects.filter(table=table, seat=seat).first()
    return contribution.receipt if contribution else None


def _entropy_words(receipt: str | None) -> str:
    if receipt:
        return f"Your browser added its own random bytes to the seed; their receipt is {receipt}."
    return "Your browser added no random bytes of its own (scripts were off)."


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def table_new(request: HttpRequest) -> HttpResponse:
    """The form of a new table, built from the catalogue; on success, the new table's page."""
    option_forms = {game: OptionsForm(ruleset) for game, ruleset in RULESETS.items()}
    if request.method != "POST":
        chosen = request.GET.get("game")
        ruleset = RULESETS.get(chosen) if isinstance(chosen, str) else None
        ruleset = ruleset or next(iter(RULESETS.values()))
        form = TableForm(
            initial={
                "game": ruleset.id,
                "seats": ruleset.min_seats,
                "deadline": DEFAULT_DEADLINE,
                "once": secrets.token_urlsafe(16),
            }
        )
        return _table_new_page(request, form, option_forms)

    form = TableForm(request.POST)
    game = request.POST.get("game")
    options = None
    if game in RULESETS:
        options = option_forms[game] = OptionsForm(RULESETS[game], request.POST)
    valid = form.is_valid()  # every form checked, so that every mistake is shown at once
    if options is not None and options.is_valid() and valid:
        data = form.cleaned_data
        if not _claim_once(request.user, data["once"]):
            messages.info(
                request,
                "That form had already been sent: one table was made from it, not two. "
                "Here are your tables.",
            )
            return redirect("my-tables")
        try:
            with transaction.atomic():
                table = services.table_create(
                    user=request.user,
                    game=data["game"],
                    seats=data["seats"],
                    deadline=data["deadline"],
                    reserve=data["reserve"] or 0,
                    rated=data["rated"],
                    options=options.options(),
                    bots=form.bot_seats(),
                    bot_fill=form.bot_fill_request(),
                    entropy=data["entropy"] or None,
                    private=data["private"],
                )
                receipt = _receipt(table, 0)
        except RulesError as error:
            if error.code == "invalid_seats":
                form.add_error("seats", sentence(error.message))
            else:
                options.add_error(None, sentence(error.message))
        except services.InvalidBots as error:
            form.add_error("bots", sentence(error.message))
        except services.InvalidRequest as error:
            form.add_error("deadline", sentence(error.message))
        except ServiceError as error:
            form.add_error(None, sentence(error.message))
        else:
            state = "is open" if table.status == Table.Status.OPEN else "has started"
            messages.success(
                request,
                f"Table {table.pk} {state}: {game_name(table.game)}, {table.seat_count} seats, "
                f"{deadline_words(table.deadline_seconds)} a move; you sit in seat 0. "
                f"Its seed is committed: SHA-256 {table.commitment}. {_entropy_words(receipt)}",
            )
            return redirect("table-page", table.pk)
    # Sent again, the form is a new request: it gets a new one-time token.
    # The browser adds fresh entropy when it sends the form again.
    form.data = form.data.copy()
    form.data["once"] = secrets.token_urlsafe(16)
    form.data["entropy"] = ""
    return _table_new_page(request, form, option_forms, status=400)


def _table_new_page(
    request: HttpRequest,
    form: TableForm,
    option_forms: dict[str, OptionsForm],
    status: int = 200,
) -> HttpResponse:
    chosen = form["game"].value()
    errors = [*form.non_field_errors(), *form.hidden_errors()]
    for name, field in form.fields.items():
        if not field.widget.is_hidden:
            errors.extend(f"{field.label or name.capitalize()}: {e}" for e in form[name].errors)
    for game, options in option_forms.items():
        if game == chosen and options.is_bound:
            name = options.ruleset.name
            errors.extend(f"{name}: {e}" for e in options.non_field_errors())
            errors.extend(e for field in options.fields for e in options[field].errors)
    context = {
        "form": form,
        "option_forms": list(option_forms.values()),
        "bot_seat_notes": bot_seat_notes(),
        "chosen": chosen,
        "errors": errors,
    }
    return render(request, "games/table_new.html", context, status=status)


@login_required
@require_POST
def table_vs_computer(request: HttpRequest) -> HttpResponse:
    """A game against the computer in one click: the format the button names (its options),
    the game's own seat count with a bot in every seat but the player's; it starts at once."""
    form = ComputerForm(request.POST)
    if not form.is_valid():
        problems = [e for errors in form.errors.values() for e in errors]
        messages.error(request, f"No table was made: {' '.join(problems)}")
        return redirect("lobby")
    data = form.cleaned_data
    game, format, level = data["game"], data["format"], data["level"]
    if not _claim_once(request.user, data["once"]):
        messages.info(request, "That form had already been sent: one table was made from it.")
        return redirect("my-tables")
    try:
        with transaction.atomic():
            table = services.table_create(
                user=request.user,
                game=game.id,
                seats=game.quick_seats,
                deadline=DEFAULT_DEADLINE,
                options=dict(format.options),
                bots=[{"seat": n, "level": level} for n in range(1, game.quick_seats)],
                entropy=data["entropy"] or None,
            )
            receipt = _receipt(table, 0)
    except (ServiceError, RulesError) as error:
        messages.error(request, f"No table was made: {sentence(error.message)}")
        return redirect("lobby")
    how = format.name[:1].lower() + format.name[1:]
    messages.success(
        request,
        f"Table {table.pk}: {game.ruleset.name}, {how}, against the computer ({level}),"
        f" {deadline_words(table.deadline_seconds)} a move for you; the computer never keeps"
        f" you waiting. Its seed is committed: SHA-256 {table.commitment}."
        f" {_entropy_words(receipt)}",
    )
    return redirect("table-page", table.pk)


def computer_form() -> ComputerForm:
    """The form of a game against the computer (home page, lobby), with its one-time token."""
    return ComputerForm(initial={"once": secrets.token_urlsafe(16)})


# -- playing again -------------------------------------------------------------------------


@require_POST
def table_again(request: HttpRequest, table_id: int) -> HttpResponse:
    """A new table like this finished one, for one of its players; then the new table's page.

    The button may be sent twice (a double click, a page left open): for a while
    the same player's "play again" from the same table leads to the table it made.
    """
    if not request.user.is_authenticated:
        messages.info(request, "Log in to play again; then press the button again.")
        next_page = reverse("table-page", args=[table_id])
        return redirect(f"{reverse('login-page')}?{urlencode({'next': next_page})}")
    key = f"table-again:{request.user.pk}:{table_id}"
    made = _claim_again(key)
    if made is not None:
        if made:
            messages.info(request, f"You already started table {made} from this one.")
            return redirect("table-page", made)
        messages.info(request, "That button had already been sent. Here are your tables.")
        return redirect("my-tables")
    try:
        with transaction.atomic():
            table, _ = services.table_again(
                table_id=table_id,
                user=request.user,
                entropy=request.POST.get("entropy") or None,
            )
            receipt = _receipt(table, Seat.objects.get(table=table, user=request.user).number)
    except (ServiceError, RulesError) as error:
        _forget_again(key)
        messages.error(
            request, f"No new table was made from table {table_id}: {sentence(error.message)}"
        )
        if isinstance(error, services.TableNotFound):
            return redirect("my-tables")
        return redirect("table-page", table_id)
    _remember_again(key, table.pk)
    if table.status == Table.Status.OPEN:
        others = Seat.objects.filter(table=table, user__isnull=False, joined_at__isnull=True)
        waiting = len(others)
        state = (
            "is offered: the cards are dealt when "
            + ("the other player has" if waiting == 1 else f"the other {waiting} players have")
            + " accepted"
        )
    else:
        state = "has started"
    messages.success(
        request,
        f"Table {table.pk} {state}: {game_name(table.game)} again, as at table {table_id}"
        f" ({table.seat_count} seats, {deadline_words(table.deadline_seconds)} a move),"
        f" everybody in the seat they had. Its seed is new and committed: SHA-256"
        f" {table.commitment}. {_entropy_words(receipt)}",
    )
    return redirect("table-page", table.pk)


def _claim_again(key: str) -> int | None:
    """None when this "play again" is the first; else the table it made (0: still making it)."""
    try:
        if cache.add(key, 0, timeout=AGAIN_SECONDS):
            return None
        return int(cache.get(key) or 0)
    except RedisError:
        logger.warning("the cache cannot be reached: a double-sent 'play again' is not caught")
        return None


def _remember_again(key: str, table_id: int) -> None:
    try:
        cache.set(key, table_id, timeout=AGAIN_SECONDS)
    except RedisError:
        logger.warning("the cache cannot be reached: the table made again is not remembered")


def _forget_again(key: str) -> None:
    try:
        cache.delete(key)
    except RedisError:
        logger.warning("the cache cannot be reached: a refused 'play again' stays claimed")


# -- joining a table -----------------------------------------------------------------------


@require_POST
def table_join(request: HttpRequest, table_id: int) -> HttpResponse:
    """Take a free seat, with the browser's contribution to the seed; then the table's page."""
    invite = request.POST.get("invite") or None
    if not request.user.is_authenticated:
        messages.info(request, "Log in to take a seat; then join the table again.")
        linked = invite is not None and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", invite)
        back = reverse("table-invite-page", args=[table_id, invite]) if linked else reverse("lobby")
        return redirect(f"{reverse('login-page')}?{urlencode({'next': back})}")
    entropy = request.POST.get("entropy") or None
    try:
        with transaction.atomic():
            table = services.table_join(
                table_id=table_id, user=request.user, entropy=entropy, invite=invite
            )
            seat = Seat.objects.get(table=table, user=request.user).number
            receipt = _receipt(table, seat)
    except services.AlreadySeated:
        # A second click on Join lands here: the first one seated the player.
        messages.info(request, f"You already have a seat at table {table_id}.")
        return redirect("table-page", table_id)
    except (ServiceError, RulesError) as error:
        messages.error(request, f"You could not join table {table_id}: {sentence(error.message)}")
        return redirect("lobby")
    started = (
        " Every seat is taken: the cards are dealt." if table.status != Table.Status.OPEN else ""
    )
    messages.success(
        request,
        f"You sit in {seat_name(seat)} at table {table.pk} ({game_name(table.game)}). "
        f"Its seed is committed: SHA-256 {table.commitment}. {_entropy_words(receipt)}{started}",
    )
    return redirect("table-page", table.pk)


# -- my tables ---------------------------------------------------------------------------


@login_required
@require_safe
def my_tables(request: HttpRequest) -> HttpResponse:
    """The player's tables: those waiting on them first, then the others, then the finished."""
    rows = [
        _my_row(summary, request.user.username) for summary in selectors.my_tables(request.user)
    ]
    context = {
        "waiting": [row for row in rows if row["your_turn"]],
        "others": [
            row for row in rows if not row["your_turn"] and row["status"] != Table.Status.FINISHED
        ],
        "finished": [row for row in rows if row["status"] == Table.Status.FINISHED],
        "invitations": [
            {**row, "game_name": game_name(row["game"])}
            for row in invitations.pending(request.user)
        ],
    }
    return render(request, "games/my_tables.html", context)
