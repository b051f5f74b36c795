"""``manage.py demo``: the demo accounts and two 6-seat sit-and-gos, each with 5 bots and one free seat:
pot-limit poker all'italiana (``PIT``) and no-limit hold'em (``NT``, issue 17); and a knockout tournament of
poker cinese matches (issue 20) with 7 bots registered (``bot-11`` … ``bot-17``), which the director starts
from its page (a player may register first). Bots play each game with the
game's own ``bot_command`` (the registry's, moved by the Celery worker: :mod:`tables.tasks`); the hold'em one
has bots of its own (``bot-6`` … ``bot-10``), so that no bot sits at both tables.

Idempotent: a second run reuses the accounts and the open demo tournaments (a new one once one is over).
``make run`` runs it before starting the processes; its banner gives the address of the web process.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from engine.core import ForcedBets
from engine.tournament.matches import Format, MatchesConfig
from engine.tournament.mtt import Level, MttConfig, sit_and_go_config
from tables import access
from tournaments import matches, service
from tournaments.models import Tournament
from tournaments.views import bots

ACCOUNTS = (
    ("direttore", "direttore", access.DIRECTOR),
    ("ospite", "ospite", access.PLAYER),
    ("ospite2", "ospite2", access.PLAYER),
    ("revisore", "revisore", access.AUDITOR),
)
DEMO_NAME = "Demo Sit & Go"
HOLDEM_NAME = "Demo Hold'em Sit & Go"
HOLDEM_GAME = "NT"
HOLDEM_STACK = 1500
BOTS_PER_DEMO = 5
CINESE_NAME = "Demo Poker cinese"
CINESE_BOTS = 7


def ensure_accounts() -> None:
    for name in access.GROUPS:
        Group.objects.get_or_create(name=name)
    for username, password, group in ACCOUNTS:
        user, created = get_user_model().objects.get_or_create(username=username)
        if created:
            user.set_password(password)
            user.save()
        user.groups.add(Group.objects.get(name=group))


ROLES = {access.DIRECTOR: "director", access.PLAYER: "player", access.AUDITOR: "auditor"}


def demo_logins() -> list[dict[str, str]]:
    """The demo accounts to show on the login page (issue 18): ``username``, ``password`` and ``role``
    (``"player"``, ``"director"``, ``"auditor"``) of each of :data:`ACCOUNTS` that exists, when this command
    has run (a demo tournament exists); ``[]`` otherwise (a service without the demo shows none)."""
    if not Tournament.objects.filter(name__in=(DEMO_NAME, HOLDEM_NAME)).exists():
        return []
    names = [account[0] for account in ACCOUNTS]
    existing = set(get_user_model().objects.filter(username__in=names).values_list("username", flat=True))
    return [
        {"username": name, "password": password, "role": ROLES[group]}
        for name, password, group in ACCOUNTS
        if name in existing
    ]


def demo_config() -> MttConfig:
    """The Italian demo: a 6-seat sit-and-go (a one-table tournament that starts when full, issue 17) of
    poker all'italiana pot limit, 1,000 chips, ten 5-minute levels of inviti 10 to 200 (T-LEVEL-1)."""
    levels = tuple(Level(invito, 5 * 60_000) for invito in (10, 15, 20, 30, 40, 60, 80, 100, 150, 200))
    return sit_and_go_config(
        MttConfig(
            DEMO_NAME,
            seats=6,
            starting_stack=1000,
            levels=levels,
            buy_in=0,
            action_time_ms=30_000,
            time_bank_ms=60_000,
            auto_start=True,
        )
    )


HOLDEM_BLINDS = ((10, 20), (15, 30), (25, 50), (50, 100), (75, 150), (100, 200), (150, 300), (200, 400),
                 (300, 600), (400, 800))  # fmt: skip
"""The hold'em demo's levels (small blind, big blind): an online sit-and-go's classic structure."""


def holdem_config() -> MttConfig:
    """The hold'em demo: 6-max no-limit hold'em (``NT``), 1,500 chips, ten 5-minute levels of blinds
    :data:`HOLDEM_BLINDS` (TH-1, T-LEVEL-1: 10/20 to 400/800), the same clocks as the Italian demo."""
    levels = tuple(
        Level(big, 5 * 60_000, False, ForcedBets(small_blind=small, big_blind=big))
        for small, big in HOLDEM_BLINDS
    )
    return sit_and_go_config(
        MttConfig(
            HOLDEM_NAME,
            seats=6,
            starting_stack=HOLDEM_STACK,
            levels=levels,
            buy_in=0,
            action_time_ms=30_000,
            time_bank_ms=60_000,
            auto_start=True,
            game=HOLDEM_GAME,
        )
    )


def open_demo(name: str, config: MttConfig, players: list[str]) -> int:
    """The id of the open (registering) sit-and-go called ``name``, created with ``players`` if none is."""
    found = Tournament.objects.filter(name=name, status="registering").first()
    if found is not None:
        return int(found.id)
    return service.create(config, "direttore", players)


def open_cinese_demo(players: list[str]) -> int:
    """The id of the open (registering) demo tournament of poker cinese matches, created with ``players``
    if none is: a knockout at tables of four, 60 seconds to arrange."""
    found = Tournament.objects.filter(name=CINESE_NAME, status="registering").first()
    if found is not None:
        return int(found.id)
    config = MatchesConfig(CINESE_NAME, table_size=4, format=Format.KNOCKOUT, action_time_ms=60_000)
    return matches.create(config, "direttore", players)


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
    help = (
        "Create the demo accounts and two open 6-seat sit-and-gos with 5 bots each: poker all'italiana and "
        "no-limit hold'em."
    )

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
        bot_names = bots(2 * BOTS_PER_DEMO + CINESE_BOTS)
        italian_id = open_demo(DEMO_NAME, demo_config(), bot_names[:BOTS_PER_DEMO])
        holdem_id = open_demo(HOLDEM_NAME, holdem_config(), bot_names[BOTS_PER_DEMO : 2 * BOTS_PER_DEMO])
        cinese_id = open_cinese_demo(bot_names[2 * BOTS_PER_DEMO :])
        self.stdout.write(
            f"\nMazziere is running at {url}\n"
            f"  demo sit-and-go: {url}tournaments/{italian_id}/ (poker all'italiana, 5 bots registered, "
            "one seat free)\n"
            f"  hold'em sit-and-go: {url}tournaments/{holdem_id}/ (no-limit hold'em, 5 bots registered, "
            "one seat free)\n"
            f"  poker cinese: {url}tournaments/{cinese_id}/ (a knockout of matches, {CINESE_BOTS} bots "
            "registered; the director starts it)\n"
            "  logins (user / password):\n"
            "    ospite / ospite         player: register and a sit-and-go starts\n"
            "    ospite2 / ospite2       a second player\n"
            "    direttore / direttore   tournament director\n"
            "    revisore / revisore     auditor\n"
            "  Ctrl-C stops everything; the data stays in .dev/ for the next run.\n"
        )
