"""Watching a game, the archive, and a forced move played for its player, in Chromium
(issue 33, items 6 and 7).

A stranger, signed out and then signed in, watches Ann and Ben's game: no hand, no
move, and Ben's move arrives by the page's polling. The archive lists the finished
game, filters it by player and leads to its replay. Ann asks, on the settings page,
for her forced moves to be played and for her games to be kept to their players: at
a deal where no card of hers plays, her draw is made at once and her page says it
was played automatically, and a stranger finds no table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

import games.tasks  # noqa: F401 (the outbox's handlers, for a live server's writes)
from games import services
from games.catalogue import find_ruleset
from games.rules.chance import SEED_BYTES, SeededChance, game_seed
from tests.factories import finished_table, make_users, started_table

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_a_stranger_watches_a_game_live_signed_out_and_signed_in(
    browser: Any, site: str, log_in: Any, quick_polls: None, serious_violations: Any, shot: Any
) -> None:
    ann, ben, eve = make_users("ann", "ben", "eve")
    table = started_table(ann, ben)
    for signed_in in (False, True):
        page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
        if signed_in:
            log_in(page, eve.username)
        page.goto(f"{site}/tables/{table.pk}/")
        expect(page.locator("#board-heading")).to_contain_text("Waiting for")
        expect(page.locator(".your-hand")).to_have_count(0)
        expect(page.locator("form[action$='/move/'] button")).to_have_count(0)
        assert serious_violations(page) == []

        # The seat that owes moves; the watcher's page shows it without a reload.
        table.refresh_from_db()
        (seat,) = table.to_act
        player = ann if seat == 0 else ben
        action = services.load_state(table).legal_actions(seat)[0]
        services.move_apply(table_id=table.pk, user=player, version=table.version, action=action)
        table.refresh_from_db()
        expect(page.locator(f".log-entries li[data-seq='{table.version}']")).to_have_count(1)
        expect(page.locator(".your-hand")).to_have_count(0)
        shot(page, f"watching-{'signed-in' if signed_in else 'signed-out'}-phone")
        page.context.close()


def test_the_archive_lists_filters_and_leads_to_the_replay(
    browser: Any, site: str, serious_violations: Any, shot: Any
) -> None:
    ann, ben, cat = make_users("ann", "ben", "cat")
    theirs = finished_table(ann, ben, rated=False)
    others = finished_table(ben, cat, rated=False)
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    page.goto(f"{site}/")
    page.get_by_role("link", name="Games", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Archive")
    expect(page.locator(f"#game-{theirs.pk}")).to_be_visible()
    expect(page.locator(f"#game-{others.pk}")).to_be_visible()
    assert serious_violations(page) == []
    shot(page, "archive-phone")

    page.get_by_label("Player").fill("ANN")
    page.get_by_role("button", name="Show games").click()
    expect(page.locator(f"#game-{theirs.pk}")).to_be_visible()
    expect(page.locator(f"#game-{others.pk}")).to_have_count(0)
    page.locator(f"#game-{theirs.pk}").get_by_role("link", name=re.compile("^Replay")).click()
    expect(page).to_have_url(re.compile(rf"/tables/{theirs.pk}/replay/"))


def _seed_where_seat_0_must_draw() -> bytes:
    ruleset = find_ruleset("crazy-eights")
    for n in range(500):
        seed = f"auto-play-{n}".encode().ljust(SEED_BYTES, b".")
        state, _ = ruleset.new_game(2, ruleset.validate(2, {}), SeededChance(game_seed(seed)))
        if state.to_act == (0,) and state.legal_actions(0) == [{"type": "draw"}]:
            return seed
    raise AssertionError("no seed of the list deals that")


def test_a_player_asks_for_forced_moves_played_and_games_kept_to_the_players(
    browser: Any, site: str, log_in: Any, serious_violations: Any
) -> None:
    ann, ben = make_users("ann", "ben")
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    log_in(page, ann.username)
    page.goto(f"{site}/accounts/settings/")
    page.get_by_label("Play my move for me when it is my only one, and forced").check()
    page.get_by_label("Anybody may watch my games and find them in the archive").uncheck()
    page.get_by_role("region", name="Watching and play").get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your settings for watching and play are saved.")).to_be_visible()
    assert serious_violations(page) == []

    # A deal where no card of Ann's plays: her draw is made as the cards are dealt.
    table = started_table(ann, ben, seed=_seed_where_seat_0_must_draw())
    page.goto(f"{site}/tables/{table.pk}/")
    expect(page.locator(".log-entries li .auto").first).to_have_text(
        "Played automatically: it was the only move."
    )
    assert serious_violations(page) == []

    # Her games are hers and Ben's to see.
    stranger = browser.new_context().new_page()
    answer = stranger.goto(f"{site}/tables/{table.pk}/")
    assert answer is not None and answer.status == 404
    stranger.goto(f"{site}/games/?status=playing")
    expect(stranger.locator(f"#game-{table.pk}")).to_have_count(0)
