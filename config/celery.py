"""The Celery app: action timers, bots, next-hand starts and the tournament clock (``shared/ARCHITECTURE.md``,
"Time")."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("mazziere")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
