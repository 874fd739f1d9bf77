"""Two people play a rated match of Crazy Eights by clicking, and it moves their ratings.

Ann and Ben sign up in two browsers, Ann opens a rated two-seat table, Ben
joins from the lobby, and they play the match to the end, as in test_play.py
(the same deal). The last move's commit queues ``leaderboard.rate_table`` in
the outbox, which the test drains as beat's next tick would. Then the winner's rating is up and the loser's
down, in the database, on their pages (with the history drawn) and on the
leaderboard, which lists them after one game here: the thresholds are lowered
for the test. Rated play asks for a verified address and an account three days
old: both accounts are given them after signing up, as if their owners had
followed the link and waited.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import EmailVerification
from games import outbox
from games.models import OutboxItem, Table
from games.services import RATE_TABLE
from leaderboard import boards, skill
from leaderboard.models import Rating, RatingChange

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quick_polls")]

DEAL = 109  # test_play.py's: about sixty moves, taking the first button each time


@pytest.fixture(autouse=True)
def one_game_is_enough(settings: Any) -> None:
    settings.FAIRDEAL_RATING_MIN_GAMES = 1
    settings.FAIRDEAL_RATING_MAX_SIGMA = 20.0
    settings.FAIRDEAL_RATING_MIN_OPPONENTS = 0


def may_play_rated(*names: str) -> None:
    """The accounts' addresses verified, and the accounts four days old."""
    users = get_user_model().objects.filter(username__in=names)
    for user in users:
        EmailVerification.objects.update_or_create(
            user=user, defaults={"email": user.email, "verified_at": timezone.now()}
        )
    users.update(date_joined=timezone.now() - timedelta(days=4))


def shown(user_name: str) -> int:
    rating = Rating.objects.get(player__username=user_name, game="crazy-eights")
    return skill.shown(skill.Skill(rating.mu, rating.sigma))


def test_a_rated_match_played_by_clicking_moves_both_ratings_and_lists_them(
    browser: Any,
    site: str,
    shot: Any,
    serious_violations: Any,
    server_errors: Any,
    sign_up: Any,
    fixed_deal: Any,
    fixed_entropy: Any,
    play_to_the_end: Any,
) -> None:
    fixed_deal(DEAL)
    ann = fixed_entropy(browser.new_context(viewport={"width": 1280, "height": 900}), 1).new_page()
    ben = fixed_entropy(browser.new_context(viewport={"width": 360, "height": 740}), 2).new_page()
    errors = [server_errors(ann), server_errors(ben)]
    sign_up(ann, "ann")
    sign_up(ben, "ben")
    may_play_rated("ann", "ben")

    # Ann opens a rated two-seat table.
    ann.goto(site + "/tables/new/")
    ann.get_by_label("Game").select_option("crazy-eights")
    ann.get_by_label("Seats").select_option("2")
    ann.get_by_label("Rated", exact=True).check()
    ann.get_by_role("button", name="Open the table").click()
    expect(ann.locator("body")).to_contain_text("Its seed is committed")
    table = Table.objects.get()
    assert table.rated

    # Ben sees it is rated in the lobby, and joins.
    ben.goto(site + "/lobby/")
    expect(ben.locator(f"#table-{table.pk}")).to_contain_text("rated")
    ben.get_by_role("button", name=re.compile(f"Join.*table {table.pk}")).click()
    expect(ben.locator("#board")).to_be_visible()

    play_to_the_end(table, {"ann": ann, "ben": ben})

    table.refresh_from_db()
    assert table.status == "finished" and table.result["reason"] == "finished"
    places = {seat.user.username: table.result["places"][seat.number] for seat in table.seats.all()}
    winner = min(places, key=places.__getitem__)
    loser = max(places, key=places.__getitem__)
    assert places[winner] == 1 and places[loser] == 2

    # The rating work runs from the outbox, once, after the commit: beat's next drain.
    outbox.drain()
    (item,) = OutboxItem.objects.filter(kind=RATE_TABLE)
    assert item.done_at is not None and item.payload == {"table_id": table.pk}
    assert RatingChange.objects.filter(table=table).count() == 2
    assert shown(winner) > skill.shown(skill.NEW) > shown(loser)
    boards.reckon_all()  # and the boards, as beat reckons them every minute

    # The finished table links each place to the player's page: the winner's shows the rise.
    page = {"ann": ann, "ben": ben}[winner]
    expect(page.locator("#board")).to_contain_text("the game is over", timeout=5000)
    page.locator(".placings").get_by_role("link", name=winner).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(winner)
    ratings = page.locator("#rating-crazy-eights")
    expect(ratings).to_contain_text(str(shown(winner)))
    expect(ratings).to_contain_text("number 1")
    chart = page.get_by_role("img", name=f"{winner}'s Crazy Eights rating, game by game")
    expect(chart).to_be_visible()
    assert chart.locator("circle.change").count() == 1
    expect(page.locator("figcaption")).to_contain_text(f"From 1000 to {shown(winner)}")
    rise = f"1000 → {shown(winner)} (+{shown(winner) - 1000})"
    expect(page.locator(f"#game-{table.pk}")).to_contain_text(rise)
    width = "desktop" if page is ann else "phone"
    shot(page, f"player-rated-{width}")
    assert serious_violations(page) == []

    # The loser's page shows the fall, number 2.
    other = {"ann": ann, "ben": ben}[loser]
    other.goto(site + f"/players/{loser}/")
    expect(other.locator("#rating-crazy-eights")).to_contain_text(str(shown(loser)))
    expect(other.locator("#rating-crazy-eights")).to_contain_text("number 2")
    fall = f"1000 → {shown(loser)} (−{1000 - shown(loser)})"
    expect(other.locator(f"#game-{table.pk}")).to_contain_text(fall)

    # The leaderboard, from the navigation: the winner first, the loser second.
    for browser_page, name in ((ann, "desktop"), (ben, "phone")):
        browser_page.get_by_role("navigation", name="Main").get_by_role(
            "link", name="Leaderboards"
        ).click()
        expect(browser_page.get_by_role("heading", level=1)).to_have_text(
            "Leaderboard: Crazy Eights"
        )
        for rank, player in ((1, winner), (2, loser)):
            row = browser_page.locator(f"#rank-{rank}")
            expect(row).to_contain_text(re.compile(rf"{player}\b.*\b{shown(player)}\b", re.S))
        expect(browser_page.locator(".your-standing")).to_contain_text("You are number")
        shot(browser_page, f"leaderboard-rated-{name}")
        assert serious_violations(browser_page) == []

    assert errors == [[], []]
