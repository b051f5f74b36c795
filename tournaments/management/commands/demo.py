"""``manage.py demo``: the demo accounts and a 6-seat pot-limit sit-and-go with 5 bots and one free seat.

Idempotent: a second run reuses the accounts and the open demo tournament (a new one once it is over).
``make run`` runs it before starting the processes; its banner gives the address of the web process.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from engine.tournament.sitgo import Level, TournamentConfig
from tables import access
from tournaments import service
from tournaments.models import Tournament
from tournaments.views import bots

ACCOUNTS = (
    ("direttore", "direttore", access.DIRECTOR),
    ("ospite", "ospite", access.PLAYER),
    ("ospite2", "ospite2", access.PLAYER),
    ("revisore", "revisore", access.AUDITOR),
)
DEMO_NAME = "Demo Sit & Go"


def ensure_accounts() -> None:
    for name in access.GROUPS:
        Group.objects.get_or_create(name=name)
    for username, password, group in ACCOUNTS:
        user, created = get_user_model().objects.get_or_create(username=username)
        if created:
            user.set_password(password)
            user.save()
        user.groups.add(Group.objects.get(name=group))


def demo_config() -> TournamentConfig:
    levels = tuple(Level(invito, 5 * 60_000) for invito in (10, 15, 20, 30, 40, 60, 80, 100, 150, 200))
    return TournamentConfig(
        DEMO_NAME,
        seats=6,
        starting_stack=1000,
        levels=levels,
        action_time_ms=30_000,
        time_bank_ms=60_000,
        auto_start=True,
    )


DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = "8000"


def listen_url(environ: dict[str, str] | None = None) -> str:
    """The address of the web process of ``make run``, which listens on ``${MAZZIERE_HOST:-127.0.0.1}:
    ${MAZZIERE_PORT:-8000}`` (``Procfile``; like the shell, an empty variable counts as unset), as a URL to
    open: ``http://host:port/``, an IPv6 host in brackets (RFC 3986), and for the wildcard hosts ``0.0.0.0``
    and ``::`` (every interface) the loopback address of that family. Raises :class:`CommandError` for a
    port that is not a number from 1 to 65535 (uvicorn would not start)."""
    environ = dict(os.environ) if environ is None else environ
    host = environ.get("MAZZIERE_HOST") or DEFAULT_HOST
    port = environ.get("MAZZIERE_PORT") or DEFAULT_PORT
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise CommandError(f"MAZZIERE_PORT must be a port number from 1 to 65535, not {port!r}")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"http://{host}:{int(port)}/"  # a host name
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"http://{shown}:{int(port)}/"


class Command(BaseCommand):
    help = "Create the demo accounts and an open 6-seat sit-and-go with 5 bots."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--url",
            default=None,
            help="the address printed (default: where make run's web process listens, from MAZZIERE_HOST "
            "and MAZZIERE_PORT)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        url = options["url"] or listen_url()
        ensure_accounts()
        open_demo = Tournament.objects.filter(name=DEMO_NAME, status="registering").first()
        if open_demo is None:
            tournament_id = service.create(demo_config(), "direttore", bots(5))
        else:
            tournament_id = open_demo.id
        self.stdout.write(
            f"\nMazziere is running at {url}\n"
            f"  demo sit-and-go: {url}tournaments/{tournament_id}/ (5 bots registered, one seat free)\n"
            "  logins (user / password):\n"
            "    ospite / ospite         player: register and the sit-and-go starts\n"
            "    ospite2 / ospite2       a second player\n"
            "    direttore / direttore   tournament director\n"
            "    revisore / revisore     auditor\n"
            "  Ctrl-C stops everything; the data stays in .dev/ for the next run.\n"
        )
