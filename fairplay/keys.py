"""The key that signs game records, from the settings."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from fairplay.private_keys import generate_private_key, private_key_from_pem, private_key_to_pem
from fairplay.signing import describe_public_key


def _development_key(path: Path) -> bytes:
    """Read the development key, creating it (readable by its owner only) on first use."""
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = private_key_to_pem(generate_private_key())
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_bytes()  # another process made it first
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
    return path.read_bytes()


def signing_key_problem(text: str, file: str) -> str | None:
    """What is wrong with the configured signing key (``FAIRDEAL_SIGNING_KEY`` PEM ``text``,
    else the PEM file named ``file``), in words; None if it is a readable Ed25519 private
    key. Production's settings refuse to start on a problem (``config/settings.py``)."""
    if text:
        pem, where = text.encode(), "FAIRDEAL_SIGNING_KEY"
    elif file:
        where = f"FAIRDEAL_SIGNING_KEY_FILE ({file})"
        try:
            pem = Path(file).read_bytes()
        except FileNotFoundError:
            return f"{where} names no file"
        except OSError as exc:
            return f"{where} cannot be read: {exc.strerror or exc}"
    else:
        return "FAIRDEAL_SIGNING_KEY or FAIRDEAL_SIGNING_KEY_FILE must give the record signing key"
    if not pem.strip():
        return f"{where} is empty: it must hold an Ed25519 private key (PEM)"
    try:
        private_key_from_pem(pem)
    except (ValueError, TypeError) as exc:
        reason = str(exc) or type(exc).__name__
        if reason.startswith("Unable to load PEM"):  # cryptography's words for any non-key
            reason = "it holds no PEM private key"
        return (
            f"{where} is not a readable Ed25519 private key (unencrypted PEM, PKCS#8: "
            f"openssl genpkey -algorithm ed25519): {reason}"
        )
    return None


@cache
def signing_key() -> Ed25519PrivateKey:
    if settings.FAIRDEAL_SIGNING_KEY:
        pem = settings.FAIRDEAL_SIGNING_KEY.encode()
    elif settings.FAIRDEAL_SIGNING_KEY_FILE:
        pem = Path(settings.FAIRDEAL_SIGNING_KEY_FILE).read_bytes()
    elif settings.PRODUCTION:
        raise ImproperlyConfigured("no record signing key is configured")
    else:
        pem = _development_key(Path(settings.FAIRDEAL_DEVELOPMENT_KEY_FILE))
    return private_key_from_pem(pem)


def public_key_document() -> dict[str, str]:
    """What GET /api/fairplay/key/ publishes."""
    return describe_public_key(signing_key().public_key())
