"""Events are never rewritten (issue 17): a ``TournamentCreated`` written before tournaments had a game
(schema 1: no ``game``, levels of inviti) is read by an upcaster as poker all'italiana at its limit, each
level with ``ForcedBets(invito=…)``; new ones are appended at schema 2 and read as written."""

from __future__ import annotations

import pytest

from engine.codec import from_data
from engine.core import ForcedBets
from engine.tournament import mtt as decider
from engine.tournament import sitgo
from eventstore import store
from eventstore.store import NewEvent
from tournaments import mtt, service
from tournaments.upcasters import tournament_created_v1

MTT_V1 = {
    "config": {
        "name": "Vecchio", "seats": 6, "limit": "NL", "starting_stack": 1000,
        "levels": [
            {"invito": 10, "duration_ms": 600000, "is_break": False},
            {"invito": 10, "duration_ms": 300000, "is_break": True},
            {"invito": 20, "duration_ms": 600000, "is_break": False},
        ],
        "late_registration_levels": 0, "max_entries": 1, "buy_in": 100, "payout_percentages": [],
        "percent_paid": 15, "action_time_ms": 30000, "time_bank_ms": 60000, "giro_pazzo": False,
        "hand_for_hand": True, "max_difference": 1, "max_players": 10000, "min_players": 2,
    },
    "at": 5,
}  # fmt: skip
SITGO_V1 = {
    "config": {
        "name": "SNG", "seats": 3, "limit": "FL", "starting_stack": 1000,
        "levels": [{"invito": 10, "duration_ms": 60000}, {"invito": 20, "duration_ms": 60000}],
        "action_time_ms": 30000, "time_bank_ms": 60000, "auto_start": True,
    },
    "at": 5,
}  # fmt: skip


def test_an_old_multi_table_configuration_reads_as_italian_at_its_limit_with_inviti() -> None:
    config = from_data(decider.MttConfig, tournament_created_v1(MTT_V1)["config"])
    assert config.game == "NIT" and decider.config_game(config) == "NIT"
    assert [level.forced for level in config.levels] == [ForcedBets(invito=10), None, ForcedBets(invito=20)]
    assert decider.decide(decider.MttState(), decider.CreateTournament(config))  # still a valid tournament


def test_an_old_sit_and_go_configuration_reads_the_same_way() -> None:
    config = from_data(sitgo.TournamentConfig, tournament_created_v1(SITGO_V1)["config"])
    assert config.game == "FIT" and [level.forced_bets for level in config.levels] == [
        ForcedBets(invito=10), ForcedBets(invito=20)
    ]  # fmt: skip


@pytest.mark.django_db
def test_the_store_upcasts_schema_1_and_reads_schema_2_as_written() -> None:
    store.append("mtt-991", 0, [NewEvent("TournamentCreated", MTT_V1)], {"at": 5})
    (old,) = store.read_stream("mtt-991")
    assert old.schema_version == 2 and old.data["config"]["game"] == "NIT"
    assert old.data["config"]["levels"][0]["forced"] == {"invito": 10}
    store.append("tournament-992", 0, [NewEvent("TournamentCreated", SITGO_V1)], {"at": 5})
    _, state = service.load(992)
    assert state.config is not None and decider.config_game(state.config) == "FIT"
    config = decider.MttConfig("Nuovo", game="NT", levels=decider.structure_preset("hyper", 1000, "NT"))
    tournament_id = mtt.create(config, "capo")
    (new,) = store.read_stream(mtt.stream_id(tournament_id))
    assert new.schema_version == 2 and new.data["config"]["game"] == "NT"
    assert mtt.load(tournament_id)[1].config == config
