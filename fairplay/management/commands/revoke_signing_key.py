"""Revoke a signing key from an instant: nothing it signed from then on is vouched for."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from config.errors import ServiceError
from fairplay.clock import instant
from fairplay.key_list import revoke


def moment(text: str) -> datetime:
    """``now``, or an ISO 8601 instant with its time zone (``2026-12-01T09:30:00Z``)."""
    if text.strip().lower() == "now":
        return timezone.now()
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise CommandError(
            f"--from {text!r} is no instant: write it as 2026-12-01T09:30:00Z, or now"
        ) from None
    if timezone.is_naive(value):
        raise CommandError(f"--from {text!r} has no time zone: end it with Z (UTC) or +01:00")
    return value


class Command(BaseCommand):
    help = (
        "Revoke a key of the key list (its id or public key) from an instant, for a reason"
        " the list publishes: the verifier then refuses whatever it signed from that instant"
        " (date it from the earliest moment the key may have leaked). Our records it signed"
        " since are signed again by the key in force, through the outbox (docs/deploy.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("key", help="the key's id (16 hex characters) or public key (64)")
        parser.add_argument(
            "--from",
            dest="revoked_from",
            required=True,
            help="from when: an ISO 8601 instant with its zone (2026-12-01T09:30:00Z), or now",
        )
        parser.add_argument("--reason", required=True, help="why, as the key list will say it")

    def handle(self, *args: Any, key: str, revoked_from: str, reason: str, **options: Any) -> None:
        try:
            row, tables = revoke(key=key, revoked_from=moment(revoked_from), reason=reason)
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(
            f"key {row.key_id} revoked from {instant(row.revoked_from)} ({row.revoked_reason});"
            f" {len(tables)} records it signed since are to be signed again by the key in force"
        )
