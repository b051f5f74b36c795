"""Who may do what (groups *director*, *player*, *auditor*; bots are *bot*). Every page, API call and socket
checks these."""

from __future__ import annotations

from typing import Any

DIRECTOR, PLAYER, AUDITOR, BOT = "director", "player", "auditor", "bot"
GROUPS = (DIRECTOR, PLAYER, AUDITOR, BOT)


def groups_of(user: Any) -> set[str]:
    if user is None or not user.is_authenticated:
        return set()
    cached = getattr(user, "_mazziere_groups", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._mazziere_groups = cached
    return cached


def in_group(user: Any, *names: str) -> bool:
    return bool(groups_of(user) & set(names))


def may_watch(user: Any) -> bool:
    """Open a table or a tournament: any member of the three groups."""
    return in_group(user, DIRECTOR, PLAYER, AUDITOR)


def may_play(user: Any) -> bool:
    return in_group(user, PLAYER)


def may_direct(user: Any) -> bool:
    return in_group(user, DIRECTOR)


def may_audit(user: Any) -> bool:
    """Open the auditor pages and exports (read-only): the *auditor* and *director* groups."""
    return in_group(user, AUDITOR, DIRECTOR)


def context(request: Any) -> dict[str, Any]:
    """Template context processor (settings ``TEMPLATES``): ``may_audit`` for the navigation, a callable so
    that it is only evaluated where a template uses it."""
    return {"may_audit": lambda: may_audit(getattr(request, "user", None))}


def bot_accounts(count: int, tag: str) -> dict[str, Any]:
    """``count`` bot accounts ``bot-<tag>-<n>`` (``n`` from 1; groups *player* and *bot*, no usable password;
    created once, found again after) by name, in order: the soaks' players (``manage.py simulate_tournament``,
    ``manage.py simulate_cash``)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user_model = get_user_model()
    names = [f"bot-{tag}-{n}" for n in range(1, count + 1)]
    existing = set(user_model.objects.filter(username__in=names).values_list("username", flat=True))
    fresh = [user_model(username=name) for name in names if name not in existing]
    for user in fresh:
        user.set_unusable_password()
    user_model.objects.bulk_create(fresh)
    users = {user.get_username(): user for user in user_model.objects.filter(username__in=names)}
    for group_name in (PLAYER, BOT):
        group, _ = Group.objects.get_or_create(name=group_name)
        group.user_set.add(*users.values())
    return {name: users[name] for name in names}
