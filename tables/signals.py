"""Signals of the tables app (Django's :class:`~django.dispatch.Signal`).

:data:`committed` is sent after the transaction that appended to a table's stream commits, with ``loaded``
(:class:`tables.service.Loaded`, the table as it was committed). The service sends it and imports nothing
of what reacts: the timers (:func:`tables.timers.schedule`: the action timeout, the bot's move, the next
hand) are connected in :meth:`tables.apps.TablesConfig.ready`, so ``service`` → ``timers`` → ``tasks`` →
``service`` is no import cycle.
"""

from __future__ import annotations

from django.dispatch import Signal

committed = Signal()
"""Sent by :mod:`tables.service` after a table's append commits; keyword argument ``loaded``."""
