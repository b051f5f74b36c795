"""Poker cinese as a game of the registry (``CN``, issue 20): :class:`CineseGame` implements
:class:`engine.core.game.Game` over :mod:`engine.cinese.rules`.

Not a betting game (``betting = False``, :func:`engine.core.game.is_betting`): no forced bets (only the empty
:class:`ForcedBets` is accepted), no amounts, chips are only the stack a player brings (never changed). A
*hand* of the service is one game of a match; ``to_act`` is every dealt seat that has not submitted. Members
that cannot apply: ``dealer_command`` is always ``None`` (one command deals the whole game);
``reshuffle_order`` returns the pile sorted (no reshuffles).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from engine.cards import Card, Deck
from engine.cinese import rules
from engine.cinese.history import CineseHistory, export_game
from engine.cinese.model import (
    GAMES_PER_MATCH,
    Arrangement,
    CineseConfig,
    CineseError,
    CineseState,
    Command,
    Event,
    NoGameRunning,
    NotDealtIn,
    NotEnoughPlayers,
    StartGame,
    Submit,
    TimeNotUp,
    TimeoutExpired,
)
from engine.cinese.solver import Solution, estimate, row_sizes, solve_with
from engine.cinese.view import CineseView, legal_actions, public_log, view
from engine.codec import registry
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import NO_FORCED_BETS, Chooser, GameFamily, TableFacts
from engine.core.generic import SeatedGame
from engine.core.view import LogEntry

__all__ = ["CineseGame", "decode_stakes", "encode_stakes"]

BOT_SAMPLES = 8
"""The Monte Carlo samples of the bot's solver (fewer than a time-out's, so bots answer quickly)."""


def encode_stakes(stakes: Sequence[int]) -> int:
    """The three stakes as the one ``amount`` of :meth:`CineseGame.player_command`:
    ``100·s1 + 10·s2 + s3``."""
    first, second, third = stakes
    return 100 * first + 10 * second + third


def decode_stakes(amount: int) -> tuple[int, int, int]:
    """The inverse of :func:`encode_stakes`. Raises :class:`CineseError` outside 0–444."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= 999:
        raise CineseError(
            "the stakes are three token values, sent as one number: 100·first + 10·second + third"
        )
    return amount // 100, amount // 10 % 10, amount % 10


class CineseGame(SeatedGame):
    """Poker cinese, ``CN`` (rules CN-1 … CN-5, CN-TIME-1). See the module doc."""

    __slots__ = ()

    code = "CN"
    name = "Poker cinese"
    table_options: Mapping[str, tuple[str, ...]] = MappingProxyType(
        {"cascade": ("no", "yes"), "games": (str(GAMES_PER_MATCH), "1")}
    )
    """:meth:`table_config`'s own options, the default first: the cascade payout (CN-4) and the games of a
    match (3, CN-5; 1 for a knockout's extra game)."""
    short_name = "Cinese"
    family = GameFamily.CINESE
    limit = ""
    betting = False
    min_seats = 2
    max_seats = 4
    actions: tuple[str, ...] = ("submit",)
    events: Mapping[str, type] = MappingProxyType(registry(Event))
    config_type: type = CineseConfig
    state_type: type = CineseState
    phase_names: Mapping[str, str] = MappingProxyType({"arranging": "Composizione", "between": "Attesa"})
    glosses: Mapping[str, str] = MappingProxyType({"Submit": "Submit"})
    amount_actions: frozenset[str] = frozenset()
    illegal_action: type[Exception] = CineseError
    too_early: type[Exception] = TimeNotUp

    # --- the decider -------------------------------------------------------------------------------------

    def deck(self, players: int) -> Deck:
        """The 52-card deck (CN-1)."""
        return Deck.standard()

    def initial_state(self, config: CineseConfig) -> CineseState:
        return rules.initial_state(config)

    def decide(self, state: CineseState, command: Command) -> tuple[Event, ...]:
        return rules.apply(state, command)[1]

    def apply(self, state: CineseState, command: Command) -> tuple[CineseState, tuple[Event, ...]]:
        return rules.apply(state, command)

    def evolve(self, state: CineseState, event: Event) -> CineseState:
        return rules.evolve(state, event)

    def to_act(self, state: CineseState) -> frozenset[int]:
        return rules.to_act(state)

    def legal_actions(self, state: CineseState, seat: int) -> tuple[Any, ...]:
        return legal_actions(state, seat)

    def submit_command(
        self, seat: int, rows: Sequence[Sequence[Card]], stakes: Sequence[int], at: int
    ) -> Submit:
        """The command submitting ``rows`` (first, second, third) and ``stakes`` (one token per row)."""
        return Submit(seat, Arrangement(tuple(tuple(row) for row in rows), tuple(stakes)), at)

    def player_command(
        self, state: CineseState, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Command:
        """``submit``: ``cards`` are the rows in order (first five, next five, the rest) and ``amount`` the
        stakes (:func:`encode_stakes`); with no cards, the solver's suggestion (:meth:`suggest`) is submitted.
        Raises :class:`CineseError` for another action, or cards without stakes."""
        if action != "submit":
            raise CineseError(f"unknown action {action!r}: poker cinese has only 'submit'")
        if not cards:
            hand = state.hand
            if hand is None:
                raise NoGameRunning("no game is running")
            solution = self.suggest(state, seat, f"{hand.hand_id}/{hand.number}/{seat}/suggest")
            return Submit(seat, Arrangement(solution.rows, solution.stakes), at)
        if amount is None:
            raise CineseError("stake one token on each hand: the amount carries the three stakes")
        hand = state.hand
        players = len(hand.dealt) if hand is not None else 2
        a, b, _ = row_sizes(players)
        listed = tuple(cards)
        rows = (listed[:a], listed[a : a + b], listed[a + b :])
        return Submit(seat, Arrangement(rows, decode_stakes(amount)), at)

    def suggest(self, state: CineseState, seat: int, seed: str, samples: int | None = None) -> Solution:
        """The solver's arrangement and stakes for ``seat`` now (the page's "suggest" button, CN-TIME-1);
        ``seed``: the Monte Carlo seed (data). Raises :class:`NoGameRunning` or ``NotDealtIn``."""
        hand, match = state.hand, state.match
        if hand is None or match is None:
            raise NoGameRunning("no game is running")
        if seat not in hand.dealt:
            raise NotDealtIn(f"seat {seat} has no cards in this game")
        est = estimate(
            hand.cards[seat],
            match.unused[seat],
            [match.unused[s] for s in hand.dealt if s != seat],
            games_after=state.config.games - 1 - match.games,
            cascade=state.config.cascade,
            seed=seed,
            samples=samples or state.config.samples,
        )
        return solve_with(est, hand.cards[seat])

    def dealer_command(self, state: CineseState, at: int) -> None:
        """Nothing to deal after the start: :class:`StartGame` deals the whole game."""
        return None

    def bot_command(self, state: CineseState, seat: int, rng: Chooser, at: int) -> Command:
        """The solver's arrangement (:data:`BOT_SAMPLES` samples, seeded from ``rng``)."""
        solution = self.suggest(state, seat, f"bot-{rng.randrange(0, 2**31)}", BOT_SAMPLES)
        return Submit(seat, Arrangement(solution.rows, solution.stakes), at)

    def view(self, state: CineseState, viewer: int | None = None, reveal: bool = False) -> CineseView:
        return view(state, viewer, reveal)

    def public_log(
        self, events: Sequence[Any], now: tuple[str | None, ...], viewer: str | None, reveal: bool = False
    ) -> tuple[LogEntry, ...]:
        return public_log(events, now, viewer, reveal)

    # --- for the service -----------------------------------------------------------------------------------

    def facts(self, state: CineseState) -> TableFacts:
        hand = state.hand
        return TableFacts(
            hand_number=state.hand_number,
            button=-1,
            in_hand=hand is not None,
            to_act=rules.to_act(state),
            deadline_ms=hand.deadline if hand is not None else None,
            forced_bet=0,
            seats=self.seat_facts(state),
            carried=0,
            reveal_due=hand is None and bool(state.commitment) and not state.seed_revealed,
            forced=NO_FORCED_BETS,
            big_blind=-1,
        )

    @staticmethod
    def deadline(state: Any) -> int | None:
        hand = state.hand
        return None if hand is None else int(hand.deadline)

    def check_forced_bets(self, forced: ForcedBets) -> None:
        """Poker cinese has no forced bets: only an empty :class:`ForcedBets`. Raises
        :class:`ForcedBetsRefused` naming the first field set."""
        if not isinstance(forced, ForcedBets):
            raise ForcedBetsRefused("ante", "the forced bets must be a ForcedBets")
        for field in sorted(forced.used()):
            raise ForcedBetsRefused(field, "poker cinese has no forced bets (CN-3: tokens, not chips)")

    def table_config(
        self,
        *,
        seats: int,
        tournament: bool,
        forced: ForcedBets,
        action_time_ms: int,
        time_bank_ms: int,
        cascade: str = "no",
        games: str = str(GAMES_PER_MATCH),
    ) -> CineseConfig:
        """A table of ``seats`` (2–4) with the default tokens (the token set is built as a
        :class:`CineseConfig`). The game's own options (:attr:`table_options`, a ``str`` each, what a
        tournament of matches passes by name): ``cascade`` ``"yes"``/``"no"`` (CN-4's cascade payout) and
        ``games`` ``"3"`` (a match, CN-5) or ``"1"`` (a knockout's extra game: a one-game match with a fresh
        set of tokens). Raises ``ValueError`` (seats, or an option value not in :attr:`table_options`)."""
        self.check_forced_bets(forced)
        for name, value in (("cascade", cascade), ("games", games)):
            if value not in self.table_options[name]:
                allowed = ", ".join(self.table_options[name])
                raise ValueError(f"poker cinese: option {name}={value!r} is not one of {allowed}")
        config = CineseConfig(
            seats=seats,
            action_time_ms=action_time_ms,
            time_bank_ms=time_bank_ms,
            tournament=tournament,
            cascade=cascade == "yes",
            games=int(games),
        )
        rules.initial_state(config)  # validates
        return config

    def can_start_hand(self, state: CineseState) -> bool:
        return state.hand is None and len(rules.players_for_next_game(state)) >= 2

    def start_command(
        self,
        state: CineseState,
        deal: Callable[[Deck], tuple[Card, ...]],
        *,
        at: int,
        forced: ForcedBets | None,
        button: int | None,
        hand_id: str,
        commitment: str,
        algorithm: str,
    ) -> StartGame:
        """A :class:`StartGame` with the 52-card deck shuffled by ``deal`` (``forced`` and ``button`` do
        not apply). Raises :class:`NotEnoughPlayers`."""
        if not self.can_start_hand(state):
            raise NotEnoughPlayers("poker cinese needs 2 to 4 players and no game running (CN-1)")
        deck = deal(self.deck(len(rules.players_for_next_game(state))))
        return StartGame(tuple(deck), at, hand_id, commitment, algorithm)

    def timeout_command(self, state: CineseState, at: int) -> TimeoutExpired | None:
        """:class:`TimeoutExpired` for every seat still to submit (``None``: no game or nobody)."""
        if state.hand is None or not rules.to_act(state):
            return None
        return TimeoutExpired(-1, at)

    def reshuffle_order(self, deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
        return tuple(sorted(pile, key=lambda card: card.code))

    def export_hand(self, before: CineseState, events: Sequence[Any]) -> CineseHistory:
        """The poker cinese hand history of one game (:mod:`engine.cinese.history`). Raises ``ValueError``."""
        return export_game(before, events)
