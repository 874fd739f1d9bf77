"""The rows one write changes, sent to the database together.

A move inserts its log entry and an outbox item and updates the table's row and
its seats' deadlines. Made one at a time through the ORM, each is a round trip
to PostgreSQL and most of a millisecond of Python (``Model.save`` alone cost
more than the database's whole work on the row); gathered in a :class:`Writes`
they are written as the ORM would write them (each field's own
``get_db_prep_save``, ``auto_now_add`` set) and sent in one
``execute`` of several statements (psycopg's client-side binding, which
Django uses, sends them as one simple query), in the order they were added.
``docs/speed.md`` gives the figures.

Elsewhere (the embedded SQLite of ``make run``, which takes one statement at a
time) each is run in turn: the same rows, more round trips.

    writes = Writes()
    writes.insert(move)
    writes.update_each(Seat, changed, ["deadline_at"])
    writes.update(table, ["version", "state"])
    writes.run()
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, models

from config.json_codec import dumps_text


class Writes:
    """Statements gathered to run in one round trip (:meth:`run`), in the order added."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, list[Any]]] = []
        self.inserted: list[models.Model] = []

    def __len__(self) -> int:
        return len(self.statements)

    def insert(self, instance: models.Model) -> None:
        """Insert ``instance`` (its ``auto_now_add`` fields set now; its id is not read back)."""
        connection = db()
        sql, fields = _insert_sql(type(instance), connection.vendor)
        params = [_prep(f)(f.pre_save(instance, True), connection) for f in fields]
        self.statements.append((sql, params))
        self.inserted.append(instance)

    def update(self, instance: models.Model, fields: Sequence[str]) -> None:
        """Write ``fields`` of ``instance`` (already in memory) onto its row, as
        ``save(update_fields=fields)`` would."""
        connection = db()
        sql, columns = _update_sql(type(instance), tuple(fields), connection.vendor)
        params = [_prep(f)(f.pre_save(instance, False), connection) for f in columns]
        self.statements.append((sql, [*params, instance.pk]))

    def update_each(
        self, model: type[models.Model], rows: Sequence[models.Model], fields: Sequence[str]
    ) -> None:
        """Write ``fields`` of each of ``rows`` (already in memory) in one statement.

        On PostgreSQL ``UPDATE ... FROM (VALUES ...)``, a row of values per row:
        Django's ``bulk_update`` builds a ``CASE`` per row and column, which cost
        more Python than the whole timeout it was writing. Elsewhere, a statement a row.
        """
        if not rows:
            return
        connection = db()
        if connection.vendor != "postgresql":  # SQLite: no casts in VALUES; a row at a time
            for row in rows:
                self.update(row, fields)
            return
        meta = model._meta
        columns = [meta.get_field(name) for name in ["id", *fields]]
        kinds = [
            "jsonb" if isinstance(f, models.JSONField) else f.db_type(connection) for f in columns
        ]
        values = "(" + ", ".join(f"%s::{kind}" for kind in kinds) + ")"
        params: list[Any] = []
        for instance in rows:
            for field in columns:
                params.append(_prep(field)(getattr(instance, field.attname), connection))
        names = [f'"{field.column}"' for field in columns]
        sets = ", ".join(f"{name} = d.{name}" for name in names[1:])
        sql = (
            f'UPDATE "{meta.db_table}" AS t SET {sets} '
            f"FROM (VALUES {', '.join([values] * len(rows))}) AS d({', '.join(names)}) "
            f'WHERE t."id" = d."id"'
        )
        self.statements.append((sql, params))

    def run(self) -> None:
        """Send what was gathered: one round trip on PostgreSQL; then nothing is left."""
        statements, self.statements = self.statements, []
        if not statements:
            return
        connection = db()
        with connection.cursor() as cursor:
            if sends_together():
                execute_together(cursor, statements)
            else:
                for sql, params in statements:
                    cursor.execute(sql, params)
        for instance in self.inserted:  # as a save leaves it, but for the id it never read
            instance._state.adding, instance._state.db = False, connection.alias
        self.inserted = []


@cache
def _prep(field: models.Field) -> Callable[[Any, Any], Any]:
    """How a value of ``field`` is written: ``get_db_prep_save``, but a ``JSONField``'s as
    ``jsonb`` text written by ``config.json_codec`` (by its own encoder, if it has one),
    where Django's adapter writes it with the standard library's encoder."""
    if not isinstance(field, models.JSONField):
        return field.get_db_prep_save
    encoder = field.encoder

    def prep(value: Any, connection: Any) -> Any:
        if value is None:  # SQL NULL, as Django writes a None
            return None
        return dumps_text(value) if encoder is None else json.dumps(value, cls=encoder)

    return prep


def sends_together() -> bool:
    """Whether several statements with parameters go to the database in one ``execute``:
    on PostgreSQL through psycopg's client-side binding, Django's default. With
    ``server_side_binding`` (a prepared statement holds one command) or on SQLite,
    they go one by one."""
    connection = db()
    return connection.vendor == "postgresql" and not connection.settings_dict.get(
        "OPTIONS", {}
    ).get("server_side_binding")


def execute_together(cursor: Any, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
    """Run ``statements`` (SQL, parameters) in one ``execute``, where :func:`sends_together`:
    on PostgreSQL, whose backend is always ``config.postgresql`` (the settings see to it),
    each prepared on the server unless that is turned off. The cursor is left at the
    first statement's result."""
    db().together(cursor, statements)


def db() -> Any:
    """The default database's connection of this thread, looked up once by each caller:
    ``django.db.connection`` looks it up again at every attribute (a thread-local), and
    a move's writes ask it dozens of times (each field's ``get_db_prep_save`` among them)."""
    return connections[DEFAULT_DB_ALIAS]


# The statements, made once per model (and columns) rather than by Django's SQL compilers
# at every write: compiling a one-row insert cost more Python (0.3 ms) than the database
# spent on it. The values go through each field's own get_db_prep_save, as a save's do.


@cache
def _insert_sql(model: type[models.Model], vendor: str) -> tuple[str, tuple[Any, ...]]:
    meta = model._meta
    quote = db().ops.quote_name
    fields = tuple(field for field in meta.local_concrete_fields if not field.primary_key)
    columns = ", ".join(quote(field.column) for field in fields)
    marks = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})", fields


@cache
def _update_sql(
    model: type[models.Model], names: tuple[str, ...], vendor: str
) -> tuple[str, tuple[Any, ...]]:
    meta = model._meta
    quote = db().ops.quote_name
    fields = tuple(meta.get_field(name) for name in names)
    sets = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    return f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(meta.pk.column)} = %s", fields


__all__ = ["Writes", "sends_together"]
