"""Instances made from rows by config.orm.from_db are those Django's Model.from_db makes."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import signals

from config.orm import from_db
from games.models import Seat, Table
from tests.factories import make_users, started_table

pytestmark = pytest.mark.django_db


def state_of(instance: Any) -> dict[str, Any]:
    fields = {k: v for k, v in instance.__dict__.items() if k != "_state"}
    return {
        "fields": fields,
        "adding": instance._state.adding,
        "db": instance._state.db,
        "deferred": instance.get_deferred_fields(),
    }


def test_a_whole_row_makes_the_instance_djangos_from_db_makes() -> None:
    table = started_table(*make_users("alice", "bob"))
    for model, row in [(Table, table), (Seat, table.seats.first())]:
        names = [field.attname for field in model._meta.concrete_fields]
        values = [getattr(row, name) for name in names]
        ours, djangos = (
            from_db(model, "default", names, values),
            model.from_db("default", names, values),
        )
        assert state_of(ours) == state_of(djangos)
        assert ours == row and not ours._state.adding


def test_fields_left_out_are_deferred_and_load_when_asked() -> None:
    (alice,) = make_users("alice")
    User = get_user_model()
    ours = from_db(User, "default", ["id", "username"], [alice.pk, "alice"])
    djangos = User.from_db("default", ["id", "username"], [alice.pk, "alice"])
    assert state_of(ours) == state_of(djangos)
    assert "email" in ours.get_deferred_fields()
    assert ours.email == alice.email  # loaded from the database, as a deferred field is


def test_a_model_listened_to_is_made_by_djangos_from_db_with_its_signals() -> None:
    (alice,) = make_users("alice")
    User = get_user_model()
    seen: list[Any] = []

    def receiver(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    signals.post_init.connect(receiver, sender=User)
    try:
        made = from_db(User, "default", ["id", "username"], [alice.pk, "alice"])
    finally:
        signals.post_init.disconnect(receiver, sender=User)
    assert seen == [made] and seen[0] is made
    from_db(User, "default", ["id", "username"], [alice.pk, "alice"])  # nobody listens now
    assert len(seen) == 1


def test_related_objects_read_with_a_row_are_known_without_a_query(
    django_assert_num_queries: Any,
) -> None:
    table = started_table(*make_users("alice", "bob"))
    seat = table.seats.select_related("user").get(number=0)
    names = [field.attname for field in Seat._meta.concrete_fields]
    values = [getattr(seat, name) for name in names]
    related = {"table": table, "user": seat.user}
    ours = from_db(Seat, "default", names, values, related)
    djangos = Seat.from_db("default", names, values)
    djangos.table, djangos.user = table, seat.user
    with django_assert_num_queries(0):
        assert ours.table is table and ours.user is seat.user
    assert state_of(ours)["fields"] == state_of(djangos)["fields"]
    assert ours._state.fields_cache == djangos._state.fields_cache


def test_related_objects_of_a_model_listened_to_are_set_by_its_descriptors() -> None:
    table = started_table(*make_users("alice", "bob"))
    seat = table.seats.get(number=0)
    names = [field.attname for field in Seat._meta.concrete_fields]
    values = [getattr(seat, name) for name in names]

    def receiver(**kwargs: Any) -> None:
        pass

    signals.post_init.connect(receiver, sender=Seat)
    try:
        made = from_db(Seat, "default", names, values, {"table": table})
    finally:
        signals.post_init.disconnect(receiver, sender=Seat)
    assert made.table is table and made.table_id == table.pk


def test_a_model_that_makes_its_instances_its_own_way_is_made_its_way() -> None:
    made: list[Any] = []

    class Noted(Table):
        class Meta:
            proxy = True
            app_label = "games"

        @classmethod
        def from_db(cls, db: Any, field_names: Any, values: Any) -> Any:
            instance = super().from_db(db, field_names, values)
            made.append(instance)
            return instance

    table = started_table(*make_users("alice", "bob"))
    names = [field.attname for field in Table._meta.concrete_fields]
    instance = from_db(Noted, "default", names, [getattr(table, name) for name in names])
    assert made == [instance] and instance.pk == table.pk
