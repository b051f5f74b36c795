"""The director's forms: creating a sit-and-go or a multi-table tournament, and the dashboard's controls.

Every number has bounds (issue 15 §8) that keep what is derived from it inside PostgreSQL's columns and the
engine: an invito fits the ``integer`` columns ``Tournament.invito`` / ``Table.invito`` (≤ 2,147,483,647),
a level's end in epoch milliseconds fits ``bigint``, and every stack × the most entries (100,000: 10,000
players × 10 entries) stays far inside ``bigint``. Text that is parsed line by line or place by place is
capped in size. A refused value gets a message on its own field; nothing is created.
"""

from __future__ import annotations

import functools
import math
import typing
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.core import GameFamily, games
from engine.tournament import mtt as mtt_decider
from engine.tournament import payouts
from engine.tournament.mtt import PRESETS as MTT_PRESETS
from engine.tournament.mtt import Level as MttLevel
from engine.tournament.mtt import MttConfig
from engine.tournament.sitgo import Level, TournamentConfig, TournamentError

LIMIT_NAMES = {"NL": "No Limit", "PL": "Pot Limit", "FL": "Fixed Limit"}


def limit_choices() -> list[tuple[str, str]]:
    """The limits a tournament may be played at: those of the registered poker all'italiana games (``NIT``,
    ``PIT``, ``FIT``: tournaments are Italian until issue 17), as ``(value, label)``."""
    offered = {game.limit for game in games() if game.family is GameFamily.ITALIAN}
    return [(value, label) for value, label in LIMIT_NAMES.items() if value in offered]


@functools.cache
def _limit_type() -> Any:
    return typing.get_type_hints(MttConfig)["limit"]


def tournament_limit(value: str) -> Any:
    """The tournament engine's limit for ``value`` (``"NL"``, ``"PL"``, ``"FL"``): the type that its
    configurations declare for ``limit`` (:class:`engine.tournament.mtt.MttConfig`). Raises ``ValueError``
    for another value."""
    return _limit_type()(value)


MAX_STACK = 100_000_000  # chips: the preset's largest invito is 5 × the stack, inside integer
MAX_INVITO = 1_000_000_000  # Tournament.invito and Table.invito are PostgreSQL integer
MAX_BUY_IN = 1_000_000_000  # prize pool = entries (≤ 100,000) × buy-in
MAX_LEVEL_MINUTES = 1440  # a day
MIN_LEVEL_MS = 1000  # a level of less than a second is a typing error
MAX_LEVELS = 100  # custom level lines (breaks included)
MAX_LEVELS_TEXT = 5000  # characters of the custom levels
MAX_PAYOUT_PLACES = 100  # edited payout percentages (larger fields use the preset by field size)
MAX_PAYOUT_TEXT = 1000  # characters of the edited payouts
MAX_CLOCK_MINUTES = 1440  # a clock adjustment: at most a day either way
MAX_TABLES = 10_000  # table numbers of a multi-table tournament (10,000 players, 2 seats a table at worst)

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
        choices=limit_choices,
        initial="PL",
    )
    starting_stack = forms.IntegerField(
        label=_("Starting stack"), min_value=10, max_value=MAX_STACK, initial=1000
    )
    structure = forms.ChoiceField(
        label=_("Levels"), choices=[(k, k.title()) for k in PRESETS], initial="regular"
    )
    level_seconds = forms.IntegerField(
        label=_("Level length (seconds, 0 = preset)"),
        min_value=0,
        max_value=MAX_LEVEL_MINUTES * 60,
        initial=0,
        required=False,
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
            limit=tournament_limit(data["limit"]),
            starting_stack=data["starting_stack"],
            levels=levels,
            action_time_ms=data["action_seconds"] * 1000,
            time_bank_ms=data["time_bank_seconds"] * 1000,
            auto_start=data["auto_start"],
        )


# --- multi-table tournaments ---------------------------------------------------------------------------


def _custom_levels(text: str) -> tuple[MttLevel, ...]:
    """``invito minutes`` per line, or ``pausa minutes`` / ``break minutes`` for a break (T-LEVEL-1).
    Raises ``forms.ValidationError`` naming the bad line."""
    levels = []
    for number, line in enumerate(text.strip().splitlines(), start=1):
        parts = line.replace(",", " ").replace(";", " ").split()
        if not parts:
            continue
        try:
            if len(parts) != 2:
                raise ValueError
            minutes = float(parts[1])
            invito = 0 if parts[0].lower() in ("pausa", "break") else int(parts[0])
        except ValueError as error:
            raise forms.ValidationError(
                _("Line %(number)s: write “invito minutes” or “pausa minutes”, e.g. “50 15”."),
                params={"number": number},
            ) from error
        if not (math.isfinite(minutes) and MIN_LEVEL_MS <= minutes * 60_000 <= MAX_LEVEL_MINUTES * 60_000):
            raise forms.ValidationError(
                _("Line %(number)s: a level lasts from 1 second to %(max)s minutes."),
                params={"number": number, "max": MAX_LEVEL_MINUTES},
            )
        if parts[0].lower() not in ("pausa", "break") and not 1 <= invito <= MAX_INVITO:
            raise forms.ValidationError(
                _("Line %(number)s: the invito goes from 1 to %(max)s."),
                params={"number": number, "max": MAX_INVITO},
            )
        levels.append(MttLevel(invito, round(minutes * 60_000), is_break=invito == 0))
        if len(levels) > MAX_LEVELS:
            raise forms.ValidationError(_("At most %(max)s levels."), params={"max": MAX_LEVELS})
    if not levels:
        raise forms.ValidationError(_("Write at least one level."))
    return tuple(levels)


class MttForm(forms.Form):
    """A multi-table tournament of Poker all'italiana (issue 5 §1): the structure from a preset (regular,
    turbo, hyper: :func:`engine.tournament.mtt.structure_preset`) or custom lines; late registration,
    re-entry, table clocks, giro pazzo, payouts (preset by field size with the percentage of the field paid,
    or edited percentages, T-PAY-1) and bots to register."""

    name = forms.CharField(label=_("Name"), max_length=80, initial="Torneo")
    seats = forms.IntegerField(label=_("Seats per table"), min_value=2, max_value=6, initial=6)
    limit = forms.ChoiceField(
        label=_("Limit"),
        choices=limit_choices,
        initial="PL",
    )
    starting_stack = forms.IntegerField(
        label=_("Starting stack"), min_value=10, max_value=MAX_STACK, initial=10_000
    )
    buy_in = forms.IntegerField(label=_("Buy-in"), min_value=0, max_value=MAX_BUY_IN, initial=100)
    structure = forms.ChoiceField(
        label=_("Levels"),
        choices=[(name, name.title()) for name in MTT_PRESETS] + [("custom", _("Custom"))],
        initial="regular",
    )
    custom_levels = forms.CharField(
        label=_("Custom levels (one per line: invito minutes, or pausa minutes)"),
        widget=forms.Textarea(attrs={"rows": 5, "placeholder": "50 15\n100 15\npausa 10\n150 15"}),
        max_length=MAX_LEVELS_TEXT,
        required=False,
    )
    level_minutes = forms.FloatField(  # Django's FloatField refuses inf and nan ("1e400" is inf)
        label=_("Level length in minutes (0 = the preset's)"),
        min_value=0,
        max_value=MAX_LEVEL_MINUTES,
        initial=0,
        required=False,
    )
    late_registration_levels = forms.IntegerField(
        label=_("Late registration until the end of level (0 = none)"),
        min_value=0,
        max_value=MAX_LEVELS,
        initial=0,
    )
    max_entries = forms.IntegerField(
        label=_("Entries per player (more than 1 = re-entry)"), min_value=1, max_value=10, initial=1
    )
    action_seconds = forms.IntegerField(
        label=_("Action time (seconds)"), min_value=5, max_value=300, initial=30
    )
    time_bank_seconds = forms.IntegerField(
        label=_("Time bank (seconds)"), min_value=0, max_value=600, initial=60
    )
    giro_pazzo = forms.BooleanField(label=_("Giro pazzo"), required=False)
    hand_for_hand = forms.BooleanField(label=_("Hand for hand near the money"), required=False, initial=True)
    percent_paid = forms.IntegerField(
        label=_("Percentage of the field paid"), min_value=1, max_value=50, initial=15
    )
    payout_percentages = forms.CharField(
        label=_("Payouts in % by place (empty = preset by field size)"),
        required=False,
        max_length=MAX_PAYOUT_TEXT,
        widget=forms.TextInput(attrs={"placeholder": "50, 30, 20"}),
    )
    bots = forms.IntegerField(label=_("Bots to register"), min_value=0, max_value=1000, initial=0)

    def clean_custom_levels(self) -> str:
        return str(self.cleaned_data.get("custom_levels") or "")

    def clean_level_minutes(self) -> float | None:
        minutes = self.cleaned_data.get("level_minutes")
        if minutes and minutes * 60_000 < MIN_LEVEL_MS:
            raise forms.ValidationError(_("A level lasts at least 1 second."))
        return minutes

    def clean_payout_percentages(self) -> tuple[str, ...]:
        text = str(self.cleaned_data.get("payout_percentages") or "")
        parts = tuple(part.strip().rstrip("%") for part in text.replace(";", ",").split(",") if part.strip())
        if len(parts) > MAX_PAYOUT_PLACES:
            raise forms.ValidationError(
                _("At most %(max)s paid places (leave it empty for the preset by field size)."),
                params={"max": MAX_PAYOUT_PLACES},
            )
        if parts:
            try:
                payouts.validate_structure(parts)
            except payouts.PayoutError as error:
                raise forms.ValidationError(str(error)) from error
        return parts

    def _levels(self) -> tuple[MttLevel, ...]:
        data = self.cleaned_data
        if data["structure"] == "custom":
            return _custom_levels(data.get("custom_levels", ""))
        levels = mtt_decider.structure_preset(data["structure"], data["starting_stack"])
        minutes = data.get("level_minutes") or 0
        if minutes:
            levels = tuple(
                level if level.is_break else MttLevel(level.invito, int(minutes * 60_000)) for level in levels
            )
        return levels

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            self._config = self._build()
            mtt_decider.decide(mtt_decider.MttState(), mtt_decider.CreateTournament(self._config))
        except forms.ValidationError as error:
            self.add_error("custom_levels", error)
        except TournamentError as error:
            self.add_error(None, str(error))
        return data

    def _build(self) -> MttConfig:
        data = self.cleaned_data
        return MttConfig(
            name=data["name"],
            seats=data["seats"],
            limit=tournament_limit(data["limit"]),
            starting_stack=data["starting_stack"],
            levels=self._levels(),
            late_registration_levels=data["late_registration_levels"],
            max_entries=data["max_entries"],
            buy_in=data["buy_in"],
            payout_percentages=data["payout_percentages"],
            percent_paid=data["percent_paid"],
            action_time_ms=data["action_seconds"] * 1000,
            time_bank_ms=data["time_bank_seconds"] * 1000,
            giro_pazzo=data["giro_pazzo"],
            hand_for_hand=data["hand_for_hand"],
        )

    def config(self) -> MttConfig:
        """The validated configuration (after ``is_valid()``)."""
        return self._config


class ControlForm(forms.Form):
    """The numbers of the dashboard's control forms (``tournaments/mtt_director.html``), as typed: the clock
    adjustment in minutes (±), the target table by its number and seat from 1, chips. What they become —
    ``delta_ms``, ``table_id``, a 0-based seat — is then checked by the API's ``ControlSerializer`` with
    the rest (action, player, reason). Empty fields are left out."""

    minutes = forms.FloatField(
        label=_("Minutes"), min_value=-MAX_CLOCK_MINUTES, max_value=MAX_CLOCK_MINUTES, required=False
    )
    table = forms.IntegerField(label=_("Table"), min_value=1, max_value=MAX_TABLES, required=False)
    seat = forms.IntegerField(label=_("Seat"), min_value=1, max_value=9, required=False)
    delta = forms.IntegerField(label=_("Chips"), min_value=-MAX_STACK, max_value=MAX_STACK, required=False)
    chips = forms.IntegerField(label=_("Chips"), min_value=1, max_value=MAX_STACK, required=False)

    def error_text(self) -> str:
        """One line per refused field: ``Label: message``."""
        return " ".join(
            f"{self.fields[name].label}: {' '.join(messages)}" for name, messages in self.errors.items()
        )
