"""What every page shows: the number of tables waiting on the signed-in player."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.models import Seat, SeatClock, Table


def waiting_count(request: HttpRequest) -> dict[str, Any]:
    """``waiting_count``: the tables where the player owes an action now.

    One query, made only if the page shows it (a lazy object), on the primary even in a
    page whose public reads may lag (config/replica.py): the player's own tables.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"waiting_count": 0}
    return {
        "waiting_count": SimpleLazyObject(
            lambda: (
                Seat.objects.using(DEFAULT_DB_ALIAS)
                .filter(user=user, table__status=Table.Status.PLAYING)
                .alias(deadline_at=SeatClock("deadline"))
                .filter(deadline_at__isnull=False)
                .count()
            )
        )
    }
