"""Rating the players of a finished rated table: once, after its commit, in the order tables finished.

The transaction that ends a rated table writes an outbox item
(``leaderboard.rate_table``, in ``games.services._store``); after the commit
a worker calls :func:`rate_table`. A table rates its players when the host
asked for it, every seat is a person, and somebody made a move
(:func:`rateable`); its places come from the table's result, where the engine
has already put a resignation or a timeout last.

Exactly once. All rating work of a game runs under the lock of that game's
:class:`~leaderboard.models.RatingLedger` row; under it a table whose changes
exist is done, and the work ends there. Players' rating rows are locked in
player order before they are read. The unique (player, table) constraint is
the last word: a second change for a player at a table cannot be written.

In order. Recompute replays a game's rated tables by (finished_at, id); the
incremental path keeps to the same order, so the two agree to the float:

* Tables that finished after the last one applied (the ledger's
  ``through``) and up to this one are applied together, oldest first: an
  earlier table whose own item comes later finds itself done.
* A table that finished before the last one applied arrives late: its
  ending committed after a later table was rated (a sweep commits its whole
  batch at once, a write's transaction took long). The tables after it are
  rewound to the ratings they started from, and applied again with it, in
  order. Their changes are written anew: still one per (player, table).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from games import outbox
from games.catalogue import RULESETS
from games.models import Move, Seat, Table
from games.services import RATE_TABLE
from leaderboard import skill
from leaderboard.models import Rating, RatingChange, RatingLedger

DAY = 86400.0
WRITE_BATCH = 2000  # rows a statement when the recompute writes a game's history anew
Key = tuple[datetime, int]  # a table's place in the order: (finished_at, id)


def rateable(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Those of ``tables`` that rate their players.

    Finished, rated at the host's asking, every seat a person (a bot's table
    is never rated, and refused at creation), and at least one move made by a
    player: a table that ends before anybody moved tells nothing of skill.
    """
    moved = Move.objects.filter(table=OuterRef("pk"), kind=Move.Kind.ACTION)
    not_a_person = Seat.objects.filter(table=OuterRef("pk")).filter(
        Q(user__isnull=True) | Q(is_bot=True)
    )
    return (
        tables.filter(status=Table.Status.FINISHED, rated=True, finished_at__isnull=False)
        .filter(Exists(moved))
        .exclude(Exists(not_a_person))
    )


@dataclass(frozen=True)
class Finished:
    """A rated table as the ratings read it: its id, its end, and each seat's
    ``(player id, place)`` in seat order, the order the model is given them."""

    id: int
    finished_at: datetime
    placed: list[tuple[int, int]]

    @property
    def key(self) -> Key:
        return (self.finished_at, self.id)


READ_CHUNK = 2000  # tables read at a time: their rows, then their seats in one query


def _read(tables: QuerySet[Table]) -> Iterator[Finished]:
    """``tables`` (ordered) as :class:`Finished`, streamed: only the columns the ratings use.

    The incremental path and the recompute both read tables through here, so both
    give the model the same places in the same seat order.
    """
    rows = tables.values_list("pk", "finished_at", "result").iterator(chunk_size=READ_CHUNK)
    while chunk := list(islice(rows, READ_CHUNK)):
        seated: dict[int, list[tuple[int, int]]] = {pk: [] for pk, _, _ in chunk}
        seats = (
            Seat.objects.filter(table_id__in=list(seated))
            .order_by("table_id", "number")
            .values_list("table_id", "number", "user_id")
        )
        for table_id, number, user_id in seats:
            seated[table_id].append((number, user_id))
        for pk, finished_at, result in chunk:
            places = result["places"]
            placed = [(user_id, places[number]) for number, user_id in seated[pk]]
            yield Finished(pk, finished_at, placed)


def _after(key: Key, at: str = "finished_at", pk: str = "pk") -> Q:
    """Finished after ``key`` in the ratings' order."""
    finished_at, table_id = key
    return Q(**{f"{at}__gt": finished_at}) | Q(**{at: finished_at, f"{pk}__gt": table_id})


# -- one table's step: the computation the incremental path and the recompute share ----


@dataclass
class Standing:
    """Where a player stands at a game, as a Rating row holds it."""

    mu: float = skill.MU
    sigma: float = skill.SIGMA
    games: int = 0
    last_played_at: datetime | None = None


@dataclass(frozen=True)
class Change:
    player_id: int
    place: int
    mu_before: float
    sigma_before: float
    last_played_before: datetime | None
    mu_after: float
    sigma_after: float


def rate_one(
    standings: dict[int, Standing], placed: Sequence[tuple[int, int]], finished_at: datetime
) -> list[Change]:
    """Move the players of one table on (in ``standings``), and say what changed.

    Each player's sigma is first widened for the days between their last rated
    game and this table's end, so that the same history gives the same numbers
    whenever it is computed.
    """
    given = []
    for player, place in placed:
        standing = standings.setdefault(player, Standing())
        days = 0.0
        if standing.last_played_at is not None:
            days = (finished_at - standing.last_played_at).total_seconds() / DAY
        given.append((skill.Skill(standing.mu, skill.widened(standing.sigma, days)), place))
    changes = []
    for (player, place), after in zip(placed, skill.update(given), strict=True):
        standing = standings[player]
        changes.append(
            Change(
                player_id=player,
                place=place,
                mu_before=standing.mu,
                sigma_before=standing.sigma,
                last_played_before=standing.last_played_at,
                mu_after=after.mu,
                sigma_after=after.sigma,
            )
        )
        standing.mu, standing.sigma = after.mu, after.sigma
        standing.games += 1
        standing.last_played_at = finished_at
    return changes


def _change_row(game: str, table: Finished, change: Change) -> RatingChange:
    return RatingChange(
        player_id=change.player_id,
        table_id=table.id,
        game=game,
        finished_at=table.finished_at,
        place=change.place,
        mu_before=change.mu_before,
        sigma_before=change.sigma_before,
        last_played_before=change.last_played_before,
        mu_after=change.mu_after,
        sigma_after=change.sigma_after,
    )


# -- the incremental path ----------------------------------------------------------------


def _lock_ledger(game: str) -> RatingLedger:
    """The game's ledger row, locked until the transaction ends; made if it is the first."""
    RatingLedger.objects.bulk_create([RatingLedger(game=game)], ignore_conflicts=True)
    return RatingLedger.objects.select_for_update().get(game=game)


def _through(ledger: RatingLedger) -> Key | None:
    if ledger.through_finished_at is None or ledger.through_table_id is None:
        return None
    return (ledger.through_finished_at, ledger.through_table_id)


def _apply(game: str, tables: Sequence[Finished]) -> int:
    """Rate ``tables`` in the order given, under the ledger's lock; returns the changes written."""
    players = sorted({player for table in tables for player, _ in table.placed})
    rows = {
        row.player_id: row
        for row in Rating.objects.select_for_update()
        .filter(game=game, player_id__in=players)
        .order_by("player_id")
    }
    standings = {
        player: Standing(row.mu, row.sigma, row.games, row.last_played_at)
        for player, row in rows.items()
    }
    changes = [
        _change_row(game, table, change)
        for table in tables
        for change in rate_one(standings, table.placed, table.finished_at)
    ]
    for player, standing in standings.items():
        if player not in rows:
            rows[player] = Rating(player_id=player, game=game)
        row = rows[player]
        row.mu, row.sigma = standing.mu, standing.sigma
        row.games, row.last_played_at = standing.games, standing.last_played_at
    Rating.objects.bulk_create([row for row in rows.values() if row.pk is None])
    Rating.objects.bulk_update(
        [row for row in rows.values() if row.pk is not None],
        ["mu", "sigma", "games", "last_played_at"],
    )
    RatingChange.objects.bulk_create(changes)
    return len(changes)


def _rewind(game: str, key: Key) -> int:
    """Put every rating back as it was before the tables that finished after ``key``, and
    forget what those tables did; returns how many tables were rewound."""
    later = list(
        RatingChange.objects.filter(game=game)
        .filter(_after(key, pk="table_id"))
        .order_by("finished_at", "table_id")
    )
    first: dict[int, RatingChange] = {}
    counted: Counter[int] = Counter()
    for change in later:
        first.setdefault(change.player_id, change)
        counted[change.player_id] += 1
    rows = list(
        Rating.objects.select_for_update()
        .filter(game=game, player_id__in=sorted(first))
        .order_by("player_id")
    )
    for row in rows:
        change = first[row.player_id]
        row.mu, row.sigma = change.mu_before, change.sigma_before
        row.last_played_at = change.last_played_before
        row.games -= counted[row.player_id]
    Rating.objects.bulk_update(rows, ["mu", "sigma", "games", "last_played_at"])
    RatingChange.objects.filter(pk__in=[change.pk for change in later]).delete()
    return len({change.table_id for change in later})


@outbox.handler(RATE_TABLE)
def rate_table(table_id: int) -> int:
    """The outbox's handler: rate a finished table's players, once; returns the changes written.

    Safe to call any number of times, at once or late: a table already rated,
    or one that is not rated (:func:`rateable`), writes nothing.
    """
    table = rateable(Table.objects.filter(pk=table_id)).first()
    if table is None:
        return 0
    with transaction.atomic():
        ledger = _lock_ledger(table.game)
        if RatingChange.objects.filter(table=table).exists():
            return 0
        key: Key = (table.finished_at, table.pk)
        through = _through(ledger)
        tables = rateable(Table.objects.filter(game=table.game)).exclude(
            Exists(RatingChange.objects.filter(table=OuterRef("pk")))
        )
        if through is None or key > through:
            # This table and every earlier one not yet applied, after the last applied.
            window = ~_after(key) if through is None else _after(through) & ~_after(key)
            through = key
        else:
            # A late arrival: the tables after it are rewound, then applied again after it.
            _rewind(table.game, key)
            window = (Q(pk=table.pk) | _after(key)) & ~_after(through)
        batch = list(_read(tables.filter(window).order_by("finished_at", "pk")))
        written = _apply(table.game, batch)
        ledger.through_finished_at, ledger.through_table_id = through
        ledger.save(update_fields=["through_finished_at", "through_table_id", "updated_at"])
    return written


# -- recomputing from the history ----------------------------------------------------------


@dataclass(frozen=True)
class Recomputed:
    """What a recompute of one game found: ``ratings_differing`` and ``changes_differing``
    count the stored rows the replay disagreed with (0 and 0: the incremental path agreed)."""

    game: str
    tables: int
    players: int
    ratings_differing: int
    changes_differing: int
    written: bool


def rated_games() -> list[str]:
    """Every game that has ratings, or could: the catalogue's, and any retired since."""
    stored = Rating.objects.values_list("game", flat=True).distinct()
    return sorted(set(RULESETS) | set(stored))


def _replay(game: str) -> tuple[dict[int, Standing], list[tuple[Finished, Change]], Key | None]:
    standings: dict[int, Standing] = {}
    changes: list[tuple[Finished, Change]] = []
    last: Key | None = None
    for table in _read(rateable(Table.objects.filter(game=game)).order_by("finished_at", "pk")):
        for change in rate_one(standings, table.placed, table.finished_at):
            changes.append((table, change))
        last = table.key
    return standings, changes, last


def recompute_game(game: str, *, write: bool = True) -> Recomputed:
    """Replay every rated table of ``game`` by (finished_at, id) from new ratings, compare
    with what is stored and, where anything differs and ``write``, store the replay instead.

    Stored rows are read as plain values, not models: a game's whole history is read here.
    """
    with transaction.atomic():
        ledger = _lock_ledger(game)
        standings, changes, last = _replay(game)
        stored = {
            player: (mu, sigma, games, last_played_at)
            for player, mu, sigma, games, last_played_at in Rating.objects.select_for_update()
            .filter(game=game)
            .order_by("player_id")
            .values_list("player_id", "mu", "sigma", "games", "last_played_at")
        }
        replayed = {
            player: (standing.mu, standing.sigma, standing.games, standing.last_played_at)
            for player, standing in standings.items()
        }
        ratings_differing = sum(
            1
            for player in set(stored) | set(replayed)
            if stored.get(player) != replayed.get(player)
        )
        stored_changes = {
            (player, table): rest
            for player, table, *rest in RatingChange.objects.filter(game=game).values_list(
                "player_id",
                "table_id",
                "place",
                "mu_before",
                "sigma_before",
                "mu_after",
                "sigma_after",
            )
        }
        replayed_changes = {
            (change.player_id, table.id): [
                change.place,
                change.mu_before,
                change.sigma_before,
                change.mu_after,
                change.sigma_after,
            ]
            for table, change in changes
        }
        changes_differing = sum(
            1
            for key in set(stored_changes) | set(replayed_changes)
            if stored_changes.get(key) != replayed_changes.get(key)
        )
        differs = ratings_differing or changes_differing or _through(ledger) != last
        if write and differs:
            RatingChange.objects.filter(game=game).delete()
            Rating.objects.filter(game=game).delete()
            Rating.objects.bulk_create(
                [
                    Rating(
                        player_id=player,
                        game=game,
                        mu=standing.mu,
                        sigma=standing.sigma,
                        games=standing.games,
                        last_played_at=standing.last_played_at,
                    )
                    for player, standing in sorted(standings.items())
                ],
                batch_size=WRITE_BATCH,
            )
            # A batch of rows at a time: bulk_create would hold a model for every change at once.
            for at in range(0, len(changes), WRITE_BATCH):
                RatingChange.objects.bulk_create(
                    _change_row(game, table, change)
                    for table, change in changes[at : at + WRITE_BATCH]
                )
            ledger.through_finished_at, ledger.through_table_id = last or (None, None)
            ledger.save(update_fields=["through_finished_at", "through_table_id", "updated_at"])
    return Recomputed(
        game=game,
        tables=len({table.id for table, _ in changes}),
        players=len(standings),
        ratings_differing=ratings_differing,
        changes_differing=changes_differing,
        written=bool(write and differs),
    )


def recompute_ratings(
    *, games: Iterable[str] | None = None, write: bool = True
) -> list[Recomputed]:
    """Recompute every game's ratings from its history (``manage.py recompute_ratings``)."""
    return [recompute_game(game, write=write) for game in (games or rated_games())]
