"""Make a new Ed25519 signing key: its private key into a file of its own, its id printed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from fairplay.private_keys import generate_private_key, private_key_to_pem
from fairplay.signing import key_id, public_key_bytes


class Command(BaseCommand):
    help = (
        "Write a new Ed25519 private key (PEM) into a new file readable by its owner only,"
        " and print its key id and public key. Nothing else changes: the key signs once"
        " FAIRDEAL_SIGNING_KEY_FILE names it and the processes restart (docs/deploy.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the file to write; it must not exist yet")

    def handle(self, *args: Any, path: str, **options: Any) -> None:
        private_key = generate_private_key()
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise CommandError(f"{path} exists already: a key file is never overwritten") from None
        except OSError as error:
            raise CommandError(f"cannot write {path}: {error.strerror or error}") from None
        with os.fdopen(descriptor, "wb") as file:
            file.write(private_key_to_pem(private_key))
        raw = public_key_bytes(private_key.public_key())
        self.stdout.write(
            f"key {key_id(raw)} written to {Path(path).resolve()} (mode 0600)\n"
            f"public key {raw.hex()}"
        )
