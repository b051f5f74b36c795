"""Logins (issue 15 §2, §6): user names PostgreSQL cannot store, django-axes lockouts on the login form and
on the API's Basic auth, operator resets, session keys from the cookie, password validators outside the
demo. Everything against the real PostgreSQL and Redis of the test run."""

from __future__ import annotations

import base64
import re

import pytest
from asgiref.sync import sync_to_async
from axes.models import AccessAttempt
from channels.testing import WebsocketCommunicator
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client, RequestFactory

from config.authentication import INVALID_USERNAME, LOCKED_OUT
from tables import access
from tournaments.management.commands.demo import ACCOUNTS, ensure_accounts

LIMIT = 5  # settings.AXES_FAILURE_LIMIT (docs/reliability.md)
OTHER_ADDRESS = "192.0.2.7"  # a REMOTE_ADDR in the request's META only (TEST-NET-1): nothing is sent there


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


@pytest.fixture
def ospite(db: None) -> object:
    ensure_accounts()
    return get_user_model().objects.get(username="ospite")


def api_get(url: str, username: str, password: str, address: str = "127.0.0.1") -> object:
    client = Client(raise_request_exception=False)
    return client.get(url, HTTP_AUTHORIZATION=basic(username, password), REMOTE_ADDR=address)


def form_login(username: str, password: str, address: str = "127.0.0.1") -> object:
    client = Client(raise_request_exception=False)
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


# --- a NUL character in the user name (issue 15 §2) -----------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/tables/", "/api/schema/", "/api/tournaments/1/"])
def test_basic_auth_with_a_nul_in_the_user_name_is_a_400_with_the_reason(url: str) -> None:
    response = api_get(url, "a\x00b", "x")
    assert response.status_code == 400, response.content[:300]
    assert INVALID_USERNAME in response.content.decode()  # JSON, or the schema's YAML for /api/schema/
    assert not AccessAttempt.objects.exists()  # refused before any query


@pytest.mark.django_db
def test_the_login_form_refuses_a_nul_in_the_user_name_with_a_400_and_its_message() -> None:
    response = form_login("a\x00b", "x")
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'<div class="error" role="alert">[^<]*(null|nul)', html, re.I), html[-800:]
    assert "_auth_user_id" not in response.client.session


@pytest.mark.django_db
def test_authenticate_with_a_nul_finds_nobody_and_axes_records_the_name_escaped() -> None:
    """Any caller of ``authenticate`` (a future door): no user, no ``DataError``; axes's ``INSERT`` gets the
    name with the NUL written ``\\x00``."""
    request = RequestFactory().post("/accounts/login/")
    assert authenticate(request=request, username="a\x00b", password="x") is None
    assert list(AccessAttempt.objects.values_list("username", flat=True)) == ["a\\x00b"]


@pytest.mark.django_db
def test_a_user_name_longer_than_axes_column_is_refused_not_a_500() -> None:
    response = api_get("/api/tables/", "n" * 1000, "x")
    assert response.status_code == 403
    assert response.json() == {"detail": "Nome utente o password errati."}
    assert AccessAttempt.objects.get().username == "n" * 255


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_session_cookie_with_a_nul_is_no_session_on_pages_api_and_sockets(ospite: object) -> None:
    """``"abc\\000..."`` is unquoted by the cookie parser to a key with a NUL: it was a ``DataError`` (500)
    on every page; now it is an anonymous visitor."""
    cookie = 'sessionid="abcdefgh\\000ijklmnop"'
    client = Client(raise_request_exception=False, HTTP_COOKIE=cookie)
    page = await sync_to_async(client.get)("/")
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
    api = await sync_to_async(client.get)("/api/tables/")
    assert api.status_code == 403

    from config.asgi import application

    headers = [(b"origin", b"http://testserver"), (b"cookie", cookie.encode())]
    socket = WebsocketCommunicator(application, "/ws/tables/1/", headers=headers)
    assert await socket.connect(timeout=5) == (True, None)  # accepted, then closed with why (issue 15 §9)
    closed = await socket.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == 4403
    await socket.disconnect()


# --- lockouts (issue 15 §6) ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_api_basic_auth_locks_out_after_the_limit_and_an_operator_unlocks(ospite: object) -> None:
    for _ in range(LIMIT - 1):
        wrong = api_get("/api/tables/", "ospite", "wrong")
        assert wrong.status_code == 403, wrong.content
    assert api_get("/api/tables/", "ospite", "wrong").status_code == 429  # the LIMIT-th failure locks
    locked = api_get("/api/tables/", "ospite", "ospite")  # the right password, too late
    assert locked.status_code == 429
    assert locked.json() == {"detail": LOCKED_OUT}

    assert api_get("/api/tables/", "ospite2", "ospite2").status_code == 200  # another user: not affected
    assert api_get("/api/tables/", "ospite", "ospite", OTHER_ADDRESS).status_code == 200  # another address

    call_command("axes_reset_username", "ospite")
    assert api_get("/api/tables/", "ospite", "ospite").status_code == 200


@pytest.mark.django_db
def test_form_logins_lock_out_after_the_limit_and_an_operator_unlocks(ospite: object) -> None:
    for _ in range(LIMIT - 1):
        wrong = form_login("ospite", "wrong")
        assert wrong.status_code == 400
        assert "Nome utente o password errati." in wrong.content.decode()
    assert form_login("ospite", "wrong").status_code == 429  # the LIMIT-th failure locks
    locked = form_login("ospite", "ospite")
    assert locked.status_code == 429
    html = locked.content.decode()
    assert "data-locked-out" in html and "Troppi tentativi di accesso falliti" in html
    assert "_auth_user_id" not in locked.client.session

    other = form_login("ospite2", "ospite2")
    assert other.status_code == 302 and "_auth_user_id" in other.client.session

    call_command("axes_reset")
    unlocked = form_login("ospite", "ospite")
    assert unlocked.status_code == 302 and unlocked["Location"] == "/"


@pytest.mark.django_db
def test_a_success_before_the_limit_clears_the_count(ospite: object) -> None:
    for _ in range(LIMIT - 1):
        assert form_login("ospite", "wrong").status_code == 400
    assert form_login("ospite", "ospite").status_code == 302
    for _ in range(LIMIT - 1):
        assert form_login("ospite", "wrong").status_code == 400
    assert form_login("ospite", "ospite").status_code == 302


# --- passwords ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_password_validators_refuse_weak_passwords_outside_the_demo(ospite: object) -> None:
    for password in ("ospite", "1234567890", "password123", "corta"):
        with pytest.raises(ValidationError):
            validate_password(password, ospite)
    validate_password("tre-gatti-sul-tavolo-verde", ospite)

    from django.contrib.auth.forms import AdminUserCreationForm

    form = AdminUserCreationForm(
        {"username": "nuovo", "password1": "nuovo", "password2": "nuovo", "usable_password": "true"}
    )
    assert not form.is_valid() and "password2" in form.errors
    assert not get_user_model().objects.filter(username="nuovo").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("username", "password", "group"), ACCOUNTS)
def test_demo_accounts_still_log_in_with_their_short_passwords(
    ospite: object, username: str, password: str, group: str
) -> None:
    response = form_login(username, password)
    assert response.status_code == 302, response.content[-500:]
    user = get_user_model().objects.get(username=username)
    assert access.in_group(user, group)
