"""Sign and store the record of every ended table that has none yet, with the key in force."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from fairplay.key_list import KeyNotInForce
from fairplay.publishing import sign_record, unsigned_tables


class Command(BaseCommand):
    help = (
        "Sign the record of every ended table not signed yet (tables that ended before"
        " records were stored, or whose signing waits in the outbox), with the key in force."
        " Run it before a key is retired, so those records are signed by the old key."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        signed = 0
        try:
            for table_id in unsigned_tables():
                if sign_record(table_id) is not None:
                    signed += 1
        except KeyNotInForce as error:
            raise CommandError(f"{error.message} ({signed} records signed before)") from None
        self.stdout.write(f"{signed} records signed and stored")
