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


def assert_chain_heads_shown(html: str, streams: list[str]) -> None:
    """The results page ``html`` publishes the chain heads of exactly ``streams`` (issue 23 §3): each one's
    last version and stored hash, read here from the log, and the digest over their lines."""
    import hashlib
    import re

    from eventstore.models import Event

    lines = []
    for stream in sorted(streams):
        last = Event.objects.filter(stream_id=stream).order_by("-version").first()
        assert last is not None, stream
        lines.append(f"{stream} {last.version} {bytes(last.hash).hex()}")
    shown = re.search(r"<pre class=\"heads\" data-chain-lines>(.*?)</pre>", html, re.S)
    assert shown is not None, "no chain heads on the results page"
    assert shown.group(1).strip("\n").split("\n") == lines, shown.group(1)
    digest = hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    assert f'<code class="hash" data-chain-digest>{digest}</code>' in html
