"""Settings, all read from the environment (django-environ).

``DATABASE_URL`` (PostgreSQL ≥ 15) and ``REDIS_URL`` (Celery broker and Channels layer) are required; when
unset, ``manage.py`` and the test suite start embedded ones (:mod:`config.devservices`).
Game service knobs (``MAZZIERE_*``) are documented in ``docs/operations.md``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)

# --- security (docs/operations.md "Production", docs/reliability.md) -------------------------------------
# No public secret outside DEBUG: without SECRET_KEY, or with a weak one (the checks of Django's
# security.W009, or the development key once shipped as the default), the service refuses to start.
# Development without DEBUG (make run, make test, manage.py on the embedded PostgreSQL) gets a random key
# kept in .dev/secret_key from config.devservices.
DEVELOPMENT_SECRET_KEY = "django-insecure-development-only-never-in-production"  # DEBUG=true only
PUBLIC_SECRET_KEYS = {DEVELOPMENT_SECRET_KEY, "dev-only-secret-key-change-me-in-production-0123456789"}
SECRET_KEY = env.str("SECRET_KEY", default="") or (DEVELOPMENT_SECRET_KEY if DEBUG else "")


def _weak_secret(key: str) -> bool:
    """As Django's ``check --deploy`` (security.W009): shorter than 50 characters, fewer than 5 different
    ones, or made by ``startproject`` without a secret; and the public development keys."""
    weak = len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-")
    return weak or key in PUBLIC_SECRET_KEYS


if not DEBUG and _weak_secret(SECRET_KEY):
    raise ImproperlyConfigured(
        "SECRET_KEY is missing or public/weak: set SECRET_KEY to a random string of at least 50 characters "
        "(python -c 'import secrets; print(secrets.token_urlsafe(50))'), or DEBUG=true for development. "
        "See docs/operations.md."
    )

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# HTTPS: all off by default (make run serves http on 127.0.0.1); the production environment of
# docs/operations.md turns them on. Behind a TLS proxy, SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https
# tells Django which requests came in over https (the proxy must overwrite that header).
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=False)
_proxy_ssl_header = env.list("SECURE_PROXY_SSL_HEADER", default=[])
if _proxy_ssl_header and len(_proxy_ssl_header) != 2:
    raise ImproperlyConfigured(
        "SECURE_PROXY_SSL_HEADER must be HEADER,VALUE, e.g. HTTP_X_FORWARDED_PROTO,https"
    )
SECURE_PROXY_SSL_HEADER = tuple(_proxy_ssl_header) if _proxy_ssl_header else None

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "channels",
    "axes",
    "eventstore",
    "tables",
    "tournaments",
    "cashier",
    "audit",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # last: turns a login refused by django-axes into config.authentication.lockout_response (429)
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tables.access.context",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL")}
# Connections come from a psycopg pool per process (opening one costs 7-12 ms, and under ASGI every request
# runs on a thread of its own, so Django's persistent connections never get reused: docs/performance.md).
# ``DB_POOL_SIZE=0`` turns the pool off (then ``CONN_MAX_AGE`` applies).
# CONN_HEALTH_CHECKS: with the pool, Django has psycopg_pool check each connection as it leaves the pool (an
# empty query, ~0.1 ms on loopback). After PostgreSQL restarts, the pool's idle connections are dead; without
# the check each one failed the first request or task that took it (issue 23 §1, docs/reliability.md
# "Issue 23 §1: faults under load").
DB_POOL_SIZE = env.int("DB_POOL_SIZE", default=20)
if DB_POOL_SIZE:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": DB_POOL_SIZE,
        "timeout": 30,
    }
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"]["CONN_MAX_AGE"] = 0
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL")

# The cache (Redis) holds the sessions in front of the database: a page, an API call or a socket's connect
# reads its session from Redis instead of PostgreSQL.
CACHES = {
    "default": {
        "BACKEND": "config.cache.SharedRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.str("CACHE_PREFIX", default="mazziere"),
    }
}
SESSION_ENGINE = "config.sessions"  # cached_db that refuses malformed session keys (a NUL was a 500)

# --- logins (config/authentication.py, docs/reliability.md) ----------------------------------------------
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out (user name, address) pair
    "config.authentication.ModelBackend",
]
# django-axes: after AXES_FAILURE_LIMIT failed logins of one user name from one address (form, admin or API
# Basic auth), that pair is refused for AXES_COOLOFF_MINUTES (every further failure restarts the wait) or
# until an operator runs `manage.py axes_reset_username NAME` / `axes_reset`; a success clears the count.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "config.authentication.axes_username"
AXES_LOCKOUT_CALLABLE = "config.authentication.lockout_response"
AXES_VERBOSE = False
# Django's four standard validators: they apply where Django validates a password (createsuperuser,
# changepassword, the admin's forms). `manage.py demo` sets its short demo passwords (= user name) directly,
# on purpose (docs/operations.md).
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "it"
LANGUAGES = [("it", "Italiano"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Rome"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# where `manage.py collectstatic` puts the files that nginx serves (deploy/README.md)
STATIC_ROOT = env.path("STATIC_ROOT", default=str(BASE_DIR / ".dev" / "staticfiles"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "config.authentication.BasicAuthentication",  # NUL-safe, counted by django-axes
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["tables.limits.BoundedJSONParser"],  # JSON only, size and depth bounded
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "tables.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Mazziere API",
    "DESCRIPTION": "Tables and tournaments of Poker all'italiana. Every state change is an event.",
    "VERSION": "1.0.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    # a tournament's game and its rotation of games are both variant codes of the registry: one enum
    "ENUM_NAME_OVERRIDES": {
        "GameCodeEnum": "tournaments.api.GAME_CODES",
        # Telesina's layouts and distribution modes: a player's preference and the giro pazzo dealer's choice
        # (no libera), and a tournament's table options (with libera)
        "VeleEnum": "tables.preferences.VELE",
        "CartaCopertaEnum": "tables.preferences.DISTRIBUTIONS",
        "TableLayoutEnum": "tournaments.api.LAYOUT_VALUES",
        "TableDistributionEnum": "tournaments.api.DISTRIBUTION_VALUES",
    },
}

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        # channels-redis blocks 5 s in BZPOPMIN: the socket timeout must be longer (redis-py 8 defaults
        # to 5 s, which dropped every idle WebSocket)
        "CONFIG": {
            "hosts": [{"address": REDIS_URL, "socket_timeout": 30, "socket_connect_timeout": 5}],
            "prefix": env.str("CHANNELS_PREFIX", default="asgi"),
            # every socket of a web process shares one Redis inbox, and a message over capacity is dropped
            # in silence: the default 100 lost updates at 100 busy tables (docs/performance.md)
            "capacity": 5000,
        },
    },
}

# MAZZIERE_CHANNEL_LAYER=pubsub (issue 22, opt-in): Redis publish/subscribe instead of the lists above. A web
# process then takes one message per table update for all its sockets of that table (the lists deliver one
# per socket, one BZPOPMIN each): at 100 busy tables 113-115 actions/s instead of 97-99, 11.7-12.0 ms of CPU
# per action instead of 13.9-14.1 (docs/performance.md). The trade: a message published while a web process
# is cut from Redis is not kept for it (the lists keep it 60 s), so its viewers see that update with the
# table's next one, or when the socket rejoins (docs/operations.md "Channel layer").
CHANNEL_LAYER = env.str("MAZZIERE_CHANNEL_LAYER", default="lists")
if CHANNEL_LAYER not in ("lists", "pubsub"):
    raise ImproperlyConfigured(f"MAZZIERE_CHANNEL_LAYER must be lists or pubsub, not {CHANNEL_LAYER!r}")
if CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_connect_timeout": 5}],
                "prefix": env.str("CHANNELS_PREFIX", default="asgi"),
            },
        },
    }

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="mazziere")
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
# no Celery beat: the lost-timer sweep and the tournament clocks run in the timekeeper process
# (manage.py run_timekeeper, tables/timekeeper.py), which does not depend on the worker

# --- game service --------------------------------------------------------------------------------------
# pause between the end of a hand and the start of the next (seconds)
MAZZIERE_NEXT_HAND_DELAY = env.float("MAZZIERE_NEXT_HAND_DELAY", default=4.0)
# how long bots think before acting (seconds): from MAZZIERE_BOT_THINK to MAZZIERE_BOT_THINK_MAX (unset:
# exactly MAZZIERE_BOT_THINK), picked per turn by a hash of (table, version) (tables.timers.bot_think)
MAZZIERE_BOT_THINK = env.float("MAZZIERE_BOT_THINK", default=1.0)
MAZZIERE_BOT_THINK_MAX = env.float("MAZZIERE_BOT_THINK_MAX", default=None)
# "celery": timers, bots and next hands are Celery tasks; "off": nothing is scheduled (tests driving tables)
MAZZIERE_TIMERS = env.str("MAZZIERE_TIMERS", default="celery")
# an open table socket joins its channel-layer groups again this often (s): Redis restarted empty has lost
# them (tables.consumers.TableConsumer._rejoin; issue 23 §1)
MAZZIERE_SOCKET_REJOIN_S = env.float("MAZZIERE_SOCKET_REJOIN_S", default=30.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"expected_refusal": {"()": "config.logfilters.ExpectedRefusal"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
    "loggers": {
        "mazziere": {"level": env.str("LOG_LEVEL", default="INFO")},
        # a 403 is logged in one line, without the traceback Django adds (config/logfilters.py)
        "django.request": {"filters": ["expected_refusal"]},
    },
}
