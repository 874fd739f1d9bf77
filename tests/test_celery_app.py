"""The Celery app's handling of database connections around tasks (config/celery.py)."""

from __future__ import annotations

import sys

import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection, transaction

from config.celery import app
from games import tasks
from games.models import Table

pytestmark = pytest.mark.django_db


def test_celerys_django_fixup_is_told_to_keep_the_connections() -> None:
    assert DjangoWorkerFixup(app).db_reuse_max == sys.maxsize


def test_a_task_run_eagerly_inside_a_transaction_leaves_its_connection_alone() -> None:
    # As the tests and `make run` run tasks: in the caller's request, often in its
    # transaction. Closing the connection there would break the caller's transaction.
    with transaction.atomic():
        Table.objects.exists()
        kept = connection.connection
        assert tasks.drain_outbox.apply().successful()
        assert connection.connection is kept
        assert Table.objects.count() >= 0  # the transaction still usable
