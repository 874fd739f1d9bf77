"""The verification page: the commitment from the start, the seed and the record at the end."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from fairplay.keys import public_key_document
from fairplay.publishing import signer_document
from fairplay.services import contributions_of
from games.archive import may_watch
from games.models import Table
from games.privacy import may_see


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
    }
    return render(request, "fairplay/verify.html", context)
