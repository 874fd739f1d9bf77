"""What the record spec used to leave open, settled (docs/fairplay.md, sections 10 to 14).

A byte-order mark at the start of the file, numbers beyond what a record may
hold, upper-case hex, the key given as the document ``GET /api/fairplay/key/``
answers, and the words and exit status of a record that cannot be judged.
Each is tried through the function API and through ``python -m fairplay.verify``.

Pure Python: no Django needed (``pytest tests/fairplay -p no:django``).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairplay import verify as verify_module
from fairplay.signing import (
    CannotJudge,
    VerificationError,
    describe_public_key,
    key_id,
    load_public_key,
    public_key_from_text,
)
from fairplay.verify import load_envelope, main, verify
from games.catalogue import find_ruleset
from games.catalogue.crazy_eights.rules import sort_hand
from games.rules.chance import SeededChance
from tests.fairplay.helpers import doc_match, resign, signing_key, signing_public_key_hex

ROOT = Path(__file__).resolve().parents[2]
BOM = b"\xef\xbb\xbf"
Envelope = dict[str, Any]


@pytest.fixture(scope="module")
def example() -> Envelope:
    """The example record of docs/fairplay.md: two seats, one contribution, bob resigns."""
    return doc_match()


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "fairplay.verify", *args],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def write_bytes(tmp_path: Path, data: bytes, name: str = "record.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def as_bytes(envelope: Any) -> bytes:
    return json.dumps(envelope, indent=1).encode("utf-8")


def changed(envelope: Envelope, change: Callable[[dict[str, Any]], object]) -> Envelope:
    tampered = copy.deepcopy(envelope)
    change(tampered["record"])
    return tampered


def failure(envelope: Any, public_key: Any = None) -> VerificationError:
    with pytest.raises(VerificationError) as caught:
        verify(envelope, public_key)
    return caught.value


def said(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stderr.decode("utf-8")


# -- a byte-order mark ---------------------------------------------------------


def test_a_record_file_starting_with_a_utf8_byte_order_mark_is_read_and_verifies(
    example: Envelope, tmp_path: Path
) -> None:
    path = write_bytes(tmp_path, BOM + as_bytes(example))
    assert load_envelope(str(path)) == example
    assert verify(load_envelope(str(path))).table == 1
    done = run_cli(str(path), "--key", signing_public_key_hex(), "--without-log")
    assert done.returncode == 0, said(done)
    assert done.stdout.decode().startswith("OK table 1: crazy-eights")
    from_stdin = run_cli("-", "--without-log", stdin=BOM + as_bytes(example))
    assert from_stdin.returncode == 0, said(from_stdin)
    assert from_stdin.stdout.decode().startswith("OK table 1: crazy-eights")


def test_a_second_byte_order_mark_cannot_be_judged_and_says_so(
    example: Envelope, tmp_path: Path
) -> None:
    path = write_bytes(tmp_path, BOM + BOM + as_bytes(example))
    with pytest.raises(CannotJudge, match="starts with two byte-order marks; one is allowed"):
        load_envelope(str(path))
    done = run_cli(str(path))
    assert done.returncode == 2
    assert said(done) == (
        f"CANNOT JUDGE: {path} is not JSON: it starts with two byte-order marks; one is allowed\n"
    )


def test_a_utf16_record_file_cannot_be_judged_and_says_it_must_be_utf8(
    example: Envelope, tmp_path: Path
) -> None:
    path = write_bytes(tmp_path, json.dumps(example).encode("utf-16"))
    done = run_cli(str(path))
    assert done.returncode == 2
    assert said(done).startswith(f"CANNOT JUDGE: {path} is not JSON: it starts with a UTF-16")
    assert "a record is UTF-8 text" in said(done)


# -- numbers out of range ------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "value", "path"),
    [
        (("log", 1, "seat"), 2**53, "log[1].seat"),
        (("log", 2, "version"), 2**64 + 1, "log[2].version"),
        (("seats", 0, "seat"), -(2**53), "seats[0].seat"),
        (("table",), 10**30, "table"),
        (("log", 1, "events", 0, "public", "seat"), -(2**60), "log[1].events[0].public.seat"),
    ],
)
def test_a_whole_number_beyond_2_53_fails_naming_where_it_is(
    example: Envelope, where: tuple[Any, ...], value: int, path: str
) -> None:
    def put(record: dict[str, Any]) -> None:
        target: Any = record
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value

    error = failure(changed(example, put))
    assert not isinstance(error, CannotJudge)
    assert error.exit_code == 1
    assert error.message == (
        f"the record holds the number {value} at {path}, out of range: records hold whole "
        "numbers from -(2^53 - 1) to 2^53 - 1 only"
    )


def test_the_largest_whole_number_a_record_may_hold_is_accepted(example: Envelope) -> None:
    assert verify(resign(changed(example, lambda r: r.update(table=2**53 - 1)))).table == 2**53 - 1


@pytest.mark.parametrize(
    ("literal", "shown"),
    [
        ("9007199254740992", "9007199254740992"),
        ("-9007199254740992", "-9007199254740992"),
        ("9" * 5000, "999999999999... (5000 digits)"),
    ],
)
def test_a_number_beyond_2_53_in_the_file_fails_from_the_command_line(
    example: Envelope, tmp_path: Path, literal: str, shown: str
) -> None:
    placeholder = copy.deepcopy(example)
    placeholder["record"]["log"][3]["version"] = "@NUMBER@"
    text = json.dumps(placeholder).replace('"@NUMBER@"', literal)
    path = write_bytes(tmp_path, text.encode())
    assert failure(load_envelope(str(path))).exit_code == 1
    done = run_cli(str(path))
    assert done.returncode == 1, said(done)
    assert said(done) == (
        f"FAILED: the record holds the number {shown} at log[3].version, out of range: "
        "records hold whole numbers from -(2^53 - 1) to 2^53 - 1 only\n"
    )


def test_a_number_too_large_for_a_float_fails_rather_than_cannot_be_judged(
    example: Envelope, tmp_path: Path
) -> None:
    text = json.dumps(example).replace('"seat_count": 2', '"seat_count": 1e400')
    done = run_cli(str(write_bytes(tmp_path, text.encode())))
    assert done.returncode == 1
    assert said(done).startswith("FAILED: the record holds a number out of range at seat_count")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda r: r["log"][1].update(seat=-1),
            "action 1: there is no seat -1",
        ),
        (
            lambda r: r["log"][2].update(version=-1),
            "action 2 was applied at version 1, but the record says -1",
        ),
        (
            lambda r: r["contributions"][0].update(seat=-1),
            "contribution 0 is from seat -1, which is no seat",
        ),
        (
            lambda r: r["seats"][1].update(seat=-1),
            'seat entry 1 must be {"seat": 1, "player": a name or null, "bot": true or false}',
        ),
    ],
)
def test_a_negative_seat_or_version_fails_with_a_named_discrepancy(
    example: Envelope,
    tmp_path: Path,
    change: Callable[[dict[str, Any]], object],
    expected: str,
) -> None:
    tampered = resign(changed(example, change))
    error = failure(tampered)
    assert not isinstance(error, CannotJudge)
    assert error.message == expected
    done = run_cli(str(write_bytes(tmp_path, as_bytes(tampered))))
    assert (done.returncode, said(done)) == (1, f"FAILED: {expected}\n")


# -- upper-case hex ------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda r: r.update(server_seed=r["server_seed"].upper()),
            "the record's server_seed is written in upper-case hex",
        ),
        (
            lambda r: r.update(commitment=r["commitment"].upper()),
            "the record's commitment is written in upper-case hex",
        ),
        (
            lambda r: r.update(game_seed=r["game_seed"].upper()),
            "the record's game_seed is written in upper-case hex",
        ),
        (
            lambda r: r["contributions"][0].update(
                entropy=r["contributions"][0]["entropy"].upper()
            ),
            "contribution 0's entropy is written in upper-case hex",
        ),
        (
            lambda r: r["contributions"][0].update(
                receipt=r["contributions"][0]["receipt"].upper()
            ),
            "contribution 0's receipt is written in upper-case hex",
        ),
    ],
)
def test_upper_case_hex_in_a_record_fails_even_signed_again(
    example: Envelope,
    tmp_path: Path,
    change: Callable[[dict[str, Any]], object],
    expected: str,
) -> None:
    tampered = resign(changed(example, change))
    message = f"{expected}; a record writes hex in lowercase only"
    error = failure(tampered)
    assert (type(error), error.message) == (VerificationError, message)
    done = run_cli(str(write_bytes(tmp_path, as_bytes(tampered))))
    assert (done.returncode, said(done)) == (1, f"FAILED: {message}\n")


def test_an_upper_case_public_key_in_the_signature_fails(example: Envelope, tmp_path: Path) -> None:
    tampered = copy.deepcopy(example)
    tampered["signature"]["public_key"] = tampered["signature"]["public_key"].upper()
    message = (
        "the signature's public_key is written in upper-case hex; a record writes hex in "
        "lowercase only"
    )
    assert failure(tampered).message == message
    done = run_cli(str(write_bytes(tmp_path, as_bytes(tampered))))
    assert (done.returncode, said(done)) == (1, f"FAILED: {message}\n")


def test_the_key_given_to_the_verifier_may_be_upper_case_hex(
    example: Envelope, tmp_path: Path
) -> None:
    upper = signing_public_key_hex().upper()
    assert key_id(load_public_key(upper)) == key_id(signing_key().public_key())
    assert verify(example, load_public_key(upper)).pinned
    key_file = tmp_path / "key.hex"
    key_file.write_text(upper + "\n")
    path = str(write_bytes(tmp_path, as_bytes(example)))
    for key in (upper, str(key_file)):
        done = run_cli(path, "--key", key, "--without-log")
        assert done.returncode == 0, said(done)
        assert done.stdout.decode().endswith("(pinned)\n")


# -- the key document as --key -------------------------------------------------


def key_document(**changes: Any) -> str:
    document = describe_public_key(signing_key().public_key())
    document.update(changes)
    return json.dumps({k: v for k, v in document.items() if v is not None}, indent=2)


def test_the_saved_answer_of_get_api_fairplay_key_is_accepted_as_the_key_file(
    example: Envelope, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(write_bytes(tmp_path, as_bytes(example)))
    saved = tmp_path / "key.json"
    for text in (
        key_document(),
        key_document(pem=None),  # public_key alone
        key_document(public_key=None),  # pem alone
    ):
        saved.write_text(text)
        assert verify(example, load_public_key(str(saved))).pinned
        assert main([path, "--key", str(saved), "--without-log"]) == 0
        assert capsys.readouterr().out.endswith("(pinned)\n")
    saved.write_bytes(BOM + key_document().encode())
    done = run_cli(path, "--key", str(saved), "--without-log")
    assert done.returncode == 0, said(done)
    assert done.stdout.decode().endswith(
        f"signed by key {key_id(signing_key().public_key())} (pinned)\n"
    )


def test_a_key_document_of_another_key_fails_the_record_against_it(
    example: Envelope, tmp_path: Path
) -> None:
    other = describe_public_key(Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key())
    saved = tmp_path / "other.json"
    saved.write_text(json.dumps(other))
    done = run_cli(str(write_bytes(tmp_path, as_bytes(example))), "--key", str(saved))
    assert done.returncode == 1
    assert said(done) == (
        f"FAILED: the record is signed by key {key_id(signing_key().public_key())}, "
        f"not by the pinned key {other['key_id']}\n"
    )


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            lambda: key_document(key_id="0123456789abcdef"),
            "the key document's key_id is '0123456789abcdef', but its key's id is ",
        ),
        (
            lambda: key_document(
                pem=describe_public_key(
                    Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()
                )["pem"]
            ),
            "the key document's public_key and pem are two different keys",
        ),
        (
            lambda: key_document(algorithm="RSA"),
            "the key document is for the algorithm 'RSA'; records are signed with Ed25519",
        ),
        (lambda: json.dumps({"key": "x"}), "a key document is the JSON object GET "),
        (lambda: '{"public_key": ', "the key file starts like a JSON document but is not JSON"),
    ],
)
def test_a_key_document_that_does_not_hold_together_cannot_be_judged_against(
    example: Envelope, tmp_path: Path, document: Callable[[], str], expected: str
) -> None:
    text = document()
    with pytest.raises(CannotJudge) as caught:
        public_key_from_text(text)
    assert caught.value.message.startswith(expected)
    saved = tmp_path / "key.json"
    saved.write_text(text)
    done = run_cli(str(write_bytes(tmp_path, as_bytes(example))), "--key", str(saved))
    assert done.returncode == 2
    assert said(done).startswith(f"CANNOT JUDGE: {expected}")


# -- the words and the exit status ---------------------------------------------


def test_each_verdict_has_its_own_first_word_and_exit_status() -> None:
    assert (VerificationError.word, VerificationError.exit_code) == ("FAILED", 1)
    assert (CannotJudge.word, CannotJudge.exit_code) == ("CANNOT JUDGE", 2)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "is not JSON"),
        (b"{", "is not JSON"),
        (b"[]", "this is not a signed record"),
        (b'{"record": {"format": "fairdeal-record/9"}, "signature": {}}', "format"),
    ],
)
def test_a_record_that_cannot_be_judged_is_never_printed_as_failed(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = write_bytes(tmp_path, content)
    with pytest.raises(CannotJudge):
        verify(load_envelope(str(path)))
    done = run_cli(str(path))
    assert done.returncode == 2
    assert said(done).startswith("CANNOT JUDGE: ")
    assert expected in said(done)
    assert "FAILED" not in said(done)
    assert done.stdout == b""


def test_a_wrong_command_line_cannot_be_judged_with_status_2() -> None:
    for args in ((), ("a.json", "b.json"), ("a.json", "--kye", "x")):
        done = run_cli(*args)
        assert done.returncode == 2
        assert said(done).startswith("usage: python -m fairplay.verify")
        assert said(done).splitlines()[-1].startswith("CANNOT JUDGE: ")


def test_a_key_that_is_not_a_key_cannot_be_judged_against(
    example: Envelope, tmp_path: Path
) -> None:
    done = run_cli(str(write_bytes(tmp_path, as_bytes(example))), "--key", "not-a-key")
    assert done.returncode == 2
    assert said(done) == (
        "CANNOT JUDGE: the key 'not-a-key' is neither 64 hex characters nor a file that exists\n"
    )


def test_a_fault_of_the_verifier_itself_is_reported_as_cannot_judge(
    example: Envelope,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(envelope: Any, public_key: Any = None, *args: Any, **options: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(verify_module, "verify", broken)
    assert main([str(write_bytes(tmp_path, as_bytes(example)))]) == 2
    assert capsys.readouterr().err == (
        "CANNOT JUDGE: the verifier itself failed (RuntimeError: boom); please report it\n"
    )


def test_a_discrepancy_is_printed_as_failed_with_status_1(
    example: Envelope, tmp_path: Path
) -> None:
    tampered = resign(changed(example, lambda r: r["result"].update(places=[2, 1])))
    with pytest.raises(VerificationError) as caught:
        verify(tampered)
    assert not isinstance(caught.value, CannotJudge)
    done = run_cli(str(write_bytes(tmp_path, as_bytes(tampered))))
    assert done.returncode == 1
    assert said(done).startswith("FAILED: the result does not follow from the play")


# -- the hand a seat is shown ---------------------------------------------------


@pytest.mark.parametrize("game", ["crazy-eights", "crazy-8", "dodo"])
def test_a_seat_is_shown_its_hand_sorted_by_suit_then_rank_not_in_the_order_dealt(
    game: str,
) -> None:
    chance = SeededChance(bytes(32))
    state, events = find_ruleset(game).new_game(2, {}, chance)
    deal = next(e.chance for e in events if e.chance and e.chance["label"] == "deal")
    dealer = next(e.public for e in events if e.public["type"] == "hand_dealt")["dealer"]
    for seat in range(2):
        dealt = [
            card for k, card in enumerate(deal["outcome"][:14]) if (dealer + 1 + k) % 2 == seat
        ]
        shown = state.view(seat)["you"]["hand"]
        assert shown == sort_hand(dealt)
        assert shown != dealt  # this seed deals both hands out of order
