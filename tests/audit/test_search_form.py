"""The auditors' search form reads and shows times in the page's language (Django's l10n, issue 18), and
still reads ISO 8601 (a ``datetime-local`` value, old bookmarks)."""

from __future__ import annotations

from django.utils import translation

from audit.views import SearchForm


def test_times_in_the_pages_language_and_in_iso() -> None:
    with translation.override("it"):
        form = SearchForm({"since": "31/12/2026 21:30", "until": "2027-01-01T08:15"})
        assert form.is_valid(), form.errors
        assert form.fields["since"].widget.attrs["placeholder"] == "31/12/2026 21:30"
        assert (form.cleaned_data["since"].day, form.cleaned_data["since"].month) == (31, 12)
        assert form.cleaned_data["until"].hour == 8
        assert 'value="31/12/2026 21:30"' in str(form["since"])
    with translation.override("en"):
        form = SearchForm({"since": "nonsense"})
        assert not form.is_valid() and form.errors["since"] == ["Enter a valid date/time."]
        assert form.fields["since"].widget.attrs["placeholder"] == "2026-12-31 21:30"
