"""Authentication: who may log in, through which door, and what a bad or repeated attempt gets.

Every door ends in :func:`django.contrib.auth.authenticate` with the request, so django-axes
(``AxesStandaloneBackend``, first in ``AUTHENTICATION_BACKENDS``) counts the failures of each (user name, IP
address) pair and refuses a locked-out pair before any password is checked (settings ``AXES_*``;
``docs/reliability.md``):

* the login form (``/accounts/login/``, :class:`LoginView`) and the admin's: a locked-out client gets
  :func:`lockout_response` from ``AxesMiddleware`` — 429 with the reason;
* HTTP Basic on the API (:class:`BasicAuthentication`): 403 for wrong credentials, 429 when locked out;
* a session cookie (pages, API, sockets) names a session, not a user: see :mod:`config.sessions`.

PostgreSQL cannot store the NUL character (``\\x00``) in a text value: psycopg refuses the query, so a user
name with one that reached the database was a 500 on every endpoint. It is refused before any query: by
:class:`BasicAuthentication` (400 with the reason), by the login form's own validator (Django's
``ProhibitNullCharactersValidator``, 400 with the reason) and, for any other caller of ``authenticate``, by
:class:`ModelBackend` (no user). The user names axes records are passed through :func:`axes_username`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from drf_spectacular.authentication import BasicScheme
from rest_framework import authentication, exceptions, status

#: what axes' ``AccessAttempt.username`` holds (``max_length``); longer names are cut for its records
AXES_USERNAME_LENGTH = 255
NUL = "\x00"

INVALID_USERNAME = "Nome utente non valido: contiene il carattere NUL (0x00)."
LOCKED_OUT = (
    "Troppi tentativi di accesso falliti per questo utente da questo indirizzo: accesso bloccato. "
    "Riprova più tardi o chiedi a un amministratore di sbloccarlo."
)


def storable(text: str | None) -> bool:
    """``text`` can reach PostgreSQL as a text value (no NUL character; ``None`` is fine)."""
    return text is None or NUL not in text


class ModelBackend(DjangoModelBackend):
    """Django's ``ModelBackend`` that finds no user for a name PostgreSQL cannot store (instead of a
    ``DataError`` from the query). Any caller of ``authenticate`` gets ``None``: a failed login."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        name = username if username is not None else kwargs.get(get_user_model().USERNAME_FIELD)
        if isinstance(name, str) and not storable(name):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def axes_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The user name django-axes counts and records (setting ``AXES_USERNAME_CALLABLE``): the one tried,
    from the credentials (else the login form's POST), with NUL written ``\\x00`` and cut to
    :data:`AXES_USERNAME_LENGTH` characters, so that axes' own ``INSERT`` cannot fail on it."""
    field = get_user_model().USERNAME_FIELD
    if credentials:
        name = credentials.get(field)
    else:
        data = getattr(request, "data", None) or request.POST
        name = data.get(field)
    if name is None:
        return None
    return str(name).replace(NUL, "\\x00")[:AXES_USERNAME_LENGTH]


class LockedOut(exceptions.APIException):
    """429: too many failed logins for this user name from this address (django-axes)."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = LOCKED_OUT
    default_code = "locked_out"


class BasicAuthentication(authentication.BasicAuthentication):
    """DRF's HTTP Basic authentication (RFC 7617) through ``authenticate(request=...)``, so that django-axes
    counts API failures as it counts form logins.

    Raises ``ParseError`` (400) for a user name with a NUL character, before any query;
    ``AuthenticationFailed`` for wrong credentials (403: the session authentication comes first in
    ``DEFAULT_AUTHENTICATION_CLASSES``, so DRF sends no ``WWW-Authenticate`` challenge);
    :class:`LockedOut` (429) when axes refuses the (user name, address) pair, even with the right password."""

    def authenticate_credentials(self, userid: str, password: str, request: Any = None) -> tuple[Any, None]:
        if not storable(userid):
            raise exceptions.ParseError(INVALID_USERNAME)
        credentials = {get_user_model().USERNAME_FIELD: userid, "password": password}
        user = authenticate(request=request, **credentials)
        if getattr(request, "axes_locked_out", False):
            raise LockedOut()
        if user is None:
            raise exceptions.AuthenticationFailed("Nome utente o password errati.")
        if not user.is_active:
            raise exceptions.AuthenticationFailed("Utente disattivato.")
        return user, None


class BasicAuthenticationScheme(BasicScheme):
    """The OpenAPI security scheme of :class:`BasicAuthentication` (drf-spectacular): HTTP Basic, as DRF's."""

    target_class = BasicAuthentication


class LoginView(auth_views.LoginView):
    """Django's login view; a refused form (wrong password, a user name with a NUL character) is answered
    400 with the form and its messages, instead of 200."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        """The form, and the demo accounts when ``manage.py demo`` has run (``demo_logins``)."""
        from tournaments.management.commands.demo import demo_logins

        return {**super().get_context_data(**kwargs), "demo_logins": demo_logins()}

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        response.status_code = status.HTTP_400_BAD_REQUEST
        return response


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """What a locked-out client gets from ``AxesMiddleware`` (setting ``AXES_LOCKOUT_CALLABLE``): 429, the
    login page with the reason (JSON ``{"detail": ...}`` for an API path)."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": LOCKED_OUT}, status=status.HTTP_429_TOO_MANY_REQUESTS)
    return render(
        request,
        "registration/login.html",
        {"locked_out": True, "next": request.POST.get("next", "")},
        status=status.HTTP_429_TOO_MANY_REQUESTS,
    )
