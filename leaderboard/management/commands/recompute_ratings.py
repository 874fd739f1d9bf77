"""Recompute every rating from the history: the rated tables, in the order they finished."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.services import rated_games, recompute_ratings


class Command(BaseCommand):
    help = (
        "Replay each game's rated tables by (finished_at, id) from new ratings and store the"
        " result where it differs from the stored ratings; with --check, only compare."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("games", nargs="*", help="only these games (default: every game)")
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing; exit 1 if the stored ratings differ from the replay",
        )

    def handle(self, *args: Any, games: list[str], check: bool, **options: Any) -> None:
        known = set(rated_games())
        unknown = [game for game in games if game not in known]
        if unknown:
            raise CommandError(f"no game {unknown[0]!r}: GET /api/games/ lists them")
        differing = 0
        for report in recompute_ratings(games=games or None, write=not check):
            apart = report.differing
            differing += apart
            if report.written:
                verdict = f"{apart} rows differed and were recomputed"
            elif apart:
                verdict = f"{apart} rows differ from the replay"
            else:
                verdict = "the stored ratings equal the replay"
            self.stdout.write(
                f"{report.game}: {report.tables} rated tables, {report.players} players; {verdict}"
            )
        if check and differing:
            raise CommandError(f"{differing} rating rows differ from a replay of the history")
