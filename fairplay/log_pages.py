"""The commitment log's page: its latest checkpoint, and what its entries say day by day."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from fairplay import commitments
from fairplay.keys import public_key_document

DAYS = 30


def log_page(request: HttpRequest) -> HttpResponse:
    head = commitments.latest()
    days = commitments.daily(DAYS)
    context = {
        "head": head,
        "days": days,
        "shown_days": DAYS,
        "totals": {name: sum(day[name] for day in days) for name in commitments.DAILY},
        "key": public_key_document(),
        "checkpoint_url": request.build_absolute_uri(reverse("log-checkpoint")),
        "consistency_url": request.build_absolute_uri(reverse("log-consistency")),
        "key_list_url": request.build_absolute_uri(reverse("fairplay-keys")),
    }
    return render(request, "fairplay/log.html", context)
