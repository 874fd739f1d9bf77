"""The pages of invitations: a private table's link, the host's invitations by name and
their link's renewal or revocation, and declining an invitation (to a private table or
to a rematch). They call :mod:`games.invitations`, as the API's views do.

A link that is wrong or revoked, like a private table to a stranger, is a 404, the
same page as for a table that does not exist.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from accounts.names import is_valid_username
from config.errors import ServiceError
from games import invitations, privacy, selectors, services
from games.catalogue import find_ruleset
from games.forms import deadline_words
from games.table_pages import sentence, table_url


def _login_first(request: HttpRequest, words: str, next_page: str) -> HttpResponse:
    messages.info(request, words)
    return redirect(f"{reverse('login-page')}?{urlencode({'next': next_page})}")


@require_safe
@never_cache
def invite_page(request: HttpRequest, table_id: int, token: str) -> HttpResponse:
    """What a private table's link leads to: who invites, to what, and the button that
    takes a seat (a visitor logs in or signs up first, and comes back here)."""
    table = selectors.table_for_view(table_id)
    if table is None or not privacy.token_matches(table, token):
        raise Http404("There is no such table.")
    here = request.get_full_path()
    if not request.user.is_authenticated:
        return _login_first(
            request, "Log in, or sign up, to take your seat at the table you are invited to.", here
        )
    if any(seat.user_id == request.user.pk for seat in table.seated()):
        return redirect("table-page", table.pk)
    context = {
        "table": table,
        "token": token,
        "host": selectors.host_name(table),
        "ruleset": find_ruleset(table.game, table.ruleset_version),
        "deadline_words": deadline_words(table.deadline_seconds),
        "free": sum(1 for seat in table.seated() if seat.is_free),
    }
    return render(request, "games/invite.html", context)


@require_POST
def invite_link(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host makes a new link (``action=new``) or revokes it (``action=revoke``)."""
    if not request.user.is_authenticated:
        raise Http404("There is no such table.")
    action = request.POST.get("action")
    write = {"new": invitations.new_link, "revoke": invitations.revoke_link}.get(str(action))
    if write is None:
        messages.error(request, "That form asked for nothing this page does. Nothing was changed.")
        return redirect("table-page", table_id)
    try:
        write(table_id=table_id, user=request.user)
    except services.TableNotFound:
        raise Http404("There is no such table.") from None
    except ServiceError as error:
        messages.error(request, f"{sentence(error.message)} Nothing was changed.")
        return redirect("table-page", table_id)
    if action == "new":
        messages.success(request, "Here is a new invitation link; the old one joins nobody now.")
    else:
        messages.success(request, "The invitation link is revoked: it leads nowhere now.")
    return redirect("table-page", table_id)


@require_POST
def invite_by_name(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host invites a player by name: they are mailed, and see the table."""
    if not request.user.is_authenticated:
        raise Http404("There is no such table.")
    username = str(request.POST.get("username", "")).strip()
    if not is_valid_username(username):
        messages.error(request, f"{username!r} is not a player's name. Nobody was invited.")
        return redirect("table-page", table_id)
    try:
        invitation = invitations.invite(table_id=table_id, user=request.user, username=username)
    except services.TableNotFound:
        raise Http404("There is no such table.") from None
    except ServiceError as error:
        messages.error(request, f"{sentence(error.message)} Nobody was invited.")
        return redirect("table-page", table_id)
    name = invitation.user.get_username()
    messages.success(request, f"{name} is invited: we mail them, and they may take a seat.")
    return redirect("table-page", table_id)


@require_POST
def decline(request: HttpRequest, table_id: int) -> HttpResponse:
    """Decline an invitation (to a private table, or to a rematch); then "my tables"."""
    if not request.user.is_authenticated:
        return _login_first(request, "Log in to answer an invitation.", table_url(table_id))
    try:
        table = invitations.decline(table_id=table_id, user=request.user)
    except services.TableNotFound:
        raise Http404("There is no such table.") from None
    except ServiceError as error:
        messages.error(request, f"{sentence(error.message)} Nothing was changed.")
        return redirect("table-page", table_id)
    if table.rematch_of_id is not None:
        messages.success(
            request,
            f"You declined the rematch: table {table.pk} is called off, and the others told.",
        )
    else:
        messages.success(request, f"You declined the invitation to table {table.pk}.")
    return redirect("my-tables")
