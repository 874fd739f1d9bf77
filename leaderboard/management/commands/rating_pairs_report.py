"""For operators: pairs of players who met at many rated tables, one nearly always ahead."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from config.errors import ServiceError
from leaderboard.selectors import check_game, lopsided_pairs


class Command(BaseCommand):
    help = (
        "List pairs of players with many rated tables together and lopsided results, which"
        " is what farming a rating off a second account looks like (docs/ratings.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", help="only this game")
        parser.add_argument(
            "--min-tables",
            type=int,
            default=settings.FAIRDEAL_RATING_PAIR_MIN_TABLES,
            help="rated tables together at least (FAIRDEAL_RATING_PAIR_MIN_TABLES)",
        )
        parser.add_argument(
            "--share",
            type=float,
            default=settings.FAIRDEAL_RATING_PAIR_SHARE,
            help="one ahead of the other at this share of them or more (FAIRDEAL_RATING_PAIR_SHARE)",
        )
        parser.add_argument("--days", type=int, help="only tables finished in the last DAYS days")

    def handle(
        self,
        *args: Any,
        game: str | None,
        min_tables: int,
        share: float,
        days: int | None,
        **options: Any,
    ) -> None:
        if min_tables < 1 or not 0 < share <= 1 or (days is not None and days < 1):
            raise CommandError("--min-tables and --days are 1 or more; --share is in (0, 1]")
        if game is not None:
            try:
                check_game(game)
            except ServiceError as error:
                raise CommandError(error.message) from None
        since = timezone.now() - timedelta(days=days) if days is not None else None
        pairs = lopsided_pairs(min_tables=min_tables, share=share, game=game, since=since)
        for pair in pairs:
            self.stdout.write(
                f"{pair.game}: {pair.ahead} ahead of {pair.behind} at {pair.ahead_count} of"
                f" {pair.tables} rated tables ({pair.share:.0%}); {pair.behind} ahead at"
                f" {pair.behind_count}"
            )
        self.stdout.write(
            f"{len(pairs)} pairs with {min_tables} or more rated tables together and one ahead"
            f" at {share:.0%} of them or more"
        )
