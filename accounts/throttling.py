"""Password guessing, bounded per account and per address, before any password is hashed.

Per account (by the name asked for, whether or not it exists): the first
``FAIRDEAL_LOGIN_FREE_FAILURES`` failures cost nothing; every further attempt
locks the account for 2, 4, 8... seconds (``FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS``,
then twice as long each time, at most ``FAIRDEAL_LOGIN_MAX_LOCK_SECONDS``) from
the moment it starts. A success
clears the account's failures and lock; failures are otherwise forgotten a day
after the last one.

Per address: ``FAIRDEAL_LOGIN_ADDRESS_RATE`` failures, over every account, so
that one client cannot spread its guesses thinly over many accounts.

Every attempt is counted as a failure before its password is checked, and
taken back if it succeeds or is refused. The counts are atomic increments, so
a burst of simultaneous attempts gets no more guesses than a sequence: only
the free failures, then one attempt per lock.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache

from accounts.names import username_key
from config.throttling import Hit, TooManyRequests, address_key, hit, parse_rate, unhit


class AccountLocked(TooManyRequests):
    default_detail = "Too many failed logins for this account;"


class AddressLocked(TooManyRequests):
    default_detail = "Too many failed logins from your address;"


def lock_seconds(failures: int) -> int:
    """How long the attempt after ``failures - 1`` failures in a row locks the account for.

    With the defaults (5 free failures, a first lock of 2 s, at most 900 s):

    >>> [lock_seconds(n) for n in (1, 5, 6, 7, 8, 20)]
    [0, 0, 2, 4, 8, 900]
    """
    beyond = failures - settings.FAIRDEAL_LOGIN_FREE_FAILURES
    if beyond <= 0:
        return 0
    first = settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS
    return min(first * 2 ** min(beyond - 1, 30), settings.FAIRDEAL_LOGIN_MAX_LOCK_SECONDS)


class LoginGuard:
    """One attempt at a password: :meth:`admit` it, then report :meth:`failed` or :meth:`succeeded`.

    ``admit`` raises :class:`AccountLocked` or :class:`AddressLocked` (429, with
    ``Retry-After``) when the attempt may not be made; nothing is hashed then.
    """

    def __init__(self, *, username: str, address: str) -> None:
        account = hashlib.sha256(username_key(username).encode()).hexdigest()[:32]
        self.failures_key = f"login:failures:{account}"
        self.lock_key = f"login:lock:{account}"
        self.address_key = f"login:address:{address_key(address)}"
        self._address_hit: Hit | None = None

    def admit(self) -> None:
        now = time.time()
        limit, window = parse_rate(settings.FAIRDEAL_LOGIN_ADDRESS_RATE)
        self._address_hit = hit(self.address_key, window, now=now)
        if self._address_hit.count > limit:
            unhit(self._address_hit.slot)
            raise AddressLocked(wait=self._address_hit.wait)
        # The lock's lifetime in the cache is the lock: while the key exists, refuse.
        until = cache.get(self.lock_key)
        if until is not None:
            self._refuse(until, now)
        memory = settings.FAIRDEAL_LOGIN_FAILURE_MEMORY_SECONDS
        cache.add(self.failures_key, 0, timeout=memory)
        failures = cache.incr(self.failures_key)
        cache.touch(self.failures_key, memory)
        lock = lock_seconds(failures)
        # Only one attempt takes each lock: any other in the meantime is refused.
        if lock and not cache.add(self.lock_key, now + lock, timeout=lock):
            cache.decr(self.failures_key)
            self._refuse(cache.get(self.lock_key) or now + 1, now)

    def _refuse(self, until: float, now: float) -> None:
        if self._address_hit is not None:
            unhit(self._address_hit.slot)
        raise AccountLocked(wait=max(1, math.ceil(until - now)))

    def failed(self) -> None:
        """The password was wrong: the failure counted by :meth:`admit` stands."""

    def succeeded(self) -> None:
        cache.delete_many([self.failures_key, self.lock_key])
        if self._address_hit is not None:
            unhit(self._address_hit.slot)
