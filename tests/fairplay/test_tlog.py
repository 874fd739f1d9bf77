"""The commitment log's hashing, proofs and checkpoints (fairplay.tlog), against a naive tree
and the vectors of docs/fairplay.md section 17. No database."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from fairplay import tlog
from fairplay.signing import CannotJudge, VerificationError, key_id, public_key_bytes
from tests.fairplay.helpers import spec_blocks

ROOT = Path(__file__).resolve().parents[2]
# Section 15's TEST key: never trust anything signed by it.
TEST_KEY = Ed25519PrivateKey.from_private_bytes(
    bytes.fromhex("9e7267ffde156c47d026d3e4c065bce5846a810bb5c71614ffb5522b84b78cb3")
)
TEST_PUBLIC = public_key_bytes(TEST_KEY.public_key())
ORIGIN = "fairdeal.example/commitments"


def leaves(n: int, salt: bytes = b"") -> list[bytes]:
    return [tlog.leaf_hash(salt + i.to_bytes(4, "big")) for i in range(n)]


def vectors() -> dict[str, str]:
    (block,) = spec_blocks("log-vector")
    return dict(line.split(": ", 1) for line in block.strip().splitlines())


def documented_checkpoint() -> str:
    (block,) = spec_blocks("checkpoint")
    return str(block)


def sign(size: int, root: bytes, key: Ed25519PrivateKey = TEST_KEY) -> str:
    public = public_key_bytes(key.public_key())
    return tlog.sign_checkpoint(tlog.Checkpoint(ORIGIN, size, root), key.sign, public)


# -- against a naive tree, for every size up to 70 ---------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.lists(st.integers(1, 9), min_size=1, max_size=12), st.data())
def test_a_tree_grown_in_any_batches_has_the_naive_root_and_proofs_that_hold(
    n: int, batches: list[int], data: st.DataObject
) -> None:
    hashes = leaves(n)
    tree = tlog.MemoryTree()
    done = 0
    for size in batches * n:
        if done >= n:
            break
        tree.extend(hashes[done : done + size])
        done = min(n, done + size)
    assert tree.size == n
    assert tree.root() == tlog.root_of(hashes)
    index = data.draw(st.integers(0, n - 1))
    size = data.draw(st.integers(index + 1, n))
    root = tlog.root_of(hashes[:size])
    assert tree.root(size) == root
    tlog.verify_inclusion(hashes[index], index, size, tree.inclusion(index, size), root)
    old = data.draw(st.integers(1, n))
    tlog.verify_consistency(
        old, n, tlog.root_of(hashes[:old]), tree.root(), tree.consistency(old) if old < n else []
    )


def test_every_proof_of_every_tree_up_to_70_holds_and_a_wrong_one_fails() -> None:
    hashes = leaves(70)
    tree = tlog.MemoryTree()
    tree.extend(hashes)
    for n in range(1, 71):
        root = tlog.root_of(hashes[:n])
        for index in range(n):
            proof = tree.inclusion(index, n)
            tlog.verify_inclusion(hashes[index], index, n, proof, root)
            with pytest.raises(tlog.ProofError):  # another leaf at that place
                tlog.verify_inclusion(tlog.leaf_hash(b"x"), index, n, proof, root)
            if n > 1:
                with pytest.raises(tlog.ProofError):  # the leaf at another place
                    tlog.verify_inclusion(hashes[index], (index + 1) % n, n, proof, root)
        for old in range(1, n):
            proof = tree.consistency(old, n)
            tlog.verify_consistency(old, n, tlog.root_of(hashes[:old]), root, proof)
            with pytest.raises(tlog.ProofError):
                tlog.verify_consistency(old, n, tlog.root_of(hashes[:old]), root, proof[:-1])


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 70), st.data())
def test_a_rewritten_log_fails_the_consistency_check(n: int, data: st.DataObject) -> None:
    old = data.draw(st.integers(1, n - 1))
    changed = data.draw(st.integers(0, old - 1))
    honest = leaves(n)
    rewritten = list(honest)
    rewritten[changed] = tlog.leaf_hash(b"a deal done over")
    tree = tlog.MemoryTree()
    tree.extend(rewritten)
    with pytest.raises(tlog.ProofError, match=r"rewritten|does not lead"):
        tlog.verify_consistency(
            old, n, tlog.root_of(honest[:old]), tree.root(), tree.consistency(old)
        )


def test_a_log_that_shrank_or_changed_at_one_size_fails() -> None:
    hashes = leaves(5)
    with pytest.raises(tlog.ProofError, match="shrank"):
        tlog.verify_consistency(5, 4, tlog.root_of(hashes), tlog.root_of(hashes[:4]), [])
    with pytest.raises(tlog.ProofError, match="rewritten"):
        tlog.verify_consistency(4, 4, tlog.root_of(hashes[:4]), tlog.root_of(leaves(4, b"x")), [])


def test_a_proof_reads_only_the_stored_subtrees_it_is_made_of() -> None:
    n = 1_000_003
    assert len(tlog.inclusion_ranges(123_456, n)) == 20
    assert len(tlog.proof_nodes(tlog.inclusion_ranges(123_456, n))) <= 40
    assert len(tlog.proof_nodes(tlog.consistency_ranges(500_001, n))) <= 60


# -- the vectors of docs/fairplay.md 17.7 ---------------------------------------


def test_the_documented_leaves_roots_and_proofs_are_the_codes() -> None:
    given_ = vectors()
    entries = [json.loads(given_[f"log_entry_{i}"]) for i in range(7)]
    hashes = []
    for i, entry in enumerate(entries):
        data = tlog.entry_bytes(entry)
        assert data.decode() == given_[f"log_entry_{i}"]  # canonical as written
        hashes.append(tlog.leaf_hash(data))
        assert hashes[-1].hex() == given_[f"log_leaf_{i}"]
    tree = tlog.MemoryTree()
    tree.extend(hashes)
    for n in (1, 2, 3, 4, 7):
        assert tree.root(n).hex() == given_[f"log_root_{n}"]
    for index in (4, 6):
        proof = [bytes.fromhex(h) for h in given_[f"log_inclusion_{index}_7"].split()]
        assert tree.inclusion(index, 7) == proof
        tlog.verify_inclusion(hashes[index], index, 7, proof, tree.root())
    for old in (3, 4):
        proof = [bytes.fromhex(h) for h in given_[f"log_consistency_{old}_7"].split()]
        assert tree.consistency(old, 7) == proof
        tlog.verify_consistency(old, 7, tree.root(old), tree.root(), proof)
    assert tlog.key_hash(ORIGIN, TEST_PUBLIC).hex() == given_["log_key_hash"]
    assert sign(7, tree.root()) == documented_checkpoint()
    assert tlog.open_checkpoint(documented_checkpoint(), TEST_PUBLIC) == tlog.Checkpoint(
        ORIGIN, 7, tree.root()
    )


def test_certificate_transparencys_reference_tree_has_its_roots() -> None:
    data = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657"]
    data.append("606162636465666768696a6b6c6d6e6f")
    hashes = [tlog.leaf_hash(bytes.fromhex(d)) for d in data]
    assert tlog.root_of(hashes).hex() == (
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"
    )
    assert tlog.root_of(hashes[:7]).hex() == (
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c"
    )


# -- checkpoints ---------------------------------------------------------------


def test_a_checkpoint_signed_by_another_key_or_changed_is_refused() -> None:
    note = sign(7, bytes(32))
    other = Ed25519PrivateKey.generate()
    with pytest.raises(VerificationError, match="not signed by key"):
        tlog.open_checkpoint(note, public_key_bytes(other.public_key()))
    changed = note.replace("\n7\n", "\n8\n", 1)
    with pytest.raises(VerificationError, match="does not hold"):
        tlog.open_checkpoint(changed, TEST_PUBLIC)


def test_a_checkpoint_with_extension_lines_is_read_with_them_and_they_are_signed() -> None:
    """C2SP tlog-checkpoint allows non-empty extension lines after the root: another log's
    checkpoint may carry them (this server writes none), and they are signed text."""
    extended = tlog.Checkpoint(ORIGIN, 7, bytes(32), ("Timestamp: 1733400000", "x y z"))
    note = tlog.sign_checkpoint(extended, TEST_KEY.sign, TEST_PUBLIC)
    assert note.startswith(f"{ORIGIN}\n7\n{'A' * 43}=\nTimestamp: 1733400000\nx y z\n\n")
    assert tlog.open_checkpoint(note, TEST_PUBLIC) == extended
    with pytest.raises(VerificationError, match="does not hold"):
        tlog.open_checkpoint(note.replace("x y z", "x y Z"), TEST_PUBLIC)
    with pytest.raises(VerificationError, match="does not hold"):  # one dropped: changed text
        tlog.open_checkpoint(note.replace("x y z\n", ""), TEST_PUBLIC)


@pytest.mark.parametrize(
    "note",
    [
        "",
        "o\n7\n" + "A" * 43 + "=\n\next\n\n\u2014 o AAAAAAAA\n",  # an empty extension line
        "fairdeal.example/commitments\n7\n",
        "fairdeal.example/commitments\n07\nAAAA\n\n\u2014 x AAAAAAAA\n",
        "fairdeal.example/commitments\n7\nnot base64\n\n\u2014 x AAAAAAAA\n",
        "fairdeal.example/commitments\r\n7\n" + "A" * 43 + "=\n\n\u2014 x AAAAAAAA\n",
        "o\n7\n" + "A" * 43 + "=\n\n-- o AAAAAAAA\n",
    ],
)
def test_what_is_not_a_checkpoint_cannot_be_judged(note: str) -> None:
    with pytest.raises(CannotJudge):
        tlog.open_checkpoint(note, TEST_PUBLIC)


# -- python -m fairplay.verify log OLD NEW ---------------------------------------


def run_log(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairplay.verify", "log", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_command_line_proves_the_log_grew_and_refuses_a_rewritten_one(tmp_path: Path) -> None:
    hashes = leaves(20)
    tree = tlog.MemoryTree()
    tree.extend(hashes)
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(sign(9, tree.root(9)))
    new.write_text(sign(20, tree.root()))
    proof = tmp_path / "proof.json"
    proof.write_text(
        json.dumps({"old": 9, "new": 20, "proof": [h.hex() for h in tree.consistency(9)]})
    )
    key = TEST_PUBLIC.hex()
    done = run_log(str(old), str(new), "--key", key, "--proof", str(proof))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"OK the log {ORIGIN} of 20 entries extends the log of 9")
    rewritten = list(hashes)
    rewritten[3] = tlog.leaf_hash(b"done over")
    other = tlog.MemoryTree()
    other.extend(rewritten)
    new.write_text(sign(20, other.root()))
    proof.write_text(
        json.dumps({"old": 9, "new": 20, "proof": [h.hex() for h in other.consistency(9)]})
    )
    done = run_log(str(old), str(new), "--key", key, "--proof", str(proof))
    assert done.returncode == 1
    assert done.stderr.startswith("FAILED: the log of 20 entries does not begin with the log of 9")
    done = run_log(str(new), str(old), "--key", key)
    assert done.returncode == 1 and "the log shrank, from 20 entries to 9" in done.stderr
    new.write_text(sign(20, tree.root()))
    done = run_log(str(old), str(new), "--key", key)
    assert done.returncode == 2 and "consistency proof" in done.stderr  # none given
    done = run_log(
        str(old),
        str(old),
        "--key",
        Ed25519PrivateKey.generate().public_key().public_bytes_raw().hex(),
    )
    assert done.returncode == 1 and "not signed by key" in done.stderr


def key_list(*keys: Ed25519PrivateKey, revoked: int | None = None) -> dict[str, object]:
    """A key list as ``GET /api/fairplay/keys/`` answers it: each key in force after the one
    before it, a day each; key ``revoked`` (an index) revoked, for a leak."""
    listed = []
    for number, key in enumerate(keys):
        public = public_key_bytes(key.public_key())
        listed.append(
            {
                "algorithm": "Ed25519",
                "key_id": key_id(public),
                "public_key": public.hex(),
                "from": f"2025-03-{number + 1:02}T00:00:00.000000Z",
                "until": None
                if number == len(keys) - 1
                else f"2025-03-{number + 2:02}T00:00:00.000000Z",
                "revoked": (
                    {"from": "2025-03-01T12:00:00.000000Z", "reason": "leaked"}
                    if number == revoked
                    else None
                ),
            }
        )
    return {"format": "fairdeal-keys/1", "keys": listed}


def test_the_command_line_proves_the_log_grew_across_a_change_of_key_with_the_key_list(
    tmp_path: Path,
) -> None:
    # The old checkpoint saved while TEST_KEY was in force, the new after the server
    # changed keys (its head signed again by the new key).
    new_key = Ed25519PrivateKey.generate()
    tree = tlog.MemoryTree()
    tree.extend(leaves(20))
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(sign(9, tree.root(9)))
    new.write_text(sign(20, tree.root(), new_key))
    proof = tmp_path / "proof.json"
    proof.write_text(
        json.dumps({"old": 9, "new": 20, "proof": [h.hex() for h in tree.consistency(9)]})
    )
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(key_list(TEST_KEY, new_key)))
    done = run_log(str(old), str(new), "--keys", str(keys), "--proof", str(proof))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"OK the log {ORIGIN} of 20 entries extends the log of 9 entries; the old checkpoint "
        f"signed by key {key_id(TEST_PUBLIC)}, the new by key {key_id(new_key.public_key())} "
        "(in the key list, not revoked)\n"
    )
    # One pinned key vouches for one of them only.
    done = run_log(str(old), str(new), "--key", TEST_PUBLIC.hex(), "--proof", str(proof))
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"FAILED: the new checkpoint is not signed by key {key_id(TEST_PUBLIC)}"
    )

    # A key list saved before the change does not know the new key: no verdict, no accusation.
    before = tmp_path / "keys-before.json"
    before.write_text(json.dumps(key_list(TEST_KEY)))
    done = run_log(str(old), str(new), "--keys", str(before), "--proof", str(proof))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        f"CANNOT JUDGE: the new checkpoint is signed by no key the key list {before} lists: "
        "save GET /api/fairplay/keys/ again"
    )
    # A revoked key vouches for no checkpoint, whenever it signed.
    revoked = tmp_path / "keys-revoked.json"
    revoked.write_text(json.dumps(key_list(TEST_KEY, new_key, revoked=0)))
    done = run_log(str(old), str(new), "--keys", str(revoked), "--proof", str(proof))
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"FAILED: the old checkpoint is signed by key {key_id(TEST_PUBLIC)}, which the key list "
        f"{revoked} says is revoked (leaked)"
    )
    # A log rewritten under the new key fails with the key list as with a pinned key.
    rewritten = leaves(20)
    rewritten[3] = tlog.leaf_hash(b"done over")
    other = tlog.MemoryTree()
    other.extend(rewritten)
    new.write_text(sign(20, other.root(), new_key))
    proof.write_text(
        json.dumps({"old": 9, "new": 20, "proof": [h.hex() for h in other.consistency(9)]})
    )
    done = run_log(str(old), str(new), "--keys", str(keys), "--proof", str(proof))
    assert done.returncode == 1
    assert done.stderr.startswith("FAILED: the log of 20 entries does not begin with the log of 9")
    # Neither key given, or both: the command line is wrong.
    for wrong in ([], ["--key", TEST_PUBLIC.hex(), "--keys", str(keys)]):
        done = run_log(str(old), str(new), *wrong)
        assert done.returncode == 2 and "CANNOT JUDGE: " in done.stderr


# -- the signed-note format, as Go's golang.org/x/mod/sumdb/note writes it ---------------


def test_a_signed_note_of_gos_note_package_has_the_key_hash_and_signature_we_compute() -> None:
    # The example of golang.org/x/mod/sumdb/note's documentation: a verifier key
    # "<name>+<key hash>+<base64(0x01 || public key)>", and a note it signed. Our key
    # hash of that name and key is the one Go prints, and the signature line's value is
    # that key hash and an Ed25519 signature of the text, as C2SP signed-note says.
    verifier_key = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    name, hash_hex, encoded = verifier_key.split("+", 2)
    raw = base64.b64decode(encoded)
    assert raw[:1] == tlog.ED25519_TYPE
    public = raw[1:]
    assert tlog.key_hash(name, public).hex() == hash_hex
    text = (
        "If you think cryptography is the answer to your problem,\n"
        "then you don't know what your problem is.\n"
    )
    line = (
        "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdn"
        "gotpRZb6KE6RyyBwJnAM="
    )
    assert line.startswith(tlog.SIGNATURE_PREFIX + name + " ")
    value = base64.b64decode(line.rpartition(" ")[2])
    assert value[:4] == tlog.key_hash(name, public)
    assert tlog.ed25519_valid(public, value[4:], text.encode())
    assert not tlog.ed25519_valid(
        public, value[4:], text.replace("cryptography", "crypto").encode()
    )
