"""The tables, their seats and their logs, for an operator to look at.

A game changes only through ``games.services``: its row's caches (the state, the
seats as shown, the tail of its log) are written with what they come from, under
the row's lock, and its log is the truth a record is signed over. So the admin
shows them and changes none (a table may be deleted, with its seats and log).
Nothing hidden is shown: no seed, no state, no event (a move's private parts).
"""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Heartbeat, Move, OutboxItem, Seat, Table


class LookOnly:
    """An admin that shows and never adds or changes."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(LookOnly, admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Table)
class TableAdmin(LookOnly, admin.ModelAdmin):
    list_display = ("id", "game", "status", "seat_count", "version", "created_at")
    list_filter = ("status", "game")
    inlines = [SeatInline]
    # The seed, the state and the last moves' events are secret while the game runs.
    exclude = ("server_seed", "game_seed", "state", "log_tail")


@admin.register(Move)
class MoveAdmin(LookOnly, admin.ModelAdmin):
    list_display = ("table", "seq", "kind", "seat", "created_at")
    exclude = ("events",)


@admin.register(OutboxItem)
class OutboxItemAdmin(admin.ModelAdmin):
    """Work waiting after a commit: look here when /healthz says mail is waiting."""

    list_display = ("id", "kind", "payload", "attempts", "due_at", "done_at", "created_at")
    list_filter = ("kind", ("done_at", admin.EmptyFieldListFilter))
    readonly_fields = ("kind", "payload", "created_at", "attempts", "last_error", "done_at")


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    list_display = ("name", "at")
    readonly_fields = ("name", "at")
