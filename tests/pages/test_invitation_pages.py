"""The pages of private tables and invitations (issue 33, item 1), without a browser:
the link's page, the host's forms, declining, and every refusal in words or as the
404 of a table that does not exist."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.urls import reverse

from games import invitations, services
from games.models import Invitation, Table
from tests.factories import make_users
from tests.pages.test_lobby_pages import MINE, browser, join_url, said, table_page, text_of
from tests.test_pages_csp import assert_meets_the_policy

pytestmark = pytest.mark.django_db


def private(host: Any, seats: int = 3) -> Table:
    return services.table_create(
        user=host, game="crazy-eights", seats=seats, deadline=86400, private=True
    )


def invite_page(table: Table, token: str | None = None) -> str:
    return reverse("table-invite-page", args=[table.pk, token or table.invite_token])


def test_the_link_shows_who_invites_to_what_and_joins_with_its_token() -> None:
    ann, ben = make_users("ann", "ben")
    table = private(ann)

    page = browser(ben).get(invite_page(table))

    assert_meets_the_policy(page)
    assert f"ann invites you to table {table.pk}" in text_of(page)
    assert f'name="invite" value="{table.invite_token}"' in page.content.decode()
    joined = browser(ben).post(join_url(table.pk), {"invite": table.invite_token})
    assert joined["Location"] == table_page(table.pk)
    assert "You sit in seat 1" in said(joined)[0]
    # Seated, the link leads to the table.
    assert browser(ben).get(invite_page(table))["Location"] == table_page(table.pk)


def test_a_visitor_following_the_link_logs_in_or_signs_up_first_and_comes_back() -> None:
    (ann,) = make_users("ann")
    table = private(ann)
    link = invite_page(table)

    response = browser().get(link)

    assert response["Location"] == f"{reverse('login-page')}?next={quote(link, safe='')}"
    login = browser().get(response["Location"]).content.decode()
    assert f'href="{reverse("signup")}?next={quote(link)}"' in login
    signup = browser().get(f"{reverse('signup')}?next={quote(link)}")
    assert f'name="next" value="{link}"' in signup.content.decode()
    signed_up = browser().post(
        reverse("signup"),
        {
            "username": "ben",
            "email": "ben@example.com",
            "password1": "a long and unusual passphrase 7",
            "password2": "a long and unusual passphrase 7",
            "next": link,
        },
    )
    assert signed_up["Location"] == link
    # Somewhere else is not a place to go after signing up.
    elsewhere = browser().post(
        reverse("signup"),
        {
            "username": "cat",
            "email": "cat@example.com",
            "password1": "a long and unusual passphrase 7",
            "password2": "a long and unusual passphrase 7",
            "next": "https://elsewhere.example/",
        },
    )
    assert elsewhere["Location"] == MINE


def test_a_forged_or_revoked_link_and_a_stranger_get_the_page_of_no_table() -> None:
    ann, dan = make_users("ann", "dan")
    table = private(ann)
    token = table.invite_token
    invitations.revoke_link(table_id=table.pk, user=ann)

    for client in (browser(dan), browser()):
        absent = text_of(client.get(table_page(table.pk + 100)))
        for address in [
            invite_page(table, token),
            invite_page(table, "forged"),
            table_page(table.pk),
            reverse("table-version", args=[table.pk]),
        ]:
            response = client.get(address)
            assert response.status_code == 404, address
            assert text_of(response) == absent
    refused = browser(dan).post(join_url(table.pk), {"invite": token})
    assert said(refused) == [f"You could not join table {table.pk}: There is no table {table.pk}."]
    assert not table.seats.filter(user=dan).exists()


def test_the_host_invites_by_name_renews_and_revokes_from_the_page() -> None:
    ann, ben, cat = make_users("ann", "ben", "cat")
    table = private(ann)
    host = browser(ann)
    page = host.get(table_page(table.pk)).content.decode()
    assert f"/tables/{table.pk}/invite/{table.invite_token}/" in page

    def post(name: str, data: dict[str, str], client: Any = host) -> Any:
        return client.post(reverse(name, args=[table.pk]), data)

    def last(response: Any) -> str:
        """The message this answer queued (the host's earlier ones wait beside it)."""
        return said(response)[-1]

    invited = post("table-invitations-page", {"username": "ben"})
    assert last(invited) == "ben is invited: we mail them, and they may take a seat."
    assert Invitation.objects.filter(table=table, user=ben).exists()
    assert last(post("table-invitations-page", {"username": "x y"})) == (
        "'x y' is not a player's name. Nobody was invited."
    )
    assert last(post("table-invitations-page", {"username": "nobody"})) == (
        "There is no player called 'nobody'. Nobody was invited."
    )
    old = table.invite_token
    assert "new invitation link" in last(post("table-invite-link-page", {"action": "new"}))
    table.refresh_from_db()
    assert table.invite_token != old
    assert "revoked" in last(post("table-invite-link-page", {"action": "revoke"}))
    table.refresh_from_db()
    assert table.invite_token == ""
    assert "asked for nothing" in last(post("table-invite-link-page", {"action": "x"}))
    # Ben, invited, sees it, with a seat to take and a way to decline; a stranger nothing.
    seen = text_of(browser(ben).get(table_page(table.pk)))
    assert "Take a seat" in seen and "Decline" in seen
    assert post("table-invite-link-page", {"action": "new"}, browser(cat)).status_code == 404
    assert post("table-invitations-page", {"username": "cat"}, browser(cat)).status_code == 404
    # Ben declines: the table is hidden from him again.
    declined = post("table-decline-page", {}, browser(ben))
    assert declined["Location"] == MINE
    assert said(declined) == [f"You declined the invitation to table {table.pk}."]
    assert browser(ben).get(table_page(table.pk)).status_code == 404


def test_my_tables_lists_the_invitations_waiting_for_an_answer(
    django_assert_max_num_queries: Any,
) -> None:
    ann, ben = make_users("ann", "ben")
    table = private(ann)
    invitations.invite(table_id=table.pk, user=ann, username="ben")
    client = browser(ben)

    with django_assert_max_num_queries(8):
        page = client.get(MINE)

    assert "ann invites you" in text_of(page)
    assert f'action="{reverse("table-decline-page", args=[table.pk])}"' in page.content.decode()
    client.post(join_url(table.pk))
    assert "ann invites you" not in text_of(client.get(MINE))
