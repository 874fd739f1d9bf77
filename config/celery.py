"""The Celery app: ``celery -A config worker`` and ``celery -A config beat``."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# The embedded default broker writes each message whole (see config/broker.py).
TRANSPORT_ALIASES["filesystem"] = "config.broker:Transport"

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
