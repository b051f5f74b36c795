"""The giro pazzo at the table (rule TL-GIRO-1, :mod:`tables.giro`): a full house at a showdown starts it, the
table changes game (``TableGameChanged`` with ``giro``), each dealer is asked and chooses (or the table
chooses at the time-out, recorded as automatic), the hand is dealt with the choice, and after one hand per
player the table goes back to its own game. Busts and moves during a giro, a second big showdown inside one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from audit.export import table_phhs
from engine.core import ForcedBets, find_game
from engine.giro import GIRO_EVENTS
from engine.replay import replay_file
from eventstore.store import read_stream
from tables import giro, service
from tables.preferences import change

pytestmark = pytest.mark.django_db

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "telesina" / "giro_bust.phhs"
TRIGGER_SEED = 2  # heads-up croce/mai, checked down: two full houses shown
QUIET_SEED = 15  # heads-up, checked down: straights and two pair, no giro


def open_table(
    code: str = "PTL", players: tuple[tuple[str, int], ...] = (("anna", 1000), ("bruno", 1000))
) -> int:
    game = find_game(code)
    options: dict[str, str] = {"layout": "croce", "distribution": "mai"} if code.endswith("TL") else {}
    config = game.table_config(
        seats=len(players), tournament=False, forced=ForcedBets(invito=10), action_time_ms=30_000, time_bank_ms=0,  # noqa: E501
        **options,
    )  # fmt: skip
    seated = [(seat, name, chips) for seat, (name, chips) in enumerate(players)]
    return service.open_table("G", config, seated, game=code, first_button=0, giro_pazzo=True).table_id


def start(table_id: int, seed: int) -> service.Loaded:
    def decide(loaded: service.Loaded, at: int) -> Any:
        options = giro.start_options(loaded)
        return service.start_command(loaded, at, None, seed=seed.to_bytes(32, "big"), options=options)

    return service.handle(table_id, decide).loaded


def check_down(table_id: int) -> service.Loaded:
    """Every player checks (or calls) and shows until the hand is over."""
    loaded = service.load(table_id)
    while loaded.facts.in_hand:
        (seat,) = loaded.rules.to_act(loaded.state)
        kinds = {
            str(getattr(o.kind, "value", o.kind)): o for o in loaded.rules.legal_actions(loaded.state, seat)
        }
        action = next(k for k in ("check", "call", "show", "turn_up") if k in kinds)
        amount = 0 if action == "turn_up" else None
        loaded = service.act(table_id, loaded.facts.seats[seat].player, action, amount=amount).loaded
    return loaded


def types(table_id: int, after: int = 0) -> list[str]:
    return [e.type for e in read_stream(service.stream_id(table_id), after)]


def giro_events(table_id: int) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    names = set(GIRO_EVENTS)
    return [
        (e.type, e.data, e.metadata) for e in read_stream(service.stream_id(table_id), 0) if e.type in names
    ]


def stacks(loaded: service.Loaded) -> int:
    return sum(o.stack for o in loaded.facts.seats if o is not None) + loaded.facts.carried


def step(table_id: int, now: int | None = None) -> str:
    return giro.step(table_id, service.load(table_id).version, now=now)


def test_tl_giro_1_no_giro_without_a_big_showdown_or_without_the_option() -> None:
    table_id = open_table()
    start(table_id, QUIET_SEED)
    check_down(table_id)
    assert giro_events(table_id) == []
    assert step(table_id) == ""
    loaded = service.load(table_id)
    assert not loaded.giro.active and loaded.giro_pazzo


def test_tl_giro_1_a_whole_giro_from_the_full_house_to_the_table_game() -> None:
    table_id = open_table()
    start(table_id, TRIGGER_SEED)
    loaded = check_down(table_id)
    total = stacks(loaded)
    (started,) = giro_events(table_id)
    assert started[0] == "GiroPazzoStarted" and started[1]["trigger"].startswith("Full house")
    assert started[1]["players"] == ["anna", "bruno"] and loaded.giro.active

    # 1. the table changes game: Telesina at its limit, libera (the mixed games' TableGameChanged)
    assert step(table_id) == "changed"
    loaded = service.load(table_id)
    changed = [e for e in read_stream(service.stream_id(table_id), 0) if e.type == "TableGameChanged"][-1]
    assert changed.data["giro"] is True and changed.data["game"] == "PTL"
    assert dict(map(tuple, changed.data["config"]["options"]))["layout"] == "libera"
    assert loaded.in_giro and loaded.base_game == "PTL"

    # 2. the next hand's dealer is asked; someone else cannot choose; TL-CAP-1 is the engine's
    assert step(table_id) == "asked"
    loaded = service.load(table_id)
    dealer = loaded.giro.choosing
    other = next(p for p in ("anna", "bruno") if p != dealer)
    assert loaded.giro.waiting and loaded.giro.seat == loaded.first_button
    assert service.row(loaded)["deadline_ms"] == loaded.giro.deadline_ms  # the timekeeper's sweep sees it
    with pytest.raises(service.BadRequest, match="chooses its variant"):
        giro.choose_variant(table_id, other, "una", "mai")
    with pytest.raises(service.BadRequest, match="not libera"):
        giro.choose_variant(table_id, dealer, "libera", "mai")
    with pytest.raises(service.NotYourSeat):
        giro.choose_variant(table_id, "zeno", "una", "mai")
    assert step(table_id) == "waiting"  # no hand starts while the dealer chooses
    giro.choose_variant(table_id, dealer, "piramide", "sempre")
    assert step(table_id) == "start"

    # 3. the hand is dealt with the choice
    loaded = start(table_id, QUIET_SEED)
    assert dict(loaded.state.hand.options)["layout"] == "piramide"
    assert dict(loaded.state.hand.options)["distribution"] == "sempre"
    assert loaded.rules.facts(loaded.state).seats[loaded.state.hand.button].player == dealer
    assert loaded.giro.dealt == (dealer,) and loaded.giro.choice == ()
    loaded = check_down(table_id)
    assert stacks(loaded) == total and loaded.giro.active  # a big showdown inside changes nothing

    # 4. the second dealer runs out of time: the table chooses its default, recorded as automatic
    assert step(table_id) == "asked"
    loaded = service.load(table_id)
    assert loaded.giro.choosing == other
    assert step(table_id, now=loaded.giro.deadline_ms - 1) == "waiting"
    assert step(table_id, now=loaded.giro.deadline_ms) == "chosen"
    *_, (name, data, metadata) = giro_events(table_id)
    assert name == "VariantChosen" and data["automatic"] == "table" and metadata["automatic"] == "giro"
    assert (data["layout"], data["distribution"]) == ("croce", "mai")
    loaded = start(table_id, TRIGGER_SEED)
    assert loaded.rules.facts(loaded.state).seats[loaded.state.hand.button].player == other
    loaded = check_down(table_id)
    assert stacks(loaded) == total

    # 5. one hand per player: the giro ends (the full house in its last hand starts none) and the table
    # goes back to its own game
    assert [n for n, _, _ in giro_events(table_id)][-1] == "GiroPazzoEnded"
    assert not loaded.giro.active and loaded.giro.rounds == 1
    assert [n for n, _, _ in giro_events(table_id)].count("VariantChosen") == 2
    assert [n for n, _, _ in giro_events(table_id)].count("GiroHandStarted") == 2
    assert step(table_id) == "changed"
    loaded = service.load(table_id)
    assert not loaded.in_giro and loaded.game == "PTL"
    assert dict(loaded.state.config.options)["layout"] == "croce"
    assert step(table_id) == ""
    # folded again from the log (and a snapshot), the same table
    service.forget_cache()
    again = service.load(table_id, cached=False)
    assert again.giro == loaded.giro and again.in_giro == loaded.in_giro and again.base_game == "PTL"


def test_it_auto_1_the_dealers_preference_always_used_when_they_deal(django_user_model: Any) -> None:
    users = {name: django_user_model.objects.create_user(name, password="x") for name in ("anna", "bruno")}
    for name, user in users.items():
        change(user.id, name, {"vele": "h", "vele_always": True, "distribution": "primo_giro"})
    table_id = open_table()
    start(table_id, TRIGGER_SEED)
    check_down(table_id)
    assert step(table_id) == "changed"
    assert step(table_id) == "chosen"  # nobody asked: the preference chooses at once
    *_, (name, data, metadata) = giro_events(table_id)
    assert (name, data["layout"], data["distribution"], data["automatic"]) == (
        "VariantChosen",
        "h",
        "primo_giro",
        "preference",
    )
    assert metadata["automatic"] == "giro"


def test_tl_giro_1_a_player_busting_during_the_giro(tmp_path: Path) -> None:
    """Three players; the giro owes carla a deal; with 40 chips, she goes all-in in its first hand and
    busts (a shuffle where she loses is found by trying seeds, each try rolled back): she is struck off,
    the giro ends after the two others' hands, chips conserved, one choice per hand."""
    table_id = open_table(players=(("anna", 1000), ("bruno", 1000), ("carla", 40)))
    seed = next(s for s in range(1, 60) if _big_three_way(s))
    start(table_id, seed)
    loaded = check_down(table_id)
    assert loaded.giro.active and loaded.giro.owed == ("anna", "bruno", "carla")
    assert step(table_id) == "changed"
    total = stacks(service.load(table_id))
    assert step(table_id) == "asked"
    loaded = service.load(table_id)
    assert loaded.giro.choosing != "carla"
    giro.choose_variant(table_id, loaded.giro.choosing, "una", "mai")
    for attempt in range(100, 200):
        savepoint = transaction.savepoint()
        start(table_id, attempt)
        loaded = _carla_all_in(table_id)
        if loaded.seat_of("carla") is None or loaded.facts.seats[loaded.seat_of("carla")].stack == 0:
            transaction.savepoint_commit(savepoint)
            break
        transaction.savepoint_rollback(savepoint)
        service.forget_cache()
    else:
        pytest.fail("no shuffle where carla busts")
    assert stacks(loaded) == total and loaded.giro.active
    assert "carla" not in loaded.giro.owed and loaded.giro.skipped == ("carla",)
    while service.load(table_id).giro.active:
        assert step(table_id) == "asked"
        loaded = service.load(table_id)
        assert loaded.giro.choosing != "carla"
        giro.choose_variant(table_id, loaded.giro.choosing, "tre", "sempre")
        start(table_id, 300)
        loaded = check_down(table_id)
        assert stacks(loaded) == total
    name, data, _ = giro_events(table_id)[-1]
    assert name == "GiroPazzoEnded" and data["skipped"] == ["carla"] and len(data["dealers"]) == 2
    names = [n for n, _, _ in giro_events(table_id)]
    assert names.count("VariantChosen") == names.count("GiroHandStarted") == 2
    # the table's .phhs: the whole giro, from its trigger to its end, replays (engine.replay)
    exported = table_phhs(table_id)
    assert exported.count("giro_trigger = ") == 1 and exported.count("giro_dealer = ") == 2
    assert exported.count("giro_end = true") == 1
    path = tmp_path / "giro.phhs"
    path.write_text(exported)
    assert replay_file(str(path)) is None
    if os.environ.get("MAZZIERE_WRITE_SCENARIOS"):  # how tests/data/telesina/giro_bust.phhs was written
        SCENARIO.write_text(exported)


def _big_three_way(seed: int) -> bool:
    from engine.giro import is_big

    game = find_game("PTL")
    config = game.table_config(
        seats=3, tournament=False, forced=ForcedBets(invito=10), action_time_ms=30_000, time_bank_ms=0,
        layout="croce", distribution="mai",
    )  # fmt: skip
    state = game.initial_state(config)
    for seat, name in enumerate(("anna", "bruno", "carla")):
        state, _ = game.apply(state, game.seat_command(seat, name, 1000, 0))
    from engine.shuffle import shuffle

    secret = seed.to_bytes(32, "big")
    command = game.start_command(
        state, lambda d: shuffle(d.cards, secret), at=0, forced=None, button=0, hand_id="x", commitment="0" * 64,  # noqa: E501
        algorithm="x",
    )  # fmt: skip
    state, events = game.apply(state, command)
    shown: list[str] = []
    for _ in range(400):
        while (deal := game.dealer_command(state, 0)) is not None:
            state, more = game.apply(state, deal)
            events = (*events, *more)
        if state.hand is None:
            break
        (seat,) = game.to_act(state)
        kinds = {str(getattr(o.kind, "value", o.kind)) for o in game.legal_actions(state, seat)}
        action = next(k for k in ("check", "call", "show") if k in kinds)
        state, more = game.apply(state, game.player_command(state, seat, action, None, (), 0))
        events = (*events, *more)
    shown = [e.label for e in events if type(e).__name__ == "HandShown"]
    return any(is_big(label) for label in shown)


def _carla_all_in(table_id: int) -> service.Loaded:
    """Carla bets everything she has at her first turn, the others call: her stack is at stake."""
    loaded = service.load(table_id)
    while loaded.facts.in_hand:
        (seat,) = loaded.rules.to_act(loaded.state)
        player = loaded.facts.seats[seat].player
        kinds = {
            str(getattr(o.kind, "value", o.kind)): o for o in loaded.rules.legal_actions(loaded.state, seat)
        }
        if player == "carla" and ("bet" in kinds or "raise" in kinds):
            kind = "bet" if "bet" in kinds else "raise"
            loaded = service.act(table_id, player, kind, amount=kinds[kind].maximum).loaded
            continue
        action = next(k for k in ("call", "check", "show", "turn_up") if k in kinds)
        loaded = service.act(table_id, player, action, amount=0 if action == "turn_up" else None).loaded
    return loaded


def test_tl_giro_1_a_player_moving_away_during_the_giro() -> None:
    """A tournament move between hands (the player removed from the table): struck off the giro."""
    table_id = open_table(players=(("anna", 1000), ("bruno", 1000), ("carla", 1000)))
    seed = next(s for s in range(1, 60) if _big_three_way(s))
    start(table_id, seed)
    check_down(table_id)
    assert step(table_id) == "changed"
    assert step(table_id) == "asked"
    dealer = service.load(table_id).giro.choosing
    giro.choose_variant(table_id, dealer, "due", "mai")
    start(table_id, 77)
    check_down(table_id)
    leaving = next(p for p in service.load(table_id).giro.owed)
    seat = service.load(table_id).seat_of(leaving)
    service.handle(table_id, lambda loaded, at: loaded.rules.remove_command(seat, at))
    loaded = service.load(table_id)
    assert leaving in loaded.giro.owed  # struck off when the next hand ends
    assert step(table_id) in ("asked", "chosen")
    loaded = service.load(table_id)
    if loaded.giro.waiting:
        giro.choose_variant(table_id, loaded.giro.choosing, "tre", "mai")
    start(table_id, 78)
    loaded = check_down(table_id)
    assert not loaded.giro.active
    (name, data, _) = giro_events(table_id)[-1]
    assert name == "GiroPazzoEnded" and data["skipped"] == [leaving] and len(data["dealers"]) == 2


def test_tl_giro_1_on_an_italian_table_the_giro_plays_telesina_at_its_limit() -> None:
    table_id = open_table("PIT", (("anna", 1000), ("bruno", 1000), ("carla", 1000)))
    loaded = service.load(table_id)
    assert giro.giro_config(loaded).options == (
        ("distribution", "libera"), ("layout", "libera"), ("minimal_beats_royal", "spades-vs-hearts"),
    )  # fmt: skip
    # the trigger is the same for every game: the labels shown at the showdown
    service.handle(table_id, lambda loaded, at: None)
    with pytest.raises(Exception, match="giro pazzo"):
        service.open_table("X", find_game("NT").table_config(
            seats=2, tournament=False, forced=ForcedBets(small_blind=5, big_blind=10), action_time_ms=30_000,
            time_bank_ms=0), (), game="NT", giro_pazzo=True)  # fmt: skip


@pytest.mark.parametrize("language", ["it", "en"])
def test_tl_giro_1_the_dealers_dialog_and_everyone_elses_notice(
    web_as: Any, players: dict[str, Any], language: str
) -> None:
    """The dealer's page has the dialog: every layout drawn from the layout data (grid areas from its
    shape), the distribution modes, the countdown; the other player's page says the dealer is choosing.
    The choice over the API changes both pages."""
    table_id = open_table()
    start(table_id, TRIGGER_SEED)
    check_down(table_id)
    step(table_id)
    step(table_id)
    loaded = service.load(table_id)
    dealer = loaded.giro.choosing
    other = next(p for p in ("anna", "bruno") if p != dealer)

    def page(name: str) -> str:
        html = web_as(players[name]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE=language).content
        return html.decode()

    mine = page(dealer)
    assert "data-giro-choice" in mine and 'name="action" value="choose"' in mine
    layouts = re.findall(r'data-layout="(\w+)"', mine.split("data-giro-choice")[1])
    assert layouts == ["none", "una", "due", "tre", "croce", "h", "piramide", "ascensore"]
    croce = mine.split('data-layout="croce"')[1].split("</label>")[0]
    assert re.findall(r'giro-vela" style="grid-area: ([\d /]+);">(\w)', croce) == [
        ("1 / 2 / 2 / 3", "A"), ("2 / 1 / 3 / 2", "B"), ("3 / 2 / 4 / 3", "C"), ("2 / 3 / 3 / 4", "D"),
        ("2 / 2 / 3 / 3", "E"),
    ]  # fmt: skip
    assert re.findall(r'name="distribution" value="(\w+)"', mine) == ["mai", "primo_giro", "sempre"]
    assert 'value="croce" checked' in mine and 'value="mai" checked' in mine  # the time-out's default
    assert f'data-action-end="{loaded.giro.deadline_ms}"' in mine
    theirs = page(other)
    assert "data-giro-choice" not in theirs and "data-giro-waiting" in theirs
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", theirs))
    expected = "sta scegliendo la variante" if language == "it" else "is choosing the variant"
    assert f"{dealer} " in text and expected in text
    if language == "en":
        assert "You deal: choose the Telesina you play" in mine
    else:
        assert "Dai tu le carte: scegli la Telesina" in mine and "Do le carte" in mine

    client = web_as(players[other])
    refused = client.post(
        f"/api/tables/{table_id}/choose/",
        {"layout": "una", "distribution": "mai"},
        content_type="application/json",
    )
    assert refused.status_code == 400 and "chooses its variant" in refused.json()["detail"]
    client = web_as(players[dealer])
    bad = client.post(
        f"/api/tables/{table_id}/choose/",
        {"layout": "stella", "distribution": "mai"},
        content_type="application/json",
    )
    assert bad.status_code == 400
    done = client.post(
        f"/api/tables/{table_id}/choose/",
        {"layout": "h", "distribution": "sempre"},
        content_type="application/json",
    )
    assert done.status_code == 200
    assert "data-giro-chosen" in page(other) and "data-giro-choice" not in page(dealer)
    assert service.load(table_id).giro.choice == (("distribution", "sempre"), ("layout", "h"))


def open_libera(layout: str, distribution: str, giro_pazzo: bool = False) -> int:
    game = find_game("PTL")
    config = game.table_config(
        seats=2, tournament=False, forced=ForcedBets(invito=10), action_time_ms=30_000, time_bank_ms=0,
        layout=layout, distribution=distribution,
    )  # fmt: skip
    seated = [(0, "anna", 1000), (1, "bruno", 1000)]
    return service.open_table("L", config, seated, game="PTL", first_button=0, giro_pazzo=giro_pazzo).table_id


def test_tl_vele_1_tl_deal_2_at_a_libera_table_the_dealer_chooses_each_hand(
    web_as: Any, players: dict[str, Any]
) -> None:
    """A libera table (no giro option): before every hand its dealer is asked (TL-DEAL-2, TL-VELE-1); the
    hand is dealt with the choice; the next hand's dealer is asked again; no game change, no giro."""
    table_id = open_libera("libera", "libera")
    for hand, (layout, distribution) in enumerate((("h", "primo_giro"), ("una", "sempre")), start=1):
        assert step(table_id) == "asked"
        loaded = service.load(table_id)
        dealer = loaded.giro.choosing
        html = web_as(players[dealer]).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "data-giro-choice" in html and "Libera" in html and "Giro pazzo" not in html
        giro.choose_variant(table_id, dealer, layout, distribution)
        assert step(table_id) == "start"
        loaded = start(table_id, QUIET_SEED)
        assert dict(loaded.state.hand.options)["layout"] == layout
        assert dict(loaded.state.hand.options)["distribution"] == distribution
        assert loaded.facts.seats[loaded.state.hand.button].player == dealer
        check_down(table_id)
        assert service.load(table_id).hand_number == hand
    assert not service.load(table_id).giro.active
    assert "TableGameChanged" not in types(table_id) and "GiroPazzoStarted" not in types(table_id)


def test_tl_deal_2_a_table_with_one_libera_option_keeps_the_other() -> None:
    """Layout fixed (piramide), distribution libera: the dealer chooses the mode only; a choice of another
    layout is refused with the rule; the time-out keeps the piramide."""
    table_id = open_libera("piramide", "libera")
    assert step(table_id) == "asked"
    loaded = service.load(table_id)
    dealer = loaded.giro.choosing
    with pytest.raises(service.BadRequest, match="the table's layout is piramide"):
        giro.choose_variant(table_id, dealer, "croce", "sempre")
    assert step(table_id, now=loaded.giro.deadline_ms) == "chosen"
    loaded = start(table_id, QUIET_SEED)
    assert dict(loaded.state.hand.options)["layout"] == "piramide"
    assert dict(loaded.state.hand.options)["distribution"] == "mai"


def test_a_fixed_telesina_table_asks_nobody() -> None:
    table_id = open_libera("croce", "mai")
    assert step(table_id) == ""
    assert giro.start_options(service.load(table_id)) is None
