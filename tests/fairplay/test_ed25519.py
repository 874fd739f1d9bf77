"""The pure-Python Ed25519 check (fairplay/ed25519.py) against RFC 8032 and against OpenSSL.

RFC 8032's own test vectors (section 7.1), then properties over random keys and
messages with ``cryptography`` (OpenSSL) as the oracle: every genuine signature
is accepted, every bit flipped anywhere is refused, and so are the second
spellings RFC 8032 forbids (S + L, a point's y + p, x = 0 with its sign bit set).
"""

from __future__ import annotations

import hashlib

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st

from fairplay import ed25519
from fairplay.signing import ed25519_valid

# RFC 8032, section 7.1: TEST 1, TEST 2, TEST 3 and TEST SHA(abc) (secret key, public
# key, message, signature).
RFC_8032 = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
    (
        "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        hashlib.sha512(b"abc").hexdigest(),
        "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
        "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
    ),
]

P, L = ed25519.P, ed25519.L
NEUTRAL = (1).to_bytes(32, "little")  # the neutral point, x = 0 and y = 1, canonically


def raw(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def openssl_accepts(public_key: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def flip(data: bytes, bit: int) -> bytes:
    changed = bytearray(data)
    changed[bit // 8] ^= 1 << (bit % 8)
    return bytes(changed)


@pytest.mark.parametrize("secret, public, message, signature", RFC_8032, ids=lambda v: v[:8])
def test_the_rfc_8032_vectors_verify(
    secret: str, public: str, message: str, signature: str
) -> None:
    key, value, text = bytes.fromhex(public), bytes.fromhex(signature), bytes.fromhex(message)
    # The vector is the RFC's: OpenSSL makes the same key and the same (deterministic) signature.
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(secret))
    assert raw(private.public_key()) == key
    assert private.sign(text) == value
    assert ed25519.verify(key, value, text)
    assert ed25519_valid(key, value, text)
    assert not ed25519_valid(key, value, text + b"\x00")
    assert not ed25519_valid(key, flip(value, 0), text)


def test_the_base_point_is_the_rfc_s_and_of_order_l() -> None:
    x, y, z, _ = ed25519.BASE
    assert z == 1 and y == 4 * pow(5, -1, P) % P and x % 2 == 0
    assert x == 15112221349535400772501151409588531511454012693041857206046113283949847762202
    assert ed25519._same(ed25519._times(L, ed25519.BASE), ed25519.NEUTRAL)
    assert not ed25519._same(ed25519._times(L - 1, ed25519.BASE), ed25519.NEUTRAL)
    assert ed25519._same(ed25519._times_base(12345), ed25519._times(12345, ed25519.BASE))


keys = st.binary(min_size=32, max_size=32).map(Ed25519PrivateKey.from_private_bytes)
messages = st.binary(max_size=300)


@settings(max_examples=60, deadline=None)
@given(private=keys, message=messages)
def test_every_genuine_signature_is_accepted_as_openssl_accepts_it(
    private: Ed25519PrivateKey, message: bytes
) -> None:
    key, signature = raw(private.public_key()), private.sign(message)
    assert ed25519_valid(key, signature, message)
    assert openssl_accepts(key, signature, message)


@settings(max_examples=60, deadline=None)
@given(private=keys, message=messages, data=st.data())
def test_a_bit_flipped_anywhere_is_refused_as_openssl_refuses_it(
    private: Ed25519PrivateKey, message: bytes, data: st.DataObject
) -> None:
    key, signature = raw(private.public_key()), private.sign(message)
    where = data.draw(st.sampled_from(["key", "signature", "message"]))
    if where == "key":
        key = flip(key, data.draw(st.integers(0, 255)))
    elif where == "signature":
        signature = flip(signature, data.draw(st.integers(0, 511)))
    else:
        message = flip(message + b"\x00", data.draw(st.integers(0, 8 * len(message) + 7)))
    assert not ed25519_valid(key, signature, message)
    assert not openssl_accepts(key, signature, message)


@settings(max_examples=40, deadline=None)
@given(private=keys, message=messages)
def test_s_plus_l_is_refused_as_openssl_refuses_it(
    private: Ed25519PrivateKey, message: bytes
) -> None:
    key, signature = raw(private.public_key()), private.sign(message)
    s = int.from_bytes(signature[32:], "little")
    malleated = signature[:32] + (s + L).to_bytes(32, "little")
    # The same equation holds ([S + L]B = [S]B): only the range check refuses it.
    assert not ed25519_valid(key, malleated, message)
    assert not openssl_accepts(key, malleated, message)


def non_canonical_neutrals() -> list[bytes]:
    """The neutral point's second spellings: y = p + 1, and x = 0 with its sign bit set."""
    return [(P + 1).to_bytes(32, "little"), (1 | 1 << 255).to_bytes(32, "little")]


@settings(max_examples=30, deadline=None)
@given(r=st.integers(1, L - 1), message=messages)
def test_a_non_canonical_public_key_is_refused(r: int, message: bytes) -> None:
    # With the neutral point as the key, R = [r]B and S = r satisfy the equation for any
    # message: it holds for the canonical spelling, and only the decoding refuses the others.
    encoded_r = _encode(ed25519._times_base(r))
    signature = encoded_r + r.to_bytes(32, "little")
    assert ed25519_valid(NEUTRAL, signature, message)
    assert openssl_accepts(NEUTRAL, signature, message)
    # Here we are stricter than OpenSSL, which takes these spellings of the key (RFC 8032's
    # decoding, section 5.1.3, refuses them).
    for spelling in non_canonical_neutrals():
        assert not ed25519.valid_public_key(spelling)
        assert not ed25519_valid(spelling, signature, message)


@settings(max_examples=30, deadline=None)
@given(message=messages)
def test_a_non_canonical_r_is_refused_as_openssl_refuses_it(message: bytes) -> None:
    # Key and R the neutral point, S = 0: [0]B = O + [k]O holds, whatever the message.
    assert ed25519_valid(NEUTRAL, NEUTRAL + bytes(32), message)
    for spelling in non_canonical_neutrals():
        assert not ed25519_valid(NEUTRAL, spelling + bytes(32), message)
        assert not openssl_accepts(NEUTRAL, spelling + bytes(32), message)


def test_bytes_that_are_no_point_are_refused() -> None:
    # y = 2: (y^2 - 1) / (d y^2 + 1) has no square root modulo p.
    off_the_curve = (2).to_bytes(32, "little")
    assert ed25519.decode_point(off_the_curve) is None
    assert not ed25519.valid_public_key(off_the_curve)
    key, message, signature = (bytes.fromhex(v) for v in RFC_8032[1][1:])
    assert not ed25519_valid(off_the_curve, signature, message)
    assert not ed25519_valid(key[:31], signature, message)
    assert not ed25519_valid(key, signature[:63], message)


def _encode(point: ed25519.Point) -> bytes:
    """A point's canonical encoding (section 5.1.2), for the tests' own signatures."""
    x, y, z, _ = point
    inverse = pow(z, -1, P)
    x, y = x * inverse % P, y * inverse % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def test_encoding_a_decoded_point_gives_its_bytes_back() -> None:
    for _, public, _, _ in RFC_8032:
        point = ed25519.decode_point(bytes.fromhex(public))
        assert point is not None and _encode(point).hex() == public
