"""The players' automatic options (IT-AUTO-1): the player stream ``player-<user id>``, its read model, the
API and the panel's form, and the table applying them (IT-SHOW-1 show/muck, IT-BUIO-1 blind opening).

The hand of ``helpers.DECK_SEED`` with the bots of ``helpers.BOT_SEED`` (3 seats): anna declines the buio,
everyone goes to the final round, anna folds, bruno shows first and carla, beaten, chooses (the bot mucks).
"""

from __future__ import annotations

import random
from dataclasses import replace
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from eventstore import store
from eventstore.models import Event
from eventstore.projections import computed, differences, registered
from tables import preferences, rendering, service
from tables.models import PlayerPreferences
from tests.tables import helpers

pytestmark = pytest.mark.django_db

API = "/api/preferences/"


def table_events(table_id: int) -> list[store.RecordedEvent]:
    return store.read_stream(service.stream_id(table_id))


def set_preferences(user: Any, **changes: Any) -> preferences.Folded:
    folded, _ = service.change_preferences(user.pk, user.username, changes)
    return folded


def play_with_bots(table_id: int) -> service.Loaded:
    """Start the seeded hand and let the bots play every decision left to a player."""
    helpers.start_hand(table_id)
    return helpers.play_to_end(table_id, random.Random(helpers.BOT_SEED))


def projection() -> Any:
    (found,) = [p for p in registered() if p.name == "player-preferences"]
    return found


# --- the stream and its read model --------------------------------------------------------------------------


def test_a_change_is_an_event_on_the_player_stream_and_in_the_read_model(players: dict[str, Any]) -> None:
    anna = players["anna"]
    set_preferences(anna, showdown="hide")
    set_preferences(anna, vele="croce", vele_always=True, blind="no")
    (first, second) = store.read_stream(f"player-{anna.pk}")
    assert (first.type, first.schema_version, first.version) == ("PreferencesChanged", 1, 1)
    assert first.data == {"player": "anna", "changes": {"showdown": "hide"}}
    assert first.metadata["actor"] == "anna" and first.metadata["at"] > 0
    assert second.data["changes"] == {"vele": "croce", "vele_always": True, "blind": "no"}
    row = PlayerPreferences.objects.get(user_id=anna.pk)
    assert (row.player, row.version, row.showdown, row.blind, row.vele, row.vele_always) == (
        "anna",
        2,
        "hide",
        "no",
        "croce",
        True,
    )
    assert row.distribution is None and row.distribution_always is False


def test_the_same_values_again_append_nothing(players: dict[str, Any]) -> None:
    anna = players["anna"]
    set_preferences(anna, showdown="show")
    _, changed = service.change_preferences(anna.pk, "anna", {"showdown": "show", "blind": "ask"})
    assert not changed
    assert Event.objects.filter(stream_id=f"player-{anna.pk}").count() == 1


def test_rebuild_equals_live(players: dict[str, Any]) -> None:
    set_preferences(players["anna"], showdown="hide", distribution="sempre", distribution_always=True)
    set_preferences(players["bruno"], blind="yes")
    set_preferences(players["anna"], distribution=None, distribution_always=False, vele="h")
    live = projection().current()
    assert differences(computed(projection()), live) == []
    call_command("rebuild_projections", "player-preferences")
    assert projection().current() == live
    call_command("verify_projections")  # exits 1 on a difference
    assert live["tables.PlayerPreferences"][players["anna"].pk]["vele"] == "h"


def test_verify_all_is_clean_with_player_streams_and_automatic_answers(players: dict[str, Any]) -> None:
    """The audit's whole verification (hash chains, shuffles, every hand replayed, projections) passes over
    a player stream and a hand with automatic answers."""
    set_preferences(players["carla"], showdown="hide")
    play_with_bots(helpers.open_three())
    out = StringIO()
    call_command("verify_all", stdout=out)  # exits 1 on any problem
    assert "2 streams, 1 tables, 1 hands" in out.getvalue() and out.getvalue().strip().endswith("OK")


def test_verify_finds_a_tampered_read_model(players: dict[str, Any]) -> None:
    set_preferences(players["anna"], showdown="hide")
    PlayerPreferences.objects.filter(user_id=players["anna"].pk).update(showdown="show")
    problems = differences(computed(projection()), projection().current())
    assert problems == [
        f"tables.PlayerPreferences {players['anna'].pk}.showdown: log gives 'hide', live has 'show'"
    ]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"showdown": "sometimes"}, "showdown: 'sometimes' non è tra i valori ammessi (ask, hide, show)."),
        ({"vele": "libera"}, "vele: 'libera' non è tra i valori ammessi"),
        ({"vele_always": True}, "vele_always: scegli prima una preferenza per vele."),
        ({"colour": "red"}, "Preferenza sconosciuta 'colour'"),
        ({"distribution_always": "yes"}, "distribution_always: serve true o false."),
    ],
)
def test_refused_changes_append_nothing(
    players: dict[str, Any], changes: dict[str, Any], message: str
) -> None:
    anna = players["anna"]
    with pytest.raises(preferences.PreferencesRefused) as refused:
        service.change_preferences(anna.pk, "anna", changes)
    assert str(refused.value).startswith(message)
    assert refused.value.english
    assert not Event.objects.filter(stream_id=f"player-{anna.pk}").exists()
    assert not PlayerPreferences.objects.exists()


def test_a_stale_expected_version_is_refused(players: dict[str, Any]) -> None:
    anna = players["anna"]
    set_preferences(anna, showdown="hide")
    with pytest.raises(preferences.StalePreferences):
        service.change_preferences(anna.pk, "anna", {"showdown": "show"}, expected_version=0)
    assert preferences.of_user(anna.pk).preferences.showdown == "hide"


VALUES = {
    "vele": st.sampled_from((None, "libera", *preferences.VELE)),
    "vele_always": st.sampled_from((True, False, "true")),
    "distribution": st.sampled_from((None, "libera", *preferences.DISTRIBUTIONS)),
    "distribution_always": st.sampled_from((True, False, 1)),
    "showdown": st.sampled_from((*preferences.SHOWDOWN, "never")),
    "blind": st.sampled_from((*preferences.BLIND, None)),
}
CHANGES = st.fixed_dictionaries({}, optional=VALUES)
"""Any subset of the fields, each with a good or a bad value."""


@given(st.lists(CHANGES, max_size=12))
def test_decide_and_evolve_invariants(changes: list[dict[str, Any]]) -> None:
    """Hypothesis: over any run of changes, good and bad, a refused one changes nothing, an accepted one
    names only what differs and applying it again changes nothing; "always" never stands without its
    preference; the fold of the accepted events equals the preferences reached (rebuild = live)."""
    current, recorded = preferences.Preferences(), []
    for number, change in enumerate(changes, start=1):
        try:
            changed = preferences.decide(current, change)
        except preferences.PreferencesRefused as refused:
            assert refused.english and str(refused)
            continue
        assert all(getattr(current, k) != v for k, v in changed.items())
        current = replace(current, **changed)
        assert preferences.decide(current, change) == {}
        assert not (current.vele_always and current.vele is None)
        assert not (current.distribution_always and current.distribution is None)
        if changed:
            data = {"player": "anna", "changes": changed}
            recorded.append(
                store.RecordedEvent(number, "player-1", len(recorded) + 1, "PreferencesChanged", 1, data, {})
            )
    folded = preferences.fold(recorded)
    assert folded.preferences == current and folded.version == len(recorded)


# --- the table applies them ---------------------------------------------------------------------------------


def test_ask_leaves_the_showdown_choice_to_the_player(players: dict[str, Any]) -> None:
    """Without preferences the seeded hand's showdown waits for carla (the bot answers for her)."""
    table_id = helpers.open_three()
    play_with_bots(table_id)
    mucked = [e for e in table_events(table_id) if e.type == "HandMucked"]
    assert [(e.data["seat"], e.metadata["actor"], "automatic" in e.metadata) for e in mucked] == [
        (2, "system", False)
    ]


def test_ask_waits_for_the_player(players: dict[str, Any]) -> None:
    set_preferences(players["carla"], blind="no")  # another player's preference changes nothing here
    table_id = helpers.open_three()
    loaded = helpers.start_hand(table_id)
    assert loaded.facts.to_act == frozenset({0})  # anna ("ask"): offered BUIO / DAI CARTE, nobody answered
    assert [e.type for e in table_events(table_id)][-1] == "TurnStarted"


def test_always_hide_mucks_the_losing_hand_at_once(players: dict[str, Any]) -> None:
    set_preferences(players["carla"], showdown="hide")
    table_id = helpers.open_three()
    loaded = play_with_bots(table_id)
    events = table_events(table_id)
    (mucked,) = [e for e in events if e.type == "HandMucked"]
    assert mucked.data["seat"] == 2
    assert mucked.metadata["automatic"] == "preference" and mucked.metadata["actor"] == "carla"
    # carla's turn was never waited for: the muck follows her TurnStarted in the same transaction
    turn = events[mucked.version - 2]
    assert (turn.type, turn.data["seat"], turn.tx_id) == ("TurnStarted", 2, mucked.tx_id)
    assert not any(e.type == "HandShown" and e.data["seat"] == 2 for e in events)
    assert loaded.state.hand is None and events[-1].type == "SeedRevealed"
    assert events[-1].metadata["actor"] == "carla"  # the hand's end came with her automatic answer
    # the hand log says so, on the one line of her decision
    with translation.override("en"):
        lines = [str(t) for _, t in rendering.log_lines(service.load(table_id), "anna", events)]
    assert [t for t in lines if "automatic" in t] == ["carla: NASCONDO (automatic)"]
    # the same hand as a player's own NASCONDO: the same stacks
    other = helpers.open_three("U")
    assert [o.stack for o in play_with_bots(other).facts.seats] == [o.stack for o in loaded.facts.seats]


def test_always_show_shows_the_losing_hand(players: dict[str, Any]) -> None:
    set_preferences(players["carla"], showdown="show")
    table_id = helpers.open_three()
    play_with_bots(table_id)
    events = table_events(table_id)
    shown = [e for e in events if e.type == "HandShown"]
    assert [e.data["seat"] for e in shown] == [1, 2]
    assert "automatic" not in shown[0].metadata  # bruno shows first by rule (IT-SHOW-1)
    assert shown[1].metadata["automatic"] == "preference" and shown[1].metadata["actor"] == "carla"
    assert not any(e.type == "HandMucked" for e in events)
    # everyone sees carla's cards now, as after her own MOSTRO
    log = service.load(table_id)
    view = log.rules.view(log.state, 0)
    assert view is not None


def test_a_game_of_the_registry_without_a_blind_opening_answers_its_show_or_muck() -> None:
    """Hold'em (``NT``, through the registry): its showdown's Show / Muck is the same decision, answered by
    "always hide"; it has no blind opening, so the blind preference never triggers anything there."""
    from django.contrib.auth import get_user_model

    from tests.tables.test_holdem_table import PLAYERS, open_holdem
    from tests.tables.test_holdem_table import play_hand as play_holdem_hand

    for name in PLAYERS:
        user = get_user_model().objects.create_user(name)
        service.change_preferences(user.pk, name, {"showdown": "hide", "blind": "yes"})
    table_id = open_holdem()
    rng = random.Random(3)
    for number in range(1, 13):
        if not service.load(table_id).rules.can_start_hand(service.load(table_id).state):
            break
        play_holdem_hand(table_id, rng, number)
    events = table_events(table_id)
    automatic = [e for e in events if e.metadata.get("automatic")]
    assert automatic, "no showdown choice in twelve hands"
    assert {e.type for e in automatic if e.type in ("HandShown", "HandMucked", "BetPlaced")} == {"HandMucked"}
    assert all(e.metadata["actor"] in PLAYERS for e in automatic)


def test_blind_yes_places_the_buio_the_offer_asks(players: dict[str, Any]) -> None:
    set_preferences(players["anna"], blind="yes")
    table_id = helpers.open_three()
    loaded = helpers.start_hand(table_id)
    events = table_events(table_id)
    started = next(e for e in events if e.type == "HandStarted")
    (blind,) = [e for e in events if e.metadata.get("automatic") == "preference"][:1]
    assert blind.type == "BlindBetPlaced" and blind.data["seat"] == 0 and blind.metadata["actor"] == "anna"
    assert blind.tx_id == started.tx_id  # answered in the start's own transaction
    # exactly what BUIO offers at the same hand without the preference (IT-BUIO-1: the pot)
    twin = helpers.start_hand(helpers.open_three("U", players=("dora", "bruno", "carla")))
    (offer,) = [o for o in twin.rules.legal_actions(twin.state, 0) if o.label == "BUIO"]
    assert blind.data["to"] == offer.minimum > 0
    # now bruno is offered the controbuio, and he says "ask"
    assert loaded.facts.to_act == frozenset({1})
    kinds = {str(getattr(o.kind, "value", o.kind)) for o in loaded.rules.legal_actions(loaded.state, 1)}
    assert kinds == {"blind_bet", "decline_blind"}


def test_blind_no_declines_and_the_chain_goes_on(players: dict[str, Any]) -> None:
    """anna and bruno say no: both DAI CARTE are automatic, in the start's append; carla (ask) is offered."""
    set_preferences(players["anna"], blind="no")
    set_preferences(players["bruno"], blind="no")
    table_id = helpers.open_three()
    loaded = helpers.start_hand(table_id)
    declined = [e for e in table_events(table_id) if e.type == "BlindDeclined"]
    assert [(e.data["seat"], e.metadata["actor"], e.metadata["automatic"]) for e in declined[:1]] == [
        (0, "anna", "preference")
    ]
    # after a decline the blind opening is over for the hand (IT-BUIO-1: only the player left of the dealer
    # opens blind): the cards are dealt and nobody else is asked
    assert loaded.state.hand is not None and loaded.state.hand.phase.value != "blind"
    assert len(declined) == 1


def test_changing_a_preference_answers_a_pending_decision(players: dict[str, Any]) -> None:
    table_id = helpers.open_three()
    loaded = helpers.start_hand(table_id)
    assert loaded.facts.to_act == frozenset({0})
    set_preferences(players["anna"], blind="no")
    after = service.load(table_id)
    assert after.version > loaded.version
    last_declined = [e for e in table_events(table_id) if e.type == "BlindDeclined"][-1]
    assert last_declined.metadata == {**last_declined.metadata, "actor": "anna", "automatic": "preference"}


def test_a_sitting_out_player_is_left_to_the_timer(players: dict[str, Any]) -> None:
    """IT-SIT-1: a player who sits out is answered by the timer, not by their preferences."""
    set_preferences(players["anna"], blind="yes")
    table_id = helpers.open_three()
    service.act(table_id, "anna", "sit_out")
    helpers.start_hand(table_id)
    assert not any(e.metadata.get("automatic") for e in table_events(table_id))


# --- the API ------------------------------------------------------------------------------------------------


def test_api_reads_and_changes_the_callers_preferences(players: dict[str, Any], api_as: Any) -> None:
    client = api_as(players["anna"])
    assert client.get(API).json() == {
        "version": 0,
        "vele": None,
        "vele_always": False,
        "distribution": None,
        "distribution_always": False,
        "showdown": "ask",
        "blind": "ask",
    }
    response = client.post(API, {"showdown": "show", "vele": "piramide"}, format="json")
    assert response.status_code == 200
    assert response.json()["version"] == 1 and response.json()["vele"] == "piramide"
    response = client.post(API, {"vele": None, "expected_version": 1}, format="json")
    assert response.json()["vele"] is None and response.json()["version"] == 2
    assert api_as(players["bruno"]).get(API).json()["showdown"] == "ask"  # each player their own


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"showdown": "maybe"}, 400, "Richiesta non valida — showdown: 'maybe' non è tra i valori ammessi"),
        ({"blind": 1}, 400, "Richiesta non valida — blind: serve un testo."),
        ({"vele_always": "true"}, 400, "Richiesta non valida — vele_always: serve true o false."),
        ({"favourite": "x"}, 400, "Richiesta non valida — favourite: campo sconosciuto"),
        ({"vele_always": True}, 400, "vele_always: scegli prima una preferenza per vele."),
        ({"blind": "yes", "expected_version": 3}, 409, "Le preferenze sono cambiate: versione 0, non 3."),
    ],
)
def test_api_refusals_append_nothing(
    players: dict[str, Any], api_as: Any, body: dict[str, Any], status: int, detail: str
) -> None:
    response = api_as(players["anna"]).post(API, body, format="json")
    assert response.status_code == status
    assert response.json()["detail"].startswith(detail)
    assert not Event.objects.filter(stream_id__startswith="player-").exists()


def test_api_is_for_players_only(players: dict[str, Any], director: Any, api_as: Any) -> None:
    assert api_as(director).get(API).status_code == 403
    assert api_as(director).post(API, {"showdown": "hide"}, format="json").status_code == 403
    assert api_as(None).get(API).status_code == 403


def test_the_schema_documents_the_endpoint(api_as: Any, players: dict[str, Any]) -> None:
    schema = api_as(None).get("/api/schema/?format=json").json()
    operations = schema["paths"][API]
    assert set(operations) >= {"get", "post"}
    body = schema["components"]["schemas"]["PreferencesBody"]
    assert body["additionalProperties"] is False
    showdown = body["properties"]["showdown"]["allOf"][0]["$ref"].rsplit("/", 1)[1]
    assert schema["components"]["schemas"][showdown]["enum"] == ["ask", "hide", "show"]
    assert {"400", "403", "409"} <= set(operations["post"]["responses"])


# --- the panel ----------------------------------------------------------------------------------------------


def test_the_table_page_shows_the_panel_to_players(
    players: dict[str, Any], director: Any, web_as: Any
) -> None:
    table_id = helpers.open_three()
    set_preferences(players["anna"], showdown="hide", vele="croce")
    html = web_as(players["anna"]).get(reverse("table", args=[table_id])).content.decode()
    assert 'id="preferences"' in html
    assert '<option value="hide" selected>' in html and '<option value="croce" selected>' in html
    assert "giro pazzo" in html
    assert 'id="preferences"' not in web_as(director).get(reverse("table", args=[table_id])).content.decode()


def form(**values: Any) -> dict[str, Any]:
    return {"showdown": "ask", "blind": "ask", "vele": "", "distribution": "", "next": "/tables/1/", **values}


def test_the_form_saves_and_answers_with_the_panel(players: dict[str, Any], web_as: Any) -> None:
    client = web_as(players["anna"])
    response = client.post(
        reverse("preferences"),
        form(showdown="show", distribution="primo_giro", distribution_always="on"),
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert '<option value="show" selected>' in html and "Preferenze salvate." in html
    folded = preferences.of_user(players["anna"].pk)
    assert folded.preferences.distribution == "primo_giro" and folded.preferences.distribution_always
    # a plain form: a redirect back with a message
    response = client.post(reverse("preferences"), form(blind="yes"))
    assert response.status_code == 302 and response["Location"] == "/tables/1/"
    assert preferences.of_user(players["anna"].pk).preferences.blind == "yes"
    assert preferences.of_user(players["anna"].pk).preferences.distribution is None  # the form sets all


def test_form_refusals_append_nothing(players: dict[str, Any], web_as: Any) -> None:
    client = web_as(players["anna"])
    response = client.post(reverse("preferences"), form(vele_always="on"), HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    html = response.content.decode()
    assert "Scegli le vele preferite prima di «Usala sempre quando faccio le carte»." in html
    response = client.post(
        reverse("preferences"), form(showdown="sometimes"), HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 422
    assert "sometimes" in response.content.decode()
    response = client.post(reverse("preferences"), form(next="https://evil.example/"))
    assert response["Location"] == "/"
    assert not Event.objects.filter(stream_id__startswith="player-").exists()


def test_form_english_refusal(players: dict[str, Any], web_as: Any) -> None:
    client = web_as(players["anna"])
    client.cookies["django_language"] = "en"
    response = client.post(reverse("preferences"), form(distribution_always="on"), HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    html = response.content.decode()
    assert "Choose a preferred hidden-card dealing before “Always use it when I deal”." in html
