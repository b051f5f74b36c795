"""Fixtures of the tables tests: users in the four groups (factory-boy), tables with a hand in progress,
API clients and a clean per-process table cache. Timers are off (``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import factory
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from factory.django import DjangoModelFactory
from rest_framework.test import APIClient

from engine.italian.model import TableConfig
from tables import access, rendering, service, timers
from tests.tables import helpers


class UserFactory(DjangoModelFactory):
    """A user; ``groups=["player"]`` puts it in those groups (created on demand)."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = "!"  # unusable: tests log in with force_login (no slow hashing)

    @factory.post_generation
    def groups(self, create: bool, extracted: Any, **kwargs: Any) -> None:
        if create and extracted:
            for name in extracted:
                self.groups.add(Group.objects.get_or_create(name=name)[0])


@pytest.fixture(autouse=True)
def _fresh_table_cache() -> Iterator[None]:
    """No folded table (nor bot lookup) leaks from one test into another."""
    service.forget_cache()
    rendering.forget()
    timers.is_bot.cache_clear()
    yield
    service.forget_cache()
    timers.is_bot.cache_clear()


@pytest.fixture
def user_factory(db: None) -> type[UserFactory]:
    for name in access.GROUPS:
        Group.objects.get_or_create(name=name)
    return UserFactory


@pytest.fixture
def players(user_factory: type[UserFactory]) -> dict[str, Any]:
    """anna, bruno, carla: the players of the table (group *player*)."""
    return {name: user_factory(username=name, groups=[access.PLAYER]) for name in helpers.PLAYERS}


@pytest.fixture
def director(user_factory: type[UserFactory]) -> Any:
    return user_factory(username="diego", groups=[access.DIRECTOR])


@pytest.fixture
def auditor(user_factory: type[UserFactory]) -> Any:
    return user_factory(username="aldo", groups=[access.AUDITOR])


@pytest.fixture
def nobody(user_factory: type[UserFactory]) -> Any:
    """A user in no group."""
    return user_factory(username="nemo", groups=[])


@pytest.fixture
def other_table_player(user_factory: type[UserFactory], players: dict[str, Any]) -> Any:
    """dora, a player seated at another table (with anna and bruno)."""
    dora = user_factory(username="dora", groups=[access.PLAYER])
    service.open_table("Altro", TableConfig(seats=3), [(0, "dora", 500), (1, "anna", 500)])
    return dora


@pytest.fixture
def table(players: dict[str, Any]) -> int:
    """A 3-seat table with a hand started (blind phase: the first seat is offered BUIO / DAI CARTE)."""
    table_id = helpers.open_three()
    helpers.start_hand(table_id)
    return table_id


@pytest.fixture
def dealt_table(table: int) -> int:
    """The table after everyone said DAI CARTE: cards dealt, the opening round."""
    helpers.decline_blinds(table)
    return table


@pytest.fixture
def api_as() -> Callable[[Any], APIClient]:
    """An :class:`APIClient` logged in as ``user`` (``None``: anonymous)."""

    def make(user: Any) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def web_as() -> Callable[[Any], Client]:
    def make(user: Any) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make
