"""Prometheus metrics: what is counted, and how the counts of many processes are read.

Counted where it happens, one increment each, once the write it counts has committed
(``transaction.on_commit``: a rolled-back move is no move):

- ``fairdeal_moves_total{kind}``: entries of the tables' logs (``start``, ``action``,
  ``forfeit``), wherever they were written (``games.services``);
- ``fairdeal_deadlines_swept_total``: the tables beat's sweep ended by timeout;
- ``fairdeal_forfeit_lateness_seconds``: how long after its seat's deadline each timeout
  was judged, by the sweep or by a late move;
- ``fairdeal_mail_sent_total``, ``fairdeal_mail_failed_total``: every mail, through
  ``config.mail.send_mail_to`` (a failed one is retried by the outbox, and counted again);
- ``fairdeal_bot_decision_seconds{game,level}``: a bot's time to choose (``games.bot_play``);
- ``fairdeal_http_request_duration_seconds{route,method,status}``: each request's time
  (``games.metrics``, which also serves the web's ``/metrics`` and the gauges read from
  the database at each scrape).

Several processes, one count. gunicorn's workers and a Celery worker's pool processes each
count in memory of their own, so each writes its counts to a file of its own in
``PROMETHEUS_MULTIPROC_DIR`` (prometheus_client's multiprocess mode, chosen by that
variable as a process starts), and a scrape adds them up. Each service has a directory
of its own, emptied of earlier runs as it starts (:func:`forget_earlier_runs`: gunicorn's
``on_starting``, a worker's ``worker_init``); the counts of a process that ended stay in
its file, so a total never goes down while its service runs. The web serves its own
processes' counts; each Celery worker serves its own on a port of its own
(``FAIRDEAL_WORKER_METRICS_BIND``, :func:`serve_worker_metrics`). One directory shared by
services restarted apart would make a total drop whenever one of them restarted, which
Prometheus takes for a reset and counts again (docs/deploy.md, "Metrics").

Who may read (:func:`refusal`): a client in ``FAIRDEAL_METRICS_NETWORKS``, or one sending
``Authorization: Bearer <FAIRDEAL_METRICS_TOKEN>``. With neither set, production answers
404 and elsewhere only this machine may read.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import threading
from collections import Counter as Tally
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.http import JsonResponse
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

logger = logging.getLogger(__name__)

MOVES = Counter("fairdeal_moves", "Entries written to the tables' logs, by kind.", ["kind"])
DEADLINES_SWEPT = Counter("fairdeal_deadlines_swept", "Tables the deadline sweep ended by timeout.")
FORFEIT_LATENESS = Histogram(
    "fairdeal_forfeit_lateness_seconds",
    "How long after its seat's deadline a timeout was judged.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600),
)
MAIL_SENT = Counter("fairdeal_mail_sent", "Mails handed to the mail backend.")
MAIL_FAILED = Counter("fairdeal_mail_failed", "Mails the mail backend refused or lost.")
BOT_DECISION = Histogram(
    "fairdeal_bot_decision_seconds",
    "A bot's time to choose its action.",
    ["game", "level"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
HTTP_DURATION = Histogram(
    "fairdeal_http_request_duration_seconds",
    "Time to answer a request, by URL pattern, method and status class.",
    ["route", "method", "status"],
)


# -- counting -----------------------------------------------------------------------


def count_moves(kinds: Iterable[str]) -> None:
    """Count log entries of ``kinds`` once the transaction writing them commits."""
    tally = Tally(str(kind) for kind in kinds)

    def count() -> None:
        for kind, amount in tally.items():
            MOVES.labels(kind).inc(amount)

    transaction.on_commit(count)


def count_timeouts(lateness: list[float]) -> None:
    """Count timeouts judged ``lateness`` seconds after their seats' deadlines, once the
    transaction writing them commits."""

    def count() -> None:
        for seconds in lateness:
            FORFEIT_LATENESS.observe(seconds)

    transaction.on_commit(count)


def count_swept(tables: int) -> None:
    """Count ``tables`` the sweep ended, once the transaction ending them commits."""
    transaction.on_commit(lambda: DEADLINES_SWEPT.inc(tables))


# -- reading ----------------------------------------------------------------------


def multiprocess_directory() -> str | None:
    """``PROMETHEUS_MULTIPROC_DIR``, read by prometheus_client itself as each process
    starts (it must be in the environment before then: docs/deploy.md)."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def processes_registry() -> CollectorRegistry:
    """The counts of this service's processes: every one's, added up from their files in
    multiprocess mode, or this process's own."""
    registry = CollectorRegistry()
    directory = multiprocess_directory()
    if directory:
        MultiProcessCollector(registry, path=directory)
    else:
        registry.register(REGISTRY)
    return registry


def exposition(accept: str, *collectors: Any) -> tuple[bytes, str]:
    """The text Prometheus scrapes, in the format its ``Accept`` header asks for, and its
    content type: this service's counts, and what ``collectors`` read."""
    registry = processes_registry()
    for collector in collectors:
        registry.register(collector)
    encode, content_type = choose_encoder(accept)
    return encode(registry), content_type


# -- who may read -------------------------------------------------------------------


def refusal(address: str, authorization: str) -> JsonResponse | None:
    """Why a client at ``address`` with this ``Authorization`` header may not read the
    metrics (404 when they are off, 403), or None when it may."""
    token: str = settings.FAIRDEAL_METRICS_TOKEN
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = (
        settings.FAIRDEAL_METRICS_NETWORKS
    )
    try:
        client = ipaddress.ip_address(address)
    except ValueError:
        client = None
    if not token and not networks:
        if settings.PRODUCTION:
            return JsonResponse(
                {"code": "not_found", "detail": "Metrics are off on this site."}, status=404
            )
        networks = [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
    if client is not None and any(client in network for network in networks):
        return None
    scheme, _, given = authorization.partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(given.encode(), token.encode()):
        return None
    return JsonResponse(
        {
            "code": "forbidden",
            "detail": "Metrics are for the monitoring's network or its token alone.",
        },
        status=403,
    )


# -- the processes ------------------------------------------------------------------


def forget_earlier_runs() -> None:
    """Empty this service's ``PROMETHEUS_MULTIPROC_DIR`` of earlier runs' files, as it
    starts: their counts would be added to this run's, and a new process given an old
    one's number would carry on from its count. This process's own files (written as
    its code was imported) stay."""
    directory = multiprocess_directory()
    if not directory:
        return
    own = f"_{os.getpid()}.db"
    for path in Path(directory).glob("*.db"):
        if not path.name.endswith(own):
            path.unlink(missing_ok=True)


def check_multiprocess(serving: bool) -> None:
    """Refuse to start a production service that serves metrics (``serving``) without a
    ``PROMETHEUS_MULTIPROC_DIR`` directory: each scrape would read one process's counts,
    a different one each time. A web worker asks as it loads its middleware
    (``games.metrics``), a Celery worker in ``worker_init``; beat and ``manage.py`` need
    none."""
    directory = multiprocess_directory()
    if settings.PRODUCTION and serving and not (directory and Path(directory).is_dir()):
        raise ImproperlyConfigured(
            "metrics are served (FAIRDEAL_METRICS_TOKEN, FAIRDEAL_METRICS_NETWORKS or"
            " FAIRDEAL_WORKER_METRICS_BIND) but PROMETHEUS_MULTIPROC_DIR names no directory:"
            " give this service one of its own (docs/deploy.md, Metrics)"
        )


def on_starting(server: Any) -> None:
    """gunicorn's hook, in its master before any worker starts: a new run's counts. (It
    reads no settings: the master imports as little of the site as it can, for its
    workers to import afresh.)"""
    forget_earlier_runs()


def child_exit(server: Any, worker: Any) -> None:
    """gunicorn's hook, in its master as a worker ends: prometheus_client's bookkeeping of
    a process gone (its counts stay; its live gauges, if any, go)."""
    if multiprocess_directory():
        mark_process_dead(worker.pid)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # a scrape every few seconds
        pass


def worker_metrics_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    """A Celery worker's metrics as WSGI: its processes' counts (the web serves the
    database's gauges), to the same readers as the web's. The client is the connection's
    own address: nothing stands between Prometheus and a worker."""
    refused = refusal(environ.get("REMOTE_ADDR", ""), environ.get("HTTP_AUTHORIZATION", ""))
    if refused is not None:
        status = f"{refused.status_code} {refused.reason_phrase}"
        start_response(status, [("Content-Type", "application/json")])
        return [refused.content]
    body, content_type = exposition(environ.get("HTTP_ACCEPT", ""))
    start_response("200 OK", [("Content-Type", content_type), ("Cache-Control", "no-store")])
    return [body]


def serve_worker_metrics(bind: str) -> WSGIServer:
    """Serve :func:`worker_metrics_app` on ``bind`` (``host:port``) from a thread of the
    worker's main process, which reads every pool process's file."""
    host, _, port = bind.rpartition(":")
    server = make_server(host, int(port), worker_metrics_app, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    logger.info("serving this worker's metrics on %s", bind)
    return server


def worker_starting(**kwargs: Any) -> None:
    """Celery's ``worker_init``, in a worker's main process before its pool starts: a new
    run's counts, and its metrics served where ``FAIRDEAL_WORKER_METRICS_BIND`` says."""
    check_multiprocess(bool(settings.FAIRDEAL_WORKER_METRICS_BIND))
    forget_earlier_runs()
    if settings.FAIRDEAL_WORKER_METRICS_BIND:
        serve_worker_metrics(settings.FAIRDEAL_WORKER_METRICS_BIND)


def worker_process_ending(**kwargs: Any) -> None:
    """Celery's ``worker_process_shutdown``, in a pool process as it ends: as
    :func:`child_exit` for gunicorn's."""
    if multiprocess_directory():
        mark_process_dead(os.getpid())
