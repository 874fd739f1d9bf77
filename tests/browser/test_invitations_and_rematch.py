"""Private tables, invitations and rematches in Chromium (issue 33, items 1 and 2).

Ann opens a private table from the new table form and finds its link on the table
page; Ben, signed out, follows it, signs up on the way and takes his seat. A forged
link and the link once revoked are the 404 page of a table that does not exist; so
is the table to a stranger, and it is not in the lobby. Cat, invited by name,
declines from "my tables". At the end, Play again offers a rematch; the other player
accepts it from "my tables" and the cards are dealt; a stranger cannot accept.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Invitation, Table
from tests.factories import finished_table, make_users

pytestmark = [pytest.mark.django_db(transaction=True)]

NO_TABLE = "There is no such table."


def test_a_private_table_is_joined_by_its_link_and_hidden_from_strangers(
    browser: Any, site: str, log_in: Any, serious_violations: Any, shot: Any
) -> None:
    ann, cat, dan = make_users("ann", "cat", "dan")
    host = browser.new_context().new_page()
    log_in(host, "ann")
    host.goto(f"{site}/tables/new/?game=crazy-eights")
    host.get_by_label("Seats").select_option("3")
    host.get_by_label("Private").check()
    host.get_by_role("button", name=re.compile("Open the table", re.I)).click()
    table = Table.objects.get(created_by=ann)
    assert table.private
    link = host.get_by_label("Its invitation link")
    expect(link).to_have_value(re.compile(rf"/tables/{table.pk}/invite/[A-Za-z0-9_-]{{43}}/$"))
    url = link.input_value()
    assert serious_violations(host) == []
    shot(host, "private-table-host-desktop")

    # A stranger: not in the lobby, the table and a forged link are no table at all.
    stranger = browser.new_context().new_page()
    log_in(stranger, "dan")
    stranger.goto(f"{site}/lobby/")
    expect(stranger.locator(f"a[href='/tables/{table.pk}/']")).to_have_count(0)
    for address in (f"{site}/tables/{table.pk}/", url[:-2] + "x/", url.replace("invite", "x")):
        response = stranger.goto(address)
        assert response is not None and response.status == 404, address
    response = stranger.goto(url[:-2] + "x/")
    expect(stranger.locator("body")).to_contain_text(NO_TABLE)

    # Cat, invited by name, is told on "my tables" and declines there.
    host.get_by_label("Invite a player by name").fill("cat")
    host.get_by_role("button", name="Invite", exact=True).click()
    expect(host.locator("body")).to_contain_text("cat is invited")
    invited = browser.new_context().new_page()
    log_in(invited, "cat")
    invited.goto(f"{site}/tables/")
    row = invited.locator(f"#invitation-{table.pk}")
    expect(row).to_contain_text("ann invites you")
    row.get_by_role("button", name="Decline").click()
    expect(invited.locator("body")).to_contain_text(
        f"You declined the invitation to table {table.pk}"
    )
    assert Invitation.objects.get(user=cat).declined_at is not None
    assert invited.goto(f"{site}/tables/{table.pk}/").status == 404

    # Ben follows the link signed out: he signs up on the way, and comes back to take his seat.
    guest = browser.new_context().new_page()
    guest.goto(url)
    expect(guest).to_have_url(re.compile(r"/accounts/login/\?next="))
    guest.locator("#main").get_by_role("link", name="Sign up").click()
    guest.get_by_label("Username").fill("ben")
    guest.get_by_label("E-mail address").fill("ben@example.com")
    guest.locator("#id_password1").fill("a long and unusual passphrase 7")
    guest.locator("#id_password2").fill("a long and unusual passphrase 7")
    guest.get_by_role("button", name="Create my account").click()
    expect(guest.get_by_role("heading", level=1)).to_have_text(
        f"ann invites you to table {table.pk}"
    )
    assert serious_violations(guest) == []
    guest.get_by_role("button", name="Take a seat").click()
    expect(guest).to_have_url(f"{site}/tables/{table.pk}/")
    expect(guest.locator("body")).to_contain_text("You sit in seat 1")

    # The host revokes the link: it is no table any more, and a new one is made.
    host.reload()
    host.get_by_role("button", name="Revoke the link").click()
    expect(host.locator("body")).to_contain_text("The invitation link is revoked")
    assert stranger.goto(url).status == 404
    host.get_by_role("button", name="Make a new link").click()
    fresh = host.get_by_label("Its invitation link").input_value()
    assert fresh != url and f"/tables/{table.pk}/invite/" in fresh
    assert stranger.goto(fresh).status == 200  # the new link leads to the table
    assert dan not in [seat.user for seat in table.seats.all()]


def test_play_again_offers_a_rematch_that_deals_when_the_other_accepts(
    browser: Any, site: str, log_in: Any, serious_violations: Any, shot: Any
) -> None:
    ann, ben, dan = make_users("ann", "ben", "dan")
    old = finished_table(ann, ben)

    offerer = browser.new_context().new_page()
    log_in(offerer, "ann")
    offerer.goto(f"{site}/tables/{old.pk}/")
    offerer.get_by_role("button", name="Play again").click()
    new = Table.objects.get(rematch_of=old)
    expect(offerer).to_have_url(f"{site}/tables/{new.pk}/")
    expect(offerer.locator("#waiting-heading")).to_contain_text(f"A rematch of table {old.pk}")
    expect(offerer.locator(".waiting")).to_contain_text("Waiting for ben")
    expect(offerer.locator("#board-heading")).to_have_text("Waiting for ben to accept the rematch.")
    assert serious_violations(offerer) == []
    shot(offerer, "rematch-offered-desktop")

    # A stranger sees no button to accept it, and a forged acceptance takes no seat.
    stranger = browser.new_context().new_page()
    log_in(stranger, "dan")
    stranger.goto(f"{site}/tables/{new.pk}/")
    expect(stranger.get_by_role("button", name="Accept the rematch")).to_have_count(0)
    expect(stranger.get_by_role("button", name="Take a seat")).to_have_count(0)
    with pytest.raises(services.TableFull):
        services.table_join(table_id=new.pk, user=dan)

    # Ben accepts from "my tables": the cards are dealt.
    other = browser.new_context().new_page()
    log_in(other, "ben")
    other.goto(f"{site}/tables/")
    row = other.locator(f"#invitation-{new.pk}")
    expect(row).to_contain_text(f"ann offers a rematch of table {old.pk}")
    assert serious_violations(other) == []
    row.get_by_role("button", name="Accept").click()
    expect(other).to_have_url(f"{site}/tables/{new.pk}/")
    new.refresh_from_db()
    assert new.status == Table.Status.PLAYING
    expect(other.locator("#board")).not_to_contain_text("Waiting for players")
    # The old table's end leads to the rematch.
    offerer.goto(f"{site}/tables/{old.pk}/")
    expect(offerer.locator(".result")).to_contain_text(f"A rematch is offered: table {new.pk}")


def test_a_rematch_nobody_accepts_in_time_lapses_and_says_so(
    browser: Any, site: str, log_in: Any, serious_violations: Any
) -> None:
    ann, ben = make_users("ann", "ben")
    old = finished_table(ann, ben)
    page = browser.new_context().new_page()
    log_in(page, "ben")
    page.goto(f"{site}/tables/{old.pk}/")
    page.get_by_role("button", name="Play again").click()
    new = Table.objects.get(rematch_of=old)
    expect(page.locator(".waiting")).to_contain_text("then the offer lapses")

    assert services.expire_open_tables(now=new.rematch_until) == [new.pk]

    page.reload()
    expect(page.locator("#board")).to_contain_text(
        f"This rematch of table {old.pk} was called off: not every player accepted it in time."
    )
    assert serious_violations(page) == []
    # Ann, who never answered, finds no invitation left, and may offer it again herself.
    other = browser.new_context().new_page()
    log_in(other, "ann")
    other.goto(f"{site}/tables/")
    expect(other.locator(f"#invitation-{new.pk}")).to_have_count(0)
    other.goto(f"{site}/tables/{old.pk}/")
    other.get_by_role("button", name="Play again").click()
    expect(other.locator("#waiting-heading")).to_contain_text(f"A rematch of table {old.pk}")
    assert Table.objects.filter(rematch_of=old, status=Table.Status.OPEN).count() == 1
