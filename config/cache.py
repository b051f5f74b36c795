"""Django's Redis cache with one client, hence one connection pool, per process.

Django keeps a cache object per thread, and under ASGI every request runs on a thread of its own, so the stock
backend opened a new Redis connection for every request (``docs/performance.md``). The client and its
redis-py pool are thread-safe, so one per process (per server list and options) serves every thread.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_clients: dict[str, RedisCacheClient] = {}
_lock = threading.Lock()


class SharedRedisCache(RedisCache):
    @cached_property
    def _cache(self) -> Any:
        key = repr((self._servers, sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
