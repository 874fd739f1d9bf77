"""Dingo on the table page: the rabbits, the hunt, the piles, each seat at its place of the compass.

Its steps are its own (a card discarded, a card passed, an answer to the
hunt), its deals have no winner of their own, and the viewer's passes are
said under their hand: only the two players see a card passed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from games.catalogue.dingo.rules import pile_score
from games.catalogue.presentation import COMMANDS, Names, Presentation, card_face

COMPASS_WORDS = {"S": "South", "W": "West", "N": "North", "E": "East"}
DIRECTION_WORDS = {"left": "to the left", "across": "across", "right": "to the right"}
RABBIT_TOKENS = tuple(rank + "D" for rank in "23456789TJQK")
DINGO_DISCARD_ROUNDS = 4
DINGO_PASS_ROUNDS = 3


def _rabbits(board: Mapping[str, Any], names: Names) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The twelve rabbits and what became of each; the Ace rabbit."""
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
    ace: dict[str, Any]
    if "AD" in caught:
        ace = {"state": "caught", "words": f"played by {names(caught['AD'])}: it scored 10"}
    elif "AD" in shown:
        ace = {"state": "dead", "words": f"shown by {names(shown['AD'])}: to its penalty pile"}
    elif board["phase"] == "ace_hunt":
        ace = {"state": "waiting", "words": "in a hand: it may go down once both ace wolves are"}
    else:
        ace = {"state": "waiting", "words": "in a hand until the Ace hunt"}
    ace["card"] = card_face("AD")
    return rabbits, ace


def _stage(board: Mapping[str, Any], names: Names) -> tuple[str, str, str | None]:
    """The round in words, what is done in it, and who does what now."""
    phase = board["phase"]
    round_ = board.get("round")
    turn = board.get("turn")
    hunt = board.get("hunt")
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
    return stage, doing, step


class Dingo(Presentation):
    # In play the middle alone: the table page's seats around it are the seating, each
    # with its place of the compass and its piles (mark_seats, seat_piles.html).
    board_template = "games/dingo/middle.html"
    seat_notes_template = "games/dingo/seat_piles.html"
    stylesheet = "games/dingo/table.css"
    # The replay and the end have no seats of the page's: the compass is drawn whole.
    replay_board_template = "games/dingo/board.html"
    # After the end the piles still tell how each deal was scored.
    result_board_template = replay_board_template
    hand_notes_template = "games/dingo/hand_notes.html"
    hand_word = "deal"
    played_key = "deals_played"
    hands_have_winners = False
    groups = (
        ("discard", "Discard a card (face up; never an ace)"),
        ("give", "Pass a card (face down)"),
        ("hunt", "Answer the hunt"),
        ("other", "Other moves"),
    )
    group_of_type = {"discard": "discard", "pass": "give", "wolves": "hunt", "aces": "hunt"}
    commands = {**COMMANDS, "discarded": "discard"}
    call_types: frozenset[str] = frozenset()

    def board(
        self,
        board: Mapping[str, Any],
        seats: Sequence[Mapping[str, Any]],
        you: Mapping[str, Any] | None,
        names: Names,
    ) -> dict[str, Any]:
        """Dingo's table as the page draws it.

        The twelve rabbits and what became of each, the Ace rabbit, the hunt in
        progress, the discard pile's top and size, each seat at its place of the
        compass with its piles and total, the round in words, and the viewer's
        passes.
        """
        scoring, penalty = board["scoring_piles"], board["penalty_piles"]
        hunt = board.get("hunt")
        rabbits, ace = _rabbits(board, names)
        rows = {row["seat"]: row for row in seats}
        places = []
        for seat, letter in enumerate(board["compass"]):
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
        # Around the table from the viewer (else South) at the bottom: the next seat in
        # turn on their left, as the page's seats sit.
        bottom = next((row["seat"] for row in seats if row.get("you")), None)
        if bottom is None:
            bottom = board["compass"].index("S") if "S" in board["compass"] else 0
        spots, around = ("bottom", "left", "top", "right"), max(len(places), 1)
        for place in places:
            place["spot"] = spots[(place["seat"] - bottom) % around % len(spots)]
        places.sort(key=lambda place: (place["seat"] - bottom) % around)
        stage, doing, step = _stage(board, names)
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
        you = you or {}
        pass_to = board.get("pass_to")
        return {
            "rabbits": rabbits,
            "hunting": bool(hunt and hunt["rabbit"] is not None),
            "ace_rabbit": ace,
            "places": places,
            "stage": stage,
            "doing": doing,
            "step": step,
            "hunt": hunt_words,
            "discard_top": card_face(board["discard_top"]) if board.get("discard_top") else None,
            "discard_count": board.get("discard_count") or 0,
            "pass_to": names(pass_to) if pass_to is not None else None,
            "passed": [
                {"name": names(p["to"]), "card": card_face(p["card"])}
                for p in you.get("passed") or []
            ],
            "received": [
                {"name": names(p["from"]), "card": card_face(p["card"])}
                for p in you.get("received") or []
            ],
            "deal": board.get("hand_number"),
            "deals": board.get("deals") or 1,
            "target": board.get("target") or 0,
        }

    def mark_seats(
        self, seats: list[dict[str, Any]], game_board: Mapping[str, Any], playing: bool
    ) -> None:
        """While the deal is played, each player's place of the compass beside their name,
        and their scoring and penalty piles in their seat (seat_piles.html)."""
        if not playing:
            return
        by_seat = {place["seat"]: place for place in game_board["places"]}
        for row in seats:
            place = by_seat.get(row["seat"])
            if place is None:
                continue
            row["where"] = place["where"]
            row["piles"] = {
                "scoring": place["scoring"],
                "penalty": place["penalty"],
                "disqualified": place["disqualified"],
            }

    def retitle(
        self, groups: list[dict[str, Any]], game_board: Mapping[str, Any], names: Names
    ) -> None:
        """A pass says to whom."""
        if game_board["pass_to"] is None:
            return
        for group in groups:
            if group["key"] == "give":
                group["title"] = f"Pass a card to {game_board['pass_to']} (face down)"


PRESENTATION = Dingo("dingo", templates=Path(__file__).parent)
