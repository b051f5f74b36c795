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
