"""Production as it is deployed: Django's deploy checks pass, and collectstatic gathers
every asset the pages need, which WhiteNoise then serves under hashed names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fairplay import browser_check
from tests.test_settings import GOOD_PRODUCTION, ROOT

SWAGGER_UI = "drf_spectacular_sidecar/swagger-ui-dist"
# What the API docs page and its init script load, and the site's own style sheets.
ASSETS = [
    f"{SWAGGER_UI}/swagger-ui.css",
    f"{SWAGGER_UI}/swagger-ui-bundle.js",
    f"{SWAGGER_UI}/swagger-ui-standalone-preset.js",
    f"{SWAGGER_UI}/favicon-32x32.png",
    "fairdeal/api-docs.css",
    "fairdeal/site.css",
    # What the check in the browser loads: Pyodide's core from npm, the wheels.
    *browser_check.served(),
]


def manage(*args: str, **environment: str) -> subprocess.CompletedProcess[str]:
    """``manage.py`` in a fresh interpreter with complete production settings."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        **GOOD_PRODUCTION,
        **environment,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("static")
    done = manage("collectstatic", "--noinput", STATIC_ROOT=str(root))
    assert done.returncode == 0, done.stderr[-3000:]
    return root


def test_the_deploy_checks_find_nothing_in_complete_production_settings() -> None:
    # The database named in GOOD_PRODUCTION does not exist: the checks need none.
    done = manage("check", "--deploy")
    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout, done.stdout + done.stderr


def test_the_deploy_checks_refuse_a_signing_key_that_is_not_one(tmp_path: Path) -> None:
    garbage = tmp_path / "signing.pem"
    garbage.write_text("garbage\n")
    done = manage(
        "check", "--deploy", FAIRDEAL_SIGNING_KEY="", FAIRDEAL_SIGNING_KEY_FILE=str(garbage)
    )
    assert done.returncode != 0
    assert "is not a readable Ed25519 private key" in done.stderr, done.stderr[-2000:]


def test_collectstatic_gathers_every_asset_the_pages_need(static_root: Path) -> None:
    manifest = json.loads((static_root / "staticfiles.json").read_text())["paths"]
    for asset in ASSETS:
        assert asset in manifest, asset
        hashed = static_root / manifest[asset]
        assert hashed.is_file(), hashed
        assert hashed.name != Path(asset).name  # the name carries the content's hash
        if hashed.suffix in (".css", ".js", ".mjs", ".wasm"):
            assert hashed.with_name(hashed.name + ".gz").is_file()  # compressed ahead of time


SERVE = """
import json, re
import django
django.setup()
from django.http import HttpResponse
from django.middleware.security import SecurityMiddleware
from django.test import Client, RequestFactory

client = Client(HTTP_HOST="fairdeal.example")
answers = {}
for page in ("/", "/api/docs/", "/verify/"):
    response = client.get(page, secure=True)
    html = response.content.decode()
    answers[page] = {
        "status": response.status_code,
        "hsts": response.get("Strict-Transport-Security"),
        "csp": response.get("Content-Security-Policy"),
        "assets": {},
    }
    for url in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        asset = client.get(url, secure=True)
        answers[page]["assets"][url] = [asset.status_code, asset.get("Cache-Control")]
# Pyodide loads its interpreter by its own name, beside its loader: gzipped, as WebAssembly.
wasm = client.get(
    "/static/fairplay/pyodide/pyodide.asm.wasm", secure=True, HTTP_ACCEPT_ENCODING="gzip"
)
answers["wasm"] = [wasm.status_code, wasm.get("Content-Type"), wasm.get("Content-Encoding")]
script = client.get("/api/docs/?script=", secure=True)
answers["script"] = [script.status_code, script["Content-Type"]]
plain = client.get("/", HTTP_X_FORWARDED_PROTO="https")
answers["plain"] = [plain.status_code, plain.get("Location")]
# The redirect alone, whatever the health view itself answers.
security = SecurityMiddleware(lambda request: HttpResponse("reached"))
plain_requests = RequestFactory(HTTP_HOST="fairdeal.example")
answers["healthz"] = [
    security(plain_requests.get(path)).status_code for path in ("/healthz", "/healthz/", "/api/")
]
print(json.dumps(answers))
"""


def test_production_serves_the_pages_and_their_collected_assets_over_https(
    static_root: Path,
) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **GOOD_PRODUCTION,
        "STATIC_ROOT": str(static_root),
    }
    done = subprocess.run(
        [sys.executable, "-c", SERVE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    for page in ("/", "/api/docs/", "/verify/"):
        assert answers[page]["status"] == 200, answers
        assert answers[page]["hsts"] == "max-age=31536000; includeSubDomains"
        assert "script-src 'self'" in answers[page]["csp"]
        assert answers[page]["assets"], page
        for url, (status, cache) in answers[page]["assets"].items():
            assert status == 200, url
            assert "immutable" in (cache or ""), (url, cache)  # a hashed, collected file
    assert "'wasm-unsafe-eval'" in answers["/verify/"]["csp"]
    assert "'wasm-unsafe-eval'" not in answers["/"]["csp"]
    assert answers["wasm"] == [200, "application/wasm", "gzip"]
    assert answers["script"] == [200, "application/javascript"]
    # Plain HTTP is redirected, whatever X-Forwarded-Proto a client claims...
    assert answers["plain"] == [301, "https://fairdeal.example/"]
    # ...except the health endpoint, which a load balancer asks over plain HTTP.
    assert answers["healthz"] == [200, 200, 301]
