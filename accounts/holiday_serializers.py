"""The API's answers about holidays (games.holiday_views, and ``GET /api/accounts/me/``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from config.schema import LiveSchema


class StrictDaysField(LiveSchema, serializers.IntegerField):
    """Whole days as a JSON integer, from 1 to the allowance; the service refuses the rest
    (400 ``invalid``)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)

    def openapi_schema(self) -> dict[str, Any]:
        return {"type": "integer", "minimum": 1, "maximum": settings.FAIRDEAL_HOLIDAY_DAYS}


class HolidayInProgressSerializer(serializers.Serializer):
    days = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(help_text="when the deadlines run again")
    rated_until = serializers.DateTimeField(
        allow_null=True,
        help_text="when rated tables stop waiting, if before the end (FAIRDEAL_HOLIDAY_RATED_DAYS)",
    )


class HolidaysSerializer(serializers.Serializer):
    allowance = serializers.IntegerField(help_text="holiday days a player may take in 365")
    days_left = serializers.IntegerField(help_text="of the allowance, in the last 365 days")
    current = HolidayInProgressSerializer(
        allow_null=True, help_text="the holiday in progress; null if none"
    )
