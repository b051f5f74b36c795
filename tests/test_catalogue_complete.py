"""Every text of the pages goes through Django's i18n, and the Italian catalogue translates all of it
(issue 18).

- :func:`test_makemessages_finds_nothing_untranslated`: ``makemessages -l it`` over the apps' code and
  templates, run on a copy of ``locale/`` in a temporary folder (the checkout is not touched), must leave no
  entry with an empty ``msgstr`` and none fuzzy: a new ``gettext``/``{% translate %}`` string without its
  Italian fails here.
- :func:`test_templates_have_no_bare_text`: text a template writes outside ``{% translate %}`` /
  ``{% blocktranslate %}`` (text nodes and the ``title``, ``aria-label``, ``placeholder``, ``alt`` attributes)
  is refused, but for what is the same in both languages — the rule: words in capitals (acronyms such as
  ICM, API, and the Italian games' calls, which those games show in both languages: PASSO, RESTO, PAROL),
  the names in :data:`NAMES`, the English poker terms the international games show in both languages
  (:data:`POKER_TERMS`, issue 17), units (:data:`UNITS`) and HTML entities.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from tests.test_translations import parse_po

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("audit", "config", "eventstore", "tables", "tournaments", "templates")
"""What ``makemessages`` reads (the engine never uses Django's i18n; the tests' own strings are checked by
``tests/test_translations.py``)."""
TEMPLATE_DIRS = ("templates", "audit/templates", "tables/templates", "tournaments/templates")

NAMES = {"Mazziere", "Malmuth", "Harville", "sha", "phh"}
POKER_TERMS = {"All-in", "Showdown", "Draw", "Stand", "pat"}
UNITS = {"min"}

_DROP = (
    r"\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}",
    r"\{#.*?#\}",
    r"\{%\s*blocktranslate.*?\{%\s*endblocktranslate\s*%\}",
    r"<script\b.*?</script>",
    r"<style\b.*?</style>",
    r"&#?\w+;",
)
_TAG = re.compile(r"<[^>]*>", re.S)
_ATTRIBUTE = re.compile(r'\b(?:title|aria-label|placeholder|alt)="([^"]*)"')
_DJANGO = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]+")


def bare_words(template: str) -> set[str]:
    """The words ``template`` (its source) writes outside the translation tags, but those allowed."""
    for pattern in _DROP:
        template = re.sub(pattern, " ", template, flags=re.S)
    words: list[str] = []
    for tag in _TAG.findall(template):
        for value in _ATTRIBUTE.findall(tag):
            words += _WORD.findall(_DJANGO.sub(" ", value))
    words += _WORD.findall(_DJANGO.sub(" ", _TAG.sub(" ", template)))
    return {w for w in words if not w.isupper() and w not in NAMES | POKER_TERMS | UNITS}


def test_the_rule_catches_bare_text() -> None:
    assert bare_words("<p>Tornei</p><b title='x'>{% translate 'Lobby' %}</b>") == {"Tornei"}
    assert bare_words('<img alt="Card back">') == {"Card", "back"}
    assert bare_words("{% blocktranslate %}Hand {{ n }}{% endblocktranslate %} <b>PASSO</b> &nbsp;") == set()
    assert bare_words("{# a comment #}<td>{{ player }}</td> ICM · Mazziere") == set()


def test_templates_have_no_bare_text() -> None:
    found = {
        str(path.relative_to(ROOT)): sorted(bare_words(path.read_text(encoding="utf-8")))
        for folder in TEMPLATE_DIRS
        if (ROOT / folder).is_dir()
        for path in sorted((ROOT / folder).rglob("*.html"))
    }
    bare = {name: words for name, words in found.items() if words}
    assert not bare, f"text outside {{% translate %}}: {bare}"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="gettext is not installed")
def test_makemessages_finds_nothing_untranslated(tmp_path: Path) -> None:
    for name in SOURCES:
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copytree(ROOT / "locale", tmp_path / "locale")
    here = Path.cwd()
    os.chdir(tmp_path)  # makemessages reads from and writes to the current folder's locale/
    try:
        with override_settings(LOCALE_PATHS=[]):
            call_command("makemessages", locale=["it"], symlinks=True, verbosity=0)
    finally:
        os.chdir(here)
    entries = parse_po(tmp_path / "locale" / "it" / "LC_MESSAGES" / "django.po")[1:]
    untranslated = [e.msgid for e in entries if not e.msgstr or any(not s for s in e.msgstr.values())]
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert not untranslated, f"no Italian in locale/it/LC_MESSAGES/django.po for: {untranslated}"
    assert not fuzzy, f"fuzzy (check and translate): {fuzzy}"
    assert (ROOT / "locale" / "it" / "LC_MESSAGES" / "django.po").read_text() != ""  # the checkout untouched
