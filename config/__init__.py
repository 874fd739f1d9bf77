"""Project configuration: settings, URLs and the Celery app ``config``."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
