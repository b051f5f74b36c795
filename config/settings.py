"""Settings, all read from the environment (django-environ).

``DATABASE_URL`` (PostgreSQL ≥ 15) and ``REDIS_URL`` (Celery broker and Channels layer) are required; when
unset, ``manage.py`` and the test suite start embedded ones (:mod:`config.devservices`).
Game service knobs (``MAZZIERE_*``) are documented in ``docs/operations.md``.
"""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

SECRET_KEY = env.str("SECRET_KEY", default="dev-only-secret-key-change-me-in-production-0123456789")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

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
    "eventstore",
    "tables",
    "tournaments",
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
DB_POOL_SIZE = env.int("DB_POOL_SIZE", default=20)
if DB_POOL_SIZE:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": DB_POOL_SIZE,
        "timeout": 30,
    }
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
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

AUTH_PASSWORD_VALIDATORS: list[dict[str, str]] = []  # demo accounts use short passwords; see docs
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
STATIC_ROOT = BASE_DIR / ".dev" / "staticfiles"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
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

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="mazziere")
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {"task": "tables.tasks.sweep", "schedule": 1.0, "options": {"expires": 2.0}},
    "tournament-clocks": {
        "task": "tournaments.tasks.tick_clocks",
        "schedule": 1.0,
        "options": {"expires": 2.0},
    },
}

# --- game service --------------------------------------------------------------------------------------
# pause between the end of a hand and the start of the next (seconds)
MAZZIERE_NEXT_HAND_DELAY = env.float("MAZZIERE_NEXT_HAND_DELAY", default=4.0)
# how long bots think before acting (seconds): from MAZZIERE_BOT_THINK to MAZZIERE_BOT_THINK_MAX (unset:
# exactly MAZZIERE_BOT_THINK), picked per turn by a hash of (table, version) (tables.timers.bot_think)
MAZZIERE_BOT_THINK = env.float("MAZZIERE_BOT_THINK", default=1.0)
MAZZIERE_BOT_THINK_MAX = env.float("MAZZIERE_BOT_THINK_MAX", default=None)
# "celery": timers, bots and next hands are Celery tasks; "off": nothing is scheduled (tests driving tables)
MAZZIERE_TIMERS = env.str("MAZZIERE_TIMERS", default="celery")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
    "loggers": {"mazziere": {"level": env.str("LOG_LEVEL", default="INFO")}},
}
