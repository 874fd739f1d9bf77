"""The table page: the game as the viewer may see it, its moves as buttons, and its replay.

The page reads a table through :func:`games.selectors.table_view`, as the API
does, so it shows exactly what the API would show the same person: their own
hand and legal actions, nobody else's. Its forms call the same services as the
API's views (:func:`games.services.move_apply`, :func:`games.services.table_resign`)
and answer Post/Redirect/Get: a refusal becomes a message in words and changes
nothing; a success goes back to the table.

``tables/<id>/version/`` is what ``static/fairdeal/table.js`` polls to know when
to fetch the page's board again (``?fragment=1``); ``docs/pages.md`` says why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
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
from games import selectors, services
from games.forms import deadline_words
from games.models import Move, Table
from games.pages import options_in_words, player_url
from games.rules import Event, RulesError, Ruleset, find_ruleset
from games.rules.dingo import pile_score
from games.rules.dos import match_of
from games.rules.replay import Act, Forfeit, Step, replay
from games.rules.words import SUIT_NAMES

# A posted action is a small JSON object (Dodo's longest, eight cards of a rank and a
# suit, is under 120 characters): anything longer is refused before it is parsed.
MAX_ACTION_CHARS = 1000
FRAGMENT_HEADER = "HTTP_X_FAIRDEAL_FRAGMENT"

# -- cards, as people see them ---------------------------------------------------------

RANK_NAMES = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}
RANK_SIGNS = {"T": "10"}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = frozenset("DH")
CARD_TOKEN = re.compile(r"[A2-9TJQK][CDHS]")


def card_face(token: str) -> dict[str, str]:
    """What a card shows: its rank and suit sign, the suit's colour, and its name in words.

    >>> face = card_face("TH")
    >>> face["rank"], face["symbol"], face["colour"], face["name"]
    ('10', '♥', 'red', 'ten of hearts')
    """
    if not isinstance(token, str) or not CARD_TOKEN.fullmatch(token):
        return {
            "token": str(token),
            "rank": "?",
            "symbol": "",
            "suit": "",
            "colour": "",
            "name": str(token),
            "mini": str(token),
        }
    rank, suit = token[0], token[1]
    return {
        "token": token,
        "rank": RANK_SIGNS.get(rank, rank),
        "symbol": SUIT_SYMBOLS[suit],
        "suit": SUIT_NAMES[suit],
        "colour": "red" if suit in RED_SUITS else "black",
        "name": f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}",
        "mini": f"{RANK_SIGNS.get(rank, rank)}{SUIT_SYMBOLS[suit]}",
    }


def suit_face(suit: str | None) -> dict[str, str] | None:
    """A suit as a sign, a colour and a word: ``{"symbol": "♠", "name": "spades", ...}``."""
    if suit not in SUIT_SYMBOLS:
        return None
    return {
        "letter": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "name": SUIT_NAMES[suit],
        "colour": "red" if suit in RED_SUITS else "black",
    }


DOS_COLOUR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
DOS_CARD_TOKEN = re.compile(r"[BGRY](?:10|[1-9]|#)|W2")


def dos_card_face(token: str) -> dict[str, str]:
    """A DOS card: its number (or ``#``), its colour as a word, and its name in words.

    The colour is written on the card as well as shown, so that no card is told
    from another by colour alone.

    >>> face = dos_card_face("Y#")
    >>> face["rank"], face["symbol"], face["colour"], face["name"], face["mini"]
    ('#', 'yellow', 'dos-card dos-yellow', 'yellow # wild', 'Y#')
    >>> dos_card_face("W2")["name"], dos_card_face("B10")["name"]
    ('DOS wild', 'blue 10')
    """
    if not isinstance(token, str) or not DOS_CARD_TOKEN.fullmatch(token):
        return card_face(token)
    if token == "W2":
        colour, rank, symbol, name = "wild", "2", "wild", "DOS wild"
    else:
        colour, rank = DOS_COLOUR_NAMES[token[0]], token[1:]
        symbol = colour
        name = f"{colour} # wild" if rank == "#" else f"{colour} {rank}"
    return {
        "token": token,
        "rank": rank,
        "symbol": symbol,
        "suit": "",
        "colour": f"dos-card dos-{colour}",
        "name": name,
        "mini": token,
    }


def face_for(game: str) -> Callable[[str], dict[str, str]]:
    """How a game's cards are drawn: DOS's own pack, or the standard one."""
    return dos_card_face if game == "dos" else card_face


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


# -- the legal actions, as buttons -----------------------------------------------------

# The order the groups of buttons come in, and their headings.
GROUPS = (
    ("play", "Play"),
    ("draw", "Draw or pass"),
    ("call", "Calls out of turn"),
    ("swap", "Swap hands"),
    ("name", "Name the suit"),
    ("other", "Other moves"),
)
GROUP_OF_TYPE = {
    "play": "play",
    "draw": "draw",
    "pass": "draw",
    "catch": "call",
    "last_card": "call",
    "swap": "swap",
    "name": "name",
}
# Dingo's steps are its own: a card discarded, a card passed, an answer to a hunt.
GAME_GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "dingo": (
        ("discard", "Discard a card (face up; never an ace)"),
        ("give", "Pass a card (face down)"),
        ("hunt", "Answer the hunt"),
        ("other", "Other moves"),
    ),
    # DOS's turn is steps: matches (one row a centre card), or a draw, then a place;
    # the bonus placements; the end of the turn; and the calls, in turn or out of it.
    "dos": (
        ("match", "Match a centre card"),
        ("draw", "Or draw a card"),
        ("place", "Or place a card face up in the centre row (your turn ends)"),
        ("bonus", "Colour-match bonus: place a card face up in the centre row"),
        ("end", "Or end your turn"),
        ("call", "DOS! Call it, or catch a player who did not"),
        ("other", "Other moves"),
    ),
}
GAME_GROUP_OF_TYPE: dict[str, dict[str, str]] = {
    "dingo": {"discard": "discard", "pass": "give", "wolves": "hunt", "aces": "hunt"},
    "dos": {
        "match": "match",
        "draw": "draw",
        "place": "place",
        "bonus": "bonus",
        "end_turn": "end",
        "dos": "call",
        "catch": "call",
    },
}


def _cards_of(action: Mapping[str, Any]) -> list[str]:
    """The cards an action lays, in the order laid: ``card`` or Dodo's ``cards``."""
    if isinstance(action.get("cards"), list):
        return [c for c in action["cards"] if isinstance(c, str)]
    card = action.get("card")
    return [card] if isinstance(card, str) else []


def action_groups(
    ruleset: Ruleset,
    legal: list[dict[str, Any]],
    names: Callable[[int], str],
    *,
    bonus_step: bool = False,
) -> list[dict[str, Any]]:
    """The legal actions as buttons, grouped: plays, draw and pass, calls, swaps, suits named.

    Each button is one legal action, labelled with the engine's own words for it
    (``ruleset.action_text``) and carrying its index in ``legal`` and its JSON.
    Plays of the same cards (an eight and each suit it may call; Dodo's orders of
    one set of cards) share a row, so that the cards are drawn once. DOS's
    buttons say what the player will do (:func:`dos_button_words`), and its
    matches share a row a centre card (``bonus_step``: its turn is at the bonus
    placements, where ending the turn places no more).
    """
    groups = GAME_GROUPS.get(ruleset.id, GROUPS)
    group_of_type = GAME_GROUP_OF_TYPE.get(ruleset.id, GROUP_OF_TYPE)
    face = face_for(ruleset.id)
    dos = ruleset.id == "dos"
    grouped: dict[str, list[dict[str, Any]]] = {key: [] for key, _ in groups}
    rows: dict[tuple[str, ...], dict[str, Any]] = {}
    for index, action in enumerate(legal):
        kind = action.get("type")
        cards = _cards_of(action)
        button = {
            "index": index,
            "json": json.dumps(action, separators=(",", ":")),
            "text": (
                dos_button_words(action, names, bonus_step)
                if dos
                else ruleset.action_text(action, names)
            ),
            "cards": [face(c) for c in cards],
            "suit": suit_face(action.get("suit")),
            "earns": dos and kind == "match" and dos_match_bonus(action) > 0,
        }
        group = group_of_type.get(kind, "other") if isinstance(kind, str) else "other"
        if dos and group == "match" and isinstance(action.get("target"), str):
            # One row a centre card: its matches together, under the card they match.
            key = ("match", action["target"])
            row = rows.get(key)
            if row is None:
                target = face(action["target"])
                row = rows[key] = {"cards": [target], "target": target, "buttons": []}
                grouped["match"].append(row)
            row["buttons"].append(button)
        elif group == "play" and cards:
            key = tuple(sorted(cards))
            row = rows.get(key)
            if row is None:
                row = rows[key] = {"cards": [card_face(c) for c in key], "buttons": []}
                grouped["play"].append(row)
            row["buttons"].append(button)
        else:
            grouped[group].append({"cards": [], "buttons": [button]})
    return [
        {"key": key, "title": title, "rows": grouped[key]} for key, title in groups if grouped[key]
    ]


def _dos_counted(card: str, counted: Any) -> str:
    """A card, and what a wild counts as: ``W2 as R2``, ``Y# as Y7``; a plain card alone."""
    return card if not isinstance(counted, str) or counted == card else f"{card} as {counted}"


def _dos_laid(match: Mapping[str, Any], joiner: str = " + ") -> str:
    """``R5 + W2 as R2``: the cards a match lays, and what its wilds count as."""
    cards = [c for c in match.get("cards") or [] if isinstance(c, str)]
    counted = match.get("as") or [None] * len(cards)
    return joiner.join(_dos_counted(c, a) for c, a in zip(cards, counted, strict=False))


def dos_match_words(match: Mapping[str, Any]) -> str:
    """``R7 with R5 + W2 as R2``: a match's centre card and the cards laid on it."""
    return (
        f"{_dos_counted(match.get('target', '?'), match.get('target_as'))} with {_dos_laid(match)}"
    )


DOS_BONUS_WORDS = {1: "single colour match", 2: "double colour match"}


def dos_match_bonus(action: Mapping[str, Any]) -> int:
    """The colour bonus a listed match earns: 0, 1 (single) or 2 (double), as the engine counts."""
    try:
        return match_of(action).bonus
    except (AssertionError, AttributeError, KeyError, IndexError, TypeError):
        return 0


def dos_button_words(
    action: Mapping[str, Any], names: Callable[[int], str], bonus_step: bool
) -> str:
    """What a DOS button does, as a player says it: ``Match R7 with R3 + B4 (double colour match)``.

    The log keeps the engine's own words ("matched R7 with R3 and B4"); a button
    says what will be done, with the bonus a match earns.
    """
    kind = action.get("type")
    call = " and call DOS" if action.get("dos") is True else ""
    if kind == "match":
        bonus = dos_match_bonus(action)
        earns = f" ({DOS_BONUS_WORDS[bonus]})" if bonus in DOS_BONUS_WORDS else ""
        return f"Match {dos_match_words(action)}{earns}{call}"
    if kind == "draw":
        return "Draw a card"
    if kind == "place":
        return f"Place {action.get('card')} in the centre row{call}"
    if kind == "bonus":
        return f"Place {action.get('card')} in the centre row as a bonus{call}"
    if kind == "end_turn":
        return "Place no more and end your turn" if bonus_step else "End your turn"
    if kind == "dos":
        return "Call DOS!"
    if kind == "catch" and isinstance(action.get("seat"), int):
        caught = names(action["seat"])
        return f"Catch {caught} not calling DOS ({caught} draws two)"
    return str(action)


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


def _table_url(table_id: int) -> str:
    return reverse("table-page", args=[table_id])


def _table_or_404(table_id: int) -> Table:
    table = selectors.table_for_view(table_id)
    if table is None:
        raise Http404("There is no such table.")
    return table


def _run(request: HttpRequest, table_id: int, write: Callable[[], Table]) -> Table | None:
    """Run a write service; a refusal becomes an error message (and None), never a 500."""
    try:
        return write()
    except services.TableNotFound:
        raise Http404("There is no such table.") from None
    except (ServiceError, RulesError) as error:
        messages.error(request, _refusal_message(error, request.user))
        return None


# -- the page ----------------------------------------------------------------------------


def etag_of(table_id: int, version: int, status: str, seated: int) -> str:
    """The board's version as an entity tag: what moves whenever the board could change.

    The version moves with every action and forfeit; the status and the number
    of seats taken move when the game starts or is called off, and while players
    join, none of which moves the version.
    """
    return f'"t{table_id}-v{version}-{status}-s{seated}"'


def _seat_rows(
    table: Table, view: Mapping[str, Any], you: int | None, names: Callable[[int], str]
) -> list[dict[str, Any]]:
    due = {seat.number: seat.deadline_at for seat in table.seats.all()}
    to_act = set(view["to_act"])
    result = view.get("result") or {}
    places = result.get("places") or []
    board = view.get("board") or {}
    compass = board.get("compass") if view["status"] == Table.Status.PLAYING else None
    return [
        {
            **seat,
            "name": names(seat["seat"]) if (seat["player"] or seat["bot"]) else None,
            "url": None if seat["bot"] else player_url(seat["player"]),
            "you": seat["seat"] == you,
            "to_act": seat["seat"] in to_act,
            "dealer": board.get("dealer") == seat["seat"],
            "where": COMPASS_WORDS.get(compass[seat["seat"]]) if compass else None,
            "place": places[seat["seat"]] if seat["seat"] < len(places) else None,
            "deadline_at": due.get(seat["seat"]) if seat["seat"] in to_act else None,
        }
        for seat in view["seats"]
    ]


def _score_sheet(
    board: Mapping[str, Any] | None, seats: int, names: Callable[[int], str]
) -> dict[str, Any] | None:
    """The finished hands, one row each, with the running totals."""
    board = board or {}
    hands = (
        board.get("hands_played") or board.get("deals_played") or board.get("rounds_played") or []
    )
    if not hands:
        return None
    # Dingo's deals have no winner of their own; DOS's rounds and the others' hands have.
    winners = "deals_played" not in board
    unit = "round" if "rounds_played" in board else "hand" if winners else "deal"
    rows = []
    running = [0] * seats
    for hand in hands:
        scores = list(hand.get("scores") or [0] * seats)
        running = [a + b for a, b in zip(running, scores, strict=False)]
        winner = hand.get("winner")
        rows.append(
            {
                "hand": hand.get("hand"),
                "winner": names(winner) if isinstance(winner, int) else None,
                "blocked": bool(hand.get("blocked")),
                "cells": [
                    {"score": score, "running": total}
                    for score, total in zip(scores, running, strict=False)
                ],
                "black_queens": [names(s) for s in hand.get("black_queens") or []],
                "disqualified": [names(s) for s in hand.get("disqualified") or []],
            }
        )
    return {
        "seats": [names(n) for n in range(seats)],
        "rows": rows,
        "winners": winners,
        "unit": unit,
    }


def _placings(
    result: Mapping[str, Any] | None, names: Callable[[int], str], urls: Mapping[int, str | None]
) -> list[dict]:
    if not result:
        return []
    rows = [
        {"seat": seat, "name": names(seat), "url": urls.get(seat), "place": place, "total": total}
        for seat, (place, total) in enumerate(zip(result["places"], result["totals"], strict=True))
    ]
    return sorted(rows, key=lambda row: (row["place"], row["seat"]))


def _turn_sentence(view: Mapping[str, Any], you: int | None, names: Callable[[int], str]) -> str:
    status = view["status"]
    if status == Table.Status.OPEN:
        free = sum(1 for seat in view["seats"] if not seat["player"] and not seat["bot"])
        return f"Waiting for players: {free} of {view['seat_count']} seats free."
    if status == Table.Status.CANCELLED:
        return "This table was called off before its game started."
    if status == Table.Status.FINISHED:
        return "The game is over."
    owing = list(view["to_act"])
    if you is not None and you in owing:
        others = [names(s) for s in owing if s != you]
        return "Your turn." if not others else f"Your turn, and {', '.join(others)}'s."
    if not owing:
        return "Nobody owes a move."
    who = ", ".join(names(s) for s in owing)
    return f"Waiting for {who}."


# -- Dingo's table: the rabbits, the hunt, the piles, the compass -------------------------

COMPASS_WORDS = {"S": "South", "W": "West", "N": "North", "E": "East"}
DIRECTION_WORDS = {"left": "to the left", "across": "across", "right": "to the right"}
RABBIT_TOKENS = tuple(rank + "D" for rank in "23456789TJQK")
DINGO_DISCARD_ROUNDS = 4
DINGO_PASS_ROUNDS = 3


def dingo_board(
    board: Mapping[str, Any],
    seat_rows: list[dict[str, Any]],
    you_view: Mapping[str, Any] | None,
    names: Callable[[int], str],
) -> dict[str, Any]:
    """Dingo's table as the page draws it, from the board the API shows (nothing more).

    The twelve rabbits and what became of each, the Ace rabbit, the hunt in
    progress, the discard pile's top and size, each seat at its place of the
    compass with its piles and total, the round in words, and the viewer's
    passes.
    """
    scoring, penalty = board["scoring_piles"], board["penalty_piles"]
    caught = {card: seat for seat, pile in enumerate(scoring) for card in pile if card[1] == "D"}
    shown = {card: seat for seat, pile in enumerate(penalty) for card in pile if card == "AD"}
    hunt = board.get("hunt")
    hunted = hunt["rabbit"] if hunt else None
    still = set(board["rabbits"])
    rabbits = []
    for token in RABBIT_TOKENS:
        if token in caught:
            state, words = "caught", f"caught by {names(caught[token])}"
        elif token == hunted:
            state, words = "hunted", "hunted now"
        elif token in still:
            state, words = "waiting", "still to hunt"
        else:
            state, words = "dead", "discarded: nobody caught it"
        rabbits.append({"card": card_face(token), "state": state, "words": words})
    if "AD" in caught:
        ace = {"state": "caught", "words": f"played by {names(caught['AD'])}: it scored 10"}
    elif "AD" in shown:
        ace = {"state": "dead", "words": f"shown by {names(shown['AD'])}: to its penalty pile"}
    elif board["phase"] == "ace_hunt":
        ace = {"state": "waiting", "words": "in a hand: it may go down once both ace wolves are"}
    else:
        ace = {"state": "waiting", "words": "in a hand until the Ace hunt"}
    ace["card"] = card_face("AD")

    rows = {row["seat"]: row for row in seat_rows}
    compass = board["compass"]
    places = []
    for seat, letter in enumerate(compass):
        row = rows.get(seat, {})
        places.append(
            {
                "seat": seat,
                "letter": letter,
                "where": COMPASS_WORDS.get(letter, letter),
                "name": row.get("name") or names(seat),
                "you": bool(row.get("you")),
                "to_act": bool(row.get("to_act")),
                "bot": row.get("bot"),
                "level": row.get("level"),
                "dealer": board["dealer"] == seat,
                "cards": row.get("cards"),
                "total": row.get("total"),
                "scoring": [card_face(c) for c in scoring[seat]],
                "penalty": [card_face(c) for c in penalty[seat]],
                "deal_points": pile_score(scoring[seat], penalty[seat]),
                "disqualified": seat in (board.get("disqualified") or []),
            }
        )
    by_letter = {place["letter"]: place for place in places}

    phase = board["phase"]
    round_ = board.get("round")
    turn = board.get("turn")
    if phase == "discard" and round_:
        stage = f"Discards, round {round_['number']} of {DINGO_DISCARD_ROUNDS}"
        doing = "each player in turn from the dealer discards one card face up (never an ace)"
    elif phase == "pass" and round_:
        direction = DIRECTION_WORDS.get(round_.get("direction"), round_.get("direction"))
        stage = f"Pass {round_['number']} of {DINGO_PASS_ROUNDS}, {direction}"
        doing = "each player in turn from the dealer passes one card face down"
    elif phase == "hunt" and hunt:
        stage = f"The hunt for the {card_face(hunt['rabbit'])['name']}"
        doing = (
            "the dingo is played by force; then each other player in turn may play "
            "one or both wolves of its rank"
        )
    elif phase == "ace_hunt":
        stage = "The Ace hunt"
        doing = (
            "the ace of hearts is played by force; each player in turn may play ace wolves, "
            "and the Ace rabbit once both ace wolves are down"
        )
    else:
        stage, doing = "The deal is over", ""
    step = None
    if turn is not None and phase == "discard":
        step = f"{names(turn)} discards"
    elif turn is not None and phase == "pass" and board.get("pass_to") is not None:
        step = f"{names(turn)} passes a card to {names(board['pass_to'])}"
    elif hunt and hunt.get("awaiting") is not None:
        step = f"{names(hunt['awaiting'])} answers"

    hunt_words = None
    if hunt:
        hunt_words = {
            "ace": hunt["rank"] == "A",
            "rabbit": card_face(hunt["rabbit"]) if hunt["rabbit"] else None,
            "dingo": names(hunt["dingo"]),
            "dingo_card": card_face(hunt["dingo_card"]),
            "answers": [
                {
                    "name": names(answer["seat"]),
                    "cards": [card_face(c) for c in answer["cards"]],
                }
                for answer in hunt["answers"]
            ],
            "awaiting": names(hunt["awaiting"]) if hunt.get("awaiting") is not None else None,
        }

    you_view = you_view or {}
    passed = [
        {"name": names(p["to"]), "card": card_face(p["card"])} for p in you_view.get("passed") or []
    ]
    received = [
        {"name": names(p["from"]), "card": card_face(p["card"])}
        for p in you_view.get("received") or []
    ]
    deals = board.get("deals") or 1
    return {
        "rabbits": rabbits,
        "hunting": hunted is not None,
        "ace_rabbit": ace,
        "north": by_letter.get("N"),
        "west": by_letter.get("W"),
        "east": by_letter.get("E"),
        "south": by_letter.get("S"),
        "places": [by_letter[letter] for letter in "SWNE" if letter in by_letter],
        "stage": stage,
        "doing": doing,
        "step": step,
        "hunt": hunt_words,
        "discard_top": card_face(board["discard_top"]) if board.get("discard_top") else None,
        "discard_count": board.get("discard_count") or 0,
        "passed": passed,
        "received": received,
        "deal": board.get("hand_number"),
        "deals": deals,
        "target": board.get("target") or 0,
    }


# -- DOS's table: the centre row, this turn's matches, the step, the deck and the calls ----

DOS_STEPS = (
    ("start", "Match or draw"),
    ("drawn", "After a draw: match or place"),
    ("bonus", "Bonus placements"),
)
# What a colour match earns, said under it.
DOS_BONUS_EFFECT = {
    "single": "a card of yours may go into the centre row at the end of the turn",
    "double": (
        "a card of yours may go into the centre row, and every other player draws a card, "
        "at the end of the turn"
    ),
}


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def _dos_doing(board: Mapping[str, Any], matches: int) -> str:
    """What the seat to act may do at its step, in a player's words."""
    step = board.get("step")
    if step == "bonus":
        owed = board.get("bonuses_owed") or 0
        return (
            f"colour-match bonus: {_plural(owed, 'card')} may go face up into the centre row, "
            "or none"
        )
    if matches:
        return f"{_plural(matches, 'match', 'matches')} made; match another centre card, or end the turn"
    if step == "drawn":
        return "a card drawn; now match centre cards, or place a card face up in the centre row"
    return "match centre cards, or draw a card"


def dos_board(
    board: Mapping[str, Any], names: Callable[[int], str], you: int | None
) -> dict[str, Any]:
    """DOS's table as the page draws it, from the board the API shows (nothing more).

    The centre row with the cards matched this turn marked, this turn's matches
    (what each wild counts as, the bonus earned), the step of the turn and what
    the seat may do at it, the deck's size, the discard pile's top and size, who
    called DOS, who may be caught, a catch's cards owed, and the rounds so far.
    """
    matches = list(board.get("matches") or [])
    by_index = {m.get("index"): m for m in matches}
    centre = []
    for index, token in enumerate(board.get("centre_row") or []):
        match = by_index.get(index)
        centre.append(
            {
                "card": dos_card_face(token),
                "matched": match is not None,
                "laid": _dos_laid(match, " and ") if match is not None else "",
            }
        )
    made = [
        {
            "target": dos_card_face(m["target"]),
            "target_as": m.get("target_as"),
            "cards": [dos_card_face(c) for c in m.get("cards") or []],
            "words": dos_match_words(m),
            "bonus": m.get("bonus"),
            "bonus_words": (
                f"{m['bonus']} colour match" if m.get("bonus") in DOS_BONUS_EFFECT else None
            ),
            "bonus_effect": DOS_BONUS_EFFECT.get(m.get("bonus") or ""),
        }
        for m in matches
    ]
    turn, step = board.get("turn"), board.get("step")
    whose = None
    if isinstance(turn, int) and step:
        whose = "Your turn" if turn == you else f"{names(turn)}'s turn"
    doubles = max(
        board.get("double_colour_matches") or 0,
        sum(1 for m in matches if m.get("bonus") == "double"),
    )
    penalty = board.get("penalty")
    target = board.get("target") or 0
    rounds = board.get("rounds_played") or []
    return {
        "round": board.get("hand_number"),
        "target": target,
        "rounds_words": (
            "a single round: its winner wins"
            if not target
            else f"the game ends when a total reaches {target} at the end of a round"
        ),
        "whose": whose,
        "yours": isinstance(turn, int) and turn == you,
        "doing": _dos_doing(board, len(matches)) if whose else "",
        "steps": [
            {
                "key": key,
                "label": (
                    f"{label} ({board.get('bonuses_owed') or 0} left)"
                    if key == "bonus" and step == "bonus"
                    else label
                ),
                "current": key == step,
            }
            for key, label in DOS_STEPS
        ],
        "step": step,
        "centre": centre,
        "matches": made,
        "deck_size": board.get("deck_size") or 0,
        "discard_top": dos_card_face(board["discard_top"]) if board.get("discard_top") else None,
        "discard_size": board.get("discard_size") or 0,
        "bonuses_owed": (board.get("bonuses_owed") or 0) if step == "bonus" else 0,
        "doubles": doubles,
        "called": [names(s) for s in board.get("called") or []],
        "catchable": [names(s) for s in board.get("catchable") or []],
        "called_seats": set(board.get("called") or []),
        "catchable_seats": set(board.get("catchable") or []),
        "penalty": (
            {
                "name": names(penalty["seat"]),
                "cards": penalty["cards"],
                "you": penalty["seat"] == you,
            }
            if isinstance(penalty, dict) and isinstance(penalty.get("seat"), int)
            else None
        ),
        "rounds_played": len(rounds),
    }


def _dos_marks(seat_rows: list[dict[str, Any]], dos: Mapping[str, Any]) -> None:
    """Beside each player: "called DOS", or "DOS not called" while they may be caught."""
    for row in seat_rows:
        seat = row["seat"]
        if seat in dos["called_seats"]:
            row["marks"] = ["called DOS"]
        elif seat in dos["catchable_seats"]:
            row["marks"] = ["DOS not called: may be caught"]


def _dos_titles(groups: list[dict[str, Any]], dos: Mapping[str, Any]) -> None:
    """Headings that fit the step: the bonus placements owed; what ends the turn.

    "Or draw", "or place", "or end" only after a choice above them.
    """
    for position, group in enumerate(groups):
        if position == 0 and group["title"].startswith("Or "):
            group["title"] = group["title"][3].upper() + group["title"][4:]
        if group["key"] == "bonus":
            owed = dos["bonuses_owed"]
            group["title"] = (
                f"Colour-match bonus: place a card face up in the centre row ({owed} left)"
            )
        elif group["key"] == "end" and dos["step"] == "bonus":
            group["title"] = "Or place no more bonus cards"


def table_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    """Everything the table page and its board fragment show, from :func:`table_view`."""
    view = selectors.table_view(table, request.user)
    ruleset = find_ruleset(table.game, table.ruleset_version)
    names = selectors.seat_names(table)
    you = view["you"]["seat"] if view["you"] else None
    board = view["board"]
    seats = list(table.seats.all())
    seated = sum(1 for seat in seats if not seat.is_free)
    hand = (view["you"] or {}).get("hand") or []
    drawn = (view["you"] or {}).get("drawn")
    finished = view["status"] == Table.Status.FINISHED
    record_url = view["record_url"]
    result = view["result"]
    seat_rows = _seat_rows(table, view, you, names)
    groups = action_groups(
        ruleset,
        view["legal_actions"],
        names,
        bonus_step=bool(board and board.get("step") == "bonus"),
    )
    face = face_for(ruleset.id)
    dingo = dos = None
    if ruleset.id == "dingo" and board:
        dingo = dingo_board(board, seat_rows, view["you"], names)
        if board.get("pass_to") is not None:
            for group in groups:
                if group["key"] == "give":
                    group["title"] = f"Pass a card to {names(board['pass_to'])} (face down)"
    if ruleset.id == "dos" and board:
        dos = dos_board(board, names, you)
        _dos_marks(seat_rows, dos)
        _dos_titles(groups, dos)
    return {
        "table": table,
        "dingo": dingo,
        "dos": dos,
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
        "bot_fill": (
            {"at": table.bot_fill_at, "level": table.bot_fill_level} if view["bot_fill"] else None
        ),
        "turn": _turn_sentence(view, you, names),
        "your_turn": you is not None and you in view["to_act"],
        "deadline_at": _deadline(table, seats, you),
        "hand": [face(card) for card in hand],
        "drawn": face(drawn) if isinstance(drawn, str) else None,
        "board": board,
        "pile_top": card_face(board["pile_top"]) if board and board.get("pile_top") else None,
        "suit_to_follow": suit_face(board.get("suit_to_follow")) if board else None,
        "called_suit": suit_face(board.get("called_suit")) if board else None,
        "catchable": (
            names(board["catchable"]) if board and isinstance(board.get("catchable"), int) else None
        ),
        "chain": board.get("chain") if board else None,
        "naming": bool(board and board.get("naming")),
        "announced": [names(s) for s in (board or {}).get("announced") or []],
        "groups": groups,
        "log": [
            {"seq": entry["seq"], "at": entry["at"], "text": entry["text"]}
            for entry in reversed(view["recent"])
        ],
        "finished": finished,
        "placings": (
            _placings(
                result,
                names,
                {s.number: player_url(s.user.username) for s in seats if s.user_id is not None},
            )
            if finished
            else []
        ),
        "ending": (ruleset.game_over_text(result, names) if finished and result else None),
        "score_sheet": _score_sheet(board, table.seat_count, names),
        "can_resign": you is not None and view["status"] == Table.Status.PLAYING,
        "download_url": f"{record_url}?download=1",
        "record_url": record_url,
        "verify_url": view["verify_url"],
        "version_url": reverse("table-version", args=[table.pk]),
        "poll_ms": settings.FAIRDEAL_POLL_MS,
        "move_url": reverse("table-move-page", args=[table.pk]),
        "resign_url": reverse("table-resign-page", args=[table.pk]),
        "replay_url": reverse("table-replay", args=[table.pk]),
        "page_url": _table_url(table.pk),
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
    table = _table_or_404(table_id)
    context = table_context(request, table)
    if _wants_fragment(request):
        return render(request, "games/_table_board.html", context)
    return render(request, "games/table.html", context)


@require_safe
@never_cache
def table_version(request: HttpRequest, table_id: int) -> HttpResponse:
    """``{"version", "status", "seated"}``, with an ETag, 304 when it has not changed.

    One query, no state loaded and no session read: this is what every open
    table page asks every two seconds.
    """
    row = (
        Table.objects.filter(pk=table_id)
        .annotate(
            seated=Count("seats", filter=Q(seats__user__isnull=False) | Q(seats__is_bot=True))
        )
        .values_list("version", "status", "seated")
        .first()
    )
    if row is None:
        raise Http404("There is no such table.")
    version, status, seated = row
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
    """Apply the move a button posted, as the API's MoveView does; then back to the table."""
    back = HttpResponseRedirect(_table_url(table_id))
    try:
        version = _posted_version(request.POST)
        action = _posted_action(request.POST)
    except UnreadableMove as error:
        if not Table.objects.filter(pk=table_id).exists():
            raise Http404("There is no such table.") from None
        messages.error(request, f"That move could not be read: {error}. Nothing was changed.")
        return back
    table = _run(
        request,
        table_id,
        lambda: services.move_apply(
            table_id=table_id, user=request.user, version=version, action=action
        ),
    )
    if table is not None:
        ruleset = find_ruleset(table.game, table.ruleset_version)
        messages.success(
            request, sentence(f"you {ruleset.action_text(action, selectors.seat_names(table))}")
        )
    return back


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
def table_resign(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET asks "Are you sure?" (a page of its own, so it needs no script); POST resigns."""
    if request.method != "POST":
        table = _table_or_404(table_id)
        context = table_context(request, table)
        if not context["can_resign"]:
            messages.info(
                request, "There is nothing to resign here: you are not playing at this table."
            )
            return HttpResponseRedirect(_table_url(table_id))
        return render(request, "games/table.html", {**context, "confirm_resign": True})
    if _run(
        request,
        table_id,
        lambda: services.table_resign(table_id=table_id, user=request.user),
    ):
        messages.success(request, "You resigned: your seat finishes last, and the game is over.")
    return HttpResponseRedirect(_table_url(table_id))


# -- the replay -------------------------------------------------------------------------


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
    table = _table_or_404(table_id)
    names = selectors.seat_names(table)
    context: dict[str, Any] = {
        "table": table,
        "page_url": _table_url(table.pk),
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
    face = face_for(ruleset.id)
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
    dingo = None
    if ruleset.id == "dingo":
        rows = [
            {**hand, "cards": len(hand["cards"]), "you": False, "bot": False, "level": None}
            for hand in hands
        ]
        dingo = dingo_board(view, rows, None, names)
    dos = dos_board(view, names, None) if ruleset.id == "dos" else None
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
            "dingo": dingo,
            "dos": dos,
            "score_sheet": _score_sheet(view, table.seat_count, names) if dos else None,
            "pile_top": card_face(view["pile_top"]) if view.get("pile_top") else None,
            "suit_to_follow": suit_face(view.get("suit_to_follow")),
            "called_suit": suit_face(view.get("called_suit")),
            "first_url": f"{replay_url}?step=0",
            "previous_url": f"{replay_url}?step={step_no - 1}" if step_no > 0 else None,
            "next_url": f"{replay_url}?step={step_no + 1}" if step_no < last else None,
            "last_url": f"{replay_url}?step={last}",
            "replay_url": replay_url,
        }
    )
    return render(request, "games/replay.html", context)
