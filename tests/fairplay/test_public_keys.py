"""Public keys read and written without ``cryptography`` (fairplay/signing.py), as it does.

The verifier takes ``--key`` as PEM, hex or the key document in pure Python, so
that it runs where ``cryptography`` cannot: an Ed25519 PEM public key is a fixed
12-byte SubjectPublicKeyInfo prefix and the 32 raw bytes. Each is checked
against ``cryptography``'s own reading and writing of the same key.
"""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st

from fairplay.private_keys import private_key_to_pem
from fairplay.signing import (
    ED25519_SPKI_PREFIX,
    CannotJudge,
    describe_public_key,
    key_id,
    public_key_from_pem,
    public_key_from_text,
    public_key_to_pem,
)

keys = st.binary(min_size=32, max_size=32).map(
    lambda seed: Ed25519PrivateKey.from_private_bytes(seed).public_key()
)


def pem_of(public_key: object) -> bytes:
    assert hasattr(public_key, "public_bytes")
    return public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@settings(max_examples=50, deadline=None)
@given(public_key=keys)
def test_a_pem_public_key_is_read_as_cryptography_reads_it(public_key: Ed25519PublicKey) -> None:
    pem = pem_of(public_key)
    assert public_key_from_pem(pem) == public_key.public_bytes_raw()
    loaded = serialization.load_pem_public_key(pem)
    assert isinstance(loaded, Ed25519PublicKey)
    assert public_key_from_pem(pem) == loaded.public_bytes_raw()
    # Within other text, with other line breaks, as a file a person saved may be.
    spaced = b"my key:\r\n" + pem.replace(b"\n", b"\r\n") + b"\r\n"
    assert public_key_from_text(spaced.decode()) == public_key.public_bytes_raw()


@settings(max_examples=50, deadline=None)
@given(public_key=keys)
def test_a_pem_public_key_is_written_as_cryptography_writes_it(
    public_key: Ed25519PublicKey,
) -> None:
    raw = public_key.public_bytes_raw()
    assert public_key_to_pem(raw).encode() == pem_of(public_key)
    published = describe_public_key(raw)
    assert published == describe_public_key(public_key)
    assert published["pem"].encode() == pem_of(public_key)
    assert published["key_id"] == key_id(public_key)


def test_the_spki_prefix_is_what_cryptography_puts_before_the_raw_key() -> None:
    public_key = Ed25519PrivateKey.generate().public_key()
    der = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert der == ED25519_SPKI_PREFIX + public_key.public_bytes_raw()


@pytest.mark.parametrize(
    "other",
    [
        rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key(),
        ec.generate_private_key(ec.SECP256R1()).public_key(),
        ed448.Ed448PrivateKey.generate().public_key(),
    ],
    ids=["rsa", "p-256", "ed448"],
)
def test_a_pem_public_key_of_another_algorithm_is_refused_as_not_ed25519(other: object) -> None:
    with pytest.raises(CannotJudge) as raised:
        public_key_from_pem(pem_of(other))
    assert raised.value.message == "that PEM holds a public key, but not an Ed25519 one"


@pytest.mark.parametrize(
    "text, words",
    [
        ("-----BEGIN PUBLIC KEY-----\n", "it has no BEGIN and END lines"),
        ("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n", "its body is not base64"),
        (
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            "its body is no SubjectPublicKeyInfo",
        ),
        (
            private_key_to_pem(Ed25519PrivateKey.from_private_bytes(bytes(32))).decode(),
            "it holds a PRIVATE KEY",
        ),
    ],
    ids=["no-end", "not-base64", "not-spki", "private"],
)
def test_what_is_not_a_pem_public_key_cannot_be_judged_against(text: str, words: str) -> None:
    with pytest.raises(CannotJudge) as raised:
        public_key_from_pem(text.encode())
    assert raised.value.message == f"that PEM is not a public key: {words}"


def test_a_pem_key_whose_32_bytes_are_no_point_is_refused() -> None:
    pem = public_key_to_pem((2).to_bytes(32, "little"))  # y = 2: no x
    with pytest.raises(CannotJudge, match="not a point of the curve"):
        public_key_from_pem(pem.encode())
