"""The director's forms: creating a sit-and-go or a multi-table tournament, and the dashboard's controls.

Issue 17: a tournament is played in any registered game (its variant code, ``game``: ``NT``, ``F7S``,
``PIT``…; without one, poker all'italiana at ``limit`` as before), at tables of 2 to the game's most seats
(presets 9-max, 6-max, heads-up), with levels carrying the game's forced bets (presets per game, or custom
lines: :func:`engine.tournament.structure.parse_level`), and optionally a rotation of games by level (mixed
games, H.O.R.S.E.-style). A game the registry does not know, forced bets that do not fit the game, a level
line that does not parse or more seats than the game allows get a message on their own field.

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
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from engine.core import ForcedBets, ForcedBetsRefused, GameFamily, UnknownGame, find_game, games, is_betting
from engine.tournament import matches as matches_decider
from engine.tournament import mtt as mtt_decider
from engine.tournament import payouts, structure
from engine.tournament.mtt import PRESETS as MTT_PRESETS
from engine.tournament.mtt import Level as MttLevel
from engine.tournament.mtt import MttConfig, TournamentConfigRefused, TournamentError
from tables.rendering import DISTRIBUTION_NAMES, LAYOUT_NAMES
from tournaments.messages import refusal

LIMIT_NAMES = {"NL": "No Limit", "PL": "Pot Limit", "FL": "Fixed Limit"}


def limit_choices() -> list[tuple[str, str]]:
    """The limits a tournament may be played at: those of the registered poker all'italiana games (``NIT``,
    ``PIT``, ``FIT``: tournaments are Italian until issue 17), as ``(value, label)``."""
    offered = {game.limit for game in games() if game.family is GameFamily.ITALIAN}
    return [(value, label) for value, label in LIMIT_NAMES.items() if value in offered]


def game_choices() -> list[tuple[str, str]]:
    """Every registered betting game as ``(variant code, "name (code)")`` (chip tournaments: poker cinese's
    tournaments of matches are not played here, issue 20), and ``""``: poker all'italiana at the limit chosen
    below (the form before issue 17)."""
    return [("", _("Poker all'italiana at the limit below"))] + [
        (game.code, f"{game.name} ({game.code})") for game in games() if is_betting(game)
    ]


OPTION_NAMES: dict[str, Any] = {"layout": LAYOUT_NAMES, "distribution": DISTRIBUTION_NAMES}
"""Option name -> {value: the page's name} (the table page's names, :mod:`tables.rendering`)."""


def option_games(name: str) -> list[str]:
    """The variant codes of the registered games whose tables take the option ``name`` (issue 19:
    Telesina's ``layout`` and ``distribution``, ``Game.table_options``)."""
    return [game.code for game in games() if is_betting(game) and name in game.table_options]


def option_choices(name: str) -> list[tuple[str, str]]:
    """The values of the game table option ``name`` (the registry's, ``Game.table_options``) as
    ``(value, the page's name)``, in the games' order, each once."""
    values: dict[str, None] = {}
    for game in games():
        for value in game.table_options.get(name, ()):
            values.setdefault(value)
    names = OPTION_NAMES.get(name, {})
    return [(value, str(names.get(value, value))) for value in values]


def _takes(data: dict[str, Any], name: str, levels: tuple[MttLevel, ...] = ()) -> bool:
    """Whether any game of the tournament the form describes (its game, the rotation, a level's own game)
    takes the table option ``name``."""
    codes = {chosen_game(data), *data.get("rotation", ()), *(level.game for level in levels if level.game)}
    for code in codes:
        try:
            if name in find_game(code).table_options:
                return True
        except UnknownGame:
            continue
    return False


class TableOptionFields:
    """The game table options of a tournament (issue 19): Telesina's vele ``layout`` (TL-VELE-1) and
    *distribuzione carta coperta* (TL-DEAL-2), shown for the games that take them (``data-games``: the page
    hides them for the others) and kept only for those: a tournament of another game stores ``""``."""

    @staticmethod
    def fields() -> dict[str, forms.Field]:
        layout_games = " ".join(option_games("layout"))
        distribution_games = " ".join(option_games("distribution"))
        return {
            "layout": forms.ChoiceField(
                label=_("Vele layout (Telesina)"),
                choices=functools.partial(option_choices, "layout"),
                initial="croce",
                required=False,
                widget=forms.Select(attrs={"data-games": layout_games}),
                help_text=_(
                    "Telesina only: the vele's layout (rule TL-VELE-1); libera: each dealer chooses."
                ),
            ),
            "distribution": forms.ChoiceField(
                label=_("Carta coperta (Telesina)"),
                choices=functools.partial(option_choices, "distribution"),
                initial="mai",
                required=False,
                widget=forms.Select(attrs={"data-games": distribution_games}),
                help_text=_(
                    "Telesina only: which cards come face down (rule TL-DEAL-2); libera: each dealer chooses."
                ),
            ),
        }

    @staticmethod
    def values(
        data: dict[str, Any], levels: tuple[MttLevel, ...] = (), strict: bool = False
    ) -> dict[str, str]:
        """``{"layout": …, "distribution": …}`` for the configuration: the chosen values where a game of the
        tournament takes the option, else ``""`` (the page always sends its hidden selects); ``strict``
        (the API): the values as given, so that the decider refuses one the games do not take."""
        return {
            name: str(data.get(name) or "") if strict or _takes(data, name, levels) else ""
            for name in mtt_decider.TABLE_OPTIONS
        }


def option_error(form: forms.Form, error: TournamentConfigRefused) -> bool:
    """Put a refused table option (issue 19, e.g. TL-CAP-1's arithmetic for a layout that does not fit the
    table) on its own field, in the page's language; ``False`` for another field."""
    if error.field not in mtt_decider.TABLE_OPTIONS or error.field not in form.fields:
        return False
    form.add_error(error.field, refusal(error))
    return True


TABLE_SIZES = [("", _("Seats as below")), ("9", _("9-max")), ("6", _("6-max")), ("2", _("Heads-up"))]
"""The table-size presets (T-SEAT-1): 9-max, 6-max and heads-up; ``""``: the seats typed."""


def chosen_game(data: dict[str, Any]) -> str:
    """The variant code the form's ``game`` and ``limit`` give (``game``, else poker all'italiana at
    ``limit``)."""
    return str(data.get("game") or structure.legacy_game(str(data.get("limit") or "PL")))


def rotation_codes(text: str) -> tuple[str, ...]:
    """The codes of a mixed-game rotation (``"NIT PIT FIT"``, commas allowed). Raises
    ``forms.ValidationError`` naming an unknown code."""
    codes = tuple(code.upper() for code in text.replace(",", " ").split())
    for code in codes:
        try:
            find_game(code)
        except UnknownGame as error:
            raise forms.ValidationError(str(error)) from error
    return codes


def _seats_of(form: forms.Form, data: dict[str, Any]) -> None:
    """The table-size preset over the typed seats, and the seats checked against the game (and every game
    of the rotation): at most the game's seats (:func:`engine.tournament.structure.table_max_seats`)."""
    if data.get("table_size"):
        data["seats"] = int(data["table_size"])
    if "seats" not in data:
        return
    codes = [chosen_game(data), *data.get("rotation", ())]
    for code in codes:
        try:
            game = find_game(code)
        except UnknownGame as error:
            form.add_error("game", str(error))
            return
        most = structure.table_max_seats(game) if isinstance(form, MttForm) else min(9, game.max_seats)
        if data["seats"] > most:
            form.add_error(
                "seats",
                _("At most %(max)s seats per table in %(game)s.") % {"max": most, "game": game.short_name},
            )
            return


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
PRESETS_MINUTES = (("regular", 10), ("turbo", 5), ("hyper", 2))
"""The level length (minutes) of each sit-and-go preset."""


class GroupedForm(forms.Form):
    """A creation form drawn in labelled field groups (issue 18): ``GROUPS`` ``(legend, field names)``;
    fields in no group go in a last "More" group."""

    GROUPS: tuple[tuple[Any, tuple[str, ...]], ...] = ()

    def fieldsets(self) -> list[tuple[str, list[forms.BoundField]]]:
        """``[(legend, bound fields)]`` in the order of :attr:`GROUPS`, empty groups left out."""
        placed = {name for _, names in self.GROUPS for name in names}
        groups = [
            (str(legend), [self[n] for n in names if n in self.fields]) for legend, names in self.GROUPS
        ]
        rest = [self[name] for name in self.fields if name not in placed]
        if rest:
            groups.append((str(_("More")), rest))
        return [(legend, fields) for legend, fields in groups if fields]


class SitAndGoForm(GroupedForm):
    GROUPS = (
        (_("Game and table"), ("name", "game", "limit", "seats", "table_size", "layout", "distribution")),
        (_("Chips and levels"), ("starting_stack", "structure", "level_minutes")),
        (_("Time to act"), ("action_seconds", "time_bank_seconds")),
        (_("Players and start"), ("bots", "auto_start")),
    )

    name = forms.CharField(label=_("Name"), max_length=80, initial="Sit & Go")
    game = forms.ChoiceField(label=_("Game"), choices=game_choices, required=False, initial="")
    seats = forms.IntegerField(label=_("Seats"), min_value=2, max_value=9, initial=6)
    table_size = forms.ChoiceField(label=_("Table size"), choices=TABLE_SIZES, required=False)
    limit = forms.ChoiceField(
        label=_("Limit"),
        choices=limit_choices,
        initial="PL",
        required=False,
    )
    starting_stack = forms.IntegerField(
        label=_("Starting stack"), min_value=10, max_value=MAX_STACK, initial=1000
    )
    structure = forms.ChoiceField(
        label=_("Levels"), choices=[(k, k.title()) for k in PRESETS], initial="regular"
    )
    level_minutes = forms.FloatField(  # minutes, as the multi-table form's (issue 18: one unit)
        label=_("Level length in minutes (0 = the preset's)"),
        min_value=0,
        max_value=MAX_LEVEL_MINUTES,
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields.update(TableOptionFields.fields())

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        _seats_of(self, data)
        if "seats" in data and "bots" in data and data["bots"] > data["seats"]:
            self.add_error("bots", _("More bots than seats."))
        if self.errors:
            return data
        try:
            self._config = self._build()
            mtt_decider.decide(mtt_decider.MttState(), mtt_decider.CreateTournament(self._config))
        except TournamentConfigRefused as error:
            # in the page's language (issue 18)
            if not option_error(self, error):
                self.add_error(error.field if error.field in self.fields else None, refusal(error))
        except TournamentError as error:
            self.add_error(None, refusal(error))
        return data

    def clean_level_minutes(self) -> float | None:
        minutes = self.cleaned_data.get("level_minutes")
        if minutes and minutes * 60_000 < MIN_LEVEL_MS:
            raise forms.ValidationError(_("A level lasts at least 1 second."))
        return minutes

    def _build(self) -> MttConfig:
        """The sit-and-go as a one-table multi-table tournament that starts when full (issue 17:
        :func:`engine.tournament.mtt.sit_and_go_config`; no buy-in, as before)."""
        data = self.cleaned_data
        length_ms = round((data.get("level_minutes") or 0) * 60_000)
        code = chosen_game(data)
        game = find_game(code)
        if game.family is GameFamily.ITALIAN:
            levels = tuple(
                MttLevel(invito, length_ms or minutes * 60_000)
                for invito, minutes in PRESETS[data["structure"]]
            )
        else:  # the multi-table preset's playing levels on the sit-and-go's clock
            minutes_of = {name: dict(PRESETS_MINUTES)[name] for name in PRESETS}
            levels = tuple(
                MttLevel(
                    level.invito, length_ms or minutes_of[data["structure"]] * 60_000, False, level.forced
                )
                for level in mtt_decider.structure_preset(data["structure"], data["starting_stack"], code)
                if not level.is_break
            )
        return mtt_decider.sit_and_go_config(
            MttConfig(
                name=data["name"],
                seats=data["seats"],
                limit=tournament_limit(game.limit),
                starting_stack=data["starting_stack"],
                levels=levels,
                buy_in=0,
                action_time_ms=data["action_seconds"] * 1000,
                time_bank_ms=data["time_bank_seconds"] * 1000,
                auto_start=data["auto_start"],
                game=code if data.get("game") else "",
                **TableOptionFields.values(data),
            )
        )

    def config(self) -> MttConfig:
        """The validated configuration (after ``is_valid()``)."""
        return self._config


# --- multi-table tournaments ---------------------------------------------------------------------------


def _custom_levels(text: str, game: str = "PIT") -> tuple[MttLevel, ...]:
    """One level per line (T-LEVEL-1), minutes last: ``invito minutes`` (poker all'italiana, as before
    issue 17), the game's forced bets (``100/200 bba 200 15``, ``ante 20 bring-in 30 bets 100/200 15``,
    ``@PIT 50 15`` for a level of another game: :func:`engine.tournament.structure.parse_level`), or
    ``pausa minutes`` / ``break minutes`` for a break. ``game``: the tournament's variant code. Each
    level's forced bets are checked by its game. Raises ``forms.ValidationError`` naming the bad line."""
    levels = []
    for number, line in enumerate(text.strip().splitlines(), start=1):
        parts = line.replace(",", " ").replace(";", " ").split()
        if not parts:
            continue
        usage = forms.ValidationError(
            _("Line %(number)s: write “invito minutes” or “pausa minutes”, e.g. “50 15”."),
            params={"number": number},
        )
        try:
            minutes = float(parts[-1])
        except ValueError as error:
            raise usage from error
        if len(parts) < 2:
            raise usage
        if not (math.isfinite(minutes) and MIN_LEVEL_MS <= minutes * 60_000 <= MAX_LEVEL_MINUTES * 60_000):
            raise forms.ValidationError(
                _("Line %(number)s: a level lasts from 1 second to %(max)s minutes."),
                params={"number": number, "max": MAX_LEVEL_MINUTES},
            )
        legacy = len(parts) == 2 and parts[0].isdigit()
        try:
            parsed = structure.parse_level(line, game)
        except (structure.LevelLineError, UnknownGame) as error:
            if len(parts) == 2 and "/" not in parts[0]:
                raise usage from error
            raise forms.ValidationError(
                _("Line %(number)s: %(problem)s"), params={"number": number, "problem": str(error)}
            ) from error
        assert parsed is not None
        duration = round(minutes * 60_000)
        if parsed.is_break or parsed.forced is None:
            levels.append(MttLevel(0, duration, is_break=True))
        else:
            levels.append(_level(number, parsed.forced, duration, parsed.game, game, legacy))
        if len(levels) > MAX_LEVELS:
            raise forms.ValidationError(_("At most %(max)s levels."), params={"max": MAX_LEVELS})
    if not levels:
        raise forms.ValidationError(_("Write at least one level."))
    return tuple(levels)


def _level(number: int, forced: ForcedBets, duration: int, own: str, game: str, legacy: bool) -> MttLevel:
    """A custom level: every amount within :data:`MAX_INVITO`, the forced bets checked by the level's
    game. Raises ``forms.ValidationError`` naming line ``number``."""
    amount = structure.headline(forced)
    if not 1 <= amount <= MAX_INVITO or any(value > MAX_INVITO for value in forced.to_dict().values()):
        raise forms.ValidationError(
            _("Line %(number)s: the invito goes from 1 to %(max)s."),
            params={"number": number, "max": MAX_INVITO},
        )
    code = own or game
    try:
        find_game(code).check_forced_bets(forced)
    except (ForcedBetsRefused, UnknownGame) as error:
        raise forms.ValidationError(
            _("Line %(number)s: %(problem)s"), params={"number": number, "problem": str(error)}
        ) from error
    italian = find_game(code).family is GameFamily.ITALIAN
    if legacy and italian and not own:
        return MttLevel(amount, duration)  # “invito minutes”, as before issue 17
    return MttLevel(amount, duration, forced=forced, game=own)


class MttForm(GroupedForm):
    """A multi-table tournament of any registered game (issue 5 §1, issue 17): the game, the table size, the
    structure from a preset (regular, turbo, hyper: :func:`engine.tournament.mtt.structure_preset` with the
    game's forced bets) or custom lines, a rotation of games by level (mixed games); late registration,
    re-entry, table clocks, giro pazzo, payouts (preset by field size with the percentage of the field paid,
    or edited percentages, T-PAY-1) and bots to register."""

    GROUPS = (
        (
            _("Game and table"),
            ("name", "game", "limit", "seats", "table_size", "layout", "distribution", "giro_pazzo"),
        ),
        (
            _("Chips and levels"),
            ("starting_stack", "structure", "level_minutes", "custom_levels", "rotation"),
        ),
        (_("Entries"), ("starts_at", "buy_in", "late_registration_levels", "max_entries", "bots")),
        (_("Payouts"), ("percent_paid", "payout_percentages", "hand_for_hand")),
        (_("Time to act"), ("action_seconds", "time_bank_seconds")),
    )

    name = forms.CharField(label=_("Name"), max_length=80, initial="Torneo")
    game = forms.ChoiceField(label=_("Game"), choices=game_choices, required=False, initial="")
    seats = forms.IntegerField(label=_("Seats per table"), min_value=2, max_value=10, initial=6)
    table_size = forms.ChoiceField(label=_("Table size"), choices=TABLE_SIZES, required=False)
    limit = forms.ChoiceField(
        label=_("Limit"),
        choices=limit_choices,
        initial="PL",
        required=False,
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
        label=_(
            "Custom levels (one per line, minutes last: invito minutes; 100/200 bba 200 15; "
            "ante 20 bring-in 30 bets 100/200 15; @CODE for a level of another game; pausa minutes)"
        ),
        widget=forms.Textarea(attrs={"rows": 5, "placeholder": "50 15\n100 15\npausa 10\n150 15"}),
        max_length=MAX_LEVELS_TEXT,
        required=False,
    )
    rotation = forms.CharField(
        label=_("Mixed games: rotate by level through these codes (e.g. NIT PIT FIT; empty = one game)"),
        max_length=200,
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
    # issue 18: a scheduled start, a local date and time in the server's time zone (settings.TIME_ZONE,
    # Europe/Rome) or, over the API, an ISO 8601 time with its offset; empty: the director starts it
    starts_at = forms.DateTimeField(
        label=_("Scheduled start"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Optional: the tournament starts by itself at this time (server time zone)."),
    )

    def __init__(
        self,
        *args: Any,
        levels: tuple[MttLevel, ...] | None = None,
        strict_options: bool = False,
        **kwargs: Any,
    ) -> None:
        """``levels``: a structure already built (the API's list of levels) instead of the preset or the
        custom lines. ``strict_options`` (the API): a table option given for a game that does not take it
        is refused instead of dropped (:meth:`TableOptionFields.values`)."""
        super().__init__(*args, **kwargs)
        self.fields.update(TableOptionFields.fields())
        self._given_levels = levels
        self._strict_options = strict_options

    def clean_custom_levels(self) -> str:
        return str(self.cleaned_data.get("custom_levels") or "")

    def clean_rotation(self) -> tuple[str, ...]:
        return rotation_codes(str(self.cleaned_data.get("rotation") or ""))

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
        code = chosen_game(data)
        if self._given_levels is not None:
            return self._given_levels
        if data["structure"] == "custom":
            return _custom_levels(data.get("custom_levels", ""), code)
        rotation: tuple[str, ...] = data.get("rotation") or ()
        if rotation:
            levels = _rotation_preset(data["structure"], data["starting_stack"], rotation)
        elif data.get("game"):
            levels = mtt_decider.structure_preset(data["structure"], data["starting_stack"], code)
        else:  # poker all'italiana at a limit, as before issue 17
            levels = mtt_decider.structure_preset(data["structure"], data["starting_stack"])
        minutes = data.get("level_minutes") or 0
        if minutes:
            levels = tuple(
                level
                if level.is_break
                else MttLevel(level.invito, int(minutes * 60_000), forced=level.forced, game=level.game)
                for level in levels
            )
        return levels

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        _seats_of(self, data)
        if self.errors:
            return data
        try:
            self._config = self._build()
            now = int(timezone.now().timestamp() * 1000)
            mtt_decider.decide(mtt_decider.MttState(), mtt_decider.CreateTournament(self._config, now))
        except forms.ValidationError as error:
            self.add_error("custom_levels", error)
        except TournamentConfigRefused as error:
            if option_error(self, error):
                return data
            field = "starts_at" if error.field == "starts_at_ms" else error.field
            if field == "levels":
                field = "custom_levels" if data.get("structure") == "custom" else "structure"
            self.add_error(field if field in self.fields else None, str(error))
        except TournamentError as error:
            self.add_error(None, str(error))
        return data

    def _build(self) -> MttConfig:
        data = self.cleaned_data
        code = chosen_game(data)
        levels = self._levels()
        return MttConfig(
            name=data["name"],
            game=code,
            seats=data["seats"],
            limit=tournament_limit(find_game(code).limit),
            starting_stack=data["starting_stack"],
            levels=levels,
            late_registration_levels=data["late_registration_levels"],
            max_entries=data["max_entries"],
            buy_in=data["buy_in"],
            payout_percentages=data["payout_percentages"],
            percent_paid=data["percent_paid"],
            action_time_ms=data["action_seconds"] * 1000,
            time_bank_ms=data["time_bank_seconds"] * 1000,
            giro_pazzo=data["giro_pazzo"],
            hand_for_hand=data["hand_for_hand"],
            starts_at_ms=int(data["starts_at"].timestamp() * 1000) if data.get("starts_at") else 0,
            **TableOptionFields.values(data, levels, self._strict_options),
        )

    def config(self) -> MttConfig:
        """The validated configuration (after ``is_valid()``)."""
        return self._config


def _rotation_preset(name: str, starting_stack: int, codes: tuple[str, ...]) -> tuple[MttLevel, ...]:
    """A preset structure whose playing levels rotate through the games ``codes`` (mixed games,
    H.O.R.S.E.-style: one level each in turn), each level with its game's forced bets at that level of the
    game's own preset (:func:`engine.tournament.mtt.structure_preset`); breaks as in the preset."""
    per_game = {code: mtt_decider.structure_preset(name, starting_stack, code) for code in codes}
    first = per_game[codes[0]]
    levels: list[MttLevel] = []
    played = 0
    for index, level in enumerate(first):
        if level.is_break:
            levels.append(level)
            continue
        code = codes[played % len(codes)]
        own = per_game[code][index]
        levels.append(MttLevel(own.invito, level.duration_ms, forced=own.forced, game=code))
        played += 1
    return tuple(levels)


class ControlForm(forms.Form):
    """The numbers of the dashboard's control forms (``tournaments/mtt_director.html``), as typed: the clock
    adjustment in minutes (±), the target table by its number and seat from 1, chips. What they become —
    ``delta_ms``, ``table_id``, a 0-based seat — is then checked by the API's ``ControlSerializer`` with
    the rest (action, player, reason). Empty fields are left out."""

    minutes = forms.FloatField(
        label=_("Minutes"), min_value=-MAX_CLOCK_MINUTES, max_value=MAX_CLOCK_MINUTES, required=False
    )
    table = forms.IntegerField(label=_("Table"), min_value=1, max_value=MAX_TABLES, required=False)
    seat = forms.IntegerField(label=_("Seat"), min_value=1, max_value=10, required=False)
    delta = forms.IntegerField(label=_("Chips"), min_value=-MAX_STACK, max_value=MAX_STACK, required=False)
    chips = forms.IntegerField(label=_("Chips"), min_value=1, max_value=MAX_STACK, required=False)

    def error_text(self) -> str:
        """One line per refused field: ``Label: message``."""
        return " ".join(
            f"{self.fields[name].label}: {' '.join(messages)}" for name, messages in self.errors.items()
        )


class MatchesForm(GroupedForm):
    """A tournament of poker cinese matches (issue 20, :class:`engine.tournament.matches.MatchesConfig`):
    rounds in which every table plays one match of three games (CN-5); *knockout* (match winners go on, a
    shared top place plays an extra game) or *points* (a fixed number of rounds, seated by standing)."""

    GROUPS = (
        (_("Tournament"), ("name", "format", "rounds")),
        (_("Tables"), ("table_size", "action_seconds", "cascade")),
        (_("Players"), ("max_players", "bots")),
    )

    name = forms.CharField(label=_("Name"), max_length=80, initial="Poker cinese")
    format = forms.ChoiceField(
        label=_("Format"),
        choices=[
            ("knockout", _("Knockout: match winners go on")),
            ("points", _("Points: a fixed number of rounds")),
        ],
        initial="knockout",
    )
    rounds = forms.IntegerField(
        label=_("Rounds (points format)"), min_value=1, max_value=matches_decider.MAX_ROUNDS, initial=3
    )
    table_size = forms.IntegerField(label=_("Players per table"), min_value=2, max_value=4, initial=4)
    action_seconds = forms.IntegerField(
        label=_("Time to arrange (seconds)"), min_value=5, max_value=600, initial=120
    )
    cascade = forms.BooleanField(label=_("Cascade payout (variant)"), required=False)
    max_players = forms.IntegerField(
        label=_("Most players"), min_value=2, max_value=matches_decider.MAX_PLAYERS, initial=64
    )
    bots = forms.IntegerField(label=_("Bots to register"), min_value=0, max_value=64, initial=0)

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if not self.errors:
            try:
                matches_decider.validate(self.config())
            except matches_decider.MatchesError as error:
                self.add_error(error.field if error.field in self.fields else None, refusal(error))
        return cleaned

    def config(self) -> matches_decider.MatchesConfig:
        data = self.cleaned_data
        return matches_decider.MatchesConfig(
            name=data["name"].strip(),
            table_size=data["table_size"],
            format=matches_decider.Format(data["format"]),
            rounds=data["rounds"],
            max_players=data["max_players"],
            action_time_ms=data["action_seconds"] * 1000,
            cascade=bool(data.get("cascade")),
        )
