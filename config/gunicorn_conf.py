"""gunicorn's settings: ``gunicorn -c python:config.gunicorn_conf config.wsgi ...``.

A module of the package, so that gunicorn finds it wherever it runs. Its own lines and an
access log, a line a request, on standard error in the settings' one format
(``config/logs.py``): ``2026-12-05T16:20:01.123Z INFO gunicorn.access 10.0.0.2
"GET /healthz HTTP/1.1" 200 312 4ms``. The rest of the command line (``--bind``,
``--workers``, ``--timeout``) is the deployment's: docs/deploy.md.
"""

from config.logs import UTCFormatter

# The client's address (the proxy's, behind one), the request line, the status, the bytes
# of the body and the time taken. No user agent or referrer: nothing personal to keep.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
accesslog = "-"
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"()": UTCFormatter}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "line",
            "stream": "ext://sys.stderr",
        }
    },
    "root": {"level": "INFO", "handlers": ["console"]},
    # Each through the root's handler alone; Django's LOGGING, applied in each worker once
    # the application loads, keeps that handler's format.
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
        "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": True},
    },
}

# Metrics in prometheus_client's multiprocess mode (config/metrics.py): the master empties
# the service's PROMETHEUS_MULTIPROC_DIR of earlier runs as it starts, and marks each worker
# that ends (its counts stay).
from config.metrics import child_exit, on_starting  # noqa: E402, F401
