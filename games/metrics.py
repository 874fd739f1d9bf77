"""The web's ``/metrics``: its processes' counts (``config.metrics``), the gauges that are
the database's truth, read at each scrape, and each request's time by its route.

The gauges, read as ``/healthz`` reads them (``games.health``: four reads by index),
never kept in a process: ``fairdeal_outbox_pending{lane}`` and
``fairdeal_outbox_oldest_age_seconds{lane}`` (the outbox's backlog: lane ``outbox``, the
mail and ratings, and lane ``bots``, the bots' moves), ``fairdeal_outbox_scheduled``,
``fairdeal_outbox_failing``, ``fairdeal_sweep_age_seconds`` (``+Inf`` when no sweep ever
completed) and ``fairdeal_sweep_stale_after_seconds`` (the age past which ``/healthz``
reports beat dead or silent). Every web host reports the same: alert on their ``max``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, Metric

from config import metrics
from config.throttling import client_address
from games import health

# The methods the site answers; any other a client sends is counted as "other".
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# A request no URL pattern resolved: a 404, or one a middleware answered first.
UNRESOLVED = "unresolved"


class DatabaseState:
    """A Prometheus collector of the outbox's backlog by lane and the last sweep's age."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        backlog = health.backlog(now)
        pending = GaugeMetricFamily(
            "fairdeal_outbox_pending", "Outbox items due and not done, by lane.", labels=["lane"]
        )
        oldest = GaugeMetricFamily(
            "fairdeal_outbox_oldest_age_seconds",
            "How long the oldest due outbox item has waited, by lane (0: none waits).",
            labels=["lane"],
        )
        for lane, waiting in sorted(backlog["lanes"].items()):
            pending.add_metric([lane], waiting["pending"])
            since = waiting["oldest"]
            oldest.add_metric([lane], (now - since).total_seconds() if since else 0.0)
        yield pending
        yield oldest
        yield GaugeMetricFamily(
            "fairdeal_outbox_scheduled",
            "Outbox items not due yet (a retry's backoff, a worker's lease).",
            value=backlog["scheduled"],
        )
        yield GaugeMetricFamily(
            "fairdeal_outbox_failing",
            "Outbox items whose last try failed, waiting to be tried again.",
            value=backlog["failing"],
        )
        last = health.heartbeats().get("sweep")
        yield GaugeMetricFamily(
            "fairdeal_sweep_age_seconds",
            "Seconds since the deadline sweep last completed (+Inf: never).",
            value=(now - last).total_seconds() if last else float("inf"),
        )
        yield GaugeMetricFamily(
            "fairdeal_sweep_stale_after_seconds",
            "The sweep's age past which /healthz reports beat dead or silent.",
            value=health.stale_after(),
        )


def metrics_view(request: HttpRequest) -> HttpResponse:
    """The web's metrics, to the readers ``config.metrics.refusal`` lets in."""
    refused = metrics.refusal(client_address(request), request.headers.get("Authorization", ""))
    if refused is not None:
        return refused
    if request.method not in ("GET", "HEAD"):
        return JsonResponse(
            {"code": "method_not_allowed", "detail": "Metrics are read with GET."},
            status=405,
            headers={"Allow": "GET, HEAD"},
        )
    text, content_type = metrics.exposition(request.headers.get("Accept", ""), DatabaseState())
    response = HttpResponse(text, content_type=content_type)
    response["Cache-Control"] = "no-store"
    return response


class MetricsMiddleware:
    """Answer ``/metrics``, and time every other request by its route.

    ``/metrics`` is answered here, before Django validates the host: Prometheus scrapes
    each web host by its address (``Host: 10.0.0.5:8000``), which ``ALLOWED_HOSTS`` does
    not name, and the counts are each host's own. Safe as the health probe is
    (``config.middleware.HealthProbeMiddleware``): the answer is the same whatever the
    host, builds no URL, sets no cookie and is never cached.

    A production web that serves metrics does not start without its
    ``PROMETHEUS_MULTIPROC_DIR`` (``config.metrics.check_multiprocess``).

    The time of a request is labelled by its URL pattern (``/api/tables/<row:table_id>/moves/``),
    never the path itself, whose numbers would make a series of each table; by its method
    and its status class (``2xx``). Placed after the health probe and before the rest of
    ``MIDDLEWARE``, so that the time is all of a request's, middleware included.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        metrics.check_multiprocess(
            bool(settings.FAIRDEAL_METRICS_TOKEN or settings.FAIRDEAL_METRICS_NETWORKS)
        )
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/metrics":
            return metrics_view(request)
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        metrics.HTTP_DURATION.labels(
            "/" + match.route if match is not None else UNRESOLVED,
            request.method if request.method in METHODS else "other",
            f"{response.status_code // 100}xx",
        ).observe(time.perf_counter() - started)
        return response
