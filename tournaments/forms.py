"""The director's form to create a sit-and-go."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.italian.model import Limit
from engine.tournament.sitgo import Level, TournamentConfig

# level structures: (invito, minutes) — the invito roughly +50% a level (T-LEVEL-1)
PRESETS = {
    "regular": [
        (10, 10),
        (15, 10),
        (20, 10),
        (30, 10),
        (40, 10),
        (60, 10),
        (80, 10),
        (100, 10),
        (150, 10),
        (200, 10),
    ],
    "turbo": [(10, 5), (20, 5), (30, 5), (50, 5), (75, 5), (100, 5), (150, 5), (200, 5), (300, 5)],
    "hyper": [(20, 2), (40, 2), (60, 2), (100, 2), (150, 2), (250, 2), (400, 2), (600, 2)],
}


class SitAndGoForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80, initial="Sit & Go")
    seats = forms.IntegerField(label=_("Seats"), min_value=2, max_value=9, initial=6)
    limit = forms.ChoiceField(
        label=_("Limit"),
        choices=[(limit.value, limit.name.replace("_", " ").title()) for limit in Limit],
        initial=Limit.POT_LIMIT.value,
    )
    starting_stack = forms.IntegerField(label=_("Starting stack"), min_value=10, initial=1000)
    structure = forms.ChoiceField(
        label=_("Levels"), choices=[(k, k.title()) for k in PRESETS], initial="regular"
    )
    level_seconds = forms.IntegerField(
        label=_("Level length (seconds, 0 = preset)"), min_value=0, initial=0, required=False
    )
    action_seconds = forms.IntegerField(
        label=_("Action time (seconds)"), min_value=5, max_value=300, initial=30
    )
    time_bank_seconds = forms.IntegerField(
        label=_("Time bank (seconds)"), min_value=0, max_value=600, initial=60
    )
    bots = forms.IntegerField(label=_("Bots to register"), min_value=0, max_value=8, initial=0)
    auto_start = forms.BooleanField(label=_("Start when full"), required=False, initial=True)

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if "seats" in data and "bots" in data and data["bots"] > data["seats"]:
            self.add_error("bots", _("More bots than seats."))
        return data

    def config(self) -> TournamentConfig:
        data = self.cleaned_data
        seconds = data.get("level_seconds") or 0
        levels = tuple(
            Level(invito, (seconds or minutes * 60) * 1000) for invito, minutes in PRESETS[data["structure"]]
        )
        return TournamentConfig(
            name=data["name"],
            seats=data["seats"],
            limit=Limit(data["limit"]),
            starting_stack=data["starting_stack"],
            levels=levels,
            action_time_ms=data["action_seconds"] * 1000,
            time_bank_ms=data["time_bank_seconds"] * 1000,
            auto_start=data["auto_start"],
        )
