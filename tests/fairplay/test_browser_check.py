"""The files of the check in the browser: only Pyodide's core and the two wheels are served,
as static files of this site; a server without them says so and keeps the plain policy."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from fairplay import browser_check
from tests.factories import finished_table, make_users
from tests.test_pages_csp import policy_of

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_the_finder_serves_pyodides_core_and_the_two_wheels_and_nothing_else() -> None:
    served = browser_check.served()
    assert sorted(name for name in served if name.startswith("fairplay/pyodide/")) == sorted(
        f"fairplay/pyodide/{name}" for name in browser_check.PYODIDE_FILES
    )
    wheels = sorted(
        name.rpartition("/")[2] for name in served if name.startswith("fairplay/wheels/")
    )
    assert [wheel.partition("-")[0] for wheel in wheels] == ["fairdeal_verify", "rfc8785"]
    assert all(wheel.endswith("-py3-none-any.whl") for wheel in wheels)
    for name, path in served.items():
        assert finders.find(name) == str(path)
    # The package's other files, and paths that climb out, are not static files.
    for name in (
        "fairplay/pyodide/package.json",
        "fairplay/pyodide/pyodide.mjs.map",
        "fairplay/pyodide/../pyodide/pyodide.mjs",
        "fairplay/wheels/../../package.json",
    ):
        assert finders.find(name) is None, name


def older_in_the_wheel() -> list[str]:
    """The verifier's files that the served wheel holds in another version than this tree's
    (the wheel ``make verifier`` built before they changed)."""
    (wheel,) = [path for path in browser_check.wheels() if path.name.startswith("fairdeal_verify-")]
    with zipfile.ZipFile(wheel) as archive:
        sources = [name for name in archive.namelist() if name.endswith(".py")]
        assert "fairplay/verify.py" in sources
        return [name for name in sources if archive.read(name) != (ROOT / name).read_bytes()]


def test_the_served_verifier_is_this_trees_own_code() -> None:
    """The browser runs the wheel ``make verifier`` built: the repository's files as they are
    now, or the page and the command line could say different things."""
    assert older_in_the_wheel() == [], "the verifier's wheel is older than the tree: make verifier"


def test_the_webassembly_is_served_as_webassembly_and_the_wheels_as_files() -> None:
    client = Client()
    wasm = client.get("/static/fairplay/pyodide/pyodide.asm.wasm")
    assert wasm.status_code == 200
    assert wasm["Content-Type"] == "application/wasm"
    loader = client.get("/static/fairplay/pyodide/pyodide.mjs")
    assert loader["Content-Type"].startswith("text/javascript")
    for path in browser_check.wheels():
        wheel = client.get(f"/static/fairplay/wheels/{path.name}")
        assert wheel.status_code == 200
        assert b"".join(wheel.streaming_content) == path.read_bytes()


def test_a_verify_page_offers_the_check_with_the_files_it_loads() -> None:
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    html = Client().get(f"/tables/{table.pk}/verify/").content.decode()
    assert 'id="browser-check"' in html
    assert 'data-pyodide="/static/fairplay/pyodide/pyodide.mjs"' in html
    assert f'data-record="/api/tables/{table.pk}/record/"' in html
    assert 'data-keys="/api/fairplay/keys/"' in html
    for path in browser_check.wheels():
        assert f"/static/fairplay/wheels/{path.name}" in html
    # Without scripts the page says how to check it from the command line, with the
    # verifier's wheel this site serves.
    assert "<noscript>" in html
    (verifier,) = [path for path in browser_check.wheels() if path.name.startswith("fairdeal_")]
    assert f'<a href="/static/fairplay/wheels/{verifier.name}" download>' in html
    assert f"pip install {verifier.name}\n" in html
    assert "fairdeal-verify record.json --key" in html


def test_a_server_without_pyodide_says_so_and_keeps_the_plain_policy(
    settings: object, tmp_path: Path
) -> None:
    settings.FAIRDEAL_PYODIDE_DIR = tmp_path  # type: ignore[attr-defined]
    alice, bob = make_users("alice", "bob")
    table = finished_table(alice, bob)
    for url in (f"/tables/{table.pk}/verify/", "/verify/"):
        response = Client().get(url)
        html = response.content.decode()
        assert "This server cannot offer the check in the browser" in html, url
        assert "pyodide.asm.wasm" in html
        assert "verify.js" not in html
        assert policy_of(response)["script-src"] == ["'self'"]
