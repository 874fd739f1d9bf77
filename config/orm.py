"""Model instances made from rows read without the ORM's queries (the hot paths' own SQL)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import models
from django.db.models import signals
from django.db.models.base import ModelState

ModelT = TypeVar("ModelT", bound=models.Model)


@cache
def _plain(model: type[models.Model]) -> bool:
    """Whether ``model`` is made as every model is: its ``__init__`` and ``from_db`` Django's."""
    return (
        model.__init__ is models.Model.__init__
        and model.from_db.__func__ is models.Model.from_db.__func__  # type: ignore[attr-defined]
    )


_new = object.__new__


def from_db(
    model: type[ModelT],
    alias: str,
    attnames: Sequence[str],
    values: Sequence[Any],
    related: dict[str, models.Model] | None = None,
) -> ModelT:
    """``model.from_db(alias, attnames, values)``: the instance a query makes of a row,
    its fields not in ``attnames`` deferred.

    ``related``: the objects of its forward many-to-one relations (by field name) read with
    it, whose ids ``values`` hold, as ``instance.<name> = object`` leaves them: known
    without a query (Django's descriptor checks and sets the id again, a tenth of a
    table's read).

    Made without ``Model.__init__``, which sets each field in turn and sends
    ``pre_init`` and ``post_init`` (a table's row, seats and players, and a token's
    user: 3.5 % of a move's instructions, callgrind): the values go straight where
    ``__init__`` would have put them, the instance's attributes. A model that anything
    listens to ``pre_init`` or ``post_init`` of, or that makes its instances its own way
    (its own ``__init__`` or ``from_db``), is made by its ``from_db``.
    """
    if not _plain(model) or (
        (signals.pre_init.receivers or signals.post_init.receivers)  # usually none at all:
        and (signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model))
    ):  # asking by model first cost more
        made = model.from_db(alias, list(attnames), values)
        for name, value in (related or {}).items():
            setattr(made, name, value)
        return made  # type: ignore[return-value]
    instance = _new(model)
    state = instance._state = ModelState()
    state.adding, state.db = False, alias
    instance.__dict__.update(zip(attnames, values, strict=True))
    if related:
        state.fields_cache = dict(related)
    return instance
