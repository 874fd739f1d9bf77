"""Model instances made from rows read without the ORM's queries (the hot paths' own SQL)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import models
from django.db.models import signals
from django.db.models.base import ModelState

ModelT = TypeVar("ModelT", bound=models.Model)

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
    user: 3.5 % of a move's instructions, callgrind): the values go straight where ``__init__`` would have put them, the
    instance's attributes. A model that anything listens to ``pre_init`` or
    ``post_init`` of is made by Django's ``from_db``, which sends them.
    """
    if (signals.pre_init.receivers or signals.post_init.receivers) and (
        signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model)
    ):  # nothing listens to either for any model, usually: asking by model cost more
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
