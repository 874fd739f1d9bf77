"""The rules pages: how to play each game, from the rules.md in the game's own package.

Every registered game has a page (``/rules/<game>/``) with its rules, a worked
example drawn with its own cards, its options from the catalogue and its
Interpretations, and without the passages its rules.md keeps for developers;
``/rules/`` lists them. The home page, the lobby and the new-table form link
to them. The toy game, which lives in the tests, gets a page the same way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.catalogue import GAMES, RULESETS, Game, register, unregister
from games.rules.chance import SeededChance, game_seed
from games.rules_pages import (
    CARDS_FENCE,
    EXAMPLE,
    FOR_DEVELOPERS,
    INTERPRETATIONS,
    RULES,
    choices_words,
    rules_text,
)
from tests.factories import finished_table, make_users, open_table, started_table
from tests.test_pages_csp import assert_meets_the_policy
from tests.toy import GAME as TOY

pytestmark = pytest.mark.django_db

INDEX = reverse("rules")
# A fenced block of a worked example's cards, and its rows' tokens.
CARDS_BLOCK = re.compile(rf"^```{CARDS_FENCE}\n(.*?)^```", re.DOTALL | re.MULTILINE)
# What only a developer reads: the engine's modules, the tests, the verifier's names.
DEVELOPERS_WORDS = ("games/catalogue/", "tests/", "docs/", "The engine is", "first-dealer")


def page_of(game: str) -> str:
    return reverse("rules-page", args=[game])


def text_of(html: str) -> str:
    """The page's words, without tags, as a person reads them."""
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def section_of(html: str, anchor: str) -> str:
    """The HTML of the page's ``<section>`` headed by ``#anchor``."""
    start = html.index(f'<h2 id="{anchor}">')
    return html[start : html.index("</section>", start)]


def example_cards(game: Game) -> list[str]:
    """Every card token the worked example of ``game``'s rules.md draws."""
    text = game.rules_page.read_text(encoding="utf-8")
    return [
        token
        for block in CARDS_BLOCK.findall(text)
        for line in block.splitlines()
        for token in line.rpartition(":")[2].split()
    ]


def cards_of_a_new_game(game: Game) -> set[str]:
    """Every string in a new match's state, at the fewest seats: the game's cards among them."""
    state, _ = game.ruleset.new_game(game.ruleset.min_seats, {}, SeededChance(game_seed(bytes(32))))
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(state.to_json())
    return found


@pytest.fixture
def toy() -> Iterator[Game]:
    """The toy game in the catalogue for one test."""
    register(TOY)
    try:
        yield TOY
    finally:
        unregister(TOY.id)


# -- every game's page ---------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_has_a_page_with_its_rules_example_options_and_interpretations(
    game: str,
) -> None:
    response = Client().get(page_of(game))
    assert_meets_the_policy(response)
    html = response.content.decode()
    name = RULESETS[game].name

    assert f"<h1>How to play {name}</h1>" in html
    for anchor in ("the-rules", "a-worked-example", "options", "interpretations"):
        assert f'<h2 id="{anchor}">' in html
        assert f'href="#{anchor}"' in html  # in the contents
    assert 'id="interpretation-1"' in section_of(html, "interpretations")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_worked_example_draws_the_games_own_cards(game: str) -> None:
    found = GAMES[game]
    html = Client().get(page_of(game)).content.decode()
    example = section_of(html, "a-worked-example")
    tokens = example_cards(found)

    assert tokens, f"{game}'s worked example draws no card"
    assert set(tokens) <= cards_of_a_new_game(found), "a card that is not the game's"
    for token in tokens:
        face = found.presentation.card_face(token)
        assert f'title="{face["name"]} ({token})"' in example
    assert "```" not in example


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_page_lists_each_option_with_its_default_and_what_may_be_chosen(game: str) -> None:
    ruleset = RULESETS[game]
    options = text_of(section_of(Client().get(page_of(game)).content.decode(), "options"))

    for option in ruleset.options:
        assert f"<code>{option.name}</code>" not in options  # the words, not the tags
        assert option.name in options
        assert f"may be {choices_words(option)}" in options
    if not ruleset.options:
        assert f"{ruleset.name} has no options" in options


def test_an_option_says_its_default_and_range_in_the_new_table_forms_words() -> None:
    options = text_of(section_of(Client().get(page_of("dodo")).content.decode(), "options"))

    assert "Target target The line: the deal that takes somebody's total over it is the last." in (
        options
    )
    assert "Default: 200 ; may be 50 to 1000." in options  # the default in bold
    assert "Default: off ; may be on or off." in options


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_page_leaves_out_what_its_rules_md_keeps_for_developers(game: str) -> None:
    source = GAMES[game].rules_page.read_text(encoding="utf-8")
    words = text_of(Client().get(page_of(game)).content.decode())

    assert FOR_DEVELOPERS.search(source), "the docs keep their developers' passages"
    assert "The engine is" in source
    for developers in DEVELOPERS_WORDS:
        assert developers not in words
    assert "<!--" not in words
    assert "legal_actions" not in words  # the Actions section, for API clients


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rules_md_has_the_parts_the_page_shows_and_balanced_markers(game: str) -> None:
    source = GAMES[game].rules_page.read_text(encoding="utf-8")

    for heading in (RULES, EXAMPLE, INTERPRETATIONS):
        assert f"\n## {heading}\n" in source
    assert source.count("<!-- developers -->") == source.count("<!-- /developers -->")
    assert "<!--" not in FOR_DEVELOPERS.sub("", source)


def test_the_docs_rules_are_the_packages_files() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "rules"
    for game in GAMES.values():
        assert (docs / f"{game.id}.md").resolve() == game.rules_page.resolve()


def test_a_game_not_in_the_catalogue_is_a_404_page_in_words_with_the_games() -> None:
    response = Client().get(page_of("poker"))

    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>No such game</h1>" in html
    assert "There is no game called “poker” here." in text_of(html)
    for game in GAMES:
        assert f'href="{page_of(game)}"' in html


def test_the_index_lists_every_game_with_a_summary_and_a_link() -> None:
    response = Client().get(INDEX)
    assert_meets_the_policy(response)
    html = response.content.decode()

    assert "<h1>How to play</h1>" in html
    for game in GAMES.values():
        assert f'<a href="{page_of(game.id)}">{game.ruleset.name}</a>' in html
        assert rules_text(game).summary in html


def test_the_toy_game_in_the_tests_gets_a_page_from_its_rules_md(toy: Game) -> None:
    html = Client().get(page_of("toy")).content.decode()

    assert "<h1>How to play Toy</h1>" in html
    assert 'title="three of clubs (3C)"' in section_of(html, "a-worked-example")
    assert "Toy has no options" in text_of(section_of(html, "options"))
    assert f'href="{page_of("toy")}"' in Client().get(INDEX).content.decode()


def test_a_page_only_for_reading() -> None:
    assert Client().post(page_of("dodo")).status_code == 405
    assert Client().head(page_of("dodo")).status_code == 200


# -- the Markdown, rendered safely ---------------------------------------------------------


def test_the_markdown_is_rendered_without_raw_html_and_with_the_cards_drawn(
    tmp_path: Path,
) -> None:
    rules = tmp_path / "rules.md"
    rules.write_text(
        "# A game\n\nIts lead <script>alert(1)</script>, [a link](javascript:alert(1)).\n\n"
        "<!-- developers -->\n\nThe engine is here.\n\n<!-- /developers -->\n\n"
        "## The rules\n\n### Play\n\nA <b>rule</b><!-- developers --> (dev)<!-- /developers -->.\n\n"
        "## A worked example\n\n```cards\nYour hand: 9H TS\nZZ\n```\n\n```\n{9H}\n```\n\n"
        "## Actions\n\n`legal_actions`\n\n"
        "## Interpretations\n\n1. **One.**\n2. **Two.**\n",
        encoding="utf-8",
    )
    dodo = GAMES["dodo"]
    text = rules_text(Game(ruleset=dodo.ruleset, presentation=dodo.presentation, rules_page=rules))

    assert "<script>" not in text.lead and "&lt;script&gt;" in text.lead
    assert 'href="javascript' not in text.lead
    assert "The engine is" not in text.lead
    assert set(text.sections) == {RULES, EXAMPLE, INTERPRETATIONS}
    assert text.sections[RULES].parts == (("play", "Play"),)
    assert "&lt;b&gt;rule&lt;/b&gt;." in text.sections[RULES].html
    example = text.sections[EXAMPLE].html
    assert "<dt>Your hand</dt>" in example
    assert 'title="nine of hearts (9H)"' in example and 'title="ten of spades (TS)"' in example
    assert "<dt>Cards</dt>" in example  # a row without a label
    assert "<code>{9H}\n</code>" in example  # another fence stays code
    interpretations = text.sections[INTERPRETATIONS].html
    assert '<li id="interpretation-1">' in interpretations
    assert '<li id="interpretation-2">' in interpretations


def test_the_page_reads_its_rules_md_again_once_it_changes(tmp_path: Path) -> None:
    rules = tmp_path / "rules.md"
    dodo = GAMES["dodo"]
    game = Game(ruleset=dodo.ruleset, presentation=dodo.presentation, rules_page=rules)
    rules.write_text("# A game\n\nFirst words.\n", encoding="utf-8")
    assert "First words." in rules_text(game).summary

    rules.write_text("# A game\n\nSecond words.\n", encoding="utf-8")
    stat = rules.stat()
    os.utime(rules, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert "Second words." in rules_text(game).summary


# -- the links to them ---------------------------------------------------------------------


def test_the_home_page_links_each_games_rules() -> None:
    html = Client().get("/").content.decode()

    for game in GAMES.values():
        assert f'<a href="{page_of(game.id)}">how to play' in html


def test_the_lobby_links_the_rules_and_each_tables_games_rules() -> None:
    (eve,) = make_users("eve")
    open_table(eve, seats=3, game="dodo")
    html = Client().get(reverse("lobby")).content.decode()

    assert f'<a href="{INDEX}">How to play each game</a>' in html
    assert f'<a href="{page_of("dodo")}">how to play' in html


def test_the_new_table_form_links_each_games_rules_beside_the_game_choice() -> None:
    (ann,) = make_users("ann")
    client = Client()
    client.force_login(ann)
    html = client.get(reverse("table-new")).content.decode()

    choice = html.index('name="game"')
    links = html.index("How to play:", choice)
    assert links < html.index('name="seats"')
    for game in GAMES.values():
        assert f'<a href="{page_of(game.id)}">{game.ruleset.name}</a>' in html[links:]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_table_page_links_its_games_rules_in_play_and_at_the_end(game: str) -> None:
    players = make_users("ann", "ben", "cat", "dan")[: GAMES[game].quick_seats]
    link = f'<a href="{page_of(game)}">How to play {GAMES[game].ruleset.name}</a>'
    client = Client()
    client.force_login(players[0])
    for table in (
        started_table(*players, game=game),
        finished_table(*players, game=game, rated=False),
    ):
        html = client.get(reverse("table-page", args=[table.pk])).content.decode()
        assert link in html, table.status
