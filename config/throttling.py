"""Who is asking, and how often: the client's address and counters shared by every process.

The address is ``REMOTE_ADDR`` unless ``FAIRDEAL_TRUSTED_PROXIES`` says that N
proxies stand in front of us; then it is the N-th address from the right of
``X-Forwarded-For``, the one our own outermost proxy wrote (DRF's
``NUM_PROXIES``). Anything further left was written by the client and is not
believed, so a forged header per request changes nothing.

Counters live in the cache, which production requires to be Redis, so every
web process counts together. A count is ``cache.add`` then ``cache.incr``: both
single commands in Redis, so two processes never read the same count and both
write it back, as DRF's throttles (a list read, extended and written) would.
Each window has its own key that outlives the window, so a key never expires
between the check and the increment.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import time
from typing import Any, NamedTuple

from django.conf import settings
from django.core.cache import cache
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class TooManyRequests(exceptions.Throttled):
    """429 ``throttled``, with ``Retry-After`` (set by DRF from ``wait``)."""

    default_detail = "Too many requests;"
    extra_detail_singular = "try again in {wait} second."
    extra_detail_plural = "try again in {wait} seconds."


def client_address(request: Any) -> str:
    """The address of the client, as far as we can know it; see the module's docstring.

    Takes a Django ``HttpRequest`` or a DRF ``Request``.
    """
    meta = request.META
    remote = meta.get("REMOTE_ADDR") or ""
    proxies = settings.FAIRDEAL_TRUSTED_PROXIES
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    chain = [part.strip() for part in forwarded.split(",")]
    candidate = chain[-min(proxies, len(chain))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:  # our proxy would not write that: the chain is shorter than configured
        return remote


def address_key(address: str) -> str:
    """The unit an address is counted in: one IPv4 address, or an IPv6 /64.

    One IPv6 subscriber usually holds a whole /64, so counting single IPv6
    addresses would give a client billions of fresh counters.

    >>> address_key("203.0.113.9"), address_key("2001:db8:1:2:3:4:5:6")
    ('203.0.113.9', '2001:db8:1:2::/64')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def parse_rate(rate: str) -> tuple[int, int]:
    """``"60/min"`` → (60, 60): how many, in how many seconds. DRF's spelling.

    >>> parse_rate("60/min"), parse_rate("30/hour"), parse_rate("5/s")
    ((60, 60), (30, 3600), (5, 1))
    """
    count, period = rate.split("/")
    return int(count), _PERIODS[period.strip()[0]]


class Hit(NamedTuple):
    count: int  # events in this window so far, this one included
    wait: int  # whole seconds until the window ends
    slot: str  # the window's key, to take the event back with :func:`unhit`


def hit(key: str, window: int, *, now: float | None = None) -> Hit:
    """Count one event under ``key`` in the current fixed window of ``window`` seconds."""
    now = time.time() if now is None else now
    number = int(now // window)
    slot = f"{key}:{number}"
    # The key lives for two windows: it cannot expire while its window is counted.
    cache.add(slot, 0, timeout=2 * window)
    count = cache.incr(slot)
    return Hit(count, max(1, math.ceil((number + 1) * window - now)), slot)


def unhit(slot: str) -> None:
    """Take back one event counted by :func:`hit`."""
    with contextlib.suppress(ValueError):  # the slot has expired: nothing to take back
        cache.decr(slot)


class AddressRateThrottle(BaseThrottle):
    """Every request counts against the view's ``throttle_scope``, per client address.

    The rate comes from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]``, read
    on each request (so that a test may change it).
    """

    def __init__(self) -> None:
        self._wait = 0

    def allow_request(self, request: Request, view: Any) -> bool:
        scope = view.throttle_scope
        limit, window = parse_rate(api_settings.DEFAULT_THROTTLE_RATES[scope])
        key = f"throttle:{scope}:{address_key(client_address(request))}"
        count, self._wait, _ = hit(key, window)
        return count <= limit

    def wait(self) -> float:
        return self._wait
