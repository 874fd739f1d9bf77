"""DOS on the table page: its own pack, the centre row, this turn's matches, the step, the calls.

A turn is steps: matches (one row of buttons a centre card), or a draw, then a
place; the bonus placements; the end of the turn; and the calls, in turn or
out of it. Its buttons say what the player will do, with the bonus a match
earns, where the log keeps the engine's words ("matched R7 with R3 and B4").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from games.catalogue.dos.rules import match_of
from games.catalogue.presentation import Names, Presentation, Words, card_face

DOS_COLOUR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
DOS_CARD_TOKEN = re.compile(r"[BGRY](?:10|[1-9]|#)|W2")
DOS_STEPS = (
    ("start", "Match or draw"),
    ("drawn", "After a draw: match or place"),
    ("bonus", "Bonus placements"),
)
DOS_BONUS_WORDS = {1: "single colour match", 2: "double colour match"}
# What a colour match earns, said under it.
DOS_BONUS_EFFECT = {
    "single": "a card of yours may go into the centre row at the end of the turn",
    "double": (
        "a card of yours may go into the centre row, and every other player draws a card, "
        "at the end of the turn"
    ),
}


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


def _counted(card: str, counted: Any) -> str:
    """A card, and what a wild counts as: ``W2 as R2``, ``Y# as Y7``; a plain card alone."""
    return card if not isinstance(counted, str) or counted == card else f"{card} as {counted}"


def _laid(match: Mapping[str, Any], joiner: str = " + ") -> str:
    """``R5 + W2 as R2``: the cards a match lays, and what its wilds count as."""
    cards = [c for c in match.get("cards") or [] if isinstance(c, str)]
    counted = match.get("as") or [None] * len(cards)
    return joiner.join(_counted(c, a) for c, a in zip(cards, counted, strict=False))


def dos_match_words(match: Mapping[str, Any]) -> str:
    """``R7 with R5 + W2 as R2``: a match's centre card and the cards laid on it."""
    return f"{_counted(match.get('target', '?'), match.get('target_as'))} with {_laid(match)}"


def dos_match_bonus(action: Mapping[str, Any]) -> int:
    """The colour bonus a listed match earns: 0, 1 (single) or 2 (double), as the engine counts."""
    try:
        return match_of(action).bonus
    except (AssertionError, AttributeError, KeyError, IndexError, TypeError):
        return 0


def dos_button_words(action: Mapping[str, Any], names: Names, bonus_step: bool) -> str:
    """What a DOS button does, as a player says it: ``Match R7 with R3 + B4 (double colour match)``.

    ``bonus_step``: the turn is at its bonus placements, where ending it places no more.
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


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def _doing(board: Mapping[str, Any], matches: int) -> str:
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


class Dos(Presentation):
    board_template = "games/dos/board.html"
    stylesheet = "games/dos/table.css"
    replay_board_template = board_template
    hand_word = "round"
    played_key = "rounds_played"
    # A match is the same whichever of its cards is clicked first.
    ordered_cards = False
    call_types = frozenset({"dos", "catch"})
    groups = (
        ("match", "Match a centre card"),
        ("draw", "Or draw a card"),
        ("place", "Or place a card face up in the centre row (your turn ends)"),
        ("bonus", "Colour-match bonus: place a card face up in the centre row"),
        ("end", "Or end your turn"),
        ("call", "DOS! Call it, or catch a player who did not"),
        ("other", "Other moves"),
    )
    group_of_type = {
        "match": "match",
        "draw": "draw",
        "place": "place",
        "bonus": "bonus",
        "end_turn": "end",
        "dos": "call",
        "catch": "call",
    }

    def card_face(self, token: str) -> dict[str, str]:
        return dos_card_face(token)

    def action_keys(self, action: Mapping[str, Any]) -> list[str]:
        """A match: its cards from the hand and the centre card they match; a draw: the deck;
        a card placed in the centre row: the card."""
        kind = action.get("type")
        if kind == "match":
            cards = [c for c in action.get("cards") or [] if isinstance(c, str)]
            return [*(f"card:{c}" for c in cards), f"centre:{action.get('target')}"]
        if kind in ("place", "bonus") and isinstance(action.get("card"), str):
            return [f"card:{action['card']}"]
        return super().action_keys(action)

    def board(
        self,
        board: Mapping[str, Any],
        seats: Sequence[Mapping[str, Any]],
        you: Mapping[str, Any] | None,
        names: Names,
    ) -> dict[str, Any]:
        """DOS's table as the page draws it.

        The centre row with the cards matched this turn marked, this turn's
        matches (what each wild counts as, the bonus earned), the step of the
        turn and what the seat may do at it, the deck's size, the discard
        pile's top and size, who called DOS, who may be caught, a catch's cards
        owed, and the rounds so far.
        """
        seat = (you or {}).get("seat")
        matches = list(board.get("matches") or [])
        by_index = {m.get("index"): m for m in matches}
        centre = []
        for index, token in enumerate(board.get("centre_row") or []):
            match = by_index.get(index)
            centre.append(
                {
                    "card": dos_card_face(token),
                    "matched": match is not None,
                    "laid": _laid(match, " and ") if match is not None else "",
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
            whose = "Your turn" if turn == seat else f"{names(turn)}'s turn"
        doubles = max(
            board.get("double_colour_matches") or 0,
            sum(1 for m in matches if m.get("bonus") == "double"),
        )
        penalty = board.get("penalty")
        target = board.get("target") or 0
        return {
            "round": board.get("hand_number"),
            "target": target,
            "rounds_words": (
                "a single round: its winner wins"
                if not target
                else f"the game ends when a total reaches {target} at the end of a round"
            ),
            "whose": whose,
            "yours": isinstance(turn, int) and turn == seat,
            "doing": _doing(board, len(matches)) if whose else "",
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
            "discard_top": (
                dos_card_face(board["discard_top"]) if board.get("discard_top") else None
            ),
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
                    "you": penalty["seat"] == seat,
                }
                if isinstance(penalty, dict) and isinstance(penalty.get("seat"), int)
                else None
            ),
        }

    def mark_seats(
        self, seats: list[dict[str, Any]], game_board: Mapping[str, Any], playing: bool
    ) -> None:
        """Beside each player: "called DOS", or "DOS not called" while they may be caught."""
        for row in seats:
            if row["seat"] in game_board["called_seats"]:
                row["marks"] = ["called DOS"]
            elif row["seat"] in game_board["catchable_seats"]:
                row["marks"] = ["DOS not called: may be caught"]

    def button_text(
        self,
        action: Mapping[str, Any],
        words: Words,
        names: Names,
        game_board: Mapping[str, Any] | None,
    ) -> str:
        return dos_button_words(action, names, bool(game_board and game_board["step"] == "bonus"))

    def earns(self, action: Mapping[str, Any]) -> bool:
        """A match that earns a colour bonus is marked."""
        return action.get("type") == "match" and dos_match_bonus(action) > 0

    def row_of(
        self, group: str, action: Mapping[str, Any]
    ) -> tuple[tuple[str, ...], dict[str, Any]] | None:
        """One row a centre card: its matches together, under the card they match."""
        target = action.get("target")
        if group != "match" or not isinstance(target, str):
            return super().row_of(group, action)
        face = dos_card_face(target)
        return ("match", target), {"cards": [face], "target": face}

    def retitle(
        self, groups: list[dict[str, Any]], game_board: Mapping[str, Any], names: Names
    ) -> None:
        """Headings that fit the step: the bonus placements owed; what ends the turn.

        "Or draw", "or place", "or end" only after a choice above them.
        """
        for position, group in enumerate(groups):
            if position == 0 and group["title"].startswith("Or "):
                group["title"] = group["title"][3].upper() + group["title"][4:]
            if group["key"] == "bonus":
                owed = game_board["bonuses_owed"]
                group["title"] = (
                    f"Colour-match bonus: place a card face up in the centre row ({owed} left)"
                )
            elif group["key"] == "end" and game_board["step"] == "bonus":
                group["title"] = "Or place no more bonus cards"


PRESENTATION = Dos("dos", templates=Path(__file__).parent)
