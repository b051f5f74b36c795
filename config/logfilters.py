"""Logging filters (``LOGGING`` in :mod:`config.settings`; imported by ``dictConfig``, so no Django app here).

Django's ``django.request`` logger writes every ``PermissionDenied`` as a warning *with its traceback*
(35 lines for one refused page, issue 18). A refusal is the expected answer of a permission check, not a
fault: :class:`ExpectedRefusal` keeps its one line ("Forbidden (Permission denied): /path") and drops the
traceback. Every other record, the 500s above all, is logged unchanged.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied


class ExpectedRefusal(logging.Filter):
    """A ``logging`` filter for ``django.request``: a 403 raised as ``PermissionDenied`` loses its traceback
    (``exc_info``); the record itself is kept (one warning line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc_info = record.exc_info
        refused = bool(exc_info) and isinstance(exc_info[1], PermissionDenied)  # type: ignore[index]
        if refused and getattr(record, "status_code", 403) == 403:
            record.exc_info = None
            record.exc_text = None
        return True
