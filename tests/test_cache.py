"""The shared cache: Django's own Redis cache, shared by every web process (the throttles count in it)."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache


@pytest.fixture
def redis_cache() -> RedisCache:
    cache = caches["default"]
    if not isinstance(cache, RedisCache):
        pytest.fail("the tests run with CACHE_URL=redis://... (make test does)")
    return cache


def test_the_shared_cache_counts_and_keeps_values_from_many_threads(
    redis_cache: RedisCache,
) -> None:
    key = "test-cache-shared-client"
    redis_cache.set(key, 0, 30)
    redis_cache.set(key + "-value", {"a": [1, 2]}, 30)

    def count() -> None:
        for _ in range(50):
            redis_cache.incr(key)

    threads = [threading.Thread(target=count) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert redis_cache.get(key) == 200
    assert redis_cache.get(key + "-value") == {"a": [1, 2]}
    redis_cache.delete_many([key, key + "-value"])
    assert redis_cache.get(key) is None
