"""The server's Ed25519 private keys: made, and read and written as PEM. No Django here.

Only the server holds a private key, so only it needs ``cryptography``; the
stand-alone verifier never imports this module (:mod:`fairplay.signing` checks
with public keys alone, in pure Python). :func:`fairplay.signing.sign` signs a
record with a key from here.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def generate_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_from_pem(data: bytes) -> Ed25519PrivateKey:
    """An unencrypted PEM (PKCS#8) Ed25519 private key."""
    key = serialization.load_pem_private_key(data, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the signing key must be an Ed25519 private key")
    return key


def private_key_to_pem(private_key: Ed25519PrivateKey) -> bytes:
    return private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
