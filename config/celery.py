"""The Celery app: ``celery -A config worker`` and ``celery -A config beat``."""

import logging.config
import os
import sys
from typing import Any

from celery import Celery, signals
from django.conf import settings
from django.db import close_old_connections
from kombu.transport import TRANSPORT_ALIASES

from config import metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# The embedded default broker writes each message whole (see config/broker.py).
TRANSPORT_ALIASES["filesystem"] = "config.broker:Transport"

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A worker's database connections live as a web process's do. Celery's Django fixup
# closes every connection before and after each task unless told to keep them for a
# number of tasks (its CELERY_DB_REUSE_MAX), so each task opened a connection of its
# own: beat's eight tasks a second cost the database a new backend each (a fork and
# its catalog caches warmed again) and the worker most of its CPU. Told to keep them,
# the fixup leaves them to Django's own rules, applied around each task as around a
# request: closed once older than CONN_MAX_AGE (at once where that is 0, as in
# development), or broken, and checked before reuse (CONN_HEALTH_CHECKS).
app.conf["CELERY_DB_REUSE_MAX"] = sys.maxsize


@signals.task_prerun.connect
@signals.task_postrun.connect
def close_old_connections_around_tasks(sender: Any = None, **kwargs: Any) -> None:
    if sender is not None and getattr(sender.request, "is_eager", False):
        return  # run in its caller's request or task: the connection is the caller's
    close_old_connections()


@signals.setup_logging.connect
def log_as_django_does(loglevel: int | None = None, **kwargs: Any) -> None:
    """Worker and beat log through the settings' LOGGING, as the web does: one line an event
    in one format (config/logs.py), beat's idle ticks lowered. Celery configures no logging
    of its own once this is connected; ``--loglevel`` still sets the level."""
    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger().setLevel(loglevel)


# Metrics (config/metrics.py): a worker forgets its directory's earlier runs and serves its
# processes' counts; a pool process that ends is marked so (prometheus_client's multiprocess).
signals.worker_init.connect(metrics.worker_starting)
signals.worker_process_shutdown.connect(metrics.worker_process_ending)
