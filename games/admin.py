"""The tables, their seats and their logs, for an operator to look at, and staff's two actions.

A game changes only through ``games.services``: its row's caches (the state, the
seats as shown, the tail of its log) are written with what they come from, under
the row's lock, and its log is the truth a record is signed over. So the admin
shows them and changes none, deletes none (a deleted table would take its rating
changes with it, behind the ratings' back), and adds none. A table's game shows
as its public view: what anyone watching sees. Its seeds and its whole state
show only once the game has ended, when its record publishes them anyway.

Staff act on tables through two admin actions, each asking why, each a service
that logs it (``games.staff``, :class:`leaderboard.models.StaffAction`): call off
a table still waiting for players, and void a rated table.
"""

import json
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html

from config.errors import ServiceError
from games import selectors, staff
from games.models import Heartbeat, Move, OutboxItem, Seat, Table


class LookOnly:
    """An admin that shows and never adds, changes or deletes."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=2000,
        help_text="Why: it goes in the staff actions' log with your name and the time.",
    )


def may_act(request: HttpRequest) -> bool:
    """Staff actions are for staff given the right to log them (superusers have it)."""
    return bool(request.user.has_perm("leaderboard.add_staffaction"))


def ask_reason_then(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    rows: QuerySet[Any],
    *,
    title: str,
    act: Callable[[Any, str], Any],
    name: Callable[[Any], str],
) -> HttpResponse | None:
    """An admin action that asks staff why first, then calls ``act(row, reason)`` (a
    service that logs it) for each selected row; each refusal is shown with its words."""
    form = ReasonForm(request.POST if "confirm" in request.POST else None)
    if form.is_bound and form.is_valid():
        done = 0
        for row in rows:
            try:
                act(row, form.cleaned_data["reason"])
            except ServiceError as error:
                model_admin.message_user(request, f"{name(row)}: {error.message}", messages.ERROR)
            else:
                done += 1
        if done:
            model_admin.message_user(request, f"{title}: {done} done, and logged.")
        return None
    opts = model_admin.model._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": opts,
        "title": title,
        "rows": [name(row) for row in rows],
        "selected": [str(row.pk) for row in rows],
        "checkbox": ACTION_CHECKBOX_NAME,
        "action": request.POST.get("action", ""),
        "form": form,
    }
    return TemplateResponse(request, "admin/staff_action.html", context)


class SeatInline(LookOnly, admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Table)
class TableAdmin(LookOnly, admin.ModelAdmin):
    list_display = ("id", "game", "status", "rated", "seat_count", "version", "created_at")
    list_filter = ("status", "game", "rated")
    inlines = [SeatInline]
    # The seed, the state and the last moves' events are secret while the game runs:
    # ``public_view`` shows what is public, ``after_the_end`` the rest once it has ended.
    exclude = ("server_seed", "game_seed", "state", "log_tail")
    readonly_fields = ("public_view", "after_the_end")
    actions = ["cancel_tables", "void_tables"]

    @admin.display(description="the game, as anyone watching sees it")
    def public_view(self, table: Table) -> str:
        view = selectors.table_view(table, AnonymousUser())
        return format_html("<pre>{}</pre>", json.dumps(view, indent=2, ensure_ascii=False))

    @admin.display(description="seeds and state, once the game has ended")
    def after_the_end(self, table: Table) -> str:
        if table.status != Table.Status.FINISHED:
            return "secret until the game ends"
        shown = {
            "server_seed": bytes(table.server_seed).hex(),
            "game_seed": bytes(table.game_seed).hex() if table.game_seed else None,
            "state": table.state,
        }
        return format_html("<pre>{}</pre>", json.dumps(shown, indent=2, ensure_ascii=False))

    def get_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        views = ["public_view", "after_the_end"]
        return [*(f for f in super().get_fields(request, obj) if f not in views), *views]

    @admin.action(
        description="Cancel tables still waiting for players (asks why)",
        permissions=["staff_action"],
    )
    def cancel_tables(self, request: HttpRequest, tables: QuerySet[Table]) -> HttpResponse | None:
        return ask_reason_then(
            self,
            request,
            tables,
            title="Cancel tables",
            act=lambda table, reason: staff.cancel_table(
                staff=request.user, table_id=table.pk, reason=reason
            ),
            name=str,
        )

    @admin.action(
        description="Void rated tables: they never count, the ratings after are redone (asks why)",
        permissions=["staff_action"],
    )
    def void_tables(self, request: HttpRequest, tables: QuerySet[Table]) -> HttpResponse | None:
        return ask_reason_then(
            self,
            request,
            tables,
            title="Void rated tables",
            act=lambda table, reason: staff.void_table(
                staff=request.user, table_id=table.pk, reason=reason
            ),
            name=str,
        )

    def has_staff_action_permission(self, request: HttpRequest) -> bool:
        return may_act(request)


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
