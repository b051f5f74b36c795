"""Scenario hands in PHH for each automatic option (IT-AUTO-1, issue 19), produced by the real service.

Each test sets a player's preferences through the service (:func:`tables.service.change_preferences`),
plays seeded hands at a table (shuffles from fixed seeds, the engine's bots from a fixed seed or scripted
commands), exports the table as the auditors do (:func:`audit.export.table_phhs`) and checks that

- the action the table took from the preference carries ``# automatic: preference`` (and no other does);
- the export replays with ``python -m engine.replay`` to its finishing stacks (comments are ignored);
- the export, with the table id and the start time written as fixed values (:func:`normalized`), is the
  committed file of ``tests/data/auto/`` (poker all'italiana) or ``tests/data/telesina/auto/`` (Telesina,
  the giro pazzo); ``MAZZIERE_WRITE_SCENARIOS=1`` writes them again.

Where the options act (RULES.md): show/hide at the showdown in every game with a show-or-muck choice
(IT-SHOW-1, G-SHOW-1: poker all'italiana, Telesina); the blind opening only in poker all'italiana
(IT-BUIO-1; TL-1: Telesina has none); the vele layout and the distribution mode only in Telesina, when the
player deals a giro pazzo hand (TL-GIRO-1, TL-VELE-1, TL-DEAL-2).
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from audit.export import hand_phh, table_phhs
from engine.phh import AUTOMATIC_PREFERENCE_NOTE, HandHistory, loads_histories
from engine.replay import main, replay_file
from eventstore.store import read_stream
from tables import giro, service
from tests.tables import helpers
from tests.tables.test_giro_pazzo import QUIET_SEED, TRIGGER_SEED, check_down, open_table, start

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data"
AUTO = DATA / "auto"
TELESINA_AUTO = DATA / "telesina" / "auto"
NOTE = f"# {AUTOMATIC_PREFERENCE_NOTE}"
SECOND_GIRO_SEED = 3  # heads-up, the giro's second hand


def normalized(text: str) -> str:
    """The export with what depends on the database and the clock written as fixed values: the table's
    stream id ``table-1``, hand ids ``1-N``, the start ``2026-11-26 20:00:00 UTC``."""
    text = re.sub(r'^table = "table-\d+"$', 'table = "table-1"', text, flags=re.M)
    text = re.sub(r'^hand = "\d+-(\d+)"$', r'hand = "1-\1"', text, flags=re.M)
    for key, value in (("time", "20:00:00"), ("day", "26"), ("month", "11"), ("year", "2026")):
        text = re.sub(rf"^{key} = .*$", f"{key} = {value}", text, flags=re.M)
    return text


def exported(table_id: int, path: Path, tmp_path: Path) -> str:
    """The auditors' export (normalized): the table's first hand as a ``.phh``, or all its hands as a
    ``.phhs``, as ``path`` is named; replayed here to its finishing stacks (and by the command line),
    compared with the committed ``path`` (written again with ``MAZZIERE_WRITE_SCENARIOS``)."""
    text = normalized(table_phhs(table_id) if path.suffix == ".phhs" else hand_phh(table_id, 1))
    written = tmp_path / path.name
    written.write_text(text)
    assert replay_file(str(written)) is None
    assert main([str(written)]) == 0
    if os.environ.get("MAZZIERE_WRITE_SCENARIOS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.read_text() == text, f"{path} differs from the service's export"
    return text


def histories(text: str) -> tuple[HandHistory, ...]:
    return loads_histories(text, phhs=text.startswith("[1]"))


def marked(text: str) -> list[tuple[int, str, str]]:
    """``(hand, player, action)`` of every action commented as automatic from a preference."""
    found = []
    for number, history in enumerate(histories(text), 1):
        for action in history.actions:
            if NOTE in action.text:
                assert action.actor is not None
                found.append((number, history.players[action.actor], action.text))
    return found


def set_preferences(user: Any, **changes: Any) -> None:
    service.change_preferences(user.pk, user.username, changes)


def play_italian(table_id: int) -> service.Loaded:
    """The hand of ``helpers.DECK_SEED`` played by the bots of ``helpers.BOT_SEED`` (see
    ``tests/tables/test_preferences.py``): bruno shows first, carla, beaten, chooses."""
    helpers.start_hand(table_id)
    return helpers.play_to_end(table_id, random.Random(helpers.BOT_SEED))


def automatic_events(table_id: int) -> list[tuple[str, str]]:
    """``(type, actor)`` of the table's decisions taken from a preference."""
    names = ("BlindBetPlaced", "BlindDeclined", "HandShown", "HandMucked")
    return [
        (e.type, e.metadata["actor"])
        for e in read_stream(service.stream_id(table_id))
        if e.metadata.get("automatic") == "preference" and e.type in names
    ]


# --- poker all'italiana: show / hide at the showdown, the blind opening ------------------------------------


def test_it_auto_1_always_show(players: dict[str, Any], tmp_path: Path) -> None:
    """IT-SHOW-1: carla, beaten at the showdown, shows because she always shows (else the bot would muck)."""
    set_preferences(players["carla"], showdown="show")
    table_id = helpers.open_three()
    play_italian(table_id)
    assert automatic_events(table_id) == [("HandShown", "carla")]
    text = exported(table_id, AUTO / "showdown_show.phh", tmp_path)
    ((hand, player, action),) = marked(text)
    assert (hand, player) == (1, "carla")
    assert re.fullmatch(rf"p\d sm (?:[2-9TJQKA][cdhs]){{5}} {NOTE}", action)


def test_it_auto_1_always_hide(players: dict[str, Any], tmp_path: Path) -> None:
    """IT-SHOW-1: carla's beaten hand is mucked at once (``sm`` without cards), marked."""
    set_preferences(players["carla"], showdown="hide")
    table_id = helpers.open_three()
    play_italian(table_id)
    assert automatic_events(table_id) == [("HandMucked", "carla")]
    text = exported(table_id, AUTO / "showdown_hide.phh", tmp_path)
    ((hand, player, action),) = marked(text)
    assert (hand, player) == (1, "carla") and re.fullmatch(rf"p\d sm {NOTE}", action)


def test_it_auto_1_blind_yes(players: dict[str, Any], tmp_path: Path) -> None:
    """IT-BUIO-1: anna, left of the dealer, opens blind for the pot at once; bruno ("ask") is offered the
    controbuio and the bots play on."""
    set_preferences(players["anna"], blind="yes")
    table_id = helpers.open_three()
    play_italian(table_id)
    assert automatic_events(table_id) == [("BlindBetPlaced", "anna")]
    text = exported(table_id, AUTO / "blind_yes.phh", tmp_path)
    ((hand, player, action),) = marked(text)
    (history,) = histories(text)
    assert (hand, player) == (1, "anna") and action == f"p1 cbr {sum(history.antes)} {NOTE}"
    assert history.actions[0].text == action  # the buio comes before the deal


def test_it_auto_1_blind_no(players: dict[str, Any], tmp_path: Path) -> None:
    """IT-BUIO-1: anna says DAI CARTE at once (``dc``), marked; the cards are dealt and the bots play."""
    set_preferences(players["anna"], blind="no")
    table_id = helpers.open_three()
    play_italian(table_id)
    assert automatic_events(table_id) == [("BlindDeclined", "anna")]
    text = exported(table_id, AUTO / "blind_no.phh", tmp_path)
    ((hand, player, action),) = marked(text)
    (history,) = histories(text)
    assert (hand, player, action) == (1, "anna", f"p1 dc {NOTE}")
    assert history.actions[0].text == action


def test_it_auto_1_ask_marks_nothing(players: dict[str, Any]) -> None:
    """The same hand without preferences: the bots decide, no action is marked (the mark is not a
    property of the action: only of the table taking it for the player)."""
    table_id = helpers.open_three()
    play_italian(table_id)
    text = table_phhs(table_id)
    assert "automatic" not in text and "sm" in text


# --- Telesina: the giro pazzo dealer's vele layout and distribution mode, show/hide -------------------------


def giro_table(first: dict[str, Any] | None = None) -> int:
    """A heads-up PTL table (croce / mai) with the giro pazzo: the first hand, checked down, shows two full
    houses and starts a giro of two hands (bruno deals the first, anna the second)."""
    table_id = open_table()
    start(table_id, TRIGGER_SEED)
    loaded = check_down(table_id)
    assert loaded.giro.active
    assert giro.step(table_id, loaded.version) == "changed"
    return table_id


def giro_step(table_id: int, now: int | None = None) -> str:
    return giro.step(table_id, service.load(table_id).version, now=now)


def test_it_auto_1_giro_vele_always(django_user_model: Any, tmp_path: Path) -> None:
    """TL-GIRO-1 / IT-AUTO-1: bruno's preferred layout ``h`` with "always use it when I deal" chooses his
    giro hand's vele as he is asked (``giro_choice = "preference"``); anna prefers ``piramide`` without
    "always" and lets her time run out: the table chooses her preference then (``giro_timeout = true``)."""
    anna = django_user_model.objects.create_user("anna")
    bruno = django_user_model.objects.create_user("bruno")
    set_preferences(bruno, vele="h", vele_always=True)
    set_preferences(anna, vele="piramide")
    table_id = giro_table()
    assert giro_step(table_id) == "chosen"  # bruno deals: chosen at once
    start(table_id, QUIET_SEED)
    check_down(table_id)
    assert giro_step(table_id) == "asked"  # anna deals: asked, she does not answer
    deadline = service.load(table_id).giro.deadline_ms
    assert giro_step(table_id, now=deadline) == "chosen"
    start(table_id, SECOND_GIRO_SEED)
    assert not check_down(table_id).giro.active
    text = exported(table_id, TELESINA_AUTO / "giro_vele_always.phhs", tmp_path)
    keys = ("giro_dealer", "giro_choice", "giro_timeout", "vele")
    assert [tuple(dict(h.metadata).get(key) for key in keys) for h in histories(text)] == [
        (None, None, None, "croce"),  # the table's own layout, before the giro
        ("bruno", "preference", None, "h"),
        ("anna", "preference", True, "piramide"),
    ]
    assert marked(text) == []  # the choice is the hand's keys: no action of the hand


def test_it_auto_1_giro_distribution_always_and_telesina_hide(django_user_model: Any, tmp_path: Path) -> None:
    """TL-GIRO-1 / TL-DEAL-2 / IT-AUTO-1: bruno's preferred mode ``sempre`` with "always" chooses his giro
    hand's distribution at once (the layout is the table's default, croce); anna chooses her hand herself
    (``giro_choice = "dealer"``). anna always hides (G-SHOW-1, set after the first hand): beaten at the
    last showdown, she mucks at once, marked in the Telesina hand."""
    anna = django_user_model.objects.create_user("anna")
    bruno = django_user_model.objects.create_user("bruno")
    set_preferences(bruno, distribution="sempre", distribution_always=True)
    table_id = giro_table()
    set_preferences(anna, showdown="hide")
    assert giro_step(table_id) == "chosen"
    start(table_id, QUIET_SEED)
    check_down(table_id)
    assert giro_step(table_id) == "asked"
    giro.choose_variant(table_id, "anna", "una", "primo_giro")
    start(table_id, SECOND_GIRO_SEED)
    assert not check_down(table_id).giro.active
    text = exported(table_id, TELESINA_AUTO / "giro_distribution_always.phhs", tmp_path)
    keys = ("giro_dealer", "giro_choice", "giro_timeout", "vele", "carta_coperta")
    assert [tuple(dict(h.metadata).get(key) for key in keys) for h in histories(text)] == [
        (None, None, None, "croce", "mai"),
        ("bruno", "preference", None, "croce", "sempre"),  # croce: the table's default
        ("anna", "dealer", None, "una", "primo_giro"),
    ]
    # hand 2: anna shows first (IT-SHOW-1 / G-SHOW-1: no choice); hand 3: she is beaten and mucks at once
    assert automatic_events(table_id) == [("HandMucked", "anna")]
    assert marked(text) == [(3, "anna", f"p2 sm {NOTE}")]
