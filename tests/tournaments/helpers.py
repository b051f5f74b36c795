"""Helpers shared by the tournament tests: accounts in a role, and an unsaved projection row."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, User

from tournaments.models import Tournament


def user(name: str, *groups: str) -> User:
    """A new account ``name`` (password ``name``) in ``groups`` (``tables.access`` role names)."""
    account = User.objects.create_user(name, password=name)
    for group in groups:
        account.groups.add(Group.objects.get_or_create(name=group)[0])
    return account


def row(**fields: Any) -> Tournament:
    """An unsaved projection row (the dashboard and the clock screen only read the row)."""
    base: dict[str, Any] = {
        "name": "T",
        "kind": "mtt",
        "config": {},
        "detail": {},
        "players": [],
        "remaining": [],
    }
    return Tournament(**{**base, **fields})
