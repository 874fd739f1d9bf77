"""The commitment log: an append-only Merkle tree (RFC 9162) with signed checkpoints. No Django.

Every table goes into a public log when it is created (its commitment), when
its cards are dealt, and when it ends, however it ends; staff voiding a table
adds an entry too. Nobody can then take a table back: a deal the server did
over would leave a created table with no end, or an end nobody can prove.
``docs/fairplay.md`` section 17 specifies it all, with vectors.

- **Entries** are canonical JSON (RFC 8785, :func:`fairplay.signing.canonical`)
  of :func:`entry`; a leaf's hash is ``SHA-256(0x00 || entry)``.
- **The tree** is RFC 9162 section 2.1's: an interior node is
  ``SHA-256(0x01 || left || right)``; the tree of n leaves splits at the
  largest power of two below n.
- **Proofs**: inclusion (RFC 9162 2.1.3) and consistency (2.1.4), made from the
  hashes of complete subtrees (:func:`inclusion_ranges`,
  :func:`consistency_ranges`, :func:`range_nodes`, :func:`range_hash`), so a
  server that stores those answers a proof with O(log n) of them, and checked
  exactly as RFC 9162 2.1.3.2 and 2.1.4.2 say (:func:`verify_inclusion`,
  :func:`verify_consistency`).
- **Checkpoints** are C2SP ``tlog-checkpoint`` bodies (origin, size, base64
  root) in a C2SP ``signed-note`` with Ed25519 signature lines
  (:func:`sign_checkpoint`, :func:`open_checkpoint`).

This module ships in the stand-alone verifier: standard library and
:mod:`fairplay.signing` only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairplay import signing
from fairplay.signing import VerificationError, canonical

HASH_BYTES = 32
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
# The kinds of entry, in the order a table's entries come.
CREATED, DEALT, FINISHED, ABANDONED, CANCELLED, VOIDED = (
    "created",
    "dealt",
    "finished",
    "abandoned",
    "cancelled",
    "voided",
)
KINDS = (CREATED, DEALT, FINISHED, ABANDONED, CANCELLED, VOIDED)
ENDINGS = (FINISHED, ABANDONED, CANCELLED)
# C2SP signed-note: an Ed25519 signature's type byte, and a signature line's start.
ED25519_TYPE = b"\x01"
SIGNATURE_PREFIX = "\u2014 "
_SIZE = re.compile(r"0|[1-9][0-9]{0,18}")
_KEY_NAME = re.compile(r"[^\s+]+")


# -- entries --------------------------------------------------------------------


def entry(
    *,
    kind: str,
    table: int,
    game: str,
    ruleset_version: str,
    commitment: str,
    at: str,
    **more: Any,
) -> dict[str, Any]:
    """One entry of the log, as a JSON object (section 17.1 lists each kind's fields).

    >>> entry(kind="created", table=7, game="dos", ruleset_version="dos/2",
    ...       commitment="00" * 32, at="2025-03-01T12:00:00.000000Z")["kind"]
    'created'
    """
    if kind not in KINDS:
        raise ValueError(f"unknown log entry kind {kind!r}")
    return {
        "kind": kind,
        "table": table,
        "game": game,
        "ruleset_version": ruleset_version,
        "commitment": commitment,
        "at": at,
        **more,
    }


def entry_bytes(value: Mapping[str, Any]) -> bytes:
    """The bytes a leaf hashes: RFC 8785 canonical JSON of the entry."""
    return canonical(dict(value))


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162 2.1.1: SHA-256(0x00 || data)."""
    return hashlib.sha256(LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 2.1.1: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1): where RFC 9162 splits a tree.

    >>> [split(n) for n in (2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 4, 4, 8]
    """
    return 1 << ((n - 1).bit_length() - 1)


def root_of(leaves: Sequence[bytes]) -> bytes:
    """MTH of the leaf hashes, straight from the definition (the reference the tests use)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node_hash(root_of(leaves[:k]), root_of(leaves[k:]))


# -- complete subtrees: what a server stores -------------------------------------

Node = tuple[int, int]  # (level, index): leaves [index * 2**level, (index + 1) * 2**level)


def append(
    size: int, frontier: Sequence[bytes], leaves: Iterable[bytes]
) -> tuple[list[tuple[int, int, bytes]], list[bytes]]:
    """Append leaf hashes to a tree of ``size`` leaves whose right edge is ``frontier``.

    ``frontier`` is the hashes of the tree's largest complete subtrees, left to
    right (one for each bit set in ``size``, the largest first). Returns every
    complete subtree the new leaves complete, ``(level, index, hash)``, leaves
    included (level 0), and the new frontier.
    """
    edge = list(frontier)
    if len(edge) != bin(size).count("1"):
        raise ValueError(f"a tree of {size} leaves has {bin(size).count('1')} edge hashes")
    made: list[tuple[int, int, bytes]] = []
    for value in leaves:
        level, index, current = 0, size, value
        made.append((0, index, current))
        while index & 1:
            current = node_hash(edge.pop(), current)
            level, index = level + 1, index >> 1
            made.append((level, index, current))
        edge.append(current)
        size += 1
    return made, edge


def frontier_root(frontier: Sequence[bytes]) -> bytes:
    """The root of a tree from its right edge (:func:`append`)."""
    if not frontier:
        return hashlib.sha256(b"").digest()
    current = frontier[-1]
    for left in reversed(frontier[:-1]):
        current = node_hash(left, current)
    return current


def range_nodes(start: int, end: int) -> list[Node]:
    """The complete subtrees, left to right, that leaves ``[start, end)`` are made of.

    Every range a proof needs starts at a multiple of its own largest part, so it
    is the complete subtrees of the bits of ``end - start``, largest first.

    >>> range_nodes(0, 7)
    [(2, 0), (1, 2), (0, 6)]
    """
    nodes: list[Node] = []
    while start < end:
        size = end - start
        level = size.bit_length() - 1
        if start % (1 << level):
            raise ValueError(f"[{start}, {end}) is not made of aligned complete subtrees")
        nodes.append((level, start >> level))
        start += 1 << level
    return nodes


def range_hash(start: int, end: int, nodes: Mapping[Node, bytes]) -> bytes:
    """MTH of leaves ``[start, end)`` from the stored hashes of its complete subtrees."""
    parts = [nodes[node] for node in range_nodes(start, end)]
    current = parts[-1]
    for left in reversed(parts[:-1]):
        current = node_hash(left, current)
    return current


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """RFC 9162 2.1.3.1 PATH(index, D[0:size]): the leaf ranges whose MTHs make the proof."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    ranges: list[tuple[int, int]] = []
    start, end = 0, size
    while end - start > 1:
        k = split(end - start)
        if index < start + k:
            ranges.append((start + k, end))
            end = start + k
        else:
            ranges.append((start, start + k))
            start += k
    ranges.reverse()  # PATH lists the sibling nearest the leaf first
    return ranges


def consistency_ranges(old: int, new: int) -> list[tuple[int, int]]:
    """RFC 9162 2.1.4.1 PROOF(old, D[0:new]) for 0 < old < new: the ranges of its MTHs."""
    if not 0 < old < new:
        raise ValueError(f"a consistency proof is between 0 < old < new, not {old} and {new}")
    ranges: list[tuple[int, int]] = []
    start, end, m, whole = 0, new, old, True
    while True:
        n = end - start
        if m == n:
            if not whole:
                ranges.append((start, end))
            break
        k = split(n)
        if m <= k:
            ranges.append((start + k, end))
            end = start + k
        else:
            ranges.append((start, start + k))
            start, m, whole = start + k, m - k, False
    ranges.reverse()
    return ranges


def proof_nodes(ranges: Iterable[tuple[int, int]]) -> set[Node]:
    """Every stored subtree the ranges of a proof are made of: what a server reads."""
    return {node for start, end in ranges for node in range_nodes(start, end)}


def proof_from(ranges: Sequence[tuple[int, int]], nodes: Mapping[Node, bytes]) -> list[bytes]:
    return [range_hash(start, end, nodes) for start, end in ranges]


# -- checking proofs, as RFC 9162 says ------------------------------------------


class ProofError(VerificationError):
    """A proof that does not hold, in words."""


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> None:
    """RFC 9162 2.1.3.2: ``leaf`` is leaf ``index`` of the tree of ``size`` whose root is ``root``."""
    if not 0 <= index < size:
        raise ProofError(f"entry {index} cannot be in a log of {size} entries")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ProofError(f"the inclusion proof of entry {index} is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"the inclusion proof of entry {index} is too short")
    if r != root:
        raise ProofError(
            f"entry {index} is not in the log of {size} entries: its inclusion proof "
            "leads to another root"
        )


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> None:
    """RFC 9162 2.1.4.2: the tree of ``new`` leaves extends the tree of ``old`` leaves.

    Sizes equal: the roots must be equal (and the proof empty); an old size of 0
    is consistent with anything (empty proof); a new size below the old fails.
    """
    if new < old:
        raise ProofError(f"the log shrank, from {old} entries to {new}")
    if old == new or old == 0:
        if proof:
            raise ProofError(f"a consistency proof from {old} to {new} entries is empty")
        if old == new and old_root != new_root:
            raise ProofError(f"two different logs of {old} entries: the log was rewritten")
        return
    if not proof:
        raise ProofError(f"the consistency proof from {old} to {new} entries is empty")
    path = list(proof)
    if old & (old - 1) == 0:  # an exact power of two: the old root is the first node
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError(f"the consistency proof from {old} to {new} entries is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"the consistency proof from {old} to {new} entries is too short")
    if fr != old_root:
        raise ProofError(
            f"the log of {new} entries does not begin with the log of {old}: the log was rewritten"
        )
    if sr != new_root:
        raise ProofError(f"the consistency proof does not lead to the root of {new} entries")


# -- checkpoints: C2SP tlog-checkpoint in a C2SP signed note ----------------------


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    # C2SP tlog-checkpoint's optional extension lines after the root, each non-empty:
    # signed with the rest, kept as read (this server writes none).
    extensions: tuple[str, ...] = ()

    def body(self) -> str:
        """The note's text, its trailing newline included: what is signed."""
        root = base64.b64encode(self.root).decode("ascii")
        return "".join(
            f"{line}\n" for line in (self.origin, str(self.size), root, *self.extensions)
        )


def key_hash(name: str, public_key: bytes) -> bytes:
    """C2SP signed-note's key id of an Ed25519 key: SHA-256(name || 0x0A || 0x01 || key)[:4]."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + ED25519_TYPE + public_key).digest()[:4]


def sign_checkpoint(
    checkpoint: Checkpoint, sign: Callable[[bytes], bytes], public_key: bytes
) -> str:
    """The signed note: the checkpoint's body, a blank line, one signature line whose key
    name is the origin. ``sign`` makes an Ed25519 signature with the key of ``public_key``."""
    if not _KEY_NAME.fullmatch(checkpoint.origin):
        raise ValueError("a log's origin is its key's name: no spaces and no +")
    body = checkpoint.body()
    value = key_hash(checkpoint.origin, public_key) + sign(body.encode("utf-8"))
    return (
        f"{body}\n{SIGNATURE_PREFIX}{checkpoint.origin} {base64.b64encode(value).decode('ascii')}\n"
    )


def parse_checkpoint(note: str) -> tuple[Checkpoint, list[tuple[str, bytes]]]:
    """A signed note's checkpoint and its signature lines ``(key name, key hash || sig)``,
    read strictly; raises :class:`~fairplay.signing.CannotJudge` on what is not one."""
    if not isinstance(note, str) or not note.endswith("\n") or "\r" in note:
        raise signing.CannotJudge("a checkpoint is text whose lines end with a newline alone")
    body, blank, signatures = note.rpartition("\n\n")
    if not blank or not body:
        raise signing.CannotJudge("a checkpoint is a note: text, a blank line, signature lines")
    lines = body.split("\n")
    if len(lines) < 3:
        raise signing.CannotJudge("a checkpoint's text has an origin, a size and a root hash")
    origin, size, root = lines[:3]
    extensions = tuple(lines[3:])
    if not all(extensions):
        raise signing.CannotJudge("a checkpoint's extension lines, after its root, are not empty")
    if not origin:
        raise signing.CannotJudge("a checkpoint's first line, its origin, is empty")
    if not _SIZE.fullmatch(size):
        raise signing.CannotJudge(f"a checkpoint's second line is its size, not {size[:30]!r}")
    try:
        raw_root = base64.b64decode(root, validate=True)
    except (binascii.Error, ValueError):
        raw_root = b""
    if len(raw_root) != HASH_BYTES or base64.b64encode(raw_root).decode("ascii") != root:
        raise signing.CannotJudge("a checkpoint's third line is a 32-byte hash in base64")
    found: list[tuple[str, bytes]] = []
    for line in signatures[:-1].split("\n"):
        if not line.startswith(SIGNATURE_PREFIX):
            raise signing.CannotJudge(
                "each line after the blank line is a signature: '\u2014 name sig'"
            )
        name, _, value = line[len(SIGNATURE_PREFIX) :].partition(" ")
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if not _KEY_NAME.fullmatch(name) or len(raw) < 5:
            raise signing.CannotJudge(
                f"a checkpoint's signature line cannot be read: {line[:60]!r}"
            )
        found.append((name, raw))
    return Checkpoint(origin, int(size), raw_root, extensions), found


class NotSignedBy(VerificationError):
    """A checkpoint with no signature line of the key (or of any of the keys) asked for;
    ``what`` names the checkpoint ("the checkpoint", "the old checkpoint", ...)."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what


def open_checkpoint(note: str, public_key: bytes, *, origin: str | None = None) -> Checkpoint:
    """The checkpoint of a signed note, if the Ed25519 key ``public_key`` signed it (under
    the origin's name, or ``origin`` when given); else :class:`~fairplay.signing.VerificationError`
    (:class:`NotSignedBy` when the note has no signature line of that key).
    """
    return open_checkpoint_by(note, [public_key], origin=origin)[0]


def open_checkpoint_by(
    note: str,
    public_keys: Sequence[bytes],
    *,
    origin: str | None = None,
    what: str = "the checkpoint",
) -> tuple[Checkpoint, bytes]:
    """The checkpoint of a signed note and the key of ``public_keys`` that signed it: the
    first of them with a signature line in the note (its name and key hash) that holds.
    ``what`` names the note in the words of a refusal.

    :class:`NotSignedBy` when none of them has a line (another key signed it: a key list
    older than the note, or another server's); :class:`~fairplay.signing.VerificationError`
    when a line of theirs does not hold; :class:`~fairplay.signing.CannotJudge` when the
    note is not a checkpoint.
    """
    checkpoint, found = parse_checkpoint(note)
    name = checkpoint.origin if origin is None else origin
    if checkpoint.origin != name:
        raise VerificationError(f"{what} is of the log {checkpoint.origin}, not {name}")
    message = checkpoint.body().encode("utf-8")
    problem = None
    for public_key in public_keys:
        hint = key_hash(name, public_key)
        ours = [raw for signer, raw in found if signer == name and raw[:4] == hint]
        if not ours:
            continue
        if ed25519_valid(public_key, ours[0][4:], message):
            return checkpoint, public_key
        problem = problem or VerificationError(
            f"{what}'s signature by key {signing.key_id(public_key)} does not hold: "
            "its text was changed after it was signed"
        )
    if problem is not None:
        raise problem
    if not public_keys:
        raise NotSignedBy(f"there is no key to check {what} with", what)
    if len(public_keys) == 1:
        (public_key,) = public_keys
        raise NotSignedBy(
            f"{what} is not signed by key {signing.key_id(public_key)} "
            f"(no signature line of {name} with its key hash {key_hash(name, public_key).hex()})",
            what,
        )
    ids = ", ".join(signing.key_id(public_key) for public_key in public_keys)
    raise NotSignedBy(
        f"{what} is signed by none of the keys {ids} (no signature line of {name} "
        "with one of their key hashes)",
        what,
    )


def ed25519_valid(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Ed25519 (RFC 8032): :func:`fairplay.signing.ed25519_valid`, pure Python."""
    return signing.ed25519_valid(public_key, signature, message)


# -- a tree in memory (the bench, the tests, the vectors) -------------------------


class MemoryTree:
    """A log held in memory as the server holds it: every complete subtree's hash."""

    def __init__(self) -> None:
        self.size = 0
        self.frontier: list[bytes] = []
        self.nodes: dict[Node, bytes] = {}

    def extend(self, leaves: Iterable[bytes]) -> None:
        made, self.frontier = append(self.size, self.frontier, leaves)
        for level, index, value in made:
            self.nodes[(level, index)] = value
        self.size += sum(1 for level, _, _ in made if level == 0)

    def root(self, size: int | None = None) -> bytes:
        size = self.size if size is None else size
        if size == self.size:
            return frontier_root(self.frontier)
        return range_hash(0, size, self.nodes) if size else frontier_root([])

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        return proof_from(inclusion_ranges(index, self.size if size is None else size), self.nodes)

    def consistency(self, old: int, new: int | None = None) -> list[bytes]:
        return proof_from(consistency_ranges(old, self.size if new is None else new), self.nodes)


# -- a record's transparency section -------------------------------------------------

SECTION_FIELDS = ("checkpoint", "entries", "public_key")
ITEM_FIELDS = ("entry", "index", "proof")
ENTRY_FIELDS = ("at", "commitment", "game", "kind", "ruleset_version", "table")
MORE_FIELDS = {
    CREATED: (),
    DEALT: ("receipts",),
    FINISHED: ("result",),
    ABANDONED: ("result",),
    CANCELLED: ("reason",),
    VOIDED: (),
}


@dataclass(frozen=True)
class InLog:
    """What a record's transparency section proved: where its table's entries are."""

    origin: str
    size: int
    indexes: tuple[int, ...]
    voided: bool
    key_id: str

    def words(self) -> str:
        where = ", ".join(str(index) for index in self.indexes)
        voided = "; voided by staff" if self.voided else ""
        return (
            f"in the commitment log {self.origin} (entries {where} of {self.size}{voided};"
            f" checkpoint signed by key {self.key_id})"
        )


def _hash_list(value: Any, where: str) -> list[bytes]:
    if not isinstance(value, list) or not all(
        isinstance(item, str) and re.fullmatch(r"[0-9a-f]{64}", item) for item in value
    ):
        raise VerificationError(f"{where} must be a list of 64 lowercase hex characters each")
    return [bytes.fromhex(item) for item in value]


def check_section(section: Any, record: Mapping[str, Any], keys: Sequence[bytes] | None) -> InLog:
    """A record's transparency section holds: its checkpoint is signed by one of ``keys``
    (None: by the section's own ``public_key``, which proves it intact, not whose it is),
    its table's entries agree with the record (created, dealt, and its end; voided ones may
    follow), and each is proved in the checkpoint's tree (``docs/fairplay.md`` 17.5)."""
    if not isinstance(section, dict) or sorted(section) != sorted(SECTION_FIELDS):
        raise VerificationError(
            "the transparency section must have exactly the fields checkpoint, entries and "
            "public_key"
        )
    if not isinstance(section["checkpoint"], str):
        raise VerificationError("the transparency section's checkpoint must be a string")
    own = section["public_key"]
    if not isinstance(own, str) or not re.fullmatch(r"[0-9a-f]{64}", own):
        raise VerificationError(
            "the transparency section's public_key must be 64 lowercase hex characters"
        )
    if keys is None:
        keys = [bytes.fromhex(own)]
    try:
        checkpoint, key = open_checkpoint_by(
            section["checkpoint"], keys, what="the commitment log's checkpoint"
        )
    except signing.CannotJudge as exc:
        raise VerificationError(f"the log's checkpoint cannot be read: {exc.message}") from None
    signer = signing.key_id(key)
    items = section["entries"]
    if not isinstance(items, list):
        raise VerificationError("the transparency section's entries must be a list")
    table = record.get("table")
    seen: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for position, item in enumerate(items):
        where = f"log entry {position} of the transparency section"
        if not isinstance(item, dict) or sorted(item) != list(ITEM_FIELDS):
            raise VerificationError(f"{where} must have exactly the fields entry, index, proof")
        index, value = item["index"], item["entry"]
        if not isinstance(index, int) or isinstance(index, bool):
            raise VerificationError(f"{where}'s index must be a whole number")
        if not isinstance(value, dict) or value.get("kind") not in KINDS:
            raise VerificationError(f"{where} is not an entry of a kind the log has")
        kind = value["kind"]
        fields = sorted((*ENTRY_FIELDS, *MORE_FIELDS[kind]))
        if sorted(value) != fields:
            raise VerificationError(
                f"{where} ({kind}) must have exactly the fields {', '.join(fields)}"
            )
        if value["table"] != table:
            raise VerificationError(f"{where} is of table {value['table']!r}, not of table {table}")
        for name in ("game", "ruleset_version", "commitment"):
            if value[name] != record.get(name):
                raise VerificationError(
                    f"the log's {kind} entry says {name} {value[name]!r}; the record says "
                    f"{record.get(name)!r}"
                )
        proof = _hash_list(item["proof"], f"{where}'s proof")
        try:
            verify_inclusion(
                leaf_hash(entry_bytes(value)), index, checkpoint.size, proof, checkpoint.root
            )
        except ProofError as exc:
            raise VerificationError(
                f"the log's {kind} entry of table {table}: {exc.message}"
            ) from None
        seen.setdefault(kind, []).append((index, value))
    for kind in (CREATED, DEALT):
        if len(seen.get(kind, [])) != 1:
            raise VerificationError(
                f"the record's table {table} has {len(seen.get(kind, []))} {kind} entries in the "
                f"commitment log; a dealt table has one: it was dropped from the log, or is not "
                "this record's"
            )
    ends = [(index, kind, value) for kind in ENDINGS for index, value in seen.get(kind, [])]
    if len(ends) != 1 or ends[0][1] == CANCELLED:
        raise VerificationError(
            f"the record's table {table} has no end in the commitment log: a finished game's "
            "table has one finished or abandoned entry"
        )
    end_index, end_kind, end = ends[0]
    result = record.get("result")
    reason = result.get("reason") if isinstance(result, dict) else None
    if end_kind != (FINISHED if reason == "finished" else ABANDONED) or end["result"] != result:
        raise VerificationError(
            f"the log says table {table} ended {end_kind} with {end['result']!r}; the record's "
            f"result is {result!r}"
        )
    created_index = seen[CREATED][0][0]
    dealt_index, dealt = seen[DEALT][0]
    contributions = record.get("contributions")
    receipts = (
        [c.get("receipt") for c in contributions if isinstance(c, dict)]
        if isinstance(contributions, list)
        else None
    )
    if dealt["receipts"] != receipts:
        raise VerificationError(
            f"the log says table {table} was dealt with the contributions {dealt['receipts']!r}; "
            f"the record's are {receipts!r}"
        )
    if not created_index < dealt_index < end_index:
        raise VerificationError(
            f"the log has table {table}'s entries out of order: created at {created_index}, "
            f"dealt at {dealt_index}, ended at {end_index}"
        )
    indexes = tuple(sorted(index for each in seen.values() for index, _ in each))
    return InLog(checkpoint.origin, checkpoint.size, indexes, VOIDED in seen, signer)


# -- the log only grew (python -m fairplay.verify log OLD NEW) -----------------------


def read_text(path: str, what: str) -> str:
    """A file's text, or :class:`CannotJudge` in words."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise signing.CannotJudge(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise signing.CannotJudge(f"{what} {path} is not UTF-8 text") from None


def check_growth(
    old_note: str,
    new_note: str,
    proof_document: Any,
    keys: Sequence[bytes],
    *,
    vouch: Callable[[bytes, str], None] | None = None,
    how: str = "pinned",
) -> str:
    """The log of ``new_note`` extends that of ``old_note``: each signed by one of ``keys``
    (:func:`open_checkpoint_by`; ``vouch(key, which)`` may refuse the key that signed one),
    of one origin, and the consistency proof (``GET /api/fairplay/log/consistency/``'s
    answer) between their sizes holds. ``how`` says how the keys were chosen, for the OK
    line, which it returns."""
    old, old_key = open_checkpoint_by(old_note, keys, what="the old checkpoint")
    new, new_key = open_checkpoint_by(new_note, keys, origin=old.origin, what="the new checkpoint")
    if vouch is not None:
        vouch(old_key, "the old checkpoint")
        vouch(new_key, "the new checkpoint")
    if new.size <= old.size or old.size == 0:  # the same log, or one that shrank: no proof
        proof: list[bytes] = []
    else:
        if not isinstance(proof_document, dict) or sorted(proof_document) != [
            "new",
            "old",
            "proof",
        ]:
            raise signing.CannotJudge(
                "the consistency proof is the JSON GET /api/fairplay/log/consistency/ answers: "
                "old, new and proof"
            )
        if (proof_document["old"], proof_document["new"]) != (old.size, new.size):
            raise signing.CannotJudge(
                f"the consistency proof is from {proof_document['old']!r} to "
                f"{proof_document['new']!r} entries; the checkpoints are of {old.size} and {new.size}"
            )
        proof = _hash_list(proof_document["proof"], "the consistency proof")
    verify_consistency(old.size, new.size, old.root, new.root, proof)
    grew = "is the same as" if old.size == new.size else "extends"
    signed = (
        f"both checkpoints signed by key {signing.key_id(old_key)}"
        if old_key == new_key
        else f"the old checkpoint signed by key {signing.key_id(old_key)}, the new by key "
        f"{signing.key_id(new_key)}"
    )
    return (
        f"OK the log {old.origin} of {new.size} entries {grew} the log of {old.size} entries; "
        f"{signed} ({how})"
    )
