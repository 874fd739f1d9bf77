"""The verification pages: a table's (the commitment from the start, the seed and the
record at the end), and the page that checks any record file in the browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from csp.constants import WASM_UNSAFE_EVAL
from csp.decorators import csp_update
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse

from fairplay import browser_check
from fairplay.keys import public_key_document
from fairplay.publishing import signer_document
from fairplay.services import contributions_of
from games.archive import may_watch
from games.models import Table
from games.privacy import may_see

# Pyodide compiles its WebAssembly (WebAssembly.instantiateStreaming), which a policy
# without 'wasm-unsafe-eval' refuses; only the pages that run the verifier allow it.
# Never 'unsafe-eval': no JavaScript is made from strings (docs/deploy.md).
render_with_webassembly: Callable[..., HttpResponse] = csp_update(
    {"script-src": [WASM_UNSAFE_EVAL]}
)(render)


def verify_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = Table.objects.select_related("created_by").filter(pk=table_id).first()
    if table is None or not may_see(table, request.user):  # a private table: its players'
        raise Http404("There is no such table.")
    if not may_watch(table, request.user):  # a game its players keep to themselves
        raise Http404("There is no such table.")
    finished = table.status == Table.Status.FINISHED
    contributions: list[dict[str, Any]] = [
        {
            "seat": c.seat,
            "receipt": c.receipt,
            # The entropy itself is shown once the game has ended, with the seed.
            "entropy": bytes(c.entropy).hex() if finished else None,
        }
        for c in contributions_of(table)
    ]
    placings = (
        [
            {"seat": seat, "place": place, "total": total}
            for seat, (place, total) in enumerate(
                zip(table.result["places"], table.result["totals"], strict=True)
            )
        ]
        if finished
        else []
    )
    record_url = reverse("table-record", args=[table.pk])
    context = {
        "table": table,
        "seats": table.seats.select_related("user").order_by("number"),
        "finished": finished,
        "cancelled": table.status == Table.Status.CANCELLED,
        "placings": placings,
        "contributions": contributions,
        "server_seed": bytes(table.server_seed).hex() if finished else None,
        "game_seed": bytes(table.game_seed).hex() if finished and table.game_seed else None,
        "record_url": record_url,
        "download_url": f"{record_url}?download=1",
        "absolute_record_url": request.build_absolute_uri(f"{record_url}?download=1"),
        # The key that signed this table's record, not the one in force now: they differ
        # after a change of key (the key list says when each signed).
        "key": signer_document(table) if finished else public_key_document(),
        "key_url": request.build_absolute_uri(reverse("fairplay-key")),
        "key_list_url": request.build_absolute_uri(reverse("fairplay-keys")),
    }
    if not finished:
        return render(request, "fairplay/verify.html", context)
    context["browser_check"] = browser_check_context(
        record_url=record_url, record_name=f"fairdeal-table-{table.pk}.json", key=context["key"]
    )
    return render_check(request, "fairplay/verify.html", context)


def verify_any_page(request: HttpRequest) -> HttpResponse:
    """Check a record file, from this server or any other, in the browser."""
    key = public_key_document()
    context = {
        "key": key,
        "key_url": request.build_absolute_uri(reverse("fairplay-key")),
        "key_list_url": request.build_absolute_uri(reverse("fairplay-keys")),
        "browser_check": browser_check_context(record_url=None, record_name=None, key=None),
    }
    return render_check(request, "fairplay/verify_any.html", context)


def render_check(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """A page that offers the check in the browser: it may compile WebAssembly, if this
    server has what the check loads."""
    if context["browser_check"]["missing"]:
        return render(request, template, context)
    return render_with_webassembly(request, template, context)


def browser_check_context(
    *, record_url: str | None, record_name: str | None, key: dict[str, Any] | None
) -> dict[str, Any]:
    """What ``fairplay/browser_check.html`` needs: the files the check loads (only when the
    player asks), the table's record if there is one, the key to pin by default."""
    missing = browser_check.missing()
    if missing:
        return {"missing": missing}
    wheels = browser_check.wheels()
    sizes = [browser_check.pyodide_dir() / name for name in browser_check.PYODIDE_FILES]
    return {
        "missing": [],
        "pyodide": static(f"{browser_check.PYODIDE}/pyodide.mjs"),
        "wheels": [static(f"{browser_check.WHEELS}/{path.name}") for path in wheels],
        # The verifier's own wheel (the last): for the command line too, from this site.
        "verifier": static(f"{browser_check.WHEELS}/{wheels[-1].name}"),
        "verifier_name": wheels[-1].name,
        "megabytes": round(sum(path.stat().st_size for path in [*sizes, *wheels]) / 1e6),
        "record_url": record_url,
        "record_name": record_name,
        "keys_url": reverse("fairplay-keys"),
        "key": key["public_key"] if key else "",
    }
