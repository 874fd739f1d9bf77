"""Ratings in the admin, to read: they change only through leaderboard.services.

The rating changes' list links to the pairs report (``manage.py
rating_pairs_report``), the same selector, at ``pairs/``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from leaderboard.models import Rating, RatingChange, RatingLedger
from leaderboard.selectors import lopsided_pairs


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("player", "game", "mu", "sigma", "games", "last_played_at")
    list_filter = ("game",)
    search_fields = ("player__username",)
    readonly_fields = ("player", "game", "mu", "sigma", "games", "last_played_at")


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    change_list_template = "admin/leaderboard/ratingchange/change_list.html"
    list_display = ("player", "table", "game", "place", "mu_before", "mu_after", "finished_at")
    list_filter = ("game",)
    search_fields = ("player__username",)
    readonly_fields = (
        "player",
        "table",
        "game",
        "finished_at",
        "place",
        "mu_before",
        "sigma_before",
        "last_played_before",
        "mu_after",
        "sigma_after",
        "created_at",
    )

    def get_urls(self) -> list[URLPattern]:
        pairs = path(
            "pairs/",
            self.admin_site.admin_view(self.pairs_view),
            name="leaderboard_ratingchange_pairs",
        )
        return [pairs, *super().get_urls()]

    def pairs_view(self, request: HttpRequest) -> HttpResponse:
        """Pairs with many rated tables together and lopsided results, at the settings' thresholds."""
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Pairs of players with lopsided results",
            "pairs": lopsided_pairs(),
            "min_tables": settings.FAIRDEAL_RATING_PAIR_MIN_TABLES,
            "share": settings.FAIRDEAL_RATING_PAIR_SHARE,
        }
        return TemplateResponse(request, "admin/leaderboard/pairs.html", context)


@admin.register(RatingLedger)
class RatingLedgerAdmin(admin.ModelAdmin):
    list_display = ("game", "through_finished_at", "through_table_id", "updated_at")
    readonly_fields = ("game", "through_finished_at", "through_table_id", "updated_at")
