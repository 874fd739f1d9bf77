"""The key list, read and asked (fairplay.keyring): no Django, no database."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from fairplay import clock, keyring
from fairplay.signing import CannotJudge, VerificationError
from fairplay.verify import main

A = bytes(range(32))
B = bytes(range(1, 33))
UNKNOWN = bytes(32)
T0 = "2026-01-01T00:00:00.000000Z"
T1 = "2026-06-01T00:00:00.000000Z"
LEAK = "2026-09-01T00:00:00.000000Z"


def kid(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


def entry(raw: bytes, since: str, until: str | None, revoked: Any = None) -> dict[str, Any]:
    return {
        "algorithm": "Ed25519",
        "key_id": kid(raw),
        "public_key": raw.hex(),
        "from": since,
        "until": until,
        "revoked": revoked,
    }


DOCUMENT = {
    "format": "fairdeal-keys/1",
    "keys": [
        entry(A, T0, T1),
        entry(B, T1, None, {"from": LEAK, "reason": "a backup was stolen"}),
    ],
}


def at(text: str, micros: int = 0) -> int:
    return clock.micros(text, "t") + micros


def test_a_key_is_valid_from_its_from_until_just_before_its_until() -> None:
    keys = keyring.parse_key_list(DOCUMENT)
    assert keyring.key_valid_at(keys, A, at(T0)).key_id == kid(A)
    assert keyring.key_valid_at(keys, A, at(T1, -1)).key_id == kid(A)
    with pytest.raises(VerificationError, match="outside the period that key signed in"):
        keyring.key_valid_at(keys, A, at(T1))
    with pytest.raises(VerificationError, match=f"from {T0} until {T1}"):
        keyring.key_valid_at(keys, A, at(T0, -1))
    assert keyring.key_valid_at(keys, B, at(T1)).key_id == kid(B)


def test_a_revoked_key_is_valid_only_before_its_revocation() -> None:
    keys = keyring.parse_key_list(DOCUMENT)
    assert keyring.key_valid_at(keys, B, at(LEAK, -1)).revoked_from == at(LEAK)
    with pytest.raises(VerificationError, match=r"revoked from .* \(a backup was stolen\)"):
        keyring.key_valid_at(keys, B, at(LEAK))
    with pytest.raises(VerificationError, match="the checkpoint was signed"):
        keyring.key_valid_at(keys, B, at(LEAK, 5), "the checkpoint")


def test_an_unknown_key_cannot_be_judged_and_is_not_called_a_forgery() -> None:
    keys = keyring.parse_key_list(DOCUMENT)
    with pytest.raises(CannotJudge) as caught:
        keyring.key_valid_at(keys, UNKNOWN, at(T1))
    assert caught.value.message == (
        f"the record is signed by key {kid(UNKNOWN)}, which the key list does not list: save "
        "GET /api/fairplay/keys/ again if the list is older than it, or check that it comes "
        "from this server"
    )


def test_the_signing_instant_is_signed_at_else_the_end_of_the_game() -> None:
    assert keyring.signing_instant({"signed_at": T1, "finished_at": T0}) == at(T1)
    assert keyring.signing_instant({"finished_at": "2026-06-01T02:00:00+02:00"}) == at(T1)
    assert keyring.signing_instant({"finished_at": "2026-06-01T00:00:00Z"}) == at(T1)
    with pytest.raises(VerificationError, match="signed_at must be an instant"):
        keyring.signing_instant({"signed_at": "2026-06-01T00:00:00Z"})
    for finished in ("yesterday", "2026-06-01T00:00:00", None, 17):
        with pytest.raises(CannotJudge, match="is no moment in time"):
            keyring.signing_instant({"finished_at": finished})


def spoiled(change: Any) -> Any:
    document = copy.deepcopy(DOCUMENT)
    change(document)
    return document


@pytest.mark.parametrize(
    ("document", "complaint"),
    [
        ([], "exactly the fields format and keys"),
        ({"keys": []}, "exactly the fields format and keys"),
        ({**DOCUMENT, "extra": 1}, "exactly the fields format and keys"),
        ({**DOCUMENT, "format": "fairdeal-keys/2"}, "this verifier knows fairdeal-keys/1"),
        ({**DOCUMENT, "keys": {}}, "its keys are a list"),
        (spoiled(lambda d: d["keys"].append(17)), "key 2 must have exactly the fields"),
        (spoiled(lambda d: d["keys"][0].pop("revoked")), "key 0 must have exactly the fields"),
        (spoiled(lambda d: d["keys"][0].update(algorithm="RSA")), "not Ed25519"),
        (spoiled(lambda d: d["keys"][0].update(public_key="ab" * 31)), "64 hex characters"),
        (spoiled(lambda d: d["keys"][0].update(public_key=None)), "64 hex characters"),
        (spoiled(lambda d: d["keys"][0].update(key_id="0" * 16)), "but its key's id is"),
        (spoiled(lambda d: d["keys"][0].update({"from": "2026-01-01"})), "key 0's from"),
        (spoiled(lambda d: d["keys"][0].update(until=5)), "key 0's until"),
        (spoiled(lambda d: d["keys"][1].update({"from": "2027-01-01T00:00:00.000000Z"})), ""),
        (spoiled(lambda d: d["keys"][0].update(until="2025-01-01T00:00:00.000000Z")), "before"),
        (spoiled(lambda d: d["keys"][1].update(revoked={"from": LEAK})), "key 1's revoked"),
        (spoiled(lambda d: d["keys"][1].update(revoked="yes")), "key 1's revoked"),
        (
            spoiled(lambda d: d["keys"][1].update(revoked={"from": "soon", "reason": "x"})),
            "key 1's revocation",
        ),
        (spoiled(lambda d: d["keys"].append(d["keys"][0])), "it lists a key twice"),
    ],
)
def test_a_key_list_that_is_not_one_cannot_be_judged_against(document: Any, complaint: str) -> None:
    if complaint == "":  # a key whose until is before its from, from the other side
        document["keys"][1]["until"] = T1
        complaint = "until comes before its from"
    with pytest.raises(CannotJudge, match=complaint):
        keyring.parse_key_list(document)


def test_upper_case_hex_in_a_saved_key_list_is_taken() -> None:
    document = spoiled(lambda d: d["keys"][0].update(public_key=A.hex().upper()))
    assert keyring.parse_key_list(document).find(A) is not None


def test_the_key_list_file_must_exist_and_be_json(tmp_path: Path) -> None:
    with pytest.raises(CannotJudge, match="there is no such file"):
        keyring.load_key_list(str(tmp_path / "none.json"))
    with pytest.raises(CannotJudge, match="cannot read the key list"):
        keyring.load_key_list(str(tmp_path))
    path = tmp_path / "keys.json"
    path.write_text("{not json")
    with pytest.raises(CannotJudge, match="is not JSON"):
        keyring.load_key_list(str(path))
    path.write_text("\ufeff" + json.dumps(DOCUMENT))  # saved by an editor with a BOM
    assert len(keyring.load_key_list(str(path)).keys) == 2


def test_the_command_line_takes_one_key_or_the_key_list_not_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(DOCUMENT))
    with pytest.raises(SystemExit) as exit_code:
        main([str(tmp_path / "record.json"), "--key", A.hex(), "--keys", str(keys)])
    assert exit_code.value.code == 2
    assert "CANNOT JUDGE: give --key (one key) or --keys (the key list), not both" in (
        capsys.readouterr().err
    )


def test_a_key_list_that_cannot_be_read_is_said_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.json"
    record.write_text("{}")
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"format": "fairdeal-keys/1"}))
    assert main([str(record), "--keys", str(keys)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"CANNOT JUDGE: the key list {keys} is not a key list")
