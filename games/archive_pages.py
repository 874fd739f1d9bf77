"""The archive's page, ``/games/``: finished games anybody may watch, filtered by game,
player and how they ended, a page at a time, each with its replay, record and verify page;
and with ``?status=playing`` the games being played that anybody may watch (games.archive).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from accounts.names import USERNAME, normalize_username
from config.replica import lagging_reads
from games import archive
from games.forms import game_choices
from games.pages import game_name, player_url
from games.rules.base import ordinal

PAGE_SIZE = archive.ARCHIVE_PAGE_SIZE
RESULT_WORDS = {
    "finished": "Played to the end",
    "timeout": "A deadline missed",
    "resigned": "A resignation",
}


class ArchiveFilterForm(forms.Form):
    """The archive's filters, under the names the API's ``GET /api/archive/`` takes."""

    status = forms.ChoiceField(
        label="Games",
        required=False,
        choices=[("finished", "Finished"), ("playing", "Being played now")],
        error_messages={"invalid_choice": "Choose finished games or games being played."},
    )
    game = forms.ChoiceField(
        required=False,
        error_messages={"invalid_choice": "There is no such game: choose one from the list."},
    )
    player = forms.CharField(
        required=False,
        max_length=30,
        help_text="A username: the games they sat at.",
        error_messages={"max_length": "A username is at most 30 characters."},
    )
    result = forms.ChoiceField(
        label="How it ended",
        required=False,
        choices=[("", "Any way"), *RESULT_WORDS.items()],
        error_messages={"invalid_choice": "Choose how the game ended from the list."},
    )
    cursor = forms.RegexField(
        regex=rf"^{archive.CURSOR.pattern}$",
        required=False,
        widget=forms.HiddenInput,
        error_messages={"invalid": "That page is not one this list gave: start again."},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [("", "Any game"), *game_choices()]

    def clean_player(self) -> str:
        name = normalize_username(self.cleaned_data.get("player") or "")
        if name and not USERNAME.fullmatch(name):
            raise forms.ValidationError("A username is 3 to 30 letters, digits, _ and -.")
        return name

    def filters(self) -> dict[str, str]:
        """The filters understood (a page's links keep them), without the page."""
        data = getattr(self, "cleaned_data", {})
        wanted = {name: data.get(name) for name in ("status", "game", "player", "result")}
        if wanted["status"] != "playing":
            wanted["status"] = ""
        return {name: value for name, value in wanted.items() if value and name not in self.errors}


def _row(game: dict[str, Any]) -> dict[str, Any]:
    result = game["result"] or {}
    places = result.get("places") or []
    people = [
        {
            "name": seat["player"] or f"bot {seat['seat']}",
            "url": player_url(seat["player"]),
            "place": ordinal(places[seat["seat"]]) if seat["seat"] < len(places) else None,
            "total": (result.get("totals") or [None] * (seat["seat"] + 1))[seat["seat"]],
        }
        for seat in game["seats"]
    ]
    return {
        **game,
        "game_name": game_name(game["game"]),
        "people": people,
        "ended": RESULT_WORDS.get(result.get("reason", ""), ""),
    }


@require_safe
@lagging_reads
def archive_page(request: HttpRequest) -> HttpResponse:
    """A page of the archive (or of the games being played), as ``GET /api/archive/``."""
    form = ArchiveFilterForm(request.GET)
    problems: list[str] = []
    if not form.is_valid():
        problems.append("Some filters were not understood and were left out.")
    filters = form.filters()
    cursor = form.cleaned_data.get("cursor") if "cursor" not in form.errors else None
    playing = filters.get("status") == "playing"

    page = archive.public_games(
        playing=playing,
        game=filters.get("game"),
        player=filters.get("player"),
        result=filters.get("result"),
        cursor=cursor or None,
        page_size=PAGE_SIZE,
    )
    context = {
        "form": form,
        "problems": problems,
        "playing": playing,
        "rows": [_row(game) for game in page.games],
        "filtered": any(filters.get(name) for name in ("game", "player", "result")),
        "first_link": f"?{urlencode(filters)}" if cursor else None,
        "next_link": (
            f"?{urlencode({**filters, 'cursor': page.next_cursor})}" if page.next_cursor else None
        ),
    }
    return render(request, "games/archive.html", context, status=400 if problems else 200)
