"""HTML for the table page and its live updates, rendered per viewer (own cards only).

:func:`fragments` returns the out-of-band swaps a socket sends after a new version: the table area
(``#table``, stamped with the version) and the new hand-log lines (``#hand-log``). Log lines come from
:meth:`engine.core.Game.public_log` of the table's game, which redacts and names every event by who sat in
its seat when it happened, so another player's cards never reach the page (not even the cards of the player
who sat in the viewer's seat before them). Phase names and button glosses are the game's
(``Game.phase_names``, ``Game.glosses``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from engine.cards import Card
from engine.codec import from_data
from engine.core import Game, GameFamily, find_game, is_betting
from engine.evaluation.common import italian_label
from engine.giro import DISTRIBUTIONS as GIRO_DISTRIBUTIONS
from engine.giro import layout_choices
from eventstore.store import RecordedEvent, read_stream
from tables import arrangements, preferences, service
from tables import giro as giro_module
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


def partials(game: Game, table_view: Any = None) -> dict[str, list[str]]:
    """The templates of ``game``'s family for each of :data:`PARTIAL_SLOTS`: ``{slot: [names]}``, the first
    that exists is drawn (``{% include %}`` of a list): ``tables/partials/<family>/<slot>.html``, else the
    shared ``tables/partials/common/<slot>.html``. The family is :attr:`engine.core.Game.family` of the
    table's game, found through the registry: the page never names a game. A view with ``vele`` (Telesina,
    TL-VELE-1) puts ``tables/partials/vele/<slot>.html`` first."""
    family = game.family.value
    first = ["vele"] if hasattr(table_view, "vele") else []
    return {
        slot: [
            *(f"tables/partials/{name}/{slot}.html" for name in first),
            f"tables/partials/{family}/{slot}.html",
            f"tables/partials/common/{slot}.html",
        ]
        for slot in PARTIAL_SLOTS
    }


LAYOUT_NAMES = {
    "none": gettext_lazy("no vele"),
    "una": gettext_lazy("una (one vela)"),
    "due": gettext_lazy("due (two vele)"),
    "tre": gettext_lazy("tre (three vele)"),
    "croce": gettext_lazy("croce (cross)"),
    "h": "H",
    "piramide": gettext_lazy("piramide (pyramid)"),
    "ascensore": gettext_lazy("ascensore (elevator)"),
    "libera": gettext_lazy("libera (the dealer chooses)"),
}
"""The vele layouts (TL-VELE-1) by option value, as the pages name them."""

DISTRIBUTION_NAMES = {
    "mai": gettext_lazy("carta coperta: mai (one down, the rest up)"),
    "primo_giro": gettext_lazy("carta coperta: solo al primo giro"),
    "sempre": gettext_lazy("carta coperta: sempre"),
    "libera": gettext_lazy("carta coperta: libera (the dealer chooses)"),
}
"""The *distribuzione carta coperta* modes (TL-DEAL-2) by option value, as the pages name them."""


def vele_context(table_view: Any) -> dict[str, Any] | None:
    """The vele of a Telesina view (TL-VELE-1) as the page draws them: ``None`` for a view without;
    else ``layout``/``distribution`` (names), ``rows``/``columns`` of the layout's grid (``tall``: four
    rows or more), ``vele``
    (``letter``, ``card`` (text, ``None`` face down), ``step``, CSS ``area`` ``row / column / row end /
    column end`` (1-based) and ``combos``: the indexes of the combinations it belongs to) and
    ``combinations`` (``[(index, letters)]``), ``best_hand``: the viewer's hand named in the page's
    language. Every place comes from the view (the layout's shape), none is written per layout here."""
    vele = getattr(table_view, "vele", None)
    if vele is None:
        return None
    combinations = list(enumerate(getattr(table_view, "combinations", ()) or ()))
    drawn = []
    for vela in vele:
        drawn.append(
            {
                "letter": vela.letter,
                "card": _card(vela.card),
                "step": vela.step,
                "area": f"{vela.row + 1} / {vela.column + 1} / {vela.row + 1 + vela.rows} / "
                f"{vela.column + 1 + vela.columns}",
                "combos": " ".join(str(i) for i, letters in combinations if vela.letter in letters),
            }
        )
    layout = getattr(table_view, "layout", "")
    distribution = getattr(table_view, "distribution", "")
    rows = max((v.row + v.rows for v in vele), default=0)
    return {
        "layout": layout,
        "layout_name": LAYOUT_NAMES.get(layout, layout),
        "distribution": distribution,
        "distribution_name": DISTRIBUTION_NAMES.get(distribution, distribution),
        "rows": rows,
        "tall": rows >= 4,  # piramide, ascensore: the pot beside the vele on a laptop (mazziere.css)
        "columns": max((v.column + v.columns for v in vele), default=0),
        "vele": drawn,
        "combinations": [(i, " + ".join(letters)) for i, letters in combinations],
        "best_hand": _best_hand(table_view),
    }


CINESE_PHASES = {"arranging": gettext_lazy("Arranging"), "between": gettext_lazy("Between games")}
"""Poker cinese's phases (``CineseView.phase``) as the page names them, in its language."""

CINESE_SEAT_STATES = {"submitted": gettext_lazy("Submitted"), "arranging": gettext_lazy("Arranging…")}
"""What a seat shows while a game runs: whether it submitted (never what: CN-3)."""

ROW_NAMES = (gettext_lazy("First row"), gettext_lazy("Second row"), gettext_lazy("Third row"))
"""The three rows (CN-2: first ≥ second ≥ third) as the page names them."""


def _cinese_draft(loaded: Loaded, username: str) -> dict[str, Any] | None:
    try:
        return arrangements.draft_of(loaded.table_id, username)
    except service.BadRequest:
        return None


def cinese_context(loaded: Loaded, table_view: Any, seat: int | None, username: str) -> dict[str, Any] | None:
    """A poker cinese view (issue 20, ``CN-*``) as the arrangement page draws it; ``None`` for any other
    view. ``phase`` (translated), ``match``/``game`` (1–3), ``arranging`` (the viewer holds cards in the game
    running), ``submitted``, ``rows`` (per row: ``index``, ``name`` (translated), ``size``, ``cards`` (codes),
    ``hand`` (the full row's hand named in the page's language, else ``""``), ``stake``), ``unplaced``
    (codes), ``tokens`` (the viewer's unused token values), ``in_order``, ``reveal`` (per row of the last
    reveal: ``name``, ``places`` (``[[player names]]``, best first), ``won`` (``[(player, tokens)]``),
    ``discarded``) and ``score`` (``[(player, points, rows won)]``, best first). Only the viewer's own cards
    and stakes: the view hides the others' until the reveal (CN-3)."""
    if not hasattr(table_view, "results") or not hasattr(table_view, "tokens"):
        return None
    seats = table_view.seats
    me = seats[seat] if seat is not None and 0 <= seat < len(seats) else None
    names = {i: s.player for i, s in enumerate(seats) if s is not None}
    english = (get_language() or "it").startswith("en")
    arranging = (
        table_view.phase == "arranging" and me is not None and bool(me.cards) and me.cards[0] is not None
    )
    dealt = [s for s in seats if s is not None and s.cards]
    sizes = (5, 5, 3) if len(dealt) == 4 else (5, 5, 5)
    rows: list[list[str]] = [[], [], []]
    stakes: list[Any] = [None, None, None]
    hands = ["", "", ""]
    in_order = True
    unplaced: list[str] = []
    if arranging and me is not None:
        if me.submitted and me.rows:
            rows = [[str(c) for c in row] for row in me.rows]
            stakes = list(me.stakes)
        else:
            draft = _cinese_draft(loaded, username)
            if draft is not None:
                rows, stakes = draft["rows"], list(draft["stakes"])
        placed = {c for row in rows for c in row}
        unplaced = [str(c) for c in me.cards if str(c) not in placed]
        described = arrangements.describe([[Card.parse(c) for c in row] for row in rows], sizes)
        hands = [(n["en"] if english else n["it"]) if n else "" for n in described["names"]]
        in_order = described["in_order"]
    reveal = []
    for result in table_view.results:
        reveal.append(
            {
                "name": ROW_NAMES[result.row],
                "places": [[names.get(s, "?") for s in group] for group in result.places],
                "won": [(names.get(s, "?"), list(tokens)) for s, tokens in result.won if tokens],
                "discarded": list(result.discarded),
            }
        )
    score = sorted(
        ((s.player, s.points, s.rows_won) for s in seats if s is not None),
        key=lambda entry: (-entry[1], -entry[2], entry[0]),
    )
    return {
        "phase": CINESE_PHASES.get(table_view.phase, table_view.phase),
        "match": table_view.match,
        "game": table_view.game,
        "hand_number": table_view.hand_number,
        "arranging": arranging,
        "submitted": bool(me is not None and me.submitted),
        "rows": [
            {
                "index": i,
                "name": ROW_NAMES[i],
                "size": sizes[i],
                "cards": rows[i],
                "hand": hands[i],
                "stake": stakes[i],
            }
            for i in range(3)
        ],
        "unplaced": unplaced,
        "tokens": list(me.unused) if me is not None else [],
        "token_choices": sorted(set(me.unused)) if me is not None else [],
        "in_order": in_order,
        "reveal": reveal,
        "score": score,
        # after the reveal every arrangement is shown (CN-4); before it the view holds only the viewer's
        "shown": [
            (s.player, [([str(c) for c in row], stake) for row, stake in zip(s.rows, s.stakes, strict=False)])
            for s in seats
            if s is not None and s.rows
        ]
        if table_view.phase == "between"
        else [],
        "cascade": table_view.cascade,
    }


def _hand_name(label: str) -> str:
    """A shown hand's name (``HandShown.label``) in an Italian game's log: on an Italian page in Italian
    (Telesina records its names in English, issue 19: :func:`engine.evaluation.common.italian_label`),
    else as recorded (poker all'italiana's are Italian already)."""
    if (get_language() or "it").startswith("it"):
        return italian_label(label)
    return label


def _best_hand(table_view: Any) -> str:
    """The viewer's hand so far in the page's language: Italian pages name it as poker all'italiana does
    (IT-RANK-1's words, ``best_hand_it``: "Full di K"), English pages in English (``best_hand``)."""
    english = getattr(table_view, "best_hand", "") or ""
    if (get_language() or "it").startswith("it"):
        return getattr(table_view, "best_hand_it", "") or english
    return english


def giro_context(loaded: Loaded, username: str) -> dict[str, Any] | None:
    """The giro pazzo (TL-GIRO-1) as the page shows it: ``None`` when none runs; else ``trigger`` (the hand
    that started it), ``dealt`` / ``owed`` (hands dealt, deals still owed), ``choosing`` (the dealer asked
    now, ``""`` for none), ``mine`` (the viewer is that dealer: the dialog), ``timer`` (the countdown, as
    the seats' clock), ``layouts`` drawn from the layout data (:func:`engine.giro.layout_choices`: name,
    Italian label, cells with their CSS grid ``area``, ``fits`` TL-CAP-1 and ``reason``), ``distributions``
    (``(value, label)``), ``default`` the time-out's ``(layout, distribution)``, ``chosen`` the choice made
    (``layout``, ``distribution``, ``automatic``)."""
    giro = loaded.giro
    if not (loaded.giro_pazzo and giro.active) and not giro.waiting and not giro.choice:
        return None  # no giro, and no libera table's dealer choosing (TL-DEAL-2, TL-VELE-1)
    fixed = dict(giro.fixed)
    players = max(2, sum(1 for o in loaded.facts.seats if o is not None and o.stack > 0))
    layouts = []
    for choice in layout_choices(players):
        cells = []
        for letter in choice.letters:
            row, column, rows, columns = choice.place(letter)
            area = f"{row + 1} / {column + 1} / {row + 1 + rows} / {column + 1 + columns}"
            cells.append({"letter": letter, "area": area})
        layouts.append(
            {
                "name": choice.name,
                "label": LAYOUT_NAMES.get(choice.name, choice.name),
                "cells": cells,
                "vele": choice.vele,
                "fits": choice.fits and fixed.get("layout", choice.name) == choice.name,
                "reason": choice.reason,
            }
        )
    default = giro_module.table_default(loaded)
    default = (fixed.get("layout", default[0]), fixed.get("distribution", default[1]))
    preferred = preferences.of_player(username) if giro.choosing == username else None
    if preferred is not None:
        default = (
            fixed.get("layout", preferred.vele or default[0]),
            fixed.get("distribution", preferred.distribution or default[1]),
        )
    timer = None
    if giro.waiting and giro.deadline_ms is not None:
        action_ms = getattr(loaded.state.config, "action_time_ms", 0) or 30_000
        end = giro.deadline_ms
        timer = {"action_end": end, "bank_end": end, "action_ms": action_ms, "bank_ms": 0}
    chosen = None
    if giro.choice:
        options = dict(giro.choice)
        chosen = {
            "layout": LAYOUT_NAMES.get(options["layout"], options["layout"]),
            "distribution": DISTRIBUTION_NAMES.get(options["distribution"], options["distribution"]),
            "automatic": giro.automatic,
            "dealer": giro.chooser,
        }
    return {
        "trigger": giro.trigger,
        "dealt": len(giro.dealt),
        "owed": len(giro.owed),
        "choosing": giro.choosing if giro.waiting else "",
        "mine": giro.waiting and giro.choosing == username,
        "timer": timer,
        "layouts": layouts,
        "distributions": [
            (value, DISTRIBUTION_NAMES[value], fixed.get("distribution", value) == value)
            for value in GIRO_DISTRIBUTIONS
        ],
        "libera": not giro.active,
        "default": default,
        "chosen": chosen,
        "version": loaded.version,
    }


def turn_up_choice(table_view: Any, seat: int | None, actions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """TL-DEAL-2's "which card do you turn up": the viewer's face-down cards as buttons (``[(index,
    card)]``, the index the ``turn_up`` command takes) when a ``turn_up`` action is offered, and the card
    the time-out turns up (the one dealt last, docs/rules-decisions.md); ``None`` otherwise."""
    option = next((a for a in actions if a["kind"] == "turn_up"), None)
    if option is None or seat is None:
        return None
    down = [_card(c) for c in table_view.seats[seat].down]
    cards = [(i, c) for i, c in enumerate(down) if option["minimum"] <= i <= option["maximum"] and c]
    return {"cards": cards, "default": cards[-1][1] if cards else None}


SHORTCUTS: dict[str, str] = {
    "fold": "f",
    "check": "c",
    "call": "c",
    "bet": "b",
    "blind_bet": "b",
    "bring_in": "b",
    "raise": "r",
    "complete": "r",
    "all_in": "a",
    "discard": "d",
    "stand_pat": "s",
    "show": "s",
    "muck": "m",
    "parol": "p",
    "post": "p",
    "decline_blind": "c",
    "partecipate": "c",
}
"""The key that presses a button of the action bar, by action kind (``static/js/mazziere.js`` listens; not
while the player types in a field). A button carrying the whole stack (RESTO, All-in) answers ``a``."""

FORCED_WORDS_SHORT = {"small_blind": "SB", "big_blind": "BB", "ante": "Ante", "big_blind_ante": "BB ante",
                      "straddle": "Straddle", "bring_in": "Bring-in", "posted_big_blind": "BB",
                      "dead_small_blind": "Dead SB"}  # fmt: skip
"""A forced bet as a seat's last action on the felt (:data:`ACT_WORDS`)."""

ENGLISH_LABELS: dict[str, str] = {
    "fold": "Fold",
    "check": "Check",
    "call": "Call",
    "bet": "Bet",
    "raise": "Raise",
    "all_in": "All-in",
    "post": "Post",
    "bring_in": "Bring-in",
    "complete": "Complete",
    "discard": "Draw",
    "stand_pat": "Stand pat",
    "show": "Show",
    "muck": "Muck",
}
"""The buttons of the international games (issue 17): English poker words, in both languages of the page,
as on every international table; an action kind not listed keeps its game's label."""


def _gettext_glosses() -> dict[str, str]:
    return {
        "fold": _("give up the hand"),
        "check": _("pass without betting"),
        "call": _("match the bet"),
        "bet": _("open the betting"),
        "raise": _("raise the bet"),
        "all_in": _("put in every chip"),
        "post": _("post the forced bet"),
        "bring_in": _("open with the forced bet"),
        "complete": _("raise the bring-in to a full bet"),
        "discard": _("change the selected cards"),
        "stand_pat": _("keep every card"),
        "show": _("show the hand"),
        "muck": _("throw the hand away unseen"),
        "post_blind": _("post the blinds you owe and play the next hand"),
        "wait_big_blind": _("play from when the big blind reaches you"),
    }


def _ring_labels() -> dict[str, str]:
    """The buttons of a player who owes a blind at a ring table (CASH-1, CASH-2), in the page's language
    (the post button shows the chips owed after its label)."""
    return {"post_blind": _("Post"), "wait_big_blind": _("Wait for the big blind")}


def _card(card: Any) -> str | None:
    return None if card is None else str(card)


def _cards_of(seat_view: Any) -> tuple[list[str | None], list[str]]:
    """``(down, up)`` of a seat's view: face-down cards (``None``: a back) and face-up ones. A view with
    ``cards`` only (poker all'italiana, hold'em) has every card down; one with ``down``/``up`` (stud) both."""
    if hasattr(seat_view, "up"):
        down = getattr(seat_view, "down", ()) or ()
        return [_card(c) for c in down], [str(c) for c in seat_view.up or ()]
    return [_card(c) for c in getattr(seat_view, "cards", ()) or ()], []


def _seat(table_view: Any, seat_view: Any, index: int, viewer: int | None, n: int) -> dict[str, Any]:
    # the seat's place on the oval (``seat-pos-*``, the viewer at the bottom): a short table's seats spread
    # around the 6 (or 9) places, not bunched on one side
    relative = (index - viewer) % n if viewer is not None else index
    slots = 6 if n <= 6 else 9
    position = round(relative * slots / n) % slots
    if seat_view is None:
        return {"index": index, "position": position, "empty": True}
    down, up = _cards_of(seat_view)
    running = getattr(table_view, "phase", None) is not None  # blinds are marked while their hand runs
    return {
        "index": index,
        "position": position,
        "empty": False,
        "player": seat_view.player,
        "stack": seat_view.stack,
        "bet": getattr(seat_view, "bet", 0),
        "cards": down,
        "up": up,
        "folded": getattr(seat_view, "folded", False),
        "sitting_out": getattr(seat_view, "sitting_out", False),
        "all_in": getattr(seat_view, "all_in", False),
        "in_hand": getattr(seat_view, "in_hand", False),
        "to_act": getattr(table_view, "to_act", None) == index,
        "me": index == viewer,
        "button": getattr(table_view, "button", -1) == index,
        "small_blind": running and getattr(table_view, "small_blind", -1) == index,
        "big_blind": running and getattr(table_view, "big_blind", -1) == index,
        "discarded": getattr(seat_view, "discarded", 0),
        "shown": getattr(seat_view, "shown", False),
        "hand_label": getattr(seat_view, "hand_label", "") or "",
        "busted": seat_view.stack == 0
        and not getattr(seat_view, "in_hand", False)
        and not getattr(seat_view, "all_in", False),
    }


SENT_AS = {"complete": "raise", "bring_in": "bring_in", "all_in": "raise"}
"""The action a button sends when its kind is not one of the game's ``actions`` (a stud completion is a
raise of the bring-in to the small bet, ST-1)."""


def _actions(
    game: Game, table_view: Any, me: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None, dict[str, Any] | None]:
    """``(buttons, amount box, discard)`` of the action bar from the view's legal actions. Italian games
    keep their labels and English glosses; international games get English poker words
    (:data:`ENGLISH_LABELS`, or the game's own when it is one of them: "All-in" for a call of the whole
    stack) and glosses in the page's language. Every button has its :data:`SHORTCUTS` key and the action it
    sends (``send``). A draw game's "Stand pat" (a discard of no card) sets ``discard["stand_pat"]``."""
    italian = game.family is GameFamily.ITALIAN
    glosses = {} if italian else _gettext_glosses()
    ring_labels = _ring_labels()
    english = set(ENGLISH_LABELS.values())
    amount_kinds = game.amount_actions if italian else game.amount_actions | {"complete"}
    everything = (me["stack"] + me["bet"]) if me is not None else None
    actions, bet, discard, stand_pat = [], None, None, False
    for option in getattr(table_view, "legal", ()) or ():
        kind = kind_of(option)
        own = italian or option.label in english
        label = option.label if own else ENGLISH_LABELS.get(kind, option.label)
        label = ring_labels.get(kind, label)
        entry: dict[str, Any] = {
            "kind": kind,
            "send": kind if italian or kind in game.actions else SENT_AS.get(kind, kind),
            "label": label,
            "gloss": game.glosses.get(option.label.split()[0], "") if italian else glosses.get(kind, ""),
            "minimum": option.minimum,
            "amount": None,
            "maximum": option.maximum,
            "key": SHORTCUTS.get(kind, ""),
            "all_in": False,
        }
        if kind in amount_kinds:
            if option.minimum < option.maximum and bet is None:
                bet = entry  # the amount box, limited to the legal range
            else:
                entry["amount"] = option.minimum  # RESTO, a blind bet: the button carries its amount
                if everything is not None and option.minimum == everything and kind != "blind_bet":
                    entry["key"], entry["all_in"] = "a", True
                    if not italian:
                        entry["label"] = ENGLISH_LABELS["all_in"]
        if kind == "discard":
            if not italian and option.maximum == 0:
                stand_pat = True  # Stand pat: a discard of no card (FD-1)
            else:
                discard = entry
            continue
        actions.append(entry)
    if stand_pat:
        discard = discard or {"kind": "discard", "minimum": 0, "maximum": 0}
        discard["stand_pat"] = True
    return actions, bet, discard


def _presets(
    table_view: Any, me: dict[str, Any], bet: dict[str, Any], all_in_button: bool
) -> list[tuple[str, int]]:
    """The amounts the bet box offers in one click: ``[(label, chips)]`` for the minimum, half the pot, the
    pot and the maximum (not when an All-in button is there), each within the legal range (G-ACT-2) and
    listed once. A pot-sized bet or raise
    goes **to** the current bet plus the pot after calling (the pot-limit maximum, PL-1's arithmetic)."""
    low, high = bet["minimum"], bet["maximum"]
    current = getattr(table_view, "current_bet", 0) or 0
    owed = max(0, current - me["bet"])
    pot_after_call = (getattr(table_view, "pot", 0) or 0) + owed
    wanted = [
        ("Min", low),
        ("½ Pot", current + pot_after_call // 2),
        ("Pot", current + pot_after_call),
    ]
    if not all_in_button:
        wanted.append(("Max", high))
    presets: list[tuple[str, int]] = []
    for label, amount in wanted:
        amount = max(low, min(high, amount))
        if all(amount != chips for _label, chips in presets):
            presets.append((label, amount))
    return presets


# --- what each seat did last (the seat's label on the felt) and VA BENE in the log ------------------------


@dataclass
class HandActs:
    """What the players did in the hand running at a table, as of ``version``: ``last`` is each seat's last
    action of the current betting round ``(kind, chips)`` (``kind``: a key of :data:`ACT_WORDS`; chips
    ``None`` when the action has none), ``va_bene``: the versions of the ``Checked`` events that were the
    last blind bettor's *va bene* (IT-BUIO-2: the answer "no raise" to a called blind opening, not a
    *busso*). Built from the stored events (their public fields only: seats, amounts, counts)."""

    version: int = 0
    last: dict[int, tuple[str, int | None]] = field(default_factory=dict)
    va_bene: set[int] = field(default_factory=set)
    blind_last: int | None = None
    phase: str = ""
    answered: bool = False
    last_at: int = 0


_ACTS: dict[int, HandActs] = {}
"""The tracker of each table this process renders (:func:`hand_acts`), folded forward as versions come."""
_ACTS_LOCK = threading.Lock()  # sockets render in parallel threads (tables.consumers.in_pool)


def forget() -> None:
    """Drop every table's :class:`HandActs` (tests; the next render reads the hand back)."""
    with _ACTS_LOCK:
        _ACTS.clear()


def _fold_act(acts: HandActs, recorded: RecordedEvent) -> None:
    kind, data = recorded.type, recorded.data
    seat = data.get("seat")
    if kind == "HandStarted":
        acts.last, acts.va_bene = {}, set()
        acts.blind_last, acts.phase, acts.answered = None, "", False
    elif kind in ("PhaseStarted", "StreetStarted"):
        acts.phase = str(data.get("phase", data.get("street", "")))
        # a new betting round: the words of the last one go, a fold stays
        acts.last = {s: act for s, act in acts.last.items() if act[0] in ("fold", "sat_out")}
    elif kind == "BlindBetPlaced":
        acts.blind_last = seat
        acts.last[seat] = (("buio", "controbuio", "over")[int(data.get("stage", 1)) - 1], data.get("to"))
    elif kind == "Checked":
        va_bene = acts.phase == "opening" and seat == acts.blind_last and not acts.answered
        if va_bene:
            acts.va_bene.add(recorded.version)
            acts.answered = True
        acts.last[seat] = ("va_bene" if va_bene else "check", None)
    elif kind == "Folded":
        acts.last[seat] = ("fold", None)
    elif kind == "Called":
        acts.last[seat] = ("all_in" if data.get("all_in") else "call", data.get("amount"))
    elif kind in ("BetPlaced", "Raised"):
        word = "all_in" if data.get("all_in") else ("bet" if kind == "BetPlaced" else "raise")
        if data.get("bring_in"):
            word = "bring_in"
        elif data.get("complete"):
            word = "complete"
        acts.last[seat] = (word, data.get("to"))
    elif kind == "ForcedBetPosted":
        acts.last[seat] = (str(data.get("kind", "post")), data.get("amount"))
    elif kind == "Discarded":
        count = len(data.get("cards") or ())  # the count only: the cards are the player's secret
        acts.last[seat] = ("discard" if count else "stand_pat", count or None)
    elif kind == "ParolSaid":
        acts.last[seat] = ("parol", None)
    elif kind == "AdeguamentoPaid":
        acts.last[seat] = ("partecipate", data.get("amount"))
    elif kind == "BlindDeclined":
        acts.last[seat] = ("decline_blind", None)
    elif kind == "HandShown":
        acts.last[seat] = ("show", None)
    elif kind == "HandMucked":
        acts.last[seat] = ("muck", None)
    elif kind == "PlayerTimedOut":
        acts.last[seat] = ("timed_out", None)
    acts.version = recorded.version


def hand_acts(loaded: Loaded, events: list[RecordedEvent] | None = None) -> HandActs:
    """The :class:`HandActs` of ``loaded`` at its version, from this process's tracker folded forward with
    ``events`` (consecutive, the last at ``loaded.version``). Without a tracker, ``events`` are folded
    alone when they hold the hand's start, or when they are a broadcast's batch (no query for a socket's
    update: the seats' labels then begin with the batch; a page's first render, which reads the recent
    events anyway, builds the whole hand). With no events, or a gap after the tracker, the recent events
    are read back from the stream."""
    with _ACTS_LOCK:
        acts = _hand_acts(loaded, events)
        return replace(acts, last=dict(acts.last), va_bene=set(acts.va_bene))  # a copy: others fold on


def _hand_acts(loaded: Loaded, events: list[RecordedEvent] | None) -> HandActs:
    acts = _ACTS.get(loaded.table_id)
    if acts is not None and (acts.version, acts.last_at) == (loaded.version, loaded.last_at):
        return acts
    if acts is not None and acts.version >= loaded.version:
        acts = None  # another stream under the same id (a database reset), or an older copy of the table
    batch = events if events and events[-1].version == loaded.version else None
    if batch is None or (acts is not None and batch[0].version > acts.version + 1):
        acts, batch = HandActs(), recent_events(loaded, 0)  # nothing to fold forward: read the hand back
    elif acts is None:
        acts = HandActs()
    for recorded in batch:
        if recorded.version > acts.version:
            _fold_act(acts, recorded)
    acts.version, acts.last_at = loaded.version, loaded.last_at
    _ACTS[loaded.table_id] = acts
    return acts


ITALIAN_ACT_WORDS = {
    "check": "BUSSO", "va_bene": "VA BENE", "call": "VEDO", "bet": "PUNTO", "raise": "RILANCIO",
    "all_in": "RESTO", "fold": "PASSO", "buio": "BUIO", "controbuio": "CONTROBUIO", "over": "OVER",
    "discard": "CAMBIO", "stand_pat": "SERVITO", "parol": "PAROL", "partecipate": "PARTECIPO",
    "decline_blind": "DAI CARTE", "show": "MOSTRO", "muck": "NASCONDO", "ante": "INVITO",
}  # fmt: skip
"""A seat's last action on the felt of poker all'italiana: the word said at the table (Telesina's invito is
posted as an ante: INVITO)."""

ACT_WORDS = {
    "check": "Check", "call": "Call", "bet": "Bet", "raise": "Raise", "all_in": "All-in", "fold": "Fold",
    "bring_in": "Bring-in", "complete": "Complete", "discard": "Draw", "stand_pat": "Stand pat",
    "show": "Show", "muck": "Muck", **FORCED_WORDS_SHORT,
}  # fmt: skip
"""A seat's last action on the felt of the international games: English poker words."""


def act_text(game: Game, act: tuple[str, int | None] | None) -> str:
    """The label of a seat's last action (:class:`HandActs`), ``""`` for none: ``VEDO 20``, ``Raise 300``,
    ``Draw 2`` (a time-out in the page's language)."""
    if act is None:
        return ""
    kind, chips = act
    if kind == "timed_out":
        return _("Timed out")
    words = ITALIAN_ACT_WORDS if game.family is GameFamily.ITALIAN else ACT_WORDS
    word = words.get(kind, kind)
    return f"{word} {chips}" if chips else word


def _forced_line(game: Game, loaded: Loaded, table_view: Any) -> str:
    """The forced bets of the hand running (else the next one) on the info line (:func:`forced_text`)."""
    return forced_text(getattr(table_view, "forced", None) or loaded.facts.forced)


def _timer(loaded: Loaded, deadline: int | None) -> dict[str, int] | None:
    """The acting seat's clock (epoch ms): ``action_end`` when the action time runs out, ``bank_end`` when
    the time bank does too (the same when no bank can be used now, IT-TIME-1), ``action_ms`` the whole
    action time and ``bank_ms`` the bank usable now; ``None`` with no deadline."""
    if deadline is None:
        return None
    hand = getattr(loaded.state, "hand", None)
    action_end = getattr(hand, "deadline", 0) or deadline
    action_ms = getattr(getattr(loaded.state, "config", None), "action_time_ms", 0) or 30_000
    return {
        "action_end": min(action_end, deadline),
        "bank_end": deadline,
        "action_ms": action_ms,
        "bank_ms": max(0, deadline - action_end),
    }


def context(loaded: Loaded, username: str, events: list[RecordedEvent] | None = None) -> dict[str, Any]:
    """Everything ``templates/tables/_table.html`` needs for ``username``: the shared layout (seat ring,
    timer, action form) and the family's partials (:func:`partials`). A view is read by the members every
    game's view has (``seats`` with ``player``/``stack``, ``legal``, ``to_act``, ``button``, ``pot``,
    ``pots``) and, when present, a family's own (``board``; a seat's ``up`` cards; ``small_blind`` and
    ``big_blind`` seats)."""
    seat = loaded.seat_of(username)
    game = loaded.rules
    table_view = game.view(loaded.state, seat)
    n = len(table_view.seats)
    seats = [_seat(table_view, seat_view, index, seat, n) for index, seat_view in enumerate(table_view.seats)]
    if not is_betting(game):  # no chips in play (poker cinese): a seat without chips is not out of the game
        for entry in seats:
            entry["busted"] = False
    mine = seats[seat] if seat is not None and not seats[seat]["empty"] else None
    actions, bet, discard = _actions(game, table_view, mine)
    if bet is not None and bet["kind"] == "turn_up":  # TL-DEAL-2: card buttons, not an amount box
        actions.insert(0, bet)
        bet = None
    turn_up = turn_up_choice(table_view, seat, actions)
    if turn_up is not None:
        actions = [a for a in actions if a["kind"] != "turn_up"]
    me = table_view.seats[seat] if seat is not None else None
    deadline = None
    timer = None
    if getattr(table_view, "to_act", None) is not None:
        deadline = service.row(loaded)["deadline_ms"]
        timer = _timer(loaded, deadline)
    italian = game.family is GameFamily.ITALIAN
    cinese = cinese_context(loaded, table_view, seat, username)
    if cinese is not None:  # simultaneous arrangement: every seat still to submit runs the same clock
        actions = []
        for entry in seats:
            entry["to_act"] = entry["index"] in table_view.to_act
            seat_view = table_view.seats[entry["index"]]
            if seat_view is None:
                continue
            entry["cards"] = []  # the rows are drawn below the table; a seat shows its tokens and points
            entry["points"] = seat_view.points
            entry["tokens"] = list(seat_view.unused)
            entry["cinese_state"] = ""
            if table_view.phase == "arranging" and seat_view.cards:
                entry["cinese_state"] = "submitted" if seat_view.submitted else "arranging"
            entry["cinese_status"] = CINESE_SEAT_STATES.get(entry["cinese_state"], "")
    if bet is not None and mine is not None:
        bet["presets"] = _presets(table_view, mine, bet, any(a["all_in"] for a in actions))
    acts = hand_acts(loaded, events)
    for entry in seats:
        if not entry["empty"]:
            entry["last"] = act_text(game, acts.last.get(entry["index"])) if entry["in_hand"] else ""
            entry["timer"] = timer if entry["to_act"] else None
    return {
        "table": loaded,
        "game": game,
        "family": game.family.value,
        "partials": partials(game, table_view),
        "vele": vele_context(table_view),
        "cinese": cinese,
        "giro": giro_context(loaded, username),
        "turn_up": turn_up,
        "view": table_view,
        # the table's hand count across its games (a mixed-game table does not start again at "Hand 1")
        "hand_number": loaded.hands_before + getattr(table_view, "hand_number", 0),
        "seats": seats,
        "max6": n <= 6,
        "my_seat": seat,
        "my_cards": [c for c in mine["cards"] if c] if mine is not None else [],
        "actions": actions,
        "bet": bet,
        "discard": discard,
        "phase": phase_name(game, getattr(table_view, "phase", None)),
        "forced": "" if italian else _forced_line(game, loaded, table_view),
        "board": [str(c) for c in getattr(table_view, "board", ()) or ()],
        "deadline": deadline,
        "my_turn": seat is not None and getattr(table_view, "to_act", None) == seat,
        "sitting_out": me is not None and me.sitting_out,
        "timer": timer,
        "watching": seat is None,
        "my_busted": mine is not None and mine["busted"],
    }


def table_html(loaded: Loaded, username: str, events: list[RecordedEvent] | None = None) -> str:
    """The ``#table`` fragment for ``username`` (``events``: the new ones, for :func:`hand_acts`)."""
    return render_to_string("tables/_table.html", context(loaded, username, events))


# --- the hand log ----------------------------------------------------------------------------------------


# events that are one word of the table (seed 000, "Pulsanti")
_WORDS = {
    "Checked": "BUSSO",
    "Folded": "PASSO",
    "ParolSaid": "PAROL",
    "HandMucked": "NASCONDO",
    "BlindDeclined": "DAI CARTE",
}


_SHARED = "shared"  # _international_line: the event's line is the one every game shares (below)

FORCED_WORDS = {
    "small_blind": "Small blind",
    "big_blind": "Big blind",
    "ante": "Ante",
    "big_blind_ante": "Big blind ante",
    "straddle": "Straddle",
    "bring_in": "Bring-in",
}
"""The forced bets in a log line of an international game (``ForcedBetPosted.kind``), in English."""


def _ring_post_line(event: Any, who: Callable[[int], str]) -> str:
    """The log line of a blind owed at a ring table and posted outside the blinds (CASH-1, CASH-2): a big
    blind (live, ``posted_big_blind``) or a missed small blind (dead, ``dead_small_blind``); ``""`` for any
    other forced bet."""
    values = {"player": who(event.seat), "chips": event.amount}
    if event.kind == "posted_big_blind":
        return _("%(player)s posts a big blind of %(chips)s") % values
    if event.kind == "dead_small_blind":
        return _("%(player)s posts a dead small blind of %(chips)s") % values
    return ""


def forced_text(forced: Any) -> str:
    """A level's forced bets (:class:`engine.core.ForcedBets`) as the page shows them: ``Blinds 50/100 ·
    Ante 10``, ``Ante 20 · Bring-in 50 · Bets 100/200`` (empty for none)."""
    if forced is None:
        return ""
    parts = []
    if forced.small_blind or forced.big_blind:
        parts.append(_("Blinds %(small)s/%(big)s") % {"small": forced.small_blind, "big": forced.big_blind})
    if forced.straddle:
        parts.append(_("Straddle %(chips)s") % {"chips": forced.straddle})
    if forced.ante:
        parts.append(_("Ante %(chips)s") % {"chips": forced.ante})
    if forced.big_blind_ante:
        parts.append(_("Big blind ante %(chips)s") % {"chips": forced.big_blind_ante})
    if forced.bring_in:
        parts.append(_("Bring-in %(chips)s") % {"chips": forced.bring_in})
    if forced.small_bet and forced.big_bet:
        parts.append(_("Bets %(small)s/%(big)s") % {"small": forced.small_bet, "big": forced.big_bet})
    return " · ".join(parts)


def _known(cards: Any) -> list[str]:
    return [str(c) for c in cards or () if c is not None]


def _international_line(kind: str, event: Any, who: Callable[[int], str], game: Game) -> str | None:
    """The log line of an event of an international game (hold'em, Omaha, draw, stud): the players'
    actions in English poker words (``anna: Raise 300``), the rest in the page's language; :data:`_SHARED`
    for the events every game words alike (time-outs, pots won, eliminations, the seed)."""
    if kind == "HandStarted":
        forced = forced_text(getattr(event, "forced", None))
        if forced:
            return _("Hand %(number)s: %(forced)s.") % {"number": event.number, "forced": forced}
        return _("Hand %(number)s.") % {"number": event.number}
    if kind == "ForcedBetPosted":
        ring = _ring_post_line(event, who)
        if ring:
            return ring
        word = FORCED_WORDS.get(event.kind, event.kind)
        return f"{who(event.seat)}: {word} {event.amount}"
    if kind == "BlindMissed":  # CASH-2, CASH-4: the markers ML / MS
        if event.kind == "small_blind":
            return _("%(player)s missed the small blind") % {"player": who(event.seat)}
        return _("%(player)s missed the big blind") % {"player": who(event.seat)}
    if kind == "BlindPostingChosen":  # CASH-1, CASH-2: post what is owed, or wait for the big blind
        if event.post:
            return _("%(player)s will post the blinds owed at the next hand") % {"player": who(event.seat)}
        return _("%(player)s waits for the big blind") % {"player": who(event.seat)}
    if kind == "StreetStarted":
        # the game names its streets' phases in street order (then the showdown): StreetStarted.street
        names = [name for phase, name in game.phase_names.items() if phase != "showdown"]
        street = event.street
        return f"— {names[street]} —" if isinstance(street, int) and 0 <= street < len(names) else None
    if kind in ("CardsDealt", "CardsDealtHidden"):
        down = getattr(event, "down", getattr(event, "cards", ()))
        up = _known(getattr(event, "up", ()))
        seen = _known(down)
        hidden = getattr(event, "count", 0) or sum(1 for c in down or () if c is None)
        parts = []
        if seen:
            parts.append(
                _("%(player)s receives %(cards)s") % {"player": who(event.seat), "cards": " ".join(seen)}
            )
        elif hidden:
            text = ngettext(
                "%(player)s receives %(count)s card", "%(player)s receives %(count)s cards", hidden
            )
            parts.append(text % {"player": who(event.seat), "count": hidden})
        if up:
            text = _("%(player)s receives %(cards)s face up")
            parts.append(text % {"player": who(event.seat), "cards": " ".join(up)})
        return "; ".join(parts) or None
    if kind in ("StockReshuffled", "StockReshuffledPublic"):  # FD-1's draw, ST-1's 7th street
        if getattr(event, "community", False):
            return _("Too few cards for everyone: one community card for all.")
        return _("The stock ran out: the discards are reshuffled.")
    if kind in ("BoardDealt", "BoardDealtPublic"):
        return _("Board: %(cards)s") % {"cards": " ".join(_known(event.cards))}
    if kind == "Checked":
        return f"{who(event.seat)}: Check"
    if kind == "Folded":
        return f"{who(event.seat)}: Fold"
    if kind == "Called":
        return f"{who(event.seat)}: {'All-in' if event.all_in else 'Call'} (+{event.amount})"
    if kind == "BetPlaced":
        word = "All-in" if event.all_in else ("Bring-in" if getattr(event, "bring_in", False) else "Bet")
        return f"{who(event.seat)}: {word} {event.to}"
    if kind == "Raised":
        word = "All-in" if event.all_in else ("Complete" if getattr(event, "complete", False) else "Raise")
        return f"{who(event.seat)}: {word} {event.to}"
    if kind in ("Discarded", "DiscardedHidden"):
        cards = _known(getattr(event, "cards", ()))
        count = getattr(event, "count", None)
        count = len(getattr(event, "cards", ()) or ()) if count is None else count
        if count == 0:
            return f"{who(event.seat)}: Stand pat"
        return f"{who(event.seat)}: Draw {count}" + (f" ({' '.join(cards)})" if cards else "")
    if kind == "HandShown":
        return f"{who(event.seat)}: Show {' '.join(_known(event.cards))} — {event.label}"
    if kind == "HandMucked":
        return f"{who(event.seat)}: Muck"
    if kind == "HandEnded":
        return _("Hand over.")
    if kind in ("TurnStarted", "TimeBankUsed", "PlayerSeated", "PlayerRemoved"):
        return None
    return _SHARED


_CORE_ONLY = frozenset(
    {"StreetStarted", "ForcedBetPosted", "BoardDealt", "BoardDealtPublic", "CardTurnedUp", "CardsToTurnUp"}
)


def _core_event(kind: str, event: Any) -> bool:
    """Whether an Italian-family game's event is one of the shared core's (Telesina's), not poker
    all'italiana's own (which has an ``opening`` at the start and deals no up cards)."""
    if kind in _CORE_ONLY:
        return True
    if kind == "HandStarted":
        return not hasattr(event, "opening")
    if kind == "HandEnded":
        return not hasattr(event, "result")
    return kind in ("CardsDealt", "CardsDealtHidden") and hasattr(event, "up")


def _vele_line(kind: str, event: Any, who: Callable[[int], str], game: Game) -> str | None:
    """The log line of a core event of an Italian game (Telesina): the invito, the dealing rounds with
    their up cards, the vele turned (TL-VELE-1) and the card each player turns up (TL-DEAL-2)."""
    if kind == "HandStarted":
        return _("Hand %(number)s.") % {"number": event.number}
    if kind == "ForcedBetPosted":
        return f"{who(event.seat)}: {_('invito')} {event.amount}"
    if kind in ("BoardDealt", "BoardDealtPublic"):
        return _("Vele turned: %(cards)s") % {"cards": " ".join(_known(event.cards))}
    if kind == "CardsToTurnUp":
        return _("Each player turns one hidden card up.")
    if kind == "CardTurnedUp":
        if event.automatic:
            return _("%(player)s turns up %(card)s (time out: the card dealt last)") % {
                "player": who(event.seat),
                "card": event.card,
            }
        return _("%(player)s turns up %(card)s") % {"player": who(event.seat), "card": event.card}
    return _international_line(kind, event, who, game)


def _cinese_line(kind: str, event: Any, who: Callable[[int], str]) -> str | None:
    """The log line of a poker cinese event (issue 20; ``CN-*``): a game of a match, the arrangements
    (made, shown), each row's tokens (CN-4), the match's end (CN-5); :data:`_SHARED` for the lines every game
    words alike (cards dealt, the seed). Stakes appear only in the reveal's lines (``HandShown``)."""
    if kind == "MatchStarted":
        return _("Match %(number)s starts.") % {"number": event.number}
    if kind == "HandStarted":
        return _("Game %(game)s of match %(match)s: %(cards)s cards each.") % {
            "game": event.game,
            "match": event.match,
            "cards": event.cards,
        }
    if kind == "CardsDealt":
        return _("%(player)s receives %(cards)s") % {
            "player": who(event.seat),
            "cards": " ".join(_known(event.down)),
        }
    if kind == "CardsDealtHidden":
        text = ngettext(
            "%(player)s receives %(count)s card", "%(player)s receives %(count)s cards", event.count
        )
        return text % {"player": who(event.seat), "count": event.count}
    if kind in ("ArrangementSubmitted", "ArrangementHidden"):
        if event.automatic:
            return _("%(player)s ran out of time: the solver arranged the rows") % {"player": who(event.seat)}
        return _("%(player)s arranged the rows") % {"player": who(event.seat)}
    if kind == "HandShown":
        rows = " | ".join(" ".join(map(str, row)) for row in event.arrangement.rows)
        stakes = " · ".join(map(str, event.arrangement.stakes))
        return _("%(player)s shows %(rows)s, tokens %(stakes)s") % {
            "player": who(event.seat),
            "rows": rows,
            "stakes": stakes,
        }
    if kind == "RowWon":
        won = ", ".join(
            f"{who(seat)} {'+'.join(map(str, values)) or '0'}" for seat, values in event.won if values
        )
        return _("Row %(row)s: %(won)s") % {"row": event.row + 1, "won": won or _("nobody takes tokens")}
    if kind == "HandEnded":
        return _("Hand over.")
    if kind == "MatchEnded":
        totals = dict(event.totals)
        first = event.ranking[0] if event.ranking else ()
        return _("Match over: %(winners)s with %(points)s points.") % {
            "winners": ", ".join(who(seat) for seat in first),
            "points": totals.get(first[0], 0) if first else 0,
        }
    if kind in ("PlayerSeated", "PlayerRemoved"):
        return None
    return _SHARED


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

    if game.family is GameFamily.CINESE:
        line = _cinese_line(kind, event, who)
        if line is not _SHARED:
            return line
    elif game.family is not GameFamily.ITALIAN:
        line = _international_line(kind, event, who, game)
        if line is not _SHARED:
            return line
    elif _core_event(kind, event):  # an Italian game on the shared core (Telesina, TL-*)
        return _vele_line(kind, event, who, game)
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
        return f"{who(event.seat)}: MOSTRO {' '.join(map(str, event.cards))} — {_hand_name(event.label)}"
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
    if kind == "ChipsAdded":  # CASH-TOPUP-1: a top-up between hands
        return _("%(player)s adds %(chips)s chips") % {"player": who(event.seat), "chips": event.chips}
    if kind == "SeedRevealed":  # the hand's last event: the seed, shortened; the whole of it on hover
        text = _("Deck seed: %(seed)s") % {"seed": f"{event.seed[:8]}…"}
        return format_html('<span class="seed" title="{}">{}</span>', event.seed, text)
    return None


def public_entries(
    loaded: Loaded, username: str, events: list[RecordedEvent]
) -> list[tuple[int, Any, dict[int, str]]]:
    """``(version, public event, names by seat)`` for the game events among ``events`` (consecutive, the
    last at ``loaded.version``) as ``username`` may see them: each redacted and named by who sat in its seat
    *when it happened* (the game's ``public_log``, walking back from the seating of ``loaded``), not by
    today's seating: a player moved into a seat someone left sees none of that player's cards (issue 15)."""
    game = loaded.rules
    # a mixed-game table (issue 17): the events before its last TableGameChanged are another game's
    changes = [index for index, recorded in enumerate(events) if recorded.type == "TableGameChanged"]
    current = events[changes[-1] + 1 :] if changes else events
    engine_events = [
        (recorded.version, from_data(cls, recorded.data))
        for recorded in current
        if (cls := game.events.get(recorded.type)) is not None
    ]
    now = loaded.facts.seating
    entries = game.public_log([event for _version, event in engine_events], now, username)
    return [
        (
            version,
            entry.event,
            {seat: player for seat, player in enumerate(entry.seating) if player is not None},
        )
        for (version, _event), entry in zip(engine_events, entries, strict=True)
    ]


def log_lines(
    loaded: Loaded,
    username: str,
    events: list[RecordedEvent],
    entries: list[tuple[int, Any, dict[int, str]]] | None = None,
) -> list[tuple[int, str]]:
    """``(version, text)`` for ``events`` (consecutive, the last at ``loaded.version``) as ``username``
    may see them (:func:`public_entries`; ``entries``: already computed)."""
    game = loaded.rules
    if entries is None:
        entries = public_entries(loaded, username, events)
    texts = {version: describe(event, names, game) for version, event, names in entries}
    if game.family is GameFamily.ITALIAN:  # a last blind bettor's check that answers a call: VA BENE
        local = HandActs()
        for recorded in events:
            _fold_act(local, recorded)
        for version in local.va_bene | hand_acts(loaded, events).va_bene:
            if texts.get(version):
                texts[version] = str(texts[version]).replace(": BUSSO", ": VA BENE")
    names = {version: seats for version, _event, seats in entries}
    lines = []
    for recorded in events:
        text = texts.get(recorded.version)
        if text and _answered_by_preference(recorded, names.get(recorded.version, {})):
            text = _("%(action)s (automatic)") % {"action": text}
        if recorded.type == "TableClosed":
            text = _("The table is closed.")
        if recorded.type == "TableGameChanged":
            text = _("New level: the game is %(game)s.") % {"game": _game_name(recorded.data.get("game"))}
            if recorded.data.get("giro"):
                text = _("Giro pazzo: %(game)s, each dealer chooses the vele and the carta coperta.") % {
                    "game": _game_name(recorded.data.get("game"))
                }
            elif loaded.giro_pazzo and recorded.data.get("game") == loaded.base_game:
                text = _("The giro pazzo is over: the game is %(game)s again.") % {
                    "game": _game_name(recorded.data.get("game"))
                }
        giro_text = _giro_line(recorded)
        if giro_text:
            text = giro_text
        if text:
            lines.append((recorded.version, text))
    return lines


def _giro_line(recorded: RecordedEvent) -> str:
    """The log line of a giro pazzo event (TL-GIRO-1), ``""`` for one the log does not show."""
    data = recorded.data
    if recorded.type == "GiroPazzoStarted":
        return _("Giro pazzo! %(hand)s: the next round is Telesina, one hand dealt by each player.") % {
            "hand": data.get("trigger", "")
        }
    if recorded.type == "VariantChosen":
        values = {
            "dealer": data.get("player") or _("the table"),
            "layout": LAYOUT_NAMES.get(data.get("layout", ""), data.get("layout", "")),
            "distribution": DISTRIBUTION_NAMES.get(data.get("distribution", ""), data.get("distribution")),
        }
        if data.get("automatic"):
            automatic = _("The table chooses for %(dealer)s: vele %(layout)s, %(distribution)s (automatic).")
            return automatic % values
        return _("%(dealer)s chooses: vele %(layout)s, %(distribution)s.") % values
    if recorded.type == "GiroPazzoEnded":
        return _("The giro pazzo is over.")
    return ""


def _answered_by_preference(recorded: RecordedEvent, names: dict[int, str]) -> bool:
    """Whether ``recorded`` is a player's decision the table took for them from their preferences
    (IT-AUTO-1, :func:`tables.preferences.answered_by_preference`): the log says "(automatic)"."""
    return preferences.answered_by_preference(recorded, names.get)


def _game_name(code: object) -> str:
    """The name of the game ``code`` (the code itself if the registry does not know it)."""
    try:
        return find_game(str(code)).name
    except ValueError:
        return str(code)


def showdown(entries: list[tuple[int, Any, dict[int, str]]], full: bool) -> dict[str, Any] | None:
    """What the ``#last-hand`` box shows after ``entries``: the hands shown at the showdown of the last hand
    (``shown``: player, cards, the hand's name, G-SHOW-1) and who won what (``won``: player, chips), or
    ``None`` when ``entries`` change nothing there (no hand started, nothing shown or won; ``full``: a fresh
    page, which gets the box even empty). A new hand empties it."""
    start = max(
        (i for i, (_v, event, _n) in enumerate(entries) if type(event).__name__ == "HandStarted"), default=-1
    )
    shown, won, board = [], [], []
    for _version, event, names in entries[start + 1 :]:
        kind = type(event).__name__
        if kind in ("BoardDealt", "BoardDealtPublic"):
            board.extend(_known(event.cards))
        elif kind == "HandShown":
            name = names.get(event.seat, f"#{event.seat + 1}")
            shown.append({"player": name, "cards": _known(event.cards), "label": getattr(event, "label", "")})
        elif kind == "PotAwarded":
            won.extend(
                {"player": names.get(seat, f"#{seat + 1}"), "chips": chips} for seat, chips in event.shares
            )
    if not shown and not won and start < 0 and not full:
        return None
    winners = {w["player"] for w in won}
    for hand in shown:
        hand["winner"] = hand["player"] in winners
    for index, pot in enumerate(won):
        pot["delay_ms"] = index * POT_PUSH_MS  # one pot after the other
    hand_id = entries[start][0] if start >= 0 else 0
    return {"shown": shown, "won": won, "hand": hand_id, "board": board}


POT_PUSH_MS = 700
"""The showdown moment (``templates/tables/_last_hand.html``): each pot is pushed to its winner this many
milliseconds after the previous one; the page holds the moment 3 s after the last pot
(``static/js/mazziere.js``), while the table itself already shows the next hand."""


def recent_events(loaded: Loaded, after: int, limit: int = 120) -> list[RecordedEvent]:
    """The table's events after ``after`` (the last ``limit`` at most) to ``loaded.version``: from this
    process's window of recent events when it holds them (:func:`tables.service.recent`), else read."""
    start = max(after, loaded.version - limit)
    window = service.recent(loaded.table_id, start, loaded.version)
    if window is not None:
        return window
    return read_stream(service.stream_id(loaded.table_id), start, loaded.version)


def fragments(loaded: Loaded, username: str, after: int, events: list[RecordedEvent] | None = None) -> str:
    """The out-of-band swaps bringing a page at version ``after`` (0: a fresh page) to ``loaded.version``."""
    if events is None:
        events = recent_events(loaded, after)
    entries = public_entries(loaded, username, events)
    lines = log_lines(loaded, username, events, entries)
    # a hand's first line starts a group: the page shows the current hand's, earlier ones a click away
    starts = {v for v, event, _n in entries if type(event).__name__ == "HandStarted"}
    starts |= {e.version for e in events if e.type == "TableGameChanged"}
    triples = [(version, text, version in starts) for version, text in lines]
    log = render_to_string("tables/_log.html", {"lines": triples, "replace": after == 0})
    html = table_html(loaded, username, events)
    result = showdown(entries, after == 0)
    started = any(type(event).__name__ == "HandStarted" for _v, event, _n in entries)
    if result is not None and after and not started:
        # an update in the middle of a showdown: the box shows the whole hand's, read back (rare)
        everything = recent_events(loaded, 0)
        result = showdown(public_entries(loaded, username, everything), True)
    if result is not None:
        html += render_to_string("tables/_last_hand.html", result)
    return html + log
