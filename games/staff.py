"""What staff do to a table, through the admin: call off a table still waiting for players,
or void a rated table (``leaderboard.staff.void_table``: it is left out of the ratings, and
the ratings after it are applied again). Each is logged in the staff actions' log
(:class:`leaderboard.models.StaffAction`) with who, when and why, in its transaction.

Nothing else: a table's status, turn, version and result change only by play, through
``games.services`` (the admin shows them and changes none). A game already dealt is not
called off: its seed is committed and its cards are out, and it ends as every game does,
by play, a resignation or a timeout; if it is rated and should not count, void it.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from games import services
from leaderboard.models import StaffAction
from leaderboard.staff import check_reason, check_staff, record, void_table

logger = logging.getLogger(__name__)

__all__ = ["cancel_table", "void_table"]


@transaction.atomic
def cancel_table(*, staff: Any, table_id: int, reason: str) -> StaffAction:
    """Call off a table still waiting for players, whoever opened it, as its host could
    (``games.services.table_cancel``: who joined hears of it); logged."""
    check_staff(staff)
    reason = check_reason(reason)
    try:
        table = services.table_cancel(table_id=table_id, user=staff, by_staff=True)
    except services.NotOpen as error:
        raise services.NotOpen(
            f"table {table_id}: {error.message}. A game already dealt ends by play, a"
            " resignation or a timeout; if it is rated and should not count, void it"
        ) from None
    action = record(StaffAction.Kind.CANCEL_TABLE, staff=staff, reason=reason, table=table)
    action.detail = {"table": table.pk, "host": table.created_by_id}
    action.save(update_fields=["detail"])
    logger.warning(
        "staff %s: cancelled table %s, opened by user %s (%s)",
        action.staff_name,
        table.pk,
        table.created_by_id,
        reason,
    )
    return action
