"""``manage.py demo``: the demo accounts and a 6-seat pot-limit sit-and-go with 5 bots and one free seat.

Idempotent: a second run reuses the accounts and the open demo tournament (a new one once it is over).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from engine.italian.model import Limit
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
        limit=Limit.POT_LIMIT,
        starting_stack=1000,
        levels=levels,
        action_time_ms=30_000,
        time_bank_ms=60_000,
        auto_start=True,
    )


class Command(BaseCommand):
    help = "Create the demo accounts and an open 6-seat sit-and-go with 5 bots."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="the address printed")

    def handle(self, *args: Any, **options: Any) -> None:
        ensure_accounts()
        open_demo = Tournament.objects.filter(name=DEMO_NAME, status="registering").first()
        if open_demo is None:
            tournament_id = service.create(demo_config(), "direttore", bots(5))
        else:
            tournament_id = open_demo.id
        url = options["url"]
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
