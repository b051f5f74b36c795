#!/bin/sh
# The image's entrypoint (deploy/Dockerfile, deploy/README.md): the first argument chooses the process.
# Every setting comes from the environment (docs/operations.md, deploy/README.md); nothing is started when
# DATABASE_URL or REDIS_URL is missing (the embedded services are for development checkouts only).
set -e
if [ -z "$DATABASE_URL" ] || [ -z "$REDIS_URL" ]; then
    echo "DATABASE_URL and REDIS_URL must be set (deploy/README.md)" >&2
    exit 2
fi
process=${1:-web}
[ $# -gt 0 ] && shift
case "$process" in
    web)
        # X-Forwarded-For is trusted from FORWARDED_ALLOW_IPS only (uvicorn reads it; default 127.0.0.1)
        exec python -m uvicorn config.asgi:application --host "${MAZZIERE_HOST:-0.0.0.0}" \
            --port "${PORT:-8000}" --log-level "${UVICORN_LOG_LEVEL:-warning}" --ws-max-size 65536 \
            --proxy-headers "$@" ;;
    worker)
        exec python -m celery -A config worker --pool threads --concurrency "${CELERY_CONCURRENCY:-8}" \
            --loglevel WARNING "$@" ;;
    timekeeper)
        exec python manage.py run_timekeeper "$@" ;;
    subscribers)
        exec python manage.py run_subscribers "$@" ;;
    migrate)
        exec python manage.py migrate --noinput "$@" ;;
    manage)
        exec python manage.py "$@" ;;
    *)
        echo "usage: entrypoint.sh web|worker|timekeeper|subscribers|migrate|manage ARGS..." >&2
        exit 2 ;;
esac
