"""HTML for the table page and its live updates, rendered per viewer (own cards only).

:func:`fragments` returns the out-of-band swaps a socket sends after a new version: the table area
(``#table``, stamped with the version) and the new hand-log lines (``#hand-log``). Log lines come from
:meth:`engine.core.Game.public_log` of the table's game, which redacts and names every event by who sat in
its seat when it happened, so another player's cards never reach the page (not even the cards of the player
who sat in the viewer's seat before them). Phase names and button glosses are the game's
(``Game.phase_names``, ``Game.glosses``).
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine.codec import from_data
from engine.core import Game, find_game
from eventstore.store import RecordedEvent, read_stream
from tables import service
from tables.service import Loaded


def phase_name(game: Game, phase: Any) -> str:
    """The name of ``phase`` (a game's phase: an ``Enum`` or its value) on the page, as the game describes
    it (``Game.phase_names``; the value itself when the game names it not, ``""`` for no phase)."""
    if phase is None:
        return ""
    value = getattr(phase, "value", phase)
    return game.phase_names.get(value, str(value))


def kind_of(option: Any) -> str:
    """A legal action's kind as text (``LegalActionLike.kind``: a ``str`` or a ``str``-valued ``Enum``)."""
    return str(getattr(option.kind, "value", option.kind))


def _card(card: Any) -> str | None:
    return None if card is None else str(card)


PARTIAL_SLOTS = ("info", "seat", "center", "controls")
"""The parts of the table page a game family draws its own way (``templates/tables/partials/<family>/``):
the line above the table, the inside of a seat, the middle of the table, the action bar."""


def partials(game: Game) -> dict[str, list[str]]:
    """The templates of ``game``'s family for each of :data:`PARTIAL_SLOTS`: ``{slot: [names]}``, the first
    that exists is drawn (``{% include %}`` of a list): ``tables/partials/<family>/<slot>.html``, else the
    shared ``tables/partials/common/<slot>.html``. The family is :attr:`engine.core.Game.family` of the
    table's game, found through the registry: the page never names a game."""
    family = game.family.value
    return {
        slot: [f"tables/partials/{family}/{slot}.html", f"tables/partials/common/{slot}.html"]
        for slot in PARTIAL_SLOTS
    }


def context(loaded: Loaded, username: str) -> dict[str, Any]:
    """Everything ``templates/tables/_table.html`` needs for ``username``: the shared layout (seat ring,
    timer, action form) and the family's partials (:func:`partials`)."""
    seat = loaded.seat_of(username)
    game = loaded.rules
    table_view = game.view(loaded.state, seat)
    n = len(table_view.seats)
    seats = []
    for index, seat_view in enumerate(table_view.seats):
        position = (index - seat) % n if seat is not None else index
        if seat_view is None:
            seats.append({"index": index, "position": position, "empty": True})
            continue
        seats.append(
            {
                "index": index,
                "position": position,
                "empty": False,
                "player": seat_view.player,
                "stack": seat_view.stack,
                "bet": seat_view.bet,
                "cards": [_card(c) for c in seat_view.cards],
                "folded": seat_view.folded,
                "sitting_out": seat_view.sitting_out,
                "all_in": seat_view.all_in,
                "in_hand": seat_view.in_hand,
                "to_act": table_view.to_act == index,
                "me": index == seat,
                "button": table_view.button == index,
                "discarded": seat_view.discarded,
                "shown": seat_view.shown,
            }
        )
    actions, bet, discard = [], None, None
    for option in table_view.legal:
        kind = kind_of(option)
        entry = {
            "kind": kind,
            "label": option.label,
            "gloss": game.glosses.get(option.label.split()[0], ""),
            "minimum": option.minimum,
            "amount": None,
            "maximum": option.maximum,
        }
        if kind in game.amount_actions:
            if option.minimum < option.maximum and bet is None:
                bet = entry  # the amount box, limited to the legal range
            else:
                entry["amount"] = option.minimum  # RESTO, a blind bet: the button carries its amount
        if kind == "discard":
            discard = entry
            continue
        actions.append(entry)
    me = table_view.seats[seat] if seat is not None else None
    deadline = None
    if table_view.to_act is not None:
        deadline = service.row(loaded)["deadline_ms"]
    return {
        "table": loaded,
        "family": game.family.value,
        "partials": partials(game),
        "view": table_view,
        "seats": seats,
        "max6": n <= 6,
        "my_seat": seat,
        "my_cards": [_card(c) for c in me.cards] if me is not None else [],
        "actions": actions,
        "bet": bet,
        "discard": discard,
        "phase": phase_name(game, table_view.phase),
        "deadline": deadline,
        "my_turn": seat is not None and table_view.to_act == seat,
        "sitting_out": me is not None and me.sitting_out,
    }


def table_html(loaded: Loaded, username: str) -> str:
    return render_to_string("tables/_table.html", context(loaded, username))


# --- the hand log ----------------------------------------------------------------------------------------


# events that are one word of the table (seed 000, "Pulsanti")
_WORDS = {
    "Checked": "BUSSO",
    "Folded": "PASSO",
    "ParolSaid": "PAROL",
    "HandMucked": "NASCONDO",
    "BlindDeclined": "DAI CARTE",
}


def describe(event: Any, names: dict[int, str], game: Game | None = None) -> str | None:
    """One log line for a (public) engine event of ``game`` (``None``: poker all'italiana, pot limit), or
    ``None`` for events not worth a line. Events are told apart by their class names (the game's
    ``events``; ``CardsDealtHidden`` and ``DiscardedHidden`` are the redacted forms ``public_log`` gives).
    Plain text, escaped by the template, except the ``SeedRevealed`` line: safe HTML (a ``<span>`` whose
    ``title`` holds the whole seed)."""
    game = game or find_game(service.DEFAULT_GAME)
    kind = type(event).__name__

    def who(seat: int) -> str:
        return names.get(seat, f"#{seat + 1}")

    if kind == "HandStarted":
        return _("Hand %(number)s: invito %(invito)s, opening with %(opening)s or better.") % {
            "number": event.number,
            "invito": event.invito,
            "opening": event.opening.symbol,
        }
    if kind == "PhaseStarted":
        return "— " + game.phase_names.get(getattr(event.phase, "value", event.phase), "") + " —"
    if kind == "BlindBetPlaced":
        label = ("BUIO", "CONTROBUIO", "OVER")[event.stage - 1]
        return f"{who(event.seat)}: {label} {event.to}"
    if kind == "CardsDealt":
        return _("%(player)s receives %(cards)s") % {
            "player": who(event.seat),
            "cards": " ".join(map(str, event.cards)),
        }
    if kind == "CardsDealtHidden":
        text = ngettext(
            "%(player)s receives %(count)s card", "%(player)s receives %(count)s cards", event.count
        )
        return text % {"player": who(event.seat), "count": event.count}
    if kind == "Discarded":
        if not event.cards:
            return f"{who(event.seat)}: SERVITO"
        return _("%(player)s changes %(cards)s") % {
            "player": who(event.seat),
            "cards": " ".join(map(str, event.cards)),
        }
    if kind == "DiscardedHidden":
        if event.count == 0:
            return f"{who(event.seat)}: SERVITO"
        text = ngettext(
            "%(player)s changes %(count)s card", "%(player)s changes %(count)s cards", event.count
        )
        return text % {"player": who(event.seat), "count": event.count}
    if kind in _WORDS:
        return f"{who(event.seat)}: {_WORDS[kind]}"
    if kind == "Called":
        return f"{who(event.seat)}: {'RESTO' if event.all_in else 'VEDO'} (+{event.amount})"
    if kind == "BetPlaced":
        return f"{who(event.seat)}: {'RESTO' if event.all_in else 'PUNTO'} {event.to}"
    if kind == "Raised":
        return f"{who(event.seat)}: {'RESTO' if event.all_in else 'RILANCIO'} {event.to}"
    if kind == "AdeguamentoPaid":
        return f"{who(event.seat)}: PARTECIPO ({event.amount})"
    if kind == "HandShown":
        return f"{who(event.seat)}: MOSTRO {' '.join(map(str, event.cards))} — {event.label}"
    if kind == "PlayerTimedOut":
        return _("%(player)s ran out of time") % {"player": who(event.seat)}
    if kind == "PlayerSatOut":
        return _("%(player)s is sitting out") % {"player": who(event.seat)}
    if kind == "PlayerReturned":
        return _("%(player)s is back") % {"player": who(event.seat)}
    if kind == "PotAwarded":
        return "; ".join(
            _("%(player)s wins %(chips)s") % {"player": who(seat), "chips": chips}
            for seat, chips in event.shares
        )
    if kind == "UncalledBetReturned":
        return _("%(chips)s returned to %(player)s") % {"player": who(event.seat), "chips": event.amount}
    if kind == "HandEnded":
        if event.result.value == "not_opened":
            return _("Nobody opened: the pot carries to the next hand.")
        if event.result.value == "parol":
            return _("Everyone said parol: the pot carries to a parol hand.")
        return _("Hand over.")
    if kind == "PlayerEliminated":
        return _("%(player)s is eliminated") % {"player": event.player}
    if kind == "SeedRevealed":  # the hand's last event: the seed, shortened; the whole of it on hover
        text = _("Deck seed: %(seed)s") % {"seed": f"{event.seed[:8]}…"}
        return format_html('<span class="seed" title="{}">{}</span>', event.seed, text)
    return None


def log_lines(loaded: Loaded, username: str, events: list[RecordedEvent]) -> list[tuple[int, str]]:
    """``(version, text)`` for ``events`` (consecutive, the last at ``loaded.version``) as ``username``
    may see them. Each event is redacted and named by who sat in its seat *when it happened*
    (the game's ``public_log``, walking back from the seating of ``loaded``), not by today's seating: a
    player moved into a seat someone left sees none of that player's cards (issue 15)."""
    game = loaded.rules
    engine_events = [
        (recorded.version, from_data(cls, recorded.data))
        for recorded in events
        if (cls := game.events.get(recorded.type)) is not None
    ]
    now = loaded.facts.seating
    entries = game.public_log([event for _version, event in engine_events], now, username)
    texts = {}
    for (version, _event), entry in zip(engine_events, entries, strict=True):
        names = {seat: player for seat, player in enumerate(entry.seating) if player is not None}
        texts[version] = describe(entry.event, names, game)
    lines = []
    for recorded in events:
        text = texts.get(recorded.version)
        if recorded.type == "TableClosed":
            text = _("The table is closed.")
        if text:
            lines.append((recorded.version, text))
    return lines


def recent_events(loaded: Loaded, after: int, limit: int = 120) -> list[RecordedEvent]:
    start = max(after, loaded.version - limit)
    return read_stream(service.stream_id(loaded.table_id), start, loaded.version)


def fragments(loaded: Loaded, username: str, after: int, events: list[RecordedEvent] | None = None) -> str:
    """The out-of-band swaps bringing a page at version ``after`` (0: a fresh page) to ``loaded.version``."""
    if events is None:
        events = recent_events(loaded, after)
    lines = log_lines(loaded, username, events)
    log = render_to_string("tables/_log.html", {"lines": lines, "replace": after == 0})
    return table_html(loaded, username) + log
