"""``POST, DELETE /api/accounts/me/holiday/``: start a holiday, or end it (games.holidays).

In ``games``, not ``accounts``, because a holiday holds the player's tables;
``GET /api/accounts/me/`` shows the holiday in progress and the days left.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.holiday_serializers import HolidaysSerializer, StrictDaysField
from accounts.models import holidays_json
from accounts.serializers import StrictSerializer
from config.schema import refusals
from games import holidays


class HolidayRequestSerializer(StrictSerializer):
    """How long: ``{"days": n}``; any other field is refused."""

    days = StrictDaysField(help_text="how many days, from now; the allowance is a year's")


class HolidayView(APIView):
    @extend_schema(
        request=HolidayRequestSerializer,
        responses={
            201: HolidaysSerializer,
            **refusals(
                {
                    400: "`invalid`: days is not a whole number from 1 to the allowance",
                    409: "`already_on_holiday`; `not_enough_holiday`: more days than are left"
                    " of the allowance; `deadline_too_close`: a deadline of yours is due within"
                    " the notice (FAIRDEAL_HOLIDAY_NOTICE_SECONDS)",
                }
            ),
        },
    )
    def post(self, request: Request) -> Response:
        """Start a holiday of `{"days": n}` days: the deadline of every table waiting on you
        stands still until it ends, and goes on from where it stopped."""
        serializer = HolidayRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        holidays.holiday_start(user=request.user, days=serializer.validated_data["days"])
        return Response(holidays_json(request.user, timezone.now()), status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses={
            200: HolidaysSerializer,
            **refusals({409: "`not_on_holiday`: there is no holiday to end"}),
        },
    )
    def delete(self, request: Request) -> Response:
        """End your holiday now: the deadlines go on from where they stopped."""
        holidays.holiday_end(user=request.user)
        return Response(holidays_json(request.user, timezone.now()))
