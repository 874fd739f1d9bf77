"""Django's Redis cache, with one Redis client per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` for every
cache operation, and ``Redis.__init__`` fills a table of some 170 response
callbacks each time: about a third of a millisecond of CPU, which was a third
of an authenticated API request's floor (every request looks its token up in
the cache). A ``redis.Redis`` is safe to share between threads (its
connections come from the pool), so each pool keeps the one made for it.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class ReusedClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(
                connection_pool=self._get_connection_pool(write)
            )
        return client


class RedisCache(DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` over :class:`ReusedClient`."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClient
