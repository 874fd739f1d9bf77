"""Ed25519 signature verification, RFC 8032 section 5.1.7, in pure Python. No Django here.

Only verification, and only of public data: the server signs with ``cryptography``
(:mod:`fairplay.signer`), while the stand-alone verifier checks with this module, so
that it runs wherever Python does, Pyodide in a browser included, where no compiled
extension such as ``cryptography`` is to be had. It is not constant-time, and needs
not be: a signature, a public key and a record hide nothing.

It is strict where RFC 8032 lets a verifier choose:

- a point (the public key ``A``, the signature's ``R``) is decoded as section 5.1.3
  says, refusing the non-canonical encodings: ``y`` at or above ``p``, and ``x = 0``
  with its sign bit set; and refusing 32 bytes that are no point of the curve
  (OpenSSL refuses such an ``R`` too, but takes such a public key);
- ``S`` at or above the group order ``L`` is refused (section 5.1.7, step 1), so no
  second signature can be made from a first one by adding ``L``;
- the equation checked is the cofactorless ``[S]B = R + [k]A'`` (section 5.1.7, step
  3 allows the cofactored one too; OpenSSL checks this one).

RFC 8032's first test vector (section 7.1, TEST 1: the empty message):

>>> key = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
>>> signature = bytes.fromhex(
...     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
...     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
... )
>>> verify(key, signature, b""), verify(key, signature, b"x")
(True, False)
"""

from __future__ import annotations

import hashlib
from functools import cache

# The field, the curve -x^2 + y^2 = 1 + d x^2 y^2, and the order of its base point's group
# (RFC 8032, section 5.1).
P = 2**255 - 19
D = -121665 * pow(121666, -1, P) % P
L = 2**252 + 27742317777372353535851937790883648493
SQRT_MINUS_ONE = pow(2, (P - 1) // 4, P)

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64

# A point in extended homogeneous coordinates (X, Y, Z, T): x = X/Z, y = Y/Z, x*y = T/Z
# (section 5.1.4).
Point = tuple[int, int, int, int]
NEUTRAL: Point = (0, 1, 1, 0)
_TWO_D = 2 * D % P


def _add(one: Point, other: Point) -> Point:
    """``one + other``: section 5.1.4's addition, complete (it needs no special cases)."""
    x1, y1, z1, t1 = one
    x2, y2, z2, t2 = other
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * _TWO_D * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _double(point: Point) -> Point:
    """``2 * point``: section 5.1.4's doubling."""
    x1, y1, z1, _ = point
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = a + b
    e = h - (x1 + y1) * (x1 + y1)
    g = a - b
    f = c + g
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _same(one: Point, other: Point) -> bool:
    """Whether two points are one: their affine coordinates agree."""
    x1, y1, z1, _ = one
    x2, y2, z2, _ = other
    return (x1 * z2 - x2 * z1) % P == 0 and (y1 * z2 - y2 * z1) % P == 0


def decode_point(data: bytes) -> Point | None:
    """The point 32 bytes encode (section 5.1.3), or None if they encode none canonically.

    The low 255 bits are ``y``, little-endian; the top bit is the sign (lowest bit) of
    ``x``, recovered from ``x^2 = (y^2 - 1) / (d y^2 + 1)``.
    """
    if len(data) != PUBLIC_KEY_BYTES:
        return None
    number = int.from_bytes(data, "little")
    sign = number >> 255
    y = number & ((1 << 255) - 1)
    if y >= P:  # step 1: a y at or past p is a second, non-canonical, spelling
        return None
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    # Step 2: the candidate root x = u v^3 (u v^7)^((p-5)/8), one inversion folded in.
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    # Step 3: x is a root of u/v, or of -(u/v) (then times sqrt(-1)), or there is none.
    square = v * x * x % P
    if square == u:
        pass
    elif square == (-u) % P:
        x = x * SQRT_MINUS_ONE % P
    else:
        return None
    # Step 4: the sign. x = 0 has no negative: its sign bit set is a non-canonical spelling.
    if x == 0 and sign == 1:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def _base_point() -> Point:
    """B: y = 4/5 and x positive (even), section 5.1."""
    y = 4 * pow(5, -1, P) % P
    point = decode_point(y.to_bytes(PUBLIC_KEY_BYTES, "little"))
    assert point is not None
    return point


BASE = _base_point()


@cache
def _base_table() -> tuple[tuple[Point, ...], ...]:
    """``[j * 16^i]B`` for every nibble position i (64) and nibble j (0 to 15), made once:
    then ``[S]B`` is one addition a nibble of S, and no doubling."""
    rows = []
    start = BASE
    for _ in range(64):
        row = [NEUTRAL, start]
        for _ in range(14):
            row.append(_add(row[-1], start))
        rows.append(tuple(row))
        start = _add(row[-1], start)  # 16 * start
    return tuple(rows)


def _times_base(scalar: int) -> Point:
    """``[scalar]B`` for 0 <= scalar < 2^256."""
    result = NEUTRAL
    for row in _base_table():
        nibble = scalar & 15
        if nibble:
            result = _add(result, row[nibble])
        scalar >>= 4
    return result


def _times(scalar: int, point: Point) -> Point:
    """``[scalar]point`` for 0 <= scalar < 2^256, a nibble at a time from the top."""
    multiples = [NEUTRAL, point]
    for _ in range(14):
        multiples.append(_add(multiples[-1], point))
    result = NEUTRAL
    for shift in range(252, -1, -4):
        for _ in range(4):
            result = _double(result)
        nibble = (scalar >> shift) & 15
        if nibble:
            result = _add(result, multiples[nibble])
    return result


def valid_public_key(public_key: bytes) -> bool:
    """Whether 32 bytes are the canonical encoding of a point of the curve."""
    return decode_point(public_key) is not None


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``message``
    (section 5.1.7, strictly: see the module's docstring)."""
    if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    encoded_r, encoded_s = signature[:32], signature[32:]
    a = decode_point(public_key)
    r = decode_point(encoded_r)
    s = int.from_bytes(encoded_s, "little")
    if a is None or r is None or s >= L:  # step 1
        return False
    # Step 2: k = SHA-512(R || A || M), a little-endian number, taken modulo L.
    digest = hashlib.sha512(encoded_r + public_key + message).digest()
    k = int.from_bytes(digest, "little") % L
    # Step 3, cofactorless: [S]B = R + [k]A.
    return _same(_times_base(s), _add(r, _times(k, a)))
