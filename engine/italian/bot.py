"""Poker all'italiana's bot, kept importable here: a re-export of
:mod:`engine.games.italian.bot` (issue 16 moved poker all'italiana into :mod:`engine.games.italian`)."""

from engine.games.italian.bot import (
    Chooser,
    HandPlay,
    bot_command,
    choose_discards,
    play_hand,
)

__all__ = [
    "Chooser",
    "HandPlay",
    "bot_command",
    "choose_discards",
    "play_hand",
]
