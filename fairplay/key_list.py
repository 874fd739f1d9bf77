"""The key list, the Django side: every key that signed, the period it signed, revocations.

The private key comes from the environment only (:mod:`fairplay.keys`); the database
keeps each public key and its period (:class:`fairplay.models.SigningKey`). A key's
period begins the first time the server uses it (:func:`key_in_force`: to sign a
record or a checkpoint, or to publish the list), and that closes the period of the
key before it: changing keys is changing the environment and restarting. A key whose
period is closed, or that is revoked, never signs again. ``GET /api/fairplay/keys/``
publishes :func:`key_list_document`, which :mod:`fairplay.keyring` reads.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.db import IntegrityError, transaction
from django.db.models import Min, Q
from django.utils import timezone

from config.errors import ServiceError
from fairplay.clock import instant
from fairplay.keyring import KEY_LIST_FORMAT
from fairplay.keys import signing_key
from fairplay.models import SignedRecord, SigningKey
from fairplay.signing import ALGORITHM, key_id, public_key_bytes
from games import outbox
from games.models import OutboxItem, Table

# The outbox's kind for "sign this ended table's record" (the handler:
# fairplay.publishing.sign_record), asked for by the write that ends a game.
SIGN_RECORD = "fairplay.sign_record"


class KeyNotInForce(ServiceError):
    """The configured key may not sign: another key took over, or it is revoked."""

    code = "signing_key_not_in_force"
    status = 503


def key_in_force(now: datetime | None = None) -> tuple[Ed25519PrivateKey, SigningKey]:
    """The configured private key and its row in the key list, if it may sign at ``now``.

    The first time a key is used it joins the list, its period beginning ``now``, and
    the key in force before it is retired at that instant; the very first key of a
    site is taken to have signed since its first table (it signed every record served
    before the list was kept). Raises :class:`KeyNotInForce` for a key retired (a
    process still running with the old key after a change) or revoked.
    """
    now = now or timezone.now()
    private = signing_key()
    raw = public_key_bytes(private.public_key())
    row = SigningKey.objects.filter(public_key=raw.hex()).first()
    if row is None:
        row = _take_over(raw, now)
    if row.signed_until is not None:
        raise KeyNotInForce(
            f"the signing key {row.key_id} was retired at {instant(row.signed_until)}, when "
            "another key took over: restart this process with the key in force"
        )
    if row.revoked_from is not None and row.revoked_from <= now:
        raise KeyNotInForce(
            f"the signing key {row.key_id} is revoked from {instant(row.revoked_from)} "
            f"({row.revoked_reason}): configure a new key (docs/deploy.md)"
        )
    return private, row


def _take_over(raw: bytes, now: datetime) -> SigningKey:
    """Add the key ``raw`` to the list as the key in force from ``now``, retiring the one before."""
    try:
        with transaction.atomic():
            first = not SigningKey.objects.exists()
            SigningKey.objects.filter(signed_until__isnull=True).update(signed_until=now)
            since = now
            if first:
                since = Table.objects.aggregate(first=Min("created_at"))["first"] or now
            return SigningKey.objects.create(
                key_id=key_id(raw), public_key=raw.hex(), signed_from=min(since, now)
            )
    except IntegrityError:  # another process took over at the same moment
        row = SigningKey.objects.filter(public_key=raw.hex()).first()
        if row is None:
            raise KeyNotInForce(
                "another signing key took over at the same moment as this one: every "
                "process must run with the same key"
            ) from None
        return row


def key_list_document() -> dict[str, Any]:
    """What ``GET /api/fairplay/keys/`` publishes: every key, in the order they took over."""
    return {
        "format": KEY_LIST_FORMAT,
        "keys": [
            {
                "algorithm": ALGORITHM,
                "key_id": row.key_id,
                "public_key": row.public_key,
                "from": instant(row.signed_from),
                "until": instant(row.signed_until) if row.signed_until else None,
                "revoked": (
                    {"from": instant(row.revoked_from), "reason": row.revoked_reason}
                    if row.revoked_from
                    else None
                ),
            }
            for row in SigningKey.objects.order_by("signed_from", "id")
        ],
    }


class InvalidRevocation(ServiceError):
    code = "invalid_revocation"
    status = 400


def find_key(text: str) -> SigningKey:
    """A listed key by its id (16 hex characters) or its public key (64)."""
    wanted = text.strip().lower()
    row = SigningKey.objects.filter(key_id=wanted).first() or (
        SigningKey.objects.filter(public_key=wanted).first()
    )
    if row is None:
        listed = ", ".join(SigningKey.objects.values_list("key_id", flat=True)) or "none yet"
        raise InvalidRevocation(f"no key {text!r} in the key list (listed: {listed})")
    return row


@transaction.atomic
def revoke(*, key: str, revoked_from: datetime, reason: str) -> tuple[SigningKey, list[int]]:
    """Revoke the listed ``key`` (its id or public key) from ``revoked_from``, for ``reason``.

    Nothing it signed at or after that instant is vouched for any more (the verifier
    refuses it, by the key list): those of our records are signed again, by the key in
    force, through the outbox (a record that a key list judges at its game's end, format
    1, by its ``finished_at``). A revocation may be moved earlier, never later or away.
    Returns the key's row and the tables whose records are to be signed again.
    """
    reason = reason.strip()
    if not reason:
        raise InvalidRevocation("say why the key is revoked (--reason): the key list shows it")
    if timezone.is_naive(revoked_from):
        raise InvalidRevocation("give the revocation's instant with its time zone, e.g. ...Z")
    if revoked_from > timezone.now():
        raise InvalidRevocation(
            f"{instant(revoked_from)} is still to come: a key is revoked from a moment already "
            "past (to stop using a key, configure a new one)"
        )
    row = SigningKey.objects.select_for_update().get(pk=find_key(key).pk)
    if row.revoked_from is not None and row.revoked_from <= revoked_from:
        raise InvalidRevocation(
            f"key {row.key_id} is already revoked from {instant(row.revoked_from)} "
            f"({row.revoked_reason}); a revocation may only be moved earlier"
        )
    row.revoked_from, row.revoked_reason = revoked_from, reason
    row.save(update_fields=["revoked_from", "revoked_reason"])
    return row, _sign_again(row, revoked_from)


def _sign_again(key: SigningKey, revoked_from: datetime) -> list[int]:
    """Drop the stored records ``key`` signed that a key list now refuses, and ask the
    outbox to sign them again; returns their tables."""
    refused = SignedRecord.objects.filter(key=key).filter(
        Q(table__record_format=1, table__finished_at__gte=revoked_from)
        | Q(~Q(table__record_format=1), signed_at__gte=revoked_from)
    )
    tables = list(refused.values_list("table_id", "table__created_by_id"))
    refused.delete()
    OutboxItem.objects.bulk_create(
        outbox.item(SIGN_RECORD, account=host, table_id=table) for table, host in tables
    )
    return [table for table, _ in tables]
