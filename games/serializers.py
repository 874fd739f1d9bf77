"""Request bodies of the tables API; responses are built by games.selectors."""

from __future__ import annotations

from rest_framework import serializers


class StrictIntegerField(serializers.IntegerField):
    """An integer that must be a JSON number, not a string or a boolean."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class TableCreateSerializer(serializers.Serializer):
    game = serializers.CharField(max_length=32)
    seats = StrictIntegerField(min_value=1, max_value=100)
    deadline = StrictIntegerField(min_value=1, help_text="seconds per move")
    rated = serializers.BooleanField(default=False)
    options = serializers.DictField(default=dict)
    bots = serializers.ListField(child=StrictIntegerField(min_value=0), default=list, max_length=16)


class MoveSerializer(serializers.Serializer):
    version = StrictIntegerField(min_value=0, help_text="the table version the move was chosen on")
    action = serializers.DictField(help_text="one of legal_actions, unchanged")
