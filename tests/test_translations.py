"""The Italian catalogue (``locale/it/LC_MESSAGES``): complete, compiled, and used by Django.

The .po is read with a small parser (no polib): enough for what ``makemessages`` writes — comments, flags,
``msgctxt``, ``msgid``/``msgid_plural``, ``msgstr``/``msgstr[n]`` and continuation lines. Obsolete entries
(``#~``) are comments to it, as they are to ``msgfmt``.
"""

from __future__ import annotations

import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

LC_MESSAGES = Path(__file__).resolve().parents[1] / "locale" / "it" / "LC_MESSAGES"
PO = LC_MESSAGES / "django.po"
MO = LC_MESSAGES / "django.mo"

_KEYWORD = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]")


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def label(self) -> str:
        return f"django.po:{self.line} {self.msgid!r}"


def _unquote(literal: str) -> str:
    body = literal.strip()[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def parse_po(path: Path) -> list[Entry]:
    """Every entry of ``path``, the header (``msgid ""``) first, in file order."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] | None = None
    pending_flags: set[str] = set()

    def finish() -> None:
        nonlocal current
        if current is not None:
            entries.append(current)
        current = None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            target = None
            continue
        if line.startswith("#"):
            if current is not None and target is not None and target[0] == "msgstr":
                finish()  # a comment after msgstr starts the next entry
            if line.startswith("#,"):
                pending_flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        match = _KEYWORD.match(line)
        if match:
            keyword, index, literal = match.groups()
            kind = "msgstr" if keyword.startswith("msgstr") else keyword
            if current is None or (kind in ("msgctxt", "msgid") and target and target[0] == "msgstr"):
                finish()
                current = Entry(line=number, flags=pending_flags)
                pending_flags = set()
            text = _unquote(literal)
            if kind == "msgstr":
                slot = int(index) if index is not None else 0
                current.msgstr[slot] = text
                target = ("msgstr", slot)
            else:
                setattr(current, kind, text)
                target = (kind, 0)
            continue
        if line.startswith('"') and current is not None and target is not None:
            text = _unquote(line)
            name, position = target
            if name == "msgstr":
                current.msgstr[position] += text
            else:
                setattr(current, name, (getattr(current, name) or "") + text)
            continue
        raise AssertionError(f"django.po:{number}: cannot parse {raw!r}")
    finish()
    return entries


@pytest.fixture(scope="module")
def entries() -> list[Entry]:
    assert PO.is_file(), f"missing {PO}: run makemessages -l it"
    parsed = parse_po(PO)
    assert parsed and parsed[0].msgid == "", 'the header (msgid "") must come first'
    return parsed


@pytest.fixture(scope="module")
def messages(entries: list[Entry]) -> list[Entry]:
    return entries[1:]


def test_header(entries: list[Entry]) -> None:
    header = entries[0].msgstr[0]
    fields = dict(line.split(": ", 1) for line in header.splitlines() if ": " in line)
    assert fields.get("Language") == "it"
    assert fields.get("Plural-Forms") == "nplurals=2; plural=(n != 1);"
    assert "charset=UTF-8" in fields.get("Content-Type", "")
    assert "fuzzy" not in entries[0].flags


def test_catalogue_is_not_empty(messages: list[Entry]) -> None:
    assert len(messages) >= 50
    assert len({(e.msgctxt, e.msgid) for e in messages}) == len(messages), "duplicate msgids"


def test_no_empty_msgstr(messages: list[Entry]) -> None:
    empty = [e.label for e in messages if not e.msgstr or any(not s for s in e.msgstr.values())]
    assert not empty, f"untranslated: {empty}"


def test_no_fuzzy_entry(messages: list[Entry]) -> None:
    fuzzy = [e.label for e in messages if "fuzzy" in e.flags]
    assert not fuzzy, f"fuzzy: {fuzzy}"


def test_plural_entries_have_both_forms(messages: list[Entry]) -> None:
    plurals = [e for e in messages if e.msgid_plural is not None]
    assert plurals, "the catalogue has plural entries (changed %(n)s card/cards)"
    for entry in plurals:
        assert sorted(entry.msgstr) == [0, 1], entry.label


def test_placeholders_are_kept(messages: list[Entry]) -> None:
    for entry in messages:
        wanted = set(_PLACEHOLDER.findall(entry.msgid))
        if entry.msgid_plural is not None:
            wanted |= set(_PLACEHOLDER.findall(entry.msgid_plural))
        for slot, text in entry.msgstr.items():
            assert set(_PLACEHOLDER.findall(text)) == wanted, f"{entry.label} msgstr[{slot}] = {text!r}"


def test_mo_matches_po(messages: list[Entry]) -> None:
    """The .mo is compiled from this .po: it gives the .po's msgstr for every msgid."""
    assert MO.is_file(), f"missing {MO}: run compilemessages -l it"
    with MO.open("rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    stale = []
    for entry in messages:
        if entry.msgctxt is not None:
            got = catalogue.pgettext(entry.msgctxt, entry.msgid)
            if got != entry.msgstr[0]:
                stale.append((entry.label, got, entry.msgstr[0]))
        elif entry.msgid_plural is None:
            got = catalogue.gettext(entry.msgid)
            if got != entry.msgstr[0]:
                stale.append((entry.label, got, entry.msgstr[0]))
        else:
            for n, slot in ((1, 0), (2, 1)):
                got = catalogue.ngettext(entry.msgid, entry.msgid_plural, n)
                if got != entry.msgstr[slot]:
                    stale.append((f"{entry.label}[{slot}]", got, entry.msgstr[slot]))
    assert not stale, f"the .mo is older than the .po (run compilemessages -l it): {stale}"


@pytest.mark.parametrize(
    ("msgid", "italian"),
    [
        ("Tournaments", "Tornei"),
        ("Lobby", "Sala"),
        ("Register", "Iscriviti"),
        ("Unregister", "Annulla iscrizione"),
        ("Log in", "Accedi"),
        ("Pot", "Piatto"),
        ("Dealer", "Mazziere"),
    ],
)
def test_django_uses_the_catalogue(msgid: str, italian: str) -> None:
    with translation.override("it"):
        assert _(msgid) == italian
    with translation.override("en"):
        assert _(msgid) == msgid


def test_django_interpolation_and_plurals() -> None:
    with translation.override("it"):
        assert _("%(player)s wins %(chips)s") % {"player": "anna", "chips": 120} == "anna vince 120"
        assert ngettext("changed %(n)s card", "changed %(n)s cards", 1) % {"n": 1} == "ha cambiato 1 carta"
        assert ngettext("changed %(n)s card", "changed %(n)s cards", 3) % {"n": 3} == "ha cambiato 3 carte"
    with translation.override("en"):
        assert _("%(player)s wins %(chips)s") % {"player": "anna", "chips": 120} == "anna wins 120"


def test_lobby_template_in_both_languages() -> None:
    context = {"tournaments": [], "is_director": True, "is_player": True}
    with translation.override("it"):
        html = render_to_string("tournaments/lobby.html", context)
    assert "<h1>Tornei</h1>" in html
    assert "Nuovo sit-and-go" in html and "Ancora nessun torneo." in html
    assert 'lang="it"' in html
    with translation.override("en"):
        html = render_to_string("tournaments/lobby.html", context)
    assert "<h1>Tournaments</h1>" in html
    assert "New sit-and-go" in html and "No tournaments yet." in html
    assert 'lang="en"' in html
