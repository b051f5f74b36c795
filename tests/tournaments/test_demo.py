"""``manage.py demo`` (run by ``make run``): its banner gives the address the web process listens on
(issue 15, defect 13: it printed ``:8000`` whatever ``MAZZIERE_PORT`` said)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from tournaments.management.commands.demo import DEMO_NAME
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings) -> None:  # type: ignore[no-untyped-def]
    """The demo sets four passwords: hash them quickly (the hasher is not what is tested here)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def banner() -> str:
    out = StringIO()
    call_command("demo", stdout=out)
    return out.getvalue()


def test_bug_the_banner_gives_the_port_of_the_web_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAZZIERE_PORT", "8020")
    monkeypatch.delenv("MAZZIERE_HOST", raising=False)
    text = banner()
    tournament = Tournament.objects.get(name=DEMO_NAME)
    assert "Mazziere is running at http://127.0.0.1:8020/\n" in text
    assert f"demo sit-and-go: http://127.0.0.1:8020/tournaments/{tournament.id}/ " in text
    assert ":8000" not in text


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        (None, None, "http://127.0.0.1:8000/"),  # the Procfile's defaults
        ("", "", "http://127.0.0.1:8000/"),  # empty = unset, as ${VAR:-default} in the shell
        ("192.168.1.20", "9000", "http://192.168.1.20:9000/"),
        ("0.0.0.0", "8020", "http://127.0.0.1:8020/"),  # every interface: open it on this machine
        ("::", "8020", "http://[::1]:8020/"),
        ("::1", "8020", "http://[::1]:8020/"),  # an IPv6 literal in brackets (RFC 3986)
        ("mazziere.example", "80", "http://mazziere.example:80/"),
    ],
)
def test_the_banner_follows_mazziere_host_and_port(
    monkeypatch: pytest.MonkeyPatch, host: str | None, port: str | None, url: str
) -> None:
    for name, value in (("MAZZIERE_HOST", host), ("MAZZIERE_PORT", port)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert f"Mazziere is running at {url}\n" in banner()


@pytest.mark.parametrize("port", ["abc", "0", "65536", "-1", "80.5"])
def test_a_port_that_is_not_a_port_is_an_error_and_creates_nothing(
    monkeypatch: pytest.MonkeyPatch, port: str
) -> None:
    monkeypatch.setenv("MAZZIERE_PORT", port)
    message = f"MAZZIERE_PORT must be a port number from 1 to 65535, not '{port}'"
    with pytest.raises(CommandError, match=re.escape(message)):
        banner()
    assert not Tournament.objects.exists() and not get_user_model().objects.exists()


def test_url_overrides_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAZZIERE_PORT", "abc")  # not read when --url is given
    out = StringIO()
    call_command("demo", "--url", "https://poker.example/", stdout=out)
    assert "Mazziere is running at https://poker.example/\n" in out.getvalue()
