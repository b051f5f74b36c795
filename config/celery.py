"""The Celery app: action timers, bots and next-hand starts (``shared/ARCHITECTURE.md``, "Time").

Nothing periodic runs here: the sweep of lost timers and the tournament clocks are the timekeeper's
(``manage.py run_timekeeper``, :mod:`tables.timekeeper`), so that a dead or stopped worker stops nothing
but the tasks it holds, and those are found again by the sweep.

Broker (Redis) and a worker that dies: a task is acknowledged when it starts, so a task running when its
worker is killed is lost; ETA tasks (timeouts, bot moves, next hands) wait in the worker unacknowledged.
Kombu's Redis transport gives a killed worker's unacknowledged messages back to the queue only after
``visibility_timeout`` (kept at kombu's default, one hour: it must exceed the longest countdown, up to
the action time + the time bank, or tasks still held by a live worker would be delivered twice), and at once
when a worker stops normally (SIGTERM). Either way the sweep acts within about two seconds of a deadline,
and the tasks given back later find their table moved on (they carry its version) and do nothing.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

VISIBILITY_TIMEOUT = 3600  # seconds (kombu's default, stated here because the design depends on it)

app = Celery("mazziere")
# the current app in every thread, not only this one: the tables' shared tasks and the in-process worker
# (tables.inprocess) find it as celery.current_app without importing config
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")
# set, not read: reading app.conf here would load the Django settings before config.testing adjusts them
app.conf.broker_transport_options = {"visibility_timeout": VISIBILITY_TIMEOUT}
app.autodiscover_tasks()
