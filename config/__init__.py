"""Project configuration: settings, URLs and the Celery app ``config``."""

from importlib.metadata import PackageNotFoundError, version

from config.celery import app as celery_app

try:
    # The release's version, from the installed distribution's metadata (pyproject.toml's).
    __version__ = version("fairdeal")
except PackageNotFoundError:  # a checkout run without installing it
    __version__ = "0+unknown"

__all__ = ["__version__", "celery_app"]
