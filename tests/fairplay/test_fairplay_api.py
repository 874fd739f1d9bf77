"""Commitments, contributions, records and the verification page, through the web app."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import Client

from fairplay.signing import public_key_from_text
from fairplay.verify import VerificationError, verify
from games.models import Table
from games.rules.chance import game_seed
from tests import factories
from tests.factories import (
    assert_error,
    body,
    client_for,
    make_users,
    open_table,
    play_match,
    snapshot,
    started_table,
    table_url,
)

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
ENTROPY_A = "a1" * 16
ENTROPY_B = "b2" * 32


def finished_table(*names: str, rng_seed: int = 1, **kwargs: Any) -> Table:
    players = make_users(*names)
    table = started_table(*players, **kwargs)
    play_match(table, rng=random.Random(rng_seed))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table


def test_the_commitment_is_shown_from_creation_and_is_the_hash_of_the_seed() -> None:
    (alice,) = make_users("alice")
    response = client_for(alice).post(
        "/api/tables/", {"game": "crazy-eights", "seats": 2, "deadline": 3600}, format="json"
    )
    assert response.status_code == 201
    view = body(response)
    table = Table.objects.get(pk=view["id"])
    assert view["commitment"] == hashlib.sha256(bytes(table.server_seed)).hexdigest()
    public = body(client_for().get(table_url(table.pk, "record")))
    assert public["commitment"] == view["commitment"]
    assert "server_seed" not in public and "log" not in public


def test_a_seated_player_contributes_and_gets_a_receipt() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice)
    response = client_for(alice).post(
        table_url(table.pk, "entropy"), {"entropy": ENTROPY_A}, format="json"
    )
    assert response.status_code == 201, response.content
    receipt = body(response)
    assert receipt["seat"] == 0
    assert receipt["receipt"] == hashlib.sha256(bytes.fromhex(ENTROPY_A)).hexdigest()
    view = body(client_for(alice).get(table_url(table.pk)))
    assert [c["receipt"] for c in view["contributions"]] == [receipt["receipt"]]


def test_the_deal_comes_from_the_server_seed_and_every_contribution_in_seat_order() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, entropy=ENTROPY_B)
    response = client_for(bob).post(
        table_url(table.pk, "join"), {"entropy": ENTROPY_A}, format="json"
    )
    assert response.status_code == 200, response.content
    table.refresh_from_db()
    expected = game_seed(
        bytes(table.server_seed), [bytes.fromhex(ENTROPY_B), bytes.fromhex(ENTROPY_A)]
    )
    assert bytes(table.game_seed) == expected


def test_a_table_where_nobody_contributes_still_deals() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    assert table.status == Table.Status.PLAYING
    assert bytes(table.game_seed) == game_seed(bytes(table.server_seed))


@pytest.mark.parametrize(
    ("entropy", "status", "code"),
    [
        ("ab" * 15, 400, "invalid_entropy"),  # 15 bytes: too short
        ("ab" * 65, 400, "invalid_entropy"),  # 65 bytes: too long
        ("xyz" * 12, 400, "invalid_entropy"),  # not hex
        ("abc" * 11, 400, "invalid_entropy"),  # odd number of digits
        (12345, 400, "invalid_entropy"),  # a number, not hex text
    ],
)
def test_malformed_entropy_is_refused_and_changes_nothing(
    entropy: Any, status: int, code: str
) -> None:
    (alice,) = make_users("alice")
    table = open_table(alice)
    before = table.contributions.count()
    response = client_for(alice).post(
        table_url(table.pk, "entropy"), {"entropy": entropy}, format="json"
    )
    assert_error(response, status, code)
    assert table.contributions.count() == before


def test_a_second_contribution_from_one_seat_is_refused() -> None:
    (alice,) = make_users("alice")
    table = open_table(alice, entropy=ENTROPY_A)
    response = client_for(alice).post(
        table_url(table.pk, "entropy"), {"entropy": ENTROPY_B}, format="json"
    )
    assert_error(response, 409, "already_contributed")
    assert table.contributions.count() == 1


def test_the_same_entropy_from_two_seats_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, seats=3, entropy=ENTROPY_A)
    response = client_for(bob).post(
        table_url(table.pk, "join"), {"entropy": ENTROPY_A}, format="json"
    )
    assert_error(response, 409, "duplicate_entropy")
    table.refresh_from_db()
    assert table.seats.filter(user=bob).count() == 0, "a refused join leaves the seat free"


def test_a_contribution_after_the_deal_is_refused() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    before = snapshot(table.pk)
    response = client_for(alice).post(
        table_url(table.pk, "entropy"), {"entropy": ENTROPY_A}, format="json"
    )
    assert_error(response, 409, "too_late")
    assert snapshot(table.pk) == before


def test_a_player_without_a_seat_cannot_contribute() -> None:
    alice, eve = make_users("alice", "eve")
    table = open_table(alice)
    response = client_for(eve).post(
        table_url(table.pk, "entropy"), {"entropy": ENTROPY_A}, format="json"
    )
    assert_error(response, 403, "not_seated")


def test_the_record_of_a_running_game_holds_no_seed_and_no_card() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    raw = client_for().get(table_url(table.pk, "record")).content.decode()
    record = json.loads(raw)
    assert record["status"] == "playing"
    assert bytes(table.server_seed).hex() not in raw
    assert bytes(table.game_seed).hex() not in raw
    assert not any(card in raw for hand in table.state["hands"] for card in hand)


def test_a_finished_game_has_a_signed_record_that_verifies_against_the_published_key() -> None:
    table = finished_table("alice", "bob")
    record = body(client_for().get(table_url(table.pk, "record")))
    key = body(client_for().get("/api/fairplay/key/"))
    assert key["algorithm"] == "Ed25519"
    assert record["signature"]["key_id"] == key["key_id"]
    summary = verify(record, public_key_from_text(key["public_key"]))
    assert summary.pinned
    assert summary.line().startswith(f"OK table {table.pk}: crazy-eights")
    assert record["record"]["server_seed"] == bytes(table.server_seed).hex()
    assert record["record"]["result"] == table.result


def test_a_record_with_contributions_and_a_resignation_verifies() -> None:
    alice, bob = make_users("alice", "bob")
    table = open_table(alice, entropy=ENTROPY_A)
    client_for(bob).post(table_url(table.pk, "join"), {"entropy": ENTROPY_B}, format="json")
    play_match(table, rng=random.Random(3), until=lambda view: view["version"] >= 5)
    assert client_for(bob).post(table_url(table.pk, "resign")).status_code == 200
    record = body(client_for().get(table_url(table.pk, "record")))
    assert [c["seat"] for c in record["record"]["contributions"]] == [0, 1]
    summary = verify(record)
    assert not summary.pinned
    assert summary.forfeit is not None and summary.forfeit["seat"] == 1
    assert "seat 1 resigned" in summary.line()


def test_a_record_signed_by_another_key_fails_against_the_published_key() -> None:
    table = factories.finished_table(*make_users("alice", "bob"), moves=3)  # then a resignation
    record = body(client_for().get(table_url(table.pk, "record")))
    stranger = Ed25519PrivateKey.generate().public_key()
    with pytest.raises(VerificationError):
        verify(record, stranger)


def run_verifier(path: Path, key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairplay.verify", str(path), "--key", key],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_command_line_verifier_checks_a_downloaded_record(tmp_path: Path) -> None:
    table = finished_table("alice", "bob")
    response = client_for().get(table_url(table.pk, "record"), {"download": "1"})
    assert "attachment" in response["Content-Disposition"]
    path = tmp_path / "record.json"
    path.write_bytes(response.content)
    key = body(client_for().get("/api/fairplay/key/"))["public_key"]
    done = run_verifier(path, key)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK")

    tampered = json.loads(response.content)
    tampered["record"]["result"]["places"].reverse()
    path.write_text(json.dumps(tampered))
    done = run_verifier(path, key)
    assert done.returncode == 1, done.stdout + done.stderr


def test_the_verify_page_shows_the_commitment_then_the_seed_once_the_game_has_ended() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    page = Client().get(f"/tables/{table.pk}/verify/")
    assert page.status_code == 200
    html = page.content.decode()
    assert table.commitment in html
    assert bytes(table.server_seed).hex() not in html
    assert "has not ended" in html

    play_match(table, rng=random.Random(5))
    table.refresh_from_db()
    html = Client().get(f"/tables/{table.pk}/verify/").content.decode()
    assert bytes(table.server_seed).hex() in html
    assert "at the end of its last deal" in html
    winner = table.result["places"].index(1)
    assert f"<tr><td>{winner}</td><td>1</td><td>{table.result['totals'][winner]}</td></tr>" in html
    assert "fairdeal-verify record.json --key" in html
    assert f"/api/tables/{table.pk}/record/?download=1" in html


def test_the_verify_page_of_an_unknown_table_is_a_404() -> None:
    assert Client().get("/tables/999999/verify/").status_code == 404


def _public_answers_while_playing(table: Table, rng_seed: int) -> list[str]:
    """Every answer anybody could get about ``table`` at each step of its match."""
    anonymous = client_for()
    seen: list[str] = []

    def look(view: dict[str, Any]) -> None:
        seen.append(json.dumps(view))
        if view["version"] % 4:
            return  # every view, and every fourth step everything else anybody could ask
        seen.append(anonymous.get(table_url(table.pk, "record")).content.decode())
        seen.append(Client().get(f"/tables/{table.pk}/verify/").content.decode())
        bad = anonymous.post(table_url(table.pk, "moves"), {"version": -1}, format="json")
        seen.append(bad.content.decode())

    play_match(table, rng=random.Random(rng_seed), each_step=look)
    return seen


def test_across_many_matches_nothing_before_the_end_shows_the_seed() -> None:
    players = make_users("alice", "bob", "charlie")
    for number in range(4):
        # A fixed seed per match, so each plays the same way every run.
        table = started_table(*players[: 2 + number % 2], seed=f"secrecy-{number}".encode())
        secrets = [bytes(table.server_seed).hex(), bytes(table.game_seed).hex()]
        seen = _public_answers_while_playing(table, number)
        assert len(seen) > 40
        for text in seen:
            for secret in secrets:
                assert secret not in text
