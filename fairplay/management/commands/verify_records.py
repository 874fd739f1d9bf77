"""Verify every stored signed record as a player would: signature, key list, seeds, replay."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from fairplay import keyring
from fairplay.key_list import key_list_document
from fairplay.models import SignedRecord
from fairplay.verify import VerificationError, verify


class Command(BaseCommand):
    help = (
        "Check each stored signed record with the verifier, against the key list this site"
        " publishes (GET /api/fairplay/keys/): its signature by a key in its period, its seeds"
        " and receipts, its replay and its result. After a restore, beside check_replays."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_ids", nargs="*", type=int, help="only these tables' records")

    def handle(self, *args: Any, table_ids: list[int], **options: Any) -> None:
        keys = keyring.parse_key_list(key_list_document())
        records = SignedRecord.objects.order_by("table_id")
        if table_ids:
            records = records.filter(table_id__in=table_ids)
        checked, failed = 0, 0
        for stored in records.iterator(chunk_size=200):
            checked += 1
            try:
                verify(json.loads(stored.envelope), keys=keys)
            except VerificationError as error:
                failed += 1
                self.stderr.write(f"table {stored.table_id}: {error}")
        self.stdout.write(f"{checked} records verified, {failed} failed")
        if failed:
            raise CommandError(f"{failed} of {checked} records do not verify")
