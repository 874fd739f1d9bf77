"""A game's stylesheet lives in its package (``games/catalogue/<game>/``) and is found, served
and gathered as ``games/<game id>/<file>.css`` (``games.static_finder``); nothing else of the
package is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client

from games import services
from games.catalogue import GAMES
from games.static_finder import Finder
from tests.factories import make_users, started_table

ROOT = Path(__file__).resolve().parents[2]


def stylesheets() -> dict[str, str]:
    return {
        game_id: game.presentation.stylesheet
        for game_id, game in GAMES.items()
        if game.presentation.stylesheet
    }


def test_the_games_with_a_board_of_their_own_have_a_stylesheet_of_their_own() -> None:
    assert set(stylesheets()) >= {"dingo", "dos"}


@pytest.mark.parametrize("game_id", sorted(stylesheets()))
def test_a_games_stylesheet_is_found_in_its_package(game_id: str) -> None:
    sheet = stylesheets()[game_id]
    assert sheet == f"games/{game_id}/table.css"
    found = finders.find(sheet)
    assert found == str(ROOT / "games" / "catalogue" / game_id.replace("-", "_") / "table.css")


@pytest.mark.parametrize(
    "path",
    [
        "games/dos/rules.py",
        "games/dos/board.html",
        "games/dos/rules.md",
        "games/dos/../dingo/rules.py",
        "games/dos/../../../config/settings.py",
        "games/nothing/table.css",
        "games/dos/missing.css",
        "fairdeal/../games/dos/table.css",
    ],
)
def test_nothing_else_of_a_package_is_found(path: str) -> None:
    assert Finder().find(path) == []
    assert Finder().find(path, find_all=True) == []


def test_collectstatic_gathers_each_games_stylesheet(tmp_path: Path, settings: Any) -> None:
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", interactive=False, verbosity=0)
    for sheet in stylesheets().values():
        assert (tmp_path / sheet).read_text(encoding="utf-8").startswith("/*")
    assert not list(tmp_path.glob("games/*/*.py"))


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "seats"), [("dos", 2), ("dingo", 4), ("crazy-eights", 2)])
def test_the_table_page_and_the_replay_link_the_games_own_stylesheet(game: str, seats: int) -> None:
    players = make_users(*["alice", "bob", "carol", "dave"][:seats])
    table = started_table(*players, game=game)
    sheet = GAMES[game].presentation.stylesheet
    playing = Client().get(f"/tables/{table.pk}/")
    services.table_resign(table_id=table.pk, user=players[0])  # a replay is of an ended game
    replay = Client().get(f"/tables/{table.pk}/replay/")
    for page in (playing, replay):
        assert page.status_code == 200
        linked = re.findall(
            r'<link rel="stylesheet" href="/static/([^"]+)">', page.content.decode()
        )
        assert "fairdeal/table.css" in linked
        assert [s for s in linked if s.startswith("games/")] == ([sheet] if sheet else [])
