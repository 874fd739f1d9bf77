"""Private tables, invitations and rematches through the API (issue 33, items 1 and 2).

A private table is out of the lobby and, to anybody not seated or invited, answers as a
table that does not exist; its link joins, until the host revokes it; a player invited
by name is mailed and may decline. A finished table may be played again: a rematch
deals when every player has accepted, and lapses otherwise.
"""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes
from typing import Any

import pytest
from django.conf import settings
from django.core import signing
from django.utils import timezone

from accounts.mail_preferences import UNSUBSCRIBE_SALT, mail_preferences_update
from games import outbox, services
from games.models import Invitation, Table
from tests.factories import (
    TABLES,
    assert_error,
    at_once,
    body,
    client_for,
    finished_table,
    make_users,
    open_table,
    table_url,
    then_drained,
)

pytestmark = pytest.mark.django_db


def private_table(host: Any, seats: int = 3) -> tuple[Table, str]:
    """A private table of ``host``'s and its link's secret, as the API gave it to the host."""
    response = client_for(host).post(
        TABLES,
        {"game": "crazy-eights", "seats": seats, "deadline": 86400, "private": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    data = body(response)
    assert data["is_private"] is True
    token = data["invitation"]["token"]
    assert data["invitation"]["url"] == f"/tables/{data['id']}/invite/{token}/"
    return Table.objects.get(pk=data["id"]), token


def same_as_no_table(response: Any, table_id: int) -> None:
    """The answer a table that does not exist gets: 404, `not_found`, the same words."""
    data = assert_error(response, 404, "not_found")
    assert data["detail"] == f"there is no table {table_id}"


# -- private tables ------------------------------------------------------------------------


def test_a_private_table_is_not_in_the_lobby_and_is_no_table_to_a_stranger() -> None:
    alice, carol = make_users("alice", "carol")
    table, _ = private_table(alice)
    public = open_table(alice)
    stranger = client_for(carol)

    listed = body(stranger.get(TABLES))
    assert [row["id"] for row in listed["open"]] == [public.pk]
    assert listed["open_count"] == 1
    assert [row["id"] for row in body(client_for().get(TABLES))["open"]] == [public.pk]
    for response in [
        stranger.get(table_url(table.pk)),
        client_for().get(table_url(table.pk)),
        stranger.post(table_url(table.pk, "join"), {}, format="json"),
        stranger.get(table_url(table.pk, "record")),
        stranger.post(table_url(table.pk, "entropy"), {"entropy": "ab" * 16}, format="json"),
        stranger.post(table_url(table.pk, "cancel")),
        stranger.post(table_url(table.pk, "decline")),
        stranger.post(table_url(table.pk, "invite-link")),
        stranger.post(table_url(table.pk, "moves"), {"version": 0, "action": {}}, format="json"),
        stranger.post(table_url(table.pk, "resign")),
    ]:
        same_as_no_table(response, table.pk)
    # The host sees it, among their own.
    mine = body(client_for(alice).get(TABLES))["mine"]
    assert {row["id"] for row in mine} == {public.pk, table.pk}


def test_the_host_alone_sees_the_link_and_the_link_takes_a_seat(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table, token = private_table(alice)

    with django_assert_max_num_queries(18):
        joined = client_for(bob).post(table_url(table.pk, "join"), {"invite": token}, format="json")

    assert joined.status_code == 200, joined.content
    assert body(joined)["you"]["seat"] == 1
    assert body(joined)["invitation"] is None  # the link is the host's to give
    assert token not in joined.content.decode()
    # Seated, bob sees the table without the link; the host still sees it.
    assert body(client_for(bob).get(table_url(table.pk)))["invitation"] is None
    assert body(client_for(alice).get(table_url(table.pk)))["invitation"]["token"] == token
    # The last seat taken by the link, the cards are dealt; the link is shown no more.
    client_for(carol).post(table_url(table.pk, "join"), {"invite": token}, format="json")
    dealt = body(client_for(alice).get(table_url(table.pk)))
    assert dealt["status"] == "playing" and dealt["invitation"] is None


def test_a_forged_invitation_is_a_404_like_a_table_that_does_not_exist() -> None:
    alice, bob = make_users("alice", "bob")
    table, token = private_table(alice)
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")

    for invite in [forged, "x", token.upper() if token.upper() != token else token.lower()]:
        response = client_for(bob).post(
            table_url(table.pk, "join"), {"invite": invite}, format="json"
        )
        same_as_no_table(response, table.pk)
    missing = client_for(bob).post(table_url(table.pk + 100, "join"), {}, format="json")
    same_as_no_table(missing, table.pk + 100)
    # Not even a well-formed body: a secret that is no token at all is refused as a body.
    assert_error(
        client_for(bob).post(table_url(table.pk, "join"), {"invite": "a b"}, format="json"),
        400,
        "invalid",
    )
    assert not table.seats.filter(user=bob).exists()


def test_a_revoked_invitation_is_a_404_and_a_new_link_joins(
    django_assert_max_num_queries: Any,
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table, token = private_table(alice)
    host = client_for(alice)

    with django_assert_max_num_queries(6):
        revoked = host.delete(table_url(table.pk, "invite-link"))
    assert revoked.status_code == 200 and body(revoked) == {"token": None, "url": None}
    same_as_no_table(
        client_for(bob).post(table_url(table.pk, "join"), {"invite": token}, format="json"),
        table.pk,
    )
    assert body(host.get(table_url(table.pk)))["invitation"] == {"token": None, "url": None}

    renewed = host.post(table_url(table.pk, "invite-link"))
    assert renewed.status_code == 201
    fresh = body(renewed)["token"]
    assert fresh != token and len(fresh) >= 43
    same_as_no_table(
        client_for(bob).post(table_url(table.pk, "join"), {"invite": token}, format="json"),
        table.pk,
    )
    joined = client_for(carol).post(table_url(table.pk, "join"), {"invite": fresh}, format="json")
    assert joined.status_code == 200
    # Only the host makes or revokes links; a seated player is told so, a stranger nothing.
    assert_error(client_for(carol).delete(table_url(table.pk, "invite-link")), 403, "not_host")
    same_as_no_table(client_for(bob).delete(table_url(table.pk, "invite-link")), table.pk)
    # A table in the lobby has no link.
    public = open_table(alice)
    assert_error(host.post(table_url(public.pk, "invite-link")), 409, "not_private")


def test_a_player_invited_by_name_is_mailed_sees_the_table_and_may_join(
    mailoutbox: list, django_capture_on_commit_callbacks: Any, django_assert_max_num_queries: Any
) -> None:
    alice, bob = make_users("alice", "bob")
    table, token = private_table(alice)

    host = client_for(alice)
    with then_drained(django_capture_on_commit_callbacks), django_assert_max_num_queries(12):
        response = host.post(table_url(table.pk, "invitations"), {"username": "BOB"}, format="json")

    assert response.status_code == 201
    assert body(response) == {"table": table.pk, "username": "bob", "declined": False}
    (mail,) = mailoutbox
    assert mail.to == ["bob@example.com"]
    assert mail.subject == f"alice invites you to table {table.pk} (Crazy Eights)"
    assert f"{settings.FAIRDEAL_BASE_URL}/tables/{table.pk}/" in mail.body
    assert token not in mail.body  # the link is the host's to give, not ours
    # Drained again, nothing is sent twice.
    outbox.drain()
    assert len(mailoutbox) == 1
    seen = client_for(bob).get(table_url(table.pk))
    assert seen.status_code == 200 and body(seen)["invitation"] is None
    assert client_for(bob).post(table_url(table.pk, "join"), {}, format="json").status_code == 200
    # Seated, there is nothing left to decline.
    assert_error(client_for(bob).post(table_url(table.pk, "decline")), 409, "not_invited")


def test_a_declined_invitation_hides_the_table_again() -> None:
    alice, bob = make_users("alice", "bob")
    table, _ = private_table(alice)
    services_invite(alice, table, "bob")

    declined = client_for(bob).post(table_url(table.pk, "decline"))

    assert declined.status_code == 200
    assert body(declined) == {"table": table.pk, "username": "bob", "declined": True}
    assert Invitation.objects.get(table=table, user=bob).declined_at is not None
    same_as_no_table(client_for(bob).get(table_url(table.pk)), table.pk)
    same_as_no_table(client_for(bob).post(table_url(table.pk, "join"), {}, format="json"), table.pk)
    same_as_no_table(client_for(bob).post(table_url(table.pk, "decline")), table.pk)
    assert Table.objects.get(pk=table.pk).status == "open"  # a private table waits on


def test_an_invitation_by_name_is_refused_in_words() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table, token = private_table(alice)
    client_for(bob).post(table_url(table.pk, "join"), {"invite": token}, format="json")
    host = client_for(alice)

    def invite(client: Any, name: str, table_id: int = table.pk) -> Any:
        return client.post(table_url(table_id, "invitations"), {"username": name}, format="json")

    assert_error(invite(host, "nobody"), 400, "unknown_player")
    assert_error(invite(host, "no one"), 400, "invalid")
    assert_error(invite(host, "bob"), 409, "already_seated")
    assert_error(invite(client_for(bob), "carol"), 403, "not_host")
    same_as_no_table(invite(client_for(carol), "carol"), table.pk)
    assert_error(invite(host, "carol", open_table(alice).pk), 409, "not_private")
    assert_error(
        client_for(carol).post(table_url(open_table(alice).pk, "decline")), 409, "not_invited"
    )
    assert not Invitation.objects.exists()


def services_invite(host: Any, table: Table, name: str) -> None:
    response = client_for(host).post(
        table_url(table.pk, "invitations"), {"username": name}, format="json"
    )
    assert response.status_code == 201, response.content


# -- play again ----------------------------------------------------------------------------


def offer(user: Any, table: Table) -> Any:
    return client_for(user).post(table_url(table.pk, "again"), {}, format="json")


def test_a_rematch_deals_once_every_player_has_accepted(
    mailoutbox: list, django_capture_on_commit_callbacks: Any, django_assert_max_num_queries: Any
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    old = finished_table(alice, bob, carol, rated=False, options={"one_hand": True})

    with then_drained(django_capture_on_commit_callbacks), django_assert_max_num_queries(30):
        offered = offer(bob, old)

    assert offered.status_code == 201, offered.content  # the rematch made
    view = body(offered)
    new = Table.objects.get(pk=view["id"])
    assert view["status"] == "open" and view["you"]["seat"] == 1
    assert (new.game, new.options, new.deadline_seconds, new.rated, new.seat_count) == (
        old.game,
        old.options,
        old.deadline_seconds,
        old.rated,
        3,
    )
    assert new.commitment != old.commitment and new.rematch_of_id == old.pk
    assert [seat["player"] for seat in view["seats"]] == ["alice", "bob", "carol"]
    assert view["rematch"]["of"] == old.pk and view["rematch"]["awaiting"] == [0, 2]
    assert view["rematch"]["until"] is not None
    assert body(client_for(alice).get(table_url(old.pk)))["rematch"]["table"] == new.pk
    # The other two are mailed, once each.
    offers = [mail for mail in mailoutbox if "offers a rematch" in mail.subject]
    assert sorted(mail.to[0] for mail in offers) == ["alice@example.com", "carol@example.com"]
    assert all(f"bob offers a rematch of table {old.pk}" in mail.subject for mail in offers)
    assert all(f"/tables/{new.pk}/" in mail.body for mail in offers)
    # Nobody else can take a kept seat; accepted by one, it still waits.
    assert_error(
        client_for(*make_users("dave")).post(table_url(new.pk, "join"), {}, format="json"),
        409,
        "table_full",
    )
    accepted = client_for(alice).post(table_url(new.pk, "join"), {}, format="json")
    assert body(accepted)["status"] == "open" and body(accepted)["rematch"]["awaiting"] == [2]
    # The last one accepts (from the old table, as the page's button does): the deal.
    dealt = offer(carol, old)
    assert dealt.status_code == 200  # accepted: nothing made
    assert body(dealt)["id"] == new.pk and body(dealt)["status"] == "playing"
    assert body(dealt)["you"]["seat"] == 2 and len(body(dealt)["you"]["hand"]) > 0
    # Sent again, it leads to the rematch: a table is played again once at a time.
    again = offer(alice, old)
    assert again.status_code == 200 and body(again)["id"] == new.pk
    assert Table.objects.count() == 2


def test_a_rematch_against_bots_alone_starts_at_once() -> None:
    (alice,) = make_users("alice")
    old = services.table_create(
        user=alice,
        game="crazy-8",
        seats=2,
        deadline=3600,
        bots=[{"seat": 1, "level": "easy"}],
    )
    services.table_resign(table_id=old.pk, user=alice)

    view = body(offer(alice, Table.objects.get(pk=old.pk)))

    assert view["status"] == "playing" and view["rematch"] == {
        "of": old.pk,
        "table": None,
        "until": None,
        "awaiting": [],
    }
    assert [(seat["bot"], seat["level"]) for seat in view["seats"]] == [
        (False, None),
        (True, "easy"),
    ]


def test_a_rematch_not_accepted_within_a_day_lapses(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = make_users("alice", "bob")
    old = finished_table(alice, bob)
    new = Table.objects.get(pk=body(offer(alice, old))["id"])
    assert new.rematch_until is not None
    day = timedelta(seconds=settings.FAIRDEAL_REMATCH_SECONDS)
    assert new.rematch_until - new.created_at == pytest.approx(day, abs=timedelta(seconds=5))
    early = services.expire_open_tables(now=new.rematch_until - timedelta(seconds=1))
    assert early == [] and Table.objects.get(pk=new.pk).status == "open"
    with then_drained(django_capture_on_commit_callbacks):
        lapsed = services.expire_open_tables(now=new.rematch_until)

    assert lapsed == [new.pk]
    new.refresh_from_db()
    assert (new.status, new.end_reason) == ("cancelled", "expired")
    called_off = [mail for mail in mailoutbox if "will not be played" in mail.subject]
    assert sorted(mail.to[0] for mail in called_off) == ["alice@example.com", "bob@example.com"]
    assert all("was not accepted by every player" in mail.body for mail in called_off)
    assert_error(
        client_for(bob).post(table_url(new.pk, "join"), {}, format="json"), 409, "not_open"
    )
    # Lapsed, the table may be offered again.
    again = body(offer(bob, old))
    assert again["id"] != new.pk and again["status"] == "open"


def test_a_stranger_cannot_offer_or_accept_a_rematch() -> None:
    alice, bob, mallory = make_users("alice", "bob", "mallory")
    old = finished_table(alice, bob)
    new = body(offer(alice, old))["id"]

    assert_error(offer(mallory, old), 403, "not_seated")
    assert_error(
        client_for(mallory).post(table_url(new, "join"), {}, format="json"), 409, "table_full"
    )
    assert_error(client_for(mallory).post(table_url(new, "decline")), 409, "not_invited")
    assert Table.objects.get(pk=new).status == "open"
    assert list(Table.objects.get(pk=new).seats.values_list("user__username", flat=True)) == [
        "alice",
        "bob",
    ]
    # A table still playing is not played again.
    playing = open_table(alice)
    assert_error(offer(alice, playing), 409, "not_finished")


def test_a_declined_rematch_is_called_off_and_its_offerer_told(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = make_users("alice", "bob")
    old = finished_table(alice, bob)
    new = body(offer(alice, old))["id"]
    mailoutbox.clear()

    with then_drained(django_capture_on_commit_callbacks):
        declined = client_for(bob).post(table_url(new, "decline"))

    assert declined.status_code == 200
    table = Table.objects.get(pk=new)
    assert (table.status, table.end_reason) == ("cancelled", "cancelled")
    # The offerer is told who declined; the player who declined is not told their own news.
    (called_off,) = [mail for mail in mailoutbox if "will not be played" in mail.subject]
    assert called_off.to == ["alice@example.com"]
    assert f"the rematch of table {old.pk} was declined by bob." in called_off.body
    assert body(client_for(alice).get(table_url(old.pk)))["rematch"] is None
    assert_error(client_for(alice).post(table_url(new, "join"), {}, format="json"), 409, "not_open")


def test_a_rematch_its_offerer_calls_off_is_news_to_the_others_only(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    old = finished_table(alice, bob, carol)
    new = body(offer(alice, old))["id"]
    mailoutbox.clear()

    with then_drained(django_capture_on_commit_callbacks):
        cancelled = client_for(alice).post(table_url(new, "cancel"))

    assert cancelled.status_code == 200, cancelled.content
    called_off = [mail for mail in mailoutbox if "will not be played" in mail.subject]
    assert sorted(mail.to[0] for mail in called_off) == ["bob@example.com", "carol@example.com"]
    for mail in called_off:
        assert (
            f"the rematch of table {old.pk} was called off by the player who offered it."
            in mail.body
        )


def test_a_private_rematch_stays_private() -> None:
    alice, bob, carol = make_users("alice", "bob", "carol")
    table, token = private_table(alice, seats=2)
    client_for(bob).post(table_url(table.pk, "join"), {"invite": token}, format="json")
    services.table_resign(table_id=table.pk, user=bob)

    new = body(offer(bob, table))["id"]

    assert Table.objects.get(pk=new).private
    same_as_no_table(client_for(carol).get(table_url(new)), new)
    same_as_no_table(offer(carol, table), table.pk)
    assert client_for(alice).get(table_url(new)).status_code == 200


def test_the_lapse_is_found_by_its_index() -> None:
    """The lapse's query reads the rematches waiting through ``table_rematch_due``."""
    from django.db import connection

    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        cursor.execute(
            "EXPLAIN SELECT id FROM games_table WHERE status = 'open'"
            " AND rematch_until <= %s ORDER BY rematch_until, id LIMIT 200",
            [now],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "table_rematch_due" in plan, plan


@pytest.mark.django_db(transaction=True)
def test_players_offering_at_once_make_one_rematch_that_deals() -> None:
    """Each offer locks the finished table first: the second finds the first's rematch and
    accepts it, so two players pressing Play again at once get one table, dealt."""
    alice, bob = make_users("alice", "bob")
    old = finished_table(alice, bob)

    results = at_once(
        lambda: services.table_again(table_id=old.pk, user=alice)[0],
        lambda: services.table_again(table_id=old.pk, user=bob)[0],
    )

    assert all(isinstance(result, Table) for result in results), results
    (rematch,) = Table.objects.filter(rematch_of=old)
    assert {result.pk for result in results} == {rematch.pk}
    assert rematch.status == Table.Status.PLAYING


def test_an_invitation_mail_carries_its_one_click_unsubscribe_and_a_player_may_turn_it_off(
    mailoutbox: list, django_capture_on_commit_callbacks: Any
) -> None:
    """Another player's request sends it: a kind of mail like the others (RFC 8058)."""
    alice, bob, carol = make_users("alice", "bob", "carol")
    table, _ = private_table(alice)
    mail_preferences_update(user=carol, changes={"invitations": False})
    host = client_for(alice)

    with then_drained(django_capture_on_commit_callbacks):
        for name in ("bob", "carol"):
            response = host.post(
                table_url(table.pk, "invitations"), {"username": name}, format="json"
            )
            assert response.status_code == 201

    (mail,) = mailoutbox  # carol turned invitations off: the invitation stands, unmailed
    assert mail.to == ["bob@example.com"]
    headers = message_from_bytes(mail.message().as_bytes())
    link = "".join(headers["List-Unsubscribe"].split())[1:-1]
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link in mail.body
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert signing.loads(token, salt=UNSUBSCRIBE_SALT) == {"user": bob.pk, "kind": "invitations"}
    assert Invitation.objects.filter(table=table, user=carol, declined_at=None).exists()
