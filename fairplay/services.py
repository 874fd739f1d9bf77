"""Players' contributions to the seed: validated, stored and mixed in at the deal."""

from __future__ import annotations

import re
from typing import Any

from config.errors import ServiceError
from fairplay.models import Contribution
from fairplay.record import receipt as record_receipt
from games.rules.chance import game_seed

MIN_ENTROPY_BYTES = 16
MAX_ENTROPY_BYTES = 64
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


class InvalidEntropy(ServiceError):
    code = "invalid_entropy"
    status = 400


class TooLate(ServiceError):
    code = "too_late"
    status = 409


class AlreadyContributed(ServiceError):
    code = "already_contributed"
    status = 409


class DuplicateEntropy(ServiceError):
    code = "duplicate_entropy"
    status = 409


def parse_entropy(value: Any) -> bytes:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise InvalidEntropy("entropy is an even number of hexadecimal digits")
    data = bytes.fromhex(value)
    if not MIN_ENTROPY_BYTES <= len(data) <= MAX_ENTROPY_BYTES:
        raise InvalidEntropy(
            f"entropy is {MIN_ENTROPY_BYTES} to {MAX_ENTROPY_BYTES} bytes; this is {len(data)}"
        )
    return data


def add_contribution(*, table: Any, seat: int, entropy: Any) -> Contribution:
    """Record a seat's contribution, and show its receipt on the table's row
    (``Table.receipts``). The caller holds the table's row lock and checked it is open."""
    data = parse_entropy(entropy)
    receipt = record_receipt(data)
    existing = Contribution.objects.filter(table=table)
    if existing.filter(seat=seat).exists():
        raise AlreadyContributed("you have already contributed to this table's seed")
    if existing.filter(receipt=receipt).exists():
        raise DuplicateEntropy("that entropy has already been contributed at this table")
    contribution = Contribution.objects.create(
        table=table, seat=seat, entropy=data, receipt=receipt
    )
    table.receipts = receipts_of(table)
    table.save(update_fields=["receipts"])
    return contribution


def contributions_of(table: Any) -> list[Contribution]:
    """In the order they are mixed into the game seed: by seat number."""
    return list(Contribution.objects.filter(table=table).order_by("seat"))


def seed_for(table: Any) -> bytes:
    """The game seed: the server seed mixed with every contribution, in seat order."""
    return game_seed(bytes(table.server_seed), [bytes(c.entropy) for c in contributions_of(table)])


def receipts_of(table: Any) -> list[dict[str, Any]]:
    """The receipts of the table's contributions, as its row shows them (by seat number)."""
    return [receipt_view(c) for c in contributions_of(table)]


def receipt_view(contribution: Contribution) -> dict[str, Any]:
    return {
        "seat": contribution.seat,
        "receipt": contribution.receipt,
        "at": contribution.created_at.isoformat(),
    }
