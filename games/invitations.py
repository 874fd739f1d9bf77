"""Invitations: the link of a private table, invitations by name, declining one, and the
mail that tells a player they are invited (to a private table, or to a rematch).

Who may see a private table is :mod:`games.privacy`; a rematch is offered and
accepted by :func:`games.services.table_again` and :func:`games.services.table_join`.
Each write here runs in one transaction under the table's row lock, as every
write of a table does.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils import timezone

from accounts.mail_preferences import turn_off_lines, unsubscribe_url
from accounts.models import wants_mail
from config.errors import ServiceError
from config.mail import send_mail_to
from games import outbox, privacy, services
from games.catalogue import find_ruleset
from games.forms import deadline_words
from games.models import Invitation, OutboxItem, Seat, Table

logger = logging.getLogger(__name__)

# The most players a host may invite by name to one table: each is a mail.
MOST_INVITED = 20
# The kind of mail an invitation or a rematch's offer is (MailPreferences.KINDS).
KIND = "invitations"


class UnknownPlayer(ServiceError):
    code = "unknown_player"
    status = 400


class NotPrivate(ServiceError):
    code = "not_private"
    status = 409


class TooManyInvited(ServiceError):
    code = "too_many_invited"
    status = 409


class NotInvited(ServiceError):
    code = "not_invited"
    status = 409


def invite_path(table: Table) -> str | None:
    """The path of the table's invitation link, while it has one."""
    if not table.invite_token:
        return None
    return reverse("table-invite-page", args=[table.pk, table.invite_token])


def _hosted(table_id: int, user: AbstractBaseUser) -> Table:
    """The private table ``table_id``, locked, for its host; a 404 to anybody who may not
    see it, 403 to a player who is not its host, 409 if it is not private or not open."""
    table = services.lock_table(table_id)
    if not privacy.may_see(table, user):
        raise services.TableNotFound(f"there is no table {table_id}")
    if table.created_by_id != user.pk:
        raise services.NotHost("only the player who opened this table may invite to it")
    if not table.private:
        raise NotPrivate("this table is open to all in the lobby: it needs no invitation")
    if table.status != Table.Status.OPEN:
        raise services.NotOpen("its game has started or ended: there is no seat to invite to")
    return table


@transaction.atomic
def new_link(*, table_id: int, user: AbstractBaseUser) -> Table:
    """Give the host's private table a new invitation link; the old one joins nobody."""
    table = _hosted(table_id, user)
    table.invite_token = privacy.new_token()
    table.save(update_fields=["invite_token"])
    return table


@transaction.atomic
def revoke_link(*, table_id: int, user: AbstractBaseUser) -> Table:
    """Take the link of the host's private table back: whoever holds it finds no table."""
    table = _hosted(table_id, user)
    table.invite_token = ""
    table.save(update_fields=["invite_token"])
    return table


@transaction.atomic
def invite(*, table_id: int, user: AbstractBaseUser, username: str) -> Invitation:
    """Invite a player by name to the host's private table, and mail them (through the
    outbox). Inviting again someone who declined invites them again; someone already
    invited, or seated, is left as they are."""
    table = _hosted(table_id, user)
    guest = get_user_model().objects.filter(username__iexact=username, is_active=True).first()
    if guest is None:
        raise UnknownPlayer(f"there is no player called {username!r}")
    if Seat.objects.filter(table=table, user=guest).exists():
        raise services.AlreadySeated(f"{guest.get_username()} already has a seat at this table")
    invitation, made = Invitation.objects.get_or_create(table=table, user=guest)
    if not made and invitation.declined_at is None:
        return invitation
    if made and Invitation.objects.filter(table=table).count() > MOST_INVITED:
        raise TooManyInvited(f"a table may invite at most {MOST_INVITED} players by name")
    if not made:
        invitation.declined_at = None
        invitation.mailed_at = None
        invitation.save(update_fields=["declined_at", "mailed_at"])
    OutboxItem.objects.bulk_create(
        [outbox.item(services.INVITATION_MAIL, account=user.pk, invitation_id=invitation.pk)]
    )
    return invitation


@transaction.atomic
def decline(*, table_id: int, user: AbstractBaseUser) -> Table:
    """Decline an invitation: to a private table (it is no longer shown to the player), or
    to a rematch (then it cannot be played, and is called off at once; the others are
    mailed)."""
    table = services.lock_table(table_id)
    if not privacy.may_see(table, user):
        raise services.TableNotFound(f"there is no table {table_id}")
    invitation = Invitation.objects.filter(table=table, user=user, declined_at__isnull=True)
    kept = Seat.objects.filter(table=table, user=user, joined_at__isnull=True)
    taken = Seat.objects.filter(table=table, user=user, joined_at__isnull=False)
    if table.status != Table.Status.OPEN or not invitation.exists() or taken.exists():
        raise NotInvited("you have no invitation to this table waiting for an answer")
    now = timezone.now()
    invitation.update(declined_at=now)
    if table.rematch_of_id is not None and kept.exists():
        services.call_off(table)
    return table


def pending(user: AbstractBaseUser | AnonymousUser) -> list[dict]:
    """The player's invitations waiting for an answer: to private tables and to rematches,
    newest first, each with the table, who invited, and when a rematch lapses."""
    if not user.is_authenticated:
        return []
    joined = Seat.objects.filter(table=OuterRef("table"), user=user, joined_at__isnull=False)
    waiting = (
        Invitation.objects.filter(user=user, declined_at__isnull=True, table__status="open")
        .exclude(Exists(joined))
        .select_related("table__created_by")
        .order_by("-created_at", "-id")[:50]
    )
    return [
        {
            "table": invitation.table_id,
            "game": invitation.table.game,
            "by": invitation.table.created_by.get_username(),
            "rematch_of": invitation.table.rematch_of_id,
            "lapses_at": invitation.table.rematch_until,
        }
        for invitation in waiting
    ]


# -- the mail ---------------------------------------------------------------------------


class MailNotSent(Exception):
    """The invitation's mail could not be sent now; the outbox tries again later."""


@outbox.handler(services.INVITATION_MAIL)
def mail_invitation(invitation_id: int) -> int:
    """Mail one invitation, once: claimed by setting ``mailed_at`` where it is unset, given
    back if sending fails (and the outbox retries). Returns how many mails went (0 or 1).

    Another player's request sends it, so a player may turn it off like any other
    kind (``invitations``, with its one-click unsubscribe link); the invitation
    stands all the same, in "my tables".
    """
    now = timezone.now()
    claimed = Invitation.objects.filter(
        pk=invitation_id, mailed_at__isnull=True, declined_at__isnull=True
    ).update(mailed_at=now)
    if not claimed:
        return 0
    invitation = Invitation.objects.select_related("user", "table__created_by").get(
        pk=invitation_id
    )
    guest, table = invitation.user, invitation.table
    if not guest.email or not wants_mail(guest, KIND) or table.status != Table.Status.OPEN:
        return 0
    subject, body = invitation_mail(invitation)
    try:
        send_mail_to(guest.email, subject, body, unsubscribe=unsubscribe_url(guest.pk, KIND))
    except Exception as error:
        Invitation.objects.filter(pk=invitation_id).update(mailed_at=None)
        raise MailNotSent(f"the mail of invitation {invitation_id} could not be sent") from error
    return 1


def invitation_mail(invitation: Invitation) -> tuple[str, str]:
    """The subject and body of an invitation's mail: never a secret (not the link's)."""
    table, guest = invitation.table, invitation.user
    host = table.created_by.get_username()
    name = find_ruleset(table.game, table.ruleset_version).name
    url = f"{settings.FAIRDEAL_BASE_URL}{reverse('table-page', args=[table.pk])}"
    what = f"{name}, {table.seat_count} seats, {deadline_words(table.deadline_seconds)} a move"
    if table.rematch_of_id is not None:
        subject = f"{host} offers a rematch of table {table.rematch_of_id} ({name})"
        lines = [
            f"{host} offers to play table {table.rematch_of_id} again: table {table.pk} ({what}),"
            " everybody in the seat they had, with a new seed.",
            "The cards are dealt when every player has accepted; the offer lapses on"
            f" {timezone.localtime(table.rematch_until):%d %B %Y, %H:%M %Z}.",
            "",
            f"Accept or decline: {url}",
        ]
    else:
        subject = f"{host} invites you to table {table.pk} ({name})"
        lines = [
            f"{host} invites you to a private table: table {table.pk} ({what}).",
            "",
            f"Take a seat or decline: {url}",
        ]
    body = "\n".join(
        [f"Hello {guest.get_username()},", "", *lines, "", turn_off_lines(guest.pk, KIND), ""]
    )
    return subject, body
