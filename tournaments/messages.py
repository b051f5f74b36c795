"""The pages' messages for refused tournament and table commands, in the active language (issue 18).

The rules refuse in Italian (``str()``) with an English twin (``english``: :class:`engine.tournament.mtt.
TournamentError`); the table service's usual refusals are Italian only and have their English in
:data:`tables.consumers.ENGLISH`. A page never shows the other language's text, nor an engine's raw English
(a :class:`engine.tournament.payouts.PayoutError`): those go through :func:`payout_refusal`.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext as _

from engine.tournament import payouts


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def refusal(error: Exception) -> str:
    """``error``'s message in the active language: Italian as raised, English from its ``english``
    (a tournament rule, the table service's refusal, or the cause of a wrapped one), else
    :func:`tables.consumers.english_of`."""
    italian = str(getattr(error, "detail", error))
    if (translation.get_language() or "it").startswith("it"):
        return italian
    english = getattr(error, "english", None) or getattr(error.__cause__, "english", None)
    if isinstance(english, str) and english:
        return _sentence(english)
    from tables.consumers import english_of  # a refusal without its English

    return english_of(italian)


def payout_refusal(error: payouts.PayoutError, players: int) -> str:
    """A deal the calculator cannot compute (T-PAY-1), in the active language: too many players for ICM
    (:data:`engine.tournament.payouts.MAX_ICM_PLAYERS`), else a general message (the engine's English
    reason is for the logs, not the page)."""
    if players > payouts.MAX_ICM_PLAYERS:
        return _(
            "ICM is computed for at most %(most)s players, and %(players)s are still in: use the chip chop."
        ) % {
            "most": payouts.MAX_ICM_PLAYERS,
            "players": players,
        }
    return _("This deal cannot be computed from the stacks and prizes recorded.")
