"""The session engine (setting ``SESSION_ENGINE``): Django's ``cached_db`` (Redis in front of PostgreSQL)
that accepts only session keys of the shape Django makes.

A session key comes from the ``sessionid`` cookie, which the client writes: a quoted cookie may carry any
character through its octal escapes (``"a\\000b..."``), and a key with a NUL character reached PostgreSQL
in ``SELECT ... WHERE session_key = ...`` and failed with a ``DataError`` — a 500 on every page, API call
and socket. Django's own keys are 32 characters of ``a-z0-9`` (``VALID_KEY_CHARS``, ``session_key`` is
``varchar(40)``); any other key is treated as no session, exactly as Django treats a key shorter than 8
characters: the visitor is anonymous (a page sends them to the login, the API answers 403, a socket closes
with 4403), and a new session gets a new key.
"""

from __future__ import annotations

from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS

MAX_KEY_LENGTH = 40  # django_session.session_key is varchar(40)
_ALLOWED = frozenset(VALID_KEY_CHARS)


class SessionStore(cached_db.SessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        return bool(key) and 8 <= len(key) <= MAX_KEY_LENGTH and set(key) <= _ALLOWED  # type: ignore[arg-type]
