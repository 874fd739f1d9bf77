"""What staff do to ratings: void a player's rated games, or one rated table (docs/ratings.md).

Each action is one transaction: the :class:`~leaderboard.models.StaffAction`
that says who, when, what and why, the tables marked unrated for it, and the
ratings rewound and applied again without them
(:func:`leaderboard.services.void_tables`). It is also logged, at WARNING,
on the ``leaderboard.staff`` logger. The admin's actions and ``manage.py
void_rated_games`` call these; nothing else changes a rating by hand.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef

from config.errors import ServiceError
from games.models import Table
from games.services import TableNotFound
from leaderboard.models import StaffAction, UnratedTable
from leaderboard.selectors import check_game
from leaderboard.services import Voided, void_tables

logger = logging.getLogger(__name__)

LONGEST_REASON = 2000


class NotStaff(ServiceError):
    code = "not_staff"
    status = 403


class ReasonRequired(ServiceError):
    code = "reason_required"
    status = 400


class NotRated(ServiceError):
    code = "not_rated"
    status = 409


def check_staff(staff: Any) -> None:
    """Refuse anyone but an active staff account."""
    if not (staff.is_active and staff.is_staff):
        raise NotStaff(f"{staff.get_username()} is not staff: only staff act on tables and ratings")


def check_reason(reason: str) -> str:
    """The reason, trimmed: every staff action says why, in words."""
    reason = (reason or "").strip()
    if not reason:
        raise ReasonRequired("say why: every staff action is logged with its reason")
    if len(reason) > LONGEST_REASON:
        raise ReasonRequired(f"a reason is at most {LONGEST_REASON} characters")
    return reason


def record(
    kind: str, *, staff: Any, reason: str, table: Table | None = None, player: Any = None
) -> StaffAction:
    """The log's row of a staff action, written in the action's transaction (its detail
    after, once the action knows what it did)."""
    return StaffAction.objects.create(
        kind=kind,
        staff=staff,
        staff_name=staff.get_username(),
        table=table,
        player=player,
        reason=reason,
    )


def _done(action: StaffAction, voided: Voided) -> StaffAction:
    action.detail = {
        "tables": voided.tables,
        "rerated": voided.rerated,
        "players": voided.players,
    }
    action.save(update_fields=["detail"])
    logger.warning(
        "staff %s: %s (%s): tables %s left out of the ratings; %s rated again; the ratings"
        " of %d players rewound and moved again",
        action.staff_name,
        action.get_kind_display(),
        action.reason,
        voided.tables,
        voided.rerated or "nothing",
        len(voided.players),
    )
    return action


@transaction.atomic
def void_player(*, staff: Any, player: Any, reason: str, game: str | None = None) -> StaffAction:
    """Leave every rated table ``player`` sat at (of ``game``, or of every game) out of
    the ratings, and rate everything after them again; logged as a :class:`StaffAction`.

    Open and playing tables too: they will never rate. Tables already left out stay as
    they were. Returns the action, its ``detail`` saying what it did.
    """
    check_staff(staff)
    reason = check_reason(reason)
    tables = Table.objects.filter(seats__user=player, rated=True).exclude(
        status=Table.Status.CANCELLED
    )
    if game is not None:
        tables = tables.filter(game=check_game(game))
    action = record(StaffAction.Kind.VOID_PLAYER, staff=staff, reason=reason, player=player)
    return _done(action, void_tables(tables, action=action))


@transaction.atomic
def void_table(*, staff: Any, table_id: int, reason: str) -> StaffAction:
    """Leave one rated table out of the ratings (finished, or still playing: it will never
    rate), and rate everything after it again; logged as a :class:`StaffAction`."""
    check_staff(staff)
    reason = check_reason(reason)
    table = (
        Table.objects.filter(pk=table_id)
        .annotate(left_out=Exists(UnratedTable.objects.filter(table=OuterRef("pk"))))
        .first()
    )
    if table is None:
        raise TableNotFound(f"there is no table {table_id}")
    if not table.rated:
        raise NotRated(f"table {table_id} is not rated: there is nothing to void")
    if table.left_out:
        raise NotRated(f"table {table_id} is already left out of the ratings")
    if table.status == Table.Status.CANCELLED:
        raise NotRated(f"table {table_id} was cancelled before its game started: it never rates")
    action = record(StaffAction.Kind.VOID_TABLE, staff=staff, reason=reason, table=table)
    return _done(action, void_tables(Table.objects.filter(pk=table.pk), action=action))
