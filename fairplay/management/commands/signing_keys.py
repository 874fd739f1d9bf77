"""Print the key list as GET /api/fairplay/keys/ publishes it, and this process's key."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand

from fairplay.key_list import key_list_document
from fairplay.keys import signing_key
from fairplay.signing import key_id


class Command(BaseCommand):
    help = (
        "Print every key that ever signed and its period (the JSON GET /api/fairplay/keys/"
        " answers), then the id of the key this environment configures."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        document = key_list_document()
        self.stdout.write(json.dumps(document, indent=2))
        configured = key_id(signing_key().public_key())
        state = next(
            (
                "revoked"
                if key["revoked"]
                else "in force"
                if key["until"] is None
                else f"retired at {key['until']}"
                for key in document["keys"]
                if key["key_id"] == configured
            ),
            "not used yet: it takes over when it first signs",
        )
        self.stdout.write(f"configured here: key {configured} ({state})")
