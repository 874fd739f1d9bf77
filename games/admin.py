from django.contrib import admin

from games.models import Heartbeat, Move, OutboxItem, Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "seat_count", "version", "created_at")
    list_filter = ("status", "game")
    inlines = [SeatInline]
    # The seed and the state cache are secret while the game runs.
    exclude = ("server_seed", "state")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
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
