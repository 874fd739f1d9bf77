"""Each game is one place: the shared pages never ask which game they serve.

A game's look on the table page and in the replay (its cards, its board and
the fragment that draws it, its buttons) lives in its package under
``games/catalogue/``; the shared code and templates take it from the game's
presentation and name no game. These tests read the shared files for any
game's id, package name or name, so that a branch on a game cannot creep back.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from games.catalogue import GAMES, RULESETS

ROOT = Path(__file__).resolve().parents[2]
SHARED_CODE = [
    ROOT / "games" / name
    for name in (
        "table_pages.py",
        "replay_pages.py",
        "rules_pages.py",
        "pages.py",
        "forms.py",
        "page_urls.py",
        "template_loader.py",
    )
]
SHARED = sorted(
    [
        *SHARED_CODE,
        *(ROOT / "templates").rglob("*.html"),
        *(ROOT / "static" / "fairdeal").glob("*.js"),
        *(ROOT / "static" / "fairdeal").glob("*.css"),
    ]
)
# ``ruleset.id == ...``, ``table.game != ...``: a question about which game it is.
ASKS_WHICH_GAME = re.compile(r"\.(?:id|game)\s*(?:==|!=)|\b(?:id|game)\s+(?:not\s+)?in\s+[(\[{]")


def game_words() -> set[str]:
    """Every game's id, its package's name and its name: ``crazy-8``, ``crazy_8``, ``Crazy 8``."""
    words = set()
    for ruleset in RULESETS.values():
        words |= {ruleset.id, ruleset.id.replace("-", "_"), ruleset.name}
    return words


def test_the_shared_files_are_found() -> None:
    assert all(path.exists() for path in SHARED_CODE)
    assert any(path.suffix == ".html" for path in SHARED)
    assert any(path.suffix == ".js" for path in SHARED)


@pytest.mark.parametrize("path", SHARED, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_shared_file_names_a_game(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    named = {
        word
        for word in game_words()
        if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE)
    }
    assert not named, (
        f"{path.relative_to(ROOT)} names {sorted(named)}: say it in the game's package"
    )


@pytest.mark.parametrize("path", SHARED_CODE, ids=lambda path: path.name)
def test_no_shared_code_asks_which_game_it_serves(path: Path) -> None:
    asked = ASKS_WHICH_GAME.findall(path.read_text(encoding="utf-8"))
    assert not asked, f"{path.relative_to(ROOT)} asks which game it is: {asked}"


# ``.dos-card``, ``--dos-ink``: a class or a custom property of a game's own.
GAME_STYLE = re.compile(
    r"(?:\.|--)(?:"
    + "|".join(sorted(re.escape(w) for w in game_words() if " " not in w))
    + r")-[\w-]*",
    re.IGNORECASE,
)


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "static" / "fairdeal").glob("*.css")),
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_no_shared_stylesheet_styles_a_game(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    styled = sorted(set(GAME_STYLE.findall(text)))
    assert not styled, f"{path.relative_to(ROOT)} styles {styled}: in the game's table.css"


def test_the_scan_sees_a_branch_on_a_game() -> None:
    assert GAME_STYLE.search(".dos-card .card-face { color: var(--dos-ink); }")
    assert not GAME_STYLE.search(".card-face { color: var(--ink); }")
    assert ASKS_WHICH_GAME.search('if ruleset.id == "x":')
    assert re.search(r"(?<![\w-])dos(?![\w-])", "{% if dos %}", re.IGNORECASE)
    assert not re.search(r"(?<![\w-])dos(?![\w-])", "dos-card", re.IGNORECASE)


def test_every_game_has_a_presentation() -> None:
    assert set(GAMES) == set(RULESETS)


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_each_games_fragments_are_found_by_the_names_its_presentation_gives(game: str) -> None:
    presentation = GAMES[game].presentation
    names = [
        presentation.board_template,
        presentation.replay_board_template,
        presentation.result_board_template,
        presentation.hand_notes_template,
        presentation.seat_notes_template,
    ]
    for name in filter(None, names):
        assert get_template(name).origin.name.endswith(Path(name).name)
        if name.startswith(f"games/{game}/"):
            assert presentation.templates is not None
            assert Path(get_template(name).origin.name).parent == presentation.templates.resolve()


@pytest.mark.parametrize(
    "name",
    [
        "games/dos/../../../config/settings.py",
        "games/dos/../dingo/board.html",
        "games/nogame/x.html",
    ],
)
def test_the_loader_finds_nothing_outside_a_games_own_folder(name: str) -> None:
    with pytest.raises(TemplateDoesNotExist):
        get_template(name)
