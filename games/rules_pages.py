"""The rules pages: how to play each game, for players, from the game's own ``rules.md``.

Each game's package holds its rules as Markdown (``Game.rules_page``, which
``docs/rules/<game>.md`` links to). That file serves two readers: the
developers, and the players, who get it as a page here. The page is made of

1. the lead, the text between the file's title and its first ``##`` heading;
2. the sections headed ``The rules`` and ``A worked example``;
3. the game's options, from the catalogue (each with its default and what a
   host may choose: the new-table form's words), not from the file's table;
4. the section headed ``Interpretations``, each numbered one with an anchor
   (``#interpretation-9``), as other pages cite them.

Every other section (``Options``, which restates the catalogue for the docs;
``Actions``, for API clients) stays in the docs. Within the parts shown, a
passage between ``<!-- developers -->`` and ``<!-- /developers -->`` (the
engine's modules, the tests, the verifier's names) is left out: markers that
any Markdown viewer hides, so the docs read whole and stay true.

The Markdown is our own, but it is rendered safely all the same: CommonMark
and tables by markdown-it-py, raw HTML shown as text, links checked by the
parser. A fenced block whose info string is ``cards`` is a worked example's
cards, a line a row: ``Your hand: 9C 9D KH``. Each token is drawn with the
game's own card face (``presentation.card_face``), so this module never knows a
game's card format.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

from games.catalogue import GAMES, Game, UnknownGame, find_game
from games.catalogue.presentation import Presentation
from games.forms import option_label, sentence, value_words
from games.rules import Option, Ruleset

# The parts of a rules.md on the players' page, by their headings, in the page's order.
RULES = "The rules"
EXAMPLE = "A worked example"
INTERPRETATIONS = "Interpretations"
# The developers' passages: markers that a Markdown viewer hides, around text the page leaves out.
FOR_DEVELOPERS = re.compile(r"<!-- developers -->.*?<!-- /developers -->", re.DOTALL)
# A worked example's cards: a fenced block ```cards, one row a line, "label: tokens".
CARDS_FENCE = "cards"
CARDS_TEMPLATE = "rules/_cards.html"


# -- a rules.md, read ----------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One ``##`` section of a rules.md: its title, anchor, HTML and ``###`` parts."""

    title: str
    id: str
    html: SafeString
    parts: tuple[tuple[str, str], ...] = ()  # (id, title) of each ``###`` heading


@dataclass(frozen=True)
class RulesText:
    """A game's rules.md as the players' page shows it."""

    lead: SafeString
    summary: SafeString  # the lead's first paragraph: what the game is, in a few lines
    sections: dict[str, Section]  # by title: those of the players' page only


def _plain(inline: Token) -> str:
    """A heading's words without their Markdown: ``The `target` option`` → ``The target option``."""
    return "".join(child.content for child in inline.children or [] if child.content)


def _draw_cards(
    renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    """A fenced block: ```cards is drawn as the game's cards, any other as code."""
    token = tokens[idx]
    if token.info.strip() != CARDS_FENCE:
        return renderer.fence(tokens, idx, options, env)
    presentation: Presentation = env["presentation"]
    rows = []
    for line in token.content.splitlines():
        label, _, cards = line.rpartition(":")
        if cards.strip():
            faces = [presentation.card_face(card) for card in cards.split()]
            rows.append({"label": label.strip() or "Cards", "cards": faces})
    return render_to_string(CARDS_TEMPLATE, {"rows": rows})


def _markdown() -> MarkdownIt:
    # "html": False: raw HTML in the text is shown as text, never passed through.
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.add_render_rule("fence", _draw_cards)
    return md


MARKDOWN = _markdown()


def _anchor(title: str, taken: set[str]) -> str:
    """A heading's anchor, unique on the page: ``the-pack-and-the-deal``, then ``-2``..."""
    base = slugify(title) or "part"
    anchor, n = base, 1
    while anchor in taken:
        n += 1
        anchor = f"{base}-{n}"
    taken.add(anchor)
    return anchor


def _section(title: str, tokens: list[Token], env: dict[str, Any], taken: set[str]) -> Section:
    """A section's body rendered, its ``###`` headings anchored, its interpretations numbered."""
    anchor = _anchor(title, taken)
    parts = []
    for n, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h3":
            words = _plain(tokens[n + 1])
            token.attrSet("id", _anchor(words, taken))
            parts.append((token.attrGet("id"), words))
        # The interpretations' own numbers (a top-level list's items), as anchors.
        numbered = token.type == "list_item_open" and token.level == 1 and token.info.isdigit()
        if title == INTERPRETATIONS and numbered:
            token.attrSet("id", f"interpretation-{token.info}")
    html = MARKDOWN.renderer.render(tokens, MARKDOWN.options, env)
    return Section(title, anchor, mark_safe(html), tuple(parts))


@functools.lru_cache(maxsize=64)
def _read(path: Path, presentation: Presentation, modified: int) -> RulesText:
    """The rules.md at ``path`` as last modified at ``modified`` (ns), its cards drawn so."""
    text = FOR_DEVELOPERS.sub("", path.read_text(encoding="utf-8"))
    env: dict[str, Any] = {"presentation": presentation}
    tokens = MARKDOWN.parse(text, env)
    # The lead, then each ``##`` section under its title; the ``#`` title is the page's own.
    lead: list[Token] = []
    chunks: list[tuple[str, list[Token]]] = []
    n = 0
    while n < len(tokens):
        token = tokens[n]
        if token.type == "heading_open" and token.tag in ("h1", "h2"):
            if token.tag == "h2":
                chunks.append((_plain(tokens[n + 1]), []))
            n += 3  # the heading's open, its words and its close
            continue
        (chunks[-1][1] if chunks else lead).append(token)
        n += 1
    first = next((n for n, t in enumerate(lead) if t.type == "paragraph_close"), len(lead))
    taken = {"contents", "options"}  # the page's own anchors
    sections = {
        title: _section(title, body, env, taken)
        for title, body in chunks
        if title in (RULES, EXAMPLE, INTERPRETATIONS)
    }
    render = MARKDOWN.renderer.render
    return RulesText(
        lead=mark_safe(render(lead, MARKDOWN.options, env)),
        summary=mark_safe(render(lead[: first + 1], MARKDOWN.options, env)),
        sections=sections,
    )


def rules_text(game: Game) -> RulesText:
    """``game``'s rules for players, read again whenever its rules.md changes."""
    path = game.rules_page
    return _read(path, game.presentation, path.stat().st_mtime_ns)


# -- the options, in the new-table form's words ----------------------------------------------


def choices_words(option: Option) -> str:
    """What a host may choose for ``option``, in the new-table form's words for its values.

    >>> choices_words(Option("target", "int", 200, "the line", minimum=50, maximum=1000))
    '50 to 1000'
    >>> choices_words(Option("aces", "choice", "none", "", choices=("none", "reverse", "skip")))
    'none, reverse or skip'
    >>> choices_words(Option("seven_cards", "bool", False, "seven each"))
    'on or off'
    """
    if option.type == "bool":
        return "on or off"
    if option.type == "int":
        low, high = option.minimum, option.maximum
        if low is not None and high is not None:
            return f"{low} to {high}"
        if low is not None:
            return f"{low} or more"
        if high is not None:
            return f"{high} or less"
        return "a whole number"
    *others, last = [value_words(option, choice) for choice in option.choices] or [""]
    return f"{', '.join(others)} or {last}" if others else last


def options_for_players(ruleset: Ruleset) -> list[dict[str, str]]:
    """Each of the game's options as the new-table form explains it, with what may be chosen."""
    return [
        {
            "name": option.name,
            "label": option_label(option.name),
            "description": sentence(option.description),
            "default": value_words(option, option.default),
            "choices": choices_words(option),
        }
        for option in ruleset.options
    ]


# -- the pages -----------------------------------------------------------------------------


def _seats_words(ruleset: Ruleset) -> str:
    low, high = ruleset.min_seats, ruleset.max_seats
    return f"{low} players" if low == high else f"{low} to {high} players"


def _games() -> list[dict[str, Any]]:
    return [
        {
            "id": game.id,
            "name": game.ruleset.name,
            "seats": _seats_words(game.ruleset),
            "winner": game.ruleset.describe()["winner"],
            "summary": rules_text(game).summary,
        }
        for game in GAMES.values()
    ]


@require_safe
def rules_index(request: HttpRequest) -> HttpResponse:
    """``/rules/``: every game, in a few lines each, with a link to its rules."""
    return render(request, "rules/index.html", {"games": _games()})


@require_safe
def rules_page(request: HttpRequest, game: str) -> HttpResponse:
    """``/rules/<game>/``: how to play one game; a game not in the catalogue is a 404 in words."""
    try:
        found = find_game(game)
    except UnknownGame:
        context = {"games": _games(), "missing": game[:40]}
        return render(request, "rules/index.html", context, status=404)
    ruleset = found.ruleset
    text = rules_text(found)
    before = [text.sections[title] for title in (RULES, EXAMPLE) if title in text.sections]
    context = {
        "game": found.id,
        "name": ruleset.name,
        "version": ruleset.version,
        "seats": _seats_words(ruleset),
        "winner": ruleset.describe()["winner"],
        "lead": text.lead,
        "sections": before,
        "options": options_for_players(ruleset),
        "interpretations": text.sections.get(INTERPRETATIONS),
        "stylesheet": found.presentation.stylesheet,
    }
    return render(request, "rules/page.html", context)
