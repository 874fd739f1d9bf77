"""Ratings in the admin, to read: they change only through leaderboard.services.

The rating changes' list links to the pairs report (``manage.py
rating_pairs_report``) at ``pairs/`` and the farming report (``manage.py
rating_farm_report``) at ``farming/``, the same selectors. The ratings' list has
staff's one action on ratings: void the selected players' rated games of that
game (``leaderboard.staff.void_player``, logged). The staff actions' log and the
tables left out of the ratings are shown, never changed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone

from games.admin import LookOnly, ask_reason_then, may_act
from leaderboard import selectors
from leaderboard.models import (
    Rating,
    RatingChange,
    RatingLedger,
    RatingOpponent,
    StaffAction,
    UnratedTable,
)
from leaderboard.selectors import lopsided_pairs
from leaderboard.staff import void_player


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("player", "game", "mu", "sigma", "games", "opponents", "last_played_at")
    list_filter = ("game",)
    search_fields = ("player__username",)
    readonly_fields = ("player", "game", "mu", "sigma", "games", "opponents", "last_played_at")
    actions = ["void_players"]

    @admin.action(
        description="Void these players' rated games of the game: the ratings after are redone"
        " (asks why)",
        permissions=["staff_action"],
    )
    def void_players(self, request: HttpRequest, ratings: QuerySet[Rating]) -> HttpResponse | None:
        return ask_reason_then(
            self,
            request,
            ratings.select_related("player"),
            title="Void players' rated games",
            act=lambda rating, reason: void_player(
                staff=request.user, player=rating.player, reason=reason, game=rating.game
            ),
            name=lambda rating: f"{rating.player.get_username()} at {rating.game}",
        )

    def has_staff_action_permission(self, request: HttpRequest) -> bool:
        return may_act(request)


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
        farming = path(
            "farming/",
            self.admin_site.admin_view(self.farming_view),
            name="leaderboard_ratingchange_farming",
        )
        return [pairs, farming, *super().get_urls()]

    def farming_view(self, request: HttpRequest) -> HttpResponse:
        """Players whose rated wins came mostly from new accounts forfeiting early."""
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Rated wins from new accounts that forfeited early",
            "farmers": selectors.farmed_wins(
                since=timezone.now() - timedelta(days=selectors.FARM_DAYS)
            ),
            "days": selectors.FARM_DAYS,
            "early_moves": selectors.FARM_EARLY_MOVES,
            "new_days": selectors.FARM_NEW_DAYS,
            "min_wins": selectors.FARM_MIN_WINS,
            "share": selectors.FARM_SHARE,
        }
        return TemplateResponse(request, "admin/leaderboard/farming.html", context)

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


@admin.register(RatingOpponent)
class RatingOpponentAdmin(LookOnly, admin.ModelAdmin):
    list_display = ("player", "opponent", "game", "table", "finished_at")
    list_select_related = ("player", "opponent", "table")
    list_filter = ("game",)
    search_fields = ("player__username",)


@admin.register(UnratedTable)
class UnratedTableAdmin(LookOnly, admin.ModelAdmin):
    """Rated tables the ratings leave out, and why."""

    list_display = ("table", "reason", "detail", "action", "created_at")
    list_select_related = ("table", "action")
    list_filter = ("reason",)


@admin.register(StaffAction)
class StaffActionAdmin(LookOnly, admin.ModelAdmin):
    """The log of what staff did to tables and ratings: who, when, what and why."""

    list_display = ("created_at", "staff_name", "kind", "table", "player", "reason")
    list_select_related = ("table", "player")
    list_filter = ("kind",)
    search_fields = ("staff_name", "player__username", "reason")
