"""A refused socket in Chromium (issue 15 §9): the browser's ``CloseEvent`` carries 4403 / 4404, the page
says why and does not reconnect. Only the ASGI server runs (no worker: nothing is played)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from tables import access
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.service_harness import asgi_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

OPEN_SOCKET = """path => {
  window.closes = [];
  document.addEventListener("htmx:wsClose", e => window.closes.push(e.detail.event.code));
  const element = document.createElement("div");
  element.setAttribute("hx-ext", "ws");
  element.setAttribute("ws-connect", path);
  document.querySelector("main").appendChild(element);
  htmx.process(element);
}"""


@pytest.fixture
def server(transactional_db: None) -> Iterator[str]:
    with asgi_server() as url:
        yield url


@pytest.fixture
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def player(server: str) -> dict[str, str]:
    """The session cookie of a player (made before Playwright's event loop runs in the test's thread)."""
    user = User.objects.create_user("anna")
    user.groups.add(Group.objects.get_or_create(name=access.PLAYER)[0])
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": server}


def test_refused_sockets_say_why_and_do_not_reconnect(server: str, player: dict, chromium: Any) -> None:
    anonymous = chromium.new_page(locale="it-IT")
    anonymous.goto(f"{server}/accounts/login/")
    anonymous.evaluate(OPEN_SOCKET, "/ws/tables/1/")
    notice = anonymous.locator("#socket-closed")
    notice.wait_for(state="visible", timeout=10_000)
    assert notice.get_attribute("data-code") == "4403"
    assert "il tuo account non può seguire questa pagina" in notice.inner_text()

    context = chromium.new_context(locale="en-GB")
    context.add_cookies([player])
    page = context.new_page()
    page.goto(f"{server}/")
    assert page.url == f"{server}/"  # logged in: the lobby
    page.evaluate(OPEN_SOCKET, "/ws/tables/999999/")
    notice = page.locator("#socket-closed")
    notice.wait_for(state="visible", timeout=10_000)
    assert notice.inner_text() == "Live updates stopped: this table or tournament does not exist."
    page.wait_for_timeout(2500)  # htmx would have retried a 1006 by now (backoff up to 2 s at first)
    assert page.evaluate("window.closes") == [4404]
    assert anonymous.evaluate("window.closes") == [4403]


def test_command_ids_are_made_where_crypto_random_uuid_is_missing(server: str, chromium: Any) -> None:
    """The table page sends a fresh UUID with every action (``hx-vals`` calls ``mazziereCommandId``).
    ``crypto.randomUUID`` exists only in secure contexts (https, localhost): over plain http on a LAN address
    it is missing, and every action failed in the browser. Without it the page builds version-4 UUIDs from
    ``crypto.getRandomValues``, which the server accepts (``tables.api.ActRequest``)."""
    import re
    import uuid

    page = chromium.new_page()
    page.goto(f"{server}/accounts/login/")
    native = page.evaluate("mazziereCommandId()")
    page.evaluate("delete Crypto.prototype.randomUUID")
    assert page.evaluate("typeof crypto.randomUUID") == "undefined"
    made = page.evaluate("Array.from({length: 200}, () => mazziereCommandId())")
    v4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
    for text in [native, *made]:
        assert v4.fullmatch(text), text
        assert uuid.UUID(text).version == 4
    assert len(set(made)) == 200
