"""Request bodies of the tables API; responses are built by games.selectors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.models import BotLevel


class EntropyField(serializers.CharField):
    """A player's contribution to the seed: 16 to 64 random bytes, in hex."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("max_length", 256)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("help_text", "16 to 64 random bytes in hex, mixed into the seed")
        super().__init__(**kwargs)


class StrictIntegerField(serializers.IntegerField):
    """An integer that must be a JSON number, not a string or a boolean."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


BOT_SEAT_SCHEMA = {
    "oneOf": [
        {"type": "integer", "minimum": 1, "description": "a seat for a normal bot"},
        {
            "type": "object",
            "properties": {
                "seat": {"type": "integer", "minimum": 1},
                "level": {"type": "string", "enum": list(BotLevel.values), "default": "normal"},
            },
            "required": ["seat"],
            "additionalProperties": False,
        },
    ]
}


@extend_schema_field(BOT_SEAT_SCHEMA)
class BotSeatField(serializers.Field):
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


class BotFillSerializer(serializers.Serializer):
    after = StrictIntegerField(
        min_value=1, help_text="seconds after the table opens: free seats then get bots"
    )
    level = serializers.ChoiceField(choices=BotLevel.choices, default=BotLevel.NORMAL)


class TableCreateSerializer(serializers.Serializer):
    game = serializers.CharField(max_length=32)
    seats = StrictIntegerField(min_value=1, max_value=100)
    deadline = StrictIntegerField(min_value=1, help_text="seconds per move")
    rated = serializers.BooleanField(default=False)
    options = serializers.DictField(default=dict)
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


class JoinSerializer(serializers.Serializer):
    entropy = EntropyField(required=False)


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

    game = serializers.CharField(
        required=False, allow_blank=True, max_length=32, help_text="only tables of this game"
    )
    seats = serializers.IntegerField(
        required=False, min_value=2, max_value=10, help_text="only tables of this many seats"
    )
    deadline_min = serializers.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="deadline at least, seconds"
    )
    deadline_max = serializers.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="deadline at most, seconds"
    )
    page = serializers.IntegerField(
        required=False, default=1, min_value=1, help_text="1 is the first; past the last is a 400"
    )
    page_size = serializers.IntegerField(
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


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="machine-readable, e.g. stale_version")
    detail = serializers.CharField(help_text="a sentence for people")
    fields = serializers.DictField(required=False, help_text="per-field messages for invalid input")
