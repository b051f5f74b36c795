"""The error pages and what is logged of them (issue 18): a 500 page in the site's layout and language, the
favicon at ``/favicon.ico``, and no traceback in the log for an expected 403.

The 403 log filter is :class:`config.logfilters.ExpectedRefusal`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.views import defaults

FAVICON = Path(settings.BASE_DIR) / "static" / "favicon.svg"


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: ``templates/500.html`` in the site's layout and the request's language; if rendering
    with the request fails too (a broken database or session), Django's own rendering of the same
    template, without the request's context; failing that, one line of HTML."""
    try:
        return render(request, "500.html", status=500)
    except Exception:  # the page must answer whatever broke
        logging.getLogger("django.request").exception("500 page rendered without the request")
    try:
        return defaults.server_error(request)
    except Exception:  # the template itself is broken: a line of HTML
        logging.getLogger("django.request").exception("500 page not rendered")
        return HttpResponseServerError("<!doctype html><title>500</title><h1>Server Error (500)</h1>")


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: the site's icon (``static/favicon.svg``), cached for a day."""
    response = FileResponse(FAVICON.open("rb"), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
