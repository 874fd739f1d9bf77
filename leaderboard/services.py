"""Rating the players of a finished rated table: once, after its commit, in the order tables finished.

The transaction that ends a rated table writes an outbox item
(``leaderboard.rate_table``, in ``games.services._store``); after the commit
a worker calls :func:`rate_table`. A table rates its players when the host
asked for it, every seat is a person, and somebody made a move
(:func:`rateable`), and every seat holder may play rated (``accounts.rated_play``,
judged once, when the table is first rated: a table that fails is marked
:class:`~leaderboard.models.UnratedTable` and is never rated); its places come
from the table's result, where the engine has already put a resignation or a
timeout last. Each player's move is the model's scaled by how well their
opponents are known (:func:`leaderboard.skill.rate`).

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

Voided by staff (:func:`void_tables`, through ``leaderboard.staff``): the tables
are marked unrated, everything rated from the first of them on is rewound, and
the rest applied again in order: everyone they touched, and everyone after.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.rated_play import accounts, refusal
from fairplay import commitments
from games import outbox
from games.catalogue import RULESETS
from games.models import Move, Seat, Table
from games.services import RATE_TABLE
from leaderboard import skill
from leaderboard.models import (
    OPPONENTS_KEPT,
    Rating,
    RatingChange,
    RatingLedger,
    RatingOpponent,
    StaffAction,
    UnratedTable,
)

logger = logging.getLogger(__name__)

DAY = 86400.0
WRITE_BATCH = 2000  # rows a statement when the recompute writes a game's history anew
Key = tuple[datetime, int]  # a table's place in the order: (finished_at, id)


def rateable(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Those of ``tables`` that rate their players.

    Finished, rated at the host's asking, every seat a person (a bot's table
    is never rated, and refused at creation), at least one move made by a
    player (a table that ends before anybody moved tells nothing of skill),
    and not left out (:class:`UnratedTable`: a seat holder who could not play
    rated, or voided by staff).
    """
    moved = Move.objects.filter(table=OuterRef("pk"), kind=Move.Kind.ACTION)
    not_a_person = Seat.objects.filter(table=OuterRef("pk")).filter(
        Q(user__isnull=True) | Q(is_bot=True)
    )
    return (
        tables.filter(status=Table.Status.FINISHED, rated=True, finished_at__isnull=False)
        .filter(Exists(moved))
        .exclude(Exists(not_a_person))
        .exclude(Exists(UnratedTable.objects.filter(table=OuterRef("pk"))))
    )


@dataclass(frozen=True)
class Finished:
    """A rated table as the ratings read it: its id, its start and end, and each seat's
    ``(player id, place)`` in seat order, the order the model is given them."""

    id: int
    started_at: datetime
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
    rows = tables.values_list("pk", "started_at", "finished_at", "result").iterator(
        chunk_size=READ_CHUNK
    )
    while chunk := list(islice(rows, READ_CHUNK)):
        seated: dict[int, list[tuple[int, int]]] = {pk: [] for pk, *_ in chunk}
        seats = (
            Seat.objects.filter(table_id__in=list(seated))
            .order_by("table_id", "number")
            .values_list("table_id", "number", "user_id")
        )
        for table_id, number, user_id in seats:
            seated[table_id].append((number, user_id))
        for pk, started_at, finished_at, result in chunk:
            places = result["places"]
            placed = [(user_id, places[number]) for number, user_id in seated[pk]]
            yield Finished(pk, started_at, finished_at, placed)


def _judged(tables: Sequence[Finished], *, write: bool) -> list[Finished]:
    """Those of ``tables`` whose every seat holder may play rated (``accounts.rated_play``),
    the account's age counted at the table's start; the others are marked unrated
    (:class:`UnratedTable`, when ``write``), once and for good. One query."""
    found = accounts(player for table in tables for player, _ in table.placed)
    kept, refused = [], []
    for table in tables:
        reasons = []
        for player, _ in table.placed:
            account = found.get(player)
            why = "no such account" if account is None else refusal(account, table.started_at)
            if why is not None:
                name = account.username if account is not None else f"user {player}"
                reasons.append(f"{name}: {why}")
        if reasons:
            refused.append(
                UnratedTable(
                    table_id=table.id,
                    reason=UnratedTable.Reason.INELIGIBLE,
                    detail="; ".join(reasons),
                )
            )
        else:
            kept.append(table)
    if write and refused:
        UnratedTable.objects.bulk_create(refused, ignore_conflicts=True)
        for row in refused:
            logger.warning("table %s is not rated: %s", row.table_id, row.detail)
    return kept


def _after(key: Key, at: str = "finished_at", pk: str = "pk") -> Q:
    """Finished after ``key`` in the ratings' order."""
    finished_at, table_id = key
    return Q(**{f"{at}__gt": finished_at}) | Q(**{at: finished_at, f"{pk}__gt": table_id})


# -- one table's step: the computation the incremental path and the recompute share ----


@dataclass
class Standing:
    """Where a player stands at a game, as a Rating row holds it; ``met``, the established
    opponents they have met (their RatingOpponent rows, the first :data:`OPPONENTS_KEPT`)."""

    mu: float = skill.MU
    sigma: float = skill.SIGMA
    games: int = 0
    last_played_at: datetime | None = None
    met: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Change:
    player_id: int
    place: int
    mu_before: float
    sigma_before: float
    last_played_before: datetime | None
    mu_after: float
    sigma_after: float


Met = tuple[int, int]  # (player, opponent): the player met the opponent, established, first here


def rate_one(
    standings: dict[int, Standing], placed: Sequence[tuple[int, int]], finished_at: datetime
) -> tuple[list[Change], list[Met]]:
    """Move the players of one table on (in ``standings``), and say what changed: each
    player's change, and the established opponents each met here for the first time.

    Each player's sigma is first widened for the days between their last rated
    game and this table's end, so that the same history gives the same numbers
    whenever it is computed. The model is given each player's rated games
    before the table: a result counts as much as the opponents are known
    (:func:`leaderboard.skill.rate`).
    """
    given = []
    for player, place in placed:
        standing = standings.setdefault(player, Standing())
        days = 0.0
        if standing.last_played_at is not None:
            days = (finished_at - standing.last_played_at).total_seconds() / DAY
        widened = skill.Skill(standing.mu, skill.widened(standing.sigma, days))
        given.append(skill.Seat(widened, place, standing.games))
    met: list[Met] = []
    for player, _ in placed:
        known = standings[player].met
        for (other, _), seat in zip(placed, given, strict=True):
            if other == player or other in known or len(known) >= OPPONENTS_KEPT:
                continue
            if skill.established(seat.games, seat.skill.sigma):
                known.add(other)
                met.append((player, other))
    changes = []
    for (player, place), after in zip(placed, skill.rate(given), strict=True):
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
    return changes, met


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


def _save_through(ledger: RatingLedger, through: Key | None) -> None:
    ledger.through_finished_at, ledger.through_table_id = through or (None, None)
    ledger.save(update_fields=["through_finished_at", "through_table_id", "updated_at"])


def _met_row(game: str, table: Finished, met: Met) -> RatingOpponent:
    player, opponent = met
    return RatingOpponent(
        game=game,
        player_id=player,
        opponent_id=opponent,
        table_id=table.id,
        finished_at=table.finished_at,
    )


def _apply(game: str, tables: Sequence[Finished]) -> int:
    """Rate ``tables`` in the order given, under the ledger's lock; returns the changes written."""
    if not tables:
        return 0
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
    for player, opponent in RatingOpponent.objects.filter(
        game=game, player_id__in=players
    ).values_list("player_id", "opponent_id"):
        standings[player].met.add(opponent)
    changes, meetings = [], []
    for table in tables:
        changed, met = rate_one(standings, table.placed, table.finished_at)
        changes += [_change_row(game, table, change) for change in changed]
        meetings += [_met_row(game, table, pair) for pair in met]
    for player, standing in standings.items():
        if player not in rows:
            rows[player] = Rating(player_id=player, game=game)
        row = rows[player]
        row.mu, row.sigma = standing.mu, standing.sigma
        row.games, row.last_played_at = standing.games, standing.last_played_at
        row.opponents = len(standing.met)
    Rating.objects.bulk_create([row for row in rows.values() if row.pk is None])
    Rating.objects.bulk_update(
        [row for row in rows.values() if row.pk is not None],
        ["mu", "sigma", "games", "last_played_at", "opponents"],
    )
    RatingChange.objects.bulk_create(changes)
    RatingOpponent.objects.bulk_create(meetings)
    return len(changes)


@dataclass(frozen=True)
class Rewound:
    """What a rewind took back: the tables whose changes it forgot, and their players."""

    tables: set[int]
    players: set[int]


def _rewind(game: str, key: Key) -> Rewound:
    """Put every rating back as it was before the tables that finished after ``key``, and
    forget what those tables did (their changes, and the opponents first met at them)."""
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
    meetings = RatingOpponent.objects.filter(game=game).filter(_after(key, pk="table_id"))
    forgotten = Counter(meetings.values_list("player_id", flat=True))
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
        row.opponents -= forgotten[row.player_id]
    Rating.objects.bulk_update(rows, ["mu", "sigma", "games", "last_played_at", "opponents"])
    meetings.delete()
    RatingChange.objects.filter(pk__in=[change.pk for change in later]).delete()
    return Rewound({change.table_id for change in later}, set(first))


def _rate_window(game: str, window: Q, *, rewound: set[int]) -> tuple[int, Key | None]:
    """Under the ledger's lock: rate the rateable tables of ``game`` in ``window`` that have
    no changes, in order; a table not ``rewound`` (rated before) is judged first
    (:func:`_judged`). Returns the changes written and the last table applied."""
    tables = (
        rateable(Table.objects.filter(game=game))
        .exclude(Exists(RatingChange.objects.filter(table=OuterRef("pk"))))
        .filter(window)
        .order_by("finished_at", "pk")
    )
    batch = list(_read(tables))
    eligible = {
        table.id for table in _judged([t for t in batch if t.id not in rewound], write=True)
    }
    batch = [table for table in batch if table.id in eligible or table.id in rewound]
    return _apply(game, batch), (batch[-1].key if batch else None)


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
        if not rateable(Table.objects.filter(pk=table.pk)).exists():
            return 0  # voided since it was read
        key: Key = (table.finished_at, table.pk)
        through = _through(ledger)
        rewound: set[int] = set()
        if through is None or key > through:
            # This table and every earlier one not yet applied, after the last applied.
            window = ~_after(key) if through is None else _after(through) & ~_after(key)
        else:
            # A late arrival: the tables after it are rewound, then applied again after it.
            rewound = _rewind(table.game, key).tables
            window = (Q(pk=table.pk) | _after(key)) & ~_after(through)
        written, last = _rate_window(table.game, window, rewound=rewound)
        if last is not None and (through is None or last > through):
            through = last
        _save_through(ledger, through)
    return written


# -- voiding ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Voided:
    """What voiding did: the tables newly left out (``tables``), by game the tables rated
    again after the first of them (``rerated``), and the players whose ratings were
    rewound and moved again (``players``)."""

    tables: list[int]
    rerated: dict[str, int]
    players: list[int]


def void_tables(tables: QuerySet[Table], *, action: StaffAction) -> Voided:
    """Leave ``tables`` (rated ones; finished or still playing) out of the ratings for good,
    for staff's ``action``, and rate their games again from the first of them on.

    In the caller's transaction. Each game's ledger is locked first (in the games'
    order), so that no rating runs between the marking and the rewind: a table
    voided here is never rated, and every rating it moved, and every rating after
    it (which depended on those), is put back and applied again without it.
    """
    chosen = list(
        tables.filter(rated=True)
        .exclude(Exists(UnratedTable.objects.filter(table=OuterRef("pk"))))
        .order_by("game", "finished_at", "pk")
        .values_list("pk", "game", "finished_at")
    )
    games = sorted({game for _, game, _ in chosen})
    ledgers = {game: _lock_ledger(game) for game in games}
    UnratedTable.objects.bulk_create(
        UnratedTable(table_id=pk, reason=UnratedTable.Reason.VOIDED, action=action)
        for pk, _, _ in chosen
    )
    commitments.voided(pk for pk, _, _ in chosen)  # in the public commitment log
    rerated: dict[str, int] = {}
    players: set[int] = set()
    for game in games:
        rated = RatingChange.objects.filter(game=game, table_id__in=[pk for pk, *_ in chosen])
        first = rated.order_by("finished_at", "table_id").values_list("finished_at", "table_id")
        start = first.first()
        through = _through(ledgers[game])
        if start is None or through is None:
            continue  # none of them was rated yet: marking them is enough
        # Everything rated from the first voided table on (its id less one: that table too),
        # then what was rated there again, without the voided tables.
        before: Key = (start[0], start[1] - 1)
        rewound = _rewind(game, before)
        _rate_window(game, _after(before) & ~_after(through), rewound=rewound.tables)
        rerated[game] = len(rewound.tables - {pk for pk, *_ in chosen})
        players |= rewound.players
        # A player whose every rated table was voided has no rating left, as a replay says.
        Rating.objects.filter(game=game, player_id__in=rewound.players, games=0).delete()
        _save_through(ledgers[game], _last_rated(game))
    return Voided(sorted(pk for pk, _, _ in chosen), rerated, sorted(players))


def _last_rated(game: str) -> Key | None:
    """The last table of ``game`` with rating changes, in the ratings' order."""
    last = (
        RatingChange.objects.filter(game=game)
        .order_by("-finished_at", "-table_id")
        .values_list("finished_at", "table_id")
        .first()
    )
    return (last[0], last[1]) if last is not None else None


# -- recomputing from the history ----------------------------------------------------------


@dataclass(frozen=True)
class Recomputed:
    """What a recompute of one game found: ``ratings_differing``, ``changes_differing``
    and ``opponents_differing`` count the stored rows the replay disagreed with (all 0:
    the incremental path agreed)."""

    game: str
    tables: int
    players: int
    ratings_differing: int
    changes_differing: int
    opponents_differing: int
    written: bool

    @property
    def differing(self) -> int:
        return self.ratings_differing + self.changes_differing + self.opponents_differing


def rated_games() -> list[str]:
    """Every game that has ratings, or could: the catalogue's, and any retired since."""
    stored = Rating.objects.values_list("game", flat=True).distinct()
    return sorted(set(RULESETS) | set(stored))


@dataclass
class Replayed:
    standings: dict[int, Standing]
    changes: list[tuple[Finished, Change]]
    meetings: list[tuple[Finished, Met]]
    last: Key | None


def _replay(game: str, *, write: bool) -> Replayed:
    """Every rated table of ``game`` applied in order from new ratings. A table never rated
    yet is judged first (:func:`_judged`: marked unrated if it fails, when ``write``)."""
    tables = list(_read(rateable(Table.objects.filter(game=game)).order_by("finished_at", "pk")))
    rated = set(RatingChange.objects.filter(game=game).values_list("table_id", flat=True))
    eligible = {
        table.id for table in _judged([t for t in tables if t.id not in rated], write=write)
    }
    replayed = Replayed({}, [], [], None)
    for table in tables:
        if table.id not in rated and table.id not in eligible:
            continue
        changed, met = rate_one(replayed.standings, table.placed, table.finished_at)
        replayed.changes += [(table, change) for change in changed]
        replayed.meetings += [(table, pair) for pair in met]
        replayed.last = table.key
    return replayed


def _differing(stored: dict[Any, Any], replayed: dict[Any, Any]) -> int:
    return sum(1 for key in set(stored) | set(replayed) if stored.get(key) != replayed.get(key))


def recompute_game(game: str, *, write: bool = True) -> Recomputed:
    """Replay every rated table of ``game`` by (finished_at, id) from new ratings, compare
    with what is stored and, where anything differs and ``write``, store the replay instead.

    Stored rows are read as plain values, not models: a game's whole history is read here.
    """
    with transaction.atomic():
        ledger = _lock_ledger(game)
        replay = _replay(game, write=write)
        standings, changes, last = replay.standings, replay.changes, replay.last
        stored = {
            player: rest
            for player, *rest in Rating.objects.select_for_update()
            .filter(game=game)
            .order_by("player_id")
            .values_list("player_id", "mu", "sigma", "games", "last_played_at", "opponents")
        }
        replayed = {
            player: [s.mu, s.sigma, s.games, s.last_played_at, len(s.met)]
            for player, s in standings.items()
        }
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
        stored_met = {
            (player, opponent): table
            for player, opponent, table in RatingOpponent.objects.filter(game=game).values_list(
                "player_id", "opponent_id", "table_id"
            )
        }
        replayed_met = {pair: table.id for table, pair in replay.meetings}
        ratings_differing = _differing(stored, replayed)
        changes_differing = _differing(stored_changes, replayed_changes)
        opponents_differing = _differing(stored_met, replayed_met)
        differs = (
            ratings_differing
            or changes_differing
            or opponents_differing
            or _through(ledger) != last
        )
        if write and differs:
            RatingOpponent.objects.filter(game=game).delete()
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
                        opponents=len(standing.met),
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
            RatingOpponent.objects.bulk_create(
                (_met_row(game, table, pair) for table, pair in replay.meetings),
                batch_size=WRITE_BATCH,
            )
            _save_through(ledger, last)
    return Recomputed(
        game=game,
        tables=len({table.id for table, _ in changes}),
        players=len(standings),
        ratings_differing=ratings_differing,
        changes_differing=changes_differing,
        opponents_differing=opponents_differing,
        written=bool(write and differs),
    )


def recompute_ratings(
    *, games: Iterable[str] | None = None, write: bool = True
) -> list[Recomputed]:
    """Recompute every game's ratings from its history (``manage.py recompute_ratings``)."""
    return [recompute_game(game, write=write) for game in (games or rated_games())]
