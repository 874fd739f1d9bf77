from django.contrib import admin

from games.models import Move, Seat, Table


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
