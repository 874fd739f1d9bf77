"""Password guessing, bounded before any password is hashed, without locking the owner out.

An account is named by what was asked for, in any case (``accounts.names.username_key``),
whether or not it exists; an address is ``config.throttling.address_key`` of the client's
address (never a header the deployment does not trust). Three bounds:

1. **Per account and address: the lock.** The failures of one address at one account: the
   first ``FAIRDEAL_LOGIN_FREE_FAILURES`` (5) cost nothing; every further attempt locks that
   address out of that account for 2, 4, 8... seconds (``FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS``,
   then twice as long each time, at most ``FAIRDEAL_LOGIN_MAX_LOCK_SECONDS``, 15 minutes)
   from the moment it starts. A success from that address clears them; they are otherwise
   forgotten a day after the last one. The lock holds the guesser's address alone: the
   owner, logging in from anywhere else, never meets it.

2. **Per address:** ``FAIRDEAL_LOGIN_ADDRESS_RATE`` (30 an hour) failures over every account,
   so that one client cannot spread its guesses thinly over many accounts.

3. **Per account, over every address:** ``FAIRDEAL_LOGIN_ACCOUNT_RATE`` (10 an hour)
   failures. Past it, for the rest of that hour, an address may try only if it is

   - *known*: the account logged in from it in the last 30 days
     (``FAIRDEAL_LOGIN_KNOWN_ADDRESS_SECONDS``) with its current password; only its own
     lock (1.) holds it. A new password (changed, or reset from a mailed link) forgets
     every known address (:func:`forget_known_addresses`): whoever logged in with the old
     one, an intruder perhaps, is a stranger again; or
   - *fresh*: it has fewer than ``FAIRDEAL_LOGIN_FRESH_TRIES`` (2) failures at this
     account, and fresh addresses have made fewer than ``FAIRDEAL_LOGIN_FRESH_RATE``
     (10 an hour) attempts at it in all.

   Any other address, one that has itself failed here, waits for the hour to end.

Why these numbers. A person who has forgotten a password gives up, or asks for a new one,
well before ten failures in an hour, so the account-wide ceiling is not met by its owner;
a single guessing address meets it in half a minute (5 free failures, then locks of 2, 4,
8 and 16 s) and is then refused for the rest of the hour; its own lock then lets it about
7 guesses in the next hour and 4 an hour after that (one per 15-minute lock), some 100 a
day. Two tries for a fresh address let its owner mistype once. Ten fresh attempts an hour
are five fresh addresses' worth: someone holding the password is refused at a new address
only while an attacker brings five or more new addresses of their own to this one account
every hour, and even then not where they logged in before. So an attacker with any number
of addresses but none of the owner's gets at most 10 + 10 = 20 guesses at an account in a
clock hour (fixed windows: up to 40 across a turn of the hour), under 500 a day, against
passwords that Django's validators already keep off the common lists. One behind the
owner's own address (a shared NAT) is held by that address's lock alone, as the owner is.

Every attempt is counted as a failure, under every bound it meets, before its password is
checked, and taken back if it succeeds or is refused. The counts are atomic increments
(``config.throttling``), and a fresh address is judged by its own failures counted with the
attempt, so a burst of simultaneous attempts gets no more guesses than a sequence: only the
free failures, then one attempt per lock; past the ceiling, at most two from a fresh address.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import secrets
import time

from django.conf import settings
from django.core.cache import cache

from accounts.names import username_key
from config.throttling import TooManyRequests, address_key, hit, parse_rate, unhit


class AccountLocked(TooManyRequests):
    default_detail = "Too many failed logins for this account from your address;"


class AccountGuarded(TooManyRequests):
    default_detail = "Too many failed logins for this account from many addresses;"


class AddressLocked(TooManyRequests):
    default_detail = "Too many failed logins from your address;"


def lock_seconds(failures: int) -> int:
    """How long the attempt after ``failures - 1`` failures in a row locks its address out for.

    With the defaults (5 free failures, a first lock of 2 s, at most 900 s):

    >>> [lock_seconds(n) for n in (1, 5, 6, 7, 8, 20)]
    [0, 0, 2, 4, 8, 900]
    """
    beyond = failures - settings.FAIRDEAL_LOGIN_FREE_FAILURES
    if beyond <= 0:
        return 0
    first = settings.FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS
    return min(first * 2 ** min(beyond - 1, 30), settings.FAIRDEAL_LOGIN_MAX_LOCK_SECONDS)


def _seconds_until(until: float, now: float) -> int:
    return max(1, math.ceil(until - now))


class LoginGuard:
    """One attempt at a password: :meth:`admit` it, then report :meth:`failed` or :meth:`succeeded`.

    ``admit`` raises :class:`AddressLocked`, :class:`AccountLocked` or
    :class:`AccountGuarded` (429, with ``Retry-After``) when the attempt may not be
    made; nothing is hashed then.
    """

    def __init__(self, *, username: str, address: str) -> None:
        account = _account(username)
        client = address_key(address)
        self.failures_key = f"login:failures:{account}:{client}"
        self.lock_key = f"login:lock:{account}:{client}"
        self._known = (account, client)
        self.account_key = f"login:account:{account}"
        self.fresh_key = f"login:fresh:{account}"
        self.address_key = f"login:address:{client}"
        # What admit counted, to take back on a refusal or a success.
        self._slots: list[str] = []
        self._failure_counted = False

    def admit(self) -> None:
        try:
            self._admit(time.time())
        except TooManyRequests:
            self._take_back()
            raise

    def _admit(self, now: float) -> None:
        over, wait = self._count(self.address_key, settings.FAIRDEAL_LOGIN_ADDRESS_RATE, now)
        if over:
            raise AddressLocked(wait=wait)
        # The lock's lifetime in the cache is the lock: while the key exists, refuse.
        until = cache.get(self.lock_key)
        if until is not None:
            raise AccountLocked(wait=_seconds_until(until, now))
        memory = settings.FAIRDEAL_LOGIN_FAILURE_MEMORY_SECONDS
        cache.add(self.failures_key, 0, timeout=memory)
        failures = cache.incr(self.failures_key)
        self._failure_counted = True
        cache.touch(self.failures_key, memory)
        over, wait = self._count(self.account_key, settings.FAIRDEAL_LOGIN_ACCOUNT_RATE, now)
        if over and cache.get(self._known_key()) is None:
            # This address's failures, this attempt's included, judge whether it is fresh.
            if failures > settings.FAIRDEAL_LOGIN_FRESH_TRIES:
                raise AccountGuarded(wait=wait)
            over, wait = self._count(self.fresh_key, settings.FAIRDEAL_LOGIN_FRESH_RATE, now)
            if over:
                raise AccountGuarded(wait=wait)
        lock = lock_seconds(failures)
        # Only one attempt takes each lock: any other in the meantime is refused.
        if lock and not cache.add(self.lock_key, now + lock, timeout=lock):
            raise AccountLocked(wait=_seconds_until(cache.get(self.lock_key) or now + 1, now))

    def _count(self, key: str, rate: str, now: float) -> tuple[bool, int]:
        """Count this attempt under ``key`` at ``rate``: whether that is over it, and the wait."""
        limit, window = parse_rate(rate)
        counted = hit(key, window, now=now)
        self._slots.append(counted.slot)
        return counted.count > limit, counted.wait

    def _take_back(self) -> None:
        for slot in self._slots:
            unhit(slot)
        self._slots = []
        if self._failure_counted:
            with contextlib.suppress(ValueError):  # a success has cleared the failures meanwhile
                cache.decr(self.failures_key)
            self._failure_counted = False

    def failed(self) -> None:
        """The password was wrong: the failure counted by :meth:`admit` stands everywhere."""

    def succeeded(self) -> None:
        """The password was right: this address's failures and lock are cleared, the attempt
        taken back from the other counts, and the address known to the account."""
        cache.delete_many([self.failures_key, self.lock_key])
        self._failure_counted = False
        self._take_back()
        cache.set(self._known_key(), 1, timeout=settings.FAIRDEAL_LOGIN_KNOWN_ADDRESS_SECONDS)

    def _known_key(self) -> str:
        """The key that marks this address known to the account under its current password."""
        account, client = self._known
        return f"login:known:{account}:{_password_epoch(account)}:{client}"


def _account(username: str) -> str:
    """The account's part of the guard's keys: the name asked for, in any case, hashed."""
    return hashlib.sha256(username_key(username).encode()).hexdigest()[:32]


def _password_epoch(account: str) -> str:
    """The mark of the account's current password among its known addresses' keys ("0"
    until its first new password)."""
    return str(cache.get(f"login:epoch:{account}", "0"))


def forget_known_addresses(username: str) -> None:
    """A new password for ``username``: no address is known to the account any more (each
    becomes known again by logging in with it). The old marks are left to run out."""
    # Kept for good (a few bytes an account that ever changed its password): were it to run
    # out, the addresses marked under it would be forgotten too early.
    cache.set(f"login:epoch:{_account(username)}", secrets.token_hex(8), timeout=None)
