"""The leaderboards as reckoned: each game's listed players sorted once, by beat.

The rating a board shows is the stored one widened for the time since the
player's last rated game (:func:`leaderboard.selectors.with_standing`), so its
order moves with the clock and no index can hold it: ranking a player, or
counting the board, or reading a deep page, would sort the whole board at
every request. Instead beat reckons every board each ``FAIRDEAL_BOARD_SECONDS``
(``leaderboard.reckon_boards``): one ordered read of its listed ratings and its
places written again, ranked 1 to n, in one transaction. Readers see the last
reckoning whole, never half of one (docs/ratings.md, docs/scale.md).
"""

from __future__ import annotations

from datetime import datetime
from itertools import islice

from django.db import transaction
from django.utils import timezone

from games.catalogue import RULESETS
from leaderboard.models import Board, BoardPlace
from leaderboard.selectors import check_game, ranked

BATCH = 5000  # places read and written a statement


def reckon(game: str, *, now: datetime | None = None) -> Board:
    """Sort ``game``'s board as it stands at ``now`` and keep it, replacing the last one.

    Reckonings of a game take turns on its ``Board`` row (two beats started by
    mistake): one that finds a later reckoning made while it waited keeps that one.
    """
    check_game(game)
    now = now or timezone.now()
    with transaction.atomic():
        Board.objects.get_or_create(game=game, defaults={"reckoned_at": now})
        board = Board.objects.select_for_update().get(game=game)
        if board.reckoned_at > now:
            return board
        BoardPlace.objects.filter(game=game).delete()
        rows = ranked(game, now).values_list(
            "player_id", "mu", "shown_sigma", "games", "last_played_at"
        )
        count = 0
        read = rows.iterator(chunk_size=BATCH)
        while batch := list(islice(read, BATCH)):
            BoardPlace.objects.bulk_create(
                BoardPlace(
                    game=game,
                    rank=count + index,
                    player_id=player,
                    mu=mu,
                    shown_sigma=sigma,
                    games=games,
                    last_played_at=last_played,
                )
                for index, (player, mu, sigma, games, last_played) in enumerate(batch, 1)
            )
            count += len(batch)
        board.reckoned_at, board.count = now, count
        board.save(update_fields=["reckoned_at", "count"])
    return board


def reckon_all(*, now: datetime | None = None) -> list[Board]:
    """Reckon every game's board as it stands at ``now``, a transaction each."""
    now = now or timezone.now()
    return [reckon(game, now=now) for game in RULESETS]
