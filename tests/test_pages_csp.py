"""Every page carries the Content-Security-Policy and needs nothing it forbids."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from games import services
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db

INIT_SCRIPT = "/api/docs/?script="


class InlineFinder(HTMLParser):
    """Collects what the policy refuses: inline scripts and styles, in any form."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self.scripts: list[str] = []
        self.stylesheets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "script":
            if attributes.get("src"):
                self.scripts.append(attributes["src"] or "")
            else:
                self.inline.append("<script> without src")
        if tag == "style":
            self.inline.append("<style>")
        if tag == "link" and attributes.get("rel") == "stylesheet":
            self.stylesheets.append(attributes.get("href") or "")
        for name, _ in attrs:
            if name == "style":
                self.inline.append(f'<{tag} style="...">')
            if name.startswith("on"):
                self.inline.append(f"<{tag} {name}=...>")


def inline_in(html: str) -> InlineFinder:
    finder = InlineFinder()
    finder.feed(html)
    finder.close()
    return finder


def policy_of(response) -> dict[str, list[str]]:
    """The Content-Security-Policy header, as {directive: [sources]}."""
    header = response["Content-Security-Policy"]
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {name: sources for name, *sources in directives}


# The pages that run the verifier in the browser compile Pyodide's WebAssembly, and only they.
WEBASSEMBLY = ["'self'", "'wasm-unsafe-eval'"]


def assert_meets_the_policy(response, script_src: list[str] | None = None) -> InlineFinder:
    assert response.status_code == 200, response.content[:500]
    policy = policy_of(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == (script_src or ["'self'"])
    assert policy["style-src"] == ["'self'"]
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["form-action"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    found = inline_in(response.content.decode())
    assert found.inline == [], found.inline
    # Every script and style sheet comes from this site.
    for url in found.scripts + found.stylesheets:
        assert url.startswith("/"), url
    return found


def test_the_home_page_meets_the_content_security_policy() -> None:
    found = assert_meets_the_policy(Client().get("/"))
    assert found.stylesheets == ["/static/fairdeal/site.css"]


def test_the_verify_page_meets_the_content_security_policy_before_and_after_the_game() -> None:
    alice, bob = make_users("alice", "bob")
    table = started_table(alice, bob)
    found = assert_meets_the_policy(Client().get(f"/tables/{table.pk}/verify/"))
    assert found.stylesheets == ["/static/fairdeal/site.css"]

    services.table_resign(table_id=table.pk, user=alice)
    page = Client().get(f"/tables/{table.pk}/verify/")
    found = assert_meets_the_policy(page, script_src=WEBASSEMBLY)
    assert "The seed, now published" in page.content.decode()
    assert found.scripts == ["/static/fairdeal/verify.js"]


def test_the_page_that_checks_any_record_meets_the_policy_with_webassembly_alone() -> None:
    found = assert_meets_the_policy(Client().get("/verify/"), script_src=WEBASSEMBLY)
    assert found.scripts == ["/static/fairdeal/verify.js"]
    assert found.stylesheets == ["/static/fairdeal/site.css", "/static/fairdeal/verify.css"]


def test_the_api_docs_page_meets_the_content_security_policy() -> None:
    found = assert_meets_the_policy(Client().get("/api/docs/"))
    assert INIT_SCRIPT in found.scripts
    assert "/static/fairdeal/api-docs.css" in found.stylesheets
    assert any(url.endswith("swagger-ui-bundle.js") for url in found.scripts)


def test_the_api_docs_init_script_is_served_as_javascript() -> None:
    response = Client().get(INIT_SCRIPT)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    script = response.content.decode()
    assert "SwaggerUIBundle(" in script
    assert '"/api/schema/"' in script
    # Swagger UI would otherwise fetch a badge from validator.swagger.io.
    assert '"validatorUrl": null' in script


def test_the_static_files_of_the_pages_are_served_without_collectstatic() -> None:
    for url in ("/static/fairdeal/site.css", "/static/fairdeal/api-docs.css"):
        response = Client().get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("text/css")


def test_the_policy_built_once_is_the_one_django_csp_builds_and_follows_the_settings(
    settings: object,
) -> None:
    """The header is the policy django-csp builds, and follows a changed setting."""
    from csp.utils import build_policy

    client = Client()
    assert client.get("/").headers["Content-Security-Policy"] == build_policy()
    assert "Content-Security-Policy-Report-Only" not in client.get("/").headers
    directives = {"default-src": ["'self'"], "img-src": ["'self'", "https://cards.example"]}
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": directives}  # type: ignore[attr-defined]
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {  # type: ignore[attr-defined]
        "DIRECTIVES": {"default-src": ["'none'"]}
    }
    response = client.get("/")
    assert set(response.headers["Content-Security-Policy"].split("; ")) == {
        "default-src 'self'",
        "img-src 'self' https://cards.example",
    }
    assert response.headers["Content-Security-Policy-Report-Only"] == "default-src 'none'"
    api = client.get("/api/games/").headers["Content-Security-Policy"]
    assert "default-src 'self'" in api.split("; ")
