"""For operators: players whose rated wins came mostly from new accounts that forfeited early."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from config.errors import ServiceError
from leaderboard import selectors
from leaderboard.selectors import check_game, farmed_wins


class Command(BaseCommand):
    help = (
        "List players whose rated wins came mostly from new accounts that resigned or timed"
        " out after a few moves of their own: what farming a rating off throwaway accounts"
        " looks like, each used once or many times (docs/ratings.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", help="only this game")
        parser.add_argument(
            "--days",
            type=int,
            default=selectors.FARM_DAYS,
            help=f"tables finished in the last DAYS days ({selectors.FARM_DAYS})",
        )
        parser.add_argument(
            "--early-moves",
            type=int,
            default=selectors.FARM_EARLY_MOVES,
            help="a forfeit is early after at most this many moves of the account's own"
            f" ({selectors.FARM_EARLY_MOVES})",
        )
        parser.add_argument(
            "--new-days",
            type=int,
            default=selectors.FARM_NEW_DAYS,
            help="an account is new this many days old or younger at the table's end"
            f" ({selectors.FARM_NEW_DAYS}), or short of established rated games",
        )
        parser.add_argument(
            "--min-wins",
            type=int,
            default=selectors.FARM_MIN_WINS,
            help=f"rated wins at least ({selectors.FARM_MIN_WINS})",
        )
        parser.add_argument(
            "--share",
            type=float,
            default=selectors.FARM_SHARE,
            help=f"of them given by early forfeits of new accounts ({selectors.FARM_SHARE})",
        )

    def handle(
        self,
        *args: Any,
        game: str | None,
        days: int,
        early_moves: int,
        new_days: int,
        min_wins: int,
        share: float,
        **options: Any,
    ) -> None:
        if days < 1 or early_moves < 0 or new_days < 0 or min_wins < 1 or not 0 < share <= 1:
            raise CommandError(
                "--days and --min-wins are 1 or more; --early-moves and --new-days 0 or more;"
                " --share is in (0, 1]"
            )
        if game is not None:
            try:
                check_game(game)
            except ServiceError as error:
                raise CommandError(error.message) from None
        farmers = farmed_wins(
            game=game,
            since=timezone.now() - timedelta(days=days),
            early_moves=early_moves,
            new_days=new_days,
            min_wins=min_wins,
            share=share,
        )
        for farmer in farmers:
            self.stdout.write(
                f"{farmer.game}: {farmer.player} won {farmer.wins} rated tables, {farmer.cheap}"
                f" ({farmer.share:.0%}) by an early forfeit of a new account, {farmer.losers}"
                f" distinct accounts; {farmer.counted} of those moved the rating"
            )
        self.stdout.write(
            f"{len(farmers)} players with {min_wins} or more rated wins in {days} days, at least"
            f" {share:.0%} of them by new accounts forfeiting within {early_moves} moves"
        )
