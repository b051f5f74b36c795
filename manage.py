#!/usr/bin/env python
"""Django's command-line utility. Starts the embedded PostgreSQL/Redis when DATABASE_URL/REDIS_URL are unset."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.devservices import ensure_environment

    ensure_environment()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
