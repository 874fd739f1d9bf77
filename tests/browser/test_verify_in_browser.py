"""The check in the browser says what the command line says, in Chromium at a phone's width.

The verify page's button runs ``fairplay.verify`` itself in Pyodide, from this site's own
static files. A genuine record says OK; a record with one card changed in one event (and
signed again, so that the replay finds it), one with a byte of its signature changed, and
a file that is not JSON say FAILED or CANNOT JUDGE, each with the words
``python -m fairplay.verify`` prints for the same file. One page does it all, so Pyodide
is loaded once (seconds; printed with ``-s``), and each check after it takes a fraction of
one; then ``/verify/`` checks a saved file, Pyodide loaded again from the browser's cache.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import expect

from fairplay.keys import public_key_document, signing_key
from fairplay.signing import sign
from games.models import Table
from tests.browser.conftest import PHONE
from tests.browser.test_error_and_verify_pages import wider_than_the_window
from tests.factories import finished_table, make_users
from tests.fairplay.test_browser_check import older_in_the_wheel

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
# Pyodide's first load, on this machine, from the test server (nothing compressed).
LOADING = 60_000


def command_line(folder: Path, *args: str) -> tuple[int, str]:
    """``python -m fairplay.verify ARGS`` run in ``folder``: its exit status and its words."""
    done = subprocess.run(
        [sys.executable, "-m", "fairplay.verify", *args],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def verdict(page: Any, timeout: float = 10_000) -> tuple[int, str]:
    """Wait for the next verdict in the page; its exit status and its line."""
    result = page.locator("#check-result[data-status]")
    result.wait_for(state="attached", timeout=timeout)
    return int(result.get_attribute("data-status")), page.locator("#check-result samp").inner_text()


def start_over(page: Any) -> None:
    page.evaluate("() => delete document.getElementById('check-result').dataset.status")


def one_card_changed(envelope: dict[str, Any]) -> dict[str, Any]:
    """The first dealt card swapped with the second, the record signed again by the server's
    key (so that the signature holds, and the replay finds the change)."""
    record = copy.deepcopy(envelope["record"])
    deal = next(
        event["chance"]
        for entry in record["log"]
        for event in entry["events"]
        if event.get("chance", {}).get("label") == "deal"
    )
    deal["outcome"][0], deal["outcome"][1] = deal["outcome"][1], deal["outcome"][0]
    return {**envelope, **sign(record, signing_key())}


def one_signature_byte_changed(envelope: dict[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(envelope)
    value = bytearray(base64.b64decode(changed["signature"]["value"]))
    value[10] ^= 0x01
    changed["signature"]["value"] = base64.b64encode(bytes(value)).decode("ascii")
    return changed


def drop(page: Any, name: str, text: str) -> None:
    """Drop a file on the drop zone, as a person drags one from their files."""
    page.evaluate(
        """([name, text]) => {
            const data = new DataTransfer();
            data.items.add(new File([text], name, {type: 'application/json'}));
            const zone = document.getElementById('drop-zone');
            zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: data, bubbles: true, cancelable: true}));
            zone.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
        }""",
        [name, text],
    )


@pytest.fixture
def finished() -> Table:
    ann, ben = make_users("ann", "ben")
    table = finished_table(ann, ben, game="crazy-8", entropy="b2" * 32, moves=6)
    assert table.status == Table.Status.FINISHED
    return table


def test_a_genuine_record_says_ok_and_tampered_ones_fail_with_the_command_lines_words(
    browser: Any,
    site: str,
    tmp_path: Path,
    shot: Any,
    finished: Table,
    serious_violations: Any,
) -> None:
    # The page runs the wheel make verifier built, the command line this tree.
    assert older_in_the_wheel() == [], "the verifier's wheel is older than the tree: make verifier"
    table = finished
    server_key = public_key_document()["public_key"]
    genuine = Client().get(f"/api/tables/{table.pk}/record/").json()
    (tmp_path / f"fairdeal-table-{table.pk}.json").write_text(json.dumps(genuine))
    # The key list, saved as a player saves it (curl -o keys.json .../api/fairplay/keys/).
    (tmp_path / "keys.json").write_bytes(Client().get("/api/fairplay/keys/").content)
    page = browser.new_context(viewport=PHONE).new_page()
    loaded: list[str] = []
    page.on("request", lambda request: loaded.append(request.url))
    page.goto(f"{site}/tables/{table.pk}/verify/")
    page.wait_for_load_state("load")

    # Nothing of Pyodide is loaded until the player asks.
    assert f"{site}/static/fairdeal/verify.js" in loaded
    button = page.get_by_role("button", name="Check it in this browser")
    expect(page.get_by_label("this server's published keys")).to_be_checked()
    expect(page.get_by_label("The public key, 64 hex characters")).to_have_value(server_key)
    assert not [url for url in loaded if "/static/fairplay/" in url]

    # The genuine record, from the server, by the keyboard, against the server's key list.
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#check-result")).to_contain_text("Loading the verifier")
    said = verdict(page, timeout=LOADING)
    name = f"fairdeal-table-{table.pk}.json"
    expected = command_line(tmp_path, name, "--keys", "keys.json")
    assert said == expected, (said, expected)
    assert said[0] == 0 and said[1].startswith(f"OK table {table.pk}: crazy-8")
    assert page.get_by_text("The record holds.").is_visible()
    expect(page.locator("#check-result code")).to_have_text(
        f"python -m fairplay.verify {name} --keys keys.json"
    )
    assert any(url.endswith(".wasm") for url in loaded)
    assert not [url for url in loaded if not url.startswith(site)]  # never a CDN
    print(
        "\nfirst check, Pyodide loaded in",
        page.locator("#check-result").get_attribute("data-load-ms"),
        "ms, checked in",
        page.locator("#check-result").get_attribute("data-check-ms"),
        "ms",
    )
    shot(page, "verify-in-browser-ok-phone")

    # One card changed in one event: chosen as a file, against the key the page shows.
    page.get_by_label("one public key").check()
    card = one_card_changed(genuine)
    (tmp_path / "one-card.json").write_text(json.dumps(card))
    start_over(page)
    page.get_by_label("Or check a record file").set_input_files(str(tmp_path / "one-card.json"))
    said = verdict(page)
    expected = command_line(tmp_path, "one-card.json", "--key", server_key)
    assert said == expected, (said, expected)
    assert said[0] == 1 and said[1].startswith("FAILED: chance event 1 (deal, hand 1)")
    assert page.get_by_text("The record does not hold. The first discrepancy:").is_visible()
    shot(page, "verify-in-browser-failed-phone")
    assert wider_than_the_window(page) == []
    assert serious_violations(page) == []

    # A byte of the signature changed: dropped on the page.
    signature = one_signature_byte_changed(genuine)
    (tmp_path / "signature.json").write_text(json.dumps(signature))
    start_over(page)
    drop(page, "signature.json", json.dumps(signature))
    said = verdict(page)
    expected = command_line(tmp_path, "signature.json", "--key", server_key)
    assert said == expected, (said, expected)
    assert said[0] == 1 and said[1].startswith("FAILED: the signature does not match the record")

    # Not a record at all: no verdict either way, in the same words.
    (tmp_path / "notes.json").write_text("{'not': json}")
    start_over(page)
    page.get_by_label("Or check a record file").set_input_files(str(tmp_path / "notes.json"))
    said = verdict(page)
    expected = command_line(tmp_path, "notes.json", "--key", server_key)
    assert said == expected, (said, expected)
    assert said[0] == 2 and said[1].startswith("CANNOT JUDGE: notes.json is not JSON")
    print("a later check in", page.locator("#check-result").get_attribute("data-check-ms"), "ms")

    # Any record file, on the page every page's footer links to (Pyodide loaded again, now
    # from the browser's cache), against the key inside the record.
    page.get_by_role("contentinfo").get_by_role("link", name="Check a game's record").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check a record")
    assert page.get_by_role("button", name="Check it in this browser").count() == 0
    expect(page.get_by_label("The public key, 64 hex characters")).to_have_value("")
    page.get_by_label("the key inside the record").check()
    saved = Client().get(f"/api/tables/{table.pk}/record/?download=1").content
    (tmp_path / "saved.json").write_bytes(saved)
    page.get_by_label("A record file").set_input_files(str(tmp_path / "saved.json"))
    said = verdict(page, timeout=LOADING)
    expected = command_line(tmp_path, "saved.json")
    assert said == expected, (said, expected)
    assert said[0] == 0 and "not pinned" in said[1]
    assert wider_than_the_window(page) == []
    assert serious_violations(page) == []
    print(
        "on another page, loaded again in",
        page.locator("#check-result").get_attribute("data-load-ms"),
        "ms",
    )
