"""For staff: leave a player's rated games out of the ratings, and rate everything after again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.names import users_named
from config.errors import ServiceError
from leaderboard.staff import void_player


class Command(BaseCommand):
    help = (
        "Void every rated table a player sat at (of one game with --game): they never count,"
        " and the ratings of everyone they touched, and after, are rewound and applied"
        " again. Logged as a staff action under the staff account named (docs/ratings.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("player", help="the player's username")
        parser.add_argument("--staff", required=True, help="your staff account's username")
        parser.add_argument("--reason", required=True, help="why, for the staff actions' log")
        parser.add_argument("--game", help="only this game's rated tables")

    def handle(
        self, *args: Any, player: str, staff: str, reason: str, game: str | None, **options: Any
    ) -> None:
        accounts = {}
        for role, name in (("player", player), ("staff", staff)):
            found = users_named(name).first() if name else None
            if found is None:
                raise CommandError(f"there is no account called {name!r} (the {role})")
            accounts[role] = found
        try:
            action = void_player(
                staff=accounts["staff"], player=accounts["player"], reason=reason, game=game
            )
        except ServiceError as error:
            raise CommandError(error.message) from None
        detail = action.detail
        rerated = ", ".join(f"{g}: {n}" for g, n in detail["rerated"].items()) or "none"
        self.stdout.write(
            f"staff action {action.pk}: {len(detail['tables'])} rated tables of"
            f" {accounts['player'].get_username()} voided; tables rated again: {rerated};"
            f" {len(detail['players'])} players' ratings rewound and moved again"
        )
