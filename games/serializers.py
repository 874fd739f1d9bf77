"""Request bodies of the tables API; responses are built by games.selectors.

What a body may hold is said twice over: by these fields, and by the schema's
narrower description of them (``config.schema.LiveSchema``): the games in the
catalogue, their seats and options, the deadlines the settings allow. The
services check what depends on more than one field (a bot's seat against the
seats, an option against the game) and answer 400 for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from rest_framework import serializers

from accounts.names import USERNAME
from accounts.serializers import StrictBooleanField
from config.schema import LiveSchema
from fairplay.services import MAX_ENTROPY_BYTES, MIN_ENTROPY_BYTES
from games.catalogue import GAMES
from games.models import BotLevel


class EntropyField(LiveSchema, serializers.CharField):
    """A player's contribution to the seed: 16 to 64 random bytes, in hex."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("max_length", 256)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("help_text", "16 to 64 random bytes in hex, mixed into the seed")
        super().__init__(**kwargs)

    def openapi_schema(self) -> dict[str, Any]:
        return {
            "type": "string",
            "pattern": f"^(?:[0-9a-fA-F]{{2}}){{{MIN_ENTROPY_BYTES},{MAX_ENTROPY_BYTES}}}$",
        }


class StrictIntegerField(serializers.IntegerField):
    """An integer that must be a JSON number, not a string or a boolean."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class QueryIntegerField(serializers.IntegerField):
    """An integer in a query string, written as the schema writes one: digits, after a minus
    sign or not. DRF's own field would also take "5.0", " 5", "+5" or other scripts' digits."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, str) and not re.fullmatch(r"-?[0-9]+", data):
            self.fail("invalid")
        return super().to_internal_value(data)


class SecondsField(LiveSchema, StrictIntegerField):
    """A number of seconds between two settings, checked by the service (400 ``invalid``)."""

    def __init__(self, *, bounds: Callable[[], tuple[int, int]], **kwargs: Any) -> None:
        self.bounds = bounds
        super().__init__(min_value=1, **kwargs)

    def openapi_schema(self) -> dict[str, Any]:
        low, high = self.bounds()
        return {"type": "integer", "minimum": low, "maximum": high}


class ReserveField(LiveSchema, StrictIntegerField):
    """A reserve of time: 0, or seconds between two settings; checked by the service."""

    def openapi_schema(self) -> dict[str, Any]:
        low, high = settings.FAIRDEAL_MIN_DEADLINE_SECONDS, settings.FAIRDEAL_MAX_RESERVE_SECONDS
        return {
            "anyOf": [
                {"type": "integer", "enum": [0]},
                {"type": "integer", "minimum": low, "maximum": high},
            ]
        }


class GameField(LiveSchema, serializers.CharField):
    """A game's id; the service refuses any other (400 ``unknown_game``)."""

    def openapi_schema(self) -> dict[str, Any]:
        games = sorted(GAMES)
        return {
            "type": "string",
            "enum": ["", *games] if self.allow_blank else games,
            "description": self.help_text or "a game id from GET /api/games/",
        }


class SeatsField(LiveSchema, StrictIntegerField):
    """A table's seats; the game's own range is checked by its rules (400 ``invalid_seats``)."""

    def openapi_schema(self) -> dict[str, Any]:
        return {
            "type": "integer",
            "minimum": min(game.ruleset.min_seats for game in GAMES.values()),
            "maximum": max(game.ruleset.max_seats for game in GAMES.values()),
            "description": "the game's min_seats to max_seats (GET /api/games/)",
        }


def _option_schema(option: dict[str, Any]) -> dict[str, Any]:
    if option["type"] == "bool":
        return {"type": "boolean", "description": option["description"]}
    if option["type"] == "int":
        return {
            "type": "integer",
            "minimum": option["minimum"],
            "maximum": option["maximum"],
            "description": option["description"],
        }
    return {"type": "string", "enum": option["choices"], "description": option["description"]}


class OptionsField(LiveSchema, serializers.DictField):
    """A table's options: those of its game, each of its type and range; the rules check them
    against the game (400 ``invalid_options``)."""

    def openapi_schema(self) -> dict[str, Any]:
        return {
            "description": "the game's options (GET /api/games/); those not given take the preset",
            "anyOf": [
                {
                    "title": game.id,
                    "type": "object",
                    "properties": {
                        option["name"]: _option_schema(option)
                        for option in game.ruleset.describe()["options"]
                    },
                    "additionalProperties": False,
                }
                for game in GAMES.values()
            ],
        }


class BotSeatField(LiveSchema, serializers.Field):
    """A seat given to a bot: its number (a ``normal`` bot), or ``{"seat": n, "level": ...}``."""

    default_error_messages = {
        "invalid": 'a bot is a seat number, or {{"seat": a number, "level": "easy", "normal"'
        ' or "strong"}}',
    }

    def to_internal_value(self, data: object) -> dict[str, Any]:
        if isinstance(data, int) and not isinstance(data, bool):
            return {"seat": data, "level": BotLevel.NORMAL.value}
        if (
            isinstance(data, dict)
            and "seat" in data
            and set(data) <= {"seat", "level"}
            and isinstance(data["seat"], int)
            and not isinstance(data["seat"], bool)
            and isinstance(data.get("level", ""), str)
        ):
            return {"seat": data["seat"], "level": data.get("level", BotLevel.NORMAL.value)}
        self.fail("invalid")
        raise AssertionError("unreachable")

    def to_representation(self, value: Any) -> Any:
        return value

    def openapi_schema(self) -> dict[str, Any]:
        # Seat 0 is the creator's; the last seat of the largest table is the highest a bot takes.
        seat = {
            "type": "integer",
            "minimum": 1,
            "maximum": max(game.ruleset.max_seats for game in GAMES.values()) - 1,
        }
        return {
            "oneOf": [
                {**seat, "description": "a seat for a normal bot"},
                {
                    "type": "object",
                    "properties": {
                        "seat": seat,
                        "level": {
                            "type": "string",
                            "enum": list(BotLevel.values),
                            "default": BotLevel.NORMAL.value,
                        },
                    },
                    "required": ["seat"],
                    "additionalProperties": False,
                },
            ]
        }


class BotFillSerializer(serializers.Serializer):
    after = SecondsField(
        bounds=lambda: (
            settings.FAIRDEAL_MIN_BOT_FILL_SECONDS,
            settings.FAIRDEAL_OPEN_TABLE_SECONDS - 1,
        ),
        help_text="seconds after the table opens: free seats then get bots, before it expires",
    )
    level = serializers.ChoiceField(choices=BotLevel.choices, default=BotLevel.NORMAL)


class TableCreateSerializer(serializers.Serializer):
    game = GameField(max_length=32)
    seats = SeatsField(min_value=1, max_value=100)
    deadline = SecondsField(
        bounds=lambda: (
            settings.FAIRDEAL_MIN_DEADLINE_SECONDS,
            settings.FAIRDEAL_MAX_DEADLINE_SECONDS,
        ),
        help_text="seconds per move",
    )
    reserve = ReserveField(
        default=0,
        help_text="each seat's reserve of time, in seconds: a move after its deadline draws the"
        " overrun from it, and the seat forfeits only when it is spent; 0 for none",
    )
    rated = StrictBooleanField(default=False)
    options = OptionsField(default=dict)
    bots = serializers.ListField(
        child=BotSeatField(),
        default=list,
        max_length=16,
        help_text="seats for bots (never seat 0, the creator's); a table with a bot is not rated",
    )
    bot_fill = BotFillSerializer(
        required=False,
        allow_null=True,
        default=None,
        help_text="fill the seats still free after a wait with bots, then deal",
    )
    entropy = EntropyField(required=False)
    private = StrictBooleanField(
        default=False,
        help_text="kept out of the lobby: joined by its invitation link or by invitation",
    )


class JoinSerializer(serializers.Serializer):
    entropy = EntropyField(required=False)
    invite = serializers.RegexField(
        r"^[A-Za-z0-9_-]{1,64}$",
        required=False,
        help_text="a private table's invitation link's secret (its last part)",
    )


class InviteSerializer(serializers.Serializer):
    username = serializers.RegexField(
        rf"^{USERNAME.pattern}$", help_text="the player invited to your private table"
    )


class InvitationViewSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    username = serializers.CharField()
    declined = serializers.BooleanField()


class InviteLinkSerializer(serializers.Serializer):
    token = serializers.CharField(
        allow_null=True, help_text="the link's secret, for `join`; null once revoked"
    )
    url = serializers.CharField(allow_null=True, help_text="the page that joins with it")


class RematchViewSerializer(serializers.Serializer):
    of = serializers.IntegerField(allow_null=True, help_text="the table this one plays again")
    table = serializers.IntegerField(
        allow_null=True, help_text="of a finished table: its rematch, offered or playing"
    )
    until = serializers.DateTimeField(
        allow_null=True, help_text="while waiting: when the offer lapses"
    )
    awaiting = serializers.ListField(
        child=serializers.IntegerField(), help_text="the seats yet to accept"
    )


class MoveSerializer(serializers.Serializer):
    version = StrictIntegerField(min_value=0, help_text="the table version the move was chosen on")
    action = serializers.DictField(help_text="one of legal_actions, unchanged")


# -- response shapes, for the OpenAPI schema -------------------------------------------


class SeatViewSerializer(serializers.Serializer):
    seat = serializers.IntegerField(
        help_text="0 to seats-1, clockwise; a seat's left is the next number"
    )
    player = serializers.CharField(allow_null=True, help_text="username, or null for a free seat")
    bot = serializers.BooleanField()
    level = serializers.ChoiceField(
        choices=BotLevel.choices, allow_null=True, help_text="a bot's level; null for a person"
    )
    cards = serializers.IntegerField(allow_null=True, help_text="cards in hand, once dealt")
    total = serializers.IntegerField(allow_null=True, help_text="running total for the match")
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="when this seat's owed action is due; null if it owes none"
    )
    away_until = serializers.DateTimeField(
        allow_null=True,
        help_text="its player is on holiday until then: the table waits; null if not",
    )
    held = serializers.FloatField(
        allow_null=True,
        help_text="while its player is on holiday, the seconds it had left of the move it owes,"
        " standing still (its deadline is then null)",
    )
    reserve = serializers.FloatField(
        allow_null=True,
        help_text="seconds left of its reserve of time; null at a table without one",
    )


class YouSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    hand = serializers.ListField(child=serializers.CharField(), help_text="your cards, e.g. 7H")


class ResultSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=["finished", "resigned", "timeout"])
    seat = serializers.IntegerField(
        allow_null=True, help_text="the seat that resigned or timed out"
    )
    places = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="each seat's place; 1 is first, equal totals share",
    )
    totals = serializers.ListField(child=serializers.IntegerField())


class RecentMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    at = serializers.DateTimeField()
    events = serializers.ListField(child=serializers.DictField())
    text = serializers.ListField(
        child=serializers.CharField(),
        help_text="each event in the game's own words, as you may see it "
        '("ann played 8S and called hearts")',
    )
    auto = serializers.BooleanField(
        help_text="played automatically: its seat's only action, forced, and its player asks"
        " for those to be played at once"
    )


class CancelledSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(
        choices=["cancelled", "expired"],
        help_text="cancelled by its host, or expired: nobody filled it in time",
    )
    at = serializers.DateTimeField()


TABLE_STATUSES = ["open", "playing", "finished", "cancelled"]


class BotFillViewSerializer(serializers.Serializer):
    at = serializers.DateTimeField(help_text="when the seats still free get bots, and the deal")
    level = serializers.ChoiceField(choices=BotLevel.choices)


class BotViewSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    level = serializers.ChoiceField(choices=BotLevel.choices)


class TableViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    ruleset_version = serializers.CharField()
    status = serializers.ChoiceField(
        choices=TABLE_STATUSES, help_text="cancelled: called off before its game started"
    )
    version = serializers.IntegerField(help_text="post it back with your move")
    seat_count = serializers.IntegerField()
    deadline_seconds = serializers.IntegerField()
    reserve_seconds = serializers.IntegerField(
        help_text="each seat's reserve of time at the start, in seconds; 0 for none"
    )
    rated = serializers.BooleanField()
    options = serializers.DictField()
    bot_fill = BotFillViewSerializer(
        allow_null=True, help_text="while open: when bots take the seats still free"
    )
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    commitment = serializers.CharField(help_text="SHA-256 of the secret server seed, hex")
    to_act = serializers.ListField(
        child=serializers.IntegerField(), help_text="seats that owe an action"
    )
    deadline = serializers.DateTimeField(allow_null=True, help_text="when the owed action is due")
    seats = SeatViewSerializer(many=True)
    you = YouSerializer(allow_null=True, help_text="your seat and hand; null if you have no seat")
    legal_actions = serializers.ListField(
        child=serializers.DictField(), help_text="post one back unchanged as your action"
    )
    board = serializers.DictField(allow_null=True, help_text="what the table shows; game-specific")
    contributions = serializers.ListField(
        child=serializers.DictField(),
        help_text="receipts of the players' entropy: seat, receipt, at",
    )
    result = ResultSerializer(allow_null=True)
    cancelled = CancelledSerializer(
        allow_null=True, help_text="why and when, if the table was cancelled; its seed stays secret"
    )
    recent = RecentMoveSerializer(many=True, help_text="the last moves, as you may see them")
    is_private = serializers.BooleanField(help_text="kept out of the lobby; seen by invitation")
    invitation = InviteLinkSerializer(
        allow_null=True, help_text="to the host of a private table waiting: its link"
    )
    rematch = RematchViewSerializer(allow_null=True)


class TableSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=TABLE_STATUSES)
    version = serializers.IntegerField()
    seat_count = serializers.IntegerField()
    players = serializers.ListField(
        child=serializers.CharField(allow_null=True), help_text="by seat; null for a bot or free"
    )
    bots = BotViewSerializer(many=True, help_text="the seats bots sit in, and their levels")
    free_seats = serializers.IntegerField()
    deadline_seconds = serializers.IntegerField()
    rated = serializers.BooleanField()
    options = serializers.DictField()
    bot_fill = BotFillViewSerializer(allow_null=True)
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    to_act = serializers.ListField(child=serializers.IntegerField())
    deadline = serializers.DateTimeField(allow_null=True)
    your_seat = serializers.IntegerField(allow_null=True)
    your_turn = serializers.BooleanField()
    your_deadline = serializers.DateTimeField(allow_null=True)
    result = ResultSerializer(allow_null=True)
    cancelled = CancelledSerializer(allow_null=True)


class TableListQuerySerializer(serializers.Serializer):
    """The lobby's filters and page; a value that is not what it should be is a 400."""

    game = GameField(
        required=False, allow_blank=True, max_length=32, help_text="only tables of this game"
    )
    seats = QueryIntegerField(
        required=False, min_value=2, max_value=10, help_text="only tables of this many seats"
    )
    deadline_min = QueryIntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="deadline at least, seconds"
    )
    deadline_max = QueryIntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="deadline at most, seconds"
    )
    page = QueryIntegerField(
        required=False, default=1, min_value=1, help_text="1 is the first; past the last is a 400"
    )
    page_size = QueryIntegerField(
        required=False, default=100, min_value=1, max_value=100, help_text="open tables a page"
    )


class TableListSerializer(serializers.Serializer):
    open = TableSummarySerializer(
        many=True,
        help_text="one page of the tables you could join: oldest first, one table of each host"
        " in turn (every host's oldest, then every host's second oldest...)",
    )
    open_count = serializers.IntegerField(help_text="open tables on every page, under the filters")
    page = serializers.IntegerField()
    pages = serializers.IntegerField(help_text="at least 1, even when there is no table")
    next = serializers.URLField(allow_null=True, help_text="the next page of open tables, or null")
    previous = serializers.URLField(allow_null=True, help_text="the page before, or null")
    mine = TableSummarySerializer(
        many=True, help_text="your tables but the cancelled ones, those waiting on you first"
    )
    mine_cancelled = TableSummarySerializer(
        many=True, help_text="your last 20 tables cancelled before they started, newest first"
    )


class OptionSchemaSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["bool", "int", "choice"])
    default = serializers.JSONField()
    description = serializers.CharField()
    minimum = serializers.IntegerField(required=False, help_text="int options only")
    maximum = serializers.IntegerField(required=False, help_text="int options only")
    choices = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="choice options only"
    )


class GameSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="the game id, e.g. dodo")
    name = serializers.CharField()
    version = serializers.CharField(help_text="the rules version a record names, e.g. dodo/1")
    family = serializers.CharField(help_text="the engine family whose preset the game is")
    rulebook = serializers.CharField(help_text="the rulebook's file name")
    min_seats = serializers.IntegerField()
    max_seats = serializers.IntegerField()
    bots_from_seats = serializers.IntegerField(
        help_text="bots may sit at tables of this many seats or more"
    )
    bot_levels = serializers.ListField(
        child=serializers.ChoiceField(choices=BotLevel.choices),
        help_text="easy: at random; normal: the rulebook's advice; strong: searches the hidden cards",
    )
    winner = serializers.ChoiceField(
        choices=["highest total", "lowest total"], help_text="under the preset"
    )
    preset = serializers.DictField(help_text="every option at its default: the rulebook")
    options = OptionSchemaSerializer(many=True)


class CatalogueSerializer(serializers.Serializer):
    games = GameSerializer(many=True)
